/* dn_qse.h: the squeeze-excite block's one-pixel convolutions. A oneDNN
 * primitive call cost 3-5 us for these layers (EfficientNet-B0's 96 -> 4
 * to 1152 -> 48 SiLU layers and 4 -> 96 to 48 -> 1152 Sigmoid gates), whose
 * products take well under a microsecond.
 *
 * The SiLU layers (K large, M small): each output channel is one dot
 * product of the K input bytes with a weight row, 64 bytes a vpdpbusd.
 * The gates (K small, M large): 16 output channels at once, a vpdpbusd per
 * input quadruple broadcast against the quadruple's weights of those 16
 * channels (columns of quadruples). Either way the source zero point is
 * taken off as xzp * sum(w) with the bias; integers are exact and, within
 * 2^24 (checked at load), so is their float conversion; the scale is one
 * multiply, as oneDNN's, so the floats are the primitive's. The SiLU
 * layers' bytes are then the SiLU pass's (dn_silu_q), as after oneDNN; the
 * gates' the sigmoid of kernels/silu16.h (about 3e-7 relative, where
 * oneDNN's logistic post-op has its own last bits: a value on a rounding
 * tie may move one step; tests/quant_conv). */
#include "kernels/dnnl/dn_qse.h"
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_qdw.h"
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include "kernels/silu16.h"
#define QSE_X86 1
#endif

struct dn_qse {
    int64_t M, K, ks;   /* SiLU: ks a weight row's stride, K rounded up to 64; gate: M rounded up to 16 */
    int gate;           /* the Sigmoid form: w as (K + 3) / 4 rows of ks quadruples */
    int8_t *w;          /* SiLU: M rows of ks bytes, zeros after K */
    int32_t *b;         /* b[c] - xzp * sum_k w[c, k] */
    float *sc;          /* scales */
    dn_qse_out o;
};

void dn_qse_free(dn_qse *q)
{
    if (!q) return;
    free(q->w);
    free(q->b);
    free(q->sc);
    free(q);
}

/* The weights in the form's order: row c of the SiLU form, or column c of
 * the gate's quadruples. */
static void qse_put(dn_qse *q, int64_t c, int64_t k, int8_t v)
{
    if (q->gate) q->w[((k / 4) * q->ks + c) * 4 + k % 4] = v;
    else q->w[c * q->ks + k] = v;
}

dn_qse *dn_qse_new(const int8_t *w, const int32_t *b, int64_t M, int64_t K, int32_t xzp, const float *sc,
                   int64_t nsc, const dn_qse_out *o)
{
    const char *e = getenv("OPENACL_QSE_DIRECT");   /* read per load: mdl_bench --ab */
    int gate = o->kind == NN_PO_SIGMOID;
    if ((e && !strcmp(e, "0")) || !dn_qdw_supported() || (o->kind != NN_PO_SILU && !gate) || M < 1 ||
        M > (gate ? DN_QSE_GATE_MAX_M : DN_QSE_MAX_M) || K < 1 || K > (gate ? DN_QSE_GATE_MAX_K : 65536) ||
        (nsc != 1 && nsc != M))
        return NULL;
#ifndef QSE_X86
    (void)w; (void)b; (void)xzp; (void)sc;
    return NULL;
#else
    dn_qse *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->M = M; q->K = K; q->gate = gate; q->o = *o;
    q->ks = gate ? (M + 15) & ~(int64_t)15 : (K + 63) & ~(int64_t)63;
    size_t nw = gate ? (size_t)((K + 3) / 4 * q->ks * 4) : (size_t)(M * q->ks), nb = gate ? (size_t)q->ks : (size_t)M;
    q->w = calloc(nw, 1);
    q->b = calloc(nb, sizeof(int32_t));
    q->sc = calloc(nb, sizeof(float));
    if (!q->w || !q->b || !q->sc) { dn_qse_free(q); return NULL; }
    for (int64_t c = 0; c < M; c++) {
        int64_t sw = 0, sa = 0;
        for (int64_t k = 0; k < K; k++) {
            int v = w[c * K + k];
            qse_put(q, c, k, (int8_t)v);
            sw += v;
            sa += v < 0 ? -v : v;
        }
        int64_t bc = (b ? b[c] : 0) - (int64_t)xzp * sw;
        /* |sum x w| <= 255 sum |w|: the sum with the bias stays an exact float */
        int64_t bound = 255 * sa + (bc < 0 ? -bc : bc) + (int64_t)(xzp < 0 ? -xzp : xzp) * sa;
        if (bound >= (1 << 24)) { dn_qse_free(q); return NULL; }
        q->b[c] = (int32_t)bc;
        q->sc[c] = sc[nsc > 1 ? c : 0];
    }
    return q;
#endif
}

dn_qse *dn_qse_for(const g_graph *g, const g_node *n, const nn_win *w0, int32_t xzp, const float *sc, int64_t nsc,
                   const dn_qse_out *o)
{
    enum { QX = 0, QW = 3, QB = 8 };
    if (n->n_in <= QW || n->in[QX] < 0 || n->in[QW] < 0) return NULL;
    const g_shape *xs = &g->t[n->in[QX]].shape;
    const g_tensor *w = &g->t[n->in[QW]], *b = n->n_in > QB && n->in[QB] >= 0 ? &g->t[n->in[QB]] : NULL;
    if (w->kind != G_TK_CONST || !w->data || w->dtype != G_I8 || w->shape.rank != 4 || w->shape.d[2] != 1 ||
        w->shape.d[3] != 1 || (b && (b->kind != G_TK_CONST || !b->data || b->dtype != G_I32)) ||
        g->t[n->in[QX]].dtype != G_U8 || w0->group != 1 || w0->auto_pad != NN_PAD_NOTSET || xs->rank != 4 ||
        !g_shape_known(xs) || xs->d[0] != 1 || xs->d[1] != w->shape.d[1] || xs->d[2] != 1 || xs->d[3] != 1)
        return NULL;
    for (int i = 0; w0->has_pads && i < 2; i++)
        if (w0->pb[i] || w0->pe[i]) return NULL;
    return dn_qse_new(w->data, b ? b->data : NULL, w->shape.d[0], w->shape.d[1], xzp, sc, nsc, o);
}

#ifdef QSE_X86
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void qse_dots(const dn_qse *q, const uint8_t *x,
                                                                            float *f)
{
    int64_t K = q->K, full = K & ~(int64_t)63;
    __mmask64 kt = K > full ? (__mmask64)(~0ull >> (64 - (K - full))) : 0;
    for (int64_t c = 0; c < q->M; c++) {
        const int8_t *wr = q->w + c * q->ks;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0;
        int64_t k = 0;
        for (; k + 128 <= full; k += 128) {
            a0 = _mm512_dpbusd_epi32(a0, _mm512_loadu_si512(x + k), _mm512_loadu_si512(wr + k));
            a1 = _mm512_dpbusd_epi32(a1, _mm512_loadu_si512(x + k + 64), _mm512_loadu_si512(wr + k + 64));
        }
        if (k < full) a0 = _mm512_dpbusd_epi32(a0, _mm512_loadu_si512(x + k), _mm512_loadu_si512(wr + k));
        if (kt) a1 = _mm512_dpbusd_epi32(a1, _mm512_maskz_loadu_epi8(kt, x + full), _mm512_loadu_si512(wr + full));
        int32_t acc = _mm512_reduce_add_epi32(_mm512_add_epi32(a0, a1)) + q->b[c];
        f[c] = (float)acc * q->sc[c];
    }
}

/* The gate: 16 channels at a time, sigmoid, then y_scale and y_zp (the
 * primitive's linear post-op and destination zero point) in one fma. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) static void qse_gate(const dn_qse *q,
                                                                                           const uint8_t *x, void *y)
{
    int64_t nq = (q->K + 3) / 4;
    uint32_t xq[DN_QSE_GATE_MAX_K / 4] = { 0 };
    memcpy(xq, x, (size_t)q->K);
    const __m512 vi = _mm512_set1_ps(q->o.inv_ys), vz = _mm512_set1_ps((float)q->o.yzp);
    const __m512i zero = _mm512_setzero_si512();
    for (int64_t c = 0; c < q->M; c += 16) {
        __m512i acc = _mm512_loadu_si512(q->b + c);
        const int8_t *wc = q->w + c * 4;
        for (int64_t k = 0; k < nq; k++)
            acc = _mm512_dpbusd_epi32(acc, _mm512_set1_epi32((int)xq[k]), _mm512_loadu_si512(wc + k * q->ks * 4));
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(q->sc + c));
        __m512i v = _mm512_cvtps_epi32(_mm512_fmadd_ps(sigmoid16(f), vi, vz));
        __mmask16 m = q->M - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (q->M - c)) - 1u);
        if (q->o.s8) _mm512_mask_cvtsepi32_storeu_epi8((int8_t *)y + c, m, v);
        else _mm512_mask_cvtusepi32_storeu_epi8((uint8_t *)y + c, m, _mm512_max_epi32(v, zero));
    }
}
#endif

void dn_qse_run(const dn_qse *q, const uint8_t *x, void *y)
{
#ifdef QSE_X86
    if (q->gate) { qse_gate(q, x, y); return; }
    float f[DN_QSE_MAX_M];
    qse_dots(q, x, f);
    dn_silu_q(f, y, (size_t)q->M, q->o.inv_ys, q->o.yzp, q->o.s8, q->o.div, q->o.pack, q->o.fold, 1);
#else
    (void)q; (void)x; (void)y;
#endif
}
