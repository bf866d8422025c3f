#!/usr/bin/env python3
"""ONNX Gradient (ai.onnx.preview.training, issue 11), run as a user runs it (`rlx run
model.onnx -i ... -o OUT`), against the derivatives written out by hand:

- y = (a + b) * a / b + a (Add, Mul, Div, Sub, Neg, Identity) on vectors of run-time length:
  dy/da = (2a + b) / b + 1, dy/db = -a^2 / b^2 (rtol 1e-5: float32 arithmetic), and an x that
  y does not depend on gets zeros;
- errors at import, one line each: a Relu on the path from xs to y, a broadcast operand.

    test_onnx_gradient.py RLX"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model, run_outputs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
F = TensorProto.FLOAT
vi = helper.make_tensor_value_info
TRAINING = "ai.onnx.preview.training"


def model(name, nodes, inputs, outputs):
    g = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 12), helper.make_opsetid(TRAINING, 1)])
    path = os.path.join(tool.tmp, name + ".onnx")
    import onnx
    onnx.save(m, path)
    return path


grad = helper.make_node("Gradient", ["a", "b", "z"], ["dy_da", "dy_db", "dy_dz"], xs=["a", "b", "z"], y="y",
                        domain=TRAINING)
nodes = [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Mul", ["s", "a"], ["p"]),
         helper.make_node("Div", ["p", "b"], ["q"]), helper.make_node("Neg", ["a"], ["na"]),
         helper.make_node("Sub", ["q", "na"], ["r"]), helper.make_node("Identity", ["r"], ["y"]),
         helper.make_node("Mul", ["z", "z"], ["unused"]), grad]
vec = [vi(n, F, ["n"]) for n in ("a", "b", "z")]
path = model("grad", nodes, vec, [vi("y", F, ["n"])] + [vi(n, F, ["n"]) for n in ("dy_da", "dy_db", "dy_dz")])
rng = np.random.default_rng(3)
for n in (4, 9):
    a = rng.uniform(0.5, 2.0, n).astype(np.float32)
    b = rng.uniform(0.5, 2.0, n).astype(np.float32)
    z = rng.standard_normal(n).astype(np.float32)
    res, err = run_outputs(tool, path, [a, b, z], "grad_%d" % n)
    check(res is not None, "Gradient (n=%d): rlx run failed: %s" % (n, err))
    if res is None:
        continue
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = [(a64 + b64) * a64 / b64 + a64, (2 * a64 + b64) / b64 + 1, -a64 * a64 / (b64 * b64), np.zeros(n)]
    for k, (got, w) in enumerate(zip(res, want)):
        good = got.dtype == np.float32 and got.shape == (n,) and np.allclose(got, w, rtol=1e-5, atol=1e-6)
        err = float(np.max(np.abs(got - w) / (np.abs(w) + 1e-6))) if got.shape == (n,) else float("nan")
        check(good, "Gradient (n=%d) output %d: max rel error %g\ngot %r\nexpected %r" % (n, k, err, got, w))

# errors
relu = model("grad_relu", [helper.make_node("Relu", ["a"], ["y"]),
                           helper.make_node("Gradient", ["a"], ["g"], xs=["a"], y="y", domain=TRAINING)],
             [vi("a", F, [3])], [vi("g", F, [3])])
tool.fails(["compile", relu, "-o", os.path.join(tool.tmp, "r.so")],
           ["Gradient", "cannot differentiate through the Relu node producing 'y'"], "Gradient through Relu")
bcast = model("grad_bcast", [helper.make_node("Mul", ["a", "c"], ["y"]),
                             helper.make_node("Gradient", ["a", "c"], ["ga", "gc"], xs=["a", "c"], y="y", domain=TRAINING)],
              [vi("a", F, [3]), vi("c", F, [1])], [vi("ga", F, [3]), vi("gc", F, [1])])
tool.fails(["compile", bcast, "-o", os.path.join(tool.tmp, "b.so")], ["its input 'c' is broadcast"], "Gradient of a broadcast")

finish()
