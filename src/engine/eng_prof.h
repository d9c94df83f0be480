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

/* Monotonic time in microseconds (the process's CPU time under
 * OPENACL_PROFILE_CLOCK=cpu). */
double eng_prof_now(void);

/* One kernel call of node n (graph g) from t0 to t1 (eng_prof_now units);
 * out0 is its first output (shape recorded), may be NULL. */
void eng_prof_node(const g_graph *g, const g_node *n, const k_tensor *out0, double t0, double t1);

/* A whole model run (static or dynamic) from t0 to t1. */
void eng_prof_run(const g_graph *g, int dynamic, double t0, double t1);

/* Writes the trace now (also done at exit) and, beside it, the op summary
 * (eng_prof_start); returns 0 on success. */
int eng_prof_flush(void);

/* Profile sessions besides OPENACL_PROFILE: the `profiler` section of the
 * aclInit JSON and the aclprof API. start records from now on into
 * dir/op_trace.json (the Chrome trace) and dir/op_summary.csv (per node:
 * calls, total / mean / max / min time and share of all node time, like
 * msprof's op summary), written by stop. One session at a time:
 * ACL_ERROR_PROF_ALREADY_RUN when another is recording (OPENACL_PROFILE's
 * included). stop by an owner that has no session is a no-op returning 0. */
enum { ENG_PROF_BY_ENV = 0, ENG_PROF_BY_CONFIG = 1, ENG_PROF_BY_API = 2 };
int eng_prof_start(const char *dir, int owner);
int eng_prof_stop(int owner);

#ifdef __cplusplus
}
#endif
#endif
