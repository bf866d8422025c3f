"""rlx.relax.analysis (TVM's tvm.relax.analysis): well-formedness."""
from .. import _ffi
from .._ffi import lib


def well_formed(obj, check_struct_info=True):
    """True when every Relax function of obj (an IRModule or a Function) is well formed
    (rlx_module_well_formed: vars defined before use, dataflow vars kept in their block,
    struct info consistent)."""
    from ..ir import IRModule
    from .expr import Function
    if isinstance(obj, Function):
        m = IRModule()
        m[obj._name or "main"] = obj
        obj = m
    if not isinstance(obj, IRModule):
        raise TypeError("well_formed: expected an IRModule or a relax.Function, got %s" % type(obj).__name__)
    st = lib.rlx_module_well_formed(obj._ctx.ptr, obj._h)
    if st:
        lib.rlx_status_free(st)
        return False
    return True
