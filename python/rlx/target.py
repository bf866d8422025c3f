"""rlx.target: TVM's Target over rlx's target value (include/rlx/target.h).

Target("llvm -mcpu=skylake-avx512"), Target("c -mtriple=aarch64-linux-gnu"), Target("llvm")
(= this machine's CPU), Target({"kind": "llvm", "mcpu": "znver3"}), Target.current() inside
`with Target(...)`. relax.build / tvm.build compile for the target they are given, never for
anything else: a foreign target builds a model that this machine refuses to load, with one
error naming what it lacks."""
from ctypes import POINTER, byref, c_char_p, c_int, c_void_p

from ._ffi import check, lib

# declared here rather than in _ffi's table: this module owns the target handle
lib.rlx_target_parse.restype = c_void_p
lib.rlx_target_parse.argtypes = [c_char_p, POINTER(c_void_p)]
lib.rlx_target_free.restype = None
lib.rlx_target_free.argtypes = [c_void_p]
for _name in ("rlx_target_str", "rlx_target_kind", "rlx_target_mcpu", "rlx_target_triple", "rlx_target_features",
              "rlx_target_isa"):
    getattr(lib, _name).restype = c_char_p
    getattr(lib, _name).argtypes = [c_void_p]
for _name in ("rlx_target_num_cores", "rlx_target_vector_bytes", "rlx_target_nchwc_block"):
    getattr(lib, _name).restype = c_int
    getattr(lib, _name).argtypes = [c_void_p]
lib.rlx_target_check_host.restype = c_void_p
lib.rlx_target_check_host.argtypes = [c_void_p]

_current = []


class TargetKind:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def __repr__(self):
        return "TargetKind(%r)" % self.name


def _text_of(target):
    if isinstance(target, Target):
        return str(target)
    if isinstance(target, dict):
        words = [target.get("kind", "llvm")]
        for key, value in target.items():
            if key in ("kind", "host", "keys"):
                continue
            if isinstance(value, (list, tuple)):
                value = ",".join(value)
            words.append("-%s=%s" % (key, value))
        return " ".join(words)
    if target is None:
        return ""
    return str(target)


class Target:
    """A compilation target: the C backend for one CPU (its features decide vector widths,
    register tiles, the NCHWc block and the compiler's -march)."""

    def __init__(self, target, host=None):
        text = _text_of(target)
        h = c_void_p()
        check(lib.rlx_target_parse(text.encode(), byref(h)))
        self._h = h.value
        self.host = Target(host) if host is not None and not isinstance(host, Target) else host

    def __del__(self):
        if getattr(self, "_h", None) and lib is not None:
            lib.rlx_target_free(self._h)
            self._h = None

    def __str__(self):
        return lib.rlx_target_str(self._h).decode()

    def __repr__(self):
        return "Target(%r)" % str(self)

    def __eq__(self, other):
        return isinstance(other, Target) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    @property
    def kind(self):
        return TargetKind(lib.rlx_target_kind(self._h).decode())

    @property
    def keys(self):
        return ["cpu"]

    @property
    def mcpu(self):
        return lib.rlx_target_mcpu(self._h).decode()

    @property
    def mtriple(self):
        return lib.rlx_target_triple(self._h).decode()

    @property
    def features(self):
        """Every CPU feature the target has ("avx2", "fma", "avx512f", "neon" ...)."""
        text = lib.rlx_target_features(self._h).decode()
        return text.split(",") if text else []

    @property
    def mattr(self):
        return ["+" + f for f in self.features]

    @property
    def attrs(self):
        a = {"mcpu": self.mcpu, "mtriple": self.mtriple, "mattr": self.mattr, "keys": self.keys}
        cores = lib.rlx_target_num_cores(self._h)
        if cores:
            a["num-cores"] = cores
        return a

    @property
    def isa(self):
        """The kernel level code for this target uses: x86-64-v2/v3/v4, neon or portable."""
        return lib.rlx_target_isa(self._h).decode()

    @property
    def vector_bytes(self):
        return lib.rlx_target_vector_bytes(self._h)

    @property
    def nchwc_block(self):
        return lib.rlx_target_nchwc_block(self._h)

    def runs_here(self):
        """Whether code built for this target runs on this machine (capped by RLX_MAX_ISA)."""
        st = lib.rlx_target_check_host(self._h)
        if st:
            lib.rlx_status_free(st)
            return False
        return True

    def export(self):
        return {"kind": self.kind.name, **self.attrs}

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.pop()

    @staticmethod
    def current(allow_none=True):
        if _current:
            return _current[-1]
        if allow_none:
            return None
        raise ValueError("no target in scope (use `with Target(...)`)")

    @staticmethod
    def list_kinds():
        return ["c", "llvm"]


def create(target):
    return Target(target)


def resolve(target):
    """The target to build for: the one given, else the one in scope, else this machine."""
    if target is None:
        target = Target.current()
    if target is None:
        return Target("")
    return target if isinstance(target, Target) else Target(target)
