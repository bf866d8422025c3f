"""rlx.script decorators: @T.prim_func, @R.function, @I.ir_module (parsed by the C parser);
a module with call_tir, call_packed into a Python function and call_dps_packed, with
symbolic shapes, built once and run on two sizes; parse errors name the Python file:line."""
import inspect

import numpy as np
import pytest

import rlx as tvm
from rlx import relax
from rlx.script import ir as I
from rlx.script import relax as R
from rlx.script import tir as T


@tvm.register_func("test_script.add_one", override=True)
def add_one(x):
    return x.numpy() + 1


@tvm.register_func("test_script.triple_dps", override=True)
def triple_dps(x, out):
    out.copyfrom(x.numpy() * 3)


@I.ir_module
class Mixed:
    @T.prim_func
    def addmul(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 4), "float32")
        B = T.match_buffer(b, (n, 4), "float32")
        C = T.match_buffer(c, (n, 4), "float32")
        for i, j in T.grid(n, 4):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * B[vi, vj] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        cls = Mixed
        lv = R.call_tir(cls.addmul, (x, y), out_sinfo=R.Tensor((n, 4), "float32"))
        lv1 = R.call_packed("test_script.add_one", lv, sinfo_args=R.Tensor((n, 4), "float32"))
        lv2 = R.call_dps_packed("test_script.triple_dps", (lv1,), out_sinfo=R.Tensor((n, 4), "float32"))
        return (lv2, lv)


def test_ir_module_call_tir_packed_dps_two_sizes():
    assert isinstance(Mixed, tvm.IRModule)
    assert sorted(gv.name_hint for gv in Mixed.get_global_vars()) == ["addmul", "main"]
    ex = relax.build(Mixed, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for n in (3, 17):
        x = np.random.rand(n, 4).astype("float32")
        y = np.random.rand(n, 4).astype("float32")
        out = vm["main"](x, y)
        assert isinstance(out, tuple) and len(out) == 2
        np.testing.assert_allclose(out[0].numpy(), (x * y + 2) * 3, rtol=1e-6)
        np.testing.assert_allclose(out[1].numpy(), x * y + 1, rtol=1e-6)


def test_python_exception_becomes_vm_error():
    @tvm.register_func("test_script.fails", override=True)
    def fails(x):
        raise RuntimeError("callback exploded")

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        y = R.call_packed("test_script.fails", x, sinfo_args=R.Tensor((2,), "float32"))
        return y

    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": main})), tvm.cpu())
    with pytest.raises(tvm.RLXError, match="callback exploded"):
        vm["main"](np.zeros(2, "float32"))


def test_unresolved_packed_name_is_a_build_error():
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        y = R.call_packed("test_script.nobody_registered_this", x, sinfo_args=R.Tensor((2,), "float32"))
        return y

    with pytest.raises(tvm.RLXError, match="nobody_registered_this"):
        relax.build(tvm.IRModule({"main": main}))


def test_prim_func_decorator_and_round_trip():
    @T.prim_func
    def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(2)

    assert isinstance(scale, tvm.tir.PrimFunc)
    again = tvm.script.from_source(scale.script())
    tvm.ir.assert_structural_equal(scale, again)  # one function's text gives the function (TVM)
    mod = tvm.build(scale)
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.empty((8,))
    mod["main"](a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(8) * 2)


def test_relax_function_decorator_alone():
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((3, 2), "float32"):
        with R.dataflow():
            y = R.permute_dims(x, axes=[1, 0])
            R.output(y)
        return y

    assert isinstance(main, relax.Function)
    assert "R.permute_dims(x, axes=[1, 0])" in main.script()
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": main})), tvm.cpu())
    a = np.random.rand(2, 3).astype("float32")
    np.testing.assert_array_equal(vm["main"](a).numpy(), a.T)


def test_module_api_and_structural_equality():
    m = tvm.script.from_source(Mixed.script())
    assert tvm.ir.structural_equal(m, Mixed)
    assert tvm.ir.structural_hash(m) == tvm.ir.structural_hash(Mixed)
    tvm.ir.assert_structural_equal(m, Mixed)
    assert isinstance(m["addmul"], tvm.tir.PrimFunc) and isinstance(m["main"], relax.Function)
    m2 = tvm.IRModule()
    m2["f"] = m["addmul"]
    assert m2.get_global_vars()[0].name_hint == "f" and "def f(" in m2.script()
    assert not tvm.ir.structural_equal(m2, Mixed)
    with pytest.raises(ValueError, match="no function"):
        m["nope"]


def test_parse_error_points_at_python_file_and_line():
    line = inspect.currentframe().f_lineno + 5
    with pytest.raises(tvm.error.DiagnosticError) as info:
        @T.prim_func
        def broken(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = T.no_such_intrinsic(1)

    msg = str(info.value)
    assert msg.startswith("%s:%d:" % (__file__, line)), msg


def test_parse_error_inside_ir_module_class():
    line = inspect.currentframe().f_lineno + 6
    with pytest.raises(tvm.error.DiagnosticError) as info:
        @I.ir_module
        class Bad:
            @R.function
            def main(x: R.Tensor((2,), "float32")):
                y = R.not_an_op(x)
                return y

    assert str(info.value).startswith("%s:%d:" % (__file__, line)), str(info.value)


@I.ir_module
class Branchy:
    @R.function(private=True)
    def scale(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        lv = R.multiply(x, R.const(3.0, "float32"))
        return lv

    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Branchy
        if c:
            lv1 = R.add(x, x)
            r = lv1
        else:
            lv2 = cls.scale(x)
            r = R.subtract(lv2, R.const(1.0, "float32"))
        return r


def test_if_runs_both_branches():
    """R.If built through the VM's if/goto: each branch taken on its own condition, one of
    them calling a private Relax function (how the ONNX importer lowers If)."""
    vm = relax.VirtualMachine(relax.build(Branchy), tvm.cpu())
    for n in (4, 9):
        x = np.random.rand(n).astype("float32")
        np.testing.assert_allclose(vm["main"](np.array(True), x).numpy(), x + x, rtol=1e-6)
        np.testing.assert_allclose(vm["main"](np.array(False), x).numpy(), x * 3 - 1, rtol=1e-6)


def test_relax_func_attr_nested_values():
    # R.func_attr values of every kind, nested dicts and lists included, print as Python
    # literals with dict keys sorted (as TVM prints string-keyed maps); print is a fixed point.
    src = '''
@R.function
def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    R.func_attr({"num_input": 1, "opt": {"b": {"e": True, "c": "d"}, "a": [1, 2]}, "f": 1.5, "g": [1, "x", [2.5]]})
    return x
'''
    mod = tvm.script.from_source(src)
    text = mod.script()
    want = ('    R.func_attr({"f": 1.5, "g": [1, "x", [T.float32(2.5)]], "num_input": 1, '
            '"opt": {"a": [1, 2], "b": {"c": "d", "e": True}}})')  # a function's text gives the function
    assert want in text.splitlines(), text
    assert tvm.script.from_source(text).script() == text
    with pytest.raises(tvm.RLXError, match="attribute opt: expected string keys"):
        tvm.script.from_source(src.replace('"b": {"e"', '1: {"e"'))


def test_vm_prim_and_shape_inputs_and_results():
    # R.Prim parameters take Python numbers, R.Shape ones ShapeTuples; such results come back
    # as Python numbers and ShapeTuples (tuples as tuples), as TVM's VM gives them.
    @I.ir_module
    class M:
        @R.function
        def main(x: R.Tensor(("k",), "float32"), p: R.Prim("int64"), s: R.Shape(["n", "m"]), f: R.Prim("float32")):
            n = T.int64()
            m = T.int64()
            k = T.int64()
            y = R.multiply(x, R.const(2.0, "float32"))
            return (x, y, p, s, R.prim_value(n * m + k), f, R.shape([m, n]))

    vm = relax.VirtualMachine(relax.build(M, target="llvm"), tvm.cpu())
    x = np.arange(3, dtype="float32")
    out = vm["main"](x, 7, tvm.runtime.ShapeTuple([4, 5]), 2.5)
    np.testing.assert_array_equal(out[0].numpy(), x)  # the input returned unchanged stays valid
    np.testing.assert_array_equal(out[1].numpy(), 2 * x)
    assert out[2:] == (7, tvm.runtime.ShapeTuple([4, 5]), 23, 2.5, tvm.runtime.ShapeTuple([5, 4]))
    assert isinstance(out[2], int) and isinstance(out[3], tvm.runtime.ShapeTuple) and isinstance(out[5], float)
    with pytest.raises(tvm.RLXError, match=r"parameter s: expected shape \(n, m\) \(ndim 2\), got \(4, 5, 6\)"):
        vm["main"](x, 7, tvm.runtime.ShapeTuple([4, 5, 6]), 2.5)
    # a tensor that is no number's form stays a tensor (an R.Object parameter takes it); the
    # R.Prim check rejects it
    with pytest.raises(tvm.RLXError, match=r'parameter p: expected an int \(R.Prim\("int64"\)\), got Tensor'):
        vm["main"](x, np.ones(3), tvm.runtime.ShapeTuple([4, 5]), 2.5)
    # a Python tuple is an R.Tuple argument, not a shape (TVM: "expect a Shape but get Array")
    with pytest.raises(tvm.RLXError, match=r"parameter s: expected a value of shape \(n, m\), got Tuple"):
        vm["main"](x, 7, (4, 5), 2.5)
    # a float for an R.Prim("int64") parameter (TVM: "expected int but got float")
    with pytest.raises(tvm.error.TVMError, match=r"main: parameter p: expected an int \(R.Prim\(\"int64\"\)\), got float"):
        vm["main"](x, 7.5, tvm.runtime.ShapeTuple([4, 5]), 2.5)
    # an int for an R.Prim("float32") one is taken (TVM converts it)
    assert vm["main"](x, 7, tvm.runtime.ShapeTuple([4, 5]), 2)[5] == 2


def test_vm_tuple_arguments_nested():
    # R.Tuple parameters take Python tuples / lists (nested as the struct info nests them;
    # numbers inside are R.Prim values); tuple results come back as tuples (TVM's VM takes
    # and gives tvm.runtime containers the same way).
    @I.ir_module
    class M:
        @R.function
        def main(t: R.Tuple(R.Tensor(("n", 3), "float32"), R.Tuple(R.Tensor((3,), "float32"), R.Prim("int64"))),
                 x: R.Tensor((3,), "float32")):
            n = T.int64()
            a = t[0]
            inner = t[1]
            b = inner[0]
            k = inner[1]
            c = R.add(a, b)
            d = R.multiply(b, x)
            return (c, (d, k), R.shape([n]))

    vm = relax.VirtualMachine(relax.build(M, target="llvm"), tvm.cpu())
    for n in (2, 5):
        a = np.random.randn(n, 3).astype("float32")
        b = np.random.randn(3).astype("float32")
        x = np.random.randn(3).astype("float32")
        c, (d, k), s = vm["main"]((tvm.nd.array(a), [b, 7]), x)
        np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)
        np.testing.assert_allclose(d.numpy(), b * x, rtol=1e-6)
        assert k == 7 and s == tvm.runtime.ShapeTuple([n])
    a, b, x = np.ones((2, 3), "float32"), np.ones(3, "float32"), np.ones(3, "float32")
    with pytest.raises(tvm.RLXError, match="main: parameter t: expected a tuple of 2 fields, got 1"):
        vm["main"]((a,), x)
    with pytest.raises(tvm.RLXError, match=r"main: parameter t, field 1: expected a Tuple, got Tensor"):
        vm["main"]((a, b), x)
    with pytest.raises(tvm.RLXError, match=r"main: parameter t, field 1, field 0: expected a Tensor, got int"):
        vm["main"]((a, (3, 7)), x)
    with pytest.raises(tvm.RLXError, match=r"parameter t, field 0: expected shape \(n, 3\) with n bound to 2, got \(2, 4\)"):
        vm["main"]((np.ones((2, 4), "float32"), (b, 7)), x)
    with pytest.raises(tvm.RLXError, match=r'main: parameter t, field 1, field 1: expected an int \(R.Prim\("int64"\)\), '
                                           r'got float'):
        vm["main"]((a, (b, 7.5)), x)
    with pytest.raises(tvm.RLXError, match="main: parameter x: expected a tensor, got a tuple"):
        vm["main"]((a, (b, 7)), (x,))


def _closure_module(relax_op, dtype, shape):
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(shape, dtype), y: R.Tensor(shape, dtype)):
            with R.dataflow():
                lv: R.Tensor(shape, dtype) = relax_op(x, y)
                R.output(lv)
            return lv

    return Mod


def test_script_reads_the_enclosing_scope():
    # Names the script does not define take their values from the Python scope around it
    # (TVM's parser): an op, a dtype, a shape from parameters, a tir.Var, a starred tuple.
    m = _closure_module(R.multiply, "float16", (2, 3))
    text = m.script()
    assert 'lv: R.Tensor((2, 3), dtype="float16") = R.multiply(x, y)' in text, text
    m2 = _closure_module(relax.op.add, "float32", [4])
    assert 'lv: R.Tensor((4,), dtype="float32") = R.add(x, y)' in m2.script()
    n = tvm.tir.Var("n", "int64")

    @R.function
    def f(x: R.Tensor((n, 2), "float32")):
        a, b = x, x
        return a + b * R.const(2.0, "float32")

    assert 'def f(x: R.Tensor(("n", 2), dtype="float32"))' in f.script(), f.script()
    # x + y is R.add(x, y), and a nested call is bound first (A-normal form, as TVM's parser)
    assert 'lv: R.Tensor((n, 2), dtype="float32") = R.multiply(b, R.const(2' in f.script(), f.script()
    assert "return R.add(a, lv)" in f.script(), f.script()

    @T.prim_func
    def copy(A: T.Buffer((4, 3), "float32"), B: T.Buffer((4, 3), "float32")):
        for i, j in T.grid(*A.shape):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    assert "for i, j in T.grid(4, 3):" in copy.script()
    with pytest.raises(tvm.RLXError, match="undefined variable 'nowhere'"):
        @R.function
        def g(x: R.Tensor((2,), "float32")):
            return nowhere(x)  # noqa: F821 - undefined on purpose
