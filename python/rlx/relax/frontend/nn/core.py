"""rlx.relax.frontend.nn core: Tensor, Parameter, Module, ModuleList and export_tvm.

A Tensor wraps a Relax expression; ops on it emit bindings into the BlockBuilder that
export_tvm opens for each exported method (named after the op, as TVM names them). Parameters
are declared with a shape and dtype; export_tvm makes each one a function parameter after the
inputs, named by its path in the module tree ("fc1.weight" -> fc1_weight), and marks the
function with R.func_attr({"num_input": k})."""
import numpy as np

from .... import nd, tir
from ...block_builder import BlockBuilder
from ...expr import Tuple, TupleGetItem, Var
from ...struct_info import ObjectStructInfo, PrimStructInfo, TensorStructInfo, TupleStructInfo
from ... import struct_info as _si
from . import spec as _spec


def _int(e):
    try:
        return int(e)
    except (TypeError, ValueError):
        return e


class Tensor:
    """A value in an exported method (a Relax expression) with its static or symbolic shape."""

    def __init__(self, expr=None, _shape=None, _dtype=None):
        self._expr = expr
        self._shape = _shape
        self._dtype = _dtype

    @staticmethod
    def placeholder(shape, dtype, name="tensor"):
        """A Tensor standing for an argument (used by extern callables to describe results)."""
        dims = [tir.Var(d, "int64") if isinstance(d, str) else d for d in shape]
        return Tensor(Var(name, TensorStructInfo(dims, dtype)))

    @property
    def shape(self):
        if self._expr is None:
            return list(self._shape)
        vals = _si._values(self._expr.struct_info)
        return None if vals is None else [_int(v) for v in vals]

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        if self._expr is None:
            return self._dtype
        return self._expr.struct_info.dtype

    def _op(self, name, other, swap=False):
        from . import op
        a, b = (other, self) if swap else (self, other)
        return getattr(op, name)(a, b)

    def __add__(self, o):
        return self._op("add", o)

    def __radd__(self, o):
        return self._op("add", o, True)

    def __sub__(self, o):
        return self._op("subtract", o)

    def __rsub__(self, o):
        return self._op("subtract", o, True)

    def __mul__(self, o):
        return self._op("multiply", o)

    def __rmul__(self, o):
        return self._op("multiply", o, True)

    def __truediv__(self, o):
        return self._op("divide", o)

    def __matmul__(self, o):
        return self._op("matmul", o)

    def __neg__(self):
        from . import op
        return op.negative(self)

    def reshape(self, *shape):
        from . import op
        return op.reshape(self, list(shape[0]) if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else list(shape))

    def permute_dims(self, *axes):
        from . import op
        return op.permute_dims(self, list(axes) if axes else None)

    def astype(self, dtype):
        from . import op
        return op.astype(self, dtype)

    def __repr__(self):
        return "nn.Tensor(%s, %s)" % (self.shape, self.dtype)


class Parameter(Tensor):
    """A weight of a Module: shape and dtype, and optionally its data (numpy / NDArray)."""

    def __init__(self, shape, dtype="float32"):
        super().__init__(None, [int(d) if not isinstance(d, str) else d for d in shape], dtype)
        self._data = None

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, value):
        a = value.numpy() if hasattr(value, "numpy") and not isinstance(value, np.ndarray) else np.asarray(value)
        if list(a.shape) != list(self._shape):
            raise ValueError("parameter data of shape %s does not match %s" % (list(a.shape), self._shape))
        self._data = nd.array(a.astype(self._dtype))

    def to(self, dtype=None):
        if dtype is not None:
            self._dtype = dtype


class Module:
    """The base of rlx's nn modules, as TVM's: attributes that are Parameters or Modules are
    registered in assignment order; export_tvm compiles methods for a spec."""

    def __init__(self):
        pass

    def _children(self):
        for k, v in vars(self).items():
            if k.startswith("_"):
                continue
            if isinstance(v, (Parameter, Module)):
                yield k, v

    def named_parameters(self, prefix=""):
        seen = set()
        for k, v in self._children():
            name = prefix + k
            if isinstance(v, Parameter):
                if id(v) not in seen:
                    seen.add(id(v))
                    yield name, v
            else:
                yield from v.named_parameters(name + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def state_dict(self):
        return dict(self.named_parameters())

    def load_state_dict(self, arrays):
        params = dict(self.named_parameters())
        for k, a in arrays.items():
            if k not in params:
                raise KeyError("no parameter %s" % k)
            params[k].data = a

    def to(self, dtype=None):
        for p in self.parameters():
            p.to(dtype)
        return self

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def externs(self):
        """The extern modules (ExternModule / SourceModule / ObjectModule) of the tree."""
        from .extern import ExternModule
        out = []
        for _, v in self._children():
            if isinstance(v, ExternModule):
                out.append(v)
            elif isinstance(v, Module):
                out.extend(v.externs())
        return out

    def export_tvm(self, spec, debug=False, allow_extern=True):
        """(IRModule, [(name, Parameter)]): one Relax function per method of spec ({method:
        {arg: spec.Tensor | spec.Int}}), taking the inputs then every parameter, with
        R.func_attr({"num_input": number of inputs}). Extern modules' objects are attached to
        the IRModule so that relax.build links them."""
        params = list(self.named_parameters())
        bb = BlockBuilder()
        for method, args in spec.items():
            syms = {}

            def dim(d):
                if isinstance(d, str):
                    if d not in syms:
                        syms[d] = tir.Var(d, "int64")
                    return syms[d]
                return d

            def sinfo(name, s):
                if isinstance(s, _spec.Tensor):
                    return TensorStructInfo([dim(d) for d in s.shape], s.dtype)
                if isinstance(s, _spec.Int) or s is int:
                    return PrimStructInfo("int64")
                if isinstance(s, (tuple, list)):  # a tuple input: one R.Tuple parameter (TVM)
                    return TupleStructInfo([sinfo(name, x) for x in s])
                raise TypeError("export_tvm: argument %s of %s: expected spec.Tensor, spec.Int or a tuple / "
                                "list of them, got %r" % (name, method, s))

            inputs = [Var(name, sinfo(name, s)) for name, s in args.items()]
            # debug=True (TVM): an "_io" object after the inputs, returned beside the result
            io = [Var("_io", ObjectStructInfo())] if debug else []
            pvars = [Var(name.replace(".", "_"), TensorStructInfo([dim(d) for d in p._shape], p._dtype))
                     for name, p in params]
            with bb.function(method, params=inputs + io + pvars, attrs={"num_input": len(inputs) + len(io)}):
                with bb.dataflow():
                    for (_, p), v in zip(params, pvars):
                        p._expr = v
                    try:
                        out = getattr(self, method)(*[_wrap_input(bb, v, s) for v, s in zip(inputs, args.values())])
                    finally:
                        for _, p in params:
                            p._expr = None
                    res = _unwrap(out)
                    if debug:
                        res = Tuple([res, Tuple(io)])
                    gv = bb.emit_output(res)
                bb.emit_func_output(gv)
        mod = bb.get()
        ext = self.externs()
        if ext:
            from .extern import attach_externs
            attach_externs(mod, ext)
        return mod, params


def _wrap_input(bb, v, s):
    """The method's argument for input v: a Tensor, or for a tuple input a tuple (list) of the
    items, each read once (v[i] bound in the dataflow block)."""
    if isinstance(s, (tuple, list)):
        items = [_wrap_input(bb, bb.emit(TupleGetItem(v, i)), x) for i, x in enumerate(s)]
        return type(s)(items)
    return Tensor(v)


def _unwrap(out):
    if isinstance(out, Tensor):
        return out._expr
    if isinstance(out, (tuple, list)):
        return Tuple([_unwrap(o) for o in out])
    return out


class ModuleList(Module):
    """A list of modules; parameters are named by index ("layers.0.weight")."""

    def __init__(self, modules):
        super().__init__()
        self._mods = list(modules)

    def _children(self):
        for i, m in enumerate(self._mods):
            yield str(i), m

    def __getitem__(self, i):
        return self._mods[i]

    def __iter__(self):
        return iter(self._mods)

    def __len__(self):
        return len(self._mods)

    def append(self, m):
        self._mods.append(m)

    def forward(self, x):
        for m in self._mods:
            x = m(x)
        return x
