#!/usr/bin/env python3
"""End-to-end tests of `rlx export-mlf` (Model Library Format v7): each archive is unpacked,
built with the README's command (cc -std=c11 CFLAGS -I codegen/host/include ... main.c -lm; no rlx
library) around a ~30-line main.c, run, and compared with the VM on the same inputs:
a symbolic-batch MLP on two batch sizes (workspace from tvmgen_default_workspace_size), sizes
the function does not allow (a match_cast's static dim, a dim below 0, zero, negative and
overflowing variables) making run_dynamic return nonzero, the
bundled CNN (ONNX; rlx's runtime kernels shipped in runtime/src) against PyTorch's output (also
for aarch64: cross-built with aarch64-linux-gnu-gcc, run under qemu-aarch64),
TVM-style C++ kernels linked with --extern; operator style (rlx print reads src/tir-cpu.txt,
cc -c compiles the sources); metadata.json, the header and the parameters file; every error
path (unwritable output, models the exporter cannot express: If, a shape variable bound inside
the function, call_packed returning a value, an extern without its object; --extern with an
unknown extension, a source that does not compile, duplicate symbols; wrong style) leaves no
archive; compile to an unwritable output fails."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import mlf_util as mu  # noqa: E402
from harness import Tool, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
rng = np.random.default_rng(8)
DATA = os.path.join(ROOT, "tests", "data")
OBJS = os.path.join(tool.tmp, "objs")


def path(name):
    return os.path.join(tool.tmp, name)


ok = tool.ok
fails = tool.fails


def close(out, ref, what, tol=1e-4):
    ref = np.asarray(ref, np.float64)
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(out.reshape(ref.shape).astype(np.float64) - ref))) / scale if ref.size else 0.0
    print("%s: max abs error / scale = %.3g" % (what, err))
    return check(err <= tol, "%s: error %.3g" % (what, err))


def export(src, name, *extra):
    tar = path(name + ".tar")
    if not ok("export-mlf", src, "-o", tar, *extra)[0]:
        return None, None
    d = path(name)
    return d, mu.unpack(tar, d)


def vm_run(model, inputs, *extra):
    files = []
    for i, arr in enumerate(inputs):
        files += ["-i", path("vmin%d.npy" % i)]
        np.save(path("vmin%d.npy" % i), arr)
    if not ok("run", model, "-o", path("vmout"), "--format", "npy", *(list(extra) + files))[0]:
        return None
    outs, k = [], 0
    while os.path.exists(path("vmout/output_%d.npy" % k)):
        outs.append(np.load(path("vmout/output_%d.npy" % k)))
        os.unlink(path("vmout/output_%d.npy" % k))
        k += 1
    return outs


# --- symbolic-batch MLP: two batch sizes, workspace from tvmgen_default_workspace_size ----------
mlp = os.path.join(ROOT, "examples", "mlp.py")
d, meta = export(mlp, "mlp")
if meta:
    mod = meta["modules"]["default"]
    fn = mod["memory"]["functions"]["main"][0]
    check(meta["version"] == 7 and mod["style"] == "full-model" and mod["executors"] == ["aot"] and
          len(mod["target"]) == 1 and mod["target"][0].startswith("c -keys=cpu ") and "-mcpu=" in mod["target"][0]
          and "-ffp-contract=fast -march=" in mod["cflags"] and fn["device"] == 1, "MLP metadata header fields")
    check(fn["inputs"]["x"] == {"size": "n * 3136", "dtype": "float32", "shape": ["n", 784]}, "symbolic input %r" % fn["inputs"]["x"])
    check(fn["outputs"]["output"]["shape"] == ["n", 10], "symbolic output shape")
    ws_formula = fn["workspace_size_bytes"]
    check(isinstance(ws_formula, str) and "n" in ws_formula, "workspace is a formula: %r" % ws_formula)
    check(fn.get("shape_vars") == ["n"], "shape_vars listed")
    check(len(mod["memory"]["functions"]["operator_functions"]) >= 4 and
          all("function_name" in o and o["workspace"][0]["device"] == 1 for o in mod["memory"]["functions"]["operator_functions"]),
          "operator_functions listed")
    hdr = open(os.path.join(d, "codegen/host/include/tvmgen_default.h")).read()
    for needle in ("struct tvmgen_default_shape_vars", "int64_t n;", "size_t tvmgen_default_workspace_size(",
                   "int32_t tvmgen_default_run_dynamic(", "struct tvmgen_default_inputs", "void* x;", "void* output;"):
        check(needle in hdr, "MLP header has %r" % needle)
    rc, out, err = tool.run("print", os.path.join(d, "src/relax.txt"))
    check(rc == 0 and "def main" in out, "rlx print src/relax.txt: " + err)
    rc, out, err = tool.run("print", os.path.join(d, "src/tir-cpu.txt"))
    check(rc == 0 and "T.prim_func" in out, "rlx print src/tir-cpu.txt: " + err)
    n_lines = mu.write_main(d, meta)
    check(n_lines <= 40, "main.c is short (%d lines)" % n_lines)
    lib0 = open(os.path.join(d, "codegen/host/src/default_lib0.c")).read()
    check(lib0.count("rlx_alloc(") == 1 and "malloc(" not in lib0 and "dlopen" not in lib0,
          "no heap and no dlopen in the generated code (kernel temporaries come from the workspace)")
    built, log = mu.build(d)
    check(built, "MLP archive does not build: " + log)
    shapes = {"w0": (256, 784), "b0": (256,), "w1": (256, 256), "b1": (256,), "w2": (256, 256), "b2": (256,),
              "w3": (10, 256), "b3": (10,)}
    for n in (3, 17) if built else ():
        ins = {"x": rng.standard_normal((n, 784)).astype(np.float32)}
        for k, s in shapes.items():
            ins[k] = (rng.standard_normal(s) * 0.05).astype(np.float32)
        rc, log, outs = mu.run(d, meta, ins, [n])
        check(rc == 0, "MLP n=%d did not run: %s" % (n, log))
        m = re.search(r"workspace_bytes=(\d+)", log)
        check(m and int(m.group(1)) == eval(ws_formula, {"n": n}), "workspace_size(n=%d) = metadata formula" % n)
        ref = vm_run(mlp, list(ins.values()))
        if rc == 0 and ref:
            close(outs["output"], ref[0], "MLP MLF vs VM, n=%d" % n)
        rc, log, _ = mu.run(d, meta, ins, [-1])
        check(rc != 0, "a negative batch makes run_dynamic return nonzero")
    # the same sources with -fopenmp (parallel loops on every core) give the same numbers
    built, log = mu.build(d, openmp=True)
    check(built, "MLP archive does not build with -fopenmp: " + log)
    if built:
        rc, log, outs_omp = mu.run(d, meta, ins, [17])
        check(rc == 0 and np.array_equal(outs_omp["output"], outs["output"]), "-fopenmp build gives the same output")

# --- tir_var_upper_bound: the entry point rejects a larger size ------------------------------------
d, meta = export(os.path.join(DATA, "upper_bound.py"), "ub")
if meta:
    mu.write_main(d, meta)
    built, log = mu.build(d)
    check(built, "upper-bound archive does not build: " + log)
    for n in (64, 65) if built else ():
        x = rng.standard_normal((n, 8)).astype(np.float32)
        rc, log, outs = mu.run(d, meta, {"x": x}, [n])
        if n == 64:
            check(rc == 0 and np.allclose(outs["output"].reshape(n, 8), np.maximum(2 * x, 0) * 2 * x), "n=64 runs")
        else:
            check(rc != 0, "n=65 > tir_var_upper_bound 64 returns nonzero")

# --- sizes the function does not allow: run_dynamic returns nonzero ------------------------------
d, meta = export(os.path.join(DATA, "shape_checks.py"), "checks")
if meta:
    mu.write_main(d, meta)
    built, log = mu.build(d)
    check(built, "shape-check archive does not build: " + log)
    for n, m, good, why in ((5, 4, True, "n=5, m=4"), (3, 4, True, "n=3 (no rows left)"),
                            (5, 3, False, "m=3 (the match_cast needs m == 4)"), (2, 4, False, "n=2 (n - 3 rows < 0)"),
                            (0, 4, False, "n=0"), (-1, 4, False, "n=-1"), (5, 0, False, "m=0"),
                            (1 << 40, 4, False, "n=2^40 (sizes would overflow)")) if built else ():
        x = rng.standard_normal((max(min(n, 8), 1), 8)).astype(np.float32)
        y = rng.standard_normal((max(min(m, 8), 1), 8)).astype(np.float32)
        rc, log, outs = mu.run(d, meta, {"x": x, "y": y}, [n, m])
        if good:
            ok_run = check(rc == 0, "%s runs: %s" % (why, log))
            if ok_run:
                check(np.allclose(outs["output"].reshape(n - 3, 8), x[2:n - 1] + y.sum(axis=0), atol=1e-5), why + " output")
        else:
            check(rc != 0, "%s: run_dynamic returns nonzero" % why)

# --- the bundled CNN (ONNX): runtime kernels shipped as sources; vs PyTorch's output -----------
cnn = os.path.join(ROOT, "examples", "cnn.onnx")
d, meta = export(cnn, "cnn")
if meta:
    fn = meta["modules"]["default"]["memory"]["functions"]["main"][0]
    check(list(fn["inputs"]) == ["image"] and list(fn["outputs"]) == ["logits"], "ONNX names: %r %r" %
          (list(fn["inputs"]), list(fn["outputs"])))
    check(isinstance(fn["workspace_size_bytes"], int) and fn["constants_size_bytes"] > 300000, "static sizes")
    check(fn["io_size_bytes"] == 3 * 32 * 32 * 4 + 40, "io_size_bytes")
    hdr = open(os.path.join(d, "codegen/host/include/tvmgen_default.h")).read()
    for needle in ("#define TVMGEN_DEFAULT_IMAGE_SIZE 12288", "#define TVMGEN_DEFAULT_LOGITS_SIZE 40",
                   "#define TVMGEN_DEFAULT_WORKSPACE_SIZE", "int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs"):
        check(needle in hdr, "CNN header has %r" % needle)
    check(any(f.startswith("runtime-source") for f in [x["kind"] for x in meta["modules"]["default"]["external_dependencies"]]),
          "runtime sources are external dependencies")
    # parameters/default.params in TVM's NDArray-dict format, as the README documents it
    raw = open(os.path.join(d, "parameters/default.params"), "rb").read()
    magic, _, count = struct.unpack_from("<QQQ", raw, 0)
    pos, total = 24, 0
    for _ in range(count):
        (ln,) = struct.unpack_from("<Q", raw, pos)
        pos += 8 + ln
    (count2,) = struct.unpack_from("<Q", raw, pos)
    pos += 8
    for _ in range(count2):
        m2, _, dev, devid, ndim = struct.unpack_from("<QQiii", raw, pos)
        pos += 28 + 4 + 8 * ndim
        (nb,) = struct.unpack_from("<q", raw, pos)
        pos += 8 + nb
        total += nb
    check(magic == 0xF7E58D4F05049CB7 and count == count2 and pos == len(raw) and total == fn["constants_size_bytes"],
          "params file: %d arrays, %d bytes" % (count, total))
    # src/relax.txt: TVM's metadata section first, the weights as metadata["relax.expr.Constant"][i]
    rel = os.path.join(d, "src", "relax.txt")
    text = open(rel).read()
    check(text.startswith('metadata = tvm.ir.load_json("""{') and 'metadata["relax.expr.Constant"][0]' in text,
          "src/relax.txt has the metadata section")
    rc, out, err = tool.run("print", rel, "--show-meta")
    check(rc == 0 and out == text, "print -> parse -> print of src/relax.txt is a fixed point: " + err)
    rc, out, err = tool.run("print", rel)
    check(rc == 0 and "metadata = " not in out and out.endswith("# Metadata omitted. Use show_meta=True in script() method to show it.\n"),
          "rlx print without --show-meta omits the section as TVM does")
    elided = tool.file("elided.py", out)
    rc, again, _ = tool.run("print", elided, "--show-meta")
    check(rc == 0 and again == out, "a module printed without the section parses, and prints the same (no data to show)")
    fails(["compile", elided, "-o", path("elided.so")],
          ["whose data was left out when the module was printed", "--show-meta"], "building a module without its constants")
    txt_out = vm_run(rel, [np.load(os.path.join(ROOT, "examples", "cnn_input.npy"))])
    cnn_out = vm_run(cnn, [np.load(os.path.join(ROOT, "examples", "cnn_input.npy"))])
    check(txt_out and cnn_out and np.array_equal(txt_out[0], cnn_out[0]), "the re-parsed src/relax.txt runs to the same output")
    src = os.path.join(ROOT, "examples", "cnn_main.c")
    built, log = mu.build(d, obj_cache=OBJS, main=src)
    check(built, "CNN archive does not build with examples/cnn_main.c: " + log)
    if built:
        r = subprocess.run([os.path.join(d, "prog"), os.path.join(ROOT, "examples", "cnn_input.npy"), path("logits.bin")],
                           capture_output=True, text=True)
        check(r.returncode == 0 and "plain C logits" in r.stdout, "CNN program: " + r.stderr)
        ref = np.load(os.path.join(ROOT, "examples", "cnn_output.npy"))
        if r.returncode == 0:
            close(np.fromfile(path("logits.bin"), np.float32), ref, "CNN MLF vs PyTorch")
        vm = vm_run(cnn, [np.load(os.path.join(ROOT, "examples", "cnn_input.npy"))])
        if vm and r.returncode == 0:
            close(np.fromfile(path("logits.bin"), np.float32), vm[0], "CNN MLF vs VM", tol=1e-5)

# --- the same CNN for aarch64: NEON kernels, block 8, cross-built, run under qemu-user --------
# (skipped, saying so, where Debian's gcc-aarch64-linux-gnu / qemu-user are not installed)
if shutil.which("aarch64-linux-gnu-gcc"):
    d, meta = export(cnn, "cnn_a64", "--target", "c -mtriple=aarch64-linux-gnu")
    if meta:
        mod = meta["modules"]["default"]
        check(mod["target"] == ["c -keys=cpu -mcpu=generic -mtriple=aarch64-linux-gnu"] and "-march=armv8-a" in mod["cflags"],
              "aarch64 metadata: %r %r" % (mod["target"], mod["cflags"]))
        kern = open(os.path.join(d, "runtime/src/conv2d_nchwc.c")).read()
        check("#define RLX_NN_TARGET_BLOCK 8" in kern, "aarch64 archive: the kernels' block is 8")
        built, log = mu.build(d, main=os.path.join(ROOT, "examples", "cnn_main.c"), cc="aarch64-linux-gnu-gcc")
        check(built, "aarch64 CNN archive builds with aarch64-linux-gnu-gcc: " + log)
        if built and shutil.which("qemu-aarch64"):
            r = subprocess.run(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", os.path.join(d, "prog"),
                                os.path.join(ROOT, "examples", "cnn_input.npy"), path("logits_a64.bin")],
                               capture_output=True, text=True)
            check(r.returncode == 0 and "plain C logits" in r.stdout, "aarch64 CNN program under qemu: " + r.stderr)
            if r.returncode == 0:
                close(np.fromfile(path("logits_a64.bin"), np.float32), np.load(os.path.join(ROOT, "examples",
                                                                                          "cnn_output.npy")),
                      "aarch64 CNN MLF (qemu) vs PyTorch")
        elif built:
            print("aarch64 CNN: built; not run (no qemu-aarch64)")
else:
    print("aarch64 CNN: skipped (no aarch64-linux-gnu-gcc)")

# --- TVM-style C++ kernels linked with --extern, in the archive --------------------------------
d, meta = export(os.path.join(DATA, "tvm_extern.py"), "tvmk", "--extern", os.path.join(DATA, "tvm_kernels.cc"))
if meta:
    libs = os.listdir(os.path.join(d, "codegen/host/lib"))
    check(libs == ["tvm_kernels.cc.o"], "extern object shipped: %r" % libs)
    mu.write_main(d, meta)
    built, log = mu.build(d, extra=["-lstdc++"])
    check(built, "extern archive does not build: " + log)
    for shp in ((2, 3, 4, 5), (1, 2, 1, 64)) if built else ():
        x = rng.standard_normal(shp).astype(np.float32)
        rc, log, outs = mu.run(d, meta, {"a": np.float32(1.5), "b": np.float32(-4), "x": x}, list(shp))
        check(rc == 0, "extern archive run %s: %s" % (shp, log))
        if rc == 0:
            check(outs["output0"][0] == np.float32(-2.5), "0-d scalar add in plain C")
            check(np.array_equal(outs["output1"].reshape(shp), x * np.float32(2) + np.float32(1)), "shape check %s" % (shp,))
    if built:
        rc, log, _ = mu.run(d, meta, {"a": np.float32(0), "b": np.float32(0), "x": np.zeros((1, 1, 1, 65), np.float32)},
                            [1, 1, 1, 65])
        check(rc != 0, "a failing ICHECK makes the plain C run return nonzero")

# --- operator style -----------------------------------------------------------------------------
d, meta = export(os.path.join(ROOT, "examples", "matmul_relu.py"), "ops", "--style", "operator", "--name", "ops")
if meta:
    mod = meta  # operator style: the keys at the top level, as TVM writes them
    check("modules" not in meta and meta["version"] == 7, "operator metadata keys at the top level: %r" % list(meta))
    check(mod["style"] == "operator" and mod["executors"] == [] and mod["model_name"] == "ops", "operator metadata")
    check([p["input_binding"] for p in mod["memory"]["main"]] == ["A", "B", "compute"] and
          mod["memory"]["main"][0] == {"size_bytes": 65536, "shape": [128, 128], "dtype": "float32", "input_binding": "A"},
          "operator memory: %r" % mod["memory"])
    rc, out, err = tool.run("print", os.path.join(d, "src/tir-cpu.txt"))
    check(rc == 0 and "def main" in out, "rlx print OUT/src/tir-cpu.txt: " + err)
    r = subprocess.run(["cc", "-std=c11", "-O2", "-c", "-I", os.path.join(d, "codegen/host/include"),
                        os.path.join(d, "codegen/host/src/ops_lib0.c"), "-o", path("ops.o")], capture_output=True, text=True)
    check(r.returncode == 0, "operator sources compile with cc -c: " + r.stderr)
    nm = subprocess.run(["nm", path("ops.o")], capture_output=True, text=True).stdout
    check(" T rlx_fn_main" in nm and " T tvmgen_ops_main" in nm, "operator entries exported")
d, meta = export(os.path.join(DATA, "symbolic_extern.py"), "symops", "--style", "operator")
if meta:
    params = meta["memory"]["matmul"]
    check(params[0]["shape"] == ["n", "k"] and params[0]["size_bytes"] == "n * k * 4", "symbolic operator memory: %r" % params)

# --- errors: nothing left behind ----------------------------------------------------------------
fails(["export-mlf", mlp, "-o", "/nonexistent/dir/m.tar"], ["cannot write '/nonexistent/dir/m.tar"], "unwritable output")
fails(["export-mlf", os.path.join(DATA, "symbolic_extern.py"), "-o", path("bad.tar")],
      ["R.call_packed(\"ext_scale2\")", "no allocator"], "call_packed returning a value")
fails(["export-mlf", os.path.join(DATA, "tvm_extern.py"), "-o", path("bad.tar")],
      ["'tvm_scalar_add'", "neither a runtime kernel nor defined by an --extern object"], "extern without its object")
fails(["export-mlf", os.path.join(ROOT, "examples", "matmul_relu.py"), "-o", path("bad.tar")],
      ["needs a Relax function", "--style operator"], "full-model of PrimFuncs only")
fails(["export-mlf", os.path.join(DATA, "tvm_extern.py"), "-o", path("bad.tar"), "--style", "operator"],
      ["has none"], "operator style without PrimFuncs")
fails(["export-mlf", mlp, "-o", path("bad.tar"), "--style", "graph"], ["--style expects full-model or operator"], "bad style")
fails(["export-mlf", mlp], ["export-mlf needs -o OUT.tar"], "no output")
# models the exporter cannot express
iff = tool.file("if.py", """# from tvm.script import relax as R
@R.function
def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    if c:
        y = R.add(x, x)
    else:
        y = R.multiply(x, x)
    return y
""")
fails(["export-mlf", iff, "-o", path("bad.tar")], ["an If (control flow in the function) cannot be exported"], "If")
dd = tool.file("dd.py", """# from tvm.script import relax as R
@R.function
def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
    n = T.int64()
    m = T.int64()
    y = R.match_cast(x, R.Tensor(("m",), dtype="float32"))
    z = R.add(y, y)
    return z
""")
fails(["export-mlf", dd, "-o", path("bad.tar")], ["data-dependent shapes cannot be exported", "'m'"],
      "a shape variable bound inside the function")
# --extern errors through export-mlf: unknown extension, a source that does not compile (the
# compiler's output shown), two objects defining one symbol
tvmx = os.path.join(DATA, "tvm_extern.py")
fails(["export-mlf", tvmx, "-o", path("bad.tar"), "--extern", tool.file("k.txt", "")], ["unknown extension", "k.txt"],
      "export-mlf --extern with an unknown extension")
broken = tool.file("broken.c", "int broken( { return 0; }\n")
fails(["export-mlf", tvmx, "-o", path("bad.tar"), "--extern", broken], ["broken.c' does not compile", "broken.c:1"],
      "export-mlf --extern of a source that does not compile shows the compiler's output")
half = tool.file("half.c", '#include "rlx/extern.h"\nstatic int k(DLTensor* a, DLTensor* b, DLTensor* o) { return 0; }\n'
                 "RLX_EXPORT_DPS_3(tvm_scalar_add, k)\n")
fails(["export-mlf", tvmx, "-o", path("bad.tar"), "--extern", half, "--extern", os.path.join(DATA, "tvm_kernels.cc")],
      ["duplicate symbol 'tvm_scalar_add'", "half.c", "tvm_kernels.cc"], "export-mlf --extern with duplicate symbols")
check(not [f for f in os.listdir(tool.tmp) if f.startswith("bad.tar")], "no partial archive left behind")
# compile: an output that cannot be written is an error and leaves nothing
fails(["compile", mlp, "-o", "/nonexistent/dir/m.so"], ["/nonexistent/dir/m.so", "cannot open output file"],
      "compile to an unwritable output")
finish()
