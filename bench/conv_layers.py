#!/usr/bin/env python3
"""Single convolution layers: rlx against OpenBLAS's sgemm of the same size, in one run.

Each layer is a one-node ONNX model (Conv with constant weight and bias, batch 1) that rlx
compiles as a user would (`rlx compile`, `rlx bench --threads 1`); its GFLOPS count the
direct convolution's FLOPs (2 * OC * IC * KH * KW * OH * OW) whatever algorithm runs
(Winograd included), over the whole model run: the NCHW -> NCHW16c conversion of the input
and back are part of it. Beside it, numpy's matmul (OpenBLAS) times the GEMM the layer would
be as im2col (M = OC, N = OH * OW, K = IC * KH * KW) without the im2col. Medians of --repeat.

Usage: /usr/bin/python3 bench/conv_layers.py [--rlx build/bin/rlx] [--repeat 30]
"""
import argparse
import os
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
    ("3x3 56x56x64 (ResNet stage 1)", 64, 56, 64, 3, 1, 1),
    ("1x1 14x14 256->1024", 256, 14, 1024, 1, 1, 0),
    ("3x3 28x28x128", 128, 28, 128, 3, 1, 1),
    ("3x3 7x7x512", 512, 7, 512, 3, 1, 1),
    ("3x3/2 56->28 64->128", 64, 56, 128, 3, 2, 1),
    ("7x7/2 224 3->64 (stem)", 3, 224, 64, 7, 2, 3),
]

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "rlx"))
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    env1 = openblas_env(1)
    print("%-32s %10s %10s | %12s %10s | %6s" % ("layer (1 thread)", "rlx_ms", "rlx_GFLOPS", "sgemm_ms", "sgemm_GF",
                                                 "ratio"))
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, RLX_CACHE_DIR=os.path.join(d, "cache"))
        for name, ic, h, oc, k, s, p in LAYERS:
            onnx_path = os.path.join(d, "conv.onnx")
            so = os.path.join(d, "conv.so")
            oh = conv_model(onnx_path, ic, h, oc, k, s, p)
            r = subprocess.run([args.rlx, "compile", onnx_path, "-o", so], capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit("rlx compile failed:\n" + r.stderr)
            r = subprocess.run([args.rlx, "bench", so, "--repeat", str(args.repeat), "--threads", "1"],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit("rlx bench failed:\n" + r.stderr)
            ours = median_ms(r.stdout)
            o = subprocess.run([sys.executable, "-c", SGEMM.format(m=oc, n=oh * oh, k=ic * k * k, repeat=args.repeat)],
                               capture_output=True, text=True, env=env1, check=True)
            blas = median_ms(o.stdout)
            flop = 2.0 * oc * ic * k * k * oh * oh
            print("%-32s %10.4f %10.1f | %12.4f %10.1f | %6.2f" % (name, ours, flop / ours / 1e6, blas,
                                                                    flop / blas / 1e6, ours / blas))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
