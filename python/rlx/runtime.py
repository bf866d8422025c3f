"""rlx.runtime: packed functions, the global registry, loaded libraries, the Relax VM.

A Python callable registered with ``register_func`` becomes a C packed function (a ctypes
callback kept alive in ``_registered``) in the C registry, so the VM and compile-time
symbol resolution find it like any C function. Arguments arrive as NDArray views of the
caller's tensors (valid during the call), ints, floats and strings; the return value goes
back as a new reference (NDArray / numpy: copied into a fresh tensor). An exception becomes
the packed function's error message (RLXAPISetLastError + nonzero return), which the VM
reports as the error of the call that reached it.
"""
import ctypes
import os
import shutil
import statistics
import tempfile
import time
import traceback
from ctypes import POINTER, byref, c_int, c_int64, c_void_p

import numpy as np

from . import _ffi
from . import nd as _nd
from ._ffi import PACKED_FN, DLTensor, Value, check, lib

# ---------------------------------------------------------------- packed values
_ARG_INT, _ARG_FLOAT, _ARG_NULL, _ARG_DTYPE, _ARG_DLTENSOR, _ARG_STR, _ARG_NDARRAY = 0, 2, 4, 5, 7, 11, 13


def _tensor_view(ptr):
    """NDArray viewing the DLTensor at ptr (no copy, no ownership of the data)."""
    dl = ctypes.cast(ptr, POINTER(DLTensor)).contents
    shape = [dl.shape[i] for i in range(dl.ndim)]
    arr = (c_int64 * max(len(shape), 1))(*shape)
    out = c_void_p()
    check(lib.rlx_ndarray_from_data(c_void_p((dl.data or 0) + dl.byte_offset), len(shape), arr, dl.dtype,
                                    byref(out)))
    return _nd.NDArray(out.value)


def _from_value(v, code):
    if code in (0, 1):
        return v.v_int64
    if code == _ARG_FLOAT:
        return v.v_float64
    if code == _ARG_NULL:
        return None
    if code == _ARG_STR:
        return v.v_str.decode()
    if code == _ARG_DTYPE:
        return _ffi.dtype_str(v.v_type)
    if code in (_ARG_DLTENSOR, _ARG_NDARRAY):
        return _tensor_view(v.v_handle)
    return c_void_p(v.v_handle)


def _to_value(x, v, keep):
    """Fills v with x; returns the type code. keep collects objects that must outlive the call."""
    if x is None:
        v.v_handle = None
        return _ARG_NULL
    if isinstance(x, (bool, np.bool_)):
        v.v_int64 = int(x)
        return _ARG_INT
    if isinstance(x, (int, np.integer)):
        v.v_int64 = int(x)
        return _ARG_INT
    if isinstance(x, (float, np.floating)):
        v.v_float64 = float(x)
        return _ARG_FLOAT
    if isinstance(x, str):
        b = x.encode()
        keep.append(b)
        v.v_str = b
        return _ARG_STR
    arr = _nd.as_ndarray(x)
    keep.append(arr)
    v.v_handle = arr.handle
    return _ARG_DLTENSOR


def _return_value(r, ret, ret_code):
    if r is None:
        ret_code[0] = _ARG_NULL
        return
    if isinstance(r, (bool, int, np.integer)):
        ret[0].v_int64 = int(r)
        ret_code[0] = _ARG_INT
        return
    if isinstance(r, (float, np.floating)):
        ret[0].v_float64 = float(r)
        ret_code[0] = _ARG_FLOAT
        return
    arr = r if isinstance(r, _nd.NDArray) else _nd.array(np.asarray(r))
    ret[0].v_handle = lib.rlx_ndarray_retain(arr.handle)  # the caller takes this reference
    ret_code[0] = _ARG_NDARRAY


def convert_to_packed(f):
    """A C packed function (ctypes callback) calling the Python callable f."""

    def call(args, codes, n, ret, ret_code, resource):
        try:
            py_args = [_from_value(args[i], codes[i]) for i in range(n)]
            r = f(*py_args)
            if ret:
                _return_value(r, ret, ret_code)
            return 0
        except BaseException as e:  # noqa: B902 - every error must cross the C boundary as a message
            msg = "%s: %s" % (type(e).__name__, e)
            tb = traceback.extract_tb(e.__traceback__)
            if tb:
                msg += " (at %s:%d in %s)" % (tb[-1].filename, tb[-1].lineno, tb[-1].name)
            lib.RLXAPISetLastError(msg.encode(errors="replace"))
            return -1

    return PACKED_FN(call)


class ShapeTuple(tuple):
    """TVM's runtime.ShapeTuple: a shape value (an R.Shape argument or result of the VM)."""

    def __new__(cls, shape=()):
        return super().__new__(cls, (int(d) for d in shape))

    def __repr__(self):
        return "ShapeTuple(%s)" % list(self)


class PackedFunc:
    """A C packed function (from the registry or a library) callable from Python."""

    def __init__(self, fn, resource=None, keep=None, name=None):
        self.fn = fn
        self.resource = resource
        self._keep = keep  # the library or callback that owns the code
        self.name = name

    def __call__(self, *args):
        n = len(args)
        vals = (Value * max(n, 1))()
        codes = (c_int * max(n, 1))()
        keep = []
        for i, a in enumerate(args):
            codes[i] = _to_value(a, vals[i], keep)
        ret = Value()
        ret_code = c_int(_ARG_NULL)
        check(lib.rlx_packed_call(self.fn, self.resource, vals, codes, n, byref(ret), byref(ret_code)))
        code = ret_code.value
        if code == _ARG_NDARRAY:
            return _nd.NDArray(ret.v_handle)
        if code == _ARG_NULL:
            return None
        return _from_value(ret, code)


_registered = {}


def register_func(func_name, f=None, override=False):
    """Registers a Python function as a global packed function (usable as a decorator)."""
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__

    def register(fn):
        cb = convert_to_packed(fn)
        check(lib.rlx_registry_register(func_name.encode(), cb, None, bool(override)))
        _registered[func_name] = (cb, fn)
        return fn

    if f is not None:
        return register(f)
    return register


def remove_global_func(name):
    check(lib.rlx_registry_remove(name.encode()))
    _registered.pop(name, None)


def get_global_func(name, allow_missing=False):
    fn = c_void_p()
    res = c_void_p()
    st = lib.rlx_registry_get(name.encode(), byref(fn), byref(res))
    if st:
        if allow_missing:
            lib.rlx_status_free(st)
            return None
        check(st)
    return PackedFunc(fn, res, keep=_registered.get(name), name=name)


# ---------------------------------------------------------------- libraries and modules
Device = _nd.Device


class Module:
    """A loaded shared object of packed functions (rlx.build's result, load_module)."""

    def __init__(self, path, symbol_of=None, owner_dir=None, handle=None, keep=None):
        if handle is None:
            h = c_void_p()
            check(lib.rlx_library_load(os.path.abspath(path).encode(), byref(h)))
            handle = h.value
        self.handle = handle
        self._keep = keep
        self.path = lib.rlx_library_path(handle).decode()
        self._symbol_of = symbol_of or (lambda name: name)
        self._owner_dir = owner_dir
        self.is_vm = bool(lib.rlx_library_has_symbol(self.handle, b"rlx_vm_executable"))

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.rlx_library_free(self.handle)
            self.handle = None
        if getattr(self, "_owner_dir", None):
            shutil.rmtree(self._owner_dir, ignore_errors=True)

    def get_function(self, name, query_imports=False):
        fn = c_void_p()
        check(lib.rlx_library_get_function(self.handle, self._symbol_of(name).encode(), byref(fn)))
        return PackedFunc(fn, None, keep=self, name=name)

    def __getitem__(self, name):
        return self.get_function(name)

    def export_library(self, path, **kwargs):
        shutil.copyfile(self.path, path)

    def time_evaluator(self, name, dev=None, number=10, repeat=1, min_repeat_ms=0, **kwargs):
        return _time_evaluator(self.get_function(name), number, repeat)


def load_module(path, fmt=""):
    """Loads a compiled model (run it with relax.VirtualMachine) or a library of packed functions.
    The module works from a private copy of the file, so it can be exported again after the
    file is gone (TVM's modules hold their code in memory)."""
    d = _temp_dir()
    own = os.path.join(d, os.path.basename(path) or "module.so")
    try:
        shutil.copyfile(path, own)
    except OSError:
        shutil.rmtree(d, ignore_errors=True)
        raise
    return Module(own, owner_dir=d)


# ---------------------------------------------------------------- timing
class BenchmarkResult:
    def __init__(self, results):
        self.results = tuple(results)
        self.mean = statistics.mean(self.results)
        self.median = statistics.median(self.results)
        self.min = min(self.results)
        self.max = max(self.results)
        self.std = statistics.pstdev(self.results)

    def __repr__(self):
        return "BenchmarkResult(mean=%g, median=%g, min=%g, max=%g, std=%g)" % (
            self.mean, self.median, self.min, self.max, self.std)


def _time_evaluator(f, number, repeat):
    def run(*args):
        results = []
        for _ in range(max(repeat, 1)):
            t0 = time.perf_counter()
            for _ in range(max(number, 1)):
                f(*args)
            results.append((time.perf_counter() - t0) / max(number, 1))
        return BenchmarkResult(results)

    return run


def _temp_dir():
    return tempfile.mkdtemp(prefix="rlx-py-")
