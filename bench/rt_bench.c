/* Runtime micro-benchmark (not a test): the cost of putting work on a
 * stream and of getting results back.
 *   enqueue memcpy   median per-call cost of a 64-byte aclrtMemcpyAsync
 *                    (pinned host -> device), in batches of 1000
 *   enqueue callback same for aclrtLaunchCallback (NO_BLOCK)
 *   callback latency launch -> callback running on the report thread, on
 *                    an idle stream; "hot" right after the previous one,
 *                    "cold" after 2 ms of idleness (threads asleep)
 *   idle sync        aclrtSynchronizeStream on a stream with nothing queued
 * usage: rt_bench [--md] [--reps N]   (--md prints markdown table rows) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double pct(double *v, int n, double p) /* v sorted */
{
    int i = (int)(p * (n - 1));
    return v[i];
}

#define CHECKED(call)                                                                            \
    do {                                                                                         \
        aclError rc_ = (call);                                                                   \
        if (rc_ != ACL_SUCCESS) {                                                                \
            fprintf(stderr, "%s failed: %d %s\n", #call, rc_, aclGetRecentErrMsg());             \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static atomic_int g_stop, g_go;
static aclrtContext g_ctx;
static void *reporter(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(g_ctx);
    while (!atomic_load(&g_go)) sched_yield(); /* until the main thread subscribed us */
    while (!atomic_load(&g_stop)) aclrtProcessReport(50);
    return NULL;
}

static atomic_int g_cb_done;
static double g_cb_t;
static void cb_stamp(void *ud)
{
    (void)ud;
    g_cb_t = now_us();
    atomic_store_explicit(&g_cb_done, 1, memory_order_release);
}
static void cb_nop(void *ud) { (void)ud; }

static void row(int md, const char *what, double med, double p90, const char *target)
{
    if (md)
        printf("| %s | %.2f us | %.2f us | %s |\n", what, med, p90, target);
    else
        printf("%-28s median %8.2f us   p90 %8.2f us   (target %s)\n", what, med, p90, target);
}

int main(int argc, char **argv)
{
    int md = 0, reps = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--md")) md = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    }
    if (reps < 10) reps = 10;
    CHECKED(aclInit(NULL));
    CHECKED(aclrtSetDevice(0));
    CHECKED(aclrtGetCurrentContext(&g_ctx));
    aclrtStream s;
    CHECKED(aclrtCreateStream(&s));
    void *h, *d;
    CHECKED(aclrtMallocHost(&h, 64 * 1024));
    CHECKED(aclrtMalloc(&d, 64 * 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    pthread_t rep;
    pthread_create(&rep, NULL, reporter, NULL);
    CHECKED(aclrtSubscribeReport((uint64_t)rep, s));
    atomic_store(&g_go, 1);

    const int batch = 1000;
    double *v = malloc(sizeof(double) * (size_t)(reps > 2000 ? reps : 2000) * 10);

    /* enqueue cost: memcpy */
    for (int r = 0; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < batch; i++)
            CHECKED(aclrtMemcpyAsync((char *)d + (size_t)(i % 1000) * 64, 64, (char *)h + (size_t)(i % 1000) * 64,
                                     64, ACL_MEMCPY_HOST_TO_DEVICE, s));
        v[r] = (now_us() - t0) / batch;
        CHECKED(aclrtSynchronizeStream(s));
    }
    double m = median(v, reps);
    row(md, "enqueue aclrtMemcpyAsync 64 B", m, pct(v, reps, 0.9), "<= 1 us");

    /* enqueue cost: callback */
    for (int r = 0; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < batch; i++) CHECKED(aclrtLaunchCallback(cb_nop, NULL, ACL_CALLBACK_NO_BLOCK, s));
        v[r] = (now_us() - t0) / batch;
        CHECKED(aclrtSynchronizeStream(s));
    }
    m = median(v, reps);
    row(md, "enqueue aclrtLaunchCallback", m, pct(v, reps, 0.9), "<= 1 us");

    /* delivery latency, hot and cold */
    int nlat = reps * 10;
    for (int cold = 0; cold < 2; cold++) {
        int n = cold ? reps : nlat;
        for (int r = 0; r < n; r++) {
            if (cold) {
                struct timespec ts = {0, 2000000};
                nanosleep(&ts, NULL);
            }
            atomic_store(&g_cb_done, 0);
            double t0 = now_us();
            CHECKED(aclrtLaunchCallback(cb_stamp, NULL, ACL_CALLBACK_NO_BLOCK, s));
            while (!atomic_load_explicit(&g_cb_done, memory_order_acquire)) {
            }
            v[r] = g_cb_t - t0;
            CHECKED(aclrtSynchronizeStream(s));
        }
        m = median(v, n);
        row(md, cold ? "callback delivery (cold)" : "callback delivery (hot)", m, pct(v, n, 0.9), "<= 20 us");
    }

    /* idle synchronize */
    for (int r = 0; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < batch; i++) CHECKED(aclrtSynchronizeStream(s));
        v[r] = (now_us() - t0) / batch;
    }
    m = median(v, reps);
    row(md, "aclrtSynchronizeStream idle", m, pct(v, reps, 0.9), "<= 2 us");

    CHECKED(aclrtUnSubscribeReport((uint64_t)rep, s));
    atomic_store(&g_stop, 1);
    pthread_join(rep, NULL);
    CHECKED(aclrtDestroyStream(s));
    CHECKED(aclrtFree(d));
    CHECKED(aclrtFreeHost(h));
    CHECKED(aclFinalize());
    free(v);
    return 0;
}
