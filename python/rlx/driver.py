"""rlx.build for PrimFuncs: TIR -> C -> a loaded library whose functions take NDArrays."""
from ctypes import byref, c_void_p

from . import _ffi
from . import runtime as _rt
from ._ffi import check, cstr, lib
from .ir import IRModule
from .tir import PrimFunc


def build(inputs, target=None, name="main", **kwargs):
    """Compiles a PrimFunc (as "main", or `name`) or a module of PrimFuncs: mod["main"](a, b, c)."""
    from .relax.vm import _set_target
    if isinstance(inputs, PrimFunc):
        inputs = IRModule({name: inputs})
    if not isinstance(inputs, IRModule):
        raise TypeError("rlx.build expects a PrimFunc or an IRModule, got %s" % type(inputs).__name__)
    ctx = _ffi.Context()
    ctx.adopt(inputs._ctx)
    _set_target(ctx, target)
    h = c_void_p()
    check(lib.rlx_build(ctx.ptr, inputs._h, byref(h)))

    def symbol_of(fname):
        return lib.rlx_codegen_symbol(ctx.ptr, cstr(fname)).decode()

    return _rt.Module("<rlx.build>", symbol_of=symbol_of, handle=h.value, keep=ctx)
