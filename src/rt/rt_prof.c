/* aclprof* (acl_prof.h): a session's folder, configurations and the
 * start/stop of the engine's node profile (engine/eng_prof.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "rt/rt_priv.h"
#include "engine/eng_prof.h"

struct aclprofConfig {
    uint32_t magic;
    uint32_t n_dev;
    uint32_t dev[RT_MAX_DEVICES];
    aclprofAicoreMetrics metrics;
    uint64_t data_types;
};

#define PROF_CFG_MAGIC 0x70726f66u

static pthread_mutex_t g_plock = PTHREAD_MUTEX_INITIALIZER;
static char g_dir[PATH_MAX];
static int g_inited;
static const aclprofConfig *g_running;

ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    int rc = rt_check_init("aclprofInit");
    if (rc) return rc;
    if (!profilerResultPath) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofInit: profilerResultPath is NULL");
    size_t n = strnlen(profilerResultPath, length);
    if (!length || !n || n >= sizeof g_dir)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofInit: length %zu (path of %zu bytes) is not in [1, %zu]",
                        length, n, sizeof g_dir - 1);
    char dir[PATH_MAX];
    memcpy(dir, profilerResultPath, n);
    dir[n] = 0;
    if (access(dir, W_OK | X_OK))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofInit: \"%s\" is not a writable folder: %s", dir,
                        strerror(errno));
    pthread_mutex_lock(&g_plock);
    if (g_inited) {
        pthread_mutex_unlock(&g_plock);
        return acl_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclprofInit: already initialised (folder \"%s\"); call "
                        "aclprofFinalize first", g_dir);
    }
    memcpy(g_dir, dir, n + 1);
    g_inited = 1;
    pthread_mutex_unlock(&g_plock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents *aicoreEvents,
                                                       uint64_t dataTypeConfig)
{
    if (rt_check_init("aclprofCreateConfig")) return NULL;
    int ndev = rt_device_count();
    if (deviceNums > (uint32_t)ndev || (deviceNums && !deviceIdList)) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig: %u devices listed (list %s), there are %d",
                 deviceNums, deviceIdList ? "given" : "NULL", ndev);
        return NULL;
    }
    for (uint32_t i = 0; i < deviceNums; i++)
        if (deviceIdList[i] >= (uint32_t)ndev) {
            acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig: deviceIdList[%u] = %u, valid ids are 0..%d", i,
                     deviceIdList[i], ndev - 1);
            return NULL;
        }
    if ((aicoreMetrics < ACL_AICORE_ARITHMETIC_UTILIZATION || aicoreMetrics > ACL_AICORE_L2_CACHE) &&
        aicoreMetrics != ACL_AICORE_NONE) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig: aicoreMetrics %d is not an aclprofAicoreMetrics",
                 (int)aicoreMetrics);
        return NULL;
    }
    if (aicoreEvents) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig: aicoreEvents must be NULL (reserved)");
        return NULL;
    }
    aclprofConfig *c = calloc(1, sizeof *c);
    if (!c) {
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclprofCreateConfig: out of host memory");
        return NULL;
    }
    c->magic = PROF_CFG_MAGIC;
    c->n_dev = deviceNums;
    if (deviceNums) memcpy(c->dev, deviceIdList, deviceNums * sizeof *deviceIdList);
    c->metrics = aicoreMetrics;
    c->data_types = dataTypeConfig;
    return c;
}

ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    int rc = rt_check_init("aclprofDestroyConfig");
    if (rc) return rc;
    if (!profilerConfig) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofDestroyConfig: profilerConfig is NULL");
    if (profilerConfig->magic != PROF_CFG_MAGIC)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofDestroyConfig: %p is not a profiling configuration",
                        (const void *)profilerConfig);
    pthread_mutex_lock(&g_plock);
    int busy = g_running == profilerConfig;
    pthread_mutex_unlock(&g_plock);
    if (busy)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofDestroyConfig: configuration %p is running; call "
                        "aclprofStop first", (const void *)profilerConfig);
    ((aclprofConfig *)profilerConfig)->magic = 0;
    free((void *)profilerConfig);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    int rc = rt_check_init("aclprofStart");
    if (rc) return rc;
    if (!profilerConfig || profilerConfig->magic != PROF_CFG_MAGIC)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofStart: profilerConfig %p is not a configuration from "
                        "aclprofCreateConfig", (const void *)profilerConfig);
    pthread_mutex_lock(&g_plock);
    if (!g_inited) rc = acl_fail(ACL_ERROR_UNINITIALIZE, "aclprofStart: call aclprofInit first");
    else if (g_running) rc = acl_fail(ACL_ERROR_PROF_ALREADY_RUN, "aclprofStart: a session is already running");
    else if (!(rc = eng_prof_start(g_dir, ENG_PROF_BY_API))) g_running = profilerConfig;
    pthread_mutex_unlock(&g_plock);
    return rc;
}

static int prof_stop_locked(void)
{
    g_running = NULL;
    int rc = eng_prof_stop(ENG_PROF_BY_API);
    return rc ? ACL_ERROR_WRITE_FILE : 0;
}

ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    int rc = rt_check_init("aclprofStop");
    if (rc) return rc;
    if (!profilerConfig) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofStop: profilerConfig is NULL");
    pthread_mutex_lock(&g_plock);
    if (!g_running) rc = acl_fail(ACL_ERROR_PROF_NOT_RUN, "aclprofStop: no session is running");
    else if (g_running != profilerConfig)
        rc = acl_fail(ACL_ERROR_INVALID_PARAM, "aclprofStop: configuration %p did not start the running session",
                      (const void *)profilerConfig);
    else rc = prof_stop_locked();
    pthread_mutex_unlock(&g_plock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclprofFinalize(void)
{
    int rc = rt_check_init("aclprofFinalize");
    if (rc) return rc;
    pthread_mutex_lock(&g_plock);
    if (!g_inited) rc = acl_fail(ACL_ERROR_PROF_NOT_RUN, "aclprofFinalize: aclprofInit was not called");
    else {
        if (g_running) rc = prof_stop_locked();
        g_inited = 0;
    }
    pthread_mutex_unlock(&g_plock);
    return rc;
}

void rt_prof_finalize(void)
{
    pthread_mutex_lock(&g_plock);
    if (g_running) (void)prof_stop_locked();
    g_inited = 0;
    pthread_mutex_unlock(&g_plock);
}
