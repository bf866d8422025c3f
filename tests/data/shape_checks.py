# Shapes that constrain the MLF entry point's variables: y's m must be 4 (the match_cast to a
# static shape) and x's n at least 3 (the slice's n - 2 rows >= 1 ... >= 0 here): run_dynamic
# returns nonzero for values that break either, or for n or m below 1.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), y: R.Tensor(("m", 8), dtype="float32")) -> R.Tensor(("n - 3", 8), dtype="float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            a = R.match_cast(y, R.Tensor((4, 8), dtype="float32"))
            b = R.sum(a, axis=[0])
            c = R.strided_slice(x, axes=[0], begin=[2], end=[-1])
            gv = R.add(c, b)
            R.output(gv)
        return gv
