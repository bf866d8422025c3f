# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((784, 128), dtype="float32") = R.permute_dims(w0, axes=None)
            lv1: R.Tensor((1, 128), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            lv2: R.Tensor((1, 128), dtype="float32") = R.add(lv1, b0)
            lv3: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((128, 10), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
            lv5: R.Tensor((1, 10), dtype="float32") = R.matmul(lv3, lv4, out_dtype="void")
            lv6: R.Tensor((1, 10), dtype="float32") = R.add(lv5, b1)
            lv7: R.Tensor((1,), dtype="float32") = R.sum(lv6, axis=[1], keepdims=False)
            lv8: R.Tensor((1, 10), dtype="float32") = R.nn.softmax(lv6, axis=-1)
            lv9: R.Tensor((1, 10), dtype="float32") = R.multiply(lv8, R.const(0.5, "float32"))
            gv: R.Tuple(R.Tensor((1, 10), dtype="float32"), R.Tensor((1,), dtype="float32")) = (lv9, lv7)
            R.output(gv)
        lv10: R.Tensor((1, 10), dtype="float32") = gv[0]
        return lv10
