/* The documented aclmdl flow end to end on small ONNX models built by
 * make_models.py, with numpy-computed expected outputs: load (every form),
 * describe, build datasets from aclrtMalloc'd memory, execute (sync, async
 * with a host callback, V2 with config), runtime-allocated and dynamic
 * outputs, float16, long-name aliases, external data, one model from several
 * threads and streams, and models left loaded at aclFinalize.
 * Usage: test_mdl_flow <models-dir> */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "mdl_test.h"

typedef struct io_set {
    aclmdlDataset *in, *out;
    void *inp[4], *outp[4];
    size_t insz[4], outsz[4];
    int ni, no;
} io_set;

/* Inputs from <model>.in<i>.bin, outputs sized from the description. */
static void io_make(const char *model, aclmdlDesc *desc, io_set *s)
{
    memset(s, 0, sizeof *s);
    s->ni = (int)aclmdlGetNumInputs(desc);
    s->no = (int)aclmdlGetNumOutputs(desc);
    s->in = aclmdlCreateDataset();
    s->out = aclmdlCreateDataset();
    for (int i = 0; i < s->ni; i++) {
        s->inp[i] = dev_from_file(model, "in", i, &s->insz[i]);
        CHECK_OK(aclmdlAddDatasetBuffer(s->in, aclCreateDataBuffer(s->inp[i], s->insz[i])));
    }
    for (int i = 0; i < s->no; i++) {
        s->outsz[i] = aclmdlGetOutputSizeByIndex(desc, (size_t)i);
        s->outp[i] = s->outsz[i] ? dev_alloc(s->outsz[i]) : NULL;
        CHECK_OK(aclmdlAddDatasetBuffer(s->out, aclCreateDataBuffer(s->outp[i], s->outsz[i])));
    }
}

static void io_free(io_set *s)
{
    for (int k = 0; k < 2; k++) {
        aclmdlDataset *ds = k ? s->out : s->in;
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++) {
            aclDataBuffer *b = aclmdlGetDatasetBuffer(ds, i);
            void *p = aclGetDataBufferAddr(b);
            if (p)
                aclrtFree(p);
            aclDestroyDataBuffer(b);
        }
        CHECK_OK(aclmdlDestroyDataset(ds));
    }
}

static aclrtContext g_ctx;

/* ---- 1. file load, description, execute ---- */
static void test_add_relu(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id));
    CHECK(id != 0);
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetNumInputs(d) == 2);
    CHECK(aclmdlGetNumOutputs(d) == 2);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 24);
    CHECK(aclmdlGetOutputSizeByIndex(d, 1) == 24);
    CHECK(strcmp(aclmdlGetInputNameByIndex(d, 1), "Y") == 0);
    CHECK(strcmp(aclmdlGetOutputNameByIndex(d, 0), "Z") == 0);
    CHECK(aclmdlGetInputDataType(d, 0) == ACL_FLOAT);
    CHECK(aclmdlGetOutputFormat(d, 0) == ACL_FORMAT_ND);
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    CHECK(dims.dimCount == 2 && dims.dims[0] == 2 && dims.dims[1] == 3 && strcmp(dims.name, "X") == 0);
    CHECK_OK(aclmdlGetCurOutputDims(d, 1, &dims));
    CHECK(dims.dimCount == 2 && strcmp(dims.name, "W") == 0);
    size_t idx = 99;
    CHECK_OK(aclmdlGetOutputIndexByName(d, "W", &idx));
    CHECK(idx == 1);
    CHECK_ERR(aclmdlGetInputIndexByName(d, "nope", &idx), ACL_ERROR_INVALID_PARAM, "nope");
    CHECK_ERR(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &idx), ACL_ERROR_INVALID_PARAM,
              ACL_DYNAMIC_TENSOR_NAME);
    aclmdlBatch batch;
    batch.batchCount = 7;
    CHECK_OK(aclmdlGetDynamicBatch(d, &batch));
    CHECK(batch.batchCount == 0);
    aclmdlHW hw;
    hw.hwCount = 7;
    CHECK_OK(aclmdlGetDynamicHW(d, (size_t)-1, &hw));
    CHECK(hw.hwCount == 0);
    size_t gears = 7;
    CHECK_OK(aclmdlGetInputDynamicGearCount(d, (size_t)-1, &gears));
    CHECK(gears == 0);
    aclmdlIODimsRange range;
    CHECK_OK(aclmdlGetInputDimsRange(d, 1, &range));
    CHECK(range.rangeCount == 2 && range.range[1][0] == 3 && range.range[1][1] == 3);
    aclmdlInputAippType at;
    size_t attached;
    CHECK_OK(aclmdlGetAippType(id, 0, &at, &attached));
    CHECK(at == ACL_DATA_WITHOUT_AIPP && attached == (size_t)ACL_INVALID_NODE_INDEX);

    io_set s;
    io_make("add_relu", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "add_relu", 0, 24, 1e-6f));
    CHECK(dev_matches_f32(s.outp[1], "add_relu", 1, 24, 1e-6f));
    /* every output entry carries the actual shape afterwards */
    aclTensorDesc *td = aclmdlGetDatasetTensorDesc(s.out, 0);
    CHECK(td && aclGetTensorDescNumDims(td) == 2 && aclGetTensorDescType(td) == ACL_FLOAT);
    /* run again: same results */
    aclrtMemset(s.outp[0], 24, 0, 24);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "add_relu", 0, 24, 1e-6f));
    io_free(&s);
    CHECK_OK(aclmdlUnload(id));
    /* the description is a snapshot: still readable after unload */
    CHECK(aclmdlGetNumInputs(d) == 2 && strcmp(aclmdlGetInputNameByIndex(d, 0), "X") == 0);
    CHECK_OK(aclmdlDestroyDesc(d));

    /* a new load gets a new id, never the one just unloaded */
    uint32_t id2 = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id2));
    CHECK(id2 != id);
    CHECK_OK(aclmdlUnload(id2));
}

/* ---- 2. sizes, caller-owned memory, memory accounting ---- */
static size_t mem_used(void)
{
    size_t free_b = 0, total = 0;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    return total - free_b;
}

static void run_gemm(uint32_t id)
{
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    io_set s;
    io_make("gemm", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));
    io_free(&s);
    aclmdlDestroyDesc(d);
}

static void test_gemm_memory(void)
{
    size_t work = 0, weight = 0;
    CHECK_OK(aclmdlQuerySize(path_of("gemm.onnx"), &work, &weight));
    CHECK(weight >= 4 * 3 * 4);  /* W and B are kept */
    size_t len;
    void *img = read_all(path_of("gemm.onnx"), &len);
    size_t work2 = 1, weight2 = 1;
    CHECK_OK(aclmdlQuerySizeFromMem(img, len, &work2, &weight2));
    CHECK(work2 == work && weight2 == weight);
    size_t ws = 1;
    CHECK_OK(aclmdlQueryWorkspaceSize(path_of("gemm.onnx"), ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT, &ws));
    CHECK(ws == work);
    ws = 1;
    CHECK_OK(aclmdlQueryWorkspaceSizeFromMem(img, len, ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT, &ws));
    CHECK(ws == work);
    CHECK_ERR(aclmdlQueryWorkspaceSize(path_of("gemm.onnx"), 7, &ws), ACL_ERROR_INVALID_PARAM, "memOptimizeMode 7");
    aclmdlExeOMDesc od;
    CHECK_OK(aclmdlQueryExeOMDesc(path_of("gemm.onnx"), &od));
    CHECK(od.workSize == work && od.weightSize == weight);

    /* runtime-owned memory is visible to aclrtGetMemInfo */
    size_t before = mem_used();
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("gemm.onnx"), &id));
    CHECK(mem_used() >= before + weight);
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    CHECK(mem_used() == before);

    /* caller-owned work and weights, both, either, from file and memory */
    void *wk = work ? dev_alloc(work) : NULL, *wt = dev_alloc(weight);
    CHECK_OK(aclmdlLoadFromFileWithMem(path_of("gemm.onnx"), &id, wk, work, wt, weight));
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    CHECK_OK(aclmdlLoadFromMemWithMem(img, len, &id, NULL, 0, wt, weight));
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    CHECK_OK(aclmdlLoadFromMemWithMem(img, len, &id, wk, work, NULL, 0));
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    /* too small: both numbers in the message */
    char want[64];
    snprintf(want, sizeof want, "needs %zu bytes, %zu given", weight, weight - 4);
    CHECK_ERR(aclmdlLoadFromFileWithMem(path_of("gemm.onnx"), &id, NULL, 0, wt, weight - 4),
              ACL_ERROR_INVALID_PARAM, want);
    /* not allocator memory */
    void *hostmem = malloc(weight + 64);
    void *aligned = (void *)(((uintptr_t)hostmem + 63) & ~(uintptr_t)63);
    CHECK_ERR(aclmdlLoadFromFileWithMem(path_of("gemm.onnx"), &id, NULL, 0, aligned, weight),
              ACL_ERROR_INVALID_PARAM, "aclrtMalloc");
    free(hostmem);
    if (wk)
        aclrtFree(wk);
    aclrtFree(wt);

    /* memory image, and the image need not outlive the call */
    void *copy = malloc(len);
    memcpy(copy, img, len);
    CHECK_OK(aclmdlLoadFromMem(copy, len, &id));
    memset(copy, 0, len);
    free(copy);
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    free(img);
}

/* ---- 3. load config handle ---- */
static void test_config(void)
{
    aclmdlConfigHandle *h = aclmdlCreateConfigHandle();
    size_t type = ACL_MDL_LOAD_FROM_FILE;
    const char *p = path_of("gemm.onnx");
    int32_t prio = 3;
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_PATH_PTR, &p, sizeof p));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_PRIORITY_INT32, &prio, sizeof prio));
    uint32_t id;
    CHECK_OK(aclmdlLoadWithConfig(h, &id));
    aclmdlAttrValue_t v;
    CHECK_OK(aclmdlGetAttribute(id, ACL_MDL_ATTR_PRIORITY_INT32, &v));
    CHECK(v.mdlPriority == 3);
    v.mdlPriority = 5;
    CHECK_OK(aclmdlSetAttribute(id, ACL_MDL_ATTR_PRIORITY_INT32, &v));
    v.mdlPriority = 0;
    CHECK_OK(aclmdlGetAttribute(id, ACL_MDL_ATTR_PRIORITY_INT32, &v));
    CHECK(v.mdlPriority == 5);
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));

    /* memory with caller weights */
    size_t len, work = 0, weight = 0;
    void *img = read_all(path_of("gemm.onnx"), &len);
    CHECK_OK(aclmdlQuerySizeFromMem(img, len, &work, &weight));
    void *wt = dev_alloc(weight);
    type = ACL_MDL_LOAD_FROM_MEM_WITH_MEM;
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_ADDR_PTR, &img, sizeof img));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_SIZET, &len, sizeof len));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_ADDR_PTR, &wt, sizeof wt));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_SIZET, &weight, sizeof weight));
    CHECK_OK(aclmdlLoadWithConfig(h, &id));
    run_gemm(id);
    CHECK_OK(aclmdlUnload(id));
    aclrtFree(wt);
    free(img);
    CHECK_OK(aclmdlDestroyConfigHandle(h));
}

/* ---- 4. dynamic input shape through a tensor descriptor ---- */
static void test_dynamic(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("dyn.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    CHECK(dims.dimCount == 2 && dims.dims[0] == -1 && dims.dims[1] == 3);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 0);  /* unknown until execution */
    aclmdlIODimsRange r;
    CHECK_OK(aclmdlGetInputDimsRange(d, 0, &r));
    CHECK(r.rangeCount == 2 && r.range[0][1] == -1 && r.range[1][0] == 3);
    size_t ql = 1, qw = 1;
    CHECK_OK(aclmdlQuerySize(path_of("dyn.onnx"), &ql, &qw));
    CHECK(ql == 0);

    io_set s;
    memset(&s, 0, sizeof s);
    s.in = aclmdlCreateDataset();
    s.out = aclmdlCreateDataset();
    s.inp[0] = dev_from_file("dyn", "in", 0, &s.insz[0]);
    CHECK_OK(aclmdlAddDatasetBuffer(s.in, aclCreateDataBuffer(s.inp[0], s.insz[0])));
    s.outp[0] = dev_alloc(256);
    CHECK_OK(aclmdlAddDatasetBuffer(s.out, aclCreateDataBuffer(s.outp[0], 256)));
    /* without a descriptor the dynamic input cannot be run */
    CHECK_ERR(aclmdlExecute(id, s.in, s.out), ACL_ERROR_INVALID_PARAM, "aclmdlSetDatasetTensorDesc");
    int64_t shp[2] = {5, 3};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, shp, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(s.in, td, 0));
    aclDestroyTensorDesc(td);  /* the dataset keeps its own copy */
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "dyn", 0, 60, 1e-6f));
    aclTensorDesc *od = aclmdlGetDatasetTensorDesc(s.out, 0);
    int64_t d0 = 0, d1 = 0;
    CHECK(od && aclGetTensorDescNumDims(od) == 2);
    CHECK_OK(aclGetTensorDescDimV2(od, 0, &d0));
    CHECK_OK(aclGetTensorDescDimV2(od, 1, &d1));
    CHECK(d0 == 5 && d1 == 3);
    /* a descriptor that contradicts a fixed dim */
    int64_t bad[2] = {5, 4};
    td = aclCreateTensorDesc(ACL_FLOAT, 2, bad, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(s.in, td, 0));
    aclDestroyTensorDesc(td);
    CHECK_ERR(aclmdlExecute(id, s.in, s.out), ACL_ERROR_INVALID_PARAM, "does not fit");
    /* smaller batch through the same buffers */
    int64_t two[2] = {2, 3};
    td = aclCreateTensorDesc(ACL_FLOAT, 2, two, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(s.in, td, 0));
    aclDestroyTensorDesc(td);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    {
        size_t len;
        float *want = read_all(path_of("dyn.out0.bin"), &len), got[6];
        aclrtMemcpy(got, sizeof got, s.outp[0], sizeof got, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int i = 0; i < 6; i++)  /* rows 0-1 of the N=5 result */
            CHECK(fabsf(got[i] - want[i]) <= 1e-5f * (1 + fabsf(want[i])));
        free(want);
    }
    od = aclmdlGetDatasetTensorDesc(s.out, 0);
    CHECK_OK(aclGetTensorDescDimV2(od, 0, &d0));
    CHECK(d0 == 2);
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 5. float16 ---- */
static void test_fp16(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("fp16.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetInputDataType(d, 0) == ACL_FLOAT16);
    CHECK(aclmdlGetOutputDataType(d, 0) == ACL_FLOAT16);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 16);
    io_set s;
    io_make("fp16", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    size_t len;
    uint16_t *want = read_all(path_of("fp16.out0.bin"), &len);
    uint16_t got[8];
    aclrtMemcpy(got, sizeof got, s.outp[0], 16, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 8; i++) {
        float a = aclFloat16ToFloat(got[i]), b = aclFloat16ToFloat(want[i]);
        if (fabsf(a - b) > 2e-3f * (1 + fabsf(b))) {
            fprintf(stderr, "fp16 element %d: got %g want %g\n", i, a, b);
            g_failures++;
        }
    }
    free(want);
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 6. 4-D format label, weights, conv ---- */
static void test_conv(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("conv.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetInputFormat(d, 0) == ACL_FORMAT_NCHW);
    CHECK(aclmdlGetOutputFormat(d, 0) == ACL_FORMAT_NCHW);
    io_set s;
    io_make("conv", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "conv", 0, 108, 1e-4f));
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 7. long names are aliased ---- */
static void test_longname(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("longname.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "acl_modelId_%u_input_0_", id);
    CHECK(strncmp(dims.name, prefix, strlen(prefix)) == 0);
    const char *real = aclmdlGetTensorRealName(d, dims.name);
    CHECK(real && strlen(real) == 200 && strncmp(real, "input_xxx", 9) == 0);
    size_t idx = 9;
    CHECK_OK(aclmdlGetInputIndexByName(d, dims.name, &idx));
    CHECK(idx == 0);
    CHECK_OK(aclmdlGetInputIndexByName(d, real, &idx));
    CHECK_OK(aclmdlGetOutputDims(d, 0, &dims));
    snprintf(prefix, sizeof prefix, "acl_modelId_%u_output_0_", id);
    CHECK(strncmp(dims.name, prefix, strlen(prefix)) == 0);
    CHECK(strlen(aclmdlGetOutputNameByIndex(d, 0)) == 200);
    CHECK(aclmdlGetTensorRealName(d, "no_such_tensor") == NULL);
    io_set s;
    io_make("longname", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "longname", 0, 12, 0));
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 8. external data: found next to the file; memory loads need a folder ---- */
static void test_extdata(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("extdata.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    io_set s;
    io_make("extdata", d, &s);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "extdata", 0, 256, 1e-6f));
    CHECK_OK(aclmdlUnload(id));

    size_t len;
    void *img = read_all(path_of("extdata.onnx"), &len);
    uint32_t bad;
    CHECK_RC(aclmdlLoadFromMem(img, len, &bad) != ACL_SUCCESS, 1);
    (void)aclGetRecentErrMsg();
    aclmdlConfigHandle *h = aclmdlCreateConfigHandle();
    size_t type = ACL_MDL_LOAD_FROM_MEM;
    const char *dir = g_dir;
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_ADDR_PTR, &img, sizeof img));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_SIZET, &len, sizeof len));
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_PATH_PTR, &dir, sizeof dir));
    CHECK_OK(aclmdlLoadWithConfig(h, &id));
    aclrtMemset(s.outp[0], 256, 0, 256);
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    CHECK(dev_matches_f32(s.outp[0], "extdata", 0, 256, 1e-6f));
    CHECK_OK(aclmdlUnload(id));
    aclmdlDestroyConfigHandle(h);
    free(img);
    io_free(&s);
    aclmdlDestroyDesc(d);
}

/* ---- 9. runtime-allocated outputs; data-dependent output shape ---- */
static void test_auto_outputs(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    io_set s;
    io_make("add_relu", d, &s);
    aclDataBuffer *b0 = aclmdlGetDatasetBuffer(s.out, 0);
    aclrtFree(s.outp[0]);
    CHECK_OK(aclUpdateDataBuffer(b0, NULL, 0));
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    void *p = aclGetDataBufferAddr(b0);
    CHECK(p != NULL && aclGetDataBufferSizeV2(b0) == 24);
    if (p)
        CHECK(dev_matches_f32(p, "add_relu", 0, 24, 1e-6f));
    io_free(&s);  /* frees the runtime-allocated output with aclrtFree too */
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));

}

/* ---- 9b. data-dependent output shape (NonZero) into a runtime-allocated
 * output; run alone (--dynamic-output) so the main flow does not depend on it */
static void test_dynamic_output(void)
{
    uint32_t id;
    aclmdlDesc *d;
    io_set s;
    aclDataBuffer *b0;
    CHECK_OK(aclmdlLoadFromFile(path_of("nonzero.onnx"), &id));
    d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetOutputSizeByIndex(d, 0) == 0);
    CHECK(aclmdlGetOutputDataType(d, 0) == ACL_INT64);
    io_make("nonzero", d, &s);  /* output (NULL, 0): size unknown */
    CHECK_OK(aclmdlExecute(id, s.in, s.out));
    b0 = aclmdlGetDatasetBuffer(s.out, 0);
    CHECK(aclGetDataBufferSizeV2(b0) == 3 * 8);
    aclTensorDesc *od = aclmdlGetDatasetTensorDesc(s.out, 0);
    int64_t d1 = 0;
    CHECK(od && aclGetTensorDescNumDims(od) == 2 && aclGetTensorDescType(od) == ACL_INT64);
    CHECK_OK(aclGetTensorDescDimV2(od, 1, &d1));
    CHECK(d1 == 3);
    int64_t got[3] = {0};
    size_t len;
    int64_t *want = read_all(path_of("nonzero.out0.bin"), &len);
    if (aclGetDataBufferAddr(b0))
        aclrtMemcpy(got, sizeof got, aclGetDataBufferAddr(b0), 24, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(len == 24 && memcmp(got, want, 24) == 0);
    free(want);
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 10. async execute ordered before a host callback ---- */
static atomic_int g_stop;
static int g_cb_ok = -1;
static void *g_cb_out;

static void *report_loop(void *arg)
{
    aclrtSetCurrentContext(g_ctx);
    while (!atomic_load(&g_stop))
        (void)aclrtProcessReport(50);
    return NULL;
}

static void on_done(void *user)
{
    /* runs after the execution: its output must already be there */
    g_cb_ok = dev_matches_f32(g_cb_out, "gemm", 0, 12, 1e-5f);
}

/* A blocking callback holds the stream until the main thread opens the gate. */
static pthread_mutex_t g_gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;
static int g_gate_open;

static void gate(void *user)
{
    pthread_mutex_lock(&g_gate_mu);
    while (!g_gate_open)
        pthread_cond_wait(&g_gate_cv, &g_gate_mu);
    pthread_mutex_unlock(&g_gate_mu);
}

static void open_gate(void)
{
    pthread_mutex_lock(&g_gate_mu);
    g_gate_open = 1;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_mu);
}

static void test_async(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("gemm.onnx"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    aclrtStream st;
    CHECK_OK(aclrtCreateStream(&st));
    pthread_t th;
    pthread_create(&th, NULL, report_loop, NULL);
    CHECK_OK(aclrtSubscribeReport((uint64_t)th, st));
    io_set s;
    io_make("gemm", d, &s);
    g_cb_out = s.outp[0];
    CHECK_OK(aclmdlExecuteAsync(id, s.in, s.out, st));
    CHECK_OK(aclrtLaunchCallback(on_done, NULL, ACL_CALLBACK_BLOCK, st));
    CHECK_OK(aclrtSynchronizeStream(st));
    CHECK(g_cb_ok == 1);
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));

    /* V2 forms with an execute config */
    aclmdlExecConfigHandle *ec = aclmdlCreateExecConfigHandle();
    int32_t tmo = 1000;
    CHECK_OK(aclmdlSetExecConfigOpt(ec, ACL_MDL_STREAM_SYNC_TIMEOUT, &tmo, sizeof tmo));
    aclrtMemset(s.outp[0], 12, 0, 12);
    CHECK_OK(aclmdlExecuteAsyncV2(id, s.in, s.out, st, ec));
    CHECK_OK(aclrtSynchronizeStream(st));
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));
    aclrtMemset(s.outp[0], 12, 0, 12);
    CHECK_OK(aclmdlExecuteV2(id, s.in, s.out, st, ec));
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));
    aclrtMemset(s.outp[0], 12, 0, 12);
    CHECK_OK(aclmdlExecuteV2(id, s.in, s.out, NULL, NULL));
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));
    CHECK_OK(aclmdlDestroyExecConfigHandle(ec));

    /* a caller work area for one execution (ACL_MDL_WORK_ADDR_PTR) */
    size_t work = 0, weight = 0;
    CHECK_OK(aclmdlQuerySize(path_of("gemm.onnx"), &work, &weight));
    if (work) {
        ec = aclmdlCreateExecConfigHandle();
        void *wk = dev_alloc(work);
        CHECK_OK(aclmdlSetExecConfigOpt(ec, ACL_MDL_WORK_ADDR_PTR, &wk, sizeof wk));
        size_t small = work - 1;
        CHECK_OK(aclmdlSetExecConfigOpt(ec, ACL_MDL_WORK_SIZET, &small, sizeof small));
        CHECK_ERR(aclmdlExecuteV2(id, s.in, s.out, st, ec), ACL_ERROR_INVALID_PARAM, "too small");
        CHECK_OK(aclmdlSetExecConfigOpt(ec, ACL_MDL_WORK_SIZET, &work, sizeof work));
        aclrtMemset(s.outp[0], 12, 0, 12);
        CHECK_OK(aclmdlExecuteV2(id, s.in, s.out, st, ec));
        CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));
        aclrtFree(wk);
        CHECK_OK(aclmdlDestroyExecConfigHandle(ec));
    }

    /* default stream */
    aclrtMemset(s.outp[0], 12, 0, 12);
    CHECK_OK(aclmdlExecuteAsync(id, s.in, s.out, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK(dev_matches_f32(s.outp[0], "gemm", 0, 12, 1e-5f));

    /* an execution still queued when its model is unloaded fails cleanly,
     * reported by the stream's synchronize */
    uint32_t id2;
    CHECK_OK(aclmdlLoadFromFile(path_of("gemm.onnx"), &id2));
    CHECK_OK(aclrtLaunchCallback(gate, NULL, ACL_CALLBACK_BLOCK, st));
    CHECK_OK(aclmdlExecuteAsync(id2, s.in, s.out, st));
    CHECK_OK(aclmdlUnload(id2));
    open_gate();
    CHECK_ERR(aclrtSynchronizeStream(st), ACL_ERROR_INVALID_MODEL_ID, "unloaded before this execution ran");
    CHECK_OK(aclrtSynchronizeStream(st));  /* the error was reported once */

    CHECK_OK(aclrtUnSubscribeReport((uint64_t)th, st));
    atomic_store(&g_stop, 1);
    pthread_join(th, NULL);
    CHECK_OK(aclrtDestroyStream(st));
    io_free(&s);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 11. one model id from several threads and streams ---- */
#define N_THREADS 4
#define N_ITERS 25

typedef struct worker {
    uint32_t id;
    int t, async, errors;
} worker;

static void *work_loop(void *arg)
{
    worker *w = arg;
    aclrtSetCurrentContext(g_ctx);
    aclrtStream st = NULL;
    if (w->async && aclrtCreateStream(&st) != ACL_SUCCESS) {
        w->errors++;
        return NULL;
    }
    void *x = dev_alloc(24), *y = dev_alloc(24), *z = dev_alloc(24), *m = dev_alloc(24);
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(x, 24));
    aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(y, 24));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(z, 24));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(m, 24));
    for (int k = 0; k < N_ITERS; k++) {
        float hx[6], hy[6], hz[6], hm[6];
        for (int i = 0; i < 6; i++) {
            hx[i] = (float)(w->t * 100 + k) - 3.0f + (float)i;
            hy[i] = (float)(i - 2);
        }
        aclrtMemcpy(x, 24, hx, 24, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(y, 24, hy, 24, ACL_MEMCPY_HOST_TO_DEVICE);
        int rc = w->async ? aclmdlExecuteAsync(w->id, in, out, st) : aclmdlExecute(w->id, in, out);
        if (rc == ACL_SUCCESS && w->async)
            rc = aclrtSynchronizeStream(st);
        if (rc != ACL_SUCCESS) {
            fprintf(stderr, "thread %d iteration %d: %d %s\n", w->t, k, rc, aclGetRecentErrMsg());
            w->errors++;
            continue;
        }
        aclrtMemcpy(hz, 24, z, 24, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(hm, 24, m, 24, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int i = 0; i < 6; i++) {
            float s = hx[i] + hy[i];
            if (hz[i] != (s > 0 ? s : 0) || hm[i] != hx[i] * hy[i])
                w->errors++;
        }
    }
    for (int k = 0; k < 2; k++) {
        aclmdlDataset *ds = k ? out : in;
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds, i));
        aclmdlDestroyDataset(ds);
    }
    aclrtFree(x);
    aclrtFree(y);
    aclrtFree(z);
    aclrtFree(m);
    if (st)
        aclrtDestroyStream(st);
    return NULL;
}

static void test_threads(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id));
    pthread_t th[N_THREADS];
    worker w[N_THREADS];
    for (int t = 0; t < N_THREADS; t++) {
        w[t] = (worker){.id = id, .t = t, .async = t & 1};
        pthread_create(&th[t], NULL, work_loop, &w[t]);
    }
    for (int t = 0; t < N_THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(w[t].errors == 0);
    }
    CHECK_OK(aclmdlUnload(id));
}

/* ---- 12. models left loaded are unloaded by aclFinalize ---- */
static void test_finalize(void)
{
    uint32_t a, b;
    CHECK_OK(aclmdlLoadFromFile(path_of("gemm.onnx"), &a));
    CHECK_OK(aclmdlLoadFromFile(path_of("conv.onnx"), &b));
    CHECK_OK(aclFinalize());
    CHECK_RC(aclmdlUnload(a), ACL_ERROR_UNINITIALIZE);
    (void)aclGetRecentErrMsg();
    /* after a new init the old ids are gone */
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_ERR(aclmdlUnload(b), ACL_ERROR_INVALID_MODEL_ID, "is not loaded");
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <models-dir>\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&g_ctx));
    if (argc > 2 && strcmp(argv[2], "--dynamic-output") == 0) {
        test_dynamic_output();
        CHECK_OK(aclrtResetDevice(0));
        CHECK_OK(aclFinalize());
        printf("test_mdl_flow --dynamic-output: %d failure(s)\n", g_failures);
        return g_failures ? 1 : 0;
    }
    test_add_relu();
    test_gemm_memory();
    test_config();
    test_dynamic();
    test_fp16();
    test_conv();
    test_longname();
    test_extdata();
    test_auto_outputs();
    test_async();
    test_threads();
    test_finalize();
    if (g_failures)
        fprintf(stderr, "test_mdl_flow: %d failure(s)\n", g_failures);
    else
        printf("test_mdl_flow: all checks passed\n");
    return g_failures ? 1 : 0;
}
