#!/usr/bin/env python3
"""Real networks from ONNX: rlx against ONNX Runtime on the same .onnx file. PyTorch exports
ResNet-18, MobileNetV2, SqueezeNet 1.1 (random weights), an MLP and a Transformer encoder;
rlx compiles each (`rlx compile`, compile time reported) and times it with `rlx bench`;
ONNX Runtime (the onnxruntime-node npm package, CPU provider, all graph optimizations) times
the same file through node. Each cell: --rounds alternations of rlx and ORT, each the median
of --repeat runs, and the median over the rounds; one thread and two threads, with the ratio
rlx/ORT (> 1: rlx slower).

Usage: /usr/bin/python3 bench/onnx_models.py [--rlx build/bin/rlx] [--ort DIR] [--repeat 20]
       [--rounds 3] [--only NAME] [--profile DIR] [--max-isa x86-64-v3] [--target T]
--max-isa runs rlx as on a CPU of that x86-64 level (RLX_MAX_ISA); --target compiles for T.
--ort: a folder where `npm install --ignore-scripts onnxruntime-node` was run (default
/tmp/ortnode); without it only rlx is timed.
--profile: after the table, `rlx bench --profile` per model and thread count shows where rlx's
time goes (the top kernels, with GFLOPS where known); the full tables and bar charts
(`--profile-plot`, python3-matplotlib) are written to DIR/NAME_Nt.txt and DIR/NAME_Nt.svg.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

from bench_common import CNNS, ROOT, Ort, alternate, export, fmt_ms, rlx_time


def encoder():
    """The issue's transformer encoder: 2 layers, d=256, 4 heads, FFN 1024, GELU; input (1, 128, 256)."""
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, activation="gelu",
                                             batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def mlp():
    """The issue's MLP 784-128-10, batch 1."""
    return torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))


def mlp_b16():
    """A bigger MLP at batch 16: 784-1024-1024-10."""
    return torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                               torch.nn.ReLU(), torch.nn.Linear(1024, 10))


MODELS = [("mlp", mlp, (1, 784)), ("mlp_b16", mlp_b16, (16, 784))] + CNNS + [("transformer", encoder, (1, 128, 256))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default=os.path.join(ROOT, "build", "bin", "rlx"))
    ap.add_argument("--ort", default="/tmp/ortnode")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="alternations of rlx and ORT per cell (median reported)")
    ap.add_argument("--only")
    ap.add_argument("--profile", metavar="DIR")
    ap.add_argument("--max-isa", metavar="LEVEL",
                    help="run rlx capped at this x86-64 level (RLX_MAX_ISA: x86-64-v2, v3, v4): its host target, "
                         "kernels and generated code take the CPU to have no more")
    ap.add_argument("--target", help="compile for this target instead of this machine (e.g. 'c -mcpu=x86-64-v3')")
    args = ap.parse_args()
    profiles = []
    tmp = tempfile.mkdtemp(prefix="rlx-onnxbench-")
    env = dict(os.environ, RLX_CACHE_DIR=os.path.join(tmp, "cache"))
    if args.max_isa:
        env["RLX_MAX_ISA"] = args.max_isa
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    isa = subprocess.run([args.rlx, "config", "--isa"], capture_output=True, text=True, env=env).stdout.strip()
    print("CPU: %s, %d cores; rlx level %s%s; %s" % (cpu, os.cpu_count(), isa,
                                                    " (RLX_MAX_ISA=%s)" % args.max_isa if args.max_isa else "",
                                                    "target " + args.target if args.target else "host target"))
    ort = Ort(args.ort, tmp)
    print("%-14s %10s | %10s %10s %7s | %10s %10s %7s" % ("model", "compile_s", "rlx_1t_ms", "ort_1t_ms", "ratio",
                                                           "rlx_2t_ms", "ort_2t_ms", "ratio"))
    for name, make, shape in MODELS:
        if args.only and args.only != name:
            continue
        onnx_path = os.path.join(tmp, name + ".onnx")
        export(make, shape, onnx_path)
        so = os.path.join(tmp, name + ".so")
        t0 = time.time()
        r = subprocess.run([args.rlx, "compile", onnx_path, "-o", so] + (["--target", args.target] if args.target else []),
                           capture_output=True, text=True, env=env)
        t_compile = time.time() - t0
        if r.returncode != 0:
            print("%-14s rlx compile failed: %s" % (name, r.stderr.strip()))
            continue
        x = os.path.join(tmp, name + "_x.npy")
        np.save(x, np.sin(np.arange(int(np.prod(shape)), dtype=np.float32)).reshape(shape))
        row = [name, "%10.1f" % t_compile]
        for threads in (1, 2):
            # --rounds alternations of rlx and ORT, each a median of --repeat runs
            ours, theirs = alternate(args.rounds, [
                lambda: rlx_time(args.rlx, so, x, threads, args.repeat, env),
                lambda: ort.time(onnx_path, shape, threads, args.repeat) if ort.available else None])
            ratio = ours / theirs if ours and theirs else float("nan")
            row.append("| %10s %10s %7.2f" % (fmt_ms(ours) if ours else "fail", fmt_ms(theirs) if theirs else "-",
                                              ratio))
        print("%-14s %s %s %s" % tuple(row))
        sys.stdout.flush()
        if args.profile:
            profiles.append((name, so, x))
    for name, so, x in profiles:
        os.makedirs(args.profile, exist_ok=True)
        for threads in (1, 2):
            base = os.path.join(args.profile, "%s_%dt" % (name, threads))
            r = subprocess.run([args.rlx, "bench", so, "-i", x, "--repeat", str(args.repeat), "--threads", str(threads),
                                "--profile", "--profile-plot", base + ".svg"], capture_output=True, text=True, env=env)
            with open(base + ".txt", "w") as f:
                f.write(r.stdout + r.stderr)
            lines = r.stdout.splitlines()
            hdr = [i for i, l in enumerate(lines) if l.startswith("kernel ")]
            print("\n%s, %d thread(s): %s" % (name, threads, base + ".svg" if r.returncode == 0 else r.stderr.strip()))
            if hdr:
                print("\n".join(lines[hdr[0]:hdr[0] + 9]))


if __name__ == "__main__":
    main()
