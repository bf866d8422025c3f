#!/usr/bin/env python3
"""int8 networks: rlx against ONNX Runtime on the same statically quantized QDQ model.

PyTorch exports ResNet-18, MobileNetV2 and SqueezeNet 1.1 (random weights, seeded) to ONNX; the
quantizer below (onnx helpers only) rewrites each into the QDQ form ORT's quantize_static
writes: per-channel symmetric int8 weights (DequantizeLinear along the output channels), int32
biases with scale x_scale * w_scale, per-tensor asymmetric uint8 activations (QuantizeLinear ->
DequantizeLinear after each producer), calibrated as min/max over a few inputs (the float
model with every activation as an extra output, run by rlx). A Relu or Clip right after a Conv,
Gemm or Add takes no quantization of its own input (the activation folds into the output's).

Timing: --rounds alternations of rlx (`rlx bench`) and ORT (all graph optimizations), each the
median of --repeat runs, for the int8 model and the fp32 model, at one and two threads; the
table gives medians and the ratios rlx/ORT (int8) and rlx int8/fp32.

Accuracy, against the QDQ graph's own semantics (ORT with graph optimizations disabled runs
every QuantizeLinear/DequantizeLinear as written): the mean absolute error of rlx's output and of
ORT's optimized (fused integer) output, in steps of the output's quantization scale, and the
share of inputs whose top-1 class matches the reference.

Usage: /usr/bin/python3 bench/int8_models.py [--rlx build/bin/rlx] [--ort DIR] [--repeat 20]
       [--rounds 3] [--only NAME] [--accuracy-inputs 4] [--max-isa LEVEL] [--keep DIR]
Run it under `flock /tmp/rlx-bench.lock` on a shared machine.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

from bench_common import CNNS, ROOT, Ort, alternate, export, fmt_ms, rlx_time

# ops whose inputs the quantizer quantizes (their float inputs come through DequantizeLinear)
QUANTIZED_OPS = {"Conv", "Gemm", "MatMul", "Add", "MaxPool", "GlobalAveragePool", "AveragePool", "Concat", "Flatten",
                 "Reshape"}
# producers whose output, when read only by one of these, is not quantized itself
FOLDS_INTO = {"Conv", "Gemm", "MatMul", "Add"}
ACTIVATIONS = {"Relu", "Clip"}


def strip_identity(model):
    """Identity nodes (PyTorch's shared biases) replaced by their input."""
    g = model.graph
    alias = {n.output[0]: n.input[0] for n in g.node if n.op_type == "Identity"}
    keep = [n for n in g.node if n.op_type != "Identity"]
    for n in keep:
        for i, name in enumerate(n.input):
            while name in alias:
                name = alias[name]
            n.input[i] = name
    del g.node[:]
    g.node.extend(keep)


def float_activations(model):
    """Names of the float32 tensors a quantized op reads or a graph output is, that are not
    initializers, in graph order, and whether each is to be quantized."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    inferred = shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in list(inferred.graph.value_info) + list(g.input) +
             list(g.output)}
    consumers, producer = {}, {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
        for o in n.output:
            producer[o] = n
    names = [i.name for i in g.input if i.name not in inits] + [o for n in g.node for o in n.output]
    outs = {o.name for o in g.output}
    result = []
    for t in names:
        if t in inits or types.get(t) != TensorProto.FLOAT:
            continue
        users = consumers.get(t, [])
        p = producer.get(t)
        if p is not None and p.op_type in FOLDS_INTO and len(users) == 1 and users[0].op_type in ACTIVATIONS:
            continue
        if t in outs or any(u.op_type in QUANTIZED_OPS for u in users):
            result.append(t)
    return result


def calibrate(rlx, model, names, inputs, tmp, env):
    """(min, max) of each named tensor over the inputs: the model with every one as an output, run by rlx."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for t in names:
        if t not in have:
            m.graph.output.append(helper.make_empty_tensor_value_info(t))
    order = [o.name for o in m.graph.output]
    path = os.path.join(tmp, "calib.onnx")
    onnx.save(m, path)
    so = os.path.join(tmp, "calib.so")
    subprocess.run([rlx, "compile", path, "-o", so], check=True, env=env)
    lo, hi = {t: 0.0 for t in names}, {t: 0.0 for t in names}
    for k, x in enumerate(inputs):
        xp, od = os.path.join(tmp, "calib_x.npy"), os.path.join(tmp, "calib_out%d" % k)
        np.save(xp, x)
        subprocess.run([rlx, "run", so, "-i", xp, "-o", od, "--format", "npy"], check=True, env=env)
        for i, t in enumerate(order):
            if t in lo:
                y = np.load(os.path.join(od, "output_%d.npy" % i))
                lo[t], hi[t] = min(lo[t], float(y.min())), max(hi[t], float(y.max()))
    return {t: (lo[t], hi[t]) for t in names}


def uint8_params(lo, hi):
    """ORT's asymmetric uint8 parameters for the range [lo, hi] (widened to hold 0)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zp)


def quantize(model, ranges):
    """The QDQ model: activations per tensor (uint8), weights per channel (int8), biases int32."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    new_inits, act_scale = [], {}
    nodes = []

    def add_init(name, arr):
        new_inits.append(numpy_helper.from_array(arr, name))
        return name

    def qdq(t):
        """Q -> DQ of activation t: nodes producing t from t + '_f32'."""
        s, z = uint8_params(*ranges[t])
        act_scale[t] = float(s)
        add_init(t + "_scale", np.array(s, dtype=np.float32))
        add_init(t + "_zp", np.array(z, dtype=np.uint8))
        return [helper.make_node("QuantizeLinear", [t + "_f32", t + "_scale", t + "_zp"], [t + "_q"], name=t + "_Q"),
                helper.make_node("DequantizeLinear", [t + "_q", t + "_scale", t + "_zp"], [t], name=t + "_DQ")]

    def weight(name, axis=0):
        """(weights may be shared by nodes: each use gets its own quantized copy)"""
        w = numpy_helper.to_array(inits[name]).astype(np.float32)
        name = "%s_%d" % (name, len(nodes))
        red = tuple(d for d in range(w.ndim) if d != axis)
        s = np.maximum(np.abs(w).max(axis=red), 1e-12) / 127.0
        shp = [1] * w.ndim
        shp[axis] = -1
        q = np.clip(np.round(w / s.reshape(shp)), -127, 127).astype(np.int8)
        add_init(name + "_q", q)
        add_init(name + "_scale", s.astype(np.float32))
        add_init(name + "_zp", np.zeros(s.shape, dtype=np.int8))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"], [name + "_dq"],
                                      name=name + "_DQ", axis=axis))
        return name + "_dq", s

    def bias(name, x_scale, w_scale):
        b = numpy_helper.to_array(inits[name]).astype(np.float32)
        name = "%s_%d" % (name, len(nodes))
        s = (x_scale * w_scale).astype(np.float32)
        add_init(name + "_q", np.round(b / s).astype(np.int32))
        add_init(name + "_scale", s)
        add_init(name + "_zp", np.zeros(s.shape, dtype=np.int32))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"], [name + "_dq"],
                                      name=name + "_DQ", axis=0))
        return name + "_dq"

    inputs = [i.name for i in g.input if i.name not in inits]
    for t in inputs:
        if t in ranges:
            q = qdq(t)
            q[0].input[0] = t
            q[1].output[0] = t + "_dq"
            nodes.extend(q)
    renamed = {t: t + "_dq" for t in inputs if t in ranges}
    for n in g.node:
        for i, name in enumerate(n.input):
            n.input[i] = renamed.get(name, name)
        if n.op_type in ("Conv", "Gemm") and len(n.input) > 1 and n.input[1] in inits:
            trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
            if n.op_type == "Conv" or trans_b:
                x = n.input[0][:-3] if n.input[0].endswith("_dq") else n.input[0]
                n.input[1], ws = weight(n.input[1])
                if len(n.input) > 2 and n.input[2] in inits and x in act_scale:
                    n.input[2] = bias(n.input[2], act_scale[x], ws)
        nodes.append(n)
        for i, o in enumerate(n.output):
            if o in ranges:
                n.output[i] = o + "_f32"
                nodes.extend(qdq(o))
    used = {i for n in nodes for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    del g.node[:]
    g.node.extend(nodes)
    return act_scale[g.output[0].name]


def rlx_outputs(rlx, so, inputs, tmp, env):
    ys = []
    for k, x in enumerate(inputs):
        xp, od = os.path.join(tmp, "acc_x.npy"), os.path.join(tmp, "acc_out")
        np.save(xp, x)
        subprocess.run([rlx, "run", so, "-i", xp, "-o", od, "--format", "npy"], check=True, env=env)
        ys.append(np.load(os.path.join(od, "output_0.npy")).ravel())
    return ys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default=os.path.join(ROOT, "build", "bin", "rlx"))
    ap.add_argument("--ort", default="/tmp/ortnode")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only")
    ap.add_argument("--calibration-inputs", type=int, default=4)
    ap.add_argument("--accuracy-inputs", type=int, default=4)
    ap.add_argument("--max-isa", metavar="LEVEL", help="run rlx capped at this x86-64 level (RLX_MAX_ISA)")
    ap.add_argument("--keep", metavar="DIR", help="write the fp32 and int8 models here")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rlx-int8bench-")
    env = dict(os.environ, RLX_CACHE_DIR=os.path.join(tmp, "cache"))
    if args.max_isa:
        env["RLX_MAX_ISA"] = args.max_isa
    ort = Ort(args.ort, tmp)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    isa = subprocess.run([args.rlx, "config", "--isa"], capture_output=True, text=True, env=env).stdout.strip()
    print("CPU: %s, %d cores; rlx level %s%s; ORT %s" % (cpu, os.cpu_count(), isa,
                                                         " (RLX_MAX_ISA=%s)" % args.max_isa if args.max_isa else "",
                                                         "available" if ort.available else "missing"))
    table, accuracy = [], []
    for name, make, shape in CNNS:
        if args.only and args.only != name:
            continue
        f32 = os.path.join(tmp, name + ".onnx")
        export(make, shape, f32)
        model = onnx.load(f32)
        strip_identity(model)
        rng = np.random.default_rng(1)
        calib = [rng.standard_normal(shape).astype(np.float32) for _ in range(args.calibration_inputs)]
        names = float_activations(model)
        ranges = calibrate(args.rlx, model, names, calib, tmp, env)
        out_scale = quantize(model, ranges)
        q8 = os.path.join(tmp, name + "_int8.onnx")
        onnx.save(model, q8)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for p in (f32, q8):
                subprocess.run(["cp", p, args.keep], check=True)
        sos = {}
        for kind, path in (("int8", q8), ("fp32", f32)):
            sos[kind] = os.path.join(tmp, "%s_%s.so" % (name, kind))
            r = subprocess.run([args.rlx, "compile", path, "-o", sos[kind]], capture_output=True, text=True, env=env)
            if r.returncode:
                print("%s %s: rlx compile failed: %s" % (name, kind, r.stderr.strip()[-500:]))
                sos[kind] = None
        x = os.path.join(tmp, name + "_x.npy")
        np.save(x, np.sin(np.arange(int(np.prod(shape)), dtype=np.float32)).reshape(shape))
        for threads in (1, 2):
            timers = [lambda k=k: rlx_time(args.rlx, sos[k], x, threads, args.repeat, env) if sos[k] else None
                      for k in ("int8", "fp32")]
            timers += [lambda p=p: ort.time(p, shape, threads, args.repeat) if ort.available else None for p in (q8, f32)]
            ri, rf, oi, of = alternate(args.rounds, timers)  # the timers' order: rlx int8, rlx fp32, ORT int8, ORT fp32
            table.append((name, threads, ri, oi, rf, of))
        # accuracy against ORT without graph optimizations (the QDQ graph as written)
        if ort.available and sos["int8"]:
            tests = [rng.standard_normal(shape).astype(np.float32) for _ in range(args.accuracy_inputs)]
            ref = [ort.run(q8, t, tmp, "disabled") for t in tests]
            fused = [ort.run(q8, t, tmp, "all") for t in tests]
            ours = rlx_outputs(args.rlx, sos["int8"], tests, tmp, env)
            err = lambda ys: float(np.mean([np.abs(y - r).mean() for y, r in zip(ys, ref)])) / out_scale
            top1 = lambda ys: float(np.mean([np.argmax(y) == np.argmax(r) for y, r in zip(ys, ref)]))
            accuracy.append((name, err(ours), top1(ours), err(fused), top1(fused)))
        sys.stdout.flush()
    print("\n%-14s %2s | %10s %10s %6s | %10s %10s %8s | %10s" % ("model", "T", "rlx_int8", "ort_int8", "ratio",
                                                                 "rlx_fp32", "int8/fp32", "ort_fp32", "ort i8/f32"))
    for name, t, ri, oi, rf, of in table:
        f = lambda v: fmt_ms(v) if v else "-"
        ratio = lambda a, b: "%.2f" % (a / b) if a and b else "-"
        print("%-14s %2d | %10s %10s %6s | %10s %10s %8s | %10s" % (name, t, f(ri), f(oi), ratio(ri, oi), f(rf),
                                                                   ratio(ri, rf), f(of), ratio(oi, of)))
    if accuracy:
        print("\naccuracy vs ORT without optimizations (QDQ semantics), mean |error| in output quantization steps, top-1 agreement")
        print("%-14s | %10s %8s | %10s %8s" % ("model", "rlx_err", "rlx_top1", "ort_err", "ort_top1"))
        for a in accuracy:
            print("%-14s | %10.3f %8.2f | %10.3f %8.2f" % a)


if __name__ == "__main__":
    main()
