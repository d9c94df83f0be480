/* Load-config and execute-config handles, and aclmdlLoadWithConfig. A
 * config handle only records values; everything is checked again when it
 * is used, so a handle can be filled in any order. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/unsupported.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

aclmdlConfigHandle *aclmdlCreateConfigHandle(void)
{
    aclmdlConfigHandle *h = calloc(1, sizeof *h);
    if (!h)
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateConfigHandle: out of host memory");
    return h;
}

aclError aclmdlDestroyConfigHandle(aclmdlConfigHandle *handle)
{
    if (!handle)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlDestroyConfigHandle: handle is NULL");
    free(handle->path);
    free(handle->weight_dir);
    free(handle);
    return ACL_SUCCESS;
}

static const char *config_attr_name(int a)
{
    static const char *const names[] = {
        "ACL_MDL_PRIORITY_INT32", "ACL_MDL_LOAD_TYPE_SIZET", "ACL_MDL_PATH_PTR", "ACL_MDL_MEM_ADDR_PTR",
        "ACL_MDL_MEM_SIZET", "ACL_MDL_WEIGHT_ADDR_PTR", "ACL_MDL_WEIGHT_SIZET", "ACL_MDL_WORKSPACE_ADDR_PTR",
        "ACL_MDL_WORKSPACE_SIZET", "ACL_MDL_INPUTQ_NUM_SIZET", "ACL_MDL_INPUTQ_ADDR_PTR",
        "ACL_MDL_OUTPUTQ_NUM_SIZET", "ACL_MDL_OUTPUTQ_ADDR_PTR", "ACL_MDL_WORKSPACE_MEM_OPTIMIZE",
        "ACL_MDL_WEIGHT_PATH_PTR", "ACL_MDL_MODEL_DESC_PTR", "ACL_MDL_MODEL_DESC_SIZET", "ACL_MDL_KERNEL_PTR",
        "ACL_MDL_KERNEL_SIZET", "ACL_MDL_KERNEL_ARGS_PTR", "ACL_MDL_KERNEL_ARGS_SIZET", "ACL_MDL_STATIC_TASK_PTR",
        "ACL_MDL_STATIC_TASK_SIZET", "ACL_MDL_DYNAMIC_TASK_PTR", "ACL_MDL_DYNAMIC_TASK_SIZET",
        "ACL_MDL_MEM_MALLOC_POLICY_SIZET", "ACL_MDL_FIFO_PTR", "ACL_MDL_FIFO_SIZET", "ACL_MDL_WITHOUT_GRAPH_INT32",
        "ACL_NPU_PERF_MODE"};
    return a >= 0 && a < (int)(sizeof names / sizeof names[0]) ? names[a] : "unknown attribute";
}

static int want_size(const char *api, int attr, const char *name, size_t got, size_t want)
{
    if (got != want)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s (%d) takes a %zu-byte value, valueSize is %zu", api, name,
                        attr, want, got);
    return ACL_SUCCESS;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r)
        memcpy(r, s, n);
    return r;
}

aclError aclmdlSetConfigOpt(aclmdlConfigHandle *handle, aclmdlConfigAttr attr, const void *attrValue,
                            size_t valueSize)
{
    static const char api[] = "aclmdlSetConfigOpt";
    if (!handle || !attrValue)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, handle ? "attrValue" : "handle");
    const char *name = config_attr_name((int)attr);
    int rc = ACL_SUCCESS;
    switch (attr) {
    case ACL_MDL_PRIORITY_INT32: {
        if ((rc = want_size(api, attr, name, valueSize, sizeof(int32_t))))
            return rc;
        int32_t v;
        memcpy(&v, attrValue, sizeof v);
        if (v < 0 || v > 7)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %d out of range [0, 7]", api, name, v);
        handle->priority = v;
        break;
    }
    case ACL_MDL_LOAD_TYPE_SIZET: {
        if ((rc = want_size(api, attr, name, valueSize, sizeof(size_t))))
            return rc;
        size_t v;
        memcpy(&v, attrValue, sizeof v);
        if (v < ACL_MDL_LOAD_FROM_FILE || v > ACL_MDL_LOAD_FROM_MEM_WITH_Q)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %zu is not an ACL_MDL_LOAD_FROM_* value (1..6)", api,
                            name, v);
        if (v == ACL_MDL_LOAD_FROM_FILE_WITH_Q || v == ACL_MDL_LOAD_FROM_MEM_WITH_Q)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: %s %zu: queue-driven models are not supported by "
                            "openacl (CPU runtime)", api, name, v);
        handle->load_type = v;
        break;
    }
    case ACL_MDL_PATH_PTR:
    case ACL_MDL_WEIGHT_PATH_PTR: {
        if ((rc = want_size(api, attr, name, valueSize, sizeof(char *))))
            return rc;
        const char *v;
        memcpy(&v, attrValue, sizeof v);
        if (!v)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is a NULL string", api, name);
        char *c = dup_str(v);
        if (!c)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        char **dst = attr == ACL_MDL_PATH_PTR ? &handle->path : &handle->weight_dir;
        free(*dst);
        *dst = c;
        break;
    }
    case ACL_MDL_MEM_ADDR_PTR:
    case ACL_MDL_WEIGHT_ADDR_PTR:
    case ACL_MDL_WORKSPACE_ADDR_PTR: {
        if ((rc = want_size(api, attr, name, valueSize, sizeof(void *))))
            return rc;
        void *v;
        memcpy(&v, attrValue, sizeof v);
        if (attr == ACL_MDL_MEM_ADDR_PTR)
            handle->mem = v;
        else if (attr == ACL_MDL_WEIGHT_ADDR_PTR)
            handle->weight = v;
        else
            handle->work = v;
        break;
    }
    case ACL_MDL_MEM_SIZET:
    case ACL_MDL_WEIGHT_SIZET:
    case ACL_MDL_WORKSPACE_SIZET: {
        if ((rc = want_size(api, attr, name, valueSize, sizeof(size_t))))
            return rc;
        size_t v;
        memcpy(&v, attrValue, sizeof v);
        if (attr == ACL_MDL_MEM_SIZET)
            handle->mem_size = v;
        else if (attr == ACL_MDL_WEIGHT_SIZET)
            handle->weight_size = v;
        else
            handle->work_size = v;
        break;
    }
    case ACL_MDL_WORKSPACE_MEM_OPTIMIZE:
    case ACL_MDL_MEM_MALLOC_POLICY_SIZET:
        /* Memory-layout hints: every openacl allocation is already plain
         * host memory with one policy; accepted and ignored. */
        break;
    case ACL_MDL_INPUTQ_NUM_SIZET:
    case ACL_MDL_INPUTQ_ADDR_PTR:
    case ACL_MDL_OUTPUTQ_NUM_SIZET:
    case ACL_MDL_OUTPUTQ_ADDR_PTR:
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: %s: queue-driven models are not supported by openacl "
                        "(CPU runtime)", api, name);
    case ACL_MDL_MODEL_DESC_PTR:
    case ACL_MDL_MODEL_DESC_SIZET:
    case ACL_MDL_KERNEL_PTR:
    case ACL_MDL_KERNEL_SIZET:
    case ACL_MDL_KERNEL_ARGS_PTR:
    case ACL_MDL_KERNEL_ARGS_SIZET:
    case ACL_MDL_STATIC_TASK_PTR:
    case ACL_MDL_STATIC_TASK_SIZET:
    case ACL_MDL_DYNAMIC_TASK_PTR:
    case ACL_MDL_DYNAMIC_TASK_SIZET:
    case ACL_MDL_FIFO_PTR:
    case ACL_MDL_FIFO_SIZET:
    case ACL_MDL_WITHOUT_GRAPH_INT32:
    case ACL_NPU_PERF_MODE:
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: %s: device partitions of executable .om images are not "
                        "supported by openacl (CPU runtime)", api, name);
    default:
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: unknown aclmdlConfigAttr %d", api, (int)attr);
    }
    handle->set |= 1u << (unsigned)attr;
    return ACL_SUCCESS;
}

static int has(const aclmdlConfigHandle *h, aclmdlConfigAttr a)
{
    return (h->set >> (unsigned)a) & 1u;
}

aclError aclmdlLoadWithConfig(const aclmdlConfigHandle *handle, uint32_t *modelId)
{
    static const char api[] = "aclmdlLoadWithConfig";
    int rc0 = rt_check_init(api);   /* the runtime state first, as every load does */
    if (rc0)
        return rc0;
    if (!handle)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL", api);
    if (!has(handle, ACL_MDL_LOAD_TYPE_SIZET))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ACL_MDL_LOAD_TYPE_SIZET is mandatory and was not set", api);
    mdl_load_req r;
    memset(&r, 0, sizeof r);
    r.api = api;
    r.priority = handle->priority;
    size_t t = handle->load_type;
    if (t == ACL_MDL_LOAD_FROM_FILE_WITH_Q || t == ACL_MDL_LOAD_FROM_MEM_WITH_Q)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: load type %zu (queue-driven) is not supported by "
                        "openacl", api, t);
    if (t == ACL_MDL_LOAD_FROM_FILE || t == ACL_MDL_LOAD_FROM_FILE_WITH_MEM) {
        if (!handle->path)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: load type %zu needs ACL_MDL_PATH_PTR", api, t);
        r.path = handle->path;
    } else {
        if (!handle->mem || !handle->mem_size)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: load type %zu needs ACL_MDL_MEM_ADDR_PTR and a non-zero "
                            "ACL_MDL_MEM_SIZET", api, t);
        r.mem = handle->mem;
        r.mem_size = handle->mem_size;
    }
    r.base_dir = handle->weight_dir;
    if (t == ACL_MDL_LOAD_FROM_FILE_WITH_MEM || t == ACL_MDL_LOAD_FROM_MEM_WITH_MEM) {
        r.work = handle->work;
        r.work_size = handle->work_size;
        r.weight = handle->weight;
        r.weight_size = handle->weight_size;
    }
    return mdl_load(&r, modelId);
}

aclError aclmdlSetExternalWeightAddress(aclmdlConfigHandle *handle, const char *weightFileName, void *devPtr,
                                        size_t size)
{
    return OA_UNSUPPORTED(aclmdlSetExternalWeightAddress);
}

/* ---- execute config ---- */

aclmdlExecConfigHandle *aclmdlCreateExecConfigHandle(void)
{
    aclmdlExecConfigHandle *h = calloc(1, sizeof *h);
    if (!h)
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateExecConfigHandle: out of host memory");
    else
        h->stream_sync_timeout = h->event_sync_timeout = -1;
    return h;
}

aclError aclmdlDestroyExecConfigHandle(const aclmdlExecConfigHandle *handle)
{
    if (!handle)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlDestroyExecConfigHandle: handle is NULL");
    free((void *)handle);
    return ACL_SUCCESS;
}

aclError aclmdlSetExecConfigOpt(aclmdlExecConfigHandle *handle, aclmdlExecConfigAttr attr, const void *attrValue,
                                size_t valueSize)
{
    static const char api[] = "aclmdlSetExecConfigOpt";
    if (!handle || !attrValue)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, handle ? "attrValue" : "handle");
    switch (attr) {
    case ACL_MDL_STREAM_SYNC_TIMEOUT:
    case ACL_MDL_EVENT_SYNC_TIMEOUT: {
        int64_t v;
        if (valueSize == sizeof(int32_t)) {
            int32_t v32;
            memcpy(&v32, attrValue, sizeof v32);
            v = v32;
        } else if (valueSize == sizeof(int64_t)) {
            memcpy(&v, attrValue, sizeof v);
        } else {
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: timeout attribute %d takes a 4- or 8-byte integer, "
                            "valueSize is %zu", api, (int)attr, valueSize);
        }
        if (v < -1)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: timeout %lld ms is invalid (-1 = wait forever)", api,
                            (long long)v);
        if (attr == ACL_MDL_STREAM_SYNC_TIMEOUT)
            handle->stream_sync_timeout = v;
        else
            handle->event_sync_timeout = v;
        return ACL_SUCCESS;
    }
    case ACL_MDL_WORK_ADDR_PTR:
        if (valueSize != sizeof(void *))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ACL_MDL_WORK_ADDR_PTR takes a pointer (%zu bytes), "
                            "valueSize is %zu", api, sizeof(void *), valueSize);
        memcpy(&handle->work, attrValue, sizeof(void *));
        return ACL_SUCCESS;
    case ACL_MDL_WORK_SIZET:
        if (valueSize != sizeof(size_t))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ACL_MDL_WORK_SIZET takes a size_t, valueSize is %zu", api,
                            valueSize);
        memcpy(&handle->work_size, attrValue, sizeof(size_t));
        return ACL_SUCCESS;
    case ACL_MDL_EXEC_PRIORITY_INT32: {
        if (valueSize != sizeof(int32_t))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ACL_MDL_EXEC_PRIORITY_INT32 takes an int32_t, valueSize "
                            "is %zu", api, valueSize);
        memcpy(&handle->priority, attrValue, sizeof(int32_t));
        return ACL_SUCCESS;
    }
    case ACL_MDL_MPAIMID_SIZET:
    case ACL_MDL_AICQOS_SIZET:
    case ACL_MDL_AICOST_SIZET:
    case ACL_MDL_MEC_TIMETHR_SIZET:
    case ACL_MDL_NPU_PERF_MODE:
        /* Hardware QoS knobs of the AI core: nothing to tune on a CPU. */
        return ACL_SUCCESS;
    default:
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: unknown aclmdlExecConfigAttr %d", api, (int)attr);
    }
}
