/* The aclmdl functions openacl declares but cannot honour on a CPU: AIPP
 * (the AI core's image pre-processing unit), bundles, queue-driven models,
 * device task debugging, HCCL. Each records a message and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED (OA_UNSUPPORTED, listed by
 * scripts/api_coverage.py). AIPP (atc --insert_op_conf, static and
 * dynamic) is in mdl/aipp.c. */
#include <string.h>

#include "core/core.h"
#include "core/unsupported.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

/* ---- queue-driven loads ---- */

aclError aclmdlLoadFromFileWithQ(const char *modelPath, uint32_t *modelId, const uint32_t *inputQ, size_t inputQNum,
                                 const uint32_t *outputQ, size_t outputQNum)
{
    return OA_UNSUPPORTED(aclmdlLoadFromFileWithQ);
}

aclError aclmdlLoadFromMemWithQ(const void *model, size_t modelSize, uint32_t *modelId, const uint32_t *inputQ,
                                size_t inputQNum, const uint32_t *outputQ, size_t outputQNum)
{
    return OA_UNSUPPORTED(aclmdlLoadFromMemWithQ);
}

aclError aclmdlLoadFromModel(const aclmdlModel *model, const aclmdlConfigHandle *handle, uint32_t *modelId)
{
    return OA_UNSUPPORTED(aclmdlLoadFromModel);
}

/* ---- bundles ---- */

aclError aclmdlBundleLoadFromFile(const char *modelPath, uint32_t *bundleId)
{
    return OA_UNSUPPORTED(aclmdlBundleLoadFromFile);
}

aclError aclmdlBundleLoadFromMem(const void *model, size_t modelSize, uint32_t *bundleId)
{
    return OA_UNSUPPORTED(aclmdlBundleLoadFromMem);
}

aclError aclmdlBundleUnload(uint32_t bundleId)
{
    return OA_UNSUPPORTED(aclmdlBundleUnload);
}

aclError aclmdlBundleGetModelNum(uint32_t bundleId, size_t *modelNum)
{
    return OA_UNSUPPORTED(aclmdlBundleGetModelNum);
}

aclError aclmdlBundleGetModelId(uint32_t bundleId, size_t index, uint32_t *modelId)
{
    return OA_UNSUPPORTED(aclmdlBundleGetModelId);
}

aclmdlBundleQueryInfo *aclmdlBundleCreateQueryInfo(void)
{
    OA_UNSUPPORTED(aclmdlBundleCreateQueryInfo);
    return NULL;
}

aclError aclmdlBundleDestroyQueryInfo(aclmdlBundleQueryInfo *queryInfo)
{
    return OA_UNSUPPORTED(aclmdlBundleDestroyQueryInfo);
}

aclError aclmdlBundleQueryInfoFromFile(const char *fileName, aclmdlBundleQueryInfo *queryInfo)
{
    return OA_UNSUPPORTED(aclmdlBundleQueryInfoFromFile);
}

aclError aclmdlBundleQueryInfoFromMem(const void *model, size_t modelSize, aclmdlBundleQueryInfo *queryInfo)
{
    return OA_UNSUPPORTED(aclmdlBundleQueryInfoFromMem);
}

aclError aclmdlBundleGetQueryModelNum(const aclmdlBundleQueryInfo *queryInfo, size_t *modelNum)
{
    return OA_UNSUPPORTED(aclmdlBundleGetQueryModelNum);
}

aclError aclmdlBundleGetVarWeightSize(const aclmdlBundleQueryInfo *queryInfo, size_t *variableWeightSize)
{
    return OA_UNSUPPORTED(aclmdlBundleGetVarWeightSize);
}

aclError aclmdlBundleGetSize(const aclmdlBundleQueryInfo *queryInfo, size_t index, size_t *workSize,
                             size_t *constWeightSize)
{
    return OA_UNSUPPORTED(aclmdlBundleGetSize);
}

aclError aclmdlBundleInitFromFile(const char *modelPath, void *varWeightPtr, size_t varWeightSize,
                                  uint32_t *bundleId)
{
    return OA_UNSUPPORTED(aclmdlBundleInitFromFile);
}

aclError aclmdlBundleInitFromMem(const void *model, size_t modelSize, void *varWeightPtr, size_t varWeightSize,
                                 uint32_t *bundleId)
{
    return OA_UNSUPPORTED(aclmdlBundleInitFromMem);
}

aclError aclmdlBundleLoadModel(uint32_t bundleId, size_t index, uint32_t *modelId)
{
    return OA_UNSUPPORTED(aclmdlBundleLoadModel);
}

aclError aclmdlBundleLoadModelWithMem(uint32_t bundleId, size_t index, void *workPtr, size_t workSize,
                                      void *weightPtr, size_t weightSize, uint32_t *modelId)
{
    return OA_UNSUPPORTED(aclmdlBundleLoadModelWithMem);
}

aclError aclmdlBundleLoadModelWithConfig(uint32_t bundleId, size_t index, aclmdlConfigHandle *handle,
                                         uint32_t *modelId)
{
    return OA_UNSUPPORTED(aclmdlBundleLoadModelWithConfig);
}

aclError aclmdlBundleUnloadModel(uint32_t bundleId, uint32_t modelId)
{
    return OA_UNSUPPORTED(aclmdlBundleUnloadModel);
}

/* ---- debugging, HCCL ---- */

aclError aclmdlCreateAndGetOpDesc(uint32_t deviceId, uint32_t streamId, uint32_t taskId, char *opName,
                                  size_t opNameLen, aclTensorDesc **inputDesc, size_t *numInputs,
                                  aclTensorDesc **outputDesc, size_t *numOutputs)
{
    return OA_UNSUPPORTED(aclmdlCreateAndGetOpDesc);
}

aclError aclRecoverAllHcclTasks(int32_t deviceId)
{
    return OA_UNSUPPORTED(aclRecoverAllHcclTasks);
}
