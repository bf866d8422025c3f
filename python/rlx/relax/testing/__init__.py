"""rlx.relax.testing (TVM's tvm.relax.testing): helpers TVM ships for writing tests —
the small ``nn`` builder and the ``vm`` packed functions."""
from . import nn, vm  # noqa: F401
