/* aclTensorDesc: data type, format and shape of a tensor, plus the optional
 * attributes CANN lets callers attach (shape/value ranges, name, origin and
 * storage views, constant data, placement). Plain heap object, no locking. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_base.h"
#include "core/core.h"

#define TD_MAX_DIMS 64

typedef struct td_shape {
    int num;          /* -1: not set */
    int64_t *dims;
} td_shape;

struct aclTensorDesc {
    aclDataType type;
    aclFormat format;
    aclFormat origin_format;
    aclFormat storage_format;
    td_shape shape;
    td_shape origin_shape;
    td_shape storage_shape;
    size_t n_range;
    int64_t (*range)[ACL_TENSOR_SHAPE_RANGE_NUM];
    size_t n_value_range;
    int64_t (*value_range)[ACL_TENSOR_VALUE_RANGE_NUM];
    char *name;
    char *dynamic_input;
    void *const_data;
    size_t const_len;
    aclMemType placement;
};

static int shape_set(const char *api, td_shape *s, int numDims, const int64_t *dims)
{
    if (numDims < 0 || numDims > TD_MAX_DIMS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: numDims %d out of range [0, %d]", api, numDims, TD_MAX_DIMS);
    if (numDims > 0 && !dims)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dims is NULL with numDims %d", api, numDims);
    int64_t *d = NULL;
    if (numDims > 0) {
        d = malloc(sizeof(int64_t) * (size_t)numDims);
        if (!d) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        memcpy(d, dims, sizeof(int64_t) * (size_t)numDims);
    }
    free(s->dims);
    s->dims = d;
    s->num = numDims;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                                       aclFormat format)
{
    aclTensorDesc *d = calloc(1, sizeof(*d));
    if (!d) {
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclCreateTensorDesc: out of host memory");
        return NULL;
    }
    d->type = dataType;
    d->format = format;
    d->origin_format = format;
    d->storage_format = ACL_FORMAT_UNDEFINED;
    d->origin_shape.num = -1;
    d->storage_shape.num = -1;
    d->placement = ACL_MEMTYPE_DEVICE;
    if (shape_set("aclCreateTensorDesc", &d->shape, numDims, dims) != ACL_SUCCESS) {
        free(d);
        return NULL;
    }
    return d;
}

ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc *desc)
{
    if (!desc) return;
    aclTensorDesc *d = (aclTensorDesc *)desc;
    free(d->shape.dims);
    free(d->origin_shape.dims);
    free(d->storage_shape.dims);
    free(d->range);
    free(d->value_range);
    free(d->name);
    free(d->dynamic_input);
    free(d->const_data);
    free(d);
}

#define TD_CHECK(api, desc)                                                          \
    do {                                                                             \
        if (!(desc)) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: desc is NULL", api); \
    } while (0)

ACL_FUNC_VISIBILITY aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
                                                    int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM])
{
    TD_CHECK("aclSetTensorShapeRange", desc);
    if (dimsCount > TD_MAX_DIMS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorShapeRange: dimsCount %zu exceeds %d", dimsCount,
                        TD_MAX_DIMS);
    if (dimsCount > 0 && !dimsRange)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorShapeRange: dimsRange is NULL with dimsCount %zu",
                        dimsCount);
    void *r = NULL;
    if (dimsCount) {
        r = malloc(sizeof(int64_t) * ACL_TENSOR_SHAPE_RANGE_NUM * dimsCount);
        if (!r) return acl_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorShapeRange: out of host memory");
        memcpy(r, dimsRange, sizeof(int64_t) * ACL_TENSOR_SHAPE_RANGE_NUM * dimsCount);
    }
    free(desc->range);
    desc->range = r;
    desc->n_range = dimsCount;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
                                                    int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM])
{
    TD_CHECK("aclSetTensorValueRange", desc);
    if (valueCount > 0 && !valueRange)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorValueRange: valueRange is NULL with valueCount %zu",
                        valueCount);
    if (valueCount > ((size_t)1 << 24))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorValueRange: valueCount %zu too large", valueCount);
    void *r = NULL;
    if (valueCount) {
        r = malloc(sizeof(int64_t) * ACL_TENSOR_VALUE_RANGE_NUM * valueCount);
        if (!r) return acl_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorValueRange: out of host memory");
        memcpy(r, valueRange, sizeof(int64_t) * ACL_TENSOR_VALUE_RANGE_NUM * valueCount);
    }
    free(desc->value_range);
    desc->value_range = r;
    desc->n_value_range = valueCount;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescType: desc is NULL");
        return ACL_DT_UNDEFINED;
    }
    return desc->type;
}

ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescFormat: desc is NULL");
        return ACL_FORMAT_UNDEFINED;
    }
    return desc->format;
}

static int td_unknown_rank(const aclTensorDesc *d) { return d->shape.num == 1 && d->shape.dims[0] == -2; }

ACL_FUNC_VISIBILITY size_t aclGetTensorDescElementCount(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescElementCount: desc is NULL");
        return 0;
    }
    size_t n = 1;
    for (int i = 0; i < desc->shape.num; i++) {
        int64_t v = desc->shape.dims[i];
        if (v < 0) return 0; /* unknown dimension */
        if (v != 0 && n > SIZE_MAX / (size_t)v) return 0;
        n *= (size_t)v;
    }
    return n;
}

ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescSize: desc is NULL");
        return 0;
    }
    size_t n = aclGetTensorDescElementCount(desc);
    size_t es = aclDataTypeSize(desc->type);
    if (es && n > SIZE_MAX / es) return 0;
    return n * es;
}

ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescNumDims: desc is NULL");
        return 0;
    }
    if (td_unknown_rank(desc)) return (size_t)ACL_UNKNOWN_RANK;
    return (size_t)desc->shape.num;
}

ACL_FUNC_VISIBILITY int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDim: desc is NULL");
        return -1;
    }
    if (index >= (size_t)desc->shape.num) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDim: index %zu out of range, rank is %d", index,
                 desc->shape.num);
        return -1;
    }
    return desc->shape.dims[index];
}

ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize)
{
    TD_CHECK("aclGetTensorDescDimV2", desc);
    if (!dimSize) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: dimSize is NULL");
    if (index >= (size_t)desc->shape.num)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: index %zu out of range, rank is %d", index,
                        desc->shape.num);
    *dimSize = desc->shape.dims[index];
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index, size_t dimRangeNum,
                                                      int64_t *dimRange)
{
    TD_CHECK("aclGetTensorDescDimRange", desc);
    if (!dimRange) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange: dimRange is NULL");
    if (dimRangeNum != ACL_TENSOR_SHAPE_RANGE_NUM)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange: dimRangeNum is %zu, expected %d",
                        dimRangeNum, ACL_TENSOR_SHAPE_RANGE_NUM);
    if (index >= (size_t)desc->shape.num)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange: index %zu out of range, rank is %d",
                        index, desc->shape.num);
    if (index < desc->n_range) {
        dimRange[0] = desc->range[index][0];
        dimRange[1] = desc->range[index][1];
    } else {
        dimRange[0] = desc->shape.dims[index];
        dimRange[1] = desc->shape.dims[index];
    }
    return ACL_SUCCESS;
}

static char *td_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc *desc, const char *name)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorDescName: desc is NULL");
        return;
    }
    char *n = NULL;
    if (name) {
        n = td_strdup(name);
        if (!n) {
            acl_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorDescName: out of host memory");
            return;
        }
    }
    free(desc->name);
    desc->name = n;
}

ACL_FUNC_VISIBILITY const char *aclGetTensorDescName(aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescName: desc is NULL");
        return "";
    }
    return desc->name ? desc->name : "";
}

/* Position of each of N, C, H, W in the 4-D layouts openacl can relabel. */
static int td_layout4(aclFormat f, int pos[4])
{
    switch (f) {
    case ACL_FORMAT_NCHW: pos[0] = 0; pos[1] = 1; pos[2] = 2; pos[3] = 3; return 1;
    case ACL_FORMAT_NHWC: pos[0] = 0; pos[1] = 3; pos[2] = 1; pos[3] = 2; return 1;
    case ACL_FORMAT_HWCN: pos[0] = 3; pos[1] = 2; pos[2] = 0; pos[3] = 1; return 1;
    default: return 0;
    }
}

ACL_FUNC_VISIBILITY aclError aclTransTensorDescFormat(const aclTensorDesc *srcDesc, aclFormat dstFormat,
                                                      aclTensorDesc **dstDesc)
{
    TD_CHECK("aclTransTensorDescFormat", srcDesc);
    if (!dstDesc) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclTransTensorDescFormat: dstDesc is NULL");
    int64_t dims[TD_MAX_DIMS];
    int n = srcDesc->shape.num;
    if (n > 0) memcpy(dims, srcDesc->shape.dims, sizeof(int64_t) * (size_t)n);
    int sp[4], dp[4];
    if (srcDesc->format == dstFormat || srcDesc->format == ACL_FORMAT_ND || dstFormat == ACL_FORMAT_ND) {
        /* same layout, or a relabelling to/from ND: shape unchanged */
    } else if (n == 4 && td_layout4(srcDesc->format, sp) && td_layout4(dstFormat, dp)) {
        for (int k = 0; k < 4; k++) dims[dp[k]] = srcDesc->shape.dims[sp[k]];
    } else {
        return acl_fail(ACL_ERROR_FORMAT_NOT_MATCH,
                        "aclTransTensorDescFormat: cannot convert format %d (rank %d) to format %d; openacl "
                        "converts ND/NCHW/NHWC/HWCN only",
                        (int)srcDesc->format, n, (int)dstFormat);
    }
    aclTensorDesc *d = aclCreateTensorDesc(srcDesc->type, n, dims, dstFormat);
    if (!d) return acl_fail(ACL_ERROR_BAD_ALLOC, "aclTransTensorDescFormat: out of host memory");
    if (srcDesc->name) aclSetTensorDescName(d, srcDesc->name);
    d->origin_format = srcDesc->origin_format;
    d->placement = srcDesc->placement;
    *dstDesc = d;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format)
{
    TD_CHECK("aclSetTensorStorageFormat", desc);
    desc->storage_format = format;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    TD_CHECK("aclSetTensorStorageShape", desc);
    return shape_set("aclSetTensorStorageShape", &desc->storage_shape, numDims, dims);
}

ACL_FUNC_VISIBILITY aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format)
{
    TD_CHECK("aclSetTensorFormat", desc);
    desc->format = format;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    TD_CHECK("aclSetTensorShape", desc);
    return shape_set("aclSetTensorShape", &desc->shape, numDims, dims);
}

ACL_FUNC_VISIBILITY aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format)
{
    TD_CHECK("aclSetTensorOriginFormat", desc);
    desc->origin_format = format;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    TD_CHECK("aclSetTensorOriginShape", desc);
    return shape_set("aclSetTensorOriginShape", &desc->origin_shape, numDims, dims);
}

ACL_FUNC_VISIBILITY aclTensorDesc *aclGetTensorDescByIndex(aclTensorDesc *desc, size_t index)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescByIndex: desc is NULL");
        return NULL;
    }
    return desc + index;
}

ACL_FUNC_VISIBILITY void *aclGetTensorDescAddress(const aclTensorDesc *desc)
{
    if (!desc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescAddress: desc is NULL");
        return NULL;
    }
    return desc->const_data;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName)
{
    TD_CHECK("aclSetTensorDynamicInput", desc);
    if (!dynamicInputName)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorDynamicInput: dynamicInputName is NULL");
    char *n = td_strdup(dynamicInputName);
    if (!n) return acl_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorDynamicInput: out of host memory");
    free(desc->dynamic_input);
    desc->dynamic_input = n;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length)
{
    TD_CHECK("aclSetTensorConst", desc);
    if (!dataBuffer) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorConst: dataBuffer is NULL");
    if (length == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorConst: length is 0");
    void *c = malloc(length);
    if (!c) return acl_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorConst: out of host memory for %zu bytes", length);
    memcpy(c, dataBuffer, length);
    free(desc->const_data);
    desc->const_data = c;
    desc->const_len = length;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType)
{
    TD_CHECK("aclSetTensorPlaceMent", desc);
    if ((int)memType < ACL_MEMTYPE_DEVICE || (int)memType > ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent: memType %d is not an aclMemType",
                        (int)memType);
    desc->placement = memType;
    return ACL_SUCCESS;
}
