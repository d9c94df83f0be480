#!/usr/bin/env python3
"""sync_infer.py: the complete synchronous pyACL inference flow, in the
documented order (the Python twin of samples/sync_infer/sync_infer.c):

  init -> set_device -> create_context -> create_stream -> load_from_file
  -> create_desc/get_desc -> datasets from the description -> execute
  -> read outputs -> release in reverse order -> reset_device -> finalize

pyACL conventions: every handle and pointer is a plain int; calls with
out-parameters return (value..., ret); the module defines no constants, so
the application does (below).

Usage: sync_infer.py MODEL OUT_DIR INPUT0.bin [INPUT1.bin ...]
"""
import os
import sys

import numpy as np

import acl

# Constants pyACL applications define themselves (values of the C API).
ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_FLOAT = 0


def check_ret(message, ret):
    """ACL failures never raise in pyACL: they come back as ret codes."""
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


def main(model_path, out_dir, input_files):
    device_id = 0
    # 1. library, device, our own context and stream
    check_ret("acl.init", acl.init())
    check_ret("acl.rt.set_device", acl.rt.set_device(device_id))
    context, ret = acl.rt.create_context(device_id)    # becomes current for this thread
    check_ret("acl.rt.create_context", ret)
    stream, ret = acl.rt.create_stream()
    check_ret("acl.rt.create_stream", ret)

    # 2. load the model and describe it
    model_id, ret = acl.mdl.load_from_file(model_path)
    check_ret("acl.mdl.load_from_file", ret)
    desc = acl.mdl.create_desc()
    check_ret("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))
    n_in, n_out = acl.mdl.get_num_inputs(desc), acl.mdl.get_num_outputs(desc)
    if len(input_files) != n_in:
        raise SystemExit("the model has %d input(s) but %d file(s) were given" % (n_in, len(input_files)))

    # 3. input dataset: a buffer per input, added in index order (position = index)
    dev_ptrs = []
    inputs = acl.mdl.create_dataset()
    for i in range(n_in):
        size = acl.mdl.get_input_size_by_index(desc, i)
        print("input %d: %s, %d bytes" % (i, acl.mdl.get_input_name_by_index(desc, i), size))
        data = open(input_files[i], "rb").read()
        if len(data) != size:
            raise SystemExit("%s has %d bytes, input %d needs %d" % (input_files[i], len(data), i, size))
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        dev_ptrs.append(ptr)
        # bytes_to_ptr: the address of the bytes object's storage (no copy)
        check_ret("acl.rt.memcpy", acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(data), size,
                                                  ACL_MEMCPY_HOST_TO_DEVICE))
        buf = acl.create_data_buffer(ptr, size)
        _, ret = acl.mdl.add_dataset_buffer(inputs, buf)     # returns (dataset, ret)
        check_ret("acl.mdl.add_dataset_buffer", ret)

    # 4. output dataset, sized from the description
    outputs = acl.mdl.create_dataset()
    out_ptrs = []
    for i in range(n_out):
        size = acl.mdl.get_output_size_by_index(desc, i)
        print("output %d: %s, %d bytes" % (i, acl.mdl.get_output_name_by_index(desc, i), size))
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        out_ptrs.append((ptr, size))
        _, ret = acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(ptr, size))
        check_ret("acl.mdl.add_dataset_buffer", ret)

    # 5. run, synchronously
    check_ret("acl.mdl.execute", acl.mdl.execute(model_id, inputs, outputs))

    # 6. outputs back to the host: page-locked host memory, a copy, then bytes
    for i, (ptr, size) in enumerate(out_ptrs):
        host, ret = acl.rt.malloc_host(size)
        check_ret("acl.rt.malloc_host", ret)
        check_ret("acl.rt.memcpy", acl.rt.memcpy(host, size, ptr, size, ACL_MEMCPY_DEVICE_TO_HOST))
        data = acl.util.ptr_to_bytes(host, size)
        check_ret("acl.rt.free_host", acl.rt.free_host(host))
        with open(os.path.join(out_dir, "output_%d.bin" % i), "wb") as f:
            f.write(data)
        if i == 0 and acl.mdl.get_output_data_type(desc, 0) == ACL_FLOAT:
            v = np.frombuffer(data, np.float32)
            top = np.argsort(-v)[:5]
            print("output 0 top-5:", " ".join("[%d] %.4f" % (k, v[k]) for k in top))

    # 7. release in the documented order
    for ds in (inputs, outputs):
        for i in range(acl.mdl.get_dataset_num_buffers(ds)):
            check_ret("acl.destroy_data_buffer", acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)))
        check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(ds))
    for ptr in dev_ptrs + [p for p, _ in out_ptrs]:
        check_ret("acl.rt.free", acl.rt.free(ptr))
    check_ret("acl.mdl.unload", acl.mdl.unload(model_id))
    check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(desc))
    check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(stream))
    check_ret("acl.rt.destroy_context", acl.rt.destroy_context(context))
    check_ret("acl.rt.reset_device", acl.rt.reset_device(device_id))
    check_ret("acl.finalize", acl.finalize())
    print("sync_infer.py: done, %d output(s) in %s" % (n_out, out_dir))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit("usage: sync_infer.py MODEL OUT_DIR INPUT0.bin [INPUT1.bin ...]")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
