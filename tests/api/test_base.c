/* acl_base.h conformance: data buffers, tensor descriptors, aclDataTypeSize
 * (CANN's table), float16 conversions (exhaustive round trip + CANN's
 * non-finite rules), aclAppLog truncation, aclGetRecentErrMsg semantics,
 * CANN attributes. None of it needs aclInit. */
#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "rt_test.h"

static void test_data_buffer(void)
{
    char mem[100];
    aclDataBuffer *b = aclCreateDataBuffer(mem, sizeof(mem));
    CHECK(b != NULL);
    CHECK(aclGetDataBufferAddr(b) == mem);
    CHECK_EQ_INT(aclGetDataBufferSizeV2(b), 100);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK_EQ_INT(aclGetDataBufferSize(b), 100);
    CHECK_EQ_INT(aclGetDataBufferSize(NULL), 0);
    MSG_NAMES("aclGetDataBufferSize");
#pragma GCC diagnostic pop
    OK(aclUpdateDataBuffer(b, mem + 10, 5));
    CHECK(aclGetDataBufferAddr(b) == mem + 10);
    CHECK_EQ_INT(aclGetDataBufferSizeV2(b), 5);
    FAILS(aclUpdateDataBuffer(NULL, mem, 1), ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer");
    OK(aclDestroyDataBuffer(b));
    /* (NULL, 0): an empty buffer for runtime-allocated outputs */
    b = aclCreateDataBuffer(NULL, 0);
    CHECK(b != NULL);
    CHECK(aclGetDataBufferAddr(b) == NULL);
    CHECK_EQ_INT(aclGetDataBufferSizeV2(b), 0);
    OK(aclDestroyDataBuffer(b));
    FAILS(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer");
    CHECK(aclGetDataBufferAddr(NULL) == NULL);
    MSG_NAMES("aclGetDataBufferAddr");
    CHECK_EQ_INT(aclGetDataBufferSizeV2(NULL), 0);
    MSG_NAMES("aclGetDataBufferSizeV2");
}

static void test_dtype(void)
{
    static const struct { aclDataType t; size_t n; } table[] = {
        {ACL_DT_UNDEFINED, 0}, {ACL_FLOAT, 4}, {ACL_FLOAT16, 2}, {ACL_INT8, 1}, {ACL_INT32, 4},
        {ACL_UINT8, 1}, {ACL_INT16, 2}, {ACL_UINT16, 2}, {ACL_UINT32, 4}, {ACL_INT64, 8},
        {ACL_UINT64, 8}, {ACL_DOUBLE, 8}, {ACL_BOOL, 1}, {ACL_STRING, 0}, {ACL_COMPLEX64, 8},
        {ACL_COMPLEX128, 16}, {ACL_BF16, 2}, {ACL_INT4, 1}, {ACL_UINT1, 1}, {ACL_COMPLEX32, 4},
        {ACL_HIFLOAT8, 1}, {ACL_FLOAT8_E5M2, 1}, {ACL_FLOAT8_E4M3FN, 1}, {ACL_FLOAT8_E8M0, 1},
        {ACL_FLOAT6_E3M2, 8}, {ACL_FLOAT6_E2M3, 8}, {ACL_FLOAT4_E2M1, 8}, {ACL_FLOAT4_E1M2, 8},
        {ACL_HIFLOAT4, 8}, {ACL_HIFLOAT4_SCALE, 8},
        {(aclDataType)5, 8}, {(aclDataType)1000, 8},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (aclDataTypeSize(table[i].t) != table[i].n) {
            fprintf(stderr, "aclDataTypeSize(%d) = %zu, expected %zu\n", (int)table[i].t, aclDataTypeSize(table[i].t),
                    table[i].n);
            g_failures++;
        }
    }
}

static void test_fp16(void)
{
    /* every finite half survives half -> float -> half */
    int bad = 0;
    for (unsigned h = 0; h < 0x10000; h++) {
        if ((h & 0x7C00) == 0x7C00) continue;
        float f = aclFloat16ToFloat((aclFloat16)h);
        if (aclFloatToFloat16(f) != (aclFloat16)h) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(aclFloat16ToFloat(0x3C00) == 1.0f);
    CHECK(aclFloat16ToFloat(0xC000) == -2.0f);
    CHECK(aclFloat16ToFloat(0x0001) == ldexpf(1.0f, -24));
    CHECK(aclFloat16ToFloat(0x7BFF) == 65504.0f);
    /* CANN's documented non-finite decoding */
    CHECK(aclFloat16ToFloat(0x7C00) == 65536.0f);
    CHECK(aclFloat16ToFloat(0xFC00) == -65536.0f);
    CHECK(aclFloat16ToFloat(0x7E00) == 98304.0f);
    /* saturating encoder */
    CHECK_EQ_INT(aclFloatToFloat16(INFINITY), 0x7BFF);
    CHECK_EQ_INT(aclFloatToFloat16(-INFINITY), 0xFBFF);
    CHECK_EQ_INT(aclFloatToFloat16(NAN), 0x7BFF);
    CHECK_EQ_INT(aclFloatToFloat16(1e9f), 0x7BFF);
    CHECK_EQ_INT(aclFloatToFloat16(-70000.0f), 0xFBFF);
    CHECK_EQ_INT(aclFloatToFloat16(65519.0f), 0x7BFF);
    /* rounding: nearest, ties to even */
    CHECK_EQ_INT(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11)), 0x3C00);          /* tie -> even */
    CHECK_EQ_INT(aclFloatToFloat16(1.0f + 3 * ldexpf(1.0f, -11)), 0x3C02);      /* tie -> even (up) */
    CHECK_EQ_INT(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11) + ldexpf(1.0f, -20)), 0x3C01);
    CHECK_EQ_INT(aclFloatToFloat16(ldexpf(1.0f, -25)), 0x0000);                 /* tie -> 0 */
    CHECK_EQ_INT(aclFloatToFloat16(ldexpf(1.5f, -25)), 0x0001);
    CHECK_EQ_INT(aclFloatToFloat16(-0.0f), 0x8000);
    CHECK_EQ_INT(aclFloatToFloat16(ldexpf(1.0f, -14)), 0x0400);                 /* smallest normal */
    CHECK_EQ_INT(aclFloatToFloat16(ldexpf(1023.5f, -24)), 0x0400);              /* subnormal carries */
}

static void test_tensor_desc(void)
{
    int64_t dims[4] = {2, 3, 4, 5};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT16, 4, dims, ACL_FORMAT_NCHW);
    CHECK(d != NULL);
    CHECK_EQ_INT(aclGetTensorDescType(d), ACL_FLOAT16);
    CHECK_EQ_INT(aclGetTensorDescFormat(d), ACL_FORMAT_NCHW);
    CHECK_EQ_INT(aclGetTensorDescNumDims(d), 4);
    CHECK_EQ_INT(aclGetTensorDescElementCount(d), 120);
    CHECK_EQ_INT(aclGetTensorDescSize(d), 240);
    int64_t v = 0;
    OK(aclGetTensorDescDimV2(d, 3, &v));
    CHECK_EQ_INT(v, 5);
    FAILS(aclGetTensorDescDimV2(d, 4, &v), ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2");
    FAILS(aclGetTensorDescDimV2(d, 0, NULL), ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK_EQ_INT(aclGetTensorDescDim(d, 1), 3);
    CHECK_EQ_INT(aclGetTensorDescDim(d, 9), -1);
    MSG_NAMES("aclGetTensorDescDim");
    OK(aclSetTensorStorageFormat(d, ACL_FORMAT_NC1HWC0));
    OK(aclSetTensorStorageShape(d, 2, dims));
    FAILS(aclSetTensorStorageShape(NULL, 2, dims), ACL_ERROR_INVALID_PARAM, "aclSetTensorStorageShape");
#pragma GCC diagnostic pop
    /* ranges */
    int64_t range[4][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {3, 3}, {4, 4}, {5, 5}};
    OK(aclSetTensorShapeRange(d, 4, range));
    int64_t r[2];
    OK(aclGetTensorDescDimRange(d, 0, 2, r));
    CHECK(r[0] == 1 && r[1] == 8);
    FAILS(aclGetTensorDescDimRange(d, 0, 3, r), ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange");
    FAILS(aclGetTensorDescDimRange(d, 7, 2, r), ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange");
    int64_t vr[2][ACL_TENSOR_VALUE_RANGE_NUM] = {{0, 1}, {2, 3}};
    OK(aclSetTensorValueRange(d, 2, vr));
    FAILS(aclSetTensorValueRange(d, 2, NULL), ACL_ERROR_INVALID_PARAM, "aclSetTensorValueRange");
    FAILS(aclSetTensorShapeRange(NULL, 1, range), ACL_ERROR_INVALID_PARAM, "aclSetTensorShapeRange");
    /* name */
    CHECK(strcmp(aclGetTensorDescName(d), "") == 0);
    aclSetTensorDescName(d, "input_0");
    CHECK(strcmp(aclGetTensorDescName(d), "input_0") == 0);
    aclSetTensorDescName(d, NULL);
    CHECK(strcmp(aclGetTensorDescName(d), "") == 0);
    aclSetTensorDescName(NULL, "x");
    MSG_NAMES("aclSetTensorDescName");
    /* setters */
    OK(aclSetTensorFormat(d, ACL_FORMAT_NHWC));
    CHECK_EQ_INT(aclGetTensorDescFormat(d), ACL_FORMAT_NHWC);
    OK(aclSetTensorOriginFormat(d, ACL_FORMAT_NCHW));
    OK(aclSetTensorOriginShape(d, 4, dims));
    int64_t nd[2] = {6, 7};
    OK(aclSetTensorShape(d, 2, nd));
    CHECK_EQ_INT(aclGetTensorDescNumDims(d), 2);
    CHECK_EQ_INT(aclGetTensorDescElementCount(d), 42);
    FAILS(aclSetTensorShape(d, -1, nd), ACL_ERROR_INVALID_PARAM, "aclSetTensorShape");
    FAILS(aclSetTensorShape(d, 2, NULL), ACL_ERROR_INVALID_PARAM, "aclSetTensorShape");
    OK(aclSetTensorDynamicInput(d, "grp"));
    FAILS(aclSetTensorDynamicInput(d, NULL), ACL_ERROR_INVALID_PARAM, "aclSetTensorDynamicInput");
    float cval[3] = {1, 2, 3};
    CHECK(aclGetTensorDescAddress(d) == NULL);
    OK(aclSetTensorConst(d, cval, sizeof(cval)));
    CHECK(aclGetTensorDescAddress(d) != NULL && memcmp(aclGetTensorDescAddress(d), cval, sizeof(cval)) == 0);
    FAILS(aclSetTensorConst(d, NULL, 4), ACL_ERROR_INVALID_PARAM, "aclSetTensorConst");
    OK(aclSetTensorPlaceMent(d, ACL_MEMTYPE_HOST));
    FAILS(aclSetTensorPlaceMent(d, (aclMemType)7), ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent");
    CHECK(aclGetTensorDescByIndex(d, 0) == d);
    CHECK(aclGetTensorDescByIndex(NULL, 0) == NULL);
    aclDestroyTensorDesc(d);

    /* format translation */
    d = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
    aclTensorDesc *t = NULL;
    OK(aclTransTensorDescFormat(d, ACL_FORMAT_NHWC, &t));
    int64_t x0, x1, x2, x3;
    aclGetTensorDescDimV2(t, 0, &x0);
    aclGetTensorDescDimV2(t, 1, &x1);
    aclGetTensorDescDimV2(t, 2, &x2);
    aclGetTensorDescDimV2(t, 3, &x3);
    CHECK(x0 == 2 && x1 == 4 && x2 == 5 && x3 == 3);
    CHECK_EQ_INT(aclGetTensorDescFormat(t), ACL_FORMAT_NHWC);
    aclDestroyTensorDesc(t);
    FAILS(aclTransTensorDescFormat(d, ACL_FORMAT_FRACTAL_NZ, &t), ACL_ERROR_FORMAT_NOT_MATCH,
          "aclTransTensorDescFormat");
    FAILS(aclTransTensorDescFormat(d, ACL_FORMAT_NHWC, NULL), ACL_ERROR_INVALID_PARAM, "aclTransTensorDescFormat");
    aclDestroyTensorDesc(d);

    /* scalar, unknown rank, unknown dims, bad create, NULL getters */
    d = aclCreateTensorDesc(ACL_INT64, 0, NULL, ACL_FORMAT_ND);
    CHECK(d != NULL);
    CHECK_EQ_INT(aclGetTensorDescNumDims(d), 0);
    CHECK_EQ_INT(aclGetTensorDescElementCount(d), 1);
    CHECK_EQ_INT(aclGetTensorDescSize(d), 8);
    aclDestroyTensorDesc(d);
    int64_t unk[1] = {-2};
    d = aclCreateTensorDesc(ACL_FLOAT, 1, unk, ACL_FORMAT_ND);
    CHECK(aclGetTensorDescNumDims(d) == (size_t)ACL_UNKNOWN_RANK);
    aclDestroyTensorDesc(d);
    int64_t dyn[2] = {-1, 3};
    d = aclCreateTensorDesc(ACL_FLOAT, 2, dyn, ACL_FORMAT_ND);
    CHECK_EQ_INT(aclGetTensorDescSize(d), 0);
    aclDestroyTensorDesc(d);
    CHECK(aclCreateTensorDesc(ACL_FLOAT, 2, NULL, ACL_FORMAT_ND) == NULL);
    MSG_NAMES("aclCreateTensorDesc");
    CHECK(aclCreateTensorDesc(ACL_FLOAT, -1, dims, ACL_FORMAT_ND) == NULL);
    MSG_NAMES("aclCreateTensorDesc");
    aclDestroyTensorDesc(NULL);
    CHECK_EQ_INT(aclGetTensorDescType(NULL), ACL_DT_UNDEFINED);
    MSG_NAMES("aclGetTensorDescType");
    CHECK_EQ_INT(aclGetTensorDescFormat(NULL), ACL_FORMAT_UNDEFINED);
    CHECK_EQ_INT(aclGetTensorDescSize(NULL), 0);
    CHECK_EQ_INT(aclGetTensorDescElementCount(NULL), 0);
    CHECK_EQ_INT(aclGetTensorDescNumDims(NULL), 0);
    CHECK(strcmp(aclGetTensorDescName(NULL), "") == 0);
    CHECK(aclGetTensorDescAddress(NULL) == NULL);
    FAILS(aclSetTensorFormat(NULL, ACL_FORMAT_ND), ACL_ERROR_INVALID_PARAM, "aclSetTensorFormat");
    FAILS(aclSetTensorOriginFormat(NULL, ACL_FORMAT_ND), ACL_ERROR_INVALID_PARAM, "aclSetTensorOriginFormat");
    FAILS(aclSetTensorOriginShape(NULL, 1, dims), ACL_ERROR_INVALID_PARAM, "aclSetTensorOriginShape");
    FAILS(aclSetTensorPlaceMent(NULL, ACL_MEMTYPE_HOST), ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent");
    FAILS(aclGetTensorDescDimRange(NULL, 0, 2, r), ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimRange");
    aclGetRecentErrMsg();
}

static void *other_thread(void *arg)
{
    (void)arg;
    /* the main thread's messages are not visible here */
    CHECK(aclGetRecentErrMsg() == NULL);
    aclUpdateDataBuffer(NULL, NULL, 0);
    return NULL;
}

static void test_recent_err_msg(void)
{
    aclGetRecentErrMsg();
    CHECK(aclGetRecentErrMsg() == NULL);
    aclDestroyDataBuffer(NULL);
    aclUpdateDataBuffer(NULL, NULL, 0);
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    const char *m = aclGetRecentErrMsg();
    CHECK(m != NULL);
    /* newest first, both present, only our thread's two */
    const char *a = m ? strstr(m, "aclUpdateDataBuffer") : NULL, *b = m ? strstr(m, "aclDestroyDataBuffer") : NULL;
    CHECK(a && b && a < b);
    CHECK(m && strstr(b, "aclUpdateDataBuffer") == NULL);
    CHECK(m && strstr(m, "ACL_ERROR_INVALID_PARAM") != NULL);
    CHECK(aclGetRecentErrMsg() == NULL); /* cleared */
    /* a thread that never asks does not grow without bound */
    for (int i = 0; i < 100000; i++) aclUpdateDataBuffer(NULL, NULL, 0);
    m = aclGetRecentErrMsg();
    CHECK(m && strlen(m) <= 16384);
}

static void test_attrs(void)
{
    const aclCannAttr *list = NULL;
    size_t n = 0;
    OK(aclGetCannAttributeList(&list, &n));
    CHECK(n == 3 && list != NULL);
    int32_t val = -1;
    OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &val));
    CHECK_EQ_INT(val, 1);
    OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &val));
    CHECK_EQ_INT(val, 0);
    FAILS(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &val), ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute");
    FAILS(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute");
    FAILS(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList");
    CHECK(aclrtGetSocName() != NULL);
    int64_t cap;
    FAILS(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cap), ACL_ERROR_UNINITIALIZE,
          "aclGetDeviceCapability");
}

static void test_app_log(void)
{
    /* capture stdout: ASCEND_SLOG_PRINT_TO_STDOUT=1 is set by the test */
    char path[] = "/tmp/oa_applogXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    ACL_APP_LOG(ACL_INFO, "short %d", 42);
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    ACL_APP_LOG(ACL_ERROR, "%s", big);
    aclAppLog(ACL_DEBUG, NULL, NULL, 0, "no func/file");
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    FILE *f = fopen(path, "r");
    char line[4096];
    int saw_short = 0, saw_trunc = 0, saw_debug = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (strstr(line, "short 42") && strstr(line, "test_base.c")) saw_short = 1;
        char *x = strstr(line, "xxxx");
        if (x) {
            char *end = strstr(line, "...[truncated]");
            /* 1023 bytes of text kept, marker included */
            if (end && (size_t)(end - x) + strlen("...[truncated]") == 1023) saw_trunc = 1;
        }
        if (strstr(line, "no func/file")) saw_debug = 1;
    }
    if (f) fclose(f);
    close(fd);
    unlink(path);
    CHECK(saw_short);
    CHECK(saw_trunc);
    CHECK(saw_debug);
}

int main(void)
{
    test_data_buffer();
    test_dtype();
    test_fp16();
    test_tensor_desc();
    test_recent_err_msg();
    test_attrs();
    test_app_log();
    TEST_DONE();
}
