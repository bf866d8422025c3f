"""rlx.contrib (TVM's tvm.contrib): utils (temporary directories) and cc (the C compiler)."""
from . import cc, utils  # noqa: F401
