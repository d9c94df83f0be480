/* The static AIPP description calls on models test_aipp.py compiled:
 * aclmdlGetAippType, aclmdlGetFirstAippInfo, the image input's dims (V1 and
 * V2), format, type and size, and the error for an image of the wrong size
 * at execute time. The numbers come from the cases of test_aipp.py. */
#include "../mdl/mdl_test.h"

#include <stdint.h>

#define EXPECT(c, ...)                                                        \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #c);           \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            g_failures++;                                                     \
        }                                                                     \
    } while (0)

static void dims_are(const aclmdlIODims *d, int64_t a, int64_t b, int64_t c, int64_t e, const char *what)
{
    if (d->dimCount != 4 || d->dims[0] != a || d->dims[1] != b || d->dims[2] != c || d->dims[3] != e) {
        fprintf(stderr, "%s: dims (%zu) [%lld,%lld,%lld,%lld], expected [%lld,%lld,%lld,%lld]\n", what, d->dimCount,
                (long long)d->dims[0], (long long)d->dims[1], (long long)d->dims[2], (long long)d->dims[3],
                (long long)a, (long long)b, (long long)c, (long long)e);
        g_failures++;
    }
}

static void run(uint32_t id, size_t in_bytes, size_t out_bytes, aclError want, const char *needle)
{
    void *a = NULL, *b = NULL;
    CHECK_OK(aclrtMalloc(&a, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&b, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(a, in_bytes, 0x80, in_bytes));
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclDataBuffer *ba = aclCreateDataBuffer(a, in_bytes), *bb = aclCreateDataBuffer(b, out_bytes);
    CHECK_OK(aclmdlAddDatasetBuffer(in, ba));
    CHECK_OK(aclmdlAddDatasetBuffer(out, bb));
    if (want == ACL_SUCCESS) CHECK_OK(aclmdlExecute(id, in, out));
    else CHECK_ERR(aclmdlExecute(id, in, out), want, needle);
    aclDestroyDataBuffer(ba); aclDestroyDataBuffer(bb);
    aclmdlDestroyDataset(in); aclmdlDestroyDataset(out);
    aclrtFree(a); aclrtFree(b);
}

/* yuv420sp_nv21_crop_pad: 20x14 NV21, crop (4,2)+10x8, padding t1 b2 l3 r0,
 * full-range matrix, input bias 0,128,128 -> network input [1,3,11,13]. */
static void test_yuv420sp(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("yuv420sp_nv21_crop_pad/m.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    dims_are(&dims, 1, 21, 20, 1, "GetInputDims");
    CHECK_OK(aclmdlGetInputDimsV2(d, 0, &dims));
    dims_are(&dims, 1, 21, 20, 1, "GetInputDimsV2");
    EXPECT(aclmdlGetInputSizeByIndex(d, 0) == 20 * 14 * 3 / 2, "size %zu", aclmdlGetInputSizeByIndex(d, 0));
    EXPECT(aclmdlGetInputFormat(d, 0) == ACL_FORMAT_NHWC, "format %d", (int)aclmdlGetInputFormat(d, 0));
    EXPECT(aclmdlGetInputDataType(d, 0) == ACL_UINT8, "dtype %d", (int)aclmdlGetInputDataType(d, 0));
    EXPECT(aclmdlGetOutputSizeByIndex(d, 0) == 3 * 11 * 13 * 4, "out size %zu", aclmdlGetOutputSizeByIndex(d, 0));

    aclmdlInputAippType type = ACL_DATA_WITHOUT_AIPP;
    size_t attached = 0;
    CHECK_OK(aclmdlGetAippType(id, 0, &type, &attached));
    EXPECT(type == ACL_DATA_WITH_STATIC_AIPP, "type %d", (int)type);
    EXPECT(attached == (size_t)ACL_INVALID_NODE_INDEX, "attached %zu", attached);
    CHECK_ERR(aclmdlGetAippType(id, 1, &type, &attached), ACL_ERROR_INVALID_PARAM, "out of range");
    CHECK_ERR(aclmdlGetAippType(id, 0, NULL, &attached), ACL_ERROR_INVALID_PARAM, "type is NULL");

    aclAippInfo info;
    memset(&info, 0x5a, sizeof info);
    CHECK_OK(aclmdlGetFirstAippInfo(id, 0, &info));
    EXPECT(info.inputFormat == ACL_YUV420SP_U8, "format %d", (int)info.inputFormat);
    EXPECT(info.srcImageSizeW == 20 && info.srcImageSizeH == 14, "src %dx%d", info.srcImageSizeW, info.srcImageSizeH);
    EXPECT(info.cropSwitch == 1 && info.loadStartPosW == 4 && info.loadStartPosH == 2 && info.cropSizeW == 10 &&
              info.cropSizeH == 8, "crop %d (%d,%d) %dx%d", info.cropSwitch, info.loadStartPosW, info.loadStartPosH,
          info.cropSizeW, info.cropSizeH);
    EXPECT(info.paddingSwitch == 1 && info.topPaddingSize == 1 && info.bottomPaddingSize == 2 &&
              info.leftPaddingSize == 3 && info.rightPaddingSize == 0, "padding");
    EXPECT(info.cscSwitch == 1 && info.rbuvSwapSwitch == 1 && info.axSwapSwitch == 0, "switches");
    EXPECT(info.matrixR0C0 == 256 && info.matrixR0C2 == 359 && info.matrixR1C1 == -88 && info.matrixR2C1 == 454,
          "matrix");
    EXPECT(info.inputBias0 == 0 && info.inputBias1 == 128 && info.inputBias2 == 128, "input bias");
    EXPECT(info.srcFormat == ACL_FORMAT_NCHW && info.srcDatatype == ACL_FLOAT && info.srcDimNum == 4 &&
              info.shapeCount == 1 && info.aippExtend == NULL, "network input");
    dims_are(&info.outDims[0].aippOutdims, 1, 3, 11, 13, "aippOutdims");
    EXPECT(info.outDims[0].aippOutSize == 3 * 11 * 13 * 4, "aippOutSize %zu", info.outDims[0].aippOutSize);
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 0, NULL), ACL_ERROR_INVALID_PARAM, "aippInfo is NULL");
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 3, &info), ACL_ERROR_INVALID_PARAM, "out of range");
    CHECK_ERR(aclmdlGetFirstAippInfo(id + 1000, 0, &info), ACL_ERROR_INVALID_MODEL_ID, "");

    run(id, 20 * 21, 3 * 11 * 13 * 4, ACL_SUCCESS, "");
    /* only the Y plane of the 20x14 YUV420SP image: too small */
    run(id, 20 * 14, 3 * 11 * 13 * 4, ACL_ERROR_INVALID_PARAM, "too small");
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* A model without AIPP answers so. */
static void test_none(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("bad/m.onnx"), &id));
    aclmdlInputAippType type = ACL_DATA_WITH_STATIC_AIPP;
    size_t attached = 0;
    CHECK_OK(aclmdlGetAippType(id, 0, &type, &attached));
    EXPECT(type == ACL_DATA_WITHOUT_AIPP, "type %d", (int)type);
    aclAippInfo info;
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 0, &info), (aclError)ACL_ERROR_GE_AIPP_NOT_EXIST, "has no static AIPP");
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    EXPECT(aclmdlGetInputFormat(d, 0) == ACL_FORMAT_NCHW, "format %d", (int)aclmdlGetInputFormat(d, 0));
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <test_aipp.py scratch dir>\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    (void)dev_matches_f32; (void)dev_alloc; (void)dev_from_file; (void)write_all;
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    test_yuv420sp();
    test_none();
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    if (g_failures) {
        fprintf(stderr, "aipp api: %d check(s) failed\n", g_failures);
        return 1;
    }
    printf("aipp api: ok\n");
    return 0;
}
