"""rlx.ir: IRModule, GlobalVar and structural equality / hashing."""


from . import _ffi
from ._ffi import check, cstr, lib
from .tir import Node, PrimFunc, _script_of


class GlobalVar:
    def __init__(self, name_hint, handle=None, ctx=None):
        self.name_hint = name_hint
        self._h = handle
        self._ctx = ctx

    def __repr__(self):
        return "I.GlobalVar(%r)" % self.name_hint

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self):
        return hash(self.name_hint)


def _relax_function_cls():
    from .relax.expr import Function
    return Function


class IRModule(Node):
    """A module of PrimFuncs and Relax functions (rlx_module_t)."""
    __slots__ = ()

    def __init__(self, functions=None, handle=None, ctx=None):
        if handle is None:
            ctx = _ffi.Context()
            handle = lib.rlx_module_create(ctx.ptr)
        super().__init__(handle, ctx)
        for k, v in (functions or {}).items():
            self[k] = v

    @staticmethod
    def from_expr(expr):
        m = IRModule()
        m["main"] = expr
        return m

    def _names(self):
        return [lib.rlx_module_func_name(self._h, i).decode() for i in range(lib.rlx_module_func_count(self._h))]

    def _prim_names(self):
        return [lib.rlx_module_func_name(self._h, i).decode() for i in range(lib.rlx_module_func_count(self._h))
                if not lib.rlx_module_func_is_relax(self._h, i)]

    def get_global_vars(self):
        return [GlobalVar(n) for n in self._names()]

    def get_global_var(self, name):
        if name not in self._names():
            raise ValueError("IRModule has no function %r (has %s)" % (name, self._names()))
        return GlobalVar(name)

    @property
    def functions(self):
        return {GlobalVar(n): self[n] for n in self._names()}

    def items(self):
        return [(GlobalVar(n), self[n]) for n in self._names()]

    def __contains__(self, name):
        return (name.name_hint if isinstance(name, GlobalVar) else name) in self._names()

    def __getitem__(self, key):
        name = key.name_hint if isinstance(key, GlobalVar) else key
        f = lib.rlx_module_get_prim_func(self._h, cstr(name))
        if f:
            return PrimFunc(f, self._ctx)
        f = lib.rlx_module_get_relax_func(self._h, cstr(name))
        if f:
            return _relax_function_cls()(f, self._ctx, module=self, name=name)
        raise ValueError("IRModule has no function %r (has %s)" % (name, self._names()))

    def __setitem__(self, key, func):
        name = key.name_hint if isinstance(key, GlobalVar) else key
        self._ctx.adopt(func._ctx)
        if isinstance(func, PrimFunc):
            lib.rlx_module_add_prim_func(self._h, func._renamed(name)._h)
        elif isinstance(func, _relax_function_cls()):
            lib.rlx_module_add_relax_func(self._h, cstr(name), func._h)
        else:
            raise TypeError("IRModule values are PrimFuncs or relax Functions, got %s" % type(func).__name__)

    def update_func(self, gv, func):
        self[gv] = func

    def copy(self):
        ctx = _ffi.Context()
        ctx.adopt(self._ctx)
        return IRModule(handle=lib.rlx_module_copy(ctx.ptr, self._h), ctx=ctx)

    def script(self, show_meta=False, **kwargs):
        """TVMScript text; tensor constants print as metadata["relax.expr.Constant"][i], with
        show_meta their data in TVM's metadata section at the top (the text parses back)."""
        return _script_of(_ffi.take_string(lib.rlx_script_print_module_ex(self._h, bool(show_meta))))

    def show(self, style=None, black_format=False, show_meta=False, **kwargs):
        print(self.script(show_meta=show_meta))

    def __str__(self):
        return self.script()

    __repr__ = __str__

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


def _kind(x):
    from .relax.expr import Expr, Function
    from .relax.struct_info import StructInfo
    from .tir import PrimExpr
    for k in (IRModule, PrimFunc, Function, Expr, StructInfo, PrimExpr):
        if isinstance(x, k):
            return k
    if x is None or isinstance(x, (int, float, str, bool, list, tuple, dict)):
        return type(x)
    raise TypeError("structural comparison of %s is not supported" % type(x).__name__)


def structural_equal(lhs, rhs, map_free_vars=False):
    """TVM's StructuralEqual: modules, PrimFuncs, Relax functions and expressions, struct
    info, PrimExprs (vars by identity); Python values and sequences of those item by item."""
    from .relax.expr import Expr, Function
    from .relax.struct_info import StructInfo
    from .tir import PrimExpr
    k = _kind(lhs)
    if _kind(rhs) is not k:
        return False
    if k is IRModule:
        return bool(lib.rlx_module_equal(lhs._h, rhs._h))
    if k is PrimFunc:
        return bool(lib.rlx_tir_func_equal(lhs._h, rhs._h))
    if k is Function:
        return bool(lib.rlx_relax_func_equal(lhs._h, rhs._h))
    if k is Expr:
        return bool(lib.rlx_relax_expr_equal(lhs._h, rhs._h))
    if k is StructInfo:
        return bool(lib.rlx_sinfo_struct_equal(lhs._h, rhs._h))
    if k is PrimExpr:
        from .tir import Var
        if isinstance(lhs, Var) or isinstance(rhs, Var):
            return lhs.same_as(rhs)
        return lhs.same_as(rhs) or (str(lhs) == str(rhs) and lhs.dtype == rhs.dtype)
    if k in (list, tuple):
        return len(lhs) == len(rhs) and all(structural_equal(a, b, map_free_vars) for a, b in zip(lhs, rhs))
    if k is dict:
        return lhs.keys() == rhs.keys() and all(structural_equal(lhs[x], rhs[x], map_free_vars) for x in lhs)
    return lhs == rhs


def structural_hash(node, map_free_vars=False):
    from .relax.expr import Expr, Function
    from .relax.struct_info import StructInfo
    k = _kind(node)
    if k is IRModule:
        return lib.rlx_module_hash(node._h)
    if k is PrimFunc:
        return lib.rlx_tir_func_hash(node._h)
    if k is Function:
        return lib.rlx_relax_func_hash(node._h)
    if k is Expr:
        return lib.rlx_relax_expr_hash(node._h)
    if k is StructInfo:
        return hash(str(node))
    return hash(str(node))


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    if not structural_equal(lhs, rhs, map_free_vars):
        import difflib
        diff = "\n".join(difflib.unified_diff(str(lhs).splitlines(), str(rhs).splitlines(), "lhs", "rhs",
                                              lineterm=""))
        raise ValueError("StructuralEqual check failed:\n" + diff)


def save_json(node):
    return node.script()




def __getattr__(name):
    if name == "Op":  # tvm.ir.Op (lives with the Relax nodes)
        from .relax.expr import Op
        return Op
    raise AttributeError("module 'rlx.ir' has no attribute %r" % name)
