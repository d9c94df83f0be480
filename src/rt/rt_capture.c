/* Model run instances (aclmdlRI*): CANN records the tasks issued on a
 * stream (capture) or built by hand into a replayable device graph. openacl
 * executes every task on the CPU as it is issued and keeps no task graph, so
 * the family is declared in acl/acl_rt.h for source compatibility and each
 * call records a message naming itself and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED (listed by scripts/api_coverage.py). Offline
 * models (aclmdlLoad*, aclmdlExecute*) are the supported route. */
#include "core/unsupported.h"
#include "rt/rt_priv.h"

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    return OA_UNSUPPORTED(aclmdlRICaptureBegin);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                                           aclmdlRICaptureMode mode)
{
    return OA_UNSUPPORTED(aclmdlRICaptureToModelRIBegin);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                                    aclmdlRI *modelRI)
{
    return OA_UNSUPPORTED(aclmdlRICaptureGetInfo);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    return OA_UNSUPPORTED(aclmdlRICaptureEnd);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    return OA_UNSUPPORTED(aclmdlRICaptureThreadExchangeMode);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclmdlRICaptureTaskGrpBegin);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    return OA_UNSUPPORTED(aclmdlRICaptureTaskGrpEnd);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    return OA_UNSUPPORTED(aclmdlRICaptureTaskUpdateBegin);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    return OA_UNSUPPORTED(aclmdlRICaptureTaskUpdateEnd);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    return OA_UNSUPPORTED(aclmdlRIDebugPrint);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    return OA_UNSUPPORTED(aclmdlRIDebugJsonPrint);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclmdlRIExecuteAsync);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    return OA_UNSUPPORTED(aclmdlRIExecute);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    return OA_UNSUPPORTED(aclmdlRIDestroy);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIAbort(aclmdlRI modelRI)
{
    return OA_UNSUPPORTED(aclmdlRIAbort);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
    return OA_UNSUPPORTED(aclmdlRIUpdate);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    return OA_UNSUPPORTED(aclmdlRIBuildBegin);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    return OA_UNSUPPORTED(aclmdlRIBindStream);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclmdlRIEndTask);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    return OA_UNSUPPORTED(aclmdlRIBuildEnd);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    return OA_UNSUPPORTED(aclmdlRIUnbindStream);
}

ACL_FUNC_VISIBILITY aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
    return OA_UNSUPPORTED(aclmdlRISetName);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
    return OA_UNSUPPORTED(aclmdlRIGetName);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
    return OA_UNSUPPORTED(aclmdlRIGetId);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void *userData)
{
    return OA_UNSUPPORTED(aclmdlRIDestroyRegisterCallback);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
    return OA_UNSUPPORTED(aclmdlRIDestroyUnregisterCallback);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    return OA_UNSUPPORTED(aclmdlRIGetStreams);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks)
{
    return OA_UNSUPPORTED(aclmdlRIGetTasksByStream);
}

ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
    return OA_UNSUPPORTED(aclmdlRITaskGetType);
}

ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
    return OA_UNSUPPORTED(aclmdlRITaskGetSeqId);
}

ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    return OA_UNSUPPORTED(aclmdlRITaskGetParams);
}

ACL_FUNC_VISIBILITY aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    return OA_UNSUPPORTED(aclmdlRITaskSetParams);
}

ACL_FUNC_VISIBILITY aclError aclmdlRITaskDisable(aclmdlRITask task)
{
    return OA_UNSUPPORTED(aclmdlRITaskDisable);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                                            aclrtLaunchKernelAttrValue *attrValue)
{
    return OA_UNSUPPORTED(aclmdlRIKernelTaskGetAttribute);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                                      aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle)
{
    return OA_UNSUPPORTED(aclmdlRICondHandleCreate);
}

ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    return OA_UNSUPPORTED(aclmdlRICondHandleGetCondPtr);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    return OA_UNSUPPORTED(aclmdlRIAddCondTask);
}
