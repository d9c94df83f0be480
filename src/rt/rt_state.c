/* Runtime state: aclInit/aclFinalize, the handle registry, virtual devices
 * and contexts, and the per-thread current context. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/log_internal.h"
#include "rt/rt_priv.h"
#include "engine/eng_dump.h"
#include "engine/eng_prof.h"

rt_global g_rt = {
    .lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
};

/* The current context is kept as a handle, so a destroyed context is seen
 * as "no context" instead of a dangling pointer. */
static __thread uint64_t tl_ctx;

/* ---------------------------------------------------------------- helpers */

void rt_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
}

void rt_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

void rt_deadline(struct timespec *ts, int32_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static __thread uint32_t tl_tid;
uint32_t rt_tid(void)
{
    if (!tl_tid) tl_tid = (uint32_t)syscall(SYS_gettid);
    return tl_tid;
}

/* --------------------------------------------------------------- registry
 * Open addressing (linear probing) from handle to object. Handles carry
 * their kind and a serial that is never reused. */
typedef struct reg_slot {
    uint64_t h;    /* 0 empty, 1 tombstone */
    void *obj;
} reg_slot;

static reg_slot *g_reg;
static size_t g_reg_cap, g_reg_used, g_reg_live;
static atomic_ullong g_serial = 1;

#define RT_HANDLE_TAG 0xAC00000000000000ull

static size_t reg_hash(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h;
}

static int reg_grow(void)
{
    /* sized from the live entries only, so tombstones left by create/destroy
     * churn are purged instead of making the table grow */
    size_t ncap = 256;
    while ((g_reg_live + 1) * 4 > ncap) ncap *= 2;
    reg_slot *n = calloc(ncap, sizeof(*n));
    if (!n) return -1;
    for (size_t i = 0; i < g_reg_cap; i++) {
        if (g_reg[i].h <= 1) continue;
        size_t j = reg_hash(g_reg[i].h) & (ncap - 1);
        while (n[j].h) j = (j + 1) & (ncap - 1);
        n[j] = g_reg[i];
    }
    free(g_reg);
    g_reg = n;
    g_reg_cap = ncap;
    g_reg_used = g_reg_live;
    return 0;
}

uint64_t rt_handle_add(int kind, void *obj)
{
    if ((g_reg_used + 1) * 2 > g_reg_cap && reg_grow() != 0) return 0;
    uint64_t h = RT_HANDLE_TAG | ((uint64_t)kind << 48) | (atomic_fetch_add(&g_serial, 1) & 0xFFFFFFFFFFFFull);
    size_t j = reg_hash(h) & (g_reg_cap - 1);
    while (g_reg[j].h > 1) j = (j + 1) & (g_reg_cap - 1);
    if (g_reg[j].h == 0) g_reg_used++;
    g_reg[j].h = h;
    g_reg[j].obj = obj;
    g_reg_live++;
    return h;
}

static reg_slot *reg_find(uint64_t h)
{
    if (!g_reg_cap || h <= 1) return NULL;
    size_t j = reg_hash(h) & (g_reg_cap - 1);
    for (size_t k = 0; k < g_reg_cap; k++) {
        if (g_reg[j].h == h) return &g_reg[j];
        if (g_reg[j].h == 0) return NULL;
        j = (j + 1) & (g_reg_cap - 1);
    }
    return NULL;
}

void *rt_handle_get(uint64_t h, int kind)
{
    if ((h & 0xFF00000000000000ull) != RT_HANDLE_TAG || (int)((h >> 48) & 0xFF) != kind) return NULL;
    reg_slot *s = reg_find(h);
    return s ? s->obj : NULL;
}

void rt_handle_del(uint64_t h)
{
    reg_slot *s = reg_find(h);
    if (!s) return;
    s->h = 1;
    s->obj = NULL;
    g_reg_live--;
}

void rt_handle_clear(void)
{
    free(g_reg);
    g_reg = NULL;
    g_reg_cap = g_reg_used = g_reg_live = 0;
}

/* ------------------------------------------------------ internal queries */

int rt_initialized(void) { return atomic_load_explicit(&g_rt.initialized, memory_order_acquire); }

int rt_check_init(const char *api)
{
    if (rt_initialized()) return ACL_SUCCESS;
    return acl_fail(ACL_ERROR_UNINITIALIZE, "%s: aclInit has not been called (or aclFinalize already was)", api);
}

rt_ctx *rt_ctx_current_locked(void)
{
    if (!tl_ctx) return NULL;
    rt_ctx *c = rt_handle_get(tl_ctx, RT_H_CTX);
    if (!c) tl_ctx = 0;
    return c;
}

void rt_ctx_set_current(rt_ctx *ctx) { tl_ctx = ctx ? ctx->handle : 0; }

int rt_current_context(const char *api, void **ctx)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                        "%s: the calling thread has no current context (call aclrtSetDevice or "
                        "aclrtSetCurrentContext first)",
                        api);
    if (ctx) *ctx = RT_P(c->handle);
    return ACL_SUCCESS;
}

int rt_context_device(void *ctx)
{
    if (!rt_initialized()) return -1;
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_handle_get(RT_H(ctx), RT_H_CTX);
    int d = c ? c->device : -1;
    pthread_rwlock_unlock(&g_rt.lock);
    return d;
}

int rt_current_device(const char *api, int32_t *device)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    int d = c ? c->device : -1;
    pthread_rwlock_unlock(&g_rt.lock);
    if (d < 0)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                        "%s: the calling thread has no current context/device (call aclrtSetDevice first)", api);
    if (device) *device = d;
    return ACL_SUCCESS;
}

int rt_device_threads(int device)
{
    if (!rt_initialized() || device < 0 || device >= g_rt.cfg.device_count) return 1;
    return g_rt.cfg.threads;
}

int rt_device_count(void) { return rt_initialized() ? g_rt.cfg.device_count : 0; }

void rt_on_finalize(void (*fn)(void))
{
    if (!fn) return;
    pthread_rwlock_wrlock(&g_rt.lock);
    int dup = 0;
    for (int i = 0; i < g_rt.nhooks; i++)
        if (g_rt.hooks[i] == fn) dup = 1;
    if (!dup) {
        if (g_rt.nhooks < RT_MAX_HOOKS)
            g_rt.hooks[g_rt.nhooks++] = fn;
        else
            acl_log(ACL_ERROR, "rt_on_finalize: more than %d finalize hooks, one dropped", RT_MAX_HOOKS);
    }
    pthread_rwlock_unlock(&g_rt.lock);
}

/* -------------------------------------------------------------- contexts */

rt_ctx *rt_ctx_new(int device, int is_default)
{
    rt_ctx *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->device = device;
    c->is_default = is_default;
    c->handle = rt_handle_add(RT_H_CTX, c);
    if (!c->handle) {
        free(c);
        return NULL;
    }
    c->def_stream = rt_stream_new(c, 1, 0);
    if (!c->def_stream) {
        rt_handle_del(c->handle);
        free(c);
        return NULL;
    }
    c->next = g_rt.ctxs;
    g_rt.ctxs = c;
    return c;
}

void rt_ctx_unlink(rt_ctx *ctx)
{
    rt_handle_del(ctx->handle);
    for (rt_ctx **pp = &g_rt.ctxs; *pp; pp = &(*pp)->next)
        if (*pp == ctx) {
            *pp = ctx->next;
            break;
        }
    for (rt_stream *s = ctx->streams; s; s = s->ctx_next) rt_handle_del(s->handle);
    if (g_rt.devs[ctx->device].def_ctx == ctx) g_rt.devs[ctx->device].def_ctx = NULL;
}

void rt_ctx_teardown(rt_ctx *ctx, int force)
{
    rt_stream *s = ctx->streams;
    while (s) {
        rt_stream *n = s->ctx_next;
        rt_stream_teardown(s, force);
        s = n;
    }
    free(ctx);
}

static int check_device_id(const char *api, int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= g_rt.cfg.device_count)
        return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: deviceId %d out of range [0, %d)", api, (int)deviceId,
                        g_rt.cfg.device_count);
    return ACL_SUCCESS;
}

/* ----------------------------------------------------------- init/final */

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath)
{
    pthread_rwlock_wrlock(&g_rt.lock);
    if (g_rt.init_count > 0) {
        g_rt.init_count++;
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail_quiet(ACL_ERROR_REPEAT_INITIALIZE,
                              "aclInit: already initialized (reference count now %d); the first call's "
                              "configuration stays in effect",
                              g_rt.init_count);
    }
    rt_config cfg;
    int rc = rt_config_load(configPath, &cfg);
    if (rc != ACL_SUCCESS) {
        pthread_rwlock_unlock(&g_rt.lock);
        return rc;
    }
    acl_log_reload_env();
    if (cfg.log_level >= 0 && !acl_log_env_level_set()) acl_log_set_level(cfg.log_level);
    if (cfg.prof_on && (rc = eng_prof_start(cfg.prof_dir, ENG_PROF_BY_CONFIG))) {
        eng_dump_cfg_unref(cfg.dump);
        pthread_rwlock_unlock(&g_rt.lock);
        return rc;
    }
    rt_dump_install(cfg.dump);   /* model loads attach it from now on */
    cfg.dump = NULL;
    g_rt.cfg = cfg;
    g_rt.spin_ns = (uint64_t)cfg.spin_us * 1000u;
    memset(g_rt.devs, 0, sizeof(g_rt.devs));
    g_rt.sysopt_set = 0;
    g_rt.init_count = 1;
    atomic_store_explicit(&g_rt.initialized, 1, memory_order_release);
    pthread_rwlock_unlock(&g_rt.lock);
    acl_log(ACL_INFO, "aclInit: %d devices, %zu bytes each, %d threads per device", cfg.device_count,
            cfg.device_memory, cfg.threads);
    return ACL_SUCCESS;
}

static void rt_finalize_now(void)
{
    /* 1. hooks of the other layers, runtime still usable */
    void (*hooks[RT_MAX_HOOKS])(void);
    pthread_rwlock_rdlock(&g_rt.lock);
    int nh = g_rt.nhooks;
    memcpy(hooks, g_rt.hooks, sizeof(hooks));
    pthread_rwlock_unlock(&g_rt.lock);
    for (int i = nh - 1; i >= 0; i--) hooks[i]();
    rt_dump_install(NULL);
    rt_prof_finalize();
    eng_prof_stop(ENG_PROF_BY_CONFIG);   /* a profile the aclInit JSON started is written now */

    /* 2. unlink every context (and its streams) from the registry */
    pthread_rwlock_wrlock(&g_rt.lock);
    atomic_store(&g_rt.initialized, 0);
    rt_ctx *list = g_rt.ctxs;
    for (rt_ctx *c = list; c; c = c->next) {
        rt_handle_del(c->handle);
        for (rt_stream *s = c->streams; s; s = s->ctx_next) rt_handle_del(s->handle);
    }
    g_rt.ctxs = NULL;
    for (int d = 0; d < RT_MAX_DEVICES; d++) {
        g_rt.devs[d].def_ctx = NULL;
        g_rt.devs[d].refcount = 0;
    }
    pthread_rwlock_unlock(&g_rt.lock);

    /* 3. abort streams (pending tasks are discarded), join workers, free */
    while (list) {
        rt_ctx *n = list->next;
        rt_ctx_teardown(list, 1);
        list = n;
    }
    rt_report_finalize_all();
    rt_event_finalize_all();
    rt_mem_reset();

    pthread_rwlock_wrlock(&g_rt.lock);
    rt_handle_clear();
    g_rt.init_count = 0;
    atomic_fetch_add(&g_rt.epoch, 1);
    pthread_rwlock_unlock(&g_rt.lock);
}

/* Finalization is serialised by this mutex so two finalizers cannot both
 * tear down. */
static pthread_mutex_t g_fin_lock = PTHREAD_MUTEX_INITIALIZER;

ACL_FUNC_VISIBILITY aclError aclFinalize(void)
{
    pthread_mutex_lock(&g_fin_lock);
    pthread_rwlock_rdlock(&g_rt.lock);
    int cnt = g_rt.init_count;
    pthread_rwlock_unlock(&g_rt.lock);
    if (cnt == 0) {
        pthread_mutex_unlock(&g_fin_lock);
        return acl_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: not initialized (already finalized, or aclInit "
                                                   "never succeeded)");
    }
    rt_finalize_now();
    pthread_mutex_unlock(&g_fin_lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount)
{
    pthread_mutex_lock(&g_fin_lock);
    pthread_rwlock_wrlock(&g_rt.lock);
    if (g_rt.init_count == 0) {
        pthread_rwlock_unlock(&g_rt.lock);
        pthread_mutex_unlock(&g_fin_lock);
        if (refCount) *refCount = 0;
        return acl_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference: reference count is already 0");
    }
    int left = --g_rt.init_count;
    if (left == 0) g_rt.init_count = 1; /* rt_finalize_now sets it to 0 at the end */
    pthread_rwlock_unlock(&g_rt.lock);
    if (left == 0) rt_finalize_now();
    pthread_mutex_unlock(&g_fin_lock);
    if (refCount) *refCount = (uint64_t)left;
    return ACL_SUCCESS;
}

/* --------------------------------------------------------------- devices */

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId)
{
    int rc = rt_check_init("aclrtSetDevice");
    if (rc) return rc;
    if ((rc = check_device_id("aclrtSetDevice", deviceId))) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_device *d = &g_rt.devs[deviceId];
    if (!d->def_ctx) {
        d->def_ctx = rt_ctx_new(deviceId, 1);
        if (!d->def_ctx) {
            pthread_rwlock_unlock(&g_rt.lock);
            return acl_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                            "aclrtSetDevice: device %d: cannot create the default context", (int)deviceId);
        }
    }
    d->refcount++;
    rt_ctx_set_current(d->def_ctx);
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

static aclError reset_device(const char *api, int32_t deviceId, int force)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if ((rc = check_device_id(api, deviceId))) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_device *d = &g_rt.devs[deviceId];
    if (d->refcount == 0) {
        pthread_rwlock_unlock(&g_rt.lock);
        acl_log(ACL_WARNING, "%s: device %d is not set (no aclrtSetDevice outstanding); nothing to reset", api,
                (int)deviceId);
        return ACL_SUCCESS;
    }
    d->refcount = force ? 0 : d->refcount - 1;
    rt_ctx *victim = NULL;
    if (d->refcount == 0 && d->def_ctx) {
        victim = d->def_ctx;
        rt_ctx_unlink(victim);
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (victim) rt_ctx_teardown(victim, 0);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) { return reset_device("aclrtResetDevice", deviceId, 0); }

ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device("aclrtResetDeviceForce", deviceId, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId)
{
    if (!rt_initialized()) return rt_check_init("aclrtGetDevice");
    if (!deviceId) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL");
    return rt_current_device("aclrtGetDevice", deviceId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count)
{
    int rc = rt_check_init("aclrtGetDeviceCount");
    if (rc) return rc;
    if (!count) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    *count = (uint32_t)g_rt.cfg.device_count;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    int rc = rt_check_init("aclrtGetRunMode");
    if (rc) return rc;
    if (!runMode) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is NULL");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    int rc = rt_check_init("aclrtSetTsDevice");
    if (rc) return rc;
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtSetTsDevice: tsId %d is not ACL_TS_ID_AICORE (0) or ACL_TS_ID_AIVECTOR (1)", (int)tsId);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    int rc = rt_check_init("aclrtQueryDeviceStatus");
    if (rc) return rc;
    if ((rc = check_device_id("aclrtQueryDeviceStatus", deviceId))) return rc;
    if (!deviceStatus) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryDeviceStatus: deviceStatus is NULL");
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    int32_t dev = 0;
    int rc = rt_current_device("aclrtSetDeviceSatMode", &dev);
    if (rc) return rc;
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtSetDeviceSatMode: mode %d is not SATURATION (0) or INFNAN (1)", (int)mode);
    pthread_rwlock_wrlock(&g_rt.lock);
    g_rt.devs[dev].sat_mode = (int)mode;
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    int32_t dev = 0;
    int rc = rt_current_device("aclrtGetDeviceSatMode", &dev);
    if (rc) return rc;
    if (!mode) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceSatMode: mode is NULL");
    pthread_rwlock_rdlock(&g_rt.lock);
    *mode = (aclrtFloatOverflowMode)g_rt.devs[dev].sat_mode;
    pthread_rwlock_unlock(&g_rt.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    int rc = rt_check_init("aclGetDeviceCapability");
    if (rc) return rc;
    if (deviceId >= (uint32_t)g_rt.cfg.device_count)
        return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclGetDeviceCapability: deviceId %u out of range [0, %d)",
                        deviceId, g_rt.cfg.device_count);
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetDeviceCapability: value is NULL");
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = g_rt.cfg.threads; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: {
        long l = sysconf(_SC_LEVEL2_CACHE_SIZE);
        *value = l > 0 ? l : 0;
        return ACL_SUCCESS;
    }
    default:
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetDeviceCapability: deviceInfo %d is not an aclDeviceInfo",
                        (int)deviceInfo);
    }
}

/* Streams of the current device are snapshotted under the lock and waited
 * for outside it (they must not be destroyed concurrently). */
static int sync_device(const char *api, int32_t timeout)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (timeout < -1 || timeout == 0)
        return acl_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: timeout %d ms invalid (use -1 or a positive value)", api,
                        (int)timeout);
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *cur = rt_ctx_current_locked();
    if (!cur) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL, "%s: the calling thread has no current context", api);
    }
    int dev = cur->device;
    size_t n = 0, cap = 16;
    rt_stream **list = malloc(cap * sizeof(*list));
    for (rt_ctx *c = g_rt.ctxs; c && list; c = c->next) {
        if (c->device != dev) continue;
        for (rt_stream *s = c->streams; s; s = s->ctx_next) {
            if (n == cap) {
                rt_stream **nl = realloc(list, cap * 2 * sizeof(*list));
                if (!nl) {
                    free(list);
                    list = NULL;
                    break;
                }
                list = nl;
                cap *= 2;
            }
            list[n++] = s;
        }
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!list) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    uint64_t end = timeout > 0 ? rt_now_ns() + (uint64_t)timeout * 1000000ull : 0;
    int first = ACL_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        int32_t left = -1;
        if (timeout > 0) {
            uint64_t now = rt_now_ns();
            left = now >= end ? 1 : (int32_t)((end - now + 999999) / 1000000);
        }
        pthread_mutex_lock(&list[i]->lock);
        uint64_t target = list[i]->enq_seq;
        pthread_mutex_unlock(&list[i]->lock);
        int r = rt_stream_wait(api, list[i], target, left, 1);
        if (r == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
            free(list);
            return r;
        }
        if (r && !first) first = r;
    }
    free(list);
    return first;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) { return sync_device("aclrtSynchronizeDevice", -1); }

int rt_sync_current_device(const char *api) { return sync_device(api, -1); }

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    return sync_device(timeout == -1 ? "aclrtSynchronizeDevice" : "aclrtSynchronizeDeviceWithTimeout", timeout);
}

/* -------------------------------------------------------------- contexts */

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    int rc = rt_check_init("aclrtCreateContext");
    if (rc) return rc;
    if (!context) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is NULL");
    if ((rc = check_device_id("aclrtCreateContext", deviceId))) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_new(deviceId, 0);
    if (c) rt_ctx_set_current(c);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "aclrtCreateContext: device %d: out of host memory",
                        (int)deviceId);
    *context = RT_P(c->handle);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context)
{
    int rc = rt_check_init("aclrtDestroyContext");
    if (rc) return rc;
    if (!context) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context is NULL");
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_ctx *c = rt_handle_get(RT_H(context), RT_H_CTX);
    if (!c) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtDestroyContext: context %p is not a live context (destroyed or never created)",
                        context);
    }
    if (c->is_default) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtDestroyContext: context %p is the default context of device %d; release it with "
                        "aclrtResetDevice",
                        context, c->device);
    }
    rt_ctx_unlink(c);
    pthread_rwlock_unlock(&g_rt.lock);
    rt_ctx_teardown(c, 0);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context)
{
    int rc = rt_check_init("aclrtSetCurrentContext");
    if (rc) return rc;
    if (!context) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context is NULL");
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_handle_get(RT_H(context), RT_H_CTX);
    if (c) rt_ctx_set_current(c);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtSetCurrentContext: context %p is not a live context (destroyed or never created)",
                        context);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context)
{
    int rc = rt_check_init("aclrtGetCurrentContext");
    if (rc) return rc;
    if (!context) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is NULL");
    return rt_current_context("aclrtGetCurrentContext", context);
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    int rc = rt_check_init("aclrtCtxGetCurrentDefaultStream");
    if (rc) return rc;
    if (!stream) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream: stream is NULL");
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    if (c) *stream = RT_P(c->def_stream->handle);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                        "aclrtCtxGetCurrentDefaultStream: the calling thread has no current context");
    return ACL_SUCCESS;
}
