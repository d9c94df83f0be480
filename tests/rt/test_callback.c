/* Host callbacks: the subscribe / launch / process-report protocol, BLOCK
 * and NO_BLOCK semantics, synchronize waiting for callbacks, error codes
 * (107012, 107015, 507012), unsubscribe, and threads serving one device. */
#include <pthread.h>
#include <stdatomic.h>

#include "rt_test.h"

static atomic_int g_stop;
static atomic_int g_calls;
static aclrtContext g_ctx;

static void *report_loop(void *arg)
{
    (void)arg;
    OK(aclrtSetCurrentContext(g_ctx));
    while (!atomic_load(&g_stop)) {
        aclError rc = aclrtProcessReport(20);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT && rc != ACL_ERROR_RT_THREAD_SUBSCRIBE) {
            fprintf(stderr, "aclrtProcessReport returned %d\n", rc);
            atomic_fetch_add(&g_calls, 1000000);
        }
        aclGetRecentErrMsg();
    }
    return NULL;
}

static int g_seq[4096];
static atomic_int g_n;
static pthread_t g_report_thread;
static atomic_int g_wrong_thread;
static void cb_record(void *ud)
{
    g_seq[atomic_fetch_add(&g_n, 1)] = (int)(intptr_t)ud;
    atomic_fetch_add(&g_calls, 1);
    if (!pthread_equal(pthread_self(), g_report_thread)) atomic_store(&g_wrong_thread, 1);
}

/* A BLOCK callback holds the stream: the host function behind it must not
 * run before the callback returns. */
static atomic_int g_in_cb, g_violation;
static void cb_slow(void *ud)
{
    (void)ud;
    atomic_store(&g_in_cb, 1);
    for (volatile int i = 0; i < 200000; i++) {
    }
    atomic_store(&g_in_cb, 0);
}
static void after_block(void *ud)
{
    (void)ud;
    if (atomic_load(&g_in_cb)) atomic_store(&g_violation, 1);
}

static void *unsubscribed_thread(void *arg)
{
    (void)arg;
    FAILS(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE, "aclrtProcessReport");
    return NULL;
}

int main(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtGetCurrentContext(&g_ctx));
    aclrtStream s = NULL, s2 = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&s2));

    /* argument checks */
    FAILS(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM, "aclrtProcessReport");
    FAILS(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM, "aclrtProcessReport");
    FAILS(aclrtProcessReport(5), ACL_ERROR_RT_THREAD_SUBSCRIBE, "aclrtProcessReport");
    FAILS(aclrtLaunchCallback(cb_record, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG,
          "aclrtLaunchCallback");
    FAILS(aclrtSubscribeReport(0, s), ACL_ERROR_INVALID_PARAM, "aclrtSubscribeReport");
    FAILS(aclrtSubscribeReport(1, (aclrtStream)(uintptr_t)0x77), ACL_ERROR_INVALID_PARAM, "aclrtSubscribeReport");

    atomic_store(&g_stop, 0);
    pthread_create(&g_report_thread, NULL, report_loop, NULL);
    uint64_t tid = (uint64_t)g_report_thread;
    OK(aclrtSubscribeReport(tid, s));
    FAILS(aclrtSubscribeReport(tid, s), ACL_ERROR_REPEAT_SUBSCRIBE, "aclrtSubscribeReport");
    FAILS(aclrtSubscribeReport(tid + 1, s), ACL_ERROR_RT_STREAM_SUBSCRIBE, "aclrtSubscribeReport");
    OK(aclrtSubscribeReport(tid, s2)); /* one thread, several streams */
    FAILS(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback");
    FAILS(aclrtLaunchCallback(cb_record, NULL, (aclrtCallbackBlockType)2, s), ACL_ERROR_INVALID_PARAM,
          "aclrtLaunchCallback");

    /* ordering, both block types; synchronize waits for NO_BLOCK callbacks too */
    atomic_store(&g_n, 0);
    for (int i = 0; i < 1000; i++)
        OK(aclrtLaunchCallback(cb_record, (void *)(intptr_t)i, (i & 1) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK,
                               s));
    OK(aclrtSynchronizeStream(s));
    CHECK_EQ_INT(atomic_load(&g_n), 1000);
    int inorder = 1;
    for (int i = 0; i < 1000; i++) inorder &= g_seq[i] == i;
    CHECK(inorder);
    CHECK(!atomic_load(&g_wrong_thread));

    /* BLOCK holds later tasks of the stream */
    for (int i = 0; i < 20; i++) {
        OK(aclrtLaunchCallback(cb_slow, NULL, ACL_CALLBACK_BLOCK, s2));
        OK(aclrtLaunchHostFunc(s2, after_block, NULL));
    }
    OK(aclrtSynchronizeStream(s2));
    CHECK(!atomic_load(&g_violation));

    /* a thread serves streams of one device only */
    aclrtContext c1 = NULL;
    OK(aclrtCreateContext(&c1, 1));
    aclrtStream s1 = NULL;
    OK(aclrtCreateStream(&s1));
    FAILS(aclrtSubscribeReport(tid, s1), ACL_ERROR_RT_THREAD_SUBSCRIBE, "aclrtSubscribeReport");
    OK(aclrtDestroyStream(s1));
    OK(aclrtSetCurrentContext(g_ctx));

    /* a thread without subscription */
    pthread_t other;
    pthread_create(&other, NULL, unsubscribed_thread, NULL);
    pthread_join(other, NULL);

    /* unsubscribe */
    FAILS(aclrtUnSubscribeReport(tid + 5, s), ACL_ERROR_THREAD_NOT_SUBSCRIBE, "aclrtUnSubscribeReport");
    OK(aclrtUnSubscribeReport(tid, s));
    FAILS(aclrtUnSubscribeReport(tid, s), ACL_ERROR_STREAM_NOT_SUBSCRIBE, "aclrtUnSubscribeReport");
    FAILS(aclrtLaunchCallback(cb_record, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG,
          "aclrtLaunchCallback");
    OK(aclrtUnSubscribeReport(tid, s2));
    atomic_store(&g_stop, 1);
    pthread_join(g_report_thread, NULL);
    CHECK(atomic_load(&g_calls) < 1000000);

    /* the current thread serves its own stream */
    OK(aclrtSubscribeReport((uint64_t)pthread_self(), s));
    g_report_thread = pthread_self();
    atomic_store(&g_n, 0);
    OK(aclrtLaunchCallback(cb_record, (void *)(intptr_t)7, ACL_CALLBACK_NO_BLOCK, s));
    int got = 0;
    for (int tries = 0; tries < 1000 && !got; tries++) {
        aclError rc = aclrtProcessReport(100);
        if (rc == ACL_SUCCESS) got = 1;
        else CHECK_EQ_INT(rc, ACL_ERROR_RT_REPORT_TIMEOUT);
    }
    CHECK(got);
    CHECK_EQ_INT(g_seq[0], 7);
    OK(aclrtSynchronizeStream(s));
    FAILS(aclrtProcessReport(5), ACL_ERROR_RT_REPORT_TIMEOUT, "aclrtProcessReport");
    /* a callback still queued when the stream is destroyed is discarded */
    OK(aclrtLaunchCallback(cb_record, (void *)(intptr_t)8, ACL_CALLBACK_NO_BLOCK, s));
    OK(aclrtDestroyStreamForce(s));
    FAILS(aclrtProcessReport(5), ACL_ERROR_RT_THREAD_SUBSCRIBE, "aclrtProcessReport");
    OK(aclrtDestroyStream(s2));
    OK(aclrtDestroyContext(c1));
    OK(aclFinalize());
    TEST_DONE();
}
