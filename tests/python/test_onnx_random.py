#!/usr/bin/env python3
"""ONNX random ops (issue 11): RandomUniform, RandomUniformLike, RandomNormal(Like),
Bernoulli, Dropout in training mode. Their numbers are a seeded counter-based stream
(src/frontend/onnx/ops_random.c), so what can be checked exactly is that it is one stream:

- RandomUniform of a static shape (folded at import by the TIR interpreter) and
  RandomUniformLike of a run-time input of that shape (compiled C) give the same numbers,
  bit for bit, for one seed; another seed gives other numbers; two runs give the same.
- The distributions, over 40000 draws (tolerances about 6 standard errors): uniform in
  [low, high) with mean (low + high) / 2 +- 0.01 * (high - low); normal with mean +- 0.03 and
  std +- 3%; Bernoulli(p = 0.3) with a frequency of ones 0.3 +- 0.014.
- Dropout with a run-time training_mode: true keeps 25% +- 1.3% at ratio 0.75, kept values
  are x / (1 - ratio) and the mask says which; false returns x and an all-true mask.

    test_onnx_random.py RLX"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model, run_outputs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
F, B = TensorProto.FLOAT, TensorProto.BOOL
vi = helper.make_tensor_value_info
N = 200  # 200 x 200 = 40000 draws


def model(name, nodes, inputs, outputs, opset=16):
    return onnx_model(tool, name, nodes, inputs, outputs, opset)


def run(path, arrays, tag):
    res, err = run_outputs(tool, path, arrays, tag)
    check(res is not None, "%s: rlx run failed: %s" % (tag, err))
    return res


# --- one stream: folded RandomUniform == compiled RandomUniformLike -------------------------
fold = model("uniform_fold", [helper.make_node("RandomUniform", [], ["y"], shape=[N, N], low=-2.0, high=3.0, seed=7.0)],
             [], [vi("y", F, [N, N])])
like = model("uniform_like", [helper.make_node("RandomUniformLike", ["x"], ["y"], low=-2.0, high=3.0, seed=7.0)],
             [vi("x", F, [N, "n"])], [vi("y", F, [N, "n"])])
other = model("uniform_seed8", [helper.make_node("RandomUniformLike", ["x"], ["y"], low=-2.0, high=3.0, seed=8.0)],
              [vi("x", F, [N, "n"])], [vi("y", F, [N, "n"])])
x = np.zeros((N, N), np.float32)
a = run(fold, [], "fold")
b = run(like, [x], "like")
b2 = run(like, [x], "like2")
c = run(other, [x], "other")
if a and b and b2 and c:
    u = a[0]
    check(u.dtype == np.float32 and u.shape == (N, N), "RandomUniform: float32 (%d, %d), got %s %s" % (N, N, u.dtype, u.shape))
    check(np.array_equal(u, b[0]), "folded and compiled streams differ in %d places" % int((u != b[0]).sum()))
    check(np.array_equal(b[0], b2[0]), "two runs of one model differ")
    check((u != c[0]).mean() > 0.99, "seed 8 repeats seed 7's numbers")
    check(u.min() >= -2.0 and u.max() < 3.0, "uniform range [%g, %g] outside [-2, 3)" % (u.min(), u.max()))
    check(abs(u.mean() - 0.5) < 0.05, "uniform mean %g, expected 0.5 +- 0.05" % u.mean())
    check(len(np.unique(u)) > 0.99 * u.size, "uniform values repeat: %d distinct" % len(np.unique(u)))
    # neighbours are not correlated (a Weyl sequence would be)
    r = np.corrcoef(u.ravel()[:-1], u.ravel()[1:])[0, 1]
    check(abs(r) < 0.03, "correlation of neighbours %g" % r)

# --- normal -------------------------------------------------------------------------------
nm = model("normal", [helper.make_node("RandomNormal", [], ["y"], shape=[N, N], mean=1.5, scale=2.0, seed=3.0)],
           [], [vi("y", F, [N, N])])
r = run(nm, [], "normal")
if r:
    z = r[0].astype(np.float64)
    check(abs(z.mean() - 1.5) < 0.03, "normal mean %g, expected 1.5 +- 0.03" % z.mean())
    check(abs(z.std() / 2.0 - 1) < 0.03, "normal std %g, expected 2 +- 3%%" % z.std())
    check(abs(((z - 1.5) / 2.0 > 1.96).mean() - 0.025) < 0.005, "normal upper 2.5%% tail: %g" % ((z - 1.5) / 2 > 1.96).mean())

# --- Bernoulli -----------------------------------------------------------------------------
bm = model("bernoulli", [helper.make_node("Bernoulli", ["p"], ["y"], seed=1.0)], [vi("p", F, [N, N])], [vi("y", F, [N, N])],
           opset=15)
p = np.full((N, N), 0.3, np.float32)
p[0] = 0.0
p[1] = 1.0
r = run(bm, [p], "bernoulli")
if r:
    y = r[0]
    check(y.dtype == np.float32 and np.isin(y, [0, 1]).all(), "Bernoulli values are 0 or 1")
    check(not y[0].any() and y[1].all(), "Bernoulli(0) is 0 and Bernoulli(1) is 1")
    check(abs(y[2:].mean() - 0.3) < 0.014, "Bernoulli(0.3) frequency %g" % y[2:].mean())

# --- Dropout with a run-time training_mode ----------------------------------------------------
dm = model("dropout", [helper.make_node("Dropout", ["x", "r", "t"], ["y", "m"], seed=5)],
           [vi("x", F, [N, N]), vi("r", F, []), vi("t", B, [])], [vi("y", F, [N, N]), vi("m", B, [N, N])], opset=13)
xs = np.random.RandomState(0).uniform(0.5, 1.5, (N, N)).astype(np.float32)
r = run(dm, [xs, np.array(0.75, np.float32), np.array(True)], "drop_on")
if r:
    y, m = r
    check(abs(m.mean() - 0.25) < 0.013, "dropout 0.75 kept %g" % m.mean())
    check(np.allclose(y[m], xs[m] * 4, rtol=1e-6) and not y[~m].any(), "dropout: kept x / (1 - ratio), the rest 0")
r = run(dm, [xs, np.array(0.75, np.float32), np.array(False)], "drop_off")
if r:
    check(np.array_equal(r[0], xs) and r[1].all(), "dropout with training_mode false returns x and an all-true mask")
finish()
