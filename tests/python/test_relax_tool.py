#!/usr/bin/env python3
"""End-to-end tests of the graph level through the rlx tool: Relax modules in TVMScript are
compiled (legalize, fold, fuse, schedule, rewrite, plan memory, lower shapes, VM bytecode)
into one shared object and run by the VM; numbers are checked against numpy (max abs error
<= 1e-4 relative to the output's scale). Externals come from a separate C library given
with --lib. Bad input must give one clear message and exit status 1."""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
rng = np.random.default_rng(11)


def path(name):
    return os.path.join(tool.tmp, name)


def save(name, arr):
    np.save(path(name), arr)
    return path(name)


def close(out, ref, what, tol=1e-4):
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(out.astype(np.float64) - ref))) / scale if ref.size else 0.0
    print("%s: max abs error / scale = %.3g" % (what, err))
    return check(out.shape == ref.shape and err <= tol, "%s: error %.3g (shapes %s vs %s)" % (what, err, out.shape, ref.shape))


ok = tool.ok
fails = tool.fails


# --- TVM's course example (BlockBuilder emit_te matmul + relu), as TVM prints it ---------
mlc = os.path.join(ROOT, "tests", "golden", "relax_mlc.py")
rc, out, err = tool.run("print", mlc)
check(rc == 0 and out == open(mlc).read(), "MLC example does not print back identically:\n" + out + err)
a = rng.standard_normal((128, 128)).astype(np.float32)
b = rng.standard_normal((128, 128)).astype(np.float32)
if ok("run", mlc, "-i", save("a.npy", a), "-i", save("b.npy", b), "-o", path("mlc"))[0]:
    close(np.load(path("mlc/output_0.npy")), np.maximum(a.astype(np.float64) @ b, 0), "MLC matmul+relu")

# --- an MLP with high-level ops: legalized, fused, memory planned, symbolic batch ----------
mlp = os.path.join(ROOT, "examples", "mlp.py")
sizes = [(784, 256), (256, 256), (256, 256), (256, 10)]
params = []
for i, (k, m) in enumerate(sizes):
    params.append((rng.standard_normal((m, k)) / np.sqrt(k)).astype(np.float32))
    params.append(rng.standard_normal((m,)).astype(np.float32) * 0.1)
pfiles = [save("p%d.npy" % i, p) for i, p in enumerate(params)]
model = path("mlp.so")
good, out = ok("compile", mlp, "-o", model, "--stats")
m = re.search(r"unplanned_bytes=n \* (\d+) \+ (\d+) .*planned_bytes=n \* (\d+) \+ (\d+)", out)
check(m is not None and int(m.group(3)) <= int(m.group(1)) and int(m.group(4)) < int(m.group(2)),
      "memory planning does not reduce the MLP's bytes: " + out)
print(out.strip())
for n in (1, 5):
    x = rng.standard_normal((n, 784)).astype(np.float32)
    if ok("run", model, "-i", save("x.npy", x), *sum((["-i", f] for f in pfiles), []), "-o", path("mlp%d" % n))[0]:
        h = x.astype(np.float64)
        for i in range(4):
            h = h @ params[2 * i].T.astype(np.float64) + params[2 * i + 1]
            if i < 3:
                h = np.maximum(h, 0)
        close(np.load(path("mlp%d/output_0.npy" % n)), h, "MLP batch %d" % n)
# FuseOps and FuseTIR are two stages, each printable (by rlx's or TVM's name)
for stage in ("fuse_ops", "FuseOps"):
    rc, out, err = tool.run("print", mlp, "--after", stage)
    check(rc == 0 and "def fused_matmul_add_relu(" in out and '"Primitive": 1' in out and
          "= cls.fused_matmul_add_relu(" in out and "R.call_tir(cls.fused_matmul_add_relu" not in out,
          "print --after %s shows no grouped function:\n%s%s" % (stage, out[:3000], err))
for stage in ("fuse_tir", "FuseTIR"):
    rc, out, err = tool.run("print", mlp, "--after", stage)
    check(rc == 0 and "def fused_matmul_add_relu(" in out and "R.call_tir(cls.fused_matmul_add_relu" in out and
          '"Primitive"' not in out, "print --after %s shows no fused PrimFunc:\n%s%s" % (stage, out[:3000], err))
for stage in ("legalize_ops", "fold_constants", "default_schedule", "call_tir_rewrite", "plan_memory",
              "lower_shapes", "all"):
    rc, out, err = tool.run("print", mlp, "--after", stage)
    check(rc == 0 and "def main(" in out, "print --after %s: %s" % (stage, err))
rc, out, err = tool.run("print", model)
check(rc == 0 and "function main(" in out and "call fused_matmul_add_relu" in out, "disassembly: " + out[:2000] + err)

# --- symbolic (n, k) x (k, m): call_tir + call_packed + call_dps_packed, externals in --lib ---
lib = path("libext.so")
r = subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", "-I", os.path.join(ROOT, "include"), "-o",
                    lib, os.path.join(ROOT, "tests", "data", "ext_kernels.c")], capture_output=True, text=True)
check(r.returncode == 0, "extern library did not build: " + r.stderr)
sym = os.path.join(ROOT, "tests", "data", "symbolic_extern.py")
symso = path("sym.so")
ok("compile", sym, "-o", symso, "--lib", lib)
for n, k, mm in ((3, 5, 7), (70, 40, 33)):
    x = rng.standard_normal((n, k)).astype(np.float32)
    w = rng.standard_normal((k, mm)).astype(np.float32)
    if ok("run", symso, "--lib", lib, "-i", save("sx.npy", x), "-i", save("sw.npy", w), "-o", path("sym"))[0]:
        close(np.load(path("sym/output_0.npy")), np.maximum(2 * (x.astype(np.float64) @ w), 0),
              "symbolic extern n=%d k=%d m=%d" % (n, k, mm))

# --- errors: missing externals at load/compile time, wrong shapes, bad files --------------
fails(["run", symso, "-i", path("sx.npy"), "-i", path("sw.npy")],
      ["'ext_scale2' was not found", "the global registry"], "missing extern at load time")
other = path("libother.so")
with open(path("other.c"), "w") as f:
    f.write("int unrelated(void) { return 0; }\n")
subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", other, path("other.c")], check=True)
fails(["compile", sym, "-o", path("sym2.so"), "--lib", other], ["ext_scale2", "libother.so"],
      "missing extern at compile time")
fails(["run", symso, "--lib", lib, "-i", save("bad.npy", np.zeros((3, 4), np.float32)), "-i", path("sw.npy")],
      ["main", "parameter w", "(k, m)"], "wrong input shape")
fails(["run", symso, "--lib", lib, "-i", save("badt.npy", np.zeros((3, 5), np.float64)), "-i", path("sw.npy")],
      ["main", "parameter x", "float32"], "wrong input dtype")
fails(["run", symso, "--lib", lib, "-i", path("sx.npy")], ["takes 2 inputs, got 1"], "missing input")
junk = path("junk.so")
with open(junk, "wb") as f:
    f.write(b"\x7fELF garbage")
fails(["run", junk], ["junk.so"], "corrupted model")
fails(["print", mlp, "--after", "nope"], ["unknown pass 'nope'", "legalize_ops"], "unknown relax pass")
fails(["compile", mlp], ["-o MODEL.so"], "compile without -o")
bad = tool.file("badop.py", open(mlp).read().replace("R.nn.relu", "R.nn.frobnicate", 1))
fails(["compile", bad, "-o", path("x.so")], ["badop.py:", "frobnicate"], "unknown op")

# R.Object() (TVM prints and accepts both forms) reads as R.Object
obj = tool.file("obj.py", """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Object(), y: R.Object) -> R.Object():
        return x
""")
good, printed = ok("print", obj)
check(good and "def main(x: R.Object, y: R.Object) -> R.Object:" in printed, "R.Object() parses as R.Object: %r" % printed)

# T.func_attr with list and nested dict values (TVM's "layout_free_buffers": [1]) parses and
# prints back in TVM's form (keys sorted), a fixed point, and the function still builds
fa = os.path.join(ROOT, "tests", "data", "func_attr_values.py")
good, printed = ok("print", fa)
want = ('T.func_attr({"layout_free_buffers": [1], "nested": {"a": [1, 2], "b": T.float32(1.5), "c": "s"}, '
        '"tir.noalias": T.bool(True)})')
check(good and want in printed, "func_attr values printed: %r" % printed[:600])
again = tool.file("fa2.py", printed)
check(ok("print", again)[1] == printed, "func_attr values: print is a fixed point")
ok("bench", fa, "--repeat", "2")

finish()
