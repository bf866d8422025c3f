# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n, k = T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, k))
        m = T.int64()
        B = T.match_buffer(var_B, (k, m))
        C = T.match_buffer(var_C, (n, m))
        # with T.block("root"):
        for i, j, l in T.grid(n, m, k):
            with T.block("C"):
                v_i, v_j, v_l = T.axis.remap("SSR", [i, j, l])
                T.reads(A[v_i, v_l], B[v_l, v_j])
                T.writes(C[v_i, v_j])
                with T.init():
                    C[v_i, v_j] = T.float32(0.0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_l] * B[v_l, v_j]

    @R.function(pure=False)
    def main(x: R.Tensor(("n", "k"), dtype="float32"), w: R.Tensor(("k", "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        k = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((n, m), dtype="float32"))
            gv: R.Tensor((n, m), dtype="float32") = lv
            R.output(gv)
        lv1: R.Tensor((n, m), dtype="float32") = R.call_packed("ext_scale2", gv, sinfo_args=(R.Tensor((n, m), dtype="float32"),))
        lv2 = R.call_dps_packed("ext_relu", (lv1,), out_sinfo=R.Tensor((n, m), dtype="float32"))
        return lv2
