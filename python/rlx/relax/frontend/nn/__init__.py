"""rlx.relax.frontend.nn: TVM's PyTorch-like API for building IRModules (nn.Module,
nn.Tensor, nn.Parameter, modules, nn.op, spec, export_tvm, extern modules)."""
from . import op, spec
from .core import Module, ModuleList, Parameter, Tensor
from .extern import ExternModule, ObjectModule, SourceModule
from .modules import (GELU, Conv1D, Conv2D, Embedding, GroupNorm, LayerNorm, Linear, ReLU, RMSNorm, SiLU)

__all__ = ["op", "spec", "Module", "ModuleList", "Parameter", "Tensor", "ExternModule", "ObjectModule",
           "SourceModule", "GELU", "Conv1D", "Conv2D", "Embedding", "GroupNorm", "LayerNorm", "Linear", "ReLU",
           "RMSNorm", "SiLU"]
