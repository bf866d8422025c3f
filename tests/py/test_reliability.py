"""Bad data and hostile input never kill the process (issue 12): each case is one
`rlx: error:` line and exit status 1 (or, where ONNX defines one, the documented result).

Usage: test_reliability.py PATH/TO/rlx"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

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

finish()
