"""rlx.relax.op: one Python function per op of the C registry (rlx_relax_op_count /
rlx_relax_op_name), generated at import time: "relax.add" becomes relax.op.add,
"relax.nn.conv2d" relax.op.nn.conv2d. Positional arguments are the op's Relax operands
(tensors; a tuple/list of ints is a shape, of tensors a Tuple); keyword arguments are its
attributes under TVM's names (axis=, keepdims=, strides=, out_dtype= ...)."""
from ctypes import byref, c_void_p

from ... import _ffi
from ..._ffi import check, cstr, harray, lib
from .. import expr as _expr
from ..block_builder import set_attr


def _make(opname):
    def op(*args, **kwargs):
        sinfo_args = kwargs.pop("sinfo_args", None)
        xs = [_expr.convert(a) for a in args]
        ss = [] if sinfo_args is None else (list(sinfo_args) if isinstance(sinfo_args, (list, tuple))
                                            else [sinfo_args])
        ctx = _ffi.ctx_for(*xs, *ss)
        al = lib.rlx_attr_list_create(ctx.ptr)
        for k, v in kwargs.items():
            if v is not None:
                set_attr(ctx, al, k, v)
        arr, n = harray([x._h for x in xs])
        sarr, sn = harray([s._h for s in ss])
        out = c_void_p()
        check(lib.rlx_relax_op_call_by_name(ctx.ptr, cstr(opname), n, arr, al, sn, sarr, byref(out)))
        return _expr.Expr(out.value, ctx)

    short = opname.split(".")[-1]
    op.__name__ = short
    op.__qualname__ = short
    op.__doc__ = "The Relax op %s (R.%s in TVMScript)." % (opname, opname[len("relax."):])
    return op


def op_names():
    return [lib.rlx_relax_op_name(i).decode() for i in range(lib.rlx_relax_op_count())]


for _name in op_names():
    _parts = _name.split(".")[1:]
    setattr(_ffi.submodule(__name__, _parts[:-1]), _parts[-1], _make(_name))


def get_op(name):
    """The op called name ("relax.add" or "add"); an error for an unknown op."""
    full = name if name.startswith("relax.") else "relax." + name
    if full not in op_names():
        raise _ffi._error.NotFoundError("unknown op '%s'" % name)
    return _make(full)


call_tir = _expr.call_tir
call_dps_packed = _expr.call_dps_packed
call_packed = _expr.call_packed


def linear(data, weight, bias=None, out_dtype=None):
    """TVM's relax.op.linear: matmul(data, permute_dims(weight)) (+ bias) as separate ops, which
    BlockBuilder.emit binds one by one (TVM prints three bindings; R.linear stays available to
    TVMScript and the importers as one op)."""
    x = matmul(data, permute_dims(weight, axes=None), out_dtype=out_dtype or "void")  # noqa: F821
    return add(x, bias) if bias is not None else x  # noqa: F821
