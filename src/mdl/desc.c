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

static int fill_io(const char *api, mdl_io *d, const eng_io *s, int gears)
{
    d->name = dup_str(s->name ? s->name : "");
    if (!d->name)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for tensor names", api);
    d->gdtype = s->dtype;
    d->dtype = mdl_acl_dtype(s->dtype);
    d->shape = s->shape;
    d->format = mdl_format_for_rank(s->shape.rank);
    /* gear models report the largest gear's size for their -1 dims */
    d->nbytes = g_shape_known(&s->shape) || gears ? s->nbytes : 0;
    return ACL_SUCCESS;
}

/* Gear tables and input ranges of an engine model. */
static int build_gears(const char *api, const eng_model *m, mdl_info *out)
{
    out->gear_input = eng_gear_input_index(m);
    out->gear_kind = eng_gear_kind(m);
    int nu = mdl_info_users(out), no = out->n_out;
    if (out->gear_input >= 0) {
        int ng = eng_gear_count(m), k = eng_gear_nvals(m);
        out->n_gears = ng;
        out->gear_nvals = k;
        out->largest = eng_gear_largest(m);
        out->gear_vals = malloc((size_t)ng * (size_t)k * sizeof *out->gear_vals);
        out->gear_in = calloc((size_t)ng * (size_t)nu + 1, sizeof *out->gear_in);
        out->gear_out = calloc((size_t)ng * (size_t)no + 1, sizeof *out->gear_out);
        out->gear_in_bytes = calloc((size_t)ng * (size_t)nu + 1, sizeof *out->gear_in_bytes);
        out->gear_out_bytes = calloc((size_t)ng * (size_t)no + 1, sizeof *out->gear_out_bytes);
        if (!out->gear_vals || !out->gear_in || !out->gear_out || !out->gear_in_bytes || !out->gear_out_bytes)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the model description", api);
        for (int g = 0; g < ng; g++) {
            memcpy(out->gear_vals + (size_t)g * (size_t)k, eng_gear_values(m, g), (size_t)k * sizeof(int64_t));
            for (int i = 0; i < nu; i++) {
                const eng_io *io = eng_gear_input(m, g, i);
                out->gear_in[(size_t)g * (size_t)nu + (size_t)i] = io->shape;
                out->gear_in_bytes[(size_t)g * (size_t)nu + (size_t)i] = io->nbytes;
            }
            for (int o = 0; o < no; o++) {
                const eng_io *io = eng_gear_output(m, g, o);
                out->gear_out[(size_t)g * (size_t)no + (size_t)o] = io->shape;
                out->gear_out_bytes[(size_t)g * (size_t)no + (size_t)o] = io->nbytes;
            }
        }
    }
    int any = 0;
    int64_t lo, hi;
    for (int i = 0; i < nu && !any; i++)
        for (int d = 0; d < out->in[i].shape.rank; d++)
            if (out->in[i].shape.d[d] < 0 && eng_input_range(m, i, d, &lo, &hi) == 0) any = 1;
    if (any) {
        out->lo = calloc((size_t)out->n_in * G_MAX_RANK + 1, sizeof *out->lo);
        out->hi = calloc((size_t)out->n_in * G_MAX_RANK + 1, sizeof *out->hi);
        if (!out->lo || !out->hi)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the model description", api);
        for (int i = 0; i < out->n_in; i++)
            for (int d = 0; d < G_MAX_RANK; d++) {
                size_t at = (size_t)i * G_MAX_RANK + (size_t)d;
                int64_t v = d < out->in[i].shape.rank ? out->in[i].shape.d[d] : 0;
                out->lo[at] = v < 0 ? 1 : v;
                out->hi[at] = v;
                if (i < nu && v < 0 && eng_input_range(m, i, d, &lo, &hi) == 0) {
                    out->lo[at] = lo;
                    out->hi[at] = hi;
                }
            }
    }
    return ACL_SUCCESS;
}

int mdl_info_build(const char *api, const eng_model *m, uint32_t model_id, mdl_info *out)
{
    memset(out, 0, sizeof *out);
    out->model_id = model_id;
    out->gear_input = -1;
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
    int gears = eng_gear_count(m) > 0;
    for (int i = 0; i < ni && rc == ACL_SUCCESS; i++) {
        rc = fill_io(api, &out->in[i], eng_input(m, i), gears);
        mdl_io *d = &out->in[i];
        d->has_aipp = rc == ACL_SUCCESS ? eng_input_aipp(m, i, &d->aipp, &d->aipp_net, &d->aipp_attached) : 0;
        if (d->has_aipp == 1)
            d->format = ACL_FORMAT_NHWC;
    }
    for (int i = 0; i < no && rc == ACL_SUCCESS; i++)
        rc = fill_io(api, &out->out[i], eng_output(m, i), gears);
    if (rc == ACL_SUCCESS)
        rc = build_gears(api, m, out);
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

static void *dup_mem(const void *p, size_t n)
{
    void *r = p ? malloc(n ? n : 1) : NULL;
    if (r) memcpy(r, p, n);
    return r;
}

int mdl_info_copy(const char *api, const mdl_info *src, mdl_info *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->model_id = src->model_id;
    dst->gear_kind = src->gear_kind;
    dst->n_gears = src->n_gears;
    dst->gear_nvals = src->gear_nvals;
    dst->gear_input = src->gear_input;
    dst->largest = src->largest;
    if (src->gear_input >= 0) {
        size_t ng = (size_t)src->n_gears, nu = (size_t)mdl_info_users(src), no = (size_t)src->n_out;
        dst->gear_vals = dup_mem(src->gear_vals, ng * (size_t)src->gear_nvals * sizeof(int64_t));
        dst->gear_in = dup_mem(src->gear_in, ng * nu * sizeof(g_shape));
        dst->gear_out = dup_mem(src->gear_out, ng * no * sizeof(g_shape));
        dst->gear_in_bytes = dup_mem(src->gear_in_bytes, ng * nu * sizeof(size_t));
        dst->gear_out_bytes = dup_mem(src->gear_out_bytes, ng * no * sizeof(size_t));
        if (!dst->gear_vals || !dst->gear_in || !dst->gear_out || !dst->gear_in_bytes || !dst->gear_out_bytes)
            goto oom;
    }
    if (src->lo) {
        dst->lo = dup_mem(src->lo, (size_t)src->n_in * G_MAX_RANK * sizeof(int64_t));
        dst->hi = dup_mem(src->hi, (size_t)src->n_in * G_MAX_RANK * sizeof(int64_t));
        if (!dst->lo || !dst->hi)
            goto oom;
    }
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
    free(info->gear_vals);
    free(info->gear_in);
    free(info->gear_out);
    free(info->gear_in_bytes);
    free(info->gear_out_bytes);
    free(info->lo);
    free(info->hi);
    memset(info, 0, sizeof *info);
    info->gear_input = -1;
}

/* ---- aclmdlDesc life ---- */

aclmdlDesc *aclmdlCreateDesc(void)
{
    aclmdlDesc *d = calloc(1, sizeof *d);
    if (!d)
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDesc: out of host memory");
    else
        d->info.gear_input = -1;
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
    /* A description needs no device (nor a current context), and no plan */
    eng_model *em = NULL;
    int rc = mdl_engine_describe(api, src, buf, len, base_dir, &em);
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
    if (!modelDesc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetNumInputs: modelDesc is NULL");
        return 0;
    }
    return (size_t)modelDesc->info.n_in;
}

size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc)
{
    if (!modelDesc) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetNumOutputs: modelDesc is NULL");
        return 0;
    }
    return (size_t)modelDesc->info.n_out;
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

/* Identical to V1: a static AIPP input reports its bytes as they lie in both,
 * (n, h*3/2, w, 1) for YUV420SP, (n, h*2, w, 1) for YUV422SP, (n, h, w, c)
 * for the packed formats, so the product of the dims is the input's size. */
aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetInputDimsV2", modelDesc, 0, index, dims);
}

aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    return get_dims("aclmdlGetOutputDims", modelDesc, 1, index, dims);
}

/* Gear models: the dims of the gear the model last selected or executed
 * (the largest gear's before any); otherwise the declared ones. */
aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims)
{
    static const char api[] = "aclmdlGetCurOutputDims";
    aclError rc = get_dims(api, modelDesc, 1, index, dims);
    if (rc != ACL_SUCCESS || modelDesc->info.n_gears <= 0)
        return rc;
    const mdl_info *x = &modelDesc->info;
    int g = x->model_id ? mdl_model_cur_gear(x->model_id) : -1;
    if (g < 0 || g >= x->n_gears)
        g = x->largest;
    const g_shape *s = &x->gear_out[(size_t)g * (size_t)x->n_out + index];
    dims->dimCount = (size_t)(s->rank < 0 ? 0 : s->rank);
    for (int i = 0; i < s->rank; i++)
        dims->dims[i] = s->d[i];
    return ACL_SUCCESS;
}

aclError aclmdlGetInputDimsRange(const aclmdlDesc *modelDesc, size_t index, aclmdlIODimsRange *dimsRange)
{
    static const char api[] = "aclmdlGetInputDimsRange";
    if (!dimsRange)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dimsRange is NULL", api);
    const mdl_io *io = desc_io(api, modelDesc, 0, index, 1);
    if (!io)
        return ACL_ERROR_INVALID_PARAM;
    const mdl_info *x = &modelDesc->info;
    dimsRange->rangeCount = io->shape.rank < 0 ? 0 : (size_t)io->shape.rank;
    for (int i = 0; i < io->shape.rank; i++) {
        int64_t v = io->shape.d[i];
        dimsRange->range[i][0] = v < 0 ? 1 : v;
        dimsRange->range[i][1] = v < 0 ? -1 : v;
        if (v >= 0)
            continue;
        if (x->lo) {
            /* atc --input_shape "a~b" */
            dimsRange->range[i][0] = x->lo[index * G_MAX_RANK + (size_t)i];
            dimsRange->range[i][1] = x->hi[index * G_MAX_RANK + (size_t)i];
        } else if (x->n_gears > 0 && (int)index != x->gear_input) {
            /* a gear dim: from the smallest to the largest gear's value */
            int nu = mdl_info_users(x);
            for (int g = 0; g < x->n_gears; g++) {
                int64_t d = x->gear_in[(size_t)g * (size_t)nu + index].d[i];
                if (g == 0 || d < dimsRange->range[i][0]) dimsRange->range[i][0] = d;
                if (g == 0 || d > dimsRange->range[i][1]) dimsRange->range[i][1] = d;
            }
        }
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

/* ---- gears ---- */

aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc, aclmdlBatch *batch)
{
    if (!modelDesc || !batch)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDynamicBatch: %s is NULL", modelDesc ? "batch" : "modelDesc");
    const mdl_info *x = &modelDesc->info;
    batch->batchCount = 0;
    if (x->n_gears <= 0 || x->gear_kind != ENG_GEAR_BATCH)
        return ACL_SUCCESS;   /* no batch gears */
    if (x->n_gears > ACL_MAX_BATCH_NUM)
        return acl_fail(ACL_ERROR_STORAGE_OVER_LIMIT, "aclmdlGetDynamicBatch: the model has %d batch gears, "
                        "aclmdlBatch holds %d", x->n_gears, ACL_MAX_BATCH_NUM);
    batch->batchCount = (size_t)x->n_gears;
    for (int g = 0; g < x->n_gears; g++)
        batch->batch[g] = (uint64_t)x->gear_vals[g];
    return ACL_SUCCESS;
}

aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc, size_t index, aclmdlHW *hw)
{
    (void)index;   /* reserved (-1); CANN ignores it */
    if (!modelDesc || !hw)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDynamicHW: %s is NULL", modelDesc ? "hw" : "modelDesc");
    const mdl_info *x = &modelDesc->info;
    hw->hwCount = 0;
    if (x->n_gears <= 0 || x->gear_kind != ENG_GEAR_HW)
        return ACL_SUCCESS;
    if (x->n_gears > ACL_MAX_HW_NUM)
        return acl_fail(ACL_ERROR_STORAGE_OVER_LIMIT, "aclmdlGetDynamicHW: the model has %d image-size gears, "
                        "aclmdlHW holds %d", x->n_gears, ACL_MAX_HW_NUM);
    hw->hwCount = (size_t)x->n_gears;
    for (int g = 0; g < x->n_gears; g++) {
        hw->hw[g][0] = (uint64_t)x->gear_vals[2 * (size_t)g];
        hw->hw[g][1] = (uint64_t)x->gear_vals[2 * (size_t)g + 1];
    }
    return ACL_SUCCESS;
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc *modelDesc, size_t index, size_t *gearCount)
{
    static const char api[] = "aclmdlGetInputDynamicGearCount";
    if (!modelDesc || !gearCount)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "gearCount" : "modelDesc");
    if (index != (size_t)-1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index is reserved and must be -1, got %zu", api, index);
    const mdl_info *x = &modelDesc->info;
    *gearCount = x->n_gears > 0 && x->gear_kind == ENG_GEAR_DIMS ? (size_t)x->n_gears : 0;
    return ACL_SUCCESS;
}

/* Each gear as the concatenated full shapes of the data inputs. */
aclError aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims, size_t gearCount)
{
    static const char api[] = "aclmdlGetInputDynamicDims";
    if (!modelDesc || !dims)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, modelDesc ? "dims" : "modelDesc");
    if (index != (size_t)-1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index is reserved and must be -1, got %zu", api, index);
    const mdl_info *x = &modelDesc->info;
    if (x->n_gears <= 0 || x->gear_kind != ENG_GEAR_DIMS)
        return ACL_SUCCESS;   /* no dims gears: nothing is written */
    if (gearCount < (size_t)x->n_gears)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: gearCount %zu is smaller than the model's %d dims gears (ask "
                        "aclmdlGetInputDynamicGearCount)", api, gearCount, x->n_gears);
    int nu = mdl_info_users(x);
    for (int g = 0; g < x->n_gears; g++) {
        aclmdlIODims *d = &dims[g];
        memset(d->name, 0, sizeof d->name);
        size_t k = 0;
        for (int i = 0; i < nu; i++) {
            const g_shape *s = &x->gear_in[(size_t)g * (size_t)nu + (size_t)i];
            for (int j = 0; j < s->rank && k < ACL_MAX_DIM_CNT; j++)
                d->dims[k++] = s->d[j];
        }
        d->dimCount = k;
    }
    return ACL_SUCCESS;
}
