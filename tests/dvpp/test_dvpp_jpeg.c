/* JPEG decode and encode through the API against libjpeg-turbo's own
 * decode of the same bytes. Material: a real photograph (argv[1]) resampled
 * to many sizes, odd ones included, and compressed by TurboJPEG at every
 * subsampling it decodes (4:4:4, 4:2:2, 4:2:0, 4:4:0, gray), baseline and
 * progressive. The decoded pictures must equal TurboJPEG's planes exactly,
 * after the layout docs/dvpp.md documents (luma copied; chroma interleaved,
 * averaged with rounding where the output subsamples more, 0x80 for gray;
 * odd sizes made even by dropping or repeating the last column/row). */
#include "dvpp_test.h"

typedef struct {
    acldvppPixelFormat f;
    int sx, sy, vu, y_only;
    int num, den;
} ofmt;

static const ofmt k_ofmts[] = {
    {PIXEL_FORMAT_YUV_SEMIPLANAR_420, 1, 1, 0, 0, 3, 2}, {PIXEL_FORMAT_YVU_SEMIPLANAR_420, 1, 1, 1, 0, 3, 2},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_422, 1, 0, 0, 0, 2, 1}, {PIXEL_FORMAT_YVU_SEMIPLANAR_422, 1, 0, 1, 0, 2, 1},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_444, 0, 0, 0, 0, 3, 1}, {PIXEL_FORMAT_YVU_SEMIPLANAR_444, 0, 0, 1, 0, 3, 1},
    {PIXEL_FORMAT_YUV_SEMIPLANAR_440, 0, 1, 0, 0, 2, 1}, {PIXEL_FORMAT_YVU_SEMIPLANAR_440, 0, 1, 1, 0, 2, 1},
    {PIXEL_FORMAT_YUV_400, 0, 0, 0, 1, 1, 1}};

static const ofmt *ofmt_of(acldvppPixelFormat f)
{
    for (size_t i = 0; i < sizeof(k_ofmts) / sizeof(k_ofmts[0]); i++)
        if (k_ofmts[i].f == f) return &k_ofmts[i];
    return NULL;
}

static int g_decodes, g_exact;

/* TurboJPEG's chroma shifts for a subsampling. */
static void ss_shift(int ss, int *sx, int *sy)
{
    *sx = ss == TJSAMP_422 || ss == TJSAMP_420 ? 1 : 0;
    *sy = ss == TJSAMP_420 || ss == TJSAMP_440 ? 1 : 0;
}

/* Decodes jpg through the API to `req` on channel ch and compares with the reference. */
/* The pixel of a w x h plane shown at (x, y) under EXIF orientation o (the EXIF specification's eight cases). */
static void exif_src(int o, int w, int h, int x, int y, int *sx, int *sy)
{
    switch (o) {
    case 2: *sx = w - 1 - x, *sy = y; break;
    case 3: *sx = w - 1 - x, *sy = h - 1 - y; break;
    case 4: *sx = x, *sy = h - 1 - y; break;
    case 5: *sx = y, *sy = x; break;              /* transpose */
    case 6: *sx = y, *sy = h - 1 - x; break;      /* turned 90 degrees clockwise to show */
    case 7: *sx = w - 1 - y, *sy = h - 1 - x; break;
    case 8: *sx = w - 1 - y, *sy = x; break;      /* turned 90 degrees anticlockwise */
    default: *sx = x, *sy = y; break;
    }
}

/* A copy of plane (w x h, stride) as shown under orientation o (h x w for 5..8). */
static uint8_t *exif_turn(const uint8_t *plane, int stride, int w, int h, int o)
{
    int ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
    uint8_t *r = malloc((size_t)ow * oh);
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            int sx, sy;
            exif_src(o, w, h, x, y, &sx, &sy);
            r[(size_t)y * ow + x] = plane[(size_t)sy * stride + sx];
        }
    return r;
}

/* jpg with an APP1 Exif segment carrying Orientation = o inserted after SOI (little- or big-endian TIFF). */
static uint8_t *with_exif(const uint8_t *jpg, unsigned long len, int o, int big_endian, unsigned long *out_len)
{
    uint8_t seg[36] = {0xFF, 0xE1, 0, 34, 'E', 'x', 'i', 'f', 0, 0};
    uint8_t *t = seg + 10;
    /* TIFF header (8 bytes), IFD0 with one entry: count, tag 0x0112, type SHORT, count 1, value */
    if (big_endian) {
        memcpy(t, "MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01", 18);
        t[18] = 0, t[19] = (uint8_t)o;
    } else {
        memcpy(t, "II\x2a\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0", 18);
        t[18] = (uint8_t)o, t[19] = 0;
    }
    /* t[20..21]: the rest of the value field, t[22..25]: no next IFD */
    uint8_t *r = malloc(len + sizeof(seg));
    memcpy(r, jpg, 2);
    memcpy(r + 2, seg, sizeof(seg));
    memcpy(r + 2 + sizeof(seg), jpg + 2, len - 2);
    *out_len = len + sizeof(seg);
    return r;
}

static void decode_and_compare_o(acldvppChannelDesc *ch, int up, const uint8_t *jpg, unsigned long len, int w, int h,
                                 int ss, acldvppPixelFormat req, const char *label, int orient);

static void decode_and_compare(acldvppChannelDesc *ch, int up, const uint8_t *jpg, unsigned long len, int w, int h,
                               int ss, acldvppPixelFormat req, const char *label)
{
    decode_and_compare_o(ch, up, jpg, len, w, h, ss, req, label, 1);
}

/* orient: the file's EXIF orientation; w, h, ss are the stored picture's. */
static void decode_and_compare_o(acldvppChannelDesc *ch, int up, const uint8_t *jpg, unsigned long len, int w, int h,
                                 int ss, acldvppPixelFormat req, const char *label, int orient)
{
    const int sw = w, sh = h, sss = ss; /* as stored; w, h, ss become the displayed picture's */
    if (orient >= 5) {
        w = sh, h = sw;
        ss = sss == TJSAMP_422 ? TJSAMP_440 : sss == TJSAMP_440 ? TJSAMP_422 : sss;
    }
    uint32_t pred = 0;
    acldvppPixelFormat res = req;
    if (req == PIXEL_FORMAT_UNKNOWN)
        res = ss == TJSAMP_444 ? PIXEL_FORMAT_YVU_SEMIPLANAR_444
              : ss == TJSAMP_422 ? PIXEL_FORMAT_YVU_SEMIPLANAR_422
              : ss == TJSAMP_440 ? PIXEL_FORMAT_YVU_SEMIPLANAR_440
                                 : PIXEL_FORMAT_YVU_SEMIPLANAR_420;
    const ofmt *of = ofmt_of(res);
    int sx, sy;
    ss_shift(ss, &sx, &sy);
    int refuse = !of->y_only && ss != TJSAMP_GRAY && (of->sx < sx || of->sy < sy);
    if (refuse)
        FAILS(acldvppJpegPredictDecSize(jpg, (uint32_t)len, req, &pred), ACL_ERROR_FORMAT_NOT_MATCH,
              "acldvppJpegPredictDecSize");
    else
        OK(acldvppJpegPredictDecSize(jpg, (uint32_t)len, req, &pred));
    /* expected geometry */
    int ow = w, oh = h;
    if (!of->y_only && of->sx && (w & 1)) ow = up ? w + 1 : w - 1;
    if (!of->y_only && of->sy && (h & 1)) oh = up ? h + 1 : h - 1;
    uint32_t ws = (uint32_t)(ow + 127) / 128 * 128, hs = (uint32_t)(oh + 15) / 16 * 16;
    uint32_t need = ws * hs * of->num / of->den;
    uint32_t wsu = (uint32_t)((of->sx && (w & 1) ? w + 1 : w) + 127) / 128 * 128;
    uint32_t hsu = (uint32_t)((of->sy && (h & 1) ? h + 1 : h) + 15) / 16 * 16;
    if (!refuse) CHECK_EQ_INT(pred, wsu * hsu * of->num / of->den);

    void *in = dt_upload(jpg, len);
    uint32_t cap = refuse ? 4096 : pred;
    void *out = NULL;
    OK(acldvppMalloc(&out, cap));
    memset(out, 0xEE, cap);
    acldvppPicDesc *od = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(od, out));
    OK(acldvppSetPicDescSize(od, cap));
    OK(acldvppSetPicDescFormat(od, req));
    OK(acldvppJpegDecodeAsync(ch, in, (uint32_t)len, od, g_stream));
    aclError rc = aclrtSynchronizeStream(g_stream);
    if (refuse) {
        if (rc != ACL_ERROR_FORMAT_NOT_MATCH) {
            fprintf(stderr, "%s: decode to %d should be refused, got %d\n", label, (int)req, (int)rc);
            g_failures++;
        }
        CHECK(acldvppGetPicDescRetCode(od) != 0);
        goto done;
    }
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "%s: decode failed %d: %s\n", label, (int)rc, aclGetRecentErrMsg());
        g_failures++;
        goto done;
    }
    g_decodes++;
    CHECK_EQ_INT(acldvppGetPicDescRetCode(od), 0);
    CHECK_EQ_INT(acldvppGetPicDescWidth(od), ow);
    CHECK_EQ_INT(acldvppGetPicDescHeight(od), oh);
    CHECK_EQ_INT(acldvppGetPicDescWidthStride(od), ws);
    CHECK_EQ_INT(acldvppGetPicDescHeightStride(od), hs);
    CHECK_EQ_INT(acldvppGetPicDescFormat(od), res);
    CHECK(need <= cap);

    /* reference: TurboJPEG's planes of the same bytes */
    tjhandle tj = tjInitDecompress();
    int np = ss == TJSAMP_GRAY ? 1 : 3, pw[3] = {0}, ph[3] = {0};
    unsigned char *pl[3] = {NULL, NULL, NULL};
    for (int c = 0; c < np; c++) {
        pw[c] = tjPlaneWidth(c, sw, sss);
        ph[c] = tjPlaneHeight(c, sh, sss);
        pl[c] = malloc((size_t)pw[c] * ph[c]);
    }
    if (tjDecompressToYUVPlanes(tj, jpg, len, pl, sw, pw, sh, 0) != 0) {
        fprintf(stderr, "%s: reference decode failed: %s\n", label, tjGetErrorStr2(tj));
        g_failures++;
    }
    tjDestroy(tj);
    if (orient != 1) { /* turn the reference planes as the picture is shown (luma at its true size) */
        for (int c = 0; c < np; c++) {
            int cw_ = c ? pw[c] : sw, ch_ = c ? ph[c] : sh;
            uint8_t *t2 = exif_turn(pl[c], pw[c], cw_, ch_, orient);
            free(pl[c]);
            pl[c] = t2;
            pw[c] = orient >= 5 ? ch_ : cw_;
            ph[c] = orient >= 5 ? cw_ : ch_;
        }
    }
    const uint8_t *o = out;
    long bad = 0;
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            int sy_ = y < h ? y : h - 1, sx_ = x < w ? x : w - 1;
            if (o[(size_t)y * ws + x] != pl[0][(size_t)sy_ * pw[0] + sx_]) bad++;
        }
    if (!of->y_only) {
        const uint8_t *uv = o + (size_t)ws * hs;
        int ocw = ow >> of->sx, och = oh >> of->sy;
        size_t cs = of->sx ? ws : 2 * ws; /* a chroma row holds ocw U/V pairs */
        for (int y = 0; y < och; y++)
            for (int x = 0; x < ocw; x++)
                for (int c = 0; c < 2; c++) {
                    int expect = 0x80;
                    if (np == 3) {
                        const uint8_t *src = pl[(c ^ of->vu) ? 2 : 1];
                        int nx = 1 << (of->sx - sx), ny = 1 << (of->sy - sy), sum = 0;
                        for (int j = 0; j < ny; j++)
                            for (int i = 0; i < nx; i++) {
                                int yy = y * ny + j, xx = x * nx + i;
                                if (yy >= ph[1]) yy = ph[1] - 1;
                                if (xx >= pw[1]) xx = pw[1] - 1;
                                sum += src[(size_t)yy * pw[1] + xx];
                            }
                        expect = (sum + nx * ny / 2) / (nx * ny);
                    }
                    if (uv[(size_t)y * cs + 2 * x + c] != expect) bad++;
                }
    }
    if (bad) {
        fprintf(stderr, "%s: %ld samples differ from libjpeg-turbo's decode\n", label, bad);
        g_failures++;
    } else {
        g_exact++;
    }
    for (int c = 0; c < np; c++) free(pl[c]);
done:
    OK(acldvppDestroyPicDesc(od));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
}

static void test_info(const uint8_t *jpg, unsigned long len, int w, int h, int ss)
{
    uint32_t iw = 0, ih = 0;
    int32_t comp = 0;
    acldvppJpegFormat jf = ACL_JPEG_CSS_UNKNOWN;
    OK(acldvppJpegGetImageInfo(jpg, (uint32_t)len, &iw, &ih, &comp));
    CHECK_EQ_INT(iw, w);
    CHECK_EQ_INT(ih, h);
    CHECK_EQ_INT(comp, ss == TJSAMP_GRAY ? 1 : 3);
    OK(acldvppJpegGetImageInfoV2(jpg, (uint32_t)len, &iw, &ih, &comp, &jf));
    CHECK_EQ_INT(jf, ss); /* TJSAMP_* and ACL_JPEG_CSS_* share their numbers */
}

/* ---- encode round trips ---- */

static void test_encode(const uint8_t *rgb, int pw, int ph)
{
    int sizes[][2] = {{1920, 1080}, {640, 480}, {100, 74}, {32, 32}};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        int w = sizes[si][0], h = sizes[si][1];
        uint8_t *img = dt_rgb_resample(rgb, pw, ph, w, h);
        unsigned long jl;
        uint8_t *jpg = dt_make_jpeg(img, w, h, TJSAMP_420, 0, 95, &jl);
        /* the API's own decode gives the NV12 input */
        uint32_t dsz = 0;
        OK(acldvppJpegPredictDecSize(jpg, (uint32_t)jl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dsz));
        void *in = dt_upload(jpg, jl), *nv = NULL;
        OK(acldvppMalloc(&nv, dsz));
        acldvppPicDesc *dd = acldvppCreatePicDesc();
        OK(acldvppSetPicDescData(dd, nv));
        OK(acldvppSetPicDescSize(dd, dsz));
        OK(acldvppSetPicDescFormat(dd, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
        OK(acldvppJpegDecodeAsync(g_chan, in, (uint32_t)jl, dd, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        uint32_t ws = acldvppGetPicDescWidthStride(dd), hs = acldvppGetPicDescHeightStride(dd);
        acldvppPicDesc *ed = dt_pic(nv, dsz, PIXEL_FORMAT_YUV_SEMIPLANAR_420, (uint32_t)w, (uint32_t)h, ws, hs);
        acldvppJpegeConfig *cfg = acldvppCreateJpegeConfig();
        CHECK_EQ_INT(acldvppGetJpegeConfigLevel(cfg), 0);
        uint32_t levels[] = {0, 100, 90, 50};
        uint32_t size100 = 0;
        for (size_t li = 0; li < 4; li++) {
            OK(acldvppSetJpegeConfigLevel(cfg, levels[li]));
            CHECK_EQ_INT(acldvppGetJpegeConfigLevel(cfg), levels[li]);
            uint32_t cap = 0;
            OK(acldvppJpegPredictEncSize(ed, cfg, &cap));
            void *eo = NULL;
            OK(acldvppMalloc(&eo, cap));
            uint32_t esz = cap;
            OK(acldvppJpegEncodeAsync(g_chan, ed, eo, &esz, cfg, g_stream));
            OK(aclrtSynchronizeStream(g_stream));
            CHECK(esz > 0 && esz < cap);
            /* decode the result with TurboJPEG and compare the luma */
            uint8_t *host = malloc(esz);
            OK(aclrtMemcpy(host, esz, eo, esz, ACL_MEMCPY_DEVICE_TO_HOST));
            tjhandle tj = tjInitDecompress();
            int rw, rh, rss, rcs;
            CHECK(tjDecompressHeader3(tj, host, esz, &rw, &rh, &rss, &rcs) == 0);
            CHECK_EQ_INT(rw, w);
            CHECK_EQ_INT(rh, h);
            CHECK_EQ_INT(rss, TJSAMP_420);
            uint8_t *yp = malloc((size_t)tjPlaneWidth(0, w, TJSAMP_420) * tjPlaneHeight(0, h, TJSAMP_420));
            uint8_t *up = malloc((size_t)(w / 2) * (h / 2)), *vp = malloc((size_t)(w / 2) * (h / 2));
            unsigned char *pl[3] = {yp, up, vp};
            int strides[3] = {w, w / 2, w / 2};
            CHECK(tjDecompressToYUVPlanes(tj, host, esz, pl, w, strides, h, 0) == 0);
            tjDestroy(tj);
            double py = dt_psnr(yp, w, nv, (int)ws, w, h);
            /* chroma: compare U against the NV12 plane's even bytes */
            const uint8_t *uvp = (const uint8_t *)nv + (size_t)ws * hs;
            double se = 0;
            for (int y = 0; y < h / 2; y++)
                for (int x = 0; x < w / 2; x++) {
                    double d = (double)up[(size_t)y * (w / 2) + x] - uvp[(size_t)y * ws + 2 * x];
                    se += d * d;
                }
            double pu = se == 0 ? 99 : 10 * log10(255.0 * 255.0 / (se / ((w / 2.0) * (h / 2.0))));
            /* bounds: quality 100 (and level 0, which encodes as 100) keeps
             * the luma above 55 dB (measured 60.5-61.7), 90 above 33 dB
             * (35.6-48.8), 50 above 22 dB (23.9-41.9) on this photograph */
            double bound = levels[li] == 0 || levels[li] == 100 ? 55.0 : levels[li] == 90 ? 33.0 : 22.0;
            printf("encode %dx%d level %u: %u bytes, PSNR Y %.2f dB U %.2f dB (bound %.0f)\n", w, h, levels[li], esz,
                   py, pu, bound);
            CHECK(py >= bound);
            CHECK(pu >= bound - 3); /* chroma: 32.75 dB at 32x32 level 90 */
            if (levels[li] == 100) size100 = esz;
            if (levels[li] == 50) CHECK(esz < size100);
            free(yp), free(up), free(vp), free(host);
            OK(acldvppFree(eo));
        }
        /* an output buffer too small: the stream reports it, the size is left alone */
        void *small = NULL;
        OK(acldvppMalloc(&small, 256));
        uint32_t ssz = 256;
        OK(acldvppJpegEncodeAsync(g_chan, ed, small, &ssz, cfg, g_stream));
        FAILS(aclrtSynchronizeStream(g_stream), ACL_ERROR_INVALID_PARAM, "acldvppJpegEncodeAsync");
        CHECK_EQ_INT(ssz, 256);
        CHECK(acldvppGetPicDescRetCode(ed) != 0);
        OK(acldvppFree(small));
        OK(acldvppDestroyJpegeConfig(cfg));
        OK(acldvppDestroyPicDesc(ed));
        OK(acldvppDestroyPicDesc(dd));
        OK(acldvppFree(nv));
        OK(acldvppFree(in));
        tjFree(jpg);
        free(img);
    }
}

/* Packed 4:2:2 input: YUYV built from a decoded 4:2:2 picture encodes at 4:2:2. */
static void test_encode_packed(const uint8_t *rgb, int pw, int ph)
{
    int w = 320, h = 240;
    uint8_t *img = dt_rgb_resample(rgb, pw, ph, w, h);
    unsigned long jl;
    uint8_t *jpg = dt_make_jpeg(img, w, h, TJSAMP_422, 0, 95, &jl);
    tjhandle tj = tjInitDecompress();
    uint8_t *yp = malloc((size_t)w * h), *up = malloc((size_t)w / 2 * h), *vp = malloc((size_t)w / 2 * h);
    unsigned char *pl[3] = {yp, up, vp};
    int st[3] = {w, w / 2, w / 2};
    CHECK(tjDecompressToYUVPlanes(tj, jpg, jl, pl, w, st, h, 0) == 0);
    uint32_t ws = (uint32_t)w * 2, size = ws * (uint32_t)h;
    void *buf = NULL;
    OK(acldvppMalloc(&buf, size));
    uint8_t *q = buf;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w / 2; x++) {
            uint8_t *p = q + (size_t)y * ws + 4 * x;
            p[0] = yp[y * w + 2 * x], p[1] = up[y * (w / 2) + x], p[2] = yp[y * w + 2 * x + 1], p[3] = vp[y * (w / 2) + x];
        }
    acldvppPicDesc *d = dt_pic(buf, size, PIXEL_FORMAT_YUYV_PACKED_422, (uint32_t)w, (uint32_t)h, ws, (uint32_t)h);
    acldvppJpegeConfig *cfg = acldvppCreateJpegeConfig();
    uint32_t cap = 0;
    OK(acldvppJpegPredictEncSize(d, cfg, &cap));
    void *eo = NULL;
    OK(acldvppMalloc(&eo, cap));
    uint32_t esz = cap;
    OK(acldvppJpegEncodeAsync(g_chan, d, eo, &esz, cfg, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    int rw, rh, rss, rcs;
    CHECK(tjDecompressHeader3(tj, eo, esz, &rw, &rh, &rss, &rcs) == 0);
    CHECK_EQ_INT(rss, TJSAMP_422);
    uint8_t *y2 = malloc((size_t)w * h), *u2 = malloc((size_t)w / 2 * h), *v2 = malloc((size_t)w / 2 * h);
    unsigned char *pl2[3] = {y2, u2, v2};
    CHECK(tjDecompressToYUVPlanes(tj, eo, esz, pl2, w, st, h, 0) == 0);
    double py = dt_psnr(y2, w, yp, w, w, h), pv = dt_psnr(v2, w / 2, vp, w / 2, w / 2, h);
    printf("encode YUYV %dx%d: %u bytes, PSNR Y %.2f dB V %.2f dB\n", w, h, esz, py, pv);
    CHECK(py >= 45.0 && pv >= 42.0);
    tjDestroy(tj);
    free(y2), free(u2), free(v2), free(yp), free(up), free(vp), free(img);
    tjFree(jpg);
    OK(acldvppDestroyJpegeConfig(cfg));
    OK(acldvppDestroyPicDesc(d));
    OK(acldvppFree(eo));
    OK(acldvppFree(buf));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PHOTO.jpg\n", argv[0]);
        return 2;
    }
    dt_setup();
    int pw, ph;
    uint8_t *photo = dt_photo_rgb(argv[1], &pw, &ph);
    acldvppChannelDesc *up_chan = acldvppCreateChannelDesc();
    uint32_t mode = ACL_YUVOUT_ALIGN_UP;
    OK(acldvppSetChannelDescParam(up_chan, ACL_DVPP_JPEGD_PRECISION_MODE_ENUM, 4, &mode));
    OK(acldvppCreateChannel(up_chan));

    int sizes[][2] = {{32, 32}, {33, 45}, {64, 48}, {101, 75}, {255, 257}, {0, 0}, {640, 480}, {1023, 767}, {1920, 1080}};
    int subs[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_GRAY};
    const acldvppPixelFormat reqs[] = {PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420,
                                       PIXEL_FORMAT_UNKNOWN,            PIXEL_FORMAT_YUV_400,
                                       PIXEL_FORMAT_YUV_SEMIPLANAR_422, PIXEL_FORMAT_YUV_SEMIPLANAR_444,
                                       PIXEL_FORMAT_YVU_SEMIPLANAR_440};
    int jpegs = 0;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        int w = sizes[si][0] ? sizes[si][0] : pw, h = sizes[si][1] ? sizes[si][1] : ph;
        uint8_t *img = sizes[si][0] ? dt_rgb_resample(photo, pw, ph, w, h) : photo;
        for (size_t ui = 0; ui < sizeof(subs) / sizeof(subs[0]); ui++)
            for (int prog = 0; prog < 2; prog++) {
                unsigned long len;
                uint8_t *jpg = dt_make_jpeg(img, w, h, subs[ui], prog, 90, &len);
                jpegs++;
                test_info(jpg, len, w, h, subs[ui]);
                /* every output format on the big and odd sizes, NV12 / UNKNOWN elsewhere */
                int all = (w & 1) || (h & 1) || w >= 1000 || w == pw;
                for (size_t ri = 0; ri < sizeof(reqs) / sizeof(reqs[0]); ri++) {
                    if (!all && ri > 2) continue;
                    char label[96];
                    snprintf(label, sizeof(label), "%dx%d ss%d %s -> fmt %d", w, h, subs[ui],
                             prog ? "progressive" : "baseline", (int)reqs[ri]);
                    decode_and_compare(g_chan, 0, jpg, len, w, h, subs[ui], reqs[ri], label);
                    if ((w & 1) || (h & 1)) decode_and_compare(up_chan, 1, jpg, len, w, h, subs[ui], reqs[ri], label);
                }
                tjFree(jpg);
            }
        if (img != photo) free(img);
    }
    /* EXIF orientation: every one of the eight, odd sizes, subsamplings whose quarter turn swaps 4:2:2 and 4:4:0 */
    {
        int ew = 101, eh = 75;
        uint8_t *img = dt_rgb_resample(photo, pw, ph, ew, eh);
        int esubs[] = {TJSAMP_422, TJSAMP_440, TJSAMP_420, TJSAMP_GRAY};
        const acldvppPixelFormat ereqs[] = {PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_UNKNOWN,
                                            PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YUV_SEMIPLANAR_440};
        for (size_t ui = 0; ui < 4; ui++) {
            unsigned long len;
            uint8_t *jpg = dt_make_jpeg(img, ew, eh, esubs[ui], ui & 1, 90, &len);
            for (int o = 1; o <= 8; o++) {
                unsigned long el;
                uint8_t *ej = with_exif(jpg, len, o, o & 1, &el);
                jpegs++;
                uint32_t iw = 0, ih = 0;
                int32_t comp;
                OK(acldvppJpegGetImageInfo(ej, (uint32_t)el, &iw, &ih, &comp));
                CHECK_EQ_INT(iw, o >= 5 ? eh : ew);
                CHECK_EQ_INT(ih, o >= 5 ? ew : eh);
                for (size_t ri = 0; ri < 4; ri++) {
                    char label[96];
                    snprintf(label, sizeof(label), "exif %d ss%d -> fmt %d", o, esubs[ui], (int)ereqs[ri]);
                    decode_and_compare_o(g_chan, 0, ej, el, ew, eh, esubs[ui], ereqs[ri], label, o);
                }
                free(ej);
            }
            tjFree(jpg);
        }
        free(img);
    }
    printf("%d JPEGs, %d decodes, %d equal to libjpeg-turbo's decode\n", jpegs, g_decodes, g_exact);
    CHECK(g_decodes > 300 && g_exact == g_decodes);

    test_encode(photo, pw, ph);
    test_encode_packed(photo, pw, ph);

    OK(acldvppDestroyChannel(up_chan));
    OK(acldvppDestroyChannelDesc(up_chan));
    free(photo);
    dt_teardown();
    TEST_DONE();
}
