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
      \"data\": [3, 11]
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"10\", 
        \"data\": \"0\", 
        \"span\": \"0\", 
        \"struct_info_\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"1\", 
        \"shape\": \"5\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"9\", 
        \"span\": \"0\", 
        \"struct_info_\": \"8\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [7]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\", 
        \"values\": \"6\"
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
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"19\", 
        \"data\": \"1\", 
        \"span\": \"0\", 
        \"struct_info_\": \"12\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"2\", 
        \"shape\": \"13\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"18\", 
        \"span\": \"0\", 
        \"struct_info_\": \"17\", 
        \"values\": \"14\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [15, 16]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"2\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"2\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\", 
        \"values\": \"14\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }
  ], 
  \"b64ndarrays\": [
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAEAAAAAAAAABAAAAAAAAAAAACAPwAAIEAAAEDAAAAAPg==\", 
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAAgAQACAAAAAAAAAAIAAAAAAAAAEAAAAAAAAAABAAAAAgAAAP3///8EAAAA\"
  ], 
  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}
}""")
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(T.int64(4)):
            with T.block("C"):
                v_i = T.axis.spatial(T.int64(4), i)
                T.reads(A[v_i], B[v_i])
                T.writes(C[v_i])
                C[v_i] = A[v_i] + B[v_i]

    @R.function(private=True)
    def helper(x: R.Tensor(("n",), dtype="float32"), s: R.Shape(["n"]), p: R.Prim("int64")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        lv: R.Tensor((n,), dtype="float32") = R.add(x, x)
        return lv

    @R.function(pure=False, private=True)
    def side(x: R.Object, c: R.Tensor((), dtype="bool")) -> R.Tuple:
        lv: R.Object = R.call_packed("print", x, R.str("hello \"world\""), R.dtype("float16"))
        if c:
            lv1: R.Tuple = R.tuple()
        else:
            lv2: R.Tuple = R.tuple()
            lv1: R.Tuple = lv2
        return lv1

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), x2: R.Tensor(("n * 2",), dtype="float32"), y: R.Tensor(dtype="int32"), z: R.Tensor, c: R.Tensor((), dtype="bool")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        n = T.int64()
        m = T.int64()
        cls = Module
        lv: R.Tensor((m,), dtype="float32") = R.match_cast(z, R.Tensor((m,), dtype="float32"))
        lv1: R.Shape([m]) = R.shape([m])
        with R.dataflow():
            lv2 = R.call_tir(cls.add, (lv, lv), out_sinfo=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")], tir_vars=R.shape([n]))
            lv3: R.Tensor((4,), dtype="float32") = lv2[0]
            lv4: R.Tensor((4,), dtype="float32") = cls.helper(lv3, R.shape([4]), R.prim_value(7))
            lv5: R.Tensor((), dtype="float32") = R.const(1.5, "float32")
            lv9: R.Tensor((4,), dtype="float32") = R.add(lv4, metadata["relax.expr.Constant"][0])
            lv10: R.Tensor((2, 2), dtype="int32") = metadata["relax.expr.Constant"][1]
            lv6: R.Tensor((n * 2,), dtype="float32") = R.nn.relu(x2)
            gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (lv4, lv3)
            R.output(gv)
        lv11 = R.call_tir(cls.add, gv, out_sinfo=R.Tensor((4,), dtype="float32"))
        if c:
            lv7: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = gv
        else:
            lv_1: R.Tensor((4,), dtype="float32") = gv[1]
            lv_2: R.Tensor((4,), dtype="float32") = gv[0]
            lv8: R.Tensor((4,), dtype="float32") = R.multiply(lv_1, lv_2)
            lv7: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (lv8, lv8)
        return lv7
