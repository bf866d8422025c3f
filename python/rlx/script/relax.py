"""``R``: @R.function, and the struct-info sugar R.Tensor / R.Shape / R.Tuple / R.Prim /
R.Object, which (as in TVM) give real struct info usable outside TVMScript:
``relax.Var("x", R.Tensor((2, "n"), "float32"))`` (a string dim is a new int64 tir.Var).
Inside a decorated function Python only evaluates the annotations, which the C parser reads
from the source; an annotation these cannot build is an inert placeholder. Every other name
is an inert placeholder."""
from .parser import _Member, inert, is_method, parse_object


def function(f=None, pure=True, private=False, check_well_formed=True):
    def deco(fn):
        if is_method(fn):
            return _Member(fn)
        mod = parse_object(fn)
        return mod[mod._names()[-1]]

    if f is None:
        return deco
    return deco(f)


def _dims(values):
    from .. import tir
    return [tir.Var(v, "int64") if isinstance(v, str) else v for v in values]


def _or_inert(name, make):
    try:
        return make()
    except Exception:  # noqa: BLE001 - an annotation Python cannot build stays inert
        return inert("R." + name)


def Tensor(shape=None, dtype=None, vdevice=None, ndim=-1):  # noqa: N802 - TVM's name
    from ..relax import struct_info as si
    if isinstance(shape, str) and dtype is None:  # R.Tensor("float32", ndim=2)
        shape, dtype = None, shape
    return _or_inert("Tensor", lambda: si.TensorStructInfo(None if shape is None else _dims(shape), dtype, ndim))


def Shape(values=None, ndim=-1):  # noqa: N802
    from ..relax import struct_info as si
    return _or_inert("Shape", lambda: si.ShapeStructInfo(None if values is None else _dims(values), ndim))


def Tuple(*fields):  # noqa: N802
    from ..relax import struct_info as si
    if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
        fields = tuple(fields[0])
    return _or_inert("Tuple", lambda: si.TupleStructInfo(list(fields)))


def Prim(dtype=None, value=None):  # noqa: N802
    from ..relax import struct_info as si
    return _or_inert("Prim", lambda: si.PrimStructInfo(dtype, value))


def _object():
    from ..relax import struct_info as si

    class _Object(si.ObjectStructInfo):
        """R.Object: struct info itself, and R.Object() gives it too."""
        __slots__ = ()

        def __call__(self):
            return self

    return _Object()


def _script_funcs():
    from .. import relax as rx
    from ..relax import expr as ex
    return {"call_tir": ex.call_tir, "call_dps_packed": ex.call_dps_packed, "call_packed": ex.call_packed,
            "call_pure_packed": ex.call_pure_packed, "const": ex.const, "prim_value": rx.PrimValue,
            "str": rx.StringImm, "ExternFunc": rx.ExternFunc, "tuple": lambda *f: rx.Tuple(list(f)),
            "shape": rx.ShapeExpr}


def __getattr__(name):
    """R.<op> outside a script is the op itself (relax.op.<op>), as in TVM, so that Python code
    can build calls with R.add(x, y) and a closure holding R.add reads as R.add in a script;
    R.call_tir, R.const, R.prim_value ... likewise. Other names are inert placeholders."""
    if name == "Object":
        obj = _object()
        globals()["Object"] = obj
        return obj
    if not name.startswith("__"):
        from ..relax import op as _op
        f = _script_funcs().get(name)
        if f is not None:
            try:
                f.script_name = "R." + name
            except AttributeError:
                pass
            return f
        v = getattr(_op, name, None)
        if v is not None and (getattr(v, "script_name", None) or type(v).__name__ == "module") \
                and name not in ("lib", "check", "cstr", "harray", "byref", "c_void_p", "set_attr"):
            return v
    return inert("R." + name)
