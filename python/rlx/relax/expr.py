"""Relax expressions (rlx_relax_expr_t): Var, DataflowVar, Constant, ShapeExpr, Tuple,
PrimValue, StringImm, ExternFunc, Call, Function, and the three bridge calls."""
from ctypes import byref, c_int64, c_void_p

import numpy as np

from .. import _ffi
from .. import tir as _tir
from .._ffi import check, cstr, harray, lib
from . import struct_info as _si


class Expr(_tir.Node):
    """A Relax expression."""
    __slots__ = ()

    @property
    def struct_info(self):
        return _si.wrap(lib.rlx_relax_expr_sinfo(self._h), self._ctx)

    @property
    def kind(self):
        return lib.rlx_relax_expr_kind_str(self._h).decode()

    def __getitem__(self, index):
        return TupleGetItem(self, index)

    def __repr__(self):
        s = self.struct_info
        return "%s(%s)" % (self.kind, s if s is not None else "")

    def __hash__(self):
        return hash(self._h)

    def __eq__(self, other):
        return isinstance(other, Expr) and other._h == self._h

    @property
    def shape(self):
        s = self.struct_info
        return s.shape if isinstance(s, _si.TensorStructInfo) else None


class Var(Expr):
    __slots__ = ("_var",)

    def __init__(self, name_hint, struct_info=None, _var=None, _ctx=None, _dataflow=False):
        if _var is None:
            ctx = _ffi.ctx_for(struct_info) if struct_info is not None else _ffi.default_ctx()
            if struct_info is not None and not isinstance(struct_info, _si.StructInfo):
                raise TypeError("relax.Var: struct_info must be a StructInfo, got %s" % type(struct_info).__name__)
            mk = lib.rlx_relax_dataflow_var if _dataflow else lib.rlx_relax_var
            _var = mk(ctx.ptr, cstr(name_hint), struct_info._h if struct_info is not None else None)
            _ctx = ctx
        self._var = _var
        super().__init__(lib.rlx_relax_var_expr(_var), _ctx)

    @property
    def name_hint(self):
        return lib.rlx_relax_var_name(self._var).decode()


class DataflowVar(Var):
    __slots__ = ()

    def __init__(self, name_hint, struct_info=None, _var=None, _ctx=None):
        super().__init__(name_hint, struct_info, _var, _ctx, _dataflow=True)


class GlobalVarExpr(Expr):
    """A reference to a module function (TVM's GlobalVar), with its name_hint."""
    __slots__ = ()

    @property
    def name_hint(self):
        return lib.rlx_relax_global_var_name(self._h).decode()


def wrap(h, ctx):
    """The Python object for a Relax expression handle."""
    if not h:
        return None
    if lib.rlx_relax_global_var_name(h):
        return GlobalVarExpr(h, ctx)
    v = lib.rlx_relax_expr_as_var(h)
    if v:
        kind = lib.rlx_relax_expr_kind_str(h).decode()
        return (DataflowVar if kind == "DataflowVar" else Var)(None, _var=v, _ctx=ctx)
    return Expr(h, ctx)


def convert(x, ctx=None):
    """x as a Relax expression: Exprs pass through; tuples/lists of Exprs become a Tuple,
    of ints/PrimExprs a ShapeExpr; numbers a PrimValue; strings a StringImm; numpy arrays
    and NDArrays a Constant."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, (list, tuple)):
        if all(isinstance(v, (int, _tir.PrimExpr)) and not isinstance(v, bool) for v in x) and len(x) > 0:
            return ShapeExpr(x)
        return Tuple([convert(v) for v in x])
    if isinstance(x, (bool, int, float, _tir.PrimExpr)):
        return PrimValue(x)
    if isinstance(x, str):
        return StringImm(x)
    if isinstance(x, np.ndarray) or hasattr(x, "numpy"):
        return const(x)
    raise TypeError("cannot convert %s to a Relax expression" % type(x).__name__)


def _exprs(items):
    xs = [convert(x) for x in items]
    return xs, _ffi.ctx_for(*xs)


def ShapeExpr(values):  # noqa: N802 - TVM's class name
    ctx = _ffi.default_ctx()
    ds = _si._dims(values, ctx)
    arr, n = harray([d._h for d in ds])
    return Expr(lib.rlx_relax_shape_expr(ctx.ptr, n, arr), ctx)


def Tuple(fields):  # noqa: N802
    xs, ctx = _exprs(fields)
    arr, n = harray([x._h for x in xs])
    return Expr(lib.rlx_relax_tuple(ctx.ptr, n, arr), ctx)


def TupleGetItem(tuple_value, index):  # noqa: N802
    t = convert(tuple_value)
    return wrap(lib.rlx_relax_tuple_get_item(t._ctx.ptr, t._h, int(index)), t._ctx)


def PrimValue(value):  # noqa: N802
    v = value if isinstance(value, _tir.PrimExpr) else _tir.const(value, "int64" if isinstance(value, int)
                                                                  and not isinstance(value, bool) else None)
    return Expr(lib.rlx_relax_prim_value(v._ctx.ptr, v._h), v._ctx)


def StringImm(value):  # noqa: N802
    ctx = _ffi.default_ctx()
    return Expr(lib.rlx_relax_string_imm(ctx.ptr, cstr(value)), ctx)


class ExternFunc(Expr):
    """An external (packed) function by name."""
    __slots__ = ("global_symbol",)

    def __init__(self, global_symbol):
        ctx = _ffi.default_ctx()
        super().__init__(lib.rlx_relax_extern_func(ctx.ptr, cstr(global_symbol)), ctx)
        self.global_symbol = global_symbol


def GlobalVar(name_hint):  # noqa: N802
    ctx = _ffi.default_ctx()
    return GlobalVarExpr(lib.rlx_relax_global_var(ctx.ptr, cstr(name_hint), None), ctx)


def const(value, dtype=None):
    """A Constant from a numpy array, NDArray or Python scalar (dtype: a name, or the legacy
    DynTensorType)."""
    if isinstance(dtype, _si.TensorStructInfo):
        dtype = dtype.dtype
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    a = np.asarray(value)
    if dtype is not None:
        a = a.astype(dtype)
    elif a.dtype == np.float64 and not isinstance(value, np.ndarray):
        a = a.astype("float32")
    elif a.dtype == np.int64 and not isinstance(value, np.ndarray):
        a = a.astype("int32")
    if not a.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        a = a.copy(order="C")
    ctx = _ffi.default_ctx()
    shape = (c_int64 * max(a.ndim, 1))(*a.shape)
    dt = _ffi.dtype_of("bool" if a.dtype == np.bool_ else a.dtype.name)
    h = lib.rlx_relax_constant(ctx.ptr, dt, a.ndim, shape, a.ctypes.data_as(c_void_p), a.nbytes)
    if not h:
        raise ValueError("relax.const: cannot make a constant of %s" % a.dtype)
    return Expr(h, ctx)


def _out_sinfo(s):
    if isinstance(s, (list, tuple)):
        if len(s) == 1:
            return s[0]
        return _si.TupleStructInfo(list(s))
    return s


def call_tir(gvar, args, out_sinfo, tir_vars=None):
    """R.call_tir(gvar, args, out_sinfo[, tir_vars])."""
    if isinstance(gvar, str):
        gvar = GlobalVar(gvar)
    args = args if isinstance(args, (list, tuple)) else [args]
    xs, ctx = _exprs(args)
    s = _out_sinfo(out_sinfo)
    tv = convert(tir_vars) if tir_vars is not None else None
    ctx = _ffi.ctx_for(*xs, gvar, s, *( [tv] if tv is not None else []))
    arr, n = harray([x._h for x in xs])
    return Expr(lib.rlx_relax_call_tir(ctx.ptr, gvar._h, n, arr, s._h, tv._h if tv is not None else None), ctx)


def _extern_name(func):
    if isinstance(func, str):
        return func
    if isinstance(func, ExternFunc):
        return func.global_symbol
    raise TypeError("expected a function name or an ExternFunc")


def call_dps_packed(func, args, out_sinfo):
    """R.call_dps_packed("name", args, out_sinfo)."""
    args = args if isinstance(args, (list, tuple)) else [args]
    xs, _ = _exprs(args)
    s = _out_sinfo(out_sinfo)
    ctx = _ffi.ctx_for(*xs, s)
    arr, n = harray([x._h for x in xs])
    return Expr(lib.rlx_relax_call_dps_packed(ctx.ptr, cstr(_extern_name(func)), n, arr, s._h), ctx)


def call_packed(func, *args, sinfo_args=None):
    """R.call_packed("name", *args, sinfo_args=...)."""
    xs, _ = _exprs(args)
    ss = [] if sinfo_args is None else (list(sinfo_args) if isinstance(sinfo_args, (list, tuple)) else [sinfo_args])
    ctx = _ffi.ctx_for(*xs, *ss)
    arr, n = harray([x._h for x in xs])
    sarr, sn = harray([s._h for s in ss])
    return Expr(lib.rlx_relax_call_packed(ctx.ptr, cstr(_extern_name(func)), n, arr, sn, sarr), ctx)


class Function(Expr):
    """A Relax function (rlx_relax_func_t). Built with relax.Function(params, body, ret_struct_info),
    returned by BlockBuilder/IRModule lookups and by @R.function."""
    __slots__ = ("_module", "_name")

    def __init__(self, params, body=None, ret_struct_info=None, is_pure=True, attrs=None, span=None, module=None,
                 name=None):
        if isinstance(params, int):  # from a handle
            super().__init__(params, body)
            self._module = module
            self._name = name
            return
        ps = list(params)
        b = convert(body)
        ctx = _ffi.ctx_for(*ps, b, *([ret_struct_info] if ret_struct_info is not None else []))
        arr, n = harray([p._var for p in ps])
        out = c_void_p()
        gs = (attrs or {}).get("global_symbol") if attrs else None
        check(lib.rlx_relax_function_create(ctx.ptr, n, arr, b._h,
                                            ret_struct_info._h if ret_struct_info is not None else None,
                                            bool(is_pure), cstr(gs), byref(out)))
        super().__init__(out.value, ctx)
        self._module = None
        self._name = gs or "main"

    def script(self, **kwargs):
        m = self._module._h if self._module is not None else None
        return _tir._script_of(_ffi.take_string(lib.rlx_script_print_relax_func(m, self._h, cstr(self._name))))

    def show(self, **kwargs):
        print(self.script())

    def __str__(self):
        return self.script()


Call = Expr
Constant = Expr
