/* Host callbacks (aclrtSubscribeReport / aclrtLaunchCallback /
 * aclrtProcessReport). A report record exists per subscribed OS thread and
 * holds a FIFO of callback tasks handed over by stream workers; the thread
 * runs them inside aclrtProcessReport. Each stream also keeps the callbacks
 * it handed over and that have not finished (its "outstanding" list), so a
 * synchronize returns only after its callbacks ran. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt_priv.h"

static __thread rt_report *tl_rep;
static __thread unsigned long tl_rep_epoch;

/* g_rt.lock held */
static rt_report *report_find(uint64_t tid)
{
    for (rt_report *r = g_rt.reports; r; r = r->next)
        if (r->tid == tid) return r;
    return NULL;
}

void rt_report_complete(rt_task *t, int discarded)
{
    rt_stream *s = t->stream;
    pthread_mutex_lock(&s->lock);
    t->done = 1;
    t->discarded = (uint8_t)discarded;
    for (rt_task **pp = &s->out_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->onext) {
        if (*pp != t) continue;
        *pp = t->onext;
        if (s->out_tail == t) s->out_tail = prev;
        atomic_fetch_sub_explicit(&s->out_n, 1, memory_order_release);
        break;
    }
    if (t->direct) {
        /* handed over by aclrtLaunchCallback itself: nobody else owns it */
        if (s->blocked_by == t) {
            s->blocked_by = NULL;
            if (s->worker_sleeping) pthread_cond_signal(&s->work_cv);
        }
        rt_task_recycle(s, t);
    } else if (!t->block) {
        rt_task_recycle(s, t); /* a blocked worker recycles its own node */
    }
    if (s->waiters) pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->lock);
}

int rt_report_deliver(rt_stream *s, rt_task *t)
{
    pthread_mutex_lock(&s->lock);
    rt_report *rep = s->report;
    if (!rep) {
        pthread_mutex_unlock(&s->lock);
        return acl_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                        "aclrtLaunchCallback: stream %p: callback %p reached but no thread is subscribed to the "
                        "stream any more (aclrtUnSubscribeReport came first); callback not run",
                        RT_P(s->handle), (void *)(uintptr_t)t->u.cb.fn);
    }
    t->onext = NULL;
    if (s->out_tail)
        s->out_tail->onext = t;
    else
        s->out_head = t;
    s->out_tail = t;
    atomic_fetch_add_explicit(&s->out_n, 1, memory_order_relaxed);
    /* handed over under the stream lock, so an unsubscribe sees it queued */
    pthread_mutex_lock(&rep->lock);
    t->rnext = NULL;
    if (rep->qtail)
        rep->qtail->rnext = t;
    else
        rep->qhead = t;
    rep->qtail = t;
    atomic_fetch_add_explicit(&rep->qcount, 1, memory_order_release);
    if (rep->waiting) pthread_cond_signal(&rep->cv);
    pthread_mutex_unlock(&rep->lock);
    if (t->block) {
        while (!t->done) {
            s->waiters++;
            pthread_cond_wait(&s->done_cv, &s->lock);
            s->waiters--;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

/* Completes (as discarded) the queued callbacks of stream s. */
static void report_discard_stream(rt_report *rep, rt_stream *s)
{
    rt_task *mine = NULL, **tail = &mine;
    pthread_mutex_lock(&rep->lock);
    rt_task **pp = &rep->qhead;
    rep->qtail = NULL;
    while (*pp) {
        rt_task *t = *pp;
        if (t->stream == s) {
            *pp = t->rnext;
            t->rnext = NULL;
            *tail = t;
            tail = &t->rnext;
            atomic_fetch_sub(&rep->qcount, 1);
        } else {
            rep->qtail = t;
            pp = &t->rnext;
        }
    }
    pthread_cond_broadcast(&rep->cv);
    pthread_mutex_unlock(&rep->lock);
    int n = 0;
    while (mine) {
        rt_task *nx = mine->rnext;
        rt_report_complete(mine, 1);
        mine = nx;
        n++;
    }
    if (n)
        acl_log(ACL_WARNING, "stream %p: %d queued host callbacks discarded (unsubscribed or destroyed)",
                RT_P(s->handle), n);
}

void rt_report_detach_stream(rt_stream *s)
{
    pthread_rwlock_wrlock(&g_rt.lock);
    pthread_mutex_lock(&s->lock);
    rt_report *rep = s->report;
    s->report = NULL;
    pthread_mutex_unlock(&s->lock);
    if (rep) atomic_fetch_sub(&rep->nstreams, 1);
    pthread_rwlock_unlock(&g_rt.lock);
    if (rep) report_discard_stream(rep, s);
}

void rt_report_finalize_all(void)
{
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_report *list = g_rt.reports;
    g_rt.reports = NULL;
    g_rt.nreports = 0;
    pthread_rwlock_unlock(&g_rt.lock);
    while (list) {
        rt_report *n = list->next;
        pthread_mutex_lock(&list->lock);
        list->closing = 1;
        pthread_cond_broadcast(&list->cv);
        while (list->inside > 0) pthread_cond_wait(&list->cv, &list->lock);
        pthread_mutex_unlock(&list->lock);
        pthread_mutex_destroy(&list->lock);
        pthread_cond_destroy(&list->cv);
        free(list);
        list = n;
    }
}

ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    int rc = rt_check_init("aclrtSubscribeReport");
    if (rc) return rc;
    if (threadId == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSubscribeReport: threadId is 0");
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_stream *s = NULL;
    rc = rt_stream_resolve_locked("aclrtSubscribeReport", stream, rt_ctx_current_locked(), &s);
    if (rc) goto out;
    rt_report *rep = report_find(threadId);
    if (!rep) {
        if (g_rt.nreports >= RT_MAX_REPORT_THREADS) {
            rc = acl_fail(ACL_ERROR_RT_OVER_LIMIT, "aclrtSubscribeReport: already %d report threads (the limit)",
                          RT_MAX_REPORT_THREADS);
            goto out;
        }
        rep = calloc(1, sizeof(*rep));
        if (!rep) {
            rc = acl_fail(ACL_ERROR_BAD_ALLOC, "aclrtSubscribeReport: out of host memory");
            goto out;
        }
        rep->tid = threadId;
        rep->device = s->device;
        rt_mutex_init(&rep->lock);
        rt_cond_init(&rep->cv);
        rep->next = g_rt.reports;
        g_rt.reports = rep;
        g_rt.nreports++;
    }
    if (atomic_load(&rep->nstreams) > 0 && rep->device != s->device) {
        rc = acl_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                      "aclrtSubscribeReport: thread %llu already serves streams of device %d; stream %p is on "
                      "device %d",
                      (unsigned long long)threadId, rep->device, RT_P(s->handle), s->device);
        goto out;
    }
    pthread_mutex_lock(&s->lock);
    if (s->report == rep)
        rc = acl_fail(ACL_ERROR_REPEAT_SUBSCRIBE, "aclrtSubscribeReport: thread %llu is already subscribed to stream %p",
                      (unsigned long long)threadId, RT_P(s->handle));
    else if (s->report)
        rc = acl_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                      "aclrtSubscribeReport: stream %p already has report thread %llu (one thread per stream)",
                      RT_P(s->handle), (unsigned long long)s->report->tid);
    else
        s->report = rep;
    pthread_mutex_unlock(&s->lock);
    if (!rc) {
        rep->device = s->device;
        atomic_fetch_add(&rep->nstreams, 1);
    }
out:
    pthread_rwlock_unlock(&g_rt.lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    int rc = rt_check_init("aclrtUnSubscribeReport");
    if (rc) return rc;
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_stream *s = NULL;
    rc = rt_stream_resolve_locked("aclrtUnSubscribeReport", stream, rt_ctx_current_locked(), &s);
    if (rc) {
        pthread_rwlock_unlock(&g_rt.lock);
        return rc;
    }
    rt_report *rep = report_find(threadId);
    if (!rep) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                        "aclrtUnSubscribeReport: thread %llu is not subscribed to any stream",
                        (unsigned long long)threadId);
    }
    pthread_mutex_lock(&s->lock);
    int mine = s->report == rep;
    if (mine) s->report = NULL;
    pthread_mutex_unlock(&s->lock);
    if (mine) atomic_fetch_sub(&rep->nstreams, 1);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!mine)
        return acl_fail(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                        "aclrtUnSubscribeReport: stream %p is not subscribed to thread %llu", stream,
                        (unsigned long long)threadId);
    report_discard_stream(rep, s);
    return ACL_SUCCESS;
}

/* On an idle stream the worker would only pass the callback on: hand it to
 * the report thread here and save a thread wake-up. The stream then counts
 * the callback as reached (done_seq) but outstanding; a BLOCK callback
 * holds the worker through blocked_by until it has run. */
static int report_direct(rt_stream *s, const rt_task *tmpl)
{
    pthread_mutex_lock(&s->lock);
    rt_report *rep = s->report;
    if (!rep || s->closing || s->head || s->running || s->blocked_by || atomic_load(&s->aborting) ||
        (s->sticky_code && s->failure_mode == ACL_STOP_ON_FAILURE)) {
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    rt_task *t = rt_task_alloc(s);
    if (!t) {
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    *t = *tmpl;
    t->next = NULL;
    t->stream = s;
    t->direct = 1;
    t->tid = rt_tid();
    t->seq = ++s->enq_seq;
    t->onext = NULL;
    if (s->out_tail)
        s->out_tail->onext = t;
    else
        s->out_head = t;
    s->out_tail = t;
    atomic_fetch_add_explicit(&s->out_n, 1, memory_order_relaxed);
    if (t->block) s->blocked_by = t;
    pthread_mutex_lock(&rep->lock);
    t->rnext = NULL;
    if (rep->qtail)
        rep->qtail->rnext = t;
    else
        rep->qhead = t;
    rep->qtail = t;
    atomic_fetch_add_explicit(&rep->qcount, 1, memory_order_release);
    if (rep->waiting) pthread_cond_signal(&rep->cv);
    pthread_mutex_unlock(&rep->lock);
    atomic_store_explicit(&s->done_seq, t->seq, memory_order_release);
    pthread_mutex_unlock(&s->lock);
    return 1;
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtLaunchCallback", stream, &s);
    if (rc) return rc;
    if (!fn) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is NULL");
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtLaunchCallback: blockType %d is not ACL_CALLBACK_NO_BLOCK (0) or ACL_CALLBACK_BLOCK (1)",
                        (int)blockType);
    pthread_mutex_lock(&s->lock);
    int subscribed = s->report != NULL;
    pthread_mutex_unlock(&s->lock);
    if (!subscribed)
        return acl_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                        "aclrtLaunchCallback: stream %p has no subscribed report thread (call aclrtSubscribeReport "
                        "first)",
                        RT_P(s->handle));
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_CALLBACK;
    t.block = blockType == ACL_CALLBACK_BLOCK;
    t.u.cb.fn = fn;
    t.u.cb.data = userData;
    if (report_direct(s, &t)) return ACL_SUCCESS;
    return rt_stream_submit("aclrtLaunchCallback", s, &t, NULL);
}

ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout)
{
    int rc = rt_check_init("aclrtProcessReport");
    if (rc) return rc;
    if (timeout == 0 || timeout < -1)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtProcessReport: timeout %d ms invalid (use -1 to wait forever or a positive value)",
                        (int)timeout);
    uint64_t self = (uint64_t)pthread_self();
    unsigned long epoch = atomic_load(&g_rt.epoch);
    rt_report *rep = (tl_rep && tl_rep_epoch == epoch) ? tl_rep : NULL;
    pthread_rwlock_rdlock(&g_rt.lock);
    if (!rep) rep = report_find(self);
    if (rep) {
        pthread_mutex_lock(&rep->lock);
        rep->inside++;
        pthread_mutex_unlock(&rep->lock);
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!rep)
        return acl_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                        "aclrtProcessReport: thread %llu is not subscribed to any stream (aclrtSubscribeReport)",
                        (unsigned long long)self);
    tl_rep = rep;
    tl_rep_epoch = epoch;

    struct timespec dl;
    if (timeout > 0) rt_deadline(&dl, timeout);
    pthread_mutex_lock(&rep->lock);
    int unsubscribed = 0, timed_out = 0;
    while (!rep->qhead && !rep->closing) {
        if (atomic_load(&rep->nstreams) == 0) {
            unsubscribed = 1;
            break;
        }
        if (g_rt.spin_ns) {
            pthread_mutex_unlock(&rep->lock);
            uint64_t t0 = rt_now_ns();
            for (unsigned i = 1; atomic_load_explicit(&rep->qcount, memory_order_acquire) == 0; i++) {
                rt_cpu_relax();
                if ((i & 63) == 0 && rt_now_ns() - t0 > g_rt.spin_ns) break;
            }
            pthread_mutex_lock(&rep->lock);
            if (rep->qhead || rep->closing) break;
        }
        rep->waiting++;
        int e = timeout > 0 ? pthread_cond_timedwait(&rep->cv, &rep->lock, &dl) : pthread_cond_wait(&rep->cv, &rep->lock);
        rep->waiting--;
        if (e == ETIMEDOUT && !rep->qhead) {
            timed_out = 1;
            break;
        }
    }
    rt_task *list = rep->qhead;
    rep->qhead = rep->qtail = NULL;
    atomic_store(&rep->qcount, 0);
    pthread_mutex_unlock(&rep->lock);

    int ran = 0;
    while (list) {
        rt_task *nx = list->rnext;
        list->u.cb.fn(list->u.cb.data);
        rt_report_complete(list, 0);
        list = nx;
        ran++;
    }

    pthread_mutex_lock(&rep->lock);
    int closing = rep->closing;
    rep->inside--;
    if (closing) pthread_cond_broadcast(&rep->cv);
    pthread_mutex_unlock(&rep->lock);
    if (ran) return ACL_SUCCESS;
    if (closing || unsubscribed) /* the normal end of a report loop: logged at INFO */
        return acl_fail_quiet(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                        "aclrtProcessReport: thread %llu has no subscribed stream any more", (unsigned long long)self);
    (void)timed_out;
    return acl_fail_quiet(ACL_ERROR_RT_REPORT_TIMEOUT, "aclrtProcessReport: no callback arrived within %d ms",
                          (int)timeout);
}
