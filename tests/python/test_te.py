"""rlx.te / create_prim_func: TVM's tutorial programs print what TVM prints and run."""
import numpy as np
import pytest

import rlx as tvm
from rlx import te, tir
from expected_tvm import TE_MATMUL, TE_MATMUL_RELU, TVM_HEADER_TIR


def te_matmul(A, B):
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = A.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def placeholders():
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    return A, B


def run(f, *arrays, out_shape, out_dtype="float32"):
    mod = tvm.build(f, target="llvm")
    out = tvm.nd.empty(out_shape, out_dtype)
    mod["main"](*[tvm.nd.array(a) for a in arrays], out)
    return out.numpy()


def test_matmul_prints_as_tvm_and_runs(capsys):
    A, B = placeholders()
    C = te_matmul(A, B)
    f = te.create_prim_func([A, B, C])
    f.show()
    assert capsys.readouterr().out == TVM_HEADER_TIR + TE_MATMUL + "\n"
    a, b = np.random.rand(128, 128).astype("float32"), np.random.rand(128, 128).astype("float32")
    np.testing.assert_allclose(run(f, a, b, out_shape=(128, 128)), a @ b, rtol=1e-4)


def test_matmul_relu_prints_as_tvm_and_runs(capsys):
    A, B = placeholders()
    D = te_relu(te_matmul(A, B))
    f = te.create_prim_func([A, B, D])
    f.show()
    assert capsys.readouterr().out == TVM_HEADER_TIR + TE_MATMUL_RELU + "\n"
    assert f.script() == TVM_HEADER_TIR + TE_MATMUL_RELU
    a, b = np.random.randn(128, 128).astype("float32"), np.random.randn(128, 128).astype("float32")
    np.testing.assert_allclose(run(f, a, b, out_shape=(128, 128)), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_relu_runs():
    A = te.placeholder((4, 8, 3), name="A")
    f = te.create_prim_func([A, te_relu(A)])
    assert "for i0, i1, i2 in T.grid(4, 8, 3):" in f.script()
    a = np.random.randn(4, 8, 3).astype("float32")
    np.testing.assert_array_equal(run(f, a, out_shape=(4, 8, 3)), np.maximum(a, 0))


def test_tensor_properties():
    A = te.placeholder((3, 5), name="A", dtype="float16")
    assert A.ndim == 2 and A.dtype == "float16" and A.name == "A"
    assert [int(d) for d in A.shape] == [3, 5]
    B = te.compute(A.shape, lambda i, j: A[i, j] + A(i, j), name="B")
    assert B.dtype == "float16" and B.op.name == "B"


def test_symbolic_shape_var_and_reductions():
    n = te.var("n")
    m = te.size_var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    S = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="S")
    k2 = te.reduce_axis((0, m), name="k2")
    Mx = te.compute((n,), lambda i: te.max(A[i, k2], axis=k2), name="Mx")
    k3 = te.reduce_axis((0, m), name="k3")
    Mn = te.compute((n,), lambda i: te.min(A[i, k3], axis=k3), name="Mn")
    for out, ref in ((S, np.sum), (Mx, np.max), (Mn, np.min)):
        f = te.create_prim_func([A, out])
        a = np.random.randn(5, 7).astype("float32")
        np.testing.assert_allclose(run(f, a, out_shape=(5,)), ref(a, axis=1), rtol=1e-5, atol=1e-6)


def test_wrong_arity_lambda():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(ValueError, match="1 index argument.*2 dimension"):
        te.compute((3, 4), lambda i: A[i, 0])


def test_bad_lambda_error_propagates():
    A = te.placeholder((3, 4), name="A")

    def body(i, j):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        te.compute((3, 4), body)
    with pytest.raises(TypeError):
        te.compute((3, 4), lambda i, j: "not an expression")
    with pytest.raises(IndexError, match="2 dimensions"):
        te.compute((3,), lambda i: A[i])


def test_create_prim_func_rejects_non_tensors():
    with pytest.raises(TypeError):
        te.create_prim_func([1, 2])


def test_tir_math_in_compute():
    A = te.placeholder((16,), name="A")
    funcs = {
        "exp": (tir.exp, np.exp), "log": (tir.log, np.log), "sqrt": (tir.sqrt, np.sqrt),
        "tanh": (tir.tanh, np.tanh), "sigmoid": (tir.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    }
    a = np.random.rand(16).astype("float32") + 0.5
    for name, (tf, nf) in funcs.items():
        B = te.compute((16,), lambda i: tf(A[i]), name=name)
        np.testing.assert_allclose(run(te.create_prim_func([A, B]), a, out_shape=(16,)), nf(a), rtol=1e-5)
    B = te.compute((16,), lambda i: tir.erf(A[i]), name="erf")
    import math
    np.testing.assert_allclose(run(te.create_prim_func([A, B]), a, out_shape=(16,)),
                               [math.erf(x) for x in a], rtol=1e-5)


def test_select_cast_if_then_else_minmax():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: tir.Select(A[i] > 0.5, A[i] * 2.0, tir.Cast("float32", i)), name="B")
    C = te.compute((10,), lambda i: tir.if_then_else(i % 2 == 0, tir.max(A[i], 0.3), tir.min(A[i], 0.3)),
                   name="C")
    a = np.random.rand(10).astype("float32")
    idx = np.arange(10)
    np.testing.assert_allclose(run(te.create_prim_func([A, B]), a, out_shape=(10,)),
                               np.where(a > 0.5, a * 2, idx.astype("float32")), rtol=1e-6)
    np.testing.assert_allclose(run(te.create_prim_func([A, C]), a, out_shape=(10,)),
                               np.where(idx % 2 == 0, np.maximum(a, 0.3), np.minimum(a, 0.3)), rtol=1e-6)


def test_reduction_where_and_init():
    # te.sum(..., where=cond) skips elements where cond is false; init= starts the
    # accumulator (in T.init(), with the output's block vars), as TVM's create_prim_func does.
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k, where=k < 5), name="B")
    k2 = te.reduce_axis((0, 8), name="k2")
    C = te.compute((4,), lambda i: te.sum(A[i, k2] * 2.0, axis=k2, init=A[i, 0] + 1.0), name="C")
    k3 = te.reduce_axis((0, 8), name="k3")
    D = te.compute((4,), lambda i: te.max(A[i, k3], axis=k3, where=(k3 % 2 == 1), init=0.5), name="D")
    a = np.random.randn(4, 8).astype("float32")
    fb = te.create_prim_func([A, B])
    np.testing.assert_allclose(run(fb, a, out_shape=(4,)), a[:, :5].sum(axis=1), rtol=1e-5, atol=1e-6)
    fc = te.create_prim_func([A, C])
    text = fc.script()
    assert "            with T.init():\n                C[v_i] = A[v_i, 0] + T.float32(1.0)\n" in text, text
    np.testing.assert_allclose(run(fc, a, out_shape=(4,)), a[:, 0] + 1 + 2 * a.sum(axis=1), rtol=1e-5, atol=1e-5)
    fd = te.create_prim_func([A, D])
    np.testing.assert_allclose(run(fd, a, out_shape=(4,)), np.maximum(a[:, 1::2].max(axis=1), 0.5), rtol=1e-6)
    # print -> parse -> print is a fixed point and the parsed function computes the same
    for f in (fb, fc, fd):
        again = tvm.script.from_source(f.script())
        assert again.script() == f.script()
    # several values of a compute cannot reduce (TVM's tuple reducers are not supported)
    with pytest.raises(NotImplementedError, match="te.compute 'E': value 1 is a reduction"):
        te.compute((4,), lambda i: (A[i, 0], te.sum(A[i, k3], axis=k3)), name="E")


# TVM's create_prim_func of a multi-output compute (tests/python/te/test_te_create_primfunc.py,
# test_multi_output): one loop nest, one block per output named "B.v0", "B.v1"; the buffers
# "B.v0" / "B.v1" print as B_v0 / B_v1 (TVM's printer replaces characters a name cannot hold).
TVM_MULTI_OUTPUT = """
@T.prim_func
def main(var_A0: T.handle, var_A1: T.handle, var_B_v0: T.handle, var_B_v1: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    m, n = T.int32(), T.int32()
    A0 = T.match_buffer(var_A0, (m, n))
    A1 = T.match_buffer(var_A1, (m, n))
    B_v0 = T.match_buffer(var_B_v0, (m, n))
    B_v1 = T.match_buffer(var_B_v1, (m, n))
    # with T.block("root"):
    for i, j in T.grid(m, n):
        with T.block("B.v0"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A0[v_i, v_j])
            T.writes(B_v0[v_i, v_j])
            B_v0[v_i, v_j] = A0[v_i, v_j] + T.float32(2.0)
        with T.block("B.v1"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A1[v_i, v_j])
            T.writes(B_v1[v_i, v_j])
            B_v1[v_i, v_j] = A1[v_i, v_j] * T.float32(3.0)
"""


def test_multi_output_compute():
    n, m = te.var("n"), te.var("m")
    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    outs = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A1[i, j] * 3), name="B")
    assert isinstance(outs, list) and len(outs) == 2
    B0, B1 = outs
    assert (B0.name, B1.name, B0.ndim, B1.dtype) == ("B.v0", "B.v1", 2, "float32")
    f = te.create_prim_func([A0, A1, B0, B1])
    assert f.script() + "\n" == TVM_HEADER_TIR + TVM_MULTI_OUTPUT.lstrip("\n")
    a0, a1 = np.random.randn(3, 5).astype("float32"), np.random.randn(3, 5).astype("float32")
    b0, b1 = tvm.nd.empty((3, 5), "float32"), tvm.nd.empty((3, 5), "float32")
    tvm.build(f, target="llvm")["main"](tvm.nd.array(a0), tvm.nd.array(a1), b0, b1)
    np.testing.assert_allclose(b0.numpy(), a0 + 2, rtol=1e-6)
    np.testing.assert_allclose(b1.numpy(), a1 * 3, rtol=1e-6)
    # the outputs feed a later compute: both become intermediate buffers of the one nest
    C = te.compute((m, n), lambda i, j: B0[i, j] - B1[i, j], name="C")
    fc = te.create_prim_func([A0, A1, C])
    text = fc.script()
    assert "    B_v0 = T.alloc_buffer((m, n))\n    B_v1 = T.alloc_buffer((m, n))\n" in text, text
    assert text.count("for i, j in T.grid(m, n):") == 2, text
    np.testing.assert_allclose(run(fc, a0, a1, out_shape=(3, 5)), (a0 + 2) - a1 * 3, rtol=1e-5, atol=1e-6)
    # one value in a tuple is one tensor (TVM returns outputs[0] when there is one)
    one = te.compute((m,), lambda i: (A0[i, 0],), name="one")
    assert isinstance(one, te.Tensor) and one.name == "one"
    # mixed dtypes; printing parses back to the same function
    D0, D1 = te.compute((4,), lambda i: (tir.Cast("int32", A0[i, 0]), A0[i, 1] > 0), name="D")
    assert (D0.dtype, D1.dtype) == ("int32", "bool")
    fd = te.create_prim_func([A0, D0, D1])
    tvm.ir.assert_structural_equal(tvm.script.from_source(fd.script()), fd)
    with pytest.raises(ValueError, match="te.compute: the function returned an empty tuple"):
        te.compute((4,), lambda i: (), name="E")
    with pytest.raises(TypeError, match="expected a PrimExpr or a Python number, got str"):
        te.compute((4,), lambda i: (A0[i, 0], "x"), name="E")


def test_compute_layout_free_placeholders():
    # te.compute(attrs={"layout_free_placeholders": [B]}) gives the function attribute TVM's
    # create_prim_func derives (tests/python/te/test_te_create_primfunc.py, test_tensor_attr).
    k = te.reduce_axis((0, 16), "k")
    A = te.placeholder((16, 16), name="A")
    B = te.placeholder((16, 16), name="B")
    C = te.compute((16, 16), lambda x, y: te.sum(A[x, k] * B[y, k], axis=k), name="C",
                   attrs={"layout_free_placeholders": [B]})
    f = te.create_prim_func([A, B, C])
    lines = f.script().splitlines()
    assert '    T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})' in lines, f.script()
    assert "    for x, y, k in T.grid(16, 16, 16):" in lines
    tvm.ir.assert_structural_equal(tvm.script.from_source(f.script()), f)
    a, b = np.random.randn(16, 16).astype("float32"), np.random.randn(16, 16).astype("float32")
    np.testing.assert_allclose(run(f, a, b, out_shape=(16, 16)), a @ b.T, rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError, match="layout_free_placeholders takes te.Tensors, got int"):
        te.compute((16,), lambda i: A[i, 0], attrs={"layout_free_placeholders": [1]})
