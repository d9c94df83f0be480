/* The int8 convolution's input zero point as a constant (dn_qconv_zp.c):
 * folded into the int32 bias instead of oneDNN's runtime zero point, and,
 * for padded layers, the channels-last input copied with a border of
 * zero-point bytes so that the convolution itself runs unpadded; and the
 * output clamps the 8-bit saturation makes redundant, left out. */
#ifndef OPENACL_DN_QCONV_ZP_H
#define OPENACL_DN_QCONV_ZP_H
#include "kernels/ref/nn_common.h"
#include <stdint.h>

/* bias[m] - zp * sum(W[m]) into *out (m's taps contiguous in ONNX's
 * [M, C/G, k...]; bias NULL: 0); 0 when it leaves int32. */
int dn_qzp_fold_bias(const int8_t *w, int64_t taps, const int32_t *bias, int32_t zp, int64_t m, int32_t *out);

/* Whether zero point zp (not 0) folds into the bias of a layer with window
 * w0, M output channels, constant int8 weights w and int32 bias b (NULL:
 * none): padded 0 asks for an unpadded layer, padded 1 for one with
 * explicit 2-D pads (whose input is then padded with zp by the caller).
 * 0 under OPENACL_QCONV_ZP_RT=1 (and for padded, OPENACL_QCONV_ZPAD=0). */
int dn_qzp_foldable(const nn_win *w0, int64_t M, int32_t zp, const g_tensor *w, const g_tensor *b, int padded);

/* x [N, H, W, C] bytes (d: N, C, H, W) into xp [N, pt + H + pb, pl + W + pr, C]
 * with the byte z in the border: what QLinearConv's padding reads (real 0);
 * rows shared among nthr threads (copies of 64 KiB and more). */
void dn_qzp_pad_nhwc(const uint8_t *x, uint8_t *xp, const int64_t *d, int64_t pt, int64_t pb, int64_t pl,
                     int64_t pr, int z, int nthr);
/* 2: the layer's padded copy by the team, 1: on the calling thread
 * (OPENACL_QCONV_PAD_PAR=0; read per load). */
int dn_qzp_pad_mode(void);

/* Leaves out of a chain of Relu / Clip (bounds in output steps, before
 * y_zp) every clamp that the conversion to 8 bits (s8: int8) with zero point
 * yzp does anyway: a lower bound below qmin + 0.5 and an upper one above
 * qmax - 0.5 after y_zp change no rounded value (the ends are integers and
 * every value is rounded once, half to even); a Clip with a free upper bound
 * and a lower one of 0 becomes a Relu. Chains with other steps are kept
 * whole. OPENACL_QCONV_KEEP_CLAMPS=1 keeps every clamp (read per load). */
void dn_qpost_drop_saturated(nn_post *po, int32_t yzp, int s8);

/* A residual chain graph/qdq_conv.c folded (CLIP, LINEAR 1/s3, ROUND,
 * LINEAR s3, ADD, then Relu / Clip) as oneDNN runs it in s3 units: the
 * chain into *po, the residual's scale into *sum_scale, s3 into *unit; 0
 * when the chain has another form. */
int dn_qsum_chain(const nn_post *c, float ysc, float rsc, int32_t yzp, int s8, nn_post *po, float *sum_scale,
                  float *unit);

#endif
