"""Extern modules of rlx.relax.frontend.nn (TVM's nn.ExternModule / nn.ObjectModule /
nn.SourceModule): C, C++ or CUDA code called from an exported method through
R.call_dps_packed. export_tvm attaches each module's object or source file to the IRModule
and relax.build links it into the executable (the C layer's externs), so export_library gives
one self-contained library.

Two ways to describe a symbol, as in TVM's two versions:
- functions={symbol: spec.ExternFunctionSpec(args=[spec.Tensor(...)], ret=spec.Tensor(...))};
  dims given as strings are unified by name over the arguments (a conflict is an error naming
  the symbol and the dim) and substituted into ret. Beyond TVM: ret may be a list (the call
  returns a tuple) and a dtype may be a name ("T"), bound on first use like a dim, so one
  symbol serves several dtypes.
- symbols={symbol: callable}: the callable takes the nn.Tensors and returns
  nn.Tensor.placeholder(shape, dtype) (or a list of them) describing the result."""
import os
import shutil
import subprocess
import tempfile
import weakref
from ctypes import c_char_p

from .... import _ffi
from ...block_builder import BlockBuilder
from ...expr import TupleGetItem, call_dps_packed
from ...struct_info import TensorStructInfo
from .. import _EXTERNS, _keep
from . import spec as _spec
from .core import Module, Tensor

_DTYPES = {"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "bool"}
_EXT = {"c": ".c", "cpp": ".cc", "cu": ".cu"}
_ffi.lib.rlx_config_include_dir.restype = c_char_p
_ffi.lib.rlx_config_include_dir.argtypes = []


def attach_externs(mod, modules):
    """Records the files of the extern modules for relax.build (by module handle)."""
    files = []
    for m in modules:
        for f in m._files():
            if f not in files:
                files.append(f)
    return _keep(_EXTERNS, mod, (files, list(modules)))  # the modules keep their files alive


def _same(a, b):
    try:
        return int(a) == int(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


class _Binder:
    """Binds the names of a spec (dims and dtypes given as strings) to the actual arguments."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.dims = {}
        self.dtypes = {}

    def dim(self, d, actual):
        if isinstance(d, str):
            if d in self.dims and not _same(self.dims[d], actual):
                raise ValueError("extern '%s': dim '%s' is %s in one argument and %s in another" %
                                 (self.symbol, d, self.dims[d], actual))
            self.dims.setdefault(d, actual)
        elif not _same(d, actual):
            raise ValueError("extern '%s': expected dim %s, got %s" % (self.symbol, d, actual))

    def dtype(self, t, actual):
        if t in _DTYPES:
            if t != actual:
                raise ValueError("extern '%s': expected dtype %s, got %s" % (self.symbol, t, actual))
            return
        if t in self.dtypes and self.dtypes[t] != actual:
            raise ValueError("extern '%s': dtype '%s' is %s in one argument and %s in another" %
                             (self.symbol, t, self.dtypes[t], actual))
        self.dtypes.setdefault(t, actual)

    def out(self, s):
        shape = []
        for d in s.shape:
            if isinstance(d, str):
                if d not in self.dims:
                    raise ValueError("extern '%s': result dim '%s' is not bound by any argument" % (self.symbol, d))
                shape.append(self.dims[d])
            else:
                shape.append(d)
        dtype = s.dtype
        if dtype not in _DTYPES:
            if dtype not in self.dtypes:
                raise ValueError("extern '%s': result dtype '%s' is not bound by any argument" % (self.symbol, dtype))
            dtype = self.dtypes[dtype]
        return TensorStructInfo(shape, dtype)


class ExternModule(Module):
    """External code called through R.call_dps_packed; subclasses give its file."""

    def __init__(self, symbols=None, functions=None):
        super().__init__()
        self._symbols = dict(symbols or {})
        self._functions = dict(functions or {})

    def _files(self):
        return []

    def get_extern_func(self, symbol):
        if symbol not in self._symbols and symbol not in self._functions:
            raise ValueError("extern module has no symbol '%s' (it has: %s)" %
                             (symbol, ", ".join(sorted(set(self._symbols) | set(self._functions)))))

        def call(*args):
            return self._call(symbol, list(args))

        return call

    def __getitem__(self, symbol):
        return self.get_extern_func(symbol)

    def _call(self, symbol, args):
        bb = BlockBuilder.current()
        if bb is None:
            raise RuntimeError("extern '%s' called outside export_tvm" % symbol)
        if symbol in self._symbols:
            ret = self._symbols[symbol](*args)
            rets = list(ret) if isinstance(ret, (list, tuple)) else [ret]
            sinfos = [TensorStructInfo(r.shape, r.dtype) for r in rets]
            many = isinstance(ret, (list, tuple))
        else:
            fs = self._functions[symbol]
            if len(fs.args) != len(args):
                raise ValueError("extern '%s' takes %d arguments, got %d" % (symbol, len(fs.args), len(args)))
            b = _Binder(symbol)
            for s, a in zip(fs.args, args):
                if isinstance(s, _spec.Tensor):
                    if not isinstance(a, Tensor) or a.ndim != len(s.shape):
                        raise ValueError("extern '%s': expected a %d-d tensor" % (symbol, len(s.shape)))
                    for d, actual in zip(s.shape, a.shape):
                        b.dim(d, actual)
                    b.dtype(s.dtype, a.dtype)
            many = isinstance(fs.ret, (list, tuple))
            sinfos = [b.out(r) for r in (fs.ret if many else [fs.ret])]
        exprs = [a._expr if isinstance(a, Tensor) else a for a in args]
        out_sinfo = sinfos if many else sinfos[0]
        v = bb.emit(call_dps_packed(symbol, exprs, out_sinfo), symbol)
        if not many:
            return Tensor(v)
        return tuple(Tensor(bb.emit(TupleGetItem(v, i), "%s_%d" % (symbol, i))) for i in range(len(sinfos)))


class ObjectModule(ExternModule):
    """An object file (.o) or archive (.a) holding the symbols."""

    def __init__(self, symbols, filepath):
        super().__init__(symbols=symbols)
        self.filepath = os.path.abspath(filepath)

    def _files(self):
        return [self.filepath]


class SourceModule(ExternModule):
    """Source code (source_format "c", "cpp" or "cu") compiled into the model when it is built.
    TVM's first form: SourceModule(source_code, source_format, functions, compile_options=None,
    compiler=None, output_format="obj"); its later one: SourceModule(symbols, source_code,
    source_format="cpp", compile_options=None, compiler=None, output_format="obj")."""

    def __init__(self, *args, **kwargs):
        if args and isinstance(args[0], dict):  # the later form: symbols first
            symbols, rest = args[0], list(args[1:])
            source_code = rest.pop(0) if rest else kwargs.pop("source_code")
            source_format = rest.pop(0) if rest else kwargs.pop("source_format", "cpp")
            functions = None
        else:
            rest = list(args)
            symbols = kwargs.pop("symbols", None)
            source_code = rest.pop(0) if rest else kwargs.pop("source_code")
            source_format = rest.pop(0) if rest else kwargs.pop("source_format")
            functions = rest.pop(0) if rest else kwargs.pop("functions", None)
        compile_options = rest.pop(0) if rest else kwargs.pop("compile_options", None)
        compiler = rest.pop(0) if rest else kwargs.pop("compiler", None)
        output_format = rest.pop(0) if rest else kwargs.pop("output_format", "obj")
        if kwargs:
            raise TypeError("SourceModule: unknown arguments %s" % ", ".join(sorted(kwargs)))
        if source_format not in _EXT:
            raise ValueError("SourceModule: source_format must be 'c', 'cpp' or 'cu', got %r" % (source_format,))
        if output_format != "obj":
            raise ValueError("SourceModule: output_format must be 'obj', got %r" % (output_format,))
        super().__init__(symbols=symbols, functions=functions)
        if os.path.isfile(source_code):
            with open(source_code) as f:
                source_code = f.read()
        self.source_code = source_code
        self.source_format = source_format
        self.compile_options = compile_options
        self.compiler = compiler
        self._dir = tempfile.mkdtemp(prefix="rlx-nn-extern-")
        weakref.finalize(self, shutil.rmtree, self._dir, True)  # the source and its object
        self._path = os.path.join(self._dir, "module" + _EXT[source_format])
        with open(self._path, "w") as f:
            f.write(source_code)
        self._obj = None

    @staticmethod
    def tvm_home():
        """The directory whose include/ holds the TVM-compatible headers (rlx's include/)."""
        return os.path.dirname(_ffi.lib.rlx_config_include_dir().decode())

    @staticmethod
    def get_includes(tvm_pkg=None):
        return [_ffi.lib.rlx_config_include_dir().decode()]

    def _files(self):
        if self.compile_options is None and self.compiler is None:
            return [self._path]  # compiled by the C layer with its flags
        if self._obj is None:  # the user's compiler or flags: compile it here
            default = {"c": "cc", "cpp": "c++", "cu": "nvcc"}[self.source_format]
            cc = (self.compiler or os.environ.get({"c": "CC", "cpp": "CXX", "cu": "NVCC"}[self.source_format]) or
                  default).split()
            opts = list(self.compile_options) if self.compile_options is not None else ["-O3", "-fPIC"]
            obj = os.path.join(self._dir, "module.o")
            cmd = cc + opts + ["-I" + d for d in self.get_includes()] + ["-c", self._path, "-o", obj]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("SourceModule: %s failed:\n%s" % (" ".join(cmd), r.stderr))
            self._obj = obj
        return [self._obj]
