#!/usr/bin/env python3
"""multi_device.py: one thread driving several devices, switching between
their contexts (twin of samples/multi_device/multi_device.c).

Each device has its own context, stream, loaded model and buffers: models
and memory belong to the context they were created under. Work is queued
on every device first (execute_async returns at once, so the devices run
side by side); then each device is waited for with synchronize_device
after making its context current again with acl.rt.set_context.

Usage: multi_device.py MODEL OUT_DIR INPUT.bin [MAX_DEVICES]
"""
import os
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


class Device:
    """Context, stream, model and buffers of one device."""

    def __init__(self, device_id, model_path, in_size):
        self.id = device_id
        check_ret("acl.rt.set_device", acl.rt.set_device(device_id))
        self.context, ret = acl.rt.create_context(device_id)    # now current
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.model_id, ret = acl.mdl.load_from_file(model_path)
        check_ret("acl.mdl.load_from_file", ret)
        self.desc = acl.mdl.create_desc()
        check_ret("acl.mdl.get_desc", acl.mdl.get_desc(self.desc, self.model_id))
        if acl.mdl.get_num_inputs(self.desc) != 1 or acl.mdl.get_input_size_by_index(self.desc, 0) != in_size:
            raise SystemExit("the model needs one input of %d bytes" % acl.mdl.get_input_size_by_index(self.desc, 0))
        self.in_ptr, ret = acl.rt.malloc(in_size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        self.in_ds, self.out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
        _, ret = acl.mdl.add_dataset_buffer(self.in_ds, acl.create_data_buffer(self.in_ptr, in_size))
        check_ret("acl.mdl.add_dataset_buffer", ret)
        self.outs = []
        for i in range(acl.mdl.get_num_outputs(self.desc)):
            size = acl.mdl.get_output_size_by_index(self.desc, i)
            ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check_ret("acl.rt.malloc", ret)
            _, ret = acl.mdl.add_dataset_buffer(self.out_ds, acl.create_data_buffer(ptr, size))
            check_ret("acl.mdl.add_dataset_buffer", ret)
            self.outs.append((ptr, size))

    def release(self):
        check_ret("acl.rt.set_context", acl.rt.set_context(self.context))
        for ds in (self.in_ds, self.out_ds):
            for i in range(acl.mdl.get_dataset_num_buffers(ds)):
                check_ret("acl.destroy_data_buffer", acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)))
            check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(ds))
        for ptr in [self.in_ptr] + [p for p, _ in self.outs]:
            check_ret("acl.rt.free", acl.rt.free(ptr))
        check_ret("acl.mdl.unload", acl.mdl.unload(self.model_id))
        check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(self.desc))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(self.id))


def main(model_path, out_dir, input_file, max_devices):
    check_ret("acl.init", acl.init())
    count, ret = acl.rt.get_device_count()
    check_ret("acl.rt.get_device_count", ret)
    data = open(input_file, "rb").read()
    devices = [Device(d, model_path, len(data)) for d in range(min(count, max_devices))]
    print("%d device(s) visible, using %d" % (count, len(devices)))

    # queue the work everywhere: switch, copy, execute asynchronously
    for dev in devices:
        check_ret("acl.rt.set_context", acl.rt.set_context(dev.context))
        check_ret("acl.rt.memcpy", acl.rt.memcpy(dev.in_ptr, len(data), acl.util.bytes_to_ptr(data), len(data),
                                                  ACL_MEMCPY_HOST_TO_DEVICE))
        check_ret("acl.mdl.execute_async", acl.mdl.execute_async(dev.model_id, dev.in_ds, dev.out_ds, dev.stream))

    # wait per device (the current context decides which), read the results
    for dev in devices:
        check_ret("acl.rt.set_context", acl.rt.set_context(dev.context))
        current, ret = acl.rt.get_device()
        check_ret("acl.rt.get_device", ret)
        assert current == dev.id
        check_ret("acl.rt.synchronize_device", acl.rt.synchronize_device())
        for i, (ptr, size) in enumerate(dev.outs):
            host = bytes(size)
            check_ret("acl.rt.memcpy", acl.rt.memcpy(acl.util.bytes_to_ptr(host), size, ptr, size,
                                                      ACL_MEMCPY_DEVICE_TO_HOST))
            with open(os.path.join(out_dir, "dev%d_output_%d.bin" % (dev.id, i)), "wb") as f:
                f.write(host)

    for dev in devices:
        dev.release()
    check_ret("acl.finalize", acl.finalize())
    print("multi_device.py: done on %d device(s)" % len(devices))


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit("usage: multi_device.py MODEL OUT_DIR INPUT.bin [MAX_DEVICES]")
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 4)
