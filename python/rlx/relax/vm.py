"""relax.build, the executable and relax.VirtualMachine.

relax.build compiles the module (the whole rlx pipeline + C codegen, rlx_relax_build) into
one shared object in a private temporary directory, removed with the Executable;
export_library copies it. The VM (rlx_vm_load) returns tuple results flattened; the
executable remembers each function's result layout (from its struct info) to give tuples
back as tuples."""
import os
import shutil
import tempfile
from ctypes import POINTER, byref, c_char_p, c_int, c_void_p

from .. import _ffi
from .. import nd as _nd
from .. import runtime as _rt
from .._ffi import check, cstr, lib
from . import struct_info as _si


def _set_target(ctx, target):
    """Makes the context compile for target (str, dict or Target; None: the one in scope,
    else this machine): never ignored."""
    from ..target import resolve
    t = resolve(target)
    check(lib.rlx_ctx_set_target(ctx.ptr, t._h))
    return t


class Executable:
    """A compiled Relax module (one shared object)."""

    def __init__(self, path, layouts, owner_dir=None):
        self.path = path
        self.layouts = layouts
        self._owner_dir = owner_dir

    def __del__(self):
        if getattr(self, "_owner_dir", None):
            shutil.rmtree(self._owner_dir, ignore_errors=True)

    def export_library(self, file_name, fcompile=None, **kwargs):
        shutil.copyfile(self.path, file_name)
        return file_name

    @property
    def mod(self):
        return self


def build(mod, target=None, params=None, pipeline=None, exec_mode="bytecode", system_lib=False):
    """Compiles an IRModule with Relax functions into an Executable for target (a target
    string, dict or Target; None: `with Target(...)`'s, else this machine's CPU)."""
    layouts = {}
    for i in range(lib.rlx_module_func_count(mod._h)):
        if lib.rlx_module_func_is_relax(mod._h, i):
            name = lib.rlx_module_func_name(mod._h, i).decode()
            f = lib.rlx_module_get_relax_func(mod._h, cstr(name))
            layouts[name] = _si.layout(_si.wrap(lib.rlx_relax_func_ret_sinfo(f), mod._ctx))
    d = tempfile.mkdtemp(prefix="rlx-py-")
    path = os.path.join(d, "model.so")
    ctx = _ffi.Context()
    ctx.adopt(mod._ctx)
    try:
        _set_target(ctx, target)
        check(lib.rlx_relax_build(ctx.ptr, mod._h, _build_config(mod, ctx), path.encode()))
    except BaseException:
        shutil.rmtree(d, ignore_errors=True)
        raise
    return Executable(path, layouts, owner_dir=d)


def _build_config(mod, ctx):
    """The C build configuration of the files nn extern modules attached to mod (or None)."""
    from .frontend import externs_of
    files = externs_of(mod)
    if not files:
        return None
    lib.rlx_build_config_create.restype = c_void_p
    lib.rlx_build_config_create.argtypes = [c_void_p]
    lib.rlx_build_config_add_extern.restype = c_void_p
    lib.rlx_build_config_add_extern.argtypes = [c_void_p, c_char_p]
    cfg = lib.rlx_build_config_create(ctx.ptr)
    for f in files:
        check(lib.rlx_build_config_add_extern(cfg, f.encode()))
    return cfg


_TENSOR, _VALUE, _TUPLE = 0, 1, 2


def _vm_input(a, keep):
    """A VM argument as rlx_vm_input_t: numbers as 0-d tensors (int64 / float64 / bool) and
    shapes as 1-d int64 tensors (values), tuples and lists as tuples of arguments (nested as
    given), anything else as a tensor. The NDArrays made go to keep (alive for the call and
    the results, which may be views of them)."""
    import numpy as np
    arg = _ffi.VMArg()
    if isinstance(a, (tuple, list)) and not isinstance(a, _rt.ShapeTuple):
        fields = (_ffi.VMArg * max(len(a), 1))()
        for i, x in enumerate(a):
            fields[i] = _vm_input(x, keep)
        keep.append(fields)
        arg.kind, arg.n_fields, arg.fields = _TUPLE, len(a), fields
        return arg
    kind = _VALUE
    if isinstance(a, _rt.ShapeTuple):
        t = _nd.array(np.array(list(a), dtype="int64").reshape(len(a)))
    elif isinstance(a, (bool, np.bool_)):
        t = _nd.array(np.array(bool(a), dtype="bool"))
    elif isinstance(a, (int, np.integer)):
        t = _nd.array(np.array(int(a), dtype="int64"))
    elif isinstance(a, (float, np.floating)):
        t = _nd.array(np.array(float(a), dtype="float64"))
    else:
        from .expr import Expr
        if isinstance(a, Expr):  # an IR node is no run-time value (TVM: TypeError)
            raise TypeError("VirtualMachine: an argument must be a tensor, a shape, a number or a tuple of them, "
                            "got the Relax expression %s" % type(a).__name__)
        t = _nd.as_ndarray(a)
        kind = _TENSOR
    keep.append(t)
    arg.kind, arg.tensor = kind, t.handle
    return arg


class VirtualMachine:
    """TVM's relax.VirtualMachine over rlx_vm_t."""

    def __init__(self, rt_mod, device=None, memory_cfg=None, profile=False):
        if isinstance(rt_mod, Executable):
            self._exec = rt_mod
            path = rt_mod.path
            self._layouts = rt_mod.layouts
        elif isinstance(rt_mod, _rt.Module):
            self._exec = rt_mod
            path = rt_mod.path
            self._layouts = {}
        elif isinstance(rt_mod, str):
            self._exec = None
            path = rt_mod
            self._layouts = {}
        else:
            raise TypeError("VirtualMachine expects an Executable or a loaded module, got %s" % type(rt_mod).__name__)
        h = c_void_p()
        check(lib.rlx_vm_load(os.path.abspath(path).encode(), 0, None, byref(h)))
        self.handle = h.value

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.rlx_vm_free(self.handle)
            self.handle = None

    def _names(self):
        return [lib.rlx_vm_function_name(self.handle, i).decode() for i in range(lib.rlx_vm_function_count(self.handle))]

    def invoke(self, name, *args):
        """Runs function name. Arguments: NDArrays or numpy arrays for tensors, Python ints /
        floats / bools for R.Prim parameters, ShapeTuples for R.Shape ones, tuples / lists of
        arguments (nested) for R.Tuple ones.
        Results: tensors as NDArrays, R.Prim as Python numbers, R.Shape as ShapeTuples, tuples
        as tuples."""
        ins = []
        arr = (_ffi.VMArg * max(len(args), 1))()
        for i, a in enumerate(args):
            arr[i] = _vm_input(a, ins)
        n = c_int()
        outs = POINTER(c_void_p)()
        check(lib.rlx_vm_invoke_args(self.handle, cstr(name), len(args), arr, byref(n), byref(outs)))
        # an output may be an input returned unchanged (a view of its memory): keep them alive
        res = [_nd.NDArray(outs[i], base=ins) for i in range(n.value)]
        _ffi.free(outs)
        layout = self._layouts.get(name)
        if layout is None:
            if name in self._layouts or n.value == 1:
                return res[0] if res else None
            return tuple(res)
        it = iter(res)

        def group(lay):
            if lay is None:
                return next(it)
            if lay == "prim":
                v = next(it).numpy()
                return v.item()
            if lay == "shape":
                return _rt.ShapeTuple(int(d) for d in next(it).numpy())
            return tuple(group(x) for x in lay)

        return group(layout)

    def __getitem__(self, name):
        saved = getattr(self, "_saved", {}).get(name)
        if saved is not None:
            return saved
        if name not in self._names():
            raise ValueError("the VM has no function %r (has %s)" % (name, self._names()))

        def f(*args):
            if name in getattr(self, "_inputs", {}):
                raise RuntimeError("%s: its inputs were given with set_input; run it with invoke_stateful" % name)
            return self.invoke(name, *args)

        return f

    # ---- TVM's stateful interface: set_input, invoke_stateful, get_outputs, save_function
    def _args(self, name, args, kwargs):
        if not kwargs:
            return list(args)
        info = _ffi.VMFunctionInfo()
        check(lib.rlx_vm_function_info(self.handle, cstr(name), byref(info)))
        names = [info.param_names[i].decode() for i in range(info.n_params)]
        vals = list(args) + [None] * (len(names) - len(args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("%s() got an unexpected keyword argument '%s' (parameters: %s)"
                                % (name, k, ", ".join(names)))
            vals[names.index(k)] = v
        missing = [n for n, v in zip(names, vals) if v is None]
        if missing:
            raise TypeError("%s() missing arguments: %s" % (name, ", ".join(missing)))
        return vals

    def set_input(self, func_name, *args, **kwargs):
        """Stores the inputs of func_name for invoke_stateful."""
        if func_name not in self._names():
            raise ValueError("the VM has no function %r" % func_name)
        self.__dict__.setdefault("_inputs", {})[func_name] = self._args(func_name, args, kwargs)
        self.__dict__.setdefault("_outputs", {}).pop(func_name, None)

    def invoke_stateful(self, func_name):
        """Runs func_name on the inputs given with set_input; get_outputs gives the result."""
        ins = getattr(self, "_inputs", {}).get(func_name)
        if ins is None:
            raise ValueError("%s: no inputs were set (call set_input first)" % func_name)
        self.__dict__.setdefault("_outputs", {})[func_name] = self.invoke(func_name, *ins)

    def get_outputs(self, func_name):
        outs = getattr(self, "_outputs", {})
        if func_name not in outs:
            raise ValueError("%s: no outputs (call invoke_stateful first)" % func_name)
        return outs[func_name]

    def save_function(self, func_name, saved_name, *args, include_return=True, **kwargs):
        """Makes vm[saved_name] a closure of func_name over the given arguments."""
        vals = self._args(func_name, args, kwargs)

        def f():
            r = self.invoke(func_name, *vals)
            return r if include_return else None

        self.__dict__.setdefault("_saved", {})[saved_name] = f

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1, min_repeat_ms=0, cooldown_interval_ms=0,
                       repeats_to_cooldown=1, f_preproc=""):
        # "invoke_stateful" times the stateful call of the function named when it runs (TVM)
        f = self.invoke_stateful if func_name == "invoke_stateful" else self[func_name]
        return _rt._time_evaluator(f, number, repeat)
