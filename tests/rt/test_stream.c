/* Streams: ordering, host functions, sticky asynchronous errors and the
 * exception callback, failure modes, timeouts, force destruction, handle
 * checks. Blocking is done with gates the test opens itself, never with
 * sleeps, so nothing depends on timing. */
#include <pthread.h>
#include <stdatomic.h>

#include "rt/rt_priv.h"
#include "rt_test.h"

#define N_ORDER 2000

static int g_order[N_ORDER];
static atomic_int g_pos;
static pthread_t g_caller;
static atomic_int g_on_other_thread;

static void record_index(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_order[atomic_fetch_add(&g_pos, 1)] = i;
    if (!pthread_equal(pthread_self(), g_caller)) atomic_store(&g_on_other_thread, 1);
}

/* a gate: a task that blocks its stream until the test opens it */
static pthread_mutex_t g_gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gc = PTHREAD_COND_INITIALIZER;
static int g_gate_open;
static atomic_int g_gate_entered;
static void gate(void *arg)
{
    (void)arg;
    atomic_store(&g_gate_entered, 1);
    pthread_mutex_lock(&g_gm);
    while (!g_gate_open) pthread_cond_wait(&g_gc, &g_gm);
    pthread_mutex_unlock(&g_gm);
}
static void gate_set(int open)
{
    pthread_mutex_lock(&g_gm);
    g_gate_open = open;
    pthread_cond_broadcast(&g_gc);
    pthread_mutex_unlock(&g_gm);
    if (!open) atomic_store(&g_gate_entered, 0);
}

static atomic_int g_ran, g_released;
static int task_ok(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
    return ACL_SUCCESS;
}
static int task_fail(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
    return acl_fail(ACL_ERROR_RT_AICORE_EXCEPTION, "kernelX: node conv7 produced garbage");
}
static void task_release(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_released, 1);
}

static atomic_int g_exc_calls;
static uint32_t g_exc_code, g_exc_dev, g_exc_stream, g_exc_task, g_exc_tid;
static void on_exception(aclrtExceptionInfo *info)
{
    atomic_fetch_add(&g_exc_calls, 1);
    g_exc_code = aclrtGetErrorCodeFromExceptionInfo(info);
    g_exc_dev = aclrtGetDeviceIdFromExceptionInfo(info);
    g_exc_stream = aclrtGetStreamIdFromExceptionInfo(info);
    g_exc_task = aclrtGetTaskIdFromExceptionInfo(info);
    g_exc_tid = aclrtGetThreadIdFromExceptionInfo(info);
}

static void test_order(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    atomic_store(&g_pos, 0);
    g_caller = pthread_self();
    for (int i = 0; i < N_ORDER; i++) OK(aclrtLaunchHostFunc(s, record_index, (void *)(intptr_t)i));
    OK(aclrtSynchronizeStream(s));
    CHECK_EQ_INT(atomic_load(&g_pos), N_ORDER);
    int inorder = 1;
    for (int i = 0; i < N_ORDER; i++) inorder &= g_order[i] == i;
    CHECK(inorder);
    CHECK(atomic_load(&g_on_other_thread));
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    OK(aclrtStreamQuery(s, &st));
    CHECK_EQ_INT(st, ACL_STREAM_STATUS_COMPLETE);
    /* default stream through NULL */
    atomic_store(&g_pos, 0);
    for (int i = 0; i < 100; i++) OK(aclrtLaunchHostFunc(NULL, record_index, (void *)(intptr_t)i));
    OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ_INT(atomic_load(&g_pos), 100);
    OK(aclrtDestroyStream(s));
}

static void test_args(void)
{
    aclrtStream s = NULL;
    FAILS(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM, "aclrtCreateStream");
    FAILS(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamWithConfig");
    OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    FAILS(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc");
    FAILS(aclrtStreamQuery(s, NULL), ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery");
    FAILS(aclrtSetStreamFailureMode(s, 2), ACL_ERROR_INVALID_PARAM, "aclrtSetStreamFailureMode");
    FAILS(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout");
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout");
    OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    OK(aclrtSynchronizeStreamWithTimeout(s, 1000));
    FAILS(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream");
    OK(aclrtDestroyStream(s));
    /* destroyed handle: detected, never dereferenced */
    aclrtStreamStatus st;
    FAILS(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream");
    FAILS(aclrtDestroyStreamForce(s), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce");
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream");
    FAILS(aclrtStreamQuery(s, &st), ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery");
    FAILS(aclrtLaunchHostFunc(s, gate, NULL), ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc");
    FAILS(aclrtSetStreamFailureMode(s, 0), ACL_ERROR_INVALID_PARAM, "aclrtSetStreamFailureMode");
    /* never created */
    FAILS(aclrtSynchronizeStream((aclrtStream)(uintptr_t)0xdeadbeef), ACL_ERROR_INVALID_PARAM,
          "aclrtSynchronizeStream");
    rt_stream *rs = NULL;
    FAILS(rt_stream_resolve("mdlTestResolve", s, &rs), ACL_ERROR_INVALID_PARAM, "mdlTestResolve");
}

static void test_sticky_error(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    rt_stream *rs = NULL;
    OK(rt_stream_resolve("test", s, &rs));
    CHECK(rt_stream_handle(rs) == s);
    CHECK_EQ_INT(rt_stream_device(rs), 0);
    OK(aclrtSetExceptionInfoCallback(on_exception));
    atomic_store(&g_ran, 0);
    atomic_store(&g_released, 0);
    OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "first ok"));
    OK(rt_stream_enqueue(rs, task_fail, task_release, NULL, "aclmdlExecuteAsync model 42"));
    OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "after"));
    aclError rc = aclrtSynchronizeStream(s);
    CHECK_EQ_INT(rc, ACL_ERROR_RT_AICORE_EXCEPTION);
    const char *m = aclGetRecentErrMsg();
    CHECK(m && strstr(m, "aclrtSynchronizeStream") && strstr(m, "model 42") && strstr(m, "conv7"));
    /* continue-on-failure: the third task ran */
    CHECK_EQ_INT(atomic_load(&g_ran), 3);
    CHECK_EQ_INT(atomic_load(&g_released), 3);
    /* reported once, then cleared */
    OK(aclrtSynchronizeStream(s));
    CHECK_EQ_INT(atomic_load(&g_exc_calls), 1);
    CHECK_EQ_INT(g_exc_code, ACL_ERROR_RT_AICORE_EXCEPTION);
    CHECK_EQ_INT(g_exc_dev, 0);
    CHECK_EQ_INT(g_exc_stream, rs->id);
    CHECK_EQ_INT(g_exc_task, 2);
    CHECK(g_exc_tid != 0);
    CHECK_EQ_INT(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
    MSG_NAMES("aclrtGetErrorCodeFromExceptionInfo");
    CHECK_EQ_INT(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    CHECK_EQ_INT(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    CHECK_EQ_INT(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    CHECK_EQ_INT(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    aclGetRecentErrMsg();
    OK(aclrtSetExceptionInfoCallback(NULL));

    /* the device-wide synchronize reports it too */
    OK(rt_stream_enqueue(rs, task_fail, NULL, NULL, "devsync task"));
    CHECK_EQ_INT(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_EXCEPTION);
    MSG_NAMES("devsync task");
    OK(aclrtSynchronizeDevice());

    /* stop-on-failure: later tasks are discarded but still released */
    OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    atomic_store(&g_ran, 0);
    atomic_store(&g_released, 0);
    OK(rt_stream_enqueue(rs, task_fail, task_release, NULL, "fails"));
    for (int i = 0; i < 5; i++) OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "skipped"));
    CHECK_EQ_INT(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
    MSG_NAMES("fails");
    CHECK_EQ_INT(atomic_load(&g_ran), 1);
    CHECK_EQ_INT(atomic_load(&g_released), 6);
    /* cleared: the stream runs again */
    OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "runs"));
    OK(rt_stream_sync("test", rs));
    CHECK_EQ_INT(atomic_load(&g_ran), 2);
    FAILS(rt_stream_enqueue(rs, NULL, NULL, NULL, "x"), ACL_ERROR_INVALID_PARAM, "rt_stream_enqueue");
    OK(aclrtDestroyStream(s));
}

static void test_timeout_and_query(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    gate_set(0);
    OK(aclrtLaunchHostFunc(s, gate, NULL));
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
          "aclrtSynchronizeStreamWithTimeout");
    FAILS(aclrtSynchronizeDeviceWithTimeout(20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
          "aclrtSynchronizeDeviceWithTimeout");
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    OK(aclrtStreamQuery(s, &st));
    CHECK_EQ_INT(st, ACL_STREAM_STATUS_NOT_READY);
    gate_set(1);
    OK(aclrtSynchronizeStreamWithTimeout(s, 60000));
    OK(aclrtStreamQuery(s, &st));
    CHECK_EQ_INT(st, ACL_STREAM_STATUS_COMPLETE);
    OK(aclrtDestroyStream(s));
}

static rt_stream *g_abort_stream;
static void *open_gate_on_abort(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_abort_stream->aborting)) sched_yield();
    gate_set(1);
    return NULL;
}

static void test_destroy(void)
{
    /* plain destroy waits for pending tasks */
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    rt_stream *rs = NULL;
    OK(rt_stream_resolve("test", s, &rs));
    atomic_store(&g_ran, 0);
    atomic_store(&g_released, 0);
    for (int i = 0; i < 50; i++) OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "t"));
    OK(aclrtDestroyStream(s));
    CHECK_EQ_INT(atomic_load(&g_ran), 50);
    CHECK_EQ_INT(atomic_load(&g_released), 50);

    /* force: the running task finishes, queued ones are discarded (released) */
    OK(aclrtCreateStream(&s));
    OK(rt_stream_resolve("test", s, &rs));
    gate_set(0);
    OK(aclrtLaunchHostFunc(s, gate, NULL));
    atomic_store(&g_ran, 0);
    atomic_store(&g_released, 0);
    for (int i = 0; i < 10; i++) OK(rt_stream_enqueue(rs, task_ok, task_release, NULL, "discard me"));
    while (!atomic_load(&g_gate_entered)) sched_yield();
    g_abort_stream = rs;
    pthread_t th;
    pthread_create(&th, NULL, open_gate_on_abort, NULL);
    OK(aclrtDestroyStreamForce(s));
    pthread_join(th, NULL);
    CHECK_EQ_INT(atomic_load(&g_ran), 0);
    CHECK_EQ_INT(atomic_load(&g_released), 10);
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream");
}

static void test_last_error(void)
{
    aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK_EQ_INT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    aclrtStreamStatus st;
    FAILS(aclrtStreamQuery(NULL, NULL), ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery");
    (void)st;
    CHECK_EQ_INT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    CHECK_EQ_INT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    CHECK_EQ_INT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    CHECK_EQ_INT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    FAILS(aclrtGetLastError((aclrtLastErrLevel)3), ACL_ERROR_INVALID_PARAM, "aclrtGetLastError");
    FAILS(aclrtPeekAtLastError((aclrtLastErrLevel)3), ACL_ERROR_INVALID_PARAM, "aclrtPeekAtLastError");
}

int main(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    test_order();
    test_args();
    test_sticky_error();
    test_timeout_and_query();
    test_destroy();
    test_last_error();
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    TEST_DONE();
}
