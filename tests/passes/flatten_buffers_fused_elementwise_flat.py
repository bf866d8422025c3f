# pass: flatten_buffers
# TIR: the fused, scheduled PrimFunc's buffer accesses (after lower_blocks) become accesses of flat 1-D buffers.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_add_relu(var_x: T.handle, var_y: T.handle, var_compute: T.handle):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n,))
        y = T.match_buffer(var_y, (n,))
        compute = T.match_buffer(var_compute, (n,))
        for i0_0 in T.parallel((n + T.int64(15)) // T.int64(16)):
            for i0_1 in T.vectorized(T.int64(16)):
                if i0_0 * T.int64(16) + i0_1 < n:
                    compute[i0_0 * T.int64(16) + i0_1] = T.max(x[i0_0 * T.int64(16) + i0_1] + y[i0_0 * T.int64(16) + i0_1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_packed("vm.builtin.alloc_shape_heap", R.prim_value(1), sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
        _: R.Object = R.call_packed("vm.builtin.check_tensor_info", x, R.prim_value(1), R.dtype("float32"), R.str("main: parameter x"), sinfo_args=(R.Object,))
        __1: R.Object = R.call_packed("vm.builtin.match_shape", x, shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(0), R.str("main: parameter x"), R.str("(n,)"), sinfo_args=(R.Object,))
        __2: R.Object = R.call_packed("vm.builtin.check_tensor_info", y, R.prim_value(1), R.dtype("float32"), R.str("main: parameter y"), sinfo_args=(R.Object,))
        __3: R.Object = R.call_packed("vm.builtin.match_shape", y, shape_heap, R.prim_value(1), R.prim_value(2), R.prim_value(0), R.str("main: parameter y"), R.str("(n,)"), sinfo_args=(R.Object,))
        shape: R.Shape([n]) = R.call_packed("vm.builtin.make_shape", shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(0), sinfo_args=(R.Shape([n]),))
        alloc: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(shape, R.dtype("float32"), R.prim_value(0))
        cls.fused_add_relu(x, y, alloc)
        return alloc
# expected:
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_add_relu(var_x: T.handle, var_y: T.handle, var_compute: T.handle):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n,))
        y = T.match_buffer(var_y, (n,))
        compute = T.match_buffer(var_compute, (n,))
        for i0_0 in T.parallel((n + T.int64(15)) // T.int64(16)):
            for i0_1 in T.vectorized(T.int64(16)):
                if i0_0 * T.int64(16) + i0_1 < n:
                    compute[i0_0 * T.int64(16) + i0_1] = T.max(x[i0_0 * T.int64(16) + i0_1] + y[i0_0 * T.int64(16) + i0_1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_packed("vm.builtin.alloc_shape_heap", R.prim_value(1), sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
        _: R.Object = R.call_packed("vm.builtin.check_tensor_info", x, R.prim_value(1), R.dtype("float32"), R.str("main: parameter x"), sinfo_args=(R.Object,))
        __1: R.Object = R.call_packed("vm.builtin.match_shape", x, shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(0), R.str("main: parameter x"), R.str("(n,)"), sinfo_args=(R.Object,))
        __2: R.Object = R.call_packed("vm.builtin.check_tensor_info", y, R.prim_value(1), R.dtype("float32"), R.str("main: parameter y"), sinfo_args=(R.Object,))
        __3: R.Object = R.call_packed("vm.builtin.match_shape", y, shape_heap, R.prim_value(1), R.prim_value(2), R.prim_value(0), R.str("main: parameter y"), R.str("(n,)"), sinfo_args=(R.Object,))
        shape: R.Shape([n]) = R.call_packed("vm.builtin.make_shape", shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(0), sinfo_args=(R.Shape([n]),))
        alloc: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(shape, R.dtype("float32"), R.prim_value(0))
        cls.fused_add_relu(x, y, alloc)
        return alloc
