/* Version queries, the exception callback and its info getters, and the
 * per-thread last error (aclrtGetLastError / aclrtPeekAtLastError). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rt/rt_priv.h"

#ifndef OPENACL_VERSION_STRING
#define OPENACL_VERSION_STRING "0.0.0"
#endif

struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
};

ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: %s is NULL",
                        !majorVersion ? "majorVersion" : !minorVersion ? "minorVersion" : "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

static const char *const k_pkgs[] = {"cann", "runtime", "compiler", "hccl", "toolkit", "opp", "opp_kernel",
                                     "driver", "firmware", "openacl"};

static int pkg_known(const char *name)
{
    for (size_t i = 0; i < sizeof(k_pkgs) / sizeof(k_pkgs[0]); i++)
        if (strcasecmp(name, k_pkgs[i]) == 0) return 1;
    return 0;
}

static void version_parts(int *maj, int *min, int *pat)
{
    *maj = *min = *pat = 0;
    sscanf(OPENACL_VERSION_STRING, "%d.%d.%d", maj, min, pat);
}

ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    if (!version) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: version is NULL");
    if ((int)name < ACL_PKG_NAME_CANN || (int)name > ACL_PKG_NAME_DRIVER)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: name %d is not an aclCANNPackageName (0..7)",
                        (int)name);
    int maj, min, pat;
    version_parts(&maj, &min, &pat);
    memset(version, 0, sizeof(*version));
    snprintf(version->version, sizeof(version->version), "%s", OPENACL_VERSION_STRING);
    snprintf(version->majorVersion, sizeof(version->majorVersion), "%d", maj);
    snprintf(version->minorVersion, sizeof(version->minorVersion), "%d", min);
    snprintf(version->releaseVersion, sizeof(version->releaseVersion), "%d", pat);
    snprintf(version->patchVersion, sizeof(version->patchVersion), "0");
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    if (!pkgName) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: pkgName is NULL");
    if (!versionStr) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: versionStr is NULL");
    if (!pkg_known(pkgName))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: unknown package \"%s\"", pkgName);
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", OPENACL_VERSION_STRING);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (!pkgName) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionNum: pkgName is NULL");
    if (!versionNum) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionNum: versionNum is NULL");
    if (!pkg_known(pkgName))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionNum: unknown package \"%s\"", pkgName);
    int maj, min, pat;
    version_parts(&maj, &min, &pat);
    *versionNum = maj * 10000000 + min * 100000 + pat * 1000 + 999;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ exceptions */

ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    int rc = rt_check_init("aclrtSetExceptionInfoCallback");
    if (rc) return rc;
    atomic_store(&g_rt.exc_cb, callback);
    return ACL_SUCCESS;
}

/* aclrtExceptionInfoCallbackRegister's set: a fixed array read without a
 * lock by the workers (each slot an atomic pointer; a slot is cleared, never
 * moved), written under g_exc_lock. */
#define EXC_MAX 32
static _Atomic(aclrtExceptionInfoCallback) g_exc_set[EXC_MAX];
static pthread_mutex_t g_exc_lock = PTHREAD_MUTEX_INITIALIZER;

ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    static const char api[] = "aclrtExceptionInfoCallbackRegister";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!callback) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: callback is NULL", api);
    pthread_mutex_lock(&g_exc_lock);
    int free_slot = -1;
    for (int i = 0; i < EXC_MAX; i++) {
        aclrtExceptionInfoCallback c = atomic_load(&g_exc_set[i]);
        if (c == callback) {
            pthread_mutex_unlock(&g_exc_lock);
            return ACL_SUCCESS;
        }
        if (!c && free_slot < 0) free_slot = i;
    }
    if (free_slot >= 0) atomic_store(&g_exc_set[free_slot], callback);
    pthread_mutex_unlock(&g_exc_lock);
    if (free_slot < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %d callbacks are registered already (the most openacl keeps)",
                        api, EXC_MAX);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    static const char api[] = "aclrtExceptionInfoCallbackUnregister";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!callback) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: callback is NULL", api);
    pthread_mutex_lock(&g_exc_lock);
    for (int i = 0; i < EXC_MAX; i++)
        if (atomic_load(&g_exc_set[i]) == callback) atomic_store(&g_exc_set[i], NULL);
    pthread_mutex_unlock(&g_exc_lock);
    return ACL_SUCCESS;
}

void rt_exception_raise(rt_stream *s, rt_task *t, int code)
{
    aclrtExceptionInfoCallback cb = atomic_load(&g_rt.exc_cb);
    int any = cb != NULL;
    for (int i = 0; i < EXC_MAX && !any; i++) any = atomic_load(&g_exc_set[i]) != NULL;
    if (!any) return;
    struct rtExceptionInfo info = {
        .taskid = (uint32_t)t->seq,
        .streamid = s->id,
        .tid = t->tid,
        .deviceid = (uint32_t)s->device,
        .retcode = (uint32_t)code,
    };
    if (cb) cb(&info);
    for (int i = 0; i < EXC_MAX; i++) {
        aclrtExceptionInfoCallback c = atomic_load(&g_exc_set[i]);
        if (c) c(&info);
    }
}

#define EXC_GETTER(fn, field)                                        \
    ACL_FUNC_VISIBILITY uint32_t fn(const aclrtExceptionInfo *info)  \
    {                                                                \
        if (!info) {                                                 \
            acl_fail(ACL_ERROR_INVALID_PARAM, #fn ": info is NULL"); \
            return 0xFFFFFFFFu;                                      \
        }                                                            \
        return info->field;                                          \
    }

EXC_GETTER(aclrtGetTaskIdFromExceptionInfo, taskid)
EXC_GETTER(aclrtGetStreamIdFromExceptionInfo, streamid)
EXC_GETTER(aclrtGetThreadIdFromExceptionInfo, tid)
EXC_GETTER(aclrtGetDeviceIdFromExceptionInfo, deviceid)
EXC_GETTER(aclrtGetErrorCodeFromExceptionInfo, retcode)

/* ------------------------------------------------------------ last error */

ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetLastError: level %d is not ACL_RT_THREAD_LEVEL (0)",
                        (int)level);
    return acl_last_error(1);
}

ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtPeekAtLastError: level %d is not ACL_RT_THREAD_LEVEL (0)",
                        (int)level);
    return acl_last_error(0);
}
