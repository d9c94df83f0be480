/* aclDataBuffer: a (pointer, size) pair that never owns its memory. */
#include <stdlib.h>

#include "acl/acl_base.h"
#include "core/core.h"

struct aclDataBuffer {
    void *data;
    size_t size;
};

ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = malloc(sizeof(*b));
    if (!b) {
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclCreateDataBuffer: out of host memory for the buffer wrapper");
        return NULL;
    }
    b->data = data;
    b->size = size;
    return b;
}

ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: dataBuffer is NULL");
    free((void *)dataBuffer);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    if (!dataBuffer) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer: dataBuffer is NULL");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetDataBufferAddr: dataBuffer is NULL");
        return NULL;
    }
    return dataBuffer->data;
}

ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetDataBufferSize: dataBuffer is NULL");
        return 0;
    }
    return (uint32_t)dataBuffer->size;
}

ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetDataBufferSizeV2: dataBuffer is NULL");
        return 0;
    }
    return dataBuffer->size;
}
