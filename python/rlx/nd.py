"""rlx.nd: NDArray (a refcounted rlx_ndarray_t), devices and DLPack exchange.

An NDArray owns one reference to its rlx_ndarray_t, released when the Python object goes.
``array`` copies numpy data into new memory; ``numpy()`` copies out. DLPack is zero copy
both ways: ``from_dlpack`` wraps the producer's memory (the producer's deleter runs when
the NDArray goes) and ``__dlpack__`` lends ours (the capsule holds a reference).
"""
import ctypes
from ctypes import POINTER, Structure, byref, c_char_p, c_int64, c_void_p

import numpy as np

from . import _ffi
from ._ffi import DLTensor, check, lib

pythonapi = ctypes.pythonapi
pythonapi.PyCapsule_New.restype = ctypes.py_object
pythonapi.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
pythonapi.PyCapsule_GetPointer.restype = c_void_p
pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, c_char_p]
pythonapi.PyCapsule_SetName.restype = ctypes.c_int
pythonapi.PyCapsule_SetName.argtypes = [ctypes.py_object, c_char_p]
pythonapi.PyCapsule_IsValid.restype = ctypes.c_int
pythonapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, c_char_p]


class Device:
    """A device (rlx runs on the CPU: device_type 1, kDLCPU)."""

    def __init__(self, device_type=1, device_id=0):
        self.device_type = device_type
        self.device_id = device_id

    def __repr__(self):
        return "cpu(%d)" % self.device_id

    def __eq__(self, other):
        return isinstance(other, Device) and (other.device_type, other.device_id) == (self.device_type, self.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def sync(self):
        pass

    exist = True


def cpu(dev_id=0):
    return Device(1, dev_id)


def device(dev_type="cpu", dev_id=0):
    if isinstance(dev_type, str):
        name = dev_type.split()[0]
        if name not in ("cpu", "llvm", "c"):
            raise ValueError("rlx runs on the CPU only; device %r is not supported" % dev_type)
        return cpu(dev_id)
    if dev_type != 1:
        raise ValueError("rlx runs on the CPU only; device type %r is not supported" % dev_type)
    return cpu(dev_id)


def _np_dtype(dt):
    s = _ffi.dtype_str(dt)
    if s == "bool":
        return np.dtype(np.bool_)
    return np.dtype(s)


def _rlx_dtype(npdt):
    npdt = np.dtype(npdt)
    return _ffi.dtype_of("bool" if npdt == np.bool_ else npdt.name)


class DLManagedTensor(Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DELETER)]

# Tensors lent through DLPack: managed struct address -> (struct, handle).
_lent = {}


@DELETER
def _lent_deleter(p):
    addr = ctypes.addressof(p.contents)
    entry = _lent.pop(addr, None)
    if entry is not None:
        lib.rlx_ndarray_release(entry[1])


_CAPSULE_DTOR = ctypes.CFUNCTYPE(None, c_void_p)
_cap_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", pythonapi))
_cap_get = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", pythonapi))


@_CAPSULE_DTOR
def _capsule_dtor(cap):
    # A capsule nobody consumed (still named "dltensor") gives its reference back.
    if _cap_is_valid(cap, b"dltensor"):
        entry = _lent.pop(_cap_get(cap, b"dltensor"), None)
        if entry is not None:
            lib.rlx_ndarray_release(entry[1])


class NDArray:
    """A CPU tensor (TVM's tvm.nd.NDArray)."""

    __slots__ = ("handle", "_deleter", "_base", "__weakref__")

    def __init__(self, handle, deleter=None, base=None):
        self.handle = handle
        self._deleter = deleter
        self._base = base  # keeps borrowed memory alive (views of other objects)

    def __del__(self):
        if self.handle and lib is not None:
            lib.rlx_ndarray_release(self.handle)
            self.handle = None
        if self._deleter is not None:
            d, self._deleter = self._deleter, None
            d()

    @property
    def _dl(self):
        return ctypes.cast(self.handle, POINTER(DLTensor)).contents

    @property
    def shape(self):
        dl = self._dl
        return tuple(dl.shape[i] for i in range(dl.ndim))

    @property
    def ndim(self):
        return self._dl.ndim

    @property
    def dtype(self):
        return _ffi.dtype_str(self._dl.dtype)

    @property
    def device(self):
        return cpu(0)

    def _np_view(self):
        dl = self._dl
        npdt = _np_dtype(dl.dtype)
        n = int(np.prod(self.shape)) if self.shape else 1
        if n == 0:
            return np.empty(self.shape, npdt)
        buf = (ctypes.c_char * (n * npdt.itemsize)).from_address(dl.data + dl.byte_offset)
        return np.frombuffer(buf, dtype=npdt).reshape(self.shape)

    def numpy(self):
        """A numpy copy of the data."""
        return self._np_view().copy()

    asnumpy = numpy

    def copyfrom(self, source):
        src = source.numpy() if isinstance(source, NDArray) else np.asarray(source)
        view = self._np_view()
        if src.shape != view.shape:
            raise ValueError("copyfrom: shape %s does not match %s" % (src.shape, view.shape))
        view[...] = src.astype(view.dtype, copy=False)
        return self

    def copyto(self, target):
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        return array(self.numpy())

    def __repr__(self):
        return "<rlx.nd.NDArray shape=%s, %s>\n%s" % (self.shape, self.device, self.numpy())

    # ---- DLPack (lend our memory) ----
    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        m = DLManagedTensor()
        dl = self._dl
        m.dl_tensor.data = dl.data
        m.dl_tensor.device.device_type = 1
        m.dl_tensor.device.device_id = 0
        m.dl_tensor.ndim = dl.ndim
        m.dl_tensor.dtype = dl.dtype
        m.dl_tensor.shape = dl.shape
        m.dl_tensor.strides = None
        m.dl_tensor.byte_offset = dl.byte_offset
        m.manager_ctx = None
        m.deleter = _lent_deleter
        h = lib.rlx_ndarray_retain(self.handle)
        _lent[ctypes.addressof(m)] = (m, h)
        return pythonapi.PyCapsule_New(ctypes.addressof(m), b"dltensor", ctypes.cast(_capsule_dtor, c_void_p))

    to_dlpack = __dlpack__


def _from_handle(h):
    return NDArray(h)


def empty(shape, dtype="float32", device=None):
    shape = [int(s) for s in shape]
    arr = (c_int64 * max(len(shape), 1))(*shape)
    out = c_void_p()
    check(lib.rlx_ndarray_create(len(shape), arr, _ffi.dtype_of(dtype), None, byref(out)))
    return NDArray(out.value)


def array(arr, device=None, dtype=None):
    """A new NDArray holding a copy of arr (numpy array, list, scalar or NDArray)."""
    if isinstance(arr, NDArray):
        arr = arr.numpy()
    a = np.asarray(arr, dtype=dtype)
    out = empty(a.shape, "bool" if a.dtype == np.bool_ else a.dtype.name)
    out._np_view()[...] = a
    return out


def from_dlpack(obj):
    """Wraps a DLPack producer's memory without copying (numpy arrays, torch tensors, capsules)."""
    if hasattr(obj, "__dlpack__"):
        cap = obj.__dlpack__()
    else:
        cap = obj
    ptr = pythonapi.PyCapsule_GetPointer(cap, b"dltensor")
    if not ptr:
        raise ValueError("from_dlpack: expected a 'dltensor' capsule (it may have been consumed already)")
    m = ctypes.cast(ptr, POINTER(DLManagedTensor)).contents
    dl = m.dl_tensor
    if dl.device.device_type != 1:
        raise ValueError("from_dlpack: only CPU tensors are supported (device type %d)" % dl.device.device_type)
    shape = [dl.shape[i] for i in range(dl.ndim)]
    if dl.strides:
        expect = 1
        for i in reversed(range(dl.ndim)):
            if shape[i] != 1 and dl.strides[i] != expect:
                raise ValueError("from_dlpack: only compact row-major tensors can be shared without a copy")
            expect *= shape[i]
    pythonapi.PyCapsule_SetName(cap, b"used_dltensor")
    arr = (c_int64 * max(len(shape), 1))(*shape)
    out = c_void_p()
    data = (dl.data or 0) + dl.byte_offset
    check(lib.rlx_ndarray_from_data(c_void_p(data), len(shape), arr, dl.dtype, byref(out)))
    deleter = m.deleter

    def release(deleter=deleter, ptr=ptr):
        if deleter:
            deleter(ctypes.cast(ptr, POINTER(DLManagedTensor)))

    return NDArray(out.value, deleter=release, base=cap)


def as_ndarray(x):
    """NDArray for x: NDArrays pass through, anything else is copied with array()."""
    if isinstance(x, NDArray):
        return x
    return array(np.asarray(x))
