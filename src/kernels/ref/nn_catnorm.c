/* openacl.ConcatNorm: a channel Concat and the inference BatchNormalization
 * that is its only reader, as one pass (graph/fuse_simple.c folds them:
 * DenseNet's pre-activation Concat -> BN -> ReLU -> Conv, where every layer
 * concatenates all earlier features and normalises them with its own
 * statistics). Each part is read once and written normalised at its
 * channel offset, instead of a copy followed by a second pass over the
 * concatenated tensor. Inputs: scale, B, mean, var (float32 constants, [C]),
 * then the parts [N, C_k, ...]; attributes epsilon and an optional fused
 * Relu (_oa_post_ops). Parts and output are NCHW or, at rank 4, NHWC, mixed
 * freely; the coefficients k = scale / sqrt(var + eps), b = B - mean * k
 * (in double, as the BatchNormalization reference) are packed at load.
 * With _oa_pool_kernel / _oa_pool_strides (2-D, fuse_simple.c: an unpadded
 * AveragePool that was the only reader) the node writes the average of each
 * window of normalised values instead (DenseNet's transitions: BN -> ReLU ->
 * 2x2 stride-2 pool -> 1x1 Conv once the pool went first), so the full
 * normalised plane is never stored. */
#include "kernels/ref/ew_common.h"
#include "kernels/post.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CN_SCALE, CN_B, CN_MEAN, CN_VAR, CN_X0 };

typedef struct cn_state {
    float eps;
    int relu;
    int pool;             /* an averaging window follows: k[2], s[2] */
    int64_t pk[2], ps[2];
    const float *kb;      /* packed: k[C] then b[C] */
} cn_state;

static const char *cn_who = "openacl.ConcatNorm";

static int cn_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_in < CN_X0 + 1 || n->n_out != 1)
        return ew_fail(n, EW_EINVAL, "%s expects scale, B, mean, var and at least one part, and one "
                       "output (got %d inputs, %d outputs)", cn_who, n->n_in, n->n_out);
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0) return ew_fail(n, EW_EINVAL, "%s: input %d is omitted", cn_who, i);
        int rc = ew_check_type(n, i, ew_gdtype(g, n, i), EW_M(G_F32));
        if (rc) return rc;
    }
    nn_post po;
    if (nn_post_parse(n, &po) || po.n > 1 || (po.n == 1 && (po.kind[0] != NN_PO_RELU || po.a[0] != 0.0f)))
        return ew_fail(n, EW_EUNSUP, "%s: fused post-ops other than one Relu are not supported", cn_who);
    cn_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->eps = g_attr_float(n, "epsilon", 1e-5f);
    s->relu = po.n == 1;
    const int64_t *k, *sd;
    int nk = g_attr_ints(n, "_oa_pool_kernel", &k), ns = g_attr_ints(n, "_oa_pool_strides", &sd);
    if (nk >= 0 || ns >= 0) {
        if (nk != 2 || ns != 2 || k[0] < 1 || k[1] < 1 || sd[0] < 1 || sd[1] < 1 || k[0] > 64 || k[1] > 64) {
            free(s);
            return ew_fail(n, EW_EINVAL, "%s: _oa_pool_kernel and _oa_pool_strides must be 2 positive "
                           "values each (kernel at most 64)", cn_who);
        }
        s->pool = 1;
        memcpy(s->pk, k, sizeof s->pk);
        memcpy(s->ps, sd, sizeof s->ps);
    }
    *st = s;
    return 0;
}

static int cn_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const cn_state *s = st;
    const g_shape *s0 = &in[CN_X0].shape;
    out[0].dtype = G_F32;
    out[0].layout = G_LAYOUT_PLAIN;
    if (s0->rank >= 0 && s0->rank < 2)
        return ew_fail(n, EW_EINVAL, "%s: part 0 has rank %d, expected at least 2", cn_who, s0->rank);
    g_shape o = *s0;
    for (int i = CN_X0 + 1; i < n->n_in && o.rank >= 0; i++) {
        const g_shape *x = &in[i].shape;
        if (x->rank < 0) { o.rank = -1; break; }
        if (x->rank != o.rank)
            return ew_fail(n, EW_EINVAL, "%s: part %d has rank %d, expected %d", cn_who, i - CN_X0,
                           x->rank, o.rank);
        for (int a = 0; a < o.rank; a++) {
            if (a == 1) { o.d[1] = o.d[1] < 0 || x->d[1] < 0 ? -1 : o.d[1] + x->d[1]; continue; }
            if (x->d[a] >= 0 && o.d[a] >= 0 && x->d[a] != o.d[a])
                return ew_fail(n, EW_EINVAL, "%s: part %d has dim %lld on axis %d, expected %lld", cn_who,
                               i - CN_X0, (long long)x->d[a], a, (long long)o.d[a]);
            if (o.d[a] < 0) o.d[a] = x->d[a];
        }
    }
    if (o.rank < 0) { out[0].shape.rank = -1; return 0; }
    for (int i = 0; i < CN_X0; i++)
        if (o.d[1] >= 0 && in[i].shape.rank >= 0 && g_shape_numel(&in[i].shape) >= 0 &&
            g_shape_numel(&in[i].shape) != o.d[1])
            return ew_fail(n, EW_EINVAL, "%s: input %d has %lld elements, expected C=%lld", cn_who, i,
                           (long long)g_shape_numel(&in[i].shape), (long long)o.d[1]);
    if (s->pool) {
        if (o.rank != 4)
            return ew_fail(n, EW_EINVAL, "%s: a pooled output needs 4-D parts, got rank %d", cn_who, o.rank);
        for (int a = 0; a < 2; a++) {
            if (o.d[2 + a] < 0) continue;
            if (o.d[2 + a] < s->pk[a])
                return ew_fail(n, EW_EINVAL, "%s: pool window %lld exceeds the plane's dim %lld", cn_who,
                               (long long)s->pk[a], (long long)o.d[2 + a]);
            o.d[2 + a] = (o.d[2 + a] - s->pk[a]) / s->ps[a] + 1;
        }
    }
    out[0].shape = o;
    for (int i = CN_X0; i < n->n_in; i++)
        if (o.rank == 4 && in[i].layout == G_LAYOUT_NHWC) out[0].layout = G_LAYOUT_NHWC;
    return 0;
}

static int cn_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, size_t *packed,
                   size_t *scratch)
{
    (void)n; (void)st; (void)in;
    *packed = 2 * (size_t)out[0].shape.d[1] * sizeof(float);
    *scratch = 0;
    return 0;
}

static int cn_pack(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, void *packed)
{
    cn_state *s = st;
    int64_t C = out[0].shape.d[1];
    for (int i = 0; i < CN_X0; i++)
        if (!in[i].data)
            return ew_fail(n, EW_EINVAL, "%s: input %d (statistics) must be a constant", cn_who, i);
    const float *sc = in[CN_SCALE].data, *bi = in[CN_B].data, *mu = in[CN_MEAN].data, *va = in[CN_VAR].data;
    float *kb = packed;
    for (int64_t c = 0; c < C; c++) {
        double k = (double)sc[c] / sqrt((double)va[c] + (double)s->eps);
        kb[c] = (float)k;
        kb[C + c] = (float)((double)bi[c] - (double)mu[c] * k);
    }
    s->kb = kb;
    return 0;
}

static int cn_adopt(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, void *packed)
{
    (void)n; (void)in; (void)out;
    ((cn_state *)st)->kb = packed;
    return 0;
}

/* A part and output of different layouts: element by element. */
static void part_mixed(const k_tensor *x, int64_t Ck, int64_t c0, float *y, int ynhwc, int64_t N, int64_t S,
                       int64_t C, const float *kb, int relu)
{
    const float *xs = x->data;
    int xnhwc = x->layout == G_LAYOUT_NHWC;
    for (int64_t nn = 0; nn < N; nn++)
        for (int64_t c = 0; c < Ck; c++)
            for (int64_t p = 0; p < S; p++) {
                float v = xs[xnhwc ? (nn * S + p) * Ck + c : (nn * Ck + c) * S + p] * kb[c0 + c] + kb[C + c0 + c];
                y[ynhwc ? (nn * S + p) * C + c0 + c : (nn * C + c0 + c) * S + p] = relu && !(v > 0.0f) ? 0.0f : v;
            }
}


/* acc[j] += max(x[j] * k[j] + b[j], 0) (or without the max) over a channel run */
EW_CLONE static void row_affine_acc(const float *x, float *acc, int64_t m, const float *k, const float *b,
                                    int relu)
{
    if (relu) {
        EW_SIMD for (int64_t j = 0; j < m; j++) {
            float v = x[j] * k[j] + b[j];
            acc[j] += v > 0.0f ? v : 0.0f;
        }
    } else {
        EW_SIMD for (int64_t j = 0; j < m; j++) acc[j] += x[j] * k[j] + b[j];
    }
}
EW_CLONE static void row_scale(const float *acc, float *y, int64_t m, float f)
{
    EW_SIMD for (int64_t j = 0; j < m; j++) y[j] = acc[j] * f;
}

#define CN_CB 256   /* channels a pooled pixel accumulates at a time */
/* Pooled, every part and the output channels-last: output rows over threads,
 * each pixel's window accumulated CN_CB channels at a time. */
static void run_pool_nhwc(const cn_state *s, const k_tensor *in, int parts, float *y, int64_t N, int64_t H,
                          int64_t W, int64_t OH, int64_t OW, int64_t C, int nt)
{
    const float *kb = s->kb;
    const float f = 1.0f / (float)(s->pk[0] * s->pk[1]);
    const int relu = s->relu;
    EW_PAR_FOR(r, N * OH,
        int64_t nn = r / OH, oh = r % OH;
        float acc[CN_CB];
        for (int64_t ow = 0; ow < OW; ow++) {
            float *yp = y + (r * OW + ow) * C;
            int64_t c0 = 0;
            for (int k = 0; k < parts; k++) {
                const k_tensor *x = &in[CN_X0 + k];
                int64_t Ck = x->shape.d[1];
                for (int64_t cb = 0; cb < Ck; cb += CN_CB) {
                    int64_t m = Ck - cb < CN_CB ? Ck - cb : CN_CB;
                    memset(acc, 0, (size_t)m * sizeof *acc);
                    for (int64_t i = 0; i < s->pk[0]; i++)
                        for (int64_t j = 0; j < s->pk[1]; j++) {
                            int64_t h = oh * s->ps[0] + i, w = ow * s->ps[1] + j;
                            row_affine_acc((const float *)x->data + ((nn * H + h) * W + w) * Ck + cb, acc, m,
                                           kb + c0 + cb, kb + C + c0 + cb, relu);
                        }
                    row_scale(acc, yp + c0 + cb, m, f);
                }
                c0 += Ck;
            }
        }
    );
}

/* Pooled, any other mix of layouts: element by element. */
static void run_pool_any(const cn_state *s, const k_tensor *in, int parts, float *y, int ynhwc, int64_t N,
                         int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t C)
{
    const float *kb = s->kb;
    int64_t c0 = 0;
    for (int k = 0; k < parts; k++) {
        const k_tensor *x = &in[CN_X0 + k];
        const float *xs = x->data;
        int64_t Ck = x->shape.d[1];
        int xn = x->layout == G_LAYOUT_NHWC;
        for (int64_t nn = 0; nn < N; nn++)
            for (int64_t c = 0; c < Ck; c++)
                for (int64_t oh = 0; oh < OH; oh++)
                    for (int64_t ow = 0; ow < OW; ow++) {
                        float acc = 0.0f;
                        for (int64_t i = 0; i < s->pk[0]; i++)
                            for (int64_t j = 0; j < s->pk[1]; j++) {
                                int64_t h = oh * s->ps[0] + i, w = ow * s->ps[1] + j;
                                float v = xs[xn ? ((nn * H + h) * W + w) * Ck + c : ((nn * Ck + c) * H + h) * W + w] *
                                          kb[c0 + c] + kb[C + c0 + c];
                                acc += s->relu && !(v > 0.0f) ? 0.0f : v;
                            }
                        int64_t cc = c0 + c;
                        y[ynhwc ? ((nn * OH + oh) * OW + ow) * C + cc : ((nn * C + cc) * OH + oh) * OW + ow] =
                            acc / (float)(s->pk[0] * s->pk[1]);
                    }
        c0 += Ck;
    }
}

#define CN_PIX 8   /* pixels per task: every part's rows for them, then the next pixels */
static int cn_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    const cn_state *s = st;
    const g_shape *sh = &out[0].shape;
    int64_t N = sh->d[0], C = sh->d[1], S = 1;
    for (int a = 2; a < sh->rank; a++) S *= sh->d[a];
    if (N * C * S <= 0) return 0;
    const float *kb = s->kb;
    if (!kb) return ew_fail(n, ACL_ERROR_INTERNAL_ERROR, "%s: run before its coefficients were packed", cn_who);
    float *y = out[0].data;
    int relu = s->relu, ynhwc = out[0].layout == G_LAYOUT_NHWC, parts = n->n_in - CN_X0, same = 1;
    for (int i = CN_X0; i < n->n_in; i++) same &= (in[i].layout == G_LAYOUT_NHWC) == ynhwc;
    int nt = ew_threads(ctx, (size_t)(N * C * S), EW_GRAIN_CHEAP);
    if (s->pool) {   /* S is the pooled plane; the parts' plane is theirs */
        int64_t H = in[CN_X0].shape.d[2], W = in[CN_X0].shape.d[3];
        if (same && ynhwc) run_pool_nhwc(s, in, parts, y, N, H, W, sh->d[2], sh->d[3], C, nt);
        else run_pool_any(s, in, parts, y, ynhwc, N, H, W, sh->d[2], sh->d[3], C);
        return 0;
    }
    if (same && ynhwc) {
        int64_t P = N * S, tasks = (P + CN_PIX - 1) / CN_PIX;
        EW_PAR_FOR(t, tasks,
            int64_t p0 = t * CN_PIX, p1 = p0 + CN_PIX < P ? p0 + CN_PIX : P;
            for (int64_t p = p0; p < p1; p++) {
                int64_t c0 = 0;
                for (int k = 0; k < parts; k++) {
                    int64_t Ck = in[CN_X0 + k].shape.d[1];
                    ew_affine_ch_f32((const float *)in[CN_X0 + k].data + p * Ck, y + p * C + c0, Ck, kb + c0,
                               kb + C + c0, relu);
                    c0 += Ck;
                }
            }
        );
        return 0;
    }
    if (same) {   /* NCHW: one plane per (image, channel) */
        EW_PAR_FOR(u, N * C,
            int64_t nn = u / C, c = u % C, c0 = 0;
            int k = 0;
            while (c >= c0 + in[CN_X0 + k].shape.d[1]) c0 += in[CN_X0 + k++].shape.d[1];
            int64_t Ck = in[CN_X0 + k].shape.d[1];
            ew_affine_f32((const float *)in[CN_X0 + k].data + (nn * Ck + c - c0) * S, y + u * S, S, kb[c],
                         kb[C + c], relu);
        );
        return 0;
    }
    int64_t c0 = 0;
    for (int k = 0; k < parts; k++) {
        int64_t Ck = in[CN_X0 + k].shape.d[1];
        part_mixed(&in[CN_X0 + k], Ck, c0, y, ynhwc, N, S, C, kb, relu);
        c0 += Ck;
    }
    return 0;
}

/* the statistics plain (they are vectors), every part in either layout */
static int cn_layout(const g_node *n, void *st, int idx, int layout)
{
    (void)n; (void)st;
    return layout == G_LAYOUT_PLAIN || (idx >= CN_X0 && layout == G_LAYOUT_NHWC);
}

static const k_op k_catnorm = {
    .op_type = "ConcatNorm", .domain = "openacl", .since = 1, .impl = "ref", .init = cn_init,
    .infer = cn_infer, .plan = cn_plan, .pack = cn_pack, .run = cn_run, .fini = ew_fini_free,
    .accepts_layout = cn_layout, .packed_inputs = (1u << CN_SCALE) | (1u << CN_B) | (1u << CN_MEAN) |
                                                  (1u << CN_VAR),
    .adopt = cn_adopt};
K_REGISTER(k_catnorm);
