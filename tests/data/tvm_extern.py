# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

# Calls the TVM-style kernels of tvm_kernels.cc: a scalar add over 0-d tensors, and a
# shape-checking kernel over a symbolic 4-d tensor (main) and a symbolic 3-d one (main3).
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((), dtype="float32"), b: R.Tensor((), dtype="float32"), x: R.Tensor(("n", "c", "h", "w"), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor(("n", "c", "h", "w"), dtype="float32")):
        n = T.int64()
        c = T.int64()
        h = T.int64()
        w = T.int64()
        s = R.call_dps_packed("tvm_scalar_add", (a, b), out_sinfo=R.Tensor((), dtype="float32"))
        y = R.call_dps_packed("tvm_shape_check", (x,), out_sinfo=R.Tensor((n, c, h, w), dtype="float32"))
        return (s, y)

    @R.function
    def main3(x: R.Tensor(("n", "m", "k"), dtype="float32")) -> R.Tensor(("n", "m", "k"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        k = T.int64()
        y = R.call_dps_packed("tvm_shape_check", (x,), out_sinfo=R.Tensor((n, m, k), dtype="float32"))
        return y
