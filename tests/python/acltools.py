"""Helpers written the way pyACL applications write them: ints for
pointers, (value, ret) tuples, bytes_to_ptr for host buffers."""
import numpy as np

import acl

import aclconst as C


def ok(ret, what=""):
    assert ret == C.ACL_SUCCESS, "%s failed: %d %s" % (what, ret, acl.get_recent_err_msg())


def to_device(arr):
    """New device buffer holding arr's bytes; returns (ptr, nbytes)."""
    data = np.ascontiguousarray(arr).tobytes()
    ptr, ret = acl.rt.malloc(len(data), C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret, "malloc")
    ok(acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), C.ACL_MEMCPY_HOST_TO_DEVICE))
    return ptr, len(data)


def from_device(ptr, shape, dtype=np.float32):
    """Copies a device buffer into a new array (through a bytes object used
    as the destination, as the samples do)."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    out = bytes(n)
    ok(acl.rt.memcpy(acl.util.bytes_to_ptr(out), n, ptr, n, C.ACL_MEMCPY_DEVICE_TO_HOST), "memcpy D2H")
    return np.frombuffer(out, dtype=dtype).reshape(shape).copy()


class Model:
    """load_from_file + desc + one input and one output dataset with device
    buffers of the model's sizes."""

    def __init__(self, path):
        self.id, ret = acl.mdl.load_from_file(path)
        ok(ret, "load_from_file")
        self.desc = acl.mdl.create_desc()
        ok(acl.mdl.get_desc(self.desc, self.id), "get_desc")
        self.inputs = self._dataset(acl.mdl.get_num_inputs(self.desc), acl.mdl.get_input_size_by_index)
        self.outputs = self._dataset(acl.mdl.get_num_outputs(self.desc), acl.mdl.get_output_size_by_index)

    def _dataset(self, n, size_of):
        ds = acl.mdl.create_dataset()
        bufs = []
        for i in range(n):
            size = size_of(self.desc, i)
            ptr, ret = acl.rt.malloc(size, C.ACL_MEM_MALLOC_HUGE_FIRST)
            ok(ret, "malloc")
            buf = acl.create_data_buffer(ptr, size)
            _, ret = acl.mdl.add_dataset_buffer(ds, buf)
            ok(ret, "add_dataset_buffer")
            bufs.append((buf, ptr, size))
        return ds, bufs

    def in_ptr(self, i=0):
        return self.inputs[1][i][1]

    def out_ptr(self, i=0):
        return self.outputs[1][i][1]

    def set_input(self, arr, i=0):
        data = np.ascontiguousarray(arr, dtype=np.float32).tobytes()
        ok(acl.rt.memcpy(self.in_ptr(i), self.inputs[1][i][2], acl.util.bytes_to_ptr(data), len(data),
                         C.ACL_MEMCPY_HOST_TO_DEVICE))

    def output(self, i=0):
        dims, ret = acl.mdl.get_cur_output_dims(self.desc, i)
        ok(ret, "get_cur_output_dims")
        return from_device(self.out_ptr(i), tuple(dims["dims"]))

    def execute(self):
        ok(acl.mdl.execute(self.id, self.inputs[0], self.outputs[0]), "execute")

    def close(self):
        for ds, bufs in (self.inputs, self.outputs):
            for buf, ptr, _ in bufs:
                ok(acl.rt.free(ptr), "free")
                ok(acl.destroy_data_buffer(buf), "destroy_data_buffer")
            ok(acl.mdl.destroy_dataset(ds), "destroy_dataset")
        ok(acl.mdl.destroy_desc(self.desc), "destroy_desc")
        ok(acl.mdl.unload(self.id), "unload")
