# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

# Calls cu_negate of tests/data/cuda_host.cu (a CUDA source given with --extern).
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        y = R.call_dps_packed("cu_negate", (x,), out_sinfo=R.Tensor((n,), dtype="float32"))
        return y
