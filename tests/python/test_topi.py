"""rlx.topi: generated from the C topi table, usable in emit_te and in TE code."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te, topi


def test_names_follow_tvm():
    for f in (topi.add, topi.multiply, topi.exp, topi.reshape, topi.transpose, topi.sum, topi.concatenate,
              topi.nn.dense, topi.nn.relu, topi.nn.softmax, topi.nn.conv2d_nchw):
        assert callable(f)
    assert "nn.dense" in topi.function_names()


def test_mlp_through_emit_te():
    w_np = np.random.randn(16, 32).astype("float32")
    b_np = np.random.randn(16).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo((2, 32), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", params=[x]):
        with bb.dataflow():
            y = bb.emit_te(topi.nn.dense, x, relax.const(w_np))
            z = bb.emit_te(topi.add, y, relax.const(b_np))
            r = bb.emit_te(topi.nn.relu, z)
            s = bb.emit_te(topi.nn.softmax, r, axis=-1)
            o = bb.emit_output(s)
        bb.emit_func_output(o)
    mod = bb.get()
    assert "def dense(" in mod.script() and "def relu(" in mod.script()
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a = np.random.randn(2, 32).astype("float32")
    h = np.maximum(a @ w_np.T + b_np, 0)
    e = np.exp(h - h.max(-1, keepdims=True))
    np.testing.assert_allclose(vm["main"](a).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_in_te_code_with_scalars_and_shapes():
    A = te.placeholder((4, 5), name="A")
    B = topi.add(topi.exp(A), 1.0)
    C = topi.reshape(topi.transpose(B, axes=[1, 0]), (20,))
    D = topi.sum(topi.concatenate([A, A], axis=0), axis=1, keepdims=True)
    for out, ref in ((C, lambda a: (np.exp(a) + 1).T.reshape(20)), (D, lambda a: np.concatenate([a, a]).sum(1,
                                                                                                        keepdims=True))):
        mod = tvm.build(te.create_prim_func([A, out]))
        a = np.random.rand(4, 5).astype("float32")
        o = tvm.nd.empty([int(d) for d in out.shape])
        mod["main"](tvm.nd.array(a), o)
        np.testing.assert_allclose(o.numpy(), ref(a), rtol=1e-5)


def test_conv2d_nchw():
    data = te.placeholder((1, 3, 8, 8), name="data")
    kern = te.placeholder((4, 3, 3, 3), name="kernel")
    out = topi.nn.conv2d_nchw(data, kern, 1, 1, 1)
    assert [int(d) for d in out.shape] == [1, 4, 8, 8]


def test_argument_errors():
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match="unexpected argument 'bogus'"):
        topi.nn.relu(A, bogus=1)
    with pytest.raises(TypeError, match="missing argument 'newshape'"):
        topi.reshape(A)
    with pytest.raises(TypeError, match="at most"):
        topi.exp(A, A)
    with pytest.raises(tvm.RLXError, match="topi.reshape"):
        topi.reshape(A, (3,))
