/* Media memory and the plain description objects of acl_dvpp.h: channel
 * descriptions and channels, pictures and batches of them, regions, resize,
 * JPEG-encode and border configurations, lookup tables, histograms and
 * video stream descriptions. None of these objects locks: the header's
 * thread rule (no change while another thread or a queued task uses one)
 * keeps them race-free. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dvpp/dvpp_priv.h"

/* ------------------------------------------------------------ memory */

ACL_FUNC_VISIBILITY aclError acldvppMalloc(void **devPtr, size_t size)
{
    return openacl_ext_dvpp_malloc("acldvppMalloc", devPtr, size);
}

ACL_FUNC_VISIBILITY aclError acldvppFree(void *devPtr) { return openacl_ext_dvpp_free("acldvppFree", devPtr); }

/* ------------------------------------------------------------ channels */

static _Atomic uint64_t g_channel_ids;

uint64_t dv_next_channel_id(void) { return atomic_fetch_add(&g_channel_ids, 1) + 1; }

ACL_FUNC_VISIBILITY acldvppChannelDesc *acldvppCreateChannelDesc(void)
{
    acldvppChannelDesc *c = dv_calloc("acldvppCreateChannelDesc", sizeof(*c));
    if (!c) return NULL;
    c->magic = DV_MAGIC_CHAN;
    c->csc = ACL_DVPP_CSC_MATRIX_BT601_WIDE;
    c->precision = ACL_YUVOUT_ALIGN_DOWN_COMPAT;
    return c;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyChannelDesc(acldvppChannelDesc *channelDesc)
{
    if (!channelDesc) return ACL_SUCCESS;
    acldvppChannelDesc *c = DV_OBJ("acldvppDestroyChannelDesc", acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc,
                                   "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    c->magic = 0;
    free(c);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc *channelDesc)
{
    const acldvppChannelDesc *c = DV_OBJ("acldvppGetChannelDescChannelId", const acldvppChannelDesc, DV_MAGIC_CHAN,
                                         channelDesc, "channelDesc");
    return c ? c->id : 0;
}

ACL_FUNC_VISIBILITY aclError acldvppCreateChannel(acldvppChannelDesc *channelDesc)
{
    static const char api[] = "acldvppCreateChannel";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    acldvppChannelDesc *c = DV_OBJ(api, acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc, "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if (c->created)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelDesc %p already holds channel %" PRIu64, api,
                       (void *)c, c->id);
    int32_t dev = -1;
    if ((rc = openacl_ext_current_device(api, &dev))) return rc;
    c->id = dv_next_channel_id();
    c->created = 1;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyChannel(acldvppChannelDesc *channelDesc)
{
    static const char api[] = "acldvppDestroyChannel";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    acldvppChannelDesc *c = DV_OBJ(api, acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc, "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if (!c->created)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelDesc %p holds no channel (never created or destroyed)",
                       api, (void *)c);
    c->created = 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppSetChannelDescMode(acldvppChannelDesc *channelDesc, uint32_t mode)
{
    static const char api[] = "acldvppSetChannelDescMode";
    acldvppChannelDesc *c = DV_OBJ(api, acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc, "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if (mode == 0 || (mode & ~0xFu))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: mode 0x%x is not an OR of DVPP_CHNMODE_VPC (1), _JPEGD (2), _JPEGE (4), _PNGD (8)", api,
                       mode);
    if (c->created)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channel %" PRIu64 " already exists; set the mode before "
                       "acldvppCreateChannel", api, c->id);
    c->mode = mode;
    return ACL_SUCCESS;
}

static size_t chan_param_len(acldvppChannelDescParamType t)
{
    switch (t) {
    case ACL_DVPP_CSC_MATRIX_UINT32:
    case ACL_DVPP_MODE_UINT32:
    case ACL_DVPP_CHANNEL_HEIGHT_UINT32:
    case ACL_DVPP_CHANNEL_WIDTH_UINT32:
    case ACL_DVPP_JPEGD_PRECISION_MODE_ENUM:
        return 4;
    case ACL_DVPP_CHANNEL_ID_UINT64:
        return 8;
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclError acldvppSetChannelDescParam(acldvppChannelDesc *channelDesc,
                                                        acldvppChannelDescParamType paramType, size_t length,
                                                        const void *param)
{
    static const char api[] = "acldvppSetChannelDescParam";
    acldvppChannelDesc *c = DV_OBJ(api, acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc, "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    size_t need = chan_param_len(paramType);
    if (!need) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d is not a channel parameter", api, (int)paramType);
    if (paramType == ACL_DVPP_CHANNEL_ID_UINT64)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: the channel id (paramType 2) is read-only", api);
    if (!param) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: param is NULL", api);
    if (length != need)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: length %zu for paramType %d, expected %zu", api, length,
                       (int)paramType, need);
    uint32_t v;
    memcpy(&v, param, 4);
    switch (paramType) {
    case ACL_DVPP_CSC_MATRIX_UINT32:
        if (v > ACL_DVPP_CSC_MATRIX_BT2020_NARROW)
            return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: CSC matrix %u is not an acldvppCscMatrix (0..5)", api, v);
        c->csc = v;
        break;
    case ACL_DVPP_MODE_UINT32:
        if (v == 0 || (v & ~0xFu))
            return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: mode 0x%x is not an OR of the DVPP_CHNMODE_* flags", api, v);
        if (c->created)
            return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channel %" PRIu64 " already exists; set the mode first", api,
                           c->id);
        c->mode = v;
        break;
    case ACL_DVPP_CHANNEL_HEIGHT_UINT32:
        c->height = v;
        break;
    case ACL_DVPP_CHANNEL_WIDTH_UINT32:
        c->width = v;
        break;
    case ACL_DVPP_JPEGD_PRECISION_MODE_ENUM:
        if (v > ACL_YUVOUT_ALIGN_DOWN_COMPAT)
            return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: JPEG decode precision mode %u is not 0..2", api, v);
        c->precision = v;
        break;
    default:
        break;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppGetChannelDescParam(const acldvppChannelDesc *channelDesc,
                                                        acldvppChannelDescParamType paramType, size_t length,
                                                        size_t *paramRetSize, void *param)
{
    static const char api[] = "acldvppGetChannelDescParam";
    const acldvppChannelDesc *c = DV_OBJ(api, const acldvppChannelDesc, DV_MAGIC_CHAN, channelDesc, "channelDesc");
    if (!c) return ACL_ERROR_INVALID_PARAM;
    size_t need = chan_param_len(paramType);
    if (!need) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d is not a channel parameter", api, (int)paramType);
    if (!param || !paramRetSize) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: param or paramRetSize is NULL", api);
    if (length < need)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: length %zu is too small for paramType %d (%zu bytes)", api,
                       length, (int)paramType, need);
    uint32_t v = 0;
    switch (paramType) {
    case ACL_DVPP_CSC_MATRIX_UINT32: v = c->csc; break;
    case ACL_DVPP_MODE_UINT32: v = c->mode ? c->mode : 0xF; break;
    case ACL_DVPP_CHANNEL_HEIGHT_UINT32: v = c->height; break;
    case ACL_DVPP_CHANNEL_WIDTH_UINT32: v = c->width; break;
    case ACL_DVPP_JPEGD_PRECISION_MODE_ENUM: v = c->precision; break;
    case ACL_DVPP_CHANNEL_ID_UINT64: {
        uint64_t id = c->id;
        memcpy(param, &id, 8);
        *paramRetSize = 8;
        return ACL_SUCCESS;
    }
    }
    memcpy(param, &v, 4);
    *paramRetSize = 4;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ pictures */

ACL_FUNC_VISIBILITY acldvppPicDesc *acldvppCreatePicDesc(void)
{
    acldvppPicDesc *p = dv_calloc("acldvppCreatePicDesc", sizeof(*p));
    if (!p) return NULL;
    p->magic = DV_MAGIC_PIC;
    p->format = PIXEL_FORMAT_YUV_400;
    return p;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyPicDesc(acldvppPicDesc *picDesc)
{
    static const char api[] = "acldvppDestroyPicDesc";
    if (!picDesc) return ACL_SUCCESS;
    acldvppPicDesc *p = DV_OBJ(api, acldvppPicDesc, DV_MAGIC_PIC, picDesc, "picDesc");
    if (!p) return ACL_ERROR_INVALID_PARAM;
    if (p->in_batch)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: picDesc %p belongs to a batch (acldvppGetPicDesc); destroy the batch instead", api,
                       (void *)p);
    p->magic = 0;
    free(p);
    return ACL_SUCCESS;
}

#define PIC_SETTER(fn, type, field, argname)                                                  \
    ACL_FUNC_VISIBILITY aclError fn(acldvppPicDesc *picDesc, type argname)                   \
    {                                                                                         \
        acldvppPicDesc *p = DV_OBJ(#fn, acldvppPicDesc, DV_MAGIC_PIC, picDesc, "picDesc");   \
        if (!p) return ACL_ERROR_INVALID_PARAM;                                               \
        p->field = argname;                                                                   \
        return ACL_SUCCESS;                                                                   \
    }
#define PIC_GETTER(fn, type, field, dflt)                                                          \
    ACL_FUNC_VISIBILITY type fn(const acldvppPicDesc *picDesc)                                    \
    {                                                                                              \
        const acldvppPicDesc *p = DV_OBJ(#fn, const acldvppPicDesc, DV_MAGIC_PIC, picDesc, "picDesc"); \
        return p ? p->field : dflt;                                                                \
    }

PIC_SETTER(acldvppSetPicDescData, void *, data, dataDev)
PIC_SETTER(acldvppSetPicDescSize, uint32_t, size, size)
PIC_SETTER(acldvppSetPicDescFormat, acldvppPixelFormat, format, format)
PIC_SETTER(acldvppSetPicDescWidth, uint32_t, width, width)
PIC_SETTER(acldvppSetPicDescHeight, uint32_t, height, height)
PIC_SETTER(acldvppSetPicDescWidthStride, uint32_t, width_stride, widthStride)
PIC_SETTER(acldvppSetPicDescHeightStride, uint32_t, height_stride, heightStride)
PIC_SETTER(acldvppSetPicDescRetCode, uint32_t, ret_code, retCode)
PIC_GETTER(acldvppGetPicDescData, void *, data, NULL)
PIC_GETTER(acldvppGetPicDescSize, uint32_t, size, 0)
PIC_GETTER(acldvppGetPicDescFormat, acldvppPixelFormat, format, PIXEL_FORMAT_YUV_400)
PIC_GETTER(acldvppGetPicDescWidth, uint32_t, width, 0)
PIC_GETTER(acldvppGetPicDescHeight, uint32_t, height, 0)
PIC_GETTER(acldvppGetPicDescWidthStride, uint32_t, width_stride, 0)
PIC_GETTER(acldvppGetPicDescHeightStride, uint32_t, height_stride, 0)
PIC_GETTER(acldvppGetPicDescRetCode, uint32_t, ret_code, 0)

/* ------------------------------------------------------------ batches */

#define DV_BATCH_MAX 256

ACL_FUNC_VISIBILITY acldvppBatchPicDesc *acldvppCreateBatchPicDesc(uint32_t batchSize)
{
    static const char api[] = "acldvppCreateBatchPicDesc";
    if (batchSize == 0 || batchSize > DV_BATCH_MAX) {
        DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: batchSize %u is not in 1..%d", api, batchSize, DV_BATCH_MAX);
        return NULL;
    }
    acldvppBatchPicDesc *b = dv_calloc(api, sizeof(*b) + (size_t)batchSize * sizeof(acldvppPicDesc));
    if (!b) return NULL;
    b->magic = DV_MAGIC_BATCH;
    b->count = batchSize;
    for (uint32_t i = 0; i < batchSize; i++) {
        b->pics[i].magic = DV_MAGIC_PIC;
        b->pics[i].in_batch = 1;
        b->pics[i].format = PIXEL_FORMAT_YUV_400;
    }
    return b;
}

ACL_FUNC_VISIBILITY acldvppPicDesc *acldvppGetPicDesc(acldvppBatchPicDesc *batchPicDesc, uint32_t index)
{
    static const char api[] = "acldvppGetPicDesc";
    acldvppBatchPicDesc *b = DV_OBJ(api, acldvppBatchPicDesc, DV_MAGIC_BATCH, batchPicDesc, "batchPicDesc");
    if (!b) return NULL;
    if (index >= b->count) {
        DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: index %u is out of the batch of %u", api, index, b->count);
        return NULL;
    }
    return &b->pics[index];
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc *batchPicDesc)
{
    if (!batchPicDesc) return ACL_SUCCESS;
    acldvppBatchPicDesc *b = DV_OBJ("acldvppDestroyBatchPicDesc", acldvppBatchPicDesc, DV_MAGIC_BATCH,
                                    batchPicDesc, "batchPicDesc");
    if (!b) return ACL_ERROR_INVALID_PARAM;
    b->magic = 0;
    for (uint32_t i = 0; i < b->count; i++) b->pics[i].magic = 0;
    free(b);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ regions */

ACL_FUNC_VISIBILITY acldvppRoiConfig *acldvppCreateRoiConfig(uint32_t left, uint32_t right, uint32_t top,
                                                             uint32_t bottom)
{
    acldvppRoiConfig *r = dv_calloc("acldvppCreateRoiConfig", sizeof(*r));
    if (!r) return NULL;
    r->magic = DV_MAGIC_ROI;
    r->left = left;
    r->right = right;
    r->top = top;
    r->bottom = bottom;
    return r;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyRoiConfig(acldvppRoiConfig *roiConfig)
{
    if (!roiConfig) return ACL_SUCCESS;
    acldvppRoiConfig *r = DV_OBJ("acldvppDestroyRoiConfig", acldvppRoiConfig, DV_MAGIC_ROI, roiConfig, "roiConfig");
    if (!r) return ACL_ERROR_INVALID_PARAM;
    r->magic = 0;
    free(r);
    return ACL_SUCCESS;
}

#define ROI_SETTER(fn, field)                                                            \
    ACL_FUNC_VISIBILITY aclError fn(acldvppRoiConfig *config, uint32_t field)           \
    {                                                                                    \
        acldvppRoiConfig *r = DV_OBJ(#fn, acldvppRoiConfig, DV_MAGIC_ROI, config, "config"); \
        if (!r) return ACL_ERROR_INVALID_PARAM;                                          \
        r->field = field;                                                                \
        return ACL_SUCCESS;                                                              \
    }
ROI_SETTER(acldvppSetRoiConfigLeft, left)
ROI_SETTER(acldvppSetRoiConfigRight, right)
ROI_SETTER(acldvppSetRoiConfigTop, top)
ROI_SETTER(acldvppSetRoiConfigBottom, bottom)

ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfig(acldvppRoiConfig *config, uint32_t left, uint32_t right, uint32_t top,
                                                 uint32_t bottom)
{
    acldvppRoiConfig *r = DV_OBJ("acldvppSetRoiConfig", acldvppRoiConfig, DV_MAGIC_ROI, config, "config");
    if (!r) return ACL_ERROR_INVALID_PARAM;
    r->left = left;
    r->right = right;
    r->top = top;
    r->bottom = bottom;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ resize / JPEG-encode configs */

ACL_FUNC_VISIBILITY acldvppResizeConfig *acldvppCreateResizeConfig(void)
{
    acldvppResizeConfig *r = dv_calloc("acldvppCreateResizeConfig", sizeof(*r));
    if (!r) return NULL;
    r->magic = DV_MAGIC_RESIZE;
    return r;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyResizeConfig(acldvppResizeConfig *resizeConfig)
{
    if (!resizeConfig) return ACL_SUCCESS;
    acldvppResizeConfig *r = DV_OBJ("acldvppDestroyResizeConfig", acldvppResizeConfig, DV_MAGIC_RESIZE, resizeConfig,
                                    "resizeConfig");
    if (!r) return ACL_ERROR_INVALID_PARAM;
    r->magic = 0;
    free(r);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig *resizeConfig,
                                                                 uint32_t interpolation)
{
    static const char api[] = "acldvppSetResizeConfigInterpolation";
    acldvppResizeConfig *r = DV_OBJ(api, acldvppResizeConfig, DV_MAGIC_RESIZE, resizeConfig, "resizeConfig");
    if (!r) return ACL_ERROR_INVALID_PARAM;
    if (interpolation > 4)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: interpolation %u is not 0 (default), 1 (bilinear), 2 (nearest), 3 (TF bilinear) or 4 "
                       "(TF nearest)",
                       api, interpolation);
    r->interpolation = interpolation;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint32_t acldvppGetResizeConfigInterpolation(const acldvppResizeConfig *resizeConfig)
{
    const acldvppResizeConfig *r = DV_OBJ("acldvppGetResizeConfigInterpolation", const acldvppResizeConfig,
                                          DV_MAGIC_RESIZE, resizeConfig, "resizeConfig");
    return r ? r->interpolation : 0;
}

ACL_FUNC_VISIBILITY acldvppJpegeConfig *acldvppCreateJpegeConfig(void)
{
    acldvppJpegeConfig *j = dv_calloc("acldvppCreateJpegeConfig", sizeof(*j));
    if (!j) return NULL;
    j->magic = DV_MAGIC_JPEGE;
    return j;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig *jpegeConfig)
{
    if (!jpegeConfig) return ACL_SUCCESS;
    acldvppJpegeConfig *j = DV_OBJ("acldvppDestroyJpegeConfig", acldvppJpegeConfig, DV_MAGIC_JPEGE, jpegeConfig,
                                   "jpegeConfig");
    if (!j) return ACL_ERROR_INVALID_PARAM;
    j->magic = 0;
    free(j);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig *jpegeConfig, uint32_t level)
{
    static const char api[] = "acldvppSetJpegeConfigLevel";
    acldvppJpegeConfig *j = DV_OBJ(api, acldvppJpegeConfig, DV_MAGIC_JPEGE, jpegeConfig, "jpegeConfig");
    if (!j) return ACL_ERROR_INVALID_PARAM;
    if (level > 100) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: level %u is not in 0..100", api, level);
    j->level = level;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint32_t acldvppGetJpegeConfigLevel(const acldvppJpegeConfig *jpegeConfig)
{
    const acldvppJpegeConfig *j = DV_OBJ("acldvppGetJpegeConfigLevel", const acldvppJpegeConfig, DV_MAGIC_JPEGE,
                                         jpegeConfig, "jpegeConfig");
    return j ? j->level : 0;
}

/* ------------------------------------------------------------ border config */

ACL_FUNC_VISIBILITY acldvppBorderConfig *acldvppCreateBorderConfig(void)
{
    acldvppBorderConfig *b = dv_calloc("acldvppCreateBorderConfig", sizeof(*b));
    if (!b) return NULL;
    b->magic = DV_MAGIC_BORDER;
    b->type = BORDER_CONSTANT;
    return b;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyBorderConfig(acldvppBorderConfig *borderConfig)
{
    if (!borderConfig) return ACL_SUCCESS;
    acldvppBorderConfig *b = DV_OBJ("acldvppDestroyBorderConfig", acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig,
                                    "borderConfig");
    if (!b) return ACL_ERROR_INVALID_PARAM;
    b->magic = 0;
    free(b);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigValue(acldvppBorderConfig *borderConfig, uint32_t index,
                                                         double value)
{
    static const char api[] = "acldvppSetBorderConfigValue";
    acldvppBorderConfig *b = DV_OBJ(api, acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig, "borderConfig");
    if (!b) return ACL_ERROR_INVALID_PARAM;
    if (index >= 4) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: index %u is not 0..3", api, index);
    if (!(value >= 0.0 && value <= 255.0))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: value %g is not in 0..255", api, value);
    b->value[index] = value;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigBorderType(acldvppBorderConfig *borderConfig,
                                                              acldvppBorderType borderType)
{
    static const char api[] = "acldvppSetBorderConfigBorderType";
    acldvppBorderConfig *b = DV_OBJ(api, acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig, "borderConfig");
    if (!b) return ACL_ERROR_INVALID_PARAM;
    if ((unsigned)borderType > BORDER_REFLECT_101)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: borderType %d is not an acldvppBorderType (0..3)", api,
                       (int)borderType);
    b->type = borderType;
    return ACL_SUCCESS;
}

#define BORDER_SETTER(fn, field)                                                                        \
    ACL_FUNC_VISIBILITY aclError fn(acldvppBorderConfig *borderConfig, uint32_t field)                 \
    {                                                                                                   \
        acldvppBorderConfig *b = DV_OBJ(#fn, acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig, "borderConfig"); \
        if (!b) return ACL_ERROR_INVALID_PARAM;                                                         \
        b->field = field;                                                                               \
        return ACL_SUCCESS;                                                                             \
    }
#define BORDER_GETTER(fn, field)                                                                         \
    ACL_FUNC_VISIBILITY uint32_t fn(const acldvppBorderConfig *borderConfig)                            \
    {                                                                                                    \
        const acldvppBorderConfig *b =                                                                   \
            DV_OBJ(#fn, const acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig, "borderConfig");       \
        return b ? b->field : 0;                                                                         \
    }
BORDER_SETTER(acldvppSetBorderConfigTop, top)
BORDER_SETTER(acldvppSetBorderConfigBottom, bottom)
BORDER_SETTER(acldvppSetBorderConfigLeft, left)
BORDER_SETTER(acldvppSetBorderConfigRight, right)
BORDER_GETTER(acldvppGetBorderConfigTop, top)
BORDER_GETTER(acldvppGetBorderConfigBottom, bottom)
BORDER_GETTER(acldvppGetBorderConfigLeft, left)
BORDER_GETTER(acldvppGetBorderConfigRight, right)

ACL_FUNC_VISIBILITY double acldvppGetBorderConfigValue(const acldvppBorderConfig *borderConfig, uint32_t index)
{
    static const char api[] = "acldvppGetBorderConfigValue";
    const acldvppBorderConfig *b = DV_OBJ(api, const acldvppBorderConfig, DV_MAGIC_BORDER, borderConfig,
                                          "borderConfig");
    if (!b) return -1.0;
    if (index >= 4) {
        DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: index %u is not 0..3", api, index);
        return -1.0;
    }
    return b->value[index];
}

ACL_FUNC_VISIBILITY acldvppBorderType acldvppGetBorderConfigBorderType(const acldvppBorderConfig *borderConfig)
{
    const acldvppBorderConfig *b = DV_OBJ("acldvppGetBorderConfigBorderType", const acldvppBorderConfig,
                                          DV_MAGIC_BORDER, borderConfig, "borderConfig");
    return b ? b->type : BORDER_CONSTANT;
}

/* ------------------------------------------------------------ LUT maps and histograms */

ACL_FUNC_VISIBILITY acldvppLutMap *acldvppCreateLutMap(void)
{
    acldvppLutMap *m = dv_calloc("acldvppCreateLutMap", sizeof(*m));
    if (!m) return NULL;
    m->magic = DV_MAGIC_LUT;
    for (int d = 0; d < DV_LUT_DIMS; d++)
        for (int i = 0; i < DV_LUT_LEN; i++) m->data[d][i] = (uint8_t)i; /* identity until filled */
    return m;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyLutMap(acldvppLutMap *lutMap)
{
    if (!lutMap) return ACL_SUCCESS;
    acldvppLutMap *m = DV_OBJ("acldvppDestroyLutMap", acldvppLutMap, DV_MAGIC_LUT, lutMap, "lutMap");
    if (!m) return ACL_ERROR_INVALID_PARAM;
    m->magic = 0;
    free(m);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint32_t acldvppGetLutMapDims(const acldvppLutMap *lutMap)
{
    const acldvppLutMap *m = DV_OBJ("acldvppGetLutMapDims", const acldvppLutMap, DV_MAGIC_LUT, lutMap, "lutMap");
    return m ? DV_LUT_DIMS : 0;
}

ACL_FUNC_VISIBILITY aclError acldvppGetLutMapData(const acldvppLutMap *lutMap, uint32_t dim, uint8_t **data,
                                                  uint32_t *len)
{
    static const char api[] = "acldvppGetLutMapData";
    const acldvppLutMap *m = DV_OBJ(api, const acldvppLutMap, DV_MAGIC_LUT, lutMap, "lutMap");
    if (!m) return ACL_ERROR_INVALID_PARAM;
    if (!data || !len) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data or len is NULL", api);
    if (dim >= DV_LUT_DIMS) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: dim %u is not 0..%d", api, dim, DV_LUT_DIMS - 1);
    *data = (uint8_t *)m->data[dim];
    *len = DV_LUT_LEN;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY acldvppHist *acldvppCreateHist(void)
{
    acldvppHist *h = dv_calloc("acldvppCreateHist", sizeof(*h));
    if (!h) return NULL;
    h->magic = DV_MAGIC_HIST;
    return h;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyHist(acldvppHist *hist)
{
    if (!hist) return ACL_SUCCESS;
    acldvppHist *h = DV_OBJ("acldvppDestroyHist", acldvppHist, DV_MAGIC_HIST, hist, "hist");
    if (!h) return ACL_ERROR_INVALID_PARAM;
    h->magic = 0;
    free(h);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint32_t acldvppGetHistDims(acldvppHist *hist)
{
    acldvppHist *h = DV_OBJ("acldvppGetHistDims", acldvppHist, DV_MAGIC_HIST, hist, "hist");
    return h ? DV_HIST_DIMS : 0;
}

ACL_FUNC_VISIBILITY aclError acldvppGetHistData(acldvppHist *hist, uint32_t dim, uint32_t **data, uint16_t *len)
{
    static const char api[] = "acldvppGetHistData";
    acldvppHist *h = DV_OBJ(api, acldvppHist, DV_MAGIC_HIST, hist, "hist");
    if (!h) return ACL_ERROR_INVALID_PARAM;
    if (!data || !len) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data or len is NULL", api);
    if (dim >= DV_HIST_DIMS) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: dim %u is not 0..%d", api, dim, DV_HIST_DIMS - 1);
    *data = h->data[dim];
    *len = DV_HIST_LEN;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint32_t acldvppGetHistRetCode(acldvppHist *hist)
{
    acldvppHist *h = DV_OBJ("acldvppGetHistRetCode", acldvppHist, DV_MAGIC_HIST, hist, "hist");
    return h ? h->ret_code : 0;
}

ACL_FUNC_VISIBILITY aclError acldvppClearHist(acldvppHist *hist)
{
    acldvppHist *h = DV_OBJ("acldvppClearHist", acldvppHist, DV_MAGIC_HIST, hist, "hist");
    if (!h) return ACL_ERROR_INVALID_PARAM;
    memset(h->data, 0, sizeof(h->data));
    h->ret_code = 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ video stream descriptions */

ACL_FUNC_VISIBILITY acldvppStreamDesc *acldvppCreateStreamDesc(void)
{
    acldvppStreamDesc *s = dv_calloc("acldvppCreateStreamDesc", sizeof(*s));
    if (!s) return NULL;
    s->magic = DV_MAGIC_STREAM;
    s->format = H265_MAIN_LEVEL;
    return s;
}

ACL_FUNC_VISIBILITY aclError acldvppDestroyStreamDesc(acldvppStreamDesc *streamDesc)
{
    if (!streamDesc) return ACL_SUCCESS;
    acldvppStreamDesc *s = DV_OBJ("acldvppDestroyStreamDesc", acldvppStreamDesc, DV_MAGIC_STREAM, streamDesc,
                                  "streamDesc");
    if (!s) return ACL_ERROR_INVALID_PARAM;
    s->magic = 0;
    free(s);
    return ACL_SUCCESS;
}

#define STREAM_SETTER(fn, type, field)                                                                   \
    ACL_FUNC_VISIBILITY aclError fn(acldvppStreamDesc *streamDesc, type field)                           \
    {                                                                                                     \
        acldvppStreamDesc *s = DV_OBJ(#fn, acldvppStreamDesc, DV_MAGIC_STREAM, streamDesc, "streamDesc"); \
        if (!s) return ACL_ERROR_INVALID_PARAM;                                                           \
        s->field = field;                                                                                 \
        return ACL_SUCCESS;                                                                               \
    }
#define STREAM_GETTER(fn, type, field, dflt)                                                                   \
    ACL_FUNC_VISIBILITY type fn(const acldvppStreamDesc *streamDesc)                                          \
    {                                                                                                          \
        const acldvppStreamDesc *s = DV_OBJ(#fn, const acldvppStreamDesc, DV_MAGIC_STREAM, streamDesc, "streamDesc"); \
        return s ? s->field : dflt;                                                                            \
    }
STREAM_SETTER(acldvppSetStreamDescData, void *, data)
STREAM_SETTER(acldvppSetStreamDescSize, uint32_t, size)
STREAM_SETTER(acldvppSetStreamDescTimestamp, uint64_t, timestamp)
STREAM_SETTER(acldvppSetStreamDescRetCode, uint32_t, ret_code)
STREAM_SETTER(acldvppSetStreamDescEos, uint8_t, eos)
STREAM_GETTER(acldvppGetStreamDescData, void *, data, NULL)
STREAM_GETTER(acldvppGetStreamDescSize, uint32_t, size, 0)
STREAM_GETTER(acldvppGetStreamDescFormat, acldvppStreamFormat, format, H265_MAIN_LEVEL)
STREAM_GETTER(acldvppGetStreamDescTimestamp, uint64_t, timestamp, 0)
STREAM_GETTER(acldvppGetStreamDescRetCode, uint32_t, ret_code, 0)
STREAM_GETTER(acldvppGetStreamDescEos, uint8_t, eos, 0)

ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescFormat(acldvppStreamDesc *streamDesc, acldvppStreamFormat format)
{
    static const char api[] = "acldvppSetStreamDescFormat";
    acldvppStreamDesc *s = DV_OBJ(api, acldvppStreamDesc, DV_MAGIC_STREAM, streamDesc, "streamDesc");
    if (!s) return ACL_ERROR_INVALID_PARAM;
    if ((unsigned)format > H264_HIGH_LEVEL)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: format %d is not an acldvppStreamFormat (0..3)", api, (int)format);
    s->format = format;
    return ACL_SUCCESS;
}
