/* The static AIPP description calls on models test_aipp.py compiled:
 * aclmdlGetAippType, aclmdlGetFirstAippInfo, the image input's dims (V1 and
 * V2), format, type and size, and the error for an image of the wrong size
 * at execute time. The numbers come from the cases of test_aipp.py. */
#include "../mdl/mdl_test.h"

#include <dirent.h>
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
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 0, &info), (aclError)ACL_ERROR_GE_AIPP_NOT_EXIST, "has no AIPP");
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    EXPECT(aclmdlGetInputFormat(d, 0) == ACL_FORMAT_NCHW, "format %d", (int)aclmdlGetInputFormat(d, 0));
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* The one output file openacl-run wrote under <case>/out. */
static float *case_out(const char *name, size_t want)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/%s/out", g_dir, name);
    DIR *d = opendir(dir);
    struct dirent *e;
    float *v = NULL;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            char p[1600];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            size_t n = 0;
            v = read_all(p, &n);
            if (n != want) { free(v); v = NULL; }
            break;
        }
    if (d) closedir(d);
    EXPECT(v != NULL, "no %zu-byte output under %s", want, dir);
    return v;
}

static const int16_t FULL[9] = { 256, 0, 359, 256, -88, -183, 256, 454, 0 };

/* Dynamic AIPP: the parameter set on a model compiled with aipp_mode
 * dynamic; batch 0 and 1 must equal the static twins dyn_ref_b0/b1 of
 * test_aipp.py (themselves equal to the numpy reference) on the same images. */
static void test_dynamic(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("dynamic/m.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    size_t pidx = 99;
    CHECK_OK(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_AIPP_NAME, &pidx));
    EXPECT(pidx == 1, "parameter input %zu", pidx);
    size_t psize = 0;
    CHECK_OK(aclmdlGetAippDataSize(2, &psize));
    EXPECT(psize == 64 + 2 * 96 && aclmdlGetInputSizeByIndex(d, 1) == psize, "parameter size %zu / %zu", psize,
           aclmdlGetInputSizeByIndex(d, 1));
    EXPECT(aclmdlGetInputSizeByIndex(d, 0) == 840, "image size %zu", aclmdlGetInputSizeByIndex(d, 0));
    aclmdlInputAippType type;
    size_t att = 0;
    CHECK_OK(aclmdlGetAippType(id, 0, &type, &att));
    EXPECT(type == ACL_DATA_WITH_DYNAMIC_AIPP && att == 1, "image input: type %d attached %zu", (int)type, att);
    CHECK_OK(aclmdlGetAippType(id, 1, &type, &att));
    EXPECT(type == ACL_DYNAMIC_AIPP_NODE && att == (size_t)ACL_INVALID_NODE_INDEX, "param input: type %d", (int)type);
    aclAippInfo info;
    CHECK_OK(aclmdlGetFirstAippInfo(id, 0, &info));
    dims_are(&info.outDims[0].srcDims, 2, 3, 11, 13, "dynamic srcDims");
    CHECK_ERR(aclmdlGetFirstAippInfo(id, 1, &info), (aclError)ACL_ERROR_GE_AIPP_NOT_EXIST, "has no AIPP");

    /* the setters' checks */
    EXPECT(aclmdlCreateAIPP(0) == NULL, "batch 0 accepted");
    CHECK_ERR(aclmdlGetAippDataSize(0, &psize), ACL_ERROR_INVALID_PARAM, "batchSize 0");
    aclmdlAIPP *a = aclmdlCreateAIPP(2);
    EXPECT(a != NULL, "aclmdlCreateAIPP(2)");
    CHECK_ERR(aclmdlSetAIPPInputFormat(a, ACL_YUYV_U8), ACL_ERROR_INVALID_PARAM, "inputFormat 8");
    CHECK_ERR(aclmdlSetAIPPSrcImageSize(a, 1, 14), ACL_ERROR_INVALID_PARAM, "srcImageSizeW 1");
    CHECK_ERR(aclmdlSetAIPPCropParams(a, 1, 0, 0, 8, 8, 2), ACL_ERROR_INVALID_PARAM, "batchIndex 2");
    CHECK_ERR(aclmdlSetAIPPPaddingParams(a, 1, 33, 0, 0, 0, 0), ACL_ERROR_INVALID_PARAM, "paddingSizeTop 33");
    CHECK_ERR(aclmdlSetAIPPDtcPixelMean(a, 256, 0, 0, 0, 0), ACL_ERROR_INVALID_PARAM, "256");
    CHECK_ERR(aclmdlSetAIPPRbuvSwapSwitch(a, 2), ACL_ERROR_INVALID_PARAM, "rbuvSwapSwitch 2");
    CHECK_ERR(aclmdlSetAIPPRbuvSwapSwitch(NULL, 1), ACL_ERROR_INVALID_PARAM, "aippParmsSet is NULL");

    void *img = NULL, *par = NULL, *out = NULL;
    CHECK_OK(aclrtMalloc(&img, 840, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&par, psize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&out, 2 * 3 * 11 * 13 * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    size_t n0 = 0, n1 = 0;
    void *i0 = read_all(path_of("dyn_ref_b0/in.bin"), &n0), *i1 = read_all(path_of("dyn_ref_b1/in.bin"), &n1);
    EXPECT(i0 && i1 && n0 == 420 && n1 == 420, "images %zu %zu", n0, n1);
    if (i0 && i1 && n0 == 420 && n1 == 420) {
        CHECK_OK(aclrtMemcpy(img, 840, i0, 420, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_OK(aclrtMemcpy((char *)img + 420, 420, i1, 420, ACL_MEMCPY_HOST_TO_DEVICE));
    }
    aclmdlDataset *in = aclmdlCreateDataset(), *o = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(img, 840), *bp = aclCreateDataBuffer(par, psize);
    aclDataBuffer *bo = aclCreateDataBuffer(out, 2 * 3 * 11 * 13 * 4);
    CHECK_OK(aclmdlAddDatasetBuffer(in, bi));
    CHECK_OK(aclmdlAddDatasetBuffer(in, bp));
    CHECK_OK(aclmdlAddDatasetBuffer(o, bo));

    CHECK_ERR(aclmdlSetInputAIPP(id, in, 1, a), ACL_ERROR_INVALID_PARAM, "no input format");
    CHECK_OK(aclmdlSetAIPPInputFormat(a, ACL_YUV420SP_U8));
    CHECK_OK(aclmdlSetAIPPSrcImageSize(a, 20, 14));
    CHECK_OK(aclmdlSetAIPPCscParams(a, 1, FULL[0], FULL[1], FULL[2], FULL[3], FULL[4], FULL[5], FULL[6], FULL[7],
                                    FULL[8], 0, 0, 0, 0, 128, 128));
    CHECK_OK(aclmdlSetAIPPRbuvSwapSwitch(a, 1));
    CHECK_OK(aclmdlSetAIPPCropParams(a, 1, 4, 2, 10, 8, 0));
    CHECK_OK(aclmdlSetAIPPPaddingParams(a, 1, 1, 2, 3, 0, 0));
    /* batch 1 still uncropped: 20x14 is not the network's 13x11 */
    CHECK_ERR(aclmdlSetInputAIPP(id, in, 1, a), ACL_ERROR_INVALID_PARAM, "batch 1");
    CHECK_OK(aclmdlSetAIPPCropParams(a, 1, 2, 2, 13, 11, 1));
    CHECK_OK(aclmdlSetAIPPDtcPixelMin(a, 123.675f, 116.28f, 103.53f, 0.0f, 1));
    CHECK_OK(aclmdlSetAIPPPixelVarReci(a, 0.0171247538316637f, 0.0175070028011204f, 0.0174291938997821f, 1.0f, 1));
    CHECK_ERR(aclmdlSetInputAIPP(id, in, 0, a), ACL_ERROR_INVALID_PARAM, "not the parameter input");
    CHECK_ERR(aclmdlSetAIPPByInputIndex(id, in, 1, a), ACL_ERROR_FAILURE, "has no dynamic AIPP");
    CHECK_OK(aclmdlSetAIPPByInputIndex(id, in, 0, a));
    CHECK_OK(aclmdlExecute(id, in, o));
    /* a set made for 3 images serves a 2-image model (its first two batches) */
    aclmdlAIPP *a3 = aclmdlCreateAIPP(3);
    CHECK_OK(aclmdlSetAIPPInputFormat(a3, ACL_YUV420SP_U8));
    CHECK_OK(aclmdlSetAIPPSrcImageSize(a3, 20, 14));
    for (uint64_t b = 0; b < 3; b++) CHECK_OK(aclmdlSetAIPPCropParams(a3, 1, 0, 0, 13, 11, b));
    CHECK_OK(aclmdlSetInputAIPP(id, in, 1, a3));
    CHECK_OK(aclmdlDestroyAIPP(a3));
    CHECK_OK(aclmdlSetInputAIPP(id, in, 1, a));   /* back to the set the twins check */
    float *w0 = case_out("dyn_ref_b0", 3 * 11 * 13 * 4), *w1 = case_out("dyn_ref_b1", 3 * 11 * 13 * 4);
    float got[2 * 3 * 11 * 13];
    CHECK_OK(aclrtMemcpy(got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int i = 0; w0 && w1 && i < 3 * 11 * 13; i++)
        bad += got[i] != w0[i] || got[3 * 11 * 13 + i] != w1[i];
    EXPECT(w0 && w1 && bad == 0, "%d values differ from the static twins", bad);
    if (!bad && w0 && w1) printf("dynamic AIPP: 2 x %d values equal to the static models'\n", 3 * 11 * 13);
    free(w0); free(w1); free(i0); free(i1);
    CHECK_OK(aclmdlDestroyAIPP(a));
    CHECK_ERR(aclmdlDestroyAIPP(NULL), ACL_ERROR_INVALID_PARAM, "aippParmsSet is NULL");
    aclDestroyDataBuffer(bi); aclDestroyDataBuffer(bp); aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(in); aclmdlDestroyDataset(o);
    aclrtFree(img); aclrtFree(par); aclrtFree(out);
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
    test_dynamic();
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    if (g_failures) {
        fprintf(stderr, "aipp api: %d check(s) failed\n", g_failures);
        return 1;
    }
    printf("aipp api: ok\n");
    return 0;
}
