/* oneDNN QLinearConv (int8, VNNI where the CPU has it): uint8 or int8
 * activations with a per-tensor zero point (oneDNN runtime zero points),
 * int8 weights symmetric per output channel or per tensor, int32 bias, and
 * the requantisation folded at load into oneDNN output scales
 * (x_scale * w_scale[c] / y_scale) with the output zero point added by the
 * primitive. A float activation chain the QDQ folding pass carried over
 * (graph/qdq_conv.c, kernels/post.h) runs as eltwise post-ops: on the real
 * values (scales x_scale * w_scale[c], then a linear 1/y_scale post-op), or
 * for Relu/Clip chains on the requantised ones with the bounds scaled. A
 * residual QLinearAdd the pass folded in (inputs 9-11: the other addend,
 * its scale and zero point) is a sum post-op over the destination, which
 * holds the residual (copied in, or in place: dq_inplace).
 * Activations are computed channels-last; weights are reordered once into
 * the primitive's format (with oneDNN's zero-point compensation) in the
 * packed area, so a compiled model stores them packed. */
#include "kernels/dnnl/dn_common.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DQ_SILU_AVX512 1
#endif

enum { QX = 0, QXS, QXZ, QW, QWS, QWZ, QYS, QYZ, QB, QR, QRS, QRZ };

typedef struct dqconv {
    nn_win w0, w;
    nn_post po;        /* the chain oneDNN applies (scaled or with the final linear step) */
    int has_bias;      /* oneDNN gets an int32 bias: the input's, or zfold's */
    int bias_in;       /* the node has a bias input */
    int zfold;         /* the source zero point folded into that bias (dq_zfold) */
    int zpad_ok;       /* padded 2-D layer whose bias can take it (dq_zfold with pads) */
    int zpad;          /* ... and this kernel pads the channels-last input with zp itself */
    int64_t pt, pb, pl, pr;   /* zpad: the pads */
    size_t off_pad;    /* zpad: the padded input in scratch */
    int has_add;       /* fused residual (inputs QR, QRS, QRZ) as a sum post-op */
    float sum_scale;
    int32_t rzp;
    int silu;          /* chain SiLU alone: float32 out of oneDNN, then dq_silu_q */
    int silu_div;
    float inv_ys;
    int xdt, ydt;      /* G_U8 / G_I8 */
    int32_t xzp, yzp;
    float *oscale;     /* per output channel (count nsc) */
    int64_t M, nsc;
    int built, nthr;
    g_shape xs, ys;
    int xl, yl, al;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t conv, re_x, re_y, re_a;
    dnnl_memory_t m_x, m_w, m_b, m_y, m_sp, m_xu, m_yu, m_xz, m_yz, m_au, m_yq;
    dnnl_memory_desc_t wmd;
    int have_wmd;
    size_t wbytes, bbytes, off_x, off_y, off_f, off_sp, scratch;
    dn_pk pk;
} dqconv;

static void dq_release(dqconv *s)
{
    if (s->pd) dnnl_primitive_desc_destroy(s->pd);
    s->pd = NULL;
    dn_prim_free(&s->conv); dn_prim_free(&s->re_x); dn_prim_free(&s->re_y); dn_prim_free(&s->re_a);
    dn_mem_free(&s->m_au);
    dn_mem_free(&s->m_x); dn_mem_free(&s->m_w); dn_mem_free(&s->m_b); dn_mem_free(&s->m_y);
    dn_mem_free(&s->m_sp); dn_mem_free(&s->m_xu); dn_mem_free(&s->m_yu); dn_mem_free(&s->m_xz);
    dn_mem_free(&s->m_yz); dn_mem_free(&s->m_yq);
    s->built = 0;
}

static void dq_fini(void *state)
{
    dqconv *s = state;
    if (!s) return;
    dq_release(s);
    dn_pk_free(&s->pk);
    free(s->oscale);
    free(s);
}

static const g_tensor *cst(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    const g_tensor *t = &g->t[n->in[i]];
    return t->kind == G_TK_CONST && t->data ? t : NULL;
}

static int scalar_f32(const g_tensor *t, float *v)
{
    if (!t || t->dtype != G_F32 || g_shape_numel(&t->shape) != 1) return 0;
    *v = *(const float *)t->data;
    return *v > 0.f;
}

static int scalar_zp(const g_tensor *t, int dt, int32_t *v)
{
    if (!t) { *v = 0; return 1; }
    if (t->dtype != dt || g_shape_numel(&t->shape) != 1) return 0;
    *v = dt == G_I8 ? *(const int8_t *)t->data : *(const uint8_t *)t->data;
    return 1;
}

/* A folded residual (graph/qdq_conv.c try_sum): CLIP, LINEAR 1/s3, ROUND,
 * LINEAR s3, ADD, then Relu/Clip. oneDNN computes in s3 units (output
 * scales x_scale * w_scale[c] / s3): clip, round, the sum of the residual
 * (scale r_scale / s3, its zero point), linear s3 / y_scale, the chain. */
static int dq_sum_chain(dqconv *s, const nn_post *c, float ysc, float rsc, float *unit)
{
    if (c->n < 5 || c->kind[0] != NN_PO_CLIP || c->kind[1] != NN_PO_LINEAR || c->b[1] != 0.f ||
        c->kind[2] != NN_PO_ROUND || c->kind[3] != NN_PO_LINEAR || c->b[3] != 0.f || c->kind[4] != NN_PO_ADD ||
        !(c->a[3] > 0.f))
        return 0;
    float s3 = c->a[3];
    nn_post p = { .n = 4, .kind = { NN_PO_CLIP, NN_PO_ROUND, NN_PO_ADD, NN_PO_LINEAR }, .has_add = 1 };
    p.a[0] = c->a[0] / s3;
    p.b[0] = c->b[0] / s3;
    p.a[3] = s3 / ysc;
    for (int i = 5; i < c->n; i++) {
        if (c->kind[i] != NN_PO_CLIP && !(c->kind[i] == NN_PO_RELU && c->a[i] == 0.f)) return 0;
        p.kind[p.n] = c->kind[i];
        p.a[p.n] = c->kind[i] == NN_PO_CLIP ? c->a[i] / ysc : 0.f;
        p.b[p.n] = c->kind[i] == NN_PO_CLIP ? c->b[i] / ysc : 0.f;
        p.n++;
    }
    if (nn_post_conflict(&p)) return 0;
    s->po = p;
    s->sum_scale = rsc / s3;
    *unit = s3;
    return 1;
}

/* Output scales and the post-op chain oneDNN runs; 0 when not expressible.
 * A subnormal output scale (a calibrator gives a dead channel, all-zero
 * weights, a w_scale near 1e-42) is set to 0: every multiply by a subnormal
 * operand takes a microcode assist, which made PP-OCRv4 rec's 480x480 1x1
 * layer with 14 such channels 2.7x slower (0.83 -> 0.31 ms). The product it
 * drops is below 2^31 * FLT_MIN, 1e-29 of an output step, so the integers
 * written are the same. OPENACL_QCONV_SUBNORMAL=1 keeps the scale. */
static int dq_scales(dqconv *s, const nn_post *chain, float xsc, const g_tensor *ws, float ysc, float rsc)
{
    const char *e = getenv("OPENACL_QCONV_SUBNORMAL");   /* read per load: mdl_bench --ab */
    int flush = !(e && !strcmp(e, "1"));
    int homog = 1;
    float unit = 0.f;
    for (int i = 0; i < chain->n; i++)
        if (chain->kind[i] != NN_PO_RELU && chain->kind[i] != NN_PO_CLIP) homog = 0;
    if (chain->has_add && !dq_sum_chain(s, chain, ysc, rsc, &unit)) return 0;
    s->nsc = g_shape_numel(&ws->shape);
    if (!(s->oscale = malloc((size_t)s->nsc * sizeof(float)))) return -1;
    for (int64_t c = 0; c < s->nsc; c++) {
        float w = ((const float *)ws->data)[c];
        if (!(w > 0.f)) return 0;
        s->oscale[c] = unit > 0.f ? xsc * w / unit : homog ? xsc * w / ysc : xsc * w;
        if (flush && s->oscale[c] < FLT_MIN) s->oscale[c] = 0.f;
    }
    if (chain->has_add) return 1;
    s->po = *chain;
    if (homog) {
        /* Relu (leaky too) and Clip commute with the positive 1/y_scale */
        for (int i = 0; i < s->po.n; i++)
            if (s->po.kind[i] == NN_PO_CLIP) { s->po.a[i] /= ysc; s->po.b[i] /= ysc; }
        return 1;
    }
    /* a final HardSigmoid or linear step takes the 1/y_scale itself (oneDNN
     * would apply one set of linear parameters to two linear steps) */
    int last = s->po.kind[s->po.n - 1];
    if (last == NN_PO_LINEAR) {
        s->po.a[s->po.n - 1] /= ysc;
        s->po.b[s->po.n - 1] /= ysc;
        return !nn_post_conflict(&s->po);
    }
    if (last == NN_PO_HSIGMOID && s->po.n < NN_MAX_PO) {
        int i = s->po.n - 1;
        s->po.kind[i] = NN_PO_LINEAR;
        s->po.a[i] /= ysc;
        s->po.b[i] /= ysc;
        s->po.kind[i + 1] = NN_PO_CLIP;
        s->po.a[i + 1] = 0.f;
        s->po.b[i + 1] = 1.f / ysc;
        s->po.n++;
        return !nn_post_conflict(&s->po);
    }
    if (s->po.n >= NN_MAX_PO) return 0;
    s->po.kind[s->po.n] = NN_PO_LINEAR;
    s->po.a[s->po.n] = 1.f / ysc;
    s->po.b[s->po.n] = 0.f;
    s->po.n++;
    return !nn_post_conflict(&s->po);
}

/* SiLU chains: oneDNN 2.6's swish post-op inside the int8 kernels costs
 * several times the integer product on the expand and depthwise layers of
 * EfficientNet-style nets (their reduction depth is small), so those
 * convolutions write the real values (float32, output scales x_scale *
 * w_scale[c]) and this pass applies x * sigmoid(x) and quantises:
 * saturate(round(v / y_scale) + y_zp), ties to even as QuantizeLinear. The
 * pass is bound by arithmetic (about a cycle a value), so it takes the
 * bf16-grade sigmoid (< 2e-4 relative: under 0.06 of a quantisation step at
 * 255 steps). */
static void silu_q_scalar(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8)
{
    int lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    for (size_t i = 0; i < n; i++) {
        float x = f[i], v = nearbyintf(x / (1.0f + expf(-x)) * inv) + (float)zp;
        int q = v < (float)lo ? lo : v > (float)hi ? hi : (int)v;
        if (s8) ((int8_t *)dst)[i] = (int8_t)q;
        else ((uint8_t *)dst)[i] = (uint8_t)q;
    }
}

#ifdef DQ_SILU_AVX512
/* x / (1 + 2^t), t = -x log2 e, times 1/y_scale plus y_zp in one fma; 2^t
 * as kernels/silu16.h's bf16-grade form (degree 3 on the fraction, vscalef
 * for the integer part); no clamp of t: the inputs are finite, so large x
 * gives 2^t = 0 (exactly x) and very negative x gives 2^t = inf (-0). */
#define SILU_Q_LOOP(NAME, DIV)                                                                       \
    __attribute__((target("avx512f"))) static void NAME(const float *f, void *dst, size_t n,         \
                                                        float inv, int32_t zp, int s8)              \
    {                                                                                                \
        const __m512 vi = _mm512_set1_ps(inv), vz = _mm512_set1_ps((float)zp);                      \
        const __m512 nl2e = _mm512_set1_ps(-1.44269504088896341f), one = _mm512_set1_ps(1.0f);       \
        const __m512 c3 = _mm512_set1_ps(0.05500892549753189f), c2 = _mm512_set1_ps(0.2422109842300415f); \
        const __m512 c1 = _mm512_set1_ps(0.6932829022407532f);                                       \
        const __m512i z0 = _mm512_setzero_si512();                                                   \
        size_t i = 0;                                                                                \
        for (; i + 16 <= n; i += 16) {                                                               \
            __m512 x = _mm512_loadu_ps(f + i);                                                       \
            __m512 t = _mm512_mul_ps(x, nl2e);                                                       \
            __m512 k = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);       \
            __m512 fr = _mm512_sub_ps(t, k);                                                         \
            __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(c3, fr, c2), fr, c1), fr, one); \
            __m512 d = _mm512_add_ps(one, _mm512_scalef_ps(p, k));                                   \
            __m512 y = DIV ? _mm512_add_ps(_mm512_div_ps(_mm512_mul_ps(x, vi), d), vz)               \
                           : _mm512_fmadd_ps(_mm512_mul_ps(x, vi), _mm512_rcp14_ps(d), vz);          \
            __m512i q = _mm512_cvtps_epi32(y);                                                       \
            if (s8) _mm_storeu_si128((__m128i *)((int8_t *)dst + i), _mm512_cvtsepi32_epi8(q));        \
            else _mm_storeu_si128((__m128i *)((uint8_t *)dst + i), _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, z0))); \
        }                                                                                            \
        silu_q_scalar(f + i, (char *)dst + i, n - i, inv, zp, s8);                                   \
    }
SILU_Q_LOOP(silu_q_avx512, 0)
SILU_Q_LOOP(silu_q_div_avx512, 1)
#endif

static void silu_q_range(const dqconv *s, const float *f, void *dst, size_t n)
{
    int s8 = s->ydt == G_I8;
#ifdef DQ_SILU_AVX512
    if (dn_has_avx512()) {
        (s->silu_div ? silu_q_div_avx512 : silu_q_avx512)(f, dst, n, s->inv_ys, s->yzp, s8);
        return;
    }
#endif
    silu_q_scalar(f, dst, n, s->inv_ys, s->yzp, s8);
}

static void dq_silu_q(const dqconv *s, const float *f, void *dst, size_t n, int threads)
{
    if (threads < 1 || n < ((size_t)1 << 14)) threads = 1;
    if (threads == 1) { silu_q_range(s, f, dst, n); return; }
#pragma omp parallel num_threads(threads)
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        size_t blocks = (n + 15) / 16, b0 = blocks * (size_t)t / (size_t)nt, b1 = blocks * (size_t)(t + 1) / (size_t)nt;
        size_t a = b0 * 16, b = b1 * 16 < n ? b1 * 16 : n;
        if (a < b) silu_q_range(s, f + a, (char *)dst + a, b - a);
    }
}

/* Whether the source zero point goes into the int32 bias, bias[m] - zp *
 * sum(W[m]), instead of oneDNN's runtime zero point: exact for a layer
 * without padding (every tap reads a real input; a padded one reads zp at
 * the border, whose taps the sum would take out too), and oneDNN's zero-
 * point compensation costs time in the kernel: a 240x240 1x1 layer on 12x80
 * 168 -> 145 us, the 480x480 one on 6x80 299 -> 271 (standalone). The pads
 * must be zero for every shape (explicit zeros, or VALID), and the sum must
 * stay in int32 (255 * 127 * taps < 2^30). OPENACL_QCONV_ZP_RT=1 keeps the
 * runtime zero point; W's packed form differs (oneDNN's compensation), so it
 * is part of the kernel ABI (dn_qconv_zp_rt). */
int dn_qconv_zp_rt(void)
{
    const char *e = getenv("OPENACL_QCONV_ZP_RT");   /* read per load: mdl_bench --ab */
    return e && !strcmp(e, "1");
}

int dn_qconv_zpad_off(void)
{
    const char *e = getenv("OPENACL_QCONV_ZPAD");
    return e && !strcmp(e, "0");
}

/* bias[m] - zp * sum(W[m]) (m's taps contiguous in ONNX's [M, C/G, k...]);
 * 0 when it leaves int32 */
static int zfold_bias(const int8_t *w, int64_t taps, const int32_t *bias, int32_t zp, int64_t m, int32_t *out)
{
    int64_t sum = 0;
    for (int64_t j = 0; j < taps; j++) sum += w[m * taps + j];
    int64_t v = (bias ? (int64_t)bias[m] : 0) - (int64_t)zp * sum;
    if (v < INT32_MIN || v > INT32_MAX) return 0;
    *out = (int32_t)v;
    return 1;
}

/* padded: whether the fold is asked for a layer with explicit pads (2-D),
 * whose input dq_pad_input pads with zp itself (dq_build: channels-last) */
static int dq_zfold(const dqconv *s, const g_tensor *w, const g_tensor *b, int padded)
{
    if (!s->xzp || dn_qconv_zp_rt() || !w->data || (b && !b->data)) return 0;
    if (s->w0.auto_pad == NN_PAD_SAME_UPPER || s->w0.auto_pad == NN_PAD_SAME_LOWER) return 0;
    int any = 0;
    for (int i = 0; i < NN_MAX_SP; i++) any |= s->w0.pb[i] || s->w0.pe[i];
    if (any != padded || (padded && (w->shape.rank != 4 || s->w0.auto_pad != NN_PAD_NOTSET || dn_qconv_zpad_off())))
        return 0;
    int64_t taps = s->M > 0 ? g_shape_numel(&w->shape) / s->M : 0;
    int32_t v;
    for (int64_t m = 0; m < s->M; m++)
        if (!zfold_bias(w->data, taps, b ? b->data : NULL, s->xzp, m, &v)) return 0;
    return taps > 0;
}

/* Constant int8 weights with zero points 0, constant per-tensor scales and
 * zero points, 8-bit activations; anything else is the reference kernel's. */
static int dq_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || n->n_in < 8 || n->n_out != 1 || n->in[QX] < 0) return K_DECLINE;
    int xdt = g->t[n->in[QX]].dtype;
    const g_tensor *w = cst(g, n, QW), *ws = cst(g, n, QWS), *wz = cst(g, n, QWZ), *b = cst(g, n, QB);
    const g_tensor *xz = cst(g, n, QXZ), *yz = cst(g, n, QYZ);
    float xsc, ysc;
    if ((xdt != G_U8 && xdt != G_I8) || !w || w->dtype != G_I8 || w->shape.rank < 3 ||
        w->shape.rank > 5 || !ws || ws->dtype != G_F32 || !scalar_f32(cst(g, n, QXS), &xsc) ||
        !scalar_f32(cst(g, n, QYS), &ysc))
        return K_DECLINE;
    int ydt = yz ? yz->dtype : G_U8;
    int64_t M = w->shape.d[0], nws = g_shape_numel(&ws->shape);
    if ((ydt != G_U8 && ydt != G_I8) || (nws != 1 && nws != M)) return K_DECLINE;
    if (n->n_in > QB && n->in[QB] >= 0 && (!b || b->dtype != G_I32 || g_shape_numel(&b->shape) != M))
        return K_DECLINE;
    if (n->n_in > QWZ && n->in[QWZ] >= 0) {
        if (!wz || wz->dtype != G_I8) return K_DECLINE;
        for (int64_t i = 0; i < g_shape_numel(&wz->shape); i++)
            if (((const int8_t *)wz->data)[i]) return K_DECLINE;
    }
    int xr = g->t[n->in[QX]].shape.rank;
    if (xr >= 0 && xr != w->shape.rank) return K_DECLINE;
    dqconv *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    nn_post chain;
    int r = nn_win_parse(n, NN_CONV, &s->w0);
    if (!r) r = nn_post_parse(n, &chain);
    if (r) { free(s); return r; }
    s->xdt = xdt;
    s->ydt = ydt;
    s->M = M;
    s->bias_in = b != NULL;
    float rsc = 1.f;
    s->has_add = chain.has_add;
    s->silu = !chain.has_add && chain.n == 1 && chain.kind[0] == NN_PO_SILU && chain.a[0] == 1.0f &&
              !getenv("OPENACL_DNNL_SWISH");
    s->inv_ys = 1.0f / ysc;
    int ok = scalar_zp(xz, xdt, &s->xzp) && scalar_zp(yz, ydt, &s->yzp);
    s->zfold = ok && dq_zfold(s, w, b, 0);
    s->zpad_ok = ok && !s->zfold && dq_zfold(s, w, b, 1);
    s->has_bias = s->bias_in || s->zfold || s->zpad_ok;
    if (ok && s->has_add)
        ok = n->n_in > QRZ && n->in[QR] >= 0 && g->t[n->in[QR]].dtype == ydt &&
             scalar_f32(cst(g, n, QRS), &rsc) && scalar_zp(cst(g, n, QRZ), ydt, &s->rzp);
    if (ok) {
        int q = dq_scales(s, &chain, xsc, ws, ysc, rsc);
        if (q < 0) { dq_fini(s); return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name); }
        ok = q;
    }
    if (ok && s->silu) {
        s->po.n = 0;   /* output scales x_scale * w_scale[c]: real values */
        s->silu_div = dn_silu_div();
    }
    if (!ok) { dq_fini(s); return K_DECLINE; }
    *state = s;
    return 0;
}

static int dq_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dqconv *s = state;
    nn_win w = s->w0;
    k_tensor t[3];
    t[0] = in[QX];
    t[1] = in[QW];
    memset(&t[2], 0, sizeof t[2]);
    t[2].shape.rank = -1;
    int r = nn_conv_infer_shape(n, &w, 0, t, &out[0].shape);
    if (r) return r;
    out[0].dtype = s->ydt;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

static dnnl_data_type_t dt_of(int g) { return g == G_I8 ? dnnl_s8 : dnnl_u8; }

/* Weights as ONNX stores them ([M, C/G, k...]) in oneDNN's dims. */
static int user_wmd(const dqconv *s, int64_t C, dnnl_memory_desc_t *md)
{
    int nsp = s->w.nsp;
    int64_t G = s->w.group, M = s->M, K = 1;
    for (int i = 0; i < nsp; i++) K *= s->w.k[i];
    dnnl_dims_t d, st;
    int gi = G > 1 ? 1 : 0, nd = 2 + nsp + gi;
    if (gi) d[0] = G;
    d[gi] = M / G;
    d[gi + 1] = C / G;
    for (int i = 0; i < nsp; i++) d[gi + 2 + i] = s->w.k[i];
    dnnl_dim_t acc = 1;
    for (int i = nsp - 1; i >= 0; i--) { st[gi + 2 + i] = acc; acc *= s->w.k[i]; }
    st[gi + 1] = K;
    st[gi] = (C / G) * K;
    if (gi) st[0] = (M / G) * (C / G) * K;
    return dnnl_memory_desc_init_by_strides(md, nd, d, dnnl_s8, st) == dnnl_success ? 0 : -1;
}

static size_t off_b(const dqconv *s) { return dn_align(s->wbytes); }
static size_t packed_total(const dqconv *s) { return off_b(s) + s->bbytes; }

static dnnl_status_t dq_attr(const g_node *n, const dqconv *s, dnnl_primitive_attr_t *attr)
{
    static const int32_t rt = DNNL_RUNTIME_S32_VAL;
    dnnl_status_t st = dnnl_primitive_attr_create(attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success)
        st = dnnl_primitive_attr_set_output_scales(*attr, s->nsc, s->nsc > 1 ? 1 << 1 : 0, s->oscale);
    if (st == dnnl_success && s->xzp && !s->zfold && !s->zpad)
        st = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_SRC, 1, 0, &rt);
    if (st == dnnl_success && s->yzp && !s->silu)
        st = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_DST, 1, 0, &rt);
    int add_idx;
    if (st == dnnl_success && s->has_add && dn_post_ops_qsum(n, &s->po, s->sum_scale, s->rzp, *attr))
        st = dnnl_unimplemented;
    else if (st == dnnl_success && !s->has_add && dn_post_ops(n, &s->po, NULL, NULL, *attr, &add_idx))
        st = dnnl_unimplemented;
    return st;
}

/* Primitive descriptor and memories for these shapes and layouts. */
static int dq_build(const g_node *n, dqconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dq_release(s);
    s->w = s->w0;
    k_tensor t[3];
    t[0] = in[QX]; t[1] = in[QW];
    memset(&t[2], 0, sizeof t[2]);
    t[2].shape.rank = -1;
    int r = nn_conv_infer_shape(n, &s->w, 0, t, &s->ys);
    if (r) return r;
    s->xs = in[QX].shape;
    s->xl = in[QX].layout;
    s->yl = out[0].layout;
    s->al = s->has_add ? in[QR].layout : 0;
    s->nthr = nthr;
    int64_t C = s->xs.d[1];
    /* the first build decides (W's packed form follows it) */
    if (!s->have_wmd) s->zpad = s->zpad_ok && s->xl == G_LAYOUT_NHWC && s->w.nsp == 2 && s->xs.rank == 4;
    g_shape xp = s->xs;   /* zpad: the input as padded */
    if (s->zpad) {
        s->pt = s->w.pb[0]; s->pb = s->w.pe[0]; s->pl = s->w.pb[1]; s->pr = s->w.pe[1];
        xp.d[2] += s->pt + s->pb;
        xp.d[3] += s->pl + s->pr;
    }
    dnnl_memory_desc_t x_c, y_c, y_q, x_u, y_u, a_u, w_user, w_any, b_md;
    dnnl_dims_t strides, dil, pl, pr;
    if (dn_md_act(&x_c, &xp, 1, dt_of(s->xdt)) || dn_md_act(&y_q, &s->ys, 1, dt_of(s->ydt)) ||
        dn_md_act(&y_c, &s->ys, 1, s->silu ? dnnl_f32 : dt_of(s->ydt)) ||
        dn_md_act(&x_u, &s->xs, s->xl == G_LAYOUT_NHWC, dt_of(s->xdt)) ||
        dn_md_act(&y_u, &s->ys, s->yl == G_LAYOUT_NHWC, dt_of(s->ydt)) ||
        dn_md_act(&a_u, &s->ys, s->al == G_LAYOUT_NHWC, dt_of(s->ydt)) || user_wmd(s, C, &w_user))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): memory descriptors",
                        n->name, n->op_type);
    for (int i = 0; i < s->w.nsp; i++) {
        strides[i] = s->w.s[i];
        dil[i] = s->w.d[i] - 1;
        pl[i] = s->zpad ? 0 : s->w.pb[i];
        pr[i] = s->zpad ? 0 : s->w.pe[i];
    }
    if (s->have_wmd) w_any = s->wmd;
    else dnnl_memory_desc_init_by_tag(&w_any, w_user.ndims, w_user.dims, dnnl_s8, dnnl_format_tag_any);
    dnnl_dims_t bd = { s->M };
    dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_s32, dnnl_x);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
        dnnl_convolution_direct, &x_c, &w_any, s->has_bias ? &b_md : NULL, &y_c, strides, dil, pl, pr);
    if (st == dnnl_success) st = dq_attr(n, s, &attr);
    if (st == dnnl_success) st = dn_pd_create(&pd, &cd, attr, NULL);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, impl dnnl): oneDNN has no "
                        "int8 convolution for this configuration (status %d)", n->name, n->op_type,
                        (int)st);
    if (dn_is_ref_impl(pd))
        acl_log(1, "node '%s' (%s): oneDNN uses its reference int8 implementation", n->name, n->op_type);
    if (!s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    s->bbytes = s->has_bias ? (size_t)s->M * sizeof(int32_t) : 0;
    s->pd = pd;
    size_t off = 0;
    dnnl_memory_desc_t spmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (s->zpad) {
        s->off_pad = off; off = dn_align(off + dnnl_memory_desc_get_size(&x_c));
    } else if (!dnnl_memory_desc_equal(&x_u, &x_c)) {
        s->off_x = off; off = dn_align(off + dnnl_memory_desc_get_size(&x_c));
        if (!r) r = dn_reorder_prim(n, &x_u, &x_c, &s->re_x);
        if (!r) r = dn_mem(n, &x_u, &s->m_xu);
    }
    if (!dnnl_memory_desc_equal(&y_u, &y_q)) {
        s->off_y = off; off = dn_align(off + dnnl_memory_desc_get_size(&y_q));
        if (!r) r = dn_reorder_prim(n, &y_q, &y_u, &s->re_y);
        if (!r) r = dn_mem(n, &y_u, &s->m_yu);
        if (!r && s->silu) r = dn_mem(n, &y_q, &s->m_yq);
    }
    if (s->silu) { s->off_f = off; off = dn_align(off + dnnl_memory_desc_get_size(&y_c)); }
    if (s->has_add && !dnnl_memory_desc_equal(&a_u, &y_c)) {
        if (!r) r = dn_reorder_prim(n, &a_u, &y_c, &s->re_a);
        if (!r) r = dn_mem(n, &a_u, &s->m_au);
    }
    s->off_sp = off;
    s->scratch = off + dn_scratch_size(pd);
    dnnl_dims_t one = { 1 };
    dnnl_memory_desc_t zmd;
    dnnl_memory_desc_init_by_tag(&zmd, 1, one, dnnl_s32, dnnl_x);
    if (!r) r = dn_mem(n, &x_c, &s->m_x);
    if (!r) r = dn_mem(n, &s->wmd, &s->m_w);
    if (!r && s->has_bias) r = dn_mem(n, &b_md, &s->m_b);
    if (!r) r = dn_mem(n, &y_c, &s->m_y);
    if (!r && dn_scratch_size(pd)) r = dn_mem(n, &spmd, &s->m_sp);
    if (!r && s->xzp && !s->zfold && !s->zpad) r = dn_mem(n, &zmd, &s->m_xz);
    if (!r && s->yzp && !s->silu) r = dn_mem(n, &zmd, &s->m_yz);
    if (r) { dq_release(s); return r; }
    s->built = 1;
    return 0;
}

static int dq_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                   size_t *packed_bytes, size_t *scratch_bytes)
{
    dqconv *s = state;
    int r = dq_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = packed_total(s);
    *scratch_bytes = s->scratch;
    return 0;
}

static int dq_pack_into(const g_node *n, dqconv *s, const k_tensor *in, void *packed)
{
    if (!in[QW].data || (s->bias_in && !in[QB].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): weights not "
                        "available for packing", n->name, n->op_type);
    dnnl_memory_desc_t w_user;
    if (user_wmd(s, s->xs.d[1], &w_user))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): weight descriptor", n->name, n->op_type);
    int r = dn_reorder_once(n, &w_user, in[QW].data, &s->wmd, packed);
    if (r) return r;
    if (s->bias_in) memcpy((char *)packed + off_b(s), in[QB].data, s->bbytes);
    else if (s->has_bias) memset((char *)packed + off_b(s), 0, s->bbytes);
    if (s->zfold || s->zpad) {
        int32_t *b = (int32_t *)((char *)packed + off_b(s));
        const int8_t *w = in[QW].data;
        int64_t taps = g_shape_numel(&in[QW].shape) / s->M;
        for (int64_t m = 0; m < s->M; m++)   /* in place: b[m] is read before it is written */
            if (!zfold_bias(w, taps, s->bias_in ? b : NULL, s->xzp, m, &b[m]))
                return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): bias with the "
                                "zero point folded in leaves int32 (channel %lld)", n->name, n->op_type,
                                (long long)m);
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dq_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dqconv *s = state;
    int r;
    if (!s->built && (r = dq_build(n, s, in, out, dn_threads(NULL)))) return r;
    return dq_pack_into(n, s, in, packed);
}

static int dq_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dqconv *s = state;
    int r;
    if (!s->built && (r = dq_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

/* zpad: the channels-last input [N, H, W, C] into [N, pt + H + pb, pl + W + pr, C]
 * with the zero point in the border, which is what QLinearConv's padding
 * reads (real 0) */
static void dq_pad_input(const dqconv *s, const uint8_t *x, uint8_t *xp)
{
    int64_t N = s->xs.d[0], C = s->xs.d[1], H = s->xs.d[2], W = s->xs.d[3];
    int64_t Wp = W + s->pl + s->pr, Hp = H + s->pt + s->pb;
    size_t row = (size_t)(Wp * C);
    int z = s->xdt == G_I8 ? (int)(uint8_t)(int8_t)s->xzp : (int)s->xzp;
    for (int64_t b = 0; b < N; b++) {
        uint8_t *o = xp + (size_t)(b * Hp) * row;
        const uint8_t *xi = x + (size_t)(b * H * W * C);
        memset(o, z, (size_t)s->pt * row);
        o += (size_t)s->pt * row;
        for (int64_t h = 0; h < H; h++, o += row, xi += W * C) {
            memset(o, z, (size_t)(s->pl * C));
            memcpy(o + s->pl * C, xi, (size_t)(W * C));
            memset(o + (s->pl + W) * C, z, (size_t)(s->pr * C));
        }
        memset(o, z, (size_t)s->pb * row);
    }
}

static int same_cfg(const dqconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    return s->built && s->nthr == nthr && g_shape_eq(&s->xs, &in[QX].shape) &&
           s->xl == in[QX].layout && s->yl == out[0].layout && (!s->has_add || s->al == in[QR].layout);
}

static int dq_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    dqconv *s = state;
    int r, nthr = dn_threads(ctx);
    if (!same_cfg(s, in, out, nthr) && (r = dq_build(n, s, in, out, nthr))) return r;
    if (!s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, packed_total(s), &own)) || (r = dq_pack_into(n, s, in, own)))
            return r;
    }
    if (g_shape_numel(&s->ys) == 0) return 0;
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    if (!s->conv && (r = dn_check(dnnl_primitive_create(&s->conv, s->pd), n, "int8 convolution primitive")))
        return r;
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    if (s->zpad) {
        dq_pad_input(s, in[QX].data, (uint8_t *)(scr + s->off_pad));
        if ((r = dn_set_handle(n, s->m_x, scr + s->off_pad))) return r;
    } else if (s->re_x) {
        if ((r = dn_set_handle(n, s->m_xu, in[QX].data)) || (r = dn_set_handle(n, s->m_x, scr + s->off_x)) ||
            (r = dn_reorder_exec(n, s->re_x, strm, s->m_xu, s->m_x)))
            return r;
    } else if ((r = dn_set_handle(n, s->m_x, in[QX].data))) return r;
    char *ydst = s->re_y ? scr + s->off_y : (char *)out[0].data;
    int32_t xz = s->xzp, yz = s->yzp;
    if ((r = dn_set_handle(n, s->m_y, s->silu ? scr + s->off_f : ydst)) || (r = dn_set_handle(n, s->m_w, s->pk.packed))) return r;
    if (s->has_bias && (r = dn_set_handle(n, s->m_b, (char *)s->pk.packed + off_b(s)))) return r;
    if (s->m_sp && (r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
    if (s->m_xz && (r = dn_set_handle(n, s->m_xz, &xz))) return r;
    if (s->m_yz && (r = dn_set_handle(n, s->m_yz, &yz))) return r;
    if (s->has_add) {
        /* the sum post-op adds what the destination holds: the residual */
        if (s->re_a) {
            if ((r = dn_set_handle(n, s->m_au, in[QR].data)) || (r = dn_reorder_exec(n, s->re_a, strm, s->m_au, s->m_y)))
                return r;
        } else if (in[QR].data != ydst) {
            memcpy(ydst, in[QR].data, (size_t)g_shape_numel(&s->ys));
        }
    }
    dnnl_exec_arg_t a[8];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, s->m_x };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_w };
    if (s->has_bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_b };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, s->m_y };
    if (s->m_sp) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    if (s->m_xz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s->m_xz };
    if (s->m_yz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, s->m_yz };
    if ((r = dn_check(dnnl_primitive_execute(s->conv, strm, na, a), n, "int8 convolution"))) return r;
    if (s->silu) {
        if ((r = dn_check(dnnl_stream_wait(strm), n, "stream wait"))) return r;
        dq_silu_q(s, (const float *)(scr + s->off_f), ydst, (size_t)g_shape_numel(&s->ys), nthr);
    }
    if (s->re_y) {
        dnnl_memory_t ysrc = s->silu ? s->m_yq : s->m_y;
        if ((s->silu && (r = dn_set_handle(n, s->m_yq, ydst))) || (r = dn_set_handle(n, s->m_yu, out[0].data)) ||
            (r = dn_reorder_exec(n, s->re_y, strm, ysrc, s->m_yu)))
            return r;
    }
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static int dq_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == QX || idx == QR));
}

/* The output may take the residual's storage: the sum post-op reads the
 * destination, where the residual then already lies (same layout and type,
 * no reorder of either). */
static int dq_inplace(const g_node *n, void *state)
{
    (void)n;
    dqconv *s = state;
    if (!s || !s->built || !s->has_add || s->re_a || s->re_y || s->al != s->yl) return -1;
    return QR;
}

/* Multiply-adds of the integer product, counted as conv flops (weights at slot 3). */
static double dq_flops(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    (void)n;
    const g_shape *w = &in[QW].shape;
    double y = (double)g_shape_numel(&out[0].shape), k = 1;
    if (w->rank < 2 || w->d[0] <= 0 || y < 0) return 4 * (y > 0 ? y : 0);
    for (int i = 1; i < w->rank; i++) k *= (double)w->d[i];
    return 2 * y * k;
}

static const k_op k_qlconv_dnnl = {
    .op_type = "QLinearConv", .domain = "", .since = 10, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dq_init, .infer = dq_infer, .plan = dq_plan, .pack = dq_pack, .run = dq_run,
    .fini = dq_fini, .accepts_layout = dq_accepts, .packed_inputs = (1u << QW) | (1u << QB),
    .adopt = dq_adopt, .inplace = dq_inplace, .flops = dq_flops,
};
K_REGISTER(k_qlconv_dnnl);
