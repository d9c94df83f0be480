/* openacl.DynQMatMul (the dynamic int8 product, see nn_dynqmm.c): what its
 * reference and oneDNN implementations share. */
#ifndef OPENACL_NN_DYNQMM_H
#define OPENACL_NN_DYNQMM_H
#include "kernels/post.h"

#define DQ_WSCALE 4           /* input index of w_scale */

/* init(): inputs and dtypes (W a constant 2-D int8 tensor). */
int nn_dynqmm_check(const g_graph *g, const g_node *n);
/* infer(): output [..., N] float32, checks K, w_scale, bias and addend. */
int nn_dynqmm_infer(const g_node *n, const k_tensor *in, k_tensor *out);
/* DynamicQuantizeLinear's scale and zero point of cnt values (range widened
 * to include 0; zero point rounded half to even and saturated). */
void nn_dynq_params(const float *x, size_t cnt, float *scale, uint8_t *zp);
/* The product over cnt values of X (cnt / K rows, K > 0) with plain W
 * [K, N]; add: the addend (NULL when po has none). The reference math, also
 * the fast kernel's path where oneDNN declines. */
int nn_dynqmm_compute(const g_node *n, const nn_post *po, const float *x, size_t cnt,
                      const int8_t *w, int64_t K, int64_t N, const float *ws, int per_col,
                      const float *bias, const float *add, float *y);

#endif
