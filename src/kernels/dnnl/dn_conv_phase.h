/* A dilated 3x3 float32 convolution run as an undilated one over its
 * phases (dn_conv_phase.c), so that it can take the Winograd kernel.
 *
 * With dilation d on both axes and padding d on every side, output pixel
 * (d a + r, d b + q) reads only input pixels (d (a + i) + r, d (b + j) + q),
 * i, j in -1..1: the pixels of one phase (r, q) form a plane of their own,
 * ceil(H/d) x ceil(W/d), and each output phase is that plane convolved with
 * the same 3x3 weights without dilation, padding 1. So the layer is one
 * ordinary 3x3 convolution over a batch of N x d x d such planes (image n's
 * phase (r, q) is batch entry (n d + r) d + q), which is how dilated
 * ("atrous") layers have long been run: DeepLab's and FCN's ResNet-50
 * backbones at output stride 8 have them at dilation 2 and 4, DeepLabV3's
 * ASPP head at 12, 24 and 36. Where d does not divide H (or W) the phases'
 * last rows lie past the tensor; they are zeros, as the layer's own end
 * padding (d rows) would be, and their outputs are dropped. The planes are
 * gathered straight into the 16-channel blocked layout oneDNN's Winograd
 * kernels want, and the result scattered back, in place of the reorders an
 * undilated layer gets. */
#ifndef OPENACL_DN_CONV_PHASE_H
#define OPENACL_DN_CONV_PHASE_H
#include "kernels/ref/nn_common.h"
#include <stdint.h>

/* The phase factor d for a 2-D window w over an input of shape xs [N, C, H,
 * W]: d >= 2 when both dilations are d, the kernel 3x3 at stride 1 and
 * every pad d; else 0. The Conv asks only when OPENACL_WINO_DILATED=0 was
 * not set at load (dn_wino_dilated_off; part of the kernel ABI,
 * dn_backend.c). */
int dn_phase_factor(const nn_win *w, const g_shape *xs);

/* Which Winograd kernel the phases of a C -> M layer with an N x OH x OW
 * output at factor d take: F(4x4,3x3) (DN_WINO_4X3) when the phase planes
 * are at least 6 pixels a side, the products saved (the direct kernel skips
 * taps in the padding, Winograd computes whole 4x4 tiles) at least 1.6x,
 * the batch holds at least 49 output tiles in all and C x M / (C + M) is at
 * least 24 (the undilated rule's, dn_wino_kind, counted over the whole
 * batch: one transformed weight set serves every phase plane); else 0 (the
 * direct kernel). oneDNN 2.6's F(2x2,3x3) kernel takes no batch. */
int dn_phase_kind(int64_t C, int64_t M, int64_t N, int64_t OH, int64_t OW, int d);

/* Whether OPENACL_WINO_DILATED=0 is set (read per call). */
int dn_wino_dilated_off(void);

/* x [N, C, H, W] float32, channels-last when nhwc else plain, into xb, the
 * blocked [N d d, C/16, ceil(H/d), ceil(W/d), 16] batch of its phases (zeros
 * past the tensor); C a multiple of 16; on nthr threads. */
void dn_phase_gather(const float *x, int nhwc, float *xb, int64_t N, int64_t C, int64_t H, int64_t W, int d,
                     int nthr);

/* The inverse: yb [N d d, M/16, ceil(H/d), ceil(W/d), 16] into y [N, M, H,
 * W] (rows and columns past it dropped), channels-last when nhwc else plain. */
void dn_phase_scatter(const float *yb, float *y, int nhwc, int64_t N, int64_t M, int64_t H, int64_t W, int d,
                      int nthr);

#endif
