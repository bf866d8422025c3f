#!/usr/bin/env python3
"""`rlx bench --profile`: a small MLP (ONNX, from PyTorch) is compiled and benchmarked with
--profile; the table must have the columns kernel, calls, total_ms, ms/run, pct, GFLOPS, be
sorted by time, count every kernel once per run, give GFLOPS for the matmul kernels (FLOPs
counted at compile time), and its pct column must sum to 100 (the last row is the VM's own
time). The runtime's convolution kernels serve every layer, so they get one row per call
site, named after the layer's shapes, with GFLOPS from the shapes: a small CNN's two
convolutions are two rows. --profile-plot draws the table as .svg and .png with python3 + matplotlib; a bad
extension is an error.

    test_bench_profile.py RLX"""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

import torch  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(), torch.nn.Linear(96, 32),
                            torch.nn.LayerNorm(32), torch.nn.Softmax(dim=-1)).eval()
onnx_path = os.path.join(tool.tmp, "mlp.onnx")
torch.onnx.export(model, torch.randn(8, 64), onnx_path, opset_version=14, input_names=["x"])
so = os.path.join(tool.tmp, "mlp.so")
rc, _, err = tool.run("compile", onnx_path, "-o", so)
check(rc == 0, "compile: " + err)

REPEAT = 7
rc, out, err = tool.run("bench", so, "--repeat", REPEAT, "--profile")
check(rc == 0, "bench --profile: " + err)
print(out)
lines = out.splitlines()
hdr = [i for i, l in enumerate(lines) if l.split()[:1] == ["kernel"]]
if check(len(hdr) == 1, "one table header"):
    cols = lines[hdr[0]].split()
    check(cols == ["kernel", "calls", "total_ms", "ms/run", "pct", "GFLOPS"], "columns: %s" % cols)
    rows = [l.split() for l in lines[hdr[0] + 1:] if l.strip()]
    check(len(rows) >= 3 and all(len(r) == 6 for r in rows), "rows of 6 fields: %s" % rows)
    check(rows[-1][0] == "(vm_interpreter_and_other)", "last row: the VM's own time")
    pct = sum(float(r[4]) for r in rows)
    check(abs(pct - 100.0) < 0.5, "pct sums to %.2f, not 100" % pct)
    times = [float(r[2]) for r in rows[:-1]]
    check(times == sorted(times, reverse=True), "sorted by total_ms: %s" % times)
    kernels = [r for r in rows[:-1] if not r[0].startswith("vm.builtin")]
    check(all(int(r[1]) % REPEAT == 0 for r in kernels), "each kernel called a multiple of %d times" % REPEAT)
    mm = [r for r in kernels if "matmul" in r[0]]
    check(len(mm) >= 2 and all(r[5] != "-" and float(r[5]) > 0 for r in mm), "GFLOPS of the matmuls: %s" % mm)
    run = [l for l in lines if l.startswith("profile: runs=%d " % REPEAT)]
    check(len(run) == 1, "profile summary line with runs=%d" % REPEAT)

# per-layer rows of the built-in kernels
cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(32, 64, 3, stride=2),
                          torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1)).eval()
cnn_onnx = os.path.join(tool.tmp, "cnn.onnx")
torch.onnx.export(cnn, torch.randn(1, 3, 32, 32), cnn_onnx, opset_version=14, input_names=["x"])
cnn_so = os.path.join(tool.tmp, "cnn.so")
rc, _, err = tool.run("compile", cnn_onnx, "-o", cnn_so)
check(rc == 0, "compile cnn: " + err)
rc, out, err = tool.run("bench", cnn_so, "--repeat", REPEAT, "--profile")
check(rc == 0, "bench --profile cnn: " + err)
print(out)
rows = [l.split() for l in out.splitlines() if l.startswith("conv2d_nchwc:")]
names = sorted(r[0] for r in rows)
# the NCHWc block is the host target's: 16 channels on AVX-512, 8 below it (and under RLX_MAX_ISA)
rc, isa, err = tool.run("config", "--isa")
check(rc == 0, "config --isa: " + err)
b = 16 if isa.strip() == "x86-64-v4" else 8
check(names == sorted(["conv2d_nchwc:(1,%d,32,32,%d)->(1,%d,15,15,%d),3x3" % (32 // b, b, 64 // b, b),
                       "conv2d_nchwc:(1,3,32,32)->(1,%d,32,32,%d),3x3" % (32 // b, b)]),
      "one row per convolution layer (block %d): %s" % (b, names))
check(all(len(r) == 6 and int(r[1]) == REPEAT and r[5] != "-" and float(r[5]) > 0 for r in rows),
      "each layer called once per run, with GFLOPS: %s" % rows)

have_mpl = importlib.util.find_spec("matplotlib") is not None
for ext, magic in ((".svg", b"<svg"), (".png", b"\x89PNG")):
    plot = os.path.join(tool.tmp, "profile" + ext)
    rc, out, err = tool.run("bench", so, "--repeat", 3, "--profile-plot", plot)
    if have_mpl:
        check(rc == 0 and os.path.exists(plot), "--profile-plot %s: %s" % (ext, err))
        if os.path.exists(plot):
            with open(plot, "rb") as f:
                head = f.read(4096)
            check(magic in head, "%s file content" % ext)
    else:
        check(rc != 0 and "matplotlib" in err, "without matplotlib the error names it: %s" % err)
rc, _, err = tool.run("bench", so, "--repeat", 2, "--profile-plot", os.path.join(tool.tmp, "x.jpg"))
check(rc != 0 and ".png or .svg" in err, "bad plot extension: " + err)

finish()
