/* The acl_rt.h declarations brought up to the current CANN headers:
 * configured allocation (aclrtMallocWithCfg, aclrtMallocHostWithCfg), the
 * *WithDevSync frees, pointer attributes, registered host memory, peer
 * access, device attributes and id mappings, stream properties and
 * attributes, event timestamps, exception callback registration, AI Core
 * groups and the documented unsupported calls. */
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "core/core.h"
#include "rt/rt_ext.h"
#include "rt/rt_internal.h"
#include "rt/rt_priv.h"
#include "rt_test.h"

#define CAP (1u << 20)

static size_t dev_used(int32_t dev)
{
    int32_t cur = 0;
    OK(aclrtGetDevice(&cur));
    OK(aclrtSetDevice(dev));
    size_t fr = 0, tot = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    OK(aclrtSetDevice(cur));
    OK(aclrtResetDevice(dev));
    return tot - fr;
}

static void test_malloc_cfg(void)
{
    void *p = NULL;
    /* cfg NULL: aclrtMalloc on the current device */
    OK(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    CHECK(p != NULL && ((uintptr_t)p & 63) == 0);
    CHECK_EQ_INT(dev_used(0), 128 + 32);
    aclrtPtrAttributes at;
    OK(aclrtPointerGetAttributes(p, &at));
    CHECK_EQ_INT(at.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    CHECK_EQ_INT(at.location.id, 0);
    CHECK(at.pageSize >= 4096);
    OK(aclrtFreeWithDevSync(p));
    CHECK_EQ_INT(dev_used(0), 0);

    /* DEVICE_ID places it on device 1; module id and VA flag are accepted */
    aclrtMallocAttribute attrs[3];
    memset(attrs, 0, sizeof(attrs));
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 7;
    attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[1].value.deviceId = 1;
    attrs[2].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attrs[2].value.vaFlag = 1;
    aclrtMallocConfig cfg = {attrs, 3};
    OK(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg));
    OK(aclrtPointerGetAttributes(p, &at));
    CHECK_EQ_INT(at.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    CHECK_EQ_INT(at.location.id, 1);
    CHECK_EQ_INT(dev_used(1), 96);
    CHECK_EQ_INT(dev_used(0), 0);
    OK(aclrtFree(p));

    attrs[1].value.deviceId = 9;
    FAILS(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId 9");
    attrs[1].value.deviceId = 1;
    attrs[0].attr = ACL_RT_MEM_ATTR_RSV;
    FAILS(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM, "attrs[0]");
    aclrtMallocConfig bad = {NULL, 2};
    FAILS(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &bad), ACL_ERROR_INVALID_PARAM, "attrs is NULL");
    FAILS(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_ERROR_INVALID_PARAM, "aclrtMallocWithCfg");
    FAILS(aclrtMallocWithCfg(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_ERROR_INVALID_PARAM, "devPtr");
    aclrtMallocConfig empty = {NULL, 0};
    OK(aclrtMallocWithCfg(&p, 8, ACL_MEM_MALLOC_HUGE_FIRST, &empty));
    FAILS(aclrtFreeHostWithDevSync(p), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    OK(aclrtFree(p));

    /* page-locked host memory with a configuration */
    void *h = NULL;
    OK(aclrtMallocHostWithCfg(&h, 256, NULL));
    OK(aclrtPointerGetAttributes(h, &at));
    CHECK_EQ_INT(at.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    CHECK_EQ_INT(dev_used(0), 0);
    FAILS(aclrtFreeWithDevSync(h), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost");
    OK(aclrtFreeHostWithDevSync(h));
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    OK(aclrtMallocHostWithCfg(&h, 16, &cfg));
    OK(aclrtFreeHost(h));
    FAILS(aclrtMallocHostWithCfg(&h, 0, NULL), ACL_ERROR_INVALID_PARAM, "aclrtMallocHostWithCfg");

    int stackvar = 0;
    OK(aclrtPointerGetAttributes(&stackvar, &at));
    CHECK_EQ_INT(at.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    FAILS(aclrtPointerGetAttributes(NULL, &at), ACL_ERROR_INVALID_PARAM, "aclrtPointerGetAttributes");
}

static void test_host_register(void)
{
    unsigned char *buf = aligned_alloc(64, 512);
    CHECK(buf != NULL);
    for (int i = 0; i < 512; i++) buf[i] = (unsigned char)(i * 7);
    void *d = NULL, *dev = NULL;
    OK(aclrtMalloc(&d, 512, ACL_MEM_MALLOC_HUGE_FIRST));
    /* before registration the device cannot take it as device memory */
    FAILS(aclrtMemcpy(d, 512, buf, 512, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "src");
    OK(aclrtHostRegister(buf, 512, ACL_HOST_REGISTER_MAPPED, &dev));
    CHECK(dev == buf);
    OK(aclrtMemcpy(d, 512, dev, 512, ACL_MEMCPY_DEVICE_TO_DEVICE));
    unsigned char back[512];
    OK(aclrtMemcpy(back, 512, d, 512, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, buf, 512) == 0);
    aclrtPtrAttributes at;
    OK(aclrtPointerGetAttributes(buf + 100, &at));
    CHECK_EQ_INT(at.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    /* the companion libraries see it as page-locked host memory */
    int kind = -1;
    int32_t kdev = 7;
    OK(openacl_ext_mem_query(buf, 512, &kind, &kdev));
    CHECK_EQ_INT(kind, OPENACL_EXT_MEM_HOST);
    CHECK_EQ_INT(kdev, -1);
    /* overlapping registrations and other owners' frees are refused */
    void *dev2 = NULL;
    FAILS(aclrtHostRegister(buf + 256, 512, ACL_HOST_REGISTER_MAPPED, &dev2), ACL_ERROR_INVALID_PARAM, "overlaps");
    FAILS(aclrtHostRegister(d, 16, ACL_HOST_REGISTER_MAPPED, &dev2), ACL_ERROR_INVALID_PARAM, "device");
    FAILS(aclrtFreeHost(buf), ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister");
    FAILS(aclrtHostUnregister(d), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    FAILS(aclrtHostRegister(buf, 0, ACL_HOST_REGISTER_MAPPED, &dev2), ACL_ERROR_INVALID_PARAM, "size is 0");
    FAILS(aclrtHostRegister(back, 16, ACL_HOST_REGISTER_IOMEMORY, &dev2), ACL_ERROR_FEATURE_UNSUPPORTED,
          "ACL_HOST_REGISTER_IOMEMORY");
    FAILS(aclrtHostRegister(back, 16, (aclrtHostRegisterType)3, &dev2), ACL_ERROR_INVALID_PARAM, "type 3");
    /* a range beyond the registration is checked like any allocation */
    FAILS(aclrtMemcpy(d, 512, buf + 256, 512, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "past the end");
    OK(aclrtHostUnregister(buf));
    FAILS(aclrtHostUnregister(buf), ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister");
    FAILS(aclrtMemcpy(d, 512, buf, 512, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "src");
    /* the caller still owns it: usable and freeable after unregistering */
    buf[0] = 1;
    OK(aclrtFree(d));
    /* registered memory left at aclFinalize is not freed by the runtime
     * (the finalize below would double-free it under ASan otherwise) */
    OK(aclrtHostRegister(buf, 64, ACL_HOST_REGISTER_MAPPED, &dev2));
    OK(aclFinalize());
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    buf[63] = 2;
    free(buf);
}

static void test_devices(void)
{
    int32_t can = -1, st = -1;
    OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ_INT(can, 1);
    FAILS(aclrtDeviceCanAccessPeer(&can, 1, 1), ACL_ERROR_INVALID_PARAM, "aclrtDeviceCanAccessPeer");
    FAILS(aclrtDeviceCanAccessPeer(&can, 0, 5), ACL_ERROR_RT_INVALID_DEVICEID, "peerDeviceId 5");
    OK(aclrtDevicePeerAccessStatus(0, 1, &st));
    CHECK_EQ_INT(st, 0);
    OK(aclrtDeviceEnablePeerAccess(1, 0));
    OK(aclrtDeviceEnablePeerAccess(1, 0));
    OK(aclrtDevicePeerAccessStatus(0, 1, &st));
    CHECK_EQ_INT(st, 1);
    OK(aclrtDevicePeerAccessStatus(1, 0, &st));
    CHECK_EQ_INT(st, 0);
    FAILS(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM, "current device");
    FAILS(aclrtDeviceEnablePeerAccess(1, 4), ACL_ERROR_INVALID_PARAM, "flags");
    OK(aclrtDeviceDisablePeerAccess(1));
    OK(aclrtDevicePeerAccessStatus(0, 1, &st));
    CHECK_EQ_INT(st, 0);

    int64_t v = -1;
    OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
    CHECK_EQ_INT(v, rt_device_threads(0));
    OK(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
    CHECK_EQ_INT(v, CAP);
    OK(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_PHY_CHIP_ID, &v));
    CHECK_EQ_INT(v, 1);
    OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, &v));
    CHECK_EQ_INT(v, 0);
    FAILS(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &v), ACL_ERROR_FEATURE_UNSUPPORTED, "attr 202");
    FAILS(aclrtGetDeviceInfo(0, (aclrtDevAttr)77, &v), ACL_ERROR_INVALID_PARAM, "attr 77");
    FAILS(aclrtGetDeviceInfo(2, ACL_DEV_ATTR_SMP_ID, &v), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetDeviceInfo");

    int32_t lo = -1, hi = -1, id = -1;
    OK(aclrtDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(lo == 0 && hi == 0);
    int32_t cap = -1;
    OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &cap));
    CHECK_EQ_INT(cap, ACL_DEV_FEATURE_NOT_SUPPORT);
    FAILS(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)5, &cap), ACL_ERROR_INVALID_PARAM, "devFeatureType 5");
    OK(aclrtGetLogicDevIdByUserDevId(1, &id));
    CHECK_EQ_INT(id, 1);
    OK(aclrtGetPhyDevIdByLogicDevId(0, &id));
    CHECK_EQ_INT(id, 0);
    OK(aclrtGetUserDevIdByLogicDevId(1, &id));
    OK(aclrtGetLogicDevIdByPhyDevId(1, &id));
    FAILS(aclrtGetLogicDevIdByPhyDevId(2, &id), ACL_ERROR_RT_INVALID_DEVICEID, "phyDevId 2");

    aclrtUuid u0, u1, u0b;
    OK(aclrtDeviceGetUuid(0, &u0));
    OK(aclrtDeviceGetUuid(1, &u1));
    OK(aclrtDeviceGetUuid(0, &u0b));
    CHECK(memcmp(u0.bytes, u1.bytes, 16) != 0);
    CHECK(memcmp(u0.bytes, u0b.bytes, 16) == 0);
    CHECK_EQ_INT((unsigned char)u0.bytes[6] >> 4, 5);

    OK(aclrtSetOpWaitTimeout(30));
    OK(aclrtSetOpExecuteTimeOut(60));
    OK(aclrtSetOpExecuteTimeOutWithMs(1500));
    FAILS(aclrtSetOpExecuteTimeOut(UINT32_MAX), ACL_ERROR_INVALID_PARAM, "aclrtSetOpExecuteTimeOut");

    aclrtUtilizationInfo ui;
    FAILS(aclrtGetDeviceUtilizationRate(0, &ui), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtGetDeviceUtilizationRate");
    FAILS(aclrtResetOverflowStatus(NULL), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtResetOverflowStatus");
    void *va = NULL;
    FAILS(aclrtReserveMemAddress(&va, 1 << 20, 0, NULL, 0), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtReserveMemAddress");
    size_t gran = 0;
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof(prop));
    FAILS(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran),
          ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtMemGetAllocationGranularity");

    /* AI Core groups: none */
    uint32_t n = 9;
    OK(aclrtGetGroupCount(&n));
    CHECK_EQ_INT(n, 0);
    aclrtGroupInfo *g = aclrtCreateGroupInfo();
    CHECK(g != NULL);
    OK(aclrtGetAllGroupInfo(g));
    int32_t val = 0;
    size_t ret = 0;
    FAILS(aclrtGetGroupInfoDetail(g, 0, ACL_GROUP_AICORE_INT, &val, sizeof(val), &ret), ACL_ERROR_INVALID_PARAM,
          "groupIndex 0");
    FAILS(aclrtSetGroup(0), ACL_ERROR_INVALID_PARAM, "group 0");
    OK(aclrtDestroyGroupInfo(g));
    OK(aclrtDestroyGroupInfo(NULL));
}

static atomic_int g_cb_a, g_cb_b;
static void cb_a(aclrtExceptionInfo *info)
{
    (void)info;
    atomic_fetch_add(&g_cb_a, 1);
}
static void cb_b(aclrtExceptionInfo *info)
{
    if (aclrtGetErrorCodeFromExceptionInfo(info) == ACL_ERROR_RT_AICORE_EXCEPTION) atomic_fetch_add(&g_cb_b, 1);
}
static int task_fail(void *arg)
{
    (void)arg;
    return acl_fail(ACL_ERROR_RT_AICORE_EXCEPTION, "testTask: failed on purpose");
}

static void test_streams_events(void)
{
    aclrtStream s = NULL, s2 = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStreamWithConfig(&s2, 0, ACL_STREAM_FAST_SYNC));
    int32_t id1 = -1, id2 = -1;
    OK(aclrtStreamGetId(s, &id1));
    OK(aclrtStreamGetId(s2, &id2));
    CHECK(id1 >= 0 && id2 >= 0 && id1 != id2);
    rt_stream *rs = NULL;
    OK(rt_stream_resolve("test", s, &rs));
    CHECK_EQ_INT(id1, rs->id);
    uint32_t f = 99, pr = 99;
    OK(aclrtStreamGetFlags(s2, &f));
    CHECK_EQ_INT(f, ACL_STREAM_FAST_SYNC);
    OK(aclrtStreamGetFlags(s, &f));
    CHECK_EQ_INT(f, 0);
    OK(aclrtStreamGetPriority(NULL, &pr));
    CHECK_EQ_INT(pr, 0);
    FAILS(aclrtStreamGetId((aclrtStream)(uintptr_t)0xdead, &id1), ACL_ERROR_INVALID_PARAM, "aclrtStreamGetId");

    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof(v));
    v.failureMode = ACL_STOP_ON_FAILURE;
    OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    memset(&v, 0xFF, sizeof(v));
    OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ_INT(v.failureMode, ACL_STOP_ON_FAILURE);
    v.failureMode = 7;
    FAILS(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_ERROR_INVALID_PARAM, "failureMode 7");
    OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
    CHECK_EQ_INT(v.streamPriority, 0);
    v.streamPriority = 3;
    FAILS(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_INVALID_PARAM, "streamPriority 3");
    FAILS(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_ERROR_FEATURE_UNSUPPORTED,
          "ACL_STREAM_ATTR_USER_CUSTOM_TAG");
    FAILS(aclrtGetStreamAttribute(s, (aclrtStreamAttr)9, &v), ACL_ERROR_INVALID_PARAM, "stmAttrType 9");

    /* event timestamps: microseconds, ordered, only after completion */
    aclrtEvent e1 = NULL, e2 = NULL;
    OK(aclrtCreateEvent(&e1));
    OK(aclrtCreateEvent(&e2));
    uint64_t t1 = 0, t2 = 0;
    FAILS(aclrtEventGetTimestamp(e1, &t1), ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtEventGetTimestamp");
    OK(aclrtRecordEvent(e1, s2));
    OK(aclrtRecordEvent(e2, s2));
    OK(aclrtSynchronizeStream(s2));
    OK(aclrtEventGetTimestamp(e1, &t1));
    OK(aclrtEventGetTimestamp(e2, &t2));
    CHECK(t1 > 0 && t2 >= t1);
    CHECK(t1 <= rt_now_ns() / 1000u);
    OK(aclrtDestroyEvent(e1));
    OK(aclrtDestroyEvent(e2));

    /* several exception callbacks, registered once each */
    OK(aclrtExceptionInfoCallbackRegister(cb_a));
    OK(aclrtExceptionInfoCallbackRegister(cb_a));
    OK(aclrtExceptionInfoCallbackRegister(cb_b));
    OK(rt_stream_enqueue(rs, task_fail, NULL, NULL, "failing task"));
    CHECK_EQ_INT(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
    aclGetRecentErrMsg();
    CHECK_EQ_INT(atomic_load(&g_cb_a), 1);
    CHECK_EQ_INT(atomic_load(&g_cb_b), 1);
    OK(aclrtExceptionInfoCallbackUnregister(cb_a));
    OK(aclrtExceptionInfoCallbackUnregister(cb_a));
    OK(rt_stream_enqueue(rs, task_fail, NULL, NULL, "failing task"));
    aclrtSynchronizeStream(s);
    aclGetRecentErrMsg();
    CHECK_EQ_INT(atomic_load(&g_cb_a), 1);
    CHECK_EQ_INT(atomic_load(&g_cb_b), 2);
    OK(aclrtExceptionInfoCallbackUnregister(cb_b));
    FAILS(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_INVALID_PARAM, "aclrtExceptionInfoCallbackRegister");

    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(s2));
}

static atomic_int g_gate;
static void hold(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_gate)) usleep(1000);
}

static void test_wait_timeout_ids_usage(void)
{
    aclrtStream s1 = NULL, s2 = NULL;
    OK(aclrtCreateStream(&s1));
    OK(aclrtCreateStream(&s2));
    aclrtEvent e = NULL, plain = NULL;
    OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_TIME_LINE));
    uint32_t id1 = 0, id2 = 0;
    OK(aclrtGetEventId(e, &id1));
    OK(aclrtGetEventId(plain, &id2));
    CHECK(id1 != id2);
    FAILS(aclrtGetEventId((aclrtEvent)(uintptr_t)0xbad, &id1), ACL_ERROR_INVALID_PARAM, "aclrtGetEventId");

    /* s1 is held, so its record runs late: s2's bounded wait times out */
    atomic_store(&g_gate, 0);
    OK(aclrtLaunchHostFunc(s1, hold, NULL));
    OK(aclrtRecordEvent(e, s1));
    OK(aclrtStreamWaitEventWithTimeout(s2, e, 30));
    CHECK_EQ_INT(aclrtSynchronizeStream(s2), ACL_ERROR_RT_WAIT_TIMEOUT);
    const char *m = aclGetRecentErrMsg();
    CHECK(m && strstr(m, "aclrtStreamWaitEventWithTimeout") && strstr(m, "30 ms"));
    /* the stream goes on; an unbounded wait sees the record once released */
    OK(aclrtStreamWaitEventWithTimeout(s2, e, -1));
    atomic_store(&g_gate, 1);
    OK(aclrtSynchronizeStream(s2));
    OK(aclrtSynchronizeStream(s1));
    OK(aclrtStreamWaitEventWithTimeout(s2, e, 1000)); /* recorded already: passes */
    OK(aclrtSynchronizeStream(s2));
    FAILS(aclrtStreamWaitEventWithTimeout(s2, e, 0), ACL_ERROR_RT_PARAM_INVALID, "timeout 0");
    FAILS(aclrtStreamWaitEventWithTimeout(s2, e, -2), ACL_ERROR_RT_PARAM_INVALID, "timeout -2");
    FAILS(aclrtStreamWaitEventWithTimeout(s2, plain, 10), ACL_ERROR_INVALID_PARAM, "ACL_EVENT_SYNC");
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyEvent(plain));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));

    /* memory usage by component, current and peak */
    aclrtMemUsageInfo u[6];
    size_t n = 0;
    void *p = NULL;
    OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtGetMemUsageInfo(0, u, 6, &n));
    CHECK_EQ_INT(n, 4);
    CHECK(strcmp(u[0].name, "user") == 0 && strcmp(u[1].name, "weights") == 0);
    CHECK_EQ_INT(u[0].curMemSize, 160);
    CHECK(u[0].memPeakSize >= 160);
    OK(aclrtFree(p));
    OK(aclrtGetMemUsageInfo(0, u, 1, &n));
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(u[0].curMemSize, 0);
    CHECK(u[0].memPeakSize >= 160);
    FAILS(aclrtGetMemUsageInfo(0, u, 0, &n), ACL_ERROR_INVALID_PARAM, "inputNum");
    FAILS(aclrtGetMemUsageInfo(3, u, 1, &n), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId 3");
}

int main(void)
{
    setenv("OPENACL_DEVICE_COUNT", "2", 1);
    setenv("OPENACL_DEVICE_MEMORY", "1M", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    test_malloc_cfg();
    test_host_register();
    test_devices();
    test_streams_events();
    test_wait_timeout_ids_usage();
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    TEST_DONE();
}
