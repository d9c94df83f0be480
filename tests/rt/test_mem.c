/* Memory: allocation rules (size 0, rounding, alignment, capacity), exact
 * accounting through aclrtGetMemInfo, frees of unknown pointers, copies
 * checked against the allocation table (kinds, bounds, alignment, destMax),
 * memset, 2-D copies, pinned host memory. */
#include <stdint.h>

#include "rt/rt_ext.h"
#include "rt/rt_internal.h"
#include "rt_test.h"

#define CAP (1u << 20)

static size_t used(void)
{
    size_t fr = 0, tot = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    return tot - fr;
}

int main(void)
{
    setenv("OPENACL_DEVICE_MEMORY", "1M", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    size_t fr = 0, tot = 0;
    OK(aclrtGetMemInfo(ACL_DDR_MEM, &fr, &tot));
    CHECK_EQ_INT(tot, CAP);
    CHECK_EQ_INT(fr, CAP);
    OK(aclrtGetMemInfo(ACL_MEM_P2P_HUGE, &fr, &tot));
    CHECK_EQ_INT(tot, 0);
    FAILS(aclrtGetMemInfo((aclrtMemAttr)18, &fr, &tot), ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo");
    FAILS(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &tot), ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo");

    /* size rules and accounting */
    void *p = NULL, *q = NULL, *r = NULL;
    FAILS(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "aclrtMalloc");
    FAILS(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "aclrtMalloc");
    OK(aclrtMalloc(&p, 1, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(((uintptr_t)p & 127) == 0);
    CHECK_EQ_INT(used(), 64); /* 1 → 32, plus 32 */
    OK(aclrtMalloc(&q, 100, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_EQ_INT(used(), 64 + 160); /* 100 → 128, plus 32 */
    OK(aclrtMallocAlign32(&r, 100, ACL_MEM_MALLOC_HUGE_ONLY));
    CHECK_EQ_INT(used(), 64 + 160 + 128);
    OK(aclrtFree(r));
    OK(aclrtMalloc(&r, 64, ACL_MEM_MALLOC_HUGE1G_ONLY)); /* 1G pages: no padding */
    CHECK_EQ_INT(used(), 64 + 160 + 64);
    OK(aclrtFree(r));
    OK(aclrtMallocCached(&r, 32, (aclrtMemMallocPolicy)(ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH)));
    CHECK_EQ_INT(used(), 64 + 160 + 64);
    OK(aclrtMemFlush(r, 32));
    OK(aclrtMemInvalidate(r, 32));
    FAILS(aclrtMemFlush(r, 33), ACL_ERROR_INVALID_PARAM, "aclrtMemFlush");
    FAILS(aclrtMemInvalidate(NULL, 4), ACL_ERROR_INVALID_PARAM, "aclrtMemInvalidate");
    OK(aclrtFree(r));

    /* capacity is enforced */
    void *big = NULL;
    FAILS(aclrtMalloc(&big, CAP, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc");
    OK(aclrtMalloc(&big, CAP - 64 - 160 - 32, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    CHECK_EQ_INT(fr, 0);
    FAILS(aclrtMalloc(&r, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc");
    OK(aclrtFree(big));
    /* device 1 has its own budget */
    OK(aclrtSetDevice(1));
    OK(aclrtMalloc(&big, CAP - 32, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtFree(big));
    OK(aclrtSetDevice(0));

    /* frees */
    int stackvar;
    FAILS(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    FAILS(aclrtFree(&stackvar), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    FAILS(aclrtFree((char *)q + 8), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    void *h = NULL;
    FAILS(aclrtMallocHost(&h, 0), ACL_ERROR_INVALID_PARAM, "aclrtMallocHost");
    FAILS(aclrtMallocHost(NULL, 8), ACL_ERROR_INVALID_PARAM, "aclrtMallocHost");
    OK(aclrtMallocHost(&h, 256));
    CHECK(((uintptr_t)h & 63) == 0);
    CHECK_EQ_INT(used(), 64 + 160); /* host memory is not device memory */
    FAILS(aclrtFree(h), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    FAILS(aclrtFreeHost(q), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost");
    FAILS(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost");

    /* synchronous copies */
    unsigned char host[256], back[256];
    for (int i = 0; i < 256; i++) host[i] = (unsigned char)i;
    OK(aclrtMemcpy(q, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, sizeof(back));
    OK(aclrtMemcpy(back, sizeof(back), q, 100, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, host, 100) == 0);
    OK(aclrtMemcpy(back, 0, q, 0, ACL_MEMCPY_DEVICE_TO_HOST)); /* count 0 */
    FAILS(aclrtMemcpy(q, 100, host, 101, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "destMax");
    FAILS(aclrtMemcpy(q, 200, host, 101, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "past the end");
    FAILS(aclrtMemcpy(back, 256, host, 10, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "dst");
    FAILS(aclrtMemcpy(back, 100, host, 10, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM, "src");
    /* the kind is advisory: device memory named as host memory is still reachable */
    OK(aclrtMemcpy(q, 100, p, 1, ACL_MEMCPY_HOST_TO_HOST));
    FAILS(aclrtMemcpy(NULL, 10, host, 10, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy");
    FAILS(aclrtMemcpy(back, 10, NULL, 10, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy");
    FAILS(aclrtMemcpy(back, 10, host, 10, (aclrtMemcpyKind)9), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy");
    OK(aclrtMemcpy(p, 1, q, 1, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(p, 1, q, 1, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
    FAILS(aclrtMemcpy(p, 1, q, 1, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy");
    /* ACL_MEMCPY_DEFAULT infers the direction from the addresses */
    OK(aclrtMemcpy(q, 100, host + 5, 50, ACL_MEMCPY_DEFAULT));
    OK(aclrtMemcpy(back, 256, q, 50, ACL_MEMCPY_DEFAULT));
    CHECK(memcmp(back, host + 5, 50) == 0);
    OK(aclrtMemcpy(h, 256, host, 256, ACL_MEMCPY_HOST_TO_HOST)); /* pinned host is host */
    FAILS(aclrtMemcpy(h, 257, host, 257, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM, "past the end");
    /* page-locked host memory is reachable by the device: it may stand on
     * the device side of any kind (Huawei's memcpy samples copy
     * DEVICE_TO_HOST out of aclrtMallocHost memory) */
    memset(back, 0, sizeof(back));
    OK(aclrtMemcpy(back, 256, h, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, host, 256) == 0);
    memset(h, 0, 256);
    OK(aclrtMemcpy(h, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(memcmp(h, host, 256) == 0);
    OK(aclrtMemcpy(q, 100, h, 100, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(h, 256, q, 100, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(h, 256, q, 100, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy((char *)h + 128, 128, h, 128, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp((char *)h + 128, host, 100) == 0);
    /* pageable memory claimed as device memory: refused, naming the side */
    FAILS(aclrtMemcpy(h, 256, host, 10, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
          "kind ACL_MEMCPY_DEVICE_TO_HOST but src");
    FAILS(aclrtMemcpy(h, 256, host, 10, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
          "is host (not from aclrtMalloc) memory");
    FAILS(aclrtMemcpy(back, 256, h, 10, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
          "kind ACL_MEMCPY_HOST_TO_DEVICE but dst");
    /* media memory (acldvppMalloc) is device memory on either side too */
    void *m = NULL;
    OK(openacl_ext_dvpp_malloc("acldvppMalloc", &m, 256));
    OK(aclrtMemcpy(m, 256, h, 256, ACL_MEMCPY_HOST_TO_HOST));
    memset(back, 0, sizeof(back));
    OK(aclrtMemcpy(back, 256, m, 100, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, host, 100) == 0);
    OK(aclrtMemcpy(h, 256, m, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy2d(m, 16, h, 32, 8, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(openacl_ext_dvpp_free("acldvppFree", m));

    /* memset */
    OK(aclrtMemset(q, 100, 0xAB, 100));
    OK(aclrtMemcpy(back, 256, q, 100, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 0xAB && back[99] == 0xAB);
    OK(aclrtMemset(h, 256, 7, 256));
    CHECK(((unsigned char *)h)[255] == 7);
    OK(aclrtMemset(q, 100, 1, 0));
    FAILS(aclrtMemset(q, 10, 0, 11), ACL_ERROR_INVALID_PARAM, "aclrtMemset");
    FAILS(aclrtMemset(q, 200, 0, 101), ACL_ERROR_INVALID_PARAM, "aclrtMemset");
    FAILS(aclrtMemset(back, 256, 0, 4), ACL_ERROR_INVALID_PARAM, "aclrtMemset");
    FAILS(aclrtMemset(NULL, 4, 0, 4), ACL_ERROR_INVALID_PARAM, "aclrtMemset");

    /* 2-D copies: 4 rows of 8 bytes from a 16-byte pitch into a 10-byte pitch */
    unsigned char src2[64], dst2[64];
    for (int i = 0; i < 64; i++) src2[i] = (unsigned char)(i + 1);
    void *d2 = NULL;
    OK(aclrtMalloc(&d2, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy2d(d2, 10, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(dst2, 0, sizeof(dst2));
    OK(aclrtMemcpy2d(dst2, 16, d2, 10, 8, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    int same = 1;
    for (int row = 0; row < 4; row++)
        for (int c = 0; c < 16; c++) same &= dst2[row * 16 + c] == (c < 8 ? src2[row * 16 + c] : 0);
    CHECK(same);
    FAILS(aclrtMemcpy2d(d2, 4, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "dpitch");
    FAILS(aclrtMemcpy2d(d2, 10, src2, 4, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "spitch");
    FAILS(aclrtMemcpy2d(d2, 10, src2, 16, 0, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2d");
    FAILS(aclrtMemcpy2d(d2, 32, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "past the end");
    FAILS(aclrtMemcpy2d(d2, 10, src2, 16, 8, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2d");

    /* asynchronous copies */
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    void *a = NULL, *b = NULL;
    OK(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpyAsync(a, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemsetAsync(b, 256, 0x5A, 256, s));
    OK(aclrtMemcpyAsync((char *)b + 64, 192, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    unsigned char chk[256];
    OK(aclrtMemcpy(chk, 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(chk[0] == 0x5A && chk[63] == 0x5A && chk[64] == 7 && chk[127] == 7 && chk[128] == 0x5A);
    FAILS(aclrtMemcpyAsync((char *)a + 1, 255, h, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_ADDR_UNALIGNED,
          "aclrtMemcpyAsync");
    FAILS(aclrtMemcpyAsync(a, 256, (char *)h + 32, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_ADDR_UNALIGNED,
          "src");
    FAILS(aclrtMemcpyAsync(a, 64, h, 128, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM, "destMax");
    FAILS(aclrtMemcpyAsync(a, 512, h, 512, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM, "past the end");
    /* pinned dst and device src under a reversed kind: the addresses decide */
    OK(aclrtMemcpyAsync(h, 256, a, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(a, 256, h, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtMemcpyAsync(b, 256, h, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(chk, 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(chk[0] == 7 && chk[63] == 7);
    unsigned char *pageable = aligned_alloc(64, 256);
    CHECK(pageable != NULL);
    FAILS(aclrtMemcpyAsync(a, 256, pageable, 64, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_INVALID_PARAM, "src");
    free(pageable);
    FAILS(aclrtMemcpyAsync(a, 256, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM, "src");
    /* staged host copy: the source may change right after the call */
    OK(aclrtMemset(h, 256, 1, 256));
    OK(aclrtMemcpyAsync(a, 256, h, 256, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s));
    OK(aclrtMemset(h, 256, 2, 256));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(chk, 256, a, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(chk[0] == 1 && chk[255] == 1);
    OK(aclrtMemcpy2dAsync(d2, 10, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE, s)); /* pageable: waits */
    OK(aclrtMemcpy2dAsync(h, 16, d2, 10, 8, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s)); /* pinned dst */
    OK(aclrtSynchronizeStream(s));
    CHECK(((unsigned char *)h)[16] == src2[16] && ((unsigned char *)h)[55] == src2[55]);
    FAILS(aclrtMemsetAsync(a, 8, 0, 9, s), ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync");
    FAILS(aclrtMemcpy2dAsync(d2, 10, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE, (aclrtStream)(uintptr_t)8),
          ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2dAsync");
    OK(aclrtSynchronizeStream(s));

    /* internal API: runtime allocations count and are freeable by aclrtFree */
    size_t before = used();
    void *w = rt_dev_alloc(0, 1000, RT_MEM_WEIGHT);
    CHECK(w != NULL && ((uintptr_t)w & 127) == 0);
    CHECK_EQ_INT(used() - before, 1024 + 32);
    CHECK_EQ_INT(rt_mem_used(0, RT_MEM_WEIGHT), 1056);
    int dev = -2, isdev = -1;
    CHECK_EQ_INT(rt_mem_find((char *)w + 10, 990, &dev, &isdev), 0);
    CHECK_EQ_INT(dev, 0);
    CHECK_EQ_INT(isdev, 1);
    CHECK_EQ_INT(rt_mem_find((char *)w + 10, 991, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_EQ_INT(rt_mem_find(host, 1, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_EQ_INT(rt_mem_find(h, 256, &dev, &isdev), 0);
    CHECK_EQ_INT(dev, -1);
    CHECK_EQ_INT(isdev, 0);
    OK(aclrtFree(w));
    CHECK_EQ_INT(used(), before);
    CHECK_EQ_INT(rt_mem_used(0, RT_MEM_WEIGHT), 0);
    CHECK(rt_dev_alloc(0, CAP, RT_MEM_IO) == NULL);
    MSG_NAMES("rt_dev_alloc");
    CHECK(rt_dev_alloc(5, 64, RT_MEM_IO) == NULL);
    MSG_NAMES("rt_dev_alloc");
    w = rt_dev_alloc(1, 64, RT_MEM_IO);
    CHECK(w != NULL);
    rt_dev_free(w);
    rt_dev_free(NULL);

    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
    OK(aclrtFree(d2));
    OK(aclrtFree(p));
    OK(aclrtFreeHost(h));
    /* q is leaked on purpose: aclFinalize frees it */
    OK(aclFinalize());
    TEST_DONE();
}
