/* The current-CANN runtime calls openacl implements beyond model execution:
 * system parameters per context and per process (aclrt[Ctx]Set/GetSysParamOpt),
 * cache maintenance (aclrtCmo*: validated no-ops on coherent memory) and
 * external allocator descriptions with their per-stream registry
 * (acl/acl_rt_allocator.h), notifies between streams; plus a spot check of
 * the unsupported families. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt_test.h"

static void test_sysopt(void)
{
    int64_t v = -1;
    /* never set: the documented "not set" code */
    FAILS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtGetSysParamOpt");
    FAILS(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
          "aclrtCtxGetSysParamOpt");
    /* process-wide and per-context values are separate */
    OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ_INT(v, 1);
    FAILS(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
          "aclrtCtxGetSysParamOpt");
    OK(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 7));
    OK(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK_EQ_INT(v, 7);
    FAILS(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
          "aclrtGetSysParamOpt");
    /* a second context does not see the first one's value; switching back does */
    aclrtContext main_ctx = NULL, other = NULL;
    OK(aclrtGetCurrentContext(&main_ctx));
    OK(aclrtCreateContext(&other, 0));
    FAILS(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
          "aclrtCtxGetSysParamOpt");
    OK(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, INT64_MIN));
    OK(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK(v == INT64_MIN);
    OK(aclrtSetCurrentContext(main_ctx));
    OK(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK_EQ_INT(v, 7);
    OK(aclrtDestroyContext(other));
    OK(aclrtSetCurrentContext(main_ctx));
    /* overwrite, every option, and bad arguments */
    OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
    OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ_INT(v, 0);
    OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 3));
    OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
    CHECK_EQ_INT(v, 3);
    FAILS(aclrtSetSysParamOpt((aclSysParamOpt)4, 1), ACL_ERROR_INVALID_PARAM, "aclrtSetSysParamOpt");
    FAILS(aclrtCtxSetSysParamOpt((aclSysParamOpt)-1, 1), ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt");
    FAILS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt");
    FAILS(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt");
}

static void test_cmo(void)
{
    void *dev = NULL;
    OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    for (int t = ACL_RT_CMO_TYPE_PREFETCH; t <= ACL_RT_CMO_TYPE_FLUSH; t++) {
        OK(aclrtCmoAsync(dev, 4096, (aclrtCmoType)t, s));
        OK(aclrtCmoAsyncWithBarrier((char *)dev + 1024, 512, (aclrtCmoType)t, 1, NULL));
    }
    OK(aclrtSynchronizeStream(s));
    FAILS(aclrtCmoAsync(dev, 4097, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM, "aclrtCmoAsync");
    FAILS(aclrtCmoAsync(dev, 0, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM, "aclrtCmoAsync");
    FAILS(aclrtCmoAsync(dev, 64, (aclrtCmoType)4, s), ACL_ERROR_INVALID_PARAM, "aclrtCmoAsync");
    char host[64];
    FAILS(aclrtCmoAsync(host, sizeof host, ACL_RT_CMO_TYPE_FLUSH, s), ACL_ERROR_INVALID_PARAM, "aclrtCmoAsync");

    aclrtBarrierTaskInfo bt = {0};
    bt.barrierNum = 2;
    bt.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_PREFETCH;
    bt.cmoInfo[0].barrierId = 1;
    bt.cmoInfo[1].cmoType = ACL_RT_CMO_TYPE_INVALID;
    bt.cmoInfo[1].barrierId = 2;
    OK(aclrtCmoWaitBarrier(&bt, s, 0));
    FAILS(aclrtCmoWaitBarrier(&bt, s, 1), ACL_ERROR_INVALID_PARAM, "aclrtCmoWaitBarrier");
    bt.cmoInfo[1].barrierId = 0;
    FAILS(aclrtCmoWaitBarrier(&bt, s, 0), ACL_ERROR_INVALID_PARAM, "aclrtCmoWaitBarrier");
    bt.cmoInfo[1].barrierId = 2;
    bt.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM + 1;
    FAILS(aclrtCmoWaitBarrier(&bt, s, 0), ACL_ERROR_INVALID_PARAM, "aclrtCmoWaitBarrier");

    size_t dsz = 0;
    OK(aclrtCmoGetDescSize(&dsz));
    CHECK(dsz > 0 && dsz <= 256);
    void *desc = calloc(1, dsz);
    FAILS(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_WRITEBACK, s, NULL), ACL_ERROR_INVALID_PARAM,
          "aclrtCmoAsyncWithDesc");
    OK(aclrtCmoSetDesc(desc, dev, 2048));
    OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_WRITEBACK, s, NULL));
    FAILS(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_WRITEBACK, s, desc), ACL_ERROR_INVALID_PARAM,
          "aclrtCmoAsyncWithDesc");
    FAILS(aclrtCmoSetDesc(desc, dev, 8192), ACL_ERROR_INVALID_PARAM, "aclrtCmoSetDesc");
    OK(aclrtSynchronizeStream(s));
    /* the stream is checked: a destroyed one is refused */
    OK(aclrtDestroyStream(s));
    FAILS(aclrtCmoAsync(dev, 64, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM, "aclrtCmoAsync");
    /* and so is memory once freed */
    OK(aclrtFree(dev));
    FAILS(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_WRITEBACK, NULL, NULL), ACL_ERROR_INVALID_PARAM,
          "aclrtCmoAsyncWithDesc");
    free(desc);
}

static int g_obj;
static void *my_alloc(aclrtAllocator a, size_t size) { return a == &g_obj ? malloc(size) : NULL; }
static void my_free(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; free(b); }
static void *my_advise(aclrtAllocator a, size_t size, aclrtAllocatorAddr addr) { (void)a; (void)size; return addr; }
static void *my_addr(aclrtAllocatorBlock b) { return b; }

static void test_allocator(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    CHECK(d != NULL);
    /* incomplete description */
    OK(aclrtAllocatorSetObjToDesc(d, &g_obj));
    FAILS(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM, "aclrtAllocatorRegister");
    FAILS(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM, "aclrtAllocatorSetAllocFuncToDesc");
    OK(aclrtAllocatorSetAllocFuncToDesc(d, my_alloc));
    OK(aclrtAllocatorSetFreeFuncToDesc(d, my_free));
    OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, my_advise));
    OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, my_addr));
    /* nothing registered yet */
    aclrtAllocator obj = NULL;
    FAILS(aclrtAllocatorGetByStream(s, NULL, &obj, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM,
          "aclrtAllocatorGetByStream");
    OK(aclrtAllocatorRegister(s, d));
    aclrtAllocatorDesc got = NULL;
    aclrtAllocatorAllocFunc fa = NULL;
    aclrtAllocatorFreeFunc ff = NULL;
    aclrtAllocatorAllocAdviseFunc fv = NULL;
    aclrtAllocatorGetAddrFromBlockFunc fg = NULL;
    OK(aclrtAllocatorGetByStream(s, &got, &obj, &fa, &ff, &fv, &fg));
    CHECK(got == d && obj == &g_obj && fa == my_alloc && ff == my_free && fv == my_advise && fg == my_addr);
    /* the functions handed back work as the application's own */
    void *blk = fa(obj, 32);
    CHECK(blk != NULL && fg(blk) == blk);
    ff(obj, blk);
    /* registration copied the description: destroying it keeps the entry */
    OK(aclrtAllocatorDestroyDesc(d));
    fa = NULL;
    OK(aclrtAllocatorGetByStream(s, NULL, NULL, &fa, NULL, NULL, NULL));
    CHECK(fa == my_alloc);
    /* other streams (the default one included) are separate */
    FAILS(aclrtAllocatorGetByStream(NULL, NULL, &obj, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM,
          "aclrtAllocatorGetByStream");
    OK(aclrtAllocatorUnregister(s));
    FAILS(aclrtAllocatorGetByStream(s, NULL, &obj, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM,
          "aclrtAllocatorGetByStream");
    OK(aclrtAllocatorUnregister(s)); /* none registered: no-op */
    OK(aclrtDestroyStream(s));
    FAILS(aclrtAllocatorUnregister(s), ACL_ERROR_INVALID_PARAM, "aclrtAllocatorUnregister");
    FAILS(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM, "aclrtAllocatorDestroyDesc");
}

static void test_notify(void)
{
    aclrtStream a = NULL, b = NULL;
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));
    aclrtNotify n = NULL, m = NULL;
    FAILS(aclrtCreateNotify(&n, 2), ACL_ERROR_INVALID_PARAM, "aclrtCreateNotify");
    OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    OK(aclrtCreateNotify(&m, ACL_NOTIFY_DEVICE_USE_ONLY));
    uint32_t idn = 0, idm = 0;
    OK(aclrtGetNotifyId(n, &idn));
    OK(aclrtGetNotifyId(m, &idm));
    CHECK(idn != idm);

    /* b waits for a's record: work queued behind the wait does not run before it */
    int32_t *buf = NULL;
    OK(aclrtMallocHost((void **)&buf, sizeof(int32_t)));
    *buf = 0;
    OK(aclrtWaitAndResetNotify(n, b, 0));
    OK(aclrtMemsetAsync(buf, sizeof(int32_t), 1, sizeof(int32_t), b));
    usleep(20000);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    OK(aclrtStreamQuery(b, &st));
    CHECK_EQ_INT(st, ACL_STREAM_STATUS_NOT_READY);
    CHECK_EQ_INT(*buf, 0);
    OK(aclrtRecordNotify(n, a));
    OK(aclrtSynchronizeStream(b));
    CHECK_EQ_INT(*buf, 0x01010101);

    /* the wait reset the flag: a second wait times out and fails its stream */
    OK(aclrtWaitAndResetNotify(n, b, 20));
    FAILS(aclrtSynchronizeStream(b), ACL_ERROR_RT_WAIT_TIMEOUT, "aclrtWaitAndResetNotify");
    /* a record before the wait is kept; two records release one wait */
    OK(aclrtRecordNotify(n, a));
    OK(aclrtRecordNotify(n, a));
    OK(aclrtSynchronizeStream(a));
    OK(aclrtWaitAndResetNotify(n, b, 1000));
    OK(aclrtSynchronizeStream(b));
    OK(aclrtWaitAndResetNotify(n, b, 20));
    FAILS(aclrtSynchronizeStream(b), ACL_ERROR_RT_WAIT_TIMEOUT, "aclrtWaitAndResetNotify");
    /* a host-side batch reset drops a pending record */
    OK(aclrtRecordNotify(n, a));
    OK(aclrtRecordNotify(m, NULL));
    OK(aclrtSynchronizeStream(a));
    OK(aclrtSynchronizeStream(NULL));
    aclrtNotify both[2] = {n, m};
    OK(aclrtNotifyBatchReset(both, 2));
    OK(aclrtWaitAndResetNotify(m, b, 20));
    FAILS(aclrtSynchronizeStream(b), ACL_ERROR_RT_WAIT_TIMEOUT, "aclrtWaitAndResetNotify");

    /* destroying a notify a stream waits on wakes it with an error */
    OK(aclrtWaitAndResetNotify(m, b, 0));
    usleep(10000);
    OK(aclrtDestroyNotify(m));
    FAILS(aclrtSynchronizeStream(b), ACL_ERROR_INVALID_PARAM, "aclrtWaitAndResetNotify");
    /* destroyed handles and bad arguments */
    FAILS(aclrtGetNotifyId(m, &idm), ACL_ERROR_INVALID_PARAM, "aclrtGetNotifyId");
    FAILS(aclrtRecordNotify(m, a), ACL_ERROR_INVALID_PARAM, "aclrtRecordNotify");
    FAILS(aclrtDestroyNotify(m), ACL_ERROR_INVALID_PARAM, "aclrtDestroyNotify");
    both[1] = m;
    FAILS(aclrtNotifyBatchReset(both, 2), ACL_ERROR_INVALID_PARAM, "aclrtNotifyBatchReset");
    FAILS(aclrtNotifyBatchReset(both, 0), ACL_ERROR_INVALID_PARAM, "aclrtNotifyBatchReset");
    FAILS(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM, "aclrtGetNotifyId");
    aclrtStream dead = b;
    OK(aclrtDestroyStream(b));
    FAILS(aclrtWaitAndResetNotify(n, dead, 0), ACL_ERROR_INVALID_PARAM, "aclrtWaitAndResetNotify");
    /* a wait left pending at aclFinalize is woken (checked in main) */
    OK(aclrtDestroyNotify(n));
    OK(aclrtDestroyStream(a));
    OK(aclrtFreeHost(buf));
}

/* One call per unsupported family: the documented code and a message naming it. */
static void test_unsupported(void)
{
    aclrtBinHandle bin = NULL;
    FAILS(aclrtBinaryLoadFromFile("kernel.o", NULL, &bin), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtBinaryLoadFromFile");
    FAILS(aclrtLaunchKernel(NULL, 1, NULL, 0, NULL), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtLaunchKernel");
    char key[64];
    void *dev = NULL;
    OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    FAILS(aclrtIpcMemGetExportKey(dev, 64, key, sizeof key, 0), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclrtIpcMemGetExportKey");
    OK(aclrtFree(dev));
    aclrtCntNotify cn = NULL;
    FAILS(aclrtCntNotifyCreate(&cn, 0), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtCntNotifyCreate");
    FAILS(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclmdlRICaptureBegin");
    CHECK(aclrtCreateStreamConfigHandle() == NULL);
    MSG_NAMES("aclrtCreateStreamConfigHandle");
}

int main(void)
{
    setenv("OPENACL_DEVICE_COUNT", "1", 1);
    setenv("OPENACL_DEVICE_MEMORY", "1M", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    test_sysopt();
    test_cmo();
    test_allocator();
    test_notify();
    test_unsupported();
    OK(aclrtResetDevice(0));
    /* a wait no one records is left pending: aclFinalize wakes it and returns */
    OK(aclrtSetDevice(0));
    aclrtNotify pending = NULL;
    aclrtStream ps = NULL;
    OK(aclrtCreateStream(&ps));
    OK(aclrtCreateNotify(&pending, ACL_NOTIFY_DEFAULT));
    OK(aclrtWaitAndResetNotify(pending, ps, 0));
    OK(aclFinalize());
    /* aclInit clears the process-wide values */
    OK(aclInit(NULL));
    int64_t v = 0;
    FAILS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtGetSysParamOpt");
    OK(aclFinalize());
    TEST_DONE();
}
