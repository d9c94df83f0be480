/* Adaptive OpenMP waiting (par.h, oa_par_adapt): libomp's workers spin
 * KMP_BLOCKTIME ms between parallel regions, which keeps a multi-thread
 * inference fast on free cores. On an oversubscribed host (more runnable
 * threads than CPUs) a spinning worker costs its partner the CPU and the
 * scheduler's favour, and each region's barrier waits for a descheduled
 * thread: MobileNetV3-Small at 2 threads beside other busy processes ran
 * 6.6 ms per inference with the 1 ms spin against 1.7 ms sleeping at once
 * (ORT 1.9 ms). So while the host is oversubscribed the calling thread's
 * team sleeps at once (kmp_set_blocktime(0)), and gets its spin back once
 * the host has been free for a second. Oversubscribed means so in
 * ADAPT_BUSY_SAMPLES samples in a row (300 ms): a 2-thread team on 2 CPUs
 * counts as busy whenever any other task is running at the instant it looks,
 * and one such sample put the team to sleep for at least a second, where
 * each region pays a wake-up (MNASNet-0.5 at 2 threads, best run of
 * separate processes on the busy host: 1.89 ms asleep, 1.30 ms spinning).
 * Only when the user chose no waiting policy (lib/ompenv applied its
 * default) and the runtime is libomp. */
#define _GNU_SOURCE   /* dladdr, CPU_* */
#include "core/par.h"
#include <dlfcn.h>
#include <sched.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ADAPT_PERIOD_NS 100000000LL   /* look at the host every 100 ms */
#define ADAPT_CALM_NS 1000000000LL    /* free this long before spinning again */
#define ADAPT_BUSY_SAMPLES 3            /* busy this many samples in a row before sleeping */

typedef void (*set_bt_fn)(int);
static set_bt_fn g_set_bt;
static int g_default_bt = -1;   /* -1: not adaptive */
static long g_ncpu;
static int g_busy_samples = ADAPT_BUSY_SAMPLES;

/* Thread binding with two OpenMP runtimes in the process.
 *
 * libascendcl runs on LLVM's libomp, which also serves oneDNN's GNU-ABI
 * parallel regions; Debian's oneDNN still brings libgomp in, unused. When
 * OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is set, libgomp's
 * constructor binds the thread that loads it to its first place (one CPU),
 * and libomp, initialised later from that thread, takes its affinity for
 * the machine: every thread of its team lands on that one CPU (2 threads
 * on 2 CPUs: EfficientNet-B0 int8 4.8 ms instead of 2.3). libascendcl's
 * constructor runs after libgomp's (it depends on it through oneDNN) and
 * before libomp's first use, so it gives this thread back the CPUs of all
 * of libgomp's places, the mask libgomp started from; libomp then binds
 * its own team to distinct places. Nothing is done where the GNU entry
 * points resolve to libgomp (OPENACL_OPENMP=gnu, or an application that
 * links libgomp itself: its binding is the user's), nor with
 * OPENACL_OMP_BIND_GUARD=0. */
static int gnu_abi_is_libomp(void)
{
    Dl_info info;
    void *f = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    if (!f || !dladdr(f, &info) || !info.dli_fname) return 0;
    const char *base = strrchr(info.dli_fname, '/');
    return !strncmp(base ? base + 1 : info.dli_fname, "libomp", 6);
}

/* The CPUs of all of the (loaded) libgomp's places into set; 0 if none. */
static int gomp_places_cpus(void *gomp, cpu_set_t *set)
{
    int (*nplaces)(void) = NULL, (*nprocs)(int) = NULL;
    void (*ids)(int, int *) = NULL;
    void *a = dlsym(gomp, "omp_get_num_places"), *b = dlsym(gomp, "omp_get_place_num_procs"),
         *c = dlsym(gomp, "omp_get_place_proc_ids");
    memcpy(&nplaces, &a, sizeof a);
    memcpy(&nprocs, &b, sizeof b);
    memcpy(&ids, &c, sizeof c);
    if (!nplaces || !nprocs || !ids) return 0;
    CPU_ZERO(set);
    int buf[CPU_SETSIZE];
    for (int p = 0; p < nplaces(); p++) {
        int n = nprocs(p);
        if (n <= 0 || n > CPU_SETSIZE) continue;
        ids(p, buf);
        for (int i = 0; i < n; i++)
            if (buf[i] >= 0 && buf[i] < CPU_SETSIZE) CPU_SET(buf[i], set);
    }
    return CPU_COUNT(set);
}

__attribute__((constructor)) static void par_unpin_initial(void)
{
    const char *off = getenv("OPENACL_OMP_BIND_GUARD");
    if ((off && !strcmp(off, "0")) ||
        (!getenv("OMP_PROC_BIND") && !getenv("OMP_PLACES") && !getenv("GOMP_CPU_AFFINITY")))
        return;
    void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!gomp) return;
    cpu_set_t all, cur, both;
    if (gnu_abi_is_libomp() && gomp_places_cpus(gomp, &all) && !sched_getaffinity(0, sizeof cur, &cur)) {
        CPU_AND(&both, &cur, &all);
        /* pinned to a part of the places' CPUs: widen back to all of them */
        if (CPU_EQUAL(&both, &cur) && CPU_COUNT(&all) > CPU_COUNT(&cur)) sched_setaffinity(0, sizeof all, &all);
    }
    dlclose(gomp);
}

static void adapt_init(void)
{
    int (*adaptive)(void) = NULL;
    void *a = dlsym(RTLD_DEFAULT, "openacl_ompenv_adaptive");
    void *b = dlsym(RTLD_DEFAULT, "kmp_set_blocktime");
    memcpy(&adaptive, &a, sizeof adaptive);   /* object to function pointer, as dn_common.c */
    memcpy(&g_set_bt, &b, sizeof g_set_bt);
    const char *bt = getenv("KMP_BLOCKTIME");
    const char *off = getenv("OPENACL_OMP_ADAPT");
    g_ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (adaptive && adaptive() && g_set_bt && bt && *bt && g_ncpu > 0 && !(off && !strcmp(off, "0")))
        g_default_bt = atoi(bt);
    /* OPENACL_OMP_ADAPT_SAMPLES=1: sleep from the first busy sample (the
     * earlier rule) */
    const char *ns = getenv("OPENACL_OMP_ADAPT_SAMPLES");
    if (ns && *ns) {
        char *end = NULL;
        long v = strtol(ns, &end, 10);
        if (end != ns && !*end && v >= 1 && v <= 100) g_busy_samples = (int)v;
    }
}

/* Runnable threads on the host now (/proc/loadavg's fourth field, r/t), -1
 * when unknown. */
static long host_runnable(void)
{
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *p = buf;
    for (int f = 0; f < 3 && p; f++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    return p ? strtol(p, NULL, 10) : -1;
}

void oa_par_adapt(int threads)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    static _Thread_local long long next_ns, calm_since;
    static _Thread_local int passive, busy_run;
    if (threads < 2) return;
    pthread_once(&once, adapt_init);
    if (g_default_bt < 0) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (now < next_ns) return;
    next_ns = now + ADAPT_PERIOD_NS;
    long r = host_runnable();
    if (r < 0) return;
    /* sleeping workers are not runnable: count them as if they spun, so
     * the decision does not flip with the policy it made */
    int busy = r + (passive ? threads - 1 : 0) > g_ncpu;
    busy_run = busy ? busy_run + 1 : 0;
    if (busy) calm_since = now;
    if (busy_run >= g_busy_samples && !passive) {
        g_set_bt(0);
        passive = 1;
    } else if (!busy && passive && now - calm_since >= ADAPT_CALM_NS) {
        g_set_bt(g_default_bt);
        passive = 0;
    }
}
