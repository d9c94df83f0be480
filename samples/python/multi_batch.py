#!/usr/bin/env python3
"""multi_batch.py: feeding a fixed-batch model (e.g. batch 8) from a list
of single-item files (twin of samples/multi_batch/multi_batch.c).

All items go to the device once, packed and padded with zeros to a whole
number of batches; each execution then points the input buffer at the next
batch with acl.update_data_buffer (pointer arithmetic on the int address),
as Ascend's dynamic-batch samples do. Rows of padded items are ignored.

Usage: multi_batch.py MODEL OUT_DIR ITEM.bin [ITEM.bin ...]
"""
import os
import sys

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


def main(model_path, out_dir, files):
    device_id = 0
    check_ret("acl.init", acl.init())
    check_ret("acl.rt.set_device", acl.rt.set_device(device_id))
    context, ret = acl.rt.create_context(device_id)
    check_ret("acl.rt.create_context", ret)
    model_id, ret = acl.mdl.load_from_file(model_path)
    check_ret("acl.mdl.load_from_file", ret)
    desc = acl.mdl.create_desc()
    check_ret("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))
    if acl.mdl.get_num_inputs(desc) != 1:
        raise SystemExit("this sample needs a model with one input")

    # the batch is dim 0 of the input; one item is the input size / batch
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    check_ret("acl.mdl.get_input_dims", ret)
    batch = dims["dims"][0]
    in_size = acl.mdl.get_input_size_by_index(desc, 0)
    item = in_size // batch
    n_batches = (len(files) + batch - 1) // batch
    print("model batch %d: %d bytes per item, %d item(s) -> %d execution(s)" % (batch, item, len(files), n_batches))

    # every item on the device at once, zero padding after the last one
    packed = bytearray(n_batches * in_size)
    for k, path in enumerate(files):
        data = open(path, "rb").read()
        if len(data) != item:
            raise SystemExit("%s has %d bytes, one item is %d" % (path, len(data), item))
        packed[k * item:(k + 1) * item] = data
    packed = bytes(packed)
    all_in, ret = acl.rt.malloc(len(packed), ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    check_ret("acl.rt.memcpy", acl.rt.memcpy(all_in, len(packed), acl.util.bytes_to_ptr(packed), len(packed),
                                              ACL_MEMCPY_HOST_TO_DEVICE))

    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    in_buf = acl.create_data_buffer(all_in, in_size)
    _, ret = acl.mdl.add_dataset_buffer(in_ds, in_buf)
    check_ret("acl.mdl.add_dataset_buffer", ret)
    outs = []
    for i in range(acl.mdl.get_num_outputs(desc)):
        size = acl.mdl.get_output_size_by_index(desc, i)
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        _, ret = acl.mdl.add_dataset_buffer(out_ds, acl.create_data_buffer(ptr, size))
        check_ret("acl.mdl.add_dataset_buffer", ret)
        outs.append((ptr, size))

    for b in range(n_batches):
        # the same data buffer, pointed at batch b of the packed input
        check_ret("acl.update_data_buffer", acl.update_data_buffer(in_buf, all_in + b * in_size, in_size))
        check_ret("acl.mdl.execute", acl.mdl.execute(model_id, in_ds, out_ds))
        real = min(batch, len(files) - b * batch)
        print("batch %d: %d real, %d padded" % (b, real, batch - real))
        for i, (ptr, size) in enumerate(outs):
            host = bytes(size)
            check_ret("acl.rt.memcpy", acl.rt.memcpy(acl.util.bytes_to_ptr(host), size, ptr, size,
                                                      ACL_MEMCPY_DEVICE_TO_HOST))
            row = size // batch
            for k in range(real):     # rows of padded items are not saved
                stem = os.path.splitext(os.path.basename(files[b * batch + k]))[0]
                with open(os.path.join(out_dir, "%s_output_%d.bin" % (stem, i)), "wb") as f:
                    f.write(host[k * row:(k + 1) * row])

    for ds in (in_ds, out_ds):
        for i in range(acl.mdl.get_dataset_num_buffers(ds)):
            check_ret("acl.destroy_data_buffer", acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)))
        check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(ds))
    for ptr in [all_in] + [p for p, _ in outs]:
        check_ret("acl.rt.free", acl.rt.free(ptr))
    check_ret("acl.mdl.unload", acl.mdl.unload(model_id))
    check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(desc))
    check_ret("acl.rt.destroy_context", acl.rt.destroy_context(context))
    check_ret("acl.rt.reset_device", acl.rt.reset_device(device_id))
    check_ret("acl.finalize", acl.finalize())
    print("multi_batch.py: done")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit("usage: multi_batch.py MODEL OUT_DIR ITEM.bin [ITEM.bin ...]")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
