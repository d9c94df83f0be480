/* The squeeze-excite block's first convolution on its one pixel (a 1x1
 * QLinearConv of a [1, K, 1, 1] uint8 input, the SiLU chain): one
 * vpdpbusd dot product per output channel instead of a oneDNN primitive
 * call (dn_qse.c). */
#ifndef OPENACL_DN_QSE_H
#define OPENACL_DN_QSE_H
#include "graph/ir.h"
#include "kernels/ref/nn_common.h"
#include <stdint.h>

#define DN_QSE_MAX_M 256   /* output channels a direct layer may have (its floats on the stack) */

typedef struct dn_qse dn_qse;

/* A direct layer for weights w ([M, K] int8, zero point 0), bias b (M
 * int32, or NULL), source zero point xzp and output scales sc (nsc: 1 or M;
 * copied); NULL when the CPU lacks VNNI, OPENACL_QSE_DIRECT=0, the sizes
 * are out of range, or an integer sum could exceed 2^24 (where the float
 * conversion of acc + bias could round apart from oneDNN's). */
dn_qse *dn_qse_new(const int8_t *w, const int32_t *b, int64_t M, int64_t K, int32_t xzp, const float *sc,
                   int64_t nsc);
/* f[c] = (float)(sum_k (x[k] - xzp) w[c, k] + b[c]) * sc[c] for the M
 * channels: the real values oneDNN's primitive writes for the chain */
void dn_qse_run(const dn_qse *q, const uint8_t *x, float *f);
/* dn_qse_new for QLinearConv node n (window w0, uint8 input) when its
 * input is one known pixel ([1, K, 1, 1]), its weights constant [M, K, 1,
 * 1] with group 1 and no padding; NULL otherwise */
dn_qse *dn_qse_for(const g_graph *g, const g_node *n, const nn_win *w0, int32_t xzp, const float *sc, int64_t nsc);
void dn_qse_free(dn_qse *q);
#endif
