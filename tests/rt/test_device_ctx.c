/* Virtual devices and contexts: reference counts, per-thread current
 * context, switching devices, destroyed and foreign handles. */
#include <pthread.h>

#include "rt/rt_internal.h"
#include "rt_test.h"

static void *thread_no_ctx(void *arg)
{
    (void)arg;
    int32_t d;
    aclrtContext c;
    void *p;
    FAILS(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice");
    FAILS(aclrtGetCurrentContext(&c), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext");
    FAILS(aclrtMalloc(&p, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL, "aclrtMalloc");
    FAILS(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeStream");
    FAILS(rt_current_context("mdlTest", &c), ACL_ERROR_RT_CONTEXT_NULL, "mdlTest");
    return NULL;
}

static void *thread_set_ctx(void *arg)
{
    aclrtContext ctx = arg;
    OK(aclrtSetCurrentContext(ctx));
    int32_t d = -1;
    OK(aclrtGetDevice(&d));
    CHECK_EQ_INT(d, 1);
    aclrtContext c = NULL;
    OK(aclrtGetCurrentContext(&c));
    CHECK(c == ctx);
    return NULL;
}

int main(void)
{
    OK(aclInit(NULL));
    uint32_t n = 0;
    OK(aclrtGetDeviceCount(&n));
    CHECK_EQ_INT(n, 2);
    FAILS(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount");

    /* argument checks */
    FAILS(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice");
    FAILS(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice");
    FAILS(aclrtResetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice");
    FAILS(aclrtResetDeviceForce(-3), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDeviceForce");
    FAILS(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetDevice");
    aclrtRunMode rm;
    OK(aclrtGetRunMode(&rm));
    CHECK_EQ_INT(rm, ACL_HOST);
    FAILS(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode");
    OK(aclrtSetTsDevice(ACL_TS_ID_AICORE));
    OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
    FAILS(aclrtSetTsDevice(ACL_TS_ID_RESERVED), ACL_ERROR_INVALID_PARAM, "aclrtSetTsDevice");
    aclrtDeviceStatus st;
    OK(aclrtQueryDeviceStatus(1, &st));
    CHECK_EQ_INT(st, ACL_RT_DEVICE_STATUS_NORMAL);
    FAILS(aclrtQueryDeviceStatus(9, &st), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtQueryDeviceStatus");
    FAILS(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM, "aclrtQueryDeviceStatus");

    /* no context on a fresh thread */
    thread_no_ctx(NULL);
    FAILS(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeDevice");
    aclrtFloatOverflowMode fm;
    FAILS(aclrtGetDeviceSatMode(&fm), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDeviceSatMode");

    /* set device: default context, reference counted */
    OK(aclrtSetDevice(0));
    int32_t d = -1;
    OK(aclrtGetDevice(&d));
    CHECK_EQ_INT(d, 0);
    aclrtContext def0 = NULL;
    OK(aclrtGetCurrentContext(&def0));
    CHECK(def0 != NULL);
    CHECK_EQ_INT(rt_context_device(def0), 0);
    OK(aclrtSetDevice(0));
    aclrtContext again = NULL;
    OK(aclrtGetCurrentContext(&again));
    CHECK(again == def0);
    aclrtStream defs = NULL;
    OK(aclrtCtxGetCurrentDefaultStream(&defs));
    CHECK(defs != NULL);
    FAILS(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream");
    FAILS(aclrtDestroyStream(defs), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream");
    FAILS(aclrtDestroyContext(def0), ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext");
    OK(aclrtSynchronizeDevice());
    OK(aclrtSynchronizeDeviceWithTimeout(100));
    FAILS(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeDeviceWithTimeout");

    OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    OK(aclrtGetDeviceSatMode(&fm));
    CHECK_EQ_INT(fm, ACL_RT_OVERFLOW_MODE_INFNAN);
    FAILS(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_INVALID_PARAM, "aclrtSetDeviceSatMode");
    FAILS(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceSatMode");

    /* one reset: still alive */
    OK(aclrtResetDevice(0));
    OK(aclrtGetCurrentContext(&again));
    CHECK(again == def0);
    /* second reset: default context released, thread has none */
    OK(aclrtResetDevice(0));
    FAILS(aclrtGetCurrentContext(&again), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext");
    FAILS(aclrtSetCurrentContext(def0), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext");
    FAILS(aclrtSynchronizeStream(defs), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeStream");
    CHECK_EQ_INT(rt_context_device(def0), -1);
    /* resetting an unset device is tolerated */
    OK(aclrtResetDevice(0));

    /* force reset ignores the count */
    OK(aclrtSetDevice(1));
    OK(aclrtSetDevice(1));
    OK(aclrtSetDevice(1));
    aclrtContext def1 = NULL;
    OK(aclrtGetCurrentContext(&def1));
    OK(aclrtResetDeviceForce(1));
    FAILS(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice");
    FAILS(aclrtSetCurrentContext(def1), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext");

    /* explicit contexts */
    aclrtContext c1 = NULL, c0 = NULL;
    FAILS(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM, "aclrtCreateContext");
    FAILS(aclrtCreateContext(&c1, 2), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtCreateContext");
    OK(aclrtCreateContext(&c1, 1));
    OK(aclrtGetDevice(&d));
    CHECK_EQ_INT(d, 1);
    aclrtContext cur = NULL;
    OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == c1);
    OK(aclrtCreateContext(&c0, 0));
    OK(aclrtGetDevice(&d));
    CHECK_EQ_INT(d, 0);
    /* switching the context switches the device */
    OK(aclrtSetCurrentContext(c1));
    OK(aclrtGetDevice(&d));
    CHECK_EQ_INT(d, 1);
    /* current context is per thread */
    pthread_t th;
    pthread_create(&th, NULL, thread_no_ctx, NULL);
    pthread_join(th, NULL);
    pthread_create(&th, NULL, thread_set_ctx, c1);
    pthread_join(th, NULL);

    /* wrong context: a stream of device 1 used while device 0 is current */
    aclrtStream s1 = NULL;
    OK(aclrtCreateStream(&s1));
    OK(aclrtSetCurrentContext(c0));
    FAILS(aclrtSynchronizeStream(s1), ACL_ERROR_RT_STREAM_CONTEXT, "aclrtSynchronizeStream");
    FAILS(aclrtStreamQuery(s1, &(aclrtStreamStatus){0}), ACL_ERROR_RT_STREAM_CONTEXT, "aclrtStreamQuery");
    rt_stream *rs = NULL;
    FAILS(rt_stream_resolve("mdlExec", s1, &rs), ACL_ERROR_RT_STREAM_CONTEXT, "mdlExec");

    /* destroy: handles die, also for the streams the context owned */
    FAILS(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext");
    OK(aclrtDestroyContext(c1));
    FAILS(aclrtDestroyContext(c1), ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext");
    FAILS(aclrtSetCurrentContext(c1), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext");
    FAILS(aclrtDestroyStream(s1), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream");
    FAILS(aclrtSetCurrentContext((aclrtContext)(uintptr_t)0x1234), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext");
    FAILS(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext");
    /* the thread whose current context was destroyed has none */
    OK(aclrtSetCurrentContext(c0));
    OK(aclrtDestroyContext(c0));
    FAILS(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext");

    OK(aclFinalize());
    TEST_DONE();
}
