"""rlx.te: tensor expressions (placeholder, compute with Python lambdas, reductions) and
create_prim_func, over the C TE API. A compute's lambda runs once, during the C call, with
the output index variables; its parameter names name the loops (``lambda *i`` gives
i0, i1, ...), as in TVM."""
import ctypes
import builtins
import inspect
from ctypes import byref, c_char_p, c_void_p

from . import _ffi
from . import tir as _tir
from ._ffi import check, cstr, harray, lib
from .tir import PrimExpr, Var, const  # noqa: F401  (re-exported as te.const)


class Tensor(_tir.Node):
    """A TE tensor (placeholder or compute)."""
    __slots__ = ()

    @property
    def ndim(self):
        return lib.rlx_te_tensor_ndim(self._h)

    @property
    def shape(self):
        return [PrimExpr(lib.rlx_te_tensor_dim(self._h, i), self._ctx) for i in range(self.ndim)]

    @property
    def dtype(self):
        return _ffi.dtype_str(lib.rlx_te_tensor_dtype(self._h))

    @property
    def name(self):
        return lib.rlx_te_tensor_name(self._h).decode()

    @property
    def op(self):
        return self

    def __call__(self, *indices):
        return self[indices]

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) == 1 and isinstance(indices[0], (list, tuple)):
            indices = tuple(indices[0])
        if len(indices) != self.ndim:
            raise IndexError("tensor %s has %d dimensions, indexed with %d" % (self.name, self.ndim, len(indices)))
        dims = self.shape
        xs = [_tir.convert(ix, dims[k]) for k, ix in enumerate(indices)]
        ctx = _ffi.ctx_for(self, *xs)
        arr, n = harray([x._h for x in xs])
        return PrimExpr(lib.rlx_te_load(ctx.ptr, self._h, n, arr), ctx)

    def __repr__(self):
        return "Tensor(shape=%s, op.name=%s)" % (self.shape, self.name)

    # Arithmetic on whole tensors is topi's broadcast ops (TVM's te.Tensor operators):
    # x + 1 is topi.add(x, 1).
    def _topi(self, name, a, b):
        from . import topi
        return getattr(topi, name)(a, b)

    def __add__(self, o):
        return self._topi("add", self, o)

    def __radd__(self, o):
        return self._topi("add", o, self)

    def __sub__(self, o):
        return self._topi("subtract", self, o)

    def __rsub__(self, o):
        return self._topi("subtract", o, self)

    def __mul__(self, o):
        return self._topi("multiply", self, o)

    def __rmul__(self, o):
        return self._topi("multiply", o, self)

    def __truediv__(self, o):
        return self._topi("divide", self, o)

    def __rtruediv__(self, o):
        return self._topi("divide", o, self)

    def __neg__(self):
        from . import topi
        return topi.negative(self)


def _shape_exprs(shape, ctx=None):
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    out = []
    for s in shape:
        e = _tir.convert(s, ctx=ctx)
        out.append(e)
    return out


def var(name="tindex", dtype="int32", span=None):
    return Var(name, dtype)


def size_var(name="size", dtype="int32", span=None):
    return Var(name, dtype)


def placeholder(shape, dtype="float32", name="placeholder"):
    dims = _shape_exprs(shape)
    ctx = _ffi.ctx_for(*dims)
    arr, n = harray([d._h for d in dims])
    return Tensor(lib.rlx_te_placeholder(ctx.ptr, n, arr, _ffi.dtype_of(dtype), cstr(name)), ctx)


def _lambda_names(fcompute, ndim):
    try:
        sig = inspect.signature(fcompute)
    except (TypeError, ValueError):
        return ["i%d" % k for k in range(ndim)]
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return ["i%d" % k for k in range(ndim)]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != ndim:
        raise ValueError("te.compute: the function takes %d index argument(s) but the shape has %d dimension(s)"
                         % (len(positional), ndim))
    return [p.name for p in positional]


def compute(shape, fcompute, name="compute", tag="", attrs=None):
    """out[i...] = fcompute(i...), TVM's te.compute. A function returning a tuple or list of
    values makes a multi-output compute: a list of tensors named name.v0, name.v1, ... that
    create_prim_func computes in one loop nest (one value in a tuple gives one tensor)."""
    dims = _shape_exprs(shape)
    ndim = len(dims)
    names = _lambda_names(fcompute, ndim)
    ctx = _ffi.ctx_for(*dims)
    failure = []

    def body(cctx, indices, user, max_out, out_bodies):
        try:
            idx = [Var(None, ctx=ctx, _handle=indices[k]) for k in range(ndim)]
            r = fcompute(*idx)
            rs = list(r) if isinstance(r, (list, tuple)) else [r]
            if not rs:
                raise ValueError("te.compute: the function returned an empty %s" % type(r).__name__)
            if len(rs) > max_out:
                raise ValueError("te.compute: the function returned %d values, at most %d are supported"
                                 % (len(rs), max_out))
            for k, x in enumerate(rs):
                e = _tir.convert(x, ctx=ctx)
                if not isinstance(e, PrimExpr):
                    raise TypeError("te.compute: the function must return a PrimExpr, got %s" % type(x).__name__)
                ctx.adopt(e._ctx)
                out_bodies[k] = e._h
            return len(rs)
        except BaseException as e:  # noqa: B902 - re-raised after the C call returns
            failure.append(e)
            return -1

    cb = _ffi.FCOMPUTE_MULTI(body)
    arr, n = harray([d._h for d in dims])
    cnames = (c_char_p * builtins.max(ndim, 1))(*[nm.encode() for nm in names])
    n_out = ctypes.c_int()
    outs = ctypes.POINTER(c_void_p)()
    st = lib.rlx_te_compute_multi(ctx.ptr, n, arr, cb, None, cstr(name), cstr(tag), cnames, byref(n_out),
                                  byref(outs))
    if failure:
        if st:
            lib.rlx_status_free(st)
        raise failure[0]
    check(st)
    ts = [Tensor(outs[k], ctx) for k in range(n_out.value)]
    free = (attrs or {}).get("layout_free_placeholders")
    if free:
        free = list(free)
        for f in free:
            if not isinstance(f, Tensor):
                raise TypeError("te.compute: layout_free_placeholders takes te.Tensors, got %s" % type(f).__name__)
            ctx.adopt(f._ctx)
        farr, fn = harray([f._h for f in free])
        for t in ts:
            lib.rlx_te_tensor_set_layout_free(ctx.ptr, t._h, fn, farr)
    return ts[0] if len(ts) == 1 else ts


class IterVar(_tir.Node):
    """A reduction axis: use it as an index (k), or .var."""
    __slots__ = ()

    def _as_prim_expr(self):
        return PrimExpr(lib.rlx_te_axis_expr(self._h), self._ctx)

    @property
    def var(self):
        return self._as_prim_expr()

    def __getattr__(self, name):
        return getattr(self._as_prim_expr(), name)

    def _op(name):  # noqa: N805
        def f(self, *a):
            return getattr(self._as_prim_expr(), name)(*a)
        return f

    for _n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__mod__",
               "__lt__", "__le__", "__gt__", "__ge__", "__truediv__"):
        locals()[_n] = _op(_n)
    del _n, _op


def reduce_axis(dom, name="rv", thread_tag="", span=None):
    lo, hi = dom
    lo_e = _tir.convert(lo)
    hi_e = _tir.convert(hi, lo_e)
    ext = hi_e if (isinstance(lo, int) and lo == 0) else hi_e - lo_e
    lo_e = _tir.convert(lo, ext)
    ctx = _ffi.ctx_for(lo_e, ext)
    return IterVar(lib.rlx_te_reduce_axis(ctx.ptr, lo_e._h, ext._h, cstr(name)), ctx)


def _reducer(label):
    def f(expr, axis, where=None, init=None):
        axes = axis if isinstance(axis, (list, tuple)) else [axis]
        e = _tir.convert(expr)
        cond = None if where is None else _tir.convert(where)
        start = None if init is None else _tir.convert(init, e)
        ctx = _ffi.ctx_for(e, *axes, *[x for x in (cond, start) if x is not None])
        arr, n = harray([a._h for a in axes])
        return PrimExpr(lib.rlx_te_reduce_by_name(ctx.ptr, label.encode(), e._h, n, arr,
                                                  cond._h if cond is not None else None,
                                                  start._h if start is not None else None), ctx)

    f.__name__ = label
    return f


_sum = _reducer("sum")
_max_r = _reducer("max")
_min_r = _reducer("min")


def sum(expr, axis, where=None, init=None):  # noqa: A001
    return _sum(expr, axis, where, init)


def max(expr, axis=None, where=None, init=None, *rest):  # noqa: A001
    """te.max(expr, axis=k) reduces; te.max(a, b) is the elementwise maximum."""
    if isinstance(axis, IterVar) or (isinstance(axis, (list, tuple)) and axis and isinstance(axis[0], IterVar)):
        return _max_r(expr, axis, where, init)
    return _tir.max(expr, axis)


def min(expr, axis=None, where=None, init=None):  # noqa: A001
    if isinstance(axis, IterVar) or (isinstance(axis, (list, tuple)) and axis and isinstance(axis[0], IterVar)):
        return _min_r(expr, axis, where, init)
    return _tir.min(expr, axis)


exp, log, sqrt, tanh, sigmoid, erf = _tir.exp, _tir.log, _tir.sqrt, _tir.tanh, _tir.sigmoid, _tir.erf
if_then_else = _tir.if_then_else


def create_prim_func(ops, index_dtype_override=None):
    """TVM's te.create_prim_func: the listed tensors become the params, in order."""
    ts = list(ops)
    for t in ts:
        if not isinstance(t, Tensor):
            raise TypeError("create_prim_func expects TE tensors, got %s" % type(t).__name__)
    ctx = _ffi.ctx_for(*ts)
    arr, n = harray([t._h for t in ts])
    out = c_void_p()
    check(lib.rlx_te_create_prim_func(ctx.ptr, n, arr, b"main", byref(out)))
    return _tir.PrimFunc(out.value, ctx)
