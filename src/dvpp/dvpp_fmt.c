/* Pixel-format table and the checks every operation makes on its pictures,
 * handles and buffers before anything is queued, so that a bad argument is
 * an immediate error with a message, never a task that fails later. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dvpp/dvpp_priv.h"

#define RGBOFF(r, g, b, a) {r, g, b, a}
static const dv_fmt k_fmts[] = {
    {PIXEL_FORMAT_YUV_400, "PIXEL_FORMAT_YUV_400", DV_K_Y400, 1, 0, 0, 0, {0}, 1, 1},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_420, "PIXEL_FORMAT_YUV_SEMIPLANAR_420", DV_K_SP, 1, 1, 1, 0, {0}, 3, 2},
    {PIXEL_FORMAT_YVU_SEMIPLANAR_420, "PIXEL_FORMAT_YVU_SEMIPLANAR_420", DV_K_SP, 1, 1, 1, 1, {0}, 3, 2},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_422, "PIXEL_FORMAT_YUV_SEMIPLANAR_422", DV_K_SP, 1, 1, 0, 0, {0}, 2, 1},
    {PIXEL_FORMAT_YVU_SEMIPLANAR_422, "PIXEL_FORMAT_YVU_SEMIPLANAR_422", DV_K_SP, 1, 1, 0, 1, {0}, 2, 1},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_444, "PIXEL_FORMAT_YUV_SEMIPLANAR_444", DV_K_SP, 1, 0, 0, 0, {0}, 3, 1},
    {PIXEL_FORMAT_YVU_SEMIPLANAR_444, "PIXEL_FORMAT_YVU_SEMIPLANAR_444", DV_K_SP, 1, 0, 0, 1, {0}, 3, 1},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_440, "PIXEL_FORMAT_YUV_SEMIPLANAR_440", DV_K_SP, 1, 0, 1, 0, {0}, 2, 1},
    {PIXEL_FORMAT_YVU_SEMIPLANAR_440, "PIXEL_FORMAT_YVU_SEMIPLANAR_440", DV_K_SP, 1, 0, 1, 1, {0}, 2, 1},
    /* packed 4:2:2: byte offsets of Y0, U, Y1, V in each 4-byte pair of pixels */
    {PIXEL_FORMAT_YUYV_PACKED_422, "PIXEL_FORMAT_YUYV_PACKED_422", DV_K_PACK422, 2, 1, 0, 0, {0, 1, 2, 3}, 1, 1},
    {PIXEL_FORMAT_UYVY_PACKED_422, "PIXEL_FORMAT_UYVY_PACKED_422", DV_K_PACK422, 2, 1, 0, 0, {1, 0, 3, 2}, 1, 1},
    {PIXEL_FORMAT_YVYU_PACKED_422, "PIXEL_FORMAT_YVYU_PACKED_422", DV_K_PACK422, 2, 1, 0, 0, {0, 3, 2, 1}, 1, 1},
    {PIXEL_FORMAT_VYUY_PACKED_422, "PIXEL_FORMAT_VYUY_PACKED_422", DV_K_PACK422, 2, 1, 0, 0, {1, 2, 3, 0}, 1, 1},
    {PIXEL_FORMAT_YUV_PACKED_444, "PIXEL_FORMAT_YUV_PACKED_444", DV_K_PACK444, 3, 0, 0, 0, {0}, 1, 1},
    {PIXEL_FORMAT_RGB_888, "PIXEL_FORMAT_RGB_888", DV_K_RGB, 3, 0, 0, 0, RGBOFF(0, 1, 2, -1), 1, 1},
    {PIXEL_FORMAT_BGR_888, "PIXEL_FORMAT_BGR_888", DV_K_RGB, 3, 0, 0, 0, RGBOFF(2, 1, 0, -1), 1, 1},
    {PIXEL_FORMAT_ARGB_8888, "PIXEL_FORMAT_ARGB_8888", DV_K_RGB, 4, 0, 0, 0, RGBOFF(1, 2, 3, 0), 1, 1},
    {PIXEL_FORMAT_ABGR_8888, "PIXEL_FORMAT_ABGR_8888", DV_K_RGB, 4, 0, 0, 0, RGBOFF(3, 2, 1, 0), 1, 1},
    {PIXEL_FORMAT_RGBA_8888, "PIXEL_FORMAT_RGBA_8888", DV_K_RGB, 4, 0, 0, 0, RGBOFF(0, 1, 2, 3), 1, 1},
    {PIXEL_FORMAT_BGRA_8888, "PIXEL_FORMAT_BGRA_8888", DV_K_RGB, 4, 0, 0, 0, RGBOFF(2, 1, 0, 3), 1, 1},
};

const dv_fmt *dv_fmt_get(acldvppPixelFormat fmt)
{
    for (size_t i = 0; i < sizeof(k_fmts) / sizeof(k_fmts[0]); i++)
        if (k_fmts[i].fmt == fmt) return &k_fmts[i];
    return NULL;
}

const char *dv_fmt_name(acldvppPixelFormat fmt)
{
    static __thread char buf[64];
    const dv_fmt *f = dv_fmt_get(fmt);
    if (f) {
        snprintf(buf, sizeof(buf), "%s (%d)", f->name, (int)fmt);
    } else if (fmt == PIXEL_FORMAT_UNKNOWN) {
        snprintf(buf, sizeof(buf), "PIXEL_FORMAT_UNKNOWN (%d)", (int)fmt);
    } else if (fmt == PIXEL_FORMAT_YUV_SEMI_PLANNER_420_10BIT || fmt == PIXEL_FORMAT_YVU_SEMI_PLANNER_420_10BIT) {
        snprintf(buf, sizeof(buf), "10-bit YUV 4:2:0 (%d)", (int)fmt);
    } else {
        snprintf(buf, sizeof(buf), "format %d", (int)fmt);
    }
    return buf;
}

static void fmt_list(const acldvppPixelFormat *formats, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (const acldvppPixelFormat *p = formats; *p != PIXEL_FORMAT_UNKNOWN && n + 1 < cap; p++) {
        const dv_fmt *f = dv_fmt_get(*p);
        int k = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", f ? f->name + 13 : "?"); /* drop "PIXEL_FORMAT_" */
        if (k < 0) break;
        n += (size_t)k;
    }
}

int dv_check_media_mem(const char *api, const char *what, const void *p, size_t len)
{
    int kind = 0;
    int32_t dev = -1;
    if (openacl_ext_mem_query(p, len, &kind, &dev) != ACL_SUCCESS)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s %p with %zu bytes runs past the end of its acldvppMalloc allocation", api, what, p,
                       len);
    if (kind != OPENACL_EXT_MEM_DVPP) {
        const char *is = kind == OPENACL_EXT_MEM_DEVICE ? "device memory from aclrtMalloc"
                         : kind == OPENACL_EXT_MEM_HOST ? "host memory from aclrtMallocHost"
                                                        : "ordinary host memory";
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is %s; media operations need memory from acldvppMalloc",
                       api, what, p, is);
    }
    return ACL_SUCCESS;
}

int dv_pic_check(const dv_pic_rule *r, const acldvppPicDesc *d, dv_pic *out)
{
    const char *api = r->api, *role = r->role;
    if (!d) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, role);
    if (d->magic != DV_MAGIC_PIC)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live acldvppPicDesc", api, role, (const void *)d);
    int allowed = 0;
    for (const acldvppPixelFormat *p = r->formats; *p != PIXEL_FORMAT_UNKNOWN; p++)
        if (*p == d->format) allowed = 1;
    const dv_fmt *f = dv_fmt_get(d->format);
    if (!allowed || !f) {
        char list[512];
        fmt_list(r->formats, list, sizeof(list));
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH, "%s: %s format %s is not accepted here; accepted: %s", api, role,
                       dv_fmt_name(d->format), list);
    }
    if (!d->data) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s has no data (acldvppSetPicDescData)", api, role);
    uint32_t w = d->width, h = d->height;
    int nv = d->format == PIXEL_FORMAT_YUV_SEMIPLANAR_420 || d->format == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
    uint32_t max_w = r->max_w, max_h = r->max_h;
    if (nv && r->max_w_8k) {
        max_w = r->max_w_8k;
        max_h = r->max_h_8k;
    }
    if (w < r->min_w || w > max_w || h < r->min_h || h > max_h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is %ux%u; %s needs %ux%u to %ux%u", api, role, w, h,
                       f->name, r->min_w, r->min_h, max_w, max_h);
    if ((f->sx && (w & 1)) || (f->sy && (h & 1)))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is %ux%u; %s needs an even %s", api, role, w, h, f->name,
                       (f->sx && (w & 1)) ? "width" : "height");
    uint32_t ws = d->width_stride, hs = d->height_stride;
    uint64_t row = (uint64_t)w * f->bpp;
    int big = w > 4096 || h > 4096;
    uint32_t wal = big ? 2 : 16;
    if (ws < row || ws % wal || ws > 16384)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s widthStride %u is invalid for %s of width %u: it must be a multiple of %u, at least "
                       "%" PRIu64 " (width * %u bytes) and at most 16384",
                       api, role, ws, f->name, w, wal, row, (unsigned)f->bpp);
    if (hs < h || (f->sy && (hs & 1)) || hs > 16384)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s heightStride %u is invalid for %s of height %u: it must be at least the height, at "
                       "most 16384%s",
                       api, role, hs, f->name, h, f->sy ? " and even" : "");
    uint64_t need = (uint64_t)ws * hs * f->size_num / f->size_den;
    if (d->size < need)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s size %u is too small for %s %ux%u: widthStride %u * heightStride %u * %u/%u = "
                       "%" PRIu64 " bytes",
                       api, role, d->size, f->name, w, h, ws, hs, (unsigned)f->size_num, (unsigned)f->size_den,
                       need);
    char what[96];
    snprintf(what, sizeof(what), "%s data", role);
    int rc = dv_check_media_mem(api, what, d->data, d->size);
    if (rc) return rc;
    out->data = (uint8_t *)d->data;
    out->size = d->size;
    out->f = f;
    out->w = w;
    out->h = h;
    out->ws = ws;
    out->hs = hs;
    return ACL_SUCCESS;
}

int dv_check_channel(const char *api, const acldvppChannelDesc *ch, uint32_t need_mode)
{
    if (!ch) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelDesc is NULL", api);
    if (ch->magic != DV_MAGIC_CHAN)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelDesc %p is not a live acldvppChannelDesc", api,
                       (const void *)ch);
    if (!ch->created)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channelDesc %p has no channel: call acldvppCreateChannel first",
                       api, (const void *)ch);
    if (ch->mode && !(ch->mode & need_mode))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: channel %" PRIu64 " was created with mode 0x%x, without 0x%x",
                       api, ch->id, ch->mode, need_mode);
    return ACL_SUCCESS;
}

int dv_check_roi(const char *api, const char *what, const acldvppRoiConfig *roi)
{
    if (!roi) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, what);
    if (roi->magic != DV_MAGIC_ROI)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live acldvppRoiConfig", api, what,
                       (const void *)roi);
    if (roi->right < roi->left || roi->bottom < roi->top)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s (left %u, right %u, top %u, bottom %u) is empty", api, what,
                       roi->left, roi->right, roi->top, roi->bottom);
    return ACL_SUCCESS;
}

int dv_enqueue(const char *api, aclrtStream stream, int (*fn)(void *), void (*release)(void *), void *arg)
{
    int rc = openacl_ext_stream_enqueue(api, stream, fn, release, arg, api, NULL);
    if (rc != ACL_SUCCESS && release) release(arg);
    return rc;
}
