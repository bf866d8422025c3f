#!/usr/bin/env python3
"""Data-dependent shapes from ONNX, compiled once and run on several inputs (issue 11):

- NonZero -> Squeeze -> Gather: the output size is the count of nonzero inputs, known only
  after computing; one compiled .so runs on inputs giving 0, 3 and 7 elements.
- Reshape whose target shape is a graph input: one .so runs on two targets (one with a 0
  and a -1), and a target of the wrong size is a run-time error naming the check.
- Compress with a run-time condition, Range with run-time bounds, ConstantOfShape of a
  run-time shape: each on two inputs giving different output sizes.
- Sequences whose insert and read positions arrive at run time (elements of three shapes),
  and If with a run-time condition whose branches read outer values: each on every branch.
- Add of two lengths decided at run time: checked equal when the model runs.
- MaxUnpool to an output_shape given at run time (two shapes, one .so; one too small).
- MelWeightMatrix on two parameter sets (shapes (9, 8) and (33, 5)) against numpy.
- the Relax script level: R.tensor_to_shape + R.match_cast + R.reshape, R.shape_of,
  R.shape_to_tensor.
Results are compared with numpy exactly (these ops only move or count values).

    test_onnx_dynamic.py RLX"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model, run_outputs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))


def model(name, nodes, inputs, outputs):
    return onnx_model(tool, name, nodes, inputs, outputs, 17)


def compile_once(path):
    so = path[:-5] + ".so"
    ok, out = tool.ok("compile", path, "-o", so, "--stats")
    return so if ok else None, out


def run(so, arrays, tag):
    """Runs the compiled model on arrays; returns the outputs (None on failure)."""
    res, err = run_outputs(tool, so, arrays, tag)
    check(res is not None, "%s: rlx run failed: %s" % (tag, err))
    return res


def same(got, want, what):
    good = got is not None and got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    check(good, "%s: got %r, expected %r" % (what, got, want))


F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

# --- NonZero -> Squeeze -> Gather --------------------------------------------------------
path = model("nonzero_gather",
             [helper.make_node("NonZero", ["x"], ["nz"]),
              helper.make_node("Squeeze", ["nz", "axes"], ["idx"]),
              helper.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
             [helper.make_tensor_value_info("x", F, [8])], [helper.make_tensor_value_info("y", F, None)])
m = onnx.load(path)
m.graph.initializer.append(helper.make_tensor("axes", I64, [1], [0]))
onnx.save(m, path)
so, stats = compile_once(path)
check("unplanned" in stats, "--stats reports run-time allocations:\n" + stats)
check("run-time allocation main: " in stats and "= vm.builtin.nonzero(...)" in stats and
      "1 run-time allocation(s) outside the plan" in stats, "--stats names the callee-allocated result:\n" + stats)
for tag, x in [("nz0", np.zeros(8, np.float32)),
               ("nz3", np.array([0, 1.5, 0, 0, -2, 0, 3, 0], np.float32)),
               ("nz7", np.array([1, 2, 3, 0, 5, 6, 7, 8], np.float32))]:
    r = run(so, [x], tag) if so else None
    same(r[0] if r else None, x[np.nonzero(x)[0]], "NonZero->Gather " + tag)

# --- Sequences with run-time positions: elements of different shapes ----------------------
path = model("sequence_pos",
             [helper.make_node("SequenceConstruct", ["a", "b"], ["s1"]),
              helper.make_node("SequenceInsert", ["s1", "c", "p_ins"], ["s2"]),
              helper.make_node("SequenceAt", ["s2", "p_at"], ["y"])],
             [helper.make_tensor_value_info("a", F, [2, 3]), helper.make_tensor_value_info("b", F, [1, 3]),
              helper.make_tensor_value_info("c", F, [4, 3]), helper.make_tensor_value_info("p_ins", I64, []),
              helper.make_tensor_value_info("p_at", I64, [])], [helper.make_tensor_value_info("y", F, None)])
so, stats = compile_once(path)
check("vm.builtin.sequence_insert" in stats and "vm.builtin.sequence_at" in stats, "sequence builtins in --stats:\n" + stats)
abc = [np.full((2, 3), 1, np.float32), np.full((1, 3), 2, np.float32), np.full((4, 3), 3, np.float32)]
for tag, p_ins, p_at in [("q1", 0, 0), ("q2", 2, 1), ("q3", -1, -1), ("q4", 1, 2)]:
    seq = [abc[0], abc[1]]
    seq.insert(p_ins, abc[2])  # ONNX counts a negative position from the back, as list.insert
    r = run(so, abc + [np.array(p_ins, np.int64), np.array(p_at, np.int64)], tag) if so else None
    same(r[0] if r else None, seq[p_at], "SequenceInsert at %d, SequenceAt %d" % (p_ins, p_at))

# --- If with a run-time condition whose branches read outer values -----------------------
then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                           [helper.make_tensor_value_info("t", F, [3])])
else_g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["e"])], "else", [],
                           [helper.make_tensor_value_info("e", F, [3])])
path = model("if_outer", [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
             [helper.make_tensor_value_info("c", B, []), helper.make_tensor_value_info("x", F, [3]),
              helper.make_tensor_value_info("w", F, [3])], [helper.make_tensor_value_info("y", F, [3])])
so, _ = compile_once(path)
xw = [np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)]
for tag, c in [("if1", True), ("if0", False)]:
    r = run(so, [np.array(c)] + xw, tag) if so else None
    same(r[0] if r else None, xw[0] + xw[0] if c else xw[0] * xw[1], "If(%s)" % c)

# --- Reshape to a run-time shape -----------------------------------------------------------
path = model("reshape_input", [helper.make_node("Reshape", ["x", "shape"], ["y"])],
             [helper.make_tensor_value_info("x", F, [2, 3, 4]), helper.make_tensor_value_info("shape", I64, [3])],
             [helper.make_tensor_value_info("y", F, None)])
so, _ = compile_once(path)
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
for tag, s, want in [("r1", [4, 3, 2], (4, 3, 2)), ("r2", [0, -1, 2], (2, 6, 2))]:
    r = run(so, [x, np.array(s, np.int64)], tag) if so else None
    same(r[0] if r else None, x.reshape(want), "Reshape to %s" % s)
if so:
    np.save(os.path.join(tool.tmp, "bad.npy"), np.array([5, 5, 1], np.int64))
    np.save(os.path.join(tool.tmp, "x.npy"), x)
    tool.fails(["run", so, "-i", os.path.join(tool.tmp, "x.npy"), "-i", os.path.join(tool.tmp, "bad.npy"), "-o",
                os.path.join(tool.tmp, "out_bad")], ["match_cast"], "Reshape to a target of the wrong size")

# --- Compress, Range, ConstantOfShape ------------------------------------------------------
path = model("compress", [helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
             [helper.make_tensor_value_info("x", F, [2, 4]), helper.make_tensor_value_info("c", B, [4])],
             [helper.make_tensor_value_info("y", F, None)])
so, _ = compile_once(path)
x = np.arange(8, dtype=np.float32).reshape(2, 4)
for tag, c in [("c1", [True, False, False, True]), ("c2", [False, True, True, True])]:
    c = np.array(c)
    r = run(so, [x, c], tag) if so else None
    same(r[0] if r else None, np.compress(c, x, axis=1), "Compress %s" % tag)

path = model("range", [helper.make_node("Range", ["a", "b", "d"], ["y"])],
             [helper.make_tensor_value_info(n, I64, []) for n in "abd"], [helper.make_tensor_value_info("y", I64, None)])
so, _ = compile_once(path)
for tag, (a, b, d) in [("g1", (1, 10, 3)), ("g2", (10, -2, -4))]:
    r = run(so, [np.array(a, np.int64), np.array(b, np.int64), np.array(d, np.int64)], tag) if so else None
    same(r[0] if r else None, np.arange(a, b, d, dtype=np.int64), "Range(%d, %d, %d)" % (a, b, d))

path = model("const_of_shape",
             [helper.make_node("ConstantOfShape", ["s"], ["y"], value=helper.make_tensor("v", F, [1], [2.5]))],
             [helper.make_tensor_value_info("s", I64, [2])], [helper.make_tensor_value_info("y", F, None)])
so, _ = compile_once(path)
for tag, s in [("k1", [2, 3]), ("k2", [4, 1])]:
    r = run(so, [np.array(s, np.int64)], tag) if so else None
    same(r[0] if r else None, np.full(s, 2.5, np.float32), "ConstantOfShape(%s)" % s)

# --- Add of two lengths decided at run time (neither provably 1 nor equal) -----------------
# They are checked equal when the model runs (a match_cast), as Expand's run-time dims are.
path = model("add_runtime_dims",
             [helper.make_node("Range", ["z", "n", "one"], ["a"]), helper.make_node("Range", ["z", "m", "one"], ["b"]),
              helper.make_node("Add", ["a", "b"], ["y"])],
             [helper.make_tensor_value_info(k, I64, []) for k in ("z", "n", "m", "one")],
             [helper.make_tensor_value_info("y", I64, None)])
so, _ = compile_once(path)
i64 = lambda v: np.array(v, np.int64)  # noqa: E731
r = run(so, [i64(0), i64(4), i64(4), i64(1)], "addrt") if so else None
same(r[0] if r else None, np.arange(4, dtype=np.int64) * 2, "Add of two run-time lengths, equal")
if so:
    args = []
    for k, v in enumerate([0, 4, 3, 1]):
        p = os.path.join(tool.tmp, "addbad_in%d.npy" % k)
        np.save(p, i64(v))
        args += ["-i", p]
    tool.fails(["run", so] + args + ["-o", os.path.join(tool.tmp, "out_addbad")], ["match_cast", "expected shape (a_d0,) with a_d0 bound to 4, got (3,)"],
               "Add of run-time lengths 4 and 3")

# --- MaxUnpool to an output_shape given at run time ---------------------------------------
# I's values are flat positions in the output (PyTorch's max_unpool), of the run-time shape.
path = model("unpool_rt", [helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
             [helper.make_tensor_value_info("x", F, [1, 1, 2, 2]), helper.make_tensor_value_info("i", I64, [1, 1, 2, 2]),
              helper.make_tensor_value_info("s", I64, [4])], [helper.make_tensor_value_info("y", F, None)])
so, _ = compile_once(path)
xu = np.array([5, 6, 7, 8], np.float32).reshape(1, 1, 2, 2)
iu = np.array([5, 7, 13, 15], np.int64).reshape(1, 1, 2, 2)
for tag, shp in [("u4", [1, 1, 4, 4]), ("u56", [1, 1, 5, 6])]:
    want = np.zeros(int(np.prod(shp)), np.float32)
    want[iu.ravel()] = xu.ravel()
    want = want.reshape(shp)
    r = run(so, [xu, iu, np.array(shp, np.int64)], tag) if so else None
    same(r[0] if r else None, want, "MaxUnpool to %s" % shp)
if so:
    args = []
    for k, a in enumerate([xu, iu, np.array([1, 1, 3, 4], np.int64)]):
        p = os.path.join(tool.tmp, "ubad_in%d.npy" % k)
        np.save(p, a)
        args += ["-i", p]
    tool.fails(["run", so] + args + ["-o", os.path.join(tool.tmp, "out_ubad")], ["value -1 at position 2 is not a dim"],
               "MaxUnpool to an output_shape smaller than the unpooled size")

# --- MelWeightMatrix: its shape (D / 2 + 1, M) comes from input values ----------------------
def mel_ref(m, d, sr, lo, hi):
    """Triangles over the bins of M + 2 points evenly spaced in mel (the ONNX definition)."""
    to_mel = lambda hz: 2595 * np.log10(1 + hz / 700)  # noqa: E731
    k = np.arange(m + 2)
    mel = k * ((to_mel(hi) - to_mel(lo)) / (m + 2)) + to_mel(lo)
    f = np.floor((d + 1) * (700 * (10 ** (mel / 2595) - 1)) / sr).astype(int)
    out = np.zeros((d // 2 + 1, m), np.float32)
    for i in range(m):
        l, c, h = f[i], f[i + 1], f[i + 2]
        for j in range(d // 2 + 1):
            out[j, i] = 1 if j == c else (j - l) / (c - l) if l <= j < c else (h - j) / (h - c) if c < j < h else 0
    return out


path = model("mel", [helper.make_node("MelWeightMatrix", ["m", "d", "sr", "lo", "hi"], ["y"])],
             [helper.make_tensor_value_info(n, TensorProto.INT32, []) for n in ("m", "d", "sr")] +
             [helper.make_tensor_value_info(n, F, []) for n in ("lo", "hi")], [helper.make_tensor_value_info("y", F, None)])
so, _ = compile_once(path)
for tag, (m, d, sr, lo, hi) in [("mel1", (8, 16, 8192, 0.0, 4096.0)), ("mel2", (5, 64, 16000, 100.0, 7000.0))]:
    args = [np.array(v, np.int32) for v in (m, d, sr)] + [np.array(v, np.float32) for v in (lo, hi)]
    r = run(so, args, tag) if so else None
    want = mel_ref(m, d, sr, np.float32(lo), np.float32(hi))
    good = r is not None and r[0].shape == want.shape and np.allclose(r[0], want, rtol=1e-6, atol=1e-7)
    check(good, "MelWeightMatrix%s: got %r, expected %r" % ((m, d, sr, lo, hi), r[0] if r else None, want))

# --- the Relax ops -------------------------------------------------------------------------
script = tool.file("dyn.py", '''# from tvm.script import ir as I, relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32"), s: R.Tensor((3,), dtype="int64")):
        sh = R.tensor_to_shape(s)
        sh2 = R.match_cast(sh, R.Shape(["a", "b", "c"]))
        y = R.reshape(x, sh2)
        t = R.shape_to_tensor(R.shape_of(y))
        return (y, t)
''')
so = os.path.join(tool.tmp, "dyn.so")
ok, _ = tool.ok("compile", script, "-o", so)
x = np.arange(12, dtype=np.float32).reshape(2, 6)
for tag, s in [("s1", [3, 2, 2]), ("s2", [1, 12, 1])]:
    r = run(so, [x, np.array(s, np.int64)], tag) if ok else None
    same(r[0] if r else None, x.reshape(s), "R.reshape to R.tensor_to_shape %s" % s)
    same(r[1] if r else None, np.array(s, np.int64), "R.shape_to_tensor(R.shape_of(y)) %s" % s)
finish()
