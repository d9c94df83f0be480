/* The static AIPP queries: what atc --insert_op_conf compiled in front of an
 * input (graph/aipp.h), as the loaded model's description recorded it. */
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
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    *type = io.has_aipp ? ACL_DATA_WITH_STATIC_AIPP : ACL_DATA_WITHOUT_AIPP;
    *dynamicAttachedDataIndex = (size_t)ACL_INVALID_NODE_INDEX;
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
    int rc = aipp_io(api, modelId, index, &io);
    if (rc)
        return rc;
    if (!io.has_aipp)
        return acl_fail((int)ACL_ERROR_GE_AIPP_NOT_EXIST, "%s: model %u input %zu has no static AIPP", api,
                        modelId, index);
    const aipp_cfg *c = &io.aipp;
    aclAippInfo *o = aippInfo;
    memset(o, 0, sizeof *o);
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
