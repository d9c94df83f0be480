/* Graph passes and the load-time pipeline. Each pass works in place on a
 * g_graph and returns 0 or an aclError (message left with acl_fail).
 *
 * The load-time pipeline (graph_optimize) is one ordered table in passes.c
 * (name, function, switch); OPENACL_PRINT_PASSES=1 prints it as it runs.
 * In order: toposort, elim_identity, dce, supported (every node has a
 * kernel), qdq_affine (scalar affines between quantised tensors that
 * repeat the integers, graph/qdq_affine.c), qdq_matmul (QDQ int8 products, graph/qmatmul.c),
 * qdq_table (elementwise chains between quantised tensors as 256-entry
 * tables, graph/qdq_table.c), qdq (int8 convolutions, graph/qdq_conv.c), fold (choose
 * kernels, infer types/shapes, fold constants), dce, qmatmul (dynamic int8
 * products), fuse, qmatmul_out (QuantizeLinear into int8 products), layout,
 * bf16_act and bf16_se (only for bf16-marked graphs), dce.
 * The passes after fold are followed by a rebind (toposort, then bind and
 * infer what they changed) when they ran.
 */
#ifndef OPENACL_GRAPH_PASSES_H
#define OPENACL_GRAPH_PASSES_H
#include "graph/ir.h"
#include "kernels/kernel.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

int graph_toposort(g_graph *g);                 /* also links */
int graph_elim_identity(g_graph *g);
int graph_dce(g_graph *g);
int graph_check_supported(const g_graph *g);    /* recursive into subgraphs */
/* fold: also run constant folding. Binds only nodes with op == NULL; infers
 * every node. Shapes that cannot be known yet are left unknown (dims -1). */
int graph_bind_infer(g_graph *g, int fold);
int graph_optimize(g_graph *g);
/* The part of the pipeline a model's description needs (types and shapes of
 * its inputs and outputs): the passes up to and including folding, no
 * fusion, layout or precision pass. */
int graph_describe(g_graph *g);

/* Prepares a control-flow body at its owner's init(): sorts, checks, binds
 * and infers it with the dtypes/shapes its inputs and captures have now. */
int graph_prepare_sub(g_graph *sub);

/* The fusion pass's record of the ONNX nodes a fused node stands for: a
 * string list (the node's own name first, then each absorbed node's), set
 * only on nodes that absorbed others. graph_record_cover writes it for the
 * nodes marked dead before they are removed. */
#define G_COVER_ATTR "_oa_onnx_nodes"
/* Each node's inputs as they were before the fusion pass rewired them. */
typedef struct g_cover_snap {
    int *off, *in;            /* CSR: node i read in[off[i] .. off[i+1]) */
    int n_nodes;
} g_cover_snap;
int graph_cover_snap(const g_graph *g, g_cover_snap *s);
void graph_cover_snap_free(g_cover_snap *s);   /* a zeroed or freed snapshot is a no-op */
int graph_record_cover(g_graph *g, const unsigned char *dead, const g_cover_snap *snap);

/* Removes nodes with dead[i] != 0 (their kernel state is released) and relinks.
 * Each removed node is first credited to the node that took over its work
 * (G_COVER_ATTR); _snap gives the inputs as they were before the caller
 * rewired them (NULL: as they are now). */
int graph_remove_nodes(g_graph *g, const unsigned char *dead);
int graph_remove_nodes_snap(g_graph *g, const unsigned char *dead, const g_cover_snap *snap);

/* Argument arrays handed to kernels carry this many extra slots past n_in /
 * n_out, all reading as omitted (G_UNDEF, no data): a kernel that indexes
 * past its arity on a malformed model sees "absent", not another tensor. */
#define GRAPH_IO_PAD 4

/* Fills k_tensor metadata for node n's inputs/outputs (n_in / n_out
 * entries) from the graph's tensors (data set for constants only; omitted
 * slots get G_UNDEF). */
void graph_node_io(const g_graph *g, const g_node *n, k_tensor *in, k_tensor *out);

/* Whether every tensor the graph computes or takes has a known dtype and shape. */
int graph_is_static(const g_graph *g);

/* Whether the node owns a subgraph attribute (If/Loop/Scan...). */
int graph_node_has_subgraph(const g_node *n);

/* Writes the graph (nodes, chosen kernels, tensors and storage) to f
 * (src/graph/dump.c); graph_dump_wanted() says whether OPENACL_DUMP_GRAPH
 * asks for it at load. */
void graph_dump(const g_graph *g, FILE *f, int indent);
int graph_dump_wanted(void);

/* Passes of the table beyond this file: fusion (fuse.c: post-ops, depthwise
 * pairs, squeeze-excite blocks, channel shuffles), storage layouts and the
 * squeeze-excite bf16 step (layout.c); graph_pass_bf16_act: precision.h. */
int graph_pass_fuse(g_graph *g);
/* graph/fuse_perm.c: a channel scale and a residual add after a MatMul's
 * channels-first Transpose, folded into the MatMul (after fusion). */
int graph_pass_perm_fold(g_graph *g);
/* graph/qmatmul.c: ONNX Runtime's dynamic int8 products as openacl.DynQMatMul
 * (after folding); QDQ products as openacl.QMatMul (before folding). */
int graph_pass_qmatmul(g_graph *g);
int graph_pass_qdq_matmul(g_graph *g);
/* graph/qmatmul.c: the QuantizeLinear after such a product, folded in (after fusion). */
int graph_pass_qmatmul_out(g_graph *g);
/* DequantizeLinear -> bias Add [-> GELU] -> QuantizeLinear as openacl.QBias (graph/qmatmul.c). */
int graph_pass_qbias(g_graph *g);
int graph_pass_layout(g_graph *g);
int graph_pass_bf16_se(g_graph *g);
/* A scalar affine between quantised tensors that maps each integer onto
 * itself, read as the integers it repeats (qdq_affine.c; before the int8 passes). */
int graph_pass_qdq_affine(g_graph *g);
int graph_pass_qdq_table(g_graph *g);
/* QDQ folding into int8 ops (qdq_conv.c): runs before constant folding. */
int graph_pass_qdq(g_graph *g);

#ifdef __cplusplus
}
#endif
#endif
