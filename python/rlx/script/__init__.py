"""rlx.script: TVMScript decorators. ``from rlx.script import tir as T, relax as R, ir as I``.

The decorated source is read with inspect and handed to the C parser (rlx_script_parse);
it is never run by Python. The text is given with its real line numbers (padded with
blank lines) and the file's name, so a parse error reads FILE:LINE:COL of the Python file.
Everything else these modules are asked for (T.Buffer, R.Tensor ... in annotations, which
Python does evaluate) is an inert placeholder."""
from . import ir, relax, tir
from .parser import from_source

ir_module = ir.ir_module
__all__ = ["ir", "relax", "tir", "from_source", "ir_module"]
