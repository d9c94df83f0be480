/* dvpp_bench: libacl_dvpp against OpenCV in the same run, one thread each.
 *  1. JPEG decode + resize to 224x224: acldvppJpegDecodeAsync (NV12) +
 *     acldvppVpcResizeAsync (bilinear) + synchronize, against cv::imdecode
 *     (BGR) + cv::resize (INTER_LINEAR).
 *  2. Crop-and-paste of 8 regions of the decoded picture into 8 canvases:
 *     one acldvppVpcBatchCropAndPasteAsync + synchronize (and 8 single
 *     acldvppVpcCropAndPasteAsync + synchronize), against per region
 *     cv::resize of the luma and of the chroma rectangle (the same NV12
 *     data).
 * Medians of REPS timed runs after 3 warm-up runs. Run with
 * OPENACL_THREADS=1 (bench/dvpp/run.sh does) so DVPP has one compute thread
 * like OpenCV (cv::setNumThreads(1)).
 *
 * Usage: dvpp_bench PICTURE.jpg [REPS]   (prints Markdown table rows) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENABLE_DVPP_INTERFACE
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

#define ALIGN(v, a) (((v) + (a) - 1) / (a) * (a))
#define NROI 8
#define OUT_W 224
#define OUT_H 224

void peer_init(void);
unsigned peer_decode_resize(const unsigned char *jpeg, size_t size, int w, int h);
unsigned peer_crop_paste(const unsigned char *nv12, int ws, int hs, int n, const int (*roi)[4],
                         unsigned char *const *canvas, int cws, int chs, const int (*box)[4]);

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        aclError rc_ = (call);                                                                        \
        if (rc_ != ACL_SUCCESS) {                                                                     \
            fprintf(stderr, "%s failed: %d: %s\n", #call, rc_, aclGetRecentErrMsg());                 \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static acldvppPicDesc *nv12_desc(acldvppPicDesc *p, void *data, uint32_t size, uint32_t w, uint32_t h, uint32_t ws,
                                 uint32_t hs)
{
    if (p == NULL)
        p = acldvppCreatePicDesc();
    if (p == NULL) {
        fprintf(stderr, "acldvppCreatePicDesc failed\n");
        exit(1);
    }
    CHECK(acldvppSetPicDescData(p, data));
    CHECK(acldvppSetPicDescSize(p, size));
    CHECK(acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    CHECK(acldvppSetPicDescWidth(p, w));
    CHECK(acldvppSetPicDescHeight(p, h));
    CHECK(acldvppSetPicDescWidthStride(p, ws));
    CHECK(acldvppSetPicDescHeightStride(p, hs));
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PICTURE.jpg [REPS]\n", argv[0]);
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 30;
    if (reps < 1)
        reps = 1;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long flen = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *jpeg = malloc((size_t)flen);
    if (jpeg == NULL || fread(jpeg, 1, (size_t)flen, f) != (size_t)flen) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    const uint32_t jlen = (uint32_t)flen;
    double *t = malloc(sizeof(double) * (size_t)reps);
    unsigned sink = 0;
    peer_init();

    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    acldvppChannelDesc *ch = acldvppCreateChannelDesc();
    CHECK(acldvppCreateChannel(ch));
    acldvppResizeConfig *rc = acldvppCreateResizeConfig();
    CHECK(acldvppSetResizeConfigInterpolation(rc, 1));

    uint32_t w, h, dec_size;
    int32_t comps;
    CHECK(acldvppJpegGetImageInfo(jpeg, jlen, &w, &h, &comps));
    CHECK(acldvppJpegPredictDecSize(jpeg, jlen, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec_size));
    const uint32_t ws = ALIGN(w, 128), hs = ALIGN(h, 16);
    void *jdev, *dec, *out;
    CHECK(acldvppMalloc(&jdev, jlen));
    CHECK(aclrtMemcpy(jdev, jlen, jpeg, jlen, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(acldvppMalloc(&dec, dec_size));
    const uint32_t ows = ALIGN(OUT_W, 16), ohs = ALIGN(OUT_H, 2), osize = ows * ohs * 3 / 2;
    CHECK(acldvppMalloc(&out, osize));
    acldvppPicDesc *dec_pic = acldvppCreatePicDesc();
    CHECK(acldvppSetPicDescData(dec_pic, dec));
    CHECK(acldvppSetPicDescSize(dec_pic, dec_size));
    CHECK(acldvppSetPicDescFormat(dec_pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    acldvppPicDesc *vin = nv12_desc(NULL, dec, dec_size, w & ~1u, h & ~1u, ws, hs);
    acldvppPicDesc *vout = nv12_desc(NULL, out, osize, OUT_W, OUT_H, ows, ohs);

    /* 1. decode + resize */
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        CHECK(acldvppJpegDecodeAsync(ch, jdev, jlen, dec_pic, stream));
        CHECK(acldvppVpcResizeAsync(ch, vin, vout, rc, stream));
        CHECK(aclrtSynchronizeStream(stream));
        if (r >= 0)
            t[r] = now_ms() - t0;
    }
    double dvpp_dr = median(t, reps);
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        sink += peer_decode_resize(jpeg, jlen, OUT_W, OUT_H);
        if (r >= 0)
            t[r] = now_ms() - t0;
    }
    double cv_dr = median(t, reps);

    /* 2. crop-and-paste of 8 regions (a 4 x 2 grid of overlapping boxes,
     *    each a quarter of the width and 40 % of the height) into 8
     *    224x224 canvases, aspect ratio kept, centred. */
    const uint32_t cws = ALIGN(OUT_W, 16), chs = ALIGN(OUT_H, 2), csize = cws * chs * 3 / 2;
    int roi[NROI][4], box[NROI][4];
    acldvppBatchPicDesc *src_b = acldvppCreateBatchPicDesc(1), *dst_b = acldvppCreateBatchPicDesc(NROI);
    nv12_desc(acldvppGetPicDesc(src_b, 0), dec, dec_size, w & ~1u, h & ~1u, ws, hs);
    acldvppRoiConfig *crops[NROI], *pastes[NROI];
    void *canvas_dev[NROI];
    unsigned char *canvas_host[NROI];
    for (int k = 0; k < NROI; k++) {
        int rw = (int)(w / 4) & ~1, rh = (int)(h * 2 / 5) & ~1;
        int l = ((int)(k % 4) * (int)(w - (uint32_t)rw) / 3) & ~1, tp = ((k / 4) * (int)(h - (uint32_t)rh)) & ~1;
        int ph = (OUT_W * rh / rw) & ~1;
        roi[k][0] = l, roi[k][1] = tp, roi[k][2] = rw, roi[k][3] = rh;
        box[k][0] = 0, box[k][1] = ((OUT_H - ph) / 2) & ~1, box[k][2] = OUT_W, box[k][3] = ph;
        crops[k] = acldvppCreateRoiConfig((uint32_t)l, (uint32_t)(l + rw - 1), (uint32_t)tp, (uint32_t)(tp + rh - 1));
        pastes[k] = acldvppCreateRoiConfig(0, OUT_W - 1, (uint32_t)box[k][1], (uint32_t)(box[k][1] + ph - 1));
        CHECK(acldvppMalloc(&canvas_dev[k], csize));
        CHECK(aclrtMemset(canvas_dev[k], csize, 0, csize));
        nv12_desc(acldvppGetPicDesc(dst_b, (uint32_t)k), canvas_dev[k], csize, OUT_W, OUT_H, cws, chs);
        canvas_host[k] = calloc(csize, 1);
    }
    uint32_t roi_nums[1] = {NROI};
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        CHECK(acldvppVpcBatchCropAndPasteAsync(ch, src_b, roi_nums, 1, dst_b, crops, pastes, stream));
        CHECK(aclrtSynchronizeStream(stream));
        if (r >= 0)
            t[r] = now_ms() - t0;
    }
    double dvpp_cp = median(t, reps);
    /* the same through 8 single calls and one synchronize */
    acldvppPicDesc *one_src = acldvppGetPicDesc(src_b, 0);
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        for (int k = 0; k < NROI; k++)
            CHECK(acldvppVpcCropAndPasteAsync(ch, one_src, acldvppGetPicDesc(dst_b, (uint32_t)k), crops[k], pastes[k],
                                              stream));
        CHECK(aclrtSynchronizeStream(stream));
        if (r >= 0)
            t[r] = now_ms() - t0;
    }
    double dvpp_cp1 = median(t, reps);
    unsigned char *nv12 = malloc(dec_size);
    CHECK(aclrtMemcpy(nv12, dec_size, dec, dec_size, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        sink += peer_crop_paste(nv12, (int)ws, (int)hs, NROI, (const int(*)[4])roi, canvas_host, (int)cws, (int)chs,
                                (const int(*)[4])box);
        if (r >= 0)
            t[r] = now_ms() - t0;
    }
    double cv_cp = median(t, reps);

    /* The two sides must agree, or the timing compares different work. */
    long long diff = 0;
    unsigned char *got = malloc(csize);
    for (int k = 0; k < NROI; k++) {
        CHECK(aclrtMemcpy(got, csize, canvas_dev[k], csize, ACL_MEMCPY_DEVICE_TO_HOST));
        for (uint32_t i = 0; i < csize; i++) {
            int d = (int)got[i] - (int)canvas_host[k][i];
            if (d < -2 || d > 2)
                diff++;
        }
    }

    printf("| what (%ux%u JPEG, %d components, median of %d) | DVPP | OpenCV | OpenCV / DVPP |\n", w, h, comps, reps);
    printf("|---|---|---|---|\n");
    printf("| decode + resize to %dx%d | %.2f ms | %.2f ms | %.2fx |\n", OUT_W, OUT_H, dvpp_dr, cv_dr, cv_dr / dvpp_dr);
    printf("| crop-and-paste, %d regions (one batch call vs %d x 2 cv::resize) | %.3f ms | %.3f ms | %.2fx |\n", NROI,
           NROI, dvpp_cp, cv_cp, cv_cp / dvpp_cp);
    printf("| crop-and-paste, %d regions (%d single calls, one synchronize) | %.3f ms | %.3f ms | %.2fx |\n", NROI, NROI,
           dvpp_cp1, cv_cp, cv_cp / dvpp_cp1);
    printf("(crop-and-paste outputs: %lld of %u bytes differ by more than 2 levels; checksum %u)\n", diff,
           NROI * csize, sink);

    for (int k = 0; k < NROI; k++) {
        acldvppDestroyRoiConfig(crops[k]);
        acldvppDestroyRoiConfig(pastes[k]);
        acldvppFree(canvas_dev[k]);
        free(canvas_host[k]);
    }
    acldvppDestroyBatchPicDesc(src_b);
    acldvppDestroyBatchPicDesc(dst_b);
    acldvppDestroyPicDesc(dec_pic);
    acldvppDestroyPicDesc(vin);
    acldvppDestroyPicDesc(vout);
    acldvppFree(jdev);
    acldvppFree(dec);
    acldvppFree(out);
    acldvppDestroyResizeConfig(rc);
    acldvppDestroyChannel(ch);
    acldvppDestroyChannelDesc(ch);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    free(nv12);
    free(got);
    free(jpeg);
    free(t);
    /* Both sides scale bilinearly but round differently (libyuv's chroma
     * filter rounds down); more than 1 % of the bytes apart means they did
     * different work. */
    return diff * 100 > (long long)NROI * csize ? 3 : 0;
}
