# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(T.int64(4)):
            with T.block("C"):
                v_i = T.axis.spatial(T.int64(4), i)
                T.reads(A[v_i], B[v_i])
                T.writes(C[v_i])
                C[v_i] = A[v_i] + B[v_i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Object = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        alloc: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        cls.add(x, x, alloc)
        alloc1: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(alloc, x, alloc1)
        R.ExternFunc("my_relu")(alloc1, alloc)
        R.memory.kill_tensor(alloc)
        R.memory.kill_storage(storage)
        return alloc1
