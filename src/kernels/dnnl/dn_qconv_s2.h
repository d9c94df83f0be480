/* A stride-2 1x1 int8 convolution as a stride-1 one on the input taken at
 * every second row and column (dn_qconv_s2.c). */
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

/* x [N, H, W, C] bytes at rows and columns 0, 2, 4, ... into
 * y [N, OH, OW, C] (OH <= (H + 1) / 2, OW <= (W + 1) / 2) on nthr threads. */
void dn_qconv_s2_gather(const uint8_t *x, uint8_t *y, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH,
                        int64_t OW, int nthr);

#endif
