#!/usr/bin/env python3
"""Model Library Format on real networks: ResNet-18 and MobileNetV2 (torchvision, random
seeded weights, exported to ONNX) export as full-model archives; each builds with the README's
command (cc -std=c11 CFLAGS -I codegen/host/include ... main.c -lm, CFLAGS the metadata's
"cflags") around a ~30-line main.c and its output matches the VM's on the same input, built with and without -fopenmp, and no
object of the archive references malloc/free/pthreads (the NCHWc kernels' scratch comes
from the workspace, their parallel loops are OpenMP regions or serial); a symbolic-batch MLP from ONNX (dim_param "batch") runs
on two batch sizes against the VM and PyTorch. rlx's runtime kernel sources (the same in both
archives) are compiled once."""
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(__file__))
import mlf_util as mu  # noqa: E402
from harness import Tool, calibrate, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
OBJS = os.path.join(tool.tmp, "objs")

for name, make in (("resnet18", lambda: torchvision.models.resnet18(weights=None)),
                   ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None))):
    torch.manual_seed(0)
    model = make()
    calibrate(model, (1, 3, 224, 224))  # activations O(1): an error cannot hide in tiny outputs
    onnx_path = os.path.join(tool.tmp, name + ".onnx")
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), onnx_path, opset_version=14, input_names=["x"],
                      output_names=["y"])
    tar = os.path.join(tool.tmp, name + ".tar")
    rc, _, err = tool.run("export-mlf", onnx_path, "-o", tar)
    if not check(rc == 0, "%s: export-mlf failed: %s" % (name, err)):
        continue
    d = os.path.join(tool.tmp, name)
    meta = mu.unpack(tar, d)
    fn = meta["modules"]["default"]["memory"]["functions"]["main"][0]
    check(fn["inputs"]["x"]["shape"] == [1, 3, 224, 224] and fn["outputs"]["y"]["shape"] == [1, 1000],
          "%s: metadata shapes" % name)
    print("%s: workspace %d bytes, constants %d bytes" % (name, fn["workspace_size_bytes"], fn["constants_size_bytes"]))
    lines = mu.write_main(d, meta)
    x = np.random.default_rng(3).standard_normal((1, 3, 224, 224)).astype(np.float32)
    np.save(os.path.join(tool.tmp, "x.npy"), x)
    rc, _, err = tool.run("run", onnx_path, "-i", os.path.join(tool.tmp, "x.npy"), "-o", os.path.join(tool.tmp, "vm"),
                          "--format", "npy")
    if not check(rc == 0, "%s: VM run failed: %s" % (name, err)):
        continue
    ref = np.load(os.path.join(tool.tmp, "vm", "output_0.npy"))
    scale = float(np.max(np.abs(ref)))
    check(scale > 1e-2, "%s: the output is not tiny (%.3g)" % (name, scale))
    if name == "resnet18":
        # src/relax.txt carries TVM's metadata section: rlx print reads it back to the same
        # text, and the re-parsed module computes what the ONNX model does
        rel = os.path.join(d, "src", "relax.txt")
        text = open(rel).read()
        check(text.startswith('metadata = tvm.ir.load_json("""{') and "Metadata omitted" not in text,
              "resnet18: src/relax.txt starts with the metadata section")
        rc, out, err = tool.run("print", rel, "--show-meta")
        check(rc == 0 and out == text, "resnet18: print -> parse -> print of src/relax.txt is a fixed point: " + err[-500:])
        rc, _, err = tool.run("run", rel, "-i", os.path.join(tool.tmp, "x.npy"), "-o", os.path.join(tool.tmp, "vmtxt"),
                              "--format", "npy")
        if check(rc == 0, "resnet18: running src/relax.txt: " + err[-500:]):
            again = np.load(os.path.join(tool.tmp, "vmtxt", "output_0.npy"))
            check(np.array_equal(again, ref), "resnet18: src/relax.txt runs to the ONNX model's output")
    for omp in (False, True):
        how = "%s (%s)" % (name, "-fopenmp" if omp else "no OpenMP")
        built, log = mu.build(d, obj_cache=OBJS, openmp=omp)
        if not check(built, "%s: the archive does not build (%d-line main.c): %s" % (how, lines, log[-3000:])):
            continue
        undef = mu.archive_undefined(d, openmp=omp)
        bad = {o: sorted(u & mu.HEAP_OR_THREADS) for o, u in undef.items() if u & mu.HEAP_OR_THREADS}
        check(not bad, "%s: the archive's objects use the heap or pthreads: %r" % (how, bad))
        check(("GOMP_parallel" in undef.get("nn_pool.c.o", set())) == omp,
              "%s: the kernels' parallel loops are OpenMP regions exactly with -fopenmp" % how)
        rc, log, outs = mu.run(d, meta, {"x": x})
        if not check(rc == 0, "%s: the plain C program failed: %s" % (how, log)):
            continue
        err = float(np.max(np.abs(outs["y"].reshape(ref.shape) - ref))) / max(scale, 1e-6)
        print("%s: output scale %.3g; plain C vs VM max abs error / scale = %.3g" % (how, scale, err))
        check(err <= 1e-4, "%s: plain C output differs from the VM's (%.3g)" % (how, err))
# --- a symbolic-batch MLP from ONNX (dim_param "batch"): two batch sizes ------------------------
torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128), torch.nn.ReLU(),
                          torch.nn.Linear(128, 10)).eval()
onnx_path = os.path.join(tool.tmp, "mlp_dyn.onnx")
torch.onnx.export(mlp, torch.randn(2, 64), onnx_path, opset_version=14, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
tar = os.path.join(tool.tmp, "mlp_dyn.tar")
rc, _, err = tool.run("export-mlf", onnx_path, "-o", tar, "--name", "mlp")
if check(rc == 0, "symbolic ONNX MLP: export-mlf failed: " + err):
    d = os.path.join(tool.tmp, "mlp_dyn")
    meta = mu.unpack(tar, d)
    fn = meta["modules"]["mlp"]["memory"]["functions"]["main"][0]
    check(fn.get("shape_vars") == ["batch"] and fn["inputs"]["x"]["shape"] == ["batch", 64], "dim_param as a shape var")
    print("symbolic ONNX MLP: workspace %s bytes" % fn["workspace_size_bytes"])
    hdr = open(os.path.join(d, "codegen/host/include/tvmgen_mlp.h")).read()
    check("int64_t batch;" in hdr and "tvmgen_mlp_run_dynamic(" in hdr, "shape_vars struct names the dim_param")
    mu.write_main(d, meta, name="mlp")
    for omp in (False, True):
        built, log = mu.build(d, openmp=omp)
        if not check(built, "symbolic ONNX MLP archive does not build (openmp=%s): %s" % (omp, log)):
            continue
        undef = mu.archive_undefined(d, openmp=omp)
        bad = {o: sorted(u & mu.HEAP_OR_THREADS) for o, u in undef.items() if u & mu.HEAP_OR_THREADS}
        check(not bad, "symbolic ONNX MLP: the archive's objects use the heap or pthreads: %r" % bad)
        for b in (2, 9):
            x = np.random.default_rng(b).standard_normal((b, 64)).astype(np.float32)
            rc, log, outs = mu.run(d, meta, {"x": x}, [b], name="mlp")
            with torch.no_grad():
                ref = mlp(torch.from_numpy(x)).numpy()
            np.save(os.path.join(tool.tmp, "mx.npy"), x)
            rc2, _, err2 = tool.run("run", onnx_path, "-i", os.path.join(tool.tmp, "mx.npy"), "-o",
                                    os.path.join(tool.tmp, "mvm"), "--format", "npy")
            if check(rc == 0 and rc2 == 0, "batch %d: plain C rc %d (%s), VM rc %d (%s)" % (b, rc, log, rc2, err2)):
                vm = np.load(os.path.join(tool.tmp, "mvm", "output_0.npy"))
                e1 = float(np.max(np.abs(outs["y"].reshape(ref.shape) - vm)))
                e2 = float(np.max(np.abs(outs["y"].reshape(ref.shape) - ref)))
                print("symbolic ONNX MLP batch %d (openmp=%s): plain C vs VM %.3g, vs PyTorch %.3g" % (b, omp, e1, e2))
                check(e1 < 1e-5 and e2 < 1e-4, "batch %d: plain C output differs" % b)
finish()
