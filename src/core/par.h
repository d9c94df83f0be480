/* Parallel regions that cost nothing on one thread.
 *
 * libgomp enters a `#pragma omp parallel` even when its if clause is false
 * or it asks for one thread: it sets up a team of one and, once a pool of
 * threads exists, wakes the team's barrier with a futex system call at the
 * end. On the benchmark VM that is ~1.4 us per region, where the whole run
 * of a tiny model (three small Gemms) takes ~2 us. These macros run the
 * statement inline when nt < 2, so a single-thread node never calls into
 * OpenMP; inside, omp_get_thread_num() / omp_get_num_threads() read 0 and
 * 1 there, as in a team of one.
 *
 *   OA_PAR_REGION(nt, { ...statements... });          parallel region
 *   OA_PAR_FOR(nt, for (int64_t i = 0; i < n; i++) {...});   static for
 *
 * (The statement is expanded twice; keep the macros to one call site per
 * loop.) */
#ifndef OPENACL_CORE_PAR_H
#define OPENACL_CORE_PAR_H
#include <omp.h>

/* one shape for both: the statement under PRAGMA for nt > 1, inline else */
#define OA_PAR_(nt, PRAGMA, ...)           \
    do {                                   \
        int oa_par_nt_ = (nt);             \
        if (oa_par_nt_ > 1) {              \
            _Pragma(PRAGMA)                \
            __VA_ARGS__                    \
        } else {                           \
            __VA_ARGS__                    \
        }                                  \
    } while (0)

#define OA_PAR_REGION(nt, ...) OA_PAR_(nt, "omp parallel num_threads(oa_par_nt_)", __VA_ARGS__)
#define OA_PAR_FOR(nt, ...) \
    OA_PAR_(nt, "omp parallel for num_threads(oa_par_nt_) schedule(static)", __VA_ARGS__)

/* Called by the thread about to run a model with `threads` threads: while
 * the host is oversubscribed its OpenMP team sleeps at once between regions
 * instead of spinning (par.c; docs/config.md "OpenMP waiting"). Cheap: it
 * reads the clock, and the host's load every 100 ms. */
void oa_par_adapt(int threads);
#endif
