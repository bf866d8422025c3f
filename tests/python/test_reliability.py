"""Bad data and hostile input never kill the process (issue 12): each case is one
`rlx: error:` line and exit status 1 (or, where ONNX defines one, the documented result).

Usage: test_reliability.py PATH/TO/rlx"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from harness import Tool, check, finish

tool = Tool(sys.argv[1])


def model(name, nodes, inputs, outputs, opset=13):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    p = os.path.join(tool.tmp, name + ".onnx")
    onnx.save(m, p)
    return p


def npy(name, a):
    p = os.path.join(tool.tmp, name + ".npy")
    np.save(p, a)
    return p


# Integer division and modulo by zero: the kernel reports it (no SIGFPE), compiled and run.
I32 = TensorProto.INT32
for op, attrs in (("Div", {}), ("Mod", {"fmod": 0})):
    for dt, npdt in ((I32, np.int32), (TensorProto.INT64, np.int64), (TensorProto.UINT8, np.uint8)):
        m = model("%s_%d" % (op, dt), [helper.make_node(op, ["a", "b"], ["c"], **attrs)],
                  [("a", dt, [40]), ("b", dt, [40])], [("c", dt, [40])])
        a = npy("a_%d" % dt, np.arange(1, 41).astype(npdt))
        b = np.arange(1, 41).astype(npdt)
        good = npy("b_%d" % dt, b)
        ok, _ = tool.ok("run", m, "-i", a, "-i", good, "-o", os.path.join(tool.tmp, "out"))
        b[17] = 0
        zero = npy("bz_%d" % dt, b)
        tool.fails(["run", m, "-i", a, "-i", zero], ["integer division by zero"], "%s by zero (dtype %d)" % (op, dt))
# INT_MIN / -1 wraps instead of trapping.
m = model("div_min", [helper.make_node("Div", ["a", "b"], ["c"])], [("a", I32, [2]), ("b", I32, [2])],
          [("c", I32, [2])])
out = os.path.join(tool.tmp, "div_min")
ok, _ = tool.ok("run", m, "-i", npy("amin", np.array([-2**31, 7], np.int32)), "-i",
                npy("bm1", np.array([-1, -1], np.int32)), "-o", out, "--format", "npy")
if ok:
    got = np.load(os.path.join(out, "output_0.npy"))
    check(list(got) == [-2**31, -7], "INT_MIN / -1: got %s" % got)

# Out-of-range indices never read or write outside a tensor: Gather, GatherElements and
# GatherND wrap them (ONNX's negative-index rule, extended), ScatterElements and ScatterND
# skip the updates whose index is out of range. NaN cast to an index is one more
# out-of-range index. Each runs, compiled, without a crash.
F32, I64 = TensorProto.FLOAT, TensorProto.INT64
d = np.arange(12, dtype=np.float32).reshape(4, 3)
cases = [
    ("gather", [helper.make_node("Gather", ["d", "i"], ["o"], axis=0)], [("i", I64, [2])], [("o", F32, [2, 3])],
     [np.array([1, 1000001], np.int64)], np.stack([d[1], d[1]])),
    ("gather_neg", [helper.make_node("Gather", ["d", "i"], ["o"], axis=0)], [("i", I64, [2])], [("o", F32, [2, 3])],
     [np.array([-1, -(2**62)], np.int64)], np.stack([d[3], d[0]])),
    ("gather_elements", [helper.make_node("GatherElements", ["d", "i"], ["o"], axis=1)], [("i", I64, [4, 2])],
     [("o", F32, [4, 2])], [np.array([[0, 1]] * 3 + [[0, 99999]], np.int64)], None),
    ("gather_nd", [helper.make_node("GatherND", ["d", "i"], ["o"])], [("i", I64, [2, 2])], [("o", F32, [2])],
     [np.array([[0, 1], [4000, -7]], np.int64)], None),
    ("scatter_elements", [helper.make_node("ScatterElements", ["d", "i", "u"], ["o"], axis=1)],
     [("i", I64, [4, 2]), ("u", F32, [4, 2])], [("o", F32, [4, 3])],
     [np.array([[0, 1]] * 3 + [[0, 99999]], np.int64), np.ones((4, 2), np.float32)], None),
    ("scatter_nd", [helper.make_node("ScatterND", ["d", "i", "u"], ["o"])], [("i", I64, [2, 2]), ("u", F32, [2])],
     [("o", F32, [4, 3])], [np.array([[0, 1], [4000, 2]], np.int64), np.ones(2, np.float32)], None),
    ("gather_nan", [helper.make_node("Cast", ["f"], ["i"], to=I64), helper.make_node("Gather", ["d", "i"], ["o"])],
     [("f", F32, [3])], [("o", F32, [3, 3])], [np.array([np.nan, np.inf, -np.inf], np.float32)], None),
]
for name, nodes, extra_in, outs, vals, want in cases:
    m = model(name, nodes, [("d", F32, [4, 3])] + extra_in, outs)
    ins = ["-i", npy(name + "_d", d)]
    for k, v in enumerate(vals):
        ins += ["-i", npy("%s_%d" % (name, k), v)]
    out = os.path.join(tool.tmp, name)
    ok, _ = tool.ok("run", m, *ins, "-o", out, "--format", "npy")
    if ok and want is not None:
        got = np.load(os.path.join(out, "output_0.npy"))
        check(np.array_equal(got, want), "%s: got %s, want %s" % (name, got, want))

# Deeply nested input is an error with a message, not a stack overflow.
deep = tool.file("deep_expr.py", "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0] = " +
                 "(" * 100000 + "1" + ")" * 100000 + "\n")
tool.fails(["print", deep], ["levels of nesting"], "deeply nested TVMScript expression")
long_sum = tool.file("long_sum.py", "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0] = " +
                     " + ".join(["A[1]"] * 100000) + "\n")
tool.fails(["print", long_sum], ["levels deep"], "100000-term TVMScript sum")


def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def nested_graphs(levels):
    """A ModelProto whose graph holds a node whose attribute holds a graph ... `levels` deep
    (the protobuf written directly, outside in: onnx itself recurses)."""
    def head(field, n):
        return varint(field << 3 | 2) + varint(n)
    size, heads = 0, []
    for _ in range(levels):  # graph.node (1) -> node.attribute (5) -> attribute.g (6)
        h = head(6, size)
        size += len(h)
        n = head(5, size)
        size += len(n)
        g = head(1, size)
        size += len(g)
        heads.append(g + n + h)
    body = b"".join(reversed(heads))
    return varint(1 << 3) + varint(8) + head(7, len(body)) + body + head(8, 2) + varint(2 << 3) + varint(13)


deep_onnx = os.path.join(tool.tmp, "deep.onnx")
with open(deep_onnx, "wb") as f:
    f.write(nested_graphs(100000))
tool.fails(["print", deep_onnx], ["nested more than"], "ONNX subgraphs nested 100000 deep")
shallow = os.path.join(tool.tmp, "shallow.onnx")
with open(shallow, "wb") as f:
    f.write(nested_graphs(20))
tool.fails(["print", shallow], ["no op_type"], "ONNX subgraphs nested 20 deep reach the importer")

# Names the file leaves out (proto2 reads an absent string as no string at all) anywhere the
# importer looks names up -- subgraphs, value infos, attributes, local functions -- are one
# error saying where (a NULL name once reached the importer's string map from a subgraph).
def no_name(tag, graph=None, edit=None):
    x, y = (helper.make_tensor_value_info(n, F32, [2]) for n in ("x", "y"))
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=graph, else_branch=graph)] if graph else \
        [helper.make_node("Relu", ["x"], ["y"])]
    m = helper.make_model(helper.make_graph(nodes, "g", [x, c], [y]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    if edit:
        edit(m)
    p = os.path.join(tool.tmp, "noname_%s.onnx" % tag)
    with open(p, "wb") as f:
        f.write(m.SerializeToString())
    return p


def branch(init=None, out_name="t", op="Add", inputs=()):
    g = helper.make_graph([helper.make_node(op or "Add", ["x", "x"], ["t"])], "b",
                          [helper.make_tensor_value_info(n, F32, [2]) for n in inputs],
                          [helper.make_tensor_value_info("t", F32, [2])], initializer=[init] if init else [])
    if out_name is None:
        g.output[0].ClearField("name")
    if op is None:
        g.node[0].ClearField("op_type")
    for i in g.input:
        i.ClearField("name")
    if init:
        g.initializer[0].ClearField("name")
    return g


def unnamed_attr(m):
    m.graph.node[0].attribute.add(f=1.0, type=onnx.AttributeProto.FLOAT)


def unnamed_value_info(m):
    m.graph.value_info.append(helper.make_tensor_value_info("t", F32, [2]))
    m.graph.value_info[0].ClearField("name")


def unnamed_function(m, clear="name"):
    f = helper.make_function("d", "F", ["a"], ["b"], [helper.make_node("Relu", ["a"], ["b"])],
                             [helper.make_opsetid("", 17)])
    f.ClearField(clear) if clear == "name" else f.node[0].ClearField("op_type")
    m.functions.append(f)


sub = "subgraph 'else_branch' of node #0 (If) in the graph: "  # make_node sorts the attributes
for tag, args, want in (
        ("sub_init", dict(graph=branch(init=numpy_helper.from_array(np.ones(2, np.float32), "k"))),
         sub + "initializer #0 has no name"),
        ("sub_output", dict(graph=branch(out_name=None)), sub + "graph output #0 has no name"),
        ("sub_input", dict(graph=branch(inputs=["z"])), sub + "graph input #0 has no name"),
        ("sub_op", dict(graph=branch(op=None)), sub + "node #0 has no op_type"),
        ("attr", dict(edit=unnamed_attr), "the graph: attribute #0 of node #0 (Relu) has no name"),
        ("value_info", dict(edit=unnamed_value_info), "the graph: value_info #0 has no name"),
        ("function", dict(edit=unnamed_function), "function #0 has no name"),
        ("function_op", dict(edit=lambda m: unnamed_function(m, "op")), "function 'F': node #0 has no op_type")):
    tool.fails(["print", no_name(tag, **args)], [want], "missing name: " + tag)

# Huge shapes: more elements or bytes than int64 counts, or more bytes than RLX_MAX_ALLOC,
# are one error naming the tensor (never a wrapped size, a write outside a buffer or an
# OOM kill). Static shapes fail when compiled, run-time shapes when the VM or a kernel
# allocates.
def one_error(args, needles, what, env=None):
    saved = tool.env
    if env:
        tool.env = dict(saved, **env)
    rc, _, err = tool.run(*args)
    tool.env = saved
    # ASan's own note on a failed huge allocation (sanitizer build) is not rlx's message
    err = "".join(l for l in err.splitlines(True) if "AddressSanitizer failed to allocate" not in l)
    check(rc == 1 and err.startswith("rlx: error:") and all(n in err for n in needles),
          "%s: rc=%d stderr=%r, wanted %r" % (what, rc, err, needles))
    check(err.count("\n") == 1, "%s: more than one line: %r" % (what, err))


x1 = npy("x1", np.array([1.5], np.float32))
for dims, tag in (([2**40, 2**40, 16], "ovf"), ([100, 100, 10], "small")):
    s_init = numpy_helper.from_array(np.array(dims, np.int64), "s")
    g = helper.make_graph([helper.make_node("Expand", ["x", "s"], ["t"]), helper.make_node("Relu", ["t"], ["u"]),
                           helper.make_node("ReduceSum", ["u"], ["y"], keepdims=0)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=[s_init])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    p = os.path.join(tool.tmp, "expand_%s.onnx" % tag)
    onnx.save(m, p)
    if tag == "ovf":
        one_error(["run", p, "-i", x1], ["tensor 'lv' of shape (1099511627776, 1099511627776, 16) float32 has more "
                                         "elements or bytes than int64 can count"], "static 2^84-element shape")
    else:
        ok, _ = tool.ok("run", p, "-i", x1, "-o", os.path.join(tool.tmp, "exp_small"), "--format", "npy")
        if ok:
            got = np.load(os.path.join(tool.tmp, "exp_small", "output_0.npy"))
            check(float(got) == 1.5e5, "Expand 100x100x10 then sum: got %s, want 150000 exactly" % got)
# Shape arithmetic that overflows int64 while shapes are inferred (constant folding once
# wrapped it: a Tile of 4 elements by 2^62 inferred 0 elements and ran) is one error naming
# the node, the op and the overflowing dimension.
def ovf_model(tag, node, x_shape, inits):
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F32, x_shape)],
                          [helper.make_tensor_value_info("y", F32, None)],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    p = os.path.join(tool.tmp, "shape_ovf_%s.onnx" % tag)
    onnx.save(m, p)
    return p


x4 = npy("x4", np.arange(4, dtype=np.float32))
p = ovf_model("tile", helper.make_node("Tile", ["x", "s"], ["y"]), [4], {"s": np.array([2**62], np.int64)})
one_error(["run", p, "-i", x4], ["node (Tile) producing 'y'", "relax.tile", "dimension 0 of the result overflows int64: "
                                 "4 * 4611686018427387904"], "Tile of 4 elements by 2^62")
for tag, node, shape, inits, want in (
        ("concat", helper.make_node("Concat", ["x", "x"], ["y"], axis=0), [3 * 2**61], {},
         "relax.concat): dimension 0 of the result overflows int64: 6917529027641081856 + 6917529027641081856"),
        ("pad", helper.make_node("Pad", ["x", "p"], ["y"]), [2**63 - 10], {"p": np.array([50, 50], np.int64)},
         "relax.nn.pad): dimension 0 of the result overflows int64: 9223372036854775798 + 100"),
        ("resize", helper.make_node("Resize", ["x", "", "sc"], ["y"]), [1, 1, 2**40, 4],
         {"sc": np.array([1, 1, 2**30, 1], np.float32)},
         "node (Resize) producing 'y': the size of axis 2, 1099511627776 scaled by 1.07374e+09, overflows int64")):
    one_error(["print", ovf_model(tag, node, shape, inits)], [want], "shape overflow: " + tag)
head = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n" \
       "    @R.function\n"
tile_py = tool.file("tile_ovf.py", head + "    def main(x: R.Tensor((4,), dtype=\"float32\")):\n"
                    "        lv = R.tile(x, repeats=[4611686018427387904])\n        return lv\n")
one_error(["print", tile_py], ["tile_ovf.py:8:", "Call(relax.tile): dimension 0 of the result overflows int64"],
          "TVMScript R.tile by 2^62")
ann_py = tool.file("ann_ovf.py", head + "    def main(x: R.Tensor((4 * 4611686018427387904,), dtype=\"float32\")):\n"
                   "        return x\n")
one_error(["compile", ann_py, "-o", os.path.join(tool.tmp, "ann_ovf.so")],
          ["function 'main': dimension 0 of tensor 'x' overflows int64: 4 * 4611686018427387904"],
          "TVMScript parameter annotated with an overflowing shape")
# shapes known only when run: ConstantOfShape(s) alone (the VM allocates the output) and
# followed by Relu and ReduceSum (the fused kernel allocates the 3-d temporary itself)
for chain in (False, True):
    nodes = [helper.make_node("ConstantOfShape", ["s"], ["t"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))]
    if chain:
        nodes += [helper.make_node("Relu", ["t"], ["u"]), helper.make_node("ReduceSum", ["u"], ["y"], keepdims=0)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("s", I64, [3])],
                          [helper.make_tensor_value_info("y" if chain else "t", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    p = os.path.join(tool.tmp, "cos_%d.onnx" % chain)
    onnx.save(m, p)
    if not chain:  # a 40 MB output over a 1 MB limit (kernels' own temporaries are not limited)
        one_error(["run", p, "-i", npy("s_mid", np.array([1000, 1000, 10], np.int64))],
                  ["needs 40000000 bytes, more than the limit of 1048576 (RLX_MAX_ALLOC"], "RLX_MAX_ALLOC=1M",
                  env={"RLX_MAX_ALLOC": "1M"})
    for dims in ([2**40, 2**40, 4], [2**62, 2, 3], [100000, 100000, 100000]):
        sp = npy("s_%d_%d" % (chain, dims[0]), np.array(dims, np.int64))
        if chain:
            want = ["fused_full_relu_sum: out of memory allocating a temporary buffer"]
        elif dims[0] == 100000:
            want = ["vm.builtin.empty", "a tensor of shape (100000, 100000, 100000) float32 needs 4000000000000000 "
                    "bytes, more than the limit"]
        else:
            want = ["vm.builtin.empty", "of float32 is too large"]
        # under ASan an allocation that large aborts unless the allocator may return NULL
        asan = {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1"}
        one_error(["run", p, "-i", sp], want, "ConstantOfShape%s %s" % (" + Relu + ReduceSum" if chain else "", dims),
                  env=asan)

finish()
