"""rlx.relax: the graph-level IR (TVM's tvm.relax)."""
from . import analysis, op, transform
from .block_builder import BlockBuilder
from .expr import (Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr, ExternFunc,
                   Function, GlobalVar, If, MatchCast, Op, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple,
                   TupleGetItem, Var, VarBinding, call_dps_packed, call_packed, call_tir, const)
from .struct_info import (DynTensorType, FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo,
                          StructInfo, TensorStructInfo, TupleStructInfo)
from .vm import Executable, VirtualMachine, build

__all__ = ["BlockBuilder", "op", "transform", "build", "VirtualMachine", "Executable", "Var", "DataflowVar",
           "Function", "Expr", "ExternFunc", "ShapeExpr", "Tuple", "TupleGetItem", "PrimValue", "StringImm",
           "GlobalVar", "const", "call_tir", "call_dps_packed", "call_packed", "StructInfo", "ObjectStructInfo",
           "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo", "TupleStructInfo", "FuncStructInfo",
           "DynTensorType", "Call", "Constant", "analysis", "SeqExpr", "BindingBlock", "DataflowBlock", "Binding",
           "VarBinding", "MatchCast", "If", "Op", "DataTypeImm"]
