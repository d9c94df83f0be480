/* openacl.QTable with AVX-512 VBMI: 64 bytes a step, the 256-entry table in
 * four registers; vpermi2b looks each byte's low 7 bits up in the two
 * halves and its top bit picks the half. The reference's state and driver
 * (kernels/ref/nn_qtable.h), so the bytes are the table's. */
#include "kernels/ref/nn_qtable.h"
#include "kernels/ref/shape_common.h"
#include "kernels/x86/x86_common.h"

#ifdef X86_SIMD
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void map_vbmi(const uint8_t *lut, const uint8_t *x,
                                                                             uint8_t *y, int64_t n)
{
    const __m512i t0 = _mm512_loadu_si512(lut), t1 = _mm512_loadu_si512(lut + 64);
    const __m512i t2 = _mm512_loadu_si512(lut + 128), t3 = _mm512_loadu_si512(lut + 192);
    int64_t i = 0;
    for (; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        __m512i v = _mm512_maskz_loadu_epi8(m, x + i);
        __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
        _mm512_mask_storeu_epi8(y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
    }
}

static int qt_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (!x86_has_avx512() || !__builtin_cpu_supports("avx512vbmi")) return K_DECLINE;
    int r = nn_qtable_init(g, n, state);
    if (r) return r;
    ((nn_qtable *)*state)->map = map_vbmi;
    return 0;
}

static const k_op k_qtable_vbmi = {
    .op_type = "QTable", .domain = "openacl", .since = 1, .until = 0, .impl = "avx512", .priority = 10,
    .init = qt_init, .infer = nn_qtable_infer, .run = nn_qtable_run, .fini = nn_qtable_fini,
    .accepts_layout = ksh_accept_data, .inplace = nn_qtable_inplace,
};
K_REGISTER(k_qtable_vbmi);
#endif
