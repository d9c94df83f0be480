"""acl.util: zero-copy pointers into bytes and numpy arrays."""
import warnings

import numpy as np
import pytest

import acl

import aclconst as C
from acltools import ok


def test_bytes_to_ptr_is_the_objects_own_storage(ctx):
    host = bytes(64)
    ptr = acl.util.bytes_to_ptr(host)
    assert ptr == acl.util.bytes_to_ptr(host)          # no copy: same address every time
    src = bytes(range(64))
    dev, ret = acl.rt.malloc(64, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    ok(acl.rt.memcpy(dev, 64, acl.util.bytes_to_ptr(src), 64, C.ACL_MEMCPY_HOST_TO_DEVICE))
    ok(acl.rt.memcpy(ptr, 64, dev, 64, C.ACL_MEMCPY_DEVICE_TO_HOST))   # written into `host` itself
    assert host == src
    ok(acl.rt.free(dev))


def test_ptr_to_bytes_copies(ctx):
    src = bytes(range(100))
    b = acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(src) + 10, 20)   # pointer arithmetic on ints
    assert b == src[10:30] and isinstance(b, bytes)
    assert acl.util.ptr_to_bytes(0, 0) == b""
    big = bytes(range(256)) * 1024                   # large copies release the GIL
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(big), len(big)) == big


def test_ptr_to_numpy_is_a_writeable_view(ctx):
    host, ret = acl.rt.malloc_host(6 * 4)
    ok(ret)
    a = acl.util.ptr_to_numpy(host, (2, 3), C.NPY_FLOAT32)
    assert a.shape == (2, 3) and a.dtype == np.float32 and a.flags.writeable
    a[:] = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = acl.util.ptr_to_numpy(host, [np.int64(6)], C.NPY_FLOAT32)   # numpy ints work as dims
    assert b.tolist() == [0, 1, 2, 3, 4, 5]            # same memory
    assert np.frombuffer(acl.util.ptr_to_bytes(host, 24), np.float32).tolist() == [0, 1, 2, 3, 4, 5]
    for npy, dt in ((0, np.bool_), (1, np.int8), (2, np.uint8), (3, np.int16), (4, np.uint16), (5, np.int32),
                    (6, np.uint32), (7, np.int64), (8, np.uint64), (9, np.longlong), (10, np.ulonglong),
                    (11, np.float32), (12, np.float64), (23, np.float16)):
        assert acl.util.ptr_to_numpy(host, (1,), npy).dtype == np.dtype(dt), npy
    ok(acl.rt.free_host(host))


def test_numpy_to_ptr_and_contiguous(ctx):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.warns(DeprecationWarning):
        p = acl.util.numpy_to_ptr(x)
    assert p == x.ctypes.data
    assert acl.util.ptr_to_bytes(p, x.nbytes) == x.tobytes()
    t = x.T
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        acl.util.numpy_to_ptr(t)
    assert any(issubclass(i.category, RuntimeWarning) for i in w)   # not C-contiguous
    with pytest.warns(DeprecationWarning):
        p2, arr2 = acl.util.numpy_contiguous_to_ptr(t)
    assert arr2.flags.c_contiguous and p2 == arr2.ctypes.data
    assert acl.util.ptr_to_bytes(p2, arr2.nbytes) == np.ascontiguousarray(t).tobytes()
    with pytest.warns(DeprecationWarning):
        p3, arr3 = acl.util.numpy_contiguous_to_ptr(x)
    assert p3 == x.ctypes.data                          # already contiguous: the same array
    with pytest.raises(TypeError):
        acl.util.numpy_to_ptr([1, 2, 3])
