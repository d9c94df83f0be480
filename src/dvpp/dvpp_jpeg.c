/* JPEG decode and encode with libjpeg-turbo's TurboJPEG API, which decodes
 * straight to planar YUV at the file's own subsampling (no colour
 * conversion, no upsampling): the planes are then laid out as the
 * semi-planar format asked for, averaging chroma where the output is
 * subsampled more than the file. Encoding goes the other way from NV12/NV21
 * or packed 4:2:2 planes.
 *
 * Decoding to a semi-planar format (documented in docs/dvpp.md):
 *  - output width/height: the file's, made even where the output format
 *    subsamples chroma (channel precision mode: drop the last column/row by
 *    default, repeat it with ACL_YUVOUT_ALIGN_UP);
 *  - widthStride = align128(width), heightStride = align16(height);
 *  - each output chroma sample is the rounded mean of the file's chroma
 *    samples it covers ((sum + n/2) / n); a gray file gives chroma 0x80. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libyuv/planar_functions.h>
#include <turbojpeg.h>

#include "dvpp/dvpp_priv.h"

#define JPEG_MIN 32
#define JPEG_MAX 8192

/* A JPEG as stored (w, h, subsamp, cs) and as displayed after its EXIF
 * orientation (dw, dh, chroma shifts dsx, dsy: swapped by a quarter turn). */
typedef struct {
    int w, h, subsamp, cs;
    int orient; /* EXIF orientation 1..8 (1: as stored) */
    int dw, dh, dsx, dsy;
} jpeg_info;

static uint32_t rd16(const uint8_t *p, int le) { return le ? (uint32_t)p[0] | p[1] << 8 : (uint32_t)p[0] << 8 | p[1]; }
static uint32_t rd32(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The Orientation tag (0x0112) of IFD0 in an APP1 "Exif" segment before the
 * first scan; 1 when there is none or anything is out of bounds. */
static int exif_orientation(const uint8_t *d, size_t n)
{
    if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return 1;
    size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xFF) {
            i++;
            continue;
        }
        uint8_t m = d[i + 1];
        if (m == 0xFF) { /* fill byte */
            i++;
            continue;
        }
        if (m == 0xDA || m == 0xD9) return 1; /* scan or end: no EXIF before the image data */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
            i += 2;
            continue;
        }
        size_t len = (size_t)d[i + 2] << 8 | d[i + 3];
        if (len < 2 || i + 2 + len > n) return 1;
        const uint8_t *seg = d + i + 4;
        size_t sl = len - 2;
        if (m == 0xE1 && sl >= 14 && memcmp(seg, "Exif\0\0", 6) == 0) {
            const uint8_t *t = seg + 6;
            size_t tl = sl - 6;
            int le = t[0] == 'I' && t[1] == 'I';
            if (!le && !(t[0] == 'M' && t[1] == 'M')) return 1;
            if (rd16(t + 2, le) != 42) return 1;
            uint32_t ifd = rd32(t + 4, le);
            if (ifd > tl || tl - ifd < 2) return 1;
            uint32_t cnt = rd16(t + ifd, le);
            for (uint32_t e = 0; e < cnt; e++) {
                size_t at = (size_t)ifd + 2 + (size_t)e * 12;
                if (at + 12 > tl) return 1;
                if (rd16(t + at, le) == 0x0112 && rd16(t + at + 2, le) == 3) {
                    uint32_t v = rd16(t + at + 8, le);
                    return v >= 1 && v <= 8 ? (int)v : 1;
                }
            }
            return 1;
        }
        i += 2 + len;
    }
    return 1;
}

/* 1 when a frame header (SOFn) comes before the first scan and lies wholly
 * in the data: TurboJPEG 2.1 answers a header request on data cut inside
 * the header with success and sizes left from nowhere. */
static int jpeg_has_frame(const uint8_t *d, size_t n)
{
    if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return 0;
    size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xFF) { /* stray bytes between segments: libjpeg skips them too */
            i++;
            continue;
        }
        uint8_t m = d[i + 1];
        if (m == 0xFF) {
            i++;
            continue;
        }
        if (m == 0xDA || m == 0xD9) return 0;
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
            i += 2;
            continue;
        }
        size_t len = (size_t)d[i + 2] << 8 | d[i + 3];
        if (len < 2 || i + 2 + len > n) return 0;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) return len >= 8;
        i += 2 + len;
    }
    return 0;
}

/* Chroma subsampling shifts of a TurboJPEG subsampling. */
static void tj_shift(int subsamp, int *sx, int *sy)
{
    *sx = tjMCUWidth[subsamp] / 8 - 1;
    *sy = tjMCUHeight[subsamp] / 8 - 1;
}

static int jpeg_header(const char *api, tjhandle tj, const void *data, uint32_t size, jpeg_info *ji)
{
    if (!jpeg_has_frame(data, size))
        return DV_FAIL(ACL_ERROR_FAILURE, "%s: the data (%u bytes) has no complete JPEG frame header before its image data",
                       api, size);
    if (tjDecompressHeader3(tj, (const unsigned char *)data, size, &ji->w, &ji->h, &ji->subsamp, &ji->cs) != 0)
        return DV_FAIL(ACL_ERROR_FAILURE, "%s: not a readable JPEG (%u bytes): %s", api, size, tjGetErrorStr2(tj));
    /* TurboJPEG 2.1 reports success for data that ends before the frame header */
    if (ji->w < 1 || ji->h < 1)
        return DV_FAIL(ACL_ERROR_FAILURE, "%s: the JPEG data (%u bytes) ends before its frame header", api, size);
    ji->orient = exif_orientation(data, size);
    int quarter = ji->orient >= 5;
    int sx = 0, sy = 0;
    if (ji->subsamp >= 0 && ji->subsamp < TJ_NUMSAMP) tj_shift(ji->subsamp, &sx, &sy);
    ji->dw = quarter ? ji->h : ji->w;
    ji->dh = quarter ? ji->w : ji->h;
    ji->dsx = quarter ? sy : sx;
    ji->dsy = quarter ? sx : sy;
    return ACL_SUCCESS;
}

/* What the decoder can take: YCbCr or gray, a subsampling it lays out, a size in range. */
static int jpeg_supported(const char *api, const jpeg_info *ji)
{
    if (ji->cs != TJCS_YCbCr && ji->cs != TJCS_GRAY)
        return DV_FAIL(ACL_ERROR_UNSUPPORTED_JPEG, "%s: the JPEG's colour space is %s; only YCbCr and gray decode",
                       api, ji->cs == TJCS_RGB ? "RGB" : ji->cs == TJCS_CMYK ? "CMYK" : "YCCK");
    if (ji->subsamp != TJSAMP_444 && ji->subsamp != TJSAMP_422 && ji->subsamp != TJSAMP_420 &&
        ji->subsamp != TJSAMP_GRAY && ji->subsamp != TJSAMP_440)
        return DV_FAIL(ACL_ERROR_UNSUPPORTED_JPEG,
                       "%s: the JPEG's chroma subsampling (%s) is not 4:4:4, 4:2:2, 4:2:0, 4:4:0 or gray", api,
                       ji->subsamp == TJSAMP_411 ? "4:1:1" : "unusual sampling factors");
    if (ji->w < JPEG_MIN || ji->h < JPEG_MIN || ji->w > JPEG_MAX || ji->h > JPEG_MAX)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: the JPEG is %dx%d; JPEG decode takes %dx%d to %dx%d", api, ji->w,
                       ji->h, JPEG_MIN, JPEG_MIN, JPEG_MAX, JPEG_MAX);
    return ACL_SUCCESS;
}

typedef struct {
    const dv_fmt *f;
    uint32_t w, h, ws, hs;
    uint64_t need;
} jpegd_plan;

static int jpegd_plan_make(const char *api, const jpeg_info *ji, acldvppPixelFormat req, uint32_t precision,
                           jpegd_plan *p)
{
    /* everything below is about the displayed picture (after EXIF orientation) */
    int sx = ji->dsx, sy = ji->dsy, gray = ji->subsamp == TJSAMP_GRAY;
    static const char *const css[2][2] = {{"4:4:4", "4:4:0"}, {"4:2:2", "4:2:0"}};
    if (req == PIXEL_FORMAT_UNKNOWN) { /* keep the subsampling, V before U */
        static const acldvppPixelFormat keep[2][2] = {
            {PIXEL_FORMAT_YVU_SEMIPLANAR_444, PIXEL_FORMAT_YVU_SEMIPLANAR_440},
            {PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YVU_SEMIPLANAR_420}};
        req = gray ? PIXEL_FORMAT_YVU_SEMIPLANAR_420 : keep[sx][sy];
    }
    const dv_fmt *f = dv_fmt_get(req);
    if (f && f->kind == DV_K_SP && !gray && (f->sx < sx || f->sy < sy))
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                       "%s: a JPEG with %s chroma%s cannot be decoded to %s (it would need chroma upsampling); use "
                       "YUV/YVU_SEMIPLANAR_420 or PIXEL_FORMAT_UNKNOWN",
                       api, css[sx][sy], ji->orient >= 5 ? " (as displayed: its EXIF orientation turns it)" : "",
                       f->name);
    p->f = f;
    p->w = (uint32_t)ji->dw;
    p->h = (uint32_t)ji->dh;
    int up = precision == ACL_YUVOUT_ALIGN_UP;
    if (f->kind == DV_K_SP && f->sx && (p->w & 1)) p->w = up ? p->w + 1 : p->w - 1;
    if (f->kind == DV_K_SP && f->sy && (p->h & 1)) p->h = up ? p->h + 1 : p->h - 1;
    p->ws = dv_align(p->w, 128);
    p->hs = dv_align(p->h, 16);
    p->need = (uint64_t)p->ws * p->hs * f->size_num / f->size_den;
    return ACL_SUCCESS;
}

static const acldvppPixelFormat k_jpegd_out[] = {
    PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420, PIXEL_FORMAT_YUV_SEMIPLANAR_422,
    PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YUV_SEMIPLANAR_444, PIXEL_FORMAT_YVU_SEMIPLANAR_444,
    PIXEL_FORMAT_YUV_SEMIPLANAR_440, PIXEL_FORMAT_YVU_SEMIPLANAR_440, PIXEL_FORMAT_YUV_400,
    PIXEL_FORMAT_UNKNOWN};

static int jpegd_format_ok(acldvppPixelFormat f)
{
    if (f == PIXEL_FORMAT_UNKNOWN) return 1;
    for (const acldvppPixelFormat *p = k_jpegd_out; *p != PIXEL_FORMAT_UNKNOWN; p++)
        if (*p == f) return 1;
    return 0;
}

static int jpegd_format_fail(const char *api, acldvppPixelFormat f)
{
    return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                   "%s: JPEG decode output format %s is not one of YUV/YVU_SEMIPLANAR_420, _422, _444, _440, YUV_400 "
                   "or UNKNOWN",
                   api, dv_fmt_name(f));
}

/* ------------------------------------------------------------ info and size prediction */

static int jpeg_info_common(const char *api, const void *data, uint32_t size, uint32_t *width, uint32_t *height,
                            int32_t *components, acldvppJpegFormat *format, int want_format)
{
    if (!data || size == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or size is 0", api);
    if (!width || !height || !components || (want_format && !format))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: an output pointer is NULL", api);
    tjhandle tj = tjInitDecompress();
    if (!tj) return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: cannot create a JPEG decoder", api);
    jpeg_info ji;
    int rc = jpeg_header(api, tj, data, size, &ji);
    tjDestroy(tj);
    if (rc) return rc;
    *width = (uint32_t)ji.dw;
    *height = (uint32_t)ji.dh;
    *components = ji.cs == TJCS_GRAY ? 1 : (ji.cs == TJCS_CMYK || ji.cs == TJCS_YCCK) ? 4 : 3;
    if (want_format)
        *format = (ji.subsamp >= TJSAMP_444 && ji.subsamp <= TJSAMP_411) ? (acldvppJpegFormat)ji.subsamp
                                                                          : ACL_JPEG_CSS_UNKNOWN;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfo(const void *data, uint32_t size, uint32_t *width, uint32_t *height,
                                                     int32_t *components)
{
    return jpeg_info_common("acldvppJpegGetImageInfo", data, size, width, height, components, NULL, 0);
}

ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfoV2(const void *data, uint32_t size, uint32_t *width,
                                                       uint32_t *height, int32_t *components,
                                                       acldvppJpegFormat *format)
{
    return jpeg_info_common("acldvppJpegGetImageInfoV2", data, size, width, height, components, format, 1);
}

ACL_FUNC_VISIBILITY aclError acldvppJpegPredictDecSize(const void *data, uint32_t dataSize,
                                                       acldvppPixelFormat outputPixelFormat, uint32_t *decSize)
{
    static const char api[] = "acldvppJpegPredictDecSize";
    if (!data || dataSize == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or dataSize is 0", api);
    if (!decSize) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: decSize is NULL", api);
    if (!jpegd_format_ok(outputPixelFormat)) return jpegd_format_fail(api, outputPixelFormat);
    tjhandle tj = tjInitDecompress();
    if (!tj) return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: cannot create a JPEG decoder", api);
    jpeg_info ji;
    int rc = jpeg_header(api, tj, data, dataSize, &ji);
    tjDestroy(tj);
    if (rc || (rc = jpeg_supported(api, &ji))) return rc;
    jpegd_plan p;
    /* predicted for the rounding-up precision mode, the larger of the two,
     * so the size fits whichever mode the channel uses */
    if ((rc = jpegd_plan_make(api, &ji, outputPixelFormat, ACL_YUVOUT_ALIGN_UP, &p))) return rc;
    *decSize = (uint32_t)p.need;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------ decode */

typedef struct {
    const uint8_t *src;
    uint32_t src_size;
    acldvppPicDesc *out_desc;
    uint8_t *out;
    uint32_t out_size;
    acldvppPixelFormat req;
    uint32_t precision;
} jpegd_task;

/* Output chroma plane from the file's planes, averaging the samples each covers. */
static void chroma_reduce(const uint8_t *src, int sstride, int scw, int sch, int rx, int ry, uint8_t *dst,
                          int dstride, int dcw, int dch)
{
    int n = (1 << rx) << ry;
    for (int y = 0; y < dch; y++) {
        uint8_t *d = dst + (size_t)y * dstride;
        for (int x = 0; x < dcw; x++) {
            int sum = 0;
            for (int j = 0; j < (1 << ry); j++) {
                int yy = (y << ry) + j;
                if (yy >= sch) yy = sch - 1;
                const uint8_t *row = src + (size_t)yy * sstride;
                for (int i = 0; i < (1 << rx); i++) {
                    int xx = (x << rx) + i;
                    sum += row[xx < scw ? xx : scw - 1];
                }
            }
            d[2 * x] = (uint8_t)((sum + n / 2) / n);
        }
    }
}

/* out = in (w x h) turned as EXIF orientation o says the picture is shown:
 * out(x, y) = in(sx, sy) with sx, sy affine in x, y; a quarter turn (5..8)
 * makes it h x w. */
static void orient_plane(const uint8_t *in, int istride, int w, int h, int o, uint8_t *out, int ostride)
{
    /* sx = ax + bx*x + cx*y, sy = ay + by*x + cy*y */
    static const int8_t k[9][6] = {
        {0, 1, 0, 0, 0, 1},   {0, 1, 0, 0, 0, 1},    {1, -1, 0, 0, 0, 1},  {1, -1, 0, 1, 0, -1},
        {0, 1, 0, 1, 0, -1},  {0, 0, 1, 0, 1, 0},    {0, 0, 1, 1, -1, 0},  {1, 0, -1, 1, -1, 0},
        {1, 0, -1, 0, 1, 0}};
    const int8_t *c = k[o];
    ptrdiff_t ax = c[0] ? w - 1 : 0, ay = c[3] ? h - 1 : 0;
    ptrdiff_t stepx = (ptrdiff_t)c[4] * istride + c[1], stepy = (ptrdiff_t)c[5] * istride + c[2];
    int ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
    for (int y = 0; y < oh; y++) {
        const uint8_t *s = in + ay * istride + ax + (ptrdiff_t)y * stepy;
        uint8_t *d = out + (size_t)y * ostride;
        for (int x = 0; x < ow; x++, s += stepx) d[x] = *s;
    }
}

static int jpegd_run(void *arg)
{
    static const char api[] = "acldvppJpegDecodeAsync";
    jpegd_task *t = arg;
    int rc;
    uint8_t *buf = NULL;
    tjhandle tj = tjInitDecompress();
    if (!tj) {
        rc = DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: cannot create a JPEG decoder", api);
        goto out;
    }
    jpeg_info ji;
    jpegd_plan p;
    if ((rc = jpeg_header(api, tj, t->src, t->src_size, &ji)) || (rc = jpeg_supported(api, &ji)) ||
        (rc = jpegd_plan_make(api, &ji, t->req, t->precision, &p)))
        goto out;
    if (p.need > t->out_size) {
        rc = DV_FAIL(ACL_ERROR_INVALID_PARAM,
                     "%s: the %dx%d JPEG decodes to %s %ux%u (widthStride %u, heightStride %u) = %llu bytes; the "
                     "output picture holds %u (see acldvppJpegPredictDecSize)",
                     api, ji.w, ji.h, p.f->name, p.w, p.h, p.ws, p.hs, (unsigned long long)p.need, t->out_size);
        goto out;
    }
    int np = ji.subsamp == TJSAMP_GRAY ? 1 : 3;
    int pw[3], ph[3];
    size_t off[3], total = 0;
    for (int c = 0; c < np; c++) {
        pw[c] = tjPlaneWidth(c, ji.w, ji.subsamp);
        ph[c] = tjPlaneHeight(c, ji.h, ji.subsamp);
        off[c] = total;
        total += (size_t)pw[c] * ph[c];
    }
    buf = malloc(total * (ji.orient != 1 ? 2 : 1));
    if (!buf) {
        rc = DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the %dx%d decoded planes", api, ji.w, ji.h);
        goto out;
    }
    unsigned char *planes[3] = {buf + off[0], np > 1 ? buf + off[1] : NULL, np > 1 ? buf + off[2] : NULL};
    if (tjDecompressToYUVPlanes(tj, t->src, t->src_size, planes, ji.w, pw, ji.h,
                                TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
        rc = DV_FAIL(ACL_ERROR_FAILURE, "%s: the %dx%d JPEG (%u bytes) does not decode: %s", api, ji.w, ji.h,
                     t->src_size, tjGetErrorStr2(tj));
        goto out;
    }
    /* the displayed planes: luma W x H, chroma cw x ch (each plane turned as a whole) */
    int W = ji.w, H = ji.h, cw = np > 1 ? pw[1] : 0, ch = np > 1 ? ph[1] : 0;
    int ystride = pw[0], cstride_in = cw;
    if (ji.orient != 1) {
        uint8_t *tb = buf + total;
        orient_plane(planes[0], pw[0], W, H, ji.orient, tb, ji.dw);
        for (int c = 1; c < np; c++)
            orient_plane(planes[c], pw[1], cw, ch, ji.orient, tb + off[c], ji.orient >= 5 ? ch : cw);
        for (int c = 0; c < np; c++) planes[c] = tb + off[c];
        if (ji.orient >= 5) {
            int t2 = cw;
            cw = ch, ch = t2;
        }
        W = ji.dw, H = ji.dh, ystride = W, cstride_in = cw;
    }
    /* luma: the picture's rows, the last column/row repeated when rounding up */
    for (uint32_t y = 0; y < p.h; y++) {
        const uint8_t *s = planes[0] + (size_t)(y < (uint32_t)H ? y : (uint32_t)H - 1) * ystride;
        uint8_t *d = t->out + (size_t)y * p.ws;
        uint32_t n = p.w < (uint32_t)W ? p.w : (uint32_t)W;
        memcpy(d, s, n);
        if (p.w > n) memset(d + n, s[n - 1], p.w - n);
    }
    if (p.f->kind == DV_K_SP) {
        int ocw = (int)p.w >> p.f->sx, och = (int)p.h >> p.f->sy, cs = (int)dv_cstride(p.f, p.ws);
        uint8_t *uv = t->out + (size_t)p.ws * p.hs;
        if (np == 1) {
            for (int y = 0; y < och; y++) memset(uv + (size_t)y * cs, 0x80, (size_t)ocw * 2);
        } else {
            int sx = ji.dsx, sy = ji.dsy;
            uint8_t *first = p.f->vu ? planes[2] : planes[1], *second = p.f->vu ? planes[1] : planes[2];
            if (sx == p.f->sx && sy == p.f->sy) {
                MergeUVPlane(first, cstride_in, second, cstride_in, uv, cs, ocw, och);
            } else {
                chroma_reduce(first, cstride_in, cw, ch, p.f->sx - sx, p.f->sy - sy, uv, cs, ocw, och);
                chroma_reduce(second, cstride_in, cw, ch, p.f->sx - sx, p.f->sy - sy, uv + 1, cs, ocw, och);
            }
        }
    }
    t->out_desc->width = p.w;
    t->out_desc->height = p.h;
    t->out_desc->width_stride = p.ws;
    t->out_desc->height_stride = p.hs;
    t->out_desc->format = p.f->fmt;
out:
    t->out_desc->ret_code = (uint32_t)rc;
    free(buf);
    if (tj) tjDestroy(tj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError acldvppJpegDecodeAsync(acldvppChannelDesc *channelDesc, const void *data, uint32_t size,
                                                    acldvppPicDesc *outputDesc, aclrtStream stream)
{
    static const char api[] = "acldvppJpegDecodeAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_JPEGD))) return rc;
    if (!data || size == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or size is 0", api);
    if ((rc = dv_check_media_mem(api, "JPEG data", data, size))) return rc;
    if (!outputDesc || outputDesc->magic != DV_MAGIC_PIC)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc %p is not a live acldvppPicDesc", api,
                       (void *)outputDesc);
    if (!jpegd_format_ok(outputDesc->format)) return jpegd_format_fail(api, outputDesc->format);
    if (!outputDesc->data || outputDesc->size == 0)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc has no data or size 0", api);
    if ((rc = dv_check_media_mem(api, "outputDesc data", outputDesc->data, outputDesc->size))) return rc;
    jpegd_task *t = calloc(1, sizeof(*t));
    if (!t) return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the task", api);
    t->src = data;
    t->src_size = size;
    t->out_desc = outputDesc;
    t->out = outputDesc->data;
    t->out_size = outputDesc->size;
    t->req = outputDesc->format;
    t->precision = channelDesc->precision;
    return dv_enqueue(api, stream, jpegd_run, free, t);
}

/* ------------------------------------------------------------ encode */

static const acldvppPixelFormat k_jpege_in[] = {PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420,
                                                PIXEL_FORMAT_YUYV_PACKED_422,    PIXEL_FORMAT_UYVY_PACKED_422,
                                                PIXEL_FORMAT_YVYU_PACKED_422,    PIXEL_FORMAT_VYUY_PACKED_422,
                                                PIXEL_FORMAT_UNKNOWN};

/* Format, size and stride checks shared by PredictEncSize (no data needed) and EncodeAsync. */
static int jpege_check_desc(const char *api, const acldvppPicDesc *d, const dv_fmt **fo)
{
    if (!d) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: inputDesc is NULL", api);
    if (d->magic != DV_MAGIC_PIC)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: inputDesc %p is not a live acldvppPicDesc", api, (const void *)d);
    const dv_fmt *f = NULL;
    for (const acldvppPixelFormat *p = k_jpege_in; *p != PIXEL_FORMAT_UNKNOWN; p++)
        if (*p == d->format) f = dv_fmt_get(d->format);
    if (!f)
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                       "%s: JPEG encode input format %s is not NV12, NV21 or a packed 4:2:2 format", api,
                       dv_fmt_name(d->format));
    if (d->width < JPEG_MIN || d->height < JPEG_MIN || d->width > JPEG_MAX || d->height > JPEG_MAX)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: inputDesc is %ux%u; JPEG encode takes %dx%d to %dx%d", api,
                       d->width, d->height, JPEG_MIN, JPEG_MIN, JPEG_MAX, JPEG_MAX);
    if ((d->width & 1) || (f->sy && (d->height & 1)))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: inputDesc is %ux%u; %s needs an even %s", api, d->width,
                       d->height, f->name, (d->width & 1) ? "width" : "height");
    uint64_t row = (uint64_t)d->width * f->bpp;
    if (d->width_stride < row || d->width_stride % 16)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: inputDesc widthStride %u must be a multiple of 16 and at least %llu for %s of width %u",
                       api, d->width_stride, (unsigned long long)row, f->name, d->width);
    if (d->height_stride < d->height || (d->height_stride != d->height && d->height_stride % 16))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: inputDesc heightStride %u must equal the height %u or be a multiple of 16 above it", api,
                       d->height_stride, d->height);
    *fo = f;
    return ACL_SUCCESS;
}

static uint64_t jpege_bound(const acldvppPicDesc *d, const dv_fmt *f)
{
    /* CANN's rule (raw picture + 768 bytes, rounded up to 2 MiB) or
     * TurboJPEG's worst case, whichever is larger */
    uint64_t raw = (uint64_t)d->width_stride * d->height_stride * f->size_num / f->size_den;
    uint64_t cann = (raw + 768 + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    uint64_t tj = tjBufSize((int)d->width, (int)d->height, f->kind == DV_K_SP ? TJSAMP_420 : TJSAMP_422);
    return cann > tj ? cann : tj;
}

ACL_FUNC_VISIBILITY aclError acldvppJpegPredictEncSize(const acldvppPicDesc *inputDesc,
                                                       const acldvppJpegeConfig *config, uint32_t *size)
{
    static const char api[] = "acldvppJpegPredictEncSize";
    const dv_fmt *f;
    int rc = jpege_check_desc(api, inputDesc, &f);
    if (rc) return rc;
    if (!config || config->magic != DV_MAGIC_JPEGE)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: config %p is not a live acldvppJpegeConfig", api,
                       (const void *)config);
    if (!size) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: size is NULL", api);
    uint64_t b = jpege_bound(inputDesc, f);
    if (b > UINT32_MAX) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: the bound %llu does not fit 32 bits", api,
                                       (unsigned long long)b);
    *size = (uint32_t)b;
    return ACL_SUCCESS;
}

typedef struct {
    dv_pic in;
    uint8_t *out;
    uint32_t cap;
    uint32_t *size;
    int quality;
    acldvppPicDesc *in_desc;
} jpege_task;

static int jpege_run(void *arg)
{
    static const char api[] = "acldvppJpegEncodeAsync";
    jpege_task *t = arg;
    const dv_pic *p = &t->in;
    const dv_fmt *f = p->f;
    int rc = ACL_SUCCESS, w = (int)p->w, h = (int)p->h;
    int cw = w / 2, ch = f->sy ? h / 2 : h;
    unsigned char *jpg = NULL;
    unsigned long len = 0;
    uint8_t *tmp = malloc((size_t)cw * ch * 2 + (f->kind == DV_K_SP ? 0 : (size_t)w * h));
    tjhandle tj = tjInitCompress();
    if (!tmp || !tj) {
        rc = DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the %dx%d encoder", api, w, h);
        goto out;
    }
    const unsigned char *planes[3];
    int strides[3] = {(int)p->ws, cw, cw};
    uint8_t *u = tmp, *v = tmp + (size_t)cw * ch;
    if (f->kind == DV_K_SP) {
        planes[0] = p->data;
        const uint8_t *uv = p->data + (size_t)p->ws * p->hs;
        if (f->vu)
            SplitUVPlane(uv, (int)p->ws, v, cw, u, cw, cw, ch);
        else
            SplitUVPlane(uv, (int)p->ws, u, cw, v, cw, cw, ch);
    } else {
        uint8_t *y = tmp + (size_t)cw * ch * 2;
        for (int j = 0; j < h; j++) {
            const uint8_t *row = p->data + (size_t)j * p->ws;
            for (int i = 0; i < cw; i++) {
                const uint8_t *q = row + 4 * i;
                y[(size_t)j * w + 2 * i] = q[f->off[0]];
                y[(size_t)j * w + 2 * i + 1] = q[f->off[2]];
                u[(size_t)j * cw + i] = q[f->off[1]];
                v[(size_t)j * cw + i] = q[f->off[3]];
            }
        }
        planes[0] = y;
        strides[0] = w;
    }
    planes[1] = u, planes[2] = v;
    if (tjCompressFromYUVPlanes(tj, planes, w, strides, h, f->kind == DV_K_SP ? TJSAMP_420 : TJSAMP_422, &jpg, &len,
                                t->quality, 0) != 0) {
        rc = DV_FAIL(ACL_ERROR_FAILURE, "%s: encoding the %dx%d picture failed: %s", api, w, h, tjGetErrorStr2(tj));
        goto out;
    }
    if (len > t->cap) {
        rc = DV_FAIL(ACL_ERROR_INVALID_PARAM,
                     "%s: the encoded JPEG is %lu bytes; the output buffer holds %u (see acldvppJpegPredictEncSize)",
                     api, len, t->cap);
        goto out;
    }
    memcpy(t->out, jpg, len);
    *t->size = (uint32_t)len;
out:
    t->in_desc->ret_code = (uint32_t)rc;
    if (jpg) tjFree(jpg);
    if (tj) tjDestroy(tj);
    free(tmp);
    return rc;
}

ACL_FUNC_VISIBILITY aclError acldvppJpegEncodeAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                    const void *data, uint32_t *size, acldvppJpegeConfig *config,
                                                    aclrtStream stream)
{
    static const char api[] = "acldvppJpegEncodeAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_JPEGE))) return rc;
    const dv_fmt *f;
    if ((rc = jpege_check_desc(api, inputDesc, &f))) return rc;
    dv_pic_rule rule = {api, "inputDesc", k_jpege_in, JPEG_MIN, JPEG_MIN, JPEG_MAX, JPEG_MAX, 0, 0};
    dv_pic in;
    if ((rc = dv_pic_check(&rule, inputDesc, &in))) return rc;
    if (!config || config->magic != DV_MAGIC_JPEGE)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: config %p is not a live acldvppJpegeConfig", api, (void *)config);
    if (!data || !size || *size == 0)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data or size is NULL, or *size (the buffer capacity) is 0", api);
    if ((rc = dv_check_media_mem(api, "output data", data, *size))) return rc;
    jpege_task *t = calloc(1, sizeof(*t));
    if (!t) return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the task", api);
    t->in = in;
    t->out = (uint8_t *)data;
    t->cap = *size;
    t->size = size;
    t->quality = config->level == 0 ? 100 : (int)config->level;
    t->in_desc = inputDesc;
    return dv_enqueue(api, stream, jpege_run, free, t);
}
