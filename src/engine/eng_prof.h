/* Per-node profile of model runs: OPENACL_PROFILE=<file> makes the engine
 * time every kernel call and write a Chrome trace (chrome://tracing,
 * Perfetto) to <file> when the process exits. Off, it costs one load and
 * branch per run. Profiling takes a lock per node and is meant for
 * measurement sessions, not production. */
#ifndef OPENACL_ENG_PROF_H
#define OPENACL_ENG_PROF_H
#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero while a profile is being recorded (after eng_prof_init saw the
 * variable). Read without a lock: set once before any model runs. */
extern int eng_prof_on;

/* Reads OPENACL_PROFILE once per process (engine load calls it). */
void eng_prof_init(void);

/* Monotonic time in microseconds. */
double eng_prof_now(void);

/* One kernel call of node n (graph g) from t0 to t1 (eng_prof_now units);
 * out0 is its first output (shape recorded), may be NULL. */
void eng_prof_node(const g_graph *g, const g_node *n, const k_tensor *out0, double t0, double t1);

/* A whole model run (static or dynamic) from t0 to t1. */
void eng_prof_run(const g_graph *g, int dynamic, double t0, double t1);

/* Writes the trace now (also done at exit); returns 0 on success. */
int eng_prof_flush(void);

#ifdef __cplusplus
}
#endif
#endif
