/* openacl.DynQMatMul (the dynamic int8 product, see nn_dynqmm.c): what its
 * reference and oneDNN implementations share. */
#ifndef OPENACL_NN_DYNQMM_H
#define OPENACL_NN_DYNQMM_H
#include "kernels/post.h"

#define DQ_WSCALE 4           /* input index of w_scale */
#define DQ_XSCALE 5           /* openacl.QMatMul: x_scale, x_zero_point */
#define DQ_XZP 6
#define DQ_YSCALE 7           /* both ops: a QuantizeLinear folded behind (uint8 out) */
#define DQ_YZP 8

/* 1 when the node writes uint8 through a folded QuantizeLinear (inputs 7, 8). */
int nn_qmm_qout(const g_node *n);
/* QuantizeLinear's arithmetic on cnt floats: rint(y / scale) + zp, saturated
 * to uint8 (NaN: zp 0's 0), as the reference QuantizeLinear. */
void nn_qmm_quantise(const float *y, size_t cnt, float scale, uint8_t zp, uint8_t *q);
/* The folded QuantizeLinear's scale and zero point (inputs known). */
void nn_qmm_yparams(const g_node *n, const k_tensor *in, float *scale, uint8_t *zp);
/* 1 for openacl.QMatMul (X quantised before), 0 for openacl.DynQMatMul. */
int nn_qmm_static(const g_node *n);
/* openacl.QMatMul's x_scale and x_zero_point (inputs known). */
void nn_qmm_xparams(const g_node *n, const k_tensor *in, float *scale, uint8_t *zp);
/* A quantised X given to nn_dynqmm_compute. */
typedef struct nn_qx {
    const uint8_t *q;
    float scale;
    uint8_t zp;
} nn_qx;

/* init(): inputs and dtypes (W a constant 2-D int8 tensor). */
int nn_dynqmm_check(const g_graph *g, const g_node *n);
/* infer(): output [..., N] float32, checks K, w_scale, bias and addend. */
int nn_dynqmm_infer(const g_node *n, const k_tensor *in, k_tensor *out);
/* DynamicQuantizeLinear's scale and zero point of cnt values (range widened
 * to include 0; zero point rounded half to even and saturated). */
void nn_dynq_params(const float *x, size_t cnt, float *scale, uint8_t *zp);
/* The product over cnt values of X (cnt / K rows, K > 0) with plain W
 * [K, N]; add: the addend (NULL when po has none); qx: X already quantised
 * (openacl.QMatMul; x unused), NULL to quantise x. The reference math, also
 * the fast kernel's path where oneDNN declines. */
int nn_dynqmm_compute(const g_node *n, const nn_post *po, const float *x, size_t cnt,
                      const int8_t *w, int64_t K, int64_t N, const float *ws, int per_col,
                      const float *bias, const float *add, float *y, const nn_qx *qx);

#endif
