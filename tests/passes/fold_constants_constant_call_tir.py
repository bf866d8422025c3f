# pass: fold_constants
# The call_tir whose arguments are both constants (1.5 + 2.0) is evaluated at compile time into the
# constant 3.5; the multiply by the parameter x stays a call, and the PrimFunc no call uses any more
# is dropped.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((), "float32"), B: T.Buffer((), "float32"), T_add: T.Buffer((), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        with T.block("T_add"):
            vi = T.axis.spatial(1, 0)
            T.reads(A[()], B[()])
            T.writes(T_add[()])
            T_add[()] = A[()] + B[()]

    @T.prim_func(private=True)
    def multiply(x: T.Buffer((), "float32"), c: T.Buffer((), "float32"), T_multiply: T.Buffer((), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        with T.block("T_multiply"):
            vi = T.axis.spatial(1, 0)
            T.reads(x[()], c[()])
            T.writes(T_multiply[()])
            T_multiply[()] = x[()] * c[()]

    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.add, (R.const(1.5, "float32"), R.const(2, "float32")), out_sinfo=R.Tensor((), dtype="float32"))
            gv = R.call_tir(cls.multiply, (x, c), out_sinfo=R.Tensor((), dtype="float32"))
            R.output(gv)
        return gv
# expected:
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def multiply(x: T.Buffer((), "float32"), c: T.Buffer((), "float32"), T_multiply: T.Buffer((), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        with T.block("T_multiply"):
            vi = T.axis.spatial(1, 0)
            T.reads(x[()], c[()])
            T.writes(T_multiply[()])
            T_multiply[()] = x[()] * c[()]

    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            c: R.Tensor((), dtype="float32") = R.const(3.5, "float32")
            gv = R.call_tir(cls.multiply, (x, c), out_sinfo=R.Tensor((), dtype="float32"))
            R.output(gv)
        return gv
