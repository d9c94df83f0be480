/* Reference normalisations: BatchNormalization (inference; NCHW or NHWC;
 * a Relu the fusion pass folded in as its _oa_post_ops, graph/fuse_simple.c),
 * InstanceNormalization, LayerNormalization (opset 17, optional Mean and
 * InvStdDev outputs), GroupNormalization (18: scale per group, 21: per
 * channel), LpNormalization and MeanVarianceNormalization. Statistics are
 * taken in two passes (mean, then squared deviations); float32 has
 * vectorised row loops, other float types compute in double. */
#include "kernels/ref/ew_common.h"
#include "kernels/post.h"
#include <omp.h>
#include <stdlib.h>

/* mean and 1/sqrt(var + eps) of a contiguous float row */
EW_CLONE static void stats_f32(const float *x, int64_t n, float eps, float *mean, float *inv)
{
    float s = 0.0f;
    EW_SIMD_RED(+, s)
    for (int64_t i = 0; i < n; i++) s += x[i];
    const float m = n > 0 ? s / (float)n : 0.0f;
    float v = 0.0f;
    EW_SIMD_RED(+, v)
    for (int64_t i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
    v = n > 0 ? v / (float)n : 0.0f;
    *mean = m;
    *inv = 1.0f / sqrtf(v + eps);
}
static void stats_gen(const void *x, int dt, int64_t off, int64_t n, double eps, double *mean, double *inv)
{
    double s = 0.0, v = 0.0;
    for (int64_t i = 0; i < n; i++) s += ew_ld(x, dt, (size_t)(off + i));
    double m = n > 0 ? s / (double)n : 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = ew_ld(x, dt, (size_t)(off + i)) - m;
        v += d * d;
    }
    v = n > 0 ? v / (double)n : 0.0;
    *mean = m;
    *inv = 1.0 / sqrt(v + eps);
}
static void affine_gen(const void *x, void *y, int dt, int64_t off, int64_t n, double k, double b, int relu)
{
    for (int64_t i = 0; i < n; i++) {
        double v = ew_ld(x, dt, (size_t)(off + i)) * k + b;
        ew_st(y, dt, (size_t)(off + i), relu && !(v > 0.0) ? 0.0 : v);
    }
}

static int need_rank(const g_node *n, const k_tensor *x, int min)
{
    if (x->shape.rank >= 0 && x->shape.rank < min)
        return ew_fail(n, EW_EINVAL, "input rank %d, expected at least %d", x->shape.rank, min);
    return 0;
}
static int64_t numel_or0(const k_tensor *t)
{
    int64_t v = g_shape_numel(&t->shape);
    return v < 0 ? 0 : v;
}

/* ==== BatchNormalization ==== */
typedef struct bn_state {
    int dt;
    float eps;
    int relu;         /* fused Relu (the only post-op the fusion pass gives it) */
} bn_state;

static int bn_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0), rc;
    if ((rc = ew_check_type(n, 0, dt, EW_MFLT))) return rc;
    if (n->n_in != 5) return ew_fail(n, EW_EINVAL, "expects 5 inputs, got %d", n->n_in);
    for (int i = 1; i < 5; i++)
        if ((rc = ew_check_type(n, i, ew_gdtype(g, n, i), EW_MFLT))) return rc;
    if (g_attr_int(n, "training_mode", 0) != 0)
        return ew_fail(n, EW_EUNSUP, "training_mode=1 is not supported (inference only: batch "
                       "statistics and running-stat updates are not computed)");
    if (n->opset < 9 && g_attr_int(n, "spatial", 1) == 0)
        return ew_fail(n, EW_EUNSUP, "spatial=0 (per-activation statistics) is not supported");
    if (n->opset < 7 && g_attr_int(n, "is_test", 0) == 0)
        return ew_fail(n, EW_EUNSUP, "is_test=0 (training) is not supported");
    for (int i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0)
            return ew_fail(n, EW_EUNSUP, "output %d (a training-mode statistic) is requested; only "
                           "inference (output 0) is supported", i);
    nn_post po;
    if (nn_post_parse(n, &po) || po.n > 1 || (po.n == 1 && (po.kind[0] != NN_PO_RELU || po.a[0] != 0.0f)))
        return ew_fail(n, EW_EUNSUP, "fused post-ops other than one Relu are not supported");
    bn_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->eps = g_attr_float(n, "epsilon", 1e-5f);
    s->relu = po.n == 1;
    *state = s;
    return 0;
}

static int bn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    int rc = need_rank(n, &in[0], 2);
    if (rc) return rc;
    if (in[0].shape.rank >= 2 && in[0].shape.d[1] >= 0)
        for (int i = 1; i < 5; i++)
            if (in[i].shape.rank >= 0 && g_shape_numel(&in[i].shape) >= 0 &&
                g_shape_numel(&in[i].shape) != in[0].shape.d[1])
                return ew_fail(n, EW_EINVAL, "input %d has %lld elements, expected C=%lld", i,
                               (long long)g_shape_numel(&in[i].shape), (long long)in[0].shape.d[1]);
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = in[0].layout;
    return 0;
}

/* per-channel y = x*k + b with k = scale/sqrt(var+eps), b = bias - mean*k */
static void bn_coef(const k_tensor *in, float eps, int64_t c, double *k, double *b)
{
    double sc = ew_ld(in[1].data, in[1].dtype, (size_t)c), bi = ew_ld(in[2].data, in[2].dtype, (size_t)c);
    double mu = ew_ld(in[3].data, in[3].dtype, (size_t)c), va = ew_ld(in[4].data, in[4].dtype, (size_t)c);
    *k = sc / sqrt(va + (double)eps);
    *b = bi - mu * *k;
}

#define BN_CB 512
static int bn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    bn_state *s = state;
    const g_shape *sh = &in[0].shape;
    int64_t N = sh->d[0], C = sh->d[1], S = 1;
    for (int i = 2; i < sh->rank; i++) S *= sh->d[i];
    if (N * C * S <= 0) return 0;
    int dt = s->dt, relu = s->relu;
    const void *x = in[0].data;
    void *y = out[0].data;
    int nt = ew_threads(ctx, (size_t)(N * C * S), EW_GRAIN_CHEAP);
    if (sh->rank == 4 && in[0].layout == G_LAYOUT_NHWC) {
        /* channels innermost: coefficients for a chunk of channels at a time */
        int64_t P = N * S;
        for (int64_t c0 = 0; c0 < C; c0 += BN_CB) {
            int64_t m = C - c0 < BN_CB ? C - c0 : BN_CB;
            float kf[BN_CB], bf[BN_CB];
            for (int64_t j = 0; j < m; j++) {
                double k, b;
                bn_coef(in, s->eps, c0 + j, &k, &b);
                kf[j] = (float)k;
                bf[j] = (float)b;
            }
            EW_PAR_FOR(p, P,
                if (dt == G_F32) {
                    const float *xp = (const float *)x + p * C + c0;
                    float *yp = (float *)y + p * C + c0;
                    ew_affine_ch_f32(xp, yp, m, kf, bf, relu);
                } else {
                    for (int64_t j = 0; j < m; j++) {
                        size_t e = (size_t)(p * C + c0 + j);
                        double v = ew_ld(x, dt, e) * kf[j] + bf[j];
                        ew_st(y, dt, e, relu && !(v > 0.0) ? 0.0 : v);
                    }
                }
            );
        }
        return 0;
    }
    EW_PAR_FOR(u, N * C,
        double k, b;
        bn_coef(in, s->eps, u % C, &k, &b);
        if (dt == G_F32) ew_affine_f32((const float *)x + u * S, (float *)y + u * S, S, (float)k, (float)b, relu);
        else affine_gen(x, y, dt, u * S, S, k, b, relu);
    );
    return 0;
}

static int bn_layout(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (idx == 0 && layout == G_LAYOUT_NHWC);
}

static const k_op k_bn = { "BatchNormalization", "", 1, 0, "ref", 0, bn_init, bn_infer, NULL, NULL,
                           bn_run, ew_fini_free, bn_layout };
K_REGISTER(k_bn);

/* ==== InstanceNormalization and GroupNormalization ====
 * Both normalise contiguous blocks of [N, C, spatial]: one channel
 * (instance) or C/G channels (group), then apply a per-channel or
 * per-group scale and bias. */
typedef struct gn_state {
    int dt;
    int group;                /* 0: InstanceNormalization */
    int64_t G;
    float eps;
} gn_state;

static int gn_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0), rc;
    if ((rc = ew_check_type(n, 0, dt, EW_MFLT))) return rc;
    if (n->n_in != 3) return ew_fail(n, EW_EINVAL, "expects 3 inputs, got %d", n->n_in);
    for (int i = 1; i < 3; i++)
        if ((rc = ew_check_type(n, i, ew_gdtype(g, n, i), EW_MFLT))) return rc;
    gn_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->group = !strcmp(n->op_type, "GroupNormalization");
    s->eps = g_attr_float(n, "epsilon", 1e-5f);
    if (s->group) {
        s->G = g_attr_int(n, "num_groups", 0);
        int64_t st = g_attr_int(n, "stash_type", 1);
        int64_t G = s->G;
        if (G <= 0 || st != 1) {
            free(s);
            return G <= 0 ? ew_fail(n, EW_EINVAL, "num_groups=%lld (must be given and > 0)", (long long)G)
                          : ew_fail(n, EW_EUNSUP, "stash_type=%lld (only 1, float, is supported)", (long long)st);
        }
    }
    *state = s;
    return 0;
}

static int gn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    gn_state *s = state;
    int rc = need_rank(n, &in[0], 2);
    if (rc) return rc;
    if (in[0].shape.rank >= 2 && in[0].shape.d[1] >= 0) {
        int64_t C = in[0].shape.d[1];
        if (s->group && C % s->G)
            return ew_fail(n, EW_EINVAL, "C=%lld is not a multiple of num_groups=%lld", (long long)C, (long long)s->G);
        for (int i = 1; i < 3; i++) {
            int64_t k = g_shape_numel(&in[i].shape);
            int ok = k < 0 || k == C || (s->group && k == s->G);
            if (!ok)
                return ew_fail(n, EW_EINVAL, "input %d has %lld elements, expected %lld%s", i, (long long)k,
                               (long long)(s->group && n->opset < 21 ? s->G : C), s->group ? " (groups or channels)" : "");
        }
    }
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int gn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    gn_state *s = state;
    const g_shape *sh = &in[0].shape;
    int64_t N = sh->d[0], C = sh->d[1], S = 1;
    for (int i = 2; i < sh->rank; i++) S *= sh->d[i];
    int64_t G = s->group ? s->G : C, CG = C / G;
    if (N * C * S <= 0) return 0;
    /* scale/bias per channel, or per group (opset 18 form: G elements, G != C) */
    int per_group = s->group && numel_or0(&in[1]) == G && G != C;
    int dt = s->dt;
    const void *x = in[0].data;
    void *y = out[0].data;
    int nt = ew_threads(ctx, (size_t)(N * C * S), EW_GRAIN_CHEAP);
    EW_PAR_FOR(u, N * G,
        int64_t gi = u % G, off = u * CG * S;
        double m, inv;
        if (dt == G_F32) {
            float mf, invf;
            stats_f32((const float *)x + off, CG * S, s->eps, &mf, &invf);
            m = mf;
            inv = invf;
        } else {
            stats_gen(x, dt, off, CG * S, s->eps, &m, &inv);
        }
        for (int64_t j = 0; j < CG; j++) {
            int64_t c = gi * CG + j, pi = per_group ? gi : c;
            double sc = ew_ld(in[1].data, in[1].dtype, (size_t)pi), bi = ew_ld(in[2].data, in[2].dtype, (size_t)pi);
            double k = sc * inv, b = bi - m * k;
            if (dt == G_F32) ew_affine_f32((const float *)x + off + j * S, (float *)y + off + j * S, S, (float)k, (float)b, 0);
            else affine_gen(x, y, dt, off + j * S, S, k, b, 0);
        }
    );
    return 0;
}

static const k_op k_in = { "InstanceNormalization", "", 1, 0, "ref", 0, gn_init, gn_infer, NULL, NULL,
                           gn_run, ew_fini_free, NULL };
K_REGISTER(k_in);
static const k_op k_gn = { "GroupNormalization", "", 18, 0, "ref", 0, gn_init, gn_infer, NULL, NULL,
                           gn_run, ew_fini_free, NULL };
K_REGISTER(k_gn);

/* ==== LayerNormalization ==== */
typedef struct ln_state {
    int dt;
    int64_t axis;
    float eps;
} ln_state;

static int ln_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0), rc;
    if ((rc = ew_check_type(n, 0, dt, EW_MFLT))) return rc;
    if (n->n_in < 2) return ew_fail(n, EW_EINVAL, "expects 2 or 3 inputs, got %d", n->n_in);
    for (int i = 1; i < n->n_in && i < 3; i++)
        if (n->in[i] >= 0 && (rc = ew_check_type(n, i, ew_gdtype(g, n, i), EW_MFLT))) return rc;
    int64_t st = g_attr_int(n, "stash_type", 1);
    if (st != 1) return ew_fail(n, EW_EUNSUP, "stash_type=%lld (only 1, float, is supported)", (long long)st);
    ln_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->axis = g_attr_int(n, "axis", -1);
    s->eps = g_attr_float(n, "epsilon", 1e-5f);
    *state = s;
    return 0;
}

/* strides of a parameter broadcast (unidirectionally) onto the normalised dims */
static int ln_pstrides(const k_tensor *p, const g_shape *x, int a, int64_t *st)
{
    int nr = x->rank - a, pr = p->shape.rank;
    if (pr > nr) {
        for (int i = 0; i < pr - nr; i++)
            if (p->shape.d[i] != 1) return -1;
    }
    int64_t s = 1;
    for (int j = nr - 1; j >= 0; j--) {
        int pj = pr - (nr - j);
        int64_t dj = pj >= 0 ? p->shape.d[pj] : 1;
        if (dj != 1 && dj != x->d[a + j]) return -1;
        st[j] = dj == 1 ? 0 : s;
        s *= dj;
    }
    return 0;
}

static int ln_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    ln_state *s = state;
    int r = in[0].shape.rank;
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    int a = r >= 0 ? ew_axis(s->axis, r) : 0;
    if (r >= 0 && a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)s->axis, r);
    if (g_shape_known(&in[0].shape)) {
        int64_t st[G_MAX_RANK];
        for (int i = 1; i < n->n_in && i < 3; i++)
            if (ew_has(n, in, i) && g_shape_known(&in[i].shape) && ln_pstrides(&in[i], &in[0].shape, a, st))
                return ew_fail(n, EW_EINVAL, "input %d does not broadcast to the normalised dims", i);
    }
    for (int i = 1; i < n->n_out && i < 3; i++) {
        out[i].dtype = G_F32;
        out[i].layout = G_LAYOUT_PLAIN;
        out[i].shape = in[0].shape;
        if (r >= 0)
            for (int j = a; j < r; j++) out[i].shape.d[j] = 1;
    }
    return 0;
}

/* LayerNormalization of `rows` contiguous float rows of R with dense scale and
 * (optional) bias: the whole row step in one cloned function, so the
 * normalising loop is vectorised for the CPU too, not only the statistics
 * (ConvNeXt-T's 96-wide rows: 2x faster). */
EW_CLONE static void ln_rows_f32(const float *x, float *y, const float *sc, const float *bi, int64_t rows,
                                 int64_t R, float eps, float *mo, float *io)
{
    for (int64_t o = 0; o < rows; o++) {
        const float *xr = x + o * R;
        float *yr = y + o * R;
        float s = 0.0f;
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += xr[i];
        const float m = s / (float)R;
        float v = 0.0f;
        EW_SIMD_RED(+, v)
        for (int64_t i = 0; i < R; i++) v += (xr[i] - m) * (xr[i] - m);
        const float k = 1.0f / sqrtf(v / (float)R + eps);
        if (bi) { EW_SIMD for (int64_t i = 0; i < R; i++) yr[i] = (xr[i] - m) * k * sc[i] + bi[i]; }
        else { EW_SIMD for (int64_t i = 0; i < R; i++) yr[i] = (xr[i] - m) * k * sc[i]; }
        if (mo) mo[o] = m;
        if (io) io[o] = k;
    }
}

static int ln_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    ln_state *s = state;
    int r = in[0].shape.rank, a = ew_axis(s->axis, r);
    int64_t O, R, I;
    ew_split3(&in[0].shape, a, r, &O, &R, &I);   /* O rows of R elements */
    if (O * R <= 0) return 0;
    int has_b = ew_has(n, in, 2);
    int64_t sst[G_MAX_RANK], bst[G_MAX_RANK];
    if (ln_pstrides(&in[1], &in[0].shape, a, sst) || (has_b && ln_pstrides(&in[2], &in[0].shape, a, bst)))
        return ew_fail(n, EW_EINVAL, "scale or bias does not broadcast to the normalised dims");
    int dense = numel_or0(&in[1]) == R && in[1].dtype == G_F32 &&
                (!has_b || (numel_or0(&in[2]) == R && in[2].dtype == G_F32));
    float *mo = ew_want(n, 1) && n->n_out > 1 ? out[1].data : NULL;
    float *io = ew_want(n, 2) && n->n_out > 2 ? out[2].data : NULL;
    int dt = s->dt, nr = r - a;
    const void *x = in[0].data;
    void *y = out[0].data;
    int nt = ew_threads(ctx, (size_t)(O * R), EW_GRAIN_CHEAP);
    if (dt == G_F32 && dense) {
        /* blocks of rows of about 16 KiB, the unit of the threads' static split */
        int64_t per = (4096 + R - 1) / R, nb = (O + per - 1) / per;
        const float *sc = in[1].data, *bi = has_b ? in[2].data : NULL;
        EW_PAR_FOR(b, nb,
            int64_t o0 = b * per, cnt = O - o0 < per ? O - o0 : per;
            ln_rows_f32((const float *)x + o0 * R, (float *)y + o0 * R, sc, bi, cnt, R, s->eps,
                        mo ? mo + o0 : NULL, io ? io + o0 : NULL);
        );
        return 0;
    }
    EW_PAR_FOR(o, O,
        double m, inv;
        {
            stats_gen(x, dt, o * R, R, s->eps, &m, &inv);
            int64_t idx[G_MAX_RANK] = { 0 }, so = 0, bo = 0;
            for (int64_t i = 0; i < R; i++) {
                double v = (ew_ld(x, dt, (size_t)(o * R + i)) - m) * inv * ew_ld(in[1].data, in[1].dtype, (size_t)so);
                if (has_b) v += ew_ld(in[2].data, in[2].dtype, (size_t)bo);
                ew_st(y, dt, (size_t)(o * R + i), v);
                for (int k = nr - 1; k >= 0; k--) {
                    so += sst[k];
                    bo += has_b ? bst[k] : 0;
                    if (++idx[k] < in[0].shape.d[a + k]) break;
                    so -= sst[k] * in[0].shape.d[a + k];
                    bo -= has_b ? bst[k] * in[0].shape.d[a + k] : 0;
                    idx[k] = 0;
                }
            }
        }
        if (mo) mo[o] = (float)m;
        if (io) io[o] = (float)inv;
    );
    return 0;
}

static const k_op k_ln = { "LayerNormalization", "", 17, 0, "ref", 0, ln_init, ln_infer, NULL, NULL,
                           ln_run, ew_fini_free, NULL };
K_REGISTER(k_ln);

/* ==== LpNormalization ==== */
typedef struct lp_state {
    int dt, p;
    int64_t axis;
} lp_state;

static int lp_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0), rc;
    if ((rc = ew_check_type(n, 0, dt, EW_MFLT))) return rc;
    int64_t p = g_attr_int(n, "p", 2);
    if (p != 1 && p != 2) return ew_fail(n, EW_EUNSUP, "p=%lld (only 1 and 2 are defined)", (long long)p);
    lp_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->p = (int)p;
    s->axis = g_attr_int(n, "axis", -1);
    *state = s;
    return 0;
}

static int lp_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    lp_state *s = state;
    int r = in[0].shape.rank;
    if (r >= 0 && ew_axis(s->axis, r) < 0)
        return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)s->axis, r);
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int lp_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    lp_state *s = state;
    int a = ew_axis(s->axis, in[0].shape.rank);
    int64_t O, R, I;
    ew_split3(&in[0].shape, a, a + 1, &O, &R, &I);
    if (O * R * I <= 0) return 0;
    int dt = s->dt, p = s->p;
    int nt = ew_threads(ctx, (size_t)(O * R * I), EW_GRAIN_CHEAP);
    EW_PAR_FOR(u, O * I,
        int64_t base = (u / I) * R * I + u % I;
        double acc = 0.0;
        for (int64_t r2 = 0; r2 < R; r2++) {
            double v = ew_ld(in[0].data, dt, (size_t)(base + r2 * I));
            acc += p == 1 ? fabs(v) : v * v;
        }
        double norm = p == 1 ? acc : sqrt(acc);
        double k = norm > 0.0 ? 1.0 / norm : 0.0;
        for (int64_t r2 = 0; r2 < R; r2++)
            ew_st(out[0].data, dt, (size_t)(base + r2 * I), ew_ld(in[0].data, dt, (size_t)(base + r2 * I)) * k);
    );
    return 0;
}

static const k_op k_lp = { "LpNormalization", "", 1, 0, "ref", 0, lp_init, lp_infer, NULL, NULL,
                           lp_run, ew_fini_free, NULL };
K_REGISTER(k_lp);

/* ==== MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) ==== */
typedef struct mvn_state {
    int dt, naxes;
    int64_t axes[G_MAX_RANK];
} mvn_state;

static int mvn_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0), rc;
    if ((rc = ew_check_type(n, 0, dt, EW_MFLT))) return rc;
    mvn_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    const int64_t *ax;
    int na = g_attr_ints(n, "axes", &ax);
    if (na < 0) {
        s->naxes = 3;
        s->axes[0] = 0; s->axes[1] = 2; s->axes[2] = 3;
    } else if (na > G_MAX_RANK) {
        free(s);
        return ew_fail(n, EW_EINVAL, "%d axes given", na);
    } else {
        s->naxes = na;
        memcpy(s->axes, ax, (size_t)na * sizeof *ax);
    }
    *state = s;
    return 0;
}

static int mvn_mask(const g_node *n, const mvn_state *s, int r, int *mask)
{
    for (int i = 0; i < r; i++) mask[i] = 0;
    for (int i = 0; i < s->naxes; i++) {
        int a = ew_axis(s->axes[i], r);
        if (a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)s->axes[i], r);
        mask[a] = 1;
    }
    return 0;
}

static int mvn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    int mask[G_MAX_RANK];
    if (in[0].shape.rank >= 0) {
        int rc = mvn_mask(n, state, in[0].shape.rank, mask);
        if (rc) return rc;
    }
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int mvn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    mvn_state *s = state;
    const g_shape *sh = &in[0].shape;
    int r = sh->rank, mask[G_MAX_RANK], ko[G_MAX_RANK], kr[G_MAX_RANK], nko = 0, nkr = 0;
    int rc = mvn_mask(n, s, r, mask);
    if (rc) return rc;
    int64_t st[G_MAX_RANK], sz = 1, nout = 1, nred = 1;
    for (int i = r - 1; i >= 0; i--) {
        st[i] = sz;
        sz *= sh->d[i];
    }
    for (int i = 0; i < r; i++) {
        if (mask[i]) { kr[nkr++] = i; nred *= sh->d[i]; }
        else { ko[nko++] = i; nout *= sh->d[i]; }
    }
    if (sz <= 0) return 0;
    int dt = s->dt;
    int nt = ew_threads(ctx, (size_t)sz, EW_GRAIN_CHEAP);
    EW_PAR_FOR(o, nout,
        int64_t base = 0, rem = o;
        for (int k = nko - 1; k >= 0; k--) {
            base += (rem % sh->d[ko[k]]) * st[ko[k]];
            rem /= sh->d[ko[k]];
        }
        double s1 = 0.0, s2 = 0.0;
        for (int pass = 0; pass < 2; pass++) {
            int64_t idx[G_MAX_RANK] = { 0 }, off = base;
            double mean = s1 / (double)nred, var = s2 / (double)nred - mean * mean;
            double k = 1.0 / (sqrt(var > 0.0 ? var : 0.0) + 1e-9);
            for (int64_t e = 0; e < nred; e++) {
                double v = ew_ld(in[0].data, dt, (size_t)off);
                if (pass == 0) { s1 += v; s2 += v * v; }
                else ew_st(out[0].data, dt, (size_t)off, (v - mean) * k);
                for (int q = nkr - 1; q >= 0; q--) {
                    int i = kr[q];
                    off += st[i];
                    if (++idx[q] < sh->d[i]) break;
                    off -= st[i] * sh->d[i];
                    idx[q] = 0;
                }
            }
        }
    );
    return 0;
}

static const k_op k_mvn = { "MeanVarianceNormalization", "", 1, 0, "ref", 0, mvn_init, mvn_infer, NULL,
                            NULL, mvn_run, ew_fini_free, NULL };
K_REGISTER(k_mvn);
