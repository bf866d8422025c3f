"""relax.BlockBuilder over the C BlockBuilder (rlx_bb_t). The builder owns a Context;
everything it emits lives there (and keeps alive the contexts of what it was given)."""
import ctypes
import threading
from ctypes import byref, c_void_p

from .. import _ffi
from .. import te as _te
from .._ffi import TE_MULTI_FN, check, cstr, harray, lib
from . import expr as _expr
from . import struct_info as _si

_state = threading.local()


def _stack():
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def _attr_list(ctx, attrs):
    if not attrs:
        return None
    al = lib.rlx_attr_list_create(ctx.ptr)
    for k, v in attrs.items():
        set_attr(ctx, al, k, v)
    return al


def set_attr(ctx, al, k, v):
    """Sets attribute k of the C attr list al from a Python value."""
    from .. import tir as _tir
    key = cstr(k)
    if isinstance(v, bool):
        lib.rlx_attr_list_set_bool(al, key, v)
    elif isinstance(v, int):
        lib.rlx_attr_list_set_int(al, key, v)
    elif isinstance(v, float):
        lib.rlx_attr_list_set_float(al, key, v)
    elif isinstance(v, str):
        if k.endswith("dtype") and v not in ("", "void"):
            lib.rlx_attr_list_set_dtype(al, key, _ffi.dtype_of(v))
        else:
            lib.rlx_attr_list_set_str(al, key, cstr(v))
    elif isinstance(v, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        from ctypes import c_int64
        arr = (c_int64 * max(len(v), 1))(*v)
        lib.rlx_attr_list_set_ints(al, key, len(v), arr)
    elif isinstance(v, _tir.PrimExpr):
        ctx.adopt(v._ctx)
        lib.rlx_attr_list_set_expr(al, key, v._h)
    elif isinstance(v, (list, tuple, dict)):
        # lists of other values and (nested) dicts: R.func_attr({"opt": {"a": [1, 2]}})
        try:
            e = _tir.attr_expr(v, ctx)
        except TypeError as err:
            raise TypeError("attribute %s: %s" % (k, err)) from None
        lib.rlx_attr_list_set_expr(al, key, e._h)
    else:
        raise TypeError("attribute %s: unsupported value %r" % (k, v))


class _Scope:
    def __init__(self, enter, exit_):
        self._enter, self._exit = enter, exit_

    def __enter__(self):
        return self._enter()

    def __exit__(self, exc_type, exc, tb):
        self._exit(exc_type is None)
        return False


class BlockBuilder:
    """TVM's relax.BlockBuilder."""

    def __init__(self, mod=None):
        if mod is not None:
            self._ctx = mod._ctx
            self._h = lib.rlx_bb_create(self._ctx.ptr, mod._h)
        else:
            self._ctx = _ffi.Context()
            self._h = lib.rlx_bb_create(self._ctx.ptr, None)
        self._func_gv = None

    @staticmethod
    def current():
        st = _stack()
        return st[-1] if st else None

    def _use(self, *objs):
        for o in objs:
            c = getattr(o, "_ctx", None)
            self._ctx.adopt(c)

    # ---- scopes ----
    def function(self, name, params=None, attrs=None, pure=True, private=False):
        def enter():
            al = _attr_list(self._ctx, attrs)  # a bad value raises before anything is open
            ps = None if params is None else (list(params) if isinstance(params, (list, tuple)) else [params])
            if ps is not None:
                self._use(*ps)
                arr, n = harray([p._var for p in ps])
                check(lib.rlx_bb_function_begin(self._h, cstr(name), n, arr))
            else:
                check(lib.rlx_bb_function_begin(self._h, cstr(name), -1, None))
            try:
                if not pure:
                    check(lib.rlx_bb_function_set_pure(self._h, False))
                if private:
                    check(lib.rlx_bb_function_set_private(self._h, True))
                if al:
                    check(lib.rlx_bb_function_set_attrs(self._h, al))
            except BaseException:
                lib.rlx_bb_function_abandon(self._h)
                raise
            _stack().append(self)
            return self

        def exit_(ok):
            _stack().pop()
            if not ok:
                lib.rlx_bb_function_abandon(self._h)
                return
            gv = c_void_p()
            st = lib.rlx_bb_function_end(self._h, byref(gv))
            if st:
                lib.rlx_bb_function_abandon(self._h)
            check(st)
            self._func_gv = _expr.wrap(gv.value, self._ctx)

        return _Scope(enter, exit_)

    def dataflow(self):
        def enter():
            check(lib.rlx_bb_dataflow_begin(self._h))
            return self

        def exit_(ok):
            if ok:
                check(lib.rlx_bb_dataflow_end(self._h))

        return _Scope(enter, exit_)

    # ---- bindings ----
    def _bind(self, cfn, expr, name_hint):
        e = _expr.convert(expr)
        self._use(e)
        out = c_void_p()
        check(cfn(self._h, e._h, cstr(name_hint or None), byref(out)))
        return _expr.wrap(lib.rlx_relax_var_expr(out.value), self._ctx)

    def emit(self, expr, name_hint=""):
        return self._bind(lib.rlx_bb_emit, expr, name_hint)

    def emit_output(self, output, name_hint=""):
        return self._bind(lib.rlx_bb_emit_output, output, name_hint)

    def match_cast(self, value, struct_info, name_hint=""):
        e = _expr.convert(value)
        self._use(e, struct_info)
        out = c_void_p()
        check(lib.rlx_bb_match_cast(self._h, e._h, struct_info._h, cstr(name_hint or None), byref(out)))
        return _expr.wrap(lib.rlx_relax_var_expr(out.value), self._ctx)

    def emit_normalized(self, binding):
        """Appends an existing binding (VarBinding or MatchCast) with its own var (TVM's
        emit_normalized); returns the var."""
        self._use(binding)
        check(lib.rlx_bb_emit_binding(self._h, binding._h))
        return binding.var

    def emit_func_output(self, output, params=None):
        e = _expr.convert(output)
        self._use(e)
        if params is not None:
            ps = list(params) if isinstance(params, (list, tuple)) else [params]
            self._use(*ps)
            arr, n = harray([p._var for p in ps])
            check(lib.rlx_bb_emit_func_output(self._h, e._h, n, arr))
        else:
            check(lib.rlx_bb_emit_func_output(self._h, e._h, -1, None))
        return e

    def emit_te(self, func, *args, **kwargs):
        """Calls func on TE placeholders standing for the Relax tensor arguments (anywhere in
        args / kwargs, also inside lists) and emits R.call_tir of the PrimFunc it makes."""
        return self._te(True, func, args, kwargs)

    def call_te(self, func, *args, **kwargs):
        """As emit_te, without the binding: adds the PrimFunc, returns the R.call_tir call."""
        return self._te(False, func, args, kwargs)

    def _te(self, emit, func, args, kwargs):
        kwargs = dict(kwargs)
        primfunc_name = kwargs.pop("primfunc_name_hint", None) or getattr(func, "__name__", None)
        if primfunc_name == "<lambda>":
            primfunc_name = None
        name_hint = kwargs.pop("name_hint", None)
        primfunc_attrs = kwargs.pop("primfunc_attrs", None)
        if primfunc_attrs:  # attributes of the PrimFunc made (TVM's primfunc_attrs)
            call = self._te(False, func, args, dict(kwargs, primfunc_name_hint=primfunc_name))
            gv = call.args[0]
            self.update_func(gv, self.get()[gv.name_hint].with_attr(dict(primfunc_attrs)))
            return self.emit(call, name_hint or "") if emit else call
        exprs = []

        def collect(a):
            if isinstance(a, _expr.PrimValue):  # a scalar argument: its value (TVM's emit_te)
                v = a.value
                try:
                    return v.value  # a constant: the Python number
                except (TypeError, ValueError, AttributeError):
                    return v
            if isinstance(a, _expr.Expr):
                s = a.struct_info
                if s is None or isinstance(s, _si.TensorStructInfo):
                    exprs.append(a)
                    return ("x", len(exprs) - 1)
                return a
            if isinstance(a, (list, tuple)):
                return type(a)(collect(x) for x in a)
            if isinstance(a, dict):
                return {k: collect(v) for k, v in a.items()}
            return a

        targs = [collect(a) for a in args]
        tkw = {k: collect(v) for k, v in kwargs.items()}
        failure = []

        def subst(a, ins):
            if isinstance(a, tuple) and len(a) == 2 and a[0] == "x" and isinstance(a[1], int):
                return ins[a[1]]
            if isinstance(a, (list, tuple)):
                return type(a)(subst(x, ins) for x in a)
            if isinstance(a, dict):
                return {k: subst(v, ins) for k, v in a.items()}
            return a

        keep = []  # the output array handed to C, alive until the C call has copied it

        def body(cctx, inputs, n, user, n_outs, outs):
            try:
                ins = [_te.Tensor(inputs[i], self._ctx) for i in range(n)]
                out = func(*[subst(a, ins) for a in targs], **{k: subst(v, ins) for k, v in tkw.items()})
                # TVM: one te.Tensor, or a list / tuple of them (a call_tir with a tuple out_sinfo)
                many = list(out) if isinstance(out, (list, tuple)) else [out]
                if not many or not all(isinstance(t, _te.Tensor) for t in many):
                    raise TypeError("emit_te: the function must return a te.Tensor or a list of them, got %s"
                                    % type(out).__name__)
                for t in many:
                    self._ctx.adopt(t._ctx)
                arr = (c_void_p * len(many))(*[t._h for t in many])
                keep.append(arr)
                outs[0] = ctypes.cast(arr, ctypes.POINTER(c_void_p))
                n_outs[0] = len(many)
                return None
            except BaseException as e:  # noqa: B902 - re-raised below
                failure.append(e)
                # the callback's error, returned by emit_te (freed below: the exception is raised)
                return lib.rlx_status_create(1, b"%s", ("emit_te: %s" % type(e).__name__).encode())  # INVALID_ARGUMENT

        cb = TE_MULTI_FN(body)
        self._use(*exprs)
        arr, n = harray([e._h for e in exprs])
        out = c_void_p()
        if emit:
            st = lib.rlx_bb_emit_te_multi(self._h, cb, None, n, arr, cstr(primfunc_name), cstr(name_hint), byref(out))
        else:
            st = lib.rlx_bb_call_te_multi(self._h, cb, None, n, arr, cstr(primfunc_name), byref(out))
        if failure:
            if st:
                lib.rlx_status_free(st)
            raise failure[0]
        check(st)
        if not emit:
            return _expr.wrap(out.value, self._ctx)
        return _expr.wrap(lib.rlx_relax_var_expr(out.value), self._ctx)

    # ---- module ----
    def get(self):
        from ..ir import IRModule
        return IRModule(handle=lib.rlx_bb_get(self._h), ctx=self._ctx)

    finalize = get

    def add_func(self, func, func_name):
        from ..tir import PrimFunc
        self._use(func)
        out = c_void_p()
        if isinstance(func, PrimFunc):
            check(lib.rlx_bb_add_prim_func(self._h, func._h, cstr(func_name), byref(out)))
        else:
            check(lib.rlx_bb_add_relax_func(self._h, func._h, cstr(func_name), byref(out)))
        return _expr.wrap(out.value, self._ctx)

    def update_func(self, gv, func):
        from ..tir import PrimFunc
        name = gv if isinstance(gv, str) else getattr(gv, "name_hint", None)
        if name is None:
            raise TypeError("update_func: expected a GlobalVar or a name")
        self._use(func)
        if isinstance(func, PrimFunc):
            check(lib.rlx_bb_update_prim_func(self._h, cstr(name), func._h))
        else:
            check(lib.rlx_bb_update_relax_func(self._h, cstr(name), func._h))

    def normalize(self, expr):
        e = _expr.convert(expr)
        self._use(e)
        check(lib.rlx_bb_normalize(self._h, e._h))
        return e
