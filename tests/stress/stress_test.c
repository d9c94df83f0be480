/* Concurrency stress: T worker threads x S streams each x M models shared by
 * all threads. Every round a worker enqueues, on each of its streams, two
 * executions (H2D copy of a fresh input, aclmdlExecuteAsync on a model
 * picked round-robin, D2H copy, host callback that checks the output against
 * the C reference), plus one synchronous aclmdlExecute checked inline; then
 * synchronizes its streams and checks that every callback ran. Each worker
 * has its own report thread subscribed to its streams.
 * A churn thread loads and unloads a fourth model over and over while the
 * workers execute it synchronously: each such execution must either succeed
 * with the right output or be refused with ACL_ERROR_INVALID_MODEL_ID.
 * Meanwhile the main thread samples the resident set and the device memory
 * in use; after warm-up neither may grow (a leak per execution shows as a
 * steady climb).
 *
 * usage: stress_test [--threads T] [--streams S] [--models M] [--rounds R]
 *                    [--max-rss-growth-mb X]
 * Executions = T * R * (2 S + 1). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "small_net.h"

#define MAX_T 64
#define MAX_S 16
#define MAX_M 8
#define SLOTS 2

static int g_threads = 8, g_streams = 4, g_models = 3, g_rounds = 200;
static double g_max_growth_mb = 16;
static aclrtContext g_ctx;
static uint32_t g_model_id[MAX_M];
static sn_weights g_wt[MAX_M];
static atomic_long g_execs, g_checked, g_bad, g_cb_ran, g_errors;
static atomic_int g_done_workers;
/* the churn model: loaded and unloaded over and over by churn_main */
static sn_weights g_churn_wt;
static char g_churn_path[4200];
static atomic_uint g_churn_id;          /* 0: not loaded right now */
static atomic_long g_churn_loads, g_churn_ok, g_churn_refused;

typedef struct slot {
    void *in_host, *out_host, *in_dev, *out_dev;
    aclmdlDataset *din, *dout;
    float expect[SN_OUT_ELEMS];
    int model;
    atomic_int pending;
} slot;

typedef struct worker {
    int id;
    pthread_t th, report_th;
    atomic_int stop_report, subscribed;
    aclrtStream streams[MAX_S];
    slot slots[MAX_S][SLOTS];
    unsigned rng;
} worker;

static worker g_w[MAX_T];

static void note_error(const char *what, int rc)
{
    if (atomic_fetch_add(&g_errors, 1) < 20)
        fprintf(stderr, "%s failed (%d): %s\n", what, rc, aclGetRecentErrMsg());
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void fill_input(unsigned *rng, float *x)
{
    for (int i = 0; i < SN_IN_ELEMS; i++) x[i] = (float)((int)(rnd(rng) % 2001) - 1000) / 500.0f;
}

/* Host callback: the D2H copy before it has completed, so the output is in
 * out_host; compare with the reference computed at enqueue time. */
static void check_cb(void *arg)
{
    slot *s = arg;
    atomic_fetch_add(&g_cb_ran, 1);
    if (sn_max_err(s->out_host, s->expect, SN_OUT_ELEMS) > 1e-4f) {
        if (atomic_fetch_add(&g_bad, 1) < 10) fprintf(stderr, "wrong output from model %d\n", s->model);
    }
    atomic_fetch_add(&g_checked, 1);
    atomic_store(&s->pending, 0);
}

static void *report_main(void *arg)
{
    worker *w = arg;
    if (aclrtSetCurrentContext(g_ctx)) note_error("aclrtSetCurrentContext (report thread)", -1);
    while (!atomic_load(&w->subscribed)) usleep(200);   /* the worker subscribes us to its streams */
    while (!atomic_load(&w->stop_report)) {
        int rc = aclrtProcessReport(50);
        if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE) {
            usleep(1000);   /* not subscribed yet, or no longer */
        } else if (rc && rc != ACL_ERROR_RT_REPORT_TIMEOUT) {
            note_error("aclrtProcessReport", rc);
            usleep(1000);
        }
        aclGetRecentErrMsg();
    }
    return NULL;
}

static int slot_init(slot *s)
{
    size_t ib = SN_IN_ELEMS * sizeof(float), ob = SN_OUT_ELEMS * sizeof(float);
    if (aclrtMallocHost(&s->in_host, ib) || aclrtMallocHost(&s->out_host, ob) ||
        aclrtMalloc(&s->in_dev, ib, ACL_MEM_MALLOC_NORMAL_ONLY) || aclrtMalloc(&s->out_dev, ob, ACL_MEM_MALLOC_NORMAL_ONLY))
        return -1;
    s->din = aclmdlCreateDataset();
    s->dout = aclmdlCreateDataset();
    if (!s->din || !s->dout || aclmdlAddDatasetBuffer(s->din, aclCreateDataBuffer(s->in_dev, ib)) ||
        aclmdlAddDatasetBuffer(s->dout, aclCreateDataBuffer(s->out_dev, ob)))
        return -1;
    return 0;
}

static void slot_free(slot *s)
{
    aclmdlDataset *ds[2] = { s->din, s->dout };
    for (int k = 0; k < 2; k++) {
        if (!ds[k]) continue;
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds[k]); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds[k], i));
        aclmdlDestroyDataset(ds[k]);
    }
    aclrtFreeHost(s->in_host);
    aclrtFreeHost(s->out_host);
    aclrtFree(s->in_dev);
    aclrtFree(s->out_dev);
}

static void *churn_main(void *arg)
{
    (void)arg;
    if (aclrtSetCurrentContext(g_ctx)) { note_error("aclrtSetCurrentContext (churn)", -1); return NULL; }
    while (atomic_load(&g_done_workers) < g_threads) {
        uint32_t id = 0;
        int rc = aclmdlLoadFromFile(g_churn_path, &id);
        if (rc) { note_error("aclmdlLoadFromFile (churn)", rc); break; }
        atomic_fetch_add(&g_churn_loads, 1);
        atomic_store(&g_churn_id, id);
        usleep(2000);
        atomic_store(&g_churn_id, 0u);
        if ((rc = aclmdlUnload(id))) note_error("aclmdlUnload (churn)", rc);
    }
    aclGetRecentErrMsg();
    return NULL;
}

/* One synchronous execution of the churn model, racing with its unload. */
static void churn_exec(worker *w, slot *sl)
{
    uint32_t id = atomic_load(&g_churn_id);
    if (!id) return;
    size_t ib = SN_IN_ELEMS * sizeof(float), ob = SN_OUT_ELEMS * sizeof(float);
    float x[SN_IN_ELEMS], y[SN_OUT_ELEMS], e[SN_OUT_ELEMS];
    fill_input(&w->rng, x);
    sn_reference(&g_churn_wt, x, e);
    aclrtMemcpy(sl->in_dev, ib, x, ib, ACL_MEMCPY_HOST_TO_DEVICE);
    int rc = aclmdlExecute(id, sl->din, sl->dout);
    if (rc == ACL_ERROR_INVALID_MODEL_ID) {
        atomic_fetch_add(&g_churn_refused, 1);
    } else if (rc) {
        note_error("aclmdlExecute (churn model)", rc);
    } else {
        aclrtMemcpy(y, ob, sl->out_dev, ob, ACL_MEMCPY_DEVICE_TO_HOST);
        if (sn_max_err(y, e, SN_OUT_ELEMS) > 1e-4f) atomic_fetch_add(&g_bad, 1);
        atomic_fetch_add(&g_churn_ok, 1);
    }
    aclGetRecentErrMsg();
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    int rc;
    if ((rc = aclrtSetCurrentContext(g_ctx))) { note_error("aclrtSetCurrentContext", rc); return NULL; }
    for (int s = 0; s < g_streams; s++) {
        if ((rc = aclrtCreateStream(&w->streams[s]))) { note_error("aclrtCreateStream", rc); return NULL; }
        for (int k = 0; k < SLOTS; k++)
            if (slot_init(&w->slots[s][k])) { note_error("slot set-up", -1); return NULL; }
    }
    atomic_store(&w->stop_report, 0);
    pthread_create(&w->report_th, NULL, report_main, w);
    for (int s = 0; s < g_streams; s++)
        if ((rc = aclrtSubscribeReport((uint64_t)w->report_th, w->streams[s]))) note_error("aclrtSubscribeReport", rc);
    atomic_store(&w->subscribed, 1);

    size_t ib = SN_IN_ELEMS * sizeof(float), ob = SN_OUT_ELEMS * sizeof(float);
    slot sync_slot;
    memset(&sync_slot, 0, sizeof sync_slot);
    if (slot_init(&sync_slot)) { note_error("sync slot", -1); return NULL; }
    for (int r = 0; r < g_rounds; r++) {
        for (int s = 0; s < g_streams; s++) {
            for (int k = 0; k < SLOTS; k++) {
                slot *sl = &w->slots[s][k];
                sl->model = (int)(rnd(&w->rng) % (unsigned)g_models);
                fill_input(&w->rng, sl->in_host);
                sn_reference(&g_wt[sl->model], sl->in_host, sl->expect);
                memset(sl->out_host, 0xff, ob);   /* NaN: a skipped copy cannot pass */
                atomic_store(&sl->pending, 1);
                aclrtStream st = w->streams[s];
                if ((rc = aclrtMemcpyAsync(sl->in_dev, ib, sl->in_host, ib, ACL_MEMCPY_HOST_TO_DEVICE, st)) ||
                    (rc = aclmdlExecuteAsync(g_model_id[sl->model], sl->din, sl->dout, st)) ||
                    (rc = aclrtMemcpyAsync(sl->out_host, ob, sl->out_dev, ob, ACL_MEMCPY_DEVICE_TO_HOST, st)) ||
                    (rc = aclrtLaunchCallback(check_cb, sl, (k & 1) ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK,
                                              st))) {
                    note_error("enqueue", rc);
                    atomic_store(&sl->pending, 0);
                }
                atomic_fetch_add(&g_execs, 1);
            }
        }
        /* one synchronous execution while the streams run */
        int m = (int)(rnd(&w->rng) % (unsigned)g_models);
        float x[SN_IN_ELEMS], y[SN_OUT_ELEMS], e[SN_OUT_ELEMS];
        fill_input(&w->rng, x);
        sn_reference(&g_wt[m], x, e);
        if ((rc = aclrtMemcpy(sync_slot.in_dev, ib, x, ib, ACL_MEMCPY_HOST_TO_DEVICE)) ||
            (rc = aclmdlExecute(g_model_id[m], sync_slot.din, sync_slot.dout)) ||
            (rc = aclrtMemcpy(y, ob, sync_slot.out_dev, ob, ACL_MEMCPY_DEVICE_TO_HOST)))
            note_error("synchronous execution", rc);
        else if (sn_max_err(y, e, SN_OUT_ELEMS) > 1e-4f)
            atomic_fetch_add(&g_bad, 1);
        atomic_fetch_add(&g_execs, 1);
        atomic_fetch_add(&g_checked, 1);
        churn_exec(w, &sync_slot);
        for (int s = 0; s < g_streams; s++)
            if ((rc = aclrtSynchronizeStream(w->streams[s]))) note_error("aclrtSynchronizeStream", rc);
        for (int s = 0; s < g_streams; s++)
            for (int k = 0; k < SLOTS; k++)
                if (atomic_load(&w->slots[s][k].pending)) {
                    if (atomic_fetch_add(&g_bad, 1) < 10) fprintf(stderr, "a callback had not run after sync\n");
                    atomic_store(&w->slots[s][k].pending, 0);
                }
    }
    for (int s = 0; s < g_streams; s++) {
        aclrtUnSubscribeReport((uint64_t)w->report_th, w->streams[s]);
    }
    atomic_store(&w->stop_report, 1);
    atomic_store(&w->subscribed, 1);
    pthread_join(w->report_th, NULL);
    for (int s = 0; s < g_streams; s++) {
        for (int k = 0; k < SLOTS; k++) slot_free(&w->slots[s][k]);
        if ((rc = aclrtDestroyStream(w->streams[s]))) note_error("aclrtDestroyStream", rc);
    }
    slot_free(&sync_slot);
    aclGetRecentErrMsg();
    atomic_fetch_add(&g_done_workers, 1);
    return NULL;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static size_t dev_used(void)
{
    size_t fr = 0, tot = 0;
    aclrtGetMemInfo(ACL_DDR_MEM, &fr, &tot);
    return tot - fr;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads")) g_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--streams")) g_streams = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--models")) g_models = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds")) g_rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-rss-growth-mb")) g_max_growth_mb = atof(argv[i + 1]);
    }
    if (g_threads < 1 || g_threads > MAX_T || g_streams < 1 || g_streams > MAX_S || g_models < 1 ||
        g_models > MAX_M || g_rounds < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);   /* failures are printed by note_error */
    char dir[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/oa_stress_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtGetCurrentContext(&g_ctx)) {
        fprintf(stderr, "init: %s\n", aclGetRecentErrMsg());
        return 2;
    }
    size_t used0 = dev_used();
    for (int m = 0; m < g_models; m++) {
        char name[32], path[4200];
        snprintf(name, sizeof name, "net%d", m);
        sn_weights_init(&g_wt[m], (unsigned)(101 + m));
        snprintf(path, sizeof path, "%s/%s.onnx", dir, name);
        if (sn_write_model(dir, name, &g_wt[m]) || aclmdlLoadFromFile(path, &g_model_id[m])) {
            fprintf(stderr, "model %d: %s\n", m, aclGetRecentErrMsg());
            return 2;
        }
    }
    sn_weights_init(&g_churn_wt, 999);
    snprintf(g_churn_path, sizeof g_churn_path, "%s/churn.onnx", dir);
    if (sn_write_model(dir, "churn", &g_churn_wt)) { fprintf(stderr, "cannot write the churn model\n"); return 2; }
    size_t used_loaded = dev_used();
    long expected = (long)g_threads * g_rounds * (SLOTS * g_streams + 1);
    printf("stress: %d threads x %d streams x %d models, %d rounds: %ld executions\n", g_threads, g_streams,
           g_models, g_rounds, expected);
    fflush(stdout);
    double t0 = now_s();
    for (int t = 0; t < g_threads; t++) {
        g_w[t].id = t;
        g_w[t].rng = (unsigned)(t * 7919 + 1);
        pthread_create(&g_w[t].th, NULL, worker_main, &g_w[t]);
    }
    pthread_t churn;
    pthread_create(&churn, NULL, churn_main, NULL);
    /* sample memory while the workers run */
    enum { MAXS = 4096 };
    static long rss[MAXS], execs_at[MAXS];
    static size_t dev[MAXS];
    int ns = 0;
    while (atomic_load(&g_done_workers) < g_threads) {
        usleep(100 * 1000);
        if (ns < MAXS) {
            rss[ns] = rss_kb();
            dev[ns] = dev_used();
            execs_at[ns] = atomic_load(&g_execs);
            ns++;
        }
    }
    for (int t = 0; t < g_threads; t++) pthread_join(g_w[t].th, NULL);
    pthread_join(churn, NULL);
    double dt = now_s() - t0;
    size_t used_after = dev_used();
    for (int m = 0; m < g_models; m++)
        if (aclmdlUnload(g_model_id[m])) fprintf(stderr, "unload: %s\n", aclGetRecentErrMsg());
    size_t used_end = dev_used();

    int fail = 0;
    long execs = atomic_load(&g_execs), checked = atomic_load(&g_checked), bad = atomic_load(&g_bad);
    printf("%ld executions in %.1f s (%.0f/s), %ld outputs checked, %ld wrong, %ld callbacks, %ld API errors\n",
           execs, dt, execs / (dt > 0 ? dt : 1), checked, bad, atomic_load(&g_cb_ran), atomic_load(&g_errors));
    printf("churn: the fourth model loaded and unloaded %ld times; executions racing with it: %ld ran (checked), "
           "%ld refused as unloaded\n", atomic_load(&g_churn_loads), atomic_load(&g_churn_ok),
           atomic_load(&g_churn_refused));
    if (execs != expected || checked != expected || bad || atomic_load(&g_errors)) fail = 1;
    /* memory: compare the samples after the first quarter of the executions */
    int w0 = 0;
    while (w0 < ns && execs_at[w0] < expected / 4) w0++;
    long rss_lo = 0, rss_hi = 0;
    size_t dev_lo = 0, dev_hi = 0;
    for (int i = w0; i < ns; i++) {
        if (i == w0 || rss[i] < rss_lo) rss_lo = rss[i];
        if (i == w0 || rss[i] > rss_hi) rss_hi = rss[i];
        if (i == w0 || dev[i] < dev_lo) dev_lo = dev[i];
        if (i == w0 || dev[i] > dev_hi) dev_hi = dev[i];
    }
    long first = w0 < ns ? rss[w0] : 0, last = ns ? rss[ns - 1] : 0;
    printf("memory: %d samples, %d after warm-up; RSS %ld -> %ld KiB (min %ld, max %ld); device memory in use "
           "%zu..%zu bytes while running; models %zu bytes, after the run %zu, after unload %zu (before load %zu)\n",
           ns, ns - w0, first, last, rss_lo, rss_hi, dev_lo, dev_hi, used_loaded - used0, used_after, used_end, used0);
    if (ns - w0 >= 2 && (double)(last - first) / 1024.0 > g_max_growth_mb) {
        printf("FAIL: resident set grew by %.1f MiB after warm-up (limit %.1f)\n", (last - first) / 1024.0,
               g_max_growth_mb);
        fail = 1;
    }
    if (used_after != used_loaded || used_end != used0) {
        printf("FAIL: device memory not back to its level (loaded %zu, after run %zu; before load %zu, after unload "
               "%zu)\n", used_loaded, used_after, used0, used_end);
        fail = 1;
    }
    aclrtResetDevice(0);
    aclFinalize();
    {
        char p[4300];
        snprintf(p, sizeof p, "%s/churn.onnx", dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/churn.w.bin", dir);
        unlink(p);
    }
    for (int m = 0; m < g_models; m++) {
        char p[4300];
        snprintf(p, sizeof p, "%s/net%d.onnx", dir, m);
        unlink(p);
        snprintf(p, sizeof p, "%s/net%d.w.bin", dir, m);
        unlink(p);
    }
    rmdir(dir);
    printf("%s\n", fail ? "FAILED" : "passed");
    return fail;
}
