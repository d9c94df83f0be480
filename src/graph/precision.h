/* Reduced-precision execution: marks the nodes whose kernels may compute in
 * bfloat16 (oneDNN bf16 with float32 accumulation; float32 tensors between
 * nodes). The mark is the node attribute "_oa_bf16" (int 1), so it survives
 * fusion, shows in OPENACL_DUMP_GRAPH and is stored by compiled models.
 * Layers that read a graph input stay float32. */
#ifndef OPENACL_GRAPH_PRECISION_H
#define OPENACL_GRAPH_PRECISION_H
#include "graph/ir.h"

/* Marks Conv, ConvTranspose, MatMul and Gemm nodes (not inside subgraphs,
 * not those reading a graph input).
 * Returns 0 or an aclError (out of memory). */
int graph_mark_bf16(g_graph *g);

/* After the layout pass: an activation written by a bf16 convolution and
 * read only (as the data input) by bf16 convolutions is stored as bf16
 * (half the memory traffic, no conversion on the reader). The producers get
 * G_ATTR_BF16_OUT; producers and readers are unbound for the pipeline to
 * bind and infer again. Returns 0 or an aclError. */
int graph_pass_bf16_act(g_graph *g);

#endif
