#!/usr/bin/env python3
"""Single convolution layers: rlx against the core's FMA peak and OpenBLAS's sgemm of the
same size, in one run.

Each layer is a one-node ONNX model (Conv with constant weight and bias, batch 1) that rlx
compiles as a user would (`rlx compile [--target T]`) and times with `rlx bench --threads 1
--profile`: the convolution kernel's own time (the layout conversions around it left out),
its GFLOPS counting the direct convolution's FLOPs (2 * OC * IC * KH * KW * OH * OW) whatever
algorithm runs (Winograd's "effective" FLOPs can exceed the peak). The peak is measured here:
a loop of independent FMAs on 12 vector registers of the target's width, compiled with the
target's C flags (`rlx config --target-cflags`) and timed like the layers (best of runs: the
machine may be shared; a layer's time is the best of --rounds profiled runs, each the mean
of --repeat calls). Beside it, numpy's matmul (OpenBLAS) times the GEMM the layer would
be as im2col (M = OC, N = OH * OW, K = IC * KH * KW) without the im2col. The layers are
ResNet-18's (3x3 and 1x1, in network order; Winograd where rlx picks it) and a few others.
OpenBLAS: medians of --repeat.

Usage: /usr/bin/python3 bench/conv_layers.py [--rlx build/bin/rlx] [--repeat 30] [--rounds 3] [--target T]
To time the AVX2 path on an AVX-512 machine: --target "c -mcpu=x86-64-v3" with
RLX_MAX_ISA=x86-64-v3 in the environment.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matmul import median_ms, openblas_env  # noqa: E402

LAYERS = [
    # name, IC, H, OC, K, stride, pad
    ("R18 7x7/2 224 3->64 (stem)", 3, 224, 64, 7, 2, 3),
    ("R18 3x3 56x56x64", 64, 56, 64, 3, 1, 1),
    ("R18 3x3/2 56->28 64->128", 64, 56, 128, 3, 2, 1),
    ("R18 1x1/2 56->28 64->128", 64, 56, 128, 1, 2, 0),
    ("R18 3x3 28x28x128", 128, 28, 128, 3, 1, 1),
    ("R18 3x3/2 28->14 128->256", 128, 28, 256, 3, 2, 1),
    ("R18 1x1/2 28->14 128->256", 128, 28, 256, 1, 2, 0),
    ("R18 3x3 14x14x256", 256, 14, 256, 3, 1, 1),
    ("R18 3x3/2 14->7 256->512", 256, 14, 512, 3, 2, 1),
    ("R18 1x1/2 14->7 256->512", 256, 14, 512, 1, 2, 0),
    ("R18 3x3 7x7x512", 512, 7, 512, 3, 1, 1),
    ("1x1 14x14 256->1024", 256, 14, 1024, 1, 1, 0),
    ("1x1 56x56 64->256", 64, 56, 256, 1, 1, 0),
]

PEAK_C = r'''
#include <stdio.h>
#include <time.h>
typedef float v __attribute__((vector_size(W * 4)));
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
  v a[12], b = (v){0} + 0.5f, c = (v){0} + 0.25f;
  for (int i = 0; i < 12; i++) a[i] = (v){0} + (float)i;
  const long n = 20000000;
  double best = 0;
  for (int r = 0; r < 15; r++) {
    double t0 = now();
    for (long k = 0; k < n; k++)
#pragma GCC unroll 12
      for (int i = 0; i < 12; i++) a[i] = a[i] * b + c;
    double gf = (double)n * 12 * W * 2 / (now() - t0) / 1e9;
    best = gf > best ? gf : best;
  }
  float s = 0;
  for (int i = 0; i < 12; i++) s += a[i][0];
  printf("peak_gflops=%.2f %g\n", best, s);
  return 0;
}
'''


def fma_peak(rlx, target, d):
    """One core's FMA peak for the target's vector width (best of 15 runs), in GFLOPS."""
    cmd = [rlx, "config", "--target-cflags"] + (["--target", target] if target else [])
    cflags = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    width = 16 if "avx512f" in " ".join(cflags) or "x86-64-v4" in " ".join(cflags) else 8
    if any(f.startswith("-march=armv") for f in cflags):
        width = 4
    src = os.path.join(d, "peak.c")
    with open(src, "w") as f:
        f.write(PEAK_C)
    exe = os.path.join(d, "peak")
    subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-DW=%d" % width] + cflags + [src, "-o", exe],
                   check=True)
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"peak_gflops=([\d.]+)", out).group(1)), width


SGEMM = r'''
import time, numpy as np
m, n, k, repeat = {m}, {n}, {k}, {repeat}
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k)).astype(np.float32)
b = rng.standard_normal((k, n)).astype(np.float32)
for _ in range(3): a @ b
ts = []
for _ in range(repeat):
    t = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t)
ts.sort()
print("median_ms=%.5f" % (1e3 * ts[len(ts) // 2]))
'''


def conv_model(path, ic, h, oc, k, s, p):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((oc, ic, k, k)) * 0.05).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(oc).astype(np.float32), "b")
    oh = (h + 2 * p - k) // s + 1
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4)
    g = helper.make_graph([node], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, h, h])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc, oh, oh])], [w, b])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), path)
    return oh


def kernel_ms(out):
    """The convolution kernel's ms per run in `rlx bench --profile` output, and its name."""
    for line in out.splitlines():
        m = re.match(r"(conv2d_\S+)\s+\d+\s+[\d.]+\s+([\d.]+)", line)
        if m:
            return float(m.group(2)), m.group(1)
    sys.exit("rlx bench --profile printed no convolution kernel:\n" + out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "rlx"))
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--target", help="rlx compile --target (default: this machine)")
    ap.add_argument("--rounds", type=int, default=3, help="rlx bench --profile runs per layer (the best is shown)")
    args = ap.parse_args()
    env1 = openblas_env(1)
    with tempfile.TemporaryDirectory() as d:
        peak, width = fma_peak(args.rlx, args.target, d)
        print("FMA peak of one core, %d-float vectors: %.1f GFLOPS (RLX_MAX_ISA=%s, target %s)" % (
            width, peak, os.environ.get("RLX_MAX_ISA", "-"), args.target or "host"))
        print("%-28s %-20s %9s %8s %6s | %9s %8s | %6s" % ("layer (1 thread)", "kernel", "rlx_ms", "GFLOPS", "peak%",
                                                           "sgemm_ms", "sgemm_GF", "ratio"))
        env = dict(os.environ, RLX_CACHE_DIR=os.path.join(d, "cache"))
        for name, ic, h, oc, k, s, p in LAYERS:
            onnx_path = os.path.join(d, "conv.onnx")
            so = os.path.join(d, "conv.so")
            oh = conv_model(onnx_path, ic, h, oc, k, s, p)
            r = subprocess.run([args.rlx, "compile", onnx_path, "-o", so] + (["--target", args.target] if args.target
                                                                              else []),
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit("rlx compile failed:\n" + r.stderr)
            ours = None
            for _ in range(args.rounds):  # a round's mean catches preemptions on a shared machine: the best round
                r = subprocess.run([args.rlx, "bench", so, "--repeat", str(args.repeat), "--threads", "1", "--profile"],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    sys.exit("rlx bench failed:\n" + r.stderr)
                ms, kname = kernel_ms(r.stdout)
                ours = ms if ours is None or ms < ours else ours
            alg = kname.split(",")[-1] if "winograd" in kname else ("direct" if "conv2d_nchwc" in kname else kname)
            o = subprocess.run([sys.executable, "-c", SGEMM.format(m=oc, n=oh * oh, k=ic * k * k, repeat=args.repeat)],
                               capture_output=True, text=True, env=env1, check=True)
            blas = median_ms(o.stdout)
            flop = 2.0 * oc * ic * k * k * oh * oh
            print("%-28s %-20s %9.4f %8.1f %5.0f%% | %9.4f %8.1f | %6.2f" % (
                name, alg, ours, flop / ours / 1e6, 100 * flop / ours / 1e6 / peak, blas, flop / blas / 1e6,
                ours / blas))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
