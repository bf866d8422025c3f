"""Source extraction and parsing for the TVMScript decorators."""
import ast
import collections
import inspect
import json
import linecache
import os
import re
import sys
import textwrap
import types
from ctypes import byref, c_void_p

from .. import _ffi
from .._ffi import check, cstr, lib


class _Inert:
    """What T.Buffer(...), R.Tensor(...) and friends evaluate to in Python."""

    def __init__(self, name="?"):
        self._name = name

    def __call__(self, *a, **k):
        return _Inert(self._name)

    def __getitem__(self, k):
        return _Inert(self._name)

    def __getattr__(self, k):
        if k.startswith("__"):
            raise AttributeError(k)
        return _Inert(self._name + "." + k)

    def __repr__(self):
        return "<TVMScript %s>" % self._name

    def __iter__(self):
        return iter(())


def inert(name):
    return _Inert(name)


def parse_module(text, filename="<string>", scope=None):
    """Parses TVMScript text into an IRModule; scope: {name: value} of the enclosing Python
    scope for the names the text reads without defining (see _bindings)."""
    from ..ir import IRModule
    ctx = _ffi.Context()
    out = c_void_p()
    binds = _bindings(text, scope) if scope else []
    if binds:
        arr = (_ffi.ScriptBinding * len(binds))(*binds)
        check(lib.rlx_script_parse_scope(ctx.ptr, cstr(text), cstr(filename), len(binds), arr, byref(out)))
    else:
        check(lib.rlx_script_parse(ctx.ptr, cstr(text), cstr(filename), byref(out)))
    return IRModule(handle=out.value, ctx=ctx)


def from_source(text, filename="<string>", check_well_formed=True):
    """Parses TVMScript text: an IRModule for an @I.ir_module class (or several
    definitions), the function itself for the text of one function (as TVM's parse).
    check_well_formed is accepted for TVM's signature; rlx always checks Relax functions."""
    m = parse_module(text, filename)
    try:
        top = [n for n in ast.parse(text).body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr))]
    except SyntaxError:
        return m
    if len(top) == 1 and isinstance(top[0], ast.FunctionDef):
        names = m._names()
        if len(names) == 1:
            return m[names[0]]
    return m


# ---- the enclosing Python scope (TVM's parser evaluates names there) ----
def _attr_chains(tree, roots):
    """Dotted names a.b.c (longest chains) read in tree whose root a is in roots."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
            parts, x = [], n
            while isinstance(x, ast.Attribute):
                parts.append(x.attr)
                x = x.value
            if isinstance(x, ast.Name) and x.id in roots:
                out.append(".".join([x.id] + parts[::-1]))
    return sorted(set(out), key=len, reverse=True)


def _free_names(tree):
    """Names the code reads but never binds (params, assignments, defs, imports, loops)."""
    loads, bound = [], set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                loads.append(n.id)
            else:
                bound.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
            if not isinstance(n, ast.ClassDef):
                a = n.args
                for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                    if x is not None:
                        bound.add(x.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for al in n.names:
                bound.add((al.asname or al.name).split(".")[0])
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
    seen, out = set(), []
    for x in loads:
        if x not in bound and x not in seen:
            seen.add(x)
            out.append(x)
    return out


class _NoText(Exception):
    pass


def _text_of(v, decls, depth=0):
    """TVMScript text for a Python value, or _NoText. Symbolic vars found go to decls."""
    from .. import tir
    if depth > 20:
        raise _NoText
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise _NoText
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (tuple, list)):
        items = [_text_of(x, decls, depth + 1) for x in v]
        if isinstance(v, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, _Inert):
        return v._name
    name = getattr(v, "script_name", None)
    if isinstance(name, str) and callable(v):
        return name
    if isinstance(v, tir.Var):
        decls[v.name] = v.dtype
        return v.name
    if isinstance(v, tir.PrimExpr):
        iv = getattr(v, "value", None)
        if isinstance(iv, (int, float)) and not isinstance(iv, bool):
            return "T.%s(%r)" % (v.dtype, iv)
        raise _NoText
    dt = getattr(v, "dtype_str", None)
    if isinstance(dt, str):
        return json.dumps(dt)
    raise _NoText


def _bindings(text, scope):
    """rlx_script_binding_t values for the names text reads but does not define, looked up in
    scope (a mapping); names that are unbound there or whose value has no TVMScript text are
    left to the parser (which reports them)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out, decls = [], {}
    for name in _free_names(tree):
        if name in ("T", "R", "I", "tvm", "metadata") or name not in scope:
            continue
        v = scope[name]
        if isinstance(v, types.ModuleType):
            mod = getattr(v, "__name__", "")
            alias = {"rlx.script.tir": "T", "rlx.script.relax": "R", "rlx.script.ir": "I"}.get(mod)
            if alias and alias != name:
                out.append(_ffi.ScriptBinding(cstr(name), cstr(alias), _ffi.DType()))
            elif not alias:  # relax.op.add read through a module of the scope
                for chain in _attr_chains(tree, {name}):
                    x = v
                    try:
                        for part in chain.split(".")[1:]:
                            x = getattr(x, part)
                        t = _text_of(x, decls)
                    except (AttributeError, _NoText):
                        continue
                    out.append(_ffi.ScriptBinding(cstr(chain), cstr(t), _ffi.DType()))
            continue
        try:
            t = _text_of(v, decls)
        except _NoText:
            continue
        if t != name:
            out.append(_ffi.ScriptBinding(cstr(name), cstr(t), _ffi.DType()))
    for name, dt in decls.items():
        out.append(_ffi.ScriptBinding(cstr(name), None, _ffi.dtype_of(dt)))
    return out


def _scope_of(obj, filename):
    """The Python scope where obj (a decorated function or class) was defined: the innermost
    frame running code of obj's file (the decorator's caller; a class body and the function
    around it), obj's closure cells, then the module's globals."""
    maps = []
    f = inspect.currentframe()
    try:
        while f is not None and f.f_code.co_filename != filename:
            f = f.f_back
        if f is not None:
            maps.append(f.f_locals)
            # a class body (an @I.ir_module member decorated in it): the function around it too
            if "__module__" in f.f_locals and "__qualname__" in f.f_locals and f.f_back is not None:
                maps.append(f.f_back.f_locals)
        code = getattr(obj, "__code__", None)
        if code is not None and getattr(obj, "__closure__", None):
            cells = {}
            for name, cell in zip(code.co_freevars, obj.__closure__):
                try:
                    cells[name] = cell.cell_contents
                except ValueError:
                    pass
            maps.append(cells)
        g = getattr(obj, "__globals__", None)
        if g is None:
            mod = sys.modules.get(getattr(obj, "__module__", None) or "")
            g = getattr(mod, "__dict__", None)
        if g is None and f is not None:
            g = f.f_globals
        if g is not None:
            maps.append(g)
    finally:
        del f
    return collections.ChainMap(*maps)


_TREES = {}  # filename -> (mtime, size, class definitions by name)


def _class_source(cls, filename):
    """(lines, first line) of class cls in filename, or None. inspect re-parses the whole file
    for every class it is asked for; a test file of a few thousand lines with a hundred
    @I.ir_module classes makes that quadratic, so the class definitions are read once."""
    try:
        st = os.stat(filename)
    except OSError:
        return None
    ent = _TREES.get(filename)
    lines = linecache.getlines(filename)
    if ent is None or ent[0] != st.st_mtime or ent[1] != st.st_size:
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            return None
        by_name = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.ClassDef):
                by_name.setdefault(n.name, []).append(n)
        ent = (st.st_mtime, st.st_size, by_name)
        _TREES[filename] = ent
    cands = ent[2].get(cls.__name__, [])
    member_lines = [m.f.__code__.co_firstlineno for m in vars(cls).values()
                    if isinstance(m, _Member) and hasattr(m.f, "__code__")]
    for n in cands:
        if len(cands) == 1 or any(n.lineno <= ln <= n.end_lineno for ln in member_lines):
            start = min([d.lineno for d in n.decorator_list] + [n.lineno])
            return lines[start - 1:n.end_lineno], start
    return None


def parse_object(obj):
    """Parses the source of a decorated function or class, keeping file and line numbers;
    names it reads without defining take their values from the scope it was defined in."""
    try:
        filename = inspect.getsourcefile(obj) or "<unknown>"
        got = _class_source(obj, filename) if inspect.isclass(obj) else None
        lines, start = got if got else inspect.getsourcelines(obj)
    except (OSError, TypeError) as e:
        raise ValueError("TVMScript: cannot read the source of %r (%s)" % (obj, e))
    src = "".join(lines)
    indent = len(src) - len(src.lstrip(" "))
    src = textwrap.dedent(src)
    text = "\n" * (start - 1) + src
    scope = _scope_of(obj, filename)
    try:
        return parse_module(text, filename, scope)
    except _ffi._error.RLXError as e:
        msg = str(e)
        if indent:
            pat = re.compile(re.escape(filename) + r":(\d+):(\d+)")
            msg = pat.sub(lambda m: "%s:%s:%d" % (filename, m.group(1), int(m.group(2)) + indent), msg)
        raise type(e)(msg) from None


def is_method(f):
    """True for a function defined directly in a class body (a member of an @I.ir_module)."""
    parts = f.__qualname__.split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


class _Member:
    """A function inside an @I.ir_module class, parsed with the class."""

    def __init__(self, f):
        self.f = f
