"""A small neural-network builder over the BlockBuilder (TVM's tvm.relax.testing.nn, which
its tests use): Placeholder / Parameter vars, Modules whose __call__ emits into the current
BlockBuilder, Linear, ReLU, LogSoftmax, Sequential, and init_params."""
import numpy as np

from ... import nd, topi
from .. import op as _op
from ..block_builder import BlockBuilder
from ..expr import Var
from ..struct_info import TensorStructInfo


def emit(expr, name_hint=""):
    return BlockBuilder.current().emit(expr, name_hint=name_hint)


def emit_te(func, *args, **kwargs):
    return BlockBuilder.current().emit_te(func, *args, **kwargs)


class Placeholder(Var):
    """An input of the model: a Var of Tensor struct info."""

    def __init__(self, shape, dtype="float32", name="data"):
        super().__init__(name, TensorStructInfo(list(shape), dtype))


class Parameter(Var):
    """A weight of the model: a Var of Tensor struct info, collected by Module.parameters()."""

    def __init__(self, shape, dtype="float32", name="param"):
        super().__init__(name, TensorStructInfo(list(shape), dtype))


class Module:
    """Sub-modules and parameters are found among the attributes, in assignment order."""

    def parameters(self):
        out = []
        for v in self.__dict__.values():
            if isinstance(v, Parameter):
                out.append(v)
            elif isinstance(v, Module):
                out += v.parameters()
            elif isinstance(v, (list, tuple)):
                for x in v:
                    if isinstance(x, Module):
                        out += x.parameters()
        return out

    def forward(self, *args):
        raise NotImplementedError()

    def __call__(self, *args):
        return self.forward(*args)


class Sequential(Module):
    def __init__(self, *modules):
        self.modules = list(modules)

    def forward(self, x):
        for m in self.modules:
            x = m(x)
        return x


class ReLU(Module):
    def forward(self, x):
        return emit_te(topi.nn.relu, x)


class LogSoftmax(Module):
    def forward(self, x):
        return emit(_op.nn.log_softmax(x))


class Linear(Module):
    """y = x @ W (+ b), W of shape (in_features, out_features)."""

    def __init__(self, in_features, out_features, dtype="float32", bias=True):
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter((in_features, out_features), dtype, name="linear_weight")
        self.bias = Parameter((out_features,), dtype, name="linear_bias") if bias else None

    def forward(self, x):
        y = emit_te(topi.matmul, x, self.weight)
        if self.bias is not None:
            y = emit_te(topi.add, y, self.bias)
        return y


def init_params(mod):
    """Random NDArrays for the parameters of mod's main function past its inputs (its
    "num_input" attribute), by shape and dtype."""
    f = mod["main"]
    n_in = f.attrs.get("num_input", 0) if f.attrs else 0
    out = []
    for p in f.params[n_in:]:
        s = p.struct_info
        shape = [int(d) for d in s.shape.values]
        out.append(nd.array(np.random.uniform(-1, 1, size=shape).astype(s.dtype)))
    return out
