/* Direct int8 stem convolution with VNNI (dn_qstem.c): three uint8 input
 * channels, 3x3 or 7x7 kernel, stride 2, K/2 pixels of padding, read
 * channels-first and written channels-last; the loop the oneDNN
 * QLinearConv kernel (dn_qconv.c) runs instead of an input reorder and
 * oneDNN's convolution for MobileNetV2's, EfficientNet-B0's and ResNet's
 * first layer. */
#ifndef OPENACL_DN_QSTEM_H
#define OPENACL_DN_QSTEM_H
#include "kernels/dnnl/dn_qdw.h"
#include <stddef.h>
#include <stdint.h>

/* OPENACL_NO_QSTEM=1: such layers stay with oneDNN (read per build of the
 * node, as OPENACL_NO_QDW). */
int dn_qstem_disabled(void);
/* Whether the loop takes a layer of M output channels at stride S with a
 * K x K kernel (the caller checks the rest: 3 input channels, group 1,
 * square kernel, pads of K/2). */
int dn_qstem_takes(int64_t M, int64_t S, int64_t K);
/* Packed bytes: weights (VNNI quadruples of the 3 K K taps and a zero one),
 * int32 bias and float scales per 16 output channels. */
size_t dn_qstem_packed_bytes(int64_t M, int64_t K);
/* w [M, 3, K, K] int8; bias [M] int32 or NULL; oscale[m] (nsc 1 or M): the
 * accumulator's factor to the value the chain reads (dn_qdw_pack's). */
void dn_qstem_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t M, int64_t K,
                   int32_t xzp, void *dst);
/* g as dn_qdw.h's, with C the output channels M, H and W the input's, K 3
 * or 7, S 2; the input [N, 3, H, W] channels-first, the output
 * [N, OH, OW, M]. */
size_t dn_qstem_scratch_bytes(const dn_qdw_geo *g, int threads);
#if defined(__x86_64__) && defined(__GNUC__)
/* Only where dn_qdw_supported(). */
void dn_qstem_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                  int threads);
#endif
#endif
