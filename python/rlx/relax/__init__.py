"""rlx.relax: the graph-level IR (TVM's tvm.relax)."""
from . import analysis, op, transform
from .block_builder import BlockBuilder
from .expr import (Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr, ExternFunc,
                   Function, GlobalVar, If, MatchCast, Op, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple,
                   TupleGetItem, Var, VarBinding, call_dps_packed, call_packed, call_tir, const)
from .struct_info import (DynTensorType, FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo,
                          StructInfo, TensorStructInfo, TupleStructInfo)
from .vm import Executable, VirtualMachine, build


def get_shape_of(expr):
    """The shape of a tensor-valued expression as a ShapeExpr, from its struct info (TVM's
    relax.get_shape_of); ValueError when the struct info holds no shape."""
    s = expr.struct_info
    if not isinstance(s, TensorStructInfo) or s.shape is None:
        raise ValueError("get_shape_of: %s has no known shape" % (s,))
    return s.shape if isinstance(s.shape, ShapeExpr) else ShapeExpr(list(s.shape))

__all__ = ["BlockBuilder", "op", "transform", "build", "VirtualMachine", "Executable", "Var", "DataflowVar",
           "Function", "Expr", "ExternFunc", "ShapeExpr", "Tuple", "TupleGetItem", "PrimValue", "StringImm",
           "GlobalVar", "const", "call_tir", "call_dps_packed", "call_packed", "StructInfo", "ObjectStructInfo",
           "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo", "TupleStructInfo", "FuncStructInfo",
           "DynTensorType", "Call", "Constant", "analysis", "SeqExpr", "BindingBlock", "DataflowBlock", "Binding",
           "VarBinding", "MatchCast", "If", "Op", "DataTypeImm", "get_shape_of"]
