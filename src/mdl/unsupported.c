/* The aclmdl functions openacl declares but cannot honour on a CPU: AIPP
 * (the AI core's image pre-processing unit), bundles, queue-driven models,
 * device task debugging, HCCL. Each records a message and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED (OA_UNSUPPORTED, listed by
 * scripts/api_coverage.py). Dynamic AIPP is here; static AIPP (atc
 * --insert_op_conf) and its queries are in mdl/aipp.c. */
#include <string.h>

#include "core/core.h"
#include "core/unsupported.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

/* ---- AIPP ---- */

aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize)
{
    OA_UNSUPPORTED(aclmdlCreateAIPP);
    return NULL;
}

aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet)
{
    return OA_UNSUPPORTED(aclmdlDestroyAIPP);
}

aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t *size)
{
    return OA_UNSUPPORTED(aclmdlGetAippDataSize);
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPInputFormat);
}

aclError aclmdlSetAIPPCscParams(aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
                                uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                uint8_t cscInputBiasR1, uint8_t cscInputBiasR2)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPCscParams);
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPRbuvSwapSwitch);
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPAxSwapSwitch);
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW, int32_t srcImageSizeH)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPSrcImageSize);
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                int32_t scfInputSizeH, int32_t scfOutputSizeW, int32_t scfOutputSizeH,
                                uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPScfParams);
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                 int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH, uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPCropParams);
}

aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP *aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
                                    int32_t paddingSizeBottom, int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                    uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPPaddingParams);
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1,
                                   int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPDtcPixelMean);
}

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1,
                                  float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPDtcPixelMin);
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1,
                                   float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPPixelVarReci);
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlAIPP *aippParmsSet)
{
    return OA_UNSUPPORTED(aclmdlSetInputAIPP);
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                   const aclmdlAIPP *aippParmsSet)
{
    return OA_UNSUPPORTED(aclmdlSetAIPPByInputIndex);
}

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
