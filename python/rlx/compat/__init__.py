"""rlx.compat: opt-in compatibility layers. ``import rlx.compat.tvm`` lets unchanged
``import tvm`` scripts run on rlx (see compat/tvm.py)."""
