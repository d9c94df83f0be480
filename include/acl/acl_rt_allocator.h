/* AscendCL external allocators (openacl): an application describes its own
 * allocator (an object plus alloc / free / alloc-advise / block-address
 * functions) and registers it for a stream, so that work on that stream takes
 * its scratch memory from it. Names, types and signatures are CANN's; this
 * header is included by acl/acl_rt.h, as in CANN.
 *
 * openacl implements the description calls (create, set, destroy) and the
 * per-stream registry; the runtime itself never calls the registered
 * functions, because its operators take their scratch memory from the
 * device's own pool. See docs/porting.md. */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* A new, empty description (NULL when out of memory or before aclInit);
 * release it with aclrtAllocatorDestroyDesc. Registering copies it, so it may
 * be destroyed once registered. */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);

/* Fill a description: the allocator object and its four functions. Each
 * value must be non-NULL. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                         aclrtAllocatorGetAddrFromBlockFunc func);

/* Register a complete description (object, alloc, free and block-address
 * functions set) for stream (NULL: the current default stream), replacing
 * any earlier one; GetByStream reads it back (each output may be NULL when
 * not wanted; *allocatorDesc is the handle registered, possibly destroyed
 * since; none registered → ACL_ERROR_INVALID_PARAM); Unregister removes
 * it (none registered: no-op). A registration lasts until Unregister or
 * aclFinalize; at most 1024 streams hold one at a time. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                       aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                       aclrtAllocatorFreeFunc *freeFunc,
                                                       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
