"""rlx.relax: the graph-level IR (TVM's tvm.relax)."""
from . import op, transform
from .block_builder import BlockBuilder
from .expr import (Call, Constant, DataflowVar, Expr, ExternFunc, Function, GlobalVar, PrimValue, ShapeExpr,
                   StringImm, Tuple, TupleGetItem, Var, call_dps_packed, call_packed, call_tir, const)
from .struct_info import (DynTensorType, FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo,
                          StructInfo, TensorStructInfo, TupleStructInfo)
from .vm import Executable, VirtualMachine, build

__all__ = ["BlockBuilder", "op", "transform", "build", "VirtualMachine", "Executable", "Var", "DataflowVar",
           "Function", "Expr", "ExternFunc", "ShapeExpr", "Tuple", "TupleGetItem", "PrimValue", "StringImm",
           "GlobalVar", "const", "call_tir", "call_dps_packed", "call_packed", "StructInfo", "ObjectStructInfo",
           "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo", "TupleStructInfo", "FuncStructInfo",
           "DynTensorType", "Call", "Constant"]
