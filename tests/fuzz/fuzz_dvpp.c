/* libFuzzer target: JPEG and PNG decoding through the media API
 * (libacl_dvpp). An input starting with the PNG signature goes to the PNG
 * calls, anything else to the JPEG calls: image info (both versions), size
 * prediction, then a decode on a stream into media memory, in an output
 * format picked by the input's length. A refusal, immediate or reported by
 * the stream, must carry a message naming the call; a crash, sanitizer
 * report, leak or hang is a finding. The output buffer is 32 MiB, so
 * pictures needing more are refused before decoding (that refusal is
 * tested too) and each input stays fast. */
#define ENABLE_DVPP_INTERFACE
#include <stdint.h>

#include "acl/ops/acl_dvpp.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define IN_CAP (1u << 20)
#define OUT_CAP (32u << 20)

static aclrtStream g_stream;
static acldvppChannelDesc *g_chan;
static acldvppPicDesc *g_out;
static void *g_in_buf, *g_out_buf;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fz_runtime_up()) abort();
    if (aclrtCreateStream(&g_stream) != ACL_SUCCESS) abort();
    g_chan = acldvppCreateChannelDesc();
    if (!g_chan || acldvppCreateChannel(g_chan) != ACL_SUCCESS) abort();
    if (acldvppMalloc(&g_in_buf, IN_CAP) != ACL_SUCCESS || acldvppMalloc(&g_out_buf, OUT_CAP) != ACL_SUCCESS) abort();
    g_out = acldvppCreatePicDesc();
    if (!g_out) abort();
    return 0;
}

static void need_message(void)
{
    const char *m = aclGetRecentErrMsg();
    if (!m || !*m) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const acldvppPixelFormat jpeg_fmts[] = {
        PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420, PIXEL_FORMAT_UNKNOWN,
        PIXEL_FORMAT_YUV_SEMIPLANAR_444, PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YUV_SEMIPLANAR_440,
        PIXEL_FORMAT_YUV_400};
    static const acldvppPixelFormat png_fmts[] = {PIXEL_FORMAT_UNKNOWN, PIXEL_FORMAT_RGB_888, PIXEL_FORMAT_RGBA_8888};
    if (size == 0 || size > IN_CAP) return 0;
    int png = size >= 8 && memcmp(data, sig, 8) == 0;
    acldvppPixelFormat fmt = png ? png_fmts[size % 3] : jpeg_fmts[size % 7];
    uint32_t w = 0, h = 0, dec = 0;
    int32_t comp = 0;
    acldvppJpegFormat jf;
    aclError rc;
    if (png) {
        if (acldvppPngGetImageInfo(data, (uint32_t)size, &w, &h, &comp) != ACL_SUCCESS) need_message();
        rc = acldvppPngPredictDecSize(data, (uint32_t)size, fmt, &dec);
    } else {
        if (acldvppJpegGetImageInfo(data, (uint32_t)size, &w, &h, &comp) != ACL_SUCCESS) need_message();
        if (acldvppJpegGetImageInfoV2(data, (uint32_t)size, &w, &h, &comp, &jf) != ACL_SUCCESS) need_message();
        rc = acldvppJpegPredictDecSize(data, (uint32_t)size, fmt, &dec);
    }
    if (rc != ACL_SUCCESS) need_message();
    /* decode whatever the prediction said (the decoder must refuse on its own) */
    memcpy(g_in_buf, data, size);
    uint32_t cap = rc == ACL_SUCCESS && dec > 0 && dec <= OUT_CAP ? dec : OUT_CAP;
    acldvppSetPicDescData(g_out, g_out_buf);
    acldvppSetPicDescSize(g_out, cap);
    acldvppSetPicDescFormat(g_out, fmt);
    rc = png ? acldvppPngDecodeAsync(g_chan, g_in_buf, (uint32_t)size, g_out, g_stream)
             : acldvppJpegDecodeAsync(g_chan, g_in_buf, (uint32_t)size, g_out, g_stream);
    if (rc != ACL_SUCCESS) {
        need_message();
        return 0;
    }
    rc = aclrtSynchronizeStream(g_stream);
    if (rc != ACL_SUCCESS) {
        need_message();
        if (acldvppGetPicDescRetCode(g_out) == 0) abort(); /* a failed task marks its picture */
        return 0;
    }
    /* a decoded picture fits what the description says */
    uint64_t ws = acldvppGetPicDescWidthStride(g_out), hs = acldvppGetPicDescHeightStride(g_out);
    if (acldvppGetPicDescWidth(g_out) == 0 || ws * hs > cap) abort();
    return 0;
}
