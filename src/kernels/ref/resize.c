/* Resize (opsets 10-19+) and Upsample (7-10) for any rank: per axis a table
 * of taps (input offset, weight) is built from the coordinate transformation
 * and interpolation mode, then every output element is the tensor product of
 * its axes' taps. Nearest mode is a pure gather (any dtype); linear and cubic
 * (with antialias, exclude_outside, extrapolation) compute in float (double
 * for float64). Coordinates follow ONNX Runtime: float arithmetic, integer
 * output lengths; opset <= 10 is asymmetric with the old "simple" rounding. */
#include "kernels/ref/shape_common.h"
#include <math.h>
#include <omp.h>

enum { RS_NEAREST, RS_LINEAR, RS_CUBIC };
enum { CT_HALF_PIXEL, CT_ASYM, CT_PYTORCH, CT_TF_NN, CT_ALIGN, CT_TF_CROP, CT_HALF_SYM };
enum { NM_SIMPLE, NM_RPF, NM_RPC, NM_FLOOR, NM_CEIL };
enum { KP_STRETCH, KP_NOT_LARGER, KP_NOT_SMALLER };
#define RS_MAXC 1024   /* tap combinations over the outer axes of one output row */

typedef struct rs_state {
    int upsample;
    int mode, ctm, nearest, keep, antialias, exclude;
    float cubic_a, extrap;
    int naxes;                     /* -1: all axes */
    int64_t axes[G_MAX_RANK];
    int nattr;                     /* Upsample-7 scales attribute */
    float attr_scales[G_MAX_RANK];
    int i_roi, i_scales, i_sizes;  /* input positions, -1 when the opset has none */
} rs_state;

typedef struct rs_geom {
    int r;
    int64_t in[G_MAX_RANK], out[G_MAX_RANK];
    float scale[G_MAX_RANK], roi_s[G_MAX_RANK], roi_e[G_MAX_RANK];
    float lres[G_MAX_RANK];   /* resized length in the coordinate formulas */
} rs_geom;

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static int rs_init(g_graph *g, g_node *n, void **stp)
{
    int up = !strcmp(n->op_type, "Upsample"), op = n->opset, dt = ksh_in_dtype(g, n, 0), e;
    rs_state s;
    memset(&s, 0, sizeof s);
    s.upsample = up;
    s.naxes = -1;
    s.i_roi = s.i_scales = s.i_sizes = -1;
    s.cubic_a = -0.75f;
    const char *m = g_attr_str(n, "mode", "nearest");
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    s.mode = pick(m, modes, 3);
    if (s.mode < 0 && !strcmp(m, "bilinear") && up) s.mode = RS_LINEAR;
    if (s.mode < 0 || (s.mode == RS_CUBIC && (up || op < 11)))
        return ksh_fail(n, KSH_EUNSUP, "mode '%s' is not supported", m);
    if (up || op <= 10) {
        s.ctm = CT_ASYM;
        s.nearest = NM_SIMPLE;
        if (up && op < 9) {
            const float *f;
            s.nattr = g_attr_floats(n, "scales", &f);
            if (s.nattr < 1 || s.nattr > G_MAX_RANK)
                return ksh_fail(n, KSH_EINVAL, "attribute 'scales' is missing or too long");
            memcpy(s.attr_scales, f, (size_t)s.nattr * sizeof *f);
        } else {
            s.i_scales = 1;
        }
    } else {
        static const char *const cts[] = {"half_pixel", "asymmetric", "pytorch_half_pixel",
                                          "tf_half_pixel_for_nn", "align_corners",
                                          "tf_crop_and_resize", "half_pixel_symmetric"};
        static const char *const nms[] = {"", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        static const char *const kps[] = {"stretch", "not_larger", "not_smaller"};
        const char *c = g_attr_str(n, "coordinate_transformation_mode", "half_pixel");
        s.ctm = pick(c, cts, 7);
        if (s.ctm < 0 || (s.ctm == CT_HALF_SYM && op < 19))
            return ksh_fail(n, KSH_EUNSUP, "coordinate_transformation_mode '%s' is not supported", c);
        const char *nm = g_attr_str(n, "nearest_mode", "round_prefer_floor");
        s.nearest = pick(nm, nms, 5);
        if (s.nearest <= 0) return ksh_fail(n, KSH_EUNSUP, "nearest_mode '%s' is not supported", nm);
        s.cubic_a = g_attr_float(n, "cubic_coeff_a", -0.75f);
        s.exclude = g_attr_int(n, "exclude_outside", 0) != 0;
        s.extrap = g_attr_float(n, "extrapolation_value", 0.f);
        s.i_roi = 1;
        s.i_scales = 2;
        s.i_sizes = 3;
        if (op >= 18) {
            s.antialias = g_attr_int(n, "antialias", 0) != 0;
            const char *kp = g_attr_str(n, "keep_aspect_ratio_policy", "stretch");
            s.keep = pick(kp, kps, 3);
            if (s.keep < 0) return ksh_fail(n, KSH_EUNSUP, "keep_aspect_ratio_policy '%s' is not supported", kp);
            const int64_t *ax;
            int na = g_attr_ints(n, "axes", &ax);
            if (na > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "too many axes (%d)", na);
            if (na >= 0) { s.naxes = na; memcpy(s.axes, ax, (size_t)na * 8); }
        }
    }
    if (s.mode == RS_NEAREST) {
        if ((e = ksh_check_movable(n, dt, "input X"))) return e;
    } else if (!ksh_is_float(dt) && !ksh_is_int(dt)) {
        return ksh_fail(n, KSH_ETYPE, "%s interpolation of %s data is not supported", m, g_dtype_name(dt));
    }
    if (s.i_scales > 0 && ksh_in_dtype(g, n, s.i_scales) != G_UNDEF && ksh_in_dtype(g, n, s.i_scales) != G_F32)
        return ksh_fail(n, KSH_ETYPE, "scales must be float32, got %s", g_dtype_name(ksh_in_dtype(g, n, s.i_scales)));
    if (s.i_sizes > 0 && ksh_in_dtype(g, n, s.i_sizes) != G_UNDEF && ksh_in_dtype(g, n, s.i_sizes) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "sizes must be int64, got %s", g_dtype_name(ksh_in_dtype(g, n, s.i_sizes)));
    rs_state *p = malloc(sizeof *p);
    if (!p) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    *p = s;
    *stp = p;
    return 0;
}

static void rs_fini(void *st) { free(st); }

/* Input i given with at least one value (an empty tensor stands for "none"). */
static int present(const g_node *n, const k_tensor *in, int i)
{
    if (i <= 0 || !ksh_has(n, in, i)) return 0;
    return !(ksh_known(&in[i].shape) && ksh_numel(&in[i].shape) == 0);
}

/* Output sizes, scales and roi per axis. K_NEED_DATA when a value is unknown. */
static int rs_geometry(const g_node *n, const rs_state *s, const k_tensor *in, rs_geom *gm)
{
    int r = in[0].shape.rank, e;
    gm->r = r;
    int axmap[G_MAX_RANK], na = s->naxes < 0 ? r : s->naxes;
    for (int i = 0; i < na; i++) {
        if (s->naxes < 0) axmap[i] = i;
        else if ((e = ksh_axis(n, s->axes[i], r, 0, &axmap[i]))) return e;
    }
    for (int a = 0; a < r; a++) {
        gm->in[a] = in[0].shape.d[a];
        gm->out[a] = gm->in[a];
        gm->scale[a] = 1.f;
        gm->roi_s[a] = 0.f;
        gm->roi_e[a] = 1.f;
        gm->lres[a] = -1.f;
    }
    int has_sc = present(n, in, s->i_scales), has_sz = present(n, in, s->i_sizes);
    if ((has_sc && !in[s->i_scales].data) || (has_sz && !in[s->i_sizes].data)) return K_NEED_DATA;
    if (s->ctm == CT_TF_CROP && present(n, in, s->i_roi)) {
        const k_tensor *t = &in[s->i_roi];
        if (!t->data) return K_NEED_DATA;
        if (ksh_numel(&t->shape) != 2 * na)
            return ksh_fail(n, KSH_EINVAL, "roi has %lld values, expected %d", (long long)ksh_numel(&t->shape), 2 * na);
        for (int i = 0; i < na; i++) {
            gm->roi_s[axmap[i]] = (float)ksh_getf(t->data, t->dtype, (size_t)i);
            gm->roi_e[axmap[i]] = (float)ksh_getf(t->data, t->dtype, (size_t)(na + i));
        }
    }
    if (s->nattr > 0 || has_sc) {
        int k = s->nattr > 0 ? s->nattr : (int)ksh_numel(&in[s->i_scales].shape);
        if (k != na) return ksh_fail(n, KSH_EINVAL, "scales has %d values, expected %d", k, na);
        for (int i = 0; i < na; i++) {
            float sc = s->nattr > 0 ? s->attr_scales[i] : ((const float *)in[s->i_scales].data)[i];
            if (!(sc > 0)) return ksh_fail(n, KSH_EINVAL, "scale %g on axis %d must be positive", sc, axmap[i]);
            int a = axmap[i];
            gm->scale[a] = sc;
            if (gm->in[a] < 0) { gm->out[a] = -1; continue; }
            float len = (float)gm->in[a];
            if (s->ctm == CT_TF_CROP) len *= gm->roi_e[a] - gm->roi_s[a];
            float o = floorf(len * sc);
            if (!(o >= 0 && o <= (float)KSH_DIM_MAX))
                return ksh_fail(n, KSH_EINVAL, "scale %g on axis %d gives an invalid size", sc, a);
            gm->out[a] = (int64_t)o;
            /* With scales, ONNX defines the resized length of align_corners
             * as the unrounded in*scale (ONNX Runtime uses the integer size;
             * they differ only when in*scale is fractional). */
            gm->lres[a] = (float)gm->in[a] * sc;
        }
    } else if (has_sz) {
        const k_tensor *t = &in[s->i_sizes];
        if (ksh_numel(&t->shape) != na)
            return ksh_fail(n, KSH_EINVAL, "sizes has %lld values, expected %d", (long long)ksh_numel(&t->shape), na);
        float pol = s->keep == KP_NOT_LARGER ? INFINITY : 0.f;
        for (int i = 0; i < na; i++) {
            int a = axmap[i];
            int64_t sz = ksh_geti(t->data, G_I64, (size_t)i);
            if (sz < 0 || sz > KSH_DIM_MAX) return ksh_fail(n, KSH_EINVAL, "sizes[%d] = %lld is negative", i, (long long)sz);
            gm->out[a] = sz;
            if (gm->in[a] < 0) continue;
            gm->scale[a] = gm->in[a] == 0 ? 1.f : (float)sz / (float)gm->in[a];
            if (s->keep == KP_NOT_LARGER) pol = fminf(pol, gm->scale[a]);
            else if (s->keep == KP_NOT_SMALLER) pol = fmaxf(pol, gm->scale[a]);
        }
        if (s->keep != KP_STRETCH)
            for (int i = 0; i < na; i++) {
                int a = axmap[i];
                gm->scale[a] = pol;
                float o = roundf(pol * (float)gm->in[a]);
                if (gm->in[a] >= 0 && !(o >= 0 && o <= (float)KSH_DIM_MAX))
                    return ksh_fail(n, KSH_EINVAL, "sizes give an invalid size on axis %d", a);
                gm->out[a] = gm->in[a] < 0 ? -1 : (int64_t)o;
            }
    } else {
        return ksh_fail(n, KSH_EINVAL, "neither scales nor sizes is given");
    }
    return 0;
}

static int rs_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const rs_state *s = st;
    rs_geom gm;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (in[0].shape.rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    int e = rs_geometry(n, s, in, &gm);
    if (e) return e == K_NEED_DATA ? ksh_need(out, 1) : e;
    out[0].shape = in[0].shape;
    for (int a = 0; a < gm.r; a++) out[0].shape.d[a] = gm.out[a];
    out[0].layout = ksh_same_layout(&in[0], &out[0].shape);
    return 0;
}

/* ---- tap tables ---- */

typedef struct rs_axis {
    int T;             /* taps per output index */
    int64_t *idx;      /* [out*T] element offsets (index * stride), -1: extrapolate */
    float *w;          /* [out*T] weights (linear/cubic) */
} rs_axis;

static float rs_coord(int ctm, float x, float scale, float lout, float lin, float rs, float re)
{
    switch (ctm) {
    case CT_ASYM: return x / scale;
    case CT_PYTORCH: return lout > 1 ? (x + 0.5f) / scale - 0.5f : 0.f;
    case CT_TF_NN: return (x + 0.5f) / scale;
    case CT_ALIGN: return lout == 1 ? 0.f : x * (lin - 1) / (lout - 1);
    case CT_TF_CROP:
        return (float)(lout > 1 ? rs * (lin - 1) + (x * (re - rs) * (lin - 1)) / (lout - 1)
                                : 0.5 * (rs + re) * (lin - 1));
    case CT_HALF_SYM: {
        float ow = scale * lin, adj = lout / ow, center = lin / 2, off = center * (1 - adj);
        return (float)(off + (x + 0.5) / scale - 0.5);
    }
    default: return (x + 0.5f) / scale - 0.5f;
    }
}

static int64_t rs_nearest(int mode, float x, int down)
{
    switch (mode) {
    case NM_SIMPLE: return down ? (int64_t)ceilf(x) : (int64_t)x;
    case NM_RPC: return (int64_t)roundf(x);
    case NM_FLOOR: return (int64_t)floorf(x);
    case NM_CEIL: return (int64_t)ceilf(x);
    default:
        if (x == (float)(int64_t)x + 0.5f) return (int64_t)floorf(x);
        return (int64_t)roundf(x);
    }
}

static double cubic_k(double d, double A)
{
    d = fabs(d);
    if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
    if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
    return 0;
}

/* Taps per output index of an axis. */
static int rs_taps(const rs_state *s, float scale)
{
    if (s->mode == RS_NEAREST) return 1;
    double sc = s->antialias && scale < 1 ? scale : 1.0;
    if (!(sc > 1.0 / 512)) return 4096;   /* refused by the caller */
    int64_t start = (int64_t)floor((s->mode == RS_LINEAR ? -1.0 : -2.0) / sc) + 1;
    return (int)(2 - 2 * start);
}

static int rs_fill_axis(const rs_state *s, const rs_geom *gm, int a, int64_t stride, rs_axis *ax)
{
    int64_t lin = gm->in[a], lout = gm->out[a];
    int T = ax->T;
    float scale = gm->scale[a];
    int down = scale < 1;
    double sc = s->antialias && scale < 1 ? scale : 1.0;
    int64_t start = 1 - T / 2;
    int single = 1;
    for (int64_t o = 0; o < lout; o++) {
        float lr = (s->ctm == CT_ALIGN || s->ctm == CT_PYTORCH) && gm->lres[a] >= 0 ? gm->lres[a] : (float)lout;
        float x = rs_coord(s->ctm, (float)o, scale, lr, (float)lin, gm->roi_s[a], gm->roi_e[a]);
        int64_t *ix = ax->idx + o * T;
        float *w = ax->w ? ax->w + o * T : NULL;
        if (s->ctm == CT_TF_CROP && (x < 0 || x > (float)(lin - 1))) {
            for (int t = 0; t < T; t++) { ix[t] = -1; if (w) w[t] = 0; }
            continue;
        }
        /* far outside the axis every tap clamps to the edge: bound x (and
         * NaN) so the integer conversions below stay defined */
        if (!(x > -(float)(T + 2))) x = -(float)(T + 2);
        if (x > (float)(lin + T + 2)) x = (float)(lin + T + 2);
        if (s->mode == RS_NEAREST) {
            int64_t i = rs_nearest(s->nearest, x, down);
            i = i < 0 ? 0 : i >= lin ? lin - 1 : i;
            ix[0] = i * stride;
            continue;
        }
        /* base + t' over t' in [start, start+T) with ratio in (0, 1] */
        double xb = floor((double)x), ratio = (double)x - xb;
        if (ratio == 0) { ratio = 1; xb -= 1; }
        double sum = 0, wt[256];
        for (int t = 0; t < T; t++) {
            double d = ((double)(start + t) - ratio) * sc;
            wt[t] = s->mode == RS_LINEAR ? fmax(0.0, 1.0 - fabs(d)) : cubic_k(d, s->cubic_a);
            sum += wt[t];
        }
        if (s->antialias && sc < 1 && sum != 0)
            for (int t = 0; t < T; t++) wt[t] /= sum;
        if (s->exclude) {
            sum = 0;
            for (int t = 0; t < T; t++) {
                int64_t i = (int64_t)xb + start + t;
                if (i < 0 || i >= lin) wt[t] = 0;
                sum += wt[t];
            }
            if (sum != 0)
                for (int t = 0; t < T; t++) wt[t] /= sum;
        }
        int nz = 0;
        for (int t = 0; t < T; t++) {
            int64_t i = (int64_t)xb + start + t;
            i = i < 0 ? 0 : i >= lin ? lin - 1 : i;
            ix[t] = i * stride;
            w[t] = (float)wt[t];
            if (wt[t] != 0) nz += wt[t] == 1.0 ? 1 : 2;
        }
        if (nz != 1) single = 0;
    }
    if (s->mode != RS_NEAREST && single && T > 1) {
        /* every output index reads exactly one input with weight 1 (e.g. an
         * axis that is not resized): collapse to one tap */
        for (int64_t o = 0; o < lout; o++) {
            int t = 0;
            while (t < T - 1 && ax->w[o * T + t] == 0) t++;   /* extrapolated rows: all 0, idx -1 */
            int64_t i = ax->idx[o * T + t];
            ax->idx[o] = i;
            ax->w[o] = i < 0 ? 0.f : 1.f;
        }
        ax->T = 1;
    }
    return 0;
}

static size_t rs_table_bytes(const rs_state *s, const rs_geom *gm)
{
    size_t b = 0;
    for (int a = 0; a < gm->r; a++) b += (size_t)gm->out[a] * (size_t)rs_taps(s, gm->scale[a]) * 12 + 16;
    return b;
}

/* A float32 linear resize of exactly two axes that are adjacent in the
 * output's physical order (NCHW: H, W innermost; NHWC: H, W, then C) runs
 * separably (rs_sep2_f32): *p gets the first one's physical position and
 * the return value the float count of the intermediate rows; 0 when the
 * resize is of another kind. */
static int64_t rs_sep2_elems(const rs_state *s, const rs_geom *gm, const k_tensor *in, const k_tensor *out, int *p)
{
    if (s->mode != RS_LINEAR || s->ctm == CT_TF_CROP || in[0].dtype != G_F32 || gm->r < 2) return 0;
    int ord[G_MAX_RANK], first = -1, cnt = 0;
    ksh_porder(out, ord);
    for (int k = 0; k < gm->r; k++) {
        int a = ord[k];
        if (gm->in[a] == gm->out[a] && gm->scale[a] == 1.0f) continue;
        if (rs_taps(s, gm->scale[a]) != 2) return 0;
        if (cnt++ == 0) first = k;
    }
    if (cnt != 2 || !(first + 1 < gm->r) || (gm->in[ord[first + 1]] == gm->out[ord[first + 1]] &&
                                             gm->scale[ord[first + 1]] == 1.0f))
        return 0;
    *p = first;
    int64_t inner = 1;
    for (int k = first + 2; k < gm->r; k++) inner *= gm->out[ord[k]];
    return gm->in[ord[first]] * gm->out[ord[first + 1]] * inner;
}

static int rs_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, size_t *packed,
                   size_t *scratch)
{
    rs_geom gm;
    int p;
    *packed = 0;
    *scratch = 0;
    if (rs_geometry(n, st, in, &gm) == 0)
        *scratch = rs_table_bytes(st, &gm) + (size_t)rs_sep2_elems(st, &gm, in, out, &p) * sizeof(float);
    return 0;
}

/* ---- interpolation kernels ---- */

typedef struct rs_job {
    int r;
    const int64_t *od;
    const rs_axis *ax;
    double extrap;
    int ext;           /* tf_crop_and_resize: some taps extrapolate */
} rs_job;

/* Builds the (offset, weight) combinations of the outer axes of row `row`;
 * returns their count, or -1 when the row is extrapolated. */
static int rs_combos(const rs_job *j, int64_t row, int64_t *off, double *w)
{
    int64_t idx[G_MAX_RANK];
    for (int a = j->r - 2; a >= 0; a--) { idx[a] = row % j->od[a]; row /= j->od[a]; }
    int nc = 1;
    off[0] = 0;
    w[0] = 1;
    for (int a = 0; a < j->r - 1; a++) {
        const rs_axis *x = &j->ax[a];
        const int64_t *ix = x->idx + idx[a] * x->T;
        if (ix[0] < 0) return -1;
        if (x->T == 1) {
            for (int c = 0; c < nc; c++) off[c] += ix[0];
            if (x->w)
                for (int c = 0; c < nc; c++) w[c] *= x->w[idx[a]];
            continue;
        }
        const float *wx = x->w + idx[a] * x->T;
        int m = 0;
        int64_t noff[RS_MAXC];
        double nw[RS_MAXC];
        for (int c = 0; c < nc; c++)
            for (int t = 0; t < x->T; t++)
                if (wx[t] != 0 && m < RS_MAXC) { noff[m] = off[c] + ix[t]; nw[m] = w[c] * wx[t]; m++; }
        memcpy(off, noff, (size_t)m * sizeof *off);
        memcpy(w, nw, (size_t)m * sizeof *w);
        nc = m;
    }
    return nc;
}

#define RS_KERNEL(NAME, TY, ACC, LOAD, STORE)                                              \
    static void NAME(const rs_job *j, const void *src, void *dst, int nt)                 \
    {                                                                                     \
        int r = j->r;                                                                     \
        int64_t W = j->od[r - 1], nrow = ksh_prod(j->od, 0, r - 1);                       \
        const rs_axis *in = &j->ax[r - 1];                                                \
        const TY *S = src;                                                                 \
        TY *D = dst;                                                                       \
        _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")          \
        for (int64_t row = 0; row < nrow; row++) {                                        \
            int64_t off[RS_MAXC];                                                         \
            double cw[RS_MAXC];                                                           \
            int nc = rs_combos(j, row, off, cw);                                          \
            TY *o = D + row * W;                                                           \
            if (nc >= 1 && nc <= 2 && in->T == 2 && !j->ext) {                        \
                /* bilinear fast path: one or two source rows, two taps */            \
                const TY *b0 = S + off[0], *b1 = S + off[nc - 1];                     \
                ACC w0 = (ACC)cw[0], w1 = nc == 2 ? (ACC)cw[1] : (ACC)0;              \
                for (int64_t x = 0; x < W; x++) {                                     \
                    int64_t i0 = in->idx[2 * x], i1 = in->idx[2 * x + 1];             \
                    ACC a = (ACC)in->w[2 * x], bw = (ACC)in->w[2 * x + 1];            \
                    ACC v = w0 * (a * LOAD(b0[i0]) + bw * LOAD(b0[i1]));              \
                    if (nc == 2) v += w1 * (a * LOAD(b1[i0]) + bw * LOAD(b1[i1]));    \
                    o[x] = STORE(v);                                                  \
                }                                                                     \
                continue;                                                             \
            }                                                                         \
            for (int64_t x = 0; x < W; x++) {                                             \
                const int64_t *ix = in->idx + x * in->T;                                  \
                const float *wx = in->w + x * in->T;                                      \
                if (nc < 0 || ix[0] < 0) { o[x] = STORE((ACC)j->extrap); continue; }      \
                ACC acc = 0;                                                              \
                for (int c = 0; c < nc; c++) {                                            \
                    const TY *b = S + off[c];                                              \
                    ACC sum = 0;                                                          \
                    for (int t = 0; t < in->T; t++) sum += (ACC)wx[t] * LOAD(b[ix[t]]);   \
                    acc += (ACC)cw[c] * sum;                                              \
                }                                                                         \
                o[x] = STORE(acc);                                                        \
            }                                                                             \
        }                                                                                 \
    }

#define ID(x) (x)
static inline float ld_h(uint16_t h) { return ksh_h2f(h); }
static inline uint16_t st_h(float f) { return ksh_f2h(f); }
static inline float ld_bf(uint16_t h) { return ksh_bf2f(h); }
static inline uint16_t st_bf(float f) { return ksh_f2bf(f); }
/* Integer outputs of linear and cubic modes: the value truncated toward
 * zero, as ONNX Runtime (its float result cast to the type) and ONNX's
 * reference implementation (astype) give it, then saturated. */
#define SAT(NAME, T, LO, HI) \
    static inline T NAME(double v) { v = v == v ? trunc(v) : 0.0; return v <= (LO) ? (T)(LO) : v >= (HI) ? (T)(HI) : (T)v; }
SAT(st_u8, uint8_t, 0, 255)
SAT(st_i8, int8_t, -128, 127)
SAT(st_u16, uint16_t, 0, 65535)
SAT(st_i16, int16_t, -32768, 32767)
SAT(st_i32, int32_t, -2147483648.0, 2147483647.0)
SAT(st_u32, uint32_t, 0, 4294967295.0)
SAT(st_i64, int64_t, -9.2233720368547758e18, 9.2233720368547748e18)
SAT(st_u64, uint64_t, 0, 1.8446744073709550e19)

RS_KERNEL(rs_f32, float, float, ID, ID)
RS_KERNEL(rs_f64, double, double, ID, ID)
RS_KERNEL(rs_f16, uint16_t, float, ld_h, st_h)
RS_KERNEL(rs_bf16, uint16_t, float, ld_bf, st_bf)
RS_KERNEL(rs_u8, uint8_t, double, ID, st_u8)
RS_KERNEL(rs_i8, int8_t, double, ID, st_i8)
RS_KERNEL(rs_u16, uint16_t, double, ID, st_u16)
RS_KERNEL(rs_i16, int16_t, double, ID, st_i16)
RS_KERNEL(rs_i32, int32_t, double, ID, st_i32)
RS_KERNEL(rs_u32, uint32_t, double, ID, st_u32)
RS_KERNEL(rs_i64, int64_t, double, (double), st_i64)
RS_KERNEL(rs_u64, uint64_t, double, (double), st_u64)

/* The separable form of a two-axis 2-tap resize (physical axes p, p+1 of
 * the output, every other axis untouched): each source row along p is
 * interpolated along p+1 once into tmp, then every output row is a blend of
 * two tmp rows over contiguous memory. The same products, in the same order,
 * as the row kernels' bilinear path; an upsampling segmentation head
 * (1x21x40x40 -> 320x320) gathers 8x less. 0: the other axes are not all
 * identities (the caller runs the general kernel). */
static int rs_sep2_f32(const rs_axis *pax, const int64_t *pod, const int64_t *pst, int r, int p, int64_t hin,
                       int64_t win, const float *S, float *D, float *tmp, int nt)
{
    /* two taps on both axes (one collapsed to a single tap takes the
     * general kernel), the input dense in the output's physical order and
     * the other axes identities */
    if (pax[p].T != 2 || pax[p + 1].T != 2) return 0;
    int64_t want = 1;
    for (int k = r - 1; k >= 0; k--) {
        if (pst[k] != want) return 0;
        want *= k == p ? hin : k == p + 1 ? win : pod[k];
        if (k == p || k == p + 1) continue;
        if (pax[k].T != 1 || !pax[k].w) return 0;
        for (int64_t o = 0; o < pod[k]; o++)
            if (pax[k].w[o] != 1.0f || pax[k].idx[o] != o * pst[k]) return 0;
    }
    int64_t B = ksh_prod(pod, p + 2, r), P = ksh_prod(pod, 0, p), ho = pod[p], wo = pod[p + 1];
    /* identity outer/inner axes: the input is P planes of hin x win x B */
    const rs_axis *ay = &pax[p], *ax = &pax[p + 1];
    int64_t rowin = win * B, rowout = wo * B;
    for (int64_t pl = 0; pl < P; pl++) {
        const float *src = S + pl * hin * rowin;
        float *dst = D + pl * ho * rowout;
        _Pragma("omp parallel num_threads(nt) if (nt > 1)")
        {
            _Pragma("omp for schedule(static)")
            for (int64_t iy = 0; iy < hin; iy++) {
                const float *row = src + iy * rowin;
                float *t = tmp + iy * rowout;
                for (int64_t x = 0; x < wo; x++) {
                    const float *a0 = row + ax->idx[2 * x], *a1 = row + ax->idx[2 * x + 1];
                    float wa = ax->w[2 * x], wb = ax->w[2 * x + 1];
                    for (int64_t k = 0; k < B; k++) t[x * B + k] = wa * a0[k] + wb * a1[k];
                }
            }
            _Pragma("omp for schedule(static)")
            for (int64_t y = 0; y < ho; y++) {
                const float *t0 = tmp + ay->idx[2 * y] / rowin * rowout;
                const float *t1 = tmp + ay->idx[2 * y + 1] / rowin * rowout;
                float w0 = ay->w[2 * y], w1 = ay->w[2 * y + 1];
                float *o = dst + y * rowout;
                for (int64_t e = 0; e < rowout; e++) o[e] = w0 * t0[e] + w1 * t1[e];
            }
        }
    }
    return 1;
}

static int rs_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const rs_state *s = st;
    rs_geom gm;
    int e = rs_geometry(n, s, in, &gm), r = gm.r;
    if (e) return e == K_NEED_DATA ? ksh_fail(n, KSH_EINVAL, "scales/sizes not known at run time") : e;
    for (int a = 0; a < r; a++)
        if (gm.out[a] != out[0].shape.d[a])
            return ksh_fail(n, KSH_EINVAL, "output dim %d is %lld, resize gives %lld", a,
                            (long long)out[0].shape.d[a], (long long)gm.out[a]);
    int64_t total = ksh_numel(&out[0].shape);
    if (total == 0) return 0;
    size_t es = ksh_esize(in[0].dtype);
    if (r == 0) { memcpy(out[0].data, in[0].data, es); return 0; }
    for (int a = 0; a < r; a++)
        if (gm.in[a] == 0) return ksh_fail(n, KSH_EINVAL, "cannot resize an empty axis %d to %lld", a, (long long)gm.out[a]);
    int owned, sp = -1;
    int64_t sep = rs_sep2_elems(s, &gm, in, &out[0], &sp);
    size_t tb = rs_table_bytes(s, &gm);
    char *buf = ksh_scratch(c, tb + (size_t)sep * sizeof(float), &owned);
    if (!buf) return ksh_fail(n, KSH_ENOMEM, "out of memory for resize tables");
    rs_axis ax[G_MAX_RANK];
    int64_t ist[G_MAX_RANK], combos = 1;
    ksh_lstrides(&in[0], ist);
    char *p = buf;
    for (int a = 0; a < r; a++) {
        ax[a].T = rs_taps(s, gm.scale[a]);
        if (ax[a].T > 256) {
            if (owned) free(buf);
            return ksh_fail(n, KSH_EUNSUP, "antialias filter of %d taps on axis %d (scale %g) exceeds 256",
                            ax[a].T, a, gm.scale[a]);
        }
        size_t k = (size_t)gm.out[a] * (size_t)ax[a].T;
        ax[a].idx = (int64_t *)p;
        p += k * 8;
        ax[a].w = s->mode == RS_NEAREST ? NULL : (float *)p;
        p += k * 4;
        p = (char *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
        rs_fill_axis(s, &gm, a, ist[a], &ax[a]);
    }
    /* walk the output in its physical order (channels-last keeps C inner) */
    int ord[G_MAX_RANK];
    rs_axis pax[G_MAX_RANK];
    int64_t pod[G_MAX_RANK], pst[G_MAX_RANK];
    ksh_porder(&out[0], ord);
    for (int a = 0; a < r; a++) {
        pax[a] = ax[ord[a]];
        pod[a] = out[0].shape.d[ord[a]];
        pst[a] = ist[ord[a]];
        if (a < r - 1) combos *= pax[a].T;
    }
    int nt = ksh_threads(c, (size_t)total * es * (s->mode == RS_NEAREST ? 1 : 4));
    if (s->mode == RS_NEAREST) {
        int64_t *maps[G_MAX_RANK];
        unsigned char fill[8] = {0};
        ksh_setf(fill, in[0].dtype, 0, s->extrap);
        for (int a = 0; a < r; a++) maps[a] = pax[a].idx;
        ksh_gather_maps(out[0].data, in[0].data, pod, r, maps, es, fill, nt);
    } else if (sep > 0 && rs_sep2_f32(pax, pod, pst, r, sp, gm.in[ord[sp]], gm.in[ord[sp + 1]], in[0].data,
                                      out[0].data, (float *)(buf + tb), nt)) {
        /* done separably */
    } else if (combos > RS_MAXC) {
        e = ksh_fail(n, KSH_EUNSUP, "%lld interpolation taps per output row exceed %d", (long long)combos, RS_MAXC);
    } else {
        rs_job j = {.r = r, .od = pod, .ax = pax, .extrap = s->extrap, .ext = s->ctm == CT_TF_CROP};
        switch (in[0].dtype) {
        case G_F32: rs_f32(&j, in[0].data, out[0].data, nt); break;
        case G_F64: rs_f64(&j, in[0].data, out[0].data, nt); break;
        case G_F16: rs_f16(&j, in[0].data, out[0].data, nt); break;
        case G_BF16: rs_bf16(&j, in[0].data, out[0].data, nt); break;
        case G_U8: rs_u8(&j, in[0].data, out[0].data, nt); break;
        case G_I8: rs_i8(&j, in[0].data, out[0].data, nt); break;
        case G_U16: rs_u16(&j, in[0].data, out[0].data, nt); break;
        case G_I16: rs_i16(&j, in[0].data, out[0].data, nt); break;
        case G_I32: rs_i32(&j, in[0].data, out[0].data, nt); break;
        case G_U32: rs_u32(&j, in[0].data, out[0].data, nt); break;
        case G_I64: rs_i64(&j, in[0].data, out[0].data, nt); break;
        case G_U64: rs_u64(&j, in[0].data, out[0].data, nt); break;
        default: e = ksh_fail(n, KSH_ETYPE, "type %s", g_dtype_name(in[0].dtype));
        }
    }
    if (owned) free(buf);
    return e;
}

static const k_op k_resize = {.op_type = "Resize", .domain = "", .since = 10, .impl = "ref",
                              .init = rs_init, .infer = rs_infer, .plan = rs_plan, .run = rs_run,
                              .fini = rs_fini, .accepts_layout = ksh_accept_data};
K_REGISTER(k_resize);
static const k_op k_upsample = {.op_type = "Upsample", .domain = "", .since = 7, .until = 10, .impl = "ref",
                                .init = rs_init, .infer = rs_infer, .plan = rs_plan, .run = rs_run,
                                .fini = rs_fini, .accepts_layout = ksh_accept_data};
K_REGISTER(k_upsample);
