# pass: quantize_integer
# target: c -mcpu=x86-64-v3
# A QDQ region DQ(x) -> conv2d (weight: int8 values times a scale per output channel, folded
# to float by the importer) -> add (bias) -> relu -> Q becomes one call of the int8 kernel
# rlx.nn.qconv2d_nchwc: the input quantized once into uint8 NCHW8c (rlx.nn.quantize_nchwc; 3
# channels: a first layer's block of 4), the weight packed into quads at compile time, the bias
# as int32 with the zero-point compensation -128 * sum(w) folded in, the requantization
# multipliers x_scale * w_scale / y_scale, relu as the output clamp [0, 255]. The function's
# output is the DQ of the result, recomputed from the blocked uint8 value (qnchwc_to_nchw).
metadata = tvm.ir.load_json("""{
  \"root\": 1, 
  \"nodes\": [
    {
      \"type_key\": \"\"
    }, 
    {
      \"type_key\": \"Map\", 
      \"keys\": [
        \"relax.expr.Constant\"
      ], 
      \"data\": [2]
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [3, 14]
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"13\", 
        \"data\": \"0\", 
        \"span\": \"0\", 
        \"struct_info_\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"4\", 
        \"shape\": \"5\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"12\", 
        \"span\": \"0\", 
        \"struct_info_\": \"11\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [7, 8, 9, 10]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"8\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"3\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"4\", 
        \"span\": \"0\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"4\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"4\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"23\", 
        \"data\": \"1\", 
        \"span\": \"0\", 
        \"struct_info_\": \"15\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"3\", 
        \"shape\": \"16\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"22\", 
        \"span\": \"0\", 
        \"struct_info_\": \"21\", 
        \"values\": \"17\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [18, 19, 20]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"8\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"3\", 
        \"span\": \"0\", 
        \"values\": \"17\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"3\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"3\", 
        \"span\": \"0\"
      }
    }
  ], 
  \"b64ndarrays\": [
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABAAAAAIgAQAIAAAAAAAAAAMAAAAAAAAAAQAAAAAAAAABAAAAAAAAAGAAAAAAAAAAuaKbvx2Rqz6rSus8srktPkkOhr3VCyC+ad6Gv/eegr8DSTC/CD6zPreG1j1FMZQ+CpOcv10mhT698ZM/SI1QP8ZUXz4mgpA9TvQBvwwq4z7HTWm+o+8pP4GAaz6j7ym/\", 
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAwAAAAIgAQAIAAAAAAAAAAEAAAAAAAAAAQAAAAAAAAAgAAAAAAAAAMAnmLwvnE683TaovYDQqbxXGsK9OKqyPEP6AjvjxXs8\"
  ], 
  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}
}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 8, 4, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 3, 4, 4), dtype="uint8") = R.quantize(x, R.const(0.019999999552965164, "float32"), R.const(128, "uint8"), axis=0, out_dtype="uint8")
            lv1: R.Tensor((1, 3, 4, 4), dtype="float32") = R.dequantize(lv, R.const(0.019999999552965164, "float32"), R.const(128, "uint8"), axis=0, out_dtype="float32")
            lv2: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][0], strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv3: R.Tensor((1, 8, 4, 4), dtype="float32") = R.add(lv2, metadata["relax.expr.Constant"][1])
            lv4: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.relu(lv3)
            lv5: R.Tensor((1, 8, 4, 4), dtype="uint8") = R.quantize(lv4, R.const(0.05000000074505806, "float32"), R.const(0, "uint8"), axis=0, out_dtype="uint8")
            lv6: R.Tensor((1, 8, 4, 4), dtype="float32") = R.dequantize(lv5, R.const(0.05000000074505806, "float32"), R.const(0, "uint8"), axis=0, out_dtype="float32")
            gv: R.Tensor((1, 8, 4, 4), dtype="float32") = lv6
            R.output(gv)
        return gv
# expected:
metadata = tvm.ir.load_json("""{
  \"root\": 1, 
  \"nodes\": [
    {
      \"type_key\": \"\"
    }, 
    {
      \"type_key\": \"Map\", 
      \"keys\": [
        \"relax.expr.Constant\"
      ], 
      \"data\": [2]
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [3, 15, 23]
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"14\", 
        \"data\": \"0\", 
        \"span\": \"0\", 
        \"struct_info_\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"int8\", 
        \"ndim\": \"5\", 
        \"shape\": \"5\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"13\", 
        \"span\": \"0\", 
        \"struct_info_\": \"12\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [7, 8, 9, 10, 11]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"1\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"32\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"5\", 
        \"span\": \"0\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"5\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"int8\", 
        \"ndim\": \"5\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"22\", 
        \"data\": \"1\", 
        \"span\": \"0\", 
        \"struct_info_\": \"16\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"1\", 
        \"shape\": \"17\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"21\", 
        \"span\": \"0\", 
        \"struct_info_\": \"20\", 
        \"values\": \"18\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [19]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"8\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\", 
        \"values\": \"18\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"30\", 
        \"data\": \"2\", 
        \"span\": \"0\", 
        \"struct_info_\": \"24\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"1\", 
        \"shape\": \"25\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"29\", 
        \"span\": \"0\", 
        \"struct_info_\": \"28\", 
        \"values\": \"26\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [27]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"8\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\", 
        \"values\": \"26\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }
  ], 
  \"b64ndarrays\": [
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABQAAAAAIAQABAAAAAAAAAAEAAAAAAAAAAQAAAAAAAAABAAAAAAAAACAAAAAAAAAAIAAAAAAAAACBIwMAf8+LAIGFrQB/JmkAgRt4AH8iCwCBb8cAfyyBAA==\", 
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQAIAAAAAAAAACAAAAAAAAAAHywAAKgRAACRpAAAiHf//xT0//+qqv//mSQAAJPq//8=\", 
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAIAAAAAAAAACAAAAAAAAAAT/p6OxsTDDo8fVk734WQOtd9fDu8Jyg7a5DROvIECTs=\"
  ], 
  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}
}""")
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 8, 4, 4), dtype="float32"):
        with R.dataflow():
            lv = R.call_dps_packed("rlx.nn.quantize_nchwc", (x, R.prim_value(T.float64(0.019999999552965164)), R.prim_value(128)), out_sinfo=R.Tensor((1, 1, 4, 4, 4), dtype="uint8"))
            lv1 = R.call_dps_packed("rlx.nn.qconv2d_nchwc", (lv, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2], R.prim_value(1), R.prim_value(1), R.prim_value(0), R.prim_value(0), R.prim_value(1), R.prim_value(1), R.prim_value(128), R.prim_value(0), R.prim_value(0), R.prim_value(255)), out_sinfo=R.Tensor((1, 1, 4, 4, 8), dtype="uint8"))
            lv5 = R.call_dps_packed("rlx.nn.qnchwc_to_nchw", (lv1,), out_sinfo=R.Tensor((1, 8, 4, 4), dtype="uint8"))
            lv6: R.Tensor((1, 8, 4, 4), dtype="float32") = R.dequantize(lv5, R.const(0.05000000074505806, "float32"), R.const(0, "uint8"), axis=0, out_dtype="float32")
            gv: R.Tensor((1, 8, 4, 4), dtype="float32") = lv6
            R.output(gv)
        return gv
