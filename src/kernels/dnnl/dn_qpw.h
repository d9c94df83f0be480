/* Direct int8 1x1 (pointwise) convolution with VNNI (dn_qpw.c), the loop
 * the oneDNN QLinearConv kernel (dn_qconv.c) runs instead of oneDNN's for
 * the few-channel layers of large planes oneDNN runs far from the VNNI
 * peak, between channels-last uint8 tensors. See dn_qpw.c for why and how. */
#ifndef OPENACL_DN_QPW_H
#define OPENACL_DN_QPW_H
#include <stddef.h>
#include <stdint.h>

/* OPENACL_NO_QPW=1: such layers stay with oneDNN (read per build of the
 * node; the packed area holds both forms, so it is no part of the ABI). */
int dn_qpw_disabled(void);

/* One layer: input [P, C] uint8 (P pixels, channels-last, zero point xzp
 * folded into the packed bias), weights [M, C] int8, output [P, M] uint8
 * or int8 (s8) with zero point yzp. The chain: SiLU (silu: the packed
 * scales give real values, then dn_silu_q16 / dn_silu_q16k as dn_silu.c)
 * or a clamp to [lo, hi] in output steps (Relu / Clip; infinite: none).
 * keep_clamps: DN_QDW_KEEP_CLAMPS (a bound within half a step of the
 * 8-bit range's end clamps too, which the saturation does anyway). add: a
 * folded residual (dn_qsum_chain's form, as oneDNN runs it): the scaled
 * sum clipped to [clo, chi] and rounded, plus (residual - rzp) * ssc,
 * times lin, plus yzp; the residual [P, M] of the output's type. */
typedef struct dn_qpw_geo {
    int64_t P, C, M;
    int32_t xzp, yzp, rzp;
    int s8, silu, silu_div, silu_fold, keep_clamps, add;
    float lo, hi, inv_ys, clo, chi, ssc, lin;
} dn_qpw_geo;

/* Whether the loop takes a 1x1 layer of C input and M output channels:
 * where it beats oneDNN's (dn_qpw.c). */
int dn_qpw_takes(int64_t C, int64_t M);
/* ... and with a folded residual: 32 outputs (MobileNetV2's 192 -> 32
 * projections; the loop handles 17 to 32). */
int dn_qpw_takes_add(int64_t C, int64_t M);
/* Packed bytes: weights (VNNI quadruples), int32 bias and float scales. */
size_t dn_qpw_packed_bytes(int64_t C, int64_t M);
/* w [M, C] int8; bias [M] int32 or NULL; oscale[m] (nsc 1 or M): the
 * accumulator's factor to the value the chain reads. */
void dn_qpw_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t C, int64_t M,
                 int32_t xzp, void *dst);
#if defined(__x86_64__) && defined(__GNUC__)
/* Only where dn_qdw_supported() (AVX-512 VNNI); threads take contiguous
 * bands of pixels. */
void dn_qpw_run(const dn_qpw_geo *g, const uint8_t *x, const void *packed, void *y, const void *res, int threads);
#endif
#endif
