"""Packed functions for VM tests under TVM's names (test.vm.*, registered on import), and
check_saved_func: run a function of a VM after saving its executable and loading it back."""
import os
import tempfile

import numpy as np

from ... import nd, runtime
from ...runtime import register_func


def _np(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


@register_func("test.vm.move", override=True)
def move(src):
    return src


@register_func("test.vm.add", override=True)
def add(a, b):
    return nd.array(_np(a) + _np(b))


@register_func("test.vm.mul", override=True)
def mul(a, b):
    return nd.array(_np(a) * _np(b))


@register_func("test.vm.subtract_one", override=True)
def subtract_one(a):
    return nd.array(_np(a) - 1)


@register_func("test.vm.equal_zero", override=True)
def equal_zero(a):
    return nd.array(np.array(np.all(_np(a) == 0)))


@register_func("test.vm.add_scalar", override=True)
def add_scalar(a, b):
    return a + b


@register_func("test.vm.get_device_id", override=True)
def get_device_id(device):
    return getattr(device, "device_id", 0)


@register_func("test.vm.identity", override=True)
def identity(a, b):
    """DPS: b[...] = a."""
    b.copyfrom(_np(a))


@register_func("test.vm.tile", override=True)
def tile(a, b):
    """DPS: b = a repeated twice along its last axis."""
    b.copyfrom(np.tile(_np(a), (1, 2)))


def check_saved_func(vm, func_name, *inputs):
    """vm[func_name](*inputs) on a VM whose executable was exported to a file and loaded back
    (the result is checked to equal the one of the VM given)."""
    from ..vm import VirtualMachine
    res1 = vm[func_name](*inputs)
    exe = getattr(vm, "_exec", None)
    if exe is None or not hasattr(exe, "export_library"):
        return res1
    with tempfile.TemporaryDirectory(prefix="rlx-saved-") as d:
        path = os.path.join(d, "exec.so")
        exe.export_library(path)
        vm2 = VirtualMachine(runtime.load_module(path))
        vm2._layouts = dict(vm._layouts)  # the file holds the functions, not their result grouping
        res2 = vm2[func_name](*inputs)
    _assert_same(res1, res2)
    return res2


def _assert_same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
        return
    if hasattr(a, "numpy"):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)
