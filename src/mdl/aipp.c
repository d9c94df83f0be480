/* AIPP through the API: the queries on what atc --insert_op_conf compiled in
 * front of an input (graph/aipp.h), as the loaded model's description
 * recorded it, and the dynamic AIPP parameter set (aclmdlAIPP) that
 * aclmdlSetInputAIPP writes into a dynamic AIPP's parameter input.
 * Thread rule: an aclmdlAIPP is not locked; one thread sets it at a time. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "acl/error_codes/ge_error_codes.h"
#include "core/core.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

/* A copy of input `index`'s description of loaded model modelId. */
static int aipp_io(const char *api, uint32_t modelId, size_t index, mdl_io *io)
{
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    int n = m->info.n_in;
    if (index < (size_t)n)
        *io = m->info.in[index];
    mdl_put(m);
    if (index >= (size_t)n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: input index %zu out of range: model %u has %d inputs", api,
                        index, modelId, n);
    io->name = io->alias = NULL;      /* the copy outlives no reference */
    return ACL_SUCCESS;
}

aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType *type,
                           size_t *dynamicAttachedDataIndex)
{
    static const char api[] = "aclmdlGetAippType";
    if (!type || !dynamicAttachedDataIndex)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, type ? "dynamicAttachedDataIndex" : "type");
    mdl_io io;
    memset(&io, 0, sizeof io);
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    *type = (aclmdlInputAippType)io.has_aipp;
    *dynamicAttachedDataIndex = io.has_aipp == ACL_DATA_WITH_DYNAMIC_AIPP && io.aipp_attached >= 0
                                    ? (size_t)io.aipp_attached : (size_t)ACL_INVALID_NODE_INDEX;
    return ACL_SUCCESS;
}

static void set_dims(aclmdlIODims *d, const g_shape *s)
{
    memset(d, 0, sizeof *d);
    d->dimCount = s->rank > 0 ? (size_t)s->rank : 0;
    for (int i = 0; i < s->rank && i < ACL_MAX_DIM_CNT; i++)
        d->dims[i] = s->d[i];
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo *aippInfo)
{
    static const char api[] = "aclmdlGetFirstAippInfo";
    if (!aippInfo)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: aippInfo is NULL", api);
    mdl_io io;
    memset(&io, 0, sizeof io);
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    if (io.has_aipp != ACL_DATA_WITH_STATIC_AIPP && io.has_aipp != ACL_DATA_WITH_DYNAMIC_AIPP)
        return acl_fail((int)ACL_ERROR_GE_AIPP_NOT_EXIST, "%s: model %u input %zu has no AIPP", api, modelId, index);
    const aipp_cfg *c = &io.aipp;
    aclAippInfo *o = aippInfo;
    memset(o, 0, sizeof *o);
    if (io.has_aipp == ACL_DATA_WITH_DYNAMIC_AIPP)
        goto network;      /* the parameters come with each execution */
    o->inputFormat = (aclAippInputFormat)c->format;
    o->srcImageSizeW = c->src_w;
    o->srcImageSizeH = c->src_h;
    o->cropSwitch = (int8_t)c->crop;
    o->loadStartPosW = c->crop_x;
    o->loadStartPosH = c->crop_y;
    o->cropSizeW = c->crop_w;
    o->cropSizeH = c->crop_h;
    o->paddingSwitch = (int8_t)c->pad;
    o->leftPaddingSize = c->pad_l;
    o->rightPaddingSize = c->pad_r;
    o->topPaddingSize = c->pad_t;
    o->bottomPaddingSize = c->pad_b;
    o->cscSwitch = (int8_t)c->csc;
    o->rbuvSwapSwitch = (int8_t)c->rbuv_swap;
    o->axSwapSwitch = (int8_t)c->ax_swap;
    int32_t *mx[9] = { &o->matrixR0C0, &o->matrixR0C1, &o->matrixR0C2, &o->matrixR1C0, &o->matrixR1C1,
                       &o->matrixR1C2, &o->matrixR2C0, &o->matrixR2C1, &o->matrixR2C2 };
    for (int i = 0; i < 9; i++)
        *mx[i] = c->matrix[i];
    o->outputBias0 = c->out_bias[0]; o->outputBias1 = c->out_bias[1]; o->outputBias2 = c->out_bias[2];
    o->inputBias0 = c->in_bias[0]; o->inputBias1 = c->in_bias[1]; o->inputBias2 = c->in_bias[2];
    o->meanChn0 = c->mean[0]; o->meanChn1 = c->mean[1]; o->meanChn2 = c->mean[2]; o->meanChn3 = c->mean[3];
    o->minChn0 = c->min[0]; o->minChn1 = c->min[1]; o->minChn2 = c->min[2]; o->minChn3 = c->min[3];
    o->varReciChn0 = c->var_reci[0]; o->varReciChn1 = c->var_reci[1];
    o->varReciChn2 = c->var_reci[2]; o->varReciChn3 = c->var_reci[3];
network:
    /* the network behind the AIPP: float32 NCHW, which is also what AIPP gives it */
    o->srcFormat = ACL_FORMAT_NCHW;
    o->srcDatatype = ACL_FLOAT;
    o->srcDimNum = (size_t)io.aipp_net.rank;
    o->shapeCount = 1;
    size_t bytes = (size_t)g_shape_numel(&io.aipp_net) * sizeof(float);
    set_dims(&o->outDims[0].srcDims, &io.aipp_net);
    o->outDims[0].srcSize = bytes;
    set_dims(&o->outDims[0].aippOutdims, &io.aipp_net);
    o->outDims[0].aippOutSize = bytes;
    o->aippExtend = NULL;
    return ACL_SUCCESS;
}

/* ---- dynamic AIPP parameters ---- */

struct aclmdlAIPP {
    uint64_t n;
    int format_set, src_set;
    aipp_dyn_head h;
    aipp_dyn_batch *b;
};

aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize)
{
    if (batchSize == 0 || batchSize > 1024) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlCreateAIPP: batchSize %llu outside [1, 1024]",
                 (unsigned long long)batchSize);
        return NULL;
    }
    aclmdlAIPP *a = calloc(1, sizeof *a);
    aipp_dyn_batch *b = calloc((size_t)batchSize, sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateAIPP: out of host memory for %llu batches",
                 (unsigned long long)batchSize);
        return NULL;
    }
    a->n = batchSize;
    a->b = b;
    a->h.batch = (uint32_t)batchSize;
    for (uint64_t i = 0; i < batchSize; i++)
        for (int c = 0; c < 4; c++)
            b[i].var_reci[c] = 1.0f;
    return a;
}

/* NULL is refused, as aclmdlDestroyDesc / aclmdlDestroyDataset refuse it. */
aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet)
{
    if (!aippParmsSet)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlDestroyAIPP: aippParmsSet is NULL");
    free(aippParmsSet->b);
    free((aclmdlAIPP *)aippParmsSet);
    return ACL_SUCCESS;
}

aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t *size)
{
    if (!size)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetAippDataSize: size is NULL");
    if (batchSize == 0 || batchSize > 1024)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetAippDataSize: batchSize %llu outside [1, 1024]",
                        (unsigned long long)batchSize);
    *size = AIPP_DYN_HEAD + (size_t)AIPP_DYN_BATCH * (size_t)batchSize;
    return ACL_SUCCESS;
}

#define NEED(a, api) \
    do { if (!(a)) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: aippParmsSet is NULL", api); } while (0)

static int sw(const char *api, const char *what, int v)
{
    return v == 0 || v == 1 ? 0 : acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %d is not 0 or 1", api, what, v);
}

static int in_range(const char *api, const char *what, long long v, long long lo, long long hi)
{
    return v >= lo && v <= hi ? 0 : acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %lld outside [%lld, %lld]", api, what,
                                             v, lo, hi);
}

static aipp_dyn_batch *batch_of(const char *api, aclmdlAIPP *a, uint64_t i)
{
    if (i >= a->n) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batchIndex %llu out of range: the set has %llu batches", api,
                 (unsigned long long)i, (unsigned long long)a->n);
        return NULL;
    }
    return &a->b[i];
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat)
{
    static const char api[] = "aclmdlSetAIPPInputFormat";
    NEED(aippParmsSet, api);
    if (inputFormat != ACL_YUV420SP_U8 && inputFormat != ACL_XRGB8888_U8 && inputFormat != ACL_RGB888_U8 &&
        inputFormat != ACL_YUV400_U8)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: inputFormat %d: dynamic AIPP takes ACL_YUV420SP_U8, "
                        "ACL_XRGB8888_U8, ACL_RGB888_U8 or ACL_YUV400_U8", api, (int)inputFormat);
    aippParmsSet->h.format = (uint8_t)inputFormat;
    aippParmsSet->format_set = 1;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPCscParams(aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
                                uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                uint8_t cscInputBiasR1, uint8_t cscInputBiasR2)
{
    static const char api[] = "aclmdlSetAIPPCscParams";
    NEED(aippParmsSet, api);
    int rc = sw(api, "cscSwitch", cscSwitch);
    if (rc)
        return rc;
    aipp_dyn_head *h = &aippParmsSet->h;
    h->csc = (uint8_t)cscSwitch;
    if (!cscSwitch)
        return ACL_SUCCESS;
    const int16_t m[9] = { cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2, cscMatrixR1C0, cscMatrixR1C1,
                           cscMatrixR1C2, cscMatrixR2C0, cscMatrixR2C1, cscMatrixR2C2 };
    for (int i = 0; i < 9; i++)
        if ((rc = in_range(api, "a matrix coefficient", m[i], -32677, 32676))) {
            h->csc = 0;
            return rc;
        }
    memcpy(h->matrix, m, sizeof m);
    h->out_bias[0] = cscOutputBiasR0; h->out_bias[1] = cscOutputBiasR1; h->out_bias[2] = cscOutputBiasR2;
    h->in_bias[0] = cscInputBiasR0; h->in_bias[1] = cscInputBiasR1; h->in_bias[2] = cscInputBiasR2;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch)
{
    NEED(aippParmsSet, "aclmdlSetAIPPRbuvSwapSwitch");
    int rc = sw("aclmdlSetAIPPRbuvSwapSwitch", "rbuvSwapSwitch", rbuvSwapSwitch);
    if (!rc)
        aippParmsSet->h.rbuv_swap = (uint8_t)rbuvSwapSwitch;
    return rc;
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch)
{
    NEED(aippParmsSet, "aclmdlSetAIPPAxSwapSwitch");
    int rc = sw("aclmdlSetAIPPAxSwapSwitch", "axSwapSwitch", axSwapSwitch);
    if (!rc)
        aippParmsSet->h.ax_swap = (uint8_t)axSwapSwitch;
    return rc;
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW, int32_t srcImageSizeH)
{
    static const char api[] = "aclmdlSetAIPPSrcImageSize";
    NEED(aippParmsSet, api);
    int rc = in_range(api, "srcImageSizeW", srcImageSizeW, 2, 4096);
    if (!rc)
        rc = in_range(api, "srcImageSizeH", srcImageSizeH, 1, 4096);
    if (rc)
        return rc;
    aippParmsSet->h.src_w = srcImageSizeW;
    aippParmsSet->h.src_h = srcImageSizeH;
    aippParmsSet->src_set = 1;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                int32_t scfInputSizeH, int32_t scfOutputSizeW, int32_t scfOutputSizeH,
                                uint64_t batchIndex)
{
    static const char api[] = "aclmdlSetAIPPScfParams";
    NEED(aippParmsSet, api);
    int rc = sw(api, "scfSwitch", scfSwitch);
    aipp_dyn_batch *b = rc ? NULL : batch_of(api, aippParmsSet, batchIndex);
    if (!b)
        return rc ? rc : ACL_ERROR_INVALID_PARAM;
    if (scfSwitch && ((rc = in_range(api, "scfInputSizeW", scfInputSizeW, 16, 4096)) ||
                      (rc = in_range(api, "scfInputSizeH", scfInputSizeH, 16, 4096)) ||
                      (rc = in_range(api, "scfOutputSizeW", scfOutputSizeW, 16, 1920)) ||
                      (rc = in_range(api, "scfOutputSizeH", scfOutputSizeH, 16, 4096))))
        return rc;
    /* kept, and refused by aclmdlSetInputAIPP as CANN's ACL does: no scaling */
    b->scf = (uint8_t)scfSwitch;
    b->scf_in_w = scfInputSizeW; b->scf_in_h = scfInputSizeH;
    b->scf_out_w = scfOutputSizeW; b->scf_out_h = scfOutputSizeH;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                 int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH, uint64_t batchIndex)
{
    static const char api[] = "aclmdlSetAIPPCropParams";
    NEED(aippParmsSet, api);
    int rc = sw(api, "cropSwitch", cropSwitch);
    aipp_dyn_batch *b = rc ? NULL : batch_of(api, aippParmsSet, batchIndex);
    if (!b)
        return rc ? rc : ACL_ERROR_INVALID_PARAM;
    if (cropSwitch && ((rc = in_range(api, "cropStartPosW", cropStartPosW, 0, 4095)) ||
                       (rc = in_range(api, "cropStartPosH", cropStartPosH, 0, 4095)) ||
                       (rc = in_range(api, "cropSizeW", cropSizeW, 1, 4096)) ||
                       (rc = in_range(api, "cropSizeH", cropSizeH, 1, 4096))))
        return rc;
    b->crop = (uint8_t)cropSwitch;
    b->crop_x = cropStartPosW; b->crop_y = cropStartPosH; b->crop_w = cropSizeW; b->crop_h = cropSizeH;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP *aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
                                    int32_t paddingSizeBottom, int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                    uint64_t batchIndex)
{
    static const char api[] = "aclmdlSetAIPPPaddingParams";
    NEED(aippParmsSet, api);
    int rc = sw(api, "paddingSwitch", paddingSwitch);
    aipp_dyn_batch *b = rc ? NULL : batch_of(api, aippParmsSet, batchIndex);
    if (!b)
        return rc ? rc : ACL_ERROR_INVALID_PARAM;
    if (paddingSwitch && ((rc = in_range(api, "paddingSizeTop", paddingSizeTop, 0, 32)) ||
                          (rc = in_range(api, "paddingSizeBottom", paddingSizeBottom, 0, 32)) ||
                          (rc = in_range(api, "paddingSizeLeft", paddingSizeLeft, 0, 32)) ||
                          (rc = in_range(api, "paddingSizeRight", paddingSizeRight, 0, 32))))
        return rc;
    b->pad = (uint8_t)paddingSwitch;
    b->pad_t = paddingSizeTop; b->pad_b = paddingSizeBottom; b->pad_l = paddingSizeLeft; b->pad_r = paddingSizeRight;
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1,
                                   int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex)
{
    static const char api[] = "aclmdlSetAIPPDtcPixelMean";
    NEED(aippParmsSet, api);
    aipp_dyn_batch *b = batch_of(api, aippParmsSet, batchIndex);
    if (!b)
        return ACL_ERROR_INVALID_PARAM;
    const int16_t v[4] = { dtcPixelMeanChn0, dtcPixelMeanChn1, dtcPixelMeanChn2, dtcPixelMeanChn3 };
    for (int i = 0; i < 4; i++) {
        int rc = in_range(api, "a channel mean", v[i], 0, 255);
        if (rc)
            return rc;
    }
    memcpy(b->mean, v, sizeof v);
    return ACL_SUCCESS;
}

static aclError set_floats(const char *api, aclmdlAIPP *a, const float *v, double lo, double hi, uint64_t i,
                           int var)
{
    NEED(a, api);
    aipp_dyn_batch *b = batch_of(api, a, i);
    if (!b)
        return ACL_ERROR_INVALID_PARAM;
    for (int c = 0; c < 4; c++)
        if (!(v[c] >= lo && v[c] <= hi))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: channel %d value %g outside [%g, %g]", api, c, (double)v[c],
                            lo, hi);
    memcpy(var ? b->var_reci : b->min, v, 4 * sizeof *v);
    return ACL_SUCCESS;
}

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1,
                                  float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex)
{
    const float v[4] = { dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2, dtcPixelMinChn3 };
    return set_floats("aclmdlSetAIPPDtcPixelMin", aippParmsSet, v, 0, 255, batchIndex, 0);
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1,
                                   float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex)
{
    const float v[4] = { dtcPixelVarReciChn0, dtcPixelVarReciChn1, dtcPixelVarReciChn2, dtcPixelVarReciChn3 };
    return set_floats("aclmdlSetAIPPPixelVarReci", aippParmsSet, v, -65504, 65504, batchIndex, 1);
}

/* Checks the set against the model's dynamic AIPP at parameter input
 * `index` and writes it into the dataset's buffer there. */
static aclError write_params(const char *api, uint32_t modelId, aclmdlDataset *dataset, size_t index,
                             const aclmdlAIPP *a)
{
    if (!dataset || !a)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, dataset ? "aippParmsSet" : "dataset");
    mdl_io io, img;
    memset(&io, 0, sizeof io);
    memset(&img, 0, sizeof img);
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    if (io.has_aipp != ACL_DYNAMIC_AIPP_NODE)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %zu is not the parameter input of a dynamic "
                        "AIPP (%s)", api, modelId, index, ACL_DYNAMIC_AIPP_NAME);
    if ((rc = aipp_io(api, modelId, (size_t)io.aipp_attached, &img)))
        return rc;
    if (!a->format_set || !a->src_set)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the AIPP set has no %s (aclmdlSetAIPP%s)", api,
                        a->format_set ? "source image size" : "input format",
                        a->format_set ? "SrcImageSize" : "InputFormat");
    if (index >= aclmdlGetDatasetNumBuffers(dataset))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the dataset has %zu buffers, none at index %zu", api,
                        aclmdlGetDatasetNumBuffers(dataset), index);
    aclDataBuffer *buf = aclmdlGetDatasetBuffer(dataset, index);
    unsigned char *dst = buf ? aclGetDataBufferAddr(buf) : NULL;
    size_t len = buf ? aclGetDataBufferSizeV2(buf) : 0;
    int64_t n = img.aipp_net.d[0];
    /* the model's batches only: a set made for a larger batch serves too */
    size_t need = AIPP_DYN_HEAD + (size_t)AIPP_DYN_BATCH * (size_t)n;
    if ((uint64_t)n > a->n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the AIPP set has %llu batches, model %u takes %lld images", api,
                        (unsigned long long)a->n, modelId, (long long)n);
    if (!dst || len < need || len < io.nbytes)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the dataset buffer at index %zu holds %zu bytes, the "
                        "parameters need %zu", api, index, len, need > io.nbytes ? need : io.nbytes);
    unsigned char *tmp = calloc(1, need);
    if (!tmp)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    aipp_dyn_head h = a->h;
    h.batch = (uint32_t)n;
    memcpy(tmp, &h, sizeof h);
    for (int64_t i = 0; i < n; i++)
        memcpy(tmp + AIPP_DYN_HEAD + AIPP_DYN_BATCH * (size_t)i, &a->b[i], sizeof a->b[i]);
    /* every batch the model reads, checked now as the kernel will */
    aipp_cfg c;
    char who[64];
    snprintf(who, sizeof who, "%s: model %u", api, modelId);
    for (int64_t b = 0; b < n && !rc; b++)
        rc = aipp_dyn_cfg(who, tmp, need, (int)b, n, img.nbytes, img.aipp_net.d[2], img.aipp_net.d[3],
                          (int)img.aipp_net.d[1], &c);
    if (!rc)
        memcpy(dst, tmp, io.nbytes < need ? io.nbytes : need);
    free(tmp);
    return rc;
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlAIPP *aippParmsSet)
{
    return write_params("aclmdlSetInputAIPP", modelId, dataset, index, aippParmsSet);
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                   const aclmdlAIPP *aippParmsSet)
{
    static const char api[] = "aclmdlSetAIPPByInputIndex";
    mdl_io io;
    memset(&io, 0, sizeof io);
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    if (io.has_aipp != ACL_DATA_WITH_DYNAMIC_AIPP || io.aipp_attached < 0)
        return acl_fail(ACL_ERROR_FAILURE, "%s: model %u input %zu has no dynamic AIPP", api, modelId, index);
    return write_params(api, modelId, dataset, (size_t)io.aipp_attached, aippParmsSet);
}
