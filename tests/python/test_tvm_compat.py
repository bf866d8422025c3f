"""TVM compatibility pieces (issue 21): the IR object model, BindParams, TVM's testing
helpers (relax.testing.vm / nn, contrib.utils) and the VM's stateful interface."""
import os

import numpy as np
import pytest

import rlx as tvm
from rlx import relax
from rlx.script import relax as R


@R.function
def _mul(x: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        y = R.multiply(x, w)
        t = (y, x)
        z = t[0]
        R.output(z)
    return z


def test_object_model_reads_tvm_fields():
    f = _mul
    assert [p.name_hint for p in f.params] == ["x", "w"]
    assert isinstance(f.body, relax.SeqExpr) and f.attrs["global_symbol"] == "_mul"
    block = f.body.blocks[0]
    assert isinstance(block, relax.DataflowBlock)
    b0, b1, b2 = block.bindings
    assert isinstance(b0, relax.VarBinding) and b0.var.name_hint == "y"
    assert isinstance(b0.value, relax.Call) and b0.value.op.name == "relax.multiply"
    assert [a.name_hint for a in b0.value.args] == ["x", "w"]
    assert isinstance(b1.value, relax.Tuple) and len(b1.value) == 2
    assert isinstance(b2.value, relax.TupleGetItem) and b2.value.index == 0
    assert tvm.ir.structural_equal(f.ret_struct_info, R.Tensor((2, 3), "float32"))
    assert not tvm.ir.structural_equal(f.ret_struct_info, R.Tensor((2, 4), "float32"))
    c = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_array_equal(c.data.numpy(), np.arange(6, dtype="float32").reshape(2, 3))


def test_bind_params_replaces_parameters_by_constants():
    mod = tvm.IRModule({"main": _mul})
    w = np.random.rand(2, 3).astype("float32")
    bound = relax.transform.BindParams("main", {"w": tvm.nd.array(w)})(mod)
    f = bound["main"]
    assert [p.name_hint for p in f.params] == ["x"]
    call = f.body.blocks[0].bindings[0].value
    np.testing.assert_array_equal(call.args[1].data.numpy(), w)
    vm = relax.VirtualMachine(relax.build(bound), tvm.cpu())
    x = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(vm["main"](x).numpy(), x * w, rtol=1e-6)
    with pytest.raises(ValueError, match="has no parameter 'v' \\(parameters: x, w\\)"):
        relax.transform.BindParams("main", {"v": tvm.nd.array(w)})(mod)
    with pytest.raises(ValueError, match="parameter 'w' is R.Tensor\\(\\(2, 3\\)"):
        relax.transform.BindParams("main", {"w": tvm.nd.array(w[:1])})(mod)


def test_vm_stateful_interface_and_saved_functions():
    from rlx.contrib import utils
    from rlx.relax.testing.vm import check_saved_func
    ex = relax.build(tvm.IRModule({"main": _mul}))
    with utils.tempdir() as temp:
        ex.export_library(temp.relpath("exec.so"))
        vm = relax.VirtualMachine(tvm.runtime.load_module(temp.relpath("exec.so")), tvm.cpu())
    a, b = np.random.rand(2, 3).astype("float32"), np.random.rand(2, 3).astype("float32")
    with pytest.raises(ValueError, match="no inputs were set"):
        vm.invoke_stateful("main")
    vm.set_input("main", w=b, x=a)
    with pytest.raises(RuntimeError):
        vm["main"](a, b)
    with pytest.raises(ValueError, match="no outputs"):
        vm.get_outputs("main")
    vm.invoke_stateful("main")
    np.testing.assert_allclose(vm.get_outputs("main").numpy(), a * b, rtol=1e-6)
    vm.save_function("main", "saved", a, b)
    np.testing.assert_allclose(vm["saved"]().numpy(), a * b, rtol=1e-6)
    # a loaded module works from its own copy: it exports again after the file is gone
    vm2 = relax.VirtualMachine(vm._exec, tvm.cpu())
    np.testing.assert_allclose(check_saved_func(vm2, "main", a, b).numpy(), a * b, rtol=1e-6)


@pytest.mark.skipif(bool(os.environ.get("RLX_SANITIZE_RUN")),
                    reason="a child interpreter cannot load the ASan library without its preload")
def test_import_tvm_after_opt_in(tmp_path):
    # `import rlx.compat.tvm` makes unchanged `import tvm` scripts run, with TVM HEAD's
    # renames (tvm.tirx, `from tvm.script import tirx as T`); run in a fresh interpreter.
    import subprocess
    import sys
    script = tmp_path / "uses_tvm.py"
    script.write_text(
        "import rlx.compat.tvm\n"
        "import numpy as np\n"
        "import tvm\n"
        "from tvm import relax\n"
        "from tvm.script import tirx as T\n"
        "import tvm.tirx\n"
        "@T.prim_func\n"
        "def f(A: T.Buffer((4,), 'float32'), B: T.Buffer((4,), 'float32')):\n"
        "    for i in range(4):\n"
        "        with T.block('b'):\n"
        "            vi = T.axis.spatial(4, i)\n"
        "            B[vi] = A[vi] + T.float32(1)\n"
        "assert tvm.relax is relax and tvm.tirx.PrimFunc is tvm.tir.PrimFunc\n"
        "lib = tvm.build(f)\n"
        "a, b = tvm.runtime.tensor(np.arange(4, dtype='float32')), tvm.nd.empty((4,), 'float32')\n"
        "lib['f'](a, b)\n"
        "print(b.numpy().tolist())\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[1.0, 2.0, 3.0, 4.0]"


def test_like_ops_take_shape_and_dtype_of_their_input():
    f = tvm.script.from_source('''
@R.function
def f(x: R.Tensor((2, 3), "float32")):
    a = R.zeros_like(x)
    b = R.ones_like(x, dtype="int32")
    c = R.full_like(x, R.const(2.5, "float32"))
    return (a, b, c)
''')
    assert [str(s) for s in f.ret_struct_info.fields] == [
        'R.Tensor((2, 3), dtype="float32")', 'R.Tensor((2, 3), dtype="int32")', 'R.Tensor((2, 3), dtype="float32")']
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": f})), tvm.cpu())
    a, b, c = vm["main"](np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(a.numpy(), np.zeros((2, 3), "float32"))
    np.testing.assert_array_equal(b.numpy(), np.ones((2, 3), "int32"))
    np.testing.assert_array_equal(c.numpy(), np.full((2, 3), 2.5, "float32"))


def test_struct_info_of_a_variable_in_a_script():
    f = tvm.script.from_source('''
@R.function(pure=False)
def f(x: R.Tensor(("n",), "float32")):
    y = R.call_packed("ext", x, sinfo_args=[x.struct_info])
    return y
''')
    assert str(f.ret_struct_info) == 'R.Tensor((n,), dtype="float32")'
    assert [str(s) for s in f.body.blocks[0].bindings[0].value.sinfo_args] == ['R.Tensor((n,), dtype="float32")']


def test_return_annotation_gives_way_to_the_body_and_nested_calls_are_bound():
    from rlx.script import relax as R

    @R.function
    def f(x: R.Tensor((2, 3), "float32")) -> R.Tensor:
        return R.multiply(R.add(x, x), R.add(x, x))

    text = f.script()
    # TVM's Function: an annotation coarser than the body's struct info takes the body's
    assert '-> R.Tensor((2, 3), dtype="float32"):' in text, text
    # TVM's parser normalizes to A-normal form: each nested call bound first, left to right
    assert text.count("= R.add(x, x)") == 2 and "return R.multiply(" in text, text


def test_legalized_softmax_is_tvm_topi_form():
    from rlx.script import relax as R, ir as I

    @I.ir_module
    class M:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32")):
            return R.nn.softmax(x, axis=1)

    text = relax.transform.LegalizeOps()(M).script()
    assert 'T.block_attr({"axis": 1})' in text, text  # te.compute(..., attrs={"axis": axis})
    assert "T.float32(-340282346638528859811704183484516925440" in text, text  # min_value, not -inf


def test_shifts_and_bitwise_ops_compile_and_run():
    from rlx.script import relax as R, ir as I

    @I.ir_module
    class M:
        @R.function
        def main(a: R.Tensor((6,), "int32"), b: R.Tensor((6,), "int32")):
            with R.dataflow():
                s = R.left_shift(a, b)
                t = R.right_shift(a, b)
                u = R.bitwise_and(R.bitwise_not(a), R.bitwise_xor(a, b))
                gv = (s, t, u)
                R.output(gv)
            return gv

    a = np.array([1, 7, -8, 100, 3, 0], "int32")
    b = np.array([0, 1, 2, 3, 4, 5], "int32")
    vm = relax.VirtualMachine(relax.build(M, target="llvm"), tvm.cpu())
    s, t, u = (o.numpy() for o in vm["main"](a, b))
    np.testing.assert_array_equal(s, np.left_shift(a, b))
    np.testing.assert_array_equal(t, np.right_shift(a, b))
    np.testing.assert_array_equal(u, np.bitwise_and(np.invert(a), np.bitwise_xor(a, b)))


def test_vm_argument_of_another_kind_is_a_type_error_and_quoted_dims_declare_vars():
    from rlx.script import relax as R, tir as T, ir as I

    @I.ir_module
    class M:
        @R.function
        def main(n_: R.Prim(value="n"), s: R.Shape(["n * 2", "m * 2"]), m_: R.Prim(value="m")):
            n = T.int64()
            m = T.int64()  # "m * 2" declared m before the parameter that gives its value
            return R.shape([n * n, m + 1])

    vm = relax.VirtualMachine(relax.build(M, target="llvm"), tvm.cpu())
    assert tuple(vm["main"](2, tvm.runtime.ShapeTuple([4, 12]), 6)) == (4, 7)
    with pytest.raises(TypeError):  # a shape where an int is expected (TVM: TypeError)
        vm["main"](tvm.runtime.ShapeTuple([2]), tvm.runtime.ShapeTuple([4, 12]), 6)
    with pytest.raises(TypeError):  # an IR node is no run-time value
        vm["main"](R.prim_value(2), tvm.runtime.ShapeTuple([4, 12]), 6)
    with pytest.raises(ValueError):  # a wrong value of the right kind stays a ValueError
        vm["main"](2, tvm.runtime.ShapeTuple([5, 12]), 6)


def test_parser_checks_and_forms_as_tvm():
    from rlx.script import relax as R

    with pytest.raises(tvm.error.DiagnosticError, match="must be assigned"):
        @R.function
        def f(x: R.Tensor((2,), "float32")):
            R.add(x, x)  # a non-void value left unassigned
            return x

    with pytest.raises(tvm.error.DiagnosticError, match="private function cannot have a global_symbol"):
        @R.function(private=True)
        def g(x: R.Tensor((), "int32")):
            R.func_attr({"global_symbol": "g"})
            return x

    @R.function
    def h(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        t = (x, y)
        b = R.TupleGetItem(t, 1)
        return b

    assert "b: R.Tensor((2,), dtype=\"float32\") = t[1]" in h.script(), h.script()


def test_emit_te_tensor_arithmetic_and_primfunc_attrs():
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit_te(lambda a: 2.0 * (a + 1) - a / 4.0, x, primfunc_name_hint="f", primfunc_attrs={"k": "v"})
        bb.emit_func_output(out)
    mod = bb.get()
    assert '"k": "v"' in mod["f"].script(), mod["f"].script()
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](a).numpy(), 2.0 * (a + 1) - a / 4.0, rtol=1e-6)


def test_tuple_items_shape_of_and_emit_normalized():
    m, n = tvm.tir.Var("m", "int64"), tvm.tir.Var("n", "int64")
    sx = relax.TensorStructInfo([m, n], "float32")
    t = relax.Var("t", relax.TupleStructInfo([sx, relax.TensorStructInfo([n], "float32")]))
    x, y = t  # a tuple value unpacks into its items, each with the field's struct info
    tvm.ir.assert_structural_equal(x.struct_info, sx)
    with pytest.raises(ValueError):
        a, b, c = t
    assert [str(v) for v in relax.get_shape_of(relax.Var("v", sx))] == ["m", "n"]
    v = relax.Var("v", relax.TensorStructInfo(dtype="float32", ndim=-1))
    gv = relax.Var("gv", relax.TensorStructInfo(dtype="float32", ndim=-1))
    bb = relax.BlockBuilder()
    with bb.function("main", [v]):
        with bb.dataflow():
            bb.emit_normalized(relax.MatchCast(gv, v, relax.TensorStructInfo([m], "float32")))
            bb.emit_output(gv)
        bb.emit_func_output(gv)
    assert "R.match_cast(v, R.Tensor((m,), dtype=\"float32\"))" in bb.get()["main"].script()


def test_emit_te_prim_value_arguments_are_their_values():
    x = relax.Var("x", relax.TensorStructInfo((5,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit_te(tvm.topi.clip, x, relax.PrimValue(0), relax.PrimValue(2))
        bb.emit_func_output(out)
    mod = bb.get()
    assert "R.call_tir(cls.clip, (x,)" in mod.script(), mod.script()  # the bounds are inlined
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a = np.array([-1, 0.5, 1.5, 2.5, 9], "float32")
    np.testing.assert_array_equal(vm["main"](a).numpy(), np.clip(a, 0, 2))
