/* The current-CANN runtime calls openacl implements beyond model execution:
 * system parameters per context and per process (aclrt[Ctx]Set/GetSysParamOpt),
 * cache maintenance (aclrtCmo*: validated no-ops on coherent memory) and
 * external allocator descriptions with their per-stream registry
 * (acl/acl_rt_allocator.h); plus a spot check of the unsupported families. */
#include <stdint.h>
#include <stdlib.h>

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
    aclrtNotify n = NULL;
    FAILS(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtCreateNotify");
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
    test_unsupported();
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    /* aclInit clears the process-wide values */
    OK(aclInit(NULL));
    int64_t v = 0;
    FAILS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtGetSysParamOpt");
    OK(aclFinalize());
    TEST_DONE();
}
