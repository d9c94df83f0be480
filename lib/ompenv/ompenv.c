/* Early OpenMP defaults for libascendcl (docs/config.md, "OpenMP waiting").
 *
 * An OpenMP runtime lets an idle thread spin for a while after a parallel
 * region before it sleeps: libgomp 300000 pause loops (several ms), LLVM's
 * libomp 200 ms. On a machine whose cores are shared with other work a
 * spinning thread takes the core from the thread it waits for, and
 * two-thread runs become ten times slower; too short a spin and every
 * region pays for waking a sleeping thread. This library sets a spin of
 * about half a millisecond (libomp: its 1 ms minimum) unless the user chose
 * a policy, and records what it did.
 *
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own
 * constructor, and libascendcl cannot run code before that: it depends on
 * the runtime, so the runtime is initialised first. This library depends on
 * nothing and is listed after the runtime among libascendcl's dependencies,
 * so the dynamic loader runs its constructor first. libomp reads
 * KMP_BLOCKTIME later, when it is first used. Both variables are set: a
 * runtime ignores the other's.
 *
 * It only sets variables the user left unset. When the runtime was
 * initialised before libascendcl was loaded (a process that used OpenMP
 * earlier) the settings come too late and the runtime keeps what it read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many pause loops a libgomp thread spins before sleeping when the
 * user set nothing. 20000 is about half a millisecond: long enough to span
 * the gap between two parallel regions of an inference even when the
 * threads finish a region unevenly. Measured at 2 threads on 2 vCPUs
 * (BENCHMARKS.md): with 1000 the workers fell asleep between layers, and
 * waking a sleeping vCPU of this VM cost up to 2.5x the latency
 * (EfficientNet-B0 7.2-10.8 ms with 20000 against 8.0-26.8 ms,
 * MobileNetV3-Large 6.1 against 16.8 ms); with 3 busy processes in the same
 * VM both counts are level, with 5 a 1000-loop spin or passive waiting is
 * better (docs/config.md says so) and libgomp's default is worse still. */
#define OMPENV_DEFAULT_SPIN 20000ULL

/* libomp counts its spin (KMP_BLOCKTIME) in whole milliseconds; a pause
 * loop is ~25 ns, so a count becomes ceil(count / 40000) ms (the default:
 * 1 ms, libomp's shortest spin that is not "sleep at once"). */
#define OMPENV_LOOPS_PER_MS 40000ULL

static char g_applied[128];
static int g_adaptive;   /* the default spin was applied: libascendcl may adapt it (src/core/par.c) */

static int set_by_user(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

__attribute__((constructor)) static void ompenv_apply(void)
{
    if (set_by_user("OMP_WAIT_POLICY") || set_by_user("GOMP_SPINCOUNT") || set_by_user("KMP_BLOCKTIME")) {
        const char *pol = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT"),
                   *bt = getenv("KMP_BLOCKTIME");
        snprintf(g_applied, sizeof g_applied, "user: OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s KMP_BLOCKTIME=%s",
                 pol ? pol : "", spin ? spin : "", bt ? bt : "");
        return;
    }
    const char *want = getenv("OPENACL_OMP_SPIN");
    if (!want || !*want) want = "";
    if (!strcmp(want, "runtime") || !strcmp(want, "libgomp")) {
        snprintf(g_applied, sizeof g_applied, "the OpenMP runtime's defaults");
    } else if (!strcmp(want, "passive")) {
        setenv("OMP_WAIT_POLICY", "passive", 0);
        snprintf(g_applied, sizeof g_applied, "OMP_WAIT_POLICY=passive");
    } else {
        char *end = NULL;
        unsigned long long v = strtoull(want, &end, 10);
        g_adaptive = !*want;
        if (!*want || end == want || *end) v = OMPENV_DEFAULT_SPIN;
        unsigned long long ms = (v + OMPENV_LOOPS_PER_MS - 1) / OMPENV_LOOPS_PER_MS;
        char spin[32], bt[32];
        snprintf(spin, sizeof spin, "%llu", v);
        snprintf(bt, sizeof bt, "%llu", ms);
        setenv("GOMP_SPINCOUNT", spin, 0);
        setenv("KMP_BLOCKTIME", bt, 0);
        snprintf(g_applied, sizeof g_applied, "GOMP_SPINCOUNT=%s KMP_BLOCKTIME=%s", spin, bt);
    }
}

/* What the constructor did, for libascendcl's log (also keeps this library
 * a needed dependency under --as-needed). */
const char *openacl_ompenv_applied(void)
{
    return g_applied;
}

/* 1 when the user chose nothing (no OPENACL_OMP_SPIN, no runtime variable):
 * libascendcl may then shorten libomp's spin while the host is
 * oversubscribed (docs/config.md, "OpenMP waiting"). */
int openacl_ompenv_adaptive(void)
{
    return g_adaptive;
}
