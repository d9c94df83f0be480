/* Events: create flavours and flags, record/query/synchronize, cross-stream
 * waits, reset, elapsed time, destroyed handles. Ordering is forced with
 * gates the test controls. */
#include <pthread.h>
#include <stdatomic.h>

#include "rt_test.h"

static pthread_mutex_t g_gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gc = PTHREAD_COND_INITIALIZER;
static int g_gate_open;
static void gate(void *arg)
{
    (void)arg;
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
}

static atomic_int g_step;
static int g_seen_by_b = -1;
static void mark_a(void *arg)
{
    (void)arg;
    atomic_store(&g_step, 1);
}
static void read_on_b(void *arg)
{
    (void)arg;
    g_seen_by_b = atomic_load(&g_step);
}

int main(void)
{
    OK(aclInit(NULL));
    aclrtEvent e = NULL;
    FAILS(aclrtCreateEvent(&e), ACL_ERROR_RT_CONTEXT_NULL, "aclrtCreateEvent");
    OK(aclrtSetDevice(0));
    FAILS(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent");
    FAILS(aclrtCreateEventWithFlag(&e, 0x80), ACL_ERROR_INVALID_PARAM, "aclrtCreateEventWithFlag");
    FAILS(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM,
          "aclrtCreateEventWithFlag");
    FAILS(aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM, "aclrtCreateEventExWithFlag");

    aclrtStream sa = NULL, sb = NULL;
    OK(aclrtCreateStream(&sa));
    OK(aclrtCreateStream(&sb));
    OK(aclrtCreateEvent(&e));

    /* never recorded */
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    aclrtEventStatus es = ACL_EVENT_STATUS_RESERVED;
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
    OK(aclrtQueryEventStatus(e, &rs));
    CHECK_EQ_INT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    OK(aclrtQueryEvent(e, &es));
    CHECK_EQ_INT(es, ACL_EVENT_STATUS_COMPLETE);
    FAILS(aclrtQueryEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "aclrtQueryEvent");
#pragma GCC diagnostic pop
    OK(aclrtSynchronizeEvent(e));
    FAILS(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus");
    FAILS(aclrtQueryEventWaitStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus");

    /* record behind a closed gate: pending */
    gate_set(0);
    OK(aclrtLaunchHostFunc(sa, gate, NULL));
    OK(aclrtLaunchHostFunc(sa, mark_a, NULL));
    OK(aclrtRecordEvent(e, sa));
    OK(aclrtQueryEventStatus(e, &rs));
    CHECK_EQ_INT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    FAILS(aclrtSynchronizeEventWithTimeout(e, 10), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "aclrtSynchronizeEventWithTimeout");
    FAILS(aclrtSynchronizeEventWithTimeout(e, -5), ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEventWithTimeout");
    /* stream b waits for the event before reading what stream a wrote */
    OK(aclrtStreamWaitEvent(sb, e));
    OK(aclrtLaunchHostFunc(sb, read_on_b, NULL));
    OK(aclrtQueryEventWaitStatus(e, &ws));
    CHECK_EQ_INT(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);
    gate_set(1);
    OK(aclrtSynchronizeStream(sb));
    CHECK_EQ_INT(g_seen_by_b, 1);
    OK(aclrtSynchronizeEvent(e));
    OK(aclrtQueryEventStatus(e, &rs));
    CHECK_EQ_INT(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtQueryEventWaitStatus(e, &ws));
    CHECK_EQ_INT(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);

    /* elapsed time between two records */
    aclrtEvent e2 = NULL;
    OK(aclrtCreateEventWithFlag(&e2, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
    float ms = -1.0f;
    FAILS(aclrtEventElapsedTime(&ms, e, e2), ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtEventElapsedTime");
    OK(aclrtRecordEvent(e, sa));
    OK(aclrtLaunchHostFunc(sa, mark_a, NULL));
    OK(aclrtRecordEvent(e2, sa));
    OK(aclrtSynchronizeStream(sa));
    OK(aclrtEventElapsedTime(&ms, e, e2));
    CHECK(ms >= 0.0f);
    FAILS(aclrtEventElapsedTime(NULL, e, e2), ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime");
    FAILS(aclrtEventElapsedTime(&ms, NULL, e2), ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime");

    /* reset makes it not-recorded again */
    OK(aclrtResetEvent(e2, sa));
    OK(aclrtSynchronizeStream(sa));
    OK(aclrtQueryEventStatus(e2, &rs));
    CHECK_EQ_INT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);

    /* events without ACL_EVENT_SYNC cannot be waited for or reset */
    aclrtEvent e3 = NULL;
    OK(aclrtCreateEventExWithFlag(&e3, ACL_EVENT_TIME_LINE));
    OK(aclrtRecordEvent(e3, sa));
    FAILS(aclrtStreamWaitEvent(sb, e3), ACL_ERROR_INVALID_PARAM, "aclrtStreamWaitEvent");
    FAILS(aclrtResetEvent(e3, sa), ACL_ERROR_INVALID_PARAM, "aclrtResetEvent");
    OK(aclrtSynchronizeEvent(e3));
    OK(aclrtDestroyEvent(e3));

    /* an event of device 1 cannot be recorded on a device-0 stream */
    aclrtContext c1 = NULL;
    OK(aclrtCreateContext(&c1, 1));
    aclrtEvent e4 = NULL;
    OK(aclrtCreateEvent(&e4));
    aclrtContext c0 = NULL;
    OK(aclrtCreateContext(&c0, 0));
    FAILS(aclrtRecordEvent(e4, sa), ACL_ERROR_RESOURCE_NOT_MATCH, "aclrtRecordEvent");
    OK(aclrtDestroyEvent(e4));

    /* destroy while a record is still queued: the queued task keeps it alive */
    gate_set(0);
    OK(aclrtLaunchHostFunc(sa, gate, NULL));
    OK(aclrtRecordEvent(e2, sa));
    OK(aclrtDestroyEvent(e2));
    gate_set(1);
    OK(aclrtSynchronizeStream(sa));

    /* destroyed / unknown handles */
    FAILS(aclrtRecordEvent(e2, sa), ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent");
    FAILS(aclrtDestroyEvent(e2), ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent");
    FAILS(aclrtQueryEventStatus(e2, &rs), ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus");
    FAILS(aclrtSynchronizeEvent(e2), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent");
    FAILS(aclrtStreamWaitEvent(sa, e2), ACL_ERROR_INVALID_PARAM, "aclrtStreamWaitEvent");
    FAILS(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent");
    FAILS(aclrtRecordEvent(NULL, sa), ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent");
    FAILS(aclrtRecordEvent(e, (aclrtStream)(uintptr_t)0x40), ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent");
    FAILS(aclrtSynchronizeEvent((aclrtEvent)sa), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent");

    OK(aclrtDestroyStream(sa));
    OK(aclrtDestroyStream(sb));
    /* e is left alive on purpose: aclFinalize releases it */
    OK(aclrtDestroyContext(c0));
    OK(aclrtDestroyContext(c1));
    OK(aclFinalize());
    TEST_DONE();
}
