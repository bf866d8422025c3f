# A symbolic function whose batch is bounded by tir_var_upper_bound (n <= 64): the MLF entry
# point rejects a larger n.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32")) -> R.Tensor(("n", 8), dtype="float32"):
        n = T.int64()
        R.func_attr({"tir_var_upper_bound": "n=64"})
        with R.dataflow():
            y = R.add(x, x)
            z = R.nn.relu(y)
            gv = R.multiply(z, y)
            R.output(gv)
        return gv
