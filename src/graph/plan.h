/* Memory planning: one arena for every intermediate tensor and per-node
 * scratch, reused by liveness. The planner decides offsets once at load;
 * the executor only adds the arena base (TVM's storage plan, ggml-alloc). */
#ifndef OPENACL_GRAPH_PLAN_H
#define OPENACL_GRAPH_PLAN_H
#include "graph/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PLAN_ALIGN 64

/* One buffer: live over steps [first, last] inclusive. */
typedef struct plan_item {
    size_t size;
    int first, last;
    size_t offset;            /* out: multiple of PLAN_ALIGN */
} plan_item;

/* Assigns offsets so that items whose step ranges overlap never share a byte
 * (greedy: largest first, each into the tightest gap among the items it
 * overlaps). Returns the arena size (a multiple of PLAN_ALIGN), or
 * (size_t)-1 when out of memory. */
size_t plan_assign(plan_item *items, int n);

/* Plans g (topologically sorted, all arena tensors of known size): sets
 * mem_offset of every tensor that lives in the arena (computed, not a graph
 * output) and -1 for the rest. The output of a view op (Reshape, Flatten,
 * Squeeze, Unsqueeze, Identity) shares its input's storage; scratch_bytes[i] (may be NULL) is node i's
 * scratch, its offset goes to scratch_off[i]. *arena gets the size.
 * A Concat whose inputs are contiguous slices of its output
 * (plan_concat_slices) has those inputs placed inside its output's buffer, so
 * their producers write them in place and the Concat kernel skips them
 * (concat in place; OPENACL_NO_CONCAT_INPLACE=1 turns it off). An input is
 * placed when it lives in the arena, is read once by that Concat, is in no
 * other Concat's output already, starts on a PLAN_ALIGN boundary and is not
 * itself a view or in-place output of another buffer. */
int plan_graph(g_graph *g, const size_t *scratch_bytes, size_t *scratch_off, size_t *arena);
/* The same, where inplace[i] (may be NULL) is the input of node i whose
 * storage its output 0 may take over (k_op.inplace), -1 for none: granted
 * when that input's buffer (with every view of it) is read by nothing after
 * node i and has output 0's byte size and dtype. */
int plan_graph_inplace(g_graph *g, const size_t *scratch_bytes, const int *inplace, size_t *scratch_off,
                       size_t *arena);

/* The Concat inputs of node n that are contiguous slices of its output in
 * the tensors' storage layout (every dim stored before the concat axis is
 * 1: plain N=1 channel concat, axis 0, channels-last with H*W = 1, ...;
 * same dtype and layout, static shapes): off[k] (n->n_in entries) gets
 * input k's byte offset in the output, (size_t)-1 for the others. Returns
 * how many are slices (0 for any other node). */
int plan_concat_slices(const g_graph *g, const g_node *n, size_t *off);
/* Whether concat in place is on (OPENACL_NO_CONCAT_INPLACE unset or 0). */
int plan_concat_inplace_on(void);

/* Checks a plan made elsewhere (a compiled model's): mem_offset[t] for every
 * tensor (-1 outside the arena) and scratch_off[i] for node i's
 * scratch_bytes[i]. Returns 1 when every arena buffer lies aligned inside
 * [0, arena) and no two buffers live at the same step share a byte (a view's
 * output, or an output granted its input's storage (inplace, may be NULL),
 * may share that storage exactly, and a Concat input lie at its slice of
 * the output's buffer, as plan_graph_inplace places them);
 * 0 otherwise, and also when out of memory or when checking would take far
 * longer than planning (the caller then plans again). */
int plan_graph_check(const g_graph *g, const int64_t *mem_offset, const size_t *scratch_bytes,
                     const size_t *scratch_off, const int *inplace, size_t arena);

/* Sum of the sizes of the arena tensors and scratch (no reuse), for tests
 * and reports. */
size_t plan_graph_naive(const g_graph *g, const size_t *scratch_bytes);

#ifdef __cplusplus
}
#endif
#endif
