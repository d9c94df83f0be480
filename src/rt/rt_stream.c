/* Streams: an ordered task queue per stream, drained by its own worker
 * thread. Enqueue takes the stream mutex for a few pointer moves; the
 * worker and synchronizers spin briefly (config spin_us) on atomic
 * sequence numbers before sleeping on a condition variable, so short
 * bursts and idle synchronizes never pay for a wake-up.
 * A failing task leaves a sticky error on the stream, reported (and
 * cleared) by the next synchronize. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt_priv.h"

#define RT_FREE_TASKS_MAX 256

/* ------------------------------------------------------------ task nodes */

rt_task *rt_task_alloc(rt_stream *s)
{
    rt_task *t = s->free_list;
    if (t) {
        s->free_list = t->next;
        s->free_count--;
        return t;
    }
    return malloc(sizeof(rt_task));
}

void rt_task_recycle(rt_stream *s, rt_task *t)
{
    if (s->free_count >= RT_FREE_TASKS_MAX) {
        free(t);
        return;
    }
    t->next = s->free_list;
    s->free_list = t;
    s->free_count++;
}

/* ---------------------------------------------------------------- worker */

/* Runs what a discarded task must still do: release its argument, drop
 * references, free staging buffers. */
static void task_discard(rt_task *t)
{
    switch (t->kind) {
    case RT_TASK_FN:
        if (t->u.fn.release) t->u.fn.release(t->u.fn.arg);
        break;
    case RT_TASK_MEMCPY: free(t->u.cp.staging); break;
    case RT_TASK_EVENT_RECORD:
    case RT_TASK_EVENT_RESET:
    case RT_TASK_EVENT_WAIT: rt_event_run(t, NULL); break;
    default: break;
    }
}

/* Returns an aclError; *keep = 1 when the node now belongs to a report
 * thread (a NO_BLOCK callback handed over). */
static int task_run(rt_stream *s, rt_task *t, int *keep)
{
    int rc = ACL_SUCCESS;
    switch (t->kind) {
    case RT_TASK_FN:
        rc = t->u.fn.fn(t->u.fn.arg);
        if (t->u.fn.release) t->u.fn.release(t->u.fn.arg);
        break;
    case RT_TASK_MEMCPY:
        memmove(t->u.cp.dst, t->u.cp.staging ? t->u.cp.staging : t->u.cp.src, t->u.cp.n);
        free(t->u.cp.staging);
        break;
    case RT_TASK_MEMCPY2D:
        for (size_t r = 0; r < t->u.cp2.h; r++)
            memmove((char *)t->u.cp2.dst + r * t->u.cp2.dpitch, (const char *)t->u.cp2.src + r * t->u.cp2.spitch,
                    t->u.cp2.w);
        break;
    case RT_TASK_MEMSET: memset(t->u.ms.dst, t->u.ms.v, t->u.ms.n); break;
    case RT_TASK_EVENT_RECORD:
    case RT_TASK_EVENT_RESET: rt_event_run(t, s); break;
    case RT_TASK_EVENT_WAIT:
        rt_event_run(t, s);
        if (t->u.ev.timed_out)
            rc = acl_fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                          "aclrtStreamWaitEventWithTimeout: stream %u: the event was not recorded within %d ms",
                          s->id, (int)t->u.ev.timeout_ms);
        break;
    case RT_TASK_CALLBACK: {
        /* a NO_BLOCK node belongs to the report thread once delivered: it
         * may already be recycled when rt_report_deliver returns */
        int block = t->block;
        rc = rt_report_deliver(s, t);
        if (rc == ACL_SUCCESS && !block) *keep = 1;
        break;
    }
    case RT_TASK_HOSTFUNC: t->u.hf.fn(t->u.hf.args); break;
    default:
        rc = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR, "stream worker: unknown task kind %d", (int)t->kind);
    }
    return rc;
}

static const char *task_name(const rt_task *t)
{
    if (t->what) return t->what;
    switch (t->kind) {
    case RT_TASK_MEMCPY: return "aclrtMemcpyAsync";
    case RT_TASK_MEMCPY2D: return "aclrtMemcpy2dAsync";
    case RT_TASK_MEMSET: return "aclrtMemsetAsync";
    case RT_TASK_EVENT_RECORD: return "aclrtRecordEvent";
    case RT_TASK_EVENT_RESET: return "aclrtResetEvent";
    case RT_TASK_EVENT_WAIT: return "aclrtStreamWaitEvent";
    case RT_TASK_CALLBACK: return "aclrtLaunchCallback";
    case RT_TASK_HOSTFUNC: return "aclrtLaunchHostFunc";
    default: return "task";
    }
}

static void *worker_main(void *arg)
{
    rt_stream *s = arg;
    rt_ctx_set_current(s->ctx);
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (!s->head || s->blocked_by) {
            if (!s->head && s->stop) break;
            if (g_rt.spin_ns && !s->blocked_by) {
                /* enq_seq_a moves only when a task is queued for this worker
                 * (callbacks handed over directly do not wake it) */
                uint64_t seen = atomic_load_explicit(&s->enq_seq_a, memory_order_relaxed);
                pthread_mutex_unlock(&s->lock);
                uint64_t t0 = rt_now_ns();
                for (unsigned i = 1;; i++) {
                    if (atomic_load_explicit(&s->enq_seq_a, memory_order_acquire) != seen) break;
                    rt_cpu_relax();
                    if ((i & 63) == 0 && rt_now_ns() - t0 > g_rt.spin_ns) break;
                }
                pthread_mutex_lock(&s->lock);
                if ((s->head && !s->blocked_by) || s->stop) continue;
            }
            s->worker_sleeping = 1;
            pthread_cond_wait(&s->work_cv, &s->lock);
            s->worker_sleeping = 0;
            continue;
        }
        rt_task *t = s->head;
        s->head = t->next;
        if (!s->head) s->tail = NULL;
        int discard = atomic_load(&s->aborting) || (s->failure_mode == ACL_STOP_ON_FAILURE && s->sticky_code);
        s->running = 1;
        pthread_mutex_unlock(&s->lock);

        int keep = 0, rc = ACL_SUCCESS;
        uint64_t seq = t->seq;
        char *msg = NULL;
        if (discard) {
            task_discard(t);
        } else {
            rc = task_run(s, t, &keep);
            if (rc != ACL_SUCCESS) {
                msg = acl_err_take();
                rt_exception_raise(s, t, rc);
            }
        }

        pthread_mutex_lock(&s->lock);
        if (rc != ACL_SUCCESS) {
            if (!s->sticky_code) {
                s->sticky_code = rc;
                s->sticky_msg = msg;
                s->sticky_what = task_name(t);
                s->sticky_seq = t->seq;
                msg = NULL;
            } else {
                s->sticky_more++;
            }
        }
        s->running = 0;
        atomic_store_explicit(&s->done_seq, seq, memory_order_release);
        if (!keep) rt_task_recycle(s, t);
        if (s->waiters) pthread_cond_broadcast(&s->done_cv);
        if (msg) free(msg);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* stream lock held */
static int worker_start(rt_stream *s)
{
    if (s->worker_started) return ACL_SUCCESS;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 8u << 20);
    int e = pthread_create(&s->worker, &a, worker_main, s);
    pthread_attr_destroy(&a);
    if (e) return e;
    s->worker_started = 1;
    return ACL_SUCCESS;
}

/* -------------------------------------------------------------- lifecycle */

rt_stream *rt_stream_new(rt_ctx *ctx, int is_default, uint32_t flags)
{
    rt_stream *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->ctx = ctx;
    s->device = ctx->device;
    s->is_default = is_default;
    s->flags = flags;
    rt_mutex_init(&s->lock);
    rt_cond_init(&s->work_cv);
    rt_cond_init(&s->done_cv);
    s->handle = rt_handle_add(RT_H_STREAM, s);
    if (!s->handle) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->work_cv);
        pthread_cond_destroy(&s->done_cv);
        free(s);
        return NULL;
    }
    s->id = atomic_fetch_add(&g_rt.stream_ids, 1);
    s->ctx_next = ctx->streams;
    ctx->streams = s;
    return s;
}

void rt_stream_unlink(rt_stream *s)
{
    rt_handle_del(s->handle);
    for (rt_stream **pp = &s->ctx->streams; *pp; pp = &(*pp)->ctx_next)
        if (*pp == s) {
            *pp = s->ctx_next;
            break;
        }
}

void rt_stream_teardown(rt_stream *s, int force)
{
    pthread_mutex_lock(&s->lock);
    s->closing = 1;
    if (force) atomic_store(&s->aborting, 1);
    uint64_t target = s->enq_seq;
    pthread_mutex_unlock(&s->lock);
    if (force)
        rt_stream_abort_callbacks(s);
    else
        rt_stream_wait("aclrtDestroyStream", s, target, -1, 0);

    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->work_cv);
    int started = s->worker_started;
    pthread_mutex_unlock(&s->lock);
    if (started) pthread_join(s->worker, NULL);

    /* callbacks a report thread is running right now still point at s */
    pthread_mutex_lock(&s->lock);
    while (s->out_head) {
        s->waiters++;
        pthread_cond_wait(&s->done_cv, &s->lock);
        s->waiters--;
    }
    pthread_mutex_unlock(&s->lock);
    rt_report_detach_stream(s);

    while (s->free_list) {
        rt_task *n = s->free_list->next;
        free(s->free_list);
        s->free_list = n;
    }
    free(s->sticky_msg);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->done_cv);
    free(s);
}

/* -------------------------------------------------------- enqueue / wait */

int rt_stream_submit(const char *api, rt_stream *s, const rt_task *tmpl, uint64_t *seq)
{
    pthread_mutex_lock(&s->lock);
    if (s->closing) {
        pthread_mutex_unlock(&s->lock);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is being destroyed", api, RT_P(s->handle));
    }
    if (!s->worker_started) {
        int e = worker_start(s);
        if (e) {
            pthread_mutex_unlock(&s->lock);
            return acl_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "%s: stream %p: cannot start its worker thread: %s",
                            api, RT_P(s->handle), strerror(e));
        }
    }
    rt_task *t = rt_task_alloc(s);
    if (!t) {
        pthread_mutex_unlock(&s->lock);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: stream %p: out of host memory for a task", api, RT_P(s->handle));
    }
    *t = *tmpl;
    t->next = NULL;
    t->stream = s;
    t->done = 0;
    t->discarded = 0;
    t->direct = 0;
    t->tid = rt_tid();
    t->seq = ++s->enq_seq;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    atomic_store_explicit(&s->enq_seq_a, t->seq, memory_order_release);
    if (s->worker_sleeping) pthread_cond_signal(&s->work_cv);
    if (seq) *seq = t->seq;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

/* stream lock held */
static int stream_reached(const rt_stream *s, uint64_t target)
{
    return atomic_load_explicit(&s->done_seq, memory_order_acquire) >= target &&
           !(s->out_head && s->out_head->seq <= target);
}

int rt_stream_wait(const char *api, rt_stream *s, uint64_t target, int32_t timeout_ms, int report)
{
    if (g_rt.spin_ns && (atomic_load_explicit(&s->done_seq, memory_order_acquire) < target ||
                         atomic_load_explicit(&s->out_n, memory_order_acquire) > 0)) {
        uint64_t t0 = rt_now_ns();
        for (unsigned i = 1; atomic_load_explicit(&s->done_seq, memory_order_acquire) < target ||
                             atomic_load_explicit(&s->out_n, memory_order_acquire) > 0;
             i++) {
            rt_cpu_relax();
            if ((i & 63) == 0 && rt_now_ns() - t0 > g_rt.spin_ns) break;
        }
    }
    pthread_mutex_lock(&s->lock);
    struct timespec dl;
    if (timeout_ms > 0) rt_deadline(&dl, timeout_ms);
    while (!stream_reached(s, target)) {
        s->waiters++;
        int e = timeout_ms > 0 ? pthread_cond_timedwait(&s->done_cv, &s->lock, &dl)
                               : pthread_cond_wait(&s->done_cv, &s->lock);
        s->waiters--;
        if (e == ETIMEDOUT && !stream_reached(s, target)) {
            uint64_t done = atomic_load(&s->done_seq);
            pthread_mutex_unlock(&s->lock);
            return acl_fail_quiet(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                  "%s: stream %p: not finished after %d ms (%llu of %llu tasks done)", api,
                                  RT_P(s->handle), (int)timeout_ms, (unsigned long long)done,
                                  (unsigned long long)target);
        }
    }
    if (!report || !s->sticky_code) {
        pthread_mutex_unlock(&s->lock);
        return ACL_SUCCESS;
    }
    int code = s->sticky_code;
    char *msg = s->sticky_msg;
    const char *what = s->sticky_what;
    unsigned long long seq = s->sticky_seq;
    unsigned more = s->sticky_more;
    s->sticky_code = 0;
    s->sticky_msg = NULL;
    s->sticky_more = 0;
    pthread_mutex_unlock(&s->lock);
    /* the task's own message first (it is older), then ours */
    if (msg) {
        char *nl = msg;
        while ((nl = strchr(nl, '\n'))) *nl++ = ' ';
    }
    acl_fail(code, "%s: stream %p: asynchronous task #%llu (%s) failed%s%s%s", api, RT_P(s->handle), seq, what,
             msg ? ": " : "", msg ? msg : "",
             more ? " (later tasks on this stream failed too)" : "");
    free(msg);
    return code;
}

void rt_stream_abort_callbacks(rt_stream *s)
{
    /* queued report items of s are completed as discarded by the report side */
    rt_report_detach_stream(s);
}

/* --------------------------------------------------- resolve (internal) */

int rt_stream_resolve_locked(const char *api, aclrtStream stream, rt_ctx *ctx, rt_stream **out)
{
    if (!ctx)
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                        "%s: the calling thread has no current context (call aclrtSetDevice or "
                        "aclrtSetCurrentContext first)",
                        api);
    if (!stream) {
        *out = ctx->def_stream;
        return ACL_SUCCESS;
    }
    rt_stream *s = rt_handle_get(RT_H(stream), RT_H_STREAM);
    if (!s)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream (destroyed or never created)",
                        api, stream);
    if (s->device != ctx->device)
        return acl_fail(ACL_ERROR_RT_STREAM_CONTEXT,
                        "%s: stream %p belongs to device %d but the current context is on device %d", api, stream,
                        s->device, ctx->device);
    *out = s;
    return ACL_SUCCESS;
}

int rt_stream_resolve(const char *api, aclrtStream stream, rt_stream **out)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: internal: out is NULL", api);
    pthread_rwlock_rdlock(&g_rt.lock);
    rc = rt_stream_resolve_locked(api, stream, rt_ctx_current_locked(), out);
    pthread_rwlock_unlock(&g_rt.lock);
    return rc;
}

int rt_stream_enqueue(rt_stream *s, int (*fn)(void *arg), void (*release)(void *arg), void *arg, const char *what)
{
    if (!s || !fn) return acl_fail(ACL_ERROR_INVALID_PARAM, "rt_stream_enqueue: %s is NULL", s ? "fn" : "stream");
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_FN;
    t.what = what;
    t.u.fn.fn = fn;
    t.u.fn.release = release;
    t.u.fn.arg = arg;
    return rt_stream_submit(what ? what : "rt_stream_enqueue", s, &t, NULL);
}

int rt_stream_sync(const char *api, rt_stream *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enq_seq;
    pthread_mutex_unlock(&s->lock);
    return rt_stream_wait(api, s, target, -1, 1);
}

int rt_stream_device(const rt_stream *s) { return s ? s->device : -1; }

aclrtStream rt_stream_handle(const rt_stream *s) { return s ? RT_P(s->handle) : NULL; }

/* ------------------------------------------------------------ public API */

static aclError create_stream(const char *api, aclrtStream *stream, uint32_t flags)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!stream) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL", api);
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_ctx *ctx = rt_ctx_current_locked();
    if (!ctx) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
                        "%s: the calling thread has no current context (call aclrtSetDevice first)", api);
    }
    rt_stream *s = rt_stream_new(ctx, 0, flags);
    int e = 0;
    if (s) {
        pthread_mutex_lock(&s->lock);
        e = worker_start(s);
        pthread_mutex_unlock(&s->lock);
        if (e) rt_stream_unlink(s);
    }
    pthread_rwlock_unlock(&g_rt.lock);
    if (!s) return acl_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "%s: out of host memory for a stream", api);
    if (e) {
        rt_stream_teardown(s, 1);
        return acl_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "%s: cannot start a worker thread: %s", api, strerror(e));
    }
    *stream = RT_P(s->handle);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream)
{
    return create_stream("aclrtCreateStream", stream, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    (void)priority; /* reserved in CANN */
    return create_stream("aclrtCreateStreamWithConfig", stream, flag);
}

static aclError destroy_stream(const char *api, aclrtStream stream, int force)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!stream) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL (the default stream cannot be destroyed)", api);
    pthread_rwlock_wrlock(&g_rt.lock);
    rt_stream *s = rt_handle_get(RT_H(stream), RT_H_STREAM);
    if (!s) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream (destroyed or never created)",
                        api, stream);
    }
    if (s->is_default) {
        pthread_rwlock_unlock(&g_rt.lock);
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: stream %p is the default stream of its context and cannot be destroyed", api, stream);
    }
    rt_stream_unlink(s);
    pthread_rwlock_unlock(&g_rt.lock);
    rt_stream_teardown(s, force);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream)
{
    return destroy_stream("aclrtDestroyStream", stream, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream("aclrtDestroyStreamForce", stream, 1);
}

static aclError sync_stream(const char *api, aclrtStream stream, int32_t timeout)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve(api, stream, &s);
    if (rc) return rc;
    if (timeout < -1 || timeout == 0)
        return acl_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: timeout %d ms invalid (use -1 or a positive value)", api,
                        (int)timeout);
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enq_seq;
    pthread_mutex_unlock(&s->lock);
    return rt_stream_wait(api, s, target, timeout, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream("aclrtSynchronizeStream", stream, -1);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtStreamQuery", stream, &s);
    if (rc) return rc;
    if (!status) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL");
    pthread_mutex_lock(&s->lock);
    int idle = stream_reached(s, s->enq_seq) && !s->out_head;
    pthread_mutex_unlock(&s->lock);
    *status = idle ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtSetStreamFailureMode", stream, &s);
    if (rc) return rc;
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "aclrtSetStreamFailureMode: mode %llu is not ACL_CONTINUE_ON_FAILURE (0) or "
                        "ACL_STOP_ON_FAILURE (1)",
                        (unsigned long long)mode);
    pthread_mutex_lock(&s->lock);
    s->failure_mode = mode;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtLaunchHostFunc", stream, &s);
    if (rc) return rc;
    if (!fn) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is NULL");
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_HOSTFUNC;
    t.u.hf.fn = fn;
    t.u.hf.args = args;
    return rt_stream_submit("aclrtLaunchHostFunc", s, &t, NULL);
}

/* ------------------------------------------------------ stream properties */

ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtStreamGetId", stream, &s);
    if (rc) return rc;
    if (!streamId) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetId: streamId is NULL");
    *streamId = (int32_t)s->id;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtStreamGetPriority", stream, &s);
    if (rc) return rc;
    if (!priority) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetPriority: priority is NULL");
    *priority = 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtStreamGetFlags", stream, &s);
    if (rc) return rc;
    if (!flags) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetFlags: flags is NULL");
    *flags = s->flags;
    return ACL_SUCCESS;
}

static const char *stream_attr_name(aclrtStreamAttr a)
{
    switch (a) {
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: return "ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK";
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: return "ACL_STREAM_ATTR_USER_CUSTOM_TAG";
    case ACL_STREAM_ATTR_CACHE_OP_INFO: return "ACL_STREAM_ATTR_CACHE_OP_INFO";
    default: return NULL;
    }
}

static int stream_attr_check(const char *api, aclrtStreamAttr a, aclrtStreamAttrValue *value)
{
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: value is NULL", api);
    if (a == ACL_STREAM_ATTR_FAILURE_MODE || a == ACL_STREAM_ATTR_PRIORITY) return ACL_SUCCESS;
    const char *n = stream_attr_name(a);
    if (n)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: %s is an AI Core feature; not supported by openacl", api,
                        n);
    return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: stmAttrType %d is not an aclrtStreamAttr (1..5)", api, (int)a);
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value)
{
    static const char api[] = "aclrtSetStreamAttribute";
    rt_stream *s = NULL;
    int rc = rt_stream_resolve(api, stream, &s);
    if (rc) return rc;
    if ((rc = stream_attr_check(api, stmAttrType, value))) return rc;
    if (stmAttrType == ACL_STREAM_ATTR_PRIORITY) {
        if (value->streamPriority != 0)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: streamPriority %u out of range [0, 0]", api,
                            value->streamPriority);
        return ACL_SUCCESS;
    }
    if (value->failureMode != ACL_CONTINUE_ON_FAILURE && value->failureMode != ACL_STOP_ON_FAILURE)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: failureMode %llu is not ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)", api,
                        (unsigned long long)value->failureMode);
    pthread_mutex_lock(&s->lock);
    s->failure_mode = value->failureMode;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value)
{
    static const char api[] = "aclrtGetStreamAttribute";
    rt_stream *s = NULL;
    int rc = rt_stream_resolve(api, stream, &s);
    if (rc) return rc;
    if ((rc = stream_attr_check(api, stmAttrType, value))) return rc;
    memset(value, 0, sizeof(*value));
    if (stmAttrType == ACL_STREAM_ATTR_PRIORITY) return ACL_SUCCESS;
    pthread_mutex_lock(&s->lock);
    value->failureMode = s->failure_mode;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}
