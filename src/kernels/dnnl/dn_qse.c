/* dn_qse.h: the squeeze-excite block's one-pixel first convolution. A
 * oneDNN primitive call cost 3-4 us for these layers (EfficientNet-B0's
 * 96 -> 4 to 1152 -> 48), whose products take well under a microsecond:
 * each output channel is one dot product of the K input bytes with a
 * weight row, 64 bytes a vpdpbusd, the source zero point taken off as
 * xzp * sum(w) with the bias. Integers are exact and, within 2^24 (checked
 * at load), so is their float conversion; the scale is one multiply, as
 * oneDNN's, so the floats and the SiLU step's bytes after them are the
 * primitive's (tests/quant_conv). */
#include "kernels/dnnl/dn_qse.h"
#include "kernels/dnnl/dn_qdw.h"
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QSE_X86 1
#endif

struct dn_qse {
    int64_t M, K, ks;   /* ks: a weight row's stride, K rounded up to 64 */
    int8_t *w;          /* M rows of ks bytes, zeros after K */
    int32_t *b;         /* b[c] - xzp * sum_k w[c, k] */
    float *sc;          /* M scales */
};

void dn_qse_free(dn_qse *q)
{
    if (!q) return;
    free(q->w);
    free(q->b);
    free(q->sc);
    free(q);
}

dn_qse *dn_qse_new(const int8_t *w, const int32_t *b, int64_t M, int64_t K, int32_t xzp, const float *sc,
                   int64_t nsc)
{
    const char *e = getenv("OPENACL_QSE_DIRECT");   /* read per load: mdl_bench --ab */
    if ((e && !strcmp(e, "0")) || !dn_qdw_supported() || M < 1 || M > DN_QSE_MAX_M || K < 1 || K > 65536 ||
        (nsc != 1 && nsc != M))
        return NULL;
#ifndef QSE_X86
    (void)w; (void)b; (void)xzp; (void)sc;
    return NULL;
#else
    dn_qse *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->M = M; q->K = K; q->ks = (K + 63) & ~(int64_t)63;
    q->w = calloc((size_t)(M * q->ks), 1);
    q->b = malloc((size_t)M * sizeof(int32_t));
    q->sc = malloc((size_t)M * sizeof(float));
    if (!q->w || !q->b || !q->sc) { dn_qse_free(q); return NULL; }
    for (int64_t c = 0; c < M; c++) {
        int64_t sw = 0, sa = 0;
        for (int64_t k = 0; k < K; k++) {
            int v = w[c * K + k];
            q->w[c * q->ks + k] = (int8_t)v;
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

dn_qse *dn_qse_for(const g_graph *g, const g_node *n, const nn_win *w0, int32_t xzp, const float *sc, int64_t nsc)
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
    return dn_qse_new(w->data, b ? b->data : NULL, w->shape.d[0], w->shape.d[1], xzp, sc, nsc);
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
#endif

void dn_qse_run(const dn_qse *q, const uint8_t *x, float *f)
{
#ifdef QSE_X86
    qse_dots(q, x, f);
#else
    (void)q; (void)x; (void)f;
#endif
}
