"""tvm.target.Target over rlx's targets, and relax.build / tvm.build honouring them: the
compiled model records its target, a model for a CPU this machine is not (or is capped below)
is refused with one error naming what is missing, an aarch64 target cross-compiles."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import rlx as tvm
from rlx import relax, te
from rlx.target import Target

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def small_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit_te(lambda a: te.compute(a.shape, lambda i, j: a[i, j] * 2.0 + 1.0, name="y"), x)
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get()


def test_target_parse_and_fields():
    t = Target("llvm -mcpu=skylake-avx512")
    assert str(t) == "llvm -keys=cpu -mcpu=skylake-avx512 -mtriple=x86_64-linux-gnu"
    assert t.kind.name == "llvm" and t.mcpu == "skylake-avx512" and t.keys == ["cpu"]
    assert "avx512f" in t.features and t.isa == "x86-64-v4" and t.nchwc_block == 16 and t.vector_bytes == 64
    v3 = Target({"kind": "c", "mcpu": "x86-64-v3", "num-cores": 4})
    assert str(v3) == "c -keys=cpu -mcpu=x86-64-v3 -mtriple=x86_64-linux-gnu -num-cores=4"
    assert v3.attrs["num-cores"] == 4 and "avx512f" not in v3.features and v3.nchwc_block == 8
    a64 = Target("c -mtriple=aarch64-linux-gnu -mattr=+dotprod")
    assert a64.isa == "neon" and "dotprod" in a64.features and a64.mtriple == "aarch64-linux-gnu"
    assert Target(str(a64)) == a64
    with pytest.raises(ValueError, match="unknown x86-64 feature 'bogus'"):
        Target("c -mcpu=x86-64-v3 -mattr=+bogus")
    with Target("c -mcpu=x86-64-v2") as scoped:
        assert Target.current() is scoped
    assert Target.current() is None


def test_host_target_runs_here():
    host = Target("llvm")
    assert host.runs_here()
    assert Target("c -mcpu=x86-64-v2").runs_here() == (host.mtriple.startswith("x86_64"))


def test_build_records_target_and_runs(tmp_path):
    mod = small_module()
    x = np.arange(32, dtype="float32").reshape(4, 8)
    for text in ("c -mcpu=x86-64-v2", "c -mcpu=x86-64-v3", "c -mcpu=x86-64-v4"):
        t = Target(text)
        ex = relax.build(mod, target=t)
        path = str(tmp_path / "m.so")
        ex.export_library(path)
        out = subprocess.run([os.path.join(ROOT, "build", "bin", "rlx"), "print", path], capture_output=True, text=True)
        assert out.stdout.startswith("; target: " + str(t)), out.stdout[:200] + out.stderr
        if not t.runs_here():
            with pytest.raises(NotImplementedError, match="which this CPU .* lacks"):
                relax.VirtualMachine(ex, tvm.cpu())
            continue
        vm = relax.VirtualMachine(ex, tvm.cpu())
        np.testing.assert_allclose(vm["main"](x).numpy(), x * 2 + 1, rtol=0)


def test_build_uses_target_in_scope(tmp_path):
    with Target("c -mcpu=x86-64-v2"):
        ex = relax.build(small_module())
    out = subprocess.run([os.path.join(ROOT, "build", "bin", "rlx"), "print", ex.path], capture_output=True, text=True)
    assert "-mcpu=x86-64-v2" in out.stdout.splitlines()[0]


@pytest.mark.skipif(shutil.which("aarch64-linux-gnu-gcc") is None, reason="no aarch64 cross compiler")
def test_build_for_aarch64_cross_compiles():
    ex = relax.build(small_module(), target="llvm -mtriple=aarch64-linux-gnu")
    with open(ex.path, "rb") as f:
        head = f.read(20)
    assert head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 183  # EM_AARCH64
    with pytest.raises(NotImplementedError, match="is for aarch64; this machine is x86-64"):
        relax.VirtualMachine(ex, tvm.cpu())


def test_prim_func_build_for_target():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    f = te.create_prim_func([A, B])
    m = tvm.build(f, target="c -mcpu=x86-64-v2")
    a = tvm.nd.array(np.arange(16, dtype="float32"))
    b = tvm.nd.array(np.zeros(16, dtype="float32"))
    m["main"](a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(16) + 1.0)
    if not Target("c -mcpu=x86-64-v4").runs_here():
        with pytest.raises(NotImplementedError, match="avx512f"):
            tvm.build(f, target="c -mcpu=x86-64-v4")
