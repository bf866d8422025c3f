"""rlx.tir: PrimExprs, constants and tir.Schedule primitives (checked by running)."""
import numpy as np
import pytest

import rlx as tvm
from rlx import te, tir


def test_exprs_and_operators():
    n = tir.Var("n", "int64")
    assert n.name == "n" and n.dtype == "int64"
    assert tir.IntImm("int32", 5).value == 5 and tir.IntImm("int32", 5).dtype == "int32"
    assert tir.FloatImm("float32", 1.5).dtype == "float32"
    assert tir.const(3).dtype == "int32" and tir.const(2.0).dtype == "float32"
    assert tir.const(1, "int64").dtype == "int64" and tir.const(True).dtype == "bool"
    for e in (n + 1, 1 + n, n - 2, 2 - n, n * 3, 3 * n, n // 2, n % 3, -n, tir.max(n, 4), tir.min(n, 4),
              tir.floordiv(n, 2), tir.floormod(n, 2), tir.truncdiv(n, 2)):
        assert e.dtype == "int64"
    for c in (n < 1, n <= 1, n > 1, n >= 1, n == 1, n != 1, (n < 1) & (n > 0), (n < 1) | (n > 0), ~(n < 1)):
        assert c.dtype == "bool"
    x = tir.Var("x", "float32")
    assert (x / 2).dtype == "float32" and tir.Cast("int32", x).dtype == "int32"
    assert str(n * 2 + 1) == "n * 2 + 1"
    with pytest.raises(ValueError):
        bool(n < 3)
    with pytest.raises(TypeError):
        n + "a"


def matmul_func(n=64):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((n, n), lambda i, j: te.max(C[i, j], 0.0), name="D")
    return te.create_prim_func([A, B, D])


def check_runs(func_or_mod, n=64):
    a, b = np.random.randn(n, n).astype("float32"), np.random.randn(n, n).astype("float32")
    mod = tvm.build(func_or_mod, target="llvm")
    d = tvm.nd.empty((n, n))
    mod["main"](tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_schedule_loop_primitives():
    sch = tir.Schedule(matmul_func())
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, 8])
    jo, ji = sch.split(j, factors=[4, 16])
    sch.reorder(io, jo, ii, k, ji)
    sch.vectorize(ji)
    sch.unroll(ii)
    fused = sch.fuse(io, jo)
    sch.parallel(fused)
    text = sch.mod.script()
    assert "T.parallel" in text and "T.vectorized" in text and "T.unroll" in text
    check_runs(sch.mod)


def test_schedule_block_primitives():
    sch = tir.Schedule(tvm.IRModule({"main": matmul_func()}))
    c = sch.get_block("C")
    d = sch.get_block("D")
    i, j = sch.get_loops(d)
    sch.compute_at(c, j)
    check_runs(sch.mod)

    sch = tir.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    init = sch.decompose_reduction(c, k)
    assert isinstance(init, str) and init
    check_runs(sch.mod)

    sch = tir.Schedule(matmul_func())
    cw = sch.cache_write(sch.get_block("C"), 0, "local")
    cr = sch.cache_read(sch.get_block("C"), 0, "local")
    assert cw and cr
    check_runs(sch.mod)

    sch = tir.Schedule(matmul_func())
    d = sch.get_block("D")
    sch.reverse_compute_at(d, sch.get_loops(sch.get_block("C"))[1])
    check_runs(sch.mod)

    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((32,), lambda i: B[i] + 1.0, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    sch.compute_inline(sch.get_block("B"))
    assert 'T.block("B")' not in sch.mod.script()


def test_schedule_errors():
    sch = tir.Schedule(matmul_func())
    with pytest.raises(tvm.RLXError):
        sch.get_loops(sch.get_block("nope"))
    with pytest.raises(tir.ScheduleError):  # TVM's class, still a ValueError
        sch.split(sch.get_loops("C")[0], factors=[None, None])
    with pytest.raises(ValueError):
        sch.split(sch.get_loops("C")[0], factors=[0, None])
    with pytest.raises(TypeError):
        tir.Schedule(42)


def test_prim_func_with_attr_and_structural():
    f = matmul_func(16)
    g = f.with_attr("layout_free_buffers_dummy", 1)
    assert '"layout_free_buffers_dummy": 1' in g.script() and 'layout_free' not in f.script()
    assert "\"note\": \"hi\"" in f.with_attr("note", "hi").script()
    assert tvm.structural_equal(f, matmul_func(16))
    assert tvm.structural_hash(f) == tvm.structural_hash(matmul_func(16))
    assert not tvm.structural_equal(f, matmul_func(32))
    tvm.ir.assert_structural_equal(f, matmul_func(16))
    with pytest.raises(ValueError, match="StructuralEqual"):
        tvm.ir.assert_structural_equal(f, matmul_func(32))
