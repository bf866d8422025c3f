# pass: plan_memory
# The two intermediates of shape (4,) get storages of 16 bytes (alloc_storage + alloc_tensor) and
# are killed after their last use; the function's result keeps its own R.builtin.alloc_tensor.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_sum_multiply(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), lv1: T.Buffer((T.int64(4),), "float32"), T_multiply: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        sum_red = T.alloc_buffer((T.int64(4),))
        for i, k in T.grid(T.int64(4), T.int64(8)):
            with T.block("sum_red"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(x[v_i, v_k])
                T.writes(sum_red[v_i])
                with T.init():
                    sum_red[v_i] = T.float32(0.0)
                sum_red[v_i] = sum_red[v_i] + x[v_i, v_k]
        for ax0_0 in range(T.int64(1)):
            for ax0_1 in T.vectorized(T.int64(4)):
                with T.block("T_multiply"):
                    v_ax0 = T.axis.spatial(T.int64(4), ax0_1)
                    T.reads(sum_red[v_ax0], lv1[v_ax0])
                    T.writes(T_multiply[v_ax0])
                    T_multiply[v_ax0] = sum_red[v_ax0] * lv1[v_ax0]

    @T.prim_func(private=True)
    def sum(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), sum_red: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, k in T.grid(T.int64(4), T.int64(8)):
            with T.block("sum_red"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(x[v_i, v_k])
                T.writes(sum_red[v_i])
                with T.init():
                    sum_red[v_i] = T.float32(0.0)
                sum_red[v_i] = sum_red[v_i] + x[v_i, v_k]

    @T.prim_func(private=True)
    def sum1(lv2: T.Buffer((T.int64(4),), "float32"), sum_red: T.Buffer((), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for k in range(T.int64(4)):
            with T.block("sum_red"):
                v_k = T.axis.reduce(T.int64(4), k)
                T.reads(lv2[v_k])
                T.writes(sum_red[()])
                with T.init():
                    sum_red[()] = T.float32(0.0)
                sum_red[()] = sum_red[()] + lv2[v_k]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.sum(x, alloc)
        alloc_1: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.fused_sum_multiply(x, alloc, alloc_1)
        alloc_2: R.Tensor((), dtype="float32") = R.builtin.alloc_tensor(R.shape([]), R.dtype("float32"), R.prim_value(0))
        cls.sum1(alloc_1, alloc_2)
        return alloc_2
# expected:
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fused_sum_multiply(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), lv1: T.Buffer((T.int64(4),), "float32"), T_multiply: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        sum_red = T.alloc_buffer((T.int64(4),))
        for i, k in T.grid(T.int64(4), T.int64(8)):
            with T.block("sum_red"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(x[v_i, v_k])
                T.writes(sum_red[v_i])
                with T.init():
                    sum_red[v_i] = T.float32(0.0)
                sum_red[v_i] = sum_red[v_i] + x[v_i, v_k]
        for ax0_0 in range(T.int64(1)):
            for ax0_1 in T.vectorized(T.int64(4)):
                with T.block("T_multiply"):
                    v_ax0 = T.axis.spatial(T.int64(4), ax0_1)
                    T.reads(sum_red[v_ax0], lv1[v_ax0])
                    T.writes(T_multiply[v_ax0])
                    T_multiply[v_ax0] = sum_red[v_ax0] * lv1[v_ax0]

    @T.prim_func(private=True)
    def sum(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), sum_red: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, k in T.grid(T.int64(4), T.int64(8)):
            with T.block("sum_red"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(x[v_i, v_k])
                T.writes(sum_red[v_i])
                with T.init():
                    sum_red[v_i] = T.float32(0.0)
                sum_red[v_i] = sum_red[v_i] + x[v_i, v_k]

    @T.prim_func(private=True)
    def sum1(lv2: T.Buffer((T.int64(4),), "float32"), sum_red: T.Buffer((), "float32")):
        T.func_attr({"tir.is_scheduled": T.bool(True), "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for k in range(T.int64(4)):
            with T.block("sum_red"):
                v_k = T.axis.reduce(T.int64(4), k)
                T.reads(lv2[v_k])
                T.writes(sum_red[()])
                with T.init():
                    sum_red[()] = T.float32(0.0)
                sum_red[()] = sum_red[()] + lv2[v_k]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Object = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        alloc: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        cls.sum(x, alloc)
        storage_1: R.Object = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        alloc_1: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage_1, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        cls.fused_sum_multiply(x, alloc, alloc_1)
        R.memory.kill_tensor(alloc)
        alloc_2: R.Tensor((), dtype="float32") = R.builtin.alloc_tensor(R.shape([]), R.dtype("float32"), R.prim_value(0))
        cls.sum1(alloc_1, alloc_2)
        R.memory.kill_tensor(alloc_1)
        R.memory.kill_storage(storage)
        R.memory.kill_storage(storage_1)
        return alloc_2
