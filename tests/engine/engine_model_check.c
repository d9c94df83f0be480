/* Developer tool: one real model through the engine API. Loads the model,
 * feeds input_<i>.npy from a data folder, runs it a number of times, reports
 * load/run times and the plan sizes, and compares output_<i>.npy from a
 * reference folder (max |a-b| / max|b|).
 *
 * usage: engine_model_check MODEL.onnx DATA_DIR [REF_DIR] [--runs N]
 *                           [--threads T] [--tol X]
 * Exit status 1 when an output is off by more than the tolerance (1e-3). */
#include "engine/engine.h"
#include "npy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *aclGetRecentErrMsg(void);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* npy codes are aclDataType values; the engine uses ONNX numbering. */
static int to_g(int npy)
{
    switch (npy) {
    case NPY_FLOAT32: return G_F32;
    case NPY_FLOAT16: return G_F16;
    case NPY_INT8: return G_I8;
    case NPY_INT32: return G_I32;
    case NPY_UINT8: return G_U8;
    case NPY_INT16: return G_I16;
    case NPY_UINT16: return G_U16;
    case NPY_UINT32: return G_U32;
    case NPY_INT64: return G_I64;
    case NPY_UINT64: return G_U64;
    case NPY_FLOAT64: return G_F64;
    case NPY_BOOL: return G_BOOL;
    default: return G_UNDEF;
    }
}

static void *alloc_out(void *c, size_t n) { (void)c; return malloc(n ? n : 1); }

static double as_d(int dt, const void *p, size_t i)
{
    switch (dt) {
    case G_F32: return ((const float *)p)[i];
    case G_F64: return ((const double *)p)[i];
    case G_I64: return (double)((const int64_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_I8: return ((const int8_t *)p)[i];
    default: return 0;
    }
}

int main(int argc, char **argv)
{
    const char *model = NULL, *data = NULL, *ref = NULL;
    int runs = 3, threads = 0;
    double tol = 1e-3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tol") && i + 1 < argc) tol = atof(argv[++i]);
        else if (!model) model = argv[i];
        else if (!data) data = argv[i];
        else if (!ref) ref = argv[i];
    }
    if (!model || !data) {
        fprintf(stderr, "usage: engine_model_check MODEL.onnx DATA_DIR [REF_DIR] [--runs N] "
                        "[--threads T] [--tol X]\n");
        return 2;
    }
    FILE *f = fopen(model, "rb");
    if (!f) { perror(model); return 2; }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    rewind(f);
    void *buf = malloc((size_t)sz);
    if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) { fprintf(stderr, "read failed\n"); return 2; }
    fclose(f);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", model);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; else strcpy(dir, ".");
    eng_opts o = { .threads = threads, .base_dir = dir };
    eng_model *m = NULL;
    double t0 = now_ms();
    int rc = eng_load(buf, (size_t)sz, &o, &m);
    double t_load = now_ms() - t0;
    free(buf);
    if (rc) { printf("load failed (%d): %s\n", rc, aclGetRecentErrMsg()); return 1; }
    t0 = now_ms();
    rc = eng_bind_weights(m, NULL);
    double t_bind = now_ms() - t0;
    if (rc) { printf("bind failed: %s\n", aclGetRecentErrMsg()); return 1; }
    int ni = eng_num_inputs(m), no = eng_num_outputs(m);
    printf("%s: %s, %d inputs, %d outputs, work %.1f MB, weights %.1f MB, load %.1f ms, bind %.1f ms\n",
           model, eng_is_static(m) ? "static" : "dynamic", ni, no, eng_work_size(m) / 1e6,
           eng_weight_size(m) / 1e6, t_load, t_bind);
    npy_array *ia = calloc((size_t)ni + 1, sizeof *ia);
    k_tensor *in = calloc((size_t)ni + 1, sizeof *in), *out = calloc((size_t)no + 1, sizeof *out);
    for (int i = 0; i < ni; i++) {
        char p[4200], err[256];
        snprintf(p, sizeof p, "%s/input_%d.npy", data, i);
        if (npy_read(p, &ia[i], err, sizeof err)) { printf("%s: %s\n", p, err); return 2; }
        in[i].dtype = to_g(ia[i].dtype);
        in[i].shape.rank = ia[i].ndim;
        for (int d = 0; d < ia[i].ndim && d < G_MAX_RANK; d++) in[i].shape.d[d] = ia[i].shape[d];
        in[i].data = ia[i].data;
        in[i].nbytes = ia[i].nbytes;
    }
    double best = 1e30, total = 0;
    for (int r = 0; r < runs; r++) {
        for (int k = 0; k < no; k++) { free(out[k].data); memset(&out[k], 0, sizeof out[k]); }
        t0 = now_ms();
        rc = eng_run(m, NULL, in, ni, out, no, alloc_out, NULL);
        double dt = now_ms() - t0;
        if (rc) { printf("run failed (%d): %s\n", rc, aclGetRecentErrMsg()); return 1; }
        if (dt < best) best = dt;
        total += dt;
    }
    printf("run: best %.2f ms, mean %.2f ms over %d runs\n", best, total / runs, runs);
    int bad = 0;
    for (int k = 0; ref && k < no; k++) {
        char p[4200], err[256];
        npy_array e;
        snprintf(p, sizeof p, "%s/output_%d.npy", ref, k);
        if (npy_read(p, &e, err, sizeof err)) { printf("%s: %s\n", p, err); bad = 1; continue; }
        size_t n = e.count;
        int same = e.ndim == out[k].shape.rank && to_g(e.dtype) == out[k].dtype;
        for (int d = 0; same && d < e.ndim; d++) same = e.shape[d] == out[k].shape.d[d];
        if (!same) {
            printf("output %d '%s': shape/type differs from the reference\n", k, eng_output(m, k)->name);
            bad = 1;
        } else {
            double maxd = 0, maxb = 1e-6;
            for (size_t i = 0; i < n; i++) {
                double a = as_d(out[k].dtype, out[k].data, i), b = as_d(out[k].dtype, e.data, i);
                if (fabs(b) > maxb) maxb = fabs(b);
                if (fabs(a - b) > maxd || isnan(a - b)) maxd = isnan(a - b) ? INFINITY : fabs(a - b);
            }
            printf("output %d '%s': max_rel %.3g%s\n", k, eng_output(m, k)->name, maxd / maxb,
                   maxd / maxb > tol ? "  <-- over tolerance" : "");
            if (maxd / maxb > tol) bad = 1;
        }
        npy_free(&e);
    }
    for (int k = 0; k < no; k++) free(out[k].data);
    for (int i = 0; i < ni; i++) npy_free(&ia[i]);
    free(ia); free(in); free(out);
    eng_free(m);
    return bad;
}
