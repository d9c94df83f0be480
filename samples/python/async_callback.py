#!/usr/bin/env python3
"""async_callback.py: asynchronous inference with host callbacks, the pyACL
way (twin of samples/async_callback/async_callback.c).

The protocol, in order:
  1. acl.util.start_thread(report_loop, [context, timeout]): a native thread
     that makes the context current and loops on acl.rt.process_report
  2. acl.rt.subscribe_report(thread_id, stream)
  3. acl.mdl.execute_async(...) per input, acl.rt.launch_callback(...) every
     CALLBACK_EVERY executions
  4. acl.rt.synchronize_stream(stream)
  5. acl.rt.unsubscribe_report, tell the thread to stop, acl.util.stop_thread

Usage: async_callback.py MODEL OUT_DIR INPUT.bin [INPUT.bin ...]
"""
import os
import sys
import time

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1
ACL_ERROR_RT_REPORT_TIMEOUT = 507012
ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012
ACL_FLOAT = 0

CALLBACK_EVERY = 2
REPORT_TIMEOUT_MS = 100


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


class AsyncRunner:
    def __init__(self, model_path, out_dir):
        self.out_dir = out_dir
        self.stop = False
        self.subscribed = False
        self.saved = 0
        self.callbacks = 0
        self.device_id = 0
        check_ret("acl.init", acl.init())
        check_ret("acl.rt.set_device", acl.rt.set_device(self.device_id))
        self.context, ret = acl.rt.create_context(self.device_id)
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.model_id, ret = acl.mdl.load_from_file(model_path)
        check_ret("acl.mdl.load_from_file", ret)
        self.desc = acl.mdl.create_desc()
        check_ret("acl.mdl.get_desc", acl.mdl.get_desc(self.desc, self.model_id))
        if acl.mdl.get_num_inputs(self.desc) != 1:
            raise SystemExit("this sample needs a model with one input")
        self.in_size = acl.mdl.get_input_size_by_index(self.desc, 0)
        self.out_sizes = [acl.mdl.get_output_size_by_index(self.desc, i)
                          for i in range(acl.mdl.get_num_outputs(self.desc))]
        self.jobs = []

    def report_loop(self, args):
        """Runs on the native thread start_thread made. A new thread has no
        context: set the stream's one first, then wait until run() has
        subscribed this thread. process_report runs pending callbacks here;
        a timeout only means nothing was due yet, and "not subscribed" after
        run() unsubscribed means the work is over."""
        context, timeout_ms = args
        check_ret("acl.rt.set_context", acl.rt.set_context(context))
        while not self.subscribed and not self.stop:
            time.sleep(0.001)
        while not self.stop:
            if acl.rt.process_report(timeout_ms) == ACL_ERROR_RT_THREAD_SUBSCRIBE:
                break

    def on_batch_done(self, user_data):
        """The host callback: the executions queued before it are complete.
        Keep it short; no device allocation, synchronization or new work
        here (a memcpy to host memory is fine)."""
        first, count = user_data
        for k in range(first, first + count):
            stem, _, out_bufs = self.jobs[k]
            for i, ((ptr, size), _) in enumerate(zip(out_bufs, self.out_sizes)):
                out = bytes(size)      # a bytes object as the copy's destination
                check_ret("acl.rt.memcpy", acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, ptr, size,
                                                          ACL_MEMCPY_DEVICE_TO_HOST))
                with open(os.path.join(self.out_dir, "%s_output_%d.bin" % (stem, i)), "wb") as f:
                    f.write(out)
                if i == 0 and acl.mdl.get_output_data_type(self.desc, 0) == ACL_FLOAT:
                    v = np.frombuffer(out, np.float32)
                    print("%s top-3: %s" % (stem, " ".join("[%d] %.4f" % (j, v[j]) for j in np.argsort(-v)[:3])))
            self.saved += 1
        self.callbacks += 1
        print("callback: executions %d..%d done" % (first, first + count - 1))

    def queue(self, path):
        data = open(path, "rb").read()
        if len(data) != self.in_size:
            raise SystemExit("%s has %d bytes, the input needs %d" % (path, len(data), self.in_size))
        # each execution has its own buffers: queued work must not be overwritten
        in_ptr, ret = acl.rt.malloc(self.in_size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        check_ret("acl.rt.memcpy", acl.rt.memcpy(in_ptr, self.in_size, acl.util.bytes_to_ptr(data), self.in_size,
                                                  ACL_MEMCPY_HOST_TO_DEVICE))
        in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
        _, ret = acl.mdl.add_dataset_buffer(in_ds, acl.create_data_buffer(in_ptr, self.in_size))
        check_ret("acl.mdl.add_dataset_buffer", ret)
        out_bufs = []
        for size in self.out_sizes:
            ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check_ret("acl.rt.malloc", ret)
            _, ret = acl.mdl.add_dataset_buffer(out_ds, acl.create_data_buffer(ptr, size))
            check_ret("acl.mdl.add_dataset_buffer", ret)
            out_bufs.append((ptr, size))
        stem = os.path.splitext(os.path.basename(path))[0]
        self.jobs.append((stem, (in_ptr, in_ds, out_ds), out_bufs))
        check_ret("acl.mdl.execute_async", acl.mdl.execute_async(self.model_id, in_ds, out_ds, self.stream))

    def run(self, files):
        # steps 1 and 2: the report thread, subscribed to the stream
        tid, ret = acl.util.start_thread(self.report_loop, [self.context, REPORT_TIMEOUT_MS])
        check_ret("acl.util.start_thread", ret)
        check_ret("acl.rt.subscribe_report", acl.rt.subscribe_report(tid, self.stream))
        self.subscribed = True
        # step 3: executions, with a callback after every group
        for k, path in enumerate(files):
            self.queue(path)
            if (k + 1) % CALLBACK_EVERY == 0 or k == len(files) - 1:
                count = k % CALLBACK_EVERY + 1
                # BLOCK: later stream tasks wait for the callback to return
                check_ret("acl.rt.launch_callback",
                          acl.rt.launch_callback(self.on_batch_done, [k + 1 - count, count], ACL_CALLBACK_BLOCK,
                                                 self.stream))
        # step 4: everything queued has run, callbacks included
        check_ret("acl.rt.synchronize_stream", acl.rt.synchronize_stream(self.stream))
        # step 5: detach, stop, join
        check_ret("acl.rt.unsubscribe_report", acl.rt.unsubscribe_report(tid, self.stream))
        self.stop = True
        check_ret("acl.util.stop_thread", acl.util.stop_thread(tid))
        print("async_callback.py: %d execution(s), %d callback(s), %d saved" % (
            len(files), self.callbacks, self.saved))
        return self.saved == len(files)

    def release(self):
        for _, (in_ptr, in_ds, out_ds), out_bufs in self.jobs:
            for ds in (in_ds, out_ds):
                for i in range(acl.mdl.get_dataset_num_buffers(ds)):
                    check_ret("acl.destroy_data_buffer", acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)))
                check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(ds))
            for ptr in [in_ptr] + [p for p, _ in out_bufs]:
                check_ret("acl.rt.free", acl.rt.free(ptr))
        check_ret("acl.mdl.unload", acl.mdl.unload(self.model_id))
        check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(self.desc))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(self.device_id))
        check_ret("acl.finalize", acl.finalize())


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit("usage: async_callback.py MODEL OUT_DIR INPUT.bin [INPUT.bin ...]")
    runner = AsyncRunner(sys.argv[1], sys.argv[2])
    ok = runner.run(sys.argv[3:])
    runner.release()
    sys.exit(0 if ok else 1)
