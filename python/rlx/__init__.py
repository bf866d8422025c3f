"""rlx: a deep-learning compiler and runtime in C, with TVM's (Unity-era) Python API.

``import rlx as tvm`` runs TVM scripts that use te / tir / relax / script / nd / runtime.
Pure Python over the public C API (include/rlx/*.h) with ctypes; see _ffi.py for where
the library comes from (build/lib/librlx.so, or $RLX_LIBRARY_PATH)."""
from . import _ffi, error, ir, nd, runtime, te, tir
from . import relax, script, target, testing, topi, transform  # noqa: E402
from .driver import build
from .error import RLXError, TVMError
from .ir import IRModule, assert_structural_equal, structural_equal, structural_hash
from .nd import cpu, device
from .runtime import get_global_func, register_func


def compile(mod, target=None, **kwargs):  # noqa: A001 - TVM's name
    """tvm.compile: relax.build for modules with Relax functions, else rlx.build."""
    if isinstance(mod, IRModule) and any(ir_fn for ir_fn in (mod[n] for n in mod._names())
                                         if isinstance(ir_fn, relax.Function)):
        return relax.build(mod, target=target, **kwargs)
    return build(mod, target=target, **kwargs)

__version__ = "0.2.0"
__all__ = ["te", "tir", "relax", "script", "nd", "runtime", "ir", "topi", "transform", "error", "build",
           "IRModule", "cpu", "device", "register_func", "get_global_func", "assert_structural_equal",
           "structural_equal", "structural_hash", "RLXError", "TVMError", "compile", "target", "testing"]
