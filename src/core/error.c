/* Error reporting: one X-macro table of every aclError (ACL, RT and GE
 * families) generating the name and description lookups, and the
 * per-thread accumulated message behind aclGetRecentErrMsg(). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_base.h"
#include "core/core.h"

/* X(name, value, description). Aliases (same value, older spelling) are
 * listed with XA so lookups by value return the canonical name. */
#define OA_ERROR_TABLE(X, XA)                                                           \
    X(ACL_SUCCESS, 0, "success")                                                        \
    XA(ACL_ERROR_NONE, 0)                                                               \
    XA(ACL_RT_SUCCESS, 0)                                                               \
    X(ACL_ERROR_INVALID_PARAM, 100000, "argument check failed")                         \
    X(ACL_ERROR_UNINITIALIZE, 100001, "aclInit has not been called")                    \
    X(ACL_ERROR_REPEAT_INITIALIZE, 100002, "initialized twice")                         \
    X(ACL_ERROR_INVALID_FILE, 100003, "file missing, unreadable or invalid")            \
    X(ACL_ERROR_WRITE_FILE, 100004, "file write failed")                                \
    X(ACL_ERROR_INVALID_FILE_SIZE, 100005, "file size not acceptable")                  \
    X(ACL_ERROR_PARSE_FILE, 100006, "file content could not be parsed")                 \
    X(ACL_ERROR_FILE_MISSING_ATTR, 100007, "file lacks a required attribute")           \
    X(ACL_ERROR_FILE_ATTR_INVALID, 100008, "file attribute value invalid")              \
    X(ACL_ERROR_INVALID_DUMP_CONFIG, 100009, "bad dump configuration")                  \
    X(ACL_ERROR_INVALID_PROFILING_CONFIG, 100010, "bad profiling configuration")        \
    X(ACL_ERROR_INVALID_MODEL_ID, 100011, "unknown or unloaded model id")               \
    X(ACL_ERROR_DESERIALIZE_MODEL, 100012, "model deserialization failed")              \
    X(ACL_ERROR_PARSE_MODEL, 100013, "model parse failed")                              \
    X(ACL_ERROR_READ_MODEL_FAILURE, 100014, "model file read failed")                   \
    X(ACL_ERROR_MODEL_SIZE_INVALID, 100015, "model size invalid")                       \
    X(ACL_ERROR_MODEL_MISSING_ATTR, 100016, "model lacks an attribute")                 \
    X(ACL_ERROR_MODEL_INPUT_NOT_MATCH, 100017, "input does not match the model")        \
    X(ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, 100018, "output does not match the model")      \
    X(ACL_ERROR_MODEL_NOT_DYNAMIC, 100019, "model is not dynamic")                      \
    X(ACL_ERROR_OP_TYPE_NOT_MATCH, 100020, "operator type mismatch")                    \
    X(ACL_ERROR_OP_INPUT_NOT_MATCH, 100021, "operator inputs mismatch")                 \
    X(ACL_ERROR_OP_OUTPUT_NOT_MATCH, 100022, "operator outputs mismatch")               \
    X(ACL_ERROR_OP_ATTR_NOT_MATCH, 100023, "operator attributes mismatch")              \
    X(ACL_ERROR_OP_NOT_FOUND, 100024, "operator not found")                             \
    X(ACL_ERROR_OP_LOAD_FAILED, 100025, "operator load failed")                         \
    X(ACL_ERROR_UNSUPPORTED_DATA_TYPE, 100026, "data type unsupported")                 \
    X(ACL_ERROR_FORMAT_NOT_MATCH, 100027, "format mismatch")                            \
    X(ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED, 100028, "kernel selector not registered")  \
    X(ACL_ERROR_KERNEL_NOT_FOUND, 100029, "kernel not found")                           \
    X(ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED, 100030, "selector registered twice")   \
    X(ACL_ERROR_KERNEL_ALREADY_REGISTERED, 100031, "kernel registered twice")           \
    X(ACL_ERROR_INVALID_QUEUE_ID, 100032, "bad queue id")                               \
    X(ACL_ERROR_REPEAT_SUBSCRIBE, 100033, "subscribed twice")                           \
    X(ACL_ERROR_STREAM_NOT_SUBSCRIBE, 100034, "stream has no subscribed report thread") \
    X(ACL_ERROR_THREAD_NOT_SUBSCRIBE, 100035, "thread not subscribed")                  \
    X(ACL_ERROR_WAIT_CALLBACK_TIMEOUT, 100036, "waiting for callback timed out")        \
    X(ACL_ERROR_REPEAT_FINALIZE, 100037, "finalized twice")                             \
    X(ACL_ERROR_NOT_STATIC_AIPP, 100038, "input has no static AIPP")                    \
    X(ACL_ERROR_COMPILING_STUB_MODE, 100039, "needs the real compile library")          \
    X(ACL_ERROR_GROUP_NOT_SET, 100040, "group not set")                                 \
    X(ACL_ERROR_GROUP_NOT_CREATE, 100041, "group not created")                          \
    X(ACL_ERROR_PROF_ALREADY_RUN, 100042, "profiling already running")                  \
    X(ACL_ERROR_PROF_NOT_RUN, 100043, "profiling not running")                          \
    X(ACL_ERROR_DUMP_ALREADY_RUN, 100044, "dump already running")                       \
    X(ACL_ERROR_DUMP_NOT_RUN, 100045, "dump not running")                               \
    X(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, 148046, "profiling subscribed twice")            \
    X(ACL_ERROR_PROF_API_CONFLICT, 148047, "conflicting profiling APIs")                \
    X(ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG, 148048, "bad max op-queue config")      \
    X(ACL_ERROR_INVALID_OPP_PATH, 148049, "bad OPP path")                               \
    X(ACL_ERROR_OP_UNSUPPORTED_DYNAMIC, 148050, "op does not support dynamic shape")    \
    X(ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED, 148051, "related resources not released") \
    X(ACL_ERROR_UNSUPPORTED_JPEG, 148052, "JPEG variant unsupported")                   \
    X(ACL_ERROR_INVALID_BUNDLE_MODEL_ID, 148053, "bad bundle id")                       \
    X(ACL_ERROR_BAD_ALLOC, 200000, "memory allocation failed")                          \
    X(ACL_ERROR_API_NOT_SUPPORT, 200001, "API not supported")                           \
    X(ACL_ERROR_INVALID_DEVICE, 200002, "bad device")                                   \
    X(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, 200003, "address not aligned")                \
    X(ACL_ERROR_RESOURCE_NOT_MATCH, 200004, "resource mismatch")                        \
    X(ACL_ERROR_INVALID_RESOURCE_HANDLE, 200005, "bad handle")                          \
    X(ACL_ERROR_FEATURE_UNSUPPORTED, 200006, "feature unsupported")                     \
    X(ACL_ERROR_PROF_MODULES_UNSUPPORTED, 200007, "profiling module unsupported")       \
    X(ACL_ERROR_STORAGE_OVER_LIMIT, 300000, "storage over limit")                       \
    X(ACL_ERROR_INTERNAL_ERROR, 500000, "internal error")                               \
    X(ACL_ERROR_FAILURE, 500001, "failure")                                             \
    X(ACL_ERROR_GE_FAILURE, 500002, "graph-engine failure")                             \
    X(ACL_ERROR_RT_FAILURE, 500003, "runtime failure")                                  \
    X(ACL_ERROR_DRV_FAILURE, 500004, "driver failure")                                  \
    X(ACL_ERROR_PROFILING_FAILURE, 500005, "profiling failure")                         \
    /* runtime */                                                                       \
    X(ACL_ERROR_RT_PARAM_INVALID, 107000, "runtime parameter invalid")                  \
    X(ACL_ERROR_RT_INVALID_DEVICEID, 107001, "invalid device id")                       \
    X(ACL_ERROR_RT_CONTEXT_NULL, 107002, "no current context")                          \
    X(ACL_ERROR_RT_STREAM_CONTEXT, 107003, "stream not in the current context")         \
    X(ACL_ERROR_RT_MODEL_CONTEXT, 107004, "model not in the current context")           \
    X(ACL_ERROR_RT_STREAM_MODEL, 107005, "stream not in the model")                     \
    X(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 107006, "event timestamp invalid")          \
    X(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, 107007, "event timestamp reversal")        \
    X(ACL_ERROR_RT_ADDR_UNALIGNED, 107008, "address not aligned")                       \
    X(ACL_ERROR_RT_FILE_OPEN, 107009, "file open failed")                               \
    X(ACL_ERROR_RT_FILE_WRITE, 107010, "file write failed")                             \
    X(ACL_ERROR_RT_STREAM_SUBSCRIBE, 107011, "stream subscribe error")                  \
    X(ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012, "thread not subscribed")                   \
    X(ACL_ERROR_RT_GROUP_NOT_SET, 107013, "group not set")                              \
    X(ACL_ERROR_RT_GROUP_NOT_CREATE, 107014, "group not created")                       \
    X(ACL_ERROR_RT_STREAM_NO_CB_REG, 107015, "stream has no callback thread")           \
    X(ACL_ERROR_RT_INVALID_MEMORY_TYPE, 107016, "invalid memory type")                  \
    X(ACL_ERROR_RT_INVALID_HANDLE, 107017, "invalid handle")                            \
    X(ACL_ERROR_RT_INVALID_MALLOC_TYPE, 107018, "invalid malloc type")                  \
    X(ACL_ERROR_RT_WAIT_TIMEOUT, 107019, "wait timed out")                              \
    X(ACL_ERROR_RT_TASK_TIMEOUT, 107020, "task timed out")                              \
    X(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021, "system parameter not set")             \
    X(ACL_ERROR_RT_DEVICE_TASK_ABORT, 107022, "device tasks aborted")                   \
    X(ACL_ERROR_RT_STREAM_ABORT, 107023, "stream aborted")                              \
    X(ACL_ERROR_RT_CAPTURE_DEPENDENCY, 107024, "capture dependency error")              \
    X(ACL_ERROR_RT_STREAM_UNJOINED, 107025, "stream not joined")                        \
    X(ACL_ERROR_RT_MODEL_CAPTURED, 107026, "model captured")                            \
    X(ACL_ERROR_RT_STREAM_CAPTURED, 107027, "stream captured")                          \
    X(ACL_ERROR_RT_EVENT_CAPTURED, 107028, "event captured")                            \
    X(ACL_ERROR_RT_STREAM_NOT_CAPTURED, 107029, "stream not captured")                  \
    X(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, 107030, "capture mode not supported")      \
    X(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, 107031, "implicit stream capture")          \
    X(ACL_ERROR_STREAM_CAPTURE_CONFLICT, 107032, "stream capture conflict")             \
    X(ACL_ERROR_STREAM_TASK_GROUP_STATUS, 107033, "task group status error")            \
    X(ACL_ERROR_STREAM_TASK_GROUP_INTR, 107034, "task group interrupted")               \
    X(ACL_ERROR_RT_TASK_ABORT_STOP, 107035, "task abort stopped")                       \
    X(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, 107036, "stream capture unmatched")        \
    X(ACL_ERROR_RT_MODEL_RUNNING, 107037, "model running")                              \
    X(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, 107038, "capture on wrong thread")      \
    X(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, 107039, "input array too small")           \
    X(ACL_ERROR_RT_MODEL_UPDATE_FAILED, 107040, "model update failed")                  \
    X(ACL_ERROR_RT_SYMBOL_NOT_FOUND, 107042, "symbol not found")                        \
    X(ACL_ERROR_RT_INVALID_SYMBOL, 107043, "invalid symbol")                            \
    X(ACL_ERROR_RT_INVALID_DEVICE_FUNCTION, 107044, "invalid device function")          \
    X(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, 107045, "sub graph is capturing")         \
    X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000, "runtime feature not supported")        \
    XA(ACL_ERROR_RT_FEATURE_NOT_SUPPROT, 207000)                                        \
    X(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001, "device memory allocation failed")        \
    X(ACL_ERROR_RT_MEMORY_FREE, 207002, "device memory free failed")                    \
    X(ACL_ERROR_RT_AICORE_OVER_FLOW, 207003, "AI core overflow")                        \
    X(ACL_ERROR_RT_NO_DEVICE, 207004, "no device")                                      \
    X(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, 207005, "resource allocation failed")           \
    X(ACL_ERROR_RT_NO_PERMISSION, 207006, "no permission")                              \
    X(ACL_ERROR_RT_NO_EVENT_RESOURCE, 207007, "no event resource")                      \
    X(ACL_ERROR_RT_NO_STREAM_RESOURCE, 207008, "no stream resource")                    \
    X(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, 207009, "no notify resource")                    \
    X(ACL_ERROR_RT_NO_MODEL_RESOURCE, 207010, "no model resource")                      \
    X(ACL_ERROR_RT_NO_CDQ_RESOURCE, 207011, "no CDQ resource")                          \
    X(ACL_ERROR_RT_OVER_LIMIT, 207012, "over limit")                                    \
    X(ACL_ERROR_RT_QUEUE_EMPTY, 207013, "queue empty")                                  \
    X(ACL_ERROR_RT_QUEUE_FULL, 207014, "queue full")                                    \
    X(ACL_ERROR_RT_REPEATED_INIT, 207015, "repeated init")                              \
    X(ACL_ERROR_RT_AIVEC_OVER_FLOW, 207016, "AI vector overflow")                       \
    X(ACL_ERROR_RT_OVER_FLOW, 207017, "overflow")                                       \
    X(ACL_ERROR_RT_DEVICE_OOM, 207018, "device out of memory")                          \
    XA(ACL_ERROR_RT_DEVIDE_OOM, 207018)                                                 \
    X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP, 207019, "op update not supported")    \
    X(ACL_ERROR_RT_TIMEOUT, 207020, "timeout")                                          \
    X(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, 207021, "link type not supported")          \
    X(ACL_ERROR_RT_INTERNAL_ERROR, 507000, "runtime internal error")                    \
    XA(ACL_ERROR_RT_INTERNEL_ERROR, 507000)                                             \
    X(ACL_ERROR_RT_TS_ERROR, 507001, "task scheduler error")                            \
    X(ACL_ERROR_RT_STREAM_TASK_FULL, 507002, "stream task queue full")                  \
    X(ACL_ERROR_RT_STREAM_TASK_EMPTY, 507003, "stream task queue empty")                \
    X(ACL_ERROR_RT_STREAM_NOT_COMPLETE, 507004, "stream not complete")                  \
    X(ACL_ERROR_RT_END_OF_SEQUENCE, 507005, "end of sequence")                          \
    X(ACL_ERROR_RT_EVENT_NOT_COMPLETE, 507006, "event not complete")                    \
    X(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007, "context release error")              \
    X(ACL_ERROR_RT_SOC_VERSION, 507008, "SoC version error")                            \
    X(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, 507009, "task type not supported")            \
    X(ACL_ERROR_RT_LOST_HEARTBEAT, 507010, "lost heartbeat")                            \
    X(ACL_ERROR_RT_MODEL_EXECUTE, 507011, "model execution failed")                     \
    X(ACL_ERROR_RT_REPORT_TIMEOUT, 507012, "report wait timed out")                     \
    X(ACL_ERROR_RT_SYS_DMA, 507013, "DMA error")                                        \
    X(ACL_ERROR_RT_AICORE_TIMEOUT, 507014, "AI core timeout")                           \
    X(ACL_ERROR_RT_AICORE_EXCEPTION, 507015, "AI core exception")                       \
    X(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, 507016, "AI core trap exception")             \
    X(ACL_ERROR_RT_AICPU_TIMEOUT, 507017, "AI CPU timeout")                             \
    X(ACL_ERROR_RT_AICPU_EXCEPTION, 507018, "AI CPU exception")                         \
    X(ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR, 507019, "AI CPU data dump response error")   \
    X(ACL_ERROR_RT_AICPU_MODEL_RSP_ERR, 507020, "AI CPU model response error")          \
    X(ACL_ERROR_RT_PROFILING_ERROR, 507021, "profiling error")                          \
    X(ACL_ERROR_RT_IPC_ERROR, 507022, "IPC error")                                      \
    X(ACL_ERROR_RT_MODEL_ABORT_NORMAL, 507023, "model aborted")                         \
    X(ACL_ERROR_RT_KERNEL_UNREGISTERING, 507024, "kernel unregistering")                \
    X(ACL_ERROR_RT_RINGBUFFER_NOT_INIT, 507025, "ring buffer not initialised")          \
    X(ACL_ERROR_RT_RINGBUFFER_NO_DATA, 507026, "ring buffer empty")                     \
    X(ACL_ERROR_RT_KERNEL_LOOKUP, 507027, "kernel lookup failed")                       \
    X(ACL_ERROR_RT_KERNEL_DUPLICATE, 507028, "kernel registered twice")                 \
    X(ACL_ERROR_RT_DEBUG_REGISTER_FAIL, 507029, "debug register failed")                \
    X(ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL, 507030, "debug unregister failed")            \
    X(ACL_ERROR_RT_LABEL_CONTEXT, 507031, "label context error")                        \
    X(ACL_ERROR_RT_PROGRAM_USE_OUT, 507032, "program slots used up")                    \
    X(ACL_ERROR_RT_DEV_SETUP_ERROR, 507033, "device setup error")                       \
    X(ACL_ERROR_RT_VECTOR_CORE_TIMEOUT, 507034, "vector core timeout")                  \
    X(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, 507035, "vector core exception")              \
    X(ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION, 507036, "vector core trap exception")    \
    X(ACL_ERROR_RT_CDQ_BATCH_ABNORMAL, 507037, "CDQ batch abnormal")                    \
    X(ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR, 507038, "die mode change error")              \
    X(ACL_ERROR_RT_DIE_SET_ERROR, 507039, "die set error")                              \
    X(ACL_ERROR_RT_INVALID_DIEID, 507040, "invalid die id")                             \
    X(ACL_ERROR_RT_DIE_MODE_NOT_SET, 507041, "die mode not set")                        \
    X(ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, 507042, "AI core read overflow")          \
    X(ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW, 507043, "AI core write overflow")        \
    X(ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW, 507044, "vector core read overflow") \
    X(ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW, 507045, "vector core write overflow") \
    X(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046, "stream synchronize timed out")         \
    X(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047, "event synchronize timed out")           \
    X(ACL_ERROR_RT_FFTS_PLUS_TIMEOUT, 507048, "FFTS+ timeout")                          \
    X(ACL_ERROR_RT_FFTS_PLUS_EXCEPTION, 507049, "FFTS+ exception")                      \
    X(ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION, 507050, "FFTS+ trap exception")            \
    X(ACL_ERROR_RT_SEND_MSG, 507051, "message send failed")                             \
    X(ACL_ERROR_RT_COPY_DATA, 507052, "data copy failed")                               \
    X(ACL_ERROR_RT_DEVICE_MEM_ERROR, 507053, "device memory error")                     \
    XA(ACL_ERROR_RT_DEVICE_MTE_ERROR, 507053)                                           \
    X(ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR, 507054, "HBM multi-bit ECC error")          \
    X(ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR, 507055, "suspected device memory error")   \
    X(ACL_ERROR_RT_LINK_ERROR, 507056, "link error")                                    \
    X(ACL_ERROR_RT_SUSPECT_REMOTE_ERROR, 507057, "suspected remote error")              \
    X(ACL_ERROR_RT_DRV_INTERNAL_ERROR, 507899, "driver internal error")                 \
    XA(ACL_ERROR_RT_DRV_INTERNEL_ERROR, 507899)                                         \
    X(ACL_ERROR_RT_AICPU_INTERNAL_ERROR, 507900, "AI CPU internal error")               \
    X(ACL_ERROR_RT_SOCKET_CLOSE, 507901, "socket closed")                               \
    X(ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR, 507902, "AI CPU info load response error")  \
    X(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, 507903, "stream capture invalidated")    \
    X(ACL_ERROR_RT_COMM_OP_RETRY_FAIL, 507904, "communication op retry failed")         \
    X(ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT, 507905, "snapshot lock timed out")               \
    X(ACL_ERROR_SNAPSHOT_LOCK_FAILED, 507906, "snapshot lock failed")                   \
    X(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, 507907, "snapshot unlock failed")               \
    X(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, 507908, "snapshot backup failed")               \
    X(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, 507909, "snapshot restore failed")             \
    X(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 507910, "host memory already registered") \
    X(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, 507911, "host memory not registered")       \
    X(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, 507912, "snapshot callback failed")           \
    X(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED, 507913, "snapshot callback register failed") \
    X(ACL_ERROR_RT_L3_PORT_ERROR, 507914, "L3 port error")                              \
    X(ACL_ERROR_RT_CCU_TIMEOUT, 507915, "CCU timeout")                                  \
    X(ACL_ERROR_RT_CCU_EXCEPTION, 507916, "CCU exception")                              \
    /* graph engine */                                                                  \
    X(ACL_ERROR_GE_PARAM_INVALID, 145000, "GE parameter invalid")                       \
    X(ACL_ERROR_GE_EXEC_NOT_INIT, 145001, "GE executor not initialised")                \
    X(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID, 145002, "model path invalid")               \
    X(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, 145003, "model id invalid")                   \
    X(ACL_ERROR_GE_EXEC_MODEL_KEY_PATH_INVALID, 145004, "model key path invalid")       \
    X(ACL_ERROR_GE_EXEC_MODEL_NOT_SUPPORT_ENCRYPTION, 145005, "model encryption unsupported") \
    X(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, 145006, "model data size invalid")     \
    X(ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID, 145007, "model address invalid")            \
    X(ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID, 145008, "model queue id invalid")       \
    X(ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED, 145009, "model loaded twice")              \
    X(ACL_ERROR_GE_EXEC_MODEL_PARTITION_NUM_INVALID, 145010, "model partition count invalid") \
    X(ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID, 145011, "dynamic input address invalid") \
    X(ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, 145012, "dynamic input length invalid") \
    X(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, 145013, "dynamic batch size invalid")    \
    X(ACL_ERROR_GE_AIPP_BATCH_EMPTY, 145014, "AIPP batch empty")                        \
    X(ACL_ERROR_GE_AIPP_NOT_EXIST, 145015, "AIPP does not exist")                       \
    X(ACL_ERROR_GE_AIPP_MODE_INVALID, 145016, "AIPP mode invalid")                      \
    X(ACL_ERROR_GE_OP_TASK_TYPE_INVALID, 145017, "op task type invalid")                \
    X(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID, 145018, "op kernel type invalid")            \
    X(ACL_ERROR_GE_PLGMGR_PATH_INVALID, 145019, "plugin path invalid")                  \
    X(ACL_ERROR_GE_FORMAT_INVALID, 145020, "format invalid")                            \
    X(ACL_ERROR_GE_SHAPE_INVALID, 145021, "shape invalid")                              \
    X(ACL_ERROR_GE_DATATYPE_INVALID, 145022, "data type invalid")                       \
    X(ACL_ERROR_GE_MEMORY_ALLOCATION, 245000, "GE memory allocation failed")            \
    X(ACL_ERROR_GE_MEMORY_OPERATE_FAILED, 245001, "GE memory operation failed")         \
    X(ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED, 245002, "GE device memory operation failed") \
    X(ACL_ERROR_GE_SUBHEALTHY, 345102, "subhealthy")                                    \
    X(ACL_ERROR_GE_USER_RAISE_EXCEPTION, 345103, "user raised exception")               \
    X(ACL_ERROR_GE_DATA_NOT_ALIGNED, 345104, "data not aligned")                        \
    X(ACL_ERROR_GE_INTERNAL_ERROR, 545000, "GE internal error")                         \
    X(ACL_ERROR_GE_LOAD_MODEL, 545001, "model load failed")                             \
    X(ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED, 545002, "model partition load failed") \
    X(ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED, 545003, "weight partition load failed") \
    X(ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED, 545004, "task partition load failed") \
    X(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, 545005, "kernel partition load failed") \
    X(ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA, 545006, "model data release failed")        \
    X(ACL_ERROR_GE_COMMAND_HANDLE, 545007, "command handling failed")                   \
    X(ACL_ERROR_GE_GET_TENSOR_INFO, 545008, "tensor info query failed")                 \
    X(ACL_ERROR_GE_UNLOAD_MODEL, 545009, "model unload failed")                         \
    X(ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT, 545601, "model execution timed out")          \
    X(ACL_ERROR_GE_REDEPLOYING, 545602, "redeploying")

/* The header constants are `static const` objects in C, so the table
 * carries its own values; tests/api/test_error_table (generated from the
 * headers) checks that every declared code maps back to its name. */
const char *acl_err_name(int code)
{
#define OA_X_NAME(name, value, desc) case value: return #name;
#define OA_XA_SKIP(name, value)
    switch (code) {
        OA_ERROR_TABLE(OA_X_NAME, OA_XA_SKIP)
    default: return "UNKNOWN";
    }
#undef OA_X_NAME
}

const char *acl_err_desc(int code)
{
#define OA_X_DESC(name, value, desc) case value: return desc;
    switch (code) {
        OA_ERROR_TABLE(OA_X_DESC, OA_XA_SKIP)
    default: return "";
    }
#undef OA_X_DESC
#undef OA_XA_SKIP
}

/* ---- per-thread message ----
 * The text accumulates newest-first in `cur`; aclGetRecentErrMsg moves it to
 * `ret` (the pointer handed out, valid until the next call) and clears
 * `cur`. A pthread key frees both at thread exit. The text is capped so a
 * thread that never asks cannot grow without bound: past the cap the oldest
 * lines are dropped. */
#define OA_ERRMSG_CAP 16384

typedef struct err_tls {
    char *cur;
    size_t len;
    char *ret;
    int last_code;
} err_tls;

/* When memory is exhausted (the text buffer or the thread's record cannot
 * be allocated) the newest message still reaches the caller: it is kept in
 * fixed per-thread storage (older text is dropped). */
#define OA_ERRMSG_OOM 1152
static __thread char tl_oom_msg[OA_ERRMSG_OOM], tl_oom_ret[OA_ERRMSG_OOM];
static __thread int tl_oom_set;
static __thread int tl_quiet;   /* acl_err_quiet: failures expected and handled */

static pthread_key_t g_err_key;
static pthread_once_t g_err_once = PTHREAD_ONCE_INIT;
static __thread err_tls *tl_err;

static void err_tls_free(void *p)
{
    err_tls *t = p;
    if (!t) return;
    free(t->cur);
    free(t->ret);
    free(t);
    tl_err = NULL;
}

static void err_key_init(void) { pthread_key_create(&g_err_key, err_tls_free); }

static err_tls *err_get(void)
{
    if (tl_err) return tl_err;
    pthread_once(&g_err_once, err_key_init);
    err_tls *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    tl_err = t;
    pthread_setspecific(g_err_key, t);
    return t;
}

int acl_err_quiet(int on)
{
    int prev = tl_quiet;
    tl_quiet = on;
    return prev;
}

static void err_record(int code, const char *fmt, va_list ap, int level)
{
    if (tl_quiet) {
        /* an attempt the caller recovers from: debug log only, the thread's
         * message and last error stay as they were */
        if (acl_log_enabled(0)) {
            char line[1024];
            vsnprintf(line, sizeof(line), fmt, ap);
            acl_log(0, "(recovered) %s [%s %d]", line, acl_err_name(code), code);
        }
        return;
    }
    char line[1024];
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof(line)) n = (int)sizeof(line) - 1;
    char tail[96];
    int m = snprintf(tail, sizeof(tail), " [%s %d]", acl_err_name(code), code);
    if (m < 0) m = 0;
    if ((size_t)m >= sizeof(tail)) m = (int)sizeof(tail) - 1;
    acl_log(level, "%s%s", line, tail);

    err_tls *t = err_get();
    char *buf = NULL;
    size_t add = (size_t)n + (size_t)m, keep = 0;
    if (t) {
        t->last_code = code;
        keep = t->len;
        /* newest first: new line, then '\n', then the older text (trimmed) */
        if (add + 1 + keep > OA_ERRMSG_CAP) keep = add + 1 < OA_ERRMSG_CAP ? OA_ERRMSG_CAP - add - 1 : 0;
        buf = malloc(add + 1 + keep + 1);
    }
    if (!buf) {
        snprintf(tl_oom_msg, sizeof tl_oom_msg, "%.*s%.*s", n, line, m, tail);
        tl_oom_set = 1;
        return;
    }
    tl_oom_set = 0;   /* recorded normally: the text below supersedes it */
    memcpy(buf, line, (size_t)n);
    memcpy(buf + n, tail, (size_t)m);
    size_t pos = add;
    if (keep) {
        /* cut the older text at a line boundary */
        size_t k = keep;
        if (k < t->len)
            while (k > 0 && t->cur[k - 1] != '\n') k--;
        if (k > 0 && t->cur[k - 1] == '\n') k--;
        if (k) {
            buf[pos++] = '\n';
            memcpy(buf + pos, t->cur, k);
            pos += k;
        }
    }
    buf[pos] = '\0';
    free(t->cur);
    t->cur = buf;
    t->len = pos;
}

int acl_failv(int code, const char *fmt, va_list ap)
{
    err_record(code, fmt, ap, ACL_ERROR);
    return code;
}

int acl_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_record(code, fmt, ap, ACL_ERROR);
    va_end(ap);
    return code;
}

int acl_fail_quiet(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_record(code, fmt, ap, ACL_INFO);
    va_end(ap);
    return code;
}

char *acl_err_take(void)
{
    err_tls *t = tl_err;
    if (!t || !t->cur) return NULL;
    char *s = t->cur;
    t->cur = NULL;
    t->len = 0;
    return s;
}

int acl_last_error(int clear)
{
    err_tls *t = tl_err;
    if (!t) return 0;
    int c = t->last_code;
    if (clear) t->last_code = 0;
    return c;
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void)
{
    err_tls *t = err_get();
    if (tl_oom_set) {
        memcpy(tl_oom_ret, tl_oom_msg, sizeof tl_oom_ret);
        tl_oom_set = 0;
        if (t) {
            free(t->ret);
            free(t->cur);
            t->ret = t->cur = NULL;
            t->len = 0;
        }
        return tl_oom_ret;
    }
    if (!t) return NULL;
    free(t->ret);
    t->ret = t->cur;
    t->cur = NULL;
    t->len = 0;
    return t->ret;
}
