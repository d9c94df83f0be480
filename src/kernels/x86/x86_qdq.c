/* QuantizeLinear and DequantizeLinear per tensor, float32 <-> uint8/int8,
 * as AVX-512 loops over the OpenMP pool: the Q -> DQ pairs of a QDQ model
 * sit between every pair of int8 layers, and the reference's per-element
 * type dispatch made them most of a QDQ encoder's time. The arithmetic is
 * the reference's (kernels/ref/nn_quant.c): rint(x / scale) + zero point,
 * saturated, NaN to 0 (the division is done where x * (1 / scale) lies near
 * a rounding tie, so the results are the division's); (q - zero point) *
 * scale. Per-axis, blocked, 16-bit and non-float32 forms are the
 * reference's. */
#include "kernels/x86/x86_common.h"
#include "core/par.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QD_CHUNK ((size_t)1 << 15)
/* the rounding immediate of roundscale: a constant expression, as clang requires */
#define QD_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

static int qd_init_common(g_graph *g, g_node *n, void **state, int quant)
{
    *state = NULL;
    if (!x86_has_avx512() || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out != 1) return K_DECLINE;
    if (g_attr_int(n, "block_size", 0) || g_node_attr(n, "output_dtype") || g_node_attr(n, "saturate") ||
        g->t[n->in[1]].dtype != G_F32 || g_shape_numel(&g->t[n->in[1]].shape) != 1)
        return K_DECLINE;
    int zt = has_in(n, 2) ? g->t[n->in[2]].dtype : G_UNDEF;
    if (has_in(n, 2) && ((zt != G_U8 && zt != G_I8) || g_shape_numel(&g->t[n->in[2]].shape) != 1))
        return K_DECLINE;
    int xt = g->t[n->in[0]].dtype;
    if (quant ? xt != G_F32 : (xt != G_U8 && xt != G_I8)) return K_DECLINE;
    if (!quant && has_in(n, 2) && zt != xt) return K_DECLINE;
    return 0;
}

/* the QuantizeLinear state: whether the 64-value loop runs
 * (OPENACL_QUANT_STREAM, read per load) */
static const int qd_stream_on = 1, qd_stream_off = 0;

static int q_init(g_graph *g, g_node *n, void **st)
{
    int r = qd_init_common(g, n, st, 1);
    const char *e = getenv("OPENACL_QUANT_STREAM");   /* read per load: mdl_bench --ab */
    if (!r) *st = (void *)(e && !strcmp(e, "0") ? &qd_stream_off : &qd_stream_on);
    return r;
}
static int dq_init(g_graph *g, g_node *n, void **st) { return qd_init_common(g, n, st, 0); }

/* Per tensor the op is elementwise: x may be channels-last and y keeps x's
 * layout (the int8 layers around it compute channels-last). */
static int qd_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || idx == 0;
}

static void qd_layout(const k_tensor *in, k_tensor *out)
{
    out[0].layout = in[0].shape.rank == 4 ? in[0].layout : G_LAYOUT_PLAIN;
}

static int q_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    qd_layout(in, out);
    out[0].shape = in[0].shape;
    out[0].dtype = has_in(n, 2) && in[2].dtype != G_UNDEF ? in[2].dtype : G_U8;
    return 0;
}

static int dq_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)n; (void)state;
    qd_layout(in, out);
    out[0].shape = in[0].shape;
    out[0].dtype = G_F32;
    return 0;
}

static float zero_point(const g_node *n, const k_tensor *in)
{
    if (!has_in(n, 2) || !in[2].data) return 0.f;
    return in[2].dtype == G_I8 ? (float)*(const int8_t *)in[2].data : (float)*(const uint8_t *)in[2].data;
}

#ifdef X86_SIMD
/* values the 64-value loop prefetches ahead (8 KiB): a model's input
 * comes from L3 (the run's weights and activations pushed it out of L2),
 * where one core's few outstanding misses bound the hardware prefetcher's
 * stream; 1-8 KiB ahead measured alike, 16 KiB less well */
#define QD_AHEAD 2048
#define QD_TGT __attribute__((target("avx512f,avx512bw")))

typedef struct qd_k {
    __m512 s, inv, z, lo, hi, half, rel;
    int div_all, s8;
} qd_k;

/* 16 values: rint(x / scale) + zero point, saturated (NaN: 0), as int32 */
QD_TGT static inline __m512i q16(const qd_k *k, __m512 xv)
{
    __m512 v;
    if (k->div_all) {
        v = _mm512_add_ps(_mm512_roundscale_ps(_mm512_div_ps(xv, k->s), QD_RN), k->z);
    } else {
        __m512 r = _mm512_mul_ps(xv, k->inv), t = _mm512_roundscale_ps(r, QD_RN);
        /* within |r| * 2^-20 of a tie (|r - t| near 1/2): the division decides */
        __m512 gap = _mm512_sub_ps(k->half, _mm512_abs_ps(_mm512_sub_ps(r, t)));
        __mmask16 tie = _mm512_cmp_ps_mask(gap, _mm512_mul_ps(_mm512_abs_ps(r), k->rel), _CMP_LE_OQ);
        if (tie) t = _mm512_mask_roundscale_ps(t, tie, _mm512_div_ps(xv, k->s), QD_RN);
        v = _mm512_add_ps(t, k->z);
    }
    /* NaN: 0, as the reference; uint8: vmaxps gives its second operand (0)
     * for a NaN first one */
    if (k->s8) v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_setzero_ps());
    return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, k->lo), k->hi));
}

/* 64 values a step narrowed by two packs and one dword permutation into
 * one full 64-byte store (the values are within the 8-bit range already,
 * so the packs' saturation does nothing): four 16-byte stores of
 * vpmovdb, each two shuffle uops, left the loop bound by its stores into
 * the output's lines (MobileNetV2's 224x224x3 input: 0.058 ms at 1 thread
 * before; 0.030-0.041 with the prefetch). A tail of 16 and a masked one;
 * stream 0 (OPENACL_QUANT_STREAM=0): all 16 at a time, as before (same
 * bytes). */
QD_TGT static void q_avx512(const float *x, size_t n, float scale, float zp, int s8, int stream, void *y)
{
    qd_k k = { .s = _mm512_set1_ps(scale), .inv = _mm512_set1_ps(1.f / scale), .z = _mm512_set1_ps(zp),
               .lo = _mm512_set1_ps(s8 ? -128.f : 0.f), .hi = _mm512_set1_ps(s8 ? 127.f : 255.f),
               .half = _mm512_set1_ps(0.5f), .rel = _mm512_set1_ps(1.f / (1 << 20)),
               .div_all = !(1.f / scale <= 3.0e38f), .s8 = s8 };
    const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    size_t i = 0;
    for (; stream && i + 64 <= n; i += 64) {
        _mm_prefetch((const char *)(x + i + QD_AHEAD), _MM_HINT_T0);
        _mm_prefetch((const char *)(x + i + QD_AHEAD + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(x + i + QD_AHEAD + 32), _MM_HINT_T0);
        _mm_prefetch((const char *)(x + i + QD_AHEAD + 48), _MM_HINT_T0);
        __m512i q0 = q16(&k, _mm512_loadu_ps(x + i)), q1 = q16(&k, _mm512_loadu_ps(x + i + 16));
        __m512i q2 = q16(&k, _mm512_loadu_ps(x + i + 32)), q3 = q16(&k, _mm512_loadu_ps(x + i + 48));
        __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
        __m512i b = s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
        _mm512_storeu_si512((char *)y + i, _mm512_permutexvar_epi32(perm, b));
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512i q = q16(&k, _mm512_maskz_loadu_ps(m, x + i));
        _mm512_mask_cvtepi32_storeu_epi8((char *)y + i, m, q);
    }
}

/* x86_has_avx512: F, BW and VL */
__attribute__((target("avx512f,avx512bw,avx512vl")))
static void dq_avx512(const void *q, size_t n, float scale, float zp, int s8, float *y)
{
    const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zp);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m128i b = m == 0xffff ? _mm_loadu_si128((const __m128i *)((const char *)q + i))
                                : _mm_maskz_loadu_epi8(m, (const char *)q + i);
        __m512i w = s8 ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
        __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(w), z), s);
        _mm512_mask_storeu_ps(y + i, m, v);
    }
}
#endif

static int qd_run_common(const g_node *n, const k_tensor *in, k_tensor *out, const k_ctx *ctx, int quant,
                         int stream)
{
#ifdef X86_SIMD
    size_t cnt = (size_t)g_shape_numel(&in[0].shape), nch = (cnt + QD_CHUNK - 1) / QD_CHUNK;
    float sc = *(const float *)in[1].data, z = zero_point(n, in);
    int s8 = (quant ? out[0].dtype : in[0].dtype) == G_I8;
    int nt = x86_threads(ctx);
    nt = nch < (size_t)nt ? (int)nch : nt;
    const char *x = in[0].data;
    char *y = out[0].data;
    OA_PAR_FOR(nt, for (int64_t c = 0; c < (int64_t)nch; c++) {
        size_t at = (size_t)c * QD_CHUNK, len = cnt - at < QD_CHUNK ? cnt - at : QD_CHUNK;
        if (quant) q_avx512((const float *)x + at, len, sc, z, s8, stream, y + at);
        else dq_avx512(x + at, len, sc, z, s8, (float *)y + at);
    });
    return 0;
#else
    (void)in; (void)out; (void)ctx; (void)quant; (void)stream;
    return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': AVX-512 loop on a non-x86 build", n->name);
#endif
}

static int q_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    return qd_run_common(n, in, out, ctx, 1, st ? *(const int *)st : 1);
}

static int dq_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)st;
    return qd_run_common(n, in, out, ctx, 0, 0);
}

static void qd_fini(void *state) { (void)state; }

static const k_op k_quantize_avx512 = {
    .op_type = "QuantizeLinear", .domain = "", .since = 10, .until = 0, .impl = "avx512",
    .priority = 10, .init = q_init, .infer = q_infer, .run = q_run, .fini = qd_fini,
    .accepts_layout = qd_accepts,
};
K_REGISTER(k_quantize_avx512);

static const k_op k_dequantize_avx512 = {
    .op_type = "DequantizeLinear", .domain = "", .since = 10, .until = 0, .impl = "avx512",
    .priority = 10, .init = dq_init, .infer = dq_infer, .run = dq_run, .fini = qd_fini,
    .accepts_layout = qd_accepts,
};
K_REGISTER(k_dequantize_avx512);
