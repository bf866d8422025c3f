"""rlx.topi's other functions the C library implements, under TVM's names and parameters:
topi.nn convolutions (1-3-D, grouped, depthwise, transposed), pools (plain, adaptive, global),
layer/rms/group/batch norm, matmul/nn.matmul/nn.batch_matmul, nn.flatten, nn.mirror_pad, and
gather, arange, trilu, one_hot, scatter_elements, full, full_like.

Oracles: numpy; torch.nn.functional (float64, CPU) for convolutions and pools. Tolerance:
float32 results to rtol 1e-4, atol 1e-4 (reductions over up to 27 * 4 products); index and
creation functions exact."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te, topi
from rlx.script import relax as R

from test_topi_transform import rand, run

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-4, atol=1e-4)


def ph(shape, name, dtype="float32"):
    return te.placeholder(shape, name=name, dtype=dtype)


def t64(a):
    return torch.from_numpy(a.astype("float64"))


# ---------------------------------------------------------------- convolutions
@pytest.mark.parametrize("make, ref, dshape, kshape", [
    (lambda d, k: topi.nn.conv1d_ncw(d, k, 2, 1, 1), lambda x, w: F.conv1d(x, w, stride=2, padding=1),
     (2, 3, 9), (4, 3, 3)),
    (lambda d, k: topi.nn.conv1d_ncw(d, k), lambda x, w: F.conv1d(x, w), (1, 2, 7), (3, 2, 2)),  # VALID default
    (lambda d, k: topi.nn.conv2d(d, k, 1, "SAME", 1), lambda x, w: F.conv2d(x, w, padding=1),
     (1, 3, 6, 6), (4, 3, 3, 3)),
    (lambda d, k: topi.nn.conv2d_nchw(d, k, 2, [1, 2], 1), lambda x, w: F.conv2d(x, w, stride=2, padding=(1, 2)),
     (1, 3, 7, 6), (4, 3, 3, 3)),
    (lambda d, k: topi.nn.conv2d_nchw(d, k, 1, "VALID", 2), lambda x, w: F.conv2d(x, w, dilation=2),
     (1, 2, 7, 7), (2, 2, 3, 3)),
    (lambda d, k: topi.nn.conv2d(d, k, [2, 1], [1, 0, 0, 2], [1, 2]),
     lambda x, w: F.conv2d(F.pad(x, (0, 2, 1, 0)), w, stride=(2, 1), dilation=(1, 2)), (1, 2, 7, 8), (3, 2, 3, 2)),
    (lambda d, k: topi.nn.group_conv2d_nchw(d, k, 1, 1, 1, 2), lambda x, w: F.conv2d(x, w, padding=1, groups=2),
     (1, 4, 5, 5), (6, 2, 3, 3)),
    (lambda d, k: topi.nn.depthwise_conv2d_nchw(d, k, 1, 1, 1),
     lambda x, w: F.conv2d(x, w.reshape(6, 1, 3, 3), padding=1, groups=3), (1, 3, 5, 5), (3, 2, 3, 3)),
    (lambda d, k: topi.nn.conv3d_ncdhw(d, k, 1, 0, 1, 1), lambda x, w: F.conv3d(x, w), (1, 2, 4, 4, 4),
     (3, 2, 2, 2, 2)),
    (lambda d, k: topi.nn.conv1d_transpose_ncw(d, k, 2, 1, "float32", 1),
     lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1), (1, 3, 5), (3, 2, 3)),
    (lambda d, k: topi.nn.conv2d_transpose_nchw(d, k, 2, 1, "float32", 0),
     lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1), (1, 3, 4, 4), (3, 2, 3, 3)),
    (lambda d, k: topi.nn.group_conv2d_transpose_nchw(d, k, 1, 0, "float32", 0, 2),
     lambda x, w: F.conv_transpose2d(x, w, groups=2), (1, 4, 3, 3), (4, 1, 2, 2)),
    (lambda d, k: topi.nn.conv3d_transpose_ncdhw(d, k, 1, 0, "float32", 0),
     lambda x, w: F.conv_transpose3d(x, w), (1, 2, 3, 3, 3), (2, 2, 2, 2, 2)),
])
def test_convolutions_against_torch(make, ref, dshape, kshape):
    d, k = ph(dshape, "data"), ph(kshape, "kernel")
    x, w = rand(*dshape), rand(*kshape)
    out = make(d, k)
    want = ref(t64(x), t64(w)).numpy()
    assert [int(s) for s in out.shape] == list(want.shape)
    np.testing.assert_allclose(run([d, k], out, [x, w])[0], want, **TOL)


# ---------------------------------------------------------------- pools
@pytest.mark.parametrize("make, ref, shape", [
    (lambda d: topi.nn.pool1d(d, 3, 2, 1, 1, "max"), lambda x: F.max_pool1d(x, 3, 2, 1), (1, 2, 9)),
    (lambda d: topi.nn.pool2d(d, [2, 2], [2, 2], [1, 1], [0, 0, 0, 0], "avg"), lambda x: F.avg_pool2d(x, 2, 2),
     (1, 3, 6, 6)),
    (lambda d: topi.nn.pool2d(d, 3, 2, 1, 1, "avg", True, "NCHW", False),
     lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 6, 6)),
    (lambda d: topi.nn.pool3d(d, 2, 1, 1, 0, "max"), lambda x: F.max_pool3d(x, 2, 1), (1, 2, 3, 4, 4)),
    (lambda d: topi.nn.adaptive_pool1d(d, 3, "avg"), lambda x: F.adaptive_avg_pool1d(x, 3), (1, 2, 7)),
    (lambda d: topi.nn.adaptive_pool(d, (2, 3), "max"), lambda x: F.adaptive_max_pool2d(x, (2, 3)), (1, 2, 5, 7)),
    (lambda d: topi.nn.adaptive_pool3d(d, 2, "avg"), lambda x: F.adaptive_avg_pool3d(x, 2), (1, 2, 4, 5, 3)),
    (lambda d: topi.nn.global_pool(d, "avg"), lambda x: F.adaptive_avg_pool2d(x, 1), (2, 3, 4, 5)),
    (lambda d: topi.nn.global_pool(d, "max", layout="NCHW"), lambda x: F.adaptive_max_pool2d(x, 1), (1, 3, 4, 4)),
])
def test_pools_against_torch(make, ref, shape):
    d = ph(shape, "data")
    x = rand(*shape)
    np.testing.assert_allclose(run([d], make(d), [x])[0], ref(t64(x)).numpy(), **TOL)


# ---------------------------------------------------------------- norms
def test_layer_rms_group_norm():
    x = rand(2, 4, 3, 3)
    d = ph(x.shape, "data")
    g, b = ph((3, 3), "g"), ph((3, 3), "b")
    gn, bn = rand(3, 3), rand(3, 3)
    mu, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    np.testing.assert_allclose(run([d, g, b], topi.nn.layer_norm(d, g, b, [2, 3], 1e-5), [x, gn, bn])[0],
                               (x - mu) / np.sqrt(var + 1e-5) * gn + bn, **TOL)
    ms = (x * x).mean(-1, keepdims=True)
    w = ph((3,), "w")
    wn = rand(3)
    np.testing.assert_allclose(run([d, w], topi.nn.rms_norm(d, w, [-1]), [x, wn])[0], x / np.sqrt(ms + 1e-5) * wn,
                               **TOL)
    gg, gb = ph((4,), "gamma"), ph((4,), "beta")
    ggn, gbn = rand(4), rand(4)
    xg = x.reshape(2, 2, 2, 3, 3)
    norm = ((xg - xg.mean((2, 3, 4), keepdims=True)) / np.sqrt(xg.var((2, 3, 4), keepdims=True) + 1e-5)).reshape(x.shape)
    want = norm * ggn[None, :, None, None] + gbn[None, :, None, None]
    np.testing.assert_allclose(run([d, gg, gb], topi.nn.group_norm(d, gg, gb, 2, 1, [2, 3]), [x, ggn, gbn])[0], want,
                               **TOL)


@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_returns_three_tensors(training):
    x = rand(2, 3, 4, 4)
    gn, bn, mn, vn = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    d = ph(x.shape, "data")
    ps = [ph((3,), n) for n in ("gamma", "beta", "mean", "var")]
    outs = topi.nn.batch_norm(d, *ps, axis=1, epsilon=1e-5, training=training, momentum=0.1)
    assert isinstance(outs, list) and len(outs) == 3
    got = run([d] + ps, outs, [x, gn, bn, mn, vn])
    c = (slice(None), None, None)
    if training:
        bm, bv = x.mean((0, 2, 3)), x.var((0, 2, 3))
        want = [(x - bm[c]) / np.sqrt(bv[c] + 1e-5) * gn[c] + bn[c], 0.9 * mn + 0.1 * bm, 0.9 * vn + 0.1 * bv]
    else:
        want = [(x - mn[c]) / np.sqrt(vn[c] + 1e-5) * gn[c] + bn[c], mn, vn]
    for g_, w_ in zip(got, want):
        np.testing.assert_allclose(g_, w_, **TOL)


def test_batch_norm_through_emit_te_on_the_vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((2, 3, 2, 2), "float32"))
    stats = [relax.Var(n, R.Tensor((3,), "float32")) for n in ("g", "b", "m", "v")]
    with bb.function("main", [x] + stats):
        with bb.dataflow():
            gv = bb.emit_output(bb.emit_te(topi.nn.batch_norm, x, *stats))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())
    xn, gn, bn, mn, vn = rand(2, 3, 2, 2), rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    out = vm["main"](xn, gn, bn, mn, vn)
    assert isinstance(out, tuple) and len(out) == 3
    c = (slice(None), None, None)
    np.testing.assert_allclose(out[0].numpy(), (xn - mn[c]) / np.sqrt(vn[c] + 1e-5) * gn[c] + bn[c], **TOL)
    np.testing.assert_array_equal(out[2].numpy(), vn)


# ---------------------------------------------------------------- matmuls, flatten, mirror_pad
def test_matmuls_and_flatten():
    a, b = rand(3, 4), rand(5, 4)
    A, B = ph(a.shape, "a"), ph(b.shape, "b")
    np.testing.assert_allclose(run([A, B], topi.matmul(A, B, False, True), [a, b])[0], a @ b.T, **TOL)
    At = ph((4, 3), "at")
    np.testing.assert_allclose(run([At, B], topi.matmul(At, B, transp_a=True, transp_b=True), [a.T.copy(), b])[0],
                               a @ b.T, **TOL)
    bias = rand(5)
    C = ph((5,), "bias")
    np.testing.assert_allclose(run([A, B, C], topi.nn.matmul(A, B, C, transpose_b=True), [a, b, bias])[0],
                               a @ b.T + bias, **TOL)
    x, y = rand(2, 3, 4), rand(2, 5, 4)
    X, Y = ph(x.shape, "x"), ph(y.shape, "y")
    np.testing.assert_allclose(run([X, Y], topi.nn.batch_matmul(X, Y), [x, y])[0], x @ y.transpose(0, 2, 1), **TOL)
    np.testing.assert_array_equal(run([X], topi.nn.flatten(X), [x])[0], x.reshape(2, 12))


def test_mirror_pad_reflect():
    a = rand(3, 4)
    A = ph(a.shape, "A")
    out = topi.nn.mirror_pad(A, [1, 2], [2, 1], mode="REFLECT")
    np.testing.assert_array_equal(run([A], out, [a])[0], np.pad(a, [(1, 2), (2, 1)], mode="reflect"))


# ---------------------------------------------------------------- index and creation
def test_gather_one_hot_scatter_trilu():
    a = rand(3, 4)
    idx = np.array([[0, 3], [2, 1], [1, 1]], dtype="int64")
    A, I = ph(a.shape, "A"), ph(idx.shape, "I", "int64")
    np.testing.assert_array_equal(run([A, I], topi.gather(A, 1, I), [a, idx])[0], np.take_along_axis(a, idx, 1))
    i = np.array([0, 2, -1], dtype="int32")
    II = ph((3,), "i", "int32")
    oh = run([II], topi.one_hot(II, 5.0, -1.0, 4, -1, "float32"), [i])[0]
    want = np.where(np.arange(4)[None, :] == (i % 4)[:, None], 5.0, -1.0)
    np.testing.assert_array_equal(oh, want)
    upd = rand(3, 2)
    U = ph(upd.shape, "U")
    want = a.copy()
    np.put_along_axis(want, idx, upd, 1)
    idx_u = np.array([[0, 3], [2, 1], [1, 0]], dtype="int64")  # distinct per row: "update" is unambiguous
    want = a.copy()
    np.put_along_axis(want, idx_u, upd, 1)
    np.testing.assert_array_equal(run([A, I, U], topi.scatter_elements(A, I, U, 1), [a, idx_u, upd])[0], want)
    want_add = a.copy()
    np.add.at(want_add, (np.arange(3)[:, None], idx), upd)
    np.testing.assert_allclose(run([A, I, U], topi.scatter_elements(A, I, U, axis=1, reduction="add"),
                                   [a, idx, upd])[0], want_add, **TOL)
    np.testing.assert_array_equal(run([A], topi.trilu(A, 1, True), [a])[0], np.triu(a, 1))
    np.testing.assert_array_equal(run([A], topi.trilu(A, -1, False), [a])[0], np.tril(a, -1))


@pytest.mark.parametrize("args, want", [
    ((5,), np.arange(5, dtype="float32")),
    ((1, 10, 3, "int32"), np.arange(1, 10, 3, dtype="int32")),
    ((0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25, dtype="float32")),
    ((5, 0, -2, "int64"), np.arange(5, 0, -2, dtype="int64")),
])
def test_arange(args, want):
    out = topi.arange(*args)
    assert out.dtype == str(want.dtype)
    np.testing.assert_array_equal(run([], out, [])[0], want)


def test_full_and_full_like():
    np.testing.assert_array_equal(run([], topi.full((2, 3), "int32", 7), [])[0], np.full((2, 3), 7, "int32"))
    A = ph((2, 2), "A")
    np.testing.assert_array_equal(run([A], topi.full_like(A, 1.5), [rand(2, 2)])[0], np.full((2, 2), 1.5, "float32"))


# ---------------------------------------------------------------- errors carry the C message
@pytest.mark.parametrize("call, msg", [
    (lambda d, k: topi.nn.conv2d(d, k, 1, 1, 1, data_layout="NHWC"),
     'topi.nn.conv2d: data_layout "NHWC" is not supported (only NCHW)'),
    (lambda d, k: topi.nn.conv2d(d, k, [1, 1, 1], 0, 1), "topi.nn.conv2d: strides must be one int or 2 ints"),
    (lambda d, k: topi.nn.conv2d(d, k, 1, "FULL", 1),
     'topi.nn.conv2d: padding "FULL" is not "VALID", "SAME" or a list of ints'),
    (lambda d, k: topi.nn.conv2d(d, k, 1, [1, 2, 3], 1), "topi.nn.conv2d: padding must be one int, 2 or 4 ints"),
    (lambda d, k: topi.nn.conv1d_ncw(d, k), "topi.nn.conv1d_ncw: data and kernel must be 3-D (NCW, OIW)"),
    (lambda d, k: topi.nn.pool2d(d, 2, 2, 1, 0, "min"), 'topi.nn.pool2d: pool_type "min" is not "max" or "avg"'),
    (lambda d, k: topi.nn.pool2d(d, 2, 2, 1, "SAME", "max"), 'topi.nn.pool2d: padding "SAME" is not a list of ints'),
    (lambda d, k: topi.nn.adaptive_pool(d, (1, 2, 3), "max"), "topi.nn.adaptive_pool: output_size must be one int or 2"),
    (lambda d, k: topi.nn.global_pool(d, "avg", "NHWC"), 'topi.nn.global_pool: layout "NHWC" is not supported'),
    (lambda d, k: topi.nn.layer_norm(d, None, None, []), "topi.nn.layer_norm: axis must be 1 to 8 axes"),
    (lambda d, k: topi.nn.batch_matmul(d, k), "topi.nn.batch_matmul: tensor_a and tensor_b must be 3-D"),
    (lambda d, k: topi.nn.mirror_pad(d, [0, 0, 1, 1]), 'topi.nn.mirror_pad: mode "SYMMETRIC" is not supported'),
    (lambda d, k: topi.arange(0, 5, 0), "topi.arange: step must not be 0"),
    (lambda d, k: topi.one_hot(k, 1, 0, 3, -1, "float32"), "topi.one_hot"),
    (lambda d, k: topi.full((2, -1), "float32", 0), "topi.full: shape dim 1 is out of range (-1)"),
    (lambda d, k: topi.scatter_elements(d, d, d, reduction="xor"), "topi.scatter_elements"),
    # values the C shape arithmetic could overflow on are refused up front
    (lambda d, k: topi.nn.conv2d(d, k, 1, 2 ** 62, 1), "topi.nn.conv2d: padding value 4611686018427387904 is out of range"),
    (lambda d, k: topi.nn.conv2d(d, k, 1, "SAME", 2 ** 62), "topi.nn.conv2d: dilation value 4611686018427387904 is out"),
    (lambda d, k: topi.nn.pool2d(d, 2, 2 ** 40, 1, 0, "max"), "topi.nn.pool2d: stride value 1099511627776 is out of range"),
    (lambda d, k: topi.nn.group_conv2d_nchw(d, k, 1, 0, 1, 2 ** 62), "topi.nn.group_conv2d_nchw: groups 46116"),
    (lambda d, k: topi.nn.layer_norm(d, None, None, [2 ** 32]), "topi.nn.layer_norm: axis 4294967296 is out of range"),
    (lambda d, k: topi.one_hot(ph((2,), "i", "int32"), 1, 0, 2 ** 40, -1, "float32"), "topi.one_hot: depth 1099511627776"),
    (lambda d, k: topi.arange(0, 1e30, 1e-30), "topi.arange: the length (stop - start) / step = 1e+60 is out of range"),
])
def test_bad_arguments_raise_the_c_message(call, msg):
    d, k = ph((1, 2, 4, 4), "data"), ph((3, 2, 3, 3), "kernel")
    with pytest.raises(tvm.RLXError) as e:
        call(d, k)
    assert msg in str(e.value)
