"""Leak check: 1000 build-and-run cycles (parse, BlockBuilder + emit_te, relax.build, VM
load, run, free) keep the resident set stable. RLX_PY_LEAK_CYCLES overrides the count."""
import gc
import os

import numpy as np

import rlx as tvm
from rlx import relax, te

SRC = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")):
        with R.dataflow():
            z = R.add(x, y)
            R.output(z)
        return z
'''


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def one_cycle(i):
    if i % 2 == 0:
        mod = tvm.script.from_source(SRC)
    else:
        x = relax.Var("x", relax.TensorStructInfo((tvm.tir.Var("n", "int64"), 4), "float32"))
        y = relax.Var("y", x.struct_info)
        bb = relax.BlockBuilder()
        with bb.function("main", params=[x, y]):
            with bb.dataflow():
                z = bb.emit_te(lambda a, b: te.compute(a.shape, lambda *j: a(*j) + b(*j), name="add"), x, y)
                out = bb.emit_output(z)
            bb.emit_func_output(out)
        mod = bb.get()
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a = np.full((3, 4), i, "float32")
    r = vm["main"](a, tvm.nd.from_dlpack(a))
    assert r.numpy()[0, 0] == 2 * i


def test_build_and_run_cycles_keep_rss_stable():
    n = int(os.environ.get("RLX_PY_LEAK_CYCLES", "1000"))
    warm = min(50, n // 4)
    for i in range(warm):
        one_cycle(i)
    gc.collect()
    base = rss_kb()
    for i in range(warm, n):
        one_cycle(i)
    gc.collect()
    grown = rss_kb() - base
    assert grown < 16 * 1024, "RSS grew by %d KiB over %d cycles" % (grown, n - warm)
