"""Source extraction and parsing for the TVMScript decorators."""
import inspect
import re
import textwrap
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


def from_source(text, filename="<string>"):
    """Parses TVMScript text into an IRModule."""
    from ..ir import IRModule
    ctx = _ffi.Context()
    out = c_void_p()
    check(lib.rlx_script_parse(ctx.ptr, cstr(text), cstr(filename), byref(out)))
    return IRModule(handle=out.value, ctx=ctx)


def parse_object(obj):
    """Parses the source of a decorated function or class, keeping file and line numbers."""
    try:
        lines, start = inspect.getsourcelines(obj)
        filename = inspect.getsourcefile(obj) or "<unknown>"
    except (OSError, TypeError) as e:
        raise ValueError("TVMScript: cannot read the source of %r (%s)" % (obj, e))
    src = "".join(lines)
    indent = len(src) - len(src.lstrip(" "))
    src = textwrap.dedent(src)
    text = "\n" * (start - 1) + src
    try:
        return from_source(text, filename)
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
