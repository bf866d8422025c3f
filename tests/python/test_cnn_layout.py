#!/usr/bin/env python3
"""The convolutional networks of bench/onnx_models.py (ResNet-18, MobileNetV2, SqueezeNet 1.1,
random weights, BatchNorm calibrated so activations stay O(1), batch 1) go through the NCHWc kernels entirely: after `layout_nchwc` no
R.nn.conv2d, R.nn.max_pool2d or R.concat is left, every ONNX Conv became an rlx.nn.*
convolution (Winograd for the 3x3 stride-1 layers with enough tiles; SqueezeNet's expand
pairs one call writing both halves of their concat, MobileNet's depthwise convs inside their
1x1 projection's call), activations are converted to NCHWc (blocks of 16 channels with
AVX-512, else 8: the host target; run again under RLX_MAX_ISA)
once at the input and back once before the classifier, `rlx compile --stats` reports no block
left unscheduled, and the outputs match PyTorch within 1e-4 of the output scale at 1 and 2
threads. A small TVMScript module checks the epilogue folding (bias, residual, clip) and the
fallback of a grouped convolution, and its numbers against numpy.

    test_cnn_layout.py RLX"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, calibrate, check, finish  # noqa: E402

import onnx  # noqa: E402
import torch  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import onnx_models  # noqa: E402

tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
TOL = 1e-4
# the host target's L2, as rlx reads it (glibc's sysconf, which Python does not name)
L2 = int(subprocess.run(["getconf", "LEVEL2_CACHE_SIZE"], capture_output=True, text=True).stdout.strip() or 0) or 1 << 20

for name, make, shape in onnx_models.MODELS:
    if name not in ("resnet18", "mobilenet_v2", "squeezenet1_1"):
        continue
    torch.manual_seed(0)
    model = make().eval()
    calibrate(model, shape)
    x = torch.randn(*shape)
    onnx_path = os.path.join(tool.tmp, name + ".onnx")
    torch.onnx.export(model, x, onnx_path, opset_version=14, input_names=["x"])
    n_conv = sum(1 for n in onnx.load(onnx_path).graph.node if n.op_type == "Conv")
    rc, text, err = tool.run("print", onnx_path, "--after", "layout_nchwc")
    if not check(rc == 0, "%s: rlx print --after layout_nchwc failed: %s" % (name, err.strip())):
        continue
    left = [op for op in ("R.nn.conv2d(", "R.nn.max_pool2d(", "R.concat(") if op in text]
    check(not left, "%s: left in NCHW after layout_nchwc: %s" % (name, left))
    calls = re.findall(r'R\.call_dps_packed\("(rlx\.nn\.[a-z0-9_]+)"', text)
    # a fire module's two expand convs are one call writing both halves of the concat, and
    # so are an expansion and its depthwise conv where the expanded tensor exceeds 2 MB
    # as are a depthwise conv and the 1x1 conv that reads it
    convs = [c for c in calls if "conv" in c] + [c for c in calls if c in ("rlx.nn.conv2d_concat_nchwc",
                                                                            "rlx.nn.conv2d_dw_nchwc",
                                                                            "rlx.nn.dwconv_conv_nchwc")]
    check(len(convs) == n_conv, "%s: %d Conv nodes, %d kernel convolutions" % (name, n_conv, len(convs)))
    check(calls.count("rlx.nn.nchw_to_nchwc") <= 1 and calls.count("rlx.nn.nchwc_to_nchw") == 1,
          "%s: one conversion in and one out, got %d in, %d out" % (
              name, calls.count("rlx.nn.nchw_to_nchwc"), calls.count("rlx.nn.nchwc_to_nchw")))
    print("%s: %d convolutions (%d Winograd, %d depthwise, %d depthwise+1x1, %d concat pairs), %d epilogue ops "
          "folded" % (
        name, len(convs), calls.count("rlx.nn.conv2d_winograd_nchwc"), calls.count("rlx.nn.dwconv2d_nchwc"),
        calls.count("rlx.nn.dwconv_conv_nchwc"),
        calls.count("rlx.nn.conv2d_concat_nchwc"),
        len(re.findall(r"= R\.(add|nn\.relu|maximum|minimum)\(", rc == 0 and tool.run("print", onnx_path)[1] or ""))
        - len(re.findall(r"= R\.(add|nn\.relu|maximum|minimum)\(", text))))
    if name == "mobilenet_v2":
        # the expansions (1x1 convs read only by a 3x3 depthwise conv) whose output exceeds
        # the host target's L2 run inside the depthwise call: 112x112x96 (4.8 MB),
        # 56x56x144 (1.8 MB, two), 28x28x192 (602 KB, three), then 14x14 and 7x7 ones
        # (0.2-0.45 MB); the other depthwise convs run inside their 1x1 projection's call
        sizes = [112 * 112 * 96] + [56 * 56 * 144] * 2 + [28 * 28 * 192] * 3 + [14 * 14 * 384] * 4 + \
            [14 * 14 * 576] * 3 + [7 * 7 * 960] * 3
        fused = sum(1 for s in sizes if s * 4 > L2)
        check(calls.count("rlx.nn.conv2d_dw_nchwc") == fused, "mobilenet_v2: the %d expansions larger than L2 "
              "(%d KB) run inside their depthwise conv's call, the smaller ones apart; got %d fused pairs"
              % (fused, L2 >> 10, calls.count("rlx.nn.conv2d_dw_nchwc")))
        check(calls.count("rlx.nn.dwconv_conv_nchwc") == 17 - fused, "mobilenet_v2: the %d depthwise convs outside "
              "those calls run inside their 1x1 projection's call; got %d" % (
                  17 - fused, calls.count("rlx.nn.dwconv_conv_nchwc")))
    if name == "resnet18":
        check(calls.count("rlx.nn.conv2d_winograd_nchwc") == 10, "resnet18: the ten 3x3 stride-1 convs of stages 1-3 "
              "run Winograd, got %d" % calls.count("rlx.nn.conv2d_winograd_nchwc"))
    so = os.path.join(tool.tmp, name + ".so")
    rc, out, err = tool.run("compile", onnx_path, "-o", so, "--stats")
    if not check(rc == 0, "%s: rlx compile failed: %s" % (name, err.strip())):
        continue
    check("schedule: 0 block(s) left unscheduled" in out, "%s: --stats: %s" % (name, out.strip()))
    # the rlx.nn kernels keep no reference to their arguments: their tensors share storages
    # (before: one storage per tensor, saved=0.0%), and none allocates when it runs
    m = re.search(r"\((\d+) storages for (\d+) tensors.*saved=([\d.]+)%", out)
    check(m and int(m.group(1)) * 3 <= int(m.group(2)) and float(m.group(3)) >= 50,
          "%s: the activations share storages: %s" % (name, out.strip()[:300]))
    check("0 run-time allocation(s) outside the plan" in out, "%s: --stats: %s" % (name, out.strip()[:300]))
    xin = os.path.join(tool.tmp, name + "_x.npy")
    np.save(xin, x.numpy())
    with torch.no_grad():
        ref = model(x).numpy()
    scale = max(1.0, float(np.abs(ref).max()))
    for threads in ("1", "2"):
        outdir = os.path.join(tool.tmp, name + "_out" + threads)
        rc, _, err = tool.run("run", so, "-i", xin, "-o", outdir, "--format", "npy", "--threads", threads)
        if not check(rc == 0, "%s: rlx run failed: %s" % (name, err.strip())):
            continue
        got = np.load(os.path.join(outdir, "output_0.npy"))
        e = float(np.abs(got - ref).max()) / scale if got.shape == ref.shape else float("inf")
        print("%s threads=%s: error/scale %.2e" % (name, threads, e))
        check(e <= TOL, "%s threads=%s: error/scale %.3g > %g" % (name, threads, e, TOL))
    if name == "squeezenet1_1":
        # Winograd F(4x4) only with two chunks of 4x4 tiles: F(2x2) for the 13x13 expands
        # (their F(4x4) weights, streamed from memory every call, cost more than it saves)
        rc, out, err = tool.run("bench", so, "-i", xin, "--repeat", 1, "--profile")
        fires = sorted(set(re.findall(r"conv2d_concat_nchwc:\(1,\d+,(\d+),\d+,(?:8|16)\)->\S+,1x1\+3x3(F\d)", out)))
        check(fires == [("13", "F2"), ("27", "F4"), ("55", "F4")], "squeezenet expands by size: %s" % fires)

# Epilogue folding on a small module: conv + bias, + residual, relu, then a clip pair; a
# grouped (not depthwise) conv stays an R.nn.conv2d; the result matches numpy.
rng = np.random.default_rng(0)
w1 = rng.standard_normal((32, 24, 3, 3)).astype(np.float32) * 0.1
b1 = rng.standard_normal((32, 1, 1)).astype(np.float32)
w2 = rng.standard_normal((32, 8, 1, 1)).astype(np.float32) * 0.1


def const(a):
    return 'R.const(%s, "float32")' % np.array2string(a, separator=", ", threshold=1 << 30,
                                                       floatmode="unique").replace("\n", "")


SCRIPT = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 24, 10, 12), dtype="float32"), r: R.Tensor((1, 32, 10, 12), dtype="float32")) -> R.Tensor((1, 32, 10, 12), dtype="float32"):
        with R.dataflow():
            a = R.nn.conv2d(x, W1, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1)
            b = R.add(a, B1)
            c = R.add(b, r)
            d = R.nn.relu(c)
            e = R.maximum(d, R.const(0.5, "float32"))
            f = R.minimum(e, R.const(2.0, "float32"))
            g = R.nn.conv2d(f, W2, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=4)
            R.output(g)
        return g
'''.replace("W1", const(w1)).replace("B1", const(b1)).replace("W2", const(w2))
path = tool.file("epilogue.py", SCRIPT)
rc, text, err = tool.run("print", path, "--after", "layout_nchwc")
check(rc == 0, "epilogue module: print failed: %s" % err.strip())
check(len(re.findall(r'R\.call_dps_packed\("rlx\.nn\.conv2d_(nchwc|winograd_nchwc)"', text)) == 1 and "R.add(" not in text and
      "R.nn.relu(" not in text and "R.maximum(" not in text and "R.minimum(" not in text,
      "bias, residual, relu and the clip pair fold into one conv call:\n%s" % text[:3000])
check(re.search(r"R\.prim_value\(1\), R\.prim_value\(T\.float64\(0\.5\)\), R\.prim_value\(T\.float64\(2\)\)", text)
      is not None,
      "clip bounds 0.5 and 2 reach the call:\n%s" % text[:3000])
check(text.count("R.nn.conv2d(") == 1 and "groups=4" in text, "the grouped conv stays an R.nn.conv2d")
xv = rng.standard_normal((1, 24, 10, 12)).astype(np.float32)
rv = rng.standard_normal((1, 32, 10, 12)).astype(np.float32)
np.save(os.path.join(tool.tmp, "ex.npy"), xv)
np.save(os.path.join(tool.tmp, "er.npy"), rv)
rc, _, err = tool.run("run", path, "-i", os.path.join(tool.tmp, "ex.npy"), "-i", os.path.join(tool.tmp, "er.npy"),
                      "-o", os.path.join(tool.tmp, "eout"))
if check(rc == 0, "epilogue module: run failed: %s" % err.strip()):
    t = torch.nn.functional.conv2d(torch.from_numpy(xv), torch.from_numpy(w1), padding=1) + torch.from_numpy(b1)
    t = torch.clamp(torch.relu(t + torch.from_numpy(rv)), 0.5, 2.0)
    ref = torch.nn.functional.conv2d(t, torch.from_numpy(w2), groups=4).numpy()
    got = np.load(os.path.join(tool.tmp, "eout", "output_0.npy"))
    e = float(np.abs(got - ref).max())
    print("epilogue module: max abs error %.2e" % e)
    check(e < 1e-4, "epilogue module: error %.3g" % e)

finish()
