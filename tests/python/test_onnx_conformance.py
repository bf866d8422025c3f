#!/usr/bin/env python3
"""The ONNX conformance ratchet: every case listed in tests/onnx/passing.txt (ONNX backend
node/simple/pytorch-converted/pytorch-operator cases that passed before) must still pass
through `rlx run MODEL.onnx` (tests/onnx/run_conformance.py --check, 2 jobs). The whole
suite is run instead when RLX_ONNX_FULL=1. First checks the runner itself: its comparison
(dtype, shape, NaN positions, tolerance) and that --check fails on a listed case that breaks.

    test_onnx_conformance.py RLX"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNNER = os.path.join(ROOT, "tests", "onnx", "run_conformance.py")
PASSING = os.path.join(ROOT, "tests", "onnx", "passing.txt")
sys.path.insert(0, os.path.dirname(RUNNER))
import run_conformance as rc  # noqa: E402

rlx = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))

# --- the runner's comparison -------------------------------------------------------------
f32 = np.array([1.0, np.nan, 3.0], np.float32)
check(rc.compare(f32.copy(), f32, 1e-3, 1e-7) is None, "identical arrays with NaN must match")
check("NaN" in (rc.compare(np.array([1.0, 2.0, 3.0], np.float32), f32, 1e-3, 1e-7) or ""),
      "a NaN where the reference has none must fail")
check(rc.compare(f32 * np.float32(1.0005), f32, 1e-3, 1e-7) is None, "0.05% off is within rtol=1e-3")
check("tolerance" in (rc.compare(f32 * np.float32(1.002), f32, 1e-3, 1e-7) or ""), "0.2% off must fail")
check("dtype" in (rc.compare(f32.astype(np.float64), f32, 1e-3, 1e-7) or ""), "float64 vs float32 must fail")
check("shape" in (rc.compare(f32.reshape(1, 3), f32, 1e-3, 1e-7) or ""), "shape (1,3) vs (3,) must fail")
check("differ" in (rc.compare(np.array([1, 2001]), np.array([1, 2000]), 1e-3, 1e-7) or ""),
      "integers compare exactly")
inf = np.array([np.inf, 1.0], np.float32)
check("infinities" in (rc.compare(-inf, inf, 1e-3, 1e-7) or ""), "-inf vs inf must fail")

# --- random outputs: dtype, shape and the stated properties, not values -----------------
check(rc.random_kind("node/test_bernoulli_seed_expanded") == "bernoulli", "bernoulli cases are random")
check(rc.random_kind("node/test_training_dropout_zero_ratio") is None, "dropout with ratio 0 is compared by value")
bern = np.array([0.0, 1.0, 1.0], np.float32)
check(rc.check_random("bernoulli", [bern], [bern[::-1].copy()], []) is None, "any 0/1 draw of the right shape passes")
check("0 and 1" in (rc.check_random("bernoulli", [bern + 1], [bern], []) or ""), "a 2 is not a Bernoulli draw")
check("float64" in (rc.check_random("bernoulli", [bern.astype(np.float64)], [bern], []) or ""), "dtype is checked")
xd = np.arange(1, 13, dtype=np.float32)
keep = np.arange(12) % 3 == 0
yd = np.where(keep, xd * 2, 0).astype(np.float32)
r_half = np.array(0.5, np.float32)
check(rc.check_random("dropout", [yd, keep], [yd, keep], [xd, r_half]) is None, "a consistent dropout passes")
check("neither" in (rc.check_random("dropout", [yd + 1, keep], [yd, keep], [xd, r_half]) or ""),
      "a value other than 0 or x / (1 - r) fails")
check("mask" in (rc.check_random("dropout", [yd, ~keep], [yd, keep], [xd, r_half]) or ""), "an inconsistent mask fails")

# --- --check fails when a listed case breaks (a stand-in tool writing wrong outputs) -----
tmp = tempfile.mkdtemp(prefix="rlx-onnxconf-")
fake = os.path.join(tmp, "fake_rlx")
with open(fake, "w") as f:
    f.write("#!" + sys.executable + """
import os, shutil, sys, glob
import numpy as np, onnx
from onnx import numpy_helper
a = sys.argv; out = a[a.index("-o") + 1]; os.makedirs(out, exist_ok=True)
for p in glob.glob(os.path.join(os.path.dirname(a[2]), "test_data_set_0", "output_*.pb")):
    t = numpy_helper.to_array(onnx.load_tensor(p))
    if "abs" in a[2]:
        t = t + np.float32(0.5)
    open(os.path.join(out, os.path.basename(p)), "wb").write(numpy_helper.from_array(t).SerializeToString())
""")
os.chmod(fake, 0o755)
listed = os.path.join(tmp, "passing.txt")
with open(listed, "w") as f:
    f.write("node/test_abs\nnode/test_neg\n")
r = subprocess.run([sys.executable, RUNNER, fake, "--only", "^node/test_(abs|neg)$", "--passing", listed,
                    "--check", "--quiet"], capture_output=True, text=True)
check(r.returncode == 1 and "REGRESSED: node/test_abs" in r.stdout and "1 passed, 1 failed" in r.stdout,
      "--check must fail on a listed case that breaks: rc=%d\n%s%s" % (r.returncode, r.stdout, r.stderr))

# --- the ratchet against rlx --------------------------------------------------------------
full = os.environ.get("RLX_ONNX_FULL") == "1"
cmd = [sys.executable, RUNNER, rlx, "--check", "--jobs", "2"] + ([] if full else ["--passing-only", "--quiet"])
listed = rc.read_passing(PASSING)
check(len(listed) > 0, "tests/onnx/passing.txt lists no cases")
t0 = time.time()
r = subprocess.run(cmd, capture_output=True, text=True)
print(r.stdout.rstrip())
if r.stderr.strip():
    print(r.stderr.rstrip(), file=sys.stderr)
print("conformance (%s): %.0fs" % ("full suite" if full else "%d listed cases" % len(listed), time.time() - t0))
check(r.returncode == 0, "ONNX conformance ratchet failed (a case in tests/onnx/passing.txt no longer passes; "
      "see REGRESSED above)")
finish()
