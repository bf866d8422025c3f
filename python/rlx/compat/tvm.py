"""``import rlx.compat.tvm``: from then on, ``import tvm`` gives rlx, and every module
``tvm.X.Y`` is rlx's ``rlx.X.Y`` (the same module object, so ``tvm.relax is rlx.relax``).

TVM's later spellings that are pure renames resolve too: ``tvm.tirx`` (rlx.tir),
``tvm.script.tirx`` (rlx.script.tir, so ``from tvm.script import tirx as T`` works),
``tvm.runtime.tensor`` (rlx.nd.array). Nothing else is translated: a name rlx lacks is an
ImportError / AttributeError naming it. A real ``tvm`` already imported is left alone
(the hook is not installed then)."""
import importlib
import importlib.abc
import importlib.util
import sys

import rlx

# tvm module name -> rlx module name, where the two differ (TVM HEAD renames)
RENAMES = {"tvm": "rlx", "tvm.tirx": "rlx.tir", "tvm.script.tirx": "rlx.script.tir"}


def rlx_name(fullname):
    """The rlx module a tvm module name stands for (longest renamed prefix first)."""
    for k in sorted(RENAMES, key=len, reverse=True):
        if fullname == k or fullname.startswith(k + "."):
            return RENAMES[k] + fullname[len(k):]
    return None


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class TVMFinder(importlib.abc.MetaPathFinder):
    """Finds tvm.* as the rlx module of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        real = rlx_name(fullname)
        if real is None:
            return None
        try:
            mod = importlib.import_module(real)
        except ModuleNotFoundError:
            return None
        spec = importlib.util.spec_from_loader(fullname, _Loader(mod), is_package=hasattr(mod, "__path__"))
        return spec


def install():
    """Installs the hook (idempotent); returns False when a real tvm is already imported."""
    if "tvm" in sys.modules and not getattr(sys.modules["tvm"], "__name__", "").startswith("rlx"):
        return False
    if not any(isinstance(f, TVMFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TVMFinder())
    return True


install()
# the renamed attributes, so that tvm.tirx / tvm.script.tirx / tvm.runtime.tensor read as in TVM
import rlx.script  # noqa: E402
import rlx.tir  # noqa: E402

rlx.tirx = rlx.tir
rlx.script.tirx = rlx.script.tir
sys.modules.setdefault("rlx.tirx", rlx.tir)
sys.modules.setdefault("rlx.script.tirx", rlx.script.tir)
if not hasattr(rlx.runtime, "tensor"):
    rlx.runtime.tensor = rlx.nd.array
