/* Notifies (aclrtCreateNotify ...): a one-bit flag between streams of one
 * process. A record task sets it; a wait task blocks its stream's worker
 * until the flag is set, then clears it (a record with no waiter is kept for
 * the next wait; two records before a wait count once, as on the NPU).
 *
 * All notify state is under g_nt.lock; every live notify is on g_nt.live
 * and each handle is checked against that list, so a destroyed or foreign
 * handle is an error, not a crash. Queued tasks hold a reference; the
 * memory goes when the last one drops. Destroying a notify, or aclFinalize,
 * wakes a waiting task, which then fails its stream. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "rt/rt_priv.h"

#define NOTIFY_MAGIC 0x4f414e4f54494659ull

typedef struct oa_notify {
    uint64_t magic;
    uint32_t id;
    int set;
    int dead;          /* destroyed (or finalized): waiters give up */
    int refs;          /* the handle + queued tasks */
    pthread_cond_t cv;
    struct oa_notify *next;
} oa_notify;

static struct {
    pthread_mutex_t lock;
    oa_notify *live;
    uint32_t next_id;
    int hooked;
} g_nt = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static void nt_unref_locked(oa_notify *n)
{
    if (--n->refs == 0) {
        n->magic = 0;
        pthread_cond_destroy(&n->cv);
        free(n);
    }
}

static void nt_unref(void *arg)
{
    pthread_mutex_lock(&g_nt.lock);
    nt_unref_locked((oa_notify *)arg);
    pthread_mutex_unlock(&g_nt.lock);
}

/* aclFinalize: every notify dies; a task still waiting wakes and fails. */
static void nt_on_finalize(void)
{
    pthread_mutex_lock(&g_nt.lock);
    oa_notify *n = g_nt.live;
    g_nt.live = NULL;
    while (n) {
        oa_notify *next = n->next;
        n->dead = 1;
        pthread_cond_broadcast(&n->cv);
        nt_unref_locked(n);
        n = next;
    }
    pthread_mutex_unlock(&g_nt.lock);
}

/* The live notify behind handle h, with a new reference (NULL + message if
 * none). */
static oa_notify *nt_get(const char *api, aclrtNotify h, int *rc)
{
    if (!h) {
        *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notify is NULL", api);
        return NULL;
    }
    pthread_mutex_lock(&g_nt.lock);
    oa_notify *n = g_nt.live;
    while (n && n != (oa_notify *)h) n = n->next;
    if (n) n->refs++;
    pthread_mutex_unlock(&g_nt.lock);
    if (!n) *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notify %p is not a live notify (destroyed or never created)",
                           api, h);
    return n;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    const char *api = "aclrtCreateNotify";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!notify) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notify is NULL", api);
    if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: flag 0x%llx is not ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY",
                        api, (unsigned long long)flag);
    int32_t dev = 0;
    rc = rt_current_device(api, &dev);
    if (rc) return rc;
    oa_notify *n = calloc(1, sizeof(*n));
    if (!n) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    pthread_cond_init(&n->cv, NULL);
    n->magic = NOTIFY_MAGIC;
    n->refs = 1;
    pthread_mutex_lock(&g_nt.lock);
    if (!g_nt.hooked) {
        rt_on_finalize(nt_on_finalize);
        g_nt.hooked = 1;
    }
    n->id = g_nt.next_id++;
    n->next = g_nt.live;
    g_nt.live = n;
    pthread_mutex_unlock(&g_nt.lock);
    *notify = n;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyNotify(aclrtNotify notify)
{
    const char *api = "aclrtDestroyNotify";
    int rc = rt_check_init(api);
    if (rc) return rc;
    oa_notify *n = nt_get(api, notify, &rc);
    if (!n) return rc;
    pthread_mutex_lock(&g_nt.lock);
    oa_notify **pp = &g_nt.live;
    while (*pp && *pp != n) pp = &(*pp)->next;
    int was_live = *pp != NULL;
    if (was_live) *pp = n->next;
    n->dead = 1;
    pthread_cond_broadcast(&n->cv);
    nt_unref_locked(n);          /* nt_get's reference */
    if (was_live) nt_unref_locked(n); /* the handle's */
    pthread_mutex_unlock(&g_nt.lock);
    if (!was_live) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notify %p was destroyed concurrently", api, notify);
    return ACL_SUCCESS;
}

static int nt_record_task(void *arg)
{
    oa_notify *n = arg;
    pthread_mutex_lock(&g_nt.lock);
    n->set = 1;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&g_nt.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    const char *api = "aclrtRecordNotify";
    int rc = rt_check_init(api);
    if (rc) return rc;
    oa_notify *n = nt_get(api, notify, &rc);
    if (!n) return rc;
    rt_stream *s = NULL;
    rc = rt_stream_resolve(api, stream, &s);
    if (!rc) rc = rt_stream_enqueue(s, nt_record_task, nt_unref, n, "aclrtRecordNotify");
    if (rc) nt_unref(n);
    return rc;
}

typedef struct {
    oa_notify *n;
    uint32_t timeout_ms;
} nt_wait;

static int nt_wait_task(void *arg)
{
    nt_wait *w = arg;
    oa_notify *n = w->n;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += w->timeout_ms / 1000;
    until.tv_nsec += (long)(w->timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int rc = ACL_SUCCESS, timed_out = 0;
    pthread_mutex_lock(&g_nt.lock);
    while (!n->set && !n->dead && !timed_out) {
        if (w->timeout_ms == 0)
            pthread_cond_wait(&n->cv, &g_nt.lock);
        else if (pthread_cond_timedwait(&n->cv, &g_nt.lock, &until) == ETIMEDOUT)
            timed_out = !n->set;
    }
    uint32_t id = n->id;
    if (n->set) n->set = 0;
    else if (n->dead) rc = -1;
    else rc = -2;
    pthread_mutex_unlock(&g_nt.lock);
    if (rc == -1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtWaitAndResetNotify: notify %u was destroyed while a stream waited on it",
                        id);
    if (rc == -2)
        return acl_fail(ACL_ERROR_RT_WAIT_TIMEOUT, "aclrtWaitAndResetNotify: notify %u not recorded within %u ms", id,
                        w->timeout_ms);
    return ACL_SUCCESS;
}

static void nt_wait_release(void *arg)
{
    nt_wait *w = arg;
    nt_unref(w->n);
    free(w);
}

ACL_FUNC_VISIBILITY aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    const char *api = "aclrtWaitAndResetNotify";
    int rc = rt_check_init(api);
    if (rc) return rc;
    oa_notify *n = nt_get(api, notify, &rc);
    if (!n) return rc;
    rt_stream *s = NULL;
    rc = rt_stream_resolve(api, stream, &s);
    nt_wait *w = NULL;
    if (!rc) {
        w = malloc(sizeof(*w));
        if (!w) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    if (!rc) {
        w->n = n;
        w->timeout_ms = timeout;
        rc = rt_stream_enqueue(s, nt_wait_task, nt_wait_release, w, "aclrtWaitAndResetNotify");
    }
    if (rc) {
        free(w);
        nt_unref(n);
    }
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    const char *api = "aclrtGetNotifyId";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!notifyId) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notifyId is NULL", api);
    oa_notify *n = nt_get(api, notify, &rc);
    if (!n) return rc;
    *notifyId = n->id;
    nt_unref(n);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    const char *api = "aclrtNotifyBatchReset";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!notifies) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: notifies is NULL", api);
    if (num == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: num is 0", api);
    for (size_t i = 0; i < num; i++) { /* all handles checked before any is reset */
        oa_notify *n = nt_get(api, notifies[i], &rc);
        if (!n) return rc;
        nt_unref(n);
    }
    pthread_mutex_lock(&g_nt.lock);
    for (size_t i = 0; i < num; i++) {
        oa_notify *n = g_nt.live;
        while (n && n != (oa_notify *)notifies[i]) n = n->next;
        if (n) n->set = 0;
    }
    pthread_mutex_unlock(&g_nt.lock);
    return ACL_SUCCESS;
}
