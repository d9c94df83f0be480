/* mdl_run: runs one model through openacl's PUBLIC API only (aclmdl*,
 * aclrt*), the way an application would, for the real-model harness:
 *   mdl_run --model M.onnx --inputs in0.npy,in1.npy --outdir D [--loop N]
 * Inputs are matched to model inputs by position; outputs are written as
 * D/output_<i>.npy plus D/outputs.json (names, dtypes, shapes, timings). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "acl/acl.h"
#include "npy.h"

#define MAX_IO 64

/* While the library is being written some entry points may be missing:
 * reference them weakly so this program always links, and report "not
 * implemented yet" (exit 77, a CTest skip) instead of breaking the build. */
#define MDL_RUN_API(X)                                                                        \
    X(aclInit) X(aclFinalize) X(aclGetRecentErrMsg) X(aclrtSetDevice) X(aclrtResetDevice)      \
    X(aclrtMalloc) X(aclrtFree) X(aclrtMemcpy) X(aclCreateDataBuffer) X(aclDestroyDataBuffer)  \
    X(aclGetDataBufferAddr) X(aclGetDataBufferSizeV2) X(aclUpdateDataBuffer)                   \
    X(aclCreateTensorDesc) X(aclDestroyTensorDesc) X(aclGetTensorDescType)                     \
    X(aclGetTensorDescNumDims) X(aclGetTensorDescDimV2) X(aclmdlLoadFromFile) X(aclmdlUnload)  \
    X(aclmdlCreateDesc) X(aclmdlDestroyDesc) X(aclmdlGetDesc) X(aclmdlGetNumInputs)            \
    X(aclmdlGetNumOutputs) X(aclmdlGetInputNameByIndex) X(aclmdlGetOutputNameByIndex)          \
    X(aclmdlGetInputDataType) X(aclmdlGetOutputDataType) X(aclmdlGetInputDims)                 \
    X(aclmdlGetCurOutputDims) X(aclmdlGetInputSizeByIndex) X(aclmdlGetOutputSizeByIndex)       \
    X(aclmdlCreateDataset) X(aclmdlDestroyDataset) X(aclmdlAddDatasetBuffer)                   \
    X(aclmdlGetDatasetBuffer) X(aclmdlGetDatasetNumBuffers) X(aclmdlSetDatasetTensorDesc)      \
    X(aclmdlGetDatasetTensorDesc) X(aclmdlExecute)
#define MDL_PRAGMA(x) _Pragma(#x)
#define MDL_WEAK(f) MDL_PRAGMA(weak f)
MDL_RUN_API(MDL_WEAK)

static const char *first_missing(void)
{
#define MDL_MISSING(f) if (!f) return #f;
    MDL_RUN_API(MDL_MISSING)
#undef MDL_MISSING
    return NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Prints the failed call, its code and openacl's own message, and fails. */
static int acl_check(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return 0;
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "mdl_run: %s failed: error %d\n  %s\n", what, rc, msg ? msg : "(no message)");
    return -1;
}

static void usage(void)
{
    fprintf(stderr, "usage: mdl_run --model M --inputs a.npy[,b.npy...] --outdir D [--loop N]\n");
}

static int same_shape(const int64_t *a, size_t na, const int64_t *b, size_t nb, int allow_dyn)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a[i] != b[i] && !(allow_dyn && a[i] < 0))
            return 0;
    return 1;
}

static void fmt_shape(char *buf, size_t len, const int64_t *d, size_t n)
{
    size_t o = (size_t)snprintf(buf, len, "[");
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? "," : "", (long long)d[i]);
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

int main(int argc, char **argv)
{
    const char *model = NULL, *inputs = NULL, *outdir = NULL;
    int loop = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--model") == 0)
            model = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--inputs") == 0)
            inputs = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--outdir") == 0)
            outdir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--loop") == 0)
            loop = atoi(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    if (!model || !inputs || !outdir) {
        usage();
        return 2;
    }
    const char *missing = first_missing();
    if (missing) {
        fprintf(stderr, "mdl_run: libascendcl does not implement %s yet\n", missing);
        return 77;
    }
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mdl_run: cannot create %s: %s\n", outdir, strerror(errno));
        return 1;
    }

    /* Split the comma list of input files. */
    char *files[MAX_IO];
    int nfiles = 0;
    char *list = strdup(inputs);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (nfiles == MAX_IO) {
            fprintf(stderr, "mdl_run: more than %d inputs\n", MAX_IO);
            return 2;
        }
        files[nfiles++] = t;
    }

    int rc = 1;
    uint32_t id = 0;
    int loaded = 0, dev_set = 0;
    aclmdlDesc *desc = NULL;
    aclmdlDataset *in = NULL, *out = NULL;
    void *in_mem[MAX_IO] = {0}, *out_mem[MAX_IO] = {0};
    size_t n_in = 0, n_out = 0;
    npy_array arr[MAX_IO];
    memset(arr, 0, sizeof(arr));
    char err[512], s1[256], s2[256];

    aclError ir = aclInit(NULL);
    if (ir != ACL_SUCCESS && ir != ACL_ERROR_REPEAT_INITIALIZE && acl_check(ir, "aclInit"))
        goto done;
    if (acl_check(aclrtSetDevice(0), "aclrtSetDevice(0)"))
        goto done;
    dev_set = 1;

    double t0 = now_ms();
    if (acl_check(aclmdlLoadFromFile(model, &id), "aclmdlLoadFromFile"))
        goto done;
    double load_ms = now_ms() - t0;
    loaded = 1;
    desc = aclmdlCreateDesc();
    if (!desc || acl_check(aclmdlGetDesc(desc, id), "aclmdlGetDesc"))
        goto done;
    n_in = aclmdlGetNumInputs(desc);
    n_out = aclmdlGetNumOutputs(desc);
    if (n_in != (size_t)nfiles) {
        fprintf(stderr, "mdl_run: model has %zu inputs, got %d files\n", n_in, nfiles);
        goto done;
    }
    if (n_out > MAX_IO) {
        fprintf(stderr, "mdl_run: model has %zu outputs (max %d)\n", n_out, MAX_IO);
        goto done;
    }

    in = aclmdlCreateDataset();
    out = aclmdlCreateDataset();
    if (!in || !out) {
        fprintf(stderr, "mdl_run: aclmdlCreateDataset returned NULL\n");
        goto done;
    }
    for (size_t i = 0; i < n_in; i++) {
        npy_array *a = &arr[i];
        if (npy_read(files[i], a, err, sizeof(err))) {
            fprintf(stderr, "mdl_run: %s\n", err);
            goto done;
        }
        const char *name = aclmdlGetInputNameByIndex(desc, i);
        aclDataType dt = aclmdlGetInputDataType(desc, i);
        aclmdlIODims dims;
        if (acl_check(aclmdlGetInputDims(desc, i, &dims), "aclmdlGetInputDims"))
            goto done;
        size_t size = aclmdlGetInputSizeByIndex(desc, i);
        int dynamic = size == 0;
        for (size_t d = 0; d < dims.dimCount; d++)
            dynamic |= dims.dims[d] < 0;
        fmt_shape(s1, sizeof(s1), dims.dims, dims.dimCount);
        fmt_shape(s2, sizeof(s2), a->shape, (size_t)a->ndim);
        if ((int)dt != a->dtype) {
            fprintf(stderr, "mdl_run: input %zu '%s': model wants dtype %d, %s is %s\n", i,
                    name ? name : "?", (int)dt, files[i], npy_dtype_name(a->dtype));
            goto done;
        }
        if (!same_shape(dims.dims, dims.dimCount, a->shape, (size_t)a->ndim, 1) ||
            (!dynamic && size != a->nbytes)) {
            fprintf(stderr, "mdl_run: input %zu '%s': model shape %s (%zu bytes), %s has %s (%zu bytes)\n",
                    i, name ? name : "?", s1, size, files[i], s2, a->nbytes);
            goto done;
        }
        size_t nb = a->nbytes ? a->nbytes : 1;
        if (acl_check(aclrtMalloc(&in_mem[i], nb, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc(input)"))
            goto done;
        if (a->nbytes && acl_check(aclrtMemcpy(in_mem[i], nb, a->data, a->nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
                                   "aclrtMemcpy(input)"))
            goto done;
        aclDataBuffer *b = aclCreateDataBuffer(in_mem[i], a->nbytes);
        if (!b || acl_check(aclmdlAddDatasetBuffer(in, b), "aclmdlAddDatasetBuffer(input)"))
            goto done;
        if (dynamic) {
            /* The actual shape of a dynamic input travels in a tensor desc. */
            aclTensorDesc *td = aclCreateTensorDesc(dt, a->ndim, a->shape, ACL_FORMAT_ND);
            if (!td || acl_check(aclmdlSetDatasetTensorDesc(in, td, i), "aclmdlSetDatasetTensorDesc")) {
                aclDestroyTensorDesc(td);
                goto done;
            }
            aclDestroyTensorDesc(td);
        }
    }
    for (size_t i = 0; i < n_out; i++) {
        size_t size = aclmdlGetOutputSizeByIndex(desc, i);
        /* Size 0 (shape known only at run time): (NULL,0) asks the runtime
         * to allocate the output. */
        if (size && acl_check(aclrtMalloc(&out_mem[i], size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc(output)"))
            goto done;
        aclDataBuffer *b = aclCreateDataBuffer(out_mem[i], size);
        if (!b || acl_check(aclmdlAddDatasetBuffer(out, b), "aclmdlAddDatasetBuffer(output)"))
            goto done;
    }

    t0 = now_ms();
    if (acl_check(aclmdlExecute(id, in, out), "aclmdlExecute"))
        goto done;
    double first_ms = now_ms() - t0;
    double loop_ms = 0;
    for (int k = 0; k < loop; k++) {
        t0 = now_ms();
        if (acl_check(aclmdlExecute(id, in, out), "aclmdlExecute(loop)"))
            goto done;
        loop_ms += now_ms() - t0;
    }

    char path[4096];
    snprintf(path, sizeof(path), "%s/outputs.json", outdir);
    FILE *js = fopen(path, "w");
    if (!js) {
        fprintf(stderr, "mdl_run: cannot write %s\n", path);
        goto done;
    }
    fprintf(js, "{\n \"model\": \"%s\",\n \"load_ms\": %.3f,\n \"first_run_ms\": %.3f,\n", model, load_ms, first_ms);
    if (loop)
        fprintf(js, " \"loop_runs\": %d,\n \"loop_mean_ms\": %.4f,\n", loop, loop_ms / loop);
    fprintf(js, " \"outputs\": [");
    int ok = 1;
    for (size_t i = 0; i < n_out && ok; i++) {
        aclDataBuffer *b = aclmdlGetDatasetBuffer(out, i);
        void *addr = aclGetDataBufferAddr(b);
        size_t cap = aclGetDataBufferSizeV2(b);
        aclTensorDesc *td = aclmdlGetDatasetTensorDesc(out, i);
        int64_t shape[ACL_MAX_DIM_CNT];
        size_t nd = 0;
        aclDataType dt;
        if (td) {
            dt = aclGetTensorDescType(td);
            nd = aclGetTensorDescNumDims(td);
            for (size_t d = 0; d < nd && d < ACL_MAX_DIM_CNT; d++)
                if (acl_check(aclGetTensorDescDimV2(td, d, &shape[d]), "aclGetTensorDescDimV2"))
                    ok = 0;
        } else {
            aclmdlIODims dims;
            if (acl_check(aclmdlGetCurOutputDims(desc, i, &dims), "aclmdlGetCurOutputDims")) {
                ok = 0;
                break;
            }
            dt = aclmdlGetOutputDataType(desc, i);
            nd = dims.dimCount;
            memcpy(shape, dims.dims, nd * sizeof(int64_t));
        }
        size_t count = 1;
        for (size_t d = 0; d < nd; d++)
            count *= shape[d] < 0 ? 0 : (size_t)shape[d];
        size_t bytes = count * npy_dtype_size(dt);
        fmt_shape(s1, sizeof(s1), shape, nd);
        if (!ok || npy_dtype_size(dt) == 0 || bytes > cap || (bytes && !addr)) {
            fprintf(stderr, "mdl_run: output %zu: dtype %d shape %s needs %zu bytes, buffer %p holds %zu\n",
                    i, (int)dt, s1, bytes, addr, cap);
            ok = 0;
            break;
        }
        void *host = malloc(bytes ? bytes : 1);
        if (bytes && acl_check(aclrtMemcpy(host, bytes, addr, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                               "aclrtMemcpy(output)")) {
            free(host);
            ok = 0;
            break;
        }
        snprintf(path, sizeof(path), "%s/output_%zu.npy", outdir, i);
        if (npy_write(path, dt, (int)nd, shape, host, err, sizeof(err))) {
            fprintf(stderr, "mdl_run: %s\n", err);
            ok = 0;
        }
        free(host);
        const char *name = aclmdlGetOutputNameByIndex(desc, i);
        fprintf(js, "%s\n  {\"name\": \"%s\", \"dtype\": \"%s\", \"shape\": %s, \"file\": \"output_%zu.npy\"}",
                i ? "," : "", name ? name : "", npy_dtype_name(dt), s1, i);
        if (!out_mem[i] && addr) {
            /* Runtime-allocated output: ours to free; reset the buffer. */
            aclrtFree(addr);
            aclUpdateDataBuffer(b, NULL, 0);
        }
    }
    fprintf(js, "\n ]\n}\n");
    fclose(js);
    if (ok)
        rc = 0;

done:
    for (size_t i = 0; in && i < aclmdlGetDatasetNumBuffers(in); i++)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, i));
    for (size_t i = 0; out && i < aclmdlGetDatasetNumBuffers(out); i++)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(out, i));
    if (in)
        aclmdlDestroyDataset(in);
    if (out)
        aclmdlDestroyDataset(out);
    for (size_t i = 0; i < MAX_IO; i++) {
        if (in_mem[i])
            aclrtFree(in_mem[i]);
        if (out_mem[i])
            aclrtFree(out_mem[i]);
        npy_free(&arr[i]);
    }
    if (desc)
        aclmdlDestroyDesc(desc);
    if (loaded)
        acl_check(aclmdlUnload(id), "aclmdlUnload");
    if (dev_set)
        aclrtResetDevice(0);
    aclFinalize();
    free(list);
    return rc;
}
