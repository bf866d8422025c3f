#!/usr/bin/env python3
"""int8 inference end to end (docs/ARCHITECTURE.md, "Integer (int8) inference").

A small CNN with every region quantize_integer rewrites (a first 3x3 stride-2 convolution on
RGB, a residual add + relu, max pool, a depthwise convolution with Clip(0, 6), a 1x1
convolution, concat over channels, GlobalAveragePool, Flatten, Gemm) is quantized to QDQ by
bench/int8_models.py's quantizer (per-channel int8 weights, int32 biases, uint8 activations
calibrated by rlx) and:
  - after `quantize_integer` no float convolution, pool, mean or concat is left: they are
    rlx.nn.q* calls, and the input is quantized once;
  - its output matches the QDQ graph's own semantics (a NumPy/PyTorch evaluation of every
    QuantizeLinear and DequantizeLinear as written, as ONNX Runtime without graph
    optimizations runs them) within 1 output quantization step at most, mean 0.05 steps,
    top-1 equal (the integer kernels sum exactly where the float graph rounds each sum);
  - every kernel level gives the same bytes (RLX_MAX_ISA=x86-64-v3, x86-64-v2 against the
    host: the integer paths are exact on every ISA), at 1 and 2 threads;
  - its Model Library Format archive builds with plain cc and gives the VM's output exactly.
Then the three CNNs of bench/int8_models.py (ResNet-18, MobileNetV2, SqueezeNet 1.1) quantized
the same way keep no float convolution after quantize_integer.

    test_int8.py RLX"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402
import mlf_util  # noqa: E402

import onnx  # noqa: E402
import torch  # noqa: E402
from onnx import numpy_helper  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench_common  # noqa: E402
import int8_models  # noqa: E402

tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
F = torch.nn.functional


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.c1 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pw = torch.nn.Conv2d(16, 32, 1)
        self.fc = torch.nn.Linear(48, 10)

    def forward(self, x):
        a = F.relu(self.stem(x))
        b = F.relu(self.c1(a) + a)
        b = F.max_pool2d(b, 3, 2, 1)
        c = self.pw(torch.clamp(self.dw(b), 0, 6))
        d = torch.cat([b, c], 1)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(d, 1), 1))


def quantized(make, shape, name, calib_inputs):
    """The QDQ model of make() as bench/int8_models.py writes it; its path and output scale."""
    path = os.path.join(tool.tmp, name + ".onnx")
    bench_common.export(make, shape, path)
    model = onnx.load(path)
    int8_models.strip_identity(model)
    names = int8_models.float_activations(model)
    rng = np.random.default_rng(1)
    calib = [rng.standard_normal(shape).astype(np.float32) for _ in range(calib_inputs)]
    ranges = int8_models.calibrate(tool.path, model, names, calib, tool.tmp, tool.env)
    scale = int8_models.quantize(model, ranges)
    q8 = os.path.join(tool.tmp, name + "_int8.onnx")
    onnx.save(model, q8)
    return q8, scale


def qdq_reference(path, x):
    """The QDQ graph evaluated op by op in float32 (PyTorch for convolutions and pools), every
    QuantizeLinear rounding half to even and saturating as ONNX defines it."""
    m = onnx.load(path)
    v = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    v[m.graph.input[0].name] = x
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    for n in m.graph.node:
        a = {k.name: (k.ints if k.ints else k.i if k.type == onnx.AttributeProto.INT else k.f) for k in n.attribute}
        i = [v[k] if k else None for k in n.input]
        op = n.op_type
        if op == "Constant":
            y = numpy_helper.to_array(n.attribute[0].t)
        elif op in ("QuantizeLinear", "DequantizeLinear"):
            s, z = i[1].astype(np.float32), i[2]
            if s.ndim == 1:
                shp = [1] * i[0].ndim
                shp[a.get("axis", 1)] = -1
                s, zf = s.reshape(shp), z.astype(np.float32).reshape(shp)
            else:
                zf = np.float32(z)
            if op == "QuantizeLinear":
                q = np.round(i[0] / s) + zf  # np.round: half to even
                y = np.clip(q, 0, 255).astype(np.uint8) if z.dtype == np.uint8 else np.clip(q, -128, 127).astype(np.int8)
            else:
                y = ((i[0].astype(np.float32) - zf) * s).astype(np.float32)
        elif op == "Conv":
            p = a.get("pads", [0, 0, 0, 0])
            y = F.conv2d(t(i[0]), t(i[1]), t(i[2]) if len(i) > 2 else None, stride=tuple(a.get("strides", [1, 1])),
                         padding=(p[0], p[1]), dilation=tuple(a.get("dilations", [1, 1])), groups=a.get("group", 1)).numpy()
        elif op == "Relu":
            y = np.maximum(i[0], 0)
        elif op == "Clip":
            y = np.clip(i[0], i[1] if len(i) > 1 and i[1] is not None else -np.inf, i[2] if len(i) > 2 else np.inf)
        elif op == "Add":
            y = i[0] + i[1]
        elif op == "MaxPool":
            p = a.get("pads", [0, 0, 0, 0])
            y = F.max_pool2d(t(i[0]), tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])), (p[0], p[1])).numpy()
        elif op == "GlobalAveragePool":
            y = i[0].mean(axis=(2, 3), keepdims=True, dtype=np.float32)
        elif op == "Concat":
            y = np.concatenate(i, axis=a["axis"])
        elif op == "Flatten":
            y = i[0].reshape(i[0].shape[0], -1)
        elif op == "Gemm":
            y = i[0] @ (i[1].T if a.get("transB", 0) else i[1]) + i[2]
        else:
            raise ValueError("qdq_reference: no %s" % op)
        v[n.output[0]] = np.asarray(y)
    return v[m.graph.output[0].name].ravel()


def rlx_out(model, x, env_extra=None, threads=1):
    xp, od = os.path.join(tool.tmp, "x.npy"), os.path.join(tool.tmp, "out")
    np.save(xp, x)
    env = dict(tool.env, **(env_extra or {}))
    r = subprocess.run([tool.path, "run", model, "-i", xp, "-o", od, "--format", "npy", "--threads", str(threads)],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 0, "rlx run %s: %s" % (model, r.stderr))
    return np.load(os.path.join(od, "output_0.npy")).ravel() if r.returncode == 0 else None


shape = (1, 3, 32, 32)
q8, step = quantized(Small, shape, "small", 4)
ok, text = tool.ok("print", q8, "--after", "quantize_integer")
for op in ("R.nn.conv2d", "R.nn.max_pool2d", "R.mean", "R.concat"):
    check(op not in text, "small: %s left after quantize_integer" % op)
for kernel in ("quantize_nchwc", "qconv2d_nchwc", "qdwconv2d_nchwc", "qadd_nchwc", "qmax_pool2d_nchwc", "qmean_hw_nchwc",
               "qconcat_nchwc"):
    check('"rlx.nn.%s"' % kernel in text, "small: no rlx.nn.%s after quantize_integer" % kernel)
check(text.count('"rlx.nn.quantize_nchwc"') == 1, "small: the input is quantized once")

so = os.path.join(tool.tmp, "small_int8.so")
tool.ok("compile", q8, "-o", so)
rng = np.random.default_rng(9)
for k in range(3):
    x = rng.standard_normal(shape).astype(np.float32)
    ref = qdq_reference(q8, x)
    y = rlx_out(so, x)
    if y is None:
        continue
    err = np.abs(y - ref) / step
    print("input %d: mean %.4f, max %.2f output steps from the QDQ graph" % (k, err.mean(), err.max()))
    check(err.max() <= 1.01 and err.mean() <= 0.05, "small: %.2f steps max, %.4f mean from the QDQ graph" %
          (err.max(), err.mean()))
    check(np.argmax(y) == np.argmax(ref), "small: top-1 differs from the QDQ graph")
    for cap, threads in (("", 2), ("x86-64-v3", 1), ("x86-64-v2", 2)):
        # the .onnx: compiled for the (capped) host, with its channel block
        other = rlx_out(q8 if cap else so, x, {"RLX_MAX_ISA": cap} if cap else None, threads)
        check(other is not None and np.array_equal(other, y),
              "small: RLX_MAX_ISA=%s at %d threads differs from the host's bytes" % (cap or "-", threads))

# Model Library Format: plain cc, the VM's output exactly
tar = os.path.join(tool.tmp, "small_int8.tar")
if tool.ok("export-mlf", q8, "-o", tar)[0]:
    d = os.path.join(tool.tmp, "mlf")
    meta = mlf_util.unpack(tar, d)
    mlf_util.write_main(d, meta)
    built, log = mlf_util.build(d)
    check(built, "small: the int8 archive does not build: %s" % log[-2000:])
    if built:
        rc, log, outs = mlf_util.run(d, meta, {"x": x})
        check(rc == 0, "small: the archive's program failed: %s" % log)
        if rc == 0:
            got = list(outs.values())[0].astype(np.float32)
            check(np.array_equal(got, y), "small: the archive differs from the VM (max %g)" % np.abs(got - y).max())

# the benchmark's networks: every convolution on the int8 kernels
for name, make, net_shape in bench_common.CNNS:
    path, _ = quantized(make, net_shape, name, 1)
    ok, text = tool.ok("print", path, "--after", "quantize_integer")
    if ok:
        left = len(re.findall(r"R\.nn\.conv2d\(", text))
        convs = len(re.findall(r'"rlx\.nn\.q(?:dw)?conv2d_nchwc"', text))
        print("%s: %d int8 convolutions, %d float left" % (name, convs, left))
        check(left == 0 and convs > 0, "%s: %d float convolutions left after quantize_integer" % (name, left))
finish()
