/* ort_bench: ONNX Runtime measured from C, the peer of bench/mdl_bench.
 * It dlopen()s the libonnxruntime.so.1 that npm onnxruntime-node ships and
 * drives it through ORT's C API function table, so latency, per-call cost
 * and memory are measured the same way as openacl's (no Node binding):
 *   ort_bench --model M [--inputs a.npy,...] [--threads 1] [--warmup 5]
 *             [--min-time 3] [--min-runs 10] [--parallel N] [--iobinding]
 *             [--config key=value]... [--ort-lib PATH] [--profile PREFIX]
 *     --profile: ORT's own per-node profile (SessionOptions EnableProfiling),
 *     a Chrome-trace JSON named PREFIX_<date>.json written when the session
 *     is released; set beside OPENACL_PROFILE it compares the two per node.
 *   ort_bench --model M [--inputs ...] --outdir D   (one run, outputs saved)
 *   ort_bench --empty                               (memory baseline only)
 *   ort_bench --model M [--threads N] --pair-openacl LIB [--turn S] [--min-time S]
 *     Paired mode: the same process also dlopen()s openacl's libascendcl.so
 *     (LIB), loads the model through AscendCL with --threads threads per
 *     device (and whatever OPENACL_* variables are set, e.g. OPENACL_PRECISION)
 *     on the same input data (dynamic inputs with the data's shapes), and the two runtimes take turns of --turn
 *     seconds (default 0.5, an untimed 0.25 s pause before each) until
 *     each has run --min-time seconds. A
 *     shared machine's slow stretches (a neighbour on the host core,
 *     frequency, steal) last seconds, longer than a turn, so both runtimes
 *     meet them alike; separate processes seconds apart do not. Reports
 *     both latencies, their ratio and the median of the per-turn ratios.
 *     --pair-model F: openacl loads F instead (the int8 file of a model
 *     whose fp32 original ORT runs, fed the same input bytes).
 * Session: CPU EP, graph optimisation ORT_ENABLE_ALL, --threads intra-op
 * threads, 1 inter-op thread, sequential execution; the rest ORT's defaults
 * (the same settings as tools/ortref). Inputs and outputs are OrtValues over
 * buffers made once; the timed call is Run() with the preallocated outputs
 * (or RunWithBinding() with --iobinding), so it costs what ORT's C API costs.
 * Memory, like mdl_bench: the resident set after the library load and
 * CreateEnv (baseline_rss_kb) and the process's peak (peak_rss_kb).
 * Exit 77 when the library cannot be loaded (the ctest skip code). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "npy.h"

#define MAX_IO 64
#define MAX_PAR 16
#define MAX_CFG 16
#define MAX_DIMS 16
#define SKIP_RC 77

#ifndef ORTC_DEFAULT_LIB
#define ORTC_DEFAULT_LIB "third_party/npm/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"
#endif
/* Where onnxruntime-node keeps the library below a node_modules folder. */
#define ORTC_NPM_SUBPATH "onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"

/* ---- our own declarations of the parts of ORT's C API we call ----
 *
 * There are no ORT headers offline, so these are written here. ORT's C API
 * is one struct of function pointers (OrtApi) returned by
 * OrtGetApiBase()->GetApi(version); entries are only ever appended, so an
 * entry's index never changes. The indices below were counted from the
 * OrtApi struct in microsoft/onnxruntime's
 * include/onnxruntime/core/session/onnxruntime_c_api.h and cross-checked
 * against the static_asserts in onnxruntime/core/session/onnxruntime_c_api.cc
 * (ReleaseCustomOpDomain 101, ReleaseModelMetadata 118,
 * AddFreeDimensionOverrideByName 124, ReleaseAvailableProviders 126,
 * SetGlobalSpinControl 149: the last entries of API versions 1-5). Every
 * entry used here is from API version 5 or older. At run time ort_load()
 * checks the status functions (create a status, read back its code and
 * message) and the session setup checks that each input's element type and
 * rank agree with the .npy data; the ctest compares names and outputs. */
typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtAllocator OrtAllocator;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtIoBinding OrtIoBinding;

/* Enum values from the same header. */
enum {
    ORTC_ERR_FAIL = 1,                /* OrtErrorCode ORT_FAIL */
    ORTC_LOG_WARNING = 2,             /* OrtLoggingLevel ORT_LOGGING_LEVEL_WARNING */
    ORTC_SEQUENTIAL = 0,              /* ExecutionMode ORT_SEQUENTIAL */
    ORTC_ENABLE_ALL = 99,             /* GraphOptimizationLevel ORT_ENABLE_ALL */
    ORTC_ARENA_ALLOCATOR = 1,         /* OrtAllocatorType OrtArenaAllocator */
    ORTC_MEM_DEFAULT = 0,             /* OrtMemType OrtMemTypeDefault */
};

/* The API version of ORT 1.30 (the version the npm package ships; the
 * number follows the minor release). An older library is asked for its own
 * version as long as it has everything used here (ORTC_API_MIN). */
#define ORTC_API_VERSION 30
#define ORTC_API_MIN 5

/* (index, return type, name, parameters) of each entry used. */
#define ORT_FUNCS(X)                                                                               \
    X(0, OrtStatus *, CreateStatus, (int code, const char *msg))                                   \
    X(1, int, GetErrorCode, (const OrtStatus *st))                                                 \
    X(2, const char *, GetErrorMessage, (const OrtStatus *st))                                     \
    X(3, OrtStatus *, CreateEnv, (int level, const char *logid, OrtEnv **out))                     \
    X(7, OrtStatus *, CreateSession,                                                               \
      (const OrtEnv *env, const char *path, const OrtSessionOptions *opts, OrtSession **out))      \
    X(9, OrtStatus *, Run,                                                                         \
      (OrtSession *s, const OrtRunOptions *ro, const char *const *in_names,                        \
       const OrtValue *const *in, size_t n_in, const char *const *out_names, size_t n_out,         \
       OrtValue **out))                                                                            \
    X(10, OrtStatus *, CreateSessionOptions, (OrtSessionOptions **out))                            \
    X(13, OrtStatus *, SetSessionExecutionMode, (OrtSessionOptions *o, int mode))                  \
    X(14, OrtStatus *, EnableProfiling, (OrtSessionOptions *o, const char *prefix))                \
    X(23, OrtStatus *, SetSessionGraphOptimizationLevel, (OrtSessionOptions *o, int level))        \
    X(24, OrtStatus *, SetIntraOpNumThreads, (OrtSessionOptions *o, int n))                        \
    X(25, OrtStatus *, SetInterOpNumThreads, (OrtSessionOptions *o, int n))                        \
    X(30, OrtStatus *, SessionGetInputCount, (const OrtSession *s, size_t *out))                   \
    X(31, OrtStatus *, SessionGetOutputCount, (const OrtSession *s, size_t *out))                  \
    X(33, OrtStatus *, SessionGetInputTypeInfo, (const OrtSession *s, size_t i, OrtTypeInfo **out)) \
    X(36, OrtStatus *, SessionGetInputName,                                                        \
      (const OrtSession *s, size_t i, OrtAllocator *a, char **out))                                \
    X(37, OrtStatus *, SessionGetOutputName,                                                       \
      (const OrtSession *s, size_t i, OrtAllocator *a, char **out))                                \
    X(49, OrtStatus *, CreateTensorWithDataAsOrtValue,                                             \
      (const OrtMemoryInfo *mi, void *data, size_t bytes, const int64_t *shape, size_t ndim,       \
       int elem_type, OrtValue **out))                                                             \
    X(51, OrtStatus *, GetTensorMutableData, (OrtValue *v, void **out))                            \
    X(55, OrtStatus *, CastTypeInfoToTensorInfo,                                                   \
      (const OrtTypeInfo *ti, const OrtTensorTypeAndShapeInfo **out))                              \
    X(60, OrtStatus *, GetTensorElementType, (const OrtTensorTypeAndShapeInfo *i, int *out))       \
    X(61, OrtStatus *, GetDimensionsCount, (const OrtTensorTypeAndShapeInfo *i, size_t *out))      \
    X(62, OrtStatus *, GetDimensions, (const OrtTensorTypeAndShapeInfo *i, int64_t *d, size_t n))  \
    X(65, OrtStatus *, GetTensorTypeAndShape, (const OrtValue *v, OrtTensorTypeAndShapeInfo **out)) \
    X(69, OrtStatus *, CreateCpuMemoryInfo, (int alloc_type, int mem_type, OrtMemoryInfo **out))   \
    X(76, OrtStatus *, AllocatorFree, (OrtAllocator *a, void *p))                                  \
    X(78, OrtStatus *, GetAllocatorWithDefaultOptions, (OrtAllocator **out))                       \
    X(92, void, ReleaseEnv, (OrtEnv *))                                                            \
    X(93, void, ReleaseStatus, (OrtStatus *))                                                      \
    X(94, void, ReleaseMemoryInfo, (OrtMemoryInfo *))                                              \
    X(95, void, ReleaseSession, (OrtSession *))                                                    \
    X(96, void, ReleaseValue, (OrtValue *))                                                        \
    X(98, void, ReleaseTypeInfo, (OrtTypeInfo *))                                                  \
    X(99, void, ReleaseTensorTypeAndShapeInfo, (OrtTensorTypeAndShapeInfo *))                      \
    X(100, void, ReleaseSessionOptions, (OrtSessionOptions *))                                     \
    X(130, OrtStatus *, AddSessionConfigEntry,                                                     \
      (OrtSessionOptions *o, const char *key, const char *value))                                  \
    X(133, OrtStatus *, RunWithBinding,                                                            \
      (OrtSession *s, const OrtRunOptions *ro, const OrtIoBinding *b))                             \
    X(134, OrtStatus *, CreateIoBinding, (OrtSession *s, OrtIoBinding **out))                      \
    X(135, void, ReleaseIoBinding, (OrtIoBinding *))                                               \
    X(136, OrtStatus *, BindInput, (OrtIoBinding *b, const char *name, const OrtValue *v))         \
    X(137, OrtStatus *, BindOutput, (OrtIoBinding *b, const char *name, const OrtValue *v))

/* OrtApiBase: GetApi(version) then GetVersionString(), in that order. */
typedef struct ortc_api_base {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ortc_api_base;

/* The table holds function pointers; any function pointer type may be
 * converted to another and back, so it is read as generic ones. */
typedef void (*ortc_fn)(void);

static struct {
#define ORTC_FIELD(ix, ret, name, args) ret(*name) args;
    ORT_FUNCS(ORTC_FIELD)
#undef ORTC_FIELD
} ort;

static const char *g_version = "?";
static unsigned g_api_version;
static OrtEnv *g_env;
static OrtMemoryInfo *g_cpu;

/* ONNX tensor element types (TensorProto.DataType) <-> .npy dtypes. */
static const struct { int onnx, npy; } k_types[] = {
    { 1, NPY_FLOAT32 }, { 2, NPY_UINT8 }, { 3, NPY_INT8 }, { 4, NPY_UINT16 }, { 5, NPY_INT16 },
    { 6, NPY_INT32 }, { 7, NPY_INT64 }, { 9, NPY_BOOL }, { 10, NPY_FLOAT16 }, { 11, NPY_FLOAT64 },
    { 12, NPY_UINT32 }, { 13, NPY_UINT64 },
};

static int onnx_to_npy(int t)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].onnx == t)
            return k_types[i].npy;
    return -1;
}

static int npy_to_onnx(int t)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].npy == t)
            return k_types[i].onnx;
    return -1;
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

/* A field of /proc/self/status in kB (VmRSS, VmHWM), -1 when unreadable:
 * the same reading mdl_bench takes, so both runtimes' memory compares. */
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

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 0 when st is success (NULL); else prints ORT's message, frees it, -1. */
static int ort_ok(OrtStatus *st, const char *what)
{
    if (!st)
        return 0;
    fprintf(stderr, "ort_bench: %s failed: ORT error %d: %s\n", what, ort.GetErrorCode(st),
            ort.GetErrorMessage(st));
    ort.ReleaseStatus(st);
    return -1;
}

static const char *lib_path(const char *given, char *buf, size_t len)
{
    if (given)
        return given;
    const char *nm = getenv("ORTREF_NODE_MODULES");   /* tools/ortref's override */
    if (nm && *nm) {
        snprintf(buf, len, "%s/%s", nm, ORTC_NPM_SUBPATH);
        return buf;
    }
    return ORTC_DEFAULT_LIB;
}

/* Loads the library, gets the API table and creates the process's env.
 * Returns 0, SKIP_RC when the library is missing, 1 on other failures. */
static int ort_load(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "ort_bench: no ONNX Runtime library at %s (run scripts/setup.sh or give --ort-lib)\n",
                path);
        return SKIP_RC;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "ort_bench: dlopen %s: %s\n", path, dlerror());
        return SKIP_RC;
    }
    const ortc_api_base *(*get_base)(void) = (const ortc_api_base *(*)(void))dlsym(h, "OrtGetApiBase");
    const ortc_api_base *base = get_base ? get_base() : NULL;
    if (!base) {
        fprintf(stderr, "ort_bench: %s has no OrtGetApiBase\n", path);
        return 1;
    }
    g_version = base->GetVersionString();
    unsigned major = 0, minor = 0;
    if (!g_version || sscanf(g_version, "%u.%u", &major, &minor) != 2 || major != 1) {
        fprintf(stderr, "ort_bench: unexpected ONNX Runtime version '%s'\n", g_version ? g_version : "(null)");
        return 1;
    }
    g_api_version = minor < ORTC_API_VERSION ? minor : ORTC_API_VERSION;
    if (g_api_version < ORTC_API_MIN) {
        fprintf(stderr, "ort_bench: ONNX Runtime %s is older than API version %d\n", g_version, ORTC_API_MIN);
        return 1;
    }
    const ortc_fn *tab = (const ortc_fn *)base->GetApi(g_api_version);
    if (!tab) {
        fprintf(stderr, "ort_bench: ONNX Runtime %s refuses API version %u\n", g_version, g_api_version);
        return 1;
    }
#define ORTC_BIND(ix, ret, name, args) ort.name = (ret(*) args)tab[ix];
    ORT_FUNCS(ORTC_BIND)
#undef ORTC_BIND

    /* The status entries are the first ones any call relies on: a status
     * made here must come back with its code and message. */
    OrtStatus *probe = ort.CreateStatus(ORTC_ERR_FAIL, "ortc probe");
    int good = probe && ort.GetErrorCode(probe) == ORTC_ERR_FAIL &&
               strcmp(ort.GetErrorMessage(probe), "ortc probe") == 0;
    ort.ReleaseStatus(probe);
    if (!good) {
        fprintf(stderr, "ort_bench: the OrtApi table of %s does not match these declarations\n", g_version);
        return 1;
    }
    if (ort_ok(ort.CreateEnv(ORTC_LOG_WARNING, "ort_bench", &g_env), "CreateEnv") ||
        ort_ok(ort.CreateCpuMemoryInfo(ORTC_ARENA_ALLOCATOR, ORTC_MEM_DEFAULT, &g_cpu), "CreateCpuMemoryInfo"))
        return 1;
    return 0;
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

/* mdl_bench's filler for inputs given without data: small floats, ids 1. */
static void fill(void *p, size_t bytes, int onnx_type)
{
    uint32_t s = 12345;
    if (onnx_type == 1) {
        float *f = p;
        for (size_t i = 0; i < bytes / 4; i++) {
            s = s * 1664525u + 1013904223u;
            f[i] = (float)(s >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        }
    } else if (onnx_type == 7) {
        int64_t *v = p;
        for (size_t i = 0; i < bytes / 8; i++)
            v[i] = 1;
    } else {
        memset(p, onnx_type == 10 ? 0 : 1, bytes);
    }
}

static void *buf_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 1))
        return NULL;
    return p;
}

/* What the command line asks for, shared by every session. */
typedef struct options {
    const char *model;
    npy_array *data;            /* one per input, or NULL: fill */
    int ndata;
    int threads, warmup, min_runs, iobinding;
    const char *profile; /* ORT's per-node profile (EnableProfiling) file prefix, or NULL */
    const char *pair_model; /* paired mode: the file openacl loads (NULL: --model) */
    double min_time;
    const char *cfg_key[MAX_CFG], *cfg_val[MAX_CFG];
    int ncfg;
} options;

/* One session with its inputs and preallocated outputs. */
typedef struct sess {
    OrtSession *s;
    OrtIoBinding *bind;
    size_t n_in, n_out;
    char *in_name[MAX_IO], *out_name[MAX_IO];
    OrtValue *in[MAX_IO], *out[MAX_IO];
    void *in_buf[MAX_IO], *out_buf[MAX_IO];
    size_t in_bytes[MAX_IO];
    int in_ndim[MAX_IO];
    int64_t in_shape[MAX_IO][MAX_DIMS];
    int out_type[MAX_IO], out_ndim[MAX_IO];
    int64_t out_shape[MAX_IO][MAX_DIMS];
    size_t out_bytes[MAX_IO];
    double create_ms, first_ms;
} sess;

static void sess_free(sess *b)
{
    ort.ReleaseIoBinding(b->bind);
    for (size_t i = 0; i < MAX_IO; i++) {
        ort.ReleaseValue(b->in[i]);
        ort.ReleaseValue(b->out[i]);
        free(b->in_buf[i]);
        free(b->out_buf[i]);
        free(b->in_name[i]);
        free(b->out_name[i]);
    }
    ort.ReleaseSession(b->s);
    memset(b, 0, sizeof *b);
}

static size_t type_size(int onnx_type)
{
    int t = onnx_to_npy(onnx_type);
    return t < 0 ? 0 : npy_dtype_size(t);
}

/* Copies a name ORT allocated and gives ORT's copy back. */
static char *take_name(OrtAllocator *a, char *p)
{
    char *c = p ? strdup(p) : NULL;
    if (p)
        ort_ok(ort.AllocatorFree(a, p), "AllocatorFree");
    return c;
}

/* The element type and dims the session declares for input i (-1: free). */
static int input_decl(const OrtSession *s, size_t i, int *type, int64_t *dims, size_t *ndim)
{
    OrtTypeInfo *ti = NULL;
    const OrtTensorTypeAndShapeInfo *tsi = NULL;
    int rc = ort_ok(ort.SessionGetInputTypeInfo(s, i, &ti), "SessionGetInputTypeInfo") ||
             ort_ok(ort.CastTypeInfoToTensorInfo(ti, &tsi), "CastTypeInfoToTensorInfo") || !tsi ||
             ort_ok(ort.GetTensorElementType(tsi, type), "GetTensorElementType") ||
             ort_ok(ort.GetDimensionsCount(tsi, ndim), "GetDimensionsCount") || *ndim > MAX_DIMS ||
             ort_ok(ort.GetDimensions(tsi, dims, *ndim), "GetDimensions");
    ort.ReleaseTypeInfo(ti);
    return rc ? -1 : 0;
}

/* Outputs the runtime made (first run): records type and shape, then puts a
 * buffer of ours of the same size in its place for the runs that follow. */
static int adopt_outputs(sess *b)
{
    for (size_t i = 0; i < b->n_out; i++) {
        OrtTensorTypeAndShapeInfo *info = NULL;
        size_t nd = 0;
        void *src = NULL;
        int t = 0;
        if (ort_ok(ort.GetTensorTypeAndShape(b->out[i], &info), "GetTensorTypeAndShape"))
            return -1;
        int bad = ort_ok(ort.GetTensorElementType(info, &t), "GetTensorElementType") ||
                  ort_ok(ort.GetDimensionsCount(info, &nd), "GetDimensionsCount") || nd > MAX_DIMS ||
                  ort_ok(ort.GetDimensions(info, b->out_shape[i], nd), "GetDimensions");
        ort.ReleaseTensorTypeAndShapeInfo(info);
        if (bad || !type_size(t)) {
            fprintf(stderr, "ort_bench: output %s: unsupported type %d or rank %zu\n", b->out_name[i], t, nd);
            return -1;
        }
        size_t count = 1;
        for (size_t d = 0; d < nd; d++)
            count *= (size_t)b->out_shape[i][d];
        b->out_type[i] = t;
        b->out_ndim[i] = (int)nd;
        b->out_bytes[i] = count * type_size(t);
        b->out_buf[i] = buf_alloc(b->out_bytes[i]);
        if (!b->out_buf[i] || ort_ok(ort.GetTensorMutableData(b->out[i], &src), "GetTensorMutableData"))
            return -1;
        if (b->out_bytes[i])
            memcpy(b->out_buf[i], src, b->out_bytes[i]);
        ort.ReleaseValue(b->out[i]);
        b->out[i] = NULL;
        if (ort_ok(ort.CreateTensorWithDataAsOrtValue(g_cpu, b->out_buf[i], b->out_bytes[i], b->out_shape[i], nd,
                                                      t, &b->out[i]), "CreateTensorWithDataAsOrtValue (output)"))
            return -1;
    }
    return 0;
}

static int sess_run(sess *b)
{
    if (b->bind)
        return ort_ok(ort.RunWithBinding(b->s, NULL, b->bind), "RunWithBinding");
    return ort_ok(ort.Run(b->s, NULL, (const char *const *)b->in_name, (const OrtValue *const *)b->in, b->n_in,
                          (const char *const *)b->out_name, b->n_out, b->out), "Run");
}

/* Creates the session, its inputs, runs once with ORT-made outputs (the
 * first run) and switches to preallocated ones. */
static int sess_setup(sess *b, const options *o)
{
    OrtSessionOptions *so = NULL;
    if (ort_ok(ort.CreateSessionOptions(&so), "CreateSessionOptions"))
        return -1;
    int bad = ort_ok(ort.SetIntraOpNumThreads(so, o->threads), "SetIntraOpNumThreads") ||
              ort_ok(ort.SetInterOpNumThreads(so, 1), "SetInterOpNumThreads") ||
              ort_ok(ort.SetSessionExecutionMode(so, ORTC_SEQUENTIAL), "SetSessionExecutionMode") ||
              ort_ok(ort.SetSessionGraphOptimizationLevel(so, ORTC_ENABLE_ALL), "SetSessionGraphOptimizationLevel");
    if (!bad && o->profile)
        bad = ort_ok(ort.EnableProfiling(so, o->profile), "EnableProfiling");
    for (int k = 0; !bad && k < o->ncfg; k++)
        bad = ort_ok(ort.AddSessionConfigEntry(so, o->cfg_key[k], o->cfg_val[k]), "AddSessionConfigEntry");
    double t0 = now_ms();
    if (!bad)
        bad = ort_ok(ort.CreateSession(g_env, o->model, so, &b->s), "CreateSession");
    b->create_ms = now_ms() - t0;
    ort.ReleaseSessionOptions(so);
    if (bad)
        return -1;

    OrtAllocator *alloc = NULL;
    if (ort_ok(ort.SessionGetInputCount(b->s, &b->n_in), "SessionGetInputCount") ||
        ort_ok(ort.SessionGetOutputCount(b->s, &b->n_out), "SessionGetOutputCount") ||
        ort_ok(ort.GetAllocatorWithDefaultOptions(&alloc), "GetAllocatorWithDefaultOptions"))
        return -1;
    if (b->n_in > MAX_IO || b->n_out > MAX_IO || b->n_out == 0 || (o->ndata && (size_t)o->ndata != b->n_in)) {
        fprintf(stderr, "ort_bench: model has %zu inputs / %zu outputs, %d files given\n", b->n_in, b->n_out,
                o->ndata);
        return -1;
    }
    for (size_t i = 0; i < b->n_in; i++) {
        char *p = NULL;
        if (ort_ok(ort.SessionGetInputName(b->s, i, alloc, &p), "SessionGetInputName") ||
            !(b->in_name[i] = take_name(alloc, p)))
            return -1;
    }
    for (size_t i = 0; i < b->n_out; i++) {
        char *p = NULL;
        if (ort_ok(ort.SessionGetOutputName(b->s, i, alloc, &p), "SessionGetOutputName") ||
            !(b->out_name[i] = take_name(alloc, p)))
            return -1;
    }

    for (size_t i = 0; i < b->n_in; i++) {
        int type = 0;
        int64_t dims[MAX_DIMS];
        size_t nd = 0;
        if (input_decl(b->s, i, &type, dims, &nd))
            return -1;
        const npy_array *a = o->ndata ? &o->data[i] : NULL;
        int64_t shape[MAX_DIMS];
        size_t bytes;
        if (a) {
            /* The data must be what the model declares: a wrong table entry
             * or a wrong file both show up here. */
            int ok = npy_to_onnx(a->dtype) == type && (size_t)a->ndim == nd;
            for (size_t d = 0; ok && d < nd; d++)
                ok = dims[d] < 0 || dims[d] == a->shape[d];
            if (!ok) {
                fprintf(stderr, "ort_bench: input %zu (%s): model declares type %d rank %zu, data is %s rank %d\n",
                        i, b->in_name[i], type, nd, npy_dtype_name(a->dtype), a->ndim);
                return -1;
            }
            memcpy(shape, a->shape, nd * sizeof(int64_t));
            bytes = a->nbytes;
        } else {
            size_t count = 1;
            for (size_t d = 0; d < nd; d++) {
                if (dims[d] < 0) {
                    fprintf(stderr, "ort_bench: input %s has a dynamic shape: give --inputs\n", b->in_name[i]);
                    return -1;
                }
                shape[d] = dims[d];
                count *= (size_t)dims[d];
            }
            if (!type_size(type)) {
                fprintf(stderr, "ort_bench: input %s: unsupported type %d\n", b->in_name[i], type);
                return -1;
            }
            bytes = count * type_size(type);
        }
        if (!(b->in_buf[i] = buf_alloc(bytes)))
            return -1;
        b->in_bytes[i] = bytes;
        b->in_ndim[i] = (int)nd;
        memcpy(b->in_shape[i], shape, nd * sizeof(int64_t));
        if (a)
            memcpy(b->in_buf[i], a->data, bytes);
        else
            fill(b->in_buf[i], bytes, type);
        if (ort_ok(ort.CreateTensorWithDataAsOrtValue(g_cpu, b->in_buf[i], bytes, shape, nd, type, &b->in[i]),
                   "CreateTensorWithDataAsOrtValue (input)"))
            return -1;
    }

    double t1 = now_ms();
    if (sess_run(b))   /* outputs all NULL: ORT allocates them */
        return -1;
    b->first_ms = now_ms() - t1;
    if (adopt_outputs(b))
        return -1;
    if (o->iobinding) {
        if (ort_ok(ort.CreateIoBinding(b->s, &b->bind), "CreateIoBinding"))
            return -1;
        for (size_t i = 0; i < b->n_in; i++)
            if (ort_ok(ort.BindInput(b->bind, b->in_name[i], b->in[i]), "BindInput"))
                return -1;
        for (size_t i = 0; i < b->n_out; i++)
            if (ort_ok(ort.BindOutput(b->bind, b->out_name[i], b->out[i]), "BindOutput"))
                return -1;
    }
    return 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        if ((unsigned char)*s >= 0x20)
            putchar(*s);
    }
    putchar('"');
}

static void json_names(char **names, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            printf(", ");
        json_str(names[i]);
    }
    putchar(']');
}

/* --outdir: output_<i>.npy and outputs.json, as tools/ortref writes them. */
static int save_outputs(const sess *b, const char *dir)
{
    char path[4096], err[256];
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/outputs.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "ort_bench: cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "{\n \"runtime\": \"onnxruntime-c\",\n \"ort_version\": \"%s\",\n \"outputs\": [", g_version);
    for (size_t i = 0; i < b->n_out; i++) {
        snprintf(path, sizeof path, "%s/output_%zu.npy", dir, i);
        int t = onnx_to_npy(b->out_type[i]);
        if (npy_write(path, t, b->out_ndim[i], b->out_shape[i], b->out_buf[i], err, sizeof err)) {
            fprintf(stderr, "ort_bench: %s: %s\n", path, err);
            fclose(f);
            return -1;
        }
        fprintf(f, "%s\n  {\"name\": \"%s\", \"dtype\": \"%s\", \"shape\": [", i ? "," : "", b->out_name[i],
                npy_dtype_name(t));
        for (int d = 0; d < b->out_ndim[i]; d++)
            fprintf(f, "%s%lld", d ? ", " : "", (long long)b->out_shape[i][d]);
        fprintf(f, "], \"file\": \"output_%zu.npy\"}", i);
    }
    fprintf(f, "\n ]\n}\n");
    fclose(f);
    return 0;
}

/* ---- throughput mode ---- */

typedef struct worker {
    pthread_t th;
    const options *o;
    pthread_barrier_t *ready;
    int ok;
    double runs, wall_ms;
    sess b;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    int ok = !sess_setup(&w->b, w->o);
    for (int k = 0; ok && k < w->o->warmup; k++)
        ok = !sess_run(&w->b);
    pthread_barrier_wait(w->ready);   /* every session made: start together */
    double t0 = now_ms(), end = t0 + w->o->min_time * 1e3;
    long n = 0;
    while (ok && now_ms() < end) {
        ok = !sess_run(&w->b);
        n++;
    }
    w->wall_ms = now_ms() - t0;
    w->runs = (double)n;
    w->ok = ok;
    sess_free(&w->b);
    return NULL;
}

static int run_parallel(const options *o, int npar, long base_kb)
{
    worker w[MAX_PAR];
    pthread_barrier_t ready;
    pthread_barrier_init(&ready, NULL, (unsigned)npar);
    memset(w, 0, sizeof w);
    double c0 = cpu_ms();
    for (int i = 0; i < npar; i++) {
        w[i].o = o;
        w[i].ready = &ready;
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
    printf("{\n \"model\": ");
    json_str(o->model);
    printf(",\n \"runtime\": \"onnxruntime-c\",\n \"ort_version\": \"%s\",\n \"parallel\": %d,\n"
           " \"threads\": %d,\n \"throughput_per_s\": %.3f,\n \"per_worker_per_s\": [",
           g_version, npar, o->threads, total);
    for (int i = 0; i < npar; i++)
        printf("%s%.3f", i ? ", " : "", w[i].runs / (w[i].wall_ms / 1e3));
    printf("],\n \"cpu_per_wall\": %.2f,\n \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld\n}\n",
           wall > 0 ? (cpu_ms() - c0) / wall : 0.0, base_kb, status_kb("VmHWM"));
    return 0;
}

/* ---- paired mode: openacl in the same process ---- */

#include "acl/acl.h"

#define PAIR_API(X)                                                                             \
    X(aclInit) X(aclrtSetDevice) X(aclrtResetDevice) X(aclFinalize) X(aclGetRecentErrMsg)       \
    X(aclrtMalloc) X(aclrtFree) X(aclCreateDataBuffer) X(aclDestroyDataBuffer)                  \
    X(aclmdlLoadFromFile) X(aclmdlUnload) X(aclmdlCreateDesc) X(aclmdlDestroyDesc)             \
    X(aclmdlGetDesc) X(aclmdlGetNumInputs) X(aclmdlGetNumOutputs) X(aclmdlGetInputSizeByIndex) \
    X(aclmdlGetOutputSizeByIndex) X(aclmdlCreateDataset) X(aclmdlDestroyDataset)               \
    X(aclmdlAddDatasetBuffer) X(aclmdlExecute) X(aclmdlGetInputDataType) X(aclCreateTensorDesc)      \
    X(aclDestroyTensorDesc) X(aclmdlSetDatasetTensorDesc) X(aclmdlGetDatasetBuffer) X(aclGetDataBufferAddr)
#define PAIR_FIELD(f) __typeof__(&f) f;
static struct { PAIR_API(PAIR_FIELD) } acl;

typedef struct oacl {
    uint32_t id;
    int loaded;
    size_t n_out_dyn;
    size_t out_dyn[MAX_IO];     /* outputs the runtime allocates (no static size) */
    aclmdlDesc *desc;
    aclmdlDataset *in, *out;
    void *mem[2 * MAX_IO];
    int nmem;
} oacl;

static int acl_ok(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return 0;
    const char *m = acl.aclGetRecentErrMsg ? acl.aclGetRecentErrMsg() : NULL;
    fprintf(stderr, "ort_bench: %s failed: error %d\n  %s\n", what, (int)rc, m ? m : "(no message)");
    return -1;
}

static int oacl_open(const char *lib, int threads)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "ort_bench: cannot load %s: %s\n", lib, dlerror());
        return -1;
    }
#define PAIR_SYM(f)                                                                  \
    if (!(*(void **)&acl.f = dlsym(h, #f))) {                                        \
        fprintf(stderr, "ort_bench: %s lacks %s\n", lib, #f);                        \
        return -1;                                                                   \
    }
    PAIR_API(PAIR_SYM)
#undef PAIR_SYM
    char t[16];
    snprintf(t, sizeof t, "%d", threads);
    setenv("OPENACL_THREADS", t, 1);
    aclError ir = acl.aclInit(NULL);
    if (ir != ACL_SUCCESS && ir != ACL_ERROR_REPEAT_INITIALIZE && acl_ok(ir, "aclInit"))
        return -1;
    return acl_ok(acl.aclrtSetDevice(0), "aclrtSetDevice");
}

/* The model through AscendCL, fed the ORT session's input bytes. */
static int oacl_setup(oacl *m, const char *model, const sess *b)
{
    if (acl_ok(acl.aclmdlLoadFromFile(model, &m->id), "aclmdlLoadFromFile"))
        return -1;
    m->loaded = 1;
    if (!(m->desc = acl.aclmdlCreateDesc()) || acl_ok(acl.aclmdlGetDesc(m->desc, m->id), "aclmdlGetDesc"))
        return -1;
    size_t ni = acl.aclmdlGetNumInputs(m->desc), no = acl.aclmdlGetNumOutputs(m->desc);
    if (ni != b->n_in || no > MAX_IO) {
        fprintf(stderr, "ort_bench: openacl sees %zu inputs, ORT %zu\n", ni, b->n_in);
        return -1;
    }
    m->in = acl.aclmdlCreateDataset();
    m->out = acl.aclmdlCreateDataset();
    if (!m->in || !m->out)
        return -1;
    for (size_t i = 0; i < ni + no; i++) {
        int in = i < ni;
        size_t size = in ? acl.aclmdlGetInputSizeByIndex(m->desc, i) : acl.aclmdlGetOutputSizeByIndex(m->desc, i - ni);
        void *p = NULL;
        /* a dynamic input takes ORT's bytes and shape; a dynamic output is
         * allocated by the runtime at the first run (a NULL, 0 buffer) */
        int dyn = size == 0;
        if (in && dyn)
            size = b->in_bytes[i];
        if (size && acl_ok(acl.aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc"))
            return -1;
        if (p)
            m->mem[m->nmem++] = p;
        if (in) {
            if (size != b->in_bytes[i]) {
                fprintf(stderr, "ort_bench: input %zu: openacl wants %zu bytes, ORT has %zu\n", i, size,
                        b->in_bytes[i]);
                return -1;
            }
            memcpy(p, b->in_buf[i], size);
        } else if (dyn) {
            m->out_dyn[m->n_out_dyn++] = i - ni;
        }
        aclDataBuffer *d = acl.aclCreateDataBuffer(p, size);
        if (!d || acl.aclmdlAddDatasetBuffer(in ? m->in : m->out, d) != ACL_SUCCESS)
            return -1;
        if (in && dyn) {
            aclTensorDesc *td = acl.aclCreateTensorDesc(acl.aclmdlGetInputDataType(m->desc, i), b->in_ndim[i],
                                                        b->in_shape[i], ACL_FORMAT_ND);
            int bad = !td || acl_ok(acl.aclmdlSetDatasetTensorDesc(m->in, td, i), "aclmdlSetDatasetTensorDesc");
            if (td)
                acl.aclDestroyTensorDesc(td);
            if (bad)
                return -1;
        }
    }
    return 0;
}

static void oacl_free(oacl *m)
{
    for (size_t k = 0; m->out && k < m->n_out_dyn; k++) {
        void *p = acl.aclGetDataBufferAddr(acl.aclmdlGetDatasetBuffer(m->out, m->out_dyn[k]));
        if (p)
            acl.aclrtFree(p);   /* what the runtime allocated for a dynamic output */
    }
    if (m->in)
        acl.aclmdlDestroyDataset(m->in);
    if (m->out)
        acl.aclmdlDestroyDataset(m->out);
    for (int i = 0; i < m->nmem; i++)
        acl.aclrtFree(m->mem[i]);
    if (m->desc)
        acl.aclmdlDestroyDesc(m->desc);
    if (m->loaded)
        acl.aclmdlUnload(m->id);
}

typedef struct series {
    double *v;
    size_t n, cap;
} series;

static int series_add(series *s, double x)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 1024;
        double *g = realloc(s->v, c * sizeof *g);
        if (!g)
            return -1;
        s->v = g;
        s->cap = c;
    }
    s->v[s->n++] = x;
    return 0;
}


static int run_pair(const options *o, const char *lib, double turn)
{
    sess b;
    oacl m;
    memset(&b, 0, sizeof b);
    memset(&m, 0, sizeof m);
    series lat[2] = { { 0 } }, turn_med[2] = { { 0 } }, one = { 0 }, ratio = { 0 };
    int rc = 1;
    if (sess_setup(&b, o) || oacl_open(lib, o->threads) ||
        oacl_setup(&m, o->pair_model ? o->pair_model : o->model, &b))
        goto done;
    for (int k = 0; k < o->warmup + 1; k++)
        if (sess_run(&b) || acl_ok(acl.aclmdlExecute(m.id, m.in, m.out), "aclmdlExecute"))
            goto done;
    double spent[2] = { 0, 0 };
    int turns = 0;
    /* turn pairs until both runtimes ran min_time and min_runs (ORT first
     * in even pairs, openacl first in odd ones) */
    while (spent[0] < o->min_time * 1e3 || spent[1] < o->min_time * 1e3 || lat[0].n < (size_t)o->min_runs ||
           lat[1].n < (size_t)o->min_runs) {
        for (int h = 0; h < 2; h++) {
            int r = (turns + h) % 2;   /* 0 ORT, 1 openacl */
            one.n = 0;
            /* untimed pause of 0.25 s: the other runtime's idle workers stop
             * spinning before this turn starts (OpenMP's GOMP_SPINCOUNT wait
             * is ~0.5 ms; ORT's pool was seen spinning for over 20 ms, and
             * took a core from openacl's first runs at 2 threads) */
            nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = 250 * 1000000L }, NULL);
            double t0 = now_ms();
            do {
                double t = now_ms();
                if (r == 0 ? sess_run(&b) : acl_ok(acl.aclmdlExecute(m.id, m.in, m.out), "aclmdlExecute"))
                    goto done;
                double dt = now_ms() - t;
                if (series_add(&lat[r], dt) || series_add(&one, dt))
                    goto done;
            } while (now_ms() - t0 < turn * 1e3);
            spent[r] += now_ms() - t0;
            if (series_add(&turn_med[r], median_of(one.v, one.n)))
                goto done;
        }
        turns++;
    }
    /* per pair of adjacent turns: ORT median / openacl median */
    for (size_t i = 0; i < turn_med[0].n && i < turn_med[1].n; i++)
        if (turn_med[1].v[i] > 0 && series_add(&ratio, turn_med[0].v[i] / turn_med[1].v[i]))
            goto done;
    double mo = median_of(lat[0].v, lat[0].n), ma = median_of(lat[1].v, lat[1].n);
    printf("{\n \"model\": ");
    json_str(o->model);
    printf(",\n \"runtime\": \"pair\",\n \"ort_version\": \"%s\",\n \"threads\": %d,\n \"turn_s\": %.3f,\n"
           " \"turns\": %d,\n \"ort\": {\"median_ms\": %.4f, \"min_ms\": %.4f, \"runs\": %zu},\n"
           " \"openacl\": {\"median_ms\": %.4f, \"min_ms\": %.4f, \"runs\": %zu},\n"
           " \"speedup\": %.4f,\n \"speedup_turn_median\": %.4f\n}\n",
           g_version, o->threads, turn, turns, mo, lat[0].v[0], lat[0].n, ma, lat[1].v[0], lat[1].n,
           ma > 0 ? mo / ma : 0.0, median_of(ratio.v, ratio.n));
    rc = 0;
done:
    oacl_free(&m);
    sess_free(&b);
    for (int i = 0; i < 2; i++) {
        free(lat[i].v);
        free(turn_med[i].v);
    }
    free(one.v);
    free(ratio.v);
    if (acl.aclrtResetDevice) {
        acl.aclrtResetDevice(0);
        acl.aclFinalize();
    }
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: ort_bench --model M [--inputs a.npy,...] [--threads N] [--warmup N] [--min-time S]\n"
                    "                 [--min-runs N] [--parallel N] [--iobinding] [--config key=value]...\n"
                    "                 [--outdir D] [--ort-lib PATH] [--profile PREFIX]\n"
                    "       ort_bench --model M [--threads N] [--min-time S] --pair-openacl LIBASCENDCL [--turn S]\n"
                    "                 [--pair-model F]\n"
                    "       ort_bench --empty [--ort-lib PATH]\n");
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    o.warmup = 5;
    o.min_runs = 10;
    o.min_time = 3.0;
    const char *inputs = NULL, *lib = NULL, *outdir = NULL, *pair = NULL;
    int npar = 0, empty = 0;
    double turn = 0.5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (has && !strcmp(a, "--model"))
            o.model = argv[++i];
        else if (has && !strcmp(a, "--inputs"))
            inputs = argv[++i];
        else if (has && !strcmp(a, "--threads"))
            o.threads = atoi(argv[++i]);
        else if (has && !strcmp(a, "--warmup"))
            o.warmup = atoi(argv[++i]);
        else if (has && !strcmp(a, "--min-time"))
            o.min_time = atof(argv[++i]);
        else if (has && !strcmp(a, "--min-runs"))
            o.min_runs = atoi(argv[++i]);
        else if (has && !strcmp(a, "--parallel"))
            npar = atoi(argv[++i]);
        else if (has && !strcmp(a, "--outdir"))
            outdir = argv[++i];
        else if (has && !strcmp(a, "--ort-lib"))
            lib = argv[++i];
        else if (has && !strcmp(a, "--pair-openacl"))
            pair = argv[++i];
        else if (has && !strcmp(a, "--pair-model"))
            o.pair_model = argv[++i];
        else if (has && !strcmp(a, "--profile"))
            o.profile = argv[++i];
        else if (has && !strcmp(a, "--turn"))
            turn = atof(argv[++i]);
        else if (has && !strcmp(a, "--config") && o.ncfg < MAX_CFG && strchr(argv[i + 1], '=')) {
            char *kv = argv[++i], *eq = strchr(kv, '=');
            *eq = '\0';
            o.cfg_key[o.ncfg] = kv;
            o.cfg_val[o.ncfg++] = eq + 1;
        } else if (!strcmp(a, "--iobinding"))
            o.iobinding = 1;
        else if (!strcmp(a, "--empty"))
            empty = 1;
        else {
            usage();
            return 2;
        }
    }
    if ((!o.model && !empty) || o.threads < 1 || o.min_runs < 1 || o.warmup < 0 || npar < 0 || npar > MAX_PAR) {
        usage();
        fprintf(stderr, "ort_bench: --model is required; --threads >= 1; --parallel 1..%d\n", MAX_PAR);
        return 2;
    }

    char pbuf[4096];
    int rc = ort_load(lib_path(lib, pbuf, sizeof pbuf));
    if (rc)
        return rc;
    long base_kb = status_kb("VmRSS");
    if (empty) {
        printf("{\n \"runtime\": \"onnxruntime-c\",\n \"ort_version\": \"%s\",\n \"api_version\": %u,\n"
               " \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld\n}\n",
               g_version, g_api_version, base_kb, status_kb("VmHWM"));
        return 0;
    }

    npy_array data[MAX_IO];
    memset(data, 0, sizeof data);
    char *list = inputs ? strdup(inputs) : NULL;
    rc = 1;
    for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        char err[512];
        if (o.ndata == MAX_IO || npy_read(t, &data[o.ndata], err, sizeof err)) {
            fprintf(stderr, "ort_bench: %s: %s\n", t, o.ndata == MAX_IO ? "too many inputs" : err);
            goto out;
        }
        o.ndata++;
    }
    o.data = data;

    if (npar) {
        rc = run_parallel(&o, npar, base_kb);
        goto out;
    }
    if (pair) {
        rc = turn > 0 ? run_pair(&o, pair, turn) : 2;
        goto out;
    }

    sess b;
    memset(&b, 0, sizeof b);
    double *lat = NULL;
    if (sess_setup(&b, &o))
        goto done;
    if (outdir) {
        /* The saved outputs come from a run into the preallocated buffers,
         * the path the timing uses. */
        if (!sess_run(&b) && !save_outputs(&b, outdir))
            rc = 0;
        goto done;
    }
    for (int k = 0; k < o.warmup; k++)
        if (sess_run(&b))
            goto done;
    size_t cap = 1024, n = 0;
    lat = malloc(cap * sizeof(double));
    double start = now_ms(), c0 = cpu_ms();
    while (lat && (n < (size_t)o.min_runs || now_ms() - start < o.min_time * 1e3)) {
        double t = now_ms();
        if (sess_run(&b))
            goto done;
        double dt = now_ms() - t;
        if (n == cap) {
            double *grown = realloc(lat, 2 * cap * sizeof(double));
            if (!grown)
                goto done;
            lat = grown;
            cap *= 2;
        }
        lat[n++] = dt;
    }
    if (!lat)
        goto done;
    double wall = now_ms() - start, cpu = cpu_ms() - c0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += lat[i];
    double median = median_of(lat, n);
    size_t p90 = (size_t)ceil(0.9 * (double)n);
    printf("{\n \"model\": ");
    json_str(o.model);
    printf(",\n \"runtime\": \"onnxruntime-c\",\n \"ort_version\": \"%s\",\n \"api_version\": %u,\n"
           " \"threads\": %d,\n \"call\": \"%s\",\n \"inputs\": ",
           g_version, g_api_version, o.threads, o.iobinding ? "RunWithBinding" : "Run");
    json_names(b.in_name, b.n_in);
    printf(",\n \"outputs\": ");
    json_names(b.out_name, b.n_out);
    printf(",\n \"session_create_ms\": %.2f,\n \"first_run_ms\": %.2f,\n \"warmup\": %d,\n"
           " \"latency_ms\": {\"median\": %.4f, \"mean\": %.4f, \"p90\": %.4f, \"min\": %.4f, "
           "\"max\": %.4f, \"runs\": %zu},\n \"cpu_per_wall\": %.2f,\n"
           " \"baseline_rss_kb\": %ld,\n \"peak_rss_kb\": %ld,\n \"maxrss_kb\": %ld\n}\n",
           b.create_ms, b.first_ms, o.warmup, median, sum / n, lat[p90 ? p90 - 1 : 0], lat[0], lat[n - 1], n,
           wall > 0 ? cpu / wall : 0.0, base_kb, status_kb("VmHWM"), maxrss_kb());
    rc = 0;

done:
    sess_free(&b);
    free(lat);
out:
    for (int i = 0; i < o.ndata; i++)
        npy_free(&data[i]);
    free(list);
    ort.ReleaseMemoryInfo(g_cpu);
    ort.ReleaseEnv(g_env);
    return rc;
}
