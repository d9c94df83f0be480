/* core/par.c: while more threads are runnable than the host has CPUs, the
 * thread about to run a model with 2+ threads gets libomp's sleep-at-once
 * waiting (blocktime 0); when the user chose a waiting policy
 * (OPENACL_OMP_SPIN set) nothing changes. The host is made oversubscribed
 * here by 2 x CPUs busy threads; the blocktime is read back from libomp.
 * expect-blip: one busy sample alone (a task that ran for an instant) does
 * not put the team to sleep; it takes ADAPT_BUSY_SAMPLES in a row.
 * Exit 77 (skipped) when the OpenMP runtime is not libomp.
 * usage: par_adapt_test expect-adapt [SAMPLES]|expect-fixed|expect-blip
 * (expect-adapt: asleep within SAMPLES samples, default 20) */
#include "core/par.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_stop;

static void *spin(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) x++;
    return NULL;
}

int main(int argc, char **argv)
{
    int expect_adapt = argc > 1 && !strcmp(argv[1], "expect-adapt");
    int expect_blip = argc > 1 && !strcmp(argv[1], "expect-blip");
    int (*get_bt)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "kmp_get_blocktime");
    memcpy(&get_bt, &sym, sizeof get_bt);
    if (!get_bt) {
        printf("SKIP: the OpenMP runtime is not libomp\n");
        return 77;
    }
    #pragma omp parallel num_threads(2)
    { (void)0; }
    int before = get_bt();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nb = (int)(2 * ncpu + 2);
    pthread_t th[130];
    if (nb > 130) nb = 130;
    for (int i = 0; i < nb; i++) pthread_create(&th[i], NULL, spin, NULL);
    /* the host's runnable count is sampled; give it a few tries (the blip:
     * exactly one sample, this process's first, while the host is busy) */
    int after = before;
    int tries = expect_blip ? 1 : argc > 2 ? atoi(argv[2]) : 20;
    for (int k = 0; k < tries && after == before; k++) {
        struct timespec ts = { 0, 120000000L };
        nanosleep(&ts, NULL);
        oa_par_adapt(2);
        after = get_bt();
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < nb; i++) pthread_join(th[i], NULL);
    printf("blocktime %d ms -> %d ms with %d busy threads on %ld CPUs (%s)\n", before, after, nb, ncpu,
           expect_adapt ? "adaptive" : expect_blip ? "one busy sample" : "fixed by the user");
    int ok = expect_adapt ? (before > 0 && after == 0) : expect_blip ? (before > 0 && after == before)
                                                                      : after == before;
    printf("%s\n", ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
    return ok ? 0 : 1;
}
