"""rlx.tir: PrimExprs with Python operators, PrimFunc, and tir.Schedule.

Every PrimExpr wraps an rlx_expr_t* and holds the Context (arena) it lives in."""
import builtins
import ctypes
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_void_p

from . import _ffi
from ._ffi import check, cstr, harray, lib


class Node:
    """A handle to a compiler object plus the Context that owns its memory."""
    __slots__ = ("_h", "_ctx", "__weakref__")

    def __init__(self, handle, ctx):
        self._h = handle
        self._ctx = ctx

    def same_as(self, other):
        return isinstance(other, Node) and other._h == self._h


def _dt_of_py(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32"
    return "float32"


def const(value, dtype=None, ctx=None):
    """A constant (int -> int32, float -> float32, bool -> bool unless dtype says otherwise)."""
    ctx = ctx or _ffi.default_ctx()
    dtype = dtype or _dt_of_py(value)
    t = _ffi.dtype_of(dtype)
    if dtype == "bool":
        return PrimExpr(lib.rlx_ir_bool(ctx.ptr, bool(value)), ctx)
    if _ffi.is_float(t):
        return FloatImm(dtype, float(value), ctx=ctx)
    return IntImm(dtype, int(value), ctx=ctx)


def convert(x, like=None, ctx=None):
    """x as a PrimExpr; Python numbers take the dtype of `like` where it fits."""
    if isinstance(x, PrimExpr):
        return x
    if hasattr(x, "_as_prim_expr"):
        return x._as_prim_expr()
    if isinstance(x, (bool, int, float)):
        ctx = ctx or (like._ctx if isinstance(like, PrimExpr) else None)
        if isinstance(like, PrimExpr) and not isinstance(x, bool):
            ldt = like.dtype
            lt = _ffi.dtype_of(ldt)
            if _ffi.is_float(lt) or (isinstance(x, int) and lt.code in (0, 1) and lt.bits > 1):
                return const(x, ldt, ctx)
        return const(x, None, ctx)
    raise TypeError("expected a PrimExpr or a Python number, got %s" % type(x).__name__)


def attr_expr(v, ctx):
    """A function attribute value as the C library holds it: a PrimExpr for a number, a bool,
    a string, or a (nested) list / string-keyed dict of those (rlx_ir_attr_list / _dict)."""
    if isinstance(v, str):
        return PrimExpr(lib.rlx_ir_string(ctx.ptr, cstr(v)), ctx)
    if isinstance(v, bool):
        return PrimExpr(lib.rlx_ir_bool(ctx.ptr, v), ctx)
    if isinstance(v, int):
        return const(v, "int32" if -2**31 <= v < 2**31 else "int64", ctx)
    if isinstance(v, (list, tuple)):
        items = [attr_expr(x, ctx) for x in v]
        arr, n = harray([x._h for x in items])
        return PrimExpr(lib.rlx_ir_attr_list(ctx.ptr, n, arr), ctx)
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, str):
                raise TypeError("attribute dicts take string keys, got %r" % (k,))
        vals = [attr_expr(x, ctx) for x in v.values()]
        keys = (c_char_p * builtins.max(len(v), 1))(*[k.encode() for k in v])
        arr, n = harray([x._h for x in vals])
        return PrimExpr(lib.rlx_ir_attr_dict(ctx.ptr, n, keys, arr), ctx)
    if isinstance(v, (float, PrimExpr)) or hasattr(v, "_as_prim_expr"):
        e = convert(v, ctx=ctx)
        ctx.adopt(e._ctx)
        return e
    raise TypeError("unsupported attribute value %r (%s)" % (v, type(v).__name__))


def _binary(cfn, a, b):
    if not isinstance(a, PrimExpr):
        a = convert(a, b)
    b = convert(b, a)
    ctx = _ffi.ctx_for(a, b)
    h = cfn(ctx.ptr, a._h, b._h)
    if not h:
        raise TypeError("cannot combine %s and %s" % (a.dtype, b.dtype))
    return PrimExpr(h, ctx)


def _bin(name):
    f = getattr(lib, name)
    f.restype = c_void_p
    f.argtypes = [c_void_p, c_void_p, c_void_p]
    return f


_ADD, _SUB, _MUL, _DIV = _bin("rlx_ir_add"), _bin("rlx_ir_sub"), _bin("rlx_ir_mul"), _bin("rlx_ir_div")
_FDIV, _FMOD, _MIN, _MAX = _bin("rlx_ir_floordiv"), _bin("rlx_ir_floormod"), _bin("rlx_ir_min"), _bin("rlx_ir_max")
_EQ, _NE, _LT, _LE = _bin("rlx_ir_eq"), _bin("rlx_ir_ne"), _bin("rlx_ir_lt"), _bin("rlx_ir_le")
_GT, _GE, _AND, _OR = _bin("rlx_ir_gt"), _bin("rlx_ir_ge"), _bin("rlx_ir_and"), _bin("rlx_ir_or")


class PrimExpr(Node):
    """A TIR expression."""
    __slots__ = ()

    @property
    def dtype(self):
        return _ffi.dtype_str(lib.rlx_ir_expr_dtype(self._h))

    def __add__(self, o): return _binary(_ADD, self, o)
    def __radd__(self, o): return _binary(_ADD, o, self)
    def __sub__(self, o): return _binary(_SUB, self, o)
    def __rsub__(self, o): return _binary(_SUB, o, self)
    def __mul__(self, o): return _binary(_MUL, self, o)
    def __rmul__(self, o): return _binary(_MUL, o, self)
    def __truediv__(self, o): return _binary(_DIV, self, o)
    def __rtruediv__(self, o): return _binary(_DIV, o, self)
    def __floordiv__(self, o): return _binary(_FDIV, self, o)
    def __rfloordiv__(self, o): return _binary(_FDIV, o, self)
    def __mod__(self, o): return _binary(_FMOD, self, o)
    def __rmod__(self, o): return _binary(_FMOD, o, self)
    def __lt__(self, o): return _binary(_LT, self, o)
    def __le__(self, o): return _binary(_LE, self, o)
    def __gt__(self, o): return _binary(_GT, self, o)
    def __ge__(self, o): return _binary(_GE, self, o)
    def __and__(self, o): return _binary(_AND, self, o)
    def __rand__(self, o): return _binary(_AND, o, self)
    def __or__(self, o): return _binary(_OR, self, o)
    def __ror__(self, o): return _binary(_OR, o, self)

    def __neg__(self):
        return _binary(_SUB, convert(0, self), self)

    def __invert__(self):
        return PrimExpr(lib.rlx_ir_not(self._ctx.ptr, self._h), self._ctx)

    def __eq__(self, o):
        if not isinstance(o, (PrimExpr, int, float)):
            return NotImplemented
        return _EqualOp(_binary(_EQ, self, o), self, o)

    def __ne__(self, o):
        if not isinstance(o, (PrimExpr, int, float)):
            return NotImplemented
        return _binary(_NE, self, o)

    def __hash__(self):
        return hash(self._h)

    def __bool__(self):
        raise ValueError("a symbolic PrimExpr has no truth value; use tir.all / tir.any / if_then_else")

    def __int__(self):
        v = c_int64()
        if not lib.rlx_ir_expr_int_value(self._h, byref(v)):
            raise TypeError("%s is not an integer constant" % self)
        return v.value

    __index__ = __int__

    @property
    def value(self):
        return int(self)

    def __str__(self):
        return _ffi.take_string(lib.rlx_ir_expr_str(self._h))

    def __repr__(self):
        return str(self)

    def astype(self, dtype):
        return Cast(dtype, self)


def _int_or_none(e):
    v = c_int64()
    return v.value if lib.rlx_ir_expr_int_value(e._h, byref(v)) else None


class _EqualOp(PrimExpr):
    """a == b: a PrimExpr, whose truth value is whether a and b are the same object."""
    __slots__ = ("_a", "_b")

    def __init__(self, e, a, b):
        super().__init__(e._h, e._ctx)
        self._a, self._b = a, b

    def __bool__(self):
        # Constants compare by value (TVM's `A.shape[1] == B.shape[0]`), anything else by
        # identity.
        a, b = self._a, self._b
        va, vb = _int_or_none(a), (_int_or_none(b) if isinstance(b, PrimExpr) else b)
        if va is not None and vb is not None:
            return va == vb
        return isinstance(b, PrimExpr) and a.same_as(b)

    __hash__ = PrimExpr.__hash__


class Var(PrimExpr):
    """A scalar variable (TVM's tir.Var): Var("n", "int64")."""
    __slots__ = ("_var",)

    def __init__(self, name, dtype="int32", ctx=None, _handle=None):
        ctx = ctx or _ffi.default_ctx()
        v = _handle or lib.rlx_ir_var(ctx.ptr, cstr(name), _ffi.dtype_of(dtype))
        self._var = v
        super().__init__(lib.rlx_ir_var_expr(v), ctx)

    @property
    def name(self):
        return lib.rlx_ir_var_name(self._var).decode()

    name_hint = name


SizeVar = Var


def wrap_expr(h, ctx):
    """The Python object for a PrimExpr handle: a Var for a variable, else a PrimExpr."""
    if not h:
        return None
    v = lib.rlx_ir_expr_as_var(h)
    if v:
        return Var(None, ctx=ctx, _handle=v)
    return PrimExpr(h, ctx)


def attr_value_of(h, ctx):
    """An attribute held as a PrimExpr, as Python reads it: an integer constant as an int."""
    e = wrap_expr(h, ctx)
    iv = _int_or_none(e) if e is not None else None
    return iv if iv is not None and e.dtype not in ("bool",) else e


def IntImm(dtype, value, ctx=None):  # noqa: N802 - TVM's name
    ctx = ctx or _ffi.default_ctx()
    return PrimExpr(lib.rlx_ir_int(ctx.ptr, _ffi.dtype_of(dtype), int(value)), ctx)


def FloatImm(dtype, value, ctx=None):  # noqa: N802
    ctx = ctx or _ffi.default_ctx()
    return PrimExpr(lib.rlx_ir_float(ctx.ptr, _ffi.dtype_of(dtype), float(value)), ctx)


def Cast(dtype, value):  # noqa: N802
    value = convert(value)
    return PrimExpr(lib.rlx_ir_cast(value._ctx.ptr, _ffi.dtype_of(dtype), value._h), value._ctx)


def Select(condition, true_value, false_value):  # noqa: N802
    c = convert(condition)
    t = convert(true_value, false_value if isinstance(false_value, PrimExpr) else None)
    f = convert(false_value, t)
    t = convert(true_value, f)
    ctx = _ffi.ctx_for(c, t, f)
    return PrimExpr(lib.rlx_ir_select(ctx.ptr, c._h, t._h, f._h), ctx)


def if_then_else(cond, t, f, span=None):
    return Select(cond, t, f)


def max(a, b, *rest):  # noqa: A001 - TVM's name
    r = _binary(_MAX, a, b)
    for x in rest:
        r = _binary(_MAX, r, x)
    return r


def min(a, b, *rest):  # noqa: A001
    r = _binary(_MIN, a, b)
    for x in rest:
        r = _binary(_MIN, r, x)
    return r


def _intrin(name):
    def f(*args):
        xs = [convert(a) for a in args]
        ctx = _ffi.ctx_for(*xs)
        arr, n = harray([x._h for x in xs])
        return PrimExpr(lib.rlx_ir_call(ctx.ptr, lib.rlx_ir_expr_dtype(xs[0]._h), name.encode(), n, arr), ctx)

    f.__name__ = name
    return f


exp = _intrin("exp")
log = _intrin("log")
sqrt = _intrin("sqrt")
rsqrt = _intrin("rsqrt")
tanh = _intrin("tanh")
sigmoid = _intrin("sigmoid")
erf = _intrin("erf")
fabs = _intrin("fabs")
abs = fabs  # noqa: A001
floor = _intrin("floor")
ceil = _intrin("ceil")
round = _intrin("round")  # noqa: A001
power = _intrin("pow")
pow = power  # noqa: A001


def all(*conds):  # noqa: A001
    r = convert(conds[0])
    for c in conds[1:]:
        r = r & c
    return r


def any(*conds):  # noqa: A001
    r = convert(conds[0])
    for c in conds[1:]:
        r = r | c
    return r


def floordiv(a, b):
    return _binary(_FDIV, a, b)


def floormod(a, b):
    return _binary(_FMOD, a, b)


def truncdiv(a, b):
    return _binary(_DIV, a, b)


# ---------------------------------------------------------------- PrimFunc
def _script_of(text):
    return text[:-1] if text.endswith("\n") else text


class PrimFunc(Node):
    """A TensorIR function (rlx_tir_func_t)."""
    __slots__ = ()

    @property
    def name(self):
        return lib.rlx_tir_func_name(self._h).decode()

    def script(self, **kwargs):
        return _script_of(_ffi.take_string(lib.rlx_script_print_tir_func(self._h)))

    def show(self, style=None, black_format=False, **kwargs):
        print(self.script())

    def __str__(self):
        return self.script()

    def with_attr(self, attr_key_or_dict, attr_value=None):
        items = attr_key_or_dict.items() if isinstance(attr_key_or_dict, dict) else [(attr_key_or_dict, attr_value)]
        f = self
        for k, v in items:
            if k == "global_symbol":
                f = f._renamed(str(v))
                continue
            e = attr_expr(v, f._ctx)
            f = PrimFunc(lib.rlx_tir_func_with_attr(f._ctx.ptr, f._h, cstr(k), e._h), f._ctx)
        return f

    def _renamed(self, name):
        return PrimFunc(lib.rlx_tir_func_rename(self._ctx.ptr, self._h, cstr(name)), self._ctx)


# ---------------------------------------------------------------- Schedule
from .error import InvalidArgumentError as _InvalidArgumentError  # noqa: E402


class ScheduleError(_InvalidArgumentError):
    """A schedule primitive that cannot apply (TVM's tir.ScheduleError); still an
    InvalidArgumentError / ValueError as every rlx argument error."""


def _sched_check(st):
    try:
        check(st)
    except _InvalidArgumentError as e:
        raise ScheduleError(str(e)) from None


class BlockRV(str):
    """A block, named (rlx's schedules refer to blocks by name)."""


class LoopRV:
    """A loop, identified by its loop variable."""

    def __init__(self, var_handle, sch):
        self._var = var_handle
        self._sch = sch

    @property
    def name(self):
        return lib.rlx_ir_var_name(self._var).decode()

    def __repr__(self):
        return "LoopRV(%s)" % self.name


class Schedule:
    """TVM's tir.Schedule over one PrimFunc (a PrimFunc, or a module holding one / "main")."""

    def __init__(self, mod, debug_mask=None, **kwargs):
        from .ir import IRModule
        if isinstance(mod, IRModule):
            names = mod._prim_names()
            name = "main" if "main" in names else (names[0] if len(names) == 1 else None)
            if name is None:
                raise ValueError("tir.Schedule: the module must hold one PrimFunc or one called main (has %s)"
                                 % names)
            func = mod[name]
        elif isinstance(mod, PrimFunc):
            func, name = mod, "main"
        else:
            raise TypeError("tir.Schedule expects a PrimFunc or an IRModule, got %s" % type(mod).__name__)
        self._name = name
        self._ctx = func._ctx
        self._h = lib.rlx_schedule_create(self._ctx.ptr, func._h)

    @property
    def func(self):
        return PrimFunc(lib.rlx_schedule_func(self._h), self._ctx)

    @property
    def mod(self):
        from .ir import IRModule
        return IRModule({self._name: self.func})

    def show(self, **kwargs):
        self.mod.show()

    def get_block(self, name, func_name=None):
        return BlockRV(name)

    def get_loops(self, block):
        arr = POINTER(c_void_p)()
        n = c_int()
        _sched_check(lib.rlx_sched_get_loops(self._h, cstr(block), byref(arr), byref(n)))
        return [LoopRV(arr[i], self) for i in range(n.value)]

    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        fs = [-1 if f is None else int(f) for f in factors]
        arr = (c_int64 * len(fs))(*fs)
        out = (c_void_p * len(fs))()
        _sched_check(lib.rlx_sched_split(self._h, loop._var, len(fs), arr, out))
        return [LoopRV(out[i], self) for i in range(len(fs))]

    def fuse(self, *loops, preserve_unit_iters=True):
        arr, n = harray([lp._var for lp in loops])
        out = c_void_p()
        _sched_check(lib.rlx_sched_fuse(self._h, n, arr, byref(out)))
        return LoopRV(out.value, self)

    def reorder(self, *loops):
        arr, n = harray([lp._var for lp in loops])
        _sched_check(lib.rlx_sched_reorder(self._h, n, arr))

    def parallel(self, loop):
        _sched_check(lib.rlx_sched_parallel(self._h, loop._var))

    def vectorize(self, loop):
        _sched_check(lib.rlx_sched_vectorize(self._h, loop._var))

    def unroll(self, loop):
        _sched_check(lib.rlx_sched_unroll(self._h, loop._var))

    def compute_inline(self, block):
        _sched_check(lib.rlx_sched_compute_inline(self._h, cstr(block)))

    def reverse_compute_inline(self, block):
        _sched_check(lib.rlx_sched_reverse_compute_inline(self._h, cstr(block)))

    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        _sched_check(lib.rlx_sched_compute_at(self._h, cstr(block), loop._var))

    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        _sched_check(lib.rlx_sched_reverse_compute_at(self._h, cstr(block), loop._var))

    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        out = c_char_p()
        _sched_check(lib.rlx_sched_cache_read(self._h, cstr(block), int(read_buffer_index), cstr(storage_scope), byref(out)))
        return BlockRV(out.value.decode())

    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        out = c_char_p()
        _sched_check(lib.rlx_sched_cache_write(self._h, cstr(block), int(write_buffer_index), cstr(storage_scope),
                                        byref(out)))
        return BlockRV(out.value.decode())

    def decompose_reduction(self, block, loop):
        out = c_char_p()
        _sched_check(lib.rlx_sched_decompose_reduction(self._h, cstr(block), loop._var, byref(out)))
        return BlockRV(out.value.decode())
