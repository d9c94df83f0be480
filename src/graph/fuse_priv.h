/* Shared by the fusion pass's files (graph/fuse.c: post-ops, affine folds,
 * depthwise pairs; graph/fuse_blocks.c: squeeze-excite blocks and channel
 * shuffles): the pass's state and its graph-editing helpers. */
#ifndef OPENACL_GRAPH_FUSE_PRIV_H
#define OPENACL_GRAPH_FUSE_PRIV_H
#include "graph/ir.h"
#include "kernels/post.h"

typedef struct fz {
    g_graph *g;
    unsigned char *dead;      /* per node: absorbed, removed at the end */
    int nfused;
} fz;

int fz_is_op(const g_node *n, const char *op);
int fz_in_t(const g_node *n, int i);
const g_tensor *fz_cst(const g_graph *g, int t);
int fz_single_use(const fz *f, int t, int *slot);
int fz_uses(const fz *f, int t, int *who, int max);
int fz_oom(void);
int fz_const_f32(g_graph *g, const char *base, const char *what, const g_shape *s, const float *data);
int fz_set_attr_ints(g_node *n, const char *name, const int64_t *v, int cnt);
int fz_set_attr_int(g_node *n, const char *name, int64_t v);
int fz_write_post_as(g_node *n, const char *prefix, const nn_post *p);
int fz_write_post(g_node *n, const nn_post *p);
void fz_unbind(g_node *n);
int fz_ints_all(const g_node *n, const char *name, int64_t v, int cnt);

/* The block fusions (fuse_blocks.c): 1 when done, 0 when not applicable,
 * < 0 an error. */
int fz_fuse_se(fz *f, int mi);
int fz_fuse_shuffle(fz *f, int ri);
/* fuse_simple.c: a zero spatial Pad into the AveragePool after it; a Relu
 * into the BatchNormalization before it; a channel Concat and the
 * BatchNormalization reading it into one openacl.ConcatNorm. */
int fz_fuse_pad_pool(fz *f, int pi);
int fz_fuse_bn_relu(fz *f, int bi);
int fz_fuse_concat_norm(fz *f, int bi);
/* ... and a strided AveragePool moved before the plain 1x1 Conv feeding it. */
int fz_pool_first(fz *f, int ci);
/* ... and an unpadded AveragePool folded into the ConcatNorm before it. */
int fz_fuse_norm_pool(fz *f, int ni);
/* ... and Flatten -> Softmax -> Reshape back as one last-axis Softmax
 * (2: the nodes removed). */
int fz_softmax_unflatten(fz *f, int fi);

#endif
