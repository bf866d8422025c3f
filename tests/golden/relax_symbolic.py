# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def matmul(var_x: T.handle, var_w1: T.handle, var_matmul: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n, k = T.int64(), T.int64()
        x = T.match_buffer(var_x, (n, k))
        m = T.int64()
        w1 = T.match_buffer(var_w1, (k, m))
        matmul = T.match_buffer(var_matmul, (n, m))
        # with T.block("root"):
        for i, j, k_1 in T.grid(n, m, k):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k_1])
                T.reads(x[v_i, v_k], w1[v_k, v_j])
                T.writes(matmul[v_i, v_j])
                with T.init():
                    matmul[v_i, v_j] = T.float32(0.0)
                matmul[v_i, v_j] = matmul[v_i, v_j] + x[v_i, v_k] * w1[v_k, v_j]

    @R.function(pure=False)
    def main(x: R.Tensor(("n", "k"), dtype="float32"), w: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        n = T.int64()
        k = T.int64()
        m = T.int64()
        cls = Module
        w1: R.Tensor((k, m), dtype="float32") = R.match_cast(w, R.Tensor((k, m), dtype="float32"))
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w1), out_sinfo=R.Tensor((n, m), dtype="float32"))
            lv1 = R.call_dps_packed("my_relu", (lv,), out_sinfo=R.Tensor((n, m), dtype="float32"))
            gv: R.Tensor((n, m), dtype="float32") = lv1
            R.output(gv)
        lv2: R.Tensor((n, m), dtype="float32") = R.call_packed("my_print", gv, sinfo_args=(R.Tensor((n, m), dtype="float32"),))
        lv3: R.Shape([n, m]) = R.call_pure_packed("my_shape", lv2, sinfo_args=(R.Shape([n, m]),))
        lv4: R.Tuple(R.Tensor((n, m), dtype="float32"), R.Shape([n, m])) = (lv2, lv3)
        return lv4[0]
