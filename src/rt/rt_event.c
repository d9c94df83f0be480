/* Events: points recorded in a stream. Each record gets a generation
 * number; the event is complete when its newest record has run. Events are
 * reference counted so tasks still queued keep them alive after
 * aclrtDestroyEvent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt_priv.h"

#define EVENT_KNOWN_FLAGS                                                                                      \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |     \
     ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

void rt_event_unref(rt_event *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1) return;
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cv);
    free(e);
}

/* Read lock held: the live event behind a handle, with a reference taken. */
static rt_event *event_get_ref(aclrtEvent h)
{
    rt_event *e = rt_handle_get(RT_H(h), RT_H_EVENT);
    if (e) atomic_fetch_add(&e->refs, 1);
    return e;
}

static int event_lookup(const char *api, const char *which, aclrtEvent h, rt_event **out)
{
    if (!h) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, which);
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_event *e = event_get_ref(h);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!e)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live event (destroyed or never created)", api,
                        which, h);
    *out = e;
    return ACL_SUCCESS;
}

/* Worker side; s == NULL when the task is discarded (a discarded record
 * still completes its generation so nobody waits for it forever). */
void rt_event_run(rt_task *t, rt_stream *s)
{
    rt_event *e = t->u.ev.ev;
    uint64_t gen = t->u.ev.gen;
    pthread_mutex_lock(&e->lock);
    switch (t->kind) {
    case RT_TASK_EVENT_RECORD:
        if (gen > e->done_gen) e->done_gen = gen;
        if (s) {
            e->recorded = 1;
            e->ts_ns = rt_now_ns();
        }
        break;
    case RT_TASK_EVENT_RESET:
        if (s) e->recorded = 0;
        break;
    case RT_TASK_EVENT_WAIT: {
        uint64_t limit = t->u.ev.timeout_ms > 0 ? rt_now_ns() + (uint64_t)t->u.ev.timeout_ms * 1000000u : 0;
        while (s && e->done_gen < gen && !atomic_load(&s->aborting)) {
            if (limit && rt_now_ns() >= limit) {
                t->u.ev.timed_out = 1;
                break;
            }
            struct timespec dl;
            rt_deadline(&dl, 5); /* re-check the abort flag and the limit now and then */
            pthread_cond_timedwait(&e->cv, &e->lock, &dl);
        }
        e->waits_pending--;
        break;
    }
    default: break;
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
}

static aclError create_event(const char *api, aclrtEvent *event, uint32_t flags)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!event) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    if (flags & ~(uint32_t)EVENT_KNOWN_FLAGS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: flag 0x%x has unknown bits 0x%x", api, flags,
                        flags & ~(uint32_t)EVENT_KNOWN_FLAGS);
    if ((flags & ACL_EVENT_EXTERNAL) && flags != ACL_EVENT_EXTERNAL)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: flag 0x%x: ACL_EVENT_EXTERNAL cannot be combined", api, flags);
    rt_event *e = calloc(1, sizeof(*e));
    if (!e) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    rt_mutex_init(&e->lock);
    rt_cond_init(&e->cv);
    atomic_init(&e->refs, 1);
    e->flags = flags;
    static atomic_uint next_id;
    e->id = atomic_fetch_add(&next_id, 1u);
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_ctx *ctx = rt_ctx_current_locked();
    if (ctx) {
        e->device = ctx->device;
        e->handle = rt_handle_add(RT_H_EVENT, e);
    }
    if (ctx && e->handle) {
        e->next = g_rt.events;
        if (g_rt.events) g_rt.events->prev = e;
        g_rt.events = e;
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!ctx || !e->handle) {
        rt_event_unref(e);
        if (!ctx)
            return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                            "%s: the calling thread has no current context (call aclrtSetDevice first)", api);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    }
    *event = RT_P(e->handle);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventWithFlag", event, flag);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventExWithFlag", event, flag);
}

static void event_unlink_locked(rt_event *e)
{
    rt_handle_del(e->handle);
    if (e->prev)
        e->prev->next = e->next;
    else
        g_rt.events = e->next;
    if (e->next) e->next->prev = e->prev;
    e->next = e->prev = NULL;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event)
{
    int rc = rt_check_init("aclrtDestroyEvent");
    if (rc) return rc;
    if (!event) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event is NULL");
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_event *e = rt_handle_get(RT_H(event), RT_H_EVENT);
    if (e) event_unlink_locked(e);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!e)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtDestroyEvent: event %p is not a live event (destroyed or never created)", event);
    rt_event_unref(e);
    return ACL_SUCCESS;
}

void rt_event_finalize_all(void)
{
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_event *list = g_rt.events;
    g_rt.events = NULL;
    for (rt_event *e = list; e; e = e->next) rt_handle_del(e->handle);
    pthread_rwlock_unlock(&g_rt.lock);
    while (list) {
        rt_event *n = list->next;
        rt_event_unref(list);
        list = n;
    }
}

/* Resolves stream and event together; on success the caller owns a
 * reference to *ev. */
static int stream_and_event(const char *api, aclrtStream stream, aclrtEvent event, rt_stream **s, rt_event **ev)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!event) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    pthread_rwlock_rdlock(&g_rt.lock);
    rc = rt_stream_resolve_locked(api, stream, rt_ctx_current_locked(), s);
    rt_event *e = rc ? NULL : event_get_ref(event);
    pthread_rwlock_unlock(&g_rt.lock);
    if (rc) return rc;
    if (!e)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: event %p is not a live event (destroyed or never created)", api,
                        event);
    *ev = e;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    rt_stream *s = NULL;
    rt_event *e = NULL;
    int rc = stream_and_event("aclrtRecordEvent", stream, event, &s, &e);
    if (rc) return rc;
    if (e->device != s->device) {
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_RESOURCE_NOT_MATCH,
                        "aclrtRecordEvent: event %p belongs to device %d, stream %p to device %d", event, e->device,
                        RT_P(s->handle), s->device);
    }
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_EVENT_RECORD;
    t.u.ev.ev = e;
    pthread_mutex_lock(&e->lock);
    t.u.ev.gen = ++e->rec_gen;
    pthread_mutex_unlock(&e->lock);
    rc = rt_stream_submit("aclrtRecordEvent", s, &t, NULL);
    if (rc) rt_event_run(&t, NULL); /* complete the generation and drop the reference */
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    rt_stream *s = NULL;
    rt_event *e = NULL;
    int rc = stream_and_event("aclrtResetEvent", stream, event, &s, &e);
    if (rc) return rc;
    if (!(e->flags & ACL_EVENT_SYNC)) {
        uint32_t f = e->flags;
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtResetEvent: event %p was created with flag 0x%x, without ACL_EVENT_SYNC", event, f);
    }
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_EVENT_RESET;
    t.u.ev.ev = e;
    rc = rt_stream_submit("aclrtResetEvent", s, &t, NULL);
    if (rc) rt_event_unref(e);
    return rc;
}

/* timeout_ms 0: no limit. */
static aclError stream_wait(const char *api, aclrtStream stream, aclrtEvent event, int32_t timeout_ms)
{
    rt_stream *s = NULL;
    rt_event *e = NULL;
    int rc = stream_and_event(api, stream, event, &s, &e);
    if (rc) return rc;
    if (!(e->flags & ACL_EVENT_SYNC)) {
        uint32_t f = e->flags;
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: event %p was created with flag 0x%x, without ACL_EVENT_SYNC",
                        api, event, f);
    }
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_EVENT_WAIT;
    t.u.ev.ev = e;
    t.u.ev.timeout_ms = timeout_ms;
    if (timeout_ms) t.what = "aclrtStreamWaitEventWithTimeout";
    pthread_mutex_lock(&e->lock);
    t.u.ev.gen = e->rec_gen;
    if (t.u.ev.gen) e->waits_pending++;
    pthread_mutex_unlock(&e->lock);
    if (!t.u.ev.gen) { /* never recorded: nothing to wait for */
        rt_event_unref(e);
        return ACL_SUCCESS;
    }
    rc = rt_stream_submit(api, s, &t, NULL);
    if (rc) rt_event_run(&t, NULL);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return stream_wait("aclrtStreamWaitEvent", stream, event, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    static const char api[] = "aclrtStreamWaitEventWithTimeout";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (timeout < -1 || timeout == 0)
        return acl_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: timeout %d ms invalid (use -1 or a positive value)", api,
                        (int)timeout);
    return stream_wait(api, stream, event, timeout == -1 ? 0 : timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    int rc = rt_check_init("aclrtQueryEvent");
    if (rc) return rc;
    rt_event *e = NULL;
    if ((rc = event_lookup("aclrtQueryEvent", "event", event, &e))) return rc;
    if (!status) {
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEvent: status is NULL");
    }
    pthread_mutex_lock(&e->lock);
    *status = e->done_gen >= e->rec_gen ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    int rc = rt_check_init("aclrtQueryEventStatus");
    if (rc) return rc;
    rt_event *e = NULL;
    if ((rc = event_lookup("aclrtQueryEventStatus", "event", event, &e))) return rc;
    if (!status) {
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL");
    }
    pthread_mutex_lock(&e->lock);
    *status = (e->rec_gen && e->done_gen >= e->rec_gen && e->recorded) ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                                       : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    int rc = rt_check_init("aclrtQueryEventWaitStatus");
    if (rc) return rc;
    rt_event *e = NULL;
    if ((rc = event_lookup("aclrtQueryEventWaitStatus", "event", event, &e))) return rc;
    if (!status) {
        rt_event_unref(e);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is NULL");
    }
    pthread_mutex_lock(&e->lock);
    *status = e->waits_pending == 0 ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
    return ACL_SUCCESS;
}

static aclError sync_event(const char *api, aclrtEvent event, int32_t timeout)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (timeout < -1 || timeout == 0)
        return acl_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: timeout %d ms invalid (use -1 or a positive value)", api,
                        (int)timeout);
    rt_event *e = NULL;
    if ((rc = event_lookup(api, "event", event, &e))) return rc;
    struct timespec dl;
    if (timeout > 0) rt_deadline(&dl, timeout);
    pthread_mutex_lock(&e->lock);
    uint64_t target = e->rec_gen;
    while (e->done_gen < target) {
        int r = timeout > 0 ? pthread_cond_timedwait(&e->cv, &e->lock, &dl) : pthread_cond_wait(&e->cv, &e->lock);
        if (r == ETIMEDOUT && e->done_gen < target) {
            pthread_mutex_unlock(&e->lock);
            rt_event_unref(e);
            return acl_fail_quiet(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "%s: event %p: not complete after %d ms", api,
                                  event, (int)timeout);
        }
    }
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return sync_event("aclrtSynchronizeEvent", event, -1);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    return sync_event("aclrtSynchronizeEventWithTimeout", event, timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    int rc = rt_check_init("aclrtEventElapsedTime");
    if (rc) return rc;
    if (!ms) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL");
    rt_event *a = NULL, *b = NULL;
    if ((rc = event_lookup("aclrtEventElapsedTime", "startEvent", startEvent, &a))) return rc;
    if ((rc = event_lookup("aclrtEventElapsedTime", "endEvent", endEvent, &b))) {
        rt_event_unref(a);
        return rc;
    }
    uint64_t ta = 0, tb = 0;
    int oka, okb;
    pthread_mutex_lock(&a->lock);
    oka = a->rec_gen && a->done_gen >= a->rec_gen && a->recorded;
    ta = a->ts_ns;
    pthread_mutex_unlock(&a->lock);
    pthread_mutex_lock(&b->lock);
    okb = b->rec_gen && b->done_gen >= b->rec_gen && b->recorded;
    tb = b->ts_ns;
    pthread_mutex_unlock(&b->lock);
    rt_event_unref(a);
    rt_event_unref(b);
    if (!oka || !okb)
        return acl_fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                        "aclrtEventElapsedTime: %s event %p has not completed a record (synchronize first)",
                        oka ? "end" : "start", oka ? endEvent : startEvent);
    *ms = (float)((double)((int64_t)(tb - ta)) / 1e6);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    static const char api[] = "aclrtEventGetTimestamp";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!timestamp) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: timestamp is NULL", api);
    rt_event *e = NULL;
    if ((rc = event_lookup(api, "event", event, &e))) return rc;
    pthread_mutex_lock(&e->lock);
    int ok = e->rec_gen && e->done_gen >= e->rec_gen && e->recorded;
    uint64_t ts = e->ts_ns;
    pthread_mutex_unlock(&e->lock);
    rt_event_unref(e);
    if (!ok)
        return acl_fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                        "%s: event %p has not completed a record (synchronize first)", api, event);
    *timestamp = ts / 1000u;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    static const char api[] = "aclrtGetEventId";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!eventId) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: eventId is NULL", api);
    rt_event *e = NULL;
    if ((rc = event_lookup(api, "event", event, &e))) return rc;
    *eventId = e->id;
    rt_event_unref(e);
    return ACL_SUCCESS;
}
