/* Squeeze-excite steps over bfloat16 activations (EfficientNet, MobileNetV3):
 * GlobalAveragePool of a bf16 activation into float32 channel means, and the
 * channel scale Mul x[N,C,H,W] * s[N|1,C,1,1] reading x as bf16 or float32
 * and writing bf16 or float32 (G_ATTR_BF16_OUT). With them the bf16 pass of
 * the layout stage (graph/layout.c) keeps the depthwise output and the
 * scaled activation in bf16, instead of float32 tensors converted again by
 * the next convolution. Both accept the plain and the channels-last layout.
 * Channels-last rows run as AVX-512 loops where the CPU has AVX512-BF16 (a
 * CPU that computes in bf16 has), plain C otherwise; the Mul is one float
 * multiply per value either way, so both give the same bits. */
#include "core/par.h"
#include "kernels/ref/nn_common.h"
#include "kernels/x86/x86_common.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static inline float bf_get(const uint16_t *p, size_t i)
{
    union { uint32_t u; float f; } c = { .u = (uint32_t)p[i] << 16 };
    return c.f;
}

static inline uint16_t bf_round(float f)
{
    union { uint32_t u; float f; } c = { .f = f };
    if (f != f) return (uint16_t)((c.u >> 16) | 0x40u);
    return (uint16_t)((c.u + 0x7fffu + ((c.u >> 16) & 1u)) >> 16);
}

/* [N, C, 1, 1] (or [1, C, 1, 1]) with C matching x's channels */
static int is_chan_vec(const g_shape *s, const g_shape *x)
{
    return s->rank == 4 && x->rank == 4 && s->d[1] == x->d[1] && s->d[2] == 1 && s->d[3] == 1 &&
           (s->d[0] == 1 || s->d[0] == x->d[0]) && x->d[0] >= 1;
}

/* ---- Mul: channel scale ---- */

typedef struct cscale {
    int xi;           /* input index of the activation (the other is the scale) */
    int out_bf16;
} cscale;

/* Whether bound Mul node n is this kernel (for the layout stage's bf16 pass). */
int x86_scale_bound(const g_node *n);

static int cs_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in != 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out != 1) return K_DECLINE;
    const g_tensor *a = &g->t[n->in[0]], *b = &g->t[n->in[1]];
    /* when both are [N, C, 1, 1] the float32 one is the scale (a bf16
     * activation may stand at either input) */
    int xi = is_chan_vec(&b->shape, &a->shape) && b->dtype == G_F32   ? 0
             : is_chan_vec(&a->shape, &b->shape) && a->dtype == G_F32 ? 1
                                                                      : -1;
    if (xi < 0) return K_DECLINE;
    const g_tensor *x = xi ? b : a, *s = xi ? a : b;
    /* only the bf16 activations this kernel exists for; float32 stays with
     * the general broadcast kernel */
    int ob = (int)g_attr_int(n, G_ATTR_BF16_OUT, 0);
    if (s->dtype != G_F32 || (x->dtype != G_BF16 && !(x->dtype == G_F32 && ob))) return K_DECLINE;
    if (!g_shape_known(&x->shape) || x->kind == G_TK_CONST || s->kind == G_TK_CONST) return K_DECLINE;
    cscale *st = calloc(1, sizeof *st);
    if (!st) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    st->xi = xi;
    st->out_bf16 = ob;
    *state = st;
    return 0;
}

static int cs_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    const cscale *st = state;
    const k_tensor *x = &in[st->xi], *s = &in[1 - st->xi];
    if (!is_chan_vec(&s->shape, &x->shape))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): scale shape does not match the "
                        "activation's channels", n->name, n->op_type);
    out[0].shape = x->shape;
    out[0].dtype = st->out_bf16 ? G_BF16 : G_F32;
    out[0].layout = x->layout == G_LAYOUT_NHWC ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    return 0;
}

#ifdef X86_SIMD
/* rows [r0, r1) of C channels (channels-last) of batch image rows/P, each
 * times s[b*sb .. +C) */
__attribute__((target("avx512f,avx512bw,avx512bf16")))
static void rows_avx512(const void *x, int xb, void *y, int yb, const float *s, int64_t sb,
                        int64_t P, size_t C, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; r++) {
        const float *sr = s + (r / P) * sb;
        const uint16_t *xh = (const uint16_t *)x + (size_t)r * C;
        const float *xf = (const float *)x + (size_t)r * C;
        uint16_t *yh = (uint16_t *)y + (size_t)r * C;
        float *yf = (float *)y + (size_t)r * C;
        size_t c = 0;
        for (; c + 16 <= C; c += 16) {
            __m512 v = xb ? _mm512_castsi512_ps(_mm512_slli_epi32(
                                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(xh + c))), 16))
                          : _mm512_loadu_ps(xf + c);
            v = _mm512_mul_ps(v, _mm512_loadu_ps(sr + c));
            if (yb) _mm256_storeu_si256((__m256i *)(yh + c), (__m256i)_mm512_cvtneps_pbh(v));
            else _mm512_storeu_ps(yf + c, v);
        }
        for (; c < C; c++) {
            float v = (xb ? bf_get(xh, c) : xf[c]) * sr[c];
            if (yb) yh[c] = bf_round(v);
            else yf[c] = v;
        }
    }
}

/* channel sums of rows [0, P) of C bf16 channels into acc[C] (zeroed) */
__attribute__((target("avx512f,avx512bw")))
static void gap_rows_avx512(const uint16_t *x, int64_t P, size_t C, float *acc)
{
    for (int64_t p = 0; p < P; p++) {
        const uint16_t *xr = x + (size_t)p * C;
        size_t c = 0;
        for (; c + 16 <= C; c += 16) {
            __m512 v = _mm512_castsi512_ps(_mm512_slli_epi32(
                           _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(xr + c))), 16));
            _mm512_storeu_ps(acc + c, _mm512_add_ps(_mm512_loadu_ps(acc + c), v));
        }
        for (; c < C; c++) acc[c] += bf_get(xr, c);
    }
}
#endif

static void row_plain(const void *x, int xb, void *y, int yb, const float *s, size_t C, size_t step)
{
    /* step 0: s[c] per value (channels-last row); else one scale per row */
    for (size_t c = 0; c < C; c++) {
        float v = (xb ? bf_get(x, c) : ((const float *)x)[c]) * s[step ? 0 : c];
        if (yb) ((uint16_t *)y)[c] = bf_round(v);
        else ((float *)y)[c] = v;
    }
}

static int cs_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    const cscale *st = state;
    const k_tensor *x = &in[st->xi], *sv = &in[1 - st->xi];
    const float *s = sv->data;
    int xb = x->dtype == G_BF16, yb = out[0].dtype == G_BF16;
    size_t xs = xb ? 2 : 4, ys = yb ? 2 : 4;
    int64_t N = x->shape.d[0], C = x->shape.d[1], P = x->shape.d[2] * x->shape.d[3];
    int nhwc = x->layout == G_LAYOUT_NHWC;
    int64_t rows = N * (nhwc ? P : C);
    size_t len = (size_t)(nhwc ? C : P);
    int threads = ctx->threads > 1 && (size_t)rows * len >= ((size_t)1 << 16) ? ctx->threads : 1;
    int64_t sb = sv->shape.d[0] == 1 ? 0 : C;
#ifdef X86_SIMD
    if (nhwc && x86_has_avx512_bf16()) {
        OA_PAR_REGION(threads, {
            int nt = omp_get_num_threads(), t = omp_get_thread_num();
            rows_avx512(x->data, xb, out[0].data, yb, s, sb, P, len, rows * t / nt, rows * (t + 1) / nt);
        });
        return 0;
    }
#endif
    OA_PAR_FOR(threads, for (int64_t r = 0; r < rows; r++) {
        int64_t b = nhwc ? r / P : r / C;
        const float *sr = s + b * sb + (nhwc ? 0 : r % C);
        const char *xr = (const char *)x->data + (size_t)r * len * xs;
        char *yr = (char *)out[0].data + (size_t)r * len * ys;
        row_plain(xr, xb, yr, yb, sr, len, !nhwc);
    });
    return 0;
}

static int cs_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state; (void)idx;
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

/* For the precision pass's squeeze-excite step (k_op.reads_bf16): a channel
 * scale Mul, which this file then serves, may read a bf16 activation as x. */
static int cs_reads_bf16(const g_graph *g, const g_node *n, int slot)
{
    if (n->n_in != 2 || n->in[0] < 0 || n->in[1] < 0 || slot < 0 || slot > 1) return 0;
    const g_tensor *x = &g->t[n->in[slot]], *s = &g->t[n->in[1 - slot]];
    return is_chan_vec(&s->shape, &x->shape) && g_shape_known(&x->shape) && s->dtype == G_F32 &&
           x->kind != G_TK_CONST && s->kind != G_TK_CONST;
}

static const k_op k_mul_chscale = {
    .op_type = "Mul", .domain = "", .since = 7, .until = 0, .impl = "avx512", .priority = 10,
    .init = cs_init, .infer = cs_infer, .run = cs_run, .fini = free, .accepts_layout = cs_accepts,
    .reads_bf16 = cs_reads_bf16,
};
K_REGISTER(k_mul_chscale);

int x86_scale_bound(const g_node *n) { return n->op == &k_mul_chscale; }

/* ---- GlobalAveragePool of a bf16 activation ---- */

static int gap_init(g_graph *g, g_node *n, void **state)
{
    (void)state;
    if (n->n_in != 1 || n->in[0] < 0 || g->t[n->in[0]].dtype != G_BF16) return K_DECLINE;
    if (g->t[n->in[0]].shape.rank != 4) return K_DECLINE;
    return 0;
}

static int gap_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)n; (void)state;
    out[0].shape = in[0].shape;
    out[0].shape.d[2] = out[0].shape.d[3] = 1;
    out[0].dtype = G_F32;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int gap_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n; (void)state; (void)ctx;
    const uint16_t *x = in[0].data;
    float *y = out[0].data;
    int64_t N = in[0].shape.d[0], C = in[0].shape.d[1], P = in[0].shape.d[2] * in[0].shape.d[3];
    float inv = P ? 1.0f / (float)P : 0.0f;
    for (int64_t b = 0; b < N; b++) {
        float *yb = y + b * C;
        if (in[0].layout == G_LAYOUT_NHWC) {
            /* channels-last: sum rows of C into float accumulators */
            memset(yb, 0, (size_t)C * sizeof *yb);
            const uint16_t *xb = x + (size_t)(b * P * C);
#ifdef X86_SIMD
            if (x86_has_avx512_bf16()) {
                gap_rows_avx512(xb, P, (size_t)C, yb);
                for (int64_t c = 0; c < C; c++) yb[c] *= inv;
                continue;
            }
#endif
            for (int64_t p = 0; p < P; p++)
                for (int64_t c = 0; c < C; c++) yb[c] += bf_get(xb, (size_t)(p * C + c));
            for (int64_t c = 0; c < C; c++) yb[c] *= inv;
        } else {
            for (int64_t c = 0; c < C; c++) {
                const uint16_t *xp = x + (size_t)((b * C + c) * P);
                float acc = 0;
                for (int64_t p = 0; p < P; p++) acc += bf_get(xp, (size_t)p);
                yb[c] = acc * inv;
            }
        }
    }
    return 0;
}

static int gap_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state; (void)idx;
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

static int gap_reads_bf16(const g_graph *g, const g_node *n, int slot)
{
    (void)g;
    return slot == 0 && n->n_in == 1;
}

static const k_op k_gap_bf16 = {
    .op_type = "GlobalAveragePool", .domain = "", .since = 1, .until = 0, .impl = "bf16",
    .priority = 20, .init = gap_init, .infer = gap_infer, .run = gap_run, .fini = NULL,
    .accepts_layout = gap_accepts, .reads_bf16 = gap_reads_bf16,
};
K_REGISTER(k_gap_bf16);
