/* External allocator descriptions (acl/acl_rt_allocator.h) and the
 * per-stream registry. A description is a small heap object; registering
 * copies it into a table keyed by the stream's handle (handles are never
 * reused, so an entry left by a destroyed stream can never match a new
 * one). openacl's operators draw scratch memory from the device pool, so the
 * registered functions are kept for aclrtAllocatorGetByStream and never
 * called by the runtime. The table is emptied at aclFinalize. */
#include <stdlib.h>
#include <string.h>

#include "rt/rt_priv.h"

#define ALLOC_DESC_MAGIC 0x4f41414c4c4f4344ull
#define ALLOC_MAX_STREAMS 1024

typedef struct {
    uint64_t magic;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free_fn;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc addr;
} alloc_desc;

typedef struct {
    aclrtStream stream; /* resolved handle; NULL: free slot */
    alloc_desc desc;
    alloc_desc *user;   /* the description registered (returned by GetByStream) */
} alloc_entry;

static pthread_mutex_t g_alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_entry g_alloc[ALLOC_MAX_STREAMS];
static int g_alloc_hooked;

static void alloc_on_finalize(void)
{
    pthread_mutex_lock(&g_alloc_lock);
    memset(g_alloc, 0, sizeof g_alloc);
    pthread_mutex_unlock(&g_alloc_lock);
}

static alloc_desc *desc_of(const char *api, aclrtAllocatorDesc d, int *rc)
{
    *rc = rt_check_init(api);
    if (*rc) return NULL;
    alloc_desc *a = (alloc_desc *)d;
    if (!a) {
        *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: allocatorDesc is NULL", api);
        return NULL;
    }
    if (a->magic != ALLOC_DESC_MAGIC) {
        *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: allocatorDesc was not made by aclrtAllocatorCreateDesc", api);
        return NULL;
    }
    return a;
}

ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    if (rt_check_init("aclrtAllocatorCreateDesc")) return NULL;
    alloc_desc *a = calloc(1, sizeof(*a));
    if (!a) {
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclrtAllocatorCreateDesc: out of memory");
        return NULL;
    }
    a->magic = ALLOC_DESC_MAGIC;
    return a;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    int rc;
    alloc_desc *a = desc_of("aclrtAllocatorDestroyDesc", allocatorDesc, &rc);
    if (!a) return rc;
    a->magic = 0;
    free(a);
    return ACL_SUCCESS;
}

#define DESC_SETTER(api, type, field, what)                                                                        \
    ACL_FUNC_VISIBILITY aclError api(aclrtAllocatorDesc allocatorDesc, type value)                                 \
    {                                                                                                              \
        int rc;                                                                                                    \
        alloc_desc *a = desc_of(#api, allocatorDesc, &rc);                                                         \
        if (!a) return rc;                                                                                         \
        if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", #api, what);                        \
        a->field = value;                                                                                          \
        return ACL_SUCCESS;                                                                                        \
    }

DESC_SETTER(aclrtAllocatorSetObjToDesc, aclrtAllocator, obj, "allocator")
DESC_SETTER(aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc, alloc, "func")
DESC_SETTER(aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc, free_fn, "func")
DESC_SETTER(aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc, advise, "func")
DESC_SETTER(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc, addr, "func")

/* The stream's identity in the table: the handle itself, or for NULL the
 * current context's default stream. */
static int stream_key(const char *api, aclrtStream stream, aclrtStream *key)
{
    if (stream) {
        rt_stream *s = NULL;
        int rc = rt_stream_resolve(api, stream, &s);
        if (rc) return rc;
        *key = stream;
        return ACL_SUCCESS;
    }
    pthread_rwlock_rdlock(&g_rt.lock);
    rt_ctx *c = rt_ctx_current_locked();
    if (c) *key = RT_P(c->def_stream->handle);
    pthread_rwlock_unlock(&g_rt.lock);
    if (!c) return acl_fail(ACL_ERROR_RT_CONTEXT_NULL, "%s: the calling thread has no current context", api);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    const char *api = "aclrtAllocatorRegister";
    int rc;
    alloc_desc *a = desc_of(api, allocatorDesc, &rc);
    if (!a) return rc;
    if (!a->obj || !a->alloc || !a->free_fn || !a->addr)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: allocatorDesc lacks the allocator object or its alloc, free or get-address function",
                        api);
    aclrtStream key = NULL;
    rc = stream_key(api, stream, &key);
    if (rc) return rc;
    pthread_mutex_lock(&g_alloc_lock);
    if (!g_alloc_hooked) {
        rt_on_finalize(alloc_on_finalize);
        g_alloc_hooked = 1;
    }
    alloc_entry *slot = NULL;
    for (int i = 0; i < ALLOC_MAX_STREAMS; i++) {
        if (g_alloc[i].stream == key) {
            slot = &g_alloc[i];
            break;
        }
        if (!slot && !g_alloc[i].stream) slot = &g_alloc[i];
    }
    if (slot) {
        slot->stream = key;
        slot->desc = *a;
        slot->user = a;
    }
    pthread_mutex_unlock(&g_alloc_lock);
    if (!slot)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %d streams already hold an allocator", api, ALLOC_MAX_STREAMS);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                       aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                       aclrtAllocatorFreeFunc *freeFunc,
                                                       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    const char *api = "aclrtAllocatorGetByStream";
    int rc = rt_check_init(api);
    if (rc) return rc;
    aclrtStream key = NULL;
    rc = stream_key(api, stream, &key);
    if (rc) return rc;
    int found = 0;
    pthread_mutex_lock(&g_alloc_lock);
    for (int i = 0; i < ALLOC_MAX_STREAMS; i++) {
        alloc_entry *e = &g_alloc[i];
        if (e->stream != key) continue;
        if (allocatorDesc) *allocatorDesc = e->user;
        if (allocator) *allocator = e->desc.obj;
        if (allocFunc) *allocFunc = e->desc.alloc;
        if (freeFunc) *freeFunc = e->desc.free_fn;
        if (allocAdviseFunc) *allocAdviseFunc = e->desc.advise;
        if (getAddrFromBlockFunc) *getAddrFromBlockFunc = e->desc.addr;
        found = 1;
        break;
    }
    pthread_mutex_unlock(&g_alloc_lock);
    if (!found) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: no allocator is registered for this stream", api);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    const char *api = "aclrtAllocatorUnregister";
    int rc = rt_check_init(api);
    if (rc) return rc;
    aclrtStream key = NULL;
    rc = stream_key(api, stream, &key);
    if (rc) return rc;
    pthread_mutex_lock(&g_alloc_lock);
    for (int i = 0; i < ALLOC_MAX_STREAMS; i++)
        if (g_alloc[i].stream == key) memset(&g_alloc[i], 0, sizeof g_alloc[i]);
    pthread_mutex_unlock(&g_alloc_lock);
    return ACL_SUCCESS;
}
