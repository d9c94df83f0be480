/* Which hand-written VNNI loop runs a QLinearConv layer instead of oneDNN's
 * primitive (dn_qconv_dir.c): dn_qdw.c (depthwise 3x3 / 5x5), dn_qstem.c
 * (3-channel stems) or dn_qpw.c (few-channel 1x1 layers). */
#ifndef OPENACL_DN_QCONV_DIR_H
#define OPENACL_DN_QCONV_DIR_H
#include "kernels/ref/nn_common.h"
#include <stdint.h>

/* Kernel sizes dn_qconv_dir_ok writes to *k for dn_qpw.c's 1x1 loop. */
#define DN_QDIR_PW 1

/* Whether one of the loops takes the layer with window v, M output
 * channels, constant int8 weights w ([M, C/G, k, k]), a uint8 or int8
 * input (xdt), a fused residual (has_add: chain is then the one oneDNN
 * runs, dn_qsum_chain's; dn_qpw.c takes a few), the chain SiLU alone
 * (silu) or chain (Relu / Clip only) and output scale ysc. Then *k
 * (3, 5, 7 or DN_QDIR_PW), *stem (dn_qstem.c's) and the clamp's bounds in
 * output steps (*lo, *hi; infinite: none). */
int dn_qconv_dir_ok(const nn_win *v, const g_tensor *w, int64_t M, int xdt, int has_add, int silu,
                    const nn_post *chain, float ysc, int *k, int *stem, float *lo, float *hi);
/* Whether a layer dn_qconv_dir_ok gave to dn_qpw.c runs it in a build
 * for the input shape xs ([N, C, H, W], channels-last in memory): enough
 * pixels, and OPENACL_NO_QPW unset (read per build). */
int dn_qconv_dir_pw(const g_shape *xs);
#endif
