# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w0: R.Tensor((256, 784), dtype="float32"), b0: R.Tensor((256,), dtype="float32"), w1: R.Tensor((256, 256), dtype="float32"), b1: R.Tensor((256,), dtype="float32"), w2: R.Tensor((256, 256), dtype="float32"), b2: R.Tensor((256,), dtype="float32"), w3: R.Tensor((10, 256), dtype="float32"), b3: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((784, 256), dtype="float32") = R.permute_dims(w0)
            lv1: R.Tensor((n, 256), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            lv2: R.Tensor((n, 256), dtype="float32") = R.add(lv1, b0)
            lv3: R.Tensor((n, 256), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((256, 256), dtype="float32") = R.permute_dims(w1)
            lv5: R.Tensor((n, 256), dtype="float32") = R.matmul(lv3, lv4, out_dtype="void")
            lv6: R.Tensor((n, 256), dtype="float32") = R.add(lv5, b1)
            lv7: R.Tensor((n, 256), dtype="float32") = R.nn.relu(lv6)
            lv8: R.Tensor((256, 256), dtype="float32") = R.permute_dims(w2)
            lv9: R.Tensor((n, 256), dtype="float32") = R.matmul(lv7, lv8, out_dtype="void")
            lv10: R.Tensor((n, 256), dtype="float32") = R.add(lv9, b2)
            lv11: R.Tensor((n, 256), dtype="float32") = R.nn.relu(lv10)
            lv12: R.Tensor((256, 10), dtype="float32") = R.permute_dims(w3)
            lv13: R.Tensor((n, 10), dtype="float32") = R.matmul(lv11, lv12, out_dtype="void")
            gv: R.Tensor((n, 10), dtype="float32") = R.add(lv13, b3)
            R.output(gv)
        return gv
