/* System parameters (aclSysParamOpt) per context and per process, and the
 * cache-maintenance calls (aclrtCmo*).
 *
 * Parameters are stored and returned as given: openacl's kernels are
 * deterministic whatever ACL_OPT_DETERMINISTIC says and have no debug or
 * early-start variants, so nothing else reads them. Context values live in
 * rt_ctx (gone with the context), process values in g_rt (cleared by
 * aclInit); both under g_rt.lock.
 *
 * Cache maintenance: device memory is host memory that the CPU keeps
 * coherent, so prefetch / write-back / invalidate / flush have nothing to
 * do. The calls check everything a device runtime would (range inside one
 * device allocation, operation, stream, barrier ids) and then return without
 * queueing work, which is the observable CANN behaviour on coherent memory. */
#include <string.h>

#include "rt/rt_priv.h"

static int sysopt_check(const char *api, aclSysParamOpt opt)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((int)opt < 0 || (int)opt >= RT_SYSOPT_N)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not an aclSysParamOpt (0..%d)", api, (int)opt,
                        RT_SYSOPT_N - 1);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    int rc = sysopt_check("aclrtCtxSetSysParamOpt", opt);
    if (rc) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    if (c) {
        c->sysopt[opt] = value;
        c->sysopt_set |= 1u << opt;
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtCtxSetSysParamOpt: the calling thread has no current context");
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    int rc = sysopt_check("aclrtCtxGetSysParamOpt", opt);
    if (rc) return rc;
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value is NULL");
    int found = 0;
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    if (c && (c->sysopt_set & (1u << opt))) {
        *value = c->sysopt[opt];
        found = 1;
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtCtxGetSysParamOpt: the calling thread has no current context");
    if (!found)
        return acl_fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtCtxGetSysParamOpt: option %d was not set in this context",
                        (int)opt);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    int rc = sysopt_check("aclrtSetSysParamOpt", opt);
    if (rc) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    g_rt.sysopt[opt] = value;
    g_rt.sysopt_set |= 1u << opt;
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    int rc = sysopt_check("aclrtGetSysParamOpt", opt);
    if (rc) return rc;
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value is NULL");
    int found = 0;
    pthread_rwlock_rdlock(&g_rt.lock);
    if (g_rt.sysopt_set & (1u << opt)) {
        *value = g_rt.sysopt[opt];
        found = 1;
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!found)
        return acl_fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtGetSysParamOpt: option %d was not set in this process",
                        (int)opt);
    return ACL_SUCCESS;
}

/* ---- cache maintenance ---- */

/* What aclrtCmoSetDesc writes into the caller's description buffer. */
typedef struct {
    uint64_t magic;
    void *src;
    size_t size;
} cmo_desc;

#define CMO_DESC_MAGIC 0x4f41434d4f444553ull

static int cmo_type_ok(const char *api, aclrtCmoType t)
{
    if ((int)t < ACL_RT_CMO_TYPE_PREFETCH || (int)t > ACL_RT_CMO_TYPE_FLUSH)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cmoType %d is not an aclrtCmoType (0..3)", api, (int)t);
    return ACL_SUCCESS;
}

static int cmo_range_ok(const char *api, const void *src, size_t size)
{
    if (!src) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: src is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    int dev = -1, isdev = 0;
    if (rt_mem_find(src, size, &dev, &isdev) != ACL_SUCCESS || !isdev)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: [%p, +%zu) is not inside one device allocation", api, src, size);
    return ACL_SUCCESS;
}

static int cmo_stream_ok(const char *api, aclrtStream stream)
{
    rt_stream *s = NULL;
    return rt_stream_resolve(api, stream, &s);
}

ACL_FUNC_VISIBILITY aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    const char *api = "aclrtCmoAsync";
    int rc = rt_check_init(api);
    if (!rc) rc = cmo_range_ok(api, src, size);
    if (!rc) rc = cmo_type_ok(api, cmoType);
    if (!rc) rc = cmo_stream_ok(api, stream);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
                                                      aclrtStream stream)
{
    const char *api = "aclrtCmoAsyncWithBarrier";
    (void)barrierId; /* 0: no barrier; any other id names one */
    int rc = rt_check_init(api);
    if (!rc) rc = cmo_range_ok(api, src, size);
    if (!rc) rc = cmo_type_ok(api, cmoType);
    if (!rc) rc = cmo_stream_ok(api, stream);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag)
{
    const char *api = "aclrtCmoWaitBarrier";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!taskInfo) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: taskInfo is NULL", api);
    if (taskInfo->barrierNum == 0 || taskInfo->barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: barrierNum %zu is not in 1..%u", api, taskInfo->barrierNum,
                        ACL_RT_CMO_MAX_BARRIER_NUM);
    for (size_t i = 0; i < taskInfo->barrierNum; i++) {
        rc = cmo_type_ok(api, taskInfo->cmoInfo[i].cmoType);
        if (rc) return rc;
        if (taskInfo->cmoInfo[i].barrierId == 0)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cmoInfo[%zu].barrierId is 0", api, i);
    }
    if (flag != 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: flag %u is reserved and must be 0", api, flag);
    return cmo_stream_ok(api, stream);
}

ACL_FUNC_VISIBILITY aclError aclrtCmoGetDescSize(size_t *size)
{
    int rc = rt_check_init("aclrtCmoGetDescSize");
    if (rc) return rc;
    if (!size) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCmoGetDescSize: size is NULL");
    *size = sizeof(cmo_desc);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)
{
    const char *api = "aclrtCmoSetDesc";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!cmoDesc) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cmoDesc is NULL", api);
    rc = cmo_range_ok(api, src, size);
    if (rc) return rc;
    cmo_desc d = {CMO_DESC_MAGIC, src, size};
    memcpy(cmoDesc, &d, sizeof d);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
                                                   const void *reserve)
{
    const char *api = "aclrtCmoAsyncWithDesc";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!cmoDesc) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cmoDesc is NULL", api);
    if (reserve) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: reserve must be NULL", api);
    cmo_desc d;
    memcpy(&d, cmoDesc, sizeof d);
    if (d.magic != CMO_DESC_MAGIC)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cmoDesc was not filled by aclrtCmoSetDesc", api);
    rc = cmo_range_ok(api, d.src, d.size);
    if (!rc) rc = cmo_type_ok(api, cmoType);
    if (!rc) rc = cmo_stream_ok(api, stream);
    return rc;
}
