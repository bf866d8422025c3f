"""rlx.transform (TVM's tvm.transform / tvm.ir.transform): Sequential and PassContext."""
from .relax.transform import Pass, PassContext, Sequential  # noqa: F401
