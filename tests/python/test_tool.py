#!/usr/bin/env python3
"""End-to-end tests of `rlx print/run/bench` on TVMScript files, numbers checked against
numpy (float32: max abs error <= 1e-3 relative to the output's scale), plus bad input:
every error must be one clear message with exit status 1, never a crash."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

tool = Tool(sys.argv[1] if len(sys.argv) > 1 else "build/bin/rlx")
rng = np.random.default_rng(7)
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def close(out, ref, what, tol=1e-4):
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(out.astype(np.float64) - ref))) / scale if ref.size else 0.0
    print("%s: max abs error / scale = %.3g" % (what, err))
    return check(out.shape == ref.shape and err <= tol, "%s: error %.3g (shapes %s vs %s)" % (what, err, out.shape, ref.shape))


def save(name, arr):
    p = os.path.join(tool.tmp, name)
    np.save(p, arr)
    return p


def run_ok(*args):
    rc, out, err = tool.run(*args)
    check(rc == 0, "rlx %s failed (%d): %s" % (" ".join(map(str, args)), rc, err))
    return rc == 0


# --- TVM's printed matmul + relu, exactly as TVM prints it --------------------------------
example = os.path.join(ROOT, "examples", "matmul_relu.py")
rc, out, err = tool.run("print", example)
check(rc == 0 and out == open(example).read(), "print of the TVM text is not identical:\n" + out + err)

a = rng.standard_normal((128, 128)).astype(np.float32)
b = rng.standard_normal((128, 128)).astype(np.float32)
outdir = os.path.join(tool.tmp, "out1")
if run_ok("run", example, "-i", save("a.npy", a), "-i", save("b.npy", b), "-o", outdir):
    close(np.load(os.path.join(outdir, "output_0.npy")), np.maximum(a.astype(np.float64) @ b, 0), "matmul+relu")

# --- int64 shapes, as TVM prints functions made from int64 TE shapes ----------------------
I64 = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((T.int64(64), T.int64(32)), "float32"), B: T.Buffer((T.int64(32), T.int64(48)), "float32"), compute: T.Buffer((T.int64(64), T.int64(48)), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    C = T.alloc_buffer((T.int64(64), T.int64(48)))
    for i, j, k in T.grid(T.int64(64), T.int64(48), T.int64(32)):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for i, j in T.grid(T.int64(64), T.int64(48)):
        with T.block("compute"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(C[v_i, v_j])
            T.writes(compute[v_i, v_j])
            compute[v_i, v_j] = T.max(C[v_i, v_j], T.float32(0.0))
'''
p = tool.file("i64.py", I64)
rc, out, err = tool.run("print", p)
check(rc == 0 and out == I64, "int64 print round trip:\n" + out + err)
a2 = rng.standard_normal((64, 32)).astype(np.float32)
b2 = rng.standard_normal((32, 48)).astype(np.float32)
outdir = os.path.join(tool.tmp, "out2")
if run_ok("run", p, "-i", save("a2.npy", a2), "-i", save("b2.npy", b2), "-o", outdir):
    close(np.load(os.path.join(outdir, "output_0.npy")), np.maximum(a2.astype(np.float64) @ b2, 0), "int64 matmul+relu")

# --- symbolic shapes: one function, two sizes, compiled once (second run hits the cache) ---
SYM = '''# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle, var_B: T.handle, var_C: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(16)))
    B = T.match_buffer(var_B, (T.int64(16),))
    C = T.match_buffer(var_C, (n, T.int64(16)))
    # with T.block("root"):
    for i, j in T.grid(n, T.int64(16)):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], B[v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.exp(A[v_i, v_j]) + B[v_j]
'''
p = tool.file("sym.py", SYM)
cache = os.path.join(tool.tmp, "cache")
objects = []
for n in (5, 300):
    x = rng.standard_normal((n, 16)).astype(np.float32)
    y = rng.standard_normal((16,)).astype(np.float32)
    outdir = os.path.join(tool.tmp, "sym%d" % n)
    if run_ok("run", p, "-i", save("x%d.npy" % n, x), "-i", save("y%d.npy" % n, y), "-o", outdir):
        close(np.load(os.path.join(outdir, "output_0.npy")), np.exp(x.astype(np.float64)) + y, "symbolic n=%d" % n)
    objects.append(sorted(f for f in os.listdir(cache) if f.endswith(".so")) if os.path.isdir(cache) else [])
check(len(objects[0]) >= 1 and objects[0] == objects[1], "the second size compiled again: %s" % objects)

# --- plain matmuls through the default schedule (register tiles, packing, tails) ---------
MM = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer(({m}, {k}), "float32"), B: T.Buffer(({k}, {n}), "float32"), C: T.Buffer(({m}, {n}), "float32")):
    T.func_attr({{"tir.noalias": T.bool(True)}})
    for i, j, k in T.grid({m}, {n}, {k}):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
'''
for m, n, k in ((512, 512, 512), (100, 70, 90), (257, 129, 300), (3, 5, 7)):
    p = tool.file("mm_%d_%d_%d.py" % (m, n, k), MM.format(m=m, n=n, k=k))
    x = rng.standard_normal((m, k)).astype(np.float32)
    y = rng.standard_normal((k, n)).astype(np.float32)
    outdir = os.path.join(tool.tmp, "mm%d" % m)
    if run_ok("run", p, "-i", save("mx.npy", x), "-i", save("my.npy", y), "-o", outdir):
        close(np.load(os.path.join(outdir, "output_0.npy")), x.astype(np.float64) @ y, "matmul %dx%dx%d" % (m, n, k))

# --- every lowering stage prints ------------------------------------------------------------
for stage, needle in (("default_schedule", "C_local = T.alloc_buffer((8, 32), scope=\"local\")"),
                      ("lower_blocks", "for k in range(128)"), ("flatten_buffers", "T.decl_buffer"),
                      ("vectorize_loops", "T.Broadcast(T.float32(0.0), 16)"), ("all", "T.parallel")):
    rc, out, err = tool.run("print", example, "--after", stage, "--target", "c -mcpu=x86-64-v4")  # AVX-512's tile
    check(rc == 0 and needle in out and "T.block" not in out or stage == "default_schedule" and needle in out,
          "print --after %s lacks %r:\n%s%s" % (stage, needle, out[:2000], err))

# --- bench prints a median -----------------------------------------------------------------
rc, out, err = tool.run("bench", example, "--repeat", "3", "--threads", "1")
check(rc == 0 and "median_ms=" in out, "bench output: " + out + err)

# --- bad input: one clear message, exit status 1 -------------------------------------------
def fails(args, needle, what):
    rc, out, err = tool.run(*args)
    ok = rc == 1 and needle in err and err.startswith("rlx: error:")
    check(ok, "%s: rc=%d, stderr=%r (wanted %r)" % (what, rc, err, needle))


fails(["run", os.path.join(tool.tmp, "missing.py")], "missing.py", "missing file")
fails(["frobnicate", example], "unknown command", "unknown command")
fails(["run", example, "--bogus"], "unknown option", "unknown option")
fails(["run"], "needs a FILE", "no file")
bad = tool.file("bad.py", "# from tvm.script import tir as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"):\n    pass\n")
fails(["print", bad], "bad.py:4:", "syntax error has file:line:col")
fails(["run", example, "-i", save("wrong.npy", np.zeros((128, 64), np.float32)), "-i", save("b.npy", b)],
      "dimension 1", "wrong input shape")
fails(["run", example, "-i", save("wrongt.npy", np.zeros((128, 128), np.int32)), "-i", save("b.npy", b)],
      "expected dtype float32", "wrong input dtype")
fails(["run", example, "-i", save("a.npy", a), "-i", save("b.npy", b), "-i", save("a.npy", a), "-i", save("a.npy", a)],
      "takes 3 parameters", "too many inputs")
junk = os.path.join(tool.tmp, "junk.npy")
with open(junk, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00garbage")
fails(["run", example, "-i", junk], "junk.npy", "corrupted npy")
fails(["run", example, "-e", "nothere"], "no function 'nothere'", "unknown entry")
fails(["print", example, "--after", "bogus"], "unknown pass 'bogus'", "unknown pass")
fails(["bench", example, "--repeat", "zero"], "--repeat expects an integer", "bad repeat")

finish()
