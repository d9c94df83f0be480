/* mdl_bench: latency of one model through openacl's public API, the way an
 * application sees it (aclmdlExecute on device buffers prepared once):
 *   mdl_bench --model M [--inputs a.npy,...] [--warmup 5] [--min-time 3] [--min-runs 10]
 * Prints one JSON object: load time, first run, per-run latency statistics
 * and the CPU time per wall time of the timed loop (a check that the thread
 * setting, OPENACL_THREADS, is honoured). Without --inputs, inputs are
 * filled with fixed pseudo-random values (static shapes only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "acl/acl.h"
#include "npy.h"

#define MAX_IO 64

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
    X(aclmdlGetDatasetNumBuffers) X(aclmdlSetDatasetTensorDesc) X(aclmdlExecute) X(aclGetDataBufferAddr)
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

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
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

int main(int argc, char **argv)
{
    const char *model = NULL, *inputs = NULL;
    int warmup = 5, min_runs = 10;
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
        else {
            fprintf(stderr, "usage: mdl_bench --model M [--inputs a.npy,...] [--warmup N] "
                            "[--min-time S] [--min-runs N]\n");
            return 2;
        }
    }
    if (!model || min_runs < 1) {
        fprintf(stderr, "mdl_bench: --model is required\n");
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

    int rc = 1, loaded = 0;
    uint32_t id = 0;
    aclmdlDesc *desc = NULL;
    aclmdlDataset *in = NULL, *out = NULL;
    void *mem[2 * MAX_IO] = {0};
    int nmem = 0;
    unsigned char out_dyn[MAX_IO] = {0};
    double *lat = NULL;
    char err[512];

    aclError ir = aclInit(NULL);
    if (ir != ACL_SUCCESS && ir != ACL_ERROR_REPEAT_INITIALIZE && acl_check(ir, "aclInit"))
        return 1;
    if (acl_check(aclrtSetDevice(0), "aclrtSetDevice"))
        goto done;
    double t0 = now_ms();
    if (acl_check(aclmdlLoadFromFile(model, &id), "aclmdlLoadFromFile"))
        goto done;
    double load_ms = now_ms() - t0;
    loaded = 1;
    desc = aclmdlCreateDesc();
    if (!desc || acl_check(aclmdlGetDesc(desc, id), "aclmdlGetDesc"))
        goto done;
    size_t n_in = aclmdlGetNumInputs(desc), n_out = aclmdlGetNumOutputs(desc);
    if (n_in > MAX_IO || n_out > MAX_IO || (nfiles && (size_t)nfiles != n_in)) {
        fprintf(stderr, "mdl_bench: model has %zu inputs / %zu outputs, %d files given\n", n_in, n_out, nfiles);
        goto done;
    }
    in = aclmdlCreateDataset();
    out = aclmdlCreateDataset();
    for (size_t i = 0; i < n_in; i++) {
        npy_array a;
        memset(&a, 0, sizeof(a));
        size_t size = aclmdlGetInputSizeByIndex(desc, i);
        aclDataType dt = aclmdlGetInputDataType(desc, i);
        if (nfiles) {
            if (npy_read(files[i], &a, err, sizeof(err))) {
                fprintf(stderr, "mdl_bench: %s\n", err);
                goto done;
            }
            size = a.nbytes;
        } else if (size == 0) {
            fprintf(stderr, "mdl_bench: input %zu has a dynamic shape: give --inputs\n", i);
            goto done;
        }
        void *p = NULL;
        if (acl_check(aclrtMalloc(&p, size ? size : 1, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")) {
            npy_free(&a);
            goto done;
        }
        mem[nmem++] = p;
        void *host = nfiles ? a.data : malloc(size);
        if (!nfiles)
            fill(host, size, dt);
        int bad = size && acl_check(aclrtMemcpy(p, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
        if (!nfiles)
            free(host);
        if (!bad && aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(p, size)) != ACL_SUCCESS)
            bad = 1;
        aclmdlIODims dims;
        if (!bad && nfiles && aclmdlGetInputDims(desc, i, &dims) == ACL_SUCCESS) {
            int dyn = aclmdlGetInputSizeByIndex(desc, i) == 0;
            for (size_t d = 0; d < dims.dimCount; d++)
                dyn |= dims.dims[d] < 0;
            if (dyn) {
                aclTensorDesc *td = aclCreateTensorDesc(dt, a.ndim, a.shape, ACL_FORMAT_ND);
                bad = !td || acl_check(aclmdlSetDatasetTensorDesc(in, td, i), "aclmdlSetDatasetTensorDesc");
                aclDestroyTensorDesc(td);
            }
        }
        npy_free(&a);
        if (bad)
            goto done;
    }
    for (size_t i = 0; i < n_out; i++) {
        size_t size = aclmdlGetOutputSizeByIndex(desc, i);
        void *p = NULL;
        if (size && acl_check(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc"))
            goto done;
        if (p)
            mem[nmem++] = p;
        out_dyn[i] = p == NULL;
        /* Dynamic outputs ((NULL,0)): the runtime allocates them on the first
         * run; the buffer then keeps that memory for the timed runs. */
        if (aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(p, size)) != ACL_SUCCESS)
            goto done;
    }

    t0 = now_ms();
    if (acl_check(aclmdlExecute(id, in, out), "aclmdlExecute"))
        goto done;
    double first_ms = now_ms() - t0;
    for (int k = 0; k < warmup; k++)
        if (acl_check(aclmdlExecute(id, in, out), "aclmdlExecute"))
            goto done;

    size_t cap = 1024, n = 0;
    lat = malloc(cap * sizeof(double));
    double start = now_ms(), c0 = cpu_ms();
    while (n < (size_t)min_runs || now_ms() - start < min_time * 1e3) {
        double t = now_ms();
        if (acl_check(aclmdlExecute(id, in, out), "aclmdlExecute"))
            goto done;
        if (n == cap) {
            cap *= 2;
            lat = realloc(lat, cap * sizeof(double));
        }
        lat[n++] = now_ms() - t;
    }
    double wall = now_ms() - start, cpu = cpu_ms() - c0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += lat[i];
    qsort(lat, n, sizeof(double), cmp_double);
    double median = n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
    size_t p90 = (size_t)ceil(0.9 * (double)n);
    const char *th = getenv("OPENACL_THREADS");
    printf("{\n \"model\": \"%s\",\n \"runtime\": \"openacl\",\n \"threads_env\": %s%s%s,\n"
           " \"load_ms\": %.2f,\n \"first_run_ms\": %.2f,\n \"warmup\": %d,\n"
           " \"latency_ms\": {\"median\": %.4f, \"mean\": %.4f, \"p90\": %.4f, \"min\": %.4f, "
           "\"max\": %.4f, \"runs\": %zu},\n \"cpu_per_wall\": %.2f\n}\n",
           model, th ? "\"" : "", th ? th : "null", th ? "\"" : "", load_ms, first_ms, warmup, median,
           sum / n, lat[p90 ? p90 - 1 : 0], lat[0], lat[n - 1], n, wall > 0 ? cpu / wall : 0.0);
    rc = 0;

done:
    for (size_t i = 0; in && i < aclmdlGetDatasetNumBuffers(in); i++)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, i));
    for (size_t i = 0; out && i < aclmdlGetDatasetNumBuffers(out); i++) {
        aclDataBuffer *b = aclmdlGetDatasetBuffer(out, i);
        if (i < MAX_IO && out_dyn[i] && aclGetDataBufferAddr(b))
            aclrtFree(aclGetDataBufferAddr(b));   /* runtime-allocated output */
        aclDestroyDataBuffer(b);
    }
    if (in)
        aclmdlDestroyDataset(in);
    if (out)
        aclmdlDestroyDataset(out);
    for (int i = 0; i < nmem; i++)
        aclrtFree(mem[i]);
    if (desc)
        aclmdlDestroyDesc(desc);
    if (loaded)
        aclmdlUnload(id);
    aclrtResetDevice(0);
    aclFinalize();
    free(lat);
    free(list);
    return rc;
}
