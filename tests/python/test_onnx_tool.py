#!/usr/bin/env python3
"""End-to-end tests of the ONNX frontend through the rlx tool: small models built with
onnx.helper are imported (`rlx print`), run (`rlx run MODEL.onnx -i in.pb -o OUT`) and
compiled (`rlx compile` then `rlx run model.so`); outputs (TensorProto .pb, or .npy with
--format npy) are compared with numpy (max abs error / max(1, |ref|) <= 1e-5). Shape
subgraphs (Shape → Gather → Concat → Reshape) must fold at import time; dim_params are
symbolic and one compiled model runs on several sizes. Bad input (truncated or random
model bytes, unknown ops, missing / misshapen / mistyped inputs, corrupted .pb) gives one
message `rlx: error: ...` and exit status 1, never a crash. A few cases of the ONNX backend
test data are run as a smoke test."""
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
rng = np.random.default_rng(7)
TESTDATA = "/usr/share/libonnx-testdata/data/node"


def path(name):
    return os.path.join(tool.tmp, name)


def save_pb(name, arr):
    with open(path(name), "wb") as f:
        f.write(nh.from_array(arr).SerializeToString())
    return path(name)


def load_pb(p):
    return nh.to_array(onnx.load_tensor(p))


def save_model(name, nodes, inputs, outputs, inits=(), opset=13):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    onnx.save(m, path(name + ".onnx"))
    return path(name + ".onnx")


def close(out, ref, what, tol=1e-5):
    ref = np.asarray(ref)
    if out.dtype != ref.dtype or out.shape != ref.shape:
        return check(False, "%s: got %s %s, expected %s %s" % (what, out.dtype, out.shape, ref.dtype, ref.shape))
    if ref.dtype == np.bool_ or np.issubdtype(ref.dtype, np.integer):
        return check(np.array_equal(out, ref), "%s: integer outputs differ" % what)
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    err = float(np.max(np.abs(out.astype(np.float64) - ref))) / scale if ref.size else 0.0
    print("%s: max abs error / scale = %.3g" % (what, err))
    return check(err <= tol, "%s: error %.3g" % (what, err))


def ok(*args):
    rc, out, err = tool.run(*args)
    check(rc == 0, "rlx %s failed (%d): %s" % (" ".join(map(str, args)), rc, err))
    return rc == 0, out


def fails(args, needles, what):
    rc, out, err = tool.run(*args)
    good = rc == 1 and err.startswith("rlx: error:") and all(n in err for n in needles) and err.count("\n") == 1
    check(good, "%s: rc=%d stderr=%r, wanted %r" % (what, rc, err, needles))
    if good:
        print("%s: %s" % (what, err.strip()))


def run_model(model, inputs, outdir, *extra):
    """Runs model on the arrays (written as .pb); returns the outputs or None."""
    files = []
    for i, a in enumerate(inputs):
        files += ["-i", save_pb("%s_in%d.pb" % (outdir, i), a)]
    good, _ = ok("run", model, *files, "-o", path(outdir), *extra)
    if not good:
        return None
    outs = []
    k = 0
    while os.path.exists(path("%s/output_%d.pb" % (outdir, k))):
        outs.append(load_pb(path("%s/output_%d.pb" % (outdir, k))))
        k += 1
    return outs


# --- MatMul/Add/Relu with a Shape → Gather → Concat → Reshape subgraph ---------------------
W = rng.standard_normal((4, 5)).astype(np.float32)
B = rng.standard_normal((5,)).astype(np.float32)
chain = save_model(
    "chain",
    [h.make_node("MatMul", ["x", "W"], ["m"], name="mm"),
     h.make_node("Add", ["m", "B"], ["a"], name="add"),
     h.make_node("Relu", ["a"], ["r"], name="relu"),
     h.make_node("Shape", ["r"], ["s"], name="shape"),
     h.make_node("Gather", ["s", "i0"], ["s0"], name="gather", axis=0),
     h.make_node("Concat", ["s0", "minus1"], ["target"], name="concat", axis=0),
     h.make_node("Reshape", ["r", "target"], ["y"], name="reshape")],
    [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 15])],
    [nh.from_array(W, "W"), nh.from_array(B, "B"), nh.from_array(np.array([0], np.int64), "i0"),
     nh.from_array(np.array([-1], np.int64), "minus1")])
good, text = ok("print", chain)
if good:
    m = re.search(r"R\.reshape\(\w+, (R\.shape\(\[2, (-1|15)\]\))\)", text)
    check(m is not None, "reshape target is not static:\n" + text)
    check(m is not None and "shape" not in text.replace(m.group(1), "").replace("R.reshape(", "") and "concat" not in text and "take" not in text,
          "the shape subgraph was not folded away:\n" + text)
    check("def main(x: R.Tensor((2, 3, 4), dtype=\"float32\")) -> R.Tensor((2, 15), dtype=\"float32\")" in text,
          "main's signature:\n" + text)
good, text = ok("print", chain, "--after", "legalize_ops")
check(good and "R.call_tir(" in text and "R.matmul" not in text, "--after legalize_ops on an ONNX model:\n" + text)
x = rng.standard_normal((2, 3, 4)).astype(np.float32)
ref = np.maximum(x.astype(np.float64) @ W + B, 0).reshape(2, 15)
outs = run_model(chain, [x], "chain")
if outs is not None:
    check(len(outs) == 1, "chain: %d outputs" % len(outs))
    close(outs[0], ref.astype(np.float32), "chain (run .onnx, .pb out)")
# .npy inputs and --format npy
np.save(path("x.npy"), x)
if ok("run", chain, "-i", path("x.npy"), "-o", path("chain_npy"), "--format", "npy")[0]:
    close(np.load(path("chain_npy/output_0.npy")), ref.astype(np.float32), "chain (.npy in, --format npy)")
# compiled once, run from the shared object
if ok("compile", chain, "-o", path("chain.so"))[0]:
    outs = run_model(path("chain.so"), [x], "chain_so")
    if outs is not None:
        close(outs[0], ref.astype(np.float32), "chain (compiled .so)")

good, text = ok("bench", chain, "-i", path("chain_in0.pb"), "--repeat", "3")
check(good and re.search(r"median_ms=[0-9.]+", text) is not None, "bench on an ONNX model: " + text)

# --- dim_param: one compiled model, two batch sizes -------------------------------------
W2 = rng.standard_normal((6, 3)).astype(np.float32)
dyn = save_model(
    "dyn",
    [h.make_node("MatMul", ["x", "W"], ["m"], name="mm"),
     h.make_node("Relu", ["m"], ["r"], name="relu"),
     h.make_node("Add", ["r", "z"], ["y"], name="add")],
    [h.make_tensor_value_info("x", T.FLOAT, ["batch", 6]), h.make_tensor_value_info("z", T.FLOAT, ["batch", 3])],
    [h.make_tensor_value_info("y", T.FLOAT, ["batch", 3])],
    [nh.from_array(W2, "W")])
good, text = ok("print", dyn)
check(good and 'x: R.Tensor(("batch", 6), dtype="float32"), z: R.Tensor(("batch", 3), dtype="float32")' in text,
      "dim_param batch is not one shared symbolic var:\n" + text)
if ok("compile", dyn, "-o", path("dyn.so"))[0]:
    for n in (2, 7):
        x = rng.standard_normal((n, 6)).astype(np.float32)
        z = rng.standard_normal((n, 3)).astype(np.float32)
        outs = run_model(path("dyn.so"), [x, z], "dyn%d" % n)
        if outs is not None:
            close(outs[0], (np.maximum(x.astype(np.float64) @ W2, 0) + z).astype(np.float32), "dim_param batch=%d" % n)
    fails(["run", path("dyn.so"), "-i", save_pb("dx.pb", np.zeros((2, 6), np.float32)),
           "-i", save_pb("dz.pb", np.zeros((3, 3), np.float32))], ["batch"], "inconsistent batch")

# --- initializers of several dtypes (raw_data and typed fields) ---------------------------
inits = []
nodes = []
ins = []
outs_vi = []
feeds = []
refs = []
cases = [(np.float32, T.FLOAT), (np.float64, T.DOUBLE), (np.int32, T.INT32), (np.int64, T.INT64)]
for k, (npt, et) in enumerate(cases):
    for raw in (True, False):
        nm = "%s_%s" % (np.dtype(npt).name, "raw" if raw else "typed")
        c = (rng.standard_normal((2, 3)) * 10).astype(npt)
        if raw:
            inits.append(nh.from_array(c, "c_" + nm))
        else:
            inits.append(h.make_tensor("c_" + nm, et, [2, 3], c.flatten().tolist()))
        ins.append(h.make_tensor_value_info("x_" + nm, et, [2, 3]))
        outs_vi.append(h.make_tensor_value_info("y_" + nm, et, [2, 3]))
        nodes.append(h.make_node("Add", ["x_" + nm, "c_" + nm], ["y_" + nm], name="add_" + nm))
        xv = (rng.standard_normal((2, 3)) * 10).astype(npt)
        feeds.append(xv)
        refs.append((xv + c).astype(npt))
# bool (int32_data) and float16 (int32_data bit patterns) feed Where / Cast
cond = np.array([[True, False, True], [False, True, True]])
half = rng.standard_normal((2, 3)).astype(np.float16)
inits.append(h.make_tensor("cond", T.BOOL, [2, 3], cond.flatten().tolist()))
inits.append(h.make_tensor("half", T.FLOAT16, [2, 3], half.flatten().tolist()))
inits.append(h.make_tensor("u8", T.UINT8, [3], [1, 200, 255]))
nodes += [h.make_node("Where", ["cond", "x_float32_raw", "c_float32_raw"], ["sel"], name="where"),
          h.make_node("Cast", ["half"], ["half32"], name="cast_half", to=T.FLOAT),
          h.make_node("Cast", ["u8"], ["u8_64"], name="cast_u8", to=T.INT64)]
outs_vi += [h.make_tensor_value_info("sel", T.FLOAT, [2, 3]), h.make_tensor_value_info("half32", T.FLOAT, [2, 3]),
            h.make_tensor_value_info("u8_64", T.INT64, [3])]
c32 = [i for i in inits if i.name == "c_float32_raw"][0]
refs += [np.where(cond, feeds[0], nh.to_array(c32)), half.astype(np.float32), np.array([1, 200, 255], np.int64)]
dtypes = save_model("dtypes", nodes, ins, outs_vi, inits)
got = run_model(dtypes, feeds, "dtypes")
if got is not None and check(len(got) == len(refs), "dtypes: %d outputs" % len(got)):
    names = [o.name for o in outs_vi]
    for g_, r_, nm in zip(got, refs, names):
        close(g_, r_, "initializer dtype " + nm)

# --- core converters: Constant (value, value_floats, value_int), Identity, Dropout with mask -
core = save_model(
    "core",
    [h.make_node("Constant", [], ["k"], name="k", value=nh.from_array(np.array([[1.5, -2, 3]], np.float32))),
     h.make_node("Constant", [], ["kf"], name="kf", value_floats=[0.5, 0.25, 2.0]),
     h.make_node("Constant", [], ["ki"], name="ki", value_int=7),
     h.make_node("Mul", ["k", "kf"], ["kk"], name="fold_me"),
     h.make_node("Add", ["x", "kk"], ["s"], name="add"),
     h.make_node("Identity", ["s"], ["t"], name="id"),
     h.make_node("Dropout", ["t", "ratio"], ["y", "mask"], name="drop")],
    [h.make_tensor_value_info("x", T.FLOAT, ["n", 3])],
    [h.make_tensor_value_info("y", T.FLOAT, ["n", 3]), h.make_tensor_value_info("mask", T.BOOL, ["n", 3]),
     h.make_tensor_value_info("ki", T.INT64, [])],
    [nh.from_array(np.array(0.3, np.float32), "ratio")])
good, text = ok("print", core)
check(good and "R.multiply" not in text and 'metadata["relax.expr.Constant"][0]' in text,
      "Constant * Constant was not folded:\n" + text)
x = rng.standard_normal((4, 3)).astype(np.float32)
got = run_model(core, [x], "core")
if got is not None and check(len(got) == 3, "core: %d outputs" % len(got)):
    close(got[0], (x + np.array([[0.75, -0.5, 6]], np.float32)), "Constant/Identity/Dropout output")
    close(got[1], np.ones((4, 3), np.bool_), "Dropout mask")
    close(got[2], np.array(7, np.int64), "Constant value_int")
# Shape of a symbolic tensor (start/end of opset 15) is computed at run time
shp = save_model("shape15", [h.make_node("Shape", ["x"], ["s"], name="shape", start=-2)],
                 [h.make_tensor_value_info("x", T.FLOAT, [2, "n", 5])], [h.make_tensor_value_info("s", T.INT64, [2])],
                 opset=15)
got = run_model(shp, [np.zeros((2, 9, 5), np.float32)], "shape15")
if got is not None:
    close(got[0], np.array([9, 5], np.int64), "Shape start=-2 of a symbolic tensor")
# opset 7 style: initializers listed as graph inputs too are constants, not params
g = h.make_graph([h.make_node("Add", ["x", "c"], ["y"], name="add")], "old",
                 [h.make_tensor_value_info("x", T.FLOAT, [3]), h.make_tensor_value_info("c", T.FLOAT, [3])],
                 [h.make_tensor_value_info("y", T.FLOAT, [3])], initializer=[nh.from_array(np.ones(3, np.float32), "c")])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 7)]), path("old.onnx"))
good, text = ok("print", path("old.onnx"))
check(good and "def main(x: R.Tensor((3,), dtype=\"float32\"))" in text, "initializer listed as input became a param:\n" + text)

# ReduceMean-18 takes its axes as an input (the converter follows the model's opset): computed
# right, or reported unsupported
g = h.make_graph([h.make_node("ReduceMean", ["x", "axes"], ["y"], name="mean18", keepdims=0)], "r18",
                 [h.make_tensor_value_info("x", T.FLOAT, [2, 3])], [h.make_tensor_value_info("y", T.FLOAT, [2])],
                 initializer=[nh.from_array(np.array([1], np.int64), "axes")])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]), path("mean18.onnx"))
xm = rng.standard_normal((2, 3)).astype(np.float32)
rc, _, err = tool.run("run", path("mean18.onnx"), "-i", save_pb("xm.pb", xm), "-o", path("mean18"))
if rc == 0:
    close(load_pb(path("mean18/output_0.pb")), xm.mean(axis=1), "ReduceMean-18 with an axes input")
else:
    check(rc == 1 and "'mean18' (ReduceMean, opset 18)" in err, "ReduceMean-18: rc=%d %s" % (rc, err))

# --- bad input -------------------------------------------------------------------------------
data = open(chain, "rb").read()
with open(path("trunc.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
fails(["run", path("trunc.onnx"), "-i", path("chain_in0.pb")], ["trunc.onnx", "truncated"], "truncated model")
with open(path("random.onnx"), "wb") as f:
    f.write(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
fails(["print", path("random.onnx")], ["random.onnx", "not a valid ONNX model"], "random bytes")
for cut in range(1, len(data), max(1, len(data) // 97)):  # every prefix: an error, never a crash
    with open(path("cut.onnx"), "wb") as f:
        f.write(data[:cut])
    rc, _, err = tool.run("print", path("cut.onnx"))
    if not check(rc in (0, 1) and (rc == 0 or err.startswith("rlx: error:")), "prefix %d: rc=%d %s" % (cut, rc, err)):
        break
# onnx.checker rejects unknown ops, so this model is saved without checking
g = h.make_graph([h.make_node("Relu", ["x"], ["r"], name="relu"),
                  h.make_node("FrobnicateA", ["r"], ["f"], name="frob_a"),
                  h.make_node("FrobnicateB", ["f"], ["y"], name="frob_b")], "unknown",
                 [h.make_tensor_value_info("x", T.FLOAT, [3])], [h.make_tensor_value_info("y", T.FLOAT, [3])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path("unknown.onnx"))
fails(["print", path("unknown.onnx")],
      ["unknown.onnx", "unsupported ONNX ops", "'frob_a' (FrobnicateA, opset 13)", "'frob_b' (FrobnicateB, opset 13)"],
      "two unknown ops")
fails(["compile", path("unknown.onnx"), "-o", path("u.so")], ["frob_a", "frob_b"], "two unknown ops (compile)")
fails(["run", chain], ["takes 1 inputs, got 0"], "missing input")
fails(["run", chain, "-i", save_pb("bad_shape.pb", np.zeros((2, 3, 5), np.float32))], ["x", "(2, 3, 5)"],
      "wrong input shape")
fails(["run", chain, "-i", save_pb("bad_dtype.pb", np.zeros((2, 3, 4), np.float64))], ["x", "float64"],
      "wrong input dtype")
pb = open(path("chain_in0.pb"), "rb").read()
with open(path("corrupt.pb"), "wb") as f:
    f.write(pb[: len(pb) - 7])
fails(["run", chain, "-i", path("corrupt.pb")], ["corrupt.pb"], "corrupted .pb")
with open(path("garbage.pb"), "wb") as f:
    f.write(b"\xff" * 64)
fails(["run", chain, "-i", path("garbage.pb")], ["garbage.pb", "TensorProto"], "garbage .pb")
g = h.make_graph([h.make_node("Relu", ["nope"], ["y"], name="relu")], "undef",
                 [h.make_tensor_value_info("x", T.FLOAT, [3])], [h.make_tensor_value_info("y", T.FLOAT, [3])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path("undef.onnx"))
fails(["print", path("undef.onnx")], ["'relu' (Relu)", "'nope' is not defined"], "undefined node input")
g = h.make_graph([h.make_node("Add", ["x", "c"], ["y"], name="add_mixed")], "mixed",
                 [h.make_tensor_value_info("x", T.FLOAT, [3])], [h.make_tensor_value_info("y", T.FLOAT, [3])],
                 initializer=[nh.from_array(np.ones(3, np.int64), "c")])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path("mixed.onnx"))
fails(["print", path("mixed.onnx")], ["mixed.onnx", "'add_mixed' (Add)"], "dtype mismatch names the node")
ext = onnx.load(chain)
ext.graph.initializer[0].data_location = T.EXTERNAL
ext.graph.initializer[0].external_data.add(key="location", value="weights.bin")
onnx.save(ext, path("ext.onnx"))
fails(["print", path("ext.onnx")], ["initializer 'W'", "external"], "external data")

# --- ONNX backend test cases (smoke) ----------------------------------------------------------
for case in ("test_add", "test_relu", "test_matmul_2d", "test_identity", "test_shape", "test_dropout_default_mask"):
    d = os.path.join(TESTDATA, case)
    if not os.path.isdir(d):
        continue
    ds = os.path.join(d, "test_data_set_0")
    n_in = len([f for f in os.listdir(ds) if f.startswith("input_")])
    args = sum((["-i", os.path.join(ds, "input_%d.pb" % i)] for i in range(n_in)), [])
    if ok("run", os.path.join(d, "model.onnx"), *args, "-o", path(case))[0]:
        k = 0
        while os.path.exists(os.path.join(ds, "output_%d.pb" % k)):
            ref = load_pb(os.path.join(ds, "output_%d.pb" % k))
            close(load_pb(path("%s/output_%d.pb" % (case, k))), ref, "%s output %d" % (case, k))
            k += 1

# a Reshape whose shape is a graph input runs as given (the shape is read at run time), and
# --bind makes that input a constant
d = os.path.join(TESTDATA, "test_reshape_reordered_all_dims")
if os.path.isdir(d):
    ds = os.path.join(d, "test_data_set_0")
    model = os.path.join(d, "model.onnx")
    if ok("run", model, "-i", os.path.join(ds, "input_0.pb"), "-i", os.path.join(ds, "input_1.pb"), "-o",
          path("unbound"))[0]:
        close(load_pb(path("unbound/output_0.pb")), load_pb(os.path.join(ds, "output_0.pb")), "Reshape, run-time shape")
    bind = "shape=" + os.path.join(ds, "input_1.pb")
    if ok("run", model, "--bind", bind, "-i", os.path.join(ds, "input_0.pb"), "-o", path("bound"))[0]:
        close(load_pb(path("bound/output_0.pb")), load_pb(os.path.join(ds, "output_0.pb")), "Reshape with --bind shape")
    fails(["print", model, "--bind", "nope=" + os.path.join(ds, "input_1.pb")], ["bound input 'nope' is not a graph input"],
          "--bind of an unknown input")
    fails(["print", model, "--bind", "shape=" + os.path.join(ds, "input_0.pb")], ["bound input 'shape': expected dtype int64"],
          "--bind of a wrong dtype")

# constant folding beyond the interpreter: a MatMul of two constant 512x512 @ 512x256 (67M
# multiply-adds, twice the interpreter's limit) is folded by compiled code, so the compiled
# model only adds it
rng = np.random.default_rng(11)
fa = rng.standard_normal((512, 512)).astype(np.float32)
fb = rng.standard_normal((512, 256)).astype(np.float32)
fx = rng.standard_normal((512, 256)).astype(np.float32)
fold = save_model("fold", [h.make_node("MatMul", ["A", "B"], ["C"]), h.make_node("Add", ["x", "C"], ["y"])],
                  [h.make_tensor_value_info("x", T.FLOAT, [512, 256])],
                  [h.make_tensor_value_info("y", T.FLOAT, [512, 256])], [nh.from_array(fa, "A"), nh.from_array(fb, "B")])
good, printed = ok("print", fold, "--after", "fold_constants")
if good:
    calls = re.findall(r"R\.call_tir\(cls\.(\w+)", printed)
    check(calls == ["add"], "the constant MatMul is folded, only the add is left: %s" % calls)
outs = run_model(fold, [fx], "fold")
if outs is not None:
    close(outs[0], (fx + fa.astype(np.float64) @ fb).astype(np.float32), "compiled fold of a large constant MatMul")

finish()
