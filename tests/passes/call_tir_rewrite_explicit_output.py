# pass: call_tir_rewrite
# R.call_tir becomes an explicit R.builtin.alloc_tensor of the output (shape (n,)) and a DPS call
# of the PrimFunc with the output passed last.
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
        # with T.block("root"):
        for i0_0 in T.parallel((n + T.int64(15)) // T.int64(16)):
            for i0_1 in T.vectorized(T.int64(16)):
                with T.block("compute"):
                    v_i0 = T.axis.spatial(n, i0_0 * T.int64(16) + i0_1)
                    T.where(i0_0 * T.int64(16) + i0_1 < n)
                    T.reads(x[v_i0], y[v_i0])
                    T.writes(compute[v_i0])
                    compute[v_i0] = T.max(x[v_i0] + y[v_i0], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_add_relu, (x, y), out_sinfo=R.Tensor((n,), dtype="float32"))
            R.output(gv)
        return gv
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
        # with T.block("root"):
        for i0_0 in T.parallel((n + T.int64(15)) // T.int64(16)):
            for i0_1 in T.vectorized(T.int64(16)):
                with T.block("compute"):
                    v_i0 = T.axis.spatial(n, i0_0 * T.int64(16) + i0_1)
                    T.where(i0_0 * T.int64(16) + i0_1 < n)
                    T.reads(x[v_i0], y[v_i0])
                    T.writes(compute[v_i0])
                    compute[v_i0] = T.max(x[v_i0] + y[v_i0], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0))
        cls.fused_add_relu(x, y, alloc)
        return alloc
