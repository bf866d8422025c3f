"""rlx.topi's index and shape functions (split, strided_slice, take, nn.pad, tile, flip,
cumsum) under TVM's names and argument conventions: each built with create_prim_func and run
against numpy (exact for data movement; cumsum of float32 to rtol 1e-5), split also through
BlockBuilder.emit_te, relax.build and the VM, and the C errors for bad arguments.

Oracle for the printed form: TVM's text in test_tvm_forms.TVM_SPLIT_DENSE."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te, topi
from rlx.script import relax as R

from test_tvm_forms import TVM_SPLIT_DENSE


def run(inputs, outputs, arrays):
    """Builds a PrimFunc over inputs + outputs, runs it on arrays, returns the outputs."""
    outputs = outputs if isinstance(outputs, list) else [outputs]
    mod = tvm.build(te.create_prim_func(list(inputs) + outputs))
    outs = [tvm.nd.empty([int(d) for d in o.shape], o.dtype) for o in outputs]
    mod["main"](*[tvm.nd.array(a) for a in arrays], *outs)
    return [o.numpy() for o in outs]


def rand(*shape):
    return np.random.randn(*shape).astype("float32")


# ---------------------------------------------------------------- split
@pytest.mark.parametrize("ios, axis", [(3, 0), ([1, 4], 0), (2, 1), ([2], -1), (1, 1)])
def test_split_sections_and_indices(ios, axis):
    A = te.placeholder((6, 4), name="A")
    outs = topi.split(A, ios, axis=axis)
    assert isinstance(outs, list) and all(isinstance(t, te.Tensor) for t in outs)
    a = rand(6, 4)
    ref = np.split(a, ios, axis=axis)
    assert len(outs) == len(ref)
    for got, want in zip(run([A], outs, [a]), ref):
        np.testing.assert_array_equal(got, want)


def test_split_through_emit_te_prints_tvm_text_and_runs_on_the_vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((1, 30), "float32"))
    w = relax.Var("w", R.Tensor((10, 10), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit_te(topi.split, x, 3, axis=1)
            lv1 = bb.emit(lv[0])
            gv = bb.emit_output(bb.call_te(topi.nn.dense, lv1, w))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert mod.script() == TVM_SPLIT_DENSE
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    a, b = rand(1, 30), rand(10, 10)
    np.testing.assert_allclose(vm["main"](a, b).numpy(), a[:, :10] @ b.T, rtol=1e-5, atol=1e-5)


def test_split_tuple_comes_back_from_the_vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 7), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(bb.emit_te(topi.split, x, [2, 5], 1))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())
    a = rand(4, 7)
    got = vm["main"](a)
    assert isinstance(got, tuple) and len(got) == 3
    for g, want in zip(got, np.split(a, [2, 5], axis=1)):
        np.testing.assert_array_equal(g.numpy(), want)


# ---------------------------------------------------------------- strided_slice
@pytest.mark.parametrize("kw, ref", [
    (dict(begin=[1, 0], end=[5, 4], strides=[2, 1]), lambda a: a[1:5:2, 0:4]),
    (dict(begin=[5], end=[-7], strides=[-2]), lambda a: a[5::-2]),
    (dict(begin=[-3, 1], end=[100, 3]), lambda a: a[-3:, 1:3]),
    (dict(begin=[1], end=[3], axes=[1]), lambda a: a[:, 1:3]),
    (dict(begin=[2, 1], end=[1, 2], strides=[1, 1], axes=[1, 0]), lambda a: a[1:2, 2:1]),
    (dict(begin=[1, 1], end=[2, -1], slice_mode="size"), lambda a: a[1:3, 1:]),
])
def test_strided_slice(kw, ref):
    A = te.placeholder((6, 5), name="A")
    B = topi.strided_slice(A, **kw)
    a = rand(6, 5)
    want = ref(a)
    assert [int(d) for d in B.shape] == list(want.shape)
    if want.size:
        np.testing.assert_array_equal(run([A], B, [a])[0], want)


def test_strided_slice_positional_order_is_tvms():
    A = te.placeholder((6, 5), name="A")
    B = topi.strided_slice(A, [0, 1], [6, 5], [3, 2])  # a, begin, end, strides
    a = rand(6, 5)
    np.testing.assert_array_equal(run([A], B, [a])[0], a[0:6:3, 1:5:2])


# ---------------------------------------------------------------- take
@pytest.mark.parametrize("axis, mode, idx", [
    (None, "clip", [[0, 5], [11, 30]]),
    (1, "clip", [3, -2, 0, 9]),
    (0, "wrap", [-1, 4, 2]),
    (1, "fast", [[2, 1], [0, 3]]),
])
def test_take(axis, mode, idx):
    A = te.placeholder((3, 4), name="A")
    idx = np.array(idx, dtype="int64")
    I = te.placeholder(idx.shape, name="I", dtype="int64")
    B = topi.take(A, I, axis=axis, mode=mode)
    a = rand(3, 4)
    want = np.take(a, idx, axis=axis, mode="raise" if mode == "fast" else mode)
    np.testing.assert_array_equal(run([A, I], B, [a, idx])[0], want)


# ---------------------------------------------------------------- nn.pad, tile, flip, cumsum
def test_nn_pad():
    A = te.placeholder((2, 3), name="A")
    a = rand(2, 3)
    B = topi.nn.pad(A, [1, 2], [0, 1], pad_value=1.5)
    assert B.op.name == "PadInput"
    np.testing.assert_array_equal(run([A], B, [a])[0], np.pad(a, [(1, 0), (2, 1)], constant_values=1.5))
    C = topi.nn.pad(A, [1, 1])  # pad_after defaults to pad_before, pad_value to 0
    np.testing.assert_array_equal(run([A], C, [a])[0], np.pad(a, 1))
    D = topi.nn.pad(A, [0, 0], name="P")  # no padding still computes a copy
    assert D.op.name == "P"
    np.testing.assert_array_equal(run([A], D, [a])[0], a)


def test_nn_pad_int_and_expr_value():
    A = te.placeholder((3,), name="A", dtype="int32")
    a = np.array([1, 2, 3], dtype="int32")
    B = topi.nn.pad(A, [2], [1], pad_value=tvm.tir.const(7, "int32"))
    np.testing.assert_array_equal(run([A], B, [a])[0], [7, 7, 1, 2, 3, 7])


@pytest.mark.parametrize("reps", [[2, 3], [2], [2, 1, 2]])
def test_tile(reps):
    A = te.placeholder((2, 3), name="A")
    a = rand(2, 3)
    np.testing.assert_array_equal(run([A], topi.tile(A, reps), [a])[0], np.tile(a, reps))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_flip(axis):
    A = te.placeholder((3, 4), name="A")
    a = rand(3, 4)
    np.testing.assert_array_equal(run([A], topi.flip(A, axis), [a])[0], np.flip(a, axis))
    if axis == 0:
        np.testing.assert_array_equal(run([A], topi.flip(A), [a])[0], np.flip(a, 0))  # default axis=0


def test_cumsum():
    A = te.placeholder((3, 4), name="A")
    a = rand(3, 4)
    np.testing.assert_allclose(run([A], topi.cumsum(A), [a])[0], np.cumsum(a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run([A], topi.cumsum(A, axis=1), [a])[0], np.cumsum(a, 1), rtol=1e-5, atol=1e-6)
    ex = run([A], topi.cumsum(A, 0, None, True), [a])[0]
    np.testing.assert_allclose(ex, np.cumsum(a, 0) - a, rtol=1e-5, atol=1e-6)
    I = te.placeholder((5,), name="I", dtype="int32")
    i = np.array([1, 2, 3, 4, 2 ** 30], dtype="int32")
    C = topi.cumsum(I, axis=0, dtype="int64")
    assert C.dtype == "int64"
    np.testing.assert_array_equal(run([I], C, [i])[0], np.cumsum(i.astype("int64")))


def test_new_functions_in_emit_te_run_on_the_vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 6), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.strided_slice, x, [0, 1], [4, 5], [2, 1])
            b = bb.emit_te(topi.flip, a, axis=1)
            c = bb.emit_te(topi.nn.pad, b, [1, 0], [0, 2], 0.5)
            d = bb.emit_te(topi.tile, c, [1, 2])
            gv = bb.emit_output(bb.emit_te(topi.cumsum, d, axis=1))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())
    x_np = rand(4, 6)
    want = np.cumsum(np.tile(np.pad(np.flip(x_np[0:4:2, 1:5], 1), [(1, 0), (0, 2)], constant_values=0.5), [1, 2]), 1)
    np.testing.assert_allclose(vm["main"](x_np).numpy(), want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- errors carry the C message
@pytest.mark.parametrize("call, msg", [
    (lambda A, I: topi.split(A, 0), "topi.split: 0 sections (must be 1 to 4)"),
    (lambda A, I: topi.split(A, 2, axis=3), "topi.split: axis 3 is out of range for rank 2"),
    (lambda A, I: topi.split(A, "x"), "indices_or_sections must be an int or a list of ints"),
    (lambda A, I: topi.strided_slice(A, [0, 0], [1]), None),
    (lambda A, I: topi.strided_slice(A, [0], [1], axes=[0, 1]), "must have the same length"),
    (lambda A, I: topi.strided_slice(A, [0], [1], slice_mode="step"), "slice_mode 'step' is not 'end' or 'size'"),
    (lambda A, I: topi.strided_slice(A, [0], [2], [0]), "topi.strided_slice: stride 0 on axis 0"),
    (lambda A, I: topi.take(A, I, mode="nearest"), "topi.take: mode 'nearest' is not fast, clip or wrap"),
    (lambda A, I: topi.take(A, I, batch_dims=1), "topi.take: batch_dims other than 0 is not supported"),
    (lambda A, I: topi.take(A, A), "topi.take: indices must be int32 or int64, got float32"),
    (lambda A, I: topi.nn.pad(A, [1]), "topi.nn.pad: pad_before and pad_after must have one entry per dimension"),
    (lambda A, I: topi.nn.pad(A, [1, -1]), "topi.nn.pad: padding must be >= 0"),
    (lambda A, I: topi.tile(A, [-1, 2]), "topi.tile: negative repeat count -1"),
    (lambda A, I: topi.flip(A, 2), "topi.flip: axis 2 is out of range for rank 2"),
    (lambda A, I: topi.cumsum(A, axis=-3), "topi.cumsum: axis -3 is out of range for rank 2"),
    (lambda A, I: topi.split(A, 5), "topi.split: 5 sections (must be 1 to 4)"),
    (lambda A, I: topi.strided_slice(A, [2 ** 62], [-2 ** 63], [-2 ** 63]), "topi.strided_slice: a stride is out of range"),
    (lambda A, I: topi.nn.pad(A, [2 ** 31 - 8, 0]), "topi.nn.pad: padding is out of range"),
    (lambda A, I: topi.tile(A, [2 ** 20, 1]), "topi.tile: a repeat count is out of range"),
])
def test_bad_arguments_raise_the_c_message(call, msg):
    A = te.placeholder((4, 6), name="A")
    I = te.placeholder((2,), name="I", dtype="int64")
    if msg is None:  # a short end is fine (the rest runs to the end of the dim)
        assert [int(d) for d in call(A, I).shape] == [1, 6]
        return
    with pytest.raises(tvm.RLXError) as e:
        call(A, I)
    assert msg in str(e.value)


def test_python_side_argument_errors():
    A = te.placeholder((4, 6), name="A")
    with pytest.raises(TypeError, match="missing argument 'indices_or_sections'"):
        topi.split(A)
    with pytest.raises(TypeError, match="unexpected argument 'sections'"):
        topi.split(A, 2, sections=2)
    with pytest.raises(TypeError, match="indices must be a te.Tensor"):
        topi.take(A, [1, 2])
