/* The description objects and housekeeping calls of acl_dvpp.h: defaults,
 * setters and getters, range checks, handles of the wrong kind, media
 * memory (alignment, accounting, copies, the frees that refuse it), channel
 * life and parameters, VDEC/VENC descriptions and the calls openacl does
 * not implement (ACL_ERROR_FEATURE_UNSUPPORTED with a message). */
#include <stdint.h>

#include "dvpp_test.h"

static void test_memory(void)
{
    void *p = NULL, *q = NULL;
    size_t free0 = 0, free1 = 0, total = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    OK(acldvppMalloc(&p, 1000));
    CHECK(((uintptr_t)p & 127) == 0);
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free0 - free1 >= 1000);
    /* copies and memset accept it */
    uint8_t host[1000], back[1000];
    for (int i = 0; i < 1000; i++) host[i] = (uint8_t)i;
    OK(aclrtMemcpy(p, 1000, host, 1000, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMalloc(&q, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(q, 1000, p, 1000, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(back, 1000, q, 1000, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(host, back, 1000) == 0);
    /* each free takes only its own memory */
    FAILS(aclrtFree(p), ACL_ERROR_INVALID_PARAM, "acldvppFree");
    FAILS(acldvppFree(q), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    OK(aclrtFree(q));
    OK(acldvppFree(p));
    FAILS(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM, "acldvppFree");
    FAILS(acldvppMalloc(NULL, 10), ACL_ERROR_INVALID_PARAM, "acldvppMalloc");
    FAILS(acldvppMalloc(&p, 0), ACL_ERROR_INVALID_PARAM, "acldvppMalloc");
}

static void test_pic_desc(void)
{
    acldvppPicDesc *p = acldvppCreatePicDesc();
    CHECK(acldvppGetPicDescData(p) == NULL);
    CHECK_EQ_INT(acldvppGetPicDescSize(p), 0);
    CHECK_EQ_INT(acldvppGetPicDescFormat(p), PIXEL_FORMAT_YUV_400);
    CHECK_EQ_INT(acldvppGetPicDescWidth(p), 0);
    CHECK_EQ_INT(acldvppGetPicDescHeightStride(p), 0);
    CHECK_EQ_INT(acldvppGetPicDescRetCode(p), 0);
    int x;
    OK(acldvppSetPicDescData(p, &x));
    OK(acldvppSetPicDescSize(p, 12345));
    OK(acldvppSetPicDescFormat(p, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
    OK(acldvppSetPicDescWidth(p, 11));
    OK(acldvppSetPicDescHeight(p, 22));
    OK(acldvppSetPicDescWidthStride(p, 33));
    OK(acldvppSetPicDescHeightStride(p, 44));
    OK(acldvppSetPicDescRetCode(p, 55));
    CHECK(acldvppGetPicDescData(p) == &x);
    CHECK_EQ_INT(acldvppGetPicDescSize(p), 12345);
    CHECK_EQ_INT(acldvppGetPicDescFormat(p), PIXEL_FORMAT_YVU_SEMIPLANAR_420);
    CHECK_EQ_INT(acldvppGetPicDescWidth(p), 11);
    CHECK_EQ_INT(acldvppGetPicDescHeight(p), 22);
    CHECK_EQ_INT(acldvppGetPicDescWidthStride(p), 33);
    CHECK_EQ_INT(acldvppGetPicDescHeightStride(p), 44);
    CHECK_EQ_INT(acldvppGetPicDescRetCode(p), 55);
    FAILS(acldvppSetPicDescWidth(NULL, 1), ACL_ERROR_INVALID_PARAM, "acldvppSetPicDescWidth");
    CHECK_EQ_INT(acldvppGetPicDescWidth(NULL), 0);
    MSG_NAMES("acldvppGetPicDescWidth");
    /* a handle of another kind */
    acldvppRoiConfig *r = acldvppCreateRoiConfig(0, 1, 2, 3);
    FAILS(acldvppSetPicDescSize((acldvppPicDesc *)r, 1), ACL_ERROR_INVALID_PARAM, "not a live acldvppPicDesc");
    FAILS(acldvppDestroyPicDesc((acldvppPicDesc *)r), ACL_ERROR_INVALID_PARAM, "acldvppDestroyPicDesc");
    OK(acldvppSetRoiConfigLeft(r, 10));
    OK(acldvppSetRoiConfigRight(r, 21));
    OK(acldvppSetRoiConfigTop(r, 30));
    OK(acldvppSetRoiConfigBottom(r, 41));
    OK(acldvppSetRoiConfig(r, 0, 9, 0, 5));
    FAILS(acldvppSetRoiConfig(NULL, 0, 9, 0, 5), ACL_ERROR_INVALID_PARAM, "acldvppSetRoiConfig");
    OK(acldvppDestroyRoiConfig(r));
    OK(acldvppDestroyPicDesc(p));
    /* destroying NULL is harmless */
    OK(acldvppDestroyPicDesc(NULL));
    OK(acldvppDestroyRoiConfig(NULL));
    OK(acldvppDestroyResizeConfig(NULL));
    OK(acldvppDestroyJpegeConfig(NULL));
    OK(acldvppDestroyBatchPicDesc(NULL));
    OK(acldvppDestroyChannelDesc(NULL));
    OK(acldvppDestroyBorderConfig(NULL));
    OK(acldvppDestroyLutMap(NULL));
    OK(acldvppDestroyHist(NULL));
    OK(acldvppDestroyStreamDesc(NULL));

    acldvppBatchPicDesc *b = acldvppCreateBatchPicDesc(256);
    CHECK(b != NULL);
    acldvppPicDesc *p255 = acldvppGetPicDesc(b, 255);
    CHECK(p255 != NULL);
    CHECK_EQ_INT(acldvppGetPicDescFormat(p255), PIXEL_FORMAT_YUV_400);
    OK(acldvppSetPicDescWidth(p255, 7));
    CHECK_EQ_INT(acldvppGetPicDescWidth(acldvppGetPicDesc(b, 255)), 7);
    OK(acldvppDestroyBatchPicDesc(b));

    acldvppResizeConfig *rc = acldvppCreateResizeConfig();
    CHECK_EQ_INT(acldvppGetResizeConfigInterpolation(rc), 0);
    for (uint32_t i = 0; i <= 4; i++) {
        OK(acldvppSetResizeConfigInterpolation(rc, i));
        CHECK_EQ_INT(acldvppGetResizeConfigInterpolation(rc), i);
    }
    FAILS(acldvppSetResizeConfigInterpolation(rc, 9), ACL_ERROR_INVALID_PARAM, "interpolation 9");
    OK(acldvppDestroyResizeConfig(rc));
    acldvppJpegeConfig *jc = acldvppCreateJpegeConfig();
    FAILS(acldvppSetJpegeConfigLevel(jc, 101), ACL_ERROR_INVALID_PARAM, "level 101");
    OK(acldvppDestroyJpegeConfig(jc));
}

static void test_border_lut_hist_stream(void)
{
    acldvppBorderConfig *b = acldvppCreateBorderConfig();
    CHECK_EQ_INT(acldvppGetBorderConfigBorderType(b), BORDER_CONSTANT);
    OK(acldvppSetBorderConfigBorderType(b, BORDER_REFLECT_101));
    CHECK_EQ_INT(acldvppGetBorderConfigBorderType(b), BORDER_REFLECT_101);
    FAILS(acldvppSetBorderConfigBorderType(b, (acldvppBorderType)7), ACL_ERROR_INVALID_PARAM, "borderType 7");
    OK(acldvppSetBorderConfigTop(b, 1));
    OK(acldvppSetBorderConfigBottom(b, 2));
    OK(acldvppSetBorderConfigLeft(b, 3));
    OK(acldvppSetBorderConfigRight(b, 4));
    CHECK_EQ_INT(acldvppGetBorderConfigTop(b) * 1000 + acldvppGetBorderConfigBottom(b) * 100 +
                     acldvppGetBorderConfigLeft(b) * 10 + acldvppGetBorderConfigRight(b),
                 1234);
    OK(acldvppSetBorderConfigValue(b, 2, 128.5));
    CHECK(acldvppGetBorderConfigValue(b, 2) == 128.5);
    CHECK(acldvppGetBorderConfigValue(b, 4) < 0);
    FAILS(acldvppSetBorderConfigValue(b, 4, 1.0), ACL_ERROR_INVALID_PARAM, "index 4");
    OK(acldvppDestroyBorderConfig(b));

    acldvppLutMap *m = acldvppCreateLutMap();
    CHECK_EQ_INT(acldvppGetLutMapDims(m), 3);
    uint8_t *d = NULL;
    uint32_t len = 0;
    OK(acldvppGetLutMapData(m, 1, &d, &len));
    CHECK(d != NULL && len == 256 && d[200] == 200);
    FAILS(acldvppGetLutMapData(m, 3, &d, &len), ACL_ERROR_INVALID_PARAM, "dim 3");
    OK(acldvppDestroyLutMap(m));

    acldvppHist *h = acldvppCreateHist();
    CHECK_EQ_INT(acldvppGetHistDims(h), 3);
    uint32_t *hd = NULL;
    uint16_t hl = 0;
    OK(acldvppGetHistData(h, 0, &hd, &hl));
    CHECK(hd != NULL && hl == 256);
    hd[5] = 9;
    OK(acldvppClearHist(h));
    CHECK_EQ_INT(hd[5], 0);
    CHECK_EQ_INT(acldvppGetHistRetCode(h), 0);
    OK(acldvppDestroyHist(h));

    acldvppStreamDesc *s = acldvppCreateStreamDesc();
    CHECK_EQ_INT(acldvppGetStreamDescFormat(s), H265_MAIN_LEVEL);
    OK(acldvppSetStreamDescFormat(s, H264_HIGH_LEVEL));
    OK(acldvppSetStreamDescSize(s, 77));
    OK(acldvppSetStreamDescTimestamp(s, 1234567890123ull));
    OK(acldvppSetStreamDescEos(s, 1));
    OK(acldvppSetStreamDescRetCode(s, 3));
    OK(acldvppSetStreamDescData(s, &hl));
    CHECK_EQ_INT(acldvppGetStreamDescFormat(s), H264_HIGH_LEVEL);
    CHECK_EQ_INT(acldvppGetStreamDescSize(s), 77);
    CHECK(acldvppGetStreamDescTimestamp(s) == 1234567890123ull);
    CHECK_EQ_INT(acldvppGetStreamDescEos(s), 1);
    CHECK_EQ_INT(acldvppGetStreamDescRetCode(s), 3);
    CHECK(acldvppGetStreamDescData(s) == &hl);
    FAILS(acldvppSetStreamDescFormat(s, (acldvppStreamFormat)9), ACL_ERROR_INVALID_PARAM, "format 9");
    OK(acldvppDestroyStreamDesc(s));
}

static void test_channel(void)
{
    acldvppChannelDesc *c = acldvppCreateChannelDesc();
    CHECK_EQ_INT(acldvppGetChannelDescChannelId(c), 0);
    uint32_t v = 0;
    size_t n = 0;
    OK(acldvppGetChannelDescParam(c, ACL_DVPP_CSC_MATRIX_UINT32, 4, &n, &v));
    CHECK_EQ_INT(v, ACL_DVPP_CSC_MATRIX_BT601_WIDE);
    CHECK_EQ_INT(n, 4);
    OK(acldvppGetChannelDescParam(c, ACL_DVPP_JPEGD_PRECISION_MODE_ENUM, 4, &n, &v));
    CHECK_EQ_INT(v, ACL_YUVOUT_ALIGN_DOWN_COMPAT);
    v = ACL_DVPP_CSC_MATRIX_BT709_NARROW;
    OK(acldvppSetChannelDescParam(c, ACL_DVPP_CSC_MATRIX_UINT32, 4, &v));
    v = 0;
    OK(acldvppGetChannelDescParam(c, ACL_DVPP_CSC_MATRIX_UINT32, 4, &n, &v));
    CHECK_EQ_INT(v, ACL_DVPP_CSC_MATRIX_BT709_NARROW);
    v = 9;
    FAILS(acldvppSetChannelDescParam(c, ACL_DVPP_CSC_MATRIX_UINT32, 4, &v), ACL_ERROR_INVALID_PARAM, "CSC matrix 9");
    FAILS(acldvppSetChannelDescParam(c, ACL_DVPP_CSC_MATRIX_UINT32, 8, &v), ACL_ERROR_INVALID_PARAM, "length 8");
    uint64_t id = 5;
    FAILS(acldvppSetChannelDescParam(c, ACL_DVPP_CHANNEL_ID_UINT64, 8, &id), ACL_ERROR_INVALID_PARAM, "read-only");
    FAILS(acldvppSetChannelDescMode(c, 16), ACL_ERROR_INVALID_PARAM, "mode 0x10");
    OK(acldvppSetChannelDescMode(c, DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD));
    OK(acldvppCreateChannel(c));
    uint64_t cid = acldvppGetChannelDescChannelId(c);
    CHECK(cid != 0);
    OK(acldvppGetChannelDescParam(c, ACL_DVPP_CHANNEL_ID_UINT64, 8, &n, &id));
    CHECK(id == cid && n == 8);
    FAILS(acldvppCreateChannel(c), ACL_ERROR_INVALID_PARAM, "already holds");
    FAILS(acldvppSetChannelDescMode(c, DVPP_CHNMODE_PNGD), ACL_ERROR_INVALID_PARAM, "before acldvppCreateChannel");
    OK(acldvppDestroyChannel(c));
    FAILS(acldvppDestroyChannel(c), ACL_ERROR_INVALID_PARAM, "holds no channel");
    /* a second channel gets another id */
    OK(acldvppCreateChannel(c));
    CHECK(acldvppGetChannelDescChannelId(c) != cid);
    OK(acldvppDestroyChannel(c));
    OK(acldvppDestroyChannelDesc(c));
}

static void test_video(void)
{
    aclvdecChannelDesc *vd = aclvdecCreateChannelDesc();
    CHECK_EQ_INT(aclvdecGetChannelDescEnType(vd), H265_MAIN_LEVEL);
    OK(aclvdecSetChannelDescChannelId(vd, 15));
    FAILS(aclvdecSetChannelDescChannelId(vd, 16), ACL_ERROR_INVALID_PARAM, "channelId 16");
    OK(aclvdecSetChannelDescEnType(vd, H264_MAIN_LEVEL));
    OK(aclvdecSetChannelDescOutPicFormat(vd, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
    OK(aclvdecSetChannelDescOutPicWidth(vd, 1920));
    OK(aclvdecSetChannelDescOutPicHeight(vd, 1080));
    OK(aclvdecSetChannelDescThreadId(vd, 99));
    OK(aclvdecSetChannelDescRefFrameNum(vd, 4));
    OK(aclvdecSetChannelDescBitDepth(vd, 8));
    OK(aclvdecSetChannelDescOutMode(vd, 1));
    CHECK_EQ_INT(aclvdecGetChannelDescChannelId(vd), 15);
    CHECK_EQ_INT(aclvdecGetChannelDescEnType(vd), H264_MAIN_LEVEL);
    CHECK_EQ_INT(aclvdecGetChannelDescOutPicFormat(vd), PIXEL_FORMAT_YVU_SEMIPLANAR_420);
    CHECK_EQ_INT(aclvdecGetChannelDescOutPicWidth(vd) + aclvdecGetChannelDescOutPicHeight(vd), 3000);
    CHECK_EQ_INT(aclvdecGetChannelDescThreadId(vd), 99);
    CHECK_EQ_INT(aclvdecGetChannelDescRefFrameNum(vd) + aclvdecGetChannelDescBitDepth(vd), 12);
    CHECK_EQ_INT(aclvdecGetChannelDescOutMode(vd), 1);
    CHECK(aclvdecGetChannelDescCallback(vd) == NULL);
    uint32_t w = 0;
    size_t n = 0;
    OK(aclvdecGetChannelDescParam(vd, ACL_VDEC_OUT_PIC_WIDTH_UINT32, 4, &n, &w));
    CHECK_EQ_INT(w, 1920);
    w = 640;
    OK(aclvdecSetChannelDescParam(vd, ACL_VDEC_OUT_PIC_WIDTH_UINT32, 4, &w));
    CHECK_EQ_INT(aclvdecGetChannelDescOutPicWidth(vd), 640);
    FAILS(aclvdecCreateChannel(vd), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvdecCreateChannel");
    FAILS(aclvdecDestroyChannel(vd), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvdecDestroyChannel");
    aclvdecFrameConfig *fc = aclvdecCreateFrameConfig();
    FAILS(aclvdecSendFrame(vd, NULL, NULL, fc, NULL), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvdecSendFrame");
    FAILS(aclvdecSendSkippedFrame(vd, NULL, fc, NULL), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvdecSendSkippedFrame");
    OK(aclvdecDestroyFrameConfig(fc));
    OK(aclvdecDestroyChannelDesc(vd));

    aclvencChannelDesc *ve = aclvencCreateChannelDesc();
    OK(aclvencSetChannelDescPicWidth(ve, 1280));
    OK(aclvencSetChannelDescPicHeight(ve, 720));
    OK(aclvencSetChannelDescRcMode(ve, 2));
    FAILS(aclvencSetChannelDescRcMode(ve, 3), ACL_ERROR_INVALID_PARAM, "rcMode 3");
    OK(aclvencSetChannelDescKeyFrameInterval(ve, 25));
    OK(aclvencSetChannelDescBufSize(ve, 1 << 20));
    OK(aclvencSetChannelDescSrcRate(ve, 30));
    OK(aclvencSetChannelDescMaxBitRate(ve, 4000));
    OK(aclvencSetChannelDescEnType(ve, H264_BASELINE_LEVEL));
    OK(aclvencSetChannelDescPicFormat(ve, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    CHECK_EQ_INT(aclvencGetChannelDescPicWidth(ve) + aclvencGetChannelDescPicHeight(ve), 2000);
    CHECK_EQ_INT(aclvencGetChannelDescRcMode(ve), 2);
    CHECK_EQ_INT(aclvencGetChannelDescKeyFrameInterval(ve), 25);
    CHECK_EQ_INT(aclvencGetChannelDescBufSize(ve), 1 << 20);
    CHECK_EQ_INT(aclvencGetChannelDescSrcRate(ve) + aclvencGetChannelDescMaxBitRate(ve), 4030);
    CHECK_EQ_INT(aclvencGetChannelDescEnType(ve), H264_BASELINE_LEVEL);
    CHECK_EQ_INT(aclvencGetChannelDescChannelId(ve), 0);
    uint32_t ip = 7;
    OK(aclvencSetChannelDescParam(ve, ACL_VENC_MAX_IP_PROP_UINT32, 4, &ip));
    ip = 0;
    OK(aclvencGetChannelDescParam(ve, ACL_VENC_MAX_IP_PROP_UINT32, 4, &n, &ip));
    CHECK_EQ_INT(ip, 7);
    aclvencFrameConfig *vf = aclvencCreateFrameConfig();
    OK(aclvencSetFrameConfigForceIFrame(vf, 1));
    OK(aclvencSetFrameConfigEos(vf, 1));
    FAILS(aclvencSetFrameConfigEos(vf, 2), ACL_ERROR_INVALID_PARAM, "eos 2");
    CHECK_EQ_INT(aclvencGetFrameConfigForceIFrame(vf) + aclvencGetFrameConfigEos(vf), 2);
    FAILS(aclvencCreateChannel(ve), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvencCreateChannel");
    FAILS(aclvencSendFrame(ve, NULL, NULL, vf, NULL), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvencSendFrame");
    FAILS(aclvencDestroyChannel(ve), ACL_ERROR_FEATURE_UNSUPPORTED, "aclvencDestroyChannel");
    OK(aclvencDestroyFrameConfig(vf));
    OK(aclvencDestroyChannelDesc(ve));
}

static void test_unsupported_vpc(void)
{
    FAILS(acldvppVpcEqualizeHistAsync(g_chan, NULL, NULL, NULL, g_stream), ACL_ERROR_FEATURE_UNSUPPORTED,
          "acldvppVpcEqualizeHistAsync");
    FAILS(acldvppVpcCalcHistAsync(g_chan, NULL, NULL, NULL, g_stream), ACL_ERROR_FEATURE_UNSUPPORTED,
          "acldvppVpcCalcHistAsync");
}

/* Argument checks of the border and pyramid calls (their pixels: dvpp_vpc_opencv). */
static void test_border_pyr_args(void)
{
    void *a = NULL, *b = NULL;
    OK(acldvppMalloc(&a, 64 * 64 * 3 / 2));
    OK(acldvppMalloc(&b, 128 * 128 * 3 / 2));
    acldvppPicDesc *in = dt_pic(a, 64 * 64 * 3 / 2, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 64, 64, 64, 64);
    acldvppPicDesc *out = dt_pic(b, 128 * 128 * 3 / 2, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 96, 80, 128, 128);
    acldvppBorderConfig *bc = acldvppCreateBorderConfig();
    OK(acldvppSetBorderConfigTop(bc, 8));
    OK(acldvppSetBorderConfigBottom(bc, 8));
    OK(acldvppSetBorderConfigLeft(bc, 16));
    OK(acldvppSetBorderConfigRight(bc, 16));
    OK(acldvppVpcMakeBorderAsync(g_chan, in, out, bc, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    OK(acldvppSetBorderConfigRight(bc, 15));
    FAILS(acldvppVpcMakeBorderAsync(g_chan, in, out, bc, g_stream), ACL_ERROR_INVALID_PARAM, "must be even");
    OK(acldvppSetBorderConfigRight(bc, 14));
    FAILS(acldvppVpcMakeBorderAsync(g_chan, in, out, bc, g_stream), ACL_ERROR_INVALID_PARAM, "makes 94x80");
    OK(acldvppSetBorderConfigRight(bc, 16));
    OK(acldvppSetPicDescFormat(out, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
    FAILS(acldvppVpcMakeBorderAsync(g_chan, in, out, bc, g_stream), ACL_ERROR_FORMAT_NOT_MATCH, "differs");
    OK(acldvppSetPicDescFormat(out, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    FAILS(acldvppVpcMakeBorderAsync(g_chan, in, out, NULL, g_stream), ACL_ERROR_INVALID_PARAM, "borderConfig");
    /* the pyramid: YUV400 only, half the size rounded up, reserve NULL */
    acldvppPicDesc *y_in = dt_pic(a, 64 * 64, PIXEL_FORMAT_YUV_400, 63, 64, 64, 64);
    acldvppPicDesc *y_out = dt_pic(b, 32 * 32, PIXEL_FORMAT_YUV_400, 32, 32, 32, 32);
    OK(acldvppVpcPyrDownAsync(g_chan, y_in, y_out, NULL, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    int r = 0;
    FAILS(acldvppVpcPyrDownAsync(g_chan, y_in, y_out, &r, g_stream), ACL_ERROR_INVALID_PARAM, "reserve");
    OK(acldvppSetPicDescWidth(y_out, 31));
    FAILS(acldvppVpcPyrDownAsync(g_chan, y_in, y_out, NULL, g_stream), ACL_ERROR_INVALID_PARAM, "goes down to 32x32");
    FAILS(acldvppVpcPyrDownAsync(g_chan, in, y_out, NULL, g_stream), ACL_ERROR_FORMAT_NOT_MATCH, "YUV_400");
    OK(acldvppDestroyPicDesc(y_in));
    OK(acldvppDestroyPicDesc(y_out));
    OK(acldvppDestroyBorderConfig(bc));
    OK(acldvppDestroyPicDesc(in));
    OK(acldvppDestroyPicDesc(out));
    OK(acldvppFree(a));
    OK(acldvppFree(b));
}

int main(void)
{
    dt_setup();
    test_memory();
    test_pic_desc();
    test_border_lut_hist_stream();
    test_channel();
    test_video();
    test_unsupported_vpc();
    test_border_pyr_args();
    dt_teardown();
    TEST_DONE();
}
