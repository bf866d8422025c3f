#!/usr/bin/env python3
"""No silent fallback to scalar code: the networks of bench/onnx_models.py -- the transformer
encoder (2 layers, d=256, 4 heads, FFN 1024, GELU, seq 128), the MLP 784-128-10 at batch 1,
the MLP 784-1024-1024-10 at batch 16, and ResNet-18, MobileNetV2, SqueezeNet 1.1 -- are
exported from PyTorch, compiled with `rlx compile --stats`, and the schedule report must say
that no block (matmul or reduction) was left unscheduled; `RLX_SCHED_DEBUG=1` must print the
same report (transformer and MLPs). Weights are packed at compile time: after default_schedule the matmul kernels take
packed weight parameters and no kernel packs at run time. The compiled models' outputs must
match PyTorch's within 1e-4 of the output scale.

    test_schedule_coverage.py RLX"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

import torch  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import onnx_models  # noqa: E402

tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
TOL = 1e-4
NAMES = ["transformer", "mlp", "mlp_b16"]
CNNS = ["resnet18", "mobilenet_v2", "squeezenet1_1"]  # report only: test_onnx_models checks their numbers

for name, make, shape in onnx_models.MODELS:
    if name not in NAMES + CNNS:
        continue
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(*shape)
    onnx_path = os.path.join(tool.tmp, name + ".onnx")
    torch.onnx.export(model, x, onnx_path, opset_version=14, input_names=["x"])
    so = os.path.join(tool.tmp, name + ".so")
    rc, out, err = tool.run("compile", onnx_path, "-o", so, "--stats")
    if not check(rc == 0, "%s: rlx compile failed: %s" % (name, err.strip())):
        continue
    m = re.search(r"schedule: (\d+) block\(s\) left unscheduled", out)
    check(m is not None, "%s: --stats prints the schedule report:\n%s" % (name, out))
    left = [l for l in out.splitlines() if l.startswith("unscheduled ")]
    check(m is not None and m.group(1) == "0" and not left,
          "%s: blocks left unscheduled:\n%s" % (name, "\n".join(left)))
    if name in CNNS:
        continue
    # the same report on stderr with RLX_SCHED_DEBUG=1
    tool.env["RLX_SCHED_DEBUG"] = "1"
    rc, out2, err2 = tool.run("compile", onnx_path, "-o", so)
    del tool.env["RLX_SCHED_DEBUG"]
    check(rc == 0 and "schedule: 0 block(s) left unscheduled" in err2,
          "%s: RLX_SCHED_DEBUG=1 prints the report on stderr: %s" % (name, err2.strip()))
    # weights packed at compile time, none at run time
    rc, text, err = tool.run("print", onnx_path, "--after", "default_schedule")
    check(rc == 0 and re.search(r"_packed: T\.Buffer\(", text) is not None and '_pack")' not in text,
          "%s: matmul weights packed at compile time: %s" % (name, err.strip()))
    # numbers against PyTorch
    xin = os.path.join(tool.tmp, name + "_x.npy")
    np.save(xin, x.numpy())
    outdir = os.path.join(tool.tmp, name + "_out")
    rc, _, err = tool.run("run", so, "-i", xin, "-o", outdir, "--format", "npy")
    if not check(rc == 0, "%s: rlx run failed: %s" % (name, err.strip())):
        continue
    with torch.no_grad():
        ref = model(x).numpy()
    got = np.load(os.path.join(outdir, "output_0.npy"))
    scale = max(1.0, float(np.abs(ref).max()))
    e = float(np.abs(got - ref).max()) / scale if got.shape == ref.shape else float("inf")
    print("%s %s: error/scale %.2e" % (name, "x".join(map(str, shape)), e))
    check(e <= TOL, "%s: error/scale %.3g > %g" % (name, e, TOL))

finish()
