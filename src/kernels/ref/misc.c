/* Reference kernels with no family of their own: RoiAlign (opset 10 and 16:
 * avg/max, half_pixel and output_half_pixel coordinates, adaptive or fixed
 * sampling), MaxUnpool (opset 9/11, flat indices over the whole output as
 * MaxPool writes them, optional output_shape) and Det (LU with partial
 * pivoting in double over a batch of square matrices). Any float type,
 * computed in double, rounded once on store. */
#include "kernels/ref/ew_common.h"
#include "kernels/ref/nn_common.h"
#include <stdlib.h>

#define MISC_FLT (EW_M(G_F32) | EW_M(G_F64) | EW_MHALF)

/* ---------------------------------------------------------------------------
 * RoiAlign: X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R]
 * -> [R, C, oh, ow]. Each bin averages (or takes the max of) a grid of
 * bilinear samples. As ONNX Runtime (and the ONNX reference) do, max mode
 * takes per sample the largest of the four weighted corner terms. */

typedef struct roi_state {
    int dt, max_mode, half_pixel;
    int64_t oh, ow, sampling;
    float scale;
} roi_state;

static int roi_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in != 3 || n->in[0] < 0 || n->in[1] < 0 || n->in[2] < 0)
        return ew_fail(n, EW_EINVAL, "needs inputs X, rois and batch_indices");
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, MISC_FLT);
    if (!rc && ew_gdtype(g, n, 1) != dt)
        rc = ew_fail(n, EW_ETYPE, "rois are %s but X is %s", g_dtype_name(ew_gdtype(g, n, 1)),
                     g_dtype_name(dt));
    if (!rc) rc = ew_check_type(n, 2, ew_gdtype(g, n, 2), EW_M(G_I64) | EW_M(G_I32));
    if (rc) return rc;
    roi_state s = { .dt = dt };
    const char *mode = g_attr_str(n, "mode", "avg");
    if (!strcmp(mode, "max")) s.max_mode = 1;
    else if (strcmp(mode, "avg")) return ew_fail(n, EW_EINVAL, "mode='%s' (expected avg or max)", mode);
    const char *ctm = g_attr_str(n, "coordinate_transformation_mode",
                                 n->opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (!strcmp(ctm, "half_pixel")) s.half_pixel = 1;
    else if (strcmp(ctm, "output_half_pixel"))
        return ew_fail(n, EW_EINVAL, "coordinate_transformation_mode='%s' (expected half_pixel or "
                       "output_half_pixel)", ctm);
    s.oh = g_attr_int(n, "output_height", 1);
    s.ow = g_attr_int(n, "output_width", 1);
    s.sampling = g_attr_int(n, "sampling_ratio", 0);
    s.scale = g_attr_float(n, "spatial_scale", 1.f);
    if (s.oh < 1 || s.ow < 1 || s.sampling < 0)
        return ew_fail(n, EW_EINVAL, "output_height %lld, output_width %lld, sampling_ratio %lld",
                       (long long)s.oh, (long long)s.ow, (long long)s.sampling);
    roi_state *p = malloc(sizeof *p);
    if (!p) return ew_fail(n, EW_ENOMEM, "out of memory");
    *p = s;
    *state = p;
    return 0;
}

static int roi_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    roi_state *s = state;
    const g_shape *x = &in[0].shape, *r = &in[1].shape, *b = &in[2].shape;
    char a1[96], a2[96], a3[96];
    if (x->rank >= 0 && r->rank >= 0 && b->rank >= 0 &&
        (x->rank != 4 || r->rank != 2 || r->d[1] != 4 || b->rank != 1 ||
         (r->d[0] >= 0 && b->d[0] >= 0 && r->d[0] != b->d[0])))
        return ew_fail(n, EW_EINVAL, "X %s, rois %s, batch_indices %s (expected [N,C,H,W], [R,4], [R])",
                       g_shape_str(x, a1, sizeof a1), g_shape_str(r, a2, sizeof a2),
                       g_shape_str(b, a3, sizeof a3));
    out[0].dtype = s->dt;
    out[0].shape.rank = 4;
    out[0].shape.d[0] = r->rank == 2 ? r->d[0] : -1;
    out[0].shape.d[1] = x->rank == 4 ? x->d[1] : -1;
    out[0].shape.d[2] = s->oh;
    out[0].shape.d[3] = s->ow;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

/* bilinear corners of (y, x) in an H x W plane; all weights 0 outside */
static void roi_corners(double y, double x, int64_t H, int64_t W, int64_t idx[4], double w[4])
{
    if (!(y >= -1.0 && y <= (double)H && x >= -1.0 && x <= (double)W)) {   /* NaN too */
        for (int i = 0; i < 4; i++) { idx[i] = 0; w[i] = 0.0; }
        return;
    }
    if (y <= 0) y = 0;
    if (x <= 0) x = 0;
    int64_t y0 = (int64_t)y, x0 = (int64_t)x, y1, x1;
    if (y0 >= H - 1) { y0 = y1 = H - 1; y = (double)y0; } else y1 = y0 + 1;
    if (x0 >= W - 1) { x0 = x1 = W - 1; x = (double)x0; } else x1 = x0 + 1;
    double ly = y - (double)y0, lx = x - (double)x0, hy = 1.0 - ly, hx = 1.0 - lx;
    idx[0] = y0 * W + x0; idx[1] = y0 * W + x1; idx[2] = y1 * W + x0; idx[3] = y1 * W + x1;
    w[0] = hy * hx; w[1] = hy * lx; w[2] = ly * hx; w[3] = ly * lx;
}

static int roi_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    roi_state *s = state;
    (void)ctx;
    const g_shape *xs = &in[0].shape;
    int64_t N = xs->d[0], C = xs->d[1], H = xs->d[2], W = xs->d[3], R = in[1].shape.d[0];
    int dt = s->dt;
    double off = s->half_pixel ? 0.5 : 0.0;
    for (int64_t r = 0; r < R; r++) {
        int64_t bi = ew_ldi(in[2].data, in[2].dtype, (size_t)r);
        if (bi < 0 || bi >= N)
            return ew_fail(n, EW_EINVAL, "batch_indices[%lld] = %lld is outside [0, %lld)",
                           (long long)r, (long long)bi, (long long)N);
        double x1 = ew_ld(in[1].data, dt, (size_t)(r * 4)) * s->scale - off;
        double y1 = ew_ld(in[1].data, dt, (size_t)(r * 4 + 1)) * s->scale - off;
        double x2 = ew_ld(in[1].data, dt, (size_t)(r * 4 + 2)) * s->scale - off;
        double y2 = ew_ld(in[1].data, dt, (size_t)(r * 4 + 3)) * s->scale - off;
        double rw = x2 - x1, rh = y2 - y1;
        if (!s->half_pixel) {     /* the legacy mode keeps every roi at least 1x1 */
            if (rw < 1.0) rw = 1.0;
            if (rh < 1.0) rh = 1.0;
        }
        double bh = rh / (double)s->oh, bw = rw / (double)s->ow;
        double fgh = s->sampling > 0 ? (double)s->sampling : ceil(rh / (double)s->oh);
        double fgw = s->sampling > 0 ? (double)s->sampling : ceil(rw / (double)s->ow);
        /* a grid past 2^24 samples per bin is a corrupt roi, not work to do */
        if (!(fgh <= 16777216.0 && fgw <= 16777216.0 && fgh * fgw <= 16777216.0))
            return ew_fail(n, EW_EINVAL, "roi %lld (%g, %g, %g, %g) needs a %g x %g sampling grid "
                           "per bin", (long long)r, x1, y1, x2, y2, fgh, fgw);
        int64_t gh = fgh > 0 ? (int64_t)fgh : 0, gw = fgw > 0 ? (int64_t)fgw : 0;
        double cnt = (double)(gh * gw > 0 ? gh * gw : 1);
        for (int64_t c = 0; c < C; c++) {
            size_t plane = (size_t)((bi * C + c) * H * W);
            for (int64_t ph = 0; ph < s->oh; ph++)
                for (int64_t pw = 0; pw < s->ow; pw++) {
                    double acc = 0.0;
                    int first = 1;
                    for (int64_t iy = 0; iy < gh; iy++) {
                        double y = y1 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double x = x1 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                            int64_t idx[4];
                            double w[4];
                            roi_corners(y, x, H, W, idx, w);
                            double v[4];
                            for (int k = 0; k < 4; k++) v[k] = w[k] * ew_ld(in[0].data, dt, plane + (size_t)idx[k]);
                            if (s->max_mode) {
                                double m = v[0];
                                for (int k = 1; k < 4; k++) if (v[k] > m) m = v[k];
                                if (first || m > acc) acc = m;
                                first = 0;
                            } else {
                                acc += v[0] + v[1] + v[2] + v[3];
                            }
                        }
                    }
                    if (!s->max_mode) acc /= cnt;
                    ew_st(out[0].data, dt, (size_t)(((r * C + c) * s->oh + ph) * s->ow + pw), acc);
                }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * MaxUnpool: zeros, then X[i] at flat output position I[i]. */

typedef struct unpool_state { int dt; nn_win w; } unpool_state;

static int unpool_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return ew_fail(n, EW_EINVAL, "needs inputs X and I");
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, MISC_FLT);
    if (!rc) rc = ew_check_type(n, 1, ew_gdtype(g, n, 1), EW_M(G_I64));
    if (!rc && ew_gdtype(g, n, 2) != G_UNDEF) rc = ew_check_type(n, 2, ew_gdtype(g, n, 2), EW_M(G_I64));
    if (rc) return rc;
    unpool_state *s = malloc(sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    if ((rc = nn_win_parse(n, NN_POOL, &s->w))) { free(s); return rc; }
    *state = s;
    return 0;
}

/* The shape unpooling gives without output_shape; the indices address it. */
static int unpool_default(const g_node *n, const unpool_state *s, const g_shape *x, g_shape *y)
{
    char a[96];
    if (x->rank < 3 || x->rank - 2 > NN_MAX_SP || (s->w.nsp && s->w.nsp != x->rank - 2))
        return ew_fail(n, EW_EINVAL, "X %s does not match kernel_shape of %d dims",
                       g_shape_str(x, a, sizeof a), s->w.nsp);
    *y = *x;
    for (int i = 0; i < x->rank - 2; i++) {
        int64_t v = (x->d[i + 2] - 1) * s->w.s[i] + s->w.k[i] - s->w.pb[i] - s->w.pe[i];
        y->d[i + 2] = x->d[i + 2] < 0 ? -1 : v;
        if (x->d[i + 2] >= 0 && v < 0)
            return ew_fail(n, EW_EINVAL, "spatial dim %d gives output size %lld", i, (long long)v);
    }
    return 0;
}

static int unpool_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    unpool_state *s = state;
    const g_shape *x = &in[0].shape;
    char a[96], b[96];
    out[0].dtype = s->dt;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank >= 0 && in[1].shape.rank >= 0 && !g_shape_eq(x, &in[1].shape))
        return ew_fail(n, EW_EINVAL, "indices %s do not match X %s",
                       g_shape_str(&in[1].shape, a, sizeof a), g_shape_str(x, b, sizeof b));
    if (x->rank < 0) { out[0].shape.rank = -1; return 0; }
    g_shape def;
    int rc = unpool_default(n, s, x, &def);
    if (rc) return rc;
    if (!ew_has(n, in, 2)) {
        out[0].shape = def;
        return 0;
    }
    if (!in[2].data) { out[0].shape.rank = -1; return K_NEED_DATA; }
    int64_t k = g_shape_numel(&in[2].shape);
    if (in[2].shape.rank != 1 || k != x->rank)
        return ew_fail(n, EW_EINVAL, "output_shape %s does not match X %s",
                       g_shape_str(&in[2].shape, a, sizeof a), g_shape_str(x, b, sizeof b));
    out[0].shape.rank = (int)k;
    for (int i = 0; i < k; i++) {
        int64_t v = ((const int64_t *)in[2].data)[i];
        out[0].shape.d[i] = v;
        if (def.d[i] >= 0 && v < def.d[i])
            return ew_fail(n, EW_EINVAL, "output_shape %s is smaller than the unpooled shape %s",
                           g_shape_str(&out[0].shape, a, sizeof a), g_shape_str(&def, b, sizeof b));
    }
    return 0;
}

static int unpool_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                      const k_ctx *ctx)
{
    unpool_state *s = state;
    (void)ctx;
    g_shape def;
    int rc = unpool_default(n, s, &in[0].shape, &def);
    if (rc) return rc;
    const g_shape *ys = &out[0].shape;
    int r = ys->rank;
    int64_t nd = g_shape_numel(&def), nx = g_shape_numel(&in[0].shape);
    memset(out[0].data, 0, out[0].nbytes);
    const int64_t *I = in[1].data;
    for (int64_t i = 0; i < nx; i++) {
        if (I[i] < 0 || I[i] >= nd)
            return ew_fail(n, EW_EINVAL, "index %lld at position %lld is outside the unpooled "
                           "tensor's %lld elements", (long long)I[i], (long long)i, (long long)nd);
        /* coordinates in the unpooled shape, placed at the same coordinates
         * of a larger output_shape */
        int64_t rem = I[i], pos = 0, mul = 1;
        for (int d = r - 1; d >= 0; d--) {
            pos += (rem % def.d[d]) * mul;
            rem /= def.d[d];
            mul *= ys->d[d];
        }
        ew_st(out[0].data, s->dt, (size_t)pos, ew_ld(in[0].data, s->dt, (size_t)i));
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Det: [*, M, M] -> [*] */

static int det_init(g_graph *g, g_node *n, void **state)
{
    (void)state;
    if (n->n_in != 1 || n->in[0] < 0) return ew_fail(n, EW_EINVAL, "needs one input");
    return ew_check_type(n, 0, ew_gdtype(g, n, 0), MISC_FLT);
}

static int det_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    const g_shape *x = &in[0].shape;
    char a[96];
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) { out[0].shape.rank = -1; return 0; }
    if (x->rank < 2 || (x->d[x->rank - 1] >= 0 && x->d[x->rank - 2] >= 0 &&
                        x->d[x->rank - 1] != x->d[x->rank - 2]))
        return ew_fail(n, EW_EINVAL, "input %s is not a batch of square matrices",
                       g_shape_str(x, a, sizeof a));
    out[0].shape.rank = x->rank - 2;
    for (int i = 0; i < x->rank - 2; i++) out[0].shape.d[i] = x->d[i];
    return 0;
}

static int det_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    (void)state; (void)ctx;
    const g_shape *x = &in[0].shape;
    int64_t M = x->d[x->rank - 1], nb = g_shape_numel(&out[0].shape);
    if (nb <= 0) return 0;
    double *a = malloc((size_t)(M * M > 0 ? M * M : 1) * sizeof *a);
    if (!a) return ew_fail(n, EW_ENOMEM, "out of memory");
    int dt = in[0].dtype;
    for (int64_t b = 0; b < nb; b++) {
        for (int64_t i = 0; i < M * M; i++) a[i] = ew_ld(in[0].data, dt, (size_t)(b * M * M + i));
        double det = 1.0;
        for (int64_t c = 0; c < M && det != 0.0; c++) {
            int64_t p = c;
            for (int64_t r = c + 1; r < M; r++)
                if (fabs(a[r * M + c]) > fabs(a[p * M + c])) p = r;
            if (a[p * M + c] == 0.0) { det = 0.0; break; }
            if (p != c) {
                for (int64_t k = 0; k < M; k++) {
                    double t = a[c * M + k];
                    a[c * M + k] = a[p * M + k];
                    a[p * M + k] = t;
                }
                det = -det;
            }
            double piv = a[c * M + c];
            det *= piv;
            for (int64_t r = c + 1; r < M; r++) {
                double f = a[r * M + c] / piv;
                for (int64_t k = c + 1; k < M; k++) a[r * M + k] -= f * a[c * M + k];
            }
        }
        ew_st(out[0].data, dt, (size_t)b, det);
    }
    free(a);
    return 0;
}

static const k_op k_roialign = { "RoiAlign", "", 10, 0, "ref", 0, roi_init, roi_infer, NULL, NULL,
                                 roi_run, ew_fini_free, NULL };
K_REGISTER(k_roialign);
static const k_op k_maxunpool = { "MaxUnpool", "", 9, 0, "ref", 0, unpool_init, unpool_infer, NULL,
                                  NULL, unpool_run, ew_fini_free, NULL };
K_REGISTER(k_maxunpool);
static const k_op k_det = { "Det", "", 11, 0, "ref", 0, det_init, det_infer, NULL, NULL, det_run,
                            NULL, NULL };
K_REGISTER(k_det);
