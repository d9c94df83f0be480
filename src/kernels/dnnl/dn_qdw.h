/* Direct int8 depthwise 3x3 / 5x5 convolution with VNNI (dn_qdw.c), the
 * loop the oneDNN QLinearConv kernel (dn_qconv.c) runs instead of oneDNN's
 * for such depthwise layers between channels-last uint8 tensors; and the
 * SiLU-and-quantise step both use. See dn_qdw.c for why and how. */
#ifndef OPENACL_DN_QDW_H
#define OPENACL_DN_QDW_H
#include <stddef.h>
#include <stdint.h>

/* OPENACL_NO_QDW=1: such layers stay with oneDNN (read per build of the
 * node; the packed area holds both forms, so it is no part of the ABI). */
int dn_qdw_disabled(void);
/* dn_qdw_disabled, or OPENACL_QDW_S2=0 for a stride-2 layer of C channels
 * that only the flat stride-2 form takes (96, 144: oneDNN's then, as
 * before it; read per build, the packing is there either way; layers of
 * whole 64-channel blocks go back to the blocked loop: DN_QDW_NO_S2). */
int dn_qdw_off(int64_t C, int64_t S, int K);
/* OPENACL_QDW_PAIR=0: rows of 64-channel blocks one output pixel a step
 * instead of two (read per build of the node; same bytes). */
int dn_qdw_one_px(void);
/* OPENACL_QDW_ROWBLK=0: a row's quadruples of every block built at once,
 * even where they would not stay in L1 (read per build; same bytes). */
int dn_qdw_whole_rows(void);
/* OPENACL_QDW_PAIRS=0: stride-1 layers run one output row per pass
 * instead of two (dn_qdw.c; read per build, for dn_qdw_geo.pairs; same
 * bytes either way). */
int dn_qdw_pairs(void);
/* Options read per build, for dn_qdw_geo.opts (same bytes either way):
 * OPENACL_QCONV_KEEP_CLAMPS=1 (DN_QDW_KEEP_CLAMPS): the loop clamps to a
 * Relu / Clip bound that lies within half a step of the 8-bit range's end
 * too, which the saturation does by itself; OPENACL_QDW_PHASES=0
 * (DN_QDW_CHUNK_ORDER): flat stride-1 rows computed chunk by chunk, the
 * weights read for each, instead of phase by phase with them in
 * registers; OPENACL_QDW_S2=0 (DN_QDW_NO_S2): no flat stride-2 rows;
 * OPENACL_QDW_TBUF=0 (DN_QDW_PLANNED_SCRATCH): every thread's quadruples in
 * the node's planned scratch, not the second and further threads' in the
 * node's own worker area (dn_qdw_geo.wscr). */
enum { DN_QDW_KEEP_CLAMPS = 1, DN_QDW_CHUNK_ORDER = 2, DN_QDW_NO_S2 = 4, DN_QDW_PLANNED_SCRATCH = 8 };
int dn_qdw_opts(void);
/* Whether this CPU runs the loop (AVX-512 with VNNI, oneDNN allowed to). */
int dn_qdw_supported(void);

/* One layer: input [N, H, W, C] uint8 (zero point xzp), weights [C, 1, K,
 * K] int8 (K 3 or 5), stride 1 or 2, K/2 pixels of padding on every side; output [N,
 * OH, OW, C] uint8 or int8 (s8) with zero point yzp. The chain: SiLU (silu:
 * the packed scales give real values, then x * sigmoid(x) / y_scale) or
 * a clamp to [lo, hi] in output steps (Relu / Clip; none: unbounded). */
typedef struct dn_qdw_geo {
    int64_t N, H, W, C, OH, OW, S;
    int K;
    int32_t xzp, yzp;
    int s8, silu, silu_div, silu_fold;
    int one_px;   /* OPENACL_QDW_PAIR=0: blocked rows one output pixel a step (else two) */
    int whole_rows;   /* OPENACL_QDW_ROWBLK=0: every block's quadruples of a row at once */
    int pairs;   /* stride 1: two output rows per pass (dn_qdw_pairs) */
    int opts;    /* dn_qdw_opts */
    float lo, hi, inv_ys;
    /* the second and further threads' quadruple rows, worker t's at
     * (t - 1) x dn_qdw_worker_bytes: memory of the node's own, allocated
     * when it is built, that no other thread or node writes (dn_qdw.c,
     * qdw_thread_rows); NULL: the planned scratch */
    void *wscr;
} dn_qdw_geo;

/* The int8 SiLU step's forms (dn_common.h dn_silu_form, below). */
enum { DN_SILU_PLAIN = 0, DN_SILU_FOLD_K = 1, DN_SILU_FOLD_T = 2 };

/* Whether the loop takes a layer of C channels at stride S (1 or 2): where
 * it beats oneDNN's (dn_qdw.c). */
int dn_qdw_takes(int64_t C, int64_t S, int K);
/* Packed bytes: weights (VNNI quadruples), int32 bias and float scales per
 * 64-channel block or channel phase. */
size_t dn_qdw_packed_bytes(int64_t C, int64_t S, int K);
/* w [C, K * K] int8; bias [C] int32 or NULL; oscale[c] (nsc 1 or C): the
 * accumulator's factor to the value the chain reads. */
void dn_qdw_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t C, int64_t S,
                 int K, int32_t xzp, void *dst);
size_t dn_qdw_scratch_bytes(const dn_qdw_geo *g, int threads);
/* One worker's share of dn_qdw_geo.wscr (a multiple of 64 bytes). */
size_t dn_qdw_worker_bytes(const dn_qdw_geo *g);
#if defined(__x86_64__) && defined(__GNUC__)
/* Only where dn_qdw_supported(). */
void dn_qdw_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                int threads);
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* x / (1 + 2^t), t = -x log2 e, times 1/y_scale plus y_zp in one fma,
 * rounded to int32; 2^t as kernels/silu16.h's bf16-grade form (degree 3 on
 * the fraction, vscalef for the integer part); no clamp of t: the inputs
 * are finite, so large x gives 2^t = 0 (exactly x) and very negative x
 * gives 2^t = inf (-0). */
__attribute__((target("avx512f"))) static inline __m512i dn_silu_q16(__m512 x, __m512 vi, __m512 vz, int div)
{
    const __m512 nl2e = _mm512_set1_ps(-1.44269504088896341f), one = _mm512_set1_ps(1.0f);
    const __m512 c3 = _mm512_set1_ps(0.05500892549753189f), c2 = _mm512_set1_ps(0.2422109842300415f);
    const __m512 c1 = _mm512_set1_ps(0.6932829022407532f);
    __m512 t = _mm512_mul_ps(x, nl2e);
    __m512 k = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 fr = _mm512_sub_ps(t, k);
    __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(c3, fr, c2), fr, c1), fr, one);
    __m512 d = _mm512_add_ps(one, _mm512_scalef_ps(p, k));
    __m512 y = div ? _mm512_add_ps(_mm512_div_ps(_mm512_mul_ps(x, vi), d), vz)
                   : _mm512_fmadd_ps(_mm512_mul_ps(x, vi), _mm512_rcp14_ps(d), vz);
    return _mm512_cvtps_epi32(y);
}

/* The same step with y_scale folded into the sigmoid's denominator
 * (dn_silu_form, OPENACL_SILU_FOLD): d' = y_scale (1 + 2^t), its terms
 * y_scale p(f) by coefficients times y_scale (dn_silu_qk), so that
 * x / d' + y_zp needs no product x / y_scale; and t split by vreduceps
 * into f = t - floor(t) in [0, 1), whose 2^f a degree-3 polynomial gives
 * (exact at 0 and 1, < 1.04e-4 relative: as dn_silu_q16's), while
 * vscalefps takes floor(t) from t itself: vrndscaleps (two uops on Intel
 * cores), the subtraction and x / y_scale go, 10 instructions instead of
 * 12, about a quarter less time per value in the SiLU pass. The products
 * round differently, so a value on a rounding tie may move one step.
 * Large |t|: 2^t = inf gives -0, 2^t = 0 gives x / y_scale, as there.
 * AVX512DQ (vreduceps). */
typedef struct dn_silu_k {
    __m512 ys, c1, c2, c3, vz;
} dn_silu_k;

/* The third form (DN_SILU_FOLD_T, the default), dn_silu_q16t, is handed
 * t = -x log2 e: dn_qconv.c folds -log2 e into the layer's output scales
 * before they are packed or given to oneDNN, so the product x log2 e
 * goes; y = x / d' becomes t / d'' with d'' = -log2 e d', that factor
 * folded into the polynomial's coefficients with y_scale. 10 instructions
 * instead of 11 with the accumulator's conversion and scaling
 * (EfficientNet-B0 int8 2 % less time at 1 thread; a degree-2 2^f would
 * save one more fma, 0.8 %, but at 2.7e-3 relative it moved 6-10 % of a
 * small-scale test network's outputs by a step). */
__attribute__((target("avx512f"))) static inline void dn_silu_qk(dn_silu_k *k, float y_scale, int32_t zp, int fold)
{
    if (fold == DN_SILU_FOLD_T) y_scale *= -1.44269504088896341f;
    k->ys = _mm512_set1_ps(y_scale);
    k->c1 = _mm512_set1_ps(0.6954241731944338f * y_scale);
    k->c2 = _mm512_set1_ps(0.22630835740839644f * y_scale);
    k->c3 = _mm512_set1_ps(0.07826746939716972f * y_scale);
    k->vz = _mm512_set1_ps((float)zp);
}

__attribute__((target("avx512f,avx512dq"))) static inline __m512i dn_silu_q16k(__m512 x, const dn_silu_k *c, int div)
{
    __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(-1.44269504088896341f));
    __m512 fr = _mm512_reduce_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(c->c3, fr, c->c2), fr, c->c1), fr, c->ys);
    __m512 d = _mm512_add_ps(c->ys, _mm512_scalef_ps(p, t));
    __m512 y = div ? _mm512_add_ps(_mm512_div_ps(x, d), c->vz) : _mm512_fmadd_ps(x, _mm512_rcp14_ps(d), c->vz);
    return _mm512_cvtps_epi32(y);
}

/* t = -x log2 e in; c from dn_silu_qk(.., DN_SILU_FOLD_T). Large |t| as
 * dn_silu_q16k: 2^t = inf gives -0 (y_zp), 2^t = 0 gives t / d'' = x /
 * y_scale. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i dn_silu_q16t(__m512 t, const dn_silu_k *c, int div)
{
    __m512 fr = _mm512_reduce_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(c->c3, fr, c->c2), fr, c->c1), fr, c->ys);
    __m512 d = _mm512_add_ps(c->ys, _mm512_scalef_ps(p, t));
    __m512 y = div ? _mm512_add_ps(_mm512_div_ps(t, d), c->vz) : _mm512_fmadd_ps(t, _mm512_rcp14_ps(d), c->vz);
    return _mm512_cvtps_epi32(y);
}

/* The step of form `fold` (dn_silu_form) on v, the accumulator times its
 * scale (x, or t for DN_SILU_FOLD_T); c from dn_silu_qk(.., fold); vi, vz for the
 * plain form. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i dn_silu_qstep(__m512 v, const dn_silu_k *c,
                                                                                __m512 vi, __m512 vz, int fold, int div)
{
    if (fold == DN_SILU_FOLD_T) return dn_silu_q16t(v, c, div);
    return fold ? dn_silu_q16k(v, c, div) : dn_silu_q16(v, vi, vz, div);
}
#endif
#endif
