/* acl.media.*: pyACL's binding of the DVPP v1 media API (acl/ops/acl_dvpp.h,
 * libacl_dvpp.so): DVPP memory, channels, picture descriptions, ROI /
 * resize / JPEG-encode / border configurations, JPEG and PNG decode, JPEG
 * encode, the VPC operations with their batch forms, and the VDEC / VENC
 * calls. Conventions are pyACL's (docs/python.md, "acl.media"): handles and
 * addresses are ints, host image bytes are passed by address, out-values
 * come back as a tuple with ret last, every call returns the C code.
 * Built only when the acl_dvpp target exists (python/part.cmake defines
 * OPENACL_PY_MEDIA); otherwise acl.media is an empty module. */
#include "pyacl.h"

#ifdef OPENACL_PY_MEDIA

#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"

#include <string.h>

#define FN(name) static PyObject *media_##name(PyObject *self, PyObject *args)
#define Q(name) "acl.media." #name
#define PTR(v) ((void *)(uintptr_t)(v))

/* pyACL caps a batch call at 256 roi-count entries of at most 256 each. */
#define MEDIA_MAX_ROI 256

/* ---- generic shapes ---- */

/* handle = f() */
#define CREATE0(name, call)                \
    FN(name)                               \
    {                                      \
        PA_PARSE(args, Q(name), "");       \
        return pa_ptr(call);               \
    }

/* ret = f(handle); GIL released (destroying a channel waits for its work) */
#define RET_K(name, fn, type)                                  \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        PA_PARSE(args, Q(name), "k", &a);                      \
        aclError ret;                                          \
        PA_NOGIL(ret = fn((type *)PTR(a)));                    \
        return PyLong_FromLong(ret);                           \
    }

/* ret = f(handle, uint32) */
#define SET_U32(name, fn, type)                                \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        unsigned int v;                                        \
        PA_PARSE(args, Q(name), "kI", &a, &v);                 \
        return PyLong_FromLong(fn((type *)PTR(a), (uint32_t)v)); \
    }

/* ret = f(handle, enum) */
#define SET_ENUM(name, fn, type, etype)                        \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        int v;                                                 \
        PA_PARSE(args, Q(name), "ki", &a, &v);                 \
        return PyLong_FromLong(fn((type *)PTR(a), (etype)v));  \
    }

/* ret = f(handle, uint64) */
#define SET_U64(name, fn, type)                                \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        unsigned long long v;                                  \
        PA_PARSE(args, Q(name), "kK", &a, &v);                 \
        return PyLong_FromLong(fn((type *)PTR(a), (uint64_t)v)); \
    }

/* ret = f(handle, uint8) */
#define SET_U8(name, fn, type)                                 \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        unsigned char v;                                       \
        PA_PARSE(args, Q(name), "kB", &a, &v);                 \
        return PyLong_FromLong(fn((type *)PTR(a), (uint8_t)v)); \
    }

/* ret = f(handle, address) */
#define SET_PTR(name, fn, type)                                \
    FN(name)                                                   \
    {                                                          \
        unsigned long a, v;                                    \
        PA_PARSE(args, Q(name), "kk", &a, &v);                 \
        return PyLong_FromLong(fn((type *)PTR(a), PTR(v)));    \
    }

/* value = f(handle): unsigned getters (uint8/uint32/uint64) */
#define GET_UNSIGNED(name, fn, type)                                          \
    FN(name)                                                                  \
    {                                                                         \
        unsigned long a;                                                      \
        PA_PARSE(args, Q(name), "k", &a);                                     \
        return PyLong_FromUnsignedLongLong((unsigned long long)fn((type *)PTR(a))); \
    }

/* value = f(handle): enum getters */
#define GET_ENUM(name, fn, type)                               \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        PA_PARSE(args, Q(name), "k", &a);                      \
        return PyLong_FromLong((long)fn((type *)PTR(a)));      \
    }

/* address = f(handle) */
#define GET_PTR(name, fn, type)                                \
    FN(name)                                                   \
    {                                                          \
        unsigned long a;                                       \
        PA_PARSE(args, Q(name), "k", &a);                      \
        return pa_ptr(fn((type *)PTR(a)));                     \
    }

/* ---- memory ---- */

/* dev_ptr, ret = dvpp_malloc(size) */
FN(dvpp_malloc)
{
    unsigned long size;
    PA_PARSE(args, Q(dvpp_malloc), "k", &size);
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppMalloc(&p, (size_t)size));
    return pa_ptr_ret(p, ret);
}

RET_K(dvpp_free, acldvppFree, void)

/* ---- channels ---- */

CREATE0(dvpp_create_channel_desc, acldvppCreateChannelDesc())
RET_K(dvpp_destroy_channel_desc, acldvppDestroyChannelDesc, acldvppChannelDesc)
RET_K(dvpp_create_channel, acldvppCreateChannel, acldvppChannelDesc)
RET_K(dvpp_destroy_channel, acldvppDestroyChannel, acldvppChannelDesc)
GET_UNSIGNED(dvpp_get_channel_desc_channel_id, acldvppGetChannelDescChannelId, const acldvppChannelDesc)
SET_U32(dvpp_set_channel_desc_mode, acldvppSetChannelDescMode, acldvppChannelDesc)

/* The width of a channel parameter, as its name says (..._UINT32, ..._UINT64,
 * ..._ENUM). An unknown type keeps 8 bytes so the library judges it. */
static size_t dvpp_param_len(int type)
{
    switch (type) {
    case ACL_DVPP_CHANNEL_ID_UINT64:
        return sizeof(uint64_t);
    case ACL_DVPP_JPEGD_PRECISION_MODE_ENUM:
        return sizeof(acldvppJpegdPrecisionMode);
    case ACL_DVPP_CSC_MATRIX_UINT32:
    case ACL_DVPP_MODE_UINT32:
    case ACL_DVPP_CHANNEL_HEIGHT_UINT32:
    case ACL_DVPP_CHANNEL_WIDTH_UINT32:
        return sizeof(uint32_t);
    default:
        return sizeof(uint64_t);
    }
}

/* The setters and getters of channel parameters, one shape for the three
 * kinds of channel: the value travels as a uint32 or a uint64 (pointers
 * included) by the width its type's name gives. */
typedef aclError (*param_set_fn)(void *desc, int type, size_t len, const void *param);
typedef aclError (*param_get_fn)(const void *desc, int type, size_t len, size_t *got, void *param);

static aclError dvpp_param_set(void *d, int t, size_t n, const void *p)
{
    return acldvppSetChannelDescParam(d, (acldvppChannelDescParamType)t, n, p);
}
static aclError dvpp_param_get(const void *d, int t, size_t n, size_t *g, void *p)
{
    return acldvppGetChannelDescParam(d, (acldvppChannelDescParamType)t, n, g, p);
}
static aclError vdec_param_set(void *d, int t, size_t n, const void *p)
{
    return aclvdecSetChannelDescParam(d, (aclvdecChannelDescParamType)t, n, p);
}
static aclError vdec_param_get(const void *d, int t, size_t n, size_t *g, void *p)
{
    return aclvdecGetChannelDescParam(d, (aclvdecChannelDescParamType)t, n, g, p);
}
static aclError venc_param_set(void *d, int t, size_t n, const void *p)
{
    return aclvencSetChannelDescParam(d, (aclvencChannelDescParamType)t, n, p);
}
static aclError venc_param_get(const void *d, int t, size_t n, size_t *g, void *p)
{
    return aclvencGetChannelDescParam(d, (aclvencChannelDescParamType)t, n, g, p);
}

static size_t vdec_param_len(int type)
{
    return type == ACL_VDEC_THREAD_ID_UINT64 || type == ACL_VDEC_CALLBACK_PTR ? sizeof(uint64_t)
                                                                               : sizeof(uint32_t);
}

static size_t venc_param_len(int type)
{
    return type == ACL_VENC_THREAD_ID_UINT64 || type == ACL_VENC_CALLBACK_PTR || type == ACL_VENC_BUF_ADDR_PTR
               ? sizeof(uint64_t)
               : sizeof(uint32_t);
}

/* desc, ret = *_set_channel_desc_param(desc, param_type, value): pyACL
 * hands the desc back with the code. */
static PyObject *param_set(PyObject *args, const char *q, size_t (*len_of)(int), param_set_fn set)
{
    unsigned long desc;
    int type;
    unsigned long long value;
    PA_PARSE(args, q, "kiK", &desc, &type, &value);
    size_t len = len_of(type);
    uint32_t v32 = (uint32_t)value;
    uint64_t v64 = (uint64_t)value;
    const void *param = len == sizeof(uint32_t) ? (const void *)&v32 : (const void *)&v64;
    aclError ret = set(PTR(desc), type, len, param);
    return pa_u64_ret(desc, ret);
}

/* ret_size, value, ret = *_get_channel_desc_param(desc, param_type) */
static PyObject *param_get(PyObject *args, const char *q, size_t (*len_of)(int), param_get_fn get)
{
    unsigned long desc;
    int type;
    PA_PARSE(args, q, "ki", &desc, &type);
    size_t len = len_of(type);
    union {
        uint32_t u32;
        uint64_t u64;
    } v;
    memset(&v, 0, sizeof(v));
    size_t got = 0;
    aclError ret = get(PTR(desc), type, len, &got, &v);
    unsigned long long value = len == sizeof(uint32_t) ? v.u32 : v.u64;
    return Py_BuildValue("(KKi)", (unsigned long long)got, value, (int)ret);
}

#define PARAM_FNS(prefix, kind)                                                                    \
    FN(prefix##_set_channel_desc_param)                                                            \
    {                                                                                              \
        return param_set(args, Q(prefix##_set_channel_desc_param), kind##_param_len, kind##_param_set); \
    }                                                                                              \
    FN(prefix##_get_channel_desc_param)                                                            \
    {                                                                                              \
        return param_get(args, Q(prefix##_get_channel_desc_param), kind##_param_len, kind##_param_get); \
    }

PARAM_FNS(dvpp, dvpp)

/* ---- picture descriptions ---- */

CREATE0(dvpp_create_pic_desc, acldvppCreatePicDesc())
RET_K(dvpp_destroy_pic_desc, acldvppDestroyPicDesc, acldvppPicDesc)
SET_PTR(dvpp_set_pic_desc_data, acldvppSetPicDescData, acldvppPicDesc)
SET_U32(dvpp_set_pic_desc_size, acldvppSetPicDescSize, acldvppPicDesc)
SET_ENUM(dvpp_set_pic_desc_format, acldvppSetPicDescFormat, acldvppPicDesc, acldvppPixelFormat)
SET_U32(dvpp_set_pic_desc_width, acldvppSetPicDescWidth, acldvppPicDesc)
SET_U32(dvpp_set_pic_desc_height, acldvppSetPicDescHeight, acldvppPicDesc)
SET_U32(dvpp_set_pic_desc_width_stride, acldvppSetPicDescWidthStride, acldvppPicDesc)
SET_U32(dvpp_set_pic_desc_height_stride, acldvppSetPicDescHeightStride, acldvppPicDesc)
SET_U32(dvpp_set_pic_desc_ret_code, acldvppSetPicDescRetCode, acldvppPicDesc)
GET_PTR(dvpp_get_pic_desc_data, acldvppGetPicDescData, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_size, acldvppGetPicDescSize, const acldvppPicDesc)
GET_ENUM(dvpp_get_pic_desc_format, acldvppGetPicDescFormat, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_width, acldvppGetPicDescWidth, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_height, acldvppGetPicDescHeight, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_width_stride, acldvppGetPicDescWidthStride, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_height_stride, acldvppGetPicDescHeightStride, const acldvppPicDesc)
GET_UNSIGNED(dvpp_get_pic_desc_ret_code, acldvppGetPicDescRetCode, const acldvppPicDesc)

/* batch = dvpp_create_batch_pic_desc(batch_size) */
FN(dvpp_create_batch_pic_desc)
{
    unsigned int n;
    PA_PARSE(args, Q(dvpp_create_batch_pic_desc), "I", &n);
    return pa_ptr(acldvppCreateBatchPicDesc((uint32_t)n));
}

RET_K(dvpp_destroy_batch_pic_desc, acldvppDestroyBatchPicDesc, acldvppBatchPicDesc)

/* pic = dvpp_get_pic_desc(batch, index): a view owned by the batch */
FN(dvpp_get_pic_desc)
{
    unsigned long b;
    unsigned int i;
    PA_PARSE(args, Q(dvpp_get_pic_desc), "kI", &b, &i);
    return pa_ptr(acldvppGetPicDesc((acldvppBatchPicDesc *)PTR(b), (uint32_t)i));
}

/* ---- ROI, resize, JPEG-encode and border configurations ---- */

FN(dvpp_create_roi_config)
{
    unsigned int l, r, t, b;
    PA_PARSE(args, Q(dvpp_create_roi_config), "IIII", &l, &r, &t, &b);
    return pa_ptr(acldvppCreateRoiConfig(l, r, t, b));
}

RET_K(dvpp_destroy_roi_config, acldvppDestroyRoiConfig, acldvppRoiConfig)

FN(dvpp_set_roi_config)
{
    unsigned long cfg;
    unsigned int l, r, t, b;
    PA_PARSE(args, Q(dvpp_set_roi_config), "kIIII", &cfg, &l, &r, &t, &b);
    return PyLong_FromLong(acldvppSetRoiConfig((acldvppRoiConfig *)PTR(cfg), l, r, t, b));
}

SET_U32(dvpp_set_roi_config_left, acldvppSetRoiConfigLeft, acldvppRoiConfig)
SET_U32(dvpp_set_roi_config_right, acldvppSetRoiConfigRight, acldvppRoiConfig)
SET_U32(dvpp_set_roi_config_top, acldvppSetRoiConfigTop, acldvppRoiConfig)
SET_U32(dvpp_set_roi_config_bottom, acldvppSetRoiConfigBottom, acldvppRoiConfig)

CREATE0(dvpp_create_resize_config, acldvppCreateResizeConfig())
RET_K(dvpp_destroy_resize_config, acldvppDestroyResizeConfig, acldvppResizeConfig)
SET_U32(dvpp_set_resize_config_interpolation, acldvppSetResizeConfigInterpolation, acldvppResizeConfig)
GET_UNSIGNED(dvpp_get_resize_config_interpolation, acldvppGetResizeConfigInterpolation, const acldvppResizeConfig)

CREATE0(dvpp_create_jpege_config, acldvppCreateJpegeConfig())
RET_K(dvpp_destroy_jpege_config, acldvppDestroyJpegeConfig, acldvppJpegeConfig)
SET_U32(dvpp_set_jpege_config_level, acldvppSetJpegeConfigLevel, acldvppJpegeConfig)
GET_UNSIGNED(dvpp_get_jpege_config_level, acldvppGetJpegeConfigLevel, const acldvppJpegeConfig)

CREATE0(dvpp_create_border_config, acldvppCreateBorderConfig())
RET_K(dvpp_destroy_border_config, acldvppDestroyBorderConfig, acldvppBorderConfig)

FN(dvpp_set_border_config_value)
{
    unsigned long cfg;
    unsigned int index;
    double value;
    PA_PARSE(args, Q(dvpp_set_border_config_value), "kId", &cfg, &index, &value);
    return PyLong_FromLong(acldvppSetBorderConfigValue((acldvppBorderConfig *)PTR(cfg), index, value));
}

FN(dvpp_get_border_config_value)
{
    unsigned long cfg;
    unsigned int index;
    PA_PARSE(args, Q(dvpp_get_border_config_value), "kI", &cfg, &index);
    return PyFloat_FromDouble(acldvppGetBorderConfigValue((const acldvppBorderConfig *)PTR(cfg), index));
}

SET_ENUM(dvpp_set_border_config_border_type, acldvppSetBorderConfigBorderType, acldvppBorderConfig,
         acldvppBorderType)
SET_U32(dvpp_set_border_config_top, acldvppSetBorderConfigTop, acldvppBorderConfig)
SET_U32(dvpp_set_border_config_bottom, acldvppSetBorderConfigBottom, acldvppBorderConfig)
SET_U32(dvpp_set_border_config_left, acldvppSetBorderConfigLeft, acldvppBorderConfig)
SET_U32(dvpp_set_border_config_right, acldvppSetBorderConfigRight, acldvppBorderConfig)
GET_ENUM(dvpp_get_border_config_border_type, acldvppGetBorderConfigBorderType, const acldvppBorderConfig)
GET_UNSIGNED(dvpp_get_border_config_top, acldvppGetBorderConfigTop, const acldvppBorderConfig)
GET_UNSIGNED(dvpp_get_border_config_bottom, acldvppGetBorderConfigBottom, const acldvppBorderConfig)
GET_UNSIGNED(dvpp_get_border_config_left, acldvppGetBorderConfigLeft, const acldvppBorderConfig)
GET_UNSIGNED(dvpp_get_border_config_right, acldvppGetBorderConfigRight, const acldvppBorderConfig)

/* ---- LUT maps and histograms ---- */

CREATE0(dvpp_create_lut_map, acldvppCreateLutMap())
RET_K(dvpp_destroy_lut_map, acldvppDestroyLutMap, acldvppLutMap)
GET_UNSIGNED(dvpp_get_lut_map_dims, acldvppGetLutMapDims, const acldvppLutMap)

/* data_ptr, length, ret = dvpp_get_lut_map_data(lut, dim) */
FN(dvpp_get_lut_map_data)
{
    unsigned long lut;
    unsigned int dim;
    PA_PARSE(args, Q(dvpp_get_lut_map_data), "kI", &lut, &dim);
    uint8_t *data = NULL;
    uint32_t len = 0;
    aclError ret = acldvppGetLutMapData((const acldvppLutMap *)PTR(lut), dim, &data, &len);
    return Py_BuildValue("(KIi)", (unsigned long long)(uintptr_t)data, (unsigned int)len, (int)ret);
}

CREATE0(dvpp_create_hist, acldvppCreateHist())
RET_K(dvpp_destroy_hist, acldvppDestroyHist, acldvppHist)
GET_UNSIGNED(dvpp_get_hist_dims, acldvppGetHistDims, acldvppHist)
GET_UNSIGNED(dvpp_get_hist_ret_code, acldvppGetHistRetCode, acldvppHist)
RET_K(dvpp_clear_hist, acldvppClearHist, acldvppHist)

/* data_ptr, length, ret = dvpp_get_hist_data(hist, dim) */
FN(dvpp_get_hist_data)
{
    unsigned long hist;
    unsigned int dim;
    PA_PARSE(args, Q(dvpp_get_hist_data), "kI", &hist, &dim);
    uint32_t *data = NULL;
    uint16_t len = 0;
    aclError ret = acldvppGetHistData((acldvppHist *)PTR(hist), dim, &data, &len);
    return Py_BuildValue("(KIi)", (unsigned long long)(uintptr_t)data, (unsigned int)len, (int)ret);
}

/* ---- JPEG / PNG: host-side queries (data is a host address) ---- */

/* width, height, components, ret = dvpp_jpeg_get_image_info(data, size) */
FN(dvpp_jpeg_get_image_info)
{
    unsigned long data;
    unsigned int size;
    PA_PARSE(args, Q(dvpp_jpeg_get_image_info), "kI", &data, &size);
    uint32_t w = 0, h = 0;
    int32_t comps = 0;
    aclError ret;
    PA_NOGIL(ret = acldvppJpegGetImageInfo(PTR(data), size, &w, &h, &comps));
    return Py_BuildValue("(IIii)", (unsigned int)w, (unsigned int)h, (int)comps, (int)ret);
}

/* width, height, components, jpeg_format, ret = dvpp_jpeg_get_image_info_v2(data, size) */
FN(dvpp_jpeg_get_image_info_v2)
{
    unsigned long data;
    unsigned int size;
    PA_PARSE(args, Q(dvpp_jpeg_get_image_info_v2), "kI", &data, &size);
    uint32_t w = 0, h = 0;
    int32_t comps = 0;
    acldvppJpegFormat fmt = ACL_JPEG_CSS_UNKNOWN;
    aclError ret;
    PA_NOGIL(ret = acldvppJpegGetImageInfoV2(PTR(data), size, &w, &h, &comps, &fmt));
    return Py_BuildValue("(IIiii)", (unsigned int)w, (unsigned int)h, (int)comps, (int)fmt, (int)ret);
}

/* dec_size, ret = dvpp_jpeg_predict_dec_size(data, size, output_pixel_format) */
FN(dvpp_jpeg_predict_dec_size)
{
    unsigned long data;
    unsigned int size;
    int fmt;
    PA_PARSE(args, Q(dvpp_jpeg_predict_dec_size), "kIi", &data, &size, &fmt);
    uint32_t dec = 0;
    aclError ret;
    PA_NOGIL(ret = acldvppJpegPredictDecSize(PTR(data), size, (acldvppPixelFormat)fmt, &dec));
    return Py_BuildValue("(Ii)", (unsigned int)dec, (int)ret);
}

/* enc_size, ret = dvpp_jpeg_predict_enc_size(input_pic_desc, jpege_config) */
FN(dvpp_jpeg_predict_enc_size)
{
    unsigned long pic, cfg;
    PA_PARSE(args, Q(dvpp_jpeg_predict_enc_size), "kk", &pic, &cfg);
    uint32_t enc = 0;
    aclError ret = acldvppJpegPredictEncSize((const acldvppPicDesc *)PTR(pic), (const acldvppJpegeConfig *)PTR(cfg),
                                             &enc);
    return Py_BuildValue("(Ii)", (unsigned int)enc, (int)ret);
}

/* width, height, components, ret = dvpp_png_get_image_info(data, size) */
FN(dvpp_png_get_image_info)
{
    unsigned long data;
    unsigned int size;
    PA_PARSE(args, Q(dvpp_png_get_image_info), "kI", &data, &size);
    uint32_t w = 0, h = 0;
    int32_t comps = 0;
    aclError ret;
    PA_NOGIL(ret = acldvppPngGetImageInfo(PTR(data), size, &w, &h, &comps));
    return Py_BuildValue("(IIii)", (unsigned int)w, (unsigned int)h, (int)comps, (int)ret);
}

/* dec_size, ret = dvpp_png_predict_dec_size(data, size, output_pixel_format) */
FN(dvpp_png_predict_dec_size)
{
    unsigned long data;
    unsigned int size;
    int fmt;
    PA_PARSE(args, Q(dvpp_png_predict_dec_size), "kIi", &data, &size, &fmt);
    uint32_t dec = 0;
    aclError ret;
    PA_NOGIL(ret = acldvppPngPredictDecSize(PTR(data), size, (acldvppPixelFormat)fmt, &dec));
    return Py_BuildValue("(Ii)", (unsigned int)dec, (int)ret);
}

/* ---- codec tasks (asynchronous on a stream) ---- */

/* ret = dvpp_jpeg_decode_async(channel_desc, data, size, output_desc, stream) */
FN(dvpp_jpeg_decode_async)
{
    unsigned long ch, data, out, stream;
    unsigned int size;
    PA_PARSE(args, Q(dvpp_jpeg_decode_async), "kkIkk", &ch, &data, &size, &out, &stream);
    aclError ret;
    PA_NOGIL(ret = acldvppJpegDecodeAsync((acldvppChannelDesc *)PTR(ch), PTR(data), size,
                                          (acldvppPicDesc *)PTR(out), PTR(stream)));
    return PyLong_FromLong(ret);
}

/* ret = dvpp_png_decode_async(channel_desc, data, size, output_desc, stream) */
FN(dvpp_png_decode_async)
{
    unsigned long ch, data, out, stream;
    unsigned int size;
    PA_PARSE(args, Q(dvpp_png_decode_async), "kkIkk", &ch, &data, &size, &out, &stream);
    aclError ret;
    PA_NOGIL(ret = acldvppPngDecodeAsync((acldvppChannelDesc *)PTR(ch), PTR(data), size, (acldvppPicDesc *)PTR(out),
                                         PTR(stream)));
    return PyLong_FromLong(ret);
}

/* ret = dvpp_jpeg_encode_async(channel_desc, input_desc, data, size_ptr,
 * jpege_config, stream): size_ptr is the address of a uint32 holding the
 * output capacity; it holds the encoded size once the stream has run the
 * task, so it must stay alive until then (a numpy array, as in pyACL). */
FN(dvpp_jpeg_encode_async)
{
    unsigned long ch, in, data, size_ptr, cfg, stream;
    PA_PARSE(args, Q(dvpp_jpeg_encode_async), "kkkkkk", &ch, &in, &data, &size_ptr, &cfg, &stream);
    aclError ret;
    PA_NOGIL(ret = acldvppJpegEncodeAsync((acldvppChannelDesc *)PTR(ch), (acldvppPicDesc *)PTR(in), PTR(data),
                                          (uint32_t *)PTR(size_ptr), (acldvppJpegeConfig *)PTR(cfg), PTR(stream)));
    return PyLong_FromLong(ret);
}

/* ---- VPC: one picture ---- */

#define CH(v) ((acldvppChannelDesc *)PTR(v))
#define PIC(v) ((acldvppPicDesc *)PTR(v))
#define ROI(v) ((acldvppRoiConfig *)PTR(v))
#define RSZ(v) ((acldvppResizeConfig *)PTR(v))

FN(dvpp_vpc_resize_async)
{
    unsigned long ch, in, out, rc, s;
    PA_PARSE(args, Q(dvpp_vpc_resize_async), "kkkkk", &ch, &in, &out, &rc, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcResizeAsync(CH(ch), PIC(in), PIC(out), RSZ(rc), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_crop_async)
{
    unsigned long ch, in, out, crop, s;
    PA_PARSE(args, Q(dvpp_vpc_crop_async), "kkkkk", &ch, &in, &out, &crop, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcCropAsync(CH(ch), PIC(in), PIC(out), ROI(crop), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_crop_resize_async)
{
    unsigned long ch, in, out, crop, rc, s;
    PA_PARSE(args, Q(dvpp_vpc_crop_resize_async), "kkkkkk", &ch, &in, &out, &crop, &rc, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcCropResizeAsync(CH(ch), PIC(in), PIC(out), ROI(crop), RSZ(rc), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_crop_and_paste_async)
{
    unsigned long ch, in, out, crop, paste, s;
    PA_PARSE(args, Q(dvpp_vpc_crop_and_paste_async), "kkkkkk", &ch, &in, &out, &crop, &paste, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcCropAndPasteAsync(CH(ch), PIC(in), PIC(out), ROI(crop), ROI(paste), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_crop_resize_paste_async)
{
    unsigned long ch, in, out, crop, paste, rc, s;
    PA_PARSE(args, Q(dvpp_vpc_crop_resize_paste_async), "kkkkkkk", &ch, &in, &out, &crop, &paste, &rc, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcCropResizePasteAsync(CH(ch), PIC(in), PIC(out), ROI(crop), ROI(paste), RSZ(rc), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_convert_color_async)
{
    unsigned long ch, in, out, s;
    PA_PARSE(args, Q(dvpp_vpc_convert_color_async), "kkkk", &ch, &in, &out, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcConvertColorAsync(CH(ch), PIC(in), PIC(out), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_pyr_down_async)
{
    unsigned long ch, in, out, reserve, s;
    PA_PARSE(args, Q(dvpp_vpc_pyr_down_async), "kkkkk", &ch, &in, &out, &reserve, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcPyrDownAsync(CH(ch), PIC(in), PIC(out), PTR(reserve), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_equalize_hist_async)
{
    unsigned long ch, in, out, lut, s;
    PA_PARSE(args, Q(dvpp_vpc_equalize_hist_async), "kkkkk", &ch, &in, &out, &lut, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcEqualizeHistAsync(CH(ch), PIC(in), PIC(out), (const acldvppLutMap *)PTR(lut), PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_make_border_async)
{
    unsigned long ch, in, out, border, s;
    PA_PARSE(args, Q(dvpp_vpc_make_border_async), "kkkkk", &ch, &in, &out, &border, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcMakeBorderAsync(CH(ch), PIC(in), PIC(out), (const acldvppBorderConfig *)PTR(border),
                                             PTR(s)));
    return PyLong_FromLong(ret);
}

FN(dvpp_vpc_calc_hist_async)
{
    unsigned long ch, in, hist, reserve, s;
    PA_PARSE(args, Q(dvpp_vpc_calc_hist_async), "kkkkk", &ch, &in, &hist, &reserve, &s);
    aclError ret;
    PA_NOGIL(ret = acldvppVpcCalcHistAsync(CH(ch), PIC(in), (acldvppHist *)PTR(hist), PTR(reserve), PTR(s)));
    return PyLong_FromLong(ret);
}

/* ---- VPC: batches ---- */

/* The argument lists of one batch call, converted for C. roi_nums follows
 * pyACL's rule (1..256 entries, each at most 256, else ValueError); the
 * area arrays get max(len(list), sum(roi_nums)) entries, the missing ones
 * NULL, so a list shorter than the batch reaches the library (which
 * returns its error code) instead of being read past its end. */
typedef struct {
    uint32_t *roi_nums;
    uint32_t n_roi;
    void **areas[2];
} batch_args;

static void batch_args_free(batch_args *b)
{
    PyMem_Free(b->roi_nums);
    PyMem_Free(b->areas[0]);
    PyMem_Free(b->areas[1]);
}

static int batch_list_len(PyObject *seq, const char *q, const char *what, Py_ssize_t *n)
{
    if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "%s args parse failed: %s is not a list", q, what);
        return -1;
    }
    *n = PySequence_Fast_GET_SIZE(seq);
    if (*n < 1 || *n > MEDIA_MAX_ROI) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd entries, it must have 1..%d", q, what, *n, MEDIA_MAX_ROI);
        return -1;
    }
    return 0;
}

static int batch_ptr_array(PyObject *seq, Py_ssize_t want, const char *q, const char *what, void ***out)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t len = n > want ? n : want;
    void **a = PyMem_Calloc((size_t)len, sizeof(void *));
    if (!a) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        unsigned long long v = PyLong_Check(item) ? PyLong_AsUnsignedLongLongMask(item) : 0;
        if (!PyLong_Check(item) || (v == (unsigned long long)-1 && PyErr_Occurred())) {
            PyErr_Clear();
            PyMem_Free(a);
            PyErr_Format(PyExc_TypeError, "%s args parse failed: %s[%zd] is not an int", q, what, i);
            return -1;
        }
        a[i] = PTR(v);
    }
    *out = a;
    return 0;
}

/* Converts roi_nums and one or two area lists (`lists[k]` may be NULL). */
static int batch_args_get(PyObject *roi_nums, PyObject *lists[2], const char *names[2], const char *q,
                          batch_args *b)
{
    memset(b, 0, sizeof(*b));
    Py_ssize_t n;
    if (batch_list_len(roi_nums, q, "roi_nums", &n) < 0)
        return -1;
    for (int k = 0; k < 2; k++) {
        Py_ssize_t m;
        if (lists[k] && batch_list_len(lists[k], q, names[k], &m) < 0)
            return -1;
    }
    b->roi_nums = PyMem_Calloc((size_t)n, sizeof(uint32_t));
    if (!b->roi_nums) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(roi_nums, i);
        long v = PyLong_Check(item) ? PyLong_AsLong(item) : -1;
        if (!PyLong_Check(item) || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            batch_args_free(b);
            PyErr_Format(PyExc_TypeError, "%s args parse failed: roi_nums[%zd] is not an int", q, i);
            return -1;
        }
        if (v < 0 || v > MEDIA_MAX_ROI) {
            batch_args_free(b);
            PyErr_Format(PyExc_ValueError, "%s: roi_nums[%zd] is %ld, it must be in 0..%d", q, i, v, MEDIA_MAX_ROI);
            return -1;
        }
        b->roi_nums[i] = (uint32_t)v;
        total += v;
    }
    b->n_roi = (uint32_t)n;
    for (int k = 0; k < 2; k++) {
        if (lists[k] && batch_ptr_array(lists[k], total, q, names[k], &b->areas[k]) < 0) {
            batch_args_free(b);
            return -1;
        }
    }
    return 0;
}

#define BATCH(v) ((acldvppBatchPicDesc *)PTR(v))
#define ROIS(p) ((acldvppRoiConfig **)(p))

/* dst_batch, ret = dvpp_vpc_batch_crop_async(ch, src_batch, roi_nums, dst_batch, crop_list, stream) */
FN(dvpp_vpc_batch_crop_async)
{
    unsigned long ch, src, dst, s;
    PyObject *nums, *lists[2] = {NULL, NULL};
    const char *names[2] = {"crop_area_list", NULL};
    PA_PARSE(args, Q(dvpp_vpc_batch_crop_async), "kkOkOk", &ch, &src, &nums, &dst, &lists[0], &s);
    batch_args b;
    if (batch_args_get(nums, lists, names, Q(dvpp_vpc_batch_crop_async), &b) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppVpcBatchCropAsync(CH(ch), BATCH(src), b.roi_nums, b.n_roi, BATCH(dst), ROIS(b.areas[0]),
                                            PTR(s)));
    batch_args_free(&b);
    return pa_u64_ret(dst, ret);
}

/* ret = dvpp_vpc_batch_crop_resize_async(ch, src_batch, roi_nums, dst_batch, crop_list, resize_cfg, stream) */
FN(dvpp_vpc_batch_crop_resize_async)
{
    unsigned long ch, src, dst, rc, s;
    PyObject *nums, *lists[2] = {NULL, NULL};
    const char *names[2] = {"crop_area_list", NULL};
    PA_PARSE(args, Q(dvpp_vpc_batch_crop_resize_async), "kkOkOkk", &ch, &src, &nums, &dst, &lists[0], &rc, &s);
    batch_args b;
    if (batch_args_get(nums, lists, names, Q(dvpp_vpc_batch_crop_resize_async), &b) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppVpcBatchCropResizeAsync(CH(ch), BATCH(src), b.roi_nums, b.n_roi, BATCH(dst),
                                                  ROIS(b.areas[0]), RSZ(rc), PTR(s)));
    batch_args_free(&b);
    return PyLong_FromLong(ret);
}

/* dst_batch, ret = dvpp_vpc_batch_crop_and_paste_async(ch, src_batch, roi_nums, dst_batch, crop_list,
 *                                                      paste_list, stream) */
FN(dvpp_vpc_batch_crop_and_paste_async)
{
    unsigned long ch, src, dst, s;
    PyObject *nums, *lists[2] = {NULL, NULL};
    const char *names[2] = {"crop_area_list", "paste_area_list"};
    PA_PARSE(args, Q(dvpp_vpc_batch_crop_and_paste_async), "kkOkOOk", &ch, &src, &nums, &dst, &lists[0], &lists[1],
             &s);
    batch_args b;
    if (batch_args_get(nums, lists, names, Q(dvpp_vpc_batch_crop_and_paste_async), &b) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppVpcBatchCropAndPasteAsync(CH(ch), BATCH(src), b.roi_nums, b.n_roi, BATCH(dst),
                                                    ROIS(b.areas[0]), ROIS(b.areas[1]), PTR(s)));
    batch_args_free(&b);
    return pa_u64_ret(dst, ret);
}

/* ret = dvpp_vpc_batch_crop_resize_paste_async(ch, src_batch, roi_nums, dst_batch, crop_list, paste_list,
 *                                              resize_cfg, stream) */
FN(dvpp_vpc_batch_crop_resize_paste_async)
{
    unsigned long ch, src, dst, rc, s;
    PyObject *nums, *lists[2] = {NULL, NULL};
    const char *names[2] = {"crop_area_list", "paste_area_list"};
    PA_PARSE(args, Q(dvpp_vpc_batch_crop_resize_paste_async), "kkOkOOkk", &ch, &src, &nums, &dst, &lists[0],
             &lists[1], &rc, &s);
    batch_args b;
    if (batch_args_get(nums, lists, names, Q(dvpp_vpc_batch_crop_resize_paste_async), &b) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppVpcBatchCropResizePasteAsync(CH(ch), BATCH(src), b.roi_nums, b.n_roi, BATCH(dst),
                                                       ROIS(b.areas[0]), ROIS(b.areas[1]), RSZ(rc), PTR(s)));
    batch_args_free(&b);
    return PyLong_FromLong(ret);
}

/* ret = dvpp_vpc_batch_crop_resize_make_border_async(ch, src_batch, roi_nums, dst_batch, crop_list,
 *                                                    border_cfg_list, resize_cfg, stream) */
FN(dvpp_vpc_batch_crop_resize_make_border_async)
{
    unsigned long ch, src, dst, rc, s;
    PyObject *nums, *lists[2] = {NULL, NULL};
    const char *names[2] = {"crop_area_list", "border_config_list"};
    PA_PARSE(args, Q(dvpp_vpc_batch_crop_resize_make_border_async), "kkOkOOkk", &ch, &src, &nums, &dst, &lists[0],
             &lists[1], &rc, &s);
    batch_args b;
    if (batch_args_get(nums, lists, names, Q(dvpp_vpc_batch_crop_resize_make_border_async), &b) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = acldvppVpcBatchCropResizeMakeBorderAsync(CH(ch), BATCH(src), b.roi_nums, b.n_roi, BATCH(dst),
                                                            ROIS(b.areas[0]), (acldvppBorderConfig **)b.areas[1],
                                                            RSZ(rc), PTR(s)));
    batch_args_free(&b);
    return PyLong_FromLong(ret);
}

/* ---- stream descriptions (VDEC input / VENC output) ---- */

CREATE0(dvpp_create_stream_desc, acldvppCreateStreamDesc())
RET_K(dvpp_destroy_stream_desc, acldvppDestroyStreamDesc, acldvppStreamDesc)
SET_PTR(dvpp_set_stream_desc_data, acldvppSetStreamDescData, acldvppStreamDesc)
SET_U32(dvpp_set_stream_desc_size, acldvppSetStreamDescSize, acldvppStreamDesc)
SET_ENUM(dvpp_set_stream_desc_format, acldvppSetStreamDescFormat, acldvppStreamDesc, acldvppStreamFormat)
SET_U64(dvpp_set_stream_desc_timestamp, acldvppSetStreamDescTimestamp, acldvppStreamDesc)
SET_U32(dvpp_set_stream_desc_ret_code, acldvppSetStreamDescRetCode, acldvppStreamDesc)
SET_U8(dvpp_set_stream_desc_eos, acldvppSetStreamDescEos, acldvppStreamDesc)
GET_PTR(dvpp_get_stream_desc_data, acldvppGetStreamDescData, const acldvppStreamDesc)
GET_UNSIGNED(dvpp_get_stream_desc_size, acldvppGetStreamDescSize, const acldvppStreamDesc)
GET_ENUM(dvpp_get_stream_desc_format, acldvppGetStreamDescFormat, const acldvppStreamDesc)
GET_UNSIGNED(dvpp_get_stream_desc_timestamp, acldvppGetStreamDescTimestamp, const acldvppStreamDesc)
GET_UNSIGNED(dvpp_get_stream_desc_ret_code, acldvppGetStreamDescRetCode, const acldvppStreamDesc)
GET_UNSIGNED(dvpp_get_stream_desc_eos, acldvppGetStreamDescEos, const acldvppStreamDesc)

/* ---- VDEC / VENC ----
 * The Python callback of a channel description lives in g_codec_callbacks
 * (desc address -> callable, guarded by the GIL); each sent frame carries
 * a codec_frame with its own references, dropped by the trampoline after
 * the call, or at once when the library refuses the frame. */

static PyObject *g_codec_callbacks; /* dict, created at first use */

typedef struct {
    PyObject *fn;
    PyObject *data;
} codec_frame;

static int interpreter_gone(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

static void codec_frame_call(codec_frame *f, const void *a, const void *b, const char *where)
{
    if (interpreter_gone())
        return;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(f->fn, "KKO", (unsigned long long)(uintptr_t)a,
                                        (unsigned long long)(uintptr_t)b, f->data);
    if (r)
        Py_DECREF(r);
    else
        pa_report_exception(where, f->fn);
    Py_DECREF(f->fn);
    Py_DECREF(f->data);
    PyGILState_Release(st);
    PyMem_RawFree(f);
}

static void vdec_trampoline(acldvppStreamDesc *input, acldvppPicDesc *output, void *user)
{
    codec_frame_call(user, input, output, "acl.media.vdec callback");
}

static void venc_trampoline(acldvppPicDesc *input, acldvppStreamDesc *output, void *user)
{
    codec_frame_call(user, input, output, "acl.media.venc callback");
}

/* Remembers `fn` for the description at `desc`; NULL with TypeError when
 * it is not callable. */
static int codec_callback_store(unsigned long desc, PyObject *fn, const char *q)
{
    if (!PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError, "%s: the callback is not callable", q);
        return -1;
    }
    if (!g_codec_callbacks && !(g_codec_callbacks = PyDict_New()))
        return -1;
    PyObject *key = PyLong_FromUnsignedLong(desc);
    if (!key)
        return -1;
    int rc = PyDict_SetItem(g_codec_callbacks, key, fn);
    Py_DECREF(key);
    return rc;
}

/* A new reference to the callback stored for `desc`, or NULL with
 * RuntimeError (as pyACL, sending before setting a callback raises). */
static PyObject *codec_callback_get(unsigned long desc, const char *q)
{
    PyObject *fn = NULL;
    if (g_codec_callbacks) {
        PyObject *key = PyLong_FromUnsignedLong(desc);
        if (!key)
            return NULL;
        fn = PyDict_GetItemWithError(g_codec_callbacks, key);
        Py_DECREF(key);
        if (!fn && PyErr_Occurred())
            return NULL;
    }
    if (!fn) {
        PyErr_Format(PyExc_RuntimeError, "%s: no callback was set on this channel description", q);
        return NULL;
    }
    Py_INCREF(fn);
    return fn;
}

static void codec_callback_drop(unsigned long desc)
{
    if (!g_codec_callbacks)
        return;
    PyObject *key = PyLong_FromUnsignedLong(desc);
    if (!key) {
        PyErr_Clear();
        return;
    }
    if (PyDict_DelItem(g_codec_callbacks, key) < 0)
        PyErr_Clear(); /* none stored */
    Py_DECREF(key);
}

static codec_frame *codec_frame_new(PyObject *fn, PyObject *data)
{
    codec_frame *f = PyMem_RawMalloc(sizeof(*f));
    if (!f) {
        Py_DECREF(fn);
        PyErr_NoMemory();
        return NULL;
    }
    f->fn = fn; /* the reference codec_callback_get returned */
    Py_INCREF(data);
    f->data = data;
    return f;
}

static void codec_frame_free(codec_frame *f)
{
    Py_DECREF(f->fn);
    Py_DECREF(f->data);
    PyMem_RawFree(f);
}

#define VDEC(v) ((aclvdecChannelDesc *)PTR(v))
#define VENC(v) ((aclvencChannelDesc *)PTR(v))

CREATE0(vdec_create_channel_desc, aclvdecCreateChannelDesc())
FN(vdec_destroy_channel_desc)
{
    unsigned long d;
    PA_PARSE(args, Q(vdec_destroy_channel_desc), "k", &d);
    aclError ret;
    PA_NOGIL(ret = aclvdecDestroyChannelDesc(VDEC(d)));
    if (ret == ACL_SUCCESS)
        codec_callback_drop(d);
    return PyLong_FromLong(ret);
}
RET_K(vdec_create_channel, aclvdecCreateChannel, aclvdecChannelDesc)
RET_K(vdec_destroy_channel, aclvdecDestroyChannel, aclvdecChannelDesc)
SET_U32(vdec_set_channel_desc_channel_id, aclvdecSetChannelDescChannelId, aclvdecChannelDesc)
SET_U64(vdec_set_channel_desc_thread_id, aclvdecSetChannelDescThreadId, aclvdecChannelDesc)
SET_ENUM(vdec_set_channel_desc_entype, aclvdecSetChannelDescEnType, aclvdecChannelDesc, acldvppStreamFormat)
SET_ENUM(vdec_set_channel_desc_out_pic_format, aclvdecSetChannelDescOutPicFormat, aclvdecChannelDesc,
         acldvppPixelFormat)
SET_U32(vdec_set_channel_desc_out_pic_width, aclvdecSetChannelDescOutPicWidth, aclvdecChannelDesc)
SET_U32(vdec_set_channel_desc_out_pic_height, aclvdecSetChannelDescOutPicHeight, aclvdecChannelDesc)
SET_U32(vdec_set_channel_desc_ref_frame_num, aclvdecSetChannelDescRefFrameNum, aclvdecChannelDesc)
SET_U32(vdec_set_channel_desc_bit_depth, aclvdecSetChannelDescBitDepth, aclvdecChannelDesc)
SET_U32(vdec_set_channel_desc_out_mode, aclvdecSetChannelDescOutMode, aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_channel_id, aclvdecGetChannelDescChannelId, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_thread_id, aclvdecGetChannelDescThreadId, const aclvdecChannelDesc)
GET_ENUM(vdec_get_channel_desc_entype, aclvdecGetChannelDescEnType, const aclvdecChannelDesc)
GET_ENUM(vdec_get_channel_desc_out_pic_format, aclvdecGetChannelDescOutPicFormat, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_out_pic_width, aclvdecGetChannelDescOutPicWidth, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_out_pic_height, aclvdecGetChannelDescOutPicHeight, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_ref_frame_num, aclvdecGetChannelDescRefFrameNum, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_bit_depth, aclvdecGetChannelDescBitDepth, const aclvdecChannelDesc)
GET_UNSIGNED(vdec_get_channel_desc_out_mode, aclvdecGetChannelDescOutMode, const aclvdecChannelDesc)

/* ret = vdec_set_channel_desc_callback(desc, fn): fn(input_stream_desc,
 * output_pic_desc, user_data) runs on the channel's thread. */
FN(vdec_set_channel_desc_callback)
{
    unsigned long d;
    PyObject *fn;
    PA_PARSE(args, Q(vdec_set_channel_desc_callback), "kO", &d, &fn);
    aclError ret = aclvdecSetChannelDescCallback(VDEC(d), vdec_trampoline);
    if (ret == ACL_SUCCESS && codec_callback_store(d, fn, Q(vdec_set_channel_desc_callback)) < 0)
        return NULL;
    return PyLong_FromLong(ret);
}

/* fn = vdec_get_channel_desc_callback(desc): the Python callable set */
FN(vdec_get_channel_desc_callback)
{
    unsigned long d;
    PA_PARSE(args, Q(vdec_get_channel_desc_callback), "k", &d);
    return codec_callback_get(d, Q(vdec_get_channel_desc_callback));
}

/* ret = vdec_send_frame(desc, input_stream_desc, output_pic_desc, frame_config, user_data) */
FN(vdec_send_frame)
{
    unsigned long d, in, out, cfg;
    PyObject *data;
    PA_PARSE(args, Q(vdec_send_frame), "kkkkO", &d, &in, &out, &cfg, &data);
    PyObject *fn = codec_callback_get(d, Q(vdec_send_frame));
    codec_frame *f = fn ? codec_frame_new(fn, data) : NULL;
    if (!f)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = aclvdecSendFrame(VDEC(d), (acldvppStreamDesc *)PTR(in), PIC(out), (aclvdecFrameConfig *)PTR(cfg),
                                    f));
    if (ret != ACL_SUCCESS)
        codec_frame_free(f);
    return PyLong_FromLong(ret);
}

/* ret = vdec_send_skipped_frame(desc, input_stream_desc, frame_config, user_data) */
FN(vdec_send_skipped_frame)
{
    unsigned long d, in, cfg;
    PyObject *data;
    PA_PARSE(args, Q(vdec_send_skipped_frame), "kkkO", &d, &in, &cfg, &data);
    PyObject *fn = codec_callback_get(d, Q(vdec_send_skipped_frame));
    codec_frame *f = fn ? codec_frame_new(fn, data) : NULL;
    if (!f)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = aclvdecSendSkippedFrame(VDEC(d), (acldvppStreamDesc *)PTR(in), (aclvdecFrameConfig *)PTR(cfg), f));
    if (ret != ACL_SUCCESS)
        codec_frame_free(f);
    return PyLong_FromLong(ret);
}

PARAM_FNS(vdec, vdec)

CREATE0(vdec_create_frame_config, aclvdecCreateFrameConfig())
RET_K(vdec_destroy_frame_config, aclvdecDestroyFrameConfig, aclvdecFrameConfig)

CREATE0(venc_create_channel_desc, aclvencCreateChannelDesc())
FN(venc_destroy_channel_desc)
{
    unsigned long d;
    PA_PARSE(args, Q(venc_destroy_channel_desc), "k", &d);
    aclError ret;
    PA_NOGIL(ret = aclvencDestroyChannelDesc(VENC(d)));
    if (ret == ACL_SUCCESS)
        codec_callback_drop(d);
    return PyLong_FromLong(ret);
}
RET_K(venc_create_channel, aclvencCreateChannel, aclvencChannelDesc)
RET_K(venc_destroy_channel, aclvencDestroyChannel, aclvencChannelDesc)
SET_U64(venc_set_channel_desc_thread_id, aclvencSetChannelDescThreadId, aclvencChannelDesc)
SET_ENUM(venc_set_channel_desc_entype, aclvencSetChannelDescEnType, aclvencChannelDesc, acldvppStreamFormat)
SET_ENUM(venc_set_channel_desc_pic_format, aclvencSetChannelDescPicFormat, aclvencChannelDesc, acldvppPixelFormat)
SET_U32(venc_set_channel_desc_pic_width, aclvencSetChannelDescPicWidth, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_pic_height, aclvencSetChannelDescPicHeight, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_key_frame_interval, aclvencSetChannelDescKeyFrameInterval, aclvencChannelDesc)
SET_PTR(venc_set_channel_desc_buf_addr, aclvencSetChannelDescBufAddr, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_buf_size, aclvencSetChannelDescBufSize, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_rc_mode, aclvencSetChannelDescRcMode, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_src_rate, aclvencSetChannelDescSrcRate, aclvencChannelDesc)
SET_U32(venc_set_channel_desc_max_bit_rate, aclvencSetChannelDescMaxBitRate, aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_channel_id, aclvencGetChannelDescChannelId, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_thread_id, aclvencGetChannelDescThreadId, const aclvencChannelDesc)
GET_ENUM(venc_get_channel_desc_entype, aclvencGetChannelDescEnType, const aclvencChannelDesc)
GET_ENUM(venc_get_channel_desc_pic_format, aclvencGetChannelDescPicFormat, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_pic_width, aclvencGetChannelDescPicWidth, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_pic_height, aclvencGetChannelDescPicHeight, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_key_frame_interval, aclvencGetChannelDescKeyFrameInterval,
             const aclvencChannelDesc)
GET_PTR(venc_get_channel_desc_buf_addr, aclvencGetChannelDescBufAddr, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_buf_size, aclvencGetChannelDescBufSize, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_rc_mode, aclvencGetChannelDescRcMode, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_src_rate, aclvencGetChannelDescSrcRate, const aclvencChannelDesc)
GET_UNSIGNED(venc_get_channel_desc_max_bit_rate, aclvencGetChannelDescMaxBitRate, const aclvencChannelDesc)

FN(venc_set_channel_desc_callback)
{
    unsigned long d;
    PyObject *fn;
    PA_PARSE(args, Q(venc_set_channel_desc_callback), "kO", &d, &fn);
    aclError ret = aclvencSetChannelDescCallback(VENC(d), venc_trampoline);
    if (ret == ACL_SUCCESS && codec_callback_store(d, fn, Q(venc_set_channel_desc_callback)) < 0)
        return NULL;
    return PyLong_FromLong(ret);
}

FN(venc_get_channel_desc_callback)
{
    unsigned long d;
    PA_PARSE(args, Q(venc_get_channel_desc_callback), "k", &d);
    return codec_callback_get(d, Q(venc_get_channel_desc_callback));
}

/* ret = venc_send_frame(desc, input_pic_desc, reserve, frame_config, user_data) */
FN(venc_send_frame)
{
    unsigned long d, in, reserve, cfg;
    PyObject *data;
    PA_PARSE(args, Q(venc_send_frame), "kkkkO", &d, &in, &reserve, &cfg, &data);
    PyObject *fn = codec_callback_get(d, Q(venc_send_frame));
    codec_frame *f = fn ? codec_frame_new(fn, data) : NULL;
    if (!f)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = aclvencSendFrame(VENC(d), PIC(in), PTR(reserve), (aclvencFrameConfig *)PTR(cfg), f));
    if (ret != ACL_SUCCESS)
        codec_frame_free(f);
    return PyLong_FromLong(ret);
}

PARAM_FNS(venc, venc)

CREATE0(venc_create_frame_config, aclvencCreateFrameConfig())
RET_K(venc_destroy_frame_config, aclvencDestroyFrameConfig, aclvencFrameConfig)
SET_U8(venc_set_frame_config_force_i_frame, aclvencSetFrameConfigForceIFrame, aclvencFrameConfig)
SET_U8(venc_set_frame_config_eos, aclvencSetFrameConfigEos, aclvencFrameConfig)
GET_UNSIGNED(venc_get_frame_config_force_i_frame, aclvencGetFrameConfigForceIFrame, const aclvencFrameConfig)
GET_UNSIGNED(venc_get_frame_config_eos, aclvencGetFrameConfigEos, const aclvencFrameConfig)

/* ---- the table ---- */

#define M(name, doc) {#name, media_##name, METH_VARARGS, doc}

PyMethodDef pa_media_methods[] = {
    M(dvpp_malloc, "dev_ptr, ret = dvpp_malloc(size): DVPP memory (acldvppMalloc)."),
    M(dvpp_free, "ret = dvpp_free(dev_ptr)"),
    M(dvpp_create_channel_desc, "desc = dvpp_create_channel_desc()"),
    M(dvpp_destroy_channel_desc, "ret = dvpp_destroy_channel_desc(desc)"),
    M(dvpp_create_channel, "ret = dvpp_create_channel(desc)"),
    M(dvpp_destroy_channel, "ret = dvpp_destroy_channel(desc)"),
    M(dvpp_get_channel_desc_channel_id, "channel_id = dvpp_get_channel_desc_channel_id(desc)"),
    M(dvpp_set_channel_desc_mode, "ret = dvpp_set_channel_desc_mode(desc, mode)"),
    M(dvpp_set_channel_desc_param, "desc, ret = dvpp_set_channel_desc_param(desc, param_type, value)"),
    M(dvpp_get_channel_desc_param, "ret_size, value, ret = dvpp_get_channel_desc_param(desc, param_type)"),
    M(dvpp_create_pic_desc, "pic = dvpp_create_pic_desc()"),
    M(dvpp_destroy_pic_desc, "ret = dvpp_destroy_pic_desc(pic)"),
    M(dvpp_set_pic_desc_data, "ret = dvpp_set_pic_desc_data(pic, dev_ptr)"),
    M(dvpp_set_pic_desc_size, "ret = dvpp_set_pic_desc_size(pic, size)"),
    M(dvpp_set_pic_desc_format, "ret = dvpp_set_pic_desc_format(pic, pixel_format)"),
    M(dvpp_set_pic_desc_width, "ret = dvpp_set_pic_desc_width(pic, width)"),
    M(dvpp_set_pic_desc_height, "ret = dvpp_set_pic_desc_height(pic, height)"),
    M(dvpp_set_pic_desc_width_stride, "ret = dvpp_set_pic_desc_width_stride(pic, width_stride)"),
    M(dvpp_set_pic_desc_height_stride, "ret = dvpp_set_pic_desc_height_stride(pic, height_stride)"),
    M(dvpp_set_pic_desc_ret_code, "ret = dvpp_set_pic_desc_ret_code(pic, ret_code)"),
    M(dvpp_get_pic_desc_data, "dev_ptr = dvpp_get_pic_desc_data(pic)"),
    M(dvpp_get_pic_desc_size, "size = dvpp_get_pic_desc_size(pic)"),
    M(dvpp_get_pic_desc_format, "pixel_format = dvpp_get_pic_desc_format(pic)"),
    M(dvpp_get_pic_desc_width, "width = dvpp_get_pic_desc_width(pic)"),
    M(dvpp_get_pic_desc_height, "height = dvpp_get_pic_desc_height(pic)"),
    M(dvpp_get_pic_desc_width_stride, "width_stride = dvpp_get_pic_desc_width_stride(pic)"),
    M(dvpp_get_pic_desc_height_stride, "height_stride = dvpp_get_pic_desc_height_stride(pic)"),
    M(dvpp_get_pic_desc_ret_code, "ret_code = dvpp_get_pic_desc_ret_code(pic)"),
    M(dvpp_create_batch_pic_desc, "batch = dvpp_create_batch_pic_desc(batch_size)"),
    M(dvpp_destroy_batch_pic_desc, "ret = dvpp_destroy_batch_pic_desc(batch)"),
    M(dvpp_get_pic_desc, "pic = dvpp_get_pic_desc(batch, index)"),
    M(dvpp_create_roi_config, "roi = dvpp_create_roi_config(left, right, top, bottom)"),
    M(dvpp_destroy_roi_config, "ret = dvpp_destroy_roi_config(roi)"),
    M(dvpp_set_roi_config, "ret = dvpp_set_roi_config(roi, left, right, top, bottom)"),
    M(dvpp_set_roi_config_left, "ret = dvpp_set_roi_config_left(roi, left)"),
    M(dvpp_set_roi_config_right, "ret = dvpp_set_roi_config_right(roi, right)"),
    M(dvpp_set_roi_config_top, "ret = dvpp_set_roi_config_top(roi, top)"),
    M(dvpp_set_roi_config_bottom, "ret = dvpp_set_roi_config_bottom(roi, bottom)"),
    M(dvpp_create_resize_config, "cfg = dvpp_create_resize_config()"),
    M(dvpp_destroy_resize_config, "ret = dvpp_destroy_resize_config(cfg)"),
    M(dvpp_set_resize_config_interpolation, "ret = dvpp_set_resize_config_interpolation(cfg, interpolation)"),
    M(dvpp_get_resize_config_interpolation, "interpolation = dvpp_get_resize_config_interpolation(cfg)"),
    M(dvpp_create_jpege_config, "cfg = dvpp_create_jpege_config()"),
    M(dvpp_destroy_jpege_config, "ret = dvpp_destroy_jpege_config(cfg)"),
    M(dvpp_set_jpege_config_level, "ret = dvpp_set_jpege_config_level(cfg, level)"),
    M(dvpp_get_jpege_config_level, "level = dvpp_get_jpege_config_level(cfg)"),
    M(dvpp_create_border_config, "cfg = dvpp_create_border_config()"),
    M(dvpp_destroy_border_config, "ret = dvpp_destroy_border_config(cfg)"),
    M(dvpp_set_border_config_value, "ret = dvpp_set_border_config_value(cfg, index, value)"),
    M(dvpp_set_border_config_border_type, "ret = dvpp_set_border_config_border_type(cfg, border_type)"),
    M(dvpp_set_border_config_top, "ret = dvpp_set_border_config_top(cfg, top)"),
    M(dvpp_set_border_config_bottom, "ret = dvpp_set_border_config_bottom(cfg, bottom)"),
    M(dvpp_set_border_config_left, "ret = dvpp_set_border_config_left(cfg, left)"),
    M(dvpp_set_border_config_right, "ret = dvpp_set_border_config_right(cfg, right)"),
    M(dvpp_get_border_config_value, "value = dvpp_get_border_config_value(cfg, index)"),
    M(dvpp_get_border_config_border_type, "border_type = dvpp_get_border_config_border_type(cfg)"),
    M(dvpp_get_border_config_top, "top = dvpp_get_border_config_top(cfg)"),
    M(dvpp_get_border_config_bottom, "bottom = dvpp_get_border_config_bottom(cfg)"),
    M(dvpp_get_border_config_left, "left = dvpp_get_border_config_left(cfg)"),
    M(dvpp_get_border_config_right, "right = dvpp_get_border_config_right(cfg)"),
    M(dvpp_create_lut_map, "lut = dvpp_create_lut_map()"),
    M(dvpp_destroy_lut_map, "ret = dvpp_destroy_lut_map(lut)"),
    M(dvpp_get_lut_map_dims, "dims = dvpp_get_lut_map_dims(lut)"),
    M(dvpp_get_lut_map_data, "data_ptr, length, ret = dvpp_get_lut_map_data(lut, dim)"),
    M(dvpp_create_hist, "hist = dvpp_create_hist()"),
    M(dvpp_destroy_hist, "ret = dvpp_destroy_hist(hist)"),
    M(dvpp_get_hist_dims, "dims = dvpp_get_hist_dims(hist)"),
    M(dvpp_get_hist_data, "data_ptr, length, ret = dvpp_get_hist_data(hist, dim)"),
    M(dvpp_get_hist_ret_code, "ret_code = dvpp_get_hist_ret_code(hist)"),
    M(dvpp_clear_hist, "ret = dvpp_clear_hist(hist)"),
    M(dvpp_jpeg_get_image_info, "width, height, components, ret = dvpp_jpeg_get_image_info(host_ptr, size)"),
    M(dvpp_jpeg_get_image_info_v2,
      "width, height, components, jpeg_format, ret = dvpp_jpeg_get_image_info_v2(host_ptr, size)"),
    M(dvpp_jpeg_predict_dec_size, "dec_size, ret = dvpp_jpeg_predict_dec_size(host_ptr, size, pixel_format)"),
    M(dvpp_jpeg_predict_enc_size, "enc_size, ret = dvpp_jpeg_predict_enc_size(pic, jpege_config)"),
    M(dvpp_png_get_image_info, "width, height, components, ret = dvpp_png_get_image_info(host_ptr, size)"),
    M(dvpp_png_predict_dec_size, "dec_size, ret = dvpp_png_predict_dec_size(host_ptr, size, pixel_format)"),
    M(dvpp_jpeg_decode_async, "ret = dvpp_jpeg_decode_async(channel_desc, dev_data, size, out_pic, stream)"),
    M(dvpp_png_decode_async, "ret = dvpp_png_decode_async(channel_desc, dev_data, size, out_pic, stream)"),
    M(dvpp_jpeg_encode_async,
      "ret = dvpp_jpeg_encode_async(channel_desc, in_pic, dev_out, size_ptr, jpege_config, stream)"),
    M(dvpp_vpc_resize_async, "ret = dvpp_vpc_resize_async(channel_desc, in_pic, out_pic, resize_config, stream)"),
    M(dvpp_vpc_crop_async, "ret = dvpp_vpc_crop_async(channel_desc, in_pic, out_pic, crop_roi, stream)"),
    M(dvpp_vpc_crop_resize_async,
      "ret = dvpp_vpc_crop_resize_async(channel_desc, in_pic, out_pic, crop_roi, resize_config, stream)"),
    M(dvpp_vpc_crop_and_paste_async,
      "ret = dvpp_vpc_crop_and_paste_async(channel_desc, in_pic, out_pic, crop_roi, paste_roi, stream)"),
    M(dvpp_vpc_crop_resize_paste_async,
      "ret = dvpp_vpc_crop_resize_paste_async(channel_desc, in_pic, out_pic, crop_roi, paste_roi, resize_config, "
      "stream)"),
    M(dvpp_vpc_convert_color_async, "ret = dvpp_vpc_convert_color_async(channel_desc, in_pic, out_pic, stream)"),
    M(dvpp_vpc_pyr_down_async, "ret = dvpp_vpc_pyr_down_async(channel_desc, in_pic, out_pic, reserve, stream)"),
    M(dvpp_vpc_equalize_hist_async,
      "ret = dvpp_vpc_equalize_hist_async(channel_desc, in_pic, out_pic, lut_map, stream)"),
    M(dvpp_vpc_make_border_async,
      "ret = dvpp_vpc_make_border_async(channel_desc, in_pic, out_pic, border_config, stream)"),
    M(dvpp_vpc_calc_hist_async, "ret = dvpp_vpc_calc_hist_async(channel_desc, in_pic, hist, reserve, stream)"),
    M(dvpp_vpc_batch_crop_async,
      "dst_batch, ret = dvpp_vpc_batch_crop_async(channel_desc, src_batch, roi_nums, dst_batch, crop_list, stream)"),
    M(dvpp_vpc_batch_crop_resize_async,
      "ret = dvpp_vpc_batch_crop_resize_async(channel_desc, src_batch, roi_nums, dst_batch, crop_list, "
      "resize_config, stream)"),
    M(dvpp_vpc_batch_crop_and_paste_async,
      "dst_batch, ret = dvpp_vpc_batch_crop_and_paste_async(channel_desc, src_batch, roi_nums, dst_batch, "
      "crop_list, paste_list, stream)"),
    M(dvpp_vpc_batch_crop_resize_paste_async,
      "ret = dvpp_vpc_batch_crop_resize_paste_async(channel_desc, src_batch, roi_nums, dst_batch, crop_list, "
      "paste_list, resize_config, stream)"),
    M(dvpp_vpc_batch_crop_resize_make_border_async,
      "ret = dvpp_vpc_batch_crop_resize_make_border_async(channel_desc, src_batch, roi_nums, dst_batch, "
      "crop_list, border_config_list, resize_config, stream)"),
    M(dvpp_create_stream_desc, "desc = dvpp_create_stream_desc()"),
    M(dvpp_destroy_stream_desc, "ret = dvpp_destroy_stream_desc(desc)"),
    M(dvpp_set_stream_desc_data, "ret = dvpp_set_stream_desc_data(desc, dev_ptr)"),
    M(dvpp_set_stream_desc_size, "ret = dvpp_set_stream_desc_size(desc, size)"),
    M(dvpp_set_stream_desc_format, "ret = dvpp_set_stream_desc_format(desc, stream_format)"),
    M(dvpp_set_stream_desc_timestamp, "ret = dvpp_set_stream_desc_timestamp(desc, timestamp)"),
    M(dvpp_set_stream_desc_ret_code, "ret = dvpp_set_stream_desc_ret_code(desc, ret_code)"),
    M(dvpp_set_stream_desc_eos, "ret = dvpp_set_stream_desc_eos(desc, eos)"),
    M(dvpp_get_stream_desc_data, "dev_ptr = dvpp_get_stream_desc_data(desc)"),
    M(dvpp_get_stream_desc_size, "size = dvpp_get_stream_desc_size(desc)"),
    M(dvpp_get_stream_desc_format, "stream_format = dvpp_get_stream_desc_format(desc)"),
    M(dvpp_get_stream_desc_timestamp, "timestamp = dvpp_get_stream_desc_timestamp(desc)"),
    M(dvpp_get_stream_desc_ret_code, "ret_code = dvpp_get_stream_desc_ret_code(desc)"),
    M(dvpp_get_stream_desc_eos, "eos = dvpp_get_stream_desc_eos(desc)"),
    M(vdec_create_channel_desc, "desc = vdec_create_channel_desc()"),
    M(vdec_destroy_channel_desc, "ret = vdec_destroy_channel_desc(desc)"),
    M(vdec_create_channel, "ret = vdec_create_channel(desc)"),
    M(vdec_destroy_channel, "ret = vdec_destroy_channel(desc)"),
    M(vdec_set_channel_desc_channel_id, "ret = vdec_set_channel_desc_channel_id(desc, channel_id)"),
    M(vdec_set_channel_desc_thread_id, "ret = vdec_set_channel_desc_thread_id(desc, thread_id)"),
    M(vdec_set_channel_desc_callback, "ret = vdec_set_channel_desc_callback(desc, fn)"),
    M(vdec_set_channel_desc_entype, "ret = vdec_set_channel_desc_entype(desc, stream_format)"),
    M(vdec_set_channel_desc_out_pic_format, "ret = vdec_set_channel_desc_out_pic_format(desc, pixel_format)"),
    M(vdec_set_channel_desc_out_pic_width, "ret = vdec_set_channel_desc_out_pic_width(desc, width)"),
    M(vdec_set_channel_desc_out_pic_height, "ret = vdec_set_channel_desc_out_pic_height(desc, height)"),
    M(vdec_set_channel_desc_ref_frame_num, "ret = vdec_set_channel_desc_ref_frame_num(desc, n)"),
    M(vdec_set_channel_desc_bit_depth, "ret = vdec_set_channel_desc_bit_depth(desc, bit_depth)"),
    M(vdec_set_channel_desc_out_mode, "ret = vdec_set_channel_desc_out_mode(desc, out_mode)"),
    M(vdec_get_channel_desc_channel_id, "channel_id = vdec_get_channel_desc_channel_id(desc)"),
    M(vdec_get_channel_desc_thread_id, "thread_id = vdec_get_channel_desc_thread_id(desc)"),
    M(vdec_get_channel_desc_callback, "fn = vdec_get_channel_desc_callback(desc)"),
    M(vdec_get_channel_desc_entype, "stream_format = vdec_get_channel_desc_entype(desc)"),
    M(vdec_get_channel_desc_out_pic_format, "pixel_format = vdec_get_channel_desc_out_pic_format(desc)"),
    M(vdec_get_channel_desc_out_pic_width, "width = vdec_get_channel_desc_out_pic_width(desc)"),
    M(vdec_get_channel_desc_out_pic_height, "height = vdec_get_channel_desc_out_pic_height(desc)"),
    M(vdec_get_channel_desc_ref_frame_num, "n = vdec_get_channel_desc_ref_frame_num(desc)"),
    M(vdec_get_channel_desc_bit_depth, "bit_depth = vdec_get_channel_desc_bit_depth(desc)"),
    M(vdec_get_channel_desc_out_mode, "out_mode = vdec_get_channel_desc_out_mode(desc)"),
    M(vdec_send_frame, "ret = vdec_send_frame(desc, stream_desc, out_pic, frame_config, user_data)"),
    M(vdec_send_skipped_frame, "ret = vdec_send_skipped_frame(desc, stream_desc, frame_config, user_data)"),
    M(vdec_set_channel_desc_param, "desc, ret = vdec_set_channel_desc_param(desc, param_type, value)"),
    M(vdec_get_channel_desc_param, "ret_size, value, ret = vdec_get_channel_desc_param(desc, param_type)"),
    M(vdec_create_frame_config, "cfg = vdec_create_frame_config()"),
    M(vdec_destroy_frame_config, "ret = vdec_destroy_frame_config(cfg)"),
    M(venc_create_channel_desc, "desc = venc_create_channel_desc()"),
    M(venc_destroy_channel_desc, "ret = venc_destroy_channel_desc(desc)"),
    M(venc_create_channel, "ret = venc_create_channel(desc)"),
    M(venc_destroy_channel, "ret = venc_destroy_channel(desc)"),
    M(venc_set_channel_desc_thread_id, "ret = venc_set_channel_desc_thread_id(desc, thread_id)"),
    M(venc_set_channel_desc_callback, "ret = venc_set_channel_desc_callback(desc, fn)"),
    M(venc_set_channel_desc_entype, "ret = venc_set_channel_desc_entype(desc, stream_format)"),
    M(venc_set_channel_desc_pic_format, "ret = venc_set_channel_desc_pic_format(desc, pixel_format)"),
    M(venc_set_channel_desc_pic_width, "ret = venc_set_channel_desc_pic_width(desc, width)"),
    M(venc_set_channel_desc_pic_height, "ret = venc_set_channel_desc_pic_height(desc, height)"),
    M(venc_set_channel_desc_key_frame_interval, "ret = venc_set_channel_desc_key_frame_interval(desc, n)"),
    M(venc_set_channel_desc_buf_addr, "ret = venc_set_channel_desc_buf_addr(desc, dev_ptr)"),
    M(venc_set_channel_desc_buf_size, "ret = venc_set_channel_desc_buf_size(desc, size)"),
    M(venc_set_channel_desc_rc_mode, "ret = venc_set_channel_desc_rc_mode(desc, rc_mode)"),
    M(venc_set_channel_desc_src_rate, "ret = venc_set_channel_desc_src_rate(desc, rate)"),
    M(venc_set_channel_desc_max_bit_rate, "ret = venc_set_channel_desc_max_bit_rate(desc, rate)"),
    M(venc_get_channel_desc_channel_id, "channel_id = venc_get_channel_desc_channel_id(desc)"),
    M(venc_get_channel_desc_thread_id, "thread_id = venc_get_channel_desc_thread_id(desc)"),
    M(venc_get_channel_desc_callback, "fn = venc_get_channel_desc_callback(desc)"),
    M(venc_get_channel_desc_entype, "stream_format = venc_get_channel_desc_entype(desc)"),
    M(venc_get_channel_desc_pic_format, "pixel_format = venc_get_channel_desc_pic_format(desc)"),
    M(venc_get_channel_desc_pic_width, "width = venc_get_channel_desc_pic_width(desc)"),
    M(venc_get_channel_desc_pic_height, "height = venc_get_channel_desc_pic_height(desc)"),
    M(venc_get_channel_desc_key_frame_interval, "n = venc_get_channel_desc_key_frame_interval(desc)"),
    M(venc_get_channel_desc_buf_addr, "dev_ptr = venc_get_channel_desc_buf_addr(desc)"),
    M(venc_get_channel_desc_buf_size, "size = venc_get_channel_desc_buf_size(desc)"),
    M(venc_get_channel_desc_rc_mode, "rc_mode = venc_get_channel_desc_rc_mode(desc)"),
    M(venc_get_channel_desc_src_rate, "rate = venc_get_channel_desc_src_rate(desc)"),
    M(venc_get_channel_desc_max_bit_rate, "rate = venc_get_channel_desc_max_bit_rate(desc)"),
    M(venc_send_frame, "ret = venc_send_frame(desc, in_pic, reserve, frame_config, user_data)"),
    M(venc_set_channel_desc_param, "desc, ret = venc_set_channel_desc_param(desc, param_type, value)"),
    M(venc_get_channel_desc_param, "ret_size, value, ret = venc_get_channel_desc_param(desc, param_type)"),
    M(venc_create_frame_config, "cfg = venc_create_frame_config()"),
    M(venc_destroy_frame_config, "ret = venc_destroy_frame_config(cfg)"),
    M(venc_set_frame_config_force_i_frame, "ret = venc_set_frame_config_force_i_frame(cfg, force)"),
    M(venc_set_frame_config_eos, "ret = venc_set_frame_config_eos(cfg, eos)"),
    M(venc_get_frame_config_force_i_frame, "force = venc_get_frame_config_force_i_frame(cfg)"),
    M(venc_get_frame_config_eos, "eos = venc_get_frame_config_eos(cfg)"),
    {NULL, NULL, 0, NULL},
};

#else /* !OPENACL_PY_MEDIA: libacl_dvpp was not built (python/part.cmake) */

PyMethodDef pa_media_methods[] = {{NULL, NULL, 0, NULL}};

#endif
