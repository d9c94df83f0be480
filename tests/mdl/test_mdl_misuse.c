/* Every misuse of the aclmdl API returns the documented code and leaves a
 * message naming the call and the bad value: calls before aclInit, bad
 * files (missing, empty, truncated, garbage, a real Huawei .om header,
 * over-large), wrong dataset counts, NULL and too-small buffers, memory not
 * from the allocator, unknown ids, unload twice, the wrong context, bad
 * config values, gears on a model without gears, unsupported features.
 * Runs under ASan too: no crash, no leak.
 * Usage: test_mdl_misuse <models-dir> <scratch-dir> */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "mdl_test.h"

static const char *g_tmp;

static char *tmp_path(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, 1024, "%s/%s", g_tmp, name);
    return p;
}

static void before_init(void)
{
    uint32_t id;
    CHECK_ERR(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id), ACL_ERROR_UNINITIALIZE, "aclmdlLoadFromFile");
    CHECK_ERR(aclmdlExecute(1, NULL, NULL), ACL_ERROR_UNINITIALIZE, "aclmdlExecute");
    CHECK_ERR(aclmdlUnload(1), ACL_ERROR_UNINITIALIZE, "aclmdlUnload");
    size_t a, b;
    CHECK_ERR(aclmdlQuerySize(path_of("add_relu.onnx"), &a, &b), ACL_ERROR_UNINITIALIZE, "aclmdlQuerySize");
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_ERR(aclmdlGetDesc(d, 1), ACL_ERROR_UNINITIALIZE, "aclmdlGetDesc");
    aclmdlDestroyDesc(d);
}

static void bad_files(void)
{
    uint32_t id = 12345;
    CHECK_ERR(aclmdlLoadFromFile(tmp_path("does_not_exist.om"), &id), ACL_ERROR_INVALID_FILE, "does_not_exist.om");
    CHECK_ERR(aclmdlLoadFromFile(g_tmp, &id), ACL_ERROR_INVALID_FILE, "not a regular file");
    CHECK_ERR(aclmdlLoadFromFile(NULL, &id), ACL_ERROR_INVALID_PARAM, "modelPath is NULL");
    CHECK_ERR(aclmdlLoadFromFile(path_of("add_relu.onnx"), NULL), ACL_ERROR_INVALID_PARAM, "modelId is NULL");

    write_all(tmp_path("empty.om"), "", 0);
    CHECK_ERR(aclmdlLoadFromFile(tmp_path("empty.om"), &id), ACL_ERROR_INVALID_FILE_SIZE, "empty");

    size_t len;
    unsigned char *img = read_all(path_of("gemm.onnx"), &len);
    /* every proper prefix is refused cleanly, never crashes */
    for (size_t cut = 1; cut < len; cut += (cut < 16 ? 1 : 7)) {
        write_all(tmp_path("trunc.om"), img, cut);
        (void)aclGetRecentErrMsg();
        int rc = aclmdlLoadFromFile(tmp_path("trunc.om"), &id);
        const char *m = aclGetRecentErrMsg();
        CHECK(rc != ACL_SUCCESS);
        CHECK(m && strstr(m, "aclmdlLoadFromFile"));
        if (rc == ACL_SUCCESS)
            aclmdlUnload(id);
    }
    write_all(tmp_path("trunc.om"), img, len / 2);
    CHECK_ERR(aclmdlLoadFromFile(tmp_path("trunc.om"), &id), ACL_ERROR_PARSE_MODEL, "truncated");
    CHECK_ERR(aclmdlLoadFromMem(img, len - 3, &id), ACL_ERROR_PARSE_MODEL, "truncated");

    unsigned char junk[300];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 73 + 11);
    junk[0] = 0xff;
    write_all(tmp_path("garbage.om"), junk, sizeof junk);
    CHECK_ERR(aclmdlLoadFromFile(tmp_path("garbage.om"), &id), ACL_ERROR_PARSE_MODEL, "unrecognised model format");
    /* a Huawei ATC .om: 256-byte header with magic "IMOD" */
    memset(junk, 0, sizeof junk);
    memcpy(junk, "IMOD", 4);
    write_all(tmp_path("resnet50.om"), junk, sizeof junk);
    CHECK_ERR(aclmdlLoadFromFile(tmp_path("resnet50.om"), &id), ACL_ERROR_PARSE_MODEL, "Huawei CANN .om");
    CHECK_ERR(aclmdlLoadFromMem(junk, sizeof junk, &id), ACL_ERROR_PARSE_MODEL, "Huawei");
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_ERR(aclmdlGetDescFromFile(d, tmp_path("resnet50.om")), ACL_ERROR_PARSE_MODEL, "Huawei");
    size_t w1, w2;
    CHECK_ERR(aclmdlQuerySize(tmp_path("garbage.om"), &w1, &w2), ACL_ERROR_PARSE_MODEL, "aclmdlQuerySize");
    /* an ONNX model under any name: recognised by content */
    write_all(tmp_path("model.om"), img, len);
    CHECK_OK(aclmdlLoadFromFile(tmp_path("model.om"), &id));
    CHECK_OK(aclmdlUnload(id));
    CHECK_OK(aclmdlGetDescFromFile(d, tmp_path("model.om")));
    CHECK(aclmdlGetNumInputs(d) == 1);
    CHECK_OK(aclmdlGetDescFromMem(d, img, len));
    CHECK(aclmdlGetNumOutputs(d) == 1);
    aclmdlDestroyDesc(d);
    free(img);

    /* over-large: a sparse 3 GiB file is refused by size, without reading it */
    int fd = open(tmp_path("huge.om"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd >= 0 && write(fd, "\x08\x07", 2) == 2 && ftruncate(fd, (off_t)3 << 30) == 0) {
        close(fd);
        CHECK_ERR(aclmdlLoadFromFile(tmp_path("huge.om"), &id), ACL_ERROR_INVALID_FILE_SIZE, "2 GiB");
    } else if (fd >= 0) {
        close(fd);
    }
    unlink(tmp_path("huge.om"));
}

static void build_io(aclmdlDataset **in, aclmdlDataset **out, void **mem, int n_in, int n_out, size_t sz)
{
    *in = aclmdlCreateDataset();
    *out = aclmdlCreateDataset();
    for (int i = 0; i < n_in + n_out; i++) {
        mem[i] = dev_alloc(sz);
        CHECK_OK(aclmdlAddDatasetBuffer(i < n_in ? *in : *out, aclCreateDataBuffer(mem[i], sz)));
    }
}

static void free_io(aclmdlDataset *in, aclmdlDataset *out, void **mem, int n)
{
    for (int k = 0; k < 2; k++) {
        aclmdlDataset *ds = k ? out : in;
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds, i));
        aclmdlDestroyDataset(ds);
    }
    for (int i = 0; i < n; i++)
        aclrtFree(mem[i]);
}

static void bad_execute(void)
{
    uint32_t id;
    CHECK_OK(aclmdlLoadFromFile(path_of("add_relu.onnx"), &id));
    aclmdlDataset *in, *out;
    void *mem[4];
    build_io(&in, &out, mem, 2, 2, 24);
    CHECK_OK(aclmdlExecute(id, in, out));

    /* unknown ids */
    CHECK_ERR(aclmdlExecute(id + 1000, in, out), ACL_ERROR_INVALID_MODEL_ID, "model id");
    char idtxt[32];
    snprintf(idtxt, sizeof idtxt, "%u", id + 1000);
    CHECK_ERR(aclmdlExecute(id + 1000, in, out), ACL_ERROR_INVALID_MODEL_ID, idtxt);
    CHECK_ERR(aclmdlUnload(0), ACL_ERROR_INVALID_MODEL_ID, "model id 0");
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_ERR(aclmdlGetDesc(d, 777777), ACL_ERROR_INVALID_MODEL_ID, "777777");

    /* NULL datasets */
    CHECK_ERR(aclmdlExecute(id, NULL, out), ACL_ERROR_INVALID_PARAM, "input dataset is NULL");
    CHECK_ERR(aclmdlExecute(id, in, NULL), ACL_ERROR_INVALID_PARAM, "output dataset is NULL");

    /* wrong counts */
    aclmdlDataset *one = aclmdlCreateDataset();
    aclDataBuffer *b = aclCreateDataBuffer(mem[0], 24);
    aclmdlAddDatasetBuffer(one, b);
    CHECK_ERR(aclmdlExecute(id, one, out), ACL_ERROR_MODEL_INPUT_NOT_MATCH, "has 2 inputs but the input dataset "
              "holds 1 buffer");
    CHECK_ERR(aclmdlExecute(id, in, one), ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, "has 2 outputs");
    aclDestroyDataBuffer(b);
    aclmdlDestroyDataset(one);

    /* too small, NULL address, foreign memory */
    aclDataBuffer *b1 = aclmdlGetDatasetBuffer(in, 1);
    CHECK_OK(aclUpdateDataBuffer(b1, mem[1], 12));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "input 1 \"Y\"");
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "expected 24 bytes, given 12");
    CHECK_OK(aclUpdateDataBuffer(b1, NULL, 24));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "address is NULL");
    float host[6] = {0};
    CHECK_OK(aclUpdateDataBuffer(b1, host, 24));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "not memory from aclrtMalloc");
    /* a declared size past the end of the allocation */
    CHECK_OK(aclUpdateDataBuffer(b1, mem[1], 4096));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "past the end");
    /* pinned host memory is accepted */
    void *pinned = NULL;
    CHECK_OK(aclrtMallocHost(&pinned, 24));
    memset(pinned, 0, 24);
    CHECK_OK(aclUpdateDataBuffer(b1, pinned, 24));
    CHECK_OK(aclmdlExecute(id, in, out));
    CHECK_OK(aclUpdateDataBuffer(b1, mem[1], 24));
    aclrtFreeHost(pinned);
    aclDataBuffer *o0 = aclmdlGetDatasetBuffer(out, 0);
    CHECK_OK(aclUpdateDataBuffer(o0, mem[2], 20));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "output 0 \"Z\"");
    CHECK_OK(aclUpdateDataBuffer(o0, NULL, 8));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "(NULL, 0)");
    CHECK_OK(aclUpdateDataBuffer(o0, mem[2], 24));
    /* an input descriptor that contradicts the static shape */
    int64_t dims[2] = {3, 2};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(in, td, 0));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "does not fit");
    CHECK_OK(aclmdlSetDatasetTensorDesc(in, NULL, 0));
    CHECK_ERR(aclmdlSetDatasetTensorDesc(in, td, 5), ACL_ERROR_INVALID_PARAM, "index 5");
    aclDestroyTensorDesc(td);
    CHECK_OK(aclmdlExecute(id, in, out));

    /* async: validation errors come back at once */
    CHECK_ERR(aclmdlExecuteAsync(id + 1000, in, out, NULL), ACL_ERROR_INVALID_MODEL_ID, "model id");
    CHECK_OK(aclUpdateDataBuffer(b1, mem[1], 12));
    CHECK_ERR(aclmdlExecuteAsync(id, in, out, NULL), ACL_ERROR_INVALID_PARAM, "expected 24 bytes");
    CHECK_OK(aclUpdateDataBuffer(b1, mem[1], 24));

    /* gears: this model has none */
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, 0, 4), (int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "no batch gears");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, 0, 0), ACL_ERROR_INVALID_PARAM, "batchSize is 0");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, 9, 4), ACL_ERROR_INVALID_PARAM, "index 9");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, 0, 224, 224), (int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "gears");
    aclmdlIODims gd;
    memset(&gd, 0, sizeof gd);
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, 0, &gd), ACL_ERROR_INVALID_PARAM, "dimCount is 0");
    CHECK_OK(aclmdlGetDesc(d, id));
    size_t n;
    CHECK_ERR(aclmdlGetInputDynamicGearCount(d, 0, &n), ACL_ERROR_INVALID_PARAM, "must be -1");
    aclmdlIODims dd;
    CHECK_ERR(aclmdlGetInputDims(d, 7, &dd), ACL_ERROR_INVALID_PARAM, "input index 7 out of range");
    CHECK(aclmdlGetInputSizeByIndex(d, 7) == 0);
    (void)aclGetRecentErrMsg();
    CHECK(aclmdlGetInputNameByIndex(d, 7) == NULL);
    CHECK(aclmdlGetInputDataType(d, 7) == ACL_DT_UNDEFINED);
    CHECK(aclmdlGetOutputFormat(NULL, 0) == ACL_FORMAT_UNDEFINED);
    CHECK(aclmdlGetNumInputs(NULL) == 0);
    (void)aclGetRecentErrMsg();
    aclAippInfo ai;
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 0, &ai), (int)ACL_ERROR_GE_AIPP_NOT_EXIST, "has no AIPP");

    /* the wrong context */
    aclrtContext main_ctx, other;
    CHECK_OK(aclrtGetCurrentContext(&main_ctx));
    CHECK_OK(aclrtCreateContext(&other, 0));  /* now current */
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_RESOURCE_NOT_MATCH, "same context");
    CHECK_ERR(aclmdlExecuteAsync(id, in, out, NULL), ACL_ERROR_RESOURCE_NOT_MATCH, "loaded under context");
    CHECK_ERR(aclmdlUnload(id), ACL_ERROR_RESOURCE_NOT_MATCH, "aclmdlUnload");
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclmdlExecute(id, in, out));

    /* unload twice */
    CHECK_OK(aclmdlUnload(id));
    CHECK_ERR(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID, "not loaded");
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_MODEL_ID, "not loaded");
    aclmdlDestroyDesc(d);
    free_io(in, out, mem, 4);
}

static int g_thread_rc;
static char g_thread_msg[512];

static void *load_without_context(void *arg)
{
    uint32_t id;
    g_thread_rc = aclmdlLoadFromFile(path_of("add_relu.onnx"), &id);
    const char *m = aclGetRecentErrMsg();
    snprintf(g_thread_msg, sizeof g_thread_msg, "%s", m ? m : "");
    if (g_thread_rc == ACL_SUCCESS)
        aclmdlUnload(id);
    return NULL;
}

/* A thread that never set a device or context has no context to load into. */
static void no_context(void)
{
    pthread_t th;
    pthread_create(&th, NULL, load_without_context, NULL);
    pthread_join(th, NULL);
    CHECK(g_thread_rc == (int)ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(strstr(g_thread_msg, "aclmdlLoadFromFile") != NULL);
}

static void bad_config(void)
{
    uint32_t id;
    aclmdlConfigHandle *h = aclmdlCreateConfigHandle();
    CHECK_ERR(aclmdlLoadWithConfig(h, &id), ACL_ERROR_INVALID_PARAM, "ACL_MDL_LOAD_TYPE_SIZET");
    size_t t = ACL_MDL_LOAD_FROM_FILE_WITH_Q;
    CHECK_ERR(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &t, sizeof t), ACL_ERROR_FEATURE_UNSUPPORTED, "queue");
    t = 9;
    CHECK_ERR(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &t, sizeof t), ACL_ERROR_INVALID_PARAM, "1..6");
    t = ACL_MDL_LOAD_FROM_FILE;
    CHECK_ERR(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &t, 4), ACL_ERROR_INVALID_PARAM, "valueSize is 4");
    CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &t, sizeof t));
    CHECK_ERR(aclmdlLoadWithConfig(h, &id), ACL_ERROR_INVALID_PARAM, "ACL_MDL_PATH_PTR");
    int32_t prio = 9;
    CHECK_ERR(aclmdlSetConfigOpt(h, ACL_MDL_PRIORITY_INT32, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM, "[0, 7]");
    size_t q = 1;
    CHECK_ERR(aclmdlSetConfigOpt(h, ACL_MDL_INPUTQ_NUM_SIZET, &q, sizeof q), ACL_ERROR_FEATURE_UNSUPPORTED, "queue");
    CHECK_ERR(aclmdlSetConfigOpt(h, (aclmdlConfigAttr)77, &q, sizeof q), ACL_ERROR_INVALID_PARAM, "unknown");
    CHECK_ERR(aclmdlSetConfigOpt(NULL, ACL_MDL_MEM_SIZET, &q, sizeof q), ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclmdlDestroyConfigHandle(h);
    CHECK_ERR(aclmdlDestroyConfigHandle(NULL), ACL_ERROR_INVALID_PARAM, "NULL");

    aclmdlExecConfigHandle *e = aclmdlCreateExecConfigHandle();
    int32_t bad = -5;
    CHECK_ERR(aclmdlSetExecConfigOpt(e, ACL_MDL_STREAM_SYNC_TIMEOUT, &bad, sizeof bad), ACL_ERROR_INVALID_PARAM,
              "-5");
    CHECK_ERR(aclmdlSetExecConfigOpt(e, ACL_MDL_WORK_SIZET, &bad, sizeof bad), ACL_ERROR_INVALID_PARAM, "size_t");
    aclmdlDestroyExecConfigHandle(e);

    aclmdlAttrValue_t v;
    v.mdlPriority = 8;
    CHECK_ERR(aclmdlSetAttribute(1, ACL_MDL_ATTR_PRIORITY_INT32, &v), ACL_ERROR_INVALID_PARAM, "[0, 7]");
    v.mdlPriority = 1;
    CHECK_ERR(aclmdlSetAttribute(4242, ACL_MDL_ATTR_PRIORITY_INT32, &v), ACL_ERROR_INVALID_MODEL_ID, "4242");
}

static void unsupported(void)
{
    uint32_t id;
    CHECK(aclmdlCreateAIPP(0) == NULL);
    const char *m = aclGetRecentErrMsg();
    CHECK(m && strstr(m, "aclmdlCreateAIPP") && strstr(m, "batchSize 0"));
    CHECK_ERR(aclmdlBundleLoadFromFile(path_of("gemm.onnx"), &id), ACL_ERROR_FEATURE_UNSUPPORTED,
              "aclmdlBundleLoadFromFile");
    CHECK_ERR(aclmdlLoadFromFileWithQ(path_of("gemm.onnx"), &id, NULL, 0, NULL, 0), ACL_ERROR_FEATURE_UNSUPPORTED,
              "not supported");
    CHECK_ERR(aclmdlSetAIPPInputFormat(NULL, ACL_YUV420SP_U8), ACL_ERROR_INVALID_PARAM, "aippParmsSet is NULL");
    CHECK_ERR(aclmdlCreateAndGetOpDesc(0, 0, 0, NULL, 0, NULL, NULL, NULL, NULL), ACL_ERROR_FEATURE_UNSUPPORTED,
              "aclmdlCreateAndGetOpDesc");
    CHECK_ERR(aclRecoverAllHcclTasks(0), ACL_ERROR_FEATURE_UNSUPPORTED, "Hccl");
    /* the dump calls in the wrong order (tests/debug covers the dump itself) */
    CHECK_ERR(aclmdlSetDump("dump.json"), ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump first");
    CHECK_ERR(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump");
    CHECK_OK(aclmdlInitDump());
    CHECK_ERR(aclmdlInitDump(), ACL_ERROR_DUMP_ALREADY_RUN, "already");
    CHECK_OK(aclmdlFinalizeDump());
    /* NULL handles */
    CHECK_ERR(aclmdlDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
    CHECK_ERR(aclmdlDestroyDataset(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
    CHECK_ERR(aclmdlAddDatasetBuffer(NULL, NULL), ACL_ERROR_INVALID_PARAM, "NULL");
    CHECK(aclmdlGetDatasetBuffer(NULL, 0) == NULL);
    CHECK(aclmdlGetDatasetNumBuffers(NULL) == 0);
    (void)aclGetRecentErrMsg();
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <models-dir> <scratch-dir>\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    g_tmp = argv[2];
    before_init();
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    bad_files();
    bad_execute();
    no_context();
    bad_config();
    unsupported();
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    if (g_failures)
        fprintf(stderr, "test_mdl_misuse: %d failure(s)\n", g_failures);
    else
        printf("test_mdl_misuse: all checks passed\n");
    return g_failures ? 1 : 0;
}
