#!/usr/bin/env python3
"""ONNX sequences whose length is decided at run time (VM lists) and optionals (issue 11), run as
a user runs them (`rlx run model.onnx -i x.pb ... -o OUT`, SequenceProto / OptionalProto files
in and out), against numpy:

- a sequence graph input: SequenceLength, SequenceAt / Insert / Erase at a run-time position,
  on sequences of 1, 3 and 5 elements of different lengths (fresh dims per element);
- Loop accumulating a sequence for a trip count given at run time (0, 2 and 4 elements);
- SequenceMap over a sequence input with a tensor side input, and over two sequences;
- optionals: OptionalHasElement of an empty and a present optional tensor, OptionalGetElement
  of a present one, an Optional built in the graph, and If returning an empty or a present
  optional sequence;
- string tensors: StringNormalizer (stopwords ignoring case, lower case, nothing left), Cast
  of floats to strings (numpy's shortest form) and back, strings to int64;
- ConcatFromSequence of run-time-length sequences: a graph input of 1, 3 and 5 elements of
  different lengths (axis -1), stacked with new_axis (axis -1 and 0), and a Loop accumulating
  1, 2 and 4 elements (M and the element length given at run time) then concatenated and
  stacked, against numpy's concatenate / stack;
- errors: a string that is not a number, OptionalGetElement of an empty optional (a run-time
  error), ConcatFromSequence of mismatched dims and of an empty sequence (run-time errors), a
  value file that is not a SequenceProto, an out-of-range position (the builtin's message).
Values are compared exactly (the models only move data, add and multiply once), except
the Loop's i * x + i (rtol 1e-6: a fused multiply-add).

    test_onnx_sequences.py RLX"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
vi = helper.make_tensor_value_info


def seq_vi(name, elem, shape):
    return helper.make_value_info(name, helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, shape)))


def opt_vi(name, tp):
    return helper.make_value_info(name, helper.make_optional_type_proto(tp))


def save(tag, k, value):
    """Writes value (an array, a list of arrays, or ('opt', value-or-None)) as input k's .pb."""
    p = os.path.join(tool.tmp, "%s_in%d.pb" % (tag, k))
    if isinstance(value, tuple):
        m = numpy_helper.from_optional(value[1], name="x")
    elif isinstance(value, list):
        m = numpy_helper.from_list(value, name="x")
    else:
        m = numpy_helper.from_array(value)
    with open(p, "wb") as f:
        f.write(m.SerializeToString())
    return p


def load(path, tp):
    m = {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto}.get(tp.WhichOneof("value"),
                                                                                    onnx.TensorProto)()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    if isinstance(m, onnx.SequenceProto):
        return numpy_helper.to_list(m)
    if isinstance(m, onnx.OptionalProto):
        return numpy_helper.to_optional(m)
    return numpy_helper.to_array(m)


def run(path, values, tag, expect_ok=True):
    """rlx run MODEL.onnx on the values; (outputs by their declared types or None, stderr)."""
    args = ["run", path]
    for k, v in enumerate(values):
        args += ["-i", save(tag, k, v)]
    out = os.path.join(tool.tmp, "out_" + tag)
    rc, _, err = tool.run(*(args + ["-o", out]))
    if expect_ok:
        check(rc == 0, "%s: rlx run failed: %s" % (tag, err))
    if rc != 0:
        return None, err
    outs = onnx.load(path).graph.output
    return [load(os.path.join(out, "output_%d.pb" % k), o.type) for k, o in enumerate(outs)], err


def same(got, want, what):
    if isinstance(want, list):
        good = isinstance(got, list) and len(got) == len(want) and all(
            g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w) for g, w in zip(got, want))
    elif want is None:
        good = got is None
    else:
        good = got is not None and not isinstance(got, list) and got.dtype == want.dtype and \
            got.shape == want.shape and np.array_equal(got, want)
    check(good, "%s: got %r, expected %r" % (what, got, want))


def model(name, nodes, inputs, outputs, opset=17, inits=()):
    return onnx_model(tool, name, nodes, inputs, outputs, opset, inits)


rng = np.random.default_rng(7)

# --- a sequence graph input: length, at, insert, erase at run-time positions --------------
path = model("seq_ops", [helper.make_node("SequenceLength", ["s"], ["n"]),
                         helper.make_node("SequenceAt", ["s", "p"], ["at"]),
                         helper.make_node("SequenceInsert", ["s", "t", "p"], ["ins"]),
                         helper.make_node("SequenceInsert", ["s", "t"], ["app"]),
                         helper.make_node("SequenceErase", ["s", "p"], ["er"]),
                         helper.make_node("Add", ["at", "one"], ["at1"])],
             [seq_vi("s", F, ["N"]), vi("p", I64, []), vi("t", F, [2])],
             [vi("n", I64, []), vi("at1", F, None), seq_vi("ins", F, None), seq_vi("app", F, None),
              seq_vi("er", F, None)],
             inits=[helper.make_tensor("one", F, [], [1.0])])
t = np.array([7, 8], np.float32)
for n, p in ((1, 0), (3, -1), (5, 2)):
    s = [rng.standard_normal(k + 1).astype(np.float32) for k in range(n)]
    res, _ = run(path, [s, np.array(p, np.int64), t], "seq_ops_%d" % n)
    if res:
        q = p % n
        same(res[0], np.array(n, np.int64), "SequenceLength of %d" % n)
        same(res[1], s[q] + np.float32(1), "SequenceAt(%d) + 1 of %d" % (p, n))
        same(res[2], s[:q] + [t] + s[q:], "SequenceInsert at %d of %d" % (p, n))
        same(res[3], s + [t], "SequenceInsert at the back of %d" % n)
        same(res[4], s[:q] + s[q + 1:], "SequenceErase at %d of %d" % (p, n))
res, err = run(path, [[np.ones(2, np.float32)], np.array(3, np.int64), t], "seq_ops_bad", expect_ok=False)
check(res is None and "position 3 is out of range for a sequence of 1" in err, "out-of-range position: %r" % err)
rc, _, err = tool.run("run", path, "-i", save("seq_ops_tensor", 0, np.ones(2, np.float32)), "-i",
                      save("seq_ops_tensor", 1, np.array(0, np.int64)), "-i", save("seq_ops_tensor", 2, t))
check(rc == 1 and "SequenceProto" in err, "a TensorProto given for a sequence: rc=%d %r" % (rc, err))

# --- Loop accumulating a sequence for M iterations -----------------------------------------
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["f"], to=F),
     helper.make_node("Expand", ["f", "shape"], ["e"]),
     helper.make_node("SequenceInsert", ["acc", "e"], ["acc2"]),
     helper.make_node("Identity", ["c"], ["c2"])],
    "acc_body", [vi("i", I64, []), vi("c", B, []), seq_vi("acc", F, None)],
    [vi("c2", B, []), seq_vi("acc2", F, None)],
    initializer=[helper.make_tensor("shape", I64, [1], [3])])
path = model("loop_acc", [helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
                          helper.make_node("Loop", ["m", "", "empty"], ["out"], body=body),
                          helper.make_node("SequenceLength", ["out"], ["len"])],
             [vi("m", I64, [])], [seq_vi("out", F, None), vi("len", I64, [])], opset=16)
for m in (0, 2, 4):
    res, _ = run(path, [np.array(m, np.int64)], "loop_acc_%d" % m)
    if res:
        same(res[0], [np.full(3, i, np.float32) for i in range(m)], "Loop accumulating %d" % m)
        same(res[1], np.array(m, np.int64), "its length %d" % m)

# --- SequenceMap ---------------------------------------------------------------------------
mbody = helper.make_graph([helper.make_node("Mul", ["e", "w"], ["y"]), helper.make_node("Shape", ["e"], ["sh"])],
                          "map_body", [vi("e", F, ["K"]), vi("w", F, [])], [vi("y", F, ["K"]), vi("sh", I64, [1])])
path = model("seq_map", [helper.make_node("SequenceMap", ["s", "w"], ["ys", "shapes"], body=mbody)],
             [seq_vi("s", F, ["K"]), vi("w", F, [])], [seq_vi("ys", F, None), seq_vi("shapes", I64, [1])])
w = np.array(3, np.float32)
for n in (0, 4):
    s = [rng.standard_normal(2 * k + 1).astype(np.float32) for k in range(n)]
    res, _ = run(path, [s, w], "seq_map_%d" % n)
    if res:
        same(res[0], [e * w for e in s], "SequenceMap over %d" % n)
        same(res[1], [np.array([e.size], np.int64) for e in s], "SequenceMap shapes over %d" % n)

# --- optionals -----------------------------------------------------------------------------
tp = helper.make_tensor_type_proto(F, [3])
path = model("opt_ops", [helper.make_node("OptionalHasElement", ["o"], ["has"]),
                         helper.make_node("Optional", ["has"], ["wrapped"]),
                         helper.make_node("OptionalHasElement", ["wrapped"], ["has2"])],
             [opt_vi("o", tp)], [vi("has", B, []), vi("has2", B, [])], opset=18)
x = np.array([1, 2, 3], np.float32)
for value, want in ((None, False), (x, True)):
    res, _ = run(path, [("opt", value)], "opt_has_%s" % want)
    if res:
        same(res[0], np.array(want), "OptionalHasElement of %s" % ("a tensor" if want else "nothing"))
        same(res[1], np.array(True), "OptionalHasElement of an Optional built in the graph")
path = model("opt_get", [helper.make_node("OptionalGetElement", ["o"], ["x"]),
                         helper.make_node("Add", ["x", "x"], ["y"])],
             [opt_vi("o", tp)], [vi("y", F, [3])], opset=18)
res, _ = run(path, [("opt", x)], "opt_get")
if res:
    same(res[0], x + x, "OptionalGetElement of a tensor")
res, err = run(path, [("opt", None)], "opt_get_empty", expect_ok=False)
check(res is None and "the optional is empty" in err, "OptionalGetElement of nothing: %r" % err)

stp = helper.make_sequence_type_proto(tp)
then_g = helper.make_graph([helper.make_node("Optional", [], ["none"], type=stp)], "then", [], [opt_vi("none", stp)])
else_g = helper.make_graph([helper.make_node("SequenceConstruct", ["k", "k"], ["sq"]),
                            helper.make_node("Optional", ["sq"], ["some"])], "else", [], [opt_vi("some", stp)])
path = model("if_opt", [helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)],
             [vi("c", B, [])], [opt_vi("r", stp)], opset=16, inits=[numpy_helper.from_array(x, "k")])
for c in (True, False):
    res, _ = run(path, [np.array(c)], "if_opt_%s" % c)
    if res:
        same(res[0], None if c else [x, x], "If giving %s" % ("nothing" if c else "a sequence"))

# --- string tensors: StringNormalizer, casts to and from strings --------------------------
S = TensorProto.STRING
path = model("strings", [helper.make_node("StringNormalizer", ["s"], ["n"], case_change_action="LOWER",
                                          stopwords=["the", "A"]),
                         helper.make_node("Cast", ["x"], ["xs"], to=S),
                         helper.make_node("Cast", ["xs"], ["back"], to=F)],
             [vi("s", S, [1, "C"]), vi("x", F, [4])], [vi("n", S, None), vi("xs", S, [4]), vi("back", F, [4])])
xf = np.array([0.5, -1.25e-05, 3.0, 0.1], np.float32)
for words, want in ((["The", "Cat", "a", "DOG", "the"], ["cat", "dog"]), (["A", "THE"], [""])):
    res, _ = run(path, [np.array([words], dtype=object), xf], "strings_%d" % len(words))
    if res:
        check(res[0].shape == (1, len(want)) and list(res[0].ravel()) == want,
              "StringNormalizer of %r: %r, expected %r" % (words, res[0], want))
        check(list(res[1]) == [str(v) for v in xf], "Cast to strings: %r, expected %r" % (res[1], [str(v) for v in xf]))
        same(res[2], xf, "Cast to strings and back")
path = model("string_to_int", [helper.make_node("Cast", ["s"], ["i"], to=I64)], [vi("s", S, [3])], [vi("i", I64, [3])])
res, _ = run(path, [np.array(["7", "-12", "0"], dtype=object)], "string_to_int")
if res:
    same(res[0], np.array([7, -12, 0], np.int64), "Cast strings to int64")
res, err = run(path, [np.array(["7", "x1", "0"], dtype=object)], "string_to_int_bad", expect_ok=False)
check(res is None and 'element 1 ("x1") is not a number' in err, "a string that is not a number: %r" % err)

# --- ConcatFromSequence of a run-time-length sequence (vm.builtin.sequence_concat) ----------
# a graph input: rows of different lengths joined along axis -1, and stacked along a new
# last axis (new_axis 1, axis -1) and a new first one (axis 0)
path = model("concat_list", [helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=-1),
                             helper.make_node("ConcatFromSequence", ["t"], ["stk"], axis=-1, new_axis=1),
                             helper.make_node("ConcatFromSequence", ["t"], ["stk0"], axis=0, new_axis=1),
                             helper.make_node("Shape", ["cat"], ["cat_shape"])],
             [seq_vi("s", F, [2, None]), seq_vi("t", I64, [3])],
             [vi("cat", F, None), vi("stk", I64, None), vi("stk0", I64, None), vi("cat_shape", I64, [2])])
for n in (1, 3, 5):
    parts = [rng.standard_normal((2, k + 1)).astype(np.float32) for k in range(n)]
    rows = [np.arange(3, dtype=np.int64) * 10 + k for k in range(n)]
    res, _ = run(path, [parts, rows], "concat_list_%d" % n)
    if res:
        same(res[0], np.concatenate(parts, axis=-1), "ConcatFromSequence axis -1 of %d elements" % n)
        same(res[1], np.stack(rows, axis=-1), "ConcatFromSequence new_axis axis -1 of %d elements" % n)
        same(res[2], np.stack(rows, axis=0), "ConcatFromSequence new_axis axis 0 of %d elements" % n)
        same(res[3], np.array([2, n * (n + 1) // 2], np.int64), "the shape of the concatenation (symbolic dims)")
res, err = run(path, [[np.ones((2, 2), np.float32), np.ones((3, 1), np.float32)], rows], "concat_list_bad", expect_ok=False)
check(res is None and "element 1 has dim 3 where element 0 has 2" in err, "ConcatFromSequence of mismatched dims: %r" % err)
res, err = run(path, [[], rows], "concat_list_empty", expect_ok=False)
check(res is None and "sequence_concat: the sequence is empty" in err, "ConcatFromSequence of an empty list: %r" % err)

# a Loop accumulating a sequence for M iterations (M at run time), then concatenated and
# stacked: element i is i * x + i (x a graph input of run-time length)
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["f"], to=F),
     helper.make_node("Mul", ["xin", "f"], ["xf"]),
     helper.make_node("Add", ["xf", "f"], ["e"]),
     helper.make_node("SequenceInsert", ["acc", "e"], ["acc2"]),
     helper.make_node("Identity", ["c"], ["c2"])],
    "cat_body", [vi("i", I64, []), vi("c", B, []), seq_vi("acc", F, None)],
    [vi("c2", B, []), seq_vi("acc2", F, None)])
path = model("loop_concat", [helper.make_node("Identity", ["x"], ["xin"]),
                             helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
                             helper.make_node("Loop", ["m", "", "empty"], ["acc"], body=body),
                             helper.make_node("ConcatFromSequence", ["acc"], ["cat"], axis=0),
                             helper.make_node("ConcatFromSequence", ["acc"], ["stk"], axis=-2, new_axis=1)],
             [vi("m", I64, []), vi("x", F, ["n"])], [vi("cat", F, None), vi("stk", F, None)], opset=16)
xs = rng.standard_normal(6).astype(np.float32)
for m, xv in ((2, xs[:4]), (4, xs), (1, xs[:1])):
    res, _ = run(path, [np.array(m, np.int64), xv], "loop_concat_%d" % m)
    if res:
        # i * x + i may be one fused multiply-add in the compiled body: within 1e-6 relative
        elems = [np.float32(i) * xv + np.float32(i) for i in range(m)]
        for got, want, what in ((res[0], np.concatenate(elems, axis=0), ""), (res[1], np.stack(elems, axis=0), " new_axis")):
            check(got.dtype == want.dtype and got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6),
                  "Loop of %d then ConcatFromSequence%s: got %r, expected %r" % (m, what, got, want))
res, err = run(path, [np.array(0, np.int64), xs], "loop_concat_0", expect_ok=False)
check(res is None and "the sequence is empty" in err, "ConcatFromSequence after zero iterations: %r" % err)

finish()
