/* A stride-2 1x1 convolution as a stride-1 one on the input taken at every
 * second row and column (dn_qconv_s2.c): the int8 layers' rule, and the
 * window test and gather the float32 Conv shares (dn_conv.c). */
#ifndef OPENACL_DN_QCONV_S2_H
#define OPENACL_DN_QCONV_S2_H
#include "kernels/ref/nn_common.h"
#include <stdint.h>

/* Whether a layer with window w (2-D, resolved), group G, a channels-last
 * input and opix output pixels an image runs this way: a 1x1 kernel at
 * stride 2 both ways, no dilation, no padding, one group, a small output
 * plane (DN_QCONV_S2_PIX in dn_qconv_s2.c; every size under
 * OPENACL_QCONV_S2=1); never under OPENACL_QCONV_S2=0 (read per build:
 * mdl_bench --ab). */
int dn_qconv_s2_applies(const nn_win *w, int64_t G, int64_t opix);

/* Whether a resolved window w is 2-D, 1x1, stride 2 both ways, no
 * dilation, no padding. */
int dn_s2_window(const nn_win *w);

/* The float32 Conv's rule (dn_conv.c sub_build): output planes of at most
 * this many pixels. Measured at 1 thread with the gather, against the
 * strided kernel: ResNet-50's and ResNeXt-50's 512 -> 1024 layer on 28x28 ->
 * 14x14 with its residual add 2.51 -> 1.97 ms (at 2 threads 1.28 -> 1.01);
 * the 1024 -> 2048 one on 14x14 -> 7x7, RegNetX's 160 -> 400 one and a 64 ->
 * 160 one on 28x28 -> 14x14 level; the 256 -> 512 one on 56x56 -> 28x28 level
 * (so larger planes keep the strided kernel). */
#define DN_CONV_S2_PIX 196
/* OPENACL_CONV_S2=0: the float32 rule off (read per call; the Conv reads it
 * at load). */
int dn_conv_s2_off(void);

/* x [N, H, W] pixels of C bytes each (channels-last; a float32 caller
 * passes 4 x its channels) at rows and columns 0, 2, 4, ... into
 * y [N, OH, OW] (OH <= (H + 1) / 2, OW <= (W + 1) / 2) on nthr threads. */
void dn_qconv_s2_gather(const uint8_t *x, uint8_t *y, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH,
                        int64_t OW, int nthr);

#endif
