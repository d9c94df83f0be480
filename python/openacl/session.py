"""Session: run a model on numpy arrays in one call.

The session does the whole pyACL flow itself: aclInit (reference counted),
an own context on the chosen device, load, device buffers and datasets,
host->device copies, execute, device->host copies, and on close unload and
release. Inputs with dynamic dimensions get their actual shape through the
dataset's tensor descriptors; outputs whose size is only known at run time
are allocated by the runtime and read back with their actual shape.
"""
import os
import threading

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_FORMAT_ND = 2

# aclDataType -> numpy dtype (ACL_BF16 has no numpy type: raw uint16).
_ACL_TO_NUMPY = {
    0: np.float32, 1: np.float16, 2: np.int8, 3: np.int32, 4: np.uint8, 6: np.int16, 7: np.uint16,
    8: np.uint32, 9: np.int64, 10: np.uint64, 11: np.float64, 12: np.bool_, 16: np.complex64,
    17: np.complex128, 27: np.uint16,
}


def numpy_dtype(acl_dtype):
    """The numpy dtype that holds elements of an aclDataType value."""
    try:
        return np.dtype(_ACL_TO_NUMPY[acl_dtype])
    except KeyError:
        raise ValueError("aclDataType %d has no numpy equivalent" % acl_dtype) from None


class AclError(RuntimeError):
    """An ACL call failed: `code` is the aclError, `api` the pyACL call."""

    def __init__(self, api, code):
        msg = acl.get_recent_err_msg()
        text = "%s failed with %d" % (api, code)
        if msg:
            text += ": " + msg.strip()
        super().__init__(text)
        self.api = api
        self.code = code


def _check(api, ret):
    if ret != ACL_SUCCESS:
        raise AclError(api, ret)


class IOInfo:
    """One model input or output: name, dims (-1 = dynamic), numpy dtype,
    aclFormat and the byte size the model reports (0 = known at run time)."""

    __slots__ = ("index", "name", "dims", "dtype", "format", "size")

    def __init__(self, index, name, dims, dtype, fmt, size):
        self.index, self.name, self.dims, self.dtype, self.format, self.size = index, name, dims, dtype, fmt, size

    def __repr__(self):
        return "IOInfo(%d, %r, dims=%s, dtype=%s, size=%d)" % (self.index, self.name, self.dims, self.dtype,
                                                               self.size)


class Session:
    """A loaded model on one device.

    model: a file path, or the model image as bytes.
    device: the device id; the session creates its own context there.
    Thread rule: one session may be used from several threads; its runs are
    serialised by a lock. run() makes the session's context current on the
    calling thread for the duration of the call and restores the previous
    one afterwards.
    """

    def __init__(self, model, device=0):
        self._lock = threading.RLock()
        self._inited = False
        self._ctx = 0
        self._model_id = None
        self._desc = 0
        self._in_ds = self._out_ds = 0
        self._in_bufs, self._out_bufs = [], []      # [data_buffer, dev_ptr, capacity]
        ret = acl.init()
        if ret not in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE):
            raise AclError("acl.init", ret)
        self._inited = True
        try:
            prev = self._current_context()
            self._ctx, ret = acl.rt.create_context(device)
            _check("acl.rt.create_context", ret)
            try:
                self._load(model)
                self._describe()
                self._build_datasets()
            finally:
                self._restore_context(prev)
        except BaseException:
            self.close()
            raise
        self.device = device

    # ---- setup ----
    def _load(self, model):
        if isinstance(model, (bytes, bytearray, memoryview)):
            image = bytes(model)
            self._model_id, ret = acl.mdl.load_from_mem(acl.util.bytes_to_ptr(image), len(image))
            api = "acl.mdl.load_from_mem"
        else:
            path = os.fspath(model)
            self._model_id, ret = acl.mdl.load_from_file(path)
            api = "acl.mdl.load_from_file"
        if ret != ACL_SUCCESS:
            self._model_id = None
            raise AclError(api, ret)

    def _describe(self):
        self._desc = acl.mdl.create_desc()
        _check("acl.mdl.get_desc", acl.mdl.get_desc(self._desc, self._model_id))
        self.inputs = [self._io(i, False) for i in range(acl.mdl.get_num_inputs(self._desc))]
        self.outputs = [self._io(i, True) for i in range(acl.mdl.get_num_outputs(self._desc))]

    def _io(self, i, output):
        m = acl.mdl
        if output:
            dims, ret = m.get_output_dims(self._desc, i)
            name, dt = m.get_output_name_by_index(self._desc, i), m.get_output_data_type(self._desc, i)
            fmt, size = m.get_output_format(self._desc, i), m.get_output_size_by_index(self._desc, i)
        else:
            dims, ret = m.get_input_dims(self._desc, i)
            name, dt = m.get_input_name_by_index(self._desc, i), m.get_input_data_type(self._desc, i)
            fmt, size = m.get_input_format(self._desc, i), m.get_input_size_by_index(self._desc, i)
        _check("acl.mdl.get_%s_dims" % ("output" if output else "input"), ret)
        return IOInfo(i, name, list(dims["dims"]), numpy_dtype(dt), fmt, size)

    def _build_datasets(self):
        self._in_ds = acl.mdl.create_dataset()
        self._out_ds = acl.mdl.create_dataset()
        for _ in self.inputs:
            buf = acl.create_data_buffer(0, 0)
            _, ret = acl.mdl.add_dataset_buffer(self._in_ds, buf)
            _check("acl.mdl.add_dataset_buffer", ret)
            self._in_bufs.append([buf, 0, 0])
        for info in self.outputs:
            ptr = 0
            if info.size > 0:      # static size: allocate once; else the runtime allocates per run
                ptr, ret = acl.rt.malloc(info.size, ACL_MEM_MALLOC_HUGE_FIRST)
                _check("acl.rt.malloc", ret)
            buf = acl.create_data_buffer(ptr, info.size if ptr else 0)
            _, ret = acl.mdl.add_dataset_buffer(self._out_ds, buf)
            _check("acl.mdl.add_dataset_buffer", ret)
            self._out_bufs.append([buf, ptr, info.size if ptr else 0])

    # ---- contexts ----
    @staticmethod
    def _current_context():
        ctx, ret = acl.rt.get_context()
        return ctx if ret == ACL_SUCCESS else 0

    def _restore_context(self, prev):
        if prev and prev != self._ctx:
            acl.rt.set_context(prev)

    # ---- running ----
    def _arrays(self, inputs):
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, dict):
            missing = [i.name for i in self.inputs if i.name not in inputs]
            if missing:
                raise ValueError("missing inputs: %s" % ", ".join(missing))
            inputs = [inputs[i.name] for i in self.inputs]
        inputs = list(inputs)
        if len(inputs) != len(self.inputs):
            raise ValueError("the model has %d inputs, %d given" % (len(self.inputs), len(inputs)))
        out = []
        for info, x in zip(self.inputs, inputs):
            a = np.ascontiguousarray(np.asarray(x).astype(info.dtype, copy=False))
            if len(a.shape) != len(info.dims) or any(d >= 0 and d != s for d, s in zip(info.dims, a.shape)):
                raise ValueError("input %r: shape %s does not fit the model's %s" % (info.name, a.shape, info.dims))
            out.append(a)
        return out

    def run(self, inputs):
        """Runs the model; inputs: a list (model order), a dict by name, or a
        single array. Returns the outputs as a list of new numpy arrays."""
        with self._lock:
            if self._model_id is None:
                raise RuntimeError("the session is closed")
            arrays = self._arrays(inputs)
            prev = self._current_context()
            _check("acl.rt.set_context", acl.rt.set_context(self._ctx))
            try:
                return self._run(arrays)
            finally:
                self._restore_context(prev)

    def _run(self, arrays):
        for info, a, slot in zip(self.inputs, arrays, self._in_bufs):
            need = max(a.nbytes, 1)
            if slot[2] < need:
                if slot[1]:
                    acl.rt.free(slot[1])
                    slot[1], slot[2] = 0, 0
                ptr, ret = acl.rt.malloc(need, ACL_MEM_MALLOC_HUGE_FIRST)
                _check("acl.rt.malloc", ret)
                slot[1], slot[2] = ptr, need
            _check("acl.update_data_buffer", acl.update_data_buffer(slot[0], slot[1], a.nbytes))
            if a.nbytes:
                _check("acl.rt.memcpy", acl.rt.memcpy(slot[1], slot[2], a.ctypes.data, a.nbytes,
                                                       ACL_MEMCPY_HOST_TO_DEVICE))
            if any(d < 0 for d in info.dims):
                td = acl.create_tensor_desc(acl.mdl.get_input_data_type(self._desc, info.index), list(a.shape),
                                            info.format)
                _, ret = acl.mdl.set_dataset_tensor_desc(self._in_ds, td, info.index)
                acl.destroy_tensor_desc(td)
                _check("acl.mdl.set_dataset_tensor_desc", ret)
        _check("acl.mdl.execute", acl.mdl.execute(self._model_id, self._in_ds, self._out_ds))
        results = []
        for info, slot in zip(self.outputs, self._out_bufs):
            shape = self._output_shape(info)
            arr = np.empty(shape, info.dtype)
            ptr = acl.get_data_buffer_addr(slot[0])
            size = acl.get_data_buffer_size_v2(slot[0])
            if arr.nbytes > size:
                raise RuntimeError("output %r: %d bytes expected, the buffer holds %d" % (info.name, arr.nbytes,
                                                                                          size))
            if arr.nbytes:
                _check("acl.rt.memcpy", acl.rt.memcpy(arr.ctypes.data, arr.nbytes, ptr, arr.nbytes,
                                                       ACL_MEMCPY_DEVICE_TO_HOST))
            if not slot[1] and ptr:     # runtime-allocated output: ours to free
                acl.rt.free(ptr)
                acl.update_data_buffer(slot[0], 0, 0)
            results.append(arr)
        return results

    def _output_shape(self, info):
        td = acl.mdl.get_dataset_tensor_desc(self._out_ds, info.index)
        if td:
            n = acl.get_tensor_desc_num_dims(td)
            dims = []
            for k in range(n):
                d, ret = acl.get_tensor_desc_dim_v2(td, k)
                _check("acl.get_tensor_desc_dim_v2", ret)
                dims.append(d)
            return tuple(dims)
        dims, ret = acl.mdl.get_cur_output_dims(self._desc, info.index)
        _check("acl.mdl.get_cur_output_dims", ret)
        return tuple(dims["dims"])

    # ---- teardown ----
    def close(self):
        """Unloads the model and releases everything the session holds.
        Safe to call twice."""
        with self._lock:
            if not self._inited:
                return
            prev, own = self._current_context(), self._ctx
            if own:
                acl.rt.set_context(own)
            for slot in self._in_bufs + self._out_bufs:
                if slot[1]:
                    acl.rt.free(slot[1])
                acl.destroy_data_buffer(slot[0])
            self._in_bufs, self._out_bufs = [], []
            for ds in (self._in_ds, self._out_ds):
                if ds:
                    acl.mdl.destroy_dataset(ds)
            self._in_ds = self._out_ds = 0
            if self._desc:
                acl.mdl.destroy_desc(self._desc)
                self._desc = 0
            if self._model_id is not None:
                acl.mdl.unload(self._model_id)
                self._model_id = None
            if self._ctx:
                acl.rt.destroy_context(self._ctx)
                self._ctx = 0
            if prev and prev != own:
                acl.rt.set_context(prev)
            acl.finalize_reference()
            self._inited = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def run(model, inputs, device=0):
    """One call: load `model` (path or bytes), run it on `inputs`, unload.
    Returns the outputs as numpy arrays."""
    with Session(model, device=device) as s:
        return s.run(inputs)
