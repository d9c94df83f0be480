"""Every documented pyACL application flow, end to end, against numpy."""
import threading

import numpy as np
import pytest

import acl

import aclconst as C
import models as M
from acltools import Model, from_device, ok, to_device

RTOL, ATOL = 1e-4, 1e-5


def test_sync_execute_conv_relu(ctx, model_paths):
    m = Model(model_paths["conv_relu"])
    try:
        assert acl.mdl.get_num_inputs(m.desc) == 1 and acl.mdl.get_num_outputs(m.desc) == 1
        assert acl.mdl.get_input_size_by_index(m.desc, 0) == 1 * 2 * 6 * 6 * 4
        assert acl.mdl.get_output_size_by_index(m.desc, 0) == 1 * 3 * 6 * 6 * 4
        assert acl.mdl.get_input_name_by_index(m.desc, 0) == "X"
        assert acl.mdl.get_output_name_by_index(m.desc, 0) == "Y"
        assert acl.mdl.get_input_data_type(m.desc, 0) == C.ACL_FLOAT
        assert acl.mdl.get_input_format(m.desc, 0) == C.ACL_FORMAT_NCHW
        dims, ret = acl.mdl.get_input_dims(m.desc, 0)
        assert ret == 0 and dims == {"name": "X", "dimCount": 4, "dims": [1, 2, 6, 6]}
        for seed in range(3):
            x = np.random.default_rng(seed).standard_normal((1, 2, 6, 6)).astype(np.float32)
            m.set_input(x)
            m.execute()
            np.testing.assert_allclose(m.output(), M.conv_relu_ref(x), rtol=RTOL, atol=ATOL)
    finally:
        m.close()


def test_async_with_report_thread(ctx, model_paths):
    """resnet50_async sample: start_thread + subscribe_report, execute_async
    and launch_callback per run, process_report in the thread."""
    m_id, ret = acl.mdl.load_from_file(model_paths["matmul_add"])
    ok(ret)
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, m_id))
    in_size = acl.mdl.get_input_size_by_index(desc, 0)
    out_size = acl.mdl.get_output_size_by_index(desc, 0)
    stream, ret = acl.rt.create_stream()
    ok(ret)

    stop = threading.Event()
    loops = []

    def report_loop(args):
        context, timeout_ms = args
        assert acl.rt.set_context(context) == C.ACL_SUCCESS
        while not stop.is_set():
            ret = acl.rt.process_report(timeout_ms)
            # 107012 until subscribe_report has run, and after unsubscribe
            assert ret in (C.ACL_SUCCESS, C.ACL_ERROR_RT_REPORT_TIMEOUT, C.ACL_ERROR_RT_THREAD_SUBSCRIBE), ret
            if ret == C.ACL_ERROR_RT_THREAD_SUBSCRIBE:
                stop.wait(0.001)
            loops.append(ret)

    tid, ret = acl.util.start_thread(report_loop, [ctx, 50])
    assert ret == 0 and isinstance(tid, int) and tid != 0
    ok(acl.rt.subscribe_report(tid, stream))

    n_runs = 6
    xs = [np.random.default_rng(100 + k).standard_normal((4, 8)).astype(np.float32) for k in range(n_runs)]
    runs, results, seen_threads = [], {}, []

    def on_done(user_data):
        k, out_ptr = user_data
        seen_threads.append(threading.get_ident())
        host = bytes(out_size)
        ok(acl.rt.memcpy(acl.util.bytes_to_ptr(host), out_size, out_ptr, out_size, C.ACL_MEMCPY_DEVICE_TO_HOST))
        results[k] = np.frombuffer(host, np.float32).reshape(4, 5)

    for k, x in enumerate(xs):
        in_ptr, _ = to_device(x)
        out_ptr, ret = acl.rt.malloc(out_size, C.ACL_MEM_MALLOC_HUGE_FIRST)
        ok(ret)
        in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
        in_buf, out_buf = acl.create_data_buffer(in_ptr, in_size), acl.create_data_buffer(out_ptr, out_size)
        _, ret = acl.mdl.add_dataset_buffer(in_ds, in_buf)
        ok(ret)
        _, ret = acl.mdl.add_dataset_buffer(out_ds, out_buf)
        ok(ret)
        ok(acl.mdl.execute_async(m_id, in_ds, out_ds, stream))
        block = C.ACL_CALLBACK_BLOCK if k % 2 else C.ACL_CALLBACK_NO_BLOCK
        ok(acl.rt.launch_callback(on_done, [k, out_ptr], block, stream))
        runs.append((in_ptr, out_ptr, in_ds, out_ds, in_buf, out_buf))

    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.unsubscribe_report(tid, stream))
    stop.set()
    assert acl.util.stop_thread(tid) == 0

    assert sorted(results) == list(range(n_runs))
    assert set(seen_threads) == {tid}      # the callbacks ran on the subscribed native thread
    for k, x in enumerate(xs):
        np.testing.assert_allclose(results[k], M.matmul_add_ref(x), rtol=RTOL, atol=ATOL)
    for in_ptr, out_ptr, in_ds, out_ds, in_buf, out_buf in runs:
        ok(acl.destroy_data_buffer(in_buf))
        ok(acl.destroy_data_buffer(out_buf))
        ok(acl.mdl.destroy_dataset(in_ds))
        ok(acl.mdl.destroy_dataset(out_ds))
        ok(acl.rt.free(in_ptr))
        ok(acl.rt.free(out_ptr))
    ok(acl.rt.destroy_stream(stream))
    ok(acl.mdl.destroy_desc(desc))
    ok(acl.mdl.unload(m_id))


def test_multi_batch_with_remainder(ctx, model_paths):
    """googlenet sample: all data on the device once, the batch-4 model
    walks over it with pointer arithmetic; the last, partial batch is
    padded; outputs are gathered device-to-device."""
    m = Model(model_paths["matmul_add"])
    try:
        n, batch = 10, 4
        row_in, row_out = 8 * 4, 5 * 4
        x = np.random.default_rng(7).standard_normal((n, 8)).astype(np.float32)
        n_batches = (n + batch - 1) // batch
        padded = np.zeros((n_batches * batch, 8), np.float32)
        padded[:n] = x
        all_in, all_in_size = to_device(padded)
        all_out, ret = acl.rt.malloc(n_batches * batch * row_out, C.ACL_MEM_MALLOC_HUGE_FIRST)
        ok(ret)
        in_buf = m.inputs[1][0][0]
        for b in range(n_batches):
            ok(acl.update_data_buffer(in_buf, all_in + b * batch * row_in, batch * row_in))
            assert acl.get_data_buffer_addr(in_buf) == all_in + b * batch * row_in
            assert acl.get_data_buffer_size_v2(in_buf) == batch * row_in
            m.execute()
            ok(acl.rt.memcpy(all_out + b * batch * row_out, batch * row_out, m.out_ptr(), batch * row_out,
                             C.ACL_MEMCPY_DEVICE_TO_DEVICE))
        ok(acl.update_data_buffer(in_buf, m.in_ptr(), m.inputs[1][0][2]))
        y = from_device(all_out, (n_batches * batch, 5))[:n]
        np.testing.assert_allclose(y, M.matmul_add_ref(x), rtol=RTOL, atol=ATOL)
        ok(acl.rt.free(all_in))
        ok(acl.rt.free(all_out))
    finally:
        m.close()


def test_two_models_chained_on_device(ctx, model_paths):
    """The first model's output buffer is the second model's input: no host
    round trip in between."""
    a = Model(model_paths["matmul_add"])
    b = Model(model_paths["relu_scale"])
    try:
        in_ds_b = acl.mdl.create_dataset()
        chained = acl.create_data_buffer(a.out_ptr(), acl.mdl.get_output_size_by_index(a.desc, 0))
        _, ret = acl.mdl.add_dataset_buffer(in_ds_b, chained)
        ok(ret)
        stream, ret = acl.rt.create_stream()
        ok(ret)
        x = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
        a.set_input(x)
        ok(acl.mdl.execute_async(a.id, a.inputs[0], a.outputs[0], stream))
        ok(acl.mdl.execute_async(b.id, in_ds_b, b.outputs[0], stream))
        ok(acl.rt.synchronize_stream(stream))
        np.testing.assert_allclose(b.output(), M.relu_scale_ref(M.matmul_add_ref(x)), rtol=RTOL, atol=ATOL)
        ok(acl.rt.destroy_stream(stream))
        ok(acl.destroy_data_buffer(chained))
        ok(acl.mdl.destroy_dataset(in_ds_b))
    finally:
        a.close()
        b.close()


def test_two_devices_with_context_switching(ctx, model_paths):
    count, ret = acl.rt.get_device_count()
    ok(ret)
    assert count >= 2
    ctx0, ret = acl.rt.create_context(0)
    ok(ret)
    ctx1, ret = acl.rt.create_context(1)
    ok(ret)
    assert ctx0 != ctx1
    # create_context makes the new context current
    cur, ret = acl.rt.get_context()
    assert (cur, ret) == (ctx1, 0)
    assert acl.rt.get_device() == (1, 0)
    per_dev = {}
    for dev, c in ((0, ctx0), (1, ctx1)):
        ok(acl.rt.set_context(c))
        assert acl.rt.get_device() == (dev, 0)
        per_dev[dev] = Model(model_paths["conv_relu"])
    xs = {d: np.random.default_rng(40 + d).standard_normal((1, 2, 6, 6)).astype(np.float32) for d in (0, 1)}
    for _ in range(2):
        for dev, c in ((0, ctx0), (1, ctx1)):
            ok(acl.rt.set_context(c))
            per_dev[dev].set_input(xs[dev])
            per_dev[dev].execute()
    for dev, c in ((0, ctx0), (1, ctx1)):
        ok(acl.rt.set_context(c))
        np.testing.assert_allclose(per_dev[dev].output(), M.conv_relu_ref(xs[dev]), rtol=RTOL, atol=ATOL)
    # a model runs only under the context it was loaded in
    ok(acl.rt.set_context(ctx0))
    m1 = per_dev[1]
    assert acl.mdl.execute(m1.id, m1.inputs[0], m1.outputs[0]) == C.ACL_ERROR_RESOURCE_NOT_MATCH
    assert acl.get_recent_err_msg()
    for dev, c in ((0, ctx0), (1, ctx1)):
        ok(acl.rt.set_context(c))
        per_dev[dev].close()
    ok(acl.rt.destroy_context(ctx0))
    ok(acl.rt.destroy_context(ctx1))


def test_query_size_and_load_with_mem(ctx, model_paths):
    path = model_paths["conv_relu"]
    work, weight, ret = acl.mdl.query_size(path)
    ok(ret)
    assert weight >= (3 * 2 * 3 * 3 + 3) * 4
    work_ptr = weight_ptr = 0
    if work:
        work_ptr, ret = acl.rt.malloc(work, C.ACL_MEM_MALLOC_HUGE_FIRST)
        ok(ret)
    weight_ptr, ret = acl.rt.malloc(weight, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    # too little weight memory is refused with a message naming both sizes
    _, ret = acl.mdl.load_from_file_with_mem(path, work_ptr, work, weight_ptr, weight - 1)
    assert ret == C.ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg()
    model_id, ret = acl.mdl.load_from_file_with_mem(path, work_ptr, work, weight_ptr, weight)
    ok(ret)
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, model_id))
    x = np.random.default_rng(5).standard_normal((1, 2, 6, 6)).astype(np.float32)
    in_ptr, in_size = to_device(x)
    out_size = acl.mdl.get_output_size_by_index(desc, 0)
    out_ptr, ret = acl.rt.malloc(out_size, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    bufs = [acl.create_data_buffer(in_ptr, in_size), acl.create_data_buffer(out_ptr, out_size)]
    assert acl.mdl.add_dataset_buffer(in_ds, bufs[0]) == (in_ds, 0)
    assert acl.mdl.add_dataset_buffer(out_ds, bufs[1]) == (out_ds, 0)
    ok(acl.mdl.execute(model_id, in_ds, out_ds))
    np.testing.assert_allclose(from_device(out_ptr, (1, 3, 6, 6)), M.conv_relu_ref(x), rtol=RTOL, atol=ATOL)
    ok(acl.mdl.unload(model_id))
    for b in bufs:
        ok(acl.destroy_data_buffer(b))
    for ds in (in_ds, out_ds):
        ok(acl.mdl.destroy_dataset(ds))
    for p in (in_ptr, out_ptr, weight_ptr) + ((work_ptr,) if work_ptr else ()):
        ok(acl.rt.free(p))
    ok(acl.mdl.destroy_desc(desc))


def test_load_from_mem_via_bytes_to_ptr(ctx, model_paths):
    """acllite sample: the model image read into bytes, loaded through
    bytes_to_ptr; query_size_from_mem and get_desc_from_mem agree."""
    with open(model_paths["matmul_add"], "rb") as f:
        image = f.read()
    ptr = acl.util.bytes_to_ptr(image)
    work, weight, ret = acl.mdl.query_size_from_mem(ptr, len(image))
    ok(ret)
    assert weight >= (8 * 5 + 5) * 4
    d = acl.mdl.create_desc()
    ok(acl.mdl.get_desc_from_mem(d, ptr, len(image)))
    assert acl.mdl.get_num_inputs(d) == 1 and acl.mdl.get_output_size_by_index(d, 0) == 4 * 5 * 4
    ok(acl.mdl.destroy_desc(d))
    d = acl.mdl.create_desc()
    ok(acl.mdl.get_desc_from_file(d, model_paths["matmul_add"]))
    assert acl.mdl.get_input_dims(d, 0)[0]["dims"] == [4, 8]
    ok(acl.mdl.destroy_desc(d))

    model_id, ret = acl.mdl.load_from_mem(ptr, len(image))
    ok(ret)
    del image   # the image is only read during the load
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, model_id))
    x = np.random.default_rng(9).standard_normal((4, 8)).astype(np.float32)
    in_ptr, in_size = to_device(x)
    out_ptr, ret = acl.rt.malloc(80, C.ACL_MEM_MALLOC_NORMAL_ONLY)
    ok(ret)
    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    ib, ob = acl.create_data_buffer(in_ptr, in_size), acl.create_data_buffer(out_ptr, 80)
    acl.mdl.add_dataset_buffer(in_ds, ib)
    acl.mdl.add_dataset_buffer(out_ds, ob)
    assert acl.mdl.get_dataset_num_buffers(in_ds) == 1
    assert acl.mdl.get_dataset_buffer(in_ds, 0) == ib
    ok(acl.mdl.execute(model_id, in_ds, out_ds))
    np.testing.assert_allclose(from_device(out_ptr, (4, 5)), M.matmul_add_ref(x), rtol=RTOL, atol=ATOL)
    # load_from_mem_with_mem with caller-owned weights, same result
    with open(model_paths["matmul_add"], "rb") as f:
        image2 = f.read()
    wptr, ret = acl.rt.malloc(weight, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    m2, ret = acl.mdl.load_from_mem_with_mem(acl.util.bytes_to_ptr(image2), len(image2), 0, 0, wptr, weight)
    ok(ret)
    ok(acl.rt.memset(out_ptr, 80, 0, 80))
    ok(acl.mdl.execute(m2, in_ds, out_ds))
    np.testing.assert_allclose(from_device(out_ptr, (4, 5)), M.matmul_add_ref(x), rtol=RTOL, atol=ATOL)
    ok(acl.mdl.unload(m2))
    ok(acl.rt.free(wptr))
    ok(acl.mdl.unload(model_id))
    for b in (ib, ob):
        ok(acl.destroy_data_buffer(b))
    for ds in (in_ds, out_ds):
        ok(acl.mdl.destroy_dataset(ds))
    for p in (in_ptr, out_ptr):
        ok(acl.rt.free(p))
    ok(acl.mdl.destroy_desc(desc))


def test_dynamic_batch_probe_on_non_gear_model(ctx, model_paths):
    """The acllite probe: a model without gears has no
    "ascend_mbatch_shape_data" input, and reports no gears."""
    m = Model(model_paths["conv_relu"])
    try:
        index, ret = acl.mdl.get_input_index_by_name(m.desc, C.ACL_DYNAMIC_TENSOR_NAME)
        assert ret == C.ACL_ERROR_INVALID_PARAM
        assert C.ACL_DYNAMIC_TENSOR_NAME in (acl.get_recent_err_msg() or "")
        assert acl.mdl.get_input_index_by_name(m.desc, "X") == (0, 0)
        assert acl.mdl.get_output_index_by_name(m.desc, "Y") == (0, 0)
        assert acl.mdl.get_dynamic_batch(m.desc) == ({"batchCount": 0, "batch": []}, 0)
        assert acl.mdl.get_dynamic_hw(m.desc, -1) == ({"hwCount": 0, "hw": []}, 0)
        assert acl.mdl.get_input_dynamic_gear_count(m.desc, -1) == (0, 0)
        dims_list, ret = acl.mdl.get_input_dynamic_dims(m.desc, -1, 0)
        assert (dims_list, ret) == ([], 0)
        # selecting a gear the model does not have
        ret = acl.mdl.set_dynamic_batch_size(m.id, m.inputs[0], 0, 2)
        assert ret == C.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
        ret = acl.mdl.set_dynamic_hw_size(m.id, m.inputs[0], 0, 6, 6)
        assert ret == C.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
        ret = acl.mdl.set_input_dynamic_dims(m.id, m.inputs[0], 0, {"dimCount": 4, "dims": [1, 2, 6, 6]})
        assert ret != C.ACL_SUCCESS
        assert acl.mdl.set_dynamic_batch_size(m.id, m.inputs[0], 0, 0) == C.ACL_ERROR_INVALID_PARAM
    finally:
        m.close()


def test_dynamic_batch_gear_flow(ctx, model_paths):
    if "gear_batch" not in model_paths:
        pytest.skip("atc not found (OPENACL_ATC): no gear model to load")
    m = Model(model_paths["gear_batch"])  # conv_relu compiled with --dynamic_batch_size=1,2,4
    try:
        index, ret = acl.mdl.get_input_index_by_name(m.desc, C.ACL_DYNAMIC_TENSOR_NAME)
        ok(ret)
        assert index == 1 and acl.mdl.get_num_inputs(m.desc) == 2
        batch, ret = acl.mdl.get_dynamic_batch(m.desc)
        assert ret == 0 and batch["batch"] == [1, 2, 4]
        dims, ret = acl.mdl.get_input_dims(m.desc, 0)
        assert ret == 0 and dims["dims"] == [-1, 2, 6, 6]
        assert acl.mdl.get_input_size_by_index(m.desc, 0) == 4 * 2 * 6 * 6 * 4   # the largest gear
        x = np.random.default_rng(5).standard_normal((2, 2, 6, 6)).astype(np.float32)
        m.set_input(x)
        assert acl.mdl.set_dynamic_batch_size(m.id, m.inputs[0], index, 3) == C.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
        ok(acl.mdl.set_dynamic_batch_size(m.id, m.inputs[0], index, 2))
        m.execute()
        dims, ret = acl.mdl.get_cur_output_dims(m.desc, 0)
        assert ret == 0 and dims["dims"] == [2, 3, 6, 6]
        np.testing.assert_allclose(m.output(0), M.conv_relu_ref(x), rtol=1e-4, atol=1e-4)
    finally:
        m.close()


def test_dynamic_input_shape_through_tensor_desc(ctx, model_paths):
    """ONNX dynamic dims: the actual shape goes in the dataset's tensor
    desc; an output buffer (0, 0) is allocated by the runtime."""
    model_id, ret = acl.mdl.load_from_file(model_paths["dyn_affine"])
    ok(ret)
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, model_id))
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    assert ret == 0 and dims["dims"] == [-1, 3]
    rng_, ret = acl.mdl.get_input_dims_range(desc, 0)
    assert ret == 0 and rng_["rangeCount"] == 2 and rng_["range"][1] == [3, 3]
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    in_ptr, in_size = to_device(x)
    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    ib, ob = acl.create_data_buffer(in_ptr, in_size), acl.create_data_buffer(0, 0)
    acl.mdl.add_dataset_buffer(in_ds, ib)
    acl.mdl.add_dataset_buffer(out_ds, ob)
    td = acl.create_tensor_desc(C.ACL_FLOAT, [5, 3], C.ACL_FORMAT_ND)
    assert td != 0
    assert acl.mdl.set_dataset_tensor_desc(in_ds, td, 0) == (in_ds, 0)
    acl.destroy_tensor_desc(td)
    ok(acl.mdl.execute(model_id, in_ds, out_ds))
    out_td = acl.mdl.get_dataset_tensor_desc(out_ds, 0)
    assert out_td != 0
    shape = [acl.get_tensor_desc_dim_v2(out_td, i)[0] for i in range(acl.get_tensor_desc_num_dims(out_td))]
    assert shape == [5, 3]
    out_ptr, out_size = acl.get_data_buffer_addr(ob), acl.get_data_buffer_size_v2(ob)
    assert out_ptr != 0 and out_size == 60
    np.testing.assert_allclose(from_device(out_ptr, (5, 3)), M.dyn_affine_ref(x))
    ok(acl.rt.free(out_ptr))
    ok(acl.update_data_buffer(ob, 0, 0))
    for b in (ib, ob):
        ok(acl.destroy_data_buffer(b))
    for ds in (in_ds, out_ds):
        ok(acl.mdl.destroy_dataset(ds))
    ok(acl.rt.free(in_ptr))
    ok(acl.mdl.destroy_desc(desc))
    ok(acl.mdl.unload(model_id))


def test_load_with_config_handle(ctx, model_paths):
    h = acl.mdl.create_config_handle()
    assert h != 0
    ok(acl.mdl.set_config_opt(h, 1, 1))                          # ACL_MDL_LOAD_TYPE_SIZET = FROM_FILE
    ok(acl.mdl.set_config_opt(h, 2, model_paths["relu_scale"]))   # ACL_MDL_PATH_PTR
    ok(acl.mdl.set_config_opt(h, 0, 3))                           # ACL_MDL_PRIORITY_INT32
    model_id, ret = acl.mdl.load_with_config(h)
    ok(ret)
    ok(acl.mdl.destroy_config_handle(h))
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, model_id))
    assert acl.mdl.get_input_dims(desc, 0)[0]["dims"] == [4, 5]
    ok(acl.mdl.destroy_desc(desc))
    ok(acl.mdl.unload(model_id))


def test_execute_v2_with_exec_config(ctx, model_paths):
    m = Model(model_paths["matmul_add"])
    try:
        x = np.random.default_rng(11).standard_normal((4, 8)).astype(np.float32)
        m.set_input(x)
        h = acl.mdl.create_exec_config_handle()
        assert h != 0
        ok(acl.mdl.set_exec_config_opt(h, 0, 5000))      # ACL_MDL_STREAM_SYNC_TIMEOUT (int32)
        ok(acl.mdl.set_exec_config_opt(h, 8, 1))         # ACL_MDL_EXEC_PRIORITY_INT32
        work, _, ret = acl.mdl.query_size(model_paths["matmul_add"])
        ok(ret)
        wptr = 0
        if work:
            wptr, ret = acl.rt.malloc(work, C.ACL_MEM_MALLOC_HUGE_FIRST)
            ok(ret)
            ok(acl.mdl.set_exec_config_opt(h, 2, wptr))  # ACL_MDL_WORK_ADDR_PTR (pointer width)
            ok(acl.mdl.set_exec_config_opt(h, 3, work))  # ACL_MDL_WORK_SIZET (size_t width)
        stream, ret = acl.rt.create_stream()
        ok(ret)
        ok(acl.mdl.execute_v2(m.id, m.inputs[0], m.outputs[0], stream, h))
        np.testing.assert_allclose(m.output(), M.matmul_add_ref(x), rtol=RTOL, atol=ATOL)
        ok(acl.mdl.destroy_exec_config_handle(h))
        ok(acl.rt.destroy_stream(stream))
        if wptr:
            ok(acl.rt.free(wptr))
        # AIPP queries on a model without AIPP
        aipp_type, attached, ret = acl.mdl.get_aipp_type(m.id, 0)
        assert (aipp_type, ret) == (0, 0)                   # ACL_DATA_WITHOUT_AIPP
        info, ret = acl.mdl.get_first_aipp_info(m.id, 0)
        assert info is None and ret != 0
    finally:
        m.close()
