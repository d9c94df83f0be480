/* The post-op contract between the fusion pass and every implementation of
 * a heavy op (Conv, ConvTranspose, MatMul, Gemm, SqueezeExcite): the fusion
 * pass (src/graph/fuse.c) writes these attributes, each backend reads them
 * through the parsers below, and the reference kernels stay the ground truth
 * for fused nodes. Part of the kernel interface, so passes need no backend
 * header to speak it. */
#ifndef OPENACL_KERNELS_POST_H
#define OPENACL_KERNELS_POST_H
#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fused post-ops ----
 * Attributes set by the fusion pass on Conv/ConvTranspose/MatMul/Gemm:
 *   _oa_post_ops   INTS   kinds (enum nn_po), applied in order
 *   _oa_post_alpha FLOATS one per kind
 *   _oa_post_beta  FLOATS one per kind
 * NN_PO_ADD adds input 3 of the node (same shape and layout as the output);
 * MatMul may carry a bias vector (last dim) as input 2.
 * The int8 path (graph/qdq_conv.c) writes the same list on QLinearConv and
 * com.microsoft.QLinearAdd: there it applies to the real (dequantised)
 * result before requantisation to the output's scale and zero point, and
 * on QLinearConv NN_PO_ADD adds the dequantised input 9 (its scale input
 * 10, zero point input 11; a residual add folded in), after CLIP, LINEAR
 * 1/s, ROUND, LINEAR s: the saturation and rounding of the convolution's
 * own output step s that the folding removed. */
enum nn_po {
    NN_PO_NONE = 0,
    NN_PO_RELU = 1,       /* max(x,0); with alpha != 0 leaky */
    NN_PO_CLIP = 2,       /* min(max(x, alpha), beta) */
    NN_PO_SIGMOID = 3,
    NN_PO_TANH = 4,
    NN_PO_HSIGMOID = 5,   /* max(0, min(1, alpha*x + beta)) */
    NN_PO_HSWISH = 6,     /* x * max(0, min(1, x/6 + 1/2)) */
    NN_PO_GELU_ERF = 7,
    NN_PO_GELU_TANH = 8,
    NN_PO_SILU = 9,       /* x * sigmoid(alpha * x) */
    NN_PO_ELU = 10,       /* x > 0 ? x : alpha*(exp(x)-1) */
    NN_PO_ADD = 11,       /* x + input[3] */
    NN_PO_LINEAR = 12,    /* alpha*x + beta */
    NN_PO_ROUND = 13,     /* rint(x), half to even (int8 path: a skipped requantisation's rounding) */
    NN_PO_COUNT
};
#define NN_MAX_PO 8
#define NN_ADD_INPUT 3

typedef struct nn_post {
    int n;
    int kind[NN_MAX_PO];
    float a[NN_MAX_PO], b[NN_MAX_PO];
    int has_add;
} nn_post;

/* Reads the _oa_post_* attributes (none: n = 0). */
int nn_post_parse(const g_node *n, nn_post *p);

/* openacl.SqueezeExcite (graph/fuse.c, kernels/ref/nn_se.c): the first
 * (squeeze) product's activations in _oa_se_post_ops / _oa_se_post_alpha /
 * _oa_se_post_beta, the second's in the usual _oa_post_* list. No add. */
int nn_se_post_parse(const g_node *n, nn_post *p);

/* A depthwise 3x3 convolution (pads 1) fused after a Conv by the fusion
 * pass (MobileNet's expand + depthwise pair): attribute _oa_dw_stride (1 or
 * 2), input 4 its weights [M,1,3,3], input 5 its bias [M] (optional), and
 * its own post-op list _oa_dw_post_ops/_oa_dw_post_alpha/_oa_dw_post_beta
 * (no add). The node's output is the depthwise step's. */
#define NN_DW_W 4
#define NN_DW_B 5
typedef struct nn_dw {
    int on;
    int64_t stride;
    int has_bias;
    nn_post po;
} nn_dw;
int nn_dw_parse(const g_node *n, nn_dw *d);
const char *nn_po_name(int kind);
/* 1 when the list uses one oneDNN eltwise algorithm twice with different
 * parameters (HardSigmoid counts as linear + clip): oneDNN 2.6's jit
 * post-op injector then applies the first parameters to both, so such
 * chains are not fused and the dnnl kernels do not hand them to oneDNN. */
int nn_post_conflict(const nn_post *p);

/* What the fusion pass asks an implementation (k_op.fuse_dw) before it
 * folds a depthwise 3x3 step into a 1x1 convolution: a C -> M convolution on
 * an H x W plane with post-ops `pa`, followed by the depthwise step `d`. */
typedef struct k_dw_fusion {
    int64_t C, M, H, W;
    const nn_post *pa;
    const nn_dw *d;
} k_dw_fusion;

#ifdef __cplusplus
}
#endif
#endif
