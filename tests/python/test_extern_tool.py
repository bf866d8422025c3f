#!/usr/bin/env python3
"""End-to-end tests of external code linked into models (--extern) and of compile-time
resolution of extern names: TVM-style C++ kernels (tests/data/tvm_kernels.cc, written against
TVM's runtime headers) linked as a .cc and as a .o built with `rlx config --cflags`, run on
two shape sets; a failing ICHECK is a run error with the kernel's name; multi-output externs
called with two dtypes; every error path (unknown extension, a source that does not compile,
duplicate symbols, missing symbol, a .cu without nvcc); a .cu compiled by nvcc when there is one;
--defer-extern; --version, --help,
COMMAND --help, config."""
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
rng = np.random.default_rng(5)
DATA = os.path.join(ROOT, "tests", "data")
KCC = os.path.join(DATA, "tvm_kernels.cc")
MODEL = os.path.join(DATA, "tvm_extern.py")


def path(name):
    return os.path.join(tool.tmp, name)


def save(name, arr):
    np.save(path(name), arr)
    return path(name)


ok = tool.ok
fails = tool.fails


def exact(out, ref, what):
    good = out.shape == ref.shape and out.dtype == ref.dtype and np.array_equal(out, ref)
    print("%s: %s" % (what, "exact" if good else "MISMATCH"))
    return check(good, what)


# --- version, help, config ----------------------------------------------------------------
rc, out, _ = tool.run("--version")
check(rc == 0 and out.startswith("rlx "), "--version: %d %r" % (rc, out))
rc, out, _ = tool.run("--help")
check(rc == 0 and "export-mlf" in out and "--extern" in out, "--help")
for cmd in ("print", "compile", "run", "bench", "export-mlf", "config"):
    rc, out, _ = tool.run(cmd, "--help")
    check(rc == 0 and ("rlx " + cmd) in out, "%s --help: %d %r" % (cmd, rc, out))
rc, cflags, _ = tool.run("config", "--cflags")
cflags = cflags.split()
check(rc == 0 and any(f.startswith("-I") for f in cflags), "config --cflags")
inc = [f[2:] for f in cflags if f.startswith("-I")]
check(any(os.path.exists(os.path.join(d, "tvm", "runtime", "packed_func.h")) for d in inc) and
      any(os.path.exists(os.path.join(d, "rlx", "extern.h")) for d in inc), "config --cflags names the headers")
rc, libs, _ = tool.run("config", "--libs")
check(rc == 0 and "-lrlx_runtime" in libs, "config --libs")
fails(["config", "--nope"], ["unknown option '--nope'"], "config bad flag")

# --- TVM-style kernels as .cc and as .o, two shape sets each ---------------------------------
obj = path("tvm_kernels.o")
r = subprocess.run([os.environ.get("CXX", "c++"), "-std=c++17", "-c", "-fPIC", "-O2"] + cflags + [KCC, "-o", obj],
                   capture_output=True, text=True)
check(r.returncode == 0, "kernel .o did not build with rlx config --cflags: " + r.stderr)
a, b = save("a.npy", np.array(1.5, np.float32)), save("b.npy", np.array(-4.25, np.float32))
for ext, so in ((KCC, path("cc.so")), (obj, path("o.so"))):
    kind = os.path.splitext(ext)[1]
    if not ok("compile", MODEL, "-o", so, "--extern", ext)[0]:
        continue
    for shape4, shape3 in (((2, 3, 4, 5), (3, 7, 9)), ((1, 8, 2, 64), (5, 1, 33))):
        x4 = rng.standard_normal(shape4).astype(np.float32)
        x3 = rng.standard_normal(shape3).astype(np.float32)
        out = path("out" + kind)
        if ok("run", so, "-i", a, "-i", b, "-i", save("x4.npy", x4), "-o", out)[0]:
            exact(np.load(os.path.join(out, "output_0.npy")), np.array(1.5 - 4.25, np.float32), "%s 0-d scalar add" % kind)
            exact(np.load(os.path.join(out, "output_1.npy")), x4 * np.float32(2) + np.float32(1),
                  "%s 4-d shape check %s" % (kind, shape4))
        if ok("run", so, "-e", "main3", "-i", save("x3.npy", x3), "-o", out)[0]:
            exact(np.load(os.path.join(out, "output_0.npy")), x3 * np.float32(2) + np.float32(1),
                  "%s 3-d shape check %s" % (kind, shape3))
    # a failing check inside the kernel is the run's error, with the kernel's name; no abort
    fails(["run", so, "-e", "main3", "-i", save("big.npy", np.zeros((2, 2, 65), np.float32))],
          ["tvm_shape_check: last dimension 65 exceeds 64"], "%s LOG(FATAL) in a kernel" % kind)
    fails(["run", so, "-e", "main3", "-i", save("b17.npy", np.zeros((17, 2, 3), np.float32))],
          ["tvm_shape_check: Check failed: x->shape[0] <= 16 (17 vs. 16): batch too large"], "%s ICHECK in a kernel" % kind)
# the same through `run FILE --extern` (compiled on the fly)
if ok("run", MODEL, "--extern", KCC, "-i", a, "-i", b, "-i", save("x4.npy", np.ones((1, 1, 1, 1), np.float32)),
      "-o", path("direct"))[0]:
    exact(np.load(path("direct/output_1.npy")), np.full((1, 1, 1, 1), 3, np.float32), "run FILE --extern .cc")

# --- multi-output extern called with float32 and float64 -----------------------------------
x = rng.standard_normal((5, 3)).astype(np.float32)
y = rng.standard_normal(4)
if ok("run", os.path.join(DATA, "multi_out.py"), "--extern", os.path.join(DATA, "multi_out.c"), "-i",
      save("mx.npy", x), "-i", save("my.npy", y), "-o", path("multi"))[0]:
    for i, ref in enumerate((np.maximum(x, 0), np.minimum(x, 0), np.maximum(y, 0), np.minimum(y, 0))):
        exact(np.load(path("multi/output_%d.npy" % i)), ref, "multi-output extern output %d (%s)" % (i, ref.dtype))

# --- a CUDA source (host entry; needs nvcc, not a GPU) --------------------------------------------
# Where nvcc's toolkit can link a program against the shared CUDA runtime, the model must link and
# run; where it cannot (nvcc without libcudart.so), rlx must say that the CUDA runtime is missing.
NVCC = os.environ.get("NVCC", "nvcc")
if shutil.which(NVCC.split()[0]):
    probe = path("probe.cu")
    with open(probe, "w") as f:
        f.write("__global__ void k(float* y) { y[0] = 1; }\nint main() { return 0; }\n")
    toolkit = subprocess.run(NVCC.split() + ["-cudart", "shared", probe, "-o", path("probe")],
                             capture_output=True).returncode == 0
    xs = np.arange(7, dtype=np.float32) - 3
    cuda_run = ["run", os.path.join(DATA, "cuda_host.py"), "--extern", os.path.join(DATA, "cuda_host.cu"), "-i",
                save("cx.npy", xs), "-o", path("cuda")]
    if toolkit:
        if ok(*cuda_run)[0]:
            exact(np.load(path("cuda/output_0.npy")), -xs, ".cu extern compiled with nvcc")
    else:
        print("nvcc cannot link against libcudart.so here: checking rlx's error for it")
        fails(cuda_run, ["a CUDA extern needs the CUDA runtime library libcudart.so", "$CUDA_HOME"],
              ".cu extern without the CUDA runtime")
else:
    print("nvcc not found: the .cu extern is only checked for its error")

# --- errors ---------------------------------------------------------------------------------
fails(["compile", MODEL, "-o", path("m.so")],
      ["extern function 'tvm_scalar_add' called by 'main' was not found", "'tvm_shape_check'",
       "the model's externs (none given with --extern)", "the --lib libraries (none given)", "the VM builtins",
       "the global registry", "--defer-extern"], "missing symbol at compile time")
check(not os.path.exists(path("m.so")), "no model left behind after a missing symbol")
half = path("half.c")
with open(half, "w") as f:
    f.write('#include "rlx/extern.h"\nstatic int k(DLTensor* a, DLTensor* b, DLTensor* o) { return 0; }\n'
            "RLX_EXPORT_DPS_3(tvm_scalar_add, k)\n")
fails(["compile", MODEL, "-o", path("m.so"), "--extern", half],
      ["'tvm_shape_check' called by 'main' was not found", "'%s'" % half], "one of two symbols missing")
fails(["compile", MODEL, "-o", path("m.so"), "--extern", half, "--extern", KCC],
      ["duplicate symbol 'tvm_scalar_add'", half, KCC], "duplicate symbols")
ok("compile", MODEL, "-o", path("defer.so"), "--defer-extern", "tvm_scalar_add", "--defer-extern", "tvm_shape_check")
fails(["run", path("defer.so"), "-i", a, "-i", b, "-i", path("x4.npy")], ["'tvm_scalar_add' was not found"],
      "deferred name missing at load time")
fails(["compile", MODEL, "-o", path("m.so"), "--extern", path("k.txt")], ["unknown extension", "k.txt", ".cu"],
      "unknown extension")
fails(["compile", MODEL, "-o", path("m.so"), "--extern", path("nothere.cc")], ["nothere.cc", "no such file"],
      "missing extern file")
broken = path("broken.cc")
with open(broken, "w") as f:
    f.write("int broken( { return 0; }\n")
fails(["compile", MODEL, "-o", path("m.so"), "--extern", broken], ["broken.cc' does not compile", "broken.cc:1"],
      "a source that does not compile shows the compiler's output")
cu = path("k.cu")
with open(cu, "w") as f:
    f.write('extern "C" int cu_fn(void) { return 0; }\n')
env = dict(tool.env, NVCC="/nonexistent/nvcc")
r = subprocess.run([tool.path, "compile", MODEL, "-o", path("m.so"), "--extern", cu], capture_output=True, text=True,
                   env=env)
check(r.returncode == 1 and "needs nvcc" in r.stderr, ".cu without nvcc: %r" % r.stderr)
fails(["run", path("cc.so"), "--extern", KCC, "-i", a], ["compiled already"], "--extern on a compiled model")
fails(["print", MODEL, "--extern", path("x.so")], ["unknown extension"], "print --extern checks the extension")
finish()
