"""Relax expressions (rlx_relax_expr_t): Var, DataflowVar, Constant, ShapeExpr, Tuple,
PrimValue, StringImm, ExternFunc, Call, Function, and the three bridge calls."""
import ctypes
from ctypes import POINTER, byref, c_int, c_int64, c_size_t, c_void_p

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
        s = self.struct_info
        if isinstance(s, _si.TupleStructInfo) and isinstance(index, int) and not -len(s.fields) <= index < len(s.fields):
            raise IndexError("tuple index %d out of range for %d fields" % (index, len(s.fields)))
        return TupleGetItem(self, index + len(s.fields) if isinstance(s, _si.TupleStructInfo) and index < 0 else index)

    def __iter__(self):
        # a value of tuple struct info unpacks into its items (x, y = t); others do not iterate
        s = self.struct_info
        if not isinstance(s, _si.TupleStructInfo):
            raise TypeError("a Relax expression of struct info %s is not iterable" % (s,))
        return iter([TupleGetItem(self, i) for i in range(len(s.fields))])

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


def _mk(cls, h, ctx):
    o = object.__new__(cls)
    _tir.Node.__init__(o, h, ctx)
    return o


def wrap(h, ctx):
    """The Python object for a Relax expression handle: an instance of the class of its kind
    (Var, Call, Tuple, SeqExpr, Function, ...)."""
    if not h:
        return None
    kind = lib.rlx_relax_expr_kind_str(h).decode()
    if kind in ("Var", "DataflowVar"):
        return (DataflowVar if kind == "DataflowVar" else Var)(None, _var=lib.rlx_relax_expr_as_var(h), _ctx=ctx)
    if kind == "Function":
        return Function(h, ctx)
    if kind == "ExternFunc":
        o = _mk(ExternFunc, h, ctx)
        o.global_symbol = lib.rlx_relax_expr_name(h).decode()
        return o
    return _mk(_KINDS.get(kind, Expr), h, ctx)


def _field(e, name):
    return wrap(lib.rlx_relax_expr_field(e._h, cstr(name), 0), e._ctx)


def _fields(e, name):
    n = lib.rlx_relax_expr_field_count(e._h, cstr(name))
    return [wrap(lib.rlx_relax_expr_field(e._h, cstr(name), i), e._ctx) for i in range(max(n, 0))]


def _prims(e):
    n = lib.rlx_relax_expr_prim_count(e._h)
    return [_tir.wrap_expr(lib.rlx_relax_expr_prim(e._h, i), e._ctx) for i in range(max(n, 0))]


class Attrs(dict):
    """A node's attributes (TVM's Attrs / DictAttrs): a dict that also reads as attributes
    (call.attrs.axis, func.attrs["global_symbol"])."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None

    def keys(self):  # noqa: D102 - dict's
        return list(super().keys())


def _attr_value(v, ctx):
    k = v.kind
    if k == 0:
        return bool(v.b)
    if k == 1:
        return int(v.i)
    if k == 2:
        return float(v.f)
    if k == 3:
        return v.s.decode()
    if k == 4:
        return _ffi.dtype_str(v.dtype)
    if k == 5:
        return [int(v.ints[i]) for i in range(v.n)]
    return _tir.attr_value_of(v.expr, ctx)


def _attrs(e):
    n = lib.rlx_relax_expr_attr_count(e._h)
    out = Attrs()
    for i in range(max(n, 0)):
        v = _ffi.AttrValue()
        key = lib.rlx_relax_expr_attr(e._h, i, byref(v))
        out[key.decode()] = _attr_value(v, e._ctx)
    return out


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


class ShapeExpr(Expr):
    """R.shape([...]): values, a list of PrimExprs."""
    __slots__ = ()

    def __init__(self, values, span=None):
        ctx = _ffi.default_ctx()
        ds = _si._dims(values, ctx)
        arr, n = harray([d._h for d in ds])
        super().__init__(lib.rlx_relax_shape_expr(ctx.ptr, n, arr), ctx)

    @property
    def values(self):
        return _prims(self)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i]

    def __iter__(self):
        return iter(self.values)


class Tuple(Expr):
    __slots__ = ()

    def __init__(self, fields, span=None):
        xs, ctx = _exprs(fields)
        arr, n = harray([x._h for x in xs])
        super().__init__(lib.rlx_relax_tuple(ctx.ptr, n, arr), ctx)

    @property
    def fields(self):
        return _fields(self, "fields")

    def __len__(self):
        return lib.rlx_relax_expr_field_count(self._h, b"fields")

    def __getitem__(self, i):
        fs = self.fields
        if isinstance(i, int) and not -len(fs) <= i < len(fs):
            raise IndexError("Tuple index out of range")
        return fs[i]

    def __iter__(self):
        return iter(self.fields)


class TupleGetItem(Expr):
    __slots__ = ()

    def __new__(cls, tuple_value, index=None, span=None):
        t = convert(tuple_value)
        return wrap(lib.rlx_relax_tuple_get_item(t._ctx.ptr, t._h, int(index)), t._ctx)

    def __init__(self, *a, **k):
        pass

    @property
    def tuple_value(self):
        return _field(self, "tuple_value")

    @property
    def index(self):
        return lib.rlx_relax_expr_index(self._h)


class PrimValue(Expr):
    __slots__ = ()

    def __init__(self, value, span=None):
        v = value if isinstance(value, _tir.PrimExpr) else _tir.const(value, "int64" if isinstance(value, int)
                                                                      and not isinstance(value, bool) else None)
        super().__init__(lib.rlx_relax_prim_value(v._ctx.ptr, v._h), v._ctx)

    @property
    def value(self):
        return _prims(self)[0]


class StringImm(Expr):
    __slots__ = ()

    def __init__(self, value, span=None):
        ctx = _ffi.default_ctx()
        super().__init__(lib.rlx_relax_string_imm(ctx.ptr, cstr(value)), ctx)

    @property
    def value(self):
        return lib.rlx_relax_expr_name(self._h).decode()


class DataTypeImm(Expr):
    __slots__ = ()

    @property
    def value(self):
        return _ffi.dtype_str(lib.rlx_relax_expr_dtype_value(self._h))


class Op(Expr):
    """An operator (TVM's tvm.ir.Op): name "relax.add"."""
    __slots__ = ()

    @property
    def name(self):
        return lib.rlx_relax_expr_name(self._h).decode()

    @staticmethod
    def get(name):
        """The Op node called name ("relax.add"); ValueError for an unknown op."""
        ctx = _ffi.default_ctx()
        h = lib.rlx_relax_op_get(ctx.ptr, cstr(name))
        if not h:
            raise ValueError("unknown op '%s'" % name)
        return _mk(Op, h, ctx)

    def __repr__(self):
        return "Op(%s)" % self.name


class Call(Expr):
    """A call: op (an Op, GlobalVar, ExternFunc or function-valued Var), args, attrs, sinfo_args."""
    __slots__ = ()

    def __init__(self, op, args, attrs=None, sinfo_args=None, span=None):
        from .block_builder import _attr_list
        if isinstance(op, str):
            op = Op.get(op)
        xs = [convert(a) for a in args]
        ss = list(sinfo_args or [])
        ctx = _ffi.ctx_for(op, *xs, *ss)
        al = _attr_list(ctx, dict(attrs)) if attrs else None
        arr, n = harray([x._h for x in xs])
        sarr, sn = harray([x._h for x in ss])
        h = lib.rlx_relax_call_create(ctx.ptr, op._h, n, arr, al, sn, sarr)
        if not h:
            raise ValueError("relax.Call: bad callee or arguments")
        super().__init__(h, ctx)

    @property
    def op(self):
        return _field(self, "op")

    @property
    def args(self):
        return _fields(self, "args")

    @property
    def attrs(self):
        return _attrs(self)

    @property
    def sinfo_args(self):
        n = lib.rlx_relax_call_sinfo_arg_count(self._h)
        return [_si.wrap(lib.rlx_relax_call_sinfo_arg(self._h, i), self._ctx) for i in range(max(n, 0))]


class If(Expr):
    __slots__ = ()

    def __init__(self, cond, true_branch, false_branch, span=None):
        c, t, f = convert(cond), convert(true_branch), convert(false_branch)
        ctx = _ffi.ctx_for(c, t, f)
        super().__init__(lib.rlx_relax_if(ctx.ptr, c._h, t._h, f._h), ctx)

    @property
    def cond(self):
        return _field(self, "cond")

    @property
    def true_branch(self):
        return _field(self, "true_branch")

    @property
    def false_branch(self):
        return _field(self, "false_branch")


class Binding:
    """VarBinding (var = value) or MatchCast (var = R.match_cast(value, struct_info))."""
    __slots__ = ("_h", "_ctx")

    def __init__(self, h, ctx):
        self._h, self._ctx = h, ctx

    @property
    def var(self):
        return wrap(lib.rlx_relax_var_expr(lib.rlx_relax_binding_var(self._h)), self._ctx)

    @property
    def value(self):
        return wrap(lib.rlx_relax_binding_value(self._h), self._ctx)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.var.name_hint)


class VarBinding(Binding):
    __slots__ = ()

    def __init__(self, var, value=None, span=None, _h=None, _ctx=None):
        if _h is None:
            v = convert(value)
            _ctx = _ffi.ctx_for(var, v)
            _h = lib.rlx_relax_var_binding(_ctx.ptr, var._var, v._h)
        super().__init__(_h, _ctx)


class MatchCast(Binding):
    __slots__ = ()

    def __init__(self, var, value=None, struct_info=None, span=None, _h=None, _ctx=None):
        if _h is None:
            v = convert(value)
            _ctx = _ffi.ctx_for(var, v, struct_info)
            _h = lib.rlx_relax_match_cast(_ctx.ptr, var._var, v._h, struct_info._h)
        super().__init__(_h, _ctx)

    @property
    def struct_info(self):
        return _si.wrap(lib.rlx_relax_binding_sinfo(self._h), self._ctx)


def _wrap_binding(h, ctx):
    cls = MatchCast if lib.rlx_relax_binding_is_match_cast(h) else VarBinding
    return cls(None, _h=h, _ctx=ctx)


class BindingBlock:
    __slots__ = ("_h", "_ctx")
    _dataflow = False

    def __init__(self, bindings=None, span=None, _h=None, _ctx=None):
        if _h is None:
            bs = list(bindings or [])
            _ctx = _ffi.ctx_for(*bs) if bs else _ffi.default_ctx()
            arr, n = harray([b._h for b in bs])
            _h = lib.rlx_relax_block(_ctx.ptr, self._dataflow, n, arr)
        self._h, self._ctx = _h, _ctx

    @property
    def bindings(self):
        return [_wrap_binding(lib.rlx_relax_block_binding(self._h, i), self._ctx)
                for i in range(lib.rlx_relax_block_binding_count(self._h))]

    def __repr__(self):
        return "%s(%d bindings)" % (type(self).__name__, lib.rlx_relax_block_binding_count(self._h))


class DataflowBlock(BindingBlock):
    __slots__ = ()
    _dataflow = True


def _wrap_block(h, ctx):
    cls = DataflowBlock if lib.rlx_relax_block_is_dataflow(h) else BindingBlock
    return cls(_h=h, _ctx=ctx)


class SeqExpr(Expr):
    __slots__ = ()

    def __init__(self, blocks, body, span=None):
        bs = list(blocks)
        b = convert(body)
        ctx = _ffi.ctx_for(b, *bs)
        arr, n = harray([x._h for x in bs])
        super().__init__(lib.rlx_relax_seq(ctx.ptr, n, arr, b._h), ctx)

    @property
    def blocks(self):
        return [_wrap_block(lib.rlx_relax_seq_block(self._h, i), self._ctx)
                for i in range(lib.rlx_relax_seq_block_count(self._h))]

    @property
    def body(self):
        return _field(self, "body")


class ExternFunc(Expr):
    """An external (packed) function by name."""
    __slots__ = ("global_symbol",)

    def __init__(self, global_symbol, struct_info=None, span=None):
        ctx = _ffi.default_ctx()
        super().__init__(lib.rlx_relax_extern_func(ctx.ptr, cstr(global_symbol)), ctx)
        self.global_symbol = global_symbol


def GlobalVar(name_hint):  # noqa: N802
    ctx = _ffi.default_ctx()
    return GlobalVarExpr(lib.rlx_relax_global_var(ctx.ptr, cstr(name_hint), None), ctx)


class Constant(Expr):
    """A tensor constant: data (an NDArray copy of its values)."""
    __slots__ = ()

    def __new__(cls, data=None, struct_info=None, span=None):
        return const(data)

    def __init__(self, *a, **k):
        pass

    @property
    def data(self):
        from .. import nd
        dt, nd_, shp, nb = _ffi.DType(), c_int(), POINTER(c_int64)(), c_size_t()
        p = lib.rlx_relax_constant_data(self._h, byref(dt), byref(nd_), byref(shp), byref(nb))
        if not p:
            raise ValueError("the constant's data was not printed (parse the script with its metadata)")
        shape = tuple(shp[i] for i in range(nd_.value))
        name = _ffi.dtype_str(dt)
        a = np.frombuffer((ctypes.c_char * nb.value).from_address(p), dtype="bool" if name == "bool" else name)
        return nd.array(a.reshape(shape).copy())


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
    return _mk(Constant, h, ctx)


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
    return _mk(Call, lib.rlx_relax_call_tir(ctx.ptr, gvar._h, n, arr, s._h, tv._h if tv is not None else None), ctx)


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
    return _mk(Call, lib.rlx_relax_call_dps_packed(ctx.ptr, cstr(_extern_name(func)), n, arr, s._h), ctx)


def call_pure_packed(func, *args, sinfo_args=None):
    """R.call_pure_packed("name", *args, sinfo_args=...)."""
    xs, _ = _exprs(args)
    ss = [] if sinfo_args is None else (list(sinfo_args) if isinstance(sinfo_args, (list, tuple)) else [sinfo_args])
    ctx = _ffi.ctx_for(*xs, *ss)
    arr, n = harray([x._h for x in xs])
    sarr, sn = harray([s._h for s in ss])
    return _mk(Call, lib.rlx_relax_call_pure_packed(ctx.ptr, cstr(_extern_name(func)), n, arr, sn, sarr), ctx)


def call_packed(func, *args, sinfo_args=None):
    """R.call_packed("name", *args, sinfo_args=...)."""
    xs, _ = _exprs(args)
    ss = [] if sinfo_args is None else (list(sinfo_args) if isinstance(sinfo_args, (list, tuple)) else [sinfo_args])
    ctx = _ffi.ctx_for(*xs, *ss)
    arr, n = harray([x._h for x in xs])
    sarr, sn = harray([s._h for s in ss])
    return _mk(Call, lib.rlx_relax_call_packed(ctx.ptr, cstr(_extern_name(func)), n, arr, sn, sarr), ctx)


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

    @property
    def params(self):
        return _fields(self, "params")

    @property
    def body(self):
        return _field(self, "body")

    @property
    def ret_struct_info(self):
        return _si.wrap(lib.rlx_relax_func_ret_sinfo(self._h), self._ctx)

    @property
    def is_pure(self):
        return bool(lib.rlx_relax_func_is_pure(self._h))

    @property
    def attrs(self):
        return _attrs(self)

    def script(self, **kwargs):
        m = self._module._h if self._module is not None else None
        return _tir._script_of(_ffi.take_string(lib.rlx_script_print_relax_func(m, self._h, cstr(self._name))))

    def show(self, **kwargs):
        print(self.script())

    def __str__(self):
        return self.script()


_KINDS = {"Constant": Constant, "Tuple": Tuple, "TupleGetItem": TupleGetItem, "ShapeExpr": ShapeExpr,
          "PrimValue": PrimValue, "StringImm": StringImm, "DataTypeImm": DataTypeImm, "Op": Op, "Call": Call,
          "If": If, "SeqExpr": SeqExpr, "GlobalVar": GlobalVarExpr}
