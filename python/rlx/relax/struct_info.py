"""Relax struct info: Object, Prim, Shape, Tensor, Tuple (rlx_sinfo_t)."""
from .. import _ffi
from .. import tir as _tir
from .._ffi import harray, lib


def _dim(x, ctx):
    if isinstance(x, _tir.PrimExpr):
        return x
    if isinstance(x, int):
        return _tir.IntImm("int64", x, ctx=ctx)
    if hasattr(x, "_as_prim_expr"):
        return x._as_prim_expr()
    raise TypeError("a shape dimension must be an int or a PrimExpr, got %s" % type(x).__name__)


def _dims(values, ctx):
    ds = [_dim(v, ctx) for v in values]
    for d in ds:
        ctx.adopt(d._ctx)
    return ds


class StructInfo(_tir.Node):
    __slots__ = ()

    def __str__(self):
        return lib.rlx_sinfo_str(self._ctx.ptr, self._h).decode()

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, StructInfo) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class ObjectStructInfo(StructInfo):
    __slots__ = ()

    def __init__(self, _h=None, _ctx=None):
        ctx = _ctx or _ffi.default_ctx()
        super().__init__(_h or lib.rlx_sinfo_object(ctx.ptr), ctx)


class PrimStructInfo(StructInfo):
    __slots__ = ()

    @property
    def value(self):
        return _tir.wrap_expr(lib.rlx_sinfo_prim_value(self._h), self._ctx)

    def __init__(self, dtype=None, value=None, _h=None, _ctx=None):
        ctx = _ctx or _ffi.default_ctx()
        if _h is None:
            v = None
            if value is not None:
                v = _tir.convert(value, ctx=ctx)
                ctx.adopt(v._ctx)
                dtype = dtype or v.dtype
            _h = lib.rlx_sinfo_prim(ctx.ptr, _ffi.dtype_of(dtype or "int64"), v._h if v is not None else None)
        super().__init__(_h, ctx)

    @property
    def dtype(self):
        return _ffi.dtype_str(lib.rlx_sinfo_dtype(self._h))


class ShapeStructInfo(StructInfo):
    __slots__ = ()

    def __init__(self, values=None, ndim=-1, _h=None, _ctx=None):
        ctx = _ctx or _ffi.default_ctx()
        if _h is None:
            if values is not None:
                ds = _dims(values, ctx)
                arr, n = harray([d._h for d in ds])
                _h = lib.rlx_sinfo_shape(ctx.ptr, n, arr)
            else:
                _h = lib.rlx_sinfo_shape(ctx.ptr, ndim, None)
        super().__init__(_h, ctx)

    @property
    def ndim(self):
        return lib.rlx_sinfo_ndim(self._h)

    @property
    def values(self):
        return _values(self)


def _values(s):
    n = lib.rlx_sinfo_ndim(s._h)
    if n < 0 or not lib.rlx_sinfo_dim(s._h, 0) and n > 0:
        return None
    return [_tir.wrap_expr(lib.rlx_sinfo_dim(s._h, i), s._ctx) for i in range(n)]


class TensorStructInfo(StructInfo):
    __slots__ = ()

    def __init__(self, shape=None, dtype="float32", ndim=-1, _h=None, _ctx=None):
        ctx = _ctx or _ffi.default_ctx()
        if _h is None:
            dt = _ffi.dtype_of(dtype) if dtype else _ffi.DType(3, 0, 1)
            if shape is not None:
                from .expr import Expr
                if isinstance(shape, Expr):
                    shape = shape.values
                ds = _dims(shape, ctx)
                arr, n = harray([d._h for d in ds])
                _h = lib.rlx_sinfo_tensor(ctx.ptr, n, arr, dt)
            else:
                _h = lib.rlx_sinfo_tensor(ctx.ptr, ndim, None, dt)
        super().__init__(_h, ctx)

    @property
    def ndim(self):
        return lib.rlx_sinfo_ndim(self._h)

    @property
    def dtype(self):
        return _ffi.dtype_str(lib.rlx_sinfo_dtype(self._h))

    @property
    def shape(self):
        vals = _values(self)
        if vals is None:
            return None
        from .expr import ShapeExpr
        return ShapeExpr(vals)


class TupleStructInfo(StructInfo):
    __slots__ = ()

    def __init__(self, fields=None, _h=None, _ctx=None):
        ctx = _ctx or _ffi.default_ctx()
        if _h is None:
            fs = list(fields or [])
            for f in fs:
                ctx.adopt(f._ctx)
            arr, n = harray([f._h for f in fs])
            _h = lib.rlx_sinfo_tuple(ctx.ptr, n, arr)
        super().__init__(_h, ctx)

    @property
    def fields(self):
        return [wrap(lib.rlx_sinfo_field(self._h, i), self._ctx) for i in range(lib.rlx_sinfo_n_fields(self._h))]


class FuncStructInfo(StructInfo):
    __slots__ = ()

    def __init__(self, _h=None, _ctx=None):
        super().__init__(_h, _ctx)

    @property
    def params(self):
        n = lib.rlx_sinfo_func_param_count(self._h)
        return None if n < 0 else [wrap(lib.rlx_sinfo_func_param(self._h, i), self._ctx) for i in range(n)]

    @property
    def ret(self):
        return wrap(lib.rlx_sinfo_func_ret(self._h), self._ctx)

    @property
    def purity(self):
        return bool(lib.rlx_sinfo_func_is_pure(self._h))


_BY_KIND = {0: ObjectStructInfo, 1: PrimStructInfo, 2: ShapeStructInfo, 3: TensorStructInfo, 4: TupleStructInfo,
            5: FuncStructInfo}


def wrap(h, ctx):
    if not h:
        return None
    return _BY_KIND[lib.rlx_sinfo_kind_code(h)](_h=h, _ctx=ctx)


def DynTensorType(ndim=-1, dtype="float32"):  # noqa: N802 - TVM's legacy name
    return TensorStructInfo(ndim=ndim, dtype=dtype)


def layout(s):
    """The output grouping of a value of struct info s: None for a tensor leaf, "prim" for an
    R.Prim and "shape" for an R.Shape (given back as a Python number / ShapeTuple), a list
    for a tuple."""
    if isinstance(s, TupleStructInfo):
        return [layout(f) for f in s.fields]
    if isinstance(s, PrimStructInfo):
        return "prim"
    if isinstance(s, ShapeStructInfo):
        return "shape"
    return None
