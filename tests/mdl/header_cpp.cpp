// acl_mdl.h (through acl.h) must compile as C++ and keep CANN's layouts.
#include "acl/acl.h"

#include <cstddef>

static_assert(sizeof(aclmdlIODims) == 128 + sizeof(size_t) + 128 * 8, "aclmdlIODims layout");
static_assert(offsetof(aclmdlIODims, dims) == 128 + sizeof(size_t), "aclmdlIODims.dims offset");
static_assert(sizeof(aclmdlIODimsRange) == sizeof(size_t) + 128 * 2 * 8, "aclmdlIODimsRange layout");
static_assert(sizeof(aclmdlBatch) == sizeof(size_t) + 128 * 8, "aclmdlBatch layout");
static_assert(sizeof(aclmdlHW) == sizeof(size_t) + 128 * 2 * 8, "aclmdlHW layout");
static_assert(sizeof(aclmdlExeOMDesc) == 16 * sizeof(size_t), "aclmdlExeOMDesc layout");
static_assert(sizeof(aclmdlAttrValue_t) == 32, "aclmdlAttrValue_t layout");
static_assert(ACL_MDL_RESERVED == 0xFFFF && ACL_NPU_PERF_MODE == 29, "aclmdlConfigAttr values");
static_assert(ACL_MDL_NPU_PERF_MODE == 9, "aclmdlExecConfigAttr values");
static_assert(ACL_RAW24 == 14 && ACL_AIPP_RESERVED == 0xFFFF, "aclAippInputFormat values");

int main()
{
    // Take the address of a few functions so a missing definition fails the link.
    void *fns[] = {(void *)&aclmdlLoadFromFile, (void *)&aclmdlExecuteAsyncV2, (void *)&aclmdlGetTensorRealName,
                   (void *)&aclmdlBundleUnloadModel, (void *)&aclRecoverAllHcclTasks, (void *)&aclmdlLoadFromModel};
    int n = 0;
    for (void *f : fns)
        n += f != nullptr;
    return n == 6 ? 0 : 1;
}
