/* Early OpenMP defaults for libascendcl (docs/config.md, "OpenMP waiting").
 *
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own
 * constructor. By default its idle threads spin for about 3 ms before they
 * sleep; on a machine whose cores are shared with other work a spinning
 * thread takes the core from the thread it waits for, and two-thread runs
 * become ten times slower. libascendcl itself cannot change this: it depends
 * on libgomp, so libgomp is initialised first. This library depends on
 * nothing and is listed after libgomp among libascendcl's dependencies, so
 * the dynamic loader runs its constructor before libgomp's; it sets a short
 * spin (unless the user chose a policy) and records what it did.
 *
 * It only sets variables the user left unset. When libgomp was initialised
 * before libascendcl was loaded (a process that used OpenMP earlier) the
 * settings come too late and libgomp keeps what it read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many pause loops a libgomp thread spins before sleeping when the
 * user set nothing (libgomp's own default is 300000, several ms). 20000 is
 * about half a millisecond: long enough to span the gap between two
 * parallel regions of an inference even when the threads finish a region
 * unevenly. Measured at 2 threads on 2 vCPUs (BENCHMARKS.md): with 1000 the
 * workers fell asleep between layers, and waking a sleeping vCPU of this VM
 * cost up to 2.5x the latency (EfficientNet-B0 7.2-10.8 ms with 20000
 * against 8.0-26.8 ms, MobileNetV3-Large 6.1 against 16.8 ms); with 3 busy
 * processes in the same VM both counts are level, with 5 a 1000-loop spin
 * or passive waiting is better (docs/config.md says so) and libgomp's
 * default is worse still. */
#define OMPENV_DEFAULT_SPIN "20000"

static char g_applied[96];

__attribute__((constructor)) static void ompenv_apply(void)
{
    const char *pol = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    if ((pol && *pol) || (spin && *spin)) {
        snprintf(g_applied, sizeof g_applied, "user: OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s",
                 pol ? pol : "", spin ? spin : "");
        return;
    }
    const char *want = getenv("OPENACL_OMP_SPIN");
    if (!want || !*want) want = OMPENV_DEFAULT_SPIN;
    if (!strcmp(want, "libgomp")) {
        snprintf(g_applied, sizeof g_applied, "libgomp defaults");
    } else if (!strcmp(want, "passive")) {
        setenv("OMP_WAIT_POLICY", "passive", 0);
        snprintf(g_applied, sizeof g_applied, "OMP_WAIT_POLICY=passive");
    } else {
        char *end = NULL;
        unsigned long long v = strtoull(want, &end, 10);
        if (end == want || *end) v = strtoull(OMPENV_DEFAULT_SPIN, NULL, 10);
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", v);
        setenv("GOMP_SPINCOUNT", buf, 0);
        snprintf(g_applied, sizeof g_applied, "GOMP_SPINCOUNT=%s", buf);
    }
}

/* What the constructor did, for libascendcl's log (also keeps this library
 * a needed dependency under --as-needed). */
const char *openacl_ompenv_applied(void)
{
    return g_applied;
}
