#!/usr/bin/env python3
"""Real models on another CPU: compiled on this machine for a target (rlx compile --target T),
run by the runtime alone (rlx-run) under an emulator, and exported as Model Library Format
archives built with the target's C compiler and flags into static programs run under the
emulator — each output against PyTorch's, max abs error <= 1e-4 * max(1, max|ref|). What CI
runs for aarch64 (qemu-aarch64) and for the x86-64-v2 baseline (qemu-x86_64 -cpu Nehalem,
which faults on any AVX instruction). Not a ctest of its own: scripts/test.sh runs it after
building the runtime for the target.

    cross_models.py RLX --target T --runner "CMD" [--cc CC] [--emulator "EMU"] [--only NAME]

CMD runs a compiled model (e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu build-aarch64/bin/rlx-run");
CC builds the MLF archives (default: cc) and EMU runs their programs (default: none)."""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import mlf_util as mu  # noqa: E402
from harness import Tool, calibrate, check, finish  # noqa: E402

import torch  # noqa: E402
import torchvision  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOL = 1e-4


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10),
                               torch.nn.LogSoftmax(dim=-1))


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.1,
                                             activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2)


# name, constructor, input shape; MLF: whether the archive is built and run too
MODELS = [
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(weights=None), (1, 3, 224, 224), True),
    ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224), False),
    ("resnet18", lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224), False),
    ("mlp", mlp, (4, 256), True),
    ("transformer", encoder, (2, 16, 64), False),
]


def error(out, ref):
    scale = max(1.0, float(np.max(np.abs(ref))))
    return float(np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64)))) / scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx")
    ap.add_argument("--target", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--emulator", default="")
    ap.add_argument("--only")
    a = ap.parse_args()
    tool = Tool(a.rlx)
    tmp = tool.tmp
    print("target: %s" % a.target)
    for name, make, shape, with_mlf in MODELS:
        if a.only and a.only != name:
            continue
        torch.manual_seed(0)
        model = make().eval()
        calibrate(model, shape)
        onnx_path = os.path.join(tmp, name + ".onnx")
        torch.onnx.export(model, torch.randn(*shape), onnx_path, opset_version=14, input_names=["x"],
                          output_names=["y"])
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).numpy()
        np.save(os.path.join(tmp, "x.npy"), x)
        so = os.path.join(tmp, name + ".so")
        t0 = time.time()
        rc, _, err = tool.run("compile", onnx_path, "-o", so, "--target", a.target)
        line = "%s: compile %.1fs" % (name, time.time() - t0)
        if check(rc == 0, "%s: compile --target failed: %s" % (name, err.strip())):
            out = os.path.join(tmp, name + "_out")
            os.makedirs(out, exist_ok=True)
            t0 = time.time()
            r = subprocess.run(a.runner.split() + [so, "-i", os.path.join(tmp, "x.npy"), "-o", out],
                               capture_output=True, text=True, timeout=1200)
            if check(r.returncode == 0, "%s: runner failed: %s" % (name, (r.stderr or r.stdout).strip())):
                e = error(np.load(os.path.join(out, "output_0.npy")), ref)
                check(e <= TOL, "%s (runner): error/scale %.3g > %g" % (name, e, TOL))
                line += ", run %.1fs, error/scale %.3g" % (time.time() - t0, e)
        if with_mlf:
            tar = os.path.join(tmp, name + ".tar")
            rc, _, err = tool.run("export-mlf", onnx_path, "-o", tar, "--target", a.target)
            if check(rc == 0, "%s: export-mlf --target failed: %s" % (name, err.strip())):
                d = os.path.join(tmp, name + "_mlf")
                meta = mu.unpack(tar, d)
                mod = meta["modules"]["default"]
                words = mod["target"][0].split()
                check(all(w in words for w in a.target.split()[1:] if not w.startswith("-mattr=")) and
                      "-march=" in mod["cflags"], "%s: metadata target %r, cflags %r" % (name, words, mod["cflags"]))
                mu.write_main(d, meta)
                ok, log = mu.build(d, cc=a.cc, flags=["-static"])  # with the archive's cflags
                if check(ok, "%s: MLF build with %s %s failed:\n%s" % (name, a.cc, mod["cflags"], log[-3000:])):
                    rc, log, outs = mu.run(d, meta, {"x": x}, emulator=a.emulator.split())
                    if check(rc == 0, "%s: MLF program failed: %s" % (name, log)):
                        e = error(outs["y"].reshape(ref.shape), ref)
                        check(e <= TOL, "%s (MLF): error/scale %.3g > %g" % (name, e, TOL))
                        line += ", MLF error/scale %.3g" % e
        print(line)
        sys.stdout.flush()
    finish()


if __name__ == "__main__":
    main()
