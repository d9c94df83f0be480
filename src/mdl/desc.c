/* Model descriptions: the immutable I/O table of a model (built once at
 * load from the engine's view), aclmdlDesc snapshots of it, and every
 * aclmdlGet* getter. Names longer than aclmdlIODims.name can hold are
 * replaced by generated aliases (CANN's scheme) that map back through
 * aclmdlGetTensorRealName. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/unsupported.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

aclDataType mdl_acl_dtype(int gdtype)
{
    switch (gdtype) {
    case G_F32: return ACL_FLOAT;
    case G_U8: return ACL_UINT8;
    case G_I8: return ACL_INT8;
    case G_U16: return ACL_UINT16;
    case G_I16: return ACL_INT16;
    case G_I32: return ACL_INT32;
    case G_I64: return ACL_INT64;
    case G_STR: return ACL_STRING;
    case G_BOOL: return ACL_BOOL;
    case G_F16: return ACL_FLOAT16;
    case G_F64: return ACL_DOUBLE;
    case G_U32: return ACL_UINT32;
    case G_U64: return ACL_UINT64;
    case 14: return ACL_COMPLEX64;   /* ONNX COMPLEX64 */
    case 15: return ACL_COMPLEX128;  /* ONNX COMPLEX128 */
    case G_BF16: return ACL_BF16;
    default: return ACL_DT_UNDEFINED;
    }
}

/* ONNX activations are NCHW by definition; openacl reports that label for
 * every 4-D tensor and ND for everything else. */
aclFormat mdl_format_for_rank(int rank)
{
    return rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r)
        memcpy(r, s, n);
    return r;
}

static uint32_t alias_random(void)
{
    static atomic_uint counter;
    uint32_t x = atomic_fetch_add(&counter, 1) * 2654435761u + 0x9e3779b9u;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x % 1000000u;
}

static int name_taken(const mdl_info *info, const char *s)
{
    for (int k = 0; k < 2; k++) {
        const mdl_io *v = k ? info->out : info->in;
        int n = k ? info->n_out : info->n_in;
        for (int i = 0; i < n; i++) {
            if ((v[i].name && strcmp(v[i].name, s) == 0) || (v[i].alias && strcmp(v[i].alias, s) == 0))
                return 1;
        }
    }
    return 0;
}

/* Alias for a name that does not fit aclmdlIODims.name:
 * acl_modelId_<id>_<input|output>_<index>_<random>[_<random>]. */
static char *make_alias(const mdl_info *info, const char *kind, int index)
{
    char buf[ACL_MAX_TENSOR_NAME_LEN];
    snprintf(buf, sizeof buf, "acl_modelId_%u_%s_%d_%u", info->model_id, kind, index, alias_random());
    while (name_taken(info, buf)) {
        size_t l = strlen(buf);
        if (l + 8 >= sizeof buf)
            l = 40;
        snprintf(buf + l, sizeof buf - l, "_%u", alias_random());
    }
    return dup_str(buf);
}

static int fill_io(const char *api, mdl_io *d, const eng_io *s)
{
    d->name = dup_str(s->name ? s->name : "");
    if (!d->name)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for tensor names", api);
    d->gdtype = s->dtype;
    d->dtype = mdl_acl_dtype(s->dtype);
    d->shape = s->shape;
    d->format = mdl_format_for_rank(s->shape.rank);
    d->nbytes = g_shape_known(&s->shape) ? s->nbytes : 0;
    return ACL_SUCCESS;
}

int mdl_info_build(const char *api, const eng_model *m, uint32_t model_id, mdl_info *out)
{
    memset(out, 0, sizeof *out);
    out->model_id = model_id;
    int ni = eng_num_inputs(m), no = eng_num_outputs(m);
    out->in = calloc(ni > 0 ? (size_t)ni : 1, sizeof(mdl_io));
    out->out = calloc(no > 0 ? (size_t)no : 1, sizeof(mdl_io));
    if (!out->in || !out->out) {
        mdl_info_free(out);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the model description", api);
    }
    out->n_in = ni;
    out->n_out = no;
    int rc = ACL_SUCCESS;
    for (int i = 0; i < ni && rc == ACL_SUCCESS; i++)
        rc = fill_io(api, &out->in[i], eng_input(m, i));
    for (int i = 0; i < no && rc == ACL_SUCCESS; i++)
        rc = fill_io(api, &out->out[i], eng_output(m, i));
    /* Aliases after all real names are known, so they cannot collide. */
    for (int k = 0; k < 2 && rc == ACL_SUCCESS; k++) {
        mdl_io *v = k ? out->out : out->in;
        int n = k ? no : ni;
        for (int i = 0; i < n && rc == ACL_SUCCESS; i++) {
            v[i].alias = strlen(v[i].name) < ACL_MAX_TENSOR_NAME_LEN ? dup_str(v[i].name)
                                                                      : make_alias(out, k ? "output" : "input", i);
            if (!v[i].alias)
                rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for tensor names", api);
        }
    }
    if (rc != ACL_SUCCESS)
        mdl_info_free(out);
    return rc;
}

int mdl_info_copy(const char *api, const mdl_info *src, mdl_info *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->model_id = src->model_id;
    dst->in = calloc(src->n_in > 0 ? (size_t)src->n_in : 1, sizeof(mdl_io));
    dst->out = calloc(src->n_out > 0 ? (size_t)src->n_out : 1, sizeof(mdl_io));
    if (!dst->in || !dst->out)
        goto oom;
    dst->n_in = src->n_in;
    dst->n_out = src->n_out;
    for (int k = 0; k < 2; k++) {
        const mdl_io *s = k ? src->out : src->in;
        mdl_io *d = k ? dst->out : dst->in;
        int n = k ? src->n_out : src->n_in;
        for (int i = 0; i < n; i++) {
            d[i] = s[i];
            d[i].name = dup_str(s[i].name);
            d[i].alias = dup_str(s[i].alias);
            if (!d[i].name || !d[i].alias)
                goto oom;
        }
    }
    return ACL_SUCCESS;
oom:
    mdl_info_free(dst);
    return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the model description", api);
}

void mdl_info_free(mdl_info *info)
{
    if (!info)
        return;
    for (int i = 0; info->in && i < info->n_in; i++) {
        free(info->in[i].name);
        free(info->in[i].alias);
    }
    for (int i = 0; info->out && i < info->n_out; i++) {
        free(info->out[i].name);
        free(info->out[i].alias);
    }
    free(info->in);
    free(info->out);
    memset(info, 0, sizeof *info);
}

/* ---- aclmdlDesc life ---- */

aclmdlDesc *aclmdlCreateDesc(void)
{
    aclmdlDesc *d = calloc(1, sizeof *d);
    if (!d)
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDesc: out of host memory");
    return d;
}

aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc)
{
    if (!modelDesc)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlDestroyDesc: modelDesc is NULL");
    mdl_info_free(&modelDesc->info);
    free(modelDesc);
    return ACL_SUCCESS;
}

static void desc_set(aclmdlDesc *d, mdl_info *info)
{
    mdl_info_free(&d->info);
    d->info = *info;
    d->filled = 1;
}

aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId)
{
    static const char api[] = "aclmdlGetDesc";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!modelDesc)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: modelDesc is NULL", api);
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    mdl_info info;
    rc = mdl_info_copy(api, &m->info, &info);
    mdl_put(m);
    if (rc == ACL_SUCCESS)
        desc_set(modelDesc, &info);
    return rc;
}

static int desc_from_image(const char *api, aclmdlDesc *d, const char *src, const void *buf, size_t len,
                           const char *base_dir)
{
    /* A description needs no device (nor a current context): plan with
     * device 0's thread budget. */
    eng_model *em = NULL;
    int rc = mdl_engine_open(api, src, buf, len, base_dir, 0, &em);
    if (rc)
        return rc;
    mdl_info info;
    rc = mdl_info_build(api, em, 0, &info);
    eng_free(em);
    if (rc == ACL_SUCCESS)
        desc_set(d, &info);
    return rc;
}

aclError aclmdlGetDescFromFile(aclmdlDesc *modelDesc, const char *modelPath)
{
    static const char api[] = "aclmdlGetDescFromFile";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!modelDesc || !modelPath)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "modelPath" : "modelDesc");
    mdl_file f;
    if ((rc = mdl_file_open(api, modelPath, &f)))
        return rc;
    rc = desc_from_image(api, modelDesc, modelPath, f.data, f.size, f.base_dir);
    mdl_file_close(&f);
    return rc;
}

aclError aclmdlGetDescFromMem(aclmdlDesc *modelDesc, const void *model, size_t modelSize)
{
    static const char api[] = "aclmdlGetDescFromMem";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!modelDesc || !model || modelSize == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api,
                        !modelDesc ? "modelDesc is NULL" : !model ? "model is NULL" : "modelSize is 0");
    return desc_from_image(api, modelDesc, "memory image", model, modelSize, NULL);
}

/* ---- getters ---- */

static const mdl_io *desc_io(const char *api, const aclmdlDesc *d, int output, size_t index, int report)
{
    if (!d) {
        if (report)
            acl_fail(ACL_ERROR_INVALID_PARAM, "%s: modelDesc is NULL", api);
        return NULL;
    }
    int n = output ? d->info.n_out : d->info.n_in;
    if (index >= (size_t)n) {
        if (report)
            acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s index %zu out of range: the model has %d %ss%s", api,
                     output ? "output" : "input", index, n, output ? "output" : "input",
                     d->filled ? "" : " (the desc was never filled by aclmdlGetDesc)");
        return NULL;
    }
    return output ? &d->info.out[index] : &d->info.in[index];
}

size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc)
{
    return modelDesc ? (size_t)modelDesc->info.n_in : 0;
}

size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc)
{
    return modelDesc ? (size_t)modelDesc->info.n_out : 0;
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetInputSizeByIndex", modelDesc, 0, index, 1);
    return io ? io->nbytes : 0;
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetOutputSizeByIndex", modelDesc, 1, index, 1);
    return io ? io->nbytes : 0;
}

static void fill_dims(const mdl_io *io, aclmdlIODims *dims)
{
    memset(dims->name, 0, sizeof dims->name);
    snprintf(dims->name, sizeof dims->name, "%s", io->alias);
    if (io->shape.rank < 0) {
        /* unknown rank: CANN's convention is a single -2 */
        dims->dimCount = 1;
        dims->dims[0] = -2;
        return;
    }
    dims->dimCount = (size_t)io->shape.rank;
    for (int i = 0; i < io->shape.rank; i++)
        dims->dims[i] = io->shape.d[i] < 0 ? -1 : io->shape.d[i];
}

static aclError get_dims(const char *api, const aclmdlDesc *d, int output, size_t index, aclmdlIODims *dims)
{
    if (!dims)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dims is NULL", api);
    const mdl_io *io = desc_io(api, d, output, index, 1);
    if (!io)
        return ACL_ERROR_INVALID_PARAM;
    fill_dims(io, dims);
    return ACL_SUCCESS;
}

aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetInputDims", modelDesc, 0, index, dims);
}

/* No AIPP in openacl: identical to V1. */
aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetInputDimsV2", modelDesc, 0, index, dims);
}

aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetOutputDims", modelDesc, 1, index, dims);
}

/* Without gears the current output dims are the declared ones. */
aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetCurOutputDims", modelDesc, 1, index, dims);
}

aclError aclmdlGetInputDimsRange(const aclmdlDesc *modelDesc, size_t index, aclmdlIODimsRange *dimsRange)
{
    static const char api[] = "aclmdlGetInputDimsRange";
    if (!dimsRange)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dimsRange is NULL", api);
    const mdl_io *io = desc_io(api, modelDesc, 0, index, 1);
    if (!io)
        return ACL_ERROR_INVALID_PARAM;
    dimsRange->rangeCount = io->shape.rank < 0 ? 0 : (size_t)io->shape.rank;
    for (int i = 0; i < io->shape.rank; i++) {
        int64_t v = io->shape.d[i];
        dimsRange->range[i][0] = v < 0 ? 1 : v;
        dimsRange->range[i][1] = v < 0 ? -1 : v;
    }
    return ACL_SUCCESS;
}

const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetInputNameByIndex", modelDesc, 0, index, 1);
    return io ? io->name : NULL;
}

const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetOutputNameByIndex", modelDesc, 1, index, 1);
    return io ? io->name : NULL;
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetInputFormat", modelDesc, 0, index, 1);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetOutputFormat", modelDesc, 1, index, 1);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetInputDataType", modelDesc, 0, index, 1);
    return io ? io->dtype : ACL_DT_UNDEFINED;
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index)
{
    const mdl_io *io = desc_io("aclmdlGetOutputDataType", modelDesc, 1, index, 1);
    return io ? io->dtype : ACL_DT_UNDEFINED;
}

static aclError index_by_name(const char *api, const aclmdlDesc *d, int output, const char *name, size_t *index)
{
    if (!d || !name || !index)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api,
                        !d ? "modelDesc" : !name ? "name" : "index");
    int n = output ? d->info.n_out : d->info.n_in;
    const mdl_io *v = output ? d->info.out : d->info.in;
    for (int i = 0; i < n; i++) {
        if (strcmp(v[i].name, name) == 0 || strcmp(v[i].alias, name) == 0) {
            *index = (size_t)i;
            return ACL_SUCCESS;
        }
    }
    return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the model has no %s named \"%s\" (%d %ss)", api,
                    output ? "output" : "input", name, n, output ? "output" : "input");
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc, const char *name, size_t *index)
{
    return index_by_name("aclmdlGetInputIndexByName", modelDesc, 0, name, index);
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc, const char *name, size_t *index)
{
    return index_by_name("aclmdlGetOutputIndexByName", modelDesc, 1, name, index);
}

const char *aclmdlGetTensorRealName(const aclmdlDesc *modelDesc, const char *name)
{
    static const char api[] = "aclmdlGetTensorRealName";
    if (!modelDesc || !name) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "name" : "modelDesc");
        return NULL;
    }
    for (int k = 0; k < 2; k++) {
        const mdl_io *v = k ? modelDesc->info.out : modelDesc->info.in;
        int n = k ? modelDesc->info.n_out : modelDesc->info.n_in;
        for (int i = 0; i < n; i++) {
            if (strcmp(v[i].alias, name) == 0 || strcmp(v[i].name, name) == 0)
                return v[i].name;
        }
    }
    acl_fail(ACL_ERROR_INVALID_PARAM, "%s: no input or output of the model is named \"%s\"", api, name);
    return NULL;
}

const char *aclmdlGetOpAttr(aclmdlDesc *modelDesc, const char *opName, const char *attr)
{
    static const char api[] = "aclmdlGetOpAttr";
    if (!modelDesc || !opName || !attr) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api,
                 !modelDesc ? "modelDesc" : !opName ? "opName" : "attr");
        return NULL;
    }
    if (strcmp(attr, ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES) != 0) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attribute \"%s\" is not queryable; only \"%s\" is", api, attr,
                 ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES);
        return NULL;
    }
    /* openacl keeps ONNX node names as they are: there is no fused-op record. */
    acl_fail(ACL_ERROR_INVALID_PARAM, "%s: op \"%s\" has no %s record (openacl does not rename or fuse ops "
             "under new names)", api, opName, attr);
    return NULL;
}

/* ---- gears: ONNX models have none ---- */

aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc, aclmdlBatch *batch)
{
    if (!modelDesc || !batch)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDynamicBatch: %s is NULL", modelDesc ? "batch" : "modelDesc");
    batch->batchCount = 0;
    return ACL_SUCCESS;
}

aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc, size_t index, aclmdlHW *hw)
{
    if (!modelDesc || !hw)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDynamicHW: %s is NULL", modelDesc ? "hw" : "modelDesc");
    hw->hwCount = 0;
    return ACL_SUCCESS;
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc *modelDesc, size_t index, size_t *gearCount)
{
    static const char api[] = "aclmdlGetInputDynamicGearCount";
    if (!modelDesc || !gearCount)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "gearCount" : "modelDesc");
    if (index != (size_t)-1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index is reserved and must be -1, got %zu", api, index);
    *gearCount = 0;
    return ACL_SUCCESS;
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims, size_t gearCount)
{
    static const char api[] = "aclmdlGetInputDynamicDims";
    if (!modelDesc || !dims)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "dims" : "modelDesc");
    if (index != (size_t)-1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index is reserved and must be -1, got %zu", api, index);
    (void)gearCount;  /* the model has 0 gears: any count is large enough, nothing is written */
    return ACL_SUCCESS;
}
