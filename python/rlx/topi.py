"""rlx.topi: the C topi library under TVM's names and parameter names, generated at import
from the C table (rlx_topi_count / rlx_topi_name / rlx_topi_params): topi.add,
topi.nn.dense, topi.nn.relu, topi.nn.conv2d_nchw, topi.reshape, topi.split, ... Usable in TE
code and in BlockBuilder.emit_te. A function that returns several tensors in TVM (split)
returns a list of te.Tensor (rlx_topi_returns_list / rlx_topi_call_multi)."""
from ctypes import POINTER, byref, c_int, c_void_p

from . import _ffi
from . import tir as _tir
from ._ffi import check, cstr, harray, lib
from .te import Tensor


def _parse(spec):
    out = []
    for item in spec.split():
        name, kind = item.split(":")
        optional = kind.endswith("?")
        out.append((name, kind.rstrip("?"), optional))
    return out


def _make(name, spec, returns_list=False):
    params = _parse(spec)
    names = [p[0] for p in params]

    def f(*args, **kwargs):
        if len(args) > len(params):
            raise TypeError("topi.%s takes at most %d arguments (%s), got %d" % (name, len(params), ", ".join(names),
                                                                                len(args)))
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("topi.%s got an unexpected argument %r (parameters: %s)" % (name, k, ", ".join(names)))
            if k in bound:
                raise TypeError("topi.%s got multiple values for %r" % (name, k))
            bound[k] = v
        tensors = []
        objs = []
        attrs = []
        for pname, kind, optional in params:
            v = bound.get(pname)
            if v is None:
                if not optional:
                    raise TypeError("topi.%s: missing argument %r" % (name, pname))
                if kind in ("t", "te"):
                    tensors.append(None)
                continue
            if kind == "ts":
                ts = list(v)
                if not all(isinstance(t, Tensor) for t in ts):
                    raise TypeError("topi.%s: %s must be a list of te.Tensor" % (name, pname))
                tensors.extend(t._h for t in ts)
                objs.extend(ts)
            elif kind in ("t", "te"):
                if isinstance(v, Tensor):
                    tensors.append(v._h)
                    objs.append(v)
                elif kind == "te":
                    tensors.append(None)
                    attrs.append((pname, _tir.convert(v)))
                else:
                    raise TypeError("topi.%s: %s must be a te.Tensor, got %s" % (name, pname, type(v).__name__))
            elif kind == "ints":
                # a list, or one int (split tells sections from indices by it); a string
                # (TVM's padding="SAME") goes to C as it is
                if isinstance(v, str):
                    attrs.append((pname, v))
                else:
                    attrs.append((pname, [int(x) for x in v] if isinstance(v, (list, tuple)) else int(v)))
            elif kind == "int":
                attrs.append((pname, int(v)))
            elif kind == "bool":
                attrs.append((pname, bool(v)))
            elif kind == "float":
                attrs.append((pname, float(v)))
            elif kind == "dtype":
                attrs.append((pname, str(v)))
            elif kind == "str":
                attrs.append((pname, str(v)))
            elif kind == "expr":
                attrs.append((pname, _tir.convert(v)))
        ctx = _ffi.ctx_for(*objs, *[v for _, v in attrs if isinstance(v, _tir.PrimExpr)])
        from .relax.block_builder import set_attr
        al = lib.rlx_attr_list_create(ctx.ptr)
        for k, v in attrs:
            if k.endswith("dtype"):
                lib.rlx_attr_list_set_dtype(al, cstr(k), _ffi.dtype_of(v))
            else:
                set_attr(ctx, al, k, v)
        arr, n = harray(tensors)
        if returns_list:
            count = c_int()
            outs = POINTER(c_void_p)()
            check(lib.rlx_topi_call_multi(ctx.ptr, cstr(name), len(tensors), arr, al, byref(count), byref(outs)))
            return [Tensor(outs[i], ctx) for i in range(count.value)]
        out = c_void_p()
        check(lib.rlx_topi_call(ctx.ptr, cstr(name), len(tensors), arr, al, byref(out)))
        return Tensor(out.value, ctx)

    short = name.split(".")[-1]
    f.__name__ = f.__qualname__ = short
    f.__doc__ = "TVM's topi.%s(%s), from the C topi library." % (name, ", ".join(names))
    return f


def function_names():
    return [lib.rlx_topi_name(i).decode() for i in range(lib.rlx_topi_count())]


for _i in range(lib.rlx_topi_count()):
    _name = lib.rlx_topi_name(_i).decode()
    _parts = _name.split(".")
    _ns = _ffi.submodule(__name__, _parts[:-1])
    if not hasattr(_ns, _parts[-1]):
        setattr(_ns, _parts[-1], _make(_name, lib.rlx_topi_params(_i).decode(), bool(lib.rlx_topi_returns_list(_i))))
