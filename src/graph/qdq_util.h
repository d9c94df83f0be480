/* Matching helpers for the QDQ (QuantizeLinear/DequantizeLinear) folding
 * passes: the parameters of a Q or DQ node when they are constants, the
 * readers of a tensor, and the float activation chains that follow a
 * quantised op before its QuantizeLinear (kernels/post.h kinds). Shared by
 * the int8 convolution pass (qdq_conv.c) and the int8 matrix-product one. */
#ifndef OPENACL_GRAPH_QDQ_UTIL_H
#define OPENACL_GRAPH_QDQ_UTIL_H
#include "graph/ir.h"
#include "kernels/post.h"

/* A QuantizeLinear or DequantizeLinear node with constant scale (float32)
 * and constant zero point (or none). */
typedef struct qdq_param {
    int node;            /* the Q/DQ node's index */
    int x, y;            /* its input and output tensors */
    int scale, zp;       /* tensors; zp -1 when omitted */
    int qtype;           /* the integer type: G_U8, G_I8, G_I32 (zp's, or x's for a DQ) */
    int64_t count;       /* scale values: 1 per tensor, else per `axis` slice */
    int64_t axis;        /* normalised by the caller (the attribute as given) */
} qdq_param;

/* Whether n is op `op` of the default ONNX domain. */
int qdq_is_op(const g_node *n, const char *op);
/* The parameters of node ni when it is a DequantizeLinear (want_q 0) or
 * QuantizeLinear (1) with constant float32 scale and constant zero point
 * (or none), no block_size and a float32 float side: 1, else 0. */
int qdq_param_of(const g_graph *g, int ni, int want_q, qdq_param *p);
/* The DequantizeLinear that produces tensor t (its parameters in *p) or 0. */
int qdq_dq_of(const g_graph *g, int t, qdq_param *p);
/* Per-tensor scale and zero point values of p (zero point 0 when omitted). */
float qdq_scale(const g_graph *g, const qdq_param *p, int64_t i);
int32_t qdq_zp(const g_graph *g, const qdq_param *p, int64_t i);
/* Whether a and b are per tensor with the same integer type, scale and zero point. */
int qdq_same(const g_graph *g, const qdq_param *a, const qdq_param *b);
/* Readers of t among nodes with dead[i] == 0: the count; the first `max`
 * (node, slot) pairs in who/slot. A graph output counts as one extra reader. */
int qdq_readers(const g_graph *g, const unsigned char *dead, int t, int *who, int *slot, int max);
/* Walks the float activation chain from tensor t (each step t's only
 * reader: Relu, LeakyRelu, Clip with constant bounds, Sigmoid, Tanh,
 * HardSigmoid, HardSwish, x*Sigmoid(x)), appending post-ops to p and the
 * absorbed nodes to chain (up to max). Returns the chain's last tensor. */
int qdq_chain(const g_graph *g, const unsigned char *dead, int t, nn_post *p, int *chain, int *nchain,
              int max);
/* A new constant tensor named after base with the given type, shape and
 * bytes (copied): its index, -1 on OOM. Pointers into g->t are invalid after. */
int qdq_const_add(g_graph *g, const char *base, const char *suffix, int dtype, const g_shape *s,
                  const void *data);

/* Node n becomes `domain`.`op` over inputs in[0..n_in) (opset 1 for a
 * non-standard domain), unbound; its attributes are dropped when
 * drop_attrs. 0, or ACL_ERROR_BAD_ALLOC with a message naming `pass`, the
 * node unchanged. */
int qdq_retype(g_node *n, const char *pass, const char *op, const char *domain, const int *in, int n_in,
               int drop_attrs);

#endif
