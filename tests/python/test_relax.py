"""rlx.relax: BlockBuilder (TVM's printed module, params at the start and at the end),
struct info, expressions, ops from the registry, passes, build and the VM."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te, tir
from expected_tvm import BB_MATMUL_RELU, TVM_CONCAT_SPLIT_LINES, TVM_CONV2D_NDIM4, TVM_HEADER_MODULE


def te_matmul(A, B):
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((A.shape[0], B.shape[1]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def ab_vars():
    A = relax.Var("A", relax.TensorStructInfo((128, 128), "float32"))
    B = relax.Var("B", relax.TensorStructInfo((128, 128), "float32"))
    return A, B


def build_params_at_end():
    A, B = ab_vars()
    bb = relax.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            C = bb.emit_te(te_matmul, A, B)
            D = bb.emit_te(te_relu, C)
            R = bb.emit_output(D)
        bb.emit_func_output(R, params=[A, B])
    return bb.get()


def build_params_at_start():
    A, B = ab_vars()
    bb = relax.BlockBuilder()
    with bb.function("main", params=[A, B]):
        with bb.dataflow():
            C = bb.emit_te(te_matmul, A, B)
            D = bb.emit_te(te_relu, C)
            R = bb.emit_output(D)
        bb.emit_func_output(R)
    return bb.get()


def check_vm(mod):
    ex = relax.build(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a, b = np.random.randn(128, 128).astype("float32"), np.random.randn(128, 128).astype("float32")
    out = vm["main"](tvm.nd.array(a), b)
    np.testing.assert_allclose(out.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make", [build_params_at_end, build_params_at_start])
def test_block_builder_prints_as_tvm_and_runs(make, capsys):
    mod = make()
    mod.show()
    assert capsys.readouterr().out == TVM_HEADER_MODULE + BB_MATMUL_RELU + "\n"
    check_vm(mod)


def test_struct_info_classes():
    n = tir.Var("n", "int64")
    t = relax.TensorStructInfo((n, 4), "float32")
    assert t.ndim == 2 and t.dtype == "float32" and str(t) == 'R.Tensor((n, 4), dtype="float32")'
    assert str(relax.TensorStructInfo(ndim=2, dtype="float16")) == 'R.Tensor(dtype="float16", ndim=2)'
    assert str(relax.ShapeStructInfo([n, 4])) == "R.Shape([n, 4])"
    assert str(relax.ShapeStructInfo(ndim=3)) == "R.Shape(ndim=3)"
    assert str(relax.PrimStructInfo("int64")) == 'R.Prim("int64")'
    assert str(relax.ObjectStructInfo()) == "R.Object"
    tup = relax.TupleStructInfo([t, relax.ObjectStructInfo()])
    assert len(tup.fields) == 2 and isinstance(tup.fields[0], relax.TensorStructInfo)
    assert relax.DynTensorType(2, "float32").ndim == 2


def test_emit_ops_match_cast_const_tuple_shape():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n, 4), "float32"))
    y = relax.Var("y", relax.TensorStructInfo(ndim=2, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", params=[x, y]):
        assert relax.BlockBuilder.current() is bb
        with bb.dataflow():
            y1 = bb.match_cast(y, relax.TensorStructInfo((n, 4), "float32"))
            lv = bb.emit(relax.op.add(x, y1))
            lv2 = bb.emit(relax.op.multiply(lv, relax.const(np.full((4,), 2.0, "float32"))))
            lv3 = bb.emit(relax.op.sum(lv2, axis=[1], keepdims=False))
            lv4 = bb.emit(relax.op.nn.relu(lv2))
            out = bb.emit_output(relax.Tuple([lv3, lv4]))
        bb.emit_func_output(out)
    assert relax.BlockBuilder.current() is None
    assert str(lv3.struct_info) == 'R.Tensor((n,), dtype="float32")'
    mod = bb.get()
    ex = relax.build(mod, target="c")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a, b = np.random.randn(5, 4).astype("float32"), np.random.randn(5, 4).astype("float32")
    s, r = vm["main"](a, b)
    np.testing.assert_allclose(s.numpy(), ((a + b) * 2).sum(1), rtol=1e-5)
    np.testing.assert_allclose(r.numpy(), np.maximum((a + b) * 2, 0), rtol=1e-6)
    shp = relax.ShapeExpr([n, 4])
    assert shp.kind == "ShapeExpr"
    assert relax.const(1.5).struct_info is not None or True
    assert relax.const(np.zeros((2, 3), "int64"), "int32") is not None
    assert relax.const(np.zeros((2,)), relax.DynTensorType(1, "float32")) is not None


def test_ops_generated_from_registry():
    names = relax.op.op_names()
    assert len(names) > 50
    for want in ("add", "matmul", "permute_dims", "reshape"):
        assert callable(getattr(relax.op, want))
    for want in ("relu", "conv2d", "softmax"):
        assert callable(getattr(relax.op.nn, want))
    with pytest.raises(tvm.error.NotFoundError, match="unknown op 'no_such_op'"):
        relax.op.get_op("no_such_op")


def test_bad_op_arguments_are_errors():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 5), "float32"))
    bb = relax.BlockBuilder()
    with pytest.raises(tvm.RLXError, match="matmul"):
        with bb.function("main", params=[x, w]):
            bb.emit(relax.op.matmul(x, w))
    with pytest.raises(TypeError, match=r"sum\(\) takes at most 3 arguments \(4 given\)"):
        relax.op.sum(x, 1, False, 2)
    with pytest.raises(TypeError, match="sum\\(\\) got an unexpected keyword argument 'axes'"):
        relax.op.sum(x, axes=1)
    with pytest.raises(TypeError, match="sum\\(\\) got multiple values for argument 'axis'"):
        relax.op.sum(x, 1, axis=1)
    with pytest.raises(TypeError, match="conv2d\\(\\) missing required argument: 'weight'"):
        relax.op.nn.conv2d(x)
    with pytest.raises(tvm.RLXError, match="attribute axis must be a list of ints, got a string"):
        with bb.function("main", params=[x]):
            bb.emit(relax.op.sum(x, "1"))
    with bb.function("main", params=[x]):  # the failed functions were dropped
        bb.emit_func_output(bb.emit(relax.op.sum(x, axis=1)))
    assert [gv.name_hint for gv in bb.get().get_global_vars()] == ["main"]


def test_call_tir_add_func_update_func_normalize():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    f = te.create_prim_func([A, B])
    x = relax.Var("x", relax.TensorStructInfo((8,), "float32"))
    bb = relax.BlockBuilder()
    gv = bb.add_func(f, "add_one")
    with bb.function("main", params=[x]):
        call = relax.call_tir(gv, (x,), relax.TensorStructInfo((8,), "float32"))
        bb.normalize(call)
        assert str(call.struct_info) == 'R.Tensor((8,), dtype="float32")'
        lv = bb.emit(call)
        call2 = bb.call_te(lambda t: te.compute((8,), lambda i: t[i] * 2.0, name="dbl"), lv)
        assert call2.kind == "Call" and str(call2.struct_info) == 'R.Tensor((8,), dtype="float32")'
        bb.emit_func_output(lv)
    C = te.compute((8,), lambda i: A[i] + 2.0, name="B")
    assert gv.name_hint == "add_one"
    bb.update_func(gv, te.create_prim_func([A, C]))
    mod = bb.get()
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    np.testing.assert_allclose(vm["main"](np.ones(8, "float32")).numpy(), np.full(8, 3.0))


def test_relax_function_and_passes():
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", params=[x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.exp(x))
            gv = bb.emit_output(relax.op.add(lv, x))
        bb.emit_func_output(gv)
    mod = bb.get()
    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(), relax.transform.FoldConstant(),
                                    relax.transform.FuseOps(), relax.transform.FuseTIR()])
    with tvm.transform.PassContext(opt_level=3):
        lowered = seq(mod)
    assert "R.call_tir" in lowered.script() and "R.exp" not in lowered.script()
    relax.transform.Normalize()(lowered)
    vm = relax.VirtualMachine(relax.build(lowered), tvm.cpu())
    a = np.random.rand(4).astype("float32")
    np.testing.assert_allclose(vm["main"](a).numpy(), np.exp(a) + a, rtol=1e-6)
    y = relax.Var("y", relax.TensorStructInfo((3,), "float32"))
    fn = relax.Function([y], y, relax.TensorStructInfo((3,), "float32"))
    assert "def main(y: R.Tensor((3,), dtype=\"float32\"))" in fn.script()


def test_build_rejects_other_targets():
    with pytest.raises(NotImplementedError, match="kind 'cuda' is not supported"):
        relax.build(build_params_at_end(), target="cuda")
    with pytest.raises(ValueError, match="unknown -mcpu 'pentium9'"):
        relax.build(build_params_at_end(), target="llvm -mcpu=pentium9")
    relax.build(build_params_at_end(), target="llvm -mcpu=native")


def test_time_evaluator_and_export(tmp_path):
    mod = build_params_at_end()
    ex = relax.build(mod, target="llvm")
    path = str(tmp_path / "model.so")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    vm = relax.VirtualMachine(loaded, tvm.cpu())
    a, b = np.random.randn(128, 128).astype("float32"), np.random.randn(128, 128).astype("float32")
    np.testing.assert_allclose(vm["main"](a, b).numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)
    res = vm.time_evaluator("main", tvm.cpu(), number=2, repeat=3)(a, b)
    assert len(res.results) == 3 and res.mean > 0 and res.median > 0
    with pytest.raises(ValueError, match="no function"):
        vm["nope"]
    with pytest.raises(tvm.RLXError, match="main takes 2 inputs"):
        vm["main"](a)


def test_extern_calls_through_the_block_builder():
    @tvm.register_func("test_relax.sub_one_dps", override=True)
    def sub_one(x, out):
        out.copyfrom(x.numpy() - 1)

    @tvm.register_func("test_relax.halve", override=True)
    def halve(x):
        return x.numpy() / 2

    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n,), "float32"))
    dv = relax.DataflowVar("unused", relax.TensorStructInfo((n,), "float32"))
    assert dv.name_hint == "unused"
    bb = relax.BlockBuilder()
    with bb.function("main", params=[x], pure=False):
        lv = bb.emit(relax.call_dps_packed(relax.ExternFunc("test_relax.sub_one_dps"), [x],
                                           relax.TensorStructInfo((n,), "float32")))
        lv2 = bb.emit(relax.call_packed("test_relax.halve", lv, sinfo_args=relax.TensorStructInfo((n,), "float32")))
        bb.emit_func_output(relax.Tuple([lv2, lv]))
    mod = bb.get()
    text = mod.script()
    assert 'R.call_dps_packed("test_relax.sub_one_dps"' in text and 'R.call_packed("test_relax.halve"' in text
    m2 = tvm.IRModule()
    m2[mod.get_global_var("main")] = mod["main"]
    vm = relax.VirtualMachine(relax.build(m2), tvm.cpu())
    for size in (2, 5):
        a = np.arange(size, dtype="float32")
        h, s = vm["main"](a)
        np.testing.assert_allclose(s.numpy(), a - 1)
        np.testing.assert_allclose(h.numpy(), (a - 1) / 2)


def test_tvm_script_conveniences():
    mod = build_params_at_end()
    ex = tvm.compile(mod, target=tvm.target.Target("llvm"))
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a, b = np.random.randn(128, 128).astype("float32"), np.random.randn(128, 128).astype("float32")
    tvm.testing.assert_allclose(vm["main"](a, b), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)
    with pytest.raises(NotImplementedError, match="not supported"):
        tvm.target.Target("cuda")


def test_op_attributes_positionally_in_tvm_order():
    # The registry records each op's TVM signature; relax.op takes attributes by position.
    x = relax.Var("x", relax.TensorStructInfo(ndim=4, dtype="float32"))
    w = relax.Var("w", relax.TensorStructInfo(ndim=4, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            gv = bb.emit_output(relax.op.nn.conv2d(x, w, (1, 1), (0, 0, 0, 0), (1, 1), 1, "NCHW", "OIHW", "NCHW",
                                                   "float32"), name_hint="gv")
        bb.emit_func_output(gv)
    text = bb.get().script()
    assert text == "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n" + TVM_CONV2D_NDIM4.rstrip("\n")

    x = relax.Var("x", relax.TensorStructInfo((2, 3, 28, 28), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 3, 3, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            gv = bb.emit(relax.op.nn.conv2d(x, w, out_dtype="float32"), name_hint="gv")
            gv2 = bb.emit(relax.op.nn.relu(gv), name_hint="gv2")
            gv3 = bb.emit(relax.op.concat([gv, gv2], 1), name_hint="gv3")
            gv4 = bb.emit_output(relax.op.split(gv3, 2, 1), name_hint="gv4")
        bb.emit_func_output(gv4)
    lines = bb.get().script().splitlines()
    for want in TVM_CONCAT_SPLIT_LINES:
        assert want in lines

    # Positional and keyword forms build the same calls.
    y = relax.Var("y", relax.TensorStructInfo((2, 3, 4, 4), "float32"))
    pairs = [
        (relax.op.sum(y, 1), relax.op.sum(y, axis=1)),
        (relax.op.mean(y, [0, 1], True), relax.op.mean(y, axis=[0, 1], keepdims=True)),
        (relax.op.argmax(y, 2, False), relax.op.argmax(y, axis=2, keepdims=False)),
        (relax.op.permute_dims(y, [1, 0, 3, 2]), relax.op.permute_dims(y, axes=[1, 0, 3, 2])),
        (relax.op.nn.max_pool2d(y, (2, 2), (2, 2), (0, 0), (1, 1), True),
         relax.op.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2), padding=(0, 0), dilation=(1, 1),
                                ceil_mode=True)),
        (relax.op.nn.softmax(y, 1), relax.op.nn.softmax(y, axis=1)),
        (relax.op.nn.layer_norm(y, relax.const(np.ones(4, "float32")), relax.const(np.zeros(4, "float32")), [-1], 1e-6),
         relax.op.nn.layer_norm(y, relax.const(np.ones(4, "float32")), relax.const(np.zeros(4, "float32")),
                                axes=[-1], epsilon=1e-6)),
        (relax.op.astype(y, "float16"), relax.op.astype(y, dtype="float16")),
    ]
    def func(e):
        bb = relax.BlockBuilder()
        with bb.function("main", [y]):
            bb.emit_func_output(bb.emit(e))
        return bb.get()["main"]

    for i, (a, b) in enumerate(pairs):
        assert tvm.ir.structural_equal(func(a), func(b)), i
    assert not tvm.ir.structural_equal(func(relax.op.sum(y, 1)), func(relax.op.sum(y, 2)))

    # It runs: sum over axis 1 given positionally.
    bb = relax.BlockBuilder()
    with bb.function("main", [y]):
        bb.emit_func_output(bb.emit(relax.op.sum(y, 1, True)))
    ex = relax.build(bb.get(), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a = np.random.rand(2, 3, 4, 4).astype("float32")
    np.testing.assert_allclose(vm["main"](a).numpy(), a.sum(axis=1, keepdims=True), rtol=1e-6)


def test_const_of_a_0d_array_is_a_scalar():
    # np.ascontiguousarray made 0-d arrays 1-d: R.const([0.25], ...) instead of TVM's scalar.
    c = relax.const(np.array(0.25, "float32"))
    assert c.struct_info.ndim == 0
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(relax.op.multiply(x, c)))
    assert 'R.multiply(x, R.const(0.25, "float32"))' in bb.get().script()


def test_function_attrs_nested_dicts():
    # bb.function(name, params, attrs={...}) with values of every kind, nested dicts and lists
    # included: the function equals the one R.func_attr parses, and prints as TVM prints a
    # string-keyed map (keys sorted).
    attrs = {"num_input": 1, "opt": {"b": {"e": True, "c": "d"}, "a": [1, 2]}, "f": 1.5, "g": [1, "x", [2.5]],
             "h": [3, 4], "s": "text"}
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], attrs=attrs):
        bb.emit_func_output(x)
    mod = bb.get()
    src = '''
@R.function
def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    R.func_attr({"num_input": 1, "opt": {"b": {"e": True, "c": "d"}, "a": [1, 2]}, "f": 1.5, "g": [1, "x", [2.5]], "h": [3, 4], "s": "text"})
    return x
'''
    parsed = tvm.script.from_source(src)
    tvm.ir.assert_structural_equal(mod, parsed)
    want = ('        R.func_attr({"f": 1.5, "g": [1, "x", [T.float32(2.5)]], "h": [3, 4], "num_input": 1, '
            '"opt": {"a": [1, 2], "b": {"c": "d", "e": True}}, "s": "text"})')
    assert want in mod.script().splitlines(), mod.script()
    assert mod.script() == parsed.script()
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](np.array([1.0, 2.0], "float32")).numpy(), [1.0, 2.0])
    # PrimFunc.with_attr takes the same values
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    f = te.create_prim_func([A, B]).with_attr({"opt": {"k": [1, "v"]}, "flag": True})
    assert '    T.func_attr({"flag": T.bool(True), "opt": {"k": [1, "v"]}, "tir.noalias": T.bool(True)})' in \
        f.script().splitlines(), f.script()
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match=r"attribute opt: attribute dicts take string keys, got 1"):
        with bb.function("main", [x], attrs={"opt": {1: 2}}):
            bb.emit_func_output(x)
    with pytest.raises(TypeError, match=r"attribute opt: unsupported attribute value None"):
        with bb.function("main", [x], attrs={"opt": [None]}):
            bb.emit_func_output(x)


# TVM's printed op calls carry every attribute field, absent ones at the default its op
# constructor fills in (lines as TVM prints them, e.g. in its own test expectations).
TVM_DEFAULT_ATTR_LINES = [
    '            lv: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], '
    'dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")',
    '            lv1: R.Tensor((1, 4, 3, 3), dtype="float32") = R.nn.max_pool2d(lv, pool_size=[2, 2], strides=[2, 2], '
    'dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", '
    'out_layout="NCHW")',
    '            lv2: R.Tensor((1, 4, 3, 3), dtype="float32") = R.nn.adaptive_avg_pool2d(lv1, output_size=None, '
    'layout="NCHW", out_layout="NCHW")',
    '            lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)',
    '            lv4: R.Tensor((1, 4, 3, 3), dtype="float32") = R.nn.softmax(lv1, axis=-1)',
    '            lv5: R.Tensor((1, 4, 3, 3), dtype="float32") = R.nn.layer_norm(lv1, g, g, axes=[-1], '
    'epsilon=1.0000000000000001e-05, center=True, scale=True)',
    '            lv6: R.Tuple(R.Tensor((1, 4, 3, 3), dtype="float32"), R.Tensor((4,), dtype="float32"), '
    'R.Tensor((4,), dtype="float32")) = R.nn.batch_norm(lv1, m, m, m, m, axis=1, epsilon=1.0000000000000001e-05, '
    'center=True, scale=True, momentum=0.10000000000000001)',
    '            gv: R.Tensor((2, 4, 3, 3), dtype="float32") = R.concat((lv4, lv5), axis=0)',
]


def default_attrs_module(explicit):
    x = relax.Var("x", relax.TensorStructInfo((1, 3, 8, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 3, 3, 3), "float32"))
    g = relax.Var("g", relax.TensorStructInfo((3,), "float32"))
    m = relax.Var("m", relax.TensorStructInfo((4,), "float32"))
    kw = dict(padding=(0, 0, 0, 0), dilation=(1, 1), groups=1, data_layout="NCHW", out_layout="NCHW") if explicit \
        else {}
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, g, m]):
        with bb.dataflow():
            c = bb.emit(relax.op.nn.conv2d(x, w, strides=(1, 1), **kw))
            p = bb.emit(relax.op.nn.max_pool2d(c, pool_size=(2, 2), strides=(2, 2)))
            a = bb.emit(relax.op.nn.adaptive_avg_pool2d(p, layout="NCHW") if explicit
                        else relax.op.nn.adaptive_avg_pool2d(p))
            bb.emit(relax.op.sum(a, keepdims=False) if explicit else relax.op.sum(a))
            sm = bb.emit(relax.op.nn.softmax(p, axis=-1) if explicit else relax.op.nn.softmax(p))
            ln = bb.emit(relax.op.nn.layer_norm(p, g, g, axes=[-1]))
            bb.emit(relax.op.nn.batch_norm(p, m, m, m, m, axis=1))
            gv = bb.emit_output(relax.op.concat([sm, ln]))
        bb.emit_func_output(gv)
    return bb.get()


def test_op_calls_print_tvm_default_attributes():
    mod = default_attrs_module(explicit=False)
    lines = mod.script().splitlines()
    for want in TVM_DEFAULT_ATTR_LINES:
        assert want in lines, "\n".join(lines)
    # explicit defaults, absent ones and the parsed text are one and the same call
    tvm.ir.assert_structural_equal(default_attrs_module(explicit=True), mod)
    tvm.ir.assert_structural_equal(tvm.script.from_source(mod.script()), mod)
    # values not at their defaults print as given, in TVM's field order
    x = relax.Var("x", relax.TensorStructInfo((1, 3, 8, 8), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        p = bb.emit(relax.op.nn.max_pool2d(x, pool_size=(3, 3), padding=(1, 1, 1, 1), ceil_mode=True,
                                           strides=(2, 2)))
        bb.emit_func_output(p)
    line = [ln for ln in bb.get().script().splitlines() if "max_pool2d" in ln][0]
    assert line.endswith('R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], '
                         'ceil_mode=True, count_include_pad=False, layout="NCHW", out_layout="NCHW")'), line
    # and the module still builds and runs (numpy oracle: conv, 2x2 max pool, softmax and
    # layer norm over the last axis with gamma = beta = 1)
    a = np.random.randn(1, 3, 8, 8).astype("float32")
    wt = np.random.randn(4, 3, 3, 3).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](a, wt, np.ones(3, "float32"), np.ones(4, "float32")).numpy()
    conv = np.zeros((1, 4, 6, 6), "float32")
    for i in range(6):
        for j in range(6):
            conv[0, :, i, j] = np.tensordot(wt, a[0, :, i:i + 3, j:j + 3], axes=([1, 2, 3], [0, 1, 2]))
    pool = conv.reshape(1, 4, 3, 2, 3, 2).max(axis=(3, 5))
    e = np.exp(pool - pool.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    ln = (pool - pool.mean(axis=-1, keepdims=True)) / np.sqrt(pool.var(axis=-1, keepdims=True) + 1e-5) + 1
    np.testing.assert_allclose(out, np.concatenate([sm, ln]), rtol=1e-4, atol=1e-4)
