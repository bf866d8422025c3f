"""rlx.topi: not yet bound (the C topi library has no registry to generate from yet)."""
