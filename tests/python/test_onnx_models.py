#!/usr/bin/env python3
"""Real networks through the ONNX importer: PyTorch exports ResNet-18, MobileNetV2,
SqueezeNet 1.1 (torchvision, random weights, nothing downloaded), an MLP with a symbolic batch
and a Transformer encoder (multi-head attention, LayerNorm, GELU, batch_first) with
torch.onnx.export, in eval mode with a fixed seed. Each model is compiled with
`rlx compile model.onnx -o model.so` and run with `rlx run model.so` and `rlx run model.onnx`
on a random input; the outputs must match PyTorch's: max abs error <= 1e-4 * max(1, max|ref|).
Prints per model the error and the compile and run times. A failing rlx shows its error,
which lists the unsupported ops.

    test_onnx_models.py RLX [--only NAME]"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, calibrate, check, finish  # noqa: E402

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
args = [a for a in sys.argv[1:]]
only = None
if "--only" in args:
    i = args.index("--only")
    only = args[i + 1]
    del args[i:i + 2]
tool = Tool(args[0] if args else os.path.join(ROOT, "build", "bin", "rlx"))
TOL = 1e-4


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10), torch.nn.LogSoftmax(dim=-1))


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.1,
                                             activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2)


# name, constructor, input shapes to run, opset, dynamic batch
MODELS = [
    ("mlp", mlp, [(1, 256), (5, 256)], 14, True),
    ("resnet18", lambda: torchvision.models.resnet18(weights=None), [(1, 3, 224, 224)], 14, False),
    ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), [(1, 3, 224, 224)], 14, False),
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(weights=None), [(1, 3, 224, 224)], 14, False),
    ("transformer", encoder, [(2, 16, 64)], 14, False),
    # the same encoder at opset 17, where LayerNorm is exported as LayerNormalization
    ("transformer_opset17", encoder, [(2, 16, 64)], 17, False),
]


def path(*names):
    return os.path.join(tool.tmp, *names)


def read_output(folder):
    for name in ("output_0.pb", "output_0.npy"):
        f = os.path.join(folder, name)
        if os.path.isfile(f):
            return numpy_helper.to_array(onnx.load_tensor(f)) if name.endswith(".pb") else np.load(f)
    return None


def rlx(what, *cmd):
    """Runs rlx; returns (ok, seconds); a failure shows the tool's error."""
    t0 = time.time()
    rc, out, err = tool.run(*cmd)
    secs = time.time() - t0
    check(rc == 0, "%s: rlx %s failed (%d):\n%s" % (what, cmd[0], rc, (err or out).strip()))
    return rc == 0, secs


def compare(out, ref, what):
    if out is None:
        return check(False, "%s: no output_0 written" % what), float("nan")
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
    good = out.shape == ref.shape and err <= TOL * scale
    check(good, "%s: max abs error %.3g > %.3g (shape %s, expected %s)" % (what, err, TOL * scale, out.shape, ref.shape))
    return good, err / scale


for name, make, shapes, opset, dynamic in MODELS:
    if only and only != name:
        continue
    torch.manual_seed(0)
    model = make().eval()
    calibrate(model, shapes[0])
    onnx_path = path(name + ".onnx")
    dyn = {"x": {0: "batch"}, "y": {0: "batch"}} if dynamic else None
    # not under no_grad: there the encoder takes PyTorch's fused fast path, which has no export
    torch.onnx.export(model, torch.randn(*shapes[0]), onnx_path, opset_version=opset, input_names=["x"],
                      output_names=["y"], dynamic_axes=dyn)
    ops = sorted({n.op_type for n in onnx.load(onnx_path).graph.node})
    print("%s (opset %d): %d nodes, ops %s" % (name, opset, len(onnx.load(onnx_path).graph.node), " ".join(ops)))
    so = path(name + ".so")
    compiled, t_compile = rlx(name, "compile", onnx_path, "-o", so)
    rng = np.random.default_rng(1)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).numpy()
        tag = "%s %s" % (name, "x".join(map(str, shape)))
        xpb = path(name + "_x.pb")
        with open(xpb, "wb") as f:
            f.write(numpy_helper.from_array(x, "x").SerializeToString())
        np.save(path(name + "_x.npy"), x)
        line = "%s: max|ref| %.3g, compile %.1fs" % (tag, float(np.max(np.abs(ref))), t_compile)
        if compiled:
            ran, t_run = rlx(tag + " (.so)", "run", so, "-i", path(name + "_x.npy"), "-o", path(name + "_so"))
            if ran:
                _, e = compare(read_output(path(name + "_so")), ref, tag + " (.so)")
                line += ", run .so %.2fs, error/scale %.3g" % (t_run, e)
        ran, t_run = rlx(tag + " (.onnx)", "run", onnx_path, "-i", xpb, "-o", path(name + "_onnx"))
        if ran:
            _, e = compare(read_output(path(name + "_onnx")), ref, tag + " (.onnx)")
            line += ", run .onnx (import+compile+run) %.2fs, error/scale %.3g" % (t_run, e)
        print(line)
        sys.stdout.flush()

finish()
