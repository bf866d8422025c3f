#!/usr/bin/env python3
"""1024x1024x1024 float32 matmul: rlx (plain TVMScript definition, default schedule, no
hand-written schedule) against numpy's BLAS (OpenBLAS), single thread and two threads, in
the same run. Prints GFLOPS per side and the ratio rlx/numpy. Medians of --repeat runs.

Usage: /usr/bin/python3 bench/matmul.py [--rlx build/bin/rlx] [--n 1024] [--repeat 15]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"), C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"tir.noalias": T.bool(True)}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
'''

NUMPY_TIMER = r'''
import time, numpy as np
n, repeat = {n}, {repeat}
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n)).astype(np.float32)
b = rng.standard_normal((n, n)).astype(np.float32)
for _ in range(3): a @ b
ts = []
for _ in range(repeat):
    t = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t)
ts.sort()
print("median_ms=%.4f" % (1e3 * ts[len(ts) // 2]))
'''


def median_ms(out):
    m = re.search(r"median_ms=([0-9.]+)", out)
    if not m:
        sys.exit("benchmark output has no median_ms:\n" + out)
    return float(m.group(1))


PROBE = r'''
import numpy as np
rng = np.random.default_rng(1)
a = rng.standard_normal((67, 131)).astype(np.float32); b = rng.standard_normal((131, 45)).astype(np.float32)
assert abs(a @ b - a.astype(np.float64) @ b).max() < 1e-3
'''
_CORETYPE = []


def openblas_env(threads):
    """The environment for a fair OpenBLAS peer. Debian's OpenBLAS predates some CPUs (an
    Emerald Rapids Xeon is detected as "Prescott", the generic SSE3 core: 25 GFLOPS instead
    of 140); where the user set no OPENBLAS_CORETYPE and the CPU has AVX-512, the first of
    the AVX-512 cores that computes a small sgemm correctly is chosen (printed once)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if "OPENBLAS_CORETYPE" in os.environ:
        return env
    if not _CORETYPE:
        chosen = ""
        with open("/proc/cpuinfo") as f:
            avx512 = " avx512f" in f.read()
        v = subprocess.run([sys.executable, "-c", "import numpy as np; np.ones((2,2)) @ np.ones((2,2))"],
                           env=dict(env, OPENBLAS_VERBOSE="2"), capture_output=True, text=True)
        if avx512 and "Core: Prescott" in v.stdout + v.stderr:
            for core in ("SapphireRapids", "Cooperlake", "SkylakeX"):
                if subprocess.run([sys.executable, "-c", PROBE], env=dict(env, OPENBLAS_CORETYPE=core),
                                  capture_output=True).returncode == 0:
                    chosen = core
                    print("OpenBLAS detects this CPU as Prescott (generic); using OPENBLAS_CORETYPE=" + core)
                    break
        _CORETYPE.append(chosen)
    if _CORETYPE[0]:
        env["OPENBLAS_CORETYPE"] = _CORETYPE[0]
    return env


def numpy_ms(n, repeat, threads):
    env = openblas_env(threads)
    out = subprocess.run([sys.executable, "-c", NUMPY_TIMER.format(n=n, repeat=repeat)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return median_ms(out)


def rlx_ms(rlx, path, repeat, threads):
    r = subprocess.run([rlx, "bench", path, "--repeat", str(repeat), "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("rlx bench failed:\n" + r.stdout + r.stderr)
    return median_ms(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "rlx"))
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    n = args.n
    flop = 2.0 * n * n * n
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "matmul.py")
        with open(path, "w") as f:
            f.write(SCRIPT.format(n=n))
        np1 = numpy_ms(n, args.repeat, 1)
        if flop / np1 / 1e6 < 60:
            print("warning: numpy reaches only %.1f GFLOPS on one thread: is libopenblas0-pthread installed?"
                  % (flop / np1 / 1e6))
        print("%-8s %-7s %10s %10s" % ("threads", "impl", "median_ms", "GFLOPS"))
        for threads in (1, 2):
            # Interleave the two sides so drift on a shared machine hits both.
            npm = np1 if threads == 1 else numpy_ms(n, args.repeat, threads)
            rm = rlx_ms(args.rlx, path, args.repeat, threads)
            npm = min(npm, numpy_ms(n, args.repeat, threads))
            print("%-8d %-7s %10.3f %10.1f" % (threads, "numpy", npm, flop / npm / 1e6))
            print("%-8d %-7s %10.3f %10.1f" % (threads, "rlx", rm, flop / rm / 1e6))
            print("threads=%d rlx/numpy GFLOPS ratio = %.2f" % (threads, npm / rm))


if __name__ == "__main__":
    main()
