/* AscendCL runtime API (openacl): init/finalize, virtual devices, contexts,
 * streams, events, memory and host callbacks — the subset a model-execution
 * application uses. Names, values and signatures are CANN's (2026 layout:
 * aclInit/aclFinalize/aclGetRecentErrMsg/aclrtGetVersion live here).
 *
 * openacl runs on the CPU: a "device" is a virtual device with its own
 * memory budget and thread budget (see docs/config.md); device memory is
 * host memory tracked per device; each stream is an ordered task queue with
 * its own worker thread. Thread rules are written per function below and
 * summarised in docs/threading.md. Common rules:
 *  - Every call returns an aclError and, on failure, leaves a message for
 *    aclGetRecentErrMsg() on the calling thread.
 *  - Calls other than aclInit / aclGetRecentErrMsg / version queries need
 *    aclInit() first (else ACL_ERROR_UNINITIALIZE).
 *  - Handles (contexts, streams, events) are checked against a registry of
 *    live objects: using a destroyed handle is an error, not a crash.
 *  - The "current context" is per thread. aclrtSetDevice / aclrtCreateContext /
 *    aclrtSetCurrentContext set it; a new thread has none.
 *  - A NULL aclrtStream means the default stream of the current context. */
#ifndef INC_EXTERNAL_ACL_ACL_RT_H_
#define INC_EXTERNAL_ACL_ACL_RT_H_

#include <stdint.h>
#include <stddef.h>
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/* ---- flags ---- */
#define ACL_EVENT_SYNC                   0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE              0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY        0x00000010U
#define ACL_EVENT_EXTERNAL               0x00000020U
#define ACL_EVENT_IPC                    0x00000040U

#define ACL_STREAM_FAST_LAUNCH      0x00000001U
#define ACL_STREAM_FAST_SYNC        0x00000002U
#define ACL_STREAM_PERSISTENT       0x00000004U
#define ACL_STREAM_HUGE             0x00000008U
#define ACL_STREAM_CPU_SCHEDULE     0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY  0x00000020U

#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE     0x00000001U

/* aclrtGetDeviceCapability answers */
#define ACL_DEV_FEATURE_SUPPORT     0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

/* ---- enums ---- */
typedef enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;

typedef enum aclrtTsId {
    ACL_TS_ID_AICORE = 0,
    ACL_TS_ID_AIVECTOR = 1,
    ACL_TS_ID_RESERVED = 2
} aclrtTsId;

typedef enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
    ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
    ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
    ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF
} aclrtEventWaitStatus;

typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
    ACL_CALLBACK_NO_BLOCK = 0,
    ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {
    ACL_DDR_MEM = 0,
    ACL_HBM_MEM = 1,
    ACL_DDR_MEM_HUGE = 2,
    ACL_DDR_MEM_NORMAL = 3,
    ACL_HBM_MEM_HUGE = 4,
    ACL_HBM_MEM_NORMAL = 5,
    ACL_DDR_MEM_P2P_HUGE = 6,
    ACL_DDR_MEM_P2P_NORMAL = 7,
    ACL_HBM_MEM_P2P_HUGE = 8,
    ACL_HBM_MEM_P2P_NORMAL = 9,
    ACL_HBM_MEM_HUGE1G = 10,
    ACL_HBM_MEM_P2P_HUGE1G = 11,
    ACL_MEM_NORMAL = 12,
    ACL_MEM_HUGE = 13,
    ACL_MEM_HUGE1G = 14,
    ACL_MEM_P2P_NORMAL = 15,
    ACL_MEM_P2P_HUGE = 16,
    ACL_MEM_P2P_HUGE1G = 17
} aclrtMemAttr;

typedef enum aclrtGroupAttr {
    ACL_GROUP_AICORE_INT = 0,
    ACL_GROUP_AIV_INT = 1,
    ACL_GROUP_AIC_INT = 2,
    ACL_GROUP_SDMANUM_INT = 3,
    ACL_GROUP_ASQNUM_INT = 4,
    ACL_GROUP_GROUPID_INT = 5
} aclrtGroupAttr;

typedef enum aclrtFloatOverflowMode {
    ACL_RT_OVERFLOW_MODE_SATURATION = 0,
    ACL_RT_OVERFLOW_MODE_INFNAN = 1,
    ACL_RT_OVERFLOW_MODE_UNDEF = 2
} aclrtFloatOverflowMode;

typedef enum aclrtStreamConfigAttr {
    ACL_RT_STREAM_WORK_ADDR_PTR = 0,
    ACL_RT_STREAM_WORK_SIZE = 1,
    ACL_RT_STREAM_FLAG = 2,
    ACL_RT_STREAM_PRIORITY = 3
} aclrtStreamConfigAttr;

typedef enum aclrtDeviceStatus {
    ACL_RT_DEVICE_STATUS_NORMAL = 0,
    ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
    ACL_RT_DEVICE_STATUS_END = 0xFFFF
} aclrtDeviceStatus;

typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0
} aclrtLastErrLevel;

typedef enum aclCANNPackageName {
    ACL_PKG_NAME_CANN = 0,
    ACL_PKG_NAME_RUNTIME = 1,
    ACL_PKG_NAME_COMPILER = 2,
    ACL_PKG_NAME_HCCL = 3,
    ACL_PKG_NAME_TOOLKIT = 4,
    ACL_PKG_NAME_OPP = 5,
    ACL_PKG_NAME_OPP_KERNEL = 6,
    ACL_PKG_NAME_DRIVER = 7
} aclCANNPackageName;

typedef struct aclCANNPackageVersion {
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

/* aclrtHostRegister */
typedef enum {
    ACL_HOST_REGISTER_MAPPED = 0,
    ACL_HOST_REGISTER_IOMEMORY = 0x04,
    ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;

/* aclrtMallocWithCfg / aclrtMallocHostWithCfg: a list of attributes */
typedef enum {
    ACL_RT_MEM_ATTR_RSV = 0,
    ACL_RT_MEM_ATTR_MODULE_ID = 1,
    ACL_RT_MEM_ATTR_DEVICE_ID = 2,
    ACL_RT_MEM_ATTR_VA_FLAG = 3
} aclrtMallocAttrType;

typedef union {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct {
    aclrtMallocAttrType attr;
    aclrtMallocAttrValue value;
} aclrtMallocAttribute;

typedef struct {
    aclrtMallocAttribute *attrs;
    size_t numAttrs;
} aclrtMallocConfig;

/* aclrtPointerGetAttributes */
typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE = 1,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
    ACL_MEM_LOCATION_TYPE_MANAGED = 3,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
    uint32_t id;
    aclrtMemLocationType type;
} aclrtMemLocation;

typedef struct aclrtPtrAttributes {
    aclrtMemLocation location;
    uint32_t pageSize;
    uint32_t rsv[4];
} aclrtPtrAttributes;

/* aclrtGetDeviceUtilizationRate */
typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;
typedef struct aclrtUtilizationInfo {
    int32_t cubeUtilization;
    int32_t vectorUtilization;
    int32_t aicpuUtilization;
    int32_t memoryUtilization;
    aclrtUtilizationExtendInfo *utilizationExtend;
} aclrtUtilizationInfo;

/* AI Core groups (aclrtSetGroup and friends) */
typedef struct tagRtGroupInfo aclrtGroupInfo;

/* aclrtGetDeviceInfo */
typedef enum {
    ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
    ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
    ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
    ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
    ACL_DEV_ATTR_WARP_SIZE = 202,
    ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
    ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
    ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
    ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
    ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
    ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
    ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
    ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
    ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
    ACL_DEV_ATTR_SMP_ID = 401,
    ACL_DEV_ATTR_PHY_CHIP_ID = 402,
    ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403,
    ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404,
    ACL_DEV_ATTR_SUPER_POD_ID = 405,
    ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406,
    ACL_DEV_ATTR_MAINBOARD_ID = 407,
    ACL_DEV_ATTR_HD_CONNECT_TYPE = 408,
    ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409,
    ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID = 410,
    ACL_DEV_ATTR_IS_VIRTUAL = 501,
    ACL_DEV_ATTR_NPU_ARCH = 601
} aclrtDevAttr;

/* aclrtGetDeviceCapability */
typedef enum {
    ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
    ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21
} aclrtDevFeatureType;

/* aclrtSetStreamAttribute / aclrtGetStreamAttribute */
typedef enum {
    ACL_STREAM_ATTR_FAILURE_MODE = 1,
    ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
    ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3,
    ACL_STREAM_ATTR_CACHE_OP_INFO = 4,
    ACL_STREAM_ATTR_PRIORITY = 5
} aclrtStreamAttr;

typedef union {
    uint64_t failureMode;
    uint32_t overflowSwitch;
    uint32_t userCustomTag;
    uint32_t cacheOpInfoSwitch;
    uint32_t streamPriority;
    uint32_t reserve[4];
} aclrtStreamAttrValue;

/* Virtual-memory management (aclrtReserveMemAddress and friends) */
typedef enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
    ACL_MEM_HANDLE_TYPE_POSIX = 2
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {
    aclrtMemHandleType handleType;
    aclrtMemAllocationType allocationType;
    aclrtMemAttr memAttr;
    aclrtMemLocation location;
    uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF
} aclrtMemGranularityOptions;

typedef void *aclrtDrvMemHandle;

/* aclrtGetMemUsageInfo: one entry per component */
typedef struct aclrtMemUsageInfo {
    char name[32];
    uint64_t curMemSize;
    uint64_t memPeakSize;
    size_t reserved[8];
} aclrtMemUsageInfo;

/* aclrtDeviceGetUuid */
typedef struct aclrtUuid {
    char bytes[16];
} aclrtUuid;

typedef struct rtExceptionInfo aclrtExceptionInfo;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);
typedef void (*aclrtHostFunc)(void *args);

/* ======================= init / version / errors ======================= */

/* Initialises openacl. configPath: NULL, or a JSON file (keys in
 * docs/config.md; "{}" is valid; nesting deeper than 10 or bad JSON →
 * ACL_ERROR_PARSE_FILE, unreadable file → ACL_ERROR_INVALID_FILE).
 * Reference counted: a call while initialised increments the count and
 * returns ACL_ERROR_REPEAT_INITIALIZE (callers should tolerate it); only the
 * first call's configuration applies. Thread-safe. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/* Tears everything down whatever the init count: runs the finalize hooks of
 * other layers (models are unloaded), then waits for and destroys every
 * stream, event, context and device, and frees all device and pinned host
 * memory. Every handle and pointer obtained from openacl becomes invalid.
 * Must not race with other ACL calls: no other thread may be inside an ACL
 * call. Again after finalisation → ACL_ERROR_REPEAT_FINALIZE. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* Decrements the init count, finalising for real when it reaches 0.
 * refCount (may be NULL) receives the remaining count. With count 0 →
 * ACL_ERROR_REPEAT_FINALIZE. Same thread rule as aclFinalize when it
 * finalises. */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

/* Returns and clears the calling thread's accumulated error text (newest
 * message first), or NULL when there is none. The string belongs to the
 * thread and stays valid until its next aclGetRecentErrMsg call or until the
 * thread exits. Works without aclInit. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* ACL API version (1.17.0). Works without aclInit. Thread-safe. */
ACL_DEPRECATED_MESSAGE("aclrtGetVersion is deprecated, use aclsysGetVersionStr or aclsysGetVersionNum instead")
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

/* Version of a "package"; openacl reports its own version for every name.
 * Works without aclInit. */
ACL_DEPRECATED_MESSAGE("aclsysGetCANNVersion is deprecated, use aclsysGetVersionStr instead")
ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version);

/* Version string of package pkgName ("runtime", "cann", "compiler", "opp",
 * "toolkit", "driver", "firmware", "openacl"; others → ACL_ERROR_INVALID_PARAM)
 * into versionStr, which must hold ACL_PKG_VERSION_MAX_SIZE bytes. */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);

/* Numeric form of the same version: major*10000000 + minor*100000 +
 * patch*1000 + 999 (a release, which sorts after alpha/beta/rc). */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

/* ============================== devices ============================== */

/* Binds the calling thread to deviceId (0 .. count-1): creates the device's
 * default context and default stream on first use and makes that context
 * current for this thread. Each call increments the device's reference
 * count. Thread-safe. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);

/* Decrements the reference count; at 0 waits for the default context's
 * streams, then releases them and the default context. Explicit contexts,
 * streams and events should be destroyed first (they are released at
 * aclFinalize otherwise). Threads whose current context was the default
 * context have no current context afterwards. Thread-safe. */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/* Like aclrtResetDevice, but resets whatever the reference count. */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);

/* Device of the calling thread's current context (ACL_ERROR_RT_CONTEXT_NULL if none). */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);

/* Number of virtual devices (config "device_count"). */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);

/* Always ACL_HOST. */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);

/* Accepts ACL_TS_ID_AICORE and ACL_TS_ID_AIVECTOR (no effect on the CPU);
 * other values → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId);

/* Blocks until every stream of the current device has drained; reports the
 * first pending asynchronous failure of those streams (and clears it). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/* timeout in ms; -1 = forever; < -1 → ACL_ERROR_RT_PARAM_INVALID; expiry →
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);

/* NORMAL for every configured device. */
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);

/* Float overflow mode of the current device (recorded; kernels compute IEEE). */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);

/* One value of device deviceId: the core counts (AI Core, Cube, Vector) are
 * the device's thread budget, AI CPU cores 0, TOTAL_GLOBAL_MEM_SIZE the
 * device's memory budget, L2_CACHE_SIZE the host's L2, SMP_ID 0 (every
 * device lives in this process's OS), PHY_CHIP_ID = deviceId, IS_VIRTUAL 0.
 * Attributes of the AI Core's programming model (warps, grids, unified
 * buffer) and of server topology → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);

/* Every pair of distinct devices can reach each other's memory (it is all
 * host memory): *canAccessPeer = 1. deviceId == peerDeviceId is an error. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);
/* Enables / disables the current device's access to peerDeviceId (recorded
 * per device pair; flags must be 0; both are idempotent). Copies between
 * devices work either way. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
/* *status = 1 when deviceId has enabled access to peerDeviceId, else 0. */
ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status);

/* Streams have a single priority: least = greatest = 0. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority);
/* ACL_DEV_FEATURE_NOT_SUPPORT for every aclrtDevFeatureType. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                                      int32_t *value);

/* User, logical and physical device ids are the same numbers in openacl
 * (there is no ASCEND_RT_VISIBLE_DEVICES remapping); each call checks the id. */
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid);
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId);

/* A UUID stable for the device number within a host (RFC 4122 version 5
 * layout over the host name and the id). */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);

/* Not measured by openacl → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo);
/* Overflow detection of the AI Core's saturation mode → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream);

/* Operator timeouts, in seconds (WithMs: milliseconds); 0 = none. Recorded
 * per process: openacl's operators run to completion on the CPU and are
 * never aborted, and event waits are bounded by the *WithTimeout calls. */
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);

/* AI Core groups: openacl devices have none. aclrtGetGroupCount → 0;
 * aclrtSetGroup and aclrtGetGroupInfoDetail name a group that does not
 * exist → ACL_ERROR_INVALID_PARAM. aclrtCreateGroupInfo returns an empty
 * list the caller releases with aclrtDestroyGroupInfo (NULL: no-op). */
ACL_FUNC_VISIBILITY aclError aclrtSetGroup(int32_t groupId);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclrtGroupInfo *aclrtCreateGroupInfo(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                                     aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                                     size_t *paramRetSize);

/* ============================== contexts ============================== */

/* Creates an explicit context on deviceId (which counts as a use of the
 * device, like aclrtSetDevice), with its own default stream, and makes it
 * current for the calling thread. The caller owns it: aclrtDestroyContext. */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);

/* Destroys an explicit context: waits for and destroys its streams. The
 * default context of a device cannot be destroyed (ACL_ERROR_INVALID_PARAM).
 * Threads that had it current have no current context afterwards. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);

/* Makes context current for the calling thread (and switches the thread's
 * device to the context's device). Other threads are unaffected. */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);

/* The calling thread's current context (ACL_ERROR_RT_CONTEXT_NULL if none). */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* The default stream of the current context (a handle usable wherever a
 * stream is; it must not be destroyed). */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);

/* ============================== streams ==============================
 * A stream runs its tasks one after another, in the order they were
 * enqueued, on its own worker thread; tasks of different streams run
 * concurrently. Enqueuing onto one stream from several threads is safe; the
 * order between threads is the order in which their calls took the stream's
 * lock. A task that fails makes the stream's error sticky: later tasks still
 * run (ACL_CONTINUE_ON_FAILURE, the default) or are discarded
 * (ACL_STOP_ON_FAILURE); the next synchronize of that stream returns the
 * failing task's code with a message, and clears it. */

/* Creates a stream in the current context; the caller owns it. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);

/* priority is ignored; flag = OR of ACL_STREAM_* (recorded; FAST_SYNC makes
 * synchronize spin longer before sleeping). */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);

/* Waits for the stream's pending tasks, then destroys it. The default stream
 * cannot be destroyed. No other thread may enqueue onto it meanwhile. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

/* Discards pending tasks (a running task is allowed to finish), then destroys. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);

/* Blocks until every task enqueued before the call has completed (including
 * host callbacks). Returns the stream's sticky error if a task failed. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/* timeout ms: -1 = forever, > 0 = limit, 0 and < -1 → ACL_ERROR_RT_PARAM_INVALID;
 * expiry → ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (the tasks keep running). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);

/* aclrtStreamWaitEvent with a limit: timeout in ms (-1 = none; 0 and < -1
 * → ACL_ERROR_RT_PARAM_INVALID). When the record has not run within the
 * limit the wait task fails with ACL_ERROR_RT_WAIT_TIMEOUT, reported like
 * any failed task (next synchronize, exception callbacks) and the stream
 * goes on. */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout);

/* Later tasks of stream wait until the most recent record of event
 * (enqueued before this call) has completed; the event may belong to another
 * device. If the event has never been recorded there is nothing to wait for.
 * event needs ACL_EVENT_SYNC (events from aclrtCreateEvent have it). */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* COMPLETE when no task is pending or running. */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);

/* ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);

/* The stream's id (the number exception info reports). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
/* Priority: always 0 (see aclrtDeviceGetStreamPriorityRange). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
/* The flag given to aclrtCreateStreamWithConfig (0 for other streams). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
/* ACL_STREAM_ATTR_FAILURE_MODE (as aclrtSetStreamFailureMode) and
 * ACL_STREAM_ATTR_PRIORITY (0 only) are supported; the AI Core's overflow
 * check, custom tags and op-info caching → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value);

/* ============================== events ==============================
 * An event belongs to the device of the context current at creation. It
 * records a point in a stream: it completes when every task enqueued before
 * the record has run. Events may be queried/synchronised from any thread. */

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);

/* flag = OR of ACL_EVENT_* (ACL_EVENT_EXTERNAL must be alone; unknown bits
 * → ACL_ERROR_INVALID_PARAM). aclrtCreateEvent = ACL_EVENT_SYNC |
 * ACL_EVENT_TIME_LINE. Timestamps are recorded for every event. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);

ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);

/* Destroys event; a record still pending on a stream completes harmlessly. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);

/* Enqueues a record of event on stream (same device). Re-recording replaces
 * the previous record. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);

/* Enqueues a reset: when it runs, the event becomes not-recorded. Needs
 * ACL_EVENT_SYNC. */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);

/* Deprecated: COMPLETE when the latest record has run (or there was none). */
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);

/* COMPLETE when the latest record has run; NOT_READY when pending or never recorded. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);

/* COMPLETE when every stream wait on this event has been satisfied. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);

/* Blocks until the latest record has run (returns at once if never recorded). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);

/* timeout ms; -1 = forever; < -1 → ACL_ERROR_RT_PARAM_INVALID; expiry → ACL_ERROR_RT_EVENT_SYNC_TIMEOUT. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);

/* Milliseconds between two completed records. Either not completed →
 * ACL_ERROR_RT_EVENT_NOT_COMPLETE. */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

/* A number identifying the event (unique among the events of the process). */
ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);

/* When the latest record ran, in microseconds of CLOCK_MONOTONIC. Not
 * completed → ACL_ERROR_RT_EVENT_NOT_COMPLETE. */
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);

/* ============================== memory ==============================
 * Device memory is host RAM counted against the current device's capacity
 * (config "device_memory"). Allocations: start 128-byte aligned, size
 * rounded up to 32 plus 32 bytes of padding (Align32: no padding). Every
 * allocation is registered, so copies are checked against the allocation
 * they touch and frees of unknown pointers are refused. Allocation and free
 * are thread-safe; freeing memory still used by a pending task is the
 * caller's error (synchronize first). */

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* Coherent on the CPU: they only check that [devPtr, devPtr+size) is device memory. */
ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void *devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void *devPtr, size_t size);
/* Frees memory from aclrtMalloc* (or runtime-allocated model outputs).
 * Unknown pointer → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);

/* aclrtMalloc with a configuration (cfg may be NULL; numAttrs > 0 needs
 * attrs). ACL_RT_MEM_ATTR_DEVICE_ID allocates on that device instead of the
 * current one; MODULE_ID and VA_FLAG are accepted (one address space: host
 * and device addresses are the same anyway); RSV and unknown types →
 * ACL_ERROR_INVALID_PARAM. Free with aclrtFree. */
ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                aclrtMallocConfig *cfg);
/* aclrtFree after waiting for every stream of the current device. */
ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr);

/* "Page-locked" host memory (registered host RAM, not counted against a
 * device). The device reaches it: it may stand on either side of any copy. */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/* aclrtMallocHost with a configuration: the same attribute rules as
 * aclrtMallocWithCfg (DEVICE_ID is checked, host memory belongs to no device). */
ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);
/* aclrtFreeHost after waiting for every stream of the current device. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr);

/* Makes the caller's host memory [ptr, ptr+size) page-locked memory of the
 * runtime: copies accept it on the device side, and *devPtr (the address the
 * device uses) is ptr itself. Only ACL_HOST_REGISTER_MAPPED is supported.
 * The range must not overlap memory openacl allocated or registered. The
 * caller keeps ownership: aclrtHostUnregister(ptr) ends the registration
 * (aclrtFreeHost refuses it) and the memory must outlive it. */
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr);

/* Where ptr lives: DEVICE (id = device) for aclrtMalloc* / acldvppMalloc
 * memory, HOST for aclrtMallocHost or registered memory, UNREGISTERED for
 * anything else; pageSize is the host's page size. */
ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);

/* Synchronous copy of count bytes. count > destMax → ACL_ERROR_INVALID_PARAM;
 * count 0 → success. As in current CANN the kind is advisory and the
 * direction follows from the addresses: device memory (aclrtMalloc*,
 * acldvppMalloc) and page-locked host memory (aclrtMallocHost,
 * aclrtHostRegister) may stand on either side of any kind; ordinary host
 * memory where the kind names device memory is refused (the device cannot
 * reach it). A copy running past the end of the allocation it starts in is
 * refused. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);

/* Enqueues the copy on stream. dst and src must be 64-byte aligned. The
 * memory must stay valid until the copy has run (synchronize the stream). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);

/* Fills count bytes with (unsigned char)value; count > maxCount → error. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

/* Strided copy of height rows of width bytes; width must not exceed either pitch. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                size_t width, size_t height, aclrtMemcpyKind kind,
                                                aclrtStream stream);

/* Device memory by component: "user" (aclrtMalloc* and acldvppMalloc),
 * "weights" (loaded models' weights), "workspace" (models' activation
 * arenas) and "io" (runtime-allocated model inputs/outputs), in that order;
 * curMemSize and memPeakSize (since aclInit) in bytes, counted as
 * aclrtGetMemInfo counts them. Fills min(inputNum, 4) entries, *outputNum =
 * how many it filled. */
ACL_FUNC_VISIBILITY aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                                                  size_t *outputNum);

/* Virtual-memory management (reserve an address range, allocate physical
 * memory, map one onto the other): not supported by openacl yet, each
 * returns ACL_ERROR_FEATURE_UNSUPPORTED with a message. Allocate with
 * aclrtMalloc instead. */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                         uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option, size_t *granularity);

/* Free/total bytes of the current device. DDR/HBM/normal classes (and the
 * 2026 automatic classes) report the device pool; huge-page classes report
 * the same pool too (openacl has one pool); P2P and 1G classes → 0/0. */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/* ========================== host callbacks ==========================
 * Protocol: a thread loops on aclrtProcessReport; aclrtSubscribeReport binds
 * it to a stream; aclrtLaunchCallback enqueues fn; when the stream reaches
 * it, fn(userData) runs on the subscribed thread inside aclrtProcessReport.
 * Callbacks must not synchronize, allocate/free, or enqueue onto the stream
 * that runs them (that would deadlock with BLOCK callbacks). */

/* threadId: the pthread_t (as uint64_t) of the thread that will call
 * aclrtProcessReport. A stream has at most one thread
 * (ACL_ERROR_RT_STREAM_SUBSCRIBE otherwise); a thread serves streams of
 * one device only. */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);

/* Enqueues fn(userData). ACL_CALLBACK_BLOCK: later tasks wait until fn has
 * returned; NO_BLOCK: they may proceed once fn has been handed over. Either
 * way aclrtSynchronizeStream returns only after fn has run. A stream without
 * a subscribed thread → ACL_ERROR_RT_STREAM_NO_CB_REG. userData must stay
 * valid until fn runs. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);

/* Waits up to timeout ms (-1 forever; 0 or < -1 → ACL_ERROR_INVALID_PARAM)
 * for callbacks of the streams subscribed to the calling thread and runs the
 * ones that are due. No subscription → ACL_ERROR_RT_THREAD_SUBSCRIBE;
 * nothing due in time → ACL_ERROR_RT_REPORT_TIMEOUT. */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);

/* Detaches threadId from stream; callbacks still pending are discarded
 * (synchronize first). */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/* Enqueues fn(args) to run on the stream's worker thread (no subscription
 * needed); always blocks later tasks of the stream until fn returns. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);

/* ============================ exceptions ============================ */

/* Process-wide callback called (on the stream's worker thread) when an
 * asynchronous task fails; NULL unregisters. The info is valid only during
 * the call. */
ACL_DEPRECATED_MESSAGE("aclrtSetExceptionInfoCallback is deprecated, use aclrtExceptionInfoCallbackRegister instead")
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);

/* Adds callback to the set called on a failed asynchronous task (after the
 * one of aclrtSetExceptionInfoCallback); registering it again is a no-op;
 * at most 32 callbacks (more → ACL_ERROR_INVALID_PARAM). Unregister of a
 * callback not registered is a no-op; it does not wait for a call already
 * running. */
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);

/* Getters of the info passed to the exception callback; 0xFFFFFFFF for NULL. */
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);

/* The calling thread's last error code from a failed ACL call: Get clears
 * it, Peek does not. Level must be ACL_RT_THREAD_LEVEL. */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);

#ifdef __cplusplus
}
#endif
#endif /* INC_EXTERNAL_ACL_ACL_RT_H_ */
