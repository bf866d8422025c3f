#!/usr/bin/env python3
"""ONNX Loop and Scan (issue 11), compiled once and run on several inputs, against numpy:

- Loop whose condition ends it early (a running sum that stops past a limit): the trip
  count and the scan output's length are data; one .so runs on inputs giving 0, 3 and 5
  iterations, and on M = 0.
- Loop whose loop-carried tensor grows (Concat each iteration): the body is imported with
  fresh dims for it; the result has the run's length.
- Loop reading an outer value and with no M (a while loop).
- Scan with two states, a reversed scan input on axis 1 and a reversed scan output moved to
  axis 1, on a run-time sequence length (a symbolic dim).
- Errors: a loop-carried value whose dtype changes in the body; a scan output that changes
  shape between iterations (a run-time error naming the builtin and the iteration).
Results are compared exactly for integers and to 1e-6 relative for floats (the same
additions in the same order as numpy).

    test_onnx_control.py RLX"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model, run_outputs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
vi = helper.make_tensor_value_info


def model(name, nodes, inputs, outputs, inits=()):
    return onnx_model(tool, name, nodes, inputs, outputs, 16, inits)


def compile_once(path):
    so = path[:-5] + ".so"
    ok, out = tool.ok("compile", path, "-o", so)
    return so if ok else None


def run(so, arrays, tag, expect_ok=True):
    """Runs the compiled model; returns the outputs (None on failure) and stderr."""
    res, err = run_outputs(tool, so, arrays, tag)
    if expect_ok:
        check(res is not None, "%s: rlx run failed: %s" % (tag, err))
    return res, err


def same(got, want, what):
    good = got is not None and got.dtype == want.dtype and got.shape == want.shape
    if good:
        good = np.array_equal(got, want) if want.dtype.kind in "biu" else np.allclose(got, want, rtol=1e-6, atol=0)
    check(good, "%s: got %r, expected %r" % (what, got, want))


# --- Loop ended by its condition ----------------------------------------------------------
# body(i, c, s): s' = s + x[i]; c' = s' < limit; scan: s'
body = helper.make_graph(
    [helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
     helper.make_node("Gather", ["x", "i"], ["xi"], axis=0),
     helper.make_node("Add", ["s", "xi"], ["s2"]),
     helper.make_node("Less", ["s2", "limit"], ["c2"])],
    "sum_body", [vi("i", I64, []), vi("c", B, []), vi("s", F, [])],
    [vi("c2", B, []), vi("s2", F, []), vi("s2", F, [])],
    initializer=[helper.make_tensor("zero", I64, [1], [0])])
path = model("loop_until", [helper.make_node("Loop", ["m", "c0", "s0"], ["s", "sums"], body=body)],
             [vi("m", I64, []), vi("c0", B, []), vi("s0", F, []), vi("x", F, [5]), vi("limit", F, [])],
             [vi("s", F, []), vi("sums", F, None)])
so = compile_once(path)
x = np.array([1, 2, 3, 4, 5], np.float32)


def loop_until_ref(m, c0, s0, limit):
    s, sums, c, i = np.float32(s0), [], c0, 0
    while i < m and c:
        s = np.float32(s + x[i])
        sums.append(s)
        c = s < limit
        i += 1
    return np.array(s, np.float32), np.array(sums, np.float32).reshape(len(sums))


for tag, (m, c0, limit) in {"until3": (5, True, 5.5), "until5": (5, True, 100.0), "until0": (5, False, 1.0),
                            "m0": (0, True, 9.0)}.items():
    args = [np.array(m, np.int64), np.array(c0), np.array(0, np.float32), x, np.array(limit, np.float32)]
    r, _ = run(so, args, tag) if so else (None, "")
    want = loop_until_ref(m, c0, 0.0, limit)
    same(r[0] if r else None, want[0], "Loop %s final sum" % tag)
    same(r[1] if r else None, want[1], "Loop %s sums" % tag)

# --- Loop whose carried tensor grows ------------------------------------------------------
grow = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Unsqueeze", ["fi", "zero"], ["fi1"]),
     helper.make_node("Concat", ["v", "fi1"], ["v2"], axis=0),
     helper.make_node("Identity", ["c"], ["c2"])],
    "grow_body", [vi("i", I64, []), vi("c", B, []), vi("v", F, [1])],
    [vi("c2", B, []), vi("v2", F, None)],
    initializer=[helper.make_tensor("zero", I64, [1], [0])])
path = model("loop_grow", [helper.make_node("Loop", ["m", "", "v0"], ["v"], body=grow)],
             [vi("m", I64, []), vi("v0", F, [1])], [vi("v", F, None)])
so = compile_once(path)
for m in (0, 4):
    r, _ = run(so, [np.array(m, np.int64), np.array([7], np.float32)], "grow%d" % m) if so else (None, "")
    same(r[0] if r else None, np.concatenate([[7], np.arange(m)]).astype(np.float32), "Loop growing, M=%d" % m)

# --- while loop (no M) reading an outer value ---------------------------------------------
wb = helper.make_graph(
    [helper.make_node("Mul", ["p", "k"], ["p2"]),
     helper.make_node("Less", ["p2", "cap"], ["c2"])],
    "while_body", [vi("i", I64, []), vi("c", B, []), vi("p", I64, [])],
    [vi("c2", B, []), vi("p2", I64, [])])
path = model("loop_while", [helper.make_node("Loop", ["", "c0", "p0"], ["p"], body=wb)],
             [vi("c0", B, []), vi("p0", I64, []), vi("k", I64, []), vi("cap", I64, [])], [vi("p", I64, [])])
so = compile_once(path)
r, _ = run(so, [np.array(True), np.array(1, np.int64), np.array(3, np.int64), np.array(100, np.int64)], "while") \
    if so else (None, "")
same(r[0] if r else None, np.array(243, np.int64), "while loop: 3^5 is the first power of 3 past 100")

# --- Scan: two states, reversed input on axis 1, reversed output on axis 1 ------------------
sb = helper.make_graph(
    [helper.make_node("Add", ["acc", "xt"], ["acc2"]),
     helper.make_node("Add", ["cnt", "one"], ["cnt2"]),
     helper.make_node("Mul", ["acc2", "two"], ["y"])],
    "scan_body", [vi("acc", F, [3]), vi("cnt", I64, []), vi("xt", F, [3])],
    [vi("acc2", F, [3]), vi("cnt2", I64, []), vi("y", F, [3])],
    initializer=[helper.make_tensor("one", I64, [], [1]), helper.make_tensor("two", F, [], [2.0])])
path = model("scan_rev", [helper.make_node("Scan", ["a0", "n0", "xs"], ["a", "n", "ys"], body=sb, num_scan_inputs=1,
                                           scan_input_axes=[1], scan_input_directions=[1],
                                           scan_output_axes=[-1], scan_output_directions=[1])],
             [vi("a0", F, [3]), vi("n0", I64, []), vi("xs", F, [3, "T"])],
             [vi("a", F, [3]), vi("n", I64, []), vi("ys", F, [3, "T"])])
so = compile_once(path)
for t in (1, 4):
    xs = (np.arange(3 * t, dtype=np.float32).reshape(3, t) + 1) / 4
    acc, rows = np.zeros(3, np.float32), []
    for j in reversed(range(t)):
        acc = (acc + xs[:, j]).astype(np.float32)
        rows.append(acc * 2)
    ys = np.stack(rows[::-1], axis=1).astype(np.float32)  # reversed output, on axis 1
    r, _ = run(so, [np.zeros(3, np.float32), np.array(0, np.int64), xs], "scan%d" % t) if so else (None, "")
    same(r[0] if r else None, acc, "Scan T=%d final acc" % t)
    same(r[1] if r else None, np.array(t, np.int64), "Scan T=%d count" % t)
    same(r[2] if r else None, ys, "Scan T=%d outputs" % t)

# --- errors ---------------------------------------------------------------------------------
bad = helper.make_graph([helper.make_node("Cast", ["v"], ["v2"], to=I64), helper.make_node("Identity", ["c"], ["c2"])],
                        "bad_body", [vi("i", I64, []), vi("c", B, []), vi("v", F, [2])],
                        [vi("c2", B, []), vi("v2", I64, [2])])
path = model("loop_bad", [helper.make_node("Loop", ["m", "", "v0"], ["v"], body=bad)],
             [vi("m", I64, []), vi("v0", F, [2])], [vi("v", F, [2])])
tool.fails(["compile", path, "-o", path[:-5] + ".so"], ["Loop", "loop-carried value 0 ('v') changes its type"],
           "a carried value changing dtype")
# scan output of length i+1: changes shape between iterations
vb = helper.make_graph(
    [helper.make_node("Add", ["i", "one"], ["n"]),
     helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
     helper.make_node("ConstantOfShape", ["n1"], ["z"]),
     helper.make_node("Identity", ["c"], ["c2"])],
    "var_body", [vi("i", I64, []), vi("c", B, [])], [vi("c2", B, []), vi("z", F, None)],
    initializer=[helper.make_tensor("one", I64, [], [1]), helper.make_tensor("zero", I64, [1], [0])])
path = model("loop_var_scan", [helper.make_node("Loop", ["m", ""], ["zs"], body=vb)], [vi("m", I64, [])],
             [vi("zs", F, None)])
so = compile_once(path)
if so:
    r, _ = run(so, [np.array(1, np.int64)], "var1")
    same(r[0] if r else None, np.zeros((1, 1), np.float32), "one iteration of a varying scan output")
    r, err = run(so, [np.array(3, np.int64)], "var3", expect_ok=False)
    check(r is None and "vm.builtin.loop" in err and "scan output 0 changes shape at iteration 1" in err,
          "a scan output changing shape: %s" % err.strip())

finish()
