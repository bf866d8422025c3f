# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Prim(value="n"), b: R.Shape(ndim=2), c: R.Tensor(ndim=3), d: R.Callable((R.Tensor((4,), dtype="float32"),), R.Object, True), e: R.Callable, f: R.Tuple(R.Object, R.Tuple), g: R.Tensor(("k", "k * 2 + n"), dtype="int64"), h: R.Prim("float32")) -> R.Prim(value="n"):
        n = T.int64()
        k = T.int64()
        lv: R.Tensor(dtype="float32") = d(R.const([0.10000000149011612, 1, -2, 3], "float32"))
        lv1: R.Prim(value=n) = a
        lv2: R.Shape([k * 2 + n, n]) = R.shape([k * 2 + n, n])
        lv3: R.Prim(value=k + 1) = R.prim_value(k + 1)
        lv4: R.Prim("int32") = R.prim_value(T.int32(3))
        lv5: R.Prim("float64") = R.prim_value(T.float64(1.5))
        return lv1
