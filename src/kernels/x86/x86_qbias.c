/* openacl.QBias with AVX-512 bias-only rows: the reference's table, driver
 * and GELU rows (kernels/ref/nn_qbias.c, nn_qbias.h); a row without GELU is
 * computed 16 columns a step instead of looked up, by the table's float32
 * steps in their order (no fused multiply-add; the conversion rounds half to
 * even as nearbyintf does), so the bytes are the table's. */
#include "kernels/ref/nn_qbias.h"
#include "kernels/x86/x86_common.h"

#ifdef X86_SIMD
__attribute__((target("avx512f"))) static void bias_row_avx512(const nn_qbias *s, const uint8_t *x, uint8_t *y)
{
    const __m512 vzx = _mm512_set1_ps(s->zx), vsx = _mm512_set1_ps(s->sx), vsy = _mm512_set1_ps(s->sy);
    const __m512i vzy = _mm512_set1_epi32((int32_t)s->zy), z0 = _mm512_setzero_si512();
    int64_t col = 0;
    for (; col + 16 <= s->N; col += 16) {
        __m512 v = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(x + col))));
        v = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(v, vzx), vsx), _mm512_loadu_ps(s->bias + col));
        __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_div_ps(v, vsy)), vzy);
        _mm_storeu_si128((__m128i *)(y + col), _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, z0)));
    }
    for (; col < s->N; col++) y[col] = s->lut[col * 256 + x[col]];
}

/* declines GELU rows (input 6 given): the table, the reference's, is their
 * fast form */
static int qb_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (!x86_has_avx512() || (n->n_in > 6 && n->in[6] >= 0)) return K_DECLINE;
    int r = nn_qbias_init(g, n, state);
    if (r) return r;
    ((nn_qbias *)*state)->row = bias_row_avx512;
    return 0;
}

static const k_op k_qbias_avx512 = {
    .op_type = "QBias", .domain = "openacl", .since = 1, .until = 0, .impl = "avx512", .priority = 10,
    .init = qb_init, .infer = nn_qbias_infer, .run = nn_qbias_run, .fini = nn_qbias_fini,
};
K_REGISTER(k_qbias_avx512);
#endif
