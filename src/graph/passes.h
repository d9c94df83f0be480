/* Graph passes and the load-time pipeline. Each pass works in place on a
 * g_graph and returns 0 or an aclError (message left with acl_fail).
 *
 * The pipeline (graph_optimize), in order:
 *   link          producers/uses; a tensor produced twice is refused
 *   toposort      nodes in dependency order; a cycle is refused naming a node in it
 *   elim_identity Identity / inference-mode Dropout removed by rewiring
 *   dce           nodes that reach no graph output removed
 *   supported     every node has a kernel (one error listing all that do not)
 *   bind_infer    per node in order: choose the kernel (first whose init()
 *                 does not decline), infer output types/shapes, fold nodes
 *                 whose inputs are all constant (and Shape/Size of known shapes)
 *   dce           again, dropping folded nodes and constants nobody reads
 *   fuse, layout  optional passes from fuse.c / layout.c (weak symbols), each
 *                 followed by link, toposort and bind_infer of what changed
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

/* Prepares a control-flow body at its owner's init(): sorts, checks, binds
 * and infers it with the dtypes/shapes its inputs and captures have now. */
int graph_prepare_sub(g_graph *sub);

/* Removes nodes with dead[i] != 0 (their kernel state is released) and relinks. */
int graph_remove_nodes(g_graph *g, const unsigned char *dead);

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

/* From fuse.c / layout.c when linked in; may be absent. */
int graph_pass_fuse(g_graph *g) __attribute__((weak));
int graph_pass_layout(g_graph *g) __attribute__((weak));

#ifdef __cplusplus
}
#endif
#endif
