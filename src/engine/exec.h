/* The dynamic executor: runs a bound, sorted graph node by node, inferring
 * shapes and allocating intermediates per run. It serves models whose shapes
 * are not all known at load and the bodies of control-flow ops. */
#ifndef OPENACL_ENGINE_EXEC_H
#define OPENACL_ENGINE_EXEC_H
#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eng_dyn eng_dyn;

/* A run context for g (which must outlive it). Holds per-node plan caches
 * (packed weights and scratch sizes reused while input shapes repeat). */
eng_dyn *eng_dyn_new(g_graph *g);
void eng_dyn_free(eng_dyn *d);                   /* NULL is a no-op */
/* Constant tensor t reads its data from p instead of g->t[t].data. */
void eng_dyn_set_const(eng_dyn *d, int t, const void *p);

/* Runs the graph once. vals has g->n_t entries; the caller fills those of
 * the graph's inputs and captures (dtype, shape, data, nbytes). On return
 * (success or not) owned[t] != 0 marks the graph-output buffers this call
 * allocated, which the caller frees with free(); the graph outputs' values
 * are in vals[g->outputs[i]] (possibly aliasing an input or a constant).
 * Intermediates live in a pool owned by d, kept between runs. */
int eng_dyn_run(eng_dyn *d, k_tensor *vals, unsigned char *owned, int threads);
/* eng_dyn_run of a model's top-level graph with its operator dump (NULL:
 * none; engine/eng_dump.h): one step folder per run. */
struct eng_dump;
int eng_dyn_run_dump(eng_dyn *d, struct eng_dump *dump, k_tensor *vals, unsigned char *owned, int threads);

/* Frees every owned buffer in vals and clears owned. */
void eng_vals_release(int n, k_tensor *vals, unsigned char *owned);

/* 64-byte aligned allocation (at least 64 bytes), released with free(). */
void *eng_alloc64(size_t n);

#ifdef __cplusplus
}
#endif
#endif
