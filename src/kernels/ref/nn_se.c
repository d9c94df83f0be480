/* openacl.SqueezeExcite: the squeeze-excite block of EfficientNet and
 * MobileNetV3 as one node. The fusion pass (graph/fuse.c) builds it from
 * GlobalAveragePool -> 1x1 Conv -> 1x1 Conv -> Mul:
 *   m = mean of x over H, W                 [N, C]
 *   h = act1(W1 m + b1)                     [N, R]   W1 [R, C, 1, 1]
 *   s = act2(W2 h + b2)                     [N, C]   W2 [C, R, 1, 1]
 *   y = x * s, per image and channel        [N, C, H, W]
 * Inputs x, W1, b1 (optional), W2, b2 (optional); act1 is the
 * _oa_se_post_* list, act2 the _oa_post_* list (nn_common.h). x is float32
 * or bfloat16, plain or channels-last; y has x's layout and is bfloat16
 * when G_ATTR_BF16_OUT is set.
 *
 * One node instead of four saves per block two oneDNN calls with their
 * fixed cost, the float32 -> bf16 conversion of the squeezed vector and
 * three trips through the engine; the two products are a few thousand
 * multiply-adds and run as plain dot products over weights packed once
 * (W2 transposed, so both stream rows; bf16 when the node computes in
 * bf16). The sigmoid and SiLU of the small vectors are the vector forms of
 * kernels/silu16.h, not expf per value. All four steps share one parallel
 * region: threads split the rows (channels-last) or the channels (plain)
 * for the mean, the channels for the products, and the rows for the
 * scaling.
 *
 * The loops of the four steps come from a table (nn_se.h): this reference
 * registers the plain C ones (what OPENACL_FORCE_REF runs), the x86
 * implementation (kernels/x86/x86_se.c, "avx512") AVX-512 ones over the same
 * driver. */
#include "kernels/ref/nn_se.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { SE_X, SE_W1, SE_B1, SE_W2, SE_B2 };

typedef struct se_state {
    nn_post act1, act2;
    int out_bf16;
    const nn_se_loops *loops;   /* the steps' loops (plain C, or the x86 implementation's) */
    int wbf16;                  /* W1, W2 packed as bf16 (loops that read them so) */
    int64_t C, R;               /* channels, squeezed channels */
    const void *w1, *w2t;       /* in the packed area: [R][C] both */
    const float *b1, *b2;
    void *own_packed;           /* run() without plan/pack (dynamic shapes) */
    float *own_scratch;
    size_t own_scratch_n;
} se_state;

static size_t al64(size_t n) { return (n + 63) & ~(size_t)63; }
static size_t al16(size_t n) { return (n + 15) & ~(size_t)15; }   /* floats, 64-byte steps */

static size_t wbytes(const se_state *s) { return al64((size_t)(s->R * s->C) * (s->wbf16 ? 2 : 4)); }

static size_t packed_bytes_of(const se_state *s)
{
    return 2 * wbytes(s) + al64((size_t)s->R * 4) + al64((size_t)s->C * 4);
}

/* per image: the means [C], the hidden vector [R], the scales [C]; then,
 * for channels-last inputs, per thread and image a partial sum [C] (each
 * thread sums whole rows, so threads never share a cache line of x) */
static size_t scratch_floats(const se_state *s, int64_t N, int threads)
{
    return (size_t)N * (al16((size_t)s->C) * (2 + (size_t)threads) + al16((size_t)s->R));
}

static int const_f32(const g_graph *g, const g_node *n, int i, int rank, const int64_t *d)
{
    if (i >= n->n_in || n->in[i] < 0 || !nn_is_const(g, n, i)) return 0;
    const g_tensor *t = &g->t[n->in[i]];
    if (t->dtype != G_F32 || t->shape.rank != rank) return 0;
    for (int k = 0; k < rank; k++)
        if (t->shape.d[k] != d[k]) return 0;
    return 1;
}

int nn_se_init(g_graph *g, g_node *n, void **state, const nn_se_loops *loops, int wbf16)
{
    if (n->n_in < 4 || n->n_out != 1 || n->in[SE_X] < 0 || n->in[SE_W1] < 0 || n->in[SE_W2] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.SqueezeExcite): needs inputs "
                        "x, W1, [b1], W2, [b2] and one output (has %d inputs, %d outputs)",
                        n->name, n->n_in, n->n_out);
    const g_tensor *x = &g->t[n->in[SE_X]], *w1 = &g->t[n->in[SE_W1]];
    if (x->dtype != G_F32 && x->dtype != G_BF16)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.SqueezeExcite): input x of "
                        "dtype %d, needs float32 or bfloat16", n->name, x->dtype);
    int64_t R = w1->shape.rank == 4 ? w1->shape.d[0] : -1, C = w1->shape.rank == 4 ? w1->shape.d[1] : -1;
    int64_t d1[4] = { R, C, 1, 1 }, d2[4] = { C, R, 1, 1 }, vr[1] = { R }, vc[1] = { C };
    if (R < 1 || C < 1 || !const_f32(g, n, SE_W1, 4, d1) || !const_f32(g, n, SE_W2, 4, d2) ||
        (n->n_in > SE_B1 && n->in[SE_B1] >= 0 && !const_f32(g, n, SE_B1, 1, vr)) ||
        (n->n_in > SE_B2 && n->in[SE_B2] >= 0 && !const_f32(g, n, SE_B2, 1, vc)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.SqueezeExcite): weights must "
                        "be float32 constants W1 [R,C,1,1], b1 [R], W2 [C,R,1,1], b2 [C]", n->name);
    int out_bf16 = (int)g_attr_int(n, G_ATTR_BF16_OUT, 0) != 0;
    se_state *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (openacl.SqueezeExcite): out of memory", n->name);
    int r = nn_se_post_parse(n, &s->act1);
    if (!r) r = nn_post_parse(n, &s->act2);
    if (!r && s->act2.has_add)
        r = acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.SqueezeExcite): the excite "
                     "step's post-op list cannot add", n->name);
    if (r) { free(s); return r; }
    s->out_bf16 = out_bf16;
    s->loops = loops;
    s->wbf16 = wbf16;
    s->C = C;
    s->R = R;
    *state = s;
    return 0;
}

void nn_se_fini(void *state)
{
    se_state *s = state;
    if (!s) return;
    free(s->own_packed);
    free(s->own_scratch);
    free(s);
}

int nn_se_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    const se_state *s = state;
    const g_shape *xs = &in[SE_X].shape;
    if (xs->rank != 4 || (xs->d[1] >= 0 && xs->d[1] != s->C))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.SqueezeExcite): x must be "
                        "[N, %lld, H, W] (rank %d, %lld channels)", n->name, (long long)s->C,
                        xs->rank, (long long)(xs->rank > 1 ? xs->d[1] : -1));
    out[0].shape = *xs;
    out[0].dtype = s->out_bf16 ? G_BF16 : G_F32;
    out[0].layout = in[SE_X].layout == G_LAYOUT_NHWC ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    return 0;
}

int nn_se_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
               size_t *packed_bytes, size_t *scratch_bytes)
{
    (void)n; (void)out;
    const se_state *s = state;
    *packed_bytes = packed_bytes_of(s);
    int threads = omp_get_max_threads();   /* the pool the engine set up */
    *scratch_bytes = scratch_floats(s, in[SE_X].shape.d[0], threads > 1 ? threads : 0) * sizeof(float);
    return 0;
}

static void se_point(se_state *s, void *packed)
{
    char *p = packed;
    s->w1 = p;
    s->w2t = p + wbytes(s);
    s->b1 = (const float *)(p + 2 * wbytes(s));
    s->b2 = (const float *)(p + 2 * wbytes(s) + al64((size_t)s->R * 4));
}

int nn_se_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
               void *packed)
{
    (void)out;
    se_state *s = state;
    if (!in[SE_W1].data || !in[SE_W2].data)
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (openacl.SqueezeExcite): weights not "
                        "available for packing", n->name);
    int64_t C = s->C, R = s->R;
    memset(packed, 0, packed_bytes_of(s));
    se_point(s, packed);
    const float *W1 = in[SE_W1].data, *W2 = in[SE_W2].data;
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < C; c++) {
            size_t i = (size_t)(r * C + c);
            float a = W1[i], b = W2[c * R + r];   /* W2 transposed */
            if (s->wbf16) {
                ((uint16_t *)s->w1)[i] = nn_f2bf(a);
                ((uint16_t *)s->w2t)[i] = nn_f2bf(b);
            } else {
                ((float *)s->w1)[i] = a;
                ((float *)s->w2t)[i] = b;
            }
        }
    if (n->n_in > SE_B1 && in[SE_B1].data) memcpy((float *)s->b1, in[SE_B1].data, (size_t)R * sizeof(float));
    if (n->n_in > SE_B2 && in[SE_B2].data) memcpy((float *)s->b2, in[SE_B2].data, (size_t)C * sizeof(float));
    return 0;
}

int nn_se_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                void *packed)
{
    (void)n; (void)in; (void)out;
    se_point(state, packed);
    return 0;
}

/* ---- loops: plain C, and AVX-512 for the "avx512" registration ---- */

static inline float ld(const void *x, int xb, size_t i)
{
    return xb ? nn_bf2f(((const uint16_t *)x)[i]) : ((const float *)x)[i];
}

/* acc[i] += x[i], i < len */
static void sum_span(const void *x, int xb, float *acc, size_t len)
{
    for (size_t i = 0; i < len; i++) acc[i] += ld(x, xb, i);
}

/* sum of x[0..len) */
static float total(const void *x, int xb, size_t len)
{
    float a = 0;
    for (size_t i = 0; i < len; i++) a += ld(x, xb, i);
    return a;
}

/* y[i] = x[i] * s[i] (per_elem) or x[i] * s[0] */
static void scale_span(const void *x, int xb, void *y, int yb, const float *s, int per_elem, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        float v = ld(x, xb, i) * s[per_elem ? i : 0];
        if (yb) ((uint16_t *)y)[i] = nn_f2bf(v);
        else ((float *)y)[i] = v;
    }
}

/* m[0..C) = the sums of P rows of C */
static void sums_nhwc_c(const void *x, int xb, int64_t P, int64_t C, float *m)
{
    size_t es = xb ? 2 : 4;
    memset(m, 0, (size_t)C * sizeof(float));
    for (int64_t p = 0; p < P; p++) sum_span((const char *)x + (size_t)(p * C) * es, xb, m, (size_t)C);
}

static void squeeze_c(const void *w, int wb, const float *b, const float *m, int64_t C, int64_t r0,
                      int64_t r1, float *h)
{
    for (int64_t r = r0; r < r1; r++) {
        float acc = 0;
        for (int64_t i = 0; i < C; i++) acc += ld(w, wb, (size_t)(r * C + i)) * m[i];
        h[r] = b[r] + acc;
    }
}

static void excite_c(const void *wt, int wb, const float *b, const float *h, int64_t R, int64_t C,
                     int64_t c0, int64_t c1, float *sv)
{
    memcpy(sv + c0, b + c0, (size_t)(c1 - c0) * sizeof(float));
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = c0; c < c1; c++) sv[c] += h[r] * ld(wt, wb, (size_t)(r * C + c));
}

static void act_c(const nn_post *p, float *y, size_t len) { nn_post_apply(p, y, len, NULL); }

static void scale_rows_c(const void *x, int xb, void *y, int yb, const float *s, size_t stride, int per_elem,
                         int64_t rpi, int64_t len, int64_t q0, int64_t q1)
{
    size_t xes = xb ? 2 : 4, yes = yb ? 2 : 4;
    for (int64_t q = q0; q < q1; q++) {
        const float *sv = s + (size_t)(q / rpi) * stride + (per_elem ? 0 : q % rpi);
        scale_span((const char *)x + (size_t)(q * len) * xes, xb, (char *)y + (size_t)(q * len) * yes, yb, sv,
                   per_elem, (size_t)len);
    }
}

static const nn_se_loops se_loops_c = { sums_nhwc_c, total, squeeze_c, excite_c, act_c, scale_rows_c };

/* [a, b) of n split in `parts`, part p, in steps of `unit` */
static void split(int64_t n, int64_t unit, int parts, int p, int64_t *a, int64_t *b)
{
    int64_t blocks = (n + unit - 1) / unit;
    *a = blocks * p / parts * unit;
    *b = blocks * (p + 1) / parts * unit;
    if (*a > n) *a = n;
    if (*b > n) *b = n;
}

/* Never planned and packed by the engine (dynamic shapes): an own copy. */
static int se_own_pack(const g_node *n, se_state *s, const k_tensor *in, k_tensor *out)
{
    free(s->own_packed);
    s->own_packed = aligned_alloc(64, packed_bytes_of(s));
    if (!s->own_packed)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (openacl.SqueezeExcite): out of memory", n->name);
    return nn_se_pack(n, s, in, out, s->own_packed);
}

/* The run's scratch (*scr): the planned area with as many threads as it has
 * partial sums for (*threads may drop), else the state's own. */
static inline int se_scratch(const g_node *n, se_state *s, const k_ctx *ctx, int64_t N, int *threads,
                             float **scr)
{
    *scr = NULL;
    if (ctx && ctx->scratch) {
        while (*threads > 1 && ctx->scratch_bytes < scratch_floats(s, N, *threads) * sizeof(float)) (*threads)--;
        if (ctx->scratch_bytes >= scratch_floats(s, N, *threads > 1 ? *threads : 0) * sizeof(float))
            *scr = ctx->scratch;
    }
    if (*scr) return 0;
    size_t need = scratch_floats(s, N, *threads > 1 ? *threads : 0);
    if (s->own_scratch_n < need) {
        free(s->own_scratch);
        s->own_scratch_n = 0;
        if (!(s->own_scratch = aligned_alloc(64, need * sizeof(float))))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (openacl.SqueezeExcite): out of memory", n->name);
        s->own_scratch_n = need;
    }
    *scr = s->own_scratch;
    return 0;
}

int nn_se_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    se_state *s = state;
    const k_tensor *x = &in[SE_X];
    int64_t N = x->shape.d[0], C = s->C, R = s->R, P = x->shape.d[2] * x->shape.d[3];
    int r;
    if (!s->w1 && (r = se_own_pack(n, s, in, out))) return r;
    if (N == 0) return 0;   /* an empty batch: nothing to write */
    int nhwc = x->layout == G_LAYOUT_NHWC;
    int threads = ctx && ctx->threads > 1 && N * C * P >= ((int64_t)1 << 15) ? ctx->threads : 1;
    if (!nhwc && threads > (C + 15) / 16) threads = (int)((C + 15) / 16);
    float *scr;
    if ((r = se_scratch(n, s, ctx, N, &threads, &scr))) return r;
    /* per image: means at 0, hidden vector at hoff, scales at soff; the
     * partial sums after all images */
    size_t hoff = al16((size_t)C), soff = hoff + al16((size_t)R), per = soff + al16((size_t)C);
    float *part = scr + (size_t)N * per;
    int xb = x->dtype == G_BF16, yb = out[0].dtype == G_BF16;
    size_t xes = xb ? 2 : 4;
    float inv = P ? 1.0f / (float)P : 0.0f;
    const char *xd = x->data;
    char *yd = out[0].data;
    const nn_se_loops *L = s->loops;

#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int T = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t c0, c1, r0, r1;
        split(C, 16, T, t, &c0, &c1);
        split(R, 1, T, t, &r0, &r1);
        /* 1. channel sums. Channels-last: this thread's rows, every
         * channel, into its own partial sums (added up below); plain: this
         * thread's channels */
        for (int64_t b = 0; b < N; b++) {
            float *m = scr + (size_t)b * per;
            const char *xi = xd + (size_t)(b * C * P) * xes;
            if (nhwc) {
                int64_t p0, p1;
                split(P, 1, T, t, &p0, &p1);
                float *acc = T > 1 ? part + ((size_t)t * (size_t)N + (size_t)b) * al16((size_t)C) : m;
                L->sums_nhwc(xi + (size_t)(p0 * C) * xes, xb, p1 - p0, C, acc);
                continue;
            }
            for (int64_t c = c0; c < c1; c++) m[c] = L->total(xi + (size_t)(c * P) * xes, xb, (size_t)P);
        }
        if (nhwc && T > 1) {
#pragma omp barrier
            for (int64_t b = 0; b < N; b++) {
                float *m = scr + (size_t)b * per;
                for (int64_t c = c0; c < c1; c++) {
                    float a = 0;
                    for (int k = 0; k < T; k++) a += part[((size_t)k * (size_t)N + (size_t)b) * al16((size_t)C) + (size_t)c];
                    m[c] = a;
                }
            }
        }
        for (int64_t b = 0; b < N; b++)
            for (int64_t c = c0; c < c1; c++) scr[(size_t)b * per + (size_t)c] *= inv;
#pragma omp barrier
        /* 2. squeeze: h = act1(W1 m + b1), this thread's rows of W1 */
        for (int64_t b = 0; b < N && r1 > r0; b++) {
            const float *m = scr + (size_t)b * per;
            float *h = scr + (size_t)b * per + hoff;
            L->squeeze(s->w1, s->wbf16, s->b1, m, C, r0, r1, h);
            L->act(&s->act1, h + r0, (size_t)(r1 - r0));
        }
#pragma omp barrier
        /* 3. excite: s = act2(W2 h + b2), this thread's channels */
        for (int64_t b = 0; b < N && c1 > c0; b++) {
            const float *h = scr + (size_t)b * per + hoff;
            float *sv = scr + (size_t)b * per + soff;
            L->excite(s->w2t, s->wbf16, s->b2, h, R, C, c0, c1, sv);
            L->act(&s->act2, sv + c0, (size_t)(c1 - c0));
        }
#pragma omp barrier
        /* 4. scale: this thread's rows (pixels when channels-last, else channels) */
        int64_t rpi = nhwc ? P : C, len = nhwc ? C : P, q0, q1;
        split(N * rpi, 1, T, t, &q0, &q1);
        L->scale_rows(xd, xb, yd, yb, scr + soff, per, nhwc, rpi, len, q0, q1);
    }
    return 0;
}

int nn_se_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (idx == SE_X && layout == G_LAYOUT_NHWC);
}

/* Every implementation reads x as bf16 or float32 (k_op.reads_bf16). */
int nn_se_reads_bf16(const g_graph *g, const g_node *n, int slot)
{
    (void)g; (void)n;
    return slot == SE_X;
}

static int se_init_ref(g_graph *g, g_node *n, void **st) { return nn_se_init(g, n, st, &se_loops_c, 0); }

static const k_op k_se_ref = {
    .op_type = "SqueezeExcite", .domain = "openacl", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = se_init_ref, .infer = nn_se_infer, .plan = nn_se_plan, .pack = nn_se_pack,
    .run = nn_se_run, .fini = nn_se_fini, .accepts_layout = nn_se_accepts, .packed_inputs = NN_SE_PACKED,
    .adopt = nn_se_adopt, .reads_bf16 = nn_se_reads_bf16,
};
K_REGISTER(k_se_ref);
