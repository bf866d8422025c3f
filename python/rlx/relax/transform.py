"""relax.transform: rlx's passes under TVM's names, each a callable Pass(mod) -> mod.

TVM name -> rlx pass (the driver's table, src/driver/driver.c)."""
from ctypes import byref, c_char_p, c_void_p

from .. import _ffi
from .._ffi import check, cstr, lib


class Pass:
    def __init__(self, name, rlx_name):
        self.name = name
        self._rlx = rlx_name

    def __call__(self, mod):
        from ..ir import IRModule
        if self._rlx is None:
            return mod
        ctx = _ffi.Context()
        ctx.adopt(mod._ctx)
        out = c_void_p()
        check(lib.rlx_transform_run(ctx.ptr, cstr(self._rlx), mod._h, byref(out)))
        return IRModule(handle=out.value, ctx=ctx)

    def __repr__(self):
        return "relax.transform.%s" % self.name


class Sequential(Pass):
    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        super().__init__(name, None)
        self.passes = list(passes or [])

    def __call__(self, mod):
        for p in self.passes:
            mod = p(mod)
        return mod


class _WellFormedCheck(Pass):
    def __call__(self, mod):
        check(lib.rlx_module_well_formed(mod._ctx.ptr, mod._h))
        return mod


_TVM_NAMES = {
    "ConvertLayout": "layout_nchwc",
    "LegalizeOps": "legalize_ops",
    "FoldConstant": "fold_constants",
    "FuseOps": "fuse_ops",
    "FuseTIR": "fuse_tir",
    "DefaultSchedule": "default_schedule",
    "CallTIRRewrite": "call_tir_rewrite",
    "StaticPlanBlockMemory": "plan_memory",
    "VMShapeLower": "lower_shapes",
}


def _factory(tvm_name, rlx_name):
    def make(*args, **kwargs):
        return Pass(tvm_name, rlx_name)

    make.__name__ = tvm_name
    make.__doc__ = "TVM's relax.transform.%s (rlx pass %s)." % (tvm_name, rlx_name)
    return make


def _rlx_pass_names():
    return [lib.rlx_transform_pass_name(i).decode() for i in range(lib.rlx_transform_pass_count())]


for _tvm, _rlx in _TVM_NAMES.items():
    if _rlx is None or _rlx in _rlx_pass_names():
        globals()[_tvm] = _factory(_tvm, _rlx)


class _BindParams(Pass):
    def __init__(self, func_name, params):
        super().__init__("BindParams", None)
        self.func_name = func_name
        self.params = params

    def __call__(self, mod):
        from ..ir import IRModule
        from .expr import Var, const
        names, values = [], []
        for k, v in self.params.items():
            names.append(k.name_hint if isinstance(k, Var) else str(k))
            values.append(v if hasattr(v, "_h") and not hasattr(v, "numpy") else const(v))
        ctx = _ffi.ctx_for(mod, *values)
        narr = (c_char_p * max(len(names), 1))(*[cstr(n) for n in names])
        varr, n = _ffi.harray([v._h for v in values])
        out = c_void_p()
        check(lib.rlx_relax_bind_params(ctx.ptr, mod._h, cstr(self.func_name), n, narr, varr, byref(out)))
        return IRModule(handle=out.value, ctx=ctx)


def BindParams(func_name, params):  # noqa: N802 - TVM's name
    """Replaces parameters of func_name (keys: names or Vars) by constants (NDArrays, numpy
    arrays or relax Constants) and removes them from its signature (rlx_relax_bind_params)."""
    return _BindParams(func_name, dict(params))


def Normalize():  # noqa: N802 - TVM's name
    return _WellFormedCheck("Normalize", None)


def PassByName(rlx_name):  # noqa: N802
    """Any rlx pass by its own name (see `rlx print --after`)."""
    return Pass(rlx_name, rlx_name)


class PassContext:
    """Accepted for TVM scripts (`with tvm.transform.PassContext(opt_level=3):`); no options."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None):
        self.opt_level = opt_level

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    @staticmethod
    def current():
        return PassContext()
