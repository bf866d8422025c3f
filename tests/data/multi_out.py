# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

# A multi-output extern (out_sinfo is a list: the call gives a tuple), one symbol called
# with float32 and float64 tensors in the same module.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32"), y: R.Tensor((4,), dtype="float64")) -> R.Tuple(R.Tensor(("n", 3), dtype="float32"), R.Tensor(("n", 3), dtype="float32"), R.Tensor((4,), dtype="float64"), R.Tensor((4,), dtype="float64")):
        n = T.int64()
        t = R.call_dps_packed("split_sign", (x,), out_sinfo=[R.Tensor((n, 3), dtype="float32"), R.Tensor((n, 3), dtype="float32")])
        u = R.call_dps_packed("split_sign", (y,), out_sinfo=[R.Tensor((4,), dtype="float64"), R.Tensor((4,), dtype="float64")])
        return (t[0], t[1], u[0], u[1])
