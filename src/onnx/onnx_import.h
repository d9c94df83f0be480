/* ONNX importer: the only parser of untrusted ONNX bytes. Turns a ModelProto
 * into a g_graph (see graph/ir.h); every malformed input is refused with an
 * acl_fail() message naming what is wrong, never a crash. */
#ifndef OPENACL_ONNX_IMPORT_H
#define OPENACL_ONNX_IMPORT_H
#include "graph/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lowest and highest default-domain opsets accepted. Opsets 7 and up are
 * the supported range; older models load only where every node's kernel
 * declares that it covers the older opset (k_find), otherwise each such
 * node is refused by name. */
#define ONNX_OPSET_MIN 1
#define ONNX_OPSET_MAX 21
/* Deepest nesting of subgraphs (If/Loop/Scan bodies) accepted. */
#define ONNX_MAX_SUBGRAPH_DEPTH 32

/* Parse `buf` (a serialized ModelProto) into a new graph, owned by the caller
 * (g_graph_free). base_dir is the folder of the model file; external tensor
 * data must lie inside it (NULL refuses external data).
 *
 * The result: graph inputs (not initializers) are G_TK_INPUT, initializers and
 * Constant nodes are G_TK_CONST with owned data, value_info shapes are copied
 * as hints (symbolic dims -1), nodes keep the file order (not sorted), omitted
 * optional inputs/outputs are -1 and trailing ones are dropped. A subgraph
 * refers to an outer value through a G_TK_INPUT tensor of the same name that
 * is not in its inputs list (a "capture"); the node that owns the subgraph gets
 * the outer tensor appended to its inputs after the ONNX ones, so liveness and
 * ordering see the use. */
int onnx_import(const void *buf, size_t len, const char *base_dir, g_graph **out);

/* The same, told that the bytes of buf are backed by a file: drop(drop_ctx,
 * p, n) is called for ranges of buf the import will not read again (their
 * pages may leave memory: a read would fetch them from the file again), so
 * a load holds the weights about once instead of twice at its peak. */
int onnx_import_ex(const void *buf, size_t len, const char *base_dir, void (*drop)(void *ctx, const void *p, size_t n),
                   void *drop_ctx, g_graph **out);

#ifdef __cplusplus
}
#endif
#endif
