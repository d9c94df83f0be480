/* Regression tests for compiled-model bugs found while fuzzing: each model
 * is compiled in process (eng_compile, what tools/atc runs), loaded with
 * aclmdlLoadFromMem and executed, and its output checked.
 *  - a model without any weight (its weight section is empty): the writer
 *    left the empty section's chunk size unset and the reader refused it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "engine/compile.h"
#include "onnx_writer.h"

static int g_fail;

static int run_compiled(const char *what, pb *onnx, const float *x, size_t nx, const float *want, size_t ny)
{
    eng_compile_req req;
    memset(&req, 0, sizeof req);
    req.threads = 1;
    req.out_dtype = G_UNDEF;
    void *img = NULL;
    size_t len = 0;
    int rc = eng_compile(onnx->p, onnx->n, &req, &img, &len);
    pb_free(onnx);
    if (rc) {
        printf("FAIL %s: compile: %s\n", what, aclGetRecentErrMsg());
        return 1;
    }
    uint32_t id = 0;
    rc = aclmdlLoadFromMem(img, len, &id);
    free(img);
    if (rc) {
        printf("FAIL %s: load: %s\n", what, aclGetRecentErrMsg());
        return 1;
    }
    void *din = NULL, *dout = NULL;
    float y[64] = { 0 };
    aclrtMalloc(&din, nx * 4, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclrtMalloc(&dout, ny * 4, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclrtMemcpy(din, nx * 4, x, nx * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(din, nx * 4), *bo = aclCreateDataBuffer(dout, ny * 4);
    aclmdlAddDatasetBuffer(in, bi);
    aclmdlAddDatasetBuffer(out, bo);
    rc = aclmdlExecute(id, in, out);
    if (rc) printf("FAIL %s: execute: %s\n", what, aclGetRecentErrMsg());
    aclrtMemcpy(y, ny * 4, dout, ny * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    int bad = rc != 0;
    for (size_t i = 0; !rc && i < ny; i++)
        if (y[i] != want[i]) { printf("FAIL %s: y[%zu] = %g, expected %g\n", what, i, y[i], want[i]); bad = 1; break; }
    aclDestroyDataBuffer(bi);
    aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(in);
    aclmdlDestroyDataset(out);
    aclrtFree(din);
    aclrtFree(dout);
    aclmdlUnload(id);
    if (!bad) printf("ok   %s\n", what);
    return bad;
}

int main(void)
{
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    if (aclInit(NULL) || aclrtSetDevice(0)) return 2;
    static const int64_t d23[2] = { 2, 3 };
    const float x[6] = { 1, 2, 3, 4, 5, 6 };
    /* y = x + x: no initializer at all */
    {
        pb g = { 0 }, m = { 0 };
        const char *in[] = { "x", "x", NULL }, *out[] = { "y", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Add", "add", in, out);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
        onnx_model(&m, &g, 13);
        const float want[6] = { 2, 4, 6, 8, 10, 12 };
        g_fail += run_compiled("weightless model compiled and loaded", &m, x, 6, want, 6);
    }
    /* y = x + w: one weight, so the weight section is not empty */
    {
        pb g = { 0 }, t = { 0 }, m = { 0 };
        const float w[6] = { 10, 20, 30, 40, 50, 60 };
        const char *in[] = { "x", "w", NULL }, *out[] = { "y", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Add", "add", in, out);
        onnx_tensor(&t, "w", ONNX_FLOAT, 2, d23, w, sizeof w);
        pb_msg(&g, 5, &t);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
        onnx_model(&m, &g, 13);
        const float want[6] = { 11, 22, 33, 44, 55, 66 };
        g_fail += run_compiled("model with a weight compiled and loaded", &m, x, 6, want, 6);
    }
    aclrtResetDevice(0);
    aclFinalize();
    return g_fail ? 1 : 0;
}
