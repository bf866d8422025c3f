"""rlx.relax.op: one Python function per op of the C registry (rlx_relax_op_count /
rlx_relax_op_name), generated at import time: "relax.add" becomes relax.op.add,
"relax.nn.conv2d" relax.op.nn.conv2d. Each takes TVM's parameters in TVM's order, read from the
registry's signature of the op (rlx_relax_op_params: "x, axis:ints, keepdims:bool"): operands
become the call's Relax args (a tuple/list of ints is a shape, of tensors a Tuple, a number a
PrimValue), the others its attributes, positionally or by keyword (relax.op.sum(x, 1) is
sum(x, axis=1)); None leaves an attribute (or a trailing optional operand) out."""
from ctypes import byref, c_void_p

from ... import _ffi
from ..._ffi import check, cstr, harray, lib
from .. import expr as _expr
from ..block_builder import set_attr


def _signature(params):
    """[(name, is_attr, optional)] of a registry signature string."""
    out = []
    for p in (params or "").split(","):
        p = p.strip()
        if not p:
            continue
        name, _, kind = p.partition(":")
        out.append((name.rstrip("?"), bool(kind), bool(kind) or name.endswith("?")))
    return out


def _make(opname, params):
    sig = _signature(params)
    short = opname.split(".")[-1]

    def op(*args, **kwargs):
        sinfo_args = kwargs.pop("sinfo_args", None)
        if len(args) > len(sig):
            raise TypeError("%s() takes at most %d arguments (%d given)" % (short, len(sig), len(args)))
        vals = {}
        for (name, _, _), a in zip(sig, args):
            vals[name] = a
        for k, v in kwargs.items():
            if not any(k == name for name, _, _ in sig):
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (short, k))
            if k in vals:
                raise TypeError("%s() got multiple values for argument '%s'" % (short, k))
            vals[k] = v
        operands, attrs, missing = [], [], []
        for name, is_attr, optional in sig:
            v = vals.get(name)
            if is_attr:
                if v is not None:
                    attrs.append((name, v))
            elif v is None:
                if not optional:
                    missing.append(name)
                else:
                    operands.append(None)
            else:
                operands.append(v)
        if missing:
            raise TypeError("%s() missing required argument%s: %s" % (short, "s" if len(missing) > 1 else "",
                                                                       ", ".join("'%s'" % m for m in missing)))
        while operands and operands[-1] is None:
            operands.pop()
        if any(o is None for o in operands):
            raise TypeError("%s(): an optional operand is missing before a given one" % short)
        xs = [_expr.convert(a) for a in operands]
        ss = [] if sinfo_args is None else (list(sinfo_args) if isinstance(sinfo_args, (list, tuple))
                                            else [sinfo_args])
        ctx = _ffi.ctx_for(*xs, *ss)
        al = lib.rlx_attr_list_create(ctx.ptr)
        for k, v in attrs:
            set_attr(ctx, al, k, v)
        arr, n = harray([x._h for x in xs])
        sarr, sn = harray([s._h for s in ss])
        out = c_void_p()
        check(lib.rlx_relax_op_call_by_name(ctx.ptr, cstr(opname), n, arr, al, sn, sarr, byref(out)))
        return _expr.Expr(out.value, ctx)

    op.__name__ = short
    op.__qualname__ = short
    op.script_name = "R." + opname[len("relax."):]  # what the op reads as in TVMScript
    op.__doc__ = "The Relax op %s (R.%s in TVMScript): %s(%s)." % (
        opname, opname[len("relax."):], short,
        ", ".join(n + ("=None" if opt else "") for n, _, opt in sig))
    return op


def op_names():
    return [lib.rlx_relax_op_name(i).decode() for i in range(lib.rlx_relax_op_count())]


def _op_params():
    return {lib.rlx_relax_op_name(i).decode(): (lib.rlx_relax_op_params(i) or b"").decode()
            for i in range(lib.rlx_relax_op_count())}


for _name, _params in _op_params().items():
    _parts = _name.split(".")[1:]
    setattr(_ffi.submodule(__name__, _parts[:-1]), _parts[-1], _make(_name, _params))


def get_op(name):
    """The op called name ("relax.add" or "add"); an error for an unknown op."""
    full = name if name.startswith("relax.") else "relax." + name
    params = _op_params()
    if full not in params:
        raise _ffi._error.NotFoundError("unknown op '%s'" % name)
    return _make(full, params[full])


call_tir = _expr.call_tir
call_dps_packed = _expr.call_dps_packed
call_packed = _expr.call_packed


def linear(data, weight, bias=None, out_dtype=None):
    """TVM's relax.op.linear: matmul(data, permute_dims(weight)) (+ bias) as separate ops, which
    BlockBuilder.emit binds one by one (TVM prints three bindings; R.linear stays available to
    TVMScript and the importers as one op)."""
    x = matmul(data, permute_dims(weight, axes=None), out_dtype=out_dtype or "void")  # noqa: F821
    return add(x, bias) if bias is not None else x  # noqa: F821
