# pass: fuse_tir
# The group fuse_ops made (the private Relax function fused_matmul_add_relu, "Primitive": 1)
# becomes one PrimFunc of that name, its call a call_tir; the grouped function and the
# PrimFuncs only it called are gone. n comes from the shape of the buffer x binds.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(var_lv: T.handle, b: T.Buffer((T.int64(3),), "float32"), var_T_add: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        lv = T.match_buffer(var_lv, (n, T.int64(3)))
        T_add = T.match_buffer(var_T_add, (n, T.int64(3)))
        # with T.block("root"):
        for ax0, ax1 in T.grid(n, T.int64(3)):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv[v_ax0, v_ax1], b[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = lv[v_ax0, v_ax1] + b[v_ax1]

    @T.prim_func(private=True)
    def matmul(var_x: T.handle, w: T.Buffer((T.int64(4), T.int64(3)), "float32"), var_matmul: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(4)))
        matmul = T.match_buffer(var_matmul, (n, T.int64(3)))
        # with T.block("root"):
        for i, j, k in T.grid(n, T.int64(3), T.int64(4)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_k, v_j])
                T.writes(matmul[v_i, v_j])
                with T.init():
                    matmul[v_i, v_j] = T.float32(0.0)
                matmul[v_i, v_j] = matmul[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]

    @T.prim_func(private=True)
    def relu(var_lv1: T.handle, var_compute: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        lv1 = T.match_buffer(var_lv1, (n, T.int64(3)))
        compute = T.match_buffer(var_compute, (n, T.int64(3)))
        # with T.block("root"):
        for i0, i1 in T.grid(n, T.int64(3)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv1[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(lv1[v_i0, v_i1], T.float32(0.0))

    @R.function(private=True)
    def fused_matmul_add_relu(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((n, 3), dtype="float32"))
            lv1 = R.call_tir(cls.add, (lv, b), out_sinfo=R.Tensor((n, 3), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_sinfo=R.Tensor((n, 3), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            gv: R.Tensor((n, 3), dtype="float32") = cls.fused_matmul_add_relu(x, w, b)
            R.output(gv)
        return gv
# expected:
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_matmul_add_relu(var_x: T.handle, w: T.Buffer((T.int64(4), T.int64(3)), "float32"), b: T.Buffer((T.int64(3),), "float32"), var_compute: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(4)))
        compute = T.match_buffer(var_compute, (n, T.int64(3)))
        # with T.block("root"):
        matmul = T.alloc_buffer((n, T.int64(3)))
        T_add = T.alloc_buffer((n, T.int64(3)))
        for i, j, k in T.grid(n, T.int64(3), T.int64(4)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], w[v_k, v_j])
                T.writes(matmul[v_i, v_j])
                with T.init():
                    matmul[v_i, v_j] = T.float32(0.0)
                matmul[v_i, v_j] = matmul[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]
        for ax0, ax1 in T.grid(n, T.int64(3)):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul[v_ax0, v_ax1], b[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = matmul[v_ax0, v_ax1] + b[v_ax1]
        for i0, i1 in T.grid(n, T.int64(3)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(T_add[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_matmul_add_relu, (x, w, b), out_sinfo=R.Tensor((n, 3), dtype="float32"))
            R.output(gv)
        return gv
