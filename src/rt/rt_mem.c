/* Memory: device memory is host RAM counted per device and category
 * against the device's capacity; every allocation (device memory and
 * aclrtMallocHost memory) is kept in one ordered table (glibc's red-black
 * tsearch tree, keyed by address range) so any address can be mapped to
 * the allocation containing it. Copies and fills are checked against that
 * table before they run. */
#define _GNU_SOURCE
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt_priv.h"

#define MEM_ALIGN 128

typedef struct rt_alloc {
    uintptr_t start;
    size_t size;      /* bytes the caller asked for: the checked extent */
    size_t charged;   /* bytes counted against the device (rounded, padded) */
    int device;       /* -1: host memory from aclrtMallocHost */
    int category;
    int dvpp;         /* 1: acldvppMalloc memory (device memory freed by acldvppFree only) */
    int registered;   /* 1: the caller's memory, page-locked by aclrtHostRegister (never freed here) */
} rt_alloc;

static struct {
    pthread_mutex_t lock;
    void *root;
    size_t used[RT_MAX_DEVICES][RT_MEM_CATEGORIES];
    size_t peak[RT_MAX_DEVICES][RT_MEM_CATEGORIES]; /* since aclInit */
    size_t used_total[RT_MAX_DEVICES];
    size_t host_total;
    size_t count;
} g_mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Live allocations never overlap, so ordering by range is a total order and
 * a point key compares equal to the one range containing it. Keys used for
 * lookups have size 0 and compare by their start alone. */
static int alloc_cmp(const void *a, const void *b)
{
    const rt_alloc *x = a, *y = b;
    if (x->size == 0) { /* lookup key: point */
        if (x->start < y->start) return -1;
        if (x->start >= y->start + (y->size ? y->size : 1)) return 1;
        return 0;
    }
    if (y->size == 0) return -alloc_cmp(b, a);
    if (x->start < y->start) return -1;
    if (x->start > y->start) return 1;
    return 0;
}

/* mem lock held */
static rt_alloc *alloc_find(const void *p)
{
    rt_alloc key = {.start = (uintptr_t)p, .size = 0};
    void **n = tfind(&key, &g_mem.root, alloc_cmp);
    return n ? *n : NULL;
}

static int policy_no_pad(aclrtMemMallocPolicy policy)
{
    int page = (int)policy & 0xFF;
    return page == ACL_MEM_MALLOC_HUGE1G_ONLY || page == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
}

/* Allocates and registers; returns an aclError (message naming api). */
static int mem_alloc_ex(const char *api, int device, size_t size, int pad, int category, int dvpp, void **out)
{
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (size > SIZE_MAX - 64 - MEM_ALIGN)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size %zu is too large", api, size);
    size_t charged = ((size + 31) & ~(size_t)31) + (pad ? 32 : 0);
    size_t alloc_size = (charged + MEM_ALIGN - 1) & ~(size_t)(MEM_ALIGN - 1);
    rt_alloc *rec = malloc(sizeof(*rec));
    if (!rec) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the allocation record", api);
    pthread_mutex_lock(&g_mem.lock);
    if (device >= 0) {
        size_t cap = g_rt.cfg.device_memory;
        if (g_mem.used_total[device] + charged > cap || g_mem.used_total[device] + charged < charged) {
            size_t used = g_mem.used_total[device];
            pthread_mutex_unlock(&g_mem.lock);
            free(rec);
            return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                            "%s: device %d out of memory: %zu bytes requested (%zu with padding), %zu of %zu in use, "
                            "%zu free",
                            api, device, size, charged, used, cap, cap - used);
        }
        /* reserve before the (possibly slow) host allocation */
        g_mem.used_total[device] += charged;
        g_mem.used[device][category] += charged;
        if (g_mem.used[device][category] > g_mem.peak[device][category])
            g_mem.peak[device][category] = g_mem.used[device][category];
    }
    pthread_mutex_unlock(&g_mem.lock);
    void *p = NULL;
    if (posix_memalign(&p, MEM_ALIGN, alloc_size) != 0) p = NULL;
    pthread_mutex_lock(&g_mem.lock);
    if (!p) {
        if (device >= 0) {
            g_mem.used_total[device] -= charged;
            g_mem.used[device][category] -= charged;
        }
        pthread_mutex_unlock(&g_mem.lock);
        free(rec);
        return acl_fail(device >= 0 ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_ERROR_BAD_ALLOC,
                        "%s: the host could not provide %zu bytes", api, alloc_size);
    }
    rec->start = (uintptr_t)p;
    rec->size = size;
    rec->charged = charged;
    rec->device = device;
    rec->category = category;
    rec->dvpp = dvpp;
    rec->registered = 0;
    if (!tsearch(rec, &g_mem.root, alloc_cmp)) {
        if (device >= 0) {
            g_mem.used_total[device] -= charged;
            g_mem.used[device][category] -= charged;
        }
        pthread_mutex_unlock(&g_mem.lock);
        free(p);
        free(rec);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the allocation table", api);
    }
    if (device < 0) g_mem.host_total += charged;
    g_mem.count++;
    pthread_mutex_unlock(&g_mem.lock);
    *out = p;
    return ACL_SUCCESS;
}

static int mem_alloc(const char *api, int device, size_t size, int pad, int category, void **out)
{
    return mem_alloc_ex(api, device, size, pad, category, 0, out);
}

static const char *alloc_what(const rt_alloc *a)
{
    return a->dvpp         ? "media (acldvppMalloc)"
           : a->registered ? "registered host (aclrtHostRegister)"
           : a->device >= 0 ? "device"
                            : "host (aclrtMallocHost)";
}

static const char *alloc_freer(const rt_alloc *a)
{
    return a->dvpp ? "acldvppFree" : a->registered ? "aclrtHostUnregister" : a->device >= 0 ? "aclrtFree" : "aclrtFreeHost";
}

/* want: MEM_WANT_HOST, MEM_WANT_DEVICE, MEM_WANT_DVPP or
 * MEM_WANT_REGISTERED; memory of another kind is refused, naming the call
 * that frees it. */
enum { MEM_WANT_HOST = 0, MEM_WANT_DEVICE = 1, MEM_WANT_DVPP = 2, MEM_WANT_REGISTERED = 3 };
static int alloc_kind(const rt_alloc *a)
{
    return a->dvpp ? MEM_WANT_DVPP : a->registered ? MEM_WANT_REGISTERED : a->device >= 0 ? MEM_WANT_DEVICE : MEM_WANT_HOST;
}

static int mem_free(const char *api, void *p, int want)
{
    pthread_mutex_lock(&g_mem.lock);
    rt_alloc *a = alloc_find(p);
    if (!a || a->start != (uintptr_t)p || alloc_kind(a) != want) {
        pthread_mutex_unlock(&g_mem.lock);
        if (!a)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %p was not allocated by openacl (or is already freed)", api,
                            p);
        if (a->start != (uintptr_t)p)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %p points %zu bytes into the allocation at %p, not at its start",
                            api, p, (size_t)((uintptr_t)p - a->start), (void *)a->start);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is %s memory; free it with %s", api, p, alloc_what(a),
                        alloc_freer(a));
    }
    tdelete(a, &g_mem.root, alloc_cmp);
    if (a->device >= 0) {
        g_mem.used_total[a->device] -= a->charged;
        g_mem.used[a->device][a->category] -= a->charged;
    } else {
        g_mem.host_total -= a->charged;
    }
    g_mem.count--;
    pthread_mutex_unlock(&g_mem.lock);
    if (!a->registered) free(p);
    free(a);
    return ACL_SUCCESS;
}

static void free_node(void *n)
{
    rt_alloc *a = n;
    if (!a->registered) free((void *)a->start);
    free(a);
}

void rt_mem_reset(void)
{
    pthread_mutex_lock(&g_mem.lock);
    if (g_mem.count)
        acl_log(ACL_INFO, "aclFinalize: freeing %zu allocations the application did not free", g_mem.count);
    tdestroy(g_mem.root, free_node);
    g_mem.root = NULL;
    memset(g_mem.used, 0, sizeof(g_mem.used));
    memset(g_mem.peak, 0, sizeof(g_mem.peak));
    memset(g_mem.used_total, 0, sizeof(g_mem.used_total));
    g_mem.host_total = 0;
    g_mem.count = 0;
    pthread_mutex_unlock(&g_mem.lock);
}

/* ------------------------------------------------------ internal API */

void *rt_dev_alloc(int device, size_t size, int category)
{
    if (!rt_initialized()) {
        acl_fail(ACL_ERROR_UNINITIALIZE, "rt_dev_alloc: aclInit has not been called");
        return NULL;
    }
    if (device < 0 || device >= g_rt.cfg.device_count) {
        acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "rt_dev_alloc: device %d out of range [0, %d)", device,
                 g_rt.cfg.device_count);
        return NULL;
    }
    if (category < 0 || category >= RT_MEM_CATEGORIES) category = RT_MEM_WORK;
    void *p = NULL;
    if (mem_alloc("rt_dev_alloc", device, size, 1, category, &p) != ACL_SUCCESS) return NULL;
    return p;
}

void rt_dev_free(void *p)
{
    if (!p) return;
    mem_free("rt_dev_free", p, MEM_WANT_DEVICE);
}

int rt_mem_find(const void *p, size_t len, int *device, int *is_device)
{
    pthread_mutex_lock(&g_mem.lock);
    rt_alloc *a = p ? alloc_find(p) : NULL;
    int ok = a && len <= a->size - (size_t)((uintptr_t)p - a->start);
    if (ok) {
        if (device) *device = a->device;
        if (is_device) *is_device = a->device >= 0;
    }
    pthread_mutex_unlock(&g_mem.lock);
    return ok ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

size_t rt_mem_used(int device, int category)
{
    if (device < 0 || device >= RT_MAX_DEVICES || category < 0 || category > RT_MEM_CATEGORIES) return 0;
    pthread_mutex_lock(&g_mem.lock);
    size_t v = category == RT_MEM_CATEGORIES ? g_mem.used_total[device] : g_mem.used[device][category];
    pthread_mutex_unlock(&g_mem.lock);
    return v;
}

/* Classifies [p, p+n): is_dev and dev from the allocation containing p
 * (host pageable memory if none; pinned = 1 for aclrtMallocHost memory).
 * An access running past the end of a known allocation is refused. */
int rt_mem_check_range(const char *api, const char *which, const void *p, size_t n, int *is_dev, int *dev,
                       int *pinned)
{
    pthread_mutex_lock(&g_mem.lock);
    rt_alloc *a = alloc_find(p);
    if (!a) {
        pthread_mutex_unlock(&g_mem.lock);
        *is_dev = 0;
        *dev = -1;
        *pinned = 0;
        return ACL_SUCCESS;
    }
    size_t off = (size_t)((uintptr_t)p - a->start);
    size_t avail = a->size - off;
    int d = a->device;
    uintptr_t start = a->start;
    size_t size = a->size;
    pthread_mutex_unlock(&g_mem.lock);
    if (n > avail)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: %s %p + %zu bytes runs past the end of its %s allocation [%p, +%zu): only %zu bytes "
                        "left",
                        api, which, p, n, d >= 0 ? "device" : "host", (void *)start, size, avail);
    *is_dev = d >= 0;
    *dev = d;
    *pinned = d < 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ public API */

static int current_device(const char *api, int *dev)
{
    int32_t d;
    int rc = rt_current_device(api, &d);
    if (rc) return rc;
    *dev = d;
    return ACL_SUCCESS;
}

static aclError dev_malloc(const char *api, void **devPtr, size_t size, aclrtMemMallocPolicy policy, int pad)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    int dev = 0;
    if ((rc = current_device(api, &dev))) return rc;
    if (policy_no_pad(policy)) pad = 0;
    return mem_alloc(api, dev, size, pad, RT_MEM_USER, devPtr);
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return dev_malloc("aclrtMalloc", devPtr, size, policy, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return dev_malloc("aclrtMallocAlign32", devPtr, size, policy, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return dev_malloc("aclrtMallocCached", devPtr, size, policy, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr)
{
    int rc = rt_check_init("aclrtFree");
    if (rc) return rc;
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is NULL");
    return mem_free("aclrtFree", devPtr, MEM_WANT_DEVICE);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    int rc = rt_check_init("aclrtMallocHost");
    if (rc) return rc;
    if (!hostPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is NULL");
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0");
    return mem_alloc("aclrtMallocHost", -1, size, 0, RT_MEM_USER, hostPtr);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr)
{
    int rc = rt_check_init("aclrtFreeHost");
    if (rc) return rc;
    if (!hostPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is NULL");
    return mem_free("aclrtFreeHost", hostPtr, MEM_WANT_HOST);
}

static int flush_check(const char *api, void *devPtr, size_t size)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    int dev = -1, isdev = 0;
    if (rt_mem_find(devPtr, size, &dev, &isdev) != ACL_SUCCESS || !isdev)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: [%p, +%zu) is not inside one device allocation", api, devPtr,
                        size);
    return ACL_SUCCESS; /* the CPU keeps caches coherent */
}

ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void *devPtr, size_t size)
{
    return flush_check("aclrtMemFlush", devPtr, size);
}

ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    return flush_check("aclrtMemInvalidate", devPtr, size);
}

static const char *kind_name(int kind)
{
    static const char *n[] = {"ACL_MEMCPY_HOST_TO_HOST",         "ACL_MEMCPY_HOST_TO_DEVICE",
                              "ACL_MEMCPY_DEVICE_TO_HOST",       "ACL_MEMCPY_DEVICE_TO_DEVICE",
                              "ACL_MEMCPY_DEFAULT",              "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
                              "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
    return kind >= 0 && kind <= 7 ? n[kind] : "?";
}

/* Checks both extents and that `kind` can be honoured where dst and src
 * live. As in current CANN the kind is advisory and the direction follows
 * from the addresses: device memory (aclrtMalloc*, acldvppMalloc) and
 * page-locked host memory (aclrtMallocHost) are reachable by the device, so
 * either may stand on either side of any kind. The one impossible claim is
 * ordinary pageable host memory where the kind says device memory.
 * *host_pageable = 1 when a side is such pageable memory. */
static int copy_check(const char *api, void *dst, size_t dext, const void *src, size_t sext, aclrtMemcpyKind kind,
                      int *host_pageable)
{
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d is not an aclrtMemcpyKind (0..7)", api, (int)kind);
    int ddev = -1, dis = 0, dpin = 0, sdev = -1, sis = 0, spin = 0;
    int rc;
    if ((rc = rt_mem_check_range(api, "dst", dst, dext, &dis, &ddev, &dpin))) return rc;
    if ((rc = rt_mem_check_range(api, "src", src, sext, &sis, &sdev, &spin))) return rc;
    int src_dev = 0, dst_dev = 0; /* 1: the kind claims device memory on that side */
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: dst_dev = 1; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: src_dev = 1; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: src_dev = dst_dev = 1; break;
    default: break; /* HOST_TO_HOST, DEFAULT: any memory on either side */
    }
    int dreach = dis || dpin, sreach = sis || spin;
    if (dst_dev && !dreach)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %s but dst %p is %s memory", api, kind_name(kind), dst,
                        "host (not from aclrtMalloc)");
    if (src_dev && !sreach)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %s but src %p is %s memory", api, kind_name(kind), src,
                        "host (not from aclrtMalloc)");
    /* same-device / cross-device claims are checked where both sides are
     * device memory (page-locked host memory belongs to no device) */
    if (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE && sis && dis && sdev != ddev)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %s but src is on device %d and dst on device %d", api,
                        kind_name(kind), sdev, ddev);
    if (kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE && sis && dis && sdev == ddev)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %s but src and dst are both on device %d", api,
                        kind_name(kind), sdev);
    *host_pageable = (!dis && !dpin) || (!sis && !spin);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind)
{
    int rc = rt_check_init("aclrtMemcpy");
    if (rc) return rc;
    if (!dst) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: dst is NULL");
    if (!src) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: src is NULL");
    if (count > destMax)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count %zu exceeds destMax %zu", count, destMax);
    if (count == 0) return ACL_SUCCESS;
    int pageable = 0;
    if ((rc = copy_check("aclrtMemcpy", dst, count, src, count, kind, &pageable))) return rc;
    memmove(dst, src, count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream)
{
    static const char api[] = "aclrtMemcpyAsync";
    rt_stream *s = NULL;
    int rc = rt_stream_resolve(api, stream, &s);
    if (rc) return rc;
    if (!dst) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dst is NULL", api);
    if (!src) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: src is NULL", api);
    if (((uintptr_t)dst | (uintptr_t)src) & 63)
        return acl_fail(ACL_ERROR_RT_ADDR_UNALIGNED, "%s: %s %p is not 64-byte aligned", api,
                        ((uintptr_t)dst & 63) ? "dst" : "src", ((uintptr_t)dst & 63) ? dst : (void *)(uintptr_t)src);
    if (count > destMax)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: count %zu exceeds destMax %zu", api, count, destMax);
    if (count == 0) return ACL_SUCCESS;
    int pageable = 0;
    if ((rc = copy_check(api, dst, count, src, count, kind, &pageable))) return rc;
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_MEMCPY;
    t.u.cp.dst = dst;
    t.u.cp.src = src;
    t.u.cp.n = count;
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        /* staged now, so the caller may reuse src as soon as we return */
        t.u.cp.staging = malloc(count);
        if (!t.u.cp.staging) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory staging %zu bytes", api, count);
        memcpy(t.u.cp.staging, src, count);
        pageable = 0;
    }
    uint64_t seq;
    if ((rc = rt_stream_submit(api, s, &t, &seq))) {
        free(t.u.cp.staging);
        return rc;
    }
    /* CANN: with pageable host memory the call returns after the copy */
    if (pageable) return rt_stream_wait(api, s, seq, -1, 0);
    return ACL_SUCCESS;
}

static int memset_check(const char *api, void *devPtr, size_t maxCount, size_t count)
{
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (count > maxCount)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: count %zu exceeds maxCount %zu", api, count, maxCount);
    if (count == 0) return ACL_SUCCESS;
    int dev = -1, isdev = 0;
    if (rt_mem_find(devPtr, 1, &dev, &isdev) != ACL_SUCCESS)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: %p is not memory from aclrtMalloc/aclrtMallocHost (host memory must come from ACL "
                        "allocators)",
                        api, devPtr);
    int pin;
    return rt_mem_check_range(api, "devPtr", devPtr, count, &isdev, &dev, &pin);
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    int rc = rt_check_init("aclrtMemset");
    if (rc) return rc;
    if ((rc = memset_check("aclrtMemset", devPtr, maxCount, count))) return rc;
    if (count) memset(devPtr, (unsigned char)value, count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtMemsetAsync", stream, &s);
    if (rc) return rc;
    if ((rc = memset_check("aclrtMemsetAsync", devPtr, maxCount, count))) return rc;
    if (count == 0) return ACL_SUCCESS;
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_MEMSET;
    t.u.ms.dst = devPtr;
    t.u.ms.v = (unsigned char)value;
    t.u.ms.n = count;
    return rt_stream_submit("aclrtMemsetAsync", s, &t, NULL);
}

static int copy2d_check(const char *api, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t height, aclrtMemcpyKind kind, int *pageable)
{
    if (!dst) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dst is NULL", api);
    if (!src) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: src is NULL", api);
    if (width == 0 || height == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu x height %zu is empty", api, width, height);
    if (width > dpitch)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu exceeds dpitch %zu", api, width, dpitch);
    if (width > spitch)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu exceeds spitch %zu", api, width, spitch);
    if (height - 1 > (SIZE_MAX - width) / (dpitch > spitch ? dpitch : spitch))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %zu rows of pitch %zu overflow the address space", api, height,
                        dpitch > spitch ? dpitch : spitch);
    size_t dext = dpitch * (height - 1) + width, sext = spitch * (height - 1) + width;
    return copy_check(api, dst, dext, src, sext, kind, pageable);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind)
{
    int rc = rt_check_init("aclrtMemcpy2d");
    if (rc) return rc;
    int pageable = 0;
    if ((rc = copy2d_check("aclrtMemcpy2d", dst, dpitch, src, spitch, width, height, kind, &pageable))) return rc;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                size_t width, size_t height, aclrtMemcpyKind kind,
                                                aclrtStream stream)
{
    rt_stream *s = NULL;
    int rc = rt_stream_resolve("aclrtMemcpy2dAsync", stream, &s);
    if (rc) return rc;
    int pageable = 0;
    if ((rc = copy2d_check("aclrtMemcpy2dAsync", dst, dpitch, src, spitch, width, height, kind, &pageable)))
        return rc;
    rt_task t;
    memset(&t, 0, sizeof(t));
    t.kind = RT_TASK_MEMCPY2D;
    t.u.cp2.dst = dst;
    t.u.cp2.dpitch = dpitch;
    t.u.cp2.src = src;
    t.u.cp2.spitch = spitch;
    t.u.cp2.w = width;
    t.u.cp2.h = height;
    uint64_t seq;
    if ((rc = rt_stream_submit("aclrtMemcpy2dAsync", s, &t, &seq))) return rc;
    if (pageable) return rt_stream_wait("aclrtMemcpy2dAsync", s, seq, -1, 0);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total)
{
    int rc = rt_check_init("aclrtGetMemInfo");
    if (rc) return rc;
    if (!free_ || !total)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: %s is NULL", !free_ ? "free" : "total");
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attr %d is not an aclrtMemAttr (0..17)", (int)attr);
    int dev = 0;
    if ((rc = current_device("aclrtGetMemInfo", &dev))) return rc;
    switch (attr) {
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_DDR_MEM_P2P_NORMAL:
    case ACL_HBM_MEM_P2P_HUGE:
    case ACL_HBM_MEM_P2P_NORMAL:
    case ACL_HBM_MEM_HUGE1G:
    case ACL_HBM_MEM_P2P_HUGE1G:
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_NORMAL:
    case ACL_MEM_P2P_HUGE:
    case ACL_MEM_P2P_HUGE1G:
        *free_ = 0; /* openacl has no such memory class */
        *total = 0;
        return ACL_SUCCESS;
    default: break;
    }
    size_t cap = g_rt.cfg.device_memory;
    pthread_mutex_lock(&g_mem.lock);
    size_t used = g_mem.used_total[dev];
    pthread_mutex_unlock(&g_mem.lock);
    *total = cap;
    *free_ = cap - used;
    return ACL_SUCCESS;
}

/* ------------------------------------------------- configured allocation */

/* Reads an aclrtMallocConfig: *device is set when it names one (else left
 * alone). MODULE_ID and VA_FLAG change nothing in one address space. */
static int cfg_read(const char *api, const aclrtMallocConfig *cfg, int *device)
{
    if (!cfg || cfg->numAttrs == 0) return ACL_SUCCESS;
    if (!cfg->attrs)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg has numAttrs %zu but attrs is NULL", api, cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        switch (a->attr) {
        case ACL_RT_MEM_ATTR_MODULE_ID:
        case ACL_RT_MEM_ATTR_VA_FLAG: break;
        case ACL_RT_MEM_ATTR_DEVICE_ID:
            if (a->value.deviceId >= (uint32_t)g_rt.cfg.device_count)
                return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: cfg attrs[%zu] deviceId %u out of range [0, %d)",
                                api, i, a->value.deviceId, g_rt.cfg.device_count);
            *device = (int)a->value.deviceId;
            break;
        default:
            return acl_fail(ACL_ERROR_INVALID_PARAM,
                            "%s: cfg attrs[%zu].attr %d is not MODULE_ID (1), DEVICE_ID (2) or VA_FLAG (3)", api, i,
                            (int)a->attr);
        }
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                aclrtMallocConfig *cfg)
{
    static const char api[] = "aclrtMallocWithCfg";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    int dev = -1;
    if ((rc = cfg_read(api, cfg, &dev))) return rc;
    if (dev < 0 && (rc = current_device(api, &dev))) return rc;
    return mem_alloc(api, dev, size, !policy_no_pad(policy), RT_MEM_USER, devPtr);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    static const char api[] = "aclrtMallocHostWithCfg";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!ptr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (size > SIZE_MAX) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size %llu is too large", api, (unsigned long long)size);
    int dev = -1;
    if ((rc = cfg_read(api, cfg, &dev))) return rc;
    return mem_alloc(api, -1, (size_t)size, 0, RT_MEM_USER, ptr);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr)
{
    static const char api[] = "aclrtFreeWithDevSync";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if ((rc = rt_sync_current_device(api))) return rc;
    return mem_free(api, devPtr, MEM_WANT_DEVICE);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    static const char api[] = "aclrtFreeHostWithDevSync";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!hostPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: hostPtr is NULL", api);
    if ((rc = rt_sync_current_device(api))) return rc;
    return mem_free(api, hostPtr, MEM_WANT_HOST);
}

/* --------------------------------------------------- registered host memory */

/* twalk_r visitor: finds an allocation overlapping [lo, hi). */
struct overlap_q {
    uintptr_t lo, hi;
    const rt_alloc *hit;
};

static void overlap_visit(const void *node, VISIT v, void *closure)
{
    if (v != postorder && v != leaf) return;
    const rt_alloc *a = *(const rt_alloc *const *)node;
    struct overlap_q *q = closure;
    uintptr_t end = a->start + (a->size ? a->size : 1);
    if (!q->hit && a->start < q->hi && q->lo < end) q->hit = a;
}

ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    static const char api[] = "aclrtHostRegister";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!ptr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is NULL", api);
    if (!devPtr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (size > UINTPTR_MAX - (uintptr_t)ptr)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %p + %llu bytes wraps the address space", api, ptr,
                        (unsigned long long)size);
    if (type == ACL_HOST_REGISTER_IOMEMORY || type == ACL_HOST_REGISTER_READONLY)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                        "%s: type %s is not supported by openacl (CPU runtime); use ACL_HOST_REGISTER_MAPPED", api,
                        type == ACL_HOST_REGISTER_IOMEMORY ? "ACL_HOST_REGISTER_IOMEMORY" : "ACL_HOST_REGISTER_READONLY");
    if (type != ACL_HOST_REGISTER_MAPPED)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: type %d is not an aclrtHostRegisterType", api, (int)type);
    rt_alloc *rec = calloc(1, sizeof(*rec));
    if (!rec) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the allocation record", api);
    rec->start = (uintptr_t)ptr;
    rec->size = (size_t)size;
    rec->device = -1;
    rec->category = RT_MEM_USER;
    rec->registered = 1;
    pthread_mutex_lock(&g_mem.lock);
    struct overlap_q q = {.lo = rec->start, .hi = rec->start + rec->size, .hit = NULL};
    twalk_r(g_mem.root, overlap_visit, &q);
    if (q.hit) {
        uintptr_t hs = q.hit->start;
        size_t hsize = q.hit->size;
        const char *what = alloc_what(q.hit);
        pthread_mutex_unlock(&g_mem.lock);
        free(rec);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: [%p, +%llu) overlaps the %s memory [%p, +%zu)", api, ptr,
                        (unsigned long long)size, what, (void *)hs, hsize);
    }
    if (!tsearch(rec, &g_mem.root, alloc_cmp)) {
        pthread_mutex_unlock(&g_mem.lock);
        free(rec);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the allocation table", api);
    }
    g_mem.count++;
    pthread_mutex_unlock(&g_mem.lock);
    *devPtr = ptr;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr)
{
    static const char api[] = "aclrtHostUnregister";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!ptr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is NULL", api);
    return mem_free(api, ptr, MEM_WANT_REGISTERED);
}

ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    static const char api[] = "aclrtPointerGetAttributes";
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!ptr) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is NULL", api);
    if (!attributes) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attributes is NULL", api);
    memset(attributes, 0, sizeof(*attributes));
    long page = sysconf(_SC_PAGESIZE);
    attributes->pageSize = page > 0 ? (uint32_t)page : 4096u;
    pthread_mutex_lock(&g_mem.lock);
    rt_alloc *a = alloc_find(ptr);
    if (!a) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
    } else if (a->device >= 0) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)a->device;
    } else {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
    }
    pthread_mutex_unlock(&g_mem.lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                                                  size_t *outputNum)
{
    static const char api[] = "aclrtGetMemUsageInfo";
    static const char *const names[RT_MEM_CATEGORIES] = {"user", "weights", "workspace", "io"};
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (deviceId < 0 || deviceId >= g_rt.cfg.device_count)
        return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: deviceId %d out of range [0, %d)", api, (int)deviceId,
                        g_rt.cfg.device_count);
    if (!memUsageInfo) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: memUsageInfo is NULL", api);
    if (!outputNum) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: outputNum is NULL", api);
    if (inputNum == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: inputNum is 0", api);
    size_t n = inputNum < RT_MEM_CATEGORIES ? inputNum : RT_MEM_CATEGORIES;
    pthread_mutex_lock(&g_mem.lock);
    for (size_t i = 0; i < n; i++) {
        memset(&memUsageInfo[i], 0, sizeof(memUsageInfo[i]));
        snprintf(memUsageInfo[i].name, sizeof(memUsageInfo[i].name), "%s", names[i]);
        memUsageInfo[i].curMemSize = g_mem.used[deviceId][i];
        memUsageInfo[i].memPeakSize = g_mem.peak[deviceId][i];
    }
    pthread_mutex_unlock(&g_mem.lock);
    *outputNum = n;
    return ACL_SUCCESS;
}

/* ------------------------------------------- for the companion libraries */

int rt_mem_dvpp_alloc(const char *api, void **p, size_t size)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!p) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    int dev = 0;
    if ((rc = current_device(api, &dev))) return rc;
    return mem_alloc_ex(api, dev, size, 0, RT_MEM_USER, 1, p);
}

int rt_mem_dvpp_free(const char *api, void *p)
{
    int rc = rt_check_init(api);
    if (rc) return rc;
    if (!p) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    return mem_free(api, p, MEM_WANT_DVPP);
}

int rt_mem_kind(const void *p, size_t len, int *kind, int *device)
{
    pthread_mutex_lock(&g_mem.lock);
    rt_alloc *a = p ? alloc_find(p) : NULL;
    int rc = ACL_SUCCESS;
    if (!a) {
        *kind = 0;
        *device = -1;
    } else if (len > a->size - (size_t)((uintptr_t)p - a->start)) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else {
        *kind = alloc_kind(a) == MEM_WANT_DVPP ? 3 : alloc_kind(a) == MEM_WANT_DEVICE ? 2 : 1;
        *device = a->device;
    }
    pthread_mutex_unlock(&g_mem.lock);
    return rc;
}
