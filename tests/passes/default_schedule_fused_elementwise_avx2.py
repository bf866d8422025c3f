# pass: default_schedule
# target: c -mcpu=x86-64-v3
# The fused add + relu PrimFunc gets the default CPU schedule (split, parallel outer loop,
# vectorized inner loop) and tir.is_scheduled; the Relax function is unchanged. An AVX2
# target: 8 lanes (default_schedule_fused_elementwise.py: 16 for AVX-512).
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_add_relu(var_x: T.handle, var_y: T.handle, var_compute: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n,))
        y = T.match_buffer(var_y, (n,))
        compute = T.match_buffer(var_compute, (n,))
        # with T.block("root"):
        T_add = T.alloc_buffer((n,))
        for ax0 in range(n):
            with T.block("T_add"):
                v_ax0 = T.axis.spatial(n, ax0)
                T.reads(x[v_ax0], y[v_ax0])
                T.writes(T_add[v_ax0])
                T_add[v_ax0] = x[v_ax0] + y[v_ax0]
        for i0 in range(n):
            with T.block("compute"):
                v_i0 = T.axis.spatial(n, i0)
                T.reads(T_add[v_i0])
                T.writes(compute[v_i0])
                compute[v_i0] = T.max(T_add[v_i0], T.float32(0.0))

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
        for i0_0 in T.parallel((n + T.int64(7)) // T.int64(8)):
            for i0_1 in T.vectorized(T.int64(8)):
                with T.block("compute"):
                    v_i0 = T.axis.spatial(n, i0_0 * T.int64(8) + i0_1)
                    T.where(i0_0 * T.int64(8) + i0_1 < n)
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
