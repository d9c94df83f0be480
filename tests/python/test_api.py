"""The pyACL surface: module layout, every name, calling conventions, dict
shapes, argument errors and ACL error returns."""
import importlib
import sys

import numpy as np
import pytest

import acl

import aclconst as C
from acltools import ok

# Appendix B of the fact sheet: every acl.rt method of the 2026 binding
# (USE_MDL-only names last).
RT_NAMES = """
binary_load_from_file binary_load_from_data get_function_addr get_function_name register_cpu_func create_binary
destroy_binary binary_load binary_unload binary_get_function launch_kernel kernel_args_init
kernel_args_init_by_user_mem kernel_args_get_mem_size kernel_args_get_handle_mem_size kernel_args_append
kernel_args_append_place_holder kernel_args_get_place_holder_buffer kernel_args_para_update kernel_args_finalize
launch_kernel_with_config set_device reset_device reset_device_force get_device set_device_sat_mode
get_device_sat_mode get_run_mode set_ts_device get_device_count create_context destroy_context set_context
get_context ctx_get_current_default_stream get_overflow_status reset_overflow_status malloc free get_mem_info
malloc_cached mem_flush mem_invalidate malloc_host free_host memcpy memcpy_async memset memset_async create_stream
create_stream_with_config destroy_stream destroy_stream_force set_stream_overflow_switch get_stream_overflow_switch
set_stream_failure_mode stream_query create_event create_event_with_flag create_event_ex_with_flag destroy_event
synchronize_stream synchronize_stream_with_timeout process_report subscribe_report unsubscribe_report
launch_callback synchronize_device record_event reset_event query_event query_event_status query_event_wait_status
synchronize_event synchronize_event_with_timeout event_elapsed_time event_get_timestamp get_event_id
get_event_avail_num stream_wait_event stream_get_id get_stream_available_num set_stream_attribute
get_stream_attribute get_thread_last_task_id reduce_async set_exception_info_callback
get_error_code_from_exception_info get_task_id_from_exception_info get_stream_id_from_exception_info
get_thread_id_from_exception_info get_device_id_from_exception_info set_op_wait_timeout set_op_execute_time_out
memcpy2d memcpy2d_async reserve_mem_address release_mem_address malloc_physical free_physical malloc_with_cfg
malloc_for_task_scheduler malloc_host_with_cfg map_mem unmap_mem mem_export_to_shareable_handle
device_get_bare_tgid mem_set_pid_to_shareable_handle mem_import_from_shareable_handle
mem_get_allocation_granularity get_device_utilization_rate query_device_status ctx_set_sys_param_opt
ctx_get_sys_param_opt set_sys_param_opt get_sys_param_opt malloc_align32 allocator_create_desc
allocator_destroy_desc allocator_set_obj_to_desc allocator_set_alloc_func_to_desc allocator_set_free_func_to_desc
allocator_set_alloc_advise_func_to_desc allocator_set_get_addr_from_block_func_to_desc allocator_register
allocator_unregister peek_at_last_error get_last_error synchronize_device_with_timeout cmo_async device_task_abort
memcpy_async_with_condition stream_abort pointer_get_attributes host_register host_unregister
get_memcpy_desc_size set_memcpy_desc memcpy_async_with_desc value_write value_wait device_can_access_peer
device_enable_peer_access device_disable_peer_access ipc_mem_get_export_key ipc_mem_set_import_pid
ipc_mem_import_by_key ipc_mem_close get_device_info device_get_stream_priority_range get_device_capability
get_device_res_limit set_device_res_limit reset_device_res_limit get_devices_topo create_notify destroy_notify
record_notify wait_and_reset_notify get_notify_id notify_batch_reset notify_get_export_key notify_set_import_pid
notify_import_by_key get_stream_res_limit set_stream_res_limit reset_stream_res_limit
use_stream_res_in_current_thread unuse_stream_res_in_current_thread get_res_in_current_thread
get_primary_ctx_state get_logic_dev_id_by_user_dev_id get_user_dev_id_by_logic_dev_id
get_logic_dev_id_by_phy_dev_id get_phy_dev_id_by_logic_dev_id set_op_execute_timeout_v2 get_op_timeout_interval
get_op_execute_timeout device_get_uuid device_peer_access_status host_register_v2 host_get_device_pointer
set_group get_group_count create_group_info destroy_group_info get_all_group_info get_group_info_detail
get_mem_uce_info mem_uce_repair
""".split()

# acl.rt names openacl implements (the rest return ACL_ERROR_FEATURE_UNSUPPORTED)
RT_IMPLEMENTED = """
set_device reset_device reset_device_force get_device set_device_sat_mode get_device_sat_mode get_run_mode
set_ts_device get_device_count query_device_status synchronize_device synchronize_device_with_timeout
create_context destroy_context set_context get_context ctx_get_current_default_stream create_stream
create_stream_with_config destroy_stream destroy_stream_force set_stream_failure_mode stream_query
synchronize_stream synchronize_stream_with_timeout stream_wait_event create_event create_event_with_flag
create_event_ex_with_flag destroy_event record_event reset_event query_event query_event_status
query_event_wait_status synchronize_event synchronize_event_with_timeout event_elapsed_time malloc malloc_align32
malloc_cached malloc_with_cfg free malloc_host free_host mem_flush mem_invalidate memcpy memcpy_async memset
memset_async memcpy2d memcpy2d_async get_mem_info subscribe_report unsubscribe_report process_report
launch_callback set_exception_info_callback get_error_code_from_exception_info get_task_id_from_exception_info
get_stream_id_from_exception_info get_thread_id_from_exception_info get_device_id_from_exception_info
get_last_error peek_at_last_error device_can_access_peer device_enable_peer_access device_disable_peer_access
device_peer_access_status get_device_info get_device_capability device_get_stream_priority_range
get_logic_dev_id_by_user_dev_id get_user_dev_id_by_logic_dev_id get_logic_dev_id_by_phy_dev_id
get_phy_dev_id_by_logic_dev_id set_op_wait_timeout set_op_execute_time_out stream_get_id event_get_timestamp
malloc_host_with_cfg host_register host_unregister
""".split()

MDL_NAMES = """
load_from_file load_from_mem load_from_file_with_mem load_from_mem_with_mem load_from_file_with_q
load_from_mem_with_q load_with_config unload query_size query_size_from_mem execute execute_async execute_v2
create_dataset destroy_dataset add_dataset_buffer get_dataset_buffer get_dataset_num_buffers
set_dataset_tensor_desc get_dataset_tensor_desc create_desc get_desc destroy_desc get_desc_from_file
get_desc_from_mem get_num_inputs get_num_outputs get_input_size_by_index get_output_size_by_index get_input_dims
get_input_dims_v2 get_output_dims get_cur_output_dims get_input_dims_range get_input_name_by_index
get_output_name_by_index get_input_format get_output_format get_input_data_type get_output_data_type
get_input_index_by_name get_output_index_by_name get_dynamic_batch get_dynamic_hw get_input_dynamic_gear_count
get_input_dynamic_dims set_dynamic_batch_size set_dynamic_hw_size set_input_dynamic_dims get_tensor_real_name
get_op_attr create_config_handle destroy_config_handle set_config_opt create_exec_config_handle
destroy_exec_config_handle set_exec_config_opt create_aipp destroy_aipp get_aipp_data_size set_aipp_input_format
set_aipp_csc_params set_aipp_rbuv_swap_switch set_aipp_ax_swap_switch set_aipp_src_image_size
set_aipp_scf_params set_aipp_crop_params set_aipp_padding_params set_aipp_dtc_pixel_mean set_aipp_dtc_pixel_min
set_aipp_pixel_var_reci set_input_aipp set_aipp_by_input_index get_aipp_type get_first_aipp_info
create_and_get_op_desc init_dump set_dump finalize_dump dump_reg_callback dump_unreg_callback
bundle_load_from_file bundle_load_from_mem bundle_unload bundle_get_model_id bundle_get_model_num
""".split()

TOP_NAMES = """
init finalize finalize_reference get_version get_soc_name get_recent_err_msg get_version_str get_cann_version
float16_to_float float_to_float16 create_data_buffer destroy_data_buffer update_data_buffer get_data_buffer_addr
get_data_buffer_size get_data_buffer_size_v2 data_type_size app_log create_tensor_desc destroy_tensor_desc
get_tensor_desc_type get_tensor_desc_format get_tensor_desc_size get_tensor_desc_element_count
get_tensor_desc_num_dims get_tensor_desc_dim get_tensor_desc_dim_v2 get_tensor_desc_name set_tensor_desc_name
trans_tensor_desc_format set_tensor_shape set_tensor_format set_tensor_origin_shape set_tensor_origin_format
set_tensor_storage_shape set_tensor_storage_format set_tensor_dynamic_input set_tensor_shape_range
set_tensor_value_range set_tensor_const set_tensor_place_ment get_tensor_desc_dim_range get_tensor_desc_address
get_tensor_desc_by_index get_cann_attribute_list get_cann_attribute get_device_capability
""".split()

UTIL_NAMES = "bytes_to_ptr ptr_to_bytes numpy_to_ptr numpy_contiguous_to_ptr ptr_to_numpy start_thread " \
             "stop_thread".split()


def test_module_layout():
    for sub in ("rt", "mdl", "util", "media", "op", "blas", "prof", "himpi", "fv"):
        assert sys.modules["acl." + sub] is getattr(acl, sub)
    from acl import mdl, rt  # (works like pyACL)
    assert mdl is acl.mdl and rt is acl.rt
    assert importlib.import_module("acl.util") is acl.util
    # no constants, only functions
    assert not [n for n in dir(acl) if n.isupper()]
    assert not [n for n in dir(acl.rt) if n.isupper()]


def test_every_pyacl_name_exists():
    assert len(RT_NAMES) == 190 and len(set(RT_NAMES)) == 190
    for mod, names in ((acl, TOP_NAMES), (acl.rt, RT_NAMES), (acl.mdl, MDL_NAMES), (acl.util, UTIL_NAMES)):
        missing = [n for n in names if not callable(getattr(mod, n, None))]
        assert not missing, (mod.__name__, missing)
    assert callable(acl.media.dvpp_malloc) and callable(acl.media.dvpp_free)


def test_unimplemented_rt_names_return_feature_unsupported(ctx):
    for n in set(RT_NAMES) - set(RT_IMPLEMENTED):
        assert getattr(acl.rt, n)(0, 1, 2) == C.ACL_ERROR_FEATURE_UNSUPPORTED, n


def test_prof_session(ctx, tmp_path):
    # acl.prof drives acl_prof.h: a session writes its trace and op summary
    assert acl.prof.init("/nowhere") == 100000  # ACL_ERROR_INVALID_PARAM: not a writable folder
    assert acl.prof.init(str(tmp_path)) == 0
    assert acl.prof.create_config([7], 1, 0, None, 0x2) == 0  # no device 7
    cfg = acl.prof.create_config([0], 1, 0, None, 0x2)
    assert cfg != 0
    assert acl.prof.start(cfg) == 0
    assert acl.prof.start(cfg) == 100042  # ACL_ERROR_PROF_ALREADY_RUN
    assert acl.prof.stop(cfg) == 0
    assert acl.prof.stop(cfg) == 100043  # ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.destroy_config(cfg) == 0
    assert acl.prof.finalize() == 0
    assert (tmp_path / "op_trace.json").exists()
    assert (tmp_path / "op_summary.csv").read_text().startswith("Model,Op Name,OP Type,")
    assert acl.prof.model_subscribe(0, 0) == C.ACL_ERROR_FEATURE_UNSUPPORTED


def test_top_level_conventions(ctx):
    # repeated init is tolerated as in CANN 8.5+ (reference counted)
    assert acl.init() == C.ACL_ERROR_REPEAT_INITIALIZE
    left, ret = acl.finalize_reference()
    assert (left, ret) == (1, 0)
    major, minor, patch, ret = acl.get_version()
    assert (major, minor, patch, ret) == (1, 17, 0, 0)
    assert isinstance(acl.get_soc_name(), str)
    ver, ret = acl.get_version_str("runtime")
    assert ret == 0 and isinstance(ver, str) and ver
    _, ret = acl.get_version_str("no-such-package")
    assert ret == C.ACL_ERROR_INVALID_PARAM
    d, ret = acl.get_cann_version(0)
    assert ret == 0 and set(d) == {"version", "major_version", "minor_version", "release_version",
                                   "patch_version", "reserved"}
    msg = acl.get_recent_err_msg()
    assert isinstance(msg, str) and "no-such-package" in msg
    assert acl.get_recent_err_msg() is None          # read once, then cleared
    assert acl.data_type_size(C.ACL_FLOAT) == 4 and acl.data_type_size(C.ACL_FLOAT16) == 2
    assert acl.float16_to_float(0x3C00) == 1.0 and acl.float_to_float16(1.0) == 0x3C00
    assert acl.float_to_float16(-2.5) == int(np.array(-2.5, np.float16).view(np.uint16))
    assert acl.app_log(1, "pytest app_log line") is None
    attrs, num, ret = acl.get_cann_attribute_list()
    assert ret == 0 and num == len(attrs)
    for a in attrs:
        v, ret = acl.get_cann_attribute(a)
        assert ret == 0 and v in (0, 1)
    v, ret = acl.get_device_capability(0, 0)
    assert ret == 0 and v >= 1


def test_data_buffers(ctx):
    ptr, ret = acl.rt.malloc(256, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    buf = acl.create_data_buffer(ptr, 256)
    assert isinstance(buf, int) and buf != 0
    assert acl.get_data_buffer_addr(buf) == ptr
    assert acl.get_data_buffer_size(buf) == 256 and acl.get_data_buffer_size_v2(buf) == 256
    ok(acl.update_data_buffer(buf, ptr + 64, 128))     # pointer arithmetic on ints
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (ptr + 64, 128)
    empty = acl.create_data_buffer(0, 0)               # (NULL, 0) is legal
    assert empty != 0 and acl.get_data_buffer_addr(empty) == 0
    ok(acl.destroy_data_buffer(empty))
    ok(acl.destroy_data_buffer(buf))
    assert acl.destroy_data_buffer(0) == C.ACL_ERROR_INVALID_PARAM
    ok(acl.rt.free(ptr))


def test_tensor_descs(ctx):
    td = acl.create_tensor_desc(C.ACL_FLOAT, [2, 3, 4], C.ACL_FORMAT_ND)
    assert td != 0
    assert acl.get_tensor_desc_type(td) == C.ACL_FLOAT
    assert acl.get_tensor_desc_format(td) == C.ACL_FORMAT_ND
    assert acl.get_tensor_desc_num_dims(td) == 3
    assert acl.get_tensor_desc_element_count(td) == 24 and acl.get_tensor_desc_size(td) == 96
    assert acl.get_tensor_desc_dim(td, 1) == 3
    assert acl.get_tensor_desc_dim_v2(td, 2) == (4, 0)
    assert acl.get_tensor_desc_dim_v2(td, 9)[1] != 0
    assert acl.set_tensor_desc_name(td, "t0") is None and acl.get_tensor_desc_name(td) == "t0"
    ok(acl.set_tensor_shape(td, [5, 6]))
    assert acl.get_tensor_desc_num_dims(td) == 2 and acl.get_tensor_desc_element_count(td) == 30
    ok(acl.set_tensor_shape_range(td, 2, [[1, 8], [6, 6]]))
    rng, ret = acl.get_tensor_desc_dim_range(td, 0, 2)
    assert (rng, ret) == ([1, 8], 0)
    ok(acl.set_tensor_format(td, C.ACL_FORMAT_ND))
    ok(acl.set_tensor_origin_shape(td, [5, 6]))
    ok(acl.set_tensor_origin_format(td, C.ACL_FORMAT_ND))
    ok(acl.set_tensor_place_ment(td, 1))
    dst, ret = acl.trans_tensor_desc_format(td, C.ACL_FORMAT_ND)
    assert ret == 0 and dst not in (0, td)
    acl.destroy_tensor_desc(dst)
    assert acl.get_tensor_desc_by_index(td, 0) == td
    scalar = acl.create_tensor_desc(C.ACL_INT32, [], C.ACL_FORMAT_ND)
    assert scalar != 0 and acl.get_tensor_desc_num_dims(scalar) == 0
    acl.destroy_tensor_desc(scalar)
    assert acl.destroy_tensor_desc(td) is None


@pytest.mark.parametrize("call", [
    lambda: acl.rt.malloc(None, 0),
    lambda: acl.rt.malloc(16),
    lambda: acl.rt.malloc("16", 0),
    lambda: acl.rt.free(None),
    lambda: acl.rt.memcpy(0, 1, 0, 1),
    lambda: acl.rt.set_device("0"),
    lambda: acl.mdl.load_from_file(None),
    lambda: acl.mdl.execute(0, None, 0),
    lambda: acl.mdl.get_num_inputs(1.5),
    lambda: acl.create_data_buffer(0),
    lambda: acl.util.bytes_to_ptr(bytearray(4)),
    lambda: acl.util.bytes_to_ptr("text"),
    lambda: acl.util.ptr_to_bytes(None, 4),
    lambda: acl.util.start_thread(),
])
def test_argument_errors_raise_pyacl_typeerror(ctx, call):
    with pytest.raises(TypeError, match=r"^acl\.(rt|mdl|util)?\.?\w+ args parse failed$"):
        call()


def test_argument_error_messages_name_the_function(ctx):
    with pytest.raises(TypeError, match=r"^acl\.rt\.malloc args parse failed$"):
        acl.rt.malloc(None, 0)
    with pytest.raises(TypeError, match=r"^acl\.mdl\.get_desc args parse failed$"):
        acl.mdl.get_desc("desc", 0)
    with pytest.raises(TypeError, match=r"^acl\.create_data_buffer args parse failed$"):
        acl.create_data_buffer(None, 0)
    with pytest.raises(TypeError, match="not callable"):
        acl.rt.launch_callback(42, None, 1, 0)
    with pytest.raises(TypeError, match="not callable"):
        acl.util.start_thread(42, None)


def test_value_errors(ctx):
    with pytest.raises(ValueError):
        acl.mdl.set_input_dynamic_dims(0, 0, 0, {"dimCount": 3, "dims": [1, 2]})
    with pytest.raises(ValueError):
        acl.mdl.set_input_dynamic_dims(0, 0, 0, {"dimCount": 129, "dims": [1] * 129})
    with pytest.raises(TypeError):
        acl.mdl.set_input_dynamic_dims(0, 0, 0, {"dims": [1]})
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(0, (4,), C.NPY_FLOAT32)
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(bytes(8)), (2,), 999)
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(bytes(8)), (2,), 17)   # NPY_OBJECT cannot view memory
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(bytes(8)), (-2,), C.NPY_FLOAT32)


def test_failures_come_back_through_ret(ctx, model_paths, tmp_path):
    _, ret = acl.rt.malloc(0, C.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == C.ACL_ERROR_INVALID_PARAM
    msg = acl.get_recent_err_msg()
    assert msg and "aclrtMalloc" in msg
    model_id, ret = acl.mdl.load_from_file(str(tmp_path / "missing.onnx"))
    assert ret != 0 and acl.get_recent_err_msg()
    junk = tmp_path / "junk.om"
    junk.write_bytes(b"\x00not a model at all" * 10)
    _, ret = acl.mdl.load_from_file(str(junk))
    assert ret != 0
    assert acl.mdl.unload(987654) == C.ACL_ERROR_INVALID_MODEL_ID
    # a dataset with the wrong number of inputs
    model_id, ret = acl.mdl.load_from_file(model_paths["conv_relu"])
    ok(ret)
    empty_in, empty_out = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    assert acl.mdl.execute(model_id, empty_in, empty_out) == C.ACL_ERROR_MODEL_INPUT_NOT_MATCH
    assert "aclmdlExecute" in (acl.get_recent_err_msg() or "")
    ok(acl.mdl.destroy_dataset(empty_in))
    ok(acl.mdl.destroy_dataset(empty_out))
    ok(acl.mdl.unload(model_id))
    # failing getters: empty dict / None, ret != 0
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_input_dims(desc, 0)[1] != 0
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    assert dims == {} and ret != 0
    assert acl.mdl.get_input_name_by_index(desc, 3) is None
    ok(acl.mdl.destroy_desc(desc))
    # runtime misuse
    assert acl.rt.process_report(100) == C.ACL_ERROR_RT_THREAD_SUBSCRIBE
    stream, ret = acl.rt.create_stream()
    ok(ret)
    assert acl.rt.launch_callback(lambda d: None, None, 1, stream) == C.ACL_ERROR_RT_STREAM_NO_CB_REG
    assert acl.rt.synchronize_stream_with_timeout(stream, -5) == C.ACL_ERROR_RT_PARAM_INVALID
    ok(acl.rt.destroy_stream(stream))
    assert acl.rt.destroy_stream(stream) != 0
    assert acl.rt.free(12345678) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(0, 4, 0, 4, C.ACL_MEMCPY_HOST_TO_HOST) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_device(99) != 0
    # dynamic AIPP parameter sets (the pyACL names of aclmdlCreateAIPP & co.)
    assert acl.mdl.create_aipp(0) == 0 and "batchSize 0" in (acl.get_recent_err_msg() or "")
    aipp = acl.mdl.create_aipp(2)
    assert aipp != 0
    assert acl.mdl.get_aipp_data_size(2) == (64 + 2 * 96, 0)
    ok(acl.mdl.set_aipp_input_format(aipp, 1))                       # ACL_YUV420SP_U8
    assert acl.mdl.set_aipp_input_format(aipp, 8) == C.ACL_ERROR_INVALID_PARAM
    ok(acl.mdl.set_aipp_crop_params(aipp, 1, 0, 0, 16, 16, 1))
    assert acl.mdl.set_aipp_crop_params(aipp, 1, 0, 0, 16, 16, 2) == C.ACL_ERROR_INVALID_PARAM
    ok(acl.mdl.destroy_aipp(aipp))
    # unsupported C features report their code
    assert acl.mdl.bundle_load_from_file("x.om")[1] == C.ACL_ERROR_FEATURE_UNSUPPORTED
    assert acl.mdl.dump_reg_callback(lambda d: None, 0) == C.ACL_ERROR_FEATURE_UNSUPPORTED
    assert acl.mdl.dump_unreg_callback() is None


def test_runtime_tuples(ctx):
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)
    dev, ret = acl.rt.get_device()
    assert (dev, ret) == (0, 0)
    free, total, ret = acl.rt.get_mem_info(0)
    assert ret == 0 and 0 < free <= total
    s, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == 0 and s != 0
    stream, ret = acl.rt.create_stream_with_config(0, 0)
    ok(ret)
    status, ret = acl.rt.stream_query(stream)
    assert (status, ret) == (0, 0)
    ev0, ret = acl.rt.create_event()
    ok(ret)
    ev1, ret = acl.rt.create_event_with_flag(0x9)
    ok(ret)
    ev2, ret = acl.rt.create_event_ex_with_flag(0x1)
    ok(ret)
    ok(acl.rt.record_event(ev0, stream))
    ok(acl.rt.stream_wait_event(stream, ev0))
    ok(acl.rt.record_event(ev1, stream))
    ok(acl.rt.synchronize_event(ev1))
    ok(acl.rt.synchronize_event_with_timeout(ev0, 1000))
    ms, ret = acl.rt.event_elapsed_time(ev0, ev1)
    assert ret == 0 and isinstance(ms, float) and ms >= 0
    assert acl.rt.query_event_status(ev1) == (1, 0)     # ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert acl.rt.query_event(ev1) == (0, 0)            # ACL_EVENT_STATUS_COMPLETE
    assert acl.rt.query_event_wait_status(ev0)[1] == 0
    ok(acl.rt.reset_event(ev0, stream))
    ok(acl.rt.synchronize_stream(stream))
    for e in (ev0, ev1, ev2):
        ok(acl.rt.destroy_event(e))
    # async copies and memset on the stream
    host, ret = acl.rt.malloc_host(256)
    ok(ret)
    dev_ptr, ret = acl.rt.malloc_align32(256, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    ok(acl.rt.memset_async(dev_ptr, 256, 7, 256, stream))
    ok(acl.rt.memcpy_async(host, 256, dev_ptr, 256, C.ACL_MEMCPY_DEVICE_TO_HOST, stream))
    ok(acl.rt.synchronize_stream_with_timeout(stream, 5000))
    assert acl.util.ptr_to_bytes(host, 256) == b"\x07" * 256
    ok(acl.rt.memset(dev_ptr, 256, 0, 256))
    ok(acl.rt.memcpy2d(dev_ptr, 16, host, 32, 8, 4, C.ACL_MEMCPY_HOST_TO_DEVICE))
    ok(acl.rt.memcpy2d_async(host, 16, dev_ptr, 16, 16, 4, C.ACL_MEMCPY_DEVICE_TO_HOST, stream))
    ok(acl.rt.synchronize_stream(stream))
    got = acl.util.ptr_to_bytes(host, 64)
    assert got == (b"\x07" * 8 + b"\x00" * 8) * 4
    ok(acl.rt.mem_flush(dev_ptr, 64))
    ok(acl.rt.mem_invalidate(dev_ptr, 64))
    cached, ret = acl.rt.malloc_cached(64, C.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret)
    cfg_ptr, ret = acl.rt.malloc_with_cfg(64, C.ACL_MEM_MALLOC_HUGE_FIRST, {})
    ok(ret)
    cfg_ptr2, ret = acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1, "attrs": [{"attr": 1, "value": {"deviceId": 0}}]})
    ok(ret)
    dv, ret = acl.media.dvpp_malloc(1024)
    ok(ret)
    ok(acl.media.dvpp_free(dv))
    for p in (dev_ptr, cached, cfg_ptr, cfg_ptr2):
        ok(acl.rt.free(p))
    ok(acl.rt.free_host(host))
    ok(acl.rt.set_stream_failure_mode(stream, 1))
    ok(acl.rt.destroy_stream_force(stream))
    ok(acl.rt.synchronize_device())
    ok(acl.rt.synchronize_device_with_timeout(-1))
    ok(acl.rt.set_ts_device(0))
    assert acl.rt.query_device_status(0) == (0, 0)
    ok(acl.rt.set_device_sat_mode(1))
    assert acl.rt.get_device_sat_mode() == (1, 0)
    ok(acl.rt.set_device_sat_mode(0))
    assert acl.rt.get_last_error(0) in (0,) or acl.rt.get_last_error(0) == 0
    acl.rt.malloc(0, 0)
    assert acl.rt.peek_at_last_error(0) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_last_error(0) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_last_error(0) == 0
    assert acl.rt.get_error_code_from_exception_info(0) == 0xFFFFFFFF


def test_current_cann_rt_calls(ctx):
    # configured allocation: the device id of the cfg decides the device
    p, ret = acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1, "attrs": [{"attr": 2, "value": {"deviceId": 1}}]})
    ok(ret)
    _, ret = acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1, "attrs": [{"attr": 2, "value": {"deviceId": 9}}]})
    assert ret == 107001                                  # ACL_ERROR_RT_INVALID_DEVICEID
    h, ret = acl.rt.malloc_host_with_cfg(64, {})
    ok(ret)
    # page-locked memory on the device side of a copy (Huawei's memcpy sample)
    src = np.arange(16, dtype=np.float32)
    ok(acl.rt.memcpy(h, 64, src.ctypes.data, 64, C.ACL_MEMCPY_HOST_TO_HOST))
    out = np.zeros(16, dtype=np.float32)
    ok(acl.rt.memcpy(out.ctypes.data, 64, h, 64, C.ACL_MEMCPY_DEVICE_TO_HOST))
    assert (out == src).all()
    ok(acl.rt.memcpy(p, 64, h, 64, C.ACL_MEMCPY_DEVICE_TO_DEVICE))
    ok(acl.rt.free(p))
    ok(acl.rt.free_host(h))
    # registered host memory
    buf = np.ones(32, dtype=np.float32)
    dev, ret = acl.rt.host_register(buf.ctypes.data, 128, 0)
    ok(ret)
    assert dev == buf.ctypes.data
    ok(acl.rt.host_unregister(dev))
    # devices
    assert acl.rt.device_can_access_peer(0, 1) == (1, 0)
    ok(acl.rt.device_enable_peer_access(1, 0))
    assert acl.rt.device_peer_access_status(0, 1) == (1, 0)
    ok(acl.rt.device_disable_peer_access(1))
    cores, ret = acl.rt.get_device_info(0, 101)           # ACL_DEV_ATTR_AICORE_CORE_NUM
    assert ret == 0 and cores >= 1
    assert acl.rt.get_device_capability(0, 21) == (0, 0)
    assert acl.rt.device_get_stream_priority_range() == (0, 0, 0)
    assert acl.rt.get_logic_dev_id_by_user_dev_id(1) == (1, 0)
    assert acl.rt.get_phy_dev_id_by_logic_dev_id(0) == (0, 0)
    ok(acl.rt.set_op_wait_timeout(10))
    ok(acl.rt.set_op_execute_time_out(10))
    # streams and events
    s, ret = acl.rt.create_stream()
    ok(ret)
    sid, ret = acl.rt.stream_get_id(s)
    assert ret == 0 and sid >= 0
    e, ret = acl.rt.create_event()
    ok(ret)
    ok(acl.rt.record_event(e, s))
    ok(acl.rt.synchronize_stream(s))
    ts, ret = acl.rt.event_get_timestamp(e)
    assert ret == 0 and ts > 0
    ok(acl.rt.destroy_event(e))
    ok(acl.rt.destroy_stream(s))


def test_dims_dict_shapes(ctx, model_paths):
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc_from_file(desc, model_paths["conv_relu"]))
    for getter in (acl.mdl.get_input_dims, acl.mdl.get_input_dims_v2):
        dims, ret = getter(desc, 0)
        assert ret == 0 and dims == {"name": "X", "dimCount": 4, "dims": [1, 2, 6, 6]}
    for getter in (acl.mdl.get_output_dims, acl.mdl.get_cur_output_dims):
        dims, ret = getter(desc, 0)
        assert ret == 0 and dims == {"name": "Y", "dimCount": 4, "dims": [1, 3, 6, 6]}
    rng, ret = acl.mdl.get_input_dims_range(desc, 0)
    assert ret == 0 and rng == {"rangeCount": 4, "range": [[1, 1], [2, 2], [6, 6], [6, 6]]}
    assert acl.mdl.get_tensor_real_name(desc, "X") == "X"
    assert acl.mdl.get_op_attr(desc, "conv", "_datadump_original_op_names") is None
    ok(acl.mdl.destroy_desc(desc))
