# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        n = T.int64()
        @R.function
        def inner(a: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            R.func_attr({"relax.inner": True})
            lv: R.Tensor((4,), dtype="float32") = R.add(a, y)
            return lv
        @R.function(pure=False)
        def inner_1(a: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
            lv: R.Object = R.call_packed("show", a)
            return a
        lv: R.Tensor((4,), dtype="float32") = inner(y)
        lv1: R.Callable((R.Tensor((n,), dtype="float32"),), R.Tensor((n,), dtype="float32"), False) = inner_1
        return lv
