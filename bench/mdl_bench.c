/* mdl_bench: latency of one model through openacl's public API, the way an
 * application sees it (aclmdlExecute on device buffers prepared once):
 *   mdl_bench --model M [--inputs a.npy,...] [--warmup 5] [--min-time 3] [--min-runs 10]
 *             [--parallel N] [--empty] [--ab "NAME=VALUE ..." --ab ... [--block N] [--ab-clock cpu]]
 * Prints one JSON object: load time, first run, per-run latency statistics,
 * the CPU time per wall time of the timed loop (a check that the thread
 * setting, OPENACL_THREADS, is honoured) and memory: the resident set after
 * aclInit/aclrtSetDevice and before the load (baseline_rss_kb) and the peak
 * resident set of the process (peak_rss_kb).
 *   --parallel N: throughput mode. N threads, thread i on device i % count
 *     (OPENACL_DEVICE_COUNT; give each device its thread budget with
 *     OPENACL_THREADS), each with its own load of the model, run for
 *     --min-time; reports runs per second in total and per thread.
 *   --empty: only init and set the device; reports the baseline memory.
 *   --ab "NAME=VALUE ..." (given 2..4 times; "-" for none): A/B within one
 *     process. One copy of the model is loaded per variant with those
 *     environment variables set during its load (the passes read them
 *     there), then the copies run in turns, --block runs each, until every
 *     copy has --min-runs runs and --min-time has passed. Slow drifts of a
 *     shared machine (frequency, neighbours, steal) then hit every variant
 *     alike, which separate processes minutes apart do not; reports each
 *     variant's median and its ratio to the first.
 *   --ab-clock cpu: the A/B latencies as the process's CPU time per run
 *     instead of wall time: on a host shared with other work, the time a
 *     run waits for a core no longer counts (at 1 thread that leaves the
 *     run's own work; at more, OpenMP's spin waits count too).
 * Without --inputs, inputs are filled with fixed pseudo-random values
 * (static shapes only). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "acl/acl.h"
#include "npy.h"

#define MAX_IO 64
#define MAX_PAR 16

/* Weak references: the program links and exits 77 ("not implemented yet")
 * while the library still lacks an entry point. */
#define BENCH_API(X)                                                                           \
    X(aclInit) X(aclFinalize) X(aclGetRecentErrMsg) X(aclrtSetDevice) X(aclrtResetDevice)      \
    X(aclrtMalloc) X(aclrtFree) X(aclrtMemcpy) X(aclCreateDataBuffer) X(aclDestroyDataBuffer)  \
    X(aclCreateTensorDesc) X(aclDestroyTensorDesc) X(aclmdlLoadFromFile) X(aclmdlUnload)       \
    X(aclmdlCreateDesc) X(aclmdlDestroyDesc) X(aclmdlGetDesc) X(aclmdlGetNumInputs)            \
    X(aclmdlGetNumOutputs) X(aclmdlGetInputDataType) X(aclmdlGetInputDims)                     \
    X(aclmdlGetInputSizeByIndex) X(aclmdlGetOutputSizeByIndex) X(aclmdlCreateDataset)          \
    X(aclmdlDestroyDataset) X(aclmdlAddDatasetBuffer) X(aclmdlGetDatasetBuffer)                \
    X(aclmdlGetDatasetNumBuffers) X(aclmdlSetDatasetTensorDesc) X(aclmdlExecute) X(aclGetDataBufferAddr) \
    X(aclrtGetDeviceCount)
#define BENCH_PRAGMA(x) _Pragma(#x)
#define BENCH_WEAK(f) BENCH_PRAGMA(weak f)
BENCH_API(BENCH_WEAK)

static const char *first_missing(void)
{
#define BENCH_MISSING(f) if (!f) return #f;
    BENCH_API(BENCH_MISSING)
#undef BENCH_MISSING
    return NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of the whole process (every thread), for --ab-clock cpu. */
static double proc_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Set by --ab-clock cpu: run_ab times runs by proc_cpu_ms. */
static int g_ab_cpu;

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* A field of /proc/self/status in kB (VmRSS, VmHWM), -1 when unreadable. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = strtol(line + kl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static int acl_check(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return 0;
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "mdl_bench: %s failed: error %d\n  %s\n", what, rc, msg ? msg : "(no message)");
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v and returns its median (0 for none). */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Latencies of the timed runs, in a fixed buffer made before the baseline
 * RSS is read, so that peak_rss_kb is the library's and not this program's
 * (a tiny model runs millions of times in a few seconds). When the buffer
 * is full every other sample is dropped and from then on only every
 * stride-th run is kept: a systematic sample, whose median and p90 stay
 * unbiased; count, mean, min and max are kept over all runs. */
#define LAT_CAP ((size_t)1 << 17)
typedef struct {
    double *v;
    size_t n, stride, seen;
    double sum, min, max;
} lat_store;

static int lat_init(lat_store *l)
{
    memset(l, 0, sizeof *l);
    l->v = malloc(LAT_CAP * sizeof(double));
    if (!l->v) return -1;
    memset(l->v, 0, LAT_CAP * sizeof(double));   /* resident before the baseline */
    l->stride = 1;
    return 0;
}

static void lat_add(lat_store *l, double ms)
{
    if (l->seen == 0 || ms < l->min) l->min = ms;
    if (l->seen == 0 || ms > l->max) l->max = ms;
    l->sum += ms;
    if (l->seen++ % l->stride) return;
    if (l->n == LAT_CAP) {
        for (size_t i = 0; i < LAT_CAP / 2; i++) l->v[i] = l->v[2 * i];
        l->n = LAT_CAP / 2;
        l->stride *= 2;
        if ((l->seen - 1) % l->stride) return;
    }
    l->v[l->n++] = ms;
}

/* Deterministic filler for inputs given without data: small floats, ids 1. */
static void fill(void *p, size_t bytes, aclDataType dt)
{
    uint32_t s = 12345;
    if (dt == ACL_FLOAT) {
        float *f = p;
        for (size_t i = 0; i < bytes / 4; i++) {
            s = s * 1664525u + 1013904223u;
            f[i] = (float)(s >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        }
    } else if (dt == ACL_INT64) {
        int64_t *v = p;
        for (size_t i = 0; i < bytes / 8; i++)
            v[i] = 1;
    } else {
        memset(p, dt == ACL_FLOAT16 ? 0 : 1, bytes);
    }
}

/* One loaded model with its device buffers and datasets. */
typedef struct inst {
    int device, loaded;
    uint32_t id;
    aclmdlDesc *desc;
    aclmdlDataset *in, *out;
    void *mem[2 * MAX_IO];
    int nmem;
    unsigned char out_dyn[MAX_IO];
    double load_ms;
} inst;

static void inst_free(inst *b)
{
    for (size_t i = 0; b->in && i < aclmdlGetDatasetNumBuffers(b->in); i++)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(b->in, i));
    for (size_t i = 0; b->out && i < aclmdlGetDatasetNumBuffers(b->out); i++) {
        aclDataBuffer *d = aclmdlGetDatasetBuffer(b->out, i);
        if (i < MAX_IO && b->out_dyn[i] && aclGetDataBufferAddr(d))
            aclrtFree(aclGetDataBufferAddr(d));   /* runtime-allocated output */
        aclDestroyDataBuffer(d);
    }
    if (b->in)
        aclmdlDestroyDataset(b->in);
    if (b->out)
        aclmdlDestroyDataset(b->out);
    for (int i = 0; i < b->nmem; i++)
        aclrtFree(b->mem[i]);
    if (b->desc)
        aclmdlDestroyDesc(b->desc);
    if (b->loaded)
        aclmdlUnload(b->id);
    memset(b, 0, sizeof *b);
}

/* Loads the model on the calling thread's current device and prepares its
 * inputs (from files when given) and outputs. */
static int inst_setup(inst *b, const char *model, char **files, int nfiles)
{
    char err[512];
    double t0 = now_ms();
    if (acl_check(aclmdlLoadFromFile(model, &b->id), "aclmdlLoadFromFile"))
        return -1;
    b->load_ms = now_ms() - t0;
    b->loaded = 1;
    b->desc = aclmdlCreateDesc();
    if (!b->desc || acl_check(aclmdlGetDesc(b->desc, b->id), "aclmdlGetDesc"))
        return -1;
    size_t n_in = aclmdlGetNumInputs(b->desc), n_out = aclmdlGetNumOutputs(b->desc);
    if (n_in > MAX_IO || n_out > MAX_IO || (nfiles && (size_t)nfiles != n_in)) {
        fprintf(stderr, "mdl_bench: model has %zu inputs / %zu outputs, %d files given\n", n_in, n_out, nfiles);
        return -1;
    }
    b->in = aclmdlCreateDataset();
    b->out = aclmdlCreateDataset();
    for (size_t i = 0; i < n_in; i++) {
        npy_array a;
        memset(&a, 0, sizeof(a));
        size_t size = aclmdlGetInputSizeByIndex(b->desc, i);
        aclDataType dt = aclmdlGetInputDataType(b->desc, i);
        if (nfiles) {
            if (npy_read(files[i], &a, err, sizeof(err))) {
                fprintf(stderr, "mdl_bench: %s\n", err);
                return -1;
            }
            size = a.nbytes;
        } else if (size == 0) {
            fprintf(stderr, "mdl_bench: input %zu has a dynamic shape: give --inputs\n", i);
            return -1;
        }
        void *p = NULL;
        if (acl_check(aclrtMalloc(&p, size ? size : 1, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")) {
            npy_free(&a);
            return -1;
        }
        b->mem[b->nmem++] = p;
        void *host = nfiles ? a.data : malloc(size);
        if (!nfiles)
            fill(host, size, dt);
        int bad = size && acl_check(aclrtMemcpy(p, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
        if (!nfiles)
            free(host);
        if (!bad && aclmdlAddDatasetBuffer(b->in, aclCreateDataBuffer(p, size)) != ACL_SUCCESS)
            bad = 1;
        aclmdlIODims dims;
        if (!bad && nfiles && aclmdlGetInputDims(b->desc, i, &dims) == ACL_SUCCESS) {
            int dyn = aclmdlGetInputSizeByIndex(b->desc, i) == 0;
            for (size_t d = 0; d < dims.dimCount; d++)
                dyn |= dims.dims[d] < 0;
            if (dyn) {
                aclTensorDesc *td = aclCreateTensorDesc(dt, a.ndim, a.shape, ACL_FORMAT_ND);
                bad = !td || acl_check(aclmdlSetDatasetTensorDesc(b->in, td, i), "aclmdlSetDatasetTensorDesc");
                aclDestroyTensorDesc(td);
            }
        }
        npy_free(&a);
        if (bad)
            return -1;
    }
    for (size_t i = 0; i < n_out; i++) {
        size_t size = aclmdlGetOutputSizeByIndex(b->desc, i);
        void *p = NULL;
        if (size && acl_check(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc"))
            return -1;
        if (p)
            b->mem[b->nmem++] = p;
        b->out_dyn[i] = p == NULL;
        /* Dynamic outputs ((NULL,0)): the runtime allocates them on the first
         * run; the buffer then keeps that memory for the timed runs. */
        if (aclmdlAddDatasetBuffer(b->out, aclCreateDataBuffer(p, size)) != ACL_SUCCESS)
            return -1;
    }
    return 0;
}

/* ---- throughput mode ---- */

typedef struct worker {
    pthread_t th;
    int device, warmup, ok;
    const char *model;
    char **files;
    int nfiles;
    double min_time;
    pthread_barrier_t *ready;
    double runs, wall_ms;
    inst b;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    int ok = !acl_check(aclrtSetDevice(w->device), "aclrtSetDevice") &&
             !inst_setup(&w->b, w->model, w->files, w->nfiles);
    for (int k = 0; ok && k < w->warmup; k++)
        ok = !acl_check(aclmdlExecute(w->b.id, w->b.in, w->b.out), "aclmdlExecute");
    pthread_barrier_wait(w->ready);   /* everyone starts timing together */
    double t0 = now_ms(), end = t0 + w->min_time * 1e3;
    long n = 0;
    while (ok && now_ms() < end) {
        ok = !acl_check(aclmdlExecute(w->b.id, w->b.in, w->b.out), "aclmdlExecute");
        n++;
    }
    w->wall_ms = now_ms() - t0;
    w->runs = (double)n;
    w->ok = ok;
    inst_free(&w->b);
    return NULL;
}

/* Sets the variables of a "NAME=VALUE NAME=VALUE" list (saving what they
 * were into saved[]) or, with restore, puts the saved values back. */
#define AB_MAX_VARS 8
typedef struct ab_env { char *name[AB_MAX_VARS], *old[AB_MAX_VARS]; int n; } ab_env;

static int ab_apply(const char *spec, ab_env *e)
{
    memset(e, 0, sizeof *e);
    if (!strcmp(spec, "-"))
        return 0;
    char *copy = strdup(spec);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (!eq || eq == t || e->n == AB_MAX_VARS) {
            fprintf(stderr, "mdl_bench: --ab wants up to %d NAME=VALUE settings, got '%s'\n",
                    AB_MAX_VARS, spec);
            free(copy);
            return -1;
        }
        *eq = 0;
        const char *old = getenv(t);
        e->name[e->n] = strdup(t);
        e->old[e->n] = old ? strdup(old) : NULL;
        e->n++;
        setenv(t, eq + 1, 1);
    }
    free(copy);
    return 0;
}

static void ab_restore(ab_env *e)
{
    for (int i = 0; i < e->n; i++) {
        if (e->old[i])
            setenv(e->name[i], e->old[i], 1);
        else
            unsetenv(e->name[i]);
        free(e->name[i]);
        free(e->old[i]);
    }
    e->n = 0;
}

#define AB_MAX 4

static int run_ab(const char *model, char **files, int nfiles, char **spec, int nv, int warmup,
                  double min_time, int min_runs, int block)
{
    inst b[AB_MAX];
    double *lat[AB_MAX] = { 0 };
    size_t n = 0, cap = 0;
    int rc = 1;
    memset(b, 0, sizeof b);
    for (int v = 0; v < nv; v++) {
        ab_env e;
        if (ab_apply(spec[v], &e)) {
            ab_restore(&e);
            goto done;
        }
        int bad = inst_setup(&b[v], model, files, nfiles);
        ab_restore(&e);
        if (bad)
            goto done;
        for (int k = 0; k < warmup + 1; k++)
            if (acl_check(aclmdlExecute(b[v].id, b[v].in, b[v].out), "aclmdlExecute"))
                goto done;
    }
    double start = now_ms();
    while (n < (size_t)min_runs || now_ms() - start < min_time * 1e3) {
        if (n + (size_t)block > cap) {
            cap = (n + (size_t)block) * 2;
            for (int v = 0; v < nv; v++) {
                double *g = realloc(lat[v], cap * sizeof(double));
                if (!g) {
                    fprintf(stderr, "mdl_bench: out of memory for %zu latencies\n", cap);
                    goto done;
                }
                lat[v] = g;
            }
        }
        for (int v = 0; v < nv; v++)
            for (int k = 0; k < block; k++) {
                double t = g_ab_cpu ? proc_cpu_ms() : now_ms();
                if (acl_check(aclmdlExecute(b[v].id, b[v].in, b[v].out), "aclmdlExecute"))
                    goto done;
                lat[v][n + (size_t)k] = (g_ab_cpu ? proc_cpu_ms() : now_ms()) - t;
            }
        n += (size_t)block;
    }
    printf("{\n \"model\": \"%s\",\n \"runtime\": \"openacl\",\n \"clock\": \"%s\",\n \"runs_each\": %zu,\n"
           " \"variants\": [", model, g_ab_cpu ? "cpu" : "wall", n);
    double base = 0;
    for (int v = 0; v < nv; v++) {
        double med = median_of(lat[v], n);
        if (v == 0)
            base = med;
        printf("%s\n  {\"env\": \"%s\", \"median_ms\": %.4f, \"p25_ms\": %.4f, \"min_ms\": %.4f, "
               "\"vs_first\": %.4f}", v ? "," : "", spec[v], med, lat[v][n / 4], lat[v][0],
               base > 0 ? med / base : 0.0);
    }
    printf("\n ]\n}\n");
    rc = 0;
done:
    for (int v = 0; v < nv; v++) {
        inst_free(&b[v]);
        free(lat[v]);
    }
    return rc;
}

static int run_parallel(const char *model, char **files, int nfiles, int npar, int warmup,
                        double min_time, long base_kb)
{
    uint32_t ndev = 1;
    if (aclrtGetDeviceCount(&ndev) != ACL_SUCCESS || ndev == 0)
        ndev = 1;
    worker w[MAX_PAR];
    pthread_barrier_t ready;
    pthread_barrier_init(&ready, NULL, (unsigned)npar);
    memset(w, 0, sizeof w);
    double c0 = cpu_ms();
    for (int i = 0; i < npar; i++) {
        w[i] = (worker){ .device = i % (int)ndev, .warmup = warmup, .model = model, .files = files,
                         .nfiles = nfiles, .min_time = min_time, .ready = &ready };
        pthread_create(&w[i].th, NULL, worker_main, &w[i]);
    }
    double total = 0, wall = 0;
    int ok = 1;
    for (int i = 0; i < npar; i++) {
        pthread_join(w[i].th, NULL);
        ok &= w[i].ok;
        total += w[i].runs / (w[i].wall_ms / 1e3);
        if (w[i].wall_ms > wall)
            wall = w[i].wall_ms;
    }
    pthread_barrier_destroy(&ready);
    if (!ok)
        return 1;
    printf("{\n \"model\": \"%s\",\n \"runtime\": \"openacl\",\n \"parallel\": %d,\n \"devices\": %u,\n"
           " \"throughput_per_s\": %.3f,\n \"per_worker_per_s\": [", model, npar, ndev, total);
    for (int i = 0; i < npar; i++)
        printf("%s%.3f", i ? ", " : "", w[i].runs / (w[i].wall_ms / 1e3));
    printf("],\n \"cpu_per_wall\": %.2f,\n \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld\n}\n",
           wall > 0 ? (cpu_ms() - c0) / wall : 0.0, base_kb, status_kb("VmHWM"));
    return 0;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *inputs = NULL;
    int warmup = 5, min_runs = 10, npar = 0, empty = 0, nab = 0, block = 10;
    char *ab[AB_MAX];
    double min_time = 3.0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--model") == 0)
            model = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--inputs") == 0)
            inputs = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--warmup") == 0)
            warmup = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--min-time") == 0)
            min_time = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--min-runs") == 0)
            min_runs = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--parallel") == 0)
            npar = atoi(argv[++i]);
        else if (strcmp(argv[i], "--empty") == 0)
            empty = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--ab") == 0 && nab < AB_MAX)
            ab[nab++] = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--block") == 0)
            block = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--ab-clock") == 0 &&
                 (!strcmp(argv[i + 1], "cpu") || !strcmp(argv[i + 1], "wall")))
            g_ab_cpu = !strcmp(argv[++i], "cpu");
        else {
            fprintf(stderr, "usage: mdl_bench --model M [--inputs a.npy,...] [--warmup N] "
                            "[--min-time S] [--min-runs N] [--parallel N] [--empty]\n"
                            "       [--ab \"NAME=VALUE ...\" --ab ... (2 to %d variants) [--block N] "
                            "[--ab-clock cpu|wall]]\n",
                    AB_MAX);
            return 2;
        }
    }
    if ((!model && !empty) || min_runs < 1 || npar < 0 || npar > MAX_PAR || nab == 1 || block < 1 ||
        (nab && npar)) {
        fprintf(stderr, "mdl_bench: --model is required (--parallel 1..%d; --ab 2..%d times, not with "
                        "--parallel; --block >= 1)\n", MAX_PAR, AB_MAX);
        return 2;
    }
    const char *missing = first_missing();
    if (missing) {
        fprintf(stderr, "mdl_bench: libascendcl does not implement %s yet\n", missing);
        return 77;
    }

    char *files[MAX_IO];
    int nfiles = 0;
    char *list = inputs ? strdup(inputs) : NULL;
    for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t && nfiles < MAX_IO;
         t = strtok_r(NULL, ",", &save))
        files[nfiles++] = t;

    int rc = 1;
    lat_store lat;
    inst b;
    memset(&b, 0, sizeof b);
    if (lat_init(&lat)) {
        fprintf(stderr, "mdl_bench: out of memory for the latency samples\n");
        free(list);
        return 1;
    }

    aclError ir = aclInit(NULL);
    if (ir != ACL_SUCCESS && ir != ACL_ERROR_REPEAT_INITIALIZE && acl_check(ir, "aclInit"))
        goto done;
    if (acl_check(aclrtSetDevice(0), "aclrtSetDevice"))
        goto done;
    long base_kb = status_kb("VmRSS");
    if (empty) {
        printf("{\n \"runtime\": \"openacl\",\n \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld\n}\n",
               base_kb, status_kb("VmHWM"));
        rc = 0;
        goto done;
    }
    if (npar) {
        rc = run_parallel(model, files, nfiles, npar, warmup, min_time, base_kb);
        goto done;
    }
    if (nab) {
        rc = run_ab(model, files, nfiles, ab, nab, warmup, min_time, min_runs, block);
        goto done;
    }
    if (inst_setup(&b, model, files, nfiles))
        goto done;

    double t0 = now_ms();
    if (acl_check(aclmdlExecute(b.id, b.in, b.out), "aclmdlExecute"))
        goto done;
    double first_ms = now_ms() - t0;
    for (int k = 0; k < warmup; k++)
        if (acl_check(aclmdlExecute(b.id, b.in, b.out), "aclmdlExecute"))
            goto done;

    double start = now_ms(), c0 = cpu_ms();
    while (lat.seen < (size_t)min_runs || now_ms() - start < min_time * 1e3) {
        double t = now_ms();
        if (acl_check(aclmdlExecute(b.id, b.in, b.out), "aclmdlExecute"))
            goto done;
        lat_add(&lat, now_ms() - t);
    }
    double wall = now_ms() - start, cpu = cpu_ms() - c0;
    size_t n = lat.n;
    double median = median_of(lat.v, n);
    size_t p90 = (size_t)ceil(0.9 * (double)n);
    const char *th = getenv("OPENACL_THREADS");
    printf("{\n \"model\": \"%s\",\n \"runtime\": \"openacl\",\n \"threads_env\": %s%s%s,\n"
           " \"load_ms\": %.2f,\n \"first_run_ms\": %.2f,\n \"warmup\": %d,\n"
           " \"latency_ms\": {\"median\": %.4f, \"mean\": %.4f, \"p90\": %.4f, \"min\": %.4f, "
           "\"max\": %.4f, \"runs\": %zu},\n \"cpu_per_wall\": %.2f,\n"
           " \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld\n}\n",
           model, th ? "\"" : "", th ? th : "null", th ? "\"" : "", b.load_ms, first_ms, warmup, median,
           lat.sum / (double)lat.seen, lat.v[p90 ? p90 - 1 : 0], lat.min, lat.max, lat.seen,
           wall > 0 ? cpu / wall : 0.0, base_kb, status_kb("VmHWM"));
    rc = 0;

done:
    inst_free(&b);
    aclrtResetDevice(0);
    aclFinalize();
    free(lat.v);
    free(list);
    return rc;
}
