"""Processes compiling the same model at once into the same kernel cache (issue 12): each
writes the kernels' object and the model under a temporary name and renames it into place,
so none sees a torn file. Four `rlx compile` processes start together, in several rounds,
each round with an empty cache; every one must succeed, every model (including two written
to the same path at once) must load and give the numpy result exactly, and the cache must
hold only finished objects (no temporary file left behind).

Usage: test_concurrent_compile.py PATH/TO/rlx"""
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from harness import Tool, check, finish

tool = Tool(sys.argv[1])
rng = np.random.default_rng(7)
w = rng.integers(-3, 4, (16, 8)).astype(np.float32)  # small integers: sums are exact in float32
b = rng.integers(-3, 4, (8,)).astype(np.float32)
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Add", ["t", "b"], ["u"]),
                       helper.make_node("Relu", ["u"], ["y"])], "mlp",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])],
                      initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
model = os.path.join(tool.tmp, "mlp.onnx")
onnx.save(m, model)
x = rng.integers(-2, 3, (5, 16)).astype(np.float32)
xp = os.path.join(tool.tmp, "x.npy")
np.save(xp, x)
want = np.maximum(x @ w + b, 0)

N_PROCS, ROUNDS = 4, 3
for r in range(ROUNDS):
    cache = os.path.join(tool.tmp, "cache%d" % r)
    env = dict(tool.env, RLX_CACHE_DIR=cache)
    outs = [os.path.join(tool.tmp, "m%d_%d.so" % (r, i)) for i in range(N_PROCS - 1)]
    outs.append(outs[0])  # two processes write the same model file at once
    procs = [subprocess.Popen([tool.path, "compile", model, "-o", o], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for o in outs]
    for i, p in enumerate(procs):
        _, err = p.communicate(timeout=600)
        check(p.returncode == 0, "round %d, process %d: rc=%d %s" % (r, i, p.returncode, err))
    for o in sorted(set(outs)):
        d = os.path.join(tool.tmp, "out_%s" % os.path.basename(o))
        ok, _ = tool.ok("run", o, "-i", xp, "-o", d, "--format", "npy")
        if ok:
            got = np.load(os.path.join(d, "output_0.npy"))
            check(got.shape == want.shape and np.array_equal(got, want),
                  "round %d, %s: max |error| %s" % (r, o, np.abs(got - want).max() if got.shape == want.shape else got.shape))
    left = [f for f in glob.glob(os.path.join(cache, "*")) if "tmp" in os.path.basename(f) or f.endswith(".c")]
    check(not left, "round %d: temporary files left in the cache: %s" % (r, left))
    objs = glob.glob(os.path.join(cache, "*.o"))
    check(len(objs) >= 1, "round %d: no kernel object in the cache" % r)
    for o in objs:  # every object whole: the linker reads its symbols
        nm = subprocess.run(["nm", o], capture_output=True, text=True)
        check(nm.returncode == 0 and "rlx_fn_" in nm.stdout, "round %d: %s is not a whole object" % (r, o))
    stray = glob.glob(os.path.join(tool.tmp, "m%d_*.tmp" % r)) + glob.glob(os.path.join(tool.tmp, "m%d_*.so.*" % r))
    check(not stray, "round %d: temporary model files left: %s" % (r, stray))
finish()
