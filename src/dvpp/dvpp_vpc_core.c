/* The VPC engine: take a region of one picture, scale it and write it into
 * a region of another, converting the pixel format on the way; fill borders
 * around a region; one Gaussian pyramid step. Runs on a stream's worker,
 * after dvpp_vpc.c has checked every argument.
 *
 * Scaling happens in the input's family, so a large picture is reduced
 * before it is converted. Bilinear is dvpp_scale.c's (OpenCV's
 * INTER_LINEAR), which scales interleaved chroma pairs and ARGB pixels as
 * they are; nearest is libyuv's ScalePlane point sampling, one 8-bit plane
 * at a time (chroma pairs and RGB pixels split into planes and merged back;
 * libyuv's interleaved scalers drop their filters' rounding). Semi-planar
 * luma is scaled in place. YUV<->RGB uses the channel's matrix in
 * 16.16 fixed point (libyuv's own YUV->RGB keeps 6-bit coefficients and
 * clips the blue one of narrow-range BT.709/BT.2020: up to 11 levels off on
 * saturated blues). */
#include <stdlib.h>
#include <string.h>

#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>

#include "dvpp/dvpp_priv.h"

/* Interpolation of acldvppResizeConfig -> filter. DVPP's modes 1/3
 * (bilinear, OpenCV- and TensorFlow-like) and the default 0 are bilinear
 * (dv_scale_bilinear); 2/4 (nearest) libyuv's point sampling, the pixel
 * under each destination centre (OpenCV's INTER_NEAREST_EXACT). */
static enum FilterMode vpc_filter(int interp) { return (interp == 2 || interp == 4) ? kFilterNone : kFilterBilinear; }

/* RGB -> YUV in 16.16 fixed point: rows Y, U, V of (R, G, B) weights and an
 * offset (with the rounding half), from the standard Kr/Kb of each matrix;
 * narrow range scales Y to 16..235 and chroma to 16..240. */
typedef struct {
    int32_t m[3][3];
    int32_t off[3];
} rgb2yuv_t;

/* Kr, Kb of a matrix; returns 1 for narrow range. */
static int csc_params(uint32_t csc, double *kr, double *kb)
{
    *kr = 0.299, *kb = 0.114;
    if (csc == ACL_DVPP_CSC_MATRIX_BT709_WIDE || csc == ACL_DVPP_CSC_MATRIX_BT709_NARROW) *kr = 0.2126, *kb = 0.0722;
    if (csc == ACL_DVPP_CSC_MATRIX_BT2020_WIDE || csc == ACL_DVPP_CSC_MATRIX_BT2020_NARROW) *kr = 0.2627, *kb = 0.0593;
    return csc == ACL_DVPP_CSC_MATRIX_BT601_NARROW || csc == ACL_DVPP_CSC_MATRIX_BT709_NARROW ||
           csc == ACL_DVPP_CSC_MATRIX_BT2020_NARROW;
}

static void rgb2yuv_init(uint32_t csc, rgb2yuv_t *t)
{
    double kr, kb;
    int narrow = csc_params(csc, &kr, &kb);
    double kg = 1.0 - kr - kb, ys = narrow ? 219.0 / 255.0 : 1.0, cs = narrow ? 224.0 / 255.0 : 1.0;
    double m[3][3] = {{kr * ys, kg * ys, kb * ys},
                      {-kr / (2 * (1 - kb)) * cs, -kg / (2 * (1 - kb)) * cs, 0.5 * cs},
                      {0.5 * cs, -kg / (2 * (1 - kr)) * cs, -kb / (2 * (1 - kr)) * cs}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t->m[i][j] = (int32_t)(m[i][j] * 65536.0 + (m[i][j] < 0 ? -0.5 : 0.5));
    t->off[0] = ((narrow ? 16 : 0) << 16) + 32768;
    t->off[1] = t->off[2] = (128 << 16) + 32768;
}

static inline uint8_t clamp8(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

/* YUV -> RGB: R = Y' + 2(1-Kr) Cr, B = Y' + 2(1-Kb) Cb, G from Y' = Kr R +
 * Kg G + Kb B; narrow range first expands Y to 0..255 and chroma by 255/224. */
typedef struct {
    int32_t cy, yoff, rv, gu, gv, bu;
} yuv2rgb_t;

static void yuv2rgb_init(uint32_t csc, yuv2rgb_t *t)
{
    double kr, kb;
    int narrow = csc_params(csc, &kr, &kb);
    double kg = 1.0 - kr - kb, ys = narrow ? 255.0 / 219.0 : 1.0, cs = narrow ? 255.0 / 224.0 : 1.0;
    t->cy = (int32_t)(ys * 65536.0 + 0.5);
    t->yoff = narrow ? 16 : 0;
    t->rv = (int32_t)(2 * (1 - kr) * cs * 65536.0 + 0.5);
    t->bu = (int32_t)(2 * (1 - kb) * cs * 65536.0 + 0.5);
    t->gu = (int32_t)(2 * kb * (1 - kb) / kg * cs * 65536.0 + 0.5);
    t->gv = (int32_t)(2 * kr * (1 - kr) / kg * cs * 65536.0 + 0.5);
}

/* Full-resolution planes (w x h, stride w) -> libyuv-order ARGB (B, G, R, A bytes). */
static void yuv444_to_argb(const uint8_t *y, const uint8_t *u, const uint8_t *v, int w, int h, uint32_t csc,
                           uint8_t *argb)
{
    yuv2rgb_t t;
    yuv2rgb_init(csc, &t);
    for (size_t k = 0, n = (size_t)w * h; k < n; k++) {
        int32_t Y = t.cy * (y[k] - t.yoff) + 32768, U = u[k] - 128, V = v[k] - 128;
        uint8_t *d = argb + 4 * k;
        d[2] = clamp8((Y + t.rv * V) >> 16);
        d[1] = clamp8((Y - t.gu * U - t.gv * V) >> 16);
        d[0] = clamp8((Y + t.bu * U) >> 16);
        d[3] = 255;
    }
}

/* Planar YUV view: luma w x h, chroma (w >> sx) x (h >> sy); u/v NULL: gray. */
typedef struct {
    uint8_t *p[3];
    int s[3];
    int w, h, sx, sy;
} planes_t;

static int cw_of(const planes_t *p) { return p->w >> p->sx; }
static int ch_of(const planes_t *p) { return p->h >> p->sy; }

typedef struct {
    void *blocks[8];
    int n;
} scratch_t;

static void *scratch(scratch_t *s, size_t n)
{
    void *p = n ? malloc(n) : NULL;
    if (p) s->blocks[s->n++] = p;
    return p;
}

static void scratch_free(scratch_t *s)
{
    for (int i = 0; i < s->n; i++) free(s->blocks[i]);
    s->n = 0;
}

/* Chroma plane of a semi-planar picture at row cy, column cx of its luma. */
static uint8_t *sp_chroma(const dv_pic *p, uint32_t x, uint32_t y)
{
    return p->data + (size_t)p->ws * p->hs + (size_t)(y >> p->f->sy) * dv_cstride(p->f, p->ws) +
           (size_t)(x >> p->f->sx) * 2;
}

/* The region r of a YUV picture as planes (luma in place, chroma copied). */
static int load_yuv(const dv_pic *in, dv_rect r, planes_t *pl, scratch_t *sc)
{
    const dv_fmt *f = in->f;
    memset(pl, 0, sizeof(*pl));
    pl->w = (int)r.w;
    pl->h = (int)r.h;
    pl->sx = f->sx;
    pl->sy = f->sy;
    int cw = cw_of(pl), ch = ch_of(pl);
    if (f->kind == DV_K_Y400 || f->kind == DV_K_SP) {
        pl->p[0] = in->data + (size_t)r.y * in->ws + r.x;
        pl->s[0] = (int)in->ws;
        if (f->kind == DV_K_Y400) return 0;
        uint8_t *u = scratch(sc, (size_t)cw * ch), *v = scratch(sc, (size_t)cw * ch);
        if (!u || !v) return -1;
        const uint8_t *uv = sp_chroma(in, r.x, r.y);
        int cs = (int)dv_cstride(f, in->ws);
        if (f->vu)
            SplitUVPlane(uv, cs, v, cw, u, cw, cw, ch);
        else
            SplitUVPlane(uv, cs, u, cw, v, cw, cw, ch);
        pl->p[1] = u, pl->p[2] = v, pl->s[1] = pl->s[2] = cw;
        return 0;
    }
    uint8_t *y = scratch(sc, (size_t)pl->w * pl->h), *u = scratch(sc, (size_t)cw * ch), *v = scratch(sc, (size_t)cw * ch);
    if (!y || !u || !v) return -1;
    pl->p[0] = y, pl->p[1] = u, pl->p[2] = v;
    pl->s[0] = pl->w, pl->s[1] = pl->s[2] = cw;
    for (int j = 0; j < pl->h; j++) {
        const uint8_t *row = in->data + (size_t)(r.y + (uint32_t)j) * in->ws + (size_t)r.x * f->bpp;
        uint8_t *yr = y + (size_t)j * pl->w;
        if (f->kind == DV_K_PACK444) {
            for (int i = 0; i < pl->w; i++) {
                yr[i] = row[3 * i];
                u[(size_t)j * cw + i] = row[3 * i + 1];
                v[(size_t)j * cw + i] = row[3 * i + 2];
            }
        } else { /* packed 4:2:2 */
            for (int i = 0; i < cw; i++) {
                const uint8_t *q = row + 4 * i;
                yr[2 * i] = q[f->off[0]];
                yr[2 * i + 1] = q[f->off[2]];
                u[(size_t)j * cw + i] = q[f->off[1]];
                v[(size_t)j * cw + i] = q[f->off[3]];
            }
        }
    }
    return 0;
}

/* One 8-bit plane: bilinear with dv_scale_bilinear, nearest with libyuv. */
static int scale1(const uint8_t *s, int ss, int sw, int sh, uint8_t *d, int ds, int dw, int dh, enum FilterMode fm)
{
    if (fm == kFilterBilinear) return dv_scale_bilinear(s, ss, sw, sh, d, ds, dw, dh, 1);
    ScalePlane(s, ss, sw, sh, d, ds, dw, dh, fm);
    return 0;
}

/* Scales src into dst (dst buffers and sizes set); gray sources give 128
 * chroma; -1 when out of memory. */
static int scale_planes(const planes_t *src, planes_t *dst, enum FilterMode fm)
{
    if (scale1(src->p[0], src->s[0], src->w, src->h, dst->p[0], dst->s[0], dst->w, dst->h, fm)) return -1;
    if (!dst->p[1]) return 0;
    for (int c = 1; c < 3; c++) {
        if (!src->p[1]) {
            for (int j = 0; j < ch_of(dst); j++) memset(dst->p[c] + (size_t)j * dst->s[c], 128, (size_t)cw_of(dst));
        } else if (scale1(src->p[c], src->s[c], cw_of(src), ch_of(src), dst->p[c], dst->s[c], cw_of(dst), ch_of(dst),
                          fm)) {
            return -1;
        }
    }
    return 0;
}

/* Planes (already at the region's size and the output's subsampling, luma
 * possibly written in place) into region r of a YUV output. */
static void store_yuv(const planes_t *pl, const dv_pic *out, dv_rect r)
{
    const dv_fmt *f = out->f;
    uint8_t *ydst = out->data + (size_t)r.y * out->ws + r.x;
    if (f->kind == DV_K_Y400 || f->kind == DV_K_SP) {
        if (pl->p[0] != ydst) CopyPlane(pl->p[0], pl->s[0], ydst, (int)out->ws, pl->w, pl->h);
        if (f->kind == DV_K_Y400) return;
        uint8_t *uv = sp_chroma(out, r.x, r.y);
        int cs = (int)dv_cstride(f, out->ws);
        if (f->vu)
            MergeUVPlane(pl->p[2], pl->s[2], pl->p[1], pl->s[1], uv, cs, cw_of(pl), ch_of(pl));
        else
            MergeUVPlane(pl->p[1], pl->s[1], pl->p[2], pl->s[2], uv, cs, cw_of(pl), ch_of(pl));
        return;
    }
    for (int j = 0; j < pl->h; j++) {
        uint8_t *row = out->data + (size_t)(r.y + (uint32_t)j) * out->ws + (size_t)r.x * f->bpp;
        const uint8_t *yr = pl->p[0] + (size_t)j * pl->s[0];
        const uint8_t *ur = pl->p[1] + (size_t)(j >> pl->sy) * pl->s[1];
        const uint8_t *vr = pl->p[2] + (size_t)(j >> pl->sy) * pl->s[2];
        if (f->kind == DV_K_PACK444) {
            for (int i = 0; i < pl->w; i++) row[3 * i] = yr[i], row[3 * i + 1] = ur[i], row[3 * i + 2] = vr[i];
        } else {
            for (int i = 0; i < pl->w / 2; i++) {
                uint8_t *q = row + 4 * i;
                q[f->off[0]] = yr[2 * i];
                q[f->off[2]] = yr[2 * i + 1];
                q[f->off[1]] = ur[i];
                q[f->off[3]] = vr[i];
            }
        }
    }
}

/* Region r of an RGB-family picture as libyuv ARGB (bytes B, G, R, A). */
static void load_rgb(const dv_pic *in, dv_rect r, uint8_t *argb, int stride)
{
    const dv_fmt *f = in->f;
    for (uint32_t j = 0; j < r.h; j++) {
        const uint8_t *row = in->data + (size_t)(r.y + j) * in->ws + (size_t)r.x * f->bpp;
        uint8_t *d = argb + (size_t)j * stride;
        for (uint32_t i = 0; i < r.w; i++, row += f->bpp, d += 4) {
            d[0] = row[f->off[2]];
            d[1] = row[f->off[1]];
            d[2] = row[f->off[0]];
            d[3] = f->off[3] >= 0 ? row[f->off[3]] : 255;
        }
    }
}

static void store_rgb(const uint8_t *argb, int stride, const dv_pic *out, dv_rect r)
{
    const dv_fmt *f = out->f;
    for (uint32_t j = 0; j < r.h; j++) {
        uint8_t *row = out->data + (size_t)(r.y + j) * out->ws + (size_t)r.x * f->bpp;
        const uint8_t *s = argb + (size_t)j * stride;
        for (uint32_t i = 0; i < r.w; i++, row += f->bpp, s += 4) {
            row[f->off[0]] = s[2];
            row[f->off[1]] = s[1];
            row[f->off[2]] = s[0];
            if (f->off[3] >= 0) row[f->off[3]] = s[3];
        }
    }
}

/* ARGB (w x h) -> full-resolution planes (w x h each) with the matrix. */
static void argb_to_444(const uint8_t *argb, int stride, int w, int h, uint32_t csc, uint8_t *y, uint8_t *u,
                        uint8_t *v)
{
    rgb2yuv_t t;
    rgb2yuv_init(csc, &t);
    for (int j = 0; j < h; j++) {
        const uint8_t *s = argb + (size_t)j * stride;
        for (int i = 0; i < w; i++, s += 4) {
            int32_t R = s[2], G = s[1], B = s[0];
            size_t k = (size_t)j * w + i;
            y[k] = clamp8((t.m[0][0] * R + t.m[0][1] * G + t.m[0][2] * B + t.off[0]) >> 16);
            u[k] = clamp8((t.m[1][0] * R + t.m[1][1] * G + t.m[1][2] * B + t.off[1]) >> 16);
            v[k] = clamp8((t.m[2][0] * R + t.m[2][1] * G + t.m[2][2] * B + t.off[2]) >> 16);
        }
    }
}

/* ARGB (sw x sh, packed) -> ARGB (dw x dh, packed): bilinear as 4-channel
 * pixels, nearest channel by channel with libyuv. */
static int argb_scale(const uint8_t *a, int sw, int sh, uint8_t *b, int dw, int dh, enum FilterMode fm, scratch_t *sc)
{
    if (fm == kFilterBilinear) return dv_scale_bilinear(a, sw * 4, sw, sh, b, dw * 4, dw, dh, 4);
    size_t sn = (size_t)sw * sh, dn = (size_t)dw * dh;
    uint8_t *p = scratch(sc, 4 * (sn + dn));
    if (!p) return -1;
    uint8_t *s[4] = {p, p + sn, p + 2 * sn, p + 3 * sn}, *d[4];
    for (int c = 0; c < 4; c++) d[c] = p + 4 * sn + (size_t)c * dn;
    SplitARGBPlane(a, sw * 4, s[0], sw, s[1], sw, s[2], sw, s[3], sw, sw, sh);
    for (int c = 0; c < 4; c++) ScalePlane(s[c], sw, sw, sh, d[c], dw, dw, dh, fm);
    MergeARGBPlane(d[0], dw, d[1], dw, d[2], dw, d[3], dw, b, dw * 4, dw, dh);
    return 0;
}

static int fail_mem(const char *api, const dv_vpc_job *j)
{
    return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the %ux%u -> %ux%u working pictures", api,
                   j->crop.w, j->crop.h, j->dst.w, j->dst.h);
}

int dv_vpc_run(const char *api, const dv_vpc_job *j)
{
    const dv_pic *in = &j->in, *out = &j->out;
    const dv_fmt *fi = in->f, *fo = out->f;
    enum FilterMode fm = vpc_filter(j->interp);
    scratch_t sc = {{0}, 0};
    int in_rgb = fi->kind == DV_K_RGB, out_rgb = fo->kind == DV_K_RGB;
    int dw = (int)j->dst.w, dh = (int)j->dst.h;
    int rc = ACL_SUCCESS;

    if (fi->kind == DV_K_SP && fo->kind == DV_K_SP) {
        /* both semi-planar: scale the luma and the interleaved chroma plane in place */
        const uint8_t *ys = in->data + (size_t)j->crop.y * in->ws + j->crop.x;
        uint8_t *yd = out->data + (size_t)j->dst.y * out->ws + j->dst.x;
        int ocw = dw >> fo->sx, och = dh >> fo->sy, icw = (int)j->crop.w >> fi->sx, ich = (int)j->crop.h >> fi->sy;
        const uint8_t *uvs = sp_chroma(in, j->crop.x, j->crop.y);
        uint8_t *uvd = sp_chroma(out, j->dst.x, j->dst.y);
        int ics = (int)dv_cstride(fi, in->ws), ocs = (int)dv_cstride(fo, out->ws);
        if (fm == kFilterBilinear && fi->vu == fo->vu) {
            /* the interleaved pairs scaled as they are */
            if (dv_scale_bilinear(ys, (int)in->ws, (int)j->crop.w, (int)j->crop.h, yd, (int)out->ws, dw, dh, 1) ||
                dv_scale_bilinear(uvs, ics, icw, ich, uvd, ocs, ocw, och, 2))
                goto oom;
            goto done;
        }
        if (fm == kFilterBilinear) {
            if (dv_scale_bilinear(ys, (int)in->ws, (int)j->crop.w, (int)j->crop.h, yd, (int)out->ws, dw, dh, 1))
                goto oom;
        } else {
            ScalePlane(ys, (int)in->ws, (int)j->crop.w, (int)j->crop.h, yd, (int)out->ws, dw, dh, fm);
        }
        size_t in_n = (size_t)icw * ich, out_n = (size_t)ocw * och;
        uint8_t *c = scratch(&sc, 2 * (in_n + out_n));
        if (!c) goto oom;
        uint8_t *iu = c, *iv = c + in_n, *ou = c + 2 * in_n, *ov = c + 2 * in_n + out_n;
        SplitUVPlane(uvs, ics, iu, icw, iv, icw, icw, ich);
        if (scale1(iu, icw, icw, ich, ou, ocw, ocw, och, fm) || scale1(iv, icw, icw, ich, ov, ocw, ocw, och, fm))
            goto oom;
        if (fi->vu != fo->vu) {
            uint8_t *t = ou;
            ou = ov, ov = t;
        }
        MergeUVPlane(ou, ocw, ov, ocw, uvd, ocs, ocw, och);
    } else if (!in_rgb) {
        planes_t src, dst;
        if (load_yuv(in, j->crop, &src, &sc)) goto oom;
        memset(&dst, 0, sizeof(dst));
        dst.w = dw, dst.h = dh;
        if (out_rgb) {
            /* scale to full-resolution planes at the output size, then convert */
            size_t n = (size_t)dw * dh;
            uint8_t *buf = scratch(&sc, n * 3), *argb = scratch(&sc, n * 4);
            if (!buf || !argb) goto oom;
            dst.p[0] = buf, dst.p[1] = buf + n, dst.p[2] = buf + 2 * n;
            dst.s[0] = dst.s[1] = dst.s[2] = dw;
            if (scale_planes(&src, &dst, fm)) goto oom;
            yuv444_to_argb(dst.p[0], dst.p[1], dst.p[2], dw, dh, j->csc, argb);
            store_rgb(argb, dw * 4, out, j->dst);
        } else {
            dst.sx = fo->sx, dst.sy = fo->sy;
            if (fo->kind == DV_K_Y400 || fo->kind == DV_K_SP) {
                dst.p[0] = out->data + (size_t)j->dst.y * out->ws + j->dst.x; /* luma straight into the output */
                dst.s[0] = (int)out->ws;
            } else {
                dst.p[0] = scratch(&sc, (size_t)dw * dh);
                dst.s[0] = dw;
                if (!dst.p[0]) goto oom;
            }
            if (fo->kind != DV_K_Y400) {
                size_t cn = (size_t)cw_of(&dst) * ch_of(&dst);
                dst.p[1] = scratch(&sc, cn), dst.p[2] = scratch(&sc, cn);
                if (!dst.p[1] || !dst.p[2]) goto oom;
                dst.s[1] = dst.s[2] = cw_of(&dst);
            }
            if (scale_planes(&src, &dst, fm)) goto oom;
            store_yuv(&dst, out, j->dst);
        }
    } else {
        /* RGB input: scale as ARGB, then write RGB or convert to YUV */
        size_t cn = (size_t)j->crop.w * j->crop.h, dn = (size_t)dw * dh;
        uint8_t *a = scratch(&sc, cn * 4), *b = scratch(&sc, dn * 4);
        if (!a || !b) goto oom;
        load_rgb(in, j->crop, a, (int)j->crop.w * 4);
        if (argb_scale(a, (int)j->crop.w, (int)j->crop.h, b, dw, dh, fm, &sc)) goto oom;
        if (out_rgb) {
            store_rgb(b, dw * 4, out, j->dst);
        } else {
            uint8_t *full = scratch(&sc, dn * 3);
            if (!full) goto oom;
            planes_t f444 = {{full, full + dn, full + 2 * dn}, {dw, dw, dw}, dw, dh, 0, 0};
            argb_to_444(b, dw * 4, dw, dh, j->csc, f444.p[0], f444.p[1], f444.p[2]);
            planes_t dst = f444;
            if (fo->sx || fo->sy) {
                /* subsample chroma by averaging */
                dst.sx = fo->sx, dst.sy = fo->sy;
                size_t sn = (size_t)cw_of(&dst) * ch_of(&dst);
                uint8_t *sub = scratch(&sc, sn * 2);
                if (!sub) goto oom;
                dst.p[1] = sub, dst.p[2] = sub + sn, dst.s[1] = dst.s[2] = cw_of(&dst);
                for (int c = 1; c < 3; c++)
                    ScalePlane(f444.p[c], dw, dw, dh, dst.p[c], dst.s[c], cw_of(&dst), ch_of(&dst), kFilterBox);
            }
            if (fo->kind == DV_K_Y400) dst.p[1] = dst.p[2] = NULL;
            store_yuv(&dst, out, j->dst);
        }
    }
    goto done;
oom:
    rc = fail_mem(api, j);
done:
    scratch_free(&sc);
    return rc;
}

/* ------------------------------------------------------------ borders */

/* Where outside index p of a line of len samples reads from (OpenCV's
 * borderInterpolate for the four DVPP border kinds); -1: the constant. */
static int border_index(int p, int len, acldvppBorderType type)
{
    if (p >= 0 && p < len) return p;
    if (type == BORDER_CONSTANT) return -1;
    if (type == BORDER_REPLICATE) return p < 0 ? 0 : len - 1;
    if (len == 1) return 0;
    int delta = type == BORDER_REFLECT_101;
    do {
        if (p < 0)
            p = -p - 1 + delta;
        else
            p = len - 1 - (p - len) - delta;
    } while (p < 0 || p >= len);
    return p;
}

/* One plane: base/stride address the plane, px bytes a sample; the inner
 * rectangle (x0, y0, w, h) is filled already; the plane is pw x ph samples. */
static void border_plane(uint8_t *base, size_t stride, int px, int pw, int ph, int x0, int y0, int w, int h,
                         acldvppBorderType type, const uint8_t *value)
{
    for (int y = y0; y < y0 + h; y++) {
        uint8_t *row = base + (size_t)y * stride;
        for (int x = 0; x < pw; x++) {
            if (x >= x0 && x < x0 + w) {
                x = x0 + w - 1;
                continue;
            }
            int sx = border_index(x - x0, w, type);
            for (int b = 0; b < px; b++) row[x * px + b] = sx < 0 ? value[b] : row[(x0 + sx) * px + b];
        }
    }
    for (int y = 0; y < ph; y++) {
        if (y >= y0 && y < y0 + h) continue;
        uint8_t *row = base + (size_t)y * stride;
        int sy = border_index(y - y0, h, type);
        if (sy < 0) {
            for (int x = 0; x < pw; x++)
                for (int b = 0; b < px; b++) row[x * px + b] = value[b];
        } else {
            memcpy(row, base + (size_t)(y0 + sy) * stride, (size_t)pw * px);
        }
    }
}

void dv_border_fill(const dv_vpc_job *j)
{
    const dv_pic *o = &j->out;
    const dv_fmt *f = o->f;
    const dv_border *b = &j->border;
    if (f->kind == DV_K_RGB || f->kind == DV_K_PACK444) {
        border_plane(o->data, o->ws, f->bpp, (int)o->w, (int)o->h, (int)j->dst.x, (int)j->dst.y, (int)j->dst.w,
                     (int)j->dst.h, b->type, b->value);
        return;
    }
    border_plane(o->data, o->ws, 1, (int)o->w, (int)o->h, (int)j->dst.x, (int)j->dst.y, (int)j->dst.w, (int)j->dst.h,
                 b->type, b->value);
    if (f->kind == DV_K_SP) {
        uint8_t uv[2] = {f->vu ? b->value[2] : b->value[1], f->vu ? b->value[1] : b->value[2]};
        border_plane(o->data + (size_t)o->ws * o->hs, dv_cstride(f, o->ws), 2, (int)o->w >> f->sx,
                     (int)o->h >> f->sy, (int)j->dst.x >> f->sx, (int)j->dst.y >> f->sy, (int)j->dst.w >> f->sx,
                     (int)j->dst.h >> f->sy, b->type, uv);
    }
}

/* ------------------------------------------------------------ pyramid */

void dv_pyr_down(const dv_pic *in, const dv_pic *out)
{
    int w = (int)in->w, h = (int)in->h, ow = (int)out->w, oh = (int)out->h;
    static const int k[5] = {1, 4, 6, 4, 1};
    /* horizontal pass at output columns into an int buffer per source row,
     * then the vertical pass; rows kept in a ring of 5 */
    int *rows = malloc(sizeof(int) * 5 * (size_t)ow);
    int have[5] = {-1, -1, -1, -1, -1};
    if (!rows) return;
    for (int oy = 0; oy < oh; oy++) {
        int acc_rows[5];
        for (int t = 0; t < 5; t++) {
            int sy = border_index(2 * oy + t - 2, h, BORDER_REFLECT_101);
            int slot = sy % 5;
            if (have[slot] != sy) {
                const uint8_t *src = in->data + (size_t)sy * in->ws;
                int *dst = rows + (size_t)slot * ow;
                for (int ox = 0; ox < ow; ox++) {
                    int sum = 0;
                    for (int u = 0; u < 5; u++) sum += k[u] * src[border_index(2 * ox + u - 2, w, BORDER_REFLECT_101)];
                    dst[ox] = sum;
                }
                have[slot] = sy;
            }
            acc_rows[t] = slot;
        }
        uint8_t *d = out->data + (size_t)oy * out->ws;
        for (int ox = 0; ox < ow; ox++) {
            int sum = 0;
            for (int t = 0; t < 5; t++) sum += k[t] * rows[(size_t)acc_rows[t] * ow + ox];
            d[ox] = (uint8_t)((sum + 128) >> 8);
        }
    }
    free(rows);
}
