/* The squeeze-excite block's two one-pixel convolutions (1x1 QLinearConv
 * layers of a [1, K, 1, 1] uint8 input): the first with its SiLU chain, one
 * vpdpbusd dot product per output channel, and the second with its Sigmoid
 * chain (the gate), 16 output channels a vpdpbusd over columns of weight
 * quadruples; each instead of a oneDNN primitive call (dn_qse.c). */
#ifndef OPENACL_DN_QSE_H
#define OPENACL_DN_QSE_H
#include "graph/ir.h"
#include "kernels/ref/nn_common.h"
#include <stdint.h>

#define DN_QSE_MAX_M 256      /* output channels a SiLU layer may have (its floats on the stack) */
#define DN_QSE_GATE_MAX_K 256 /* input channels a gate layer may have */
#define DN_QSE_GATE_MAX_M 8192

typedef struct dn_qse dn_qse;

/* The output step: the chain (NN_PO_SILU or NN_PO_SIGMOID), then
 * saturate(round(v * inv_ys) + yzp) to int8 (s8) or uint8; for SiLU the
 * SiLU pass's forms (dn_silu_q: div, pack, fold; the scales are then as
 * dn_silu_form left them). */
typedef struct dn_qse_out {
    int kind;
    float inv_ys;
    int32_t yzp;
    int s8, div, pack, fold;
} dn_qse_out;

/* A direct layer for weights w ([M, K] int8, zero point 0), bias b (M
 * int32, or NULL), source zero point xzp, output scales sc (nsc: 1 or M;
 * copied) and output step o; NULL when the CPU lacks VNNI,
 * OPENACL_QSE_DIRECT=0, the sizes are out of range, or an integer sum could
 * exceed 2^24 (where the float conversion of acc + bias could round apart
 * from oneDNN's). */
dn_qse *dn_qse_new(const int8_t *w, const int32_t *b, int64_t M, int64_t K, int32_t xzp, const float *sc,
                   int64_t nsc, const dn_qse_out *o);
/* The layer's M output bytes y of input pixel x (K bytes): the real values
 * (float)(sum_k (x[k] - xzp) w[c, k] + b[c]) * sc[c] as oneDNN's primitive
 * computes them, then the output step. */
void dn_qse_run(const dn_qse *q, const uint8_t *x, void *y);
/* dn_qse_new for QLinearConv node n (window w0, uint8 input) when its
 * input is one known pixel ([1, K, 1, 1]), its weights constant [M, K, 1,
 * 1] with group 1 and no padding; NULL otherwise */
dn_qse *dn_qse_for(const g_graph *g, const g_node *n, const nn_win *w0, int32_t xzp, const float *sc, int64_t nsc,
                   const dn_qse_out *o);
void dn_qse_free(dn_qse *q);
#endif
