"""rlx.relax.frontend.torch: PyTorch FX graphs to Relax (TVM's from_fx)."""
from .fx_translator import from_fx

__all__ = ["from_fx"]
