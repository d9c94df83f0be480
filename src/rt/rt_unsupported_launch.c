/* The kernel-launch half of the current CANN runtime API, which a CPU runtime
 * has no equivalent for: kernel binaries, functions, kernel arguments and
 * launches (openacl has no device code to load). The other unsupported
 * families are in rt_unsupported.c. Declared in acl/acl_rt.h for source
 * compatibility; each call records a message naming itself and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED (NULL for a handle), and
 * scripts/api_coverage.py lists them as unsupported. */
#include "core/unsupported.h"
#include "rt/rt_priv.h"

ACL_FUNC_VISIBILITY aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
    OA_UNSUPPORTED(aclrtCreateBinary);
    return NULL;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyBinary(aclrtBinary binary)
{
    return OA_UNSUPPORTED(aclrtDestroyBinary);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryLoad);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                                     aclrtBinHandle *binHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryLoadFromFile);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromData(const void *data, size_t length,
                                                     const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryLoadFromData);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryUnLoad);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                                    aclrtFuncHandle *funcHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryGetFunction);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
                                                           aclrtFuncHandle *funcHandle)
{
    return OA_UNSUPPORTED(aclrtBinaryGetFunctionByEntry);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunctionCount(aclrtBinHandle binHandle, uint32_t *count)
{
    return OA_UNSUPPORTED(aclrtBinaryGetFunctionCount);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryEnumerateFunctions(const aclrtBinHandle binHandle, aclrtFuncHandle *funcHandles,
                                                           uint32_t numFunctions)
{
    return OA_UNSUPPORTED(aclrtBinaryEnumerateFunctions);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr, size_t *binSize)
{
    return OA_UNSUPPORTED(aclrtBinaryGetDevAddress);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr, size_t *size)
{
    return OA_UNSUPPORTED(aclrtBinaryGetGlobal);
}

ACL_FUNC_VISIBILITY aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle,
                                                             aclrtOpExceptionCallback callback, void *userData)
{
    return OA_UNSUPPORTED(aclrtBinarySetExceptionCallback);
}

ACL_FUNC_VISIBILITY aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName,
                                                  const char *kernelName, aclrtFuncHandle *funcHandle)
{
    return OA_UNSUPPORTED(aclrtRegisterCpuFunc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle)
{
    return OA_UNSUPPORTED(aclrtGetFuncBySymbol);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
    return OA_UNSUPPORTED(aclrtGetFunctionAddr);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize)
{
    return OA_UNSUPPORTED(aclrtGetFunctionSize);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
    return OA_UNSUPPORTED(aclrtGetFunctionName);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType,
                                                       int64_t *attrValue)
{
    return OA_UNSUPPORTED(aclrtGetFunctionAttribute);
}

ACL_FUNC_VISIBILITY aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle)
{
    return OA_UNSUPPORTED(aclrtFunctionGetBinary);
}

ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount)
{
    return OA_UNSUPPORTED(aclrtFunctionGetParamCount);
}

ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                                       size_t *paramSize)
{
    return OA_UNSUPPORTED(aclrtFunctionGetParamInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtFunctionGetAvailDynUbufPerBlock(void *func, uint32_t flags, size_t *dynamicUbufSize)
{
    return OA_UNSUPPORTED(aclrtFunctionGetAvailDynUbufPerBlock);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize)
{
    return OA_UNSUPPORTED(aclrtKernelArgsGetHandleMemSize);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize,
                                                       size_t *actualArgsSize)
{
    return OA_UNSUPPORTED(aclrtKernelArgsGetMemSize);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    return OA_UNSUPPORTED(aclrtKernelArgsInit);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle,
                                                          void *userHostMem, size_t actualArgsSize)
{
    return OA_UNSUPPORTED(aclrtKernelArgsInitByUserMem);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                                   aclrtParamHandle *paramHandle)
{
    return OA_UNSUPPORTED(aclrtKernelArgsAppend);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
    return OA_UNSUPPORTED(aclrtKernelArgsAppendPlaceHolder);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                                                 aclrtParamHandle paramHandle, size_t dataSize,
                                                                 void **bufferAddr)
{
    return OA_UNSUPPORTED(aclrtKernelArgsGetPlaceHolderBuffer);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
                                                       void *param, size_t paramSize)
{
    return OA_UNSUPPORTED(aclrtKernelArgsParaUpdate);
}

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    return OA_UNSUPPORTED(aclrtKernelArgsFinalize);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                               size_t argsSize, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtLaunchKernel);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                                 size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtLaunchKernelV2);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                         aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                                         aclrtArgsHandle argsHandle, void *reserve)
{
    return OA_UNSUPPORTED(aclrtLaunchKernelWithConfig);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                           aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                                           void *hostArgs, size_t argsSize,
                                                           aclrtPlaceHolderInfo *placeHolderArray,
                                                           size_t placeHolderNum)
{
    return OA_UNSUPPORTED(aclrtLaunchKernelWithHostArgs);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, aclrtStream stream,
                                                            aclrtLaunchKernelCfg *cfg, void **args)
{
    return OA_UNSUPPORTED(aclrtLaunchKernelWithArgsArray);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithArgsArray(void *func, dim3 gridDim, dim3 blockDim,
                                                                size_t dynUbufSize, aclrtStream stream,
                                                                aclrtLaunchKernelCfg *cfg, void **args)
{
    return OA_UNSUPPORTED(aclrtLaunchSIMTKernelWithArgsArray);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithHostArgs(void *func, dim3 gridDim, dim3 blockDim,
                                                               size_t dynUbufSize, aclrtStream stream,
                                                               aclrtLaunchKernelCfg *cfg, void *hostArgs,
                                                               size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
                                                               size_t placeHolderNum)
{
    return OA_UNSUPPORTED(aclrtLaunchSIMTKernelWithHostArgs);
}

ACL_FUNC_VISIBILITY aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                           uint32_t *devArgsLen)
{
    return OA_UNSUPPORTED(aclrtGetArgsFromExceptionInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func)
{
    return OA_UNSUPPORTED(aclrtGetFuncHandleFromExceptionInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr)
{
    return OA_UNSUPPORTED(aclrtGetSymbolAddress);
}

ACL_FUNC_VISIBILITY aclError aclrtGetSymbolSize(const void *symbol, size_t *size)
{
    return OA_UNSUPPORTED(aclrtGetSymbolSize);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol, size_t count,
                                                   size_t offset, aclrtMemcpyKind kind)
{
    return OA_UNSUPPORTED(aclrtMemcpyFromSymbol);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax, const void *symbol, size_t count,
                                                        size_t offset, aclrtMemcpyKind kind, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyFromSymbolAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                                 aclrtMemcpyKind kind)
{
    return OA_UNSUPPORTED(aclrtMemcpyToSymbol);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                                      aclrtMemcpyKind kind, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyToSymbolAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtTaskUpdateAsync(aclrtStream taskStream, uint32_t taskId, aclrtTaskUpdateInfo *info,
                                                  aclrtStream execStream)
{
    return OA_UNSUPPORTED(aclrtTaskUpdateAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
                                                 void *reserve)
{
    return OA_UNSUPPORTED(aclrtRandomNumAsync);
}
