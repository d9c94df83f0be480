/* Concurrency: THREADS application threads, each with STREAMS streams of
 * its own, enqueue ITERS x (async copy + host callback) per stream; two
 * report threads serve all streams. Every callback checks that the copy
 * before it on its stream has landed, and logs its index; each stream's
 * log must come out in order. All threads also share one stream, onto which
 * each thread's host functions must run in that thread's order. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "rt_test.h"

#define THREADS 4
#define STREAMS 3
#define ITERS 1000
#define SLOT 64
#define SHARED_PER_THREAD 500

typedef struct stream_state {
    aclrtStream s;
    unsigned char *host;   /* pinned, ITERS slots */
    unsigned char *dev;    /* device, ITERS slots */
    int log[ITERS];
    atomic_int n;
    atomic_int bad;
} stream_state;

typedef struct cb_arg {
    stream_state *st;
    int i;
} cb_arg;

static aclrtContext g_ctx;
static aclrtStream g_shared;
static int g_shared_log[THREADS * SHARED_PER_THREAD];
static atomic_int g_shared_n;
static atomic_int g_stop;
static pthread_t g_reporters[2];
static atomic_int g_errors;

static void on_callback(void *ud)
{
    cb_arg *a = ud;
    stream_state *st = a->st;
    /* the copy enqueued just before has run: slot i holds i's pattern */
    unsigned char want = (unsigned char)(a->i * 7 + 1);
    if (st->dev[(size_t)a->i * SLOT] != want || st->dev[(size_t)a->i * SLOT + SLOT - 1] != want)
        atomic_fetch_add(&st->bad, 1);
    st->log[atomic_fetch_add(&st->n, 1)] = a->i;
}

static void shared_fn(void *ud)
{
    g_shared_log[atomic_fetch_add(&g_shared_n, 1)] = (int)(intptr_t)ud;
}

static void *reporter(void *arg)
{
    (void)arg;
    if (aclrtSetCurrentContext(g_ctx) != ACL_SUCCESS) atomic_fetch_add(&g_errors, 1);
    while (!atomic_load(&g_stop)) {
        aclError rc = aclrtProcessReport(10);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT && rc != ACL_ERROR_RT_THREAD_SUBSCRIBE)
            atomic_fetch_add(&g_errors, 1);
        if (rc != ACL_SUCCESS) aclGetRecentErrMsg();
    }
    return NULL;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    stream_state *st = calloc(STREAMS, sizeof(*st));
    cb_arg *args = calloc((size_t)STREAMS * ITERS, sizeof(*args));
    if (!st || !args) {
        atomic_fetch_add(&g_errors, 1);
        return NULL;
    }
    OK(aclrtSetCurrentContext(g_ctx));
    for (int k = 0; k < STREAMS; k++) {
        OK(aclrtCreateStream(&st[k].s));
        OK(aclrtMallocHost((void **)&st[k].host, (size_t)ITERS * SLOT));
        OK(aclrtMalloc((void **)&st[k].dev, (size_t)ITERS * SLOT, ACL_MEM_MALLOC_HUGE_FIRST));
        for (int i = 0; i < ITERS; i++) memset(st[k].host + (size_t)i * SLOT, i * 7 + 1, SLOT);
        OK(aclrtSubscribeReport((uint64_t)g_reporters[(id + k) & 1], st[k].s));
    }
    int shared_k = 0;
    for (int i = 0; i < ITERS; i++) {
        for (int k = 0; k < STREAMS; k++) {
            cb_arg *a = &args[k * ITERS + i];
            a->st = &st[k];
            a->i = i;
            OK(aclrtMemcpyAsync(st[k].dev + (size_t)i * SLOT, SLOT, st[k].host + (size_t)i * SLOT, SLOT,
                                ACL_MEMCPY_HOST_TO_DEVICE, st[k].s));
            OK(aclrtLaunchCallback(on_callback, a, (i % 3 == 0) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK,
                                   st[k].s));
        }
        if (i % 2 == 0 && shared_k < SHARED_PER_THREAD)
            OK(aclrtLaunchHostFunc(g_shared, shared_fn, (void *)(intptr_t)(id * 100000 + shared_k++)));
    }
    while (shared_k < SHARED_PER_THREAD)
        OK(aclrtLaunchHostFunc(g_shared, shared_fn, (void *)(intptr_t)(id * 100000 + shared_k++)));
    for (int k = 0; k < STREAMS; k++) {
        OK(aclrtSynchronizeStream(st[k].s));
        CHECK_EQ_INT(atomic_load(&st[k].n), ITERS);
        CHECK_EQ_INT(atomic_load(&st[k].bad), 0);
        int inorder = 1;
        for (int i = 0; i < ITERS; i++) inorder &= st[k].log[i] == i;
        CHECK(inorder);
        OK(aclrtUnSubscribeReport((uint64_t)g_reporters[(id + k) & 1], st[k].s));
        OK(aclrtDestroyStream(st[k].s));
        OK(aclrtFree(st[k].dev));
        OK(aclrtFreeHost(st[k].host));
    }
    free(args);
    free(st);
    return NULL;
}

int main(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtGetCurrentContext(&g_ctx));
    OK(aclrtCreateStream(&g_shared));
    for (int r = 0; r < 2; r++) pthread_create(&g_reporters[r], NULL, reporter, NULL);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    OK(aclrtSynchronizeStream(g_shared));
    atomic_store(&g_stop, 1);
    for (int r = 0; r < 2; r++) pthread_join(g_reporters[r], NULL);
    CHECK_EQ_INT(atomic_load(&g_errors), 0);

    /* shared stream: every thread's functions ran, each thread's in order */
    CHECK_EQ_INT(atomic_load(&g_shared_n), THREADS * SHARED_PER_THREAD);
    int next[THREADS] = {0};
    int ordered = 1;
    for (int i = 0; i < THREADS * SHARED_PER_THREAD; i++) {
        int v = g_shared_log[i], t = v / 100000, k = v % 100000;
        if (t < 0 || t >= THREADS || k != next[t]) ordered = 0;
        else next[t]++;
    }
    CHECK(ordered);
    size_t fr = 0, tot = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    CHECK_EQ_INT(fr, tot);
    OK(aclrtDestroyStream(g_shared));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    TEST_DONE();
}
