"""rlx.nd, DLPack with numpy and torch (zero copy both ways), the packed-function registry,
rlx.build of PrimFuncs and load_module."""
import numpy as np
import pytest

import rlx as tvm
from rlx import te

torch = pytest.importorskip("torch")


def test_ndarray_basics():
    a = np.arange(12, dtype="float32").reshape(3, 4)
    x = tvm.nd.array(a)
    assert x.shape == (3, 4) and x.dtype == "float32" and x.ndim == 2
    np.testing.assert_array_equal(x.numpy(), a)
    a[0, 0] = 100  # array() copies
    assert x.numpy()[0, 0] == 0
    for dt in ("int8", "int32", "int64", "uint8", "float64", "float16", "bool"):
        v = np.ones((2, 2), dtype=dt)
        np.testing.assert_array_equal(tvm.nd.array(v).numpy(), v)
    y = tvm.nd.empty((2, 3), "int64")
    y.copyfrom(np.full((2, 3), 7))
    assert y.numpy().sum() == 42
    assert tvm.cpu(0) == tvm.device("cpu") and tvm.device("llvm") == tvm.cpu()
    with pytest.raises(ValueError):
        tvm.device("cuda")


def test_dlpack_numpy_both_ways():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    x = tvm.nd.from_dlpack(a)
    a[1, 1] = 42.0  # shared memory
    assert x.numpy()[1, 1] == 42.0
    x = tvm.nd.array(np.zeros((4,), "float32"))
    b = np.from_dlpack(x)  # numpy makes imported arrays read-only; write through x
    x.copyfrom(np.array([0, 0, 5, 0], "float32"))
    assert b[2] == 5.0
    del x
    assert b[2] == 5.0  # the capsule keeps the memory alive


def test_dlpack_torch_both_ways():
    t = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    x = tvm.nd.from_dlpack(t)
    t[0, 1] = -3.0
    assert x.numpy()[0, 1] == -3.0
    x2 = tvm.nd.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert x2.shape == (2, 4)
    y = tvm.nd.array(np.ones((3,), "float32"))
    t2 = torch.utils.dlpack.from_dlpack(y)
    t2[0] = 9.0
    assert y.numpy()[0] == 9.0
    with pytest.raises(ValueError, match="compact"):
        tvm.nd.from_dlpack(torch.arange(8.0).reshape(2, 4).t())


def test_registry_and_packed_calls():
    @tvm.register_func("test_rt.add")
    def add(a, b):
        return a + b

    f = tvm.get_global_func("test_rt.add")
    assert f(2, 3) == 5 and f(1.5, 2.0) == 3.5
    tvm.register_func("test_rt.concat", lambda s, t: len(s + t), override=True)
    assert tvm.get_global_func("test_rt.concat")("ab", "c") == 3
    with pytest.raises(tvm.RLXError):
        tvm.register_func("test_rt.add", lambda: 0)
    assert tvm.get_global_func("test_rt.none", allow_missing=True) is None
    with pytest.raises(tvm.error.NotFoundError):
        tvm.get_global_func("test_rt.none")

    @tvm.register_func("test_rt.err", override=True)
    def err(x):
        raise ValueError("bad value %d" % x)

    with pytest.raises(tvm.RLXError, match="ValueError: bad value 4"):
        tvm.get_global_func("test_rt.err")(4)

    @tvm.register_func("test_rt.double", override=True)
    def double(x):
        return x.numpy() * 2

    out = tvm.get_global_func("test_rt.double")(tvm.nd.array(np.ones(3, "float32")))
    np.testing.assert_array_equal(out.numpy(), [2, 2, 2])


def test_build_prim_func_and_load_module(tmp_path):
    A = te.placeholder((16,), name="A")
    B = te.placeholder((16,), name="B")
    C = te.compute((16,), lambda i: A[i] + B[i], name="C")
    mod = tvm.build(te.create_prim_func([A, B, C]), target="llvm")
    a, b = np.random.rand(16).astype("float32"), np.random.rand(16).astype("float32")
    c = tvm.nd.empty((16,))
    mod["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b)
    with pytest.raises(tvm.RLXError, match="shape|ndim|dtype"):
        mod["main"](tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((3,)))
    path = str(tmp_path / "lib.so")
    mod.export_library(path)
    lib = tvm.runtime.load_module(path)
    fn = lib["rlx_fn_main"]
    c2 = tvm.nd.empty((16,))
    fn(tvm.nd.array(a), tvm.nd.array(b), c2)
    np.testing.assert_allclose(c2.numpy(), a + b)
    timer = mod.time_evaluator("main", tvm.cpu(), number=3, repeat=2)
    assert len(timer(tvm.nd.array(a), tvm.nd.array(b), c).results) == 2
