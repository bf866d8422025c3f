"""TVM's printed forms that the binding must reproduce: emit_te of a TE function with several
outputs (a call_tir with a tuple out_sinfo), op attributes given in short form and normalized
as TVM's op constructors normalize them, the default attributes of ops TVM prints in full, the
BlockBuilder's default binding names, and R.Tensor / R.Shape / ... as real struct info.

Oracles: printed text of TVM (quoted below with where it comes from), numpy for numbers."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te, tir, topi
from rlx.script import ir as I, relax as R, tir as T

# TVM's print of LegalizeOps over R.split + R.matmul (a public TVM output collection,
# ShenQingchao/OATest res/tvm_ut/LegalizeOps), with the "op_pattern" function attributes
# left out (AnnotateTIROpPattern adds them, not emit_te) and `T.float32(0.0)` for the era's
# `T.float32(0)` (this suite's TVM prints floats with a fraction, see expected_tvm.py).
TVM_SPLIT_DENSE = '''# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def dense(lv1: T.Buffer((T.int64(1), T.int64(10)), "float32"), w: T.Buffer((T.int64(10), T.int64(10)), "float32"), T_matmul_NT: T.Buffer((T.int64(1), T.int64(10)), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, k in T.grid(T.int64(1), T.int64(10), T.int64(10)):
            with T.block("T_matmul_NT"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv1[v_i0, v_k], w[v_i1, v_k])
                T.writes(T_matmul_NT[v_i0, v_i1])
                with T.init():
                    T_matmul_NT[v_i0, v_i1] = T.float32(0.0)
                T_matmul_NT[v_i0, v_i1] = T_matmul_NT[v_i0, v_i1] + lv1[v_i0, v_k] * w[v_i1, v_k]

    @T.prim_func(private=True)
    def split(x: T.Buffer((T.int64(1), T.int64(30)), "float32"), T_split_sections: T.Buffer((T.int64(1), T.int64(10)), "float32"), T_split_sections_1: T.Buffer((T.int64(1), T.int64(10)), "float32"), T_split_sections_2: T.Buffer((T.int64(1), T.int64(10)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(1), T.int64(10)):
            with T.block("T_split_sections"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1])
                T.writes(T_split_sections[v_ax0, v_ax1])
                T_split_sections[v_ax0, v_ax1] = x[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(10)):
            with T.block("T_split_sections_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1 + T.int64(10)])
                T.writes(T_split_sections_1[v_ax0, v_ax1])
                T_split_sections_1[v_ax0, v_ax1] = x[v_ax0, v_ax1 + T.int64(10)]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(10)):
            with T.block("T_split_sections_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1 + T.int64(20)])
                T.writes(T_split_sections_2[v_ax0, v_ax1])
                T_split_sections_2[v_ax0, v_ax1] = x[v_ax0, v_ax1 + T.int64(20)]

    @R.function
    def main(x: R.Tensor((1, 30), dtype="float32"), w: R.Tensor((10, 10), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split, (x,), out_sinfo=[R.Tensor((1, 10), dtype="float32"), R.Tensor((1, 10), dtype="float32"), R.Tensor((1, 10), dtype="float32")])
            lv1: R.Tensor((1, 10), dtype="float32") = lv[0]
            gv = R.call_tir(cls.dense, (lv1, w), out_sinfo=R.Tensor((1, 10), dtype="float32"))
            R.output(gv)
        return gv'''


def split3(x):
    """topi.split(x, 3, axis=1) written in TE: three outputs, as TVM's C++ topi names them."""
    ten = tir.IntImm("int64", 10)

    def piece(k):
        return te.compute((x.shape[0], ten), lambda ax0, ax1: x[ax0, ax1 + ten * k if k else ax1],
                          name="T_split_sections" + ("_%d" % k if k else ""))

    return [piece(k) for k in range(3)]


def test_emit_te_several_outputs_prints_tvm_text_and_runs():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((1, 30), "float32"))
    w = relax.Var("w", R.Tensor((10, 10), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit_te(split3, x, primfunc_name_hint="split")
            lv1 = bb.emit(lv[0])
            gv = bb.emit_output(bb.call_te(topi.nn.dense, lv1, w))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert mod.script() == TVM_SPLIT_DENSE
    assert str(lv.struct_info) == ('R.Tuple(R.Tensor((1, 10), dtype="float32"), R.Tensor((1, 10), dtype="float32"), '
                                   'R.Tensor((1, 10), dtype="float32"))')
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    a, b = np.random.randn(1, 30).astype("float32"), np.random.randn(10, 10).astype("float32")
    np.testing.assert_allclose(vm["main"](a, b).numpy(), a[:, :10] @ b.T, rtol=1e-5, atol=1e-5)


def test_emit_te_tuple_result_comes_back_as_tuple():
    def two(A):
        return (te.compute(A.shape, lambda i, j: A[i, j] + 1.0, name="B"),
                te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="C"))

    n = tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        gv = bb.emit_te(two, x)
        bb.emit_func_output(gv)
    text = bb.get().script()
    # outside a dataflow block TVM names the binding gv (BlockBuilder's CreateVar)
    assert ('gv = R.call_tir(cls.two, (x,), out_sinfo=[R.Tensor((n, 3), dtype="float32"), '
            'R.Tensor((n, 3), dtype="float32")])') in text
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    for rows in (2, 5):
        a = np.random.randn(rows, 3).astype("float32")
        r = vm["main"](a)
        assert isinstance(r, tuple) and len(r) == 2
        np.testing.assert_allclose(r[0].numpy(), a + 1, rtol=1e-6)
        np.testing.assert_allclose(r[1].numpy(), a * 2, rtol=1e-6)


def test_emit_te_one_element_list_is_a_tensor():
    # TVM's call_tir: a one-element out_sinfo list is the tensor itself
    x = relax.Var("x", R.Tensor((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        gv = bb.emit_te(lambda A: [te.compute(A.shape, lambda i: A[i] * 3.0, name="B")], x)
        bb.emit_func_output(gv)
    assert str(gv.struct_info) == 'R.Tensor((4,), dtype="float32")'
    assert 'out_sinfo=R.Tensor((4,), dtype="float32"))' in bb.get().script()


@pytest.mark.parametrize("ret, msg", [
    (lambda A: [], "must return a te.Tensor or a list of them"),
    (lambda A: [A, 1], "must return a te.Tensor or a list of them"),
    (lambda A: "no", "must return a te.Tensor or a list of them"),
])
def test_emit_te_bad_results_are_type_errors(ret, msg):
    x = relax.Var("x", R.Tensor((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with pytest.raises(TypeError, match=msg):
            bb.emit_te(ret, x)
        bb.emit_func_output(x)  # the builder is still usable


def test_emit_te_same_output_twice_is_an_error():
    x = relax.Var("x", R.Tensor((4,), "float32"))
    bb = relax.BlockBuilder()

    def twice(A):
        B = te.compute(A.shape, lambda i: A[i] + 1.0, name="B")
        return [B, B]

    with bb.function("main", [x]):
        with pytest.raises(tvm.error.RLXError, match="returned tensor 'B' twice"):
            bb.emit_te(twice, x)
        with pytest.raises(tvm.error.RLXError, match="returned its input 0"):
            bb.emit_te(lambda A: [te.compute(A.shape, lambda i: A[i], name="B"), A], x)
        bb.emit_func_output(x)


# ---------------------------------------------------------------- op attributes
def _call_text(expr, *params):
    bb = relax.BlockBuilder()
    with bb.function("main", list(params)):
        gv = bb.emit(expr)
        bb.emit_func_output(gv)
    line = [ln for ln in bb.get().script().splitlines() if ln.strip().startswith("gv:")][0]
    return line.split(" = ", 1)[1]


X4 = relax.Var("x", R.Tensor((2, 3, 8, 8), "float32"))
W4 = relax.Var("w", R.Tensor((4, 3, 3, 3), "float32"))
op = relax.op

# The right-hand sides as TVM prints them: conv2d/pool2d from TVM's op constructors (Python
# widens ints, C++ GetCompletePadding2D a 1- or 2-value padding), e.g. TVM's
# `R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1,
# data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")`.
SHORT_FORMS = [
    (lambda: op.nn.conv2d(X4, W4, padding=(1, 1), strides=1),
     'R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", '
     'kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")'),
    (lambda: op.nn.conv2d(X4, W4, strides=2, padding=1, dilation=1),
     'R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", '
     'kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")'),
    (lambda: op.nn.conv2d(X4, W4, padding=(1, 2)),
     'R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 2, 1, 2], dilation=[1, 1], groups=1, data_layout="NCHW", '
     'kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")'),
    (lambda: op.nn.max_pool2d(X4, 2, 2),
     'R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, '
     'count_include_pad=False, layout="NCHW", out_layout="NCHW")'),
    (lambda: op.nn.avg_pool2d(X4, (3, 3), 1, 1),
     'R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[1, 1], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, '
     'count_include_pad=False, layout="NCHW", out_layout="NCHW")'),
    (lambda: op.nn.adaptive_avg_pool2d(X4, 1),
     'R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout="NCHW", out_layout="NCHW")'),
    (lambda: op.sum(X4, 1), 'R.sum(x, axis=[1], keepdims=False)'),
    (lambda: op.mean(X4, axis=-1, keepdims=True), 'R.mean(x, axis=[-1], keepdims=True)'),
    (lambda: op.expand_dims(X4, 0), 'R.expand_dims(x, axis=[0])'),
    (lambda: op.tile(X4, 2), 'R.tile(x, repeats=[2])'),
    # an int here counts sections (TVM keeps it an int)
    (lambda: op.split(X4, 2, axis=1), 'R.split(x, indices_or_sections=2, axis=1)'),
]


@pytest.mark.parametrize("make, expected", SHORT_FORMS)
def test_short_attribute_forms_print_as_tvm_normalizes_them(make, expected):
    assert _call_text(make(), X4, W4) == expected


def test_short_forms_run_like_the_long_forms():
    x = np.random.randn(2, 3, 8, 8).astype("float32")
    w = np.random.randn(4, 3, 3, 3).astype("float32")
    outs = []
    for kw in ({"padding": (1, 1), "strides": 1}, {"padding": [1, 1, 1, 1], "strides": [1, 1]}):
        bb = relax.BlockBuilder()
        with bb.function("main", [X4, W4]):
            gv = bb.emit(op.nn.conv2d(X4, W4, **kw))
            bb.emit_func_output(gv)
        vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
        outs.append(vm["main"](x, w).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    # against a direct convolution in numpy (padding 1, stride 1)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 4, 8, 8), "float32")
    for i in range(3):
        for j in range(3):
            ref += np.einsum("nchw,oc->nohw", xp[:, :, i:i + 8, j:j + 8], w[:, :, i, j])
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)


def test_parser_normalizes_short_forms_too():
    from rlx.script import from_source
    src = '''
@R.function
def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
    gv = R.nn.conv2d(x, w, strides=1, padding=[1, 1])
    gv1 = R.sum(gv, axis=1)
    return gv1
'''
    text = from_source(src).script()
    assert ('R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, '
            'data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")') in text
    assert "R.sum(gv, axis=[1], keepdims=False)" in text
    long_form = src.replace("strides=1, padding=[1, 1]", "strides=[1, 1], padding=[1, 1, 1, 1]").replace(
        "axis=1", "axis=[1]")
    tvm.ir.assert_structural_equal(from_source(src), from_source(long_form))


I2 = relax.Var("i", R.Tensor((2,), "int64"))
I4 = relax.Var("idx", R.Tensor((2, 3, 8, 8), "int64"))

# Ops outside conv/pool/norm/reduce: every field of the op's attrs node, absent ones at the
# value TVM's op function passes. Printed forms from TVM (OATest's LegalizeOps inputs):
# `R.take(x, indices, axis=1)`, `R.flip(x, axis=1)`, `R.tile(x, repeats=[2, 1, 2, 3])`,
# `R.scatter_elements(x, indices, updates, axis=1, reduction="update")`; the others per the
# attrs nodes (GatherElementsAttrs axis=0, OneHotAttrs axis=-1, TriluAttrs k).
DEFAULTS = [
    (lambda: op.take(X4, I2, axis=1), 'R.take(x, i, axis=1)'),
    (lambda: op.flip(X4, 1), 'R.flip(x, axis=1)'),
    (lambda: op.tile(X4, [2, 1, 2, 3]), 'R.tile(x, repeats=[2, 1, 2, 3])'),
    (lambda: op.scatter_elements(X4, I4, X4, axis=1),
     'R.scatter_elements(x, idx, x, axis=1, reduction="update")'),
    (lambda: op.scatter_elements(X4, I4, X4), 'R.scatter_elements(x, idx, x, axis=0, reduction="update")'),
    (lambda: op.gather_elements(X4, I4), 'R.gather_elements(x, idx, axis=0)'),
    (lambda: op.tril(X4), 'R.tril(x, k=0)'),
    (lambda: op.triu(X4, 1), 'R.triu(x, k=1)'),
]


@pytest.mark.parametrize("make, expected", DEFAULTS)
def test_ops_print_tvm_default_attributes(make, expected):
    assert _call_text(make(), X4, I2, I4) == expected


def test_default_attributes_round_trip():
    bb = relax.BlockBuilder()
    with bb.function("main", [X4, I2, I4]):
        for make, _ in DEFAULTS + SHORT_FORMS[6:]:
            bb.emit(make())
        bb.emit_func_output(X4)
    mod = bb.get()
    from rlx.script import from_source
    tvm.ir.assert_structural_equal(from_source(mod.script()), mod)


# ---------------------------------------------------------------- names and struct info sugar
def test_default_binding_names_follow_tvm():
    # TVM's BlockBuilder: lv inside a dataflow block, gv for its outputs and outside one
    x = relax.Var("x", R.Tensor((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        a = bb.emit(op.add(x, x))
        with bb.dataflow():
            b = bb.emit(op.multiply(a, a))
            c = bb.emit_output(op.add(b, x))
        d = bb.match_cast(c, R.Tensor((2,), "float32"))
        bb.emit_func_output(d)
    assert [v.name_hint for v in (a, b, c, d)] == ["gv", "lv", "gv1", "gv2"]


def test_script_struct_info_sugar_is_real_struct_info():
    x = relax.Var("x", R.Tensor((2, "n"), "float32"))
    assert isinstance(x.struct_info, relax.TensorStructInfo)
    assert str(x.struct_info) == 'R.Tensor((2, n), dtype="float32")'
    assert str(R.Tensor(ndim=2)) == "R.Tensor(ndim=2)"
    assert str(R.Tensor("float16", ndim=3)) == 'R.Tensor(dtype="float16", ndim=3)'
    assert str(R.Shape([1, 2])) == "R.Shape([1, 2])"
    assert str(R.Shape(ndim=3)) == "R.Shape(ndim=3)"
    assert str(R.Prim("int64")) == 'R.Prim("int64")'
    assert isinstance(R.Object, relax.ObjectStructInfo) and R.Object() is R.Object
    t = R.Tuple(R.Tensor((2,), "int32"), R.Object)
    assert str(t) == 'R.Tuple(R.Tensor((2,), dtype="int32"), R.Object)'
    # usable by the BlockBuilder like any struct info
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        gv = bb.emit(op.add(x, x))
        bb.emit_func_output(gv)
    assert 'def main(x: R.Tensor((2, "n"), dtype="float32")) -> R.Tensor((2, "n"), dtype="float32"):' in \
        bb.get().script()


# ---------------------------------------------------------------- names the audit found untested
def test_dlpack_protocol_methods_directly():
    torch = pytest.importorskip("torch")
    x = tvm.nd.array(np.arange(4, dtype="float32"))
    assert x.__dlpack_device__() == (1, 0)  # (kDLCPU, device 0)
    t = torch.utils.dlpack.from_dlpack(x.__dlpack__())
    t[3] = -1.0  # zero copy: the write shows through the NDArray
    np.testing.assert_array_equal(x.numpy(), [0, 1, 2, -1])
    y = tvm.nd.from_dlpack(t)  # and back again, still the same memory
    y_np = np.from_dlpack(y)
    t[0] = 7.0
    assert y_np[0] == 7.0 and y.numpy()[0] == 7.0


def test_static_plan_block_memory_by_tvm_name():
    x = relax.Var("x", R.Tensor((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(op.exp(x))
            lv1 = bb.emit(op.multiply(lv, x))
            gv = bb.emit_output(op.add(lv1, x))
        bb.emit_func_output(gv)
    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(), relax.transform.CallTIRRewrite(),
                                    relax.transform.StaticPlanBlockMemory()])
    planned = seq(bb.get())
    text = planned.script()
    assert 'R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"),' in text
    assert 'R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))' in text
    vm = relax.VirtualMachine(relax.build(planned), tvm.cpu())
    a = np.random.rand(4).astype("float32")
    np.testing.assert_allclose(vm["main"](a).numpy(), np.exp(a) * a + a, rtol=1e-6)


# TVM's tests/python/te/test_te_create_primfunc.py::test_tensor_layout_attr expects this
# function (`expected_layout_attr`, written there in the older TVMScript syntax; here as
# today's printer writes it): the parameter B becomes "layout_free_buffers": [1], the
# intermediate C stays as D's block annotation.
TVM_LAYOUT_ATTR = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), D: T.Buffer((128, 128), "float32")):
    T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})
    # with T.block("root"):
    C = T.alloc_buffer((128, 128))
    for x, y, k in T.grid(128, 128, 128):
        with T.block("C"):
            v_x, v_y, v_k = T.axis.remap("SSR", [x, y, k])
            T.reads(A[v_x, v_k], B[v_y, v_k])
            T.writes(C[v_x, v_y])
            with T.init():
                C[v_x, v_y] = T.float32(0.0)
            C[v_x, v_y] = C[v_x, v_y] + A[v_x, v_k] * B[v_y, v_k]
    for x, y in T.grid(128, 128):
        with T.block("D"):
            v_x, v_y = T.axis.remap("SS", [x, y])
            T.reads(C[v_x, v_y])
            T.writes(D[v_x, v_y])
            T.block_attr({"layout_free_placeholders": [C]})
            D[v_x, v_y] = C[v_x, v_y] + T.float32(1.0)'''


def test_intermediate_layout_free_placeholder_is_a_block_attr():
    k = te.reduce_axis((0, 128), "k")
    A = te.placeholder((128, 128), name="A")
    B = te.placeholder((128, 128), name="B")
    C = te.compute((128, 128), lambda x, y: te.sum(A[x, k] * B[y, k], axis=k), name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((128, 128), lambda x, y: C[x, y] + 1.0, name="D", attrs={"layout_free_placeholders": [C]})
    func = te.create_prim_func([A, B, D])
    assert func.script() == TVM_LAYOUT_ATTR
    from rlx.script import from_source
    tvm.ir.assert_structural_equal(from_source(func.script()), func)
    a, b = np.random.rand(128, 128).astype("float32"), np.random.rand(128, 128).astype("float32")
    d = tvm.nd.empty((128, 128), "float32")
    tvm.build(func, target="llvm")["main"](tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), a @ b.T + 1, rtol=1e-4, atol=1e-4)


KERNEL_C = r'''
#include "rlx/extern.h"
static int negate(DLTensor* x, DLTensor* out) {
  long long n = 1;
  for (int d = 0; d < x->ndim; d++) n *= x->shape[d];
  const float* a = (const float*)x->data;
  float* o = (float*)out->data;
  for (long long i = 0; i < n; i++) o[i] = -a[i];
  return 0;
}
RLX_EXPORT_DPS_2(ext_negate, negate)
'''


@I.ir_module
class CallsExternal:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        lv = R.call_dps_packed("test_forms.negate", (x,), out_sinfo=R.Tensor((n,), "float32"))
        return lv


def test_any_packed_abi_library_loads_and_registers(tmp_path):
    """load_module of a library built outside rlx (the packed ABI of include/rlx/extern.h):
    lib["symbol"] calls it, and register_func makes it reachable from R.call_dps_packed."""
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    src = tmp_path / "neg.c"
    src.write_text(KERNEL_C)
    so = str(tmp_path / "libneg.so")
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O1", "-I", os.path.join(root, "include"),
                    str(src), "-o", so], check=True)
    lib = tvm.runtime.load_module(so)
    a = np.random.randn(5).astype("float32")
    out = tvm.nd.empty((5,), "float32")
    lib["ext_negate"](tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), -a)
    with pytest.raises(tvm.RLXError, match="exactly 2|argument"):
        lib["ext_negate"](tvm.nd.array(a))
    tvm.register_func("test_forms.negate", lib["ext_negate"], override=True)
    vm = relax.VirtualMachine(relax.build(CallsExternal, "llvm"), tvm.cpu())
    for n in (2, 9):
        x = np.random.randn(n).astype("float32")
        np.testing.assert_array_equal(vm["main"](x).numpy(), -x)


@I.ir_module
class EveryForm:
    @T.prim_func(private=True)
    def add1(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"layout_free_buffers": [], "tir.noalias": T.bool(True), "opt": {"a": [1, 2.5, "s", T.bool(False)]}})
        for i, j in T.grid(T.int64(2), T.int64(3)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), o: R.Object, o2: R.Object(), t: R.Tensor(ndim=2),
             s: R.Shape([2, 3]), p: R.Prim("int64"), tp: R.Tuple(R.Tensor((2, 3), "float32"), R.Shape(ndim=2))
             ) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Prim("int64")):
        R.func_attr({"num_input": 2, "nested": {"k": [1, 2]}})
        cls = EveryForm
        a = R.call_tir(cls.add1, (x,), out_sinfo=R.Tensor((2, 3), dtype="float32"))
        b = R.call_tir(cls.add1, (a,), out_sinfo=[R.Tensor((2, 3), dtype="float32")])
        c = R.call_pure_packed("test_forms.twice", b, sinfo_args=(R.Tensor((2, 3), dtype="float32"),))
        d = R.call_pure_packed("test_forms.twice", c, sinfo_args=R.Tensor((2, 3), dtype="float32"))
        e = R.add(d, R.const(0.5, "float32"))
        f = R.multiply(e, R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
        return (f, tp[0], p)


def test_every_struct_info_and_call_form_parses_and_runs():
    @tvm.register_func("test_forms.twice", override=True)
    def twice(v):
        return v.numpy() * 2

    text = EveryForm.script()
    for want in ('o: R.Object, o2: R.Object, t: R.Tensor(ndim=2), s: R.Shape([2, 3]), p: R.Prim("int64")',
                 'R.func_attr({"nested": {"k": [1, 2]}, "num_input": 2})',
                 # a Python float in a TIR attribute is a FloatImm, which TVM prints T.float32(2.5)
                 '"opt": {"a": [1, T.float32(2.5), "s", T.bool(False)]}',
                 'metadata["relax.expr.Constant"][0]'):
        assert want in text, want
    tvm.ir.assert_structural_equal(tvm.script.from_source(EveryForm.script(show_meta=True)), EveryForm)
    vm = relax.VirtualMachine(relax.build(EveryForm, "llvm"), tvm.cpu())
    x = np.random.rand(2, 3).astype("float32")
    tp = (np.ones((2, 3), "float32"), tvm.runtime.ShapeTuple([4, 5]))
    f, t0, p = vm["main"](x, tvm.nd.array(x), tvm.nd.array(x), x, tvm.runtime.ShapeTuple([2, 3]), 7, tp)
    np.testing.assert_allclose(f.numpy(), ((x + 2) * 4 + 0.5) * np.arange(1, 7, dtype="float32").reshape(2, 3),
                               rtol=1e-6)
    np.testing.assert_array_equal(t0.numpy(), tp[0])
    assert p == 7
    # printed without the metadata section, the module still parses, but building it is an error
    elided = tvm.script.from_source(EveryForm.script())
    with pytest.raises(tvm.RLXError, match="left out when the module was printed"):
        relax.build(elided, "llvm")


# TVM's "Transformation" tutorial (LegalizeOps of an MLP), its T_transpose kernel: C++ topi
# names the loops ax0, ax1 (T.bool(True) for the later tutorial's bare True, this suite's era).
TVM_TRANSPOSE = '''    @T.prim_func(private=True)
    def transpose(fc2_weight: T.Buffer((T.int64(10), T.int64(128)), "float32"), T_transpose: T.Buffer((T.int64(128), T.int64(10)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(128), T.int64(10)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(fc2_weight[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = fc2_weight[v_ax1, v_ax0]
'''


def test_topi_transpose_names_loops_as_tvm():
    w = relax.Var("fc2_weight", R.Tensor((10, 128), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [w]):
        with bb.dataflow():
            gv = bb.emit_output(bb.call_te(topi.transpose, w))
        bb.emit_func_output(gv)
    assert TVM_TRANSPOSE in bb.get().script()
    # LegalizeOps of R.permute_dims gives the same kernel, as in the tutorial
    bb = relax.BlockBuilder()
    with bb.function("main", [w]):
        with bb.dataflow():
            gv = bb.emit_output(op.permute_dims(w))
        bb.emit_func_output(gv)
    legal = relax.transform.LegalizeOps()(bb.get())
    assert TVM_TRANSPOSE in legal.script()
    a = np.random.rand(10, 128).astype("float32")
    vm = relax.VirtualMachine(relax.build(legal, "llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](a).numpy(), a.T)
