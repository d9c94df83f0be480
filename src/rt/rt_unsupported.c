/* The parts of the current CANN runtime API that a CPU runtime has no
 * equivalent for (kernel binaries and launches are in rt_unsupported_launch.c):
 * inter-process memory, events and notifies (openacl's devices live inside
 * one process), count notifies, labels and stream switching, unified memory, mbufs,
 * hardware limits, error repair, snapshots and API injection. Declared in
 * acl/acl_rt.h for source compatibility; each call records a message naming
 * itself and returns ACL_ERROR_FEATURE_UNSUPPORTED (NULL for a handle), and
 * scripts/api_coverage.py lists them as unsupported. */
#include "core/unsupported.h"
#include "rt/rt_priv.h"

ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtIpcMemGetExportKey);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char *key)
{
    return OA_UNSUPPORTED(aclrtIpcMemClose);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtIpcMemImportByKey);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    return OA_UNSUPPORTED(aclrtIpcMemSetImportPid);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
    return OA_UNSUPPORTED(aclrtIpcMemSetAttr);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids, size_t num)
{
    return OA_UNSUPPORTED(aclrtIpcMemImportPidInterServer);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    return OA_UNSUPPORTED(aclrtIpcGetEventHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    return OA_UNSUPPORTED(aclrtIpcOpenEventHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                             uint64_t flags, uint64_t *shareableHandle)
{
    return OA_UNSUPPORTED(aclrtMemExportToShareableHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                               aclrtMemSharedHandleType shareType,
                                                               void *shareableHandle)
{
    return OA_UNSUPPORTED(aclrtMemExportToShareableHandleV2);
}

ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                               aclrtDrvMemHandle *handle)
{
    return OA_UNSUPPORTED(aclrtMemImportFromShareableHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                                                 aclrtMemSharedHandleType shareType, uint64_t flags,
                                                                 aclrtDrvMemHandle *handle)
{
    return OA_UNSUPPORTED(aclrtMemImportFromShareableHandleV2);
}

ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    return OA_UNSUPPORTED(aclrtMemSetPidToShareableHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                                               aclrtMemSharedHandleType shareType, int32_t *pid,
                                                               size_t pidNum)
{
    return OA_UNSUPPORTED(aclrtMemSetPidToShareableHandleV2);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    return OA_UNSUPPORTED(aclrtDeviceGetBareTgid);
}

ACL_FUNC_VISIBILITY aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtNotifyGetExportKey);
}

ACL_FUNC_VISIBILITY aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtNotifyImportByKey);
}

ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    return OA_UNSUPPORTED(aclrtNotifySetImportPid);
}

ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids,
                                                                size_t num)
{
    return OA_UNSUPPORTED(aclrtNotifySetImportPidInterServer);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
    return OA_UNSUPPORTED(aclrtCntNotifyCreate);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
    return OA_UNSUPPORTED(aclrtCntNotifyDestroy);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
                                                  aclrtCntNotifyRecordInfo *info)
{
    return OA_UNSUPPORTED(aclrtCntNotifyRecord);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
                                                           aclrtCntNotifyWaitInfo *info)
{
    return OA_UNSUPPORTED(aclrtCntNotifyWaitWithTimeout);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtCntNotifyReset);
}

ACL_FUNC_VISIBILITY aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
    return OA_UNSUPPORTED(aclrtCntNotifyGetId);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel *label)
{
    return OA_UNSUPPORTED(aclrtCreateLabel);
}

ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtSetLabel);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label)
{
    return OA_UNSUPPORTED(aclrtDestroyLabel);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    return OA_UNSUPPORTED(aclrtCreateLabelList);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
    return OA_UNSUPPORTED(aclrtDestroyLabelList);
}

ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
                                                     aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtSwitchLabelByIndex);
}

ACL_FUNC_VISIBILITY aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtActiveStream);
}

ACL_FUNC_VISIBILITY aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                               aclrtCompareDataType dataType, aclrtStream trueStream,
                                               aclrtStream falseStream, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtSwitchStream);
}

ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    OA_UNSUPPORTED(aclrtCreateStreamConfigHandle);
    return NULL;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    return OA_UNSUPPORTED(aclrtDestroyStreamConfigHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                                     const void *attrValue, size_t valueSize)
{
    return OA_UNSUPPORTED(aclrtSetStreamConfigOpt);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    return OA_UNSUPPORTED(aclrtCreateStreamV2);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                                          uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtStreamWaitEventWithFlag);
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtRecordEventWithFlag);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtStreamAbort);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamStop(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtStreamStop);
}

ACL_FUNC_VISIBILITY aclError aclrtPersistentTaskClean(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtPersistentTaskClean);
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtSetStreamOverflowSwitch);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    return OA_UNSUPPORTED(aclrtGetStreamOverflowSwitch);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    return OA_UNSUPPORTED(aclrtGetStreamAvailableNum);
}

ACL_FUNC_VISIBILITY aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    return OA_UNSUPPORTED(aclrtGetEventAvailNum);
}

ACL_FUNC_VISIBILITY aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    return OA_UNSUPPORTED(aclrtGetThreadLastTaskId);
}

ACL_FUNC_VISIBILITY aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    return OA_UNSUPPORTED(aclrtSubscribeHostFunc);
}

ACL_FUNC_VISIBILITY aclError aclrtProcessHostFunc(int32_t timeout)
{
    return OA_UNSUPPORTED(aclrtProcessHostFunc);
}

ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    return OA_UNSUPPORTED(aclrtUnSubscribeHostFunc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
    return OA_UNSUPPORTED(aclrtGetStreamResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
    return OA_UNSUPPORTED(aclrtSetStreamResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtResetStreamResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtUseStreamResInCurrentThread);
}

ACL_FUNC_VISIBILITY aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtUnuseStreamResInCurrentThread);
}

ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    return OA_UNSUPPORTED(aclrtGetResInCurrentThread);
}

ACL_FUNC_VISIBILITY aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback,
                                                         void *args)
{
    return OA_UNSUPPORTED(aclrtRegStreamStateCallback);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                         aclrtMallocConfig *cfg)
{
    return OA_UNSUPPORTED(aclrtMallocForTaskScheduler);
}

ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtMemAllocManaged);
}

ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
                                                    size_t size, void *data, size_t dataSize)
{
    return OA_UNSUPPORTED(aclrtMemManagedGetAttr);
}

ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
                                                     const void *ptr, size_t size, void **data, size_t *dataSizes)
{
    return OA_UNSUPPORTED(aclrtMemManagedGetAttrs);
}

ACL_FUNC_VISIBILITY aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                                                   aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location)
{
    return OA_UNSUPPORTED(aclrtMemManagedAdvise);
}

ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                                          aclrtMemManagedLocation location, uint32_t flags,
                                                          aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemManagedPrefetchAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
                                                               aclrtMemManagedLocation *prefetchLocs,
                                                               size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                               uint64_t flags, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemManagedPrefetchBatchAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtHostRegisterV2);
}

ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    return OA_UNSUPPORTED(aclrtHostGetDevicePointer);
}

ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointerAddrRange(aclrtAddrRange *addrRange, uint32_t *count)
{
    return OA_UNSUPPORTED(aclrtHostGetDevicePointerAddrRange);
}

ACL_FUNC_VISIBILITY aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                                         aclrtHostMemMapCapability *capabilities)
{
    return OA_UNSUPPORTED(aclrtHostMemMapCapabilities);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    return OA_UNSUPPORTED(aclrtMemsetD32);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                                                 aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemsetD32Async);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                                           aclrtMemcpyKind kind, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyAsyncWithCondition);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
                                                        const void **src, size_t count, size_t srcDataOffset,
                                                        aclrtMemcpyKind kind, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyAsyncWithOffset);
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    return OA_UNSUPPORTED(aclrtGetMemcpyDescSize);
}

ACL_FUNC_VISIBILITY aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr,
                                                size_t count, void *config)
{
    return OA_UNSUPPORTED(aclrtSetMemcpyDesc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyAsyncWithDesc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                              size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                              size_t numAttrs, size_t *failIndex)
{
    return OA_UNSUPPORTED(aclrtMemcpyBatch);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                                size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                                size_t numAttrs)
{
    return OA_UNSUPPORTED(aclrtMemcpyBatchV2);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                                   size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                                   size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyBatchAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                                     size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                                     size_t *attrsIndexes, size_t numAttrs, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtMemcpyBatchAsyncV2);
}

ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                                              aclDataType type, aclrtStream stream, void *reserve)
{
    return OA_UNSUPPORTED(aclrtReduceAsync);
}

ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtValueWrite);
}

ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtValueWait);
}

ACL_FUNC_VISIBILITY aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                                               uint32_t reserve)
{
    return OA_UNSUPPORTED(aclrtCheckMemType);
}

ACL_FUNC_VISIBILITY aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    return OA_UNSUPPORTED(aclrtMemGetAddressRange);
}

ACL_FUNC_VISIBILITY aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtMemP2PMap);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceL2CacheFlush(void *rsv)
{
    return OA_UNSUPPORTED(aclrtDeviceL2CacheFlush);
}

ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
                                                              void *expectPtr, uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtReserveMemAddressNoUCMemory);
}

ACL_FUNC_VISIBILITY aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                                 uint64_t flags)
{
    return OA_UNSUPPORTED(aclrtMemMapNoAccess);
}

ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    return OA_UNSUPPORTED(aclrtMemSetAccess);
}

ACL_FUNC_VISIBILITY aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    return OA_UNSUPPORTED(aclrtMemGetAccess);
}

ACL_FUNC_VISIBILITY aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    return OA_UNSUPPORTED(aclrtMemRetainAllocationHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                                       aclrtPhysicalMemProp *prop)
{
    return OA_UNSUPPORTED(aclrtMemGetAllocationPropertiesFromHandle);
}

ACL_FUNC_VISIBILITY aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx)
{
    return OA_UNSUPPORTED(aclrtMemMapSelectedLink);
}

ACL_FUNC_VISIBILITY aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink)
{
    return OA_UNSUPPORTED(aclrtMemMapSetLink);
}

ACL_FUNC_VISIBILITY aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)
{
    return OA_UNSUPPORTED(aclrtAllocBuf);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeBuf(aclrtMbuf buf)
{
    return OA_UNSUPPORTED(aclrtFreeBuf);
}

ACL_FUNC_VISIBILITY aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
    return OA_UNSUPPORTED(aclrtGetBufData);
}

ACL_FUNC_VISIBILITY aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)
{
    return OA_UNSUPPORTED(aclrtGetBufDataLen);
}

ACL_FUNC_VISIBILITY aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)
{
    return OA_UNSUPPORTED(aclrtSetBufDataLen);
}

ACL_FUNC_VISIBILITY aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset)
{
    return OA_UNSUPPORTED(aclrtGetBufUserData);
}

ACL_FUNC_VISIBILITY aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset)
{
    return OA_UNSUPPORTED(aclrtSetBufUserData);
}

ACL_FUNC_VISIBILITY aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
    return OA_UNSUPPORTED(aclrtCopyBufRef);
}

ACL_FUNC_VISIBILITY aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)
{
    return OA_UNSUPPORTED(aclrtAppendBufChain);
}

ACL_FUNC_VISIBILITY aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)
{
    return OA_UNSUPPORTED(aclrtGetBufChainNum);
}

ACL_FUNC_VISIBILITY aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    return OA_UNSUPPORTED(aclrtGetBufFromChain);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
    return OA_UNSUPPORTED(aclrtDeviceSetLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
    return OA_UNSUPPORTED(aclrtDeviceGetLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    return OA_UNSUPPORTED(aclrtGetDeviceResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    return OA_UNSUPPORTED(aclrtSetDeviceResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    return OA_UNSUPPORTED(aclrtResetDeviceResLimit);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    return OA_UNSUPPORTED(aclrtGetDevicesTopo);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
    return OA_UNSUPPORTED(aclrtDeviceGetPCIBusId);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
    return OA_UNSUPPORTED(aclrtDeviceGetByPCIBusId);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
                                                                  const aclrtAtomicOperation *operations,
                                                                  const uint32_t count, int32_t deviceId)
{
    return OA_UNSUPPORTED(aclrtDeviceGetHostAtomicCapabilities);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
                                                                 const aclrtAtomicOperation *operations,
                                                                 const uint32_t count, int32_t srcDeviceId,
                                                                 int32_t dstDeviceId)
{
    return OA_UNSUPPORTED(aclrtDeviceGetP2PAtomicCapabilities);
}

ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    return OA_UNSUPPORTED(aclrtGetPrimaryCtxState);
}

ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
    return OA_UNSUPPORTED(aclrtGetUserDevIdByPhyDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
    return OA_UNSUPPORTED(aclrtGetPhyDevIdByUserDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    return OA_UNSUPPORTED(aclrtSetOpExecuteTimeOutV2);
}

ACL_FUNC_VISIBILITY aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    return OA_UNSUPPORTED(aclrtGetOpTimeOutInterval);
}

ACL_FUNC_VISIBILITY aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    return OA_UNSUPPORTED(aclrtGetOpExecuteTimeout);
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr)
{
    return OA_UNSUPPORTED(aclrtCtxGetFloatOverflowAddr);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtGetFloatOverflowStatus);
}

ACL_FUNC_VISIBILITY aclError aclrtResetFloatOverflowStatus(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtResetFloatOverflowStatus);
}

ACL_FUNC_VISIBILITY aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
                                                            aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtNpuGetFloatOverFlowStatus);
}

ACL_FUNC_VISIBILITY aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtNpuClearFloatOverFlowStatus);
}

ACL_FUNC_VISIBILITY aclError aclrtGetHardwareSyncAddr(void **addr)
{
    return OA_UNSUPPORTED(aclrtGetHardwareSyncAddr);
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
                                                size_t *retSize)
{
    return OA_UNSUPPORTED(aclrtGetMemUceInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize)
{
    return OA_UNSUPPORTED(aclrtMemUceRepair);
}

ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    return OA_UNSUPPORTED(aclrtGetErrorVerbose);
}

ACL_FUNC_VISIBILITY aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo)
{
    return OA_UNSUPPORTED(aclrtRepairError);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    return OA_UNSUPPORTED(aclrtDeviceTaskAbort);
}

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceTaskAbortCallback(const char *regName, aclrtDeviceTaskAbortCallback callback,
                                                             void *args)
{
    return OA_UNSUPPORTED(aclrtSetDeviceTaskAbortCallback);
}

ACL_FUNC_VISIBILITY aclError aclrtRegDeviceStateCallback(const char *regName, aclrtDeviceStateCallback callback,
                                                         void *args)
{
    return OA_UNSUPPORTED(aclrtRegDeviceStateCallback);
}

ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    return OA_UNSUPPORTED(aclrtCheckArchCompatibility);
}

ACL_FUNC_VISIBILITY aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclrtProfTrace);
}

ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskOpInfo(const void *const infoPtr, const size_t infoSize)
{
    return OA_UNSUPPORTED(aclrtCacheLastTaskOpInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskExtendInfo(const char *const extendInfoPtr, const size_t infoSize)
{
    return OA_UNSUPPORTED(aclrtCacheLastTaskExtendInfo);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessLock(int pid, void *reserve)
{
    return OA_UNSUPPORTED(aclrtSnapShotProcessLock);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessUnlock(int pid, void *reserve)
{
    return OA_UNSUPPORTED(aclrtSnapShotProcessUnlock);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args)
{
    return OA_UNSUPPORTED(aclrtSnapShotProcessBackup);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args)
{
    return OA_UNSUPPORTED(aclrtSnapShotProcessRestore);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback,
                                                           void *args)
{
    return OA_UNSUPPORTED(aclrtSnapShotCallbackRegister);
}

ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback)
{
    return OA_UNSUPPORTED(aclrtSnapShotCallbackUnregister);
}

ACL_FUNC_VISIBILITY aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                                     void *userData)
{
    return OA_UNSUPPORTED(aclInitCallbackRegister);
}

ACL_FUNC_VISIBILITY aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc)
{
    return OA_UNSUPPORTED(aclInitCallbackUnRegister);
}

ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                                         void *userData)
{
    return OA_UNSUPPORTED(aclFinalizeCallbackRegister);
}

ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc)
{
    return OA_UNSUPPORTED(aclFinalizeCallbackUnRegister);
}

ACL_FUNC_VISIBILITY aclError aclrtApiInjectionSetFunc(const char *name, aclrtApiFunc func)
{
    return OA_UNSUPPORTED(aclrtApiInjectionSetFunc);
}

ACL_FUNC_VISIBILITY aclError aclrtApiInjectionGetFunc(const char *name, aclrtApiFunc *originFunc,
                                                      aclrtApiFunc *currentFunc)
{
    return OA_UNSUPPORTED(aclrtApiInjectionGetFunc);
}
