/* The internal runtime API the model layer builds on (rt_internal.h):
 * context/device queries, stream resolution and enqueue with release,
 * finalize hooks that still use the runtime, and what aclFinalize does with
 * work still queued. */
#include <pthread.h>
#include <stdatomic.h>

#include "rt/rt_priv.h"
#include "rt_test.h"

static void *g_weights;
static aclrtStream g_hook_stream;
static atomic_int g_hook_ran, g_hook_ok;
static void unload_all(void)
{
    /* what the model layer does: synchronize, free its memory */
    rt_stream *s = NULL;
    int ok = rt_initialized() && rt_stream_resolve("unload", g_hook_stream, &s) == ACL_SUCCESS &&
             rt_stream_sync("unload", s) == ACL_SUCCESS;
    rt_dev_free(g_weights);
    g_weights = NULL;
    atomic_store(&g_hook_ok, ok);
    atomic_fetch_add(&g_hook_ran, 1);
}

static atomic_int g_ran, g_released;
static int work(void *arg)
{
    atomic_fetch_add(&g_ran, 1);
    int *p = arg;
    *p += 1;
    return ACL_SUCCESS;
}
static void release(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_released, 1);
}

static pthread_mutex_t g_gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gc = PTHREAD_COND_INITIALIZER;
static int g_open;
static atomic_int g_entered;
static int gate(void *arg)
{
    (void)arg;
    atomic_store(&g_entered, 1);
    pthread_mutex_lock(&g_gm);
    while (!g_open) pthread_cond_wait(&g_gc, &g_gm);
    pthread_mutex_unlock(&g_gm);
    return ACL_SUCCESS;
}
static rt_stream *g_watch;
static void *open_on_abort(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_watch->aborting)) sched_yield();
    pthread_mutex_lock(&g_gm);
    g_open = 1;
    pthread_cond_broadcast(&g_gc);
    pthread_mutex_unlock(&g_gm);
    return NULL;
}

static int ctx_in_task_ok;
static int check_ctx(void *arg)
{
    void *expect = arg, *ctx = NULL;
    ctx_in_task_ok = rt_current_context("task", &ctx) == ACL_SUCCESS && ctx == expect;
    return ACL_SUCCESS;
}

int main(void)
{
    CHECK_EQ_INT(rt_check_init("mdlFoo"), ACL_ERROR_UNINITIALIZE);
    MSG_NAMES("mdlFoo");
    CHECK_EQ_INT(rt_device_count(), 0);
    void *ctx = NULL;
    FAILS(rt_current_context("mdlBar", &ctx), ACL_ERROR_UNINITIALIZE, "mdlBar");
    rt_on_finalize(unload_all);

    OK(aclInit(NULL));
    OK(rt_check_init("x"));
    FAILS(rt_current_context("mdlBar", &ctx), ACL_ERROR_RT_CONTEXT_NULL, "mdlBar");
    int32_t dev = -1;
    FAILS(rt_current_device("mdlBaz", &dev), ACL_ERROR_RT_CONTEXT_NULL, "mdlBaz");
    OK(aclrtSetDevice(1));
    OK(rt_current_context("x", &ctx));
    CHECK_EQ_INT(rt_context_device(ctx), 1);
    CHECK_EQ_INT(rt_context_device((void *)(uintptr_t)0x99), -1);
    OK(rt_current_device("x", &dev));
    CHECK_EQ_INT(dev, 1);
    CHECK(rt_device_threads(1) >= 1);

    /* enqueue on the default stream; fn sees the stream's context */
    rt_stream *ds = NULL;
    OK(rt_stream_resolve("x", NULL, &ds));
    CHECK_EQ_INT(rt_stream_device(ds), 1);
    CHECK(rt_stream_handle(ds) != NULL);
    int counter = 0;
    for (int i = 0; i < 100; i++) OK(rt_stream_enqueue(ds, work, release, &counter, "work"));
    OK(rt_stream_enqueue(ds, check_ctx, NULL, ctx, "check ctx"));
    OK(rt_stream_sync("x", ds));
    CHECK_EQ_INT(counter, 100);
    CHECK_EQ_INT(atomic_load(&g_released), 100);
    CHECK(ctx_in_task_ok);

    /* finalize: hook runs first with a usable runtime, then queued work is
     * discarded (released, not run) */
    g_weights = rt_dev_alloc(1, 4096, RT_MEM_WEIGHT);
    CHECK(g_weights != NULL);
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    g_hook_stream = s;
    rt_stream *rs = NULL;
    OK(rt_stream_resolve("x", s, &rs));
    OK(rt_stream_enqueue(rs, gate, NULL, NULL, "gate"));
    atomic_store(&g_ran, 0);
    atomic_store(&g_released, 0);
    while (!atomic_load(&g_entered)) sched_yield();
    /* the hook synchronizes s, so the gate must open before: open it now for
     * the hook's sync, and queue more work behind a second gate */
    pthread_mutex_lock(&g_gm);
    g_open = 1;
    pthread_cond_broadcast(&g_gc);
    pthread_mutex_unlock(&g_gm);
    OK(rt_stream_sync("x", rs));
    pthread_mutex_lock(&g_gm);
    g_open = 0;
    pthread_mutex_unlock(&g_gm);
    atomic_store(&g_entered, 0);
    aclrtStream s2 = NULL;
    OK(aclrtCreateStream(&s2));
    rt_stream *rs2 = NULL;
    OK(rt_stream_resolve("x", s2, &rs2));
    OK(rt_stream_enqueue(rs2, gate, NULL, NULL, "gate2"));
    for (int i = 0; i < 10; i++) OK(rt_stream_enqueue(rs2, work, release, &counter, "queued at finalize"));
    while (!atomic_load(&g_entered)) sched_yield();
    g_watch = rs2;
    pthread_t th;
    pthread_create(&th, NULL, open_on_abort, NULL);
    OK(aclFinalize());
    pthread_join(th, NULL);
    CHECK_EQ_INT(atomic_load(&g_hook_ran), 1);
    CHECK(atomic_load(&g_hook_ok));
    CHECK(g_weights == NULL);
    CHECK_EQ_INT(atomic_load(&g_ran), 0);
    CHECK_EQ_INT(atomic_load(&g_released), 10);
    CHECK(!rt_initialized());
    TEST_DONE();
}
