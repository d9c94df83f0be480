/* Virtual-memory management of the current CANN runtime (reserve an
 * address range, allocate physical memory, map one onto the other): declared
 * for source compatibility, not supported yet; each call records a message
 * and returns ACL_ERROR_FEATURE_UNSUPPORTED (listed by scripts/api_coverage.py). */
#include "core/unsupported.h"
#include "rt/rt_priv.h"

ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtReserveMemAddress);
}

ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr)
{
    return OA_UNSUPPORTED(aclrtReleaseMemAddress);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtMallocPhysical);
}

ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    return OA_UNSUPPORTED(aclrtFreePhysical);
}

ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                         uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtMapMem);
}

ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr)
{
    return OA_UNSUPPORTED(aclrtUnmapMem);
}

ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option, size_t *granularity)
{
    return OA_UNSUPPORTED(aclrtMemGetAllocationGranularity);
}
