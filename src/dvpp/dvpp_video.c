/* Video decoder (VDEC) and encoder (VENC) declarations. Their channel
 * descriptions and frame configurations are real objects (an application
 * can build and inspect them); creating a channel and sending frames are not
 * supported yet and say so with ACL_ERROR_FEATURE_UNSUPPORTED. */
#include <stdlib.h>
#include <string.h>

#include "dvpp/dvpp_priv.h"

struct aclvdecChannelDesc {
    uint32_t magic;
    uint32_t channel_id;
    uint64_t thread_id;
    aclvdecCallback callback;
    acldvppStreamFormat en_type;
    acldvppPixelFormat out_format;
    uint32_t out_width, out_height, ref_frame_num, bit_depth, out_mode, csc;
};

struct aclvdecFrameConfig {
    uint32_t magic;
};

struct aclvencChannelDesc {
    uint32_t magic;
    uint64_t thread_id;
    aclvencCallback callback;
    acldvppStreamFormat en_type;
    acldvppPixelFormat pic_format;
    uint32_t pic_width, pic_height, key_frame_interval;
    void *buf_addr;
    uint32_t buf_size, rc_mode, src_rate, max_bit_rate, max_ip_prop;
};

struct aclvencFrameConfig {
    uint32_t magic;
    uint8_t force_i_frame, eos;
};

/* the checked cast of dvpp_priv.h, naming the argument */
#define VOBJ(api, type, magicv, p) DV_OBJ(api, type, magicv, p, #p)

/* ------------------------------------------------------------ VDEC descriptions */

ACL_FUNC_VISIBILITY aclvdecChannelDesc *aclvdecCreateChannelDesc(void)
{
    aclvdecChannelDesc *c = dv_calloc("aclvdecCreateChannelDesc", sizeof(*c));
    if (!c) return NULL;
    c->magic = DV_MAGIC_VDEC;
    c->en_type = H265_MAIN_LEVEL;
    c->out_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
    return c;
}

ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc *channelDesc)
{
    if (!channelDesc) return ACL_SUCCESS;
    aclvdecChannelDesc *c = VOBJ("aclvdecDestroyChannelDesc", aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    c->magic = 0;
    free(c);
    return ACL_SUCCESS;
}

#define VDEC_SET(fn, type, field)                                                              \
    ACL_FUNC_VISIBILITY aclError fn(aclvdecChannelDesc *channelDesc, type v)                  \
    {                                                                                          \
        aclvdecChannelDesc *c = VOBJ(#fn, aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);    \
        if (!c) return ACL_ERROR_INVALID_PARAM;                                                \
        c->field = v;                                                                          \
        return ACL_SUCCESS;                                                                    \
    }
#define VDEC_GET(fn, type, field, dflt)                                                              \
    ACL_FUNC_VISIBILITY type fn(const aclvdecChannelDesc *channelDesc)                              \
    {                                                                                                \
        const aclvdecChannelDesc *c = VOBJ(#fn, const aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc); \
        return c ? c->field : dflt;                                                                  \
    }
VDEC_SET(aclvdecSetChannelDescThreadId, uint64_t, thread_id)
VDEC_SET(aclvdecSetChannelDescCallback, aclvdecCallback, callback)
VDEC_SET(aclvdecSetChannelDescOutPicFormat, acldvppPixelFormat, out_format)
VDEC_SET(aclvdecSetChannelDescOutPicWidth, uint32_t, out_width)
VDEC_SET(aclvdecSetChannelDescOutPicHeight, uint32_t, out_height)
VDEC_SET(aclvdecSetChannelDescRefFrameNum, uint32_t, ref_frame_num)
VDEC_SET(aclvdecSetChannelDescBitDepth, uint32_t, bit_depth)
VDEC_SET(aclvdecSetChannelDescOutMode, uint32_t, out_mode)
VDEC_GET(aclvdecGetChannelDescChannelId, uint32_t, channel_id, 0)
VDEC_GET(aclvdecGetChannelDescThreadId, uint64_t, thread_id, 0)
VDEC_GET(aclvdecGetChannelDescCallback, aclvdecCallback, callback, NULL)
VDEC_GET(aclvdecGetChannelDescEnType, acldvppStreamFormat, en_type, H265_MAIN_LEVEL)
VDEC_GET(aclvdecGetChannelDescOutPicFormat, acldvppPixelFormat, out_format, PIXEL_FORMAT_YUV_SEMIPLANAR_420)
VDEC_GET(aclvdecGetChannelDescOutPicWidth, uint32_t, out_width, 0)
VDEC_GET(aclvdecGetChannelDescOutPicHeight, uint32_t, out_height, 0)
VDEC_GET(aclvdecGetChannelDescBitDepth, uint32_t, bit_depth, 0)
VDEC_GET(aclvdecGetChannelDescRefFrameNum, uint32_t, ref_frame_num, 0)
VDEC_GET(aclvdecGetChannelDescOutMode, uint32_t, out_mode, 0)

ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc *channelDesc, uint32_t channelId)
{
    static const char api[] = "aclvdecSetChannelDescChannelId";
    aclvdecChannelDesc *c = VOBJ(api, aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if (channelId > 15) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelId %u is not 0..15", api, channelId);
    c->channel_id = channelId;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc *channelDesc, acldvppStreamFormat enType)
{
    static const char api[] = "aclvdecSetChannelDescEnType";
    aclvdecChannelDesc *c = VOBJ(api, aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if ((unsigned)enType > H264_HIGH_LEVEL)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: enType %d is not an acldvppStreamFormat (0..3)", api, (int)enType);
    c->en_type = enType;
    return ACL_SUCCESS;
}

/* The parameter table of aclvdec{Set,Get}ChannelDescParam: where each value lives and its size. */
static int vdec_param(aclvdecChannelDesc *c, aclvdecChannelDescParamType t, void **field, size_t *len)
{
    switch (t) {
    case ACL_VDEC_CSC_MATRIX_UINT32: *field = &c->csc; *len = 4; return 1;
    case ACL_VDEC_OUT_MODE_UINT32: *field = &c->out_mode; *len = 4; return 1;
    case ACL_VDEC_THREAD_ID_UINT64: *field = &c->thread_id; *len = 8; return 1;
    case ACL_VDEC_CALLBACK_PTR: *field = &c->callback; *len = sizeof(c->callback); return 1;
    case ACL_VDEC_CHANNEL_ID_UINT32: *field = &c->channel_id; *len = 4; return 1;
    case ACL_VDEC_ENCODE_TYPE_UINT32: *field = &c->en_type; *len = 4; return 1;
    case ACL_VDEC_OUT_PIC_FORMAT_UINT32: *field = &c->out_format; *len = 4; return 1;
    case ACL_VDEC_OUT_PIC_WIDTH_UINT32: *field = &c->out_width; *len = 4; return 1;
    case ACL_VDEC_OUT_PIC_HEIGHT_UINT32: *field = &c->out_height; *len = 4; return 1;
    case ACL_VDEC_REF_FRAME_NUM_UINT32: *field = &c->ref_frame_num; *len = 4; return 1;
    case ACL_VDEC_BIT_DEPTH_UINT32: *field = &c->bit_depth; *len = 4; return 1;
    }
    return 0;
}

/* The set / get halves shared by the VDEC and VENC channel parameters: field
 * is NULL when paramType names no parameter of that kind. */
static aclError param_put(const char *api, const char *kind, int type, void *field, size_t len, size_t length,
                          const void *param)
{
    if (!field) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d is not a %s parameter", api, type, kind);
    if (!param || length != len)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d needs %zu bytes at param (length %zu, param %p)",
                       api, type, len, length, param);
    memcpy(field, param, len);
    return ACL_SUCCESS;
}

static aclError param_take(const char *api, const char *kind, int type, const void *field, size_t len,
                           size_t length, size_t *ret_size, void *param)
{
    if (!field) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d is not a %s parameter", api, type, kind);
    if (!param || !ret_size || length < len)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: paramType %d needs %zu bytes at param (length %zu)", api, type,
                       len, length);
    memcpy(param, field, len);
    *ret_size = len;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescParam(aclvdecChannelDesc *channelDesc,
                                                        aclvdecChannelDescParamType paramType, size_t length,
                                                        const void *param)
{
    static const char api[] = "aclvdecSetChannelDescParam";
    aclvdecChannelDesc *c = VOBJ(api, aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    void *field = NULL;
    size_t len = 0;
    vdec_param(c, paramType, &field, &len); /* leaves field NULL for an unknown type */
    return param_put(api, "VDEC", (int)paramType, field, len, length, param);
}

ACL_FUNC_VISIBILITY aclError aclvdecGetChannelDescParam(const aclvdecChannelDesc *channelDesc,
                                                        aclvdecChannelDescParamType paramType, size_t length,
                                                        size_t *paramRetSize, void *param)
{
    static const char api[] = "aclvdecGetChannelDescParam";
    aclvdecChannelDesc *c = VOBJ(api, aclvdecChannelDesc, DV_MAGIC_VDEC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    void *field = NULL;
    size_t len = 0;
    vdec_param(c, paramType, &field, &len); /* leaves field NULL for an unknown type */
    return param_take(api, "VDEC", (int)paramType, field, len, length, paramRetSize, param);
}

ACL_FUNC_VISIBILITY aclvdecFrameConfig *aclvdecCreateFrameConfig(void)
{
    aclvdecFrameConfig *f = dv_calloc("aclvdecCreateFrameConfig", sizeof(*f));
    if (!f) return NULL;
    f->magic = DV_MAGIC_VDECFC;
    return f;
}

ACL_FUNC_VISIBILITY aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig *vdecFrameConfig)
{
    if (!vdecFrameConfig) return ACL_SUCCESS;
    aclvdecFrameConfig *f = VOBJ("aclvdecDestroyFrameConfig", aclvdecFrameConfig, DV_MAGIC_VDECFC, vdecFrameConfig);
    if (!f) return ACL_ERROR_INVALID_PARAM;
    f->magic = 0;
    free(f);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvdecCreateChannel(aclvdecChannelDesc *channelDesc)
{
    (void)channelDesc;
    return OA_UNSUPPORTED(aclvdecCreateChannel);
}

ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannel(aclvdecChannelDesc *channelDesc)
{
    (void)channelDesc;
    return OA_UNSUPPORTED(aclvdecDestroyChannel);
}

ACL_FUNC_VISIBILITY aclError aclvdecSendFrame(aclvdecChannelDesc *channelDesc, acldvppStreamDesc *input,
                                              acldvppPicDesc *output, aclvdecFrameConfig *config, void *userData)
{
    (void)channelDesc, (void)input, (void)output, (void)config, (void)userData;
    return OA_UNSUPPORTED(aclvdecSendFrame);
}

ACL_FUNC_VISIBILITY aclError aclvdecSendSkippedFrame(aclvdecChannelDesc *channelDesc, acldvppStreamDesc *input,
                                                     aclvdecFrameConfig *config, void *userData)
{
    (void)channelDesc, (void)input, (void)config, (void)userData;
    return OA_UNSUPPORTED(aclvdecSendSkippedFrame);
}

/* ------------------------------------------------------------ VENC descriptions */

ACL_FUNC_VISIBILITY aclvencChannelDesc *aclvencCreateChannelDesc(void)
{
    aclvencChannelDesc *c = dv_calloc("aclvencCreateChannelDesc", sizeof(*c));
    if (!c) return NULL;
    c->magic = DV_MAGIC_VENC;
    c->en_type = H265_MAIN_LEVEL;
    c->pic_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
    return c;
}

ACL_FUNC_VISIBILITY aclError aclvencDestroyChannelDesc(aclvencChannelDesc *channelDesc)
{
    if (!channelDesc) return ACL_SUCCESS;
    aclvencChannelDesc *c = VOBJ("aclvencDestroyChannelDesc", aclvencChannelDesc, DV_MAGIC_VENC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    c->magic = 0;
    free(c);
    return ACL_SUCCESS;
}

#define VENC_SET(fn, type, field)                                                           \
    ACL_FUNC_VISIBILITY aclError fn(aclvencChannelDesc *channelDesc, type v)               \
    {                                                                                       \
        aclvencChannelDesc *c = VOBJ(#fn, aclvencChannelDesc, DV_MAGIC_VENC, channelDesc); \
        if (!c) return ACL_ERROR_INVALID_PARAM;                                             \
        c->field = v;                                                                       \
        return ACL_SUCCESS;                                                                 \
    }
#define VENC_GET(fn, type, field, dflt)                                                              \
    ACL_FUNC_VISIBILITY type fn(const aclvencChannelDesc *channelDesc)                              \
    {                                                                                                \
        const aclvencChannelDesc *c = VOBJ(#fn, const aclvencChannelDesc, DV_MAGIC_VENC, channelDesc); \
        return c ? c->field : dflt;                                                                  \
    }
VENC_SET(aclvencSetChannelDescThreadId, uint64_t, thread_id)
VENC_SET(aclvencSetChannelDescCallback, aclvencCallback, callback)
VENC_SET(aclvencSetChannelDescPicFormat, acldvppPixelFormat, pic_format)
VENC_SET(aclvencSetChannelDescPicWidth, uint32_t, pic_width)
VENC_SET(aclvencSetChannelDescPicHeight, uint32_t, pic_height)
VENC_SET(aclvencSetChannelDescKeyFrameInterval, uint32_t, key_frame_interval)
VENC_SET(aclvencSetChannelDescBufAddr, void *, buf_addr)
VENC_SET(aclvencSetChannelDescBufSize, uint32_t, buf_size)
VENC_SET(aclvencSetChannelDescSrcRate, uint32_t, src_rate)
VENC_SET(aclvencSetChannelDescMaxBitRate, uint32_t, max_bit_rate)
VENC_GET(aclvencGetChannelDescBufAddr, void *, buf_addr, NULL)
VENC_GET(aclvencGetChannelDescBufSize, uint32_t, buf_size, 0)
VENC_GET(aclvencGetChannelDescThreadId, uint64_t, thread_id, 0)
VENC_GET(aclvencGetChannelDescCallback, aclvencCallback, callback, NULL)
VENC_GET(aclvencGetChannelDescEnType, acldvppStreamFormat, en_type, H265_MAIN_LEVEL)
VENC_GET(aclvencGetChannelDescPicFormat, acldvppPixelFormat, pic_format, PIXEL_FORMAT_YUV_SEMIPLANAR_420)
VENC_GET(aclvencGetChannelDescPicWidth, uint32_t, pic_width, 0)
VENC_GET(aclvencGetChannelDescPicHeight, uint32_t, pic_height, 0)
VENC_GET(aclvencGetChannelDescKeyFrameInterval, uint32_t, key_frame_interval, 0)
VENC_GET(aclvencGetChannelDescRcMode, uint32_t, rc_mode, 0)
VENC_GET(aclvencGetChannelDescSrcRate, uint32_t, src_rate, 0)
VENC_GET(aclvencGetChannelDescMaxBitRate, uint32_t, max_bit_rate, 0)

/* No channel is ever created, so every description reports channel 0. */
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescChannelId(const aclvencChannelDesc *channelDesc)
{
    const aclvencChannelDesc *c = VOBJ("aclvencGetChannelDescChannelId", const aclvencChannelDesc, DV_MAGIC_VENC,
                                       channelDesc);
    (void)c;
    return 0;
}

ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescEnType(aclvencChannelDesc *channelDesc, acldvppStreamFormat enType)
{
    static const char api[] = "aclvencSetChannelDescEnType";
    aclvencChannelDesc *c = VOBJ(api, aclvencChannelDesc, DV_MAGIC_VENC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if ((unsigned)enType > H264_HIGH_LEVEL)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: enType %d is not an acldvppStreamFormat (0..3)", api, (int)enType);
    c->en_type = enType;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescRcMode(aclvencChannelDesc *channelDesc, uint32_t rcMode)
{
    static const char api[] = "aclvencSetChannelDescRcMode";
    aclvencChannelDesc *c = VOBJ(api, aclvencChannelDesc, DV_MAGIC_VENC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    if (rcMode > 2) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: rcMode %u is not 0, 1 (VBR) or 2 (CBR)", api, rcMode);
    c->rc_mode = rcMode;
    return ACL_SUCCESS;
}

static int venc_param(aclvencChannelDesc *c, aclvencChannelDescParamType t, void **field, size_t *len)
{
    switch (t) {
    case ACL_VENC_THREAD_ID_UINT64: *field = &c->thread_id; *len = 8; return 1;
    case ACL_VENC_CALLBACK_PTR: *field = &c->callback; *len = sizeof(c->callback); return 1;
    case ACL_VENC_PIXEL_FORMAT_UINT32: *field = &c->pic_format; *len = 4; return 1;
    case ACL_VENC_ENCODE_TYPE_UINT32: *field = &c->en_type; *len = 4; return 1;
    case ACL_VENC_PIC_WIDTH_UINT32: *field = &c->pic_width; *len = 4; return 1;
    case ACL_VENC_PIC_HEIGHT_UINT32: *field = &c->pic_height; *len = 4; return 1;
    case ACL_VENC_KEY_FRAME_INTERVAL_UINT32: *field = &c->key_frame_interval; *len = 4; return 1;
    case ACL_VENC_BUF_ADDR_PTR: *field = &c->buf_addr; *len = sizeof(void *); return 1;
    case ACL_VENC_BUF_SIZE_UINT32: *field = &c->buf_size; *len = 4; return 1;
    case ACL_VENC_RC_MODE_UINT32: *field = &c->rc_mode; *len = 4; return 1;
    case ACL_VENC_SRC_RATE_UINT32: *field = &c->src_rate; *len = 4; return 1;
    case ACL_VENC_MAX_BITRATE_UINT32: *field = &c->max_bit_rate; *len = 4; return 1;
    case ACL_VENC_MAX_IP_PROP_UINT32: *field = &c->max_ip_prop; *len = 4; return 1;
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescParam(aclvencChannelDesc *channelDesc,
                                                        aclvencChannelDescParamType paramType, size_t length,
                                                        const void *param)
{
    static const char api[] = "aclvencSetChannelDescParam";
    aclvencChannelDesc *c = VOBJ(api, aclvencChannelDesc, DV_MAGIC_VENC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    void *field = NULL;
    size_t len = 0;
    venc_param(c, paramType, &field, &len); /* leaves field NULL for an unknown type */
    return param_put(api, "VENC", (int)paramType, field, len, length, param);
}

ACL_FUNC_VISIBILITY aclError aclvencGetChannelDescParam(const aclvencChannelDesc *channelDesc,
                                                        aclvencChannelDescParamType paramType, size_t length,
                                                        size_t *paramRetSize, void *param)
{
    static const char api[] = "aclvencGetChannelDescParam";
    aclvencChannelDesc *c = VOBJ(api, aclvencChannelDesc, DV_MAGIC_VENC, channelDesc);
    if (!c) return ACL_ERROR_INVALID_PARAM;
    void *field = NULL;
    size_t len = 0;
    venc_param(c, paramType, &field, &len); /* leaves field NULL for an unknown type */
    return param_take(api, "VENC", (int)paramType, field, len, length, paramRetSize, param);
}

ACL_FUNC_VISIBILITY aclvencFrameConfig *aclvencCreateFrameConfig(void)
{
    aclvencFrameConfig *f = dv_calloc("aclvencCreateFrameConfig", sizeof(*f));
    if (!f) return NULL;
    f->magic = DV_MAGIC_VENCFC;
    return f;
}

ACL_FUNC_VISIBILITY aclError aclvencDestroyFrameConfig(aclvencFrameConfig *config)
{
    if (!config) return ACL_SUCCESS;
    aclvencFrameConfig *f = VOBJ("aclvencDestroyFrameConfig", aclvencFrameConfig, DV_MAGIC_VENCFC, config);
    if (!f) return ACL_ERROR_INVALID_PARAM;
    f->magic = 0;
    free(f);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvencSetFrameConfigForceIFrame(aclvencFrameConfig *config, uint8_t forceIFrame)
{
    static const char api[] = "aclvencSetFrameConfigForceIFrame";
    aclvencFrameConfig *f = VOBJ(api, aclvencFrameConfig, DV_MAGIC_VENCFC, config);
    if (!f) return ACL_ERROR_INVALID_PARAM;
    if (forceIFrame > 1) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: forceIFrame %u is not 0 or 1", api, forceIFrame);
    f->force_i_frame = forceIFrame;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclvencSetFrameConfigEos(aclvencFrameConfig *config, uint8_t eos)
{
    static const char api[] = "aclvencSetFrameConfigEos";
    aclvencFrameConfig *f = VOBJ(api, aclvencFrameConfig, DV_MAGIC_VENCFC, config);
    if (!f) return ACL_ERROR_INVALID_PARAM;
    if (eos > 1) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: eos %u is not 0 or 1", api, eos);
    f->eos = eos;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY uint8_t aclvencGetFrameConfigForceIFrame(const aclvencFrameConfig *config)
{
    const aclvencFrameConfig *f = VOBJ("aclvencGetFrameConfigForceIFrame", const aclvencFrameConfig, DV_MAGIC_VENCFC,
                                       config);
    return f ? f->force_i_frame : 0;
}

ACL_FUNC_VISIBILITY uint8_t aclvencGetFrameConfigEos(const aclvencFrameConfig *config)
{
    const aclvencFrameConfig *f = VOBJ("aclvencGetFrameConfigEos", const aclvencFrameConfig, DV_MAGIC_VENCFC, config);
    return f ? f->eos : 0;
}

ACL_FUNC_VISIBILITY aclError aclvencCreateChannel(aclvencChannelDesc *channelDesc)
{
    (void)channelDesc;
    return OA_UNSUPPORTED(aclvencCreateChannel);
}

ACL_FUNC_VISIBILITY aclError aclvencDestroyChannel(aclvencChannelDesc *channelDesc)
{
    (void)channelDesc;
    return OA_UNSUPPORTED(aclvencDestroyChannel);
}

ACL_FUNC_VISIBILITY aclError aclvencSendFrame(aclvencChannelDesc *channelDesc, acldvppPicDesc *input, void *reserve,
                                              aclvencFrameConfig *config, void *userdata)
{
    (void)channelDesc, (void)input, (void)reserve, (void)config, (void)userdata;
    return OA_UNSUPPORTED(aclvencSendFrame);
}
