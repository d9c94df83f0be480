/* Device queries and settings beyond set/reset (rt_state.c): device
 * attributes, peer access between virtual devices, device-id mappings,
 * UUIDs, operator timeouts and AI Core groups (which openacl's devices do
 * not have). The AI Core features with no CPU counterpart answer
 * ACL_ERROR_FEATURE_UNSUPPORTED (OA_UNSUPPORTED). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/unsupported.h"
#include "rt/rt_priv.h"

static int check_dev(const char *api, const char *which, int64_t id)
{
    if (id < 0 || id >= g_rt.cfg.device_count)
        return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: %s %lld out of range [0, %d)", api, which, (long long)id,
                        g_rt.cfg.device_count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    static const char api[] = "aclrtGetDeviceInfo";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((rc = check_dev(api, "deviceId", deviceId))) return rc;
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: value is NULL", api);
    switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = 0; return ACL_SUCCESS;
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = g_rt.cfg.threads; return ACL_SUCCESS;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = (int64_t)g_rt.cfg.device_memory; return ACL_SUCCESS;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: {
        long l = sysconf(_SC_LEVEL2_CACHE_SIZE);
        *value = l > 0 ? l : 0;
        return ACL_SUCCESS;
    }
    case ACL_DEV_ATTR_SMP_ID: *value = 0; return ACL_SUCCESS;
    case ACL_DEV_ATTR_PHY_CHIP_ID: *value = deviceId; return ACL_SUCCESS;
    case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; return ACL_SUCCESS;
    case ACL_DEV_ATTR_WARP_SIZE:
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_MAX_GRID_DIM_X:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
    case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
    case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
    case ACL_DEV_ATTR_SUPER_POD_ID:
    case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
    case ACL_DEV_ATTR_MAINBOARD_ID:
    case ACL_DEV_ATTR_HD_CONNECT_TYPE:
    case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
    case ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID:
    case ACL_DEV_ATTR_NPU_ARCH:
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                        "%s: attr %d describes the AI Core or server hardware; not supported by openacl (CPU runtime)",
                        api, (int)attr);
    default: return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attr %d is not an aclrtDevAttr", api, (int)attr);
    }
}

/* ------------------------------------------------------------ peer access */

ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    static const char api[] = "aclrtDeviceCanAccessPeer";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!canAccessPeer) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: canAccessPeer is NULL", api);
    if ((rc = check_dev(api, "deviceId", deviceId)) || (rc = check_dev(api, "peerDeviceId", peerDeviceId))) return rc;
    if (deviceId == peerDeviceId)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: deviceId and peerDeviceId are both %d", api, (int)deviceId);
    *canAccessPeer = 1;
    return ACL_SUCCESS;
}

static aclError peer_set(const char *api, int32_t peer, int enable)
{
    int32_t dev = 0;
    int rc = rt_current_device(api, &dev);
    if (rc) return rc;
    if ((rc = check_dev(api, "peerDeviceId", peer))) return rc;
    if (peer == dev)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: peerDeviceId %d is the current device", api, (int)peer);
    pthread_rwlock_wrlock(&g_rt.lock);
    if (enable)
        g_rt.devs[dev].peer_enabled |= 1ull << peer;
    else
        g_rt.devs[dev].peer_enabled &= ~(1ull << peer);
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    static const char api[] = "aclrtDeviceEnablePeerAccess";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (flags != 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: flags 0x%x must be 0", api, flags);
    return peer_set(api, peerDeviceId, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    static const char api[] = "aclrtDeviceDisablePeerAccess";
    int rc = rt_check_init(api);
    if (rc) return rc;
    return peer_set(api, peerDeviceId, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    static const char api[] = "aclrtDevicePeerAccessStatus";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((rc = check_dev(api, "deviceId", deviceId)) || (rc = check_dev(api, "peerDeviceId", peerDeviceId))) return rc;
    if (!status) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: status is NULL", api);
    pthread_rwlock_rdlock(&g_rt.lock);
    *status = (g_rt.devs[deviceId].peer_enabled >> peerDeviceId) & 1;
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------- simple queries */

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    static const char api[] = "aclrtDeviceGetStreamPriorityRange";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!leastPriority || !greatestPriority)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api,
                        !leastPriority ? "leastPriority" : "greatestPriority");
    *leastPriority = 0;
    *greatestPriority = 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                                      int32_t *value)
{
    static const char api[] = "aclrtGetDeviceCapability";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((rc = check_dev(api, "deviceId", deviceId))) return rc;
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: value is NULL", api);
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devFeatureType %d is not an aclrtDevFeatureType", api,
                        (int)devFeatureType);
    *value = ACL_DEV_FEATURE_NOT_SUPPORT;
    return ACL_SUCCESS;
}

static aclError same_id(const char *api, const char *from, int32_t id, const char *to, int32_t *out)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, to);
    if ((rc = check_dev(api, from, id))) return rc;
    *out = id;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    return same_id("aclrtGetLogicDevIdByUserDevId", "userDevid", userDevid, "logicDevId", logicDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    return same_id("aclrtGetUserDevIdByLogicDevId", "logicDevId", logicDevId, "userDevid", userDevid);
}

ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    return same_id("aclrtGetLogicDevIdByPhyDevId", "phyDevId", phyDevId, "logicDevId", logicDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    return same_id("aclrtGetPhyDevIdByLogicDevId", "logicDevId", logicDevId, "phyDevId", phyDevId);
}

/* FNV-1a, twice with different seeds, over the host name and the id: 16
 * bytes that differ between devices and hosts and stay the same across runs. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    static const char api[] = "aclrtDeviceGetUuid";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((rc = check_dev(api, "deviceId", deviceId))) return rc;
    if (!uuid) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: uuid is NULL", api);
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = 0;
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    for (int k = 0; k < 2; k++) {
        for (const char *c = host; *c; c++) h[k] = (h[k] ^ (unsigned char)*c) * 0x100000001b3ull;
        for (int b = 0; b < 4; b++) h[k] = (h[k] ^ ((uint32_t)deviceId >> (8 * b) & 0xFF)) * 0x100000001b3ull;
    }
    unsigned char out[16];
    memcpy(out, h, 16);
    out[6] = (unsigned char)((out[6] & 0x0F) | 0x50); /* version 5 layout */
    out[8] = (unsigned char)((out[8] & 0x3F) | 0x80); /* RFC 4122 variant */
    memcpy(uuid->bytes, out, 16);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    return OA_UNSUPPORTED(aclrtGetDeviceUtilizationRate);
}

ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtGetOverflowStatus);
}

ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtResetOverflowStatus);
}

/* ------------------------------------------------------- operator timeouts */

/* Recorded for the process (see acl_rt.h): nothing on the CPU aborts. */
static _Atomic uint32_t g_op_wait_s, g_op_exec_ms;

ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    int rc = rt_check_init("aclrtSetOpWaitTimeout");
    if (rc) return rc;
    atomic_store(&g_op_wait_s, timeout);
    acl_log(ACL_INFO, "aclrtSetOpWaitTimeout: %u s recorded", timeout);
    return ACL_SUCCESS;
}

static aclError exec_timeout(const char *api, uint32_t ms)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    atomic_store(&g_op_exec_ms, ms);
    acl_log(ACL_INFO, "%s: %u ms recorded (operators are not aborted on the CPU)", api, ms);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    if (timeout > UINT32_MAX / 1000)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetOpExecuteTimeOut: timeout %u s is too large", timeout);
    return exec_timeout("aclrtSetOpExecuteTimeOut", timeout * 1000u);
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    return exec_timeout("aclrtSetOpExecuteTimeOutWithMs", timeout);
}

/* ------------------------------------------------------------ AI Core groups */

struct tagRtGroupInfo {
    uint32_t count; /* always 0: openacl devices have no groups */
};

ACL_FUNC_VISIBILITY aclError aclrtSetGroup(int32_t groupId)
{
    int rc = rt_check_init("aclrtSetGroup");
    if (rc) return rc;
    return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetGroup: group %d does not exist (openacl devices have no AI Core "
                    "groups; aclrtGetGroupCount reports 0)", (int)groupId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetGroupCount(uint32_t *count)
{
    int rc = rt_check_init("aclrtGetGroupCount");
    if (rc) return rc;
    if (!count) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetGroupCount: count is NULL");
    *count = 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclrtGroupInfo *aclrtCreateGroupInfo(void)
{
    if (rt_check_init("aclrtCreateGroupInfo")) return NULL;
    aclrtGroupInfo *g = calloc(1, sizeof(*g));
    if (!g) acl_fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateGroupInfo: out of memory");
    return g;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    int rc = rt_check_init("aclrtDestroyGroupInfo");
    if (rc) return rc;
    free(groupInfo);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    int rc = rt_check_init("aclrtGetAllGroupInfo");
    if (rc) return rc;
    if (!groupInfo) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetAllGroupInfo: groupInfo is NULL");
    groupInfo->count = 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                                     aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                                     size_t *paramRetSize)
{
    static const char api[] = "aclrtGetGroupInfoDetail";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!groupInfo || !attrValue || !paramRetSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api,
                        !groupInfo ? "groupInfo" : !attrValue ? "attrValue" : "paramRetSize");
    if ((int)attr < ACL_GROUP_AICORE_INT || (int)attr > ACL_GROUP_GROUPID_INT)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attr %d is not an aclrtGroupAttr (0..5)", api, (int)attr);
    return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: groupIndex %d out of range: the list holds %u groups", api,
                    (int)groupIndex, groupInfo->count);
}
