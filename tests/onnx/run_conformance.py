#!/usr/bin/env python3
"""Runs the ONNX backend test cases through `rlx run MODEL.onnx` and checks the outputs.

A case is a folder with model.onnx and test_data_set_0/{input_k.pb, output_k.pb} under one of
the suites node, simple, pytorch-converted, pytorch-operator of the system's ONNX test data.
Each runnable case runs as

    rlx run model.onnx -i input_0.pb ... -o OUT

with a private kernel cache ($RLX_CACHE_DIR) and a per-case timeout, and every OUT/output_k.pb
is compared with the expected one: same dtype and shape, NaN at the same positions, equal
infinities, |out - ref| <= atol + rtol * |ref| for floats (rtol=1e-3, atol=1e-7 as the ONNX
backend runner uses; the few wider ones are in TOLERANCES with the reason), exact for integers
and bools (cases whose outputs are random draws — Bernoulli, Dropout in training mode — are
checked for dtype, shape and the properties listed in RANDOM instead of values). Sequence and
optional values (SequenceProto / OptionalProto files, read by the graph's declared types) are
compared element by element the same way, and an empty optional must be empty. Cases whose
graph inputs or outputs are strings or maps, or that have no test_data_set_0, are not
runnable and are counted apart. The suite stores
bfloat16 data as uint16 bit patterns (numpy has none): rlx takes a uint16 tensor given for a
bfloat16 input as its bits, and a bfloat16 output is compared bit for bit with such a
reference.

Prints results per op (the model's main op: its single node, the op of the non-expanded case
for *_expanded function bodies, else the first node that is not a shape/layout helper), the
failures with the first line of each error, and `N passed, N failed` over the runnable cases.

    run_conformance.py RLX [--only REGEX] [--jobs N] [--timeout S] [--list-passing FILE]
                           [--passing-only] [--update] [--check]
                           [--target T --runner "CMD" [--sample N]]

--target T --runner CMD: each case is compiled for target T (`rlx compile model.onnx -o
model.so --target T`) and run by CMD with the runtime alone (`CMD model.so -i input_0.npy ...
-o OUT`: rlx-run, under an emulator for another CPU, e.g. "qemu-aarch64 -L
/usr/aarch64-linux-gnu build-aarch64/bin/rlx-run"); inputs and outputs go through .npy, so
cases with sequence, optional, string or bfloat16 values are counted apart. --sample N runs every
N-th case (by name order), a time-bounded sample.

--check exits 1 when a case listed in passing.txt fails now (the ratchet CI uses);
--update rewrites passing.txt as its old cases plus the cases that pass now (the list only
grows: a listed case that fails is kept, reported, and makes the run exit 1);
--passing-only runs only the cases listed in passing.txt.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "simple", "pytorch-converted", "pytorch-operator")
HERE = os.path.dirname(os.path.abspath(__file__))
PASSING = os.path.join(HERE, "passing.txt")

RTOL = 1e-3
ATOL = 1e-7
# Wider tolerances the suite itself needs: case name regex -> (rtol, atol, reason).
TOLERANCES = [
    # (filled only with evidence: a case whose reference itself is that loose)
]

# Cases whose outputs are random draws: the suite's expected values come from numpy's generator
# state when the data was made, which no other generator reproduces. For these the values are
# not compared; instead each output must have the expected dtype and shape and:
#   bernoulli: every value is 0 or 1;
#   dropout (training mode, ratio r = input 1, default 0.5): every y is 0 or x / (1 - r)
#     (rtol 1e-6), and the mask, when there is one, is exactly where y was kept (x / (1 - r)
#     where the mask is true, 0 where it is false), with both values present when x has more
#     than 8 elements.
RANDOM = [
    (r"node/test_bernoulli", "bernoulli"),
    (r"node/test_training_dropout(_default)?(_mask)?$", "dropout"),
]


def random_kind(full):
    for pattern, kind in RANDOM:
        if re.search(pattern, full):
            return kind
    return None


def check_random(kind, outs, refs, ins):
    """None when the random outputs have the properties RANDOM describes, else a message."""
    for k, (o, r) in enumerate(zip(outs, refs)):
        if o.dtype != r.dtype or o.shape != r.shape:
            return "output_%d: %s %s, expected %s %s" % (k, o.dtype, o.shape, r.dtype, r.shape)
    if kind == "bernoulli":
        if not np.isin(outs[0], [0, 1]).all():
            return "output_0: values other than 0 and 1"
        return None
    x = ins[0].astype(np.float64)
    ratio = float(ins[1]) if len(ins) > 1 else 0.5
    kept = x / (1.0 - ratio)
    y = outs[0].astype(np.float64)
    is_kept = np.isclose(y, kept, rtol=1e-6, atol=0)
    is_zero = y == 0
    if not (is_kept | is_zero).all():
        return "output_0: values that are neither 0 nor x / (1 - ratio)"
    if len(outs) > 1:
        mask = outs[1]
        if not np.array_equal(np.where(mask, kept, 0.0).astype(outs[0].dtype), outs[0]):
            return "output_1: the mask does not match where output_0 was kept"
        if x.size > 8 and (mask.all() or not mask.any()):
            return "output_1: every element kept or every one dropped"
    return None


# Ops that only move, reshape or re-type data; a model's main op is its first other node.
HELPERS = {"Constant", "Identity", "Reshape", "Shape", "Gather", "Cast", "Concat", "Unsqueeze",
           "Squeeze", "Transpose", "Flatten", "Slice", "ConstantOfShape", "Expand"}

UNSUPPORTED_ELEM = {onnx.TensorProto.UNDEFINED: "undefined"}


class Case:
    def __init__(self, suite, name, path):
        self.suite, self.name, self.path = suite, name, path
        self.full = suite + "/" + name
        self.skip = None  # reason when not runnable
        self.ops = []
        self.op = "?"
        self.out_types = []


def numbered(folder, prefix):
    files = [f for f in os.listdir(folder) if re.fullmatch(prefix + r"_\d+\.pb", f)]
    return [os.path.join(folder, f) for f in sorted(files, key=lambda f: int(f[len(prefix) + 1:-3]))]


def type_problem(tp):
    kind = tp.WhichOneof("value")
    if kind == "sequence_type":
        return type_problem(tp.sequence_type.elem_type)
    if kind == "optional_type":
        return type_problem(tp.optional_type.elem_type)
    if kind != "tensor_type":
        return (kind or "untyped").replace("_type", "")
    return UNSUPPORTED_ELEM.get(tp.tensor_type.elem_type)


def load_value(path, tp):
    """A value file by its declared type: a numpy array (TensorProto), a list (SequenceProto) or
    None / the value (OptionalProto). bfloat16 tensors stay uint16 bit patterns."""
    kind = tp.WhichOneof("value") if tp is not None else "tensor_type"
    with open(path, "rb") as f:
        data = f.read()
    if kind == "sequence_type":
        m = onnx.SequenceProto()
        m.ParseFromString(data)
        return [tensor_array(t) for t in m.tensor_values]
    if kind == "optional_type":
        m = onnx.OptionalProto()
        m.ParseFromString(data)
        if m.HasField("tensor_value"):
            return tensor_array(m.tensor_value)
        if m.HasField("sequence_value"):
            return [tensor_array(t) for t in m.sequence_value.tensor_values]
        return None
    m = onnx.TensorProto()
    m.ParseFromString(data)
    return tensor_array(m)


def tensor_array(pb):
    if pb.data_type == onnx.TensorProto.BFLOAT16:
        return np.frombuffer(pb.raw_data, dtype=np.uint16).reshape(tuple(pb.dims))
    return numpy_helper.to_array(pb)


def compare_value(out, ref, rtol, atol):
    """compare() over values that may be lists (sequences) or None (empty optionals)."""
    if ref is None or out is None:
        return None if out is None and ref is None else "an optional is %s, expected %s" % (
            "empty" if out is None else "present", "empty" if ref is None else "present")
    if isinstance(ref, list) or isinstance(out, list):
        if not (isinstance(ref, list) and isinstance(out, list)):
            return "a sequence and a tensor"
        if len(out) != len(ref):
            return "sequence of %d elements, expected %d" % (len(out), len(ref))
        for i, (o, r) in enumerate(zip(out, ref)):
            msg = compare(o, r, rtol, atol)
            if msg:
                return "element %d: %s" % (i, msg)
        return None
    return compare(out, ref, rtol, atol)


def discover(data):
    cases = []
    for suite in SUITES:
        root = os.path.join(data, suite)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if not os.path.isfile(os.path.join(path, "model.onnx")):
                continue
            c = Case(suite, name, path)
            model = onnx.load(os.path.join(path, "model.onnx"), load_external_data=False)
            c.ops = [n.op_type for n in model.graph.node]
            if not os.path.isdir(os.path.join(path, "test_data_set_0")):
                c.skip = "no test_data_set_0"
            else:
                c.out_types = [vi.type for vi in model.graph.output]
                for vi in list(model.graph.input) + list(model.graph.output):
                    problem = type_problem(vi.type)
                    if problem:
                        c.skip = problem + " inputs/outputs"
                        break
            cases.append(c)
    by_name = {c.full: c for c in cases}
    for c in cases:
        base = re.sub(r"_expanded$", "", c.full)
        if base != c.full and base in by_name and len(by_name[base].ops) == 1:
            c.op = by_name[base].ops[0]
        elif len(c.ops) == 1:
            c.op = c.ops[0]
        else:
            main = [o for o in c.ops if o not in HELPERS]
            c.op = main[0] if main else (c.ops[-1] if c.ops else "?")
    return cases


def tolerance(full):
    for pattern, rtol, atol, _ in TOLERANCES:
        if re.search(pattern, full):
            return rtol, atol
    return RTOL, ATOL


def compare(out, ref, rtol, atol):
    """None when out matches ref, else one line saying how it differs."""
    if out.dtype != ref.dtype:
        return "dtype %s, expected %s" % (out.dtype, ref.dtype)
    if out.shape != ref.shape:
        return "shape %s, expected %s" % (out.shape, ref.shape)
    if out.size == 0:
        return None
    if ref.dtype.kind == "O":  # strings: equal
        bad = [i for i, (o, r) in enumerate(zip(out.ravel(), ref.ravel())) if o != r]
        return "%d of %d strings differ (first: %r, expected %r)" % (
            len(bad), ref.size, out.ravel()[bad[0]], ref.ravel()[bad[0]]) if bad else None
    if ref.dtype.kind in "biu":
        bad = out != ref
        if bad.any():
            i = np.unravel_index(np.argmax(bad), ref.shape)
            return "%d of %d elements differ (first at %s: %s, expected %s)" % (
                int(bad.sum()), ref.size, tuple(int(k) for k in i), out[i], ref[i])
        return None
    if ref.dtype.kind == "c":
        return compare(out.real.copy(), ref.real.copy(), rtol, atol) or \
            compare(out.imag.copy(), ref.imag.copy(), rtol, atol)
    o = out.astype(np.float64)
    r = ref.astype(np.float64)
    nan_o, nan_r = np.isnan(o), np.isnan(r)
    if (nan_o != nan_r).any():
        return "NaN at %d positions, expected %d (positions differ)" % (int(nan_o.sum()), int(nan_r.sum()))
    inf_r = np.isinf(r)
    if (np.isinf(o) != inf_r).any() or (o[inf_r] != r[inf_r]).any():
        return "infinities differ"
    fin = ~(nan_r | inf_r)
    err = np.abs(o[fin] - r[fin])
    bad = err > atol + rtol * np.abs(r[fin])
    if bad.any():
        rel = err / np.maximum(np.abs(r[fin]), 1e-30)
        return "%d of %d elements out of tolerance (max abs err %.3g, max rel err %.3g; rtol=%g atol=%g)" % (
            int(bad.sum()), ref.size, float(err.max()), float(rel[bad].max()), rtol, atol)
    return None


def first_line(text):
    lines = text.splitlines()
    for line in lines:
        if line.startswith("rlx:"):
            return line.strip()
    lines = [line.strip() for line in lines if line.strip()]
    if lines and lines[0].startswith("Traceback"):
        return lines[-1]
    return lines[0] if lines else ""


def runner_problem(case):
    """Why a case cannot go through .npy files (rlx-run), or None."""
    model = onnx.load(os.path.join(case.path, "model.onnx"), load_external_data=False)
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.type.WhichOneof("value") != "tensor_type":
            return "sequence/optional values"
        if vi.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16:
            return "bfloat16 values"
        if vi.type.tensor_type.elem_type == onnx.TensorProto.STRING:
            return "string values"
    return None


def run_case_runner(rlx, target, runner, case, work, env, timeout):
    """As run_case, compiled for target by rlx and run by the runtime-only runner: (ok, message,
    seconds)."""
    data = os.path.join(case.path, "test_data_set_0")
    inputs = numbered(data, "input")
    expected = numbered(data, "output")
    out = os.path.join(work, case.full.replace("/", "__"))
    os.makedirs(out, exist_ok=True)
    so = os.path.join(out, "model.so")
    t0 = time.time()
    try:
        cmd = [rlx, "compile", os.path.join(case.path, "model.onnx"), "-o", so, "--target", target]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
        if r.returncode != 0:
            return False, "compile: " + (first_line(r.stderr) or "exit status %d" % r.returncode), time.time() - t0
        cmd = runner.split() + [so]
        for k, f in enumerate(inputs):
            npy = os.path.join(out, "input_%d.npy" % k)
            np.save(npy, numpy_helper.to_array(onnx.load_tensor(f)))
            cmd += ["-i", npy]
        cmd += ["-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
        secs = time.time() - t0
        if r.returncode != 0:
            return False, "run: " + (first_line(r.stderr) or "exit status %d" % r.returncode), secs
        rtol, atol = tolerance(case.full)
        rkind = random_kind(case.full)
        outs = []
        for k in range(len(expected)):
            got = os.path.join(out, "output_%d.npy" % k)
            if not os.path.isfile(got):
                return False, "output_%d.npy not written (%d outputs expected)" % (k, len(expected)), secs
            outs.append(np.load(got))
        refs = [numpy_helper.to_array(onnx.load_tensor(f)) for f in expected]
        if rkind:
            msg = check_random(rkind, outs, refs, [numpy_helper.to_array(onnx.load_tensor(f)) for f in inputs])
            return (False, msg, secs) if msg else (True, "", secs)
        for k, (o, ref) in enumerate(zip(outs, refs)):
            msg = compare(o, ref, rtol, atol)
            if msg:
                return False, "output_%d: %s" % (k, msg), secs
        return True, "", secs
    except subprocess.TimeoutExpired:
        return False, "timeout after %ds" % timeout, time.time() - t0
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run_case(rlx, case, work, env, timeout):
    """Returns (ok, message, seconds). The case runs exactly as a user runs it: every graph
    input is a run-time input (-i), none is bound as a constant."""
    data = os.path.join(case.path, "test_data_set_0")
    inputs = numbered(data, "input")
    expected = numbered(data, "output")
    out = os.path.join(work, case.full.replace("/", "__"))
    model_path = os.path.join(case.path, "model.onnx")
    cmd = [rlx, "run", model_path]
    for f in inputs:
        cmd += ["-i", f]
    cmd += ["-o", out]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return False, "timeout after %ds" % timeout, time.time() - t0
    secs = time.time() - t0
    try:
        if r.returncode < 0:
            return False, "crashed: %s %s" % (signal.Signals(-r.returncode).name, first_line(r.stderr)), secs
        if r.returncode != 0:
            msg = first_line(r.stderr).replace(os.path.join(case.path, "model.onnx") + ": ", "")
            return False, msg or "exit status %d" % r.returncode, secs
        rtol, atol = tolerance(case.full)
        rkind = random_kind(case.full)
        if rkind:
            try:
                outs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(out, "output_%d.pb" % k)))
                        for k in range(len(expected))]
            except Exception as e:  # noqa: BLE001 - a missing or malformed file is a failure
                return False, "outputs unreadable: %s" % first_line(str(e)), secs
            refs = [numpy_helper.to_array(onnx.load_tensor(f)) for f in expected]
            ins = [numpy_helper.to_array(onnx.load_tensor(f)) for f in inputs]
            msg = check_random(rkind, outs, refs, ins)
            return (False, msg, secs) if msg else (True, "", secs)
        for k, f in enumerate(expected):
            got = os.path.join(out, "output_%d.pb" % k)
            if not os.path.isfile(got):
                return False, "output_%d.pb not written (%d outputs expected)" % (k, len(expected)), secs
            tp = case.out_types[k] if k < len(case.out_types) else None
            ref = load_value(f, tp)
            try:
                o = load_value(got, tp)
            except Exception as e:  # noqa: BLE001 - a malformed file is a failure, not a crash
                return False, "output_%d.pb unreadable: %s" % (k, first_line(str(e))), secs
            msg = compare_value(o, ref, rtol, atol)
            if msg:
                return False, "output_%d: %s" % (k, msg), secs
        extra = os.path.join(out, "output_%d.pb" % len(expected))
        if os.path.exists(extra):
            return False, "more outputs than the %d expected" % len(expected), secs
        return True, "", secs
    finally:
        shutil.rmtree(out, ignore_errors=True)


def read_passing(path):
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def write_list(path, names):
    with open(path, "w") as f:
        for n in sorted(set(names)):
            f.write(n + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rlx", help="path to the rlx binary")
    ap.add_argument("--data", default=DATA, help="ONNX test data root (default %(default)s)")
    ap.add_argument("--only", help="run only cases whose suite/name matches this regex")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per case")
    ap.add_argument("--passing", default=PASSING, help="passing list (default %(default)s)")
    ap.add_argument("--passing-only", action="store_true", help="run only the cases in the passing list")
    ap.add_argument("--list-passing", metavar="FILE", help="write the names of the passing cases to FILE")
    ap.add_argument("--update", action="store_true", help="add the cases passing now to the passing list")
    ap.add_argument("--check", action="store_true", help="exit 1 if a case in the passing list fails")
    ap.add_argument("--cache", help="kernel cache dir (default: a fresh private one)")
    ap.add_argument("--quiet", action="store_true", help="no per-op table")
    ap.add_argument("--target", help="compile each case for this target (with --runner)")
    ap.add_argument("--runner", help="run the compiled case with this command (rlx-run, maybe under an emulator)")
    ap.add_argument("--sample", type=int, default=1, help="run every N-th case (default: all)")
    args = ap.parse_args()

    rlx = os.path.abspath(args.rlx)
    if not os.access(rlx, os.X_OK):
        sys.exit("run_conformance: %s is not an executable" % rlx)
    t_start = time.time()
    cases = discover(args.data)
    if not cases:
        sys.exit("run_conformance: no cases under %s" % args.data)
    listed = read_passing(args.passing)
    listed_set = set(listed)
    known = {c.full for c in cases}
    stale = [n for n in listed if n not in known]
    all_runnable = sum(1 for c in cases if not c.skip)
    if args.passing_only:
        print("suite: %d cases, %d runnable; the passing list holds %d (%.1f%% of runnable)" % (
            len(cases), all_runnable, len(listed_set & known), 100.0 * len(listed_set & known) / max(1, all_runnable)))
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.full)]
    if args.passing_only:
        cases = [c for c in cases if c.full in listed_set]
    if (args.target is None) != (args.runner is None):
        sys.exit("run_conformance: --target and --runner go together")
    if args.runner:
        for c in cases:
            if not c.skip:
                c.skip = runner_problem(c)
    if args.sample > 1:
        cases = [c for i, c in enumerate(sorted(cases, key=lambda c: c.full)) if i % args.sample == 0]

    skipped = [c for c in cases if c.skip]
    runnable = [c for c in cases if not c.skip]
    print("%d cases, %d runnable, %d skipped" % (len(cases), len(runnable), len(skipped)))
    for reason, n in sorted(collections.Counter(c.skip for c in skipped).items()):
        print("  skipped (%s): %d" % (reason, n))
    sys.stdout.flush()

    work = tempfile.mkdtemp(prefix="rlx-onnx-")
    env = dict(os.environ, RLX_CACHE_DIR=args.cache or os.path.join(work, "cache"))
    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            if args.runner:
                futs = {pool.submit(run_case_runner, rlx, args.target, args.runner, c, work, env, args.timeout): c
                        for c in runnable}
            else:
                futs = {pool.submit(run_case, rlx, c, work, env, args.timeout): c for c in runnable}
            for fut in concurrent.futures.as_completed(futs):
                results[futs[fut].full] = fut.result()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    per_op = collections.OrderedDict()
    for c in sorted(runnable, key=lambda c: (c.op, c.full)):
        per_op.setdefault(c.op, []).append(c)
    if not args.quiet:
        print("\n%-28s %6s %6s  failing" % ("op", "pass", "fail"))
        for op, cs in per_op.items():
            fails = [c.name for c in cs if not results[c.full][0]]
            print("%-28s %6d %6d  %s" % (op, len(cs) - len(fails), len(fails), " ".join(fails)))

    failed = [c for c in runnable if not results[c.full][0]]
    passed = [c for c in runnable if results[c.full][0]]
    if failed:
        print("\nfailures:")
        for c in sorted(failed, key=lambda c: c.full):
            print("  %s [%s]: %s" % (c.full, c.op, results[c.full][1]))
    slow = sorted(runnable, key=lambda c: -results[c.full][2])[:5]
    print("\nslowest: " + ", ".join("%s %.1fs" % (c.full, results[c.full][2]) for c in slow))

    status = 0
    regressed = sorted(c.full for c in failed if c.full in listed_set)
    if args.check or args.update:
        if stale:
            print("passing list names %d cases not in the data: %s" % (len(stale), " ".join(stale[:10])))
        ran_listed = sum(1 for c in runnable if c.full in listed_set)
        print("passing list: %d cases, %d run, %d regressed" % (len(listed), ran_listed, len(regressed)))
        for n in regressed:
            print("  REGRESSED: %s: %s" % (n, results[n][1]))
        if regressed:
            status = 1
    if args.update:
        new = sorted(set(listed) | {c.full for c in passed})
        write_list(args.passing, new)
        print("updated %s: %d cases (%d new)" % (args.passing, len(new), len(new) - len(listed_set)))
    if args.list_passing:
        write_list(args.list_passing, [c.full for c in passed])
    print("time %.0fs with %d jobs" % (time.time() - t_start, args.jobs))
    print("%d passed, %d failed" % (len(passed), len(failed)))
    sys.exit(status)


if __name__ == "__main__":
    main()
