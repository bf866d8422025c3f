"""rlx.relax.frontend.nn: TVM's PyTorch-like API for building IRModules (nn.Module,
nn.Tensor, nn.Parameter, modules, nn.op, spec, export_tvm, extern modules)."""
from . import op, spec
from .core import Module, ModuleList, Parameter, Tensor
from .extern import ExternModule, ObjectModule, SourceModule
from .modules import (GELU, Conv1D, Conv2D, Conv3D, ConvTranspose1D, Embedding, GroupNorm, Identity, LayerNorm,
                      Linear, ReLU, RMSNorm, SiLU)
from .op import *  # noqa: F401,F403 - TVM's nn.add, nn.matmul ... (nn.op's functions at the top)

__all__ = ["op", "spec", "Module", "ModuleList", "Parameter", "Tensor", "ExternModule", "ObjectModule",
           "SourceModule", "GELU", "Conv1D", "Conv2D", "Conv3D", "ConvTranspose1D", "Embedding", "GroupNorm",
           "LayerNorm", "Linear", "ReLU", "RMSNorm", "SiLU", "Identity"] + \
    [n for n in dir(op) if not n.startswith("_") and callable(getattr(op, n))]
