/* VPC through the API on a real photograph decoded by the API itself.
 * Exact properties checked here: a crop at its own size is a copy, crop-and-
 * paste leaves the rest of the canvas untouched, a batch equals the same
 * calls one by one, NV12 <-> NV21 only swaps chroma, RGB <-> RGB only moves
 * bytes, the work is ordered with asynchronous copies on the stream.
 * Interpolation and colour arithmetic are compared with OpenCV / numpy by
 * check_vpc.py over the pictures this program writes to argv[3]. */
#include <sys/stat.h>

#include "dvpp_test.h"

static uint32_t al(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

typedef struct {
    void *buf;
    uint32_t size, w, h, ws, hs;
    acldvppPixelFormat f;
    acldvppPicDesc *d;
} pic_t;

static uint32_t bpp_of(acldvppPixelFormat f)
{
    switch (f) {
    case PIXEL_FORMAT_RGB_888: case PIXEL_FORMAT_BGR_888: case PIXEL_FORMAT_YUV_PACKED_444: return 3;
    case PIXEL_FORMAT_ARGB_8888: case PIXEL_FORMAT_ABGR_8888: case PIXEL_FORMAT_RGBA_8888: case PIXEL_FORMAT_BGRA_8888: return 4;
    case PIXEL_FORMAT_YUYV_PACKED_422: case PIXEL_FORMAT_UYVY_PACKED_422: return 2;
    default: return 1;
    }
}

static uint32_t size_of(acldvppPixelFormat f, uint32_t ws, uint32_t hs)
{
    switch (f) {
    case PIXEL_FORMAT_YUV_SEMIPLANAR_420: case PIXEL_FORMAT_YVU_SEMIPLANAR_420: return ws * hs * 3 / 2;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_422: case PIXEL_FORMAT_YVU_SEMIPLANAR_422: return ws * hs * 2;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_444: case PIXEL_FORMAT_YVU_SEMIPLANAR_444: return ws * hs * 3;
    default: return ws * hs;
    }
}

static pic_t pic_new(acldvppPixelFormat f, uint32_t w, uint32_t h, uint8_t fill)
{
    pic_t p = {0};
    p.f = f, p.w = w, p.h = h;
    p.ws = al(w * bpp_of(f), 16);
    p.hs = al(h, 2);
    p.size = size_of(f, p.ws, p.hs);
    OK(acldvppMalloc(&p.buf, p.size));
    memset(p.buf, fill, p.size);
    p.d = dt_pic(p.buf, p.size, f, w, h, p.ws, p.hs);
    return p;
}

static void pic_free(pic_t *p)
{
    OK(acldvppDestroyPicDesc(p->d));
    OK(acldvppFree(p->buf));
}

/* Writes the picture's rows (without stride padding): luma then chroma for semi-planar. */
static void pic_dump(const char *dir, const char *name, const pic_t *p)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.raw", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        g_failures++;
        return;
    }
    const uint8_t *b = p->buf;
    uint32_t row = p->w * bpp_of(p->f);
    for (uint32_t y = 0; y < p->h; y++) fwrite(b + (size_t)y * p->ws, 1, row, f);
    if (p->f == PIXEL_FORMAT_YUV_SEMIPLANAR_420 || p->f == PIXEL_FORMAT_YVU_SEMIPLANAR_420)
        for (uint32_t y = 0; y < p->h / 2; y++) fwrite(b + (size_t)p->ws * p->hs + (size_t)y * p->ws, 1, p->w, f);
    if (p->f == PIXEL_FORMAT_YUV_SEMIPLANAR_444 || p->f == PIXEL_FORMAT_YVU_SEMIPLANAR_444) /* chroma rows: 2 * ws */
        for (uint32_t y = 0; y < p->h; y++) fwrite(b + (size_t)p->ws * p->hs + (size_t)y * 2 * p->ws, 1, 2 * p->w, f);
    fclose(f);
}

/* rgb (packed, w x h) compressed by TurboJPEG and decoded by the API to `fmt`. */
static pic_t decoded_photo(const uint8_t *rgb, int w, int h, int subsamp, acldvppPixelFormat fmt)
{
    unsigned long jl = 0;
    uint8_t *jpg = dt_make_jpeg(rgb, w, h, subsamp, 0, 92, &jl);
    pic_t p = {0};
    OK(acldvppJpegPredictDecSize(jpg, (uint32_t)jl, fmt, &p.size));
    void *in = dt_upload(jpg, jl);
    OK(acldvppMalloc(&p.buf, p.size));
    p.d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(p.d, p.buf));
    OK(acldvppSetPicDescSize(p.d, p.size));
    OK(acldvppSetPicDescFormat(p.d, fmt));
    OK(acldvppJpegDecodeAsync(g_chan, in, (uint32_t)jl, p.d, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    p.f = acldvppGetPicDescFormat(p.d);
    p.w = acldvppGetPicDescWidth(p.d);
    p.h = acldvppGetPicDescHeight(p.d);
    p.ws = acldvppGetPicDescWidthStride(p.d);
    p.hs = acldvppGetPicDescHeightStride(p.d);
    OK(acldvppFree(in));
    tjFree(jpg);
    return p;
}

static FILE *g_manifest;
static const char *g_dir;

static acldvppResizeConfig *rcfg(uint32_t interp)
{
    acldvppResizeConfig *c = acldvppCreateResizeConfig();
    OK(acldvppSetResizeConfigInterpolation(c, interp));
    return c;
}

/* Resize (or crop-resize) src to w x h, dump, and list it for check_vpc.py. */
static void resize_case(const pic_t *src, const char *srcname, acldvppPixelFormat of, uint32_t w, uint32_t h,
                        uint32_t interp, const uint32_t *crop, uint32_t csc, acldvppChannelDesc *ch)
{
    pic_t o = pic_new(of, w, h, 0);
    acldvppResizeConfig *c = rcfg(interp);
    if (crop) {
        acldvppRoiConfig *r = acldvppCreateRoiConfig(crop[0], crop[0] + crop[2] - 1, crop[1], crop[1] + crop[3] - 1);
        OK(acldvppVpcCropResizeAsync(ch, src->d, o.d, r, c, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        OK(acldvppDestroyRoiConfig(r));
    } else {
        OK(acldvppVpcResizeAsync(ch, src->d, o.d, c, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
    }
    CHECK_EQ_INT(acldvppGetPicDescRetCode(o.d), 0);
    char name[128];
    snprintf(name, sizeof(name), "%s_to_%d_%ux%u_i%u_csc%u%s", srcname, (int)of, w, h, interp, csc,
             crop ? "_crop" : "");
    pic_dump(g_dir, name, &o);
    fprintf(g_manifest, "%s %s %d %u %u %u %u %u %u %u %u %d %u\n", name, srcname, (int)src->f, src->w, src->h,
            crop ? crop[0] : 0, crop ? crop[1] : 0, crop ? crop[2] : src->w, crop ? crop[3] : src->h, w, h, (int)of,
            interp * 10 + csc);
    OK(acldvppDestroyResizeConfig(c));
    pic_free(&o);
}

static int rows_equal(const pic_t *a, uint32_t ax, uint32_t ay, const pic_t *b, uint32_t bx, uint32_t by, uint32_t w,
                      uint32_t h, uint32_t bpp)
{
    const uint8_t *pa = a->buf, *pb = b->buf;
    for (uint32_t y = 0; y < h; y++)
        if (memcmp(pa + (size_t)(ay + y) * a->ws + ax * bpp, pb + (size_t)(by + y) * b->ws + bx * bpp, (size_t)w * bpp))
            return 0;
    return 1;
}

static const uint8_t *uvp(const pic_t *p) { return (const uint8_t *)p->buf + (size_t)p->ws * p->hs; }

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s PHOTO.jpg PHOTO.png OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[3];
    mkdir(g_dir, 0755);
    char mpath[512];
    snprintf(mpath, sizeof(mpath), "%s/manifest.txt", g_dir);
    g_manifest = fopen(mpath, "w");
    if (!g_manifest) {
        fprintf(stderr, "cannot write %s\n", mpath);
        return 1;
    }
    dt_setup();

    /* the photograph, decoded by the API to NV12 */
    size_t jl = 0;
    uint8_t *jpg = dt_read_file(argv[1], &jl);
    uint32_t pw = 0, ph = 0, dsz = 0;
    int32_t comp;
    OK(acldvppJpegGetImageInfo(jpg, (uint32_t)jl, &pw, &ph, &comp));
    OK(acldvppJpegPredictDecSize(jpg, (uint32_t)jl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dsz));
    void *jin = dt_upload(jpg, jl);
    pic_t src = {0};
    OK(acldvppMalloc(&src.buf, dsz));
    src.d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(src.d, src.buf));
    OK(acldvppSetPicDescSize(src.d, dsz));
    OK(acldvppSetPicDescFormat(src.d, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    OK(acldvppJpegDecodeAsync(g_chan, jin, (uint32_t)jl, src.d, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    src.f = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
    src.size = dsz;
    src.w = acldvppGetPicDescWidth(src.d);
    src.h = acldvppGetPicDescHeight(src.d);
    src.ws = acldvppGetPicDescWidthStride(src.d);
    src.hs = acldvppGetPicDescHeightStride(src.d);
    /* a VPC input description over the decoder's output */
    OK(acldvppSetPicDescWidth(src.d, src.w));
    OK(acldvppSetPicDescHeight(src.d, src.h));
    pic_dump(g_dir, "photo_nv12", &src);
    printf("photograph %ux%u decoded to NV12 (strides %u x %u)\n", src.w, src.h, src.ws, src.hs);

    /* ---- exact: crop at its own size is a copy ---- */
    {
        uint32_t cx = 100, cy = 64, cw = 224, chh = 200;
        pic_t o = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, cw, chh, 0);
        acldvppRoiConfig *r = acldvppCreateRoiConfig(cx, cx + cw - 1, cy, cy + chh - 1);
        OK(acldvppVpcCropAsync(g_chan, src.d, o.d, r, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        CHECK(rows_equal(&src, cx, cy, &o, 0, 0, cw, chh, 1));
        int uv_ok = 1;
        for (uint32_t y = 0; y < chh / 2; y++)
            if (memcmp(uvp(&src) + (size_t)(cy / 2 + y) * src.ws + cx, uvp(&o) + (size_t)y * o.ws, cw)) uv_ok = 0;
        CHECK(uv_ok);
        OK(acldvppDestroyRoiConfig(r));
        pic_free(&o);
    }

    /* ---- exact: crop-and-paste writes the paste area only ---- */
    pic_t canvas1 = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 0x5A);
    {
        acldvppRoiConfig *cr = acldvppCreateRoiConfig(0, src.w - 1, 0, src.h - 1);
        /* keep the aspect ratio: 512x600 -> 190x224 at (32, 0) */
        uint32_t ph2 = 224, pw2 = (src.w * ph2 / src.h) & ~1u;
        acldvppRoiConfig *pr = acldvppCreateRoiConfig(32, 32 + pw2 - 1, 0, ph2 - 1);
        OK(acldvppVpcCropAndPasteAsync(g_chan, src.d, canvas1.d, cr, pr, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        const uint8_t *b = canvas1.buf;
        long outside = 0, inside_fill = 0;
        for (uint32_t y = 0; y < 224; y++)
            for (uint32_t x = 0; x < 224; x++) {
                int in = x >= 32 && x < 32 + pw2;
                if (!in && b[(size_t)y * canvas1.ws + x] != 0x5A) outside++;
                if (in && b[(size_t)y * canvas1.ws + x] == 0x5A) inside_fill++;
            }
        for (uint32_t y = 0; y < 112; y++)
            for (uint32_t x = 0; x < 224; x++)
                if ((x < 32 || x >= 32 + pw2) && uvp(&canvas1)[(size_t)y * canvas1.ws + x] != 0x5A) outside++;
        CHECK_EQ_INT(outside, 0);
        CHECK(inside_fill < 224 * 4); /* the photograph, not the fill, is inside */
        OK(acldvppDestroyRoiConfig(cr));
        OK(acldvppDestroyRoiConfig(pr));
    }

    /* ---- exact: a batch of 8 ROIs equals 8 single calls ---- */
    {
        enum { N = 8 };
        acldvppBatchPicDesc *sb = acldvppCreateBatchPicDesc(1), *db = acldvppCreateBatchPicDesc(N);
        acldvppPicDesc *s0 = acldvppGetPicDesc(sb, 0);
        OK(acldvppSetPicDescData(s0, src.buf));
        OK(acldvppSetPicDescSize(s0, src.size));
        OK(acldvppSetPicDescFormat(s0, src.f));
        OK(acldvppSetPicDescWidth(s0, src.w));
        OK(acldvppSetPicDescHeight(s0, src.h));
        OK(acldvppSetPicDescWidthStride(s0, src.ws));
        OK(acldvppSetPicDescHeightStride(s0, src.hs));
        acldvppRoiConfig *crops[N], *pastes[N];
        pic_t outs[N], singles[N];
        for (int i = 0; i < N; i++) {
            uint32_t x = 16u * (uint32_t)i, y = 20u * (uint32_t)i, w = 100 + 20u * (uint32_t)i, h = 120 + 10u * (uint32_t)i;
            crops[i] = acldvppCreateRoiConfig(x, x + w - 1, y, y + h - 1);
            pastes[i] = acldvppCreateRoiConfig(16, 16 + 127, 8, 8 + 127);
            outs[i] = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 160, 144, 0x10);
            singles[i] = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 160, 144, 0x10);
            acldvppPicDesc *di = acldvppGetPicDesc(db, (uint32_t)i);
            OK(acldvppSetPicDescData(di, outs[i].buf));
            OK(acldvppSetPicDescSize(di, outs[i].size));
            OK(acldvppSetPicDescFormat(di, outs[i].f));
            OK(acldvppSetPicDescWidth(di, outs[i].w));
            OK(acldvppSetPicDescHeight(di, outs[i].h));
            OK(acldvppSetPicDescWidthStride(di, outs[i].ws));
            OK(acldvppSetPicDescHeightStride(di, outs[i].hs));
            OK(acldvppVpcCropAndPasteAsync(g_chan, src.d, singles[i].d, crops[i], pastes[i], g_stream));
        }
        uint32_t roiNums[1] = {N};
        OK(acldvppVpcBatchCropAndPasteAsync(g_chan, sb, roiNums, 1, db, crops, pastes, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        for (int i = 0; i < N; i++) {
            CHECK(memcmp(outs[i].buf, singles[i].buf, outs[i].size) == 0);
            CHECK_EQ_INT(acldvppGetPicDescRetCode(acldvppGetPicDesc(db, (uint32_t)i)), 0);
        }
        /* batch crop (scaled to each destination) equals single crops too */
        OK(acldvppVpcBatchCropAsync(g_chan, sb, roiNums, 1, db, crops, g_stream));
        for (int i = 0; i < N; i++) OK(acldvppVpcCropAsync(g_chan, src.d, singles[i].d, crops[i], g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        for (int i = 0; i < N; i++) CHECK(memcmp(outs[i].buf, singles[i].buf, outs[i].size) == 0);
        for (int i = 0; i < N; i++) {
            OK(acldvppDestroyRoiConfig(crops[i]));
            OK(acldvppDestroyRoiConfig(pastes[i]));
            pic_free(&outs[i]);
            pic_free(&singles[i]);
        }
        OK(acldvppDestroyBatchPicDesc(sb));
        OK(acldvppDestroyBatchPicDesc(db));
    }

    /* ---- exact: NV21 output is NV12 with chroma swapped ---- */
    {
        pic_t a = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 300, 200, 0), b = pic_new(PIXEL_FORMAT_YVU_SEMIPLANAR_420, 300, 200, 0);
        acldvppResizeConfig *c = rcfg(1);
        OK(acldvppVpcResizeAsync(g_chan, src.d, a.d, c, g_stream));
        OK(acldvppVpcResizeAsync(g_chan, src.d, b.d, c, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        CHECK(rows_equal(&a, 0, 0, &b, 0, 0, 300, 200, 1));
        long bad = 0;
        for (uint32_t y = 0; y < 100; y++)
            for (uint32_t x = 0; x < 150; x++) {
                const uint8_t *pa = uvp(&a) + (size_t)y * a.ws + 2 * x, *pb = uvp(&b) + (size_t)y * b.ws + 2 * x;
                if (pa[0] != pb[1] || pa[1] != pb[0]) bad++;
            }
        CHECK_EQ_INT(bad, 0);
        OK(acldvppDestroyResizeConfig(c));
        pic_free(&a);
        pic_free(&b);
    }

    /* ---- exact: RGB family conversions only move bytes ---- */
    {
        pic_t rgb = pic_new(PIXEL_FORMAT_RGB_888, 250, 150, 0);
        uint8_t *q = rgb.buf;
        for (uint32_t y = 0; y < 150; y++)
            for (uint32_t x = 0; x < 250 * 3; x++) q[(size_t)y * rgb.ws + x] = (uint8_t)(x * 7 + y * 13);
        acldvppPixelFormat outs[] = {PIXEL_FORMAT_BGR_888, PIXEL_FORMAT_RGBA_8888, PIXEL_FORMAT_BGRA_8888,
                                     PIXEL_FORMAT_ARGB_8888, PIXEL_FORMAT_ABGR_8888};
        /* offsets of R, G, B, A in each output */
        int offs[][4] = {{2, 1, 0, -1}, {0, 1, 2, 3}, {2, 1, 0, 3}, {1, 2, 3, 0}, {3, 2, 1, 0}};
        for (int k = 0; k < 5; k++) {
            acldvppPicDesc *od = acldvppCreatePicDesc();
            uint32_t bpp = bpp_of(outs[k]), ows = al(250 * bpp, 16), osz = ows * 150;
            void *ob = NULL;
            OK(acldvppMalloc(&ob, osz));
            OK(acldvppSetPicDescData(od, ob));
            OK(acldvppSetPicDescSize(od, osz));
            OK(acldvppSetPicDescFormat(od, outs[k]));
            OK(acldvppVpcConvertColorAsync(g_chan, rgb.d, od, g_stream)); /* width/height/strides left 0 */
            OK(aclrtSynchronizeStream(g_stream));
            CHECK_EQ_INT(acldvppGetPicDescWidth(od), 250);
            CHECK_EQ_INT(acldvppGetPicDescWidthStride(od), ows);
            long bad = 0;
            const uint8_t *o = ob;
            for (uint32_t y = 0; y < 150; y++)
                for (uint32_t x = 0; x < 250; x++) {
                    const uint8_t *s = q + (size_t)y * rgb.ws + 3 * x, *d = o + (size_t)y * ows + bpp * x;
                    if (d[offs[k][0]] != s[0] || d[offs[k][1]] != s[1] || d[offs[k][2]] != s[2]) bad++;
                    if (offs[k][3] >= 0 && d[offs[k][3]] != 255) bad++;
                }
            CHECK_EQ_INT(bad, 0);
            OK(acldvppDestroyPicDesc(od));
            OK(acldvppFree(ob));
        }
        pic_free(&rgb);
    }

    /* ---- ordered with asynchronous copies: H2D copy, resize, D2H copy, one sync ---- */
    {
        pic_t in = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, src.w, src.h, 0);
        pic_t out = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 0);
        pic_t ref = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 0);
        uint8_t *host = NULL, *back = NULL; /* page-locked: asynchronous copies need it */
        OK(aclrtMallocHost((void **)&host, in.size));
        OK(aclrtMallocHost((void **)&back, out.size));
        for (uint32_t y = 0; y < src.h; y++) memcpy(host + (size_t)y * in.ws, (uint8_t *)src.buf + (size_t)y * src.ws, src.w);
        for (uint32_t y = 0; y < src.h / 2; y++)
            memcpy(host + (size_t)in.ws * in.hs + (size_t)y * in.ws, uvp(&src) + (size_t)y * src.ws, src.w);
        acldvppResizeConfig *c = rcfg(0);
        OK(acldvppVpcResizeAsync(g_chan, src.d, ref.d, c, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        OK(aclrtMemcpyAsync(in.buf, in.size, host, in.size, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
        OK(acldvppVpcResizeAsync(g_chan, in.d, out.d, c, g_stream));
        OK(aclrtMemcpyAsync(back, out.size, out.buf, out.size, ACL_MEMCPY_DEVICE_TO_HOST, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        CHECK(memcmp(back, ref.buf, out.size) == 0);
        OK(acldvppDestroyResizeConfig(c));
        OK(aclrtFreeHost(host));
        OK(aclrtFreeHost(back));
        pic_free(&in), pic_free(&out), pic_free(&ref);
    }

    /* ---- cases for check_vpc.py (OpenCV / numpy references) ---- */
    uint32_t sizes[][2] = {{224, 224}, {300, 200}, {128, 96}, {64, 400}, {1000, 1200}, {700, 650}, {16, 10}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (uint32_t interp = 0; interp <= 4; interp++)
            resize_case(&src, "photo_nv12", PIXEL_FORMAT_YUV_SEMIPLANAR_420, sizes[i][0], sizes[i][1], interp, NULL, 0,
                        g_chan);
    uint32_t crop[4] = {120, 80, 256, 300};
    resize_case(&src, "photo_nv12", PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 1, crop, 0, g_chan);
    resize_case(&src, "photo_nv12", PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 2, crop, 0, g_chan);
    /* YUV -> RGB with each matrix (same size: colour only; and resized) */
    for (uint32_t csc = 0; csc <= 5; csc++) {
        acldvppChannelDesc *ch = acldvppCreateChannelDesc();
        OK(acldvppSetChannelDescParam(ch, ACL_DVPP_CSC_MATRIX_UINT32, 4, &csc));
        OK(acldvppCreateChannel(ch));
        resize_case(&src, "photo_nv12", PIXEL_FORMAT_RGB_888, src.w, src.h, 1, NULL, csc, ch);
        resize_case(&src, "photo_nv12", PIXEL_FORMAT_BGR_888, 224, 224, 1, NULL, csc, ch);
        OK(acldvppDestroyChannel(ch));
        OK(acldvppDestroyChannelDesc(ch));
    }
    /* more input sizes and formats: a 1920x1080 NV12 picture, a 4:4:4 one (YVU444SP), odd-size RGB */
    {
        int rw, rh;
        uint8_t *rgbh = dt_photo_rgb(argv[1], &rw, &rh);
        uint8_t *hd = dt_rgb_resample(rgbh, rw, rh, 1920, 1080);
        pic_t big = decoded_photo(hd, 1920, 1080, TJSAMP_420, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
        pic_dump(g_dir, "hd_nv12", &big);
        uint32_t hsz[][2] = {{224, 224}, {640, 360}, {1000, 562}, {2560, 1440}};
        for (size_t i = 0; i < 4; i++)
            for (uint32_t interp = 1; interp <= 2; interp++)
                resize_case(&big, "hd_nv12", PIXEL_FORMAT_YUV_SEMIPLANAR_420, hsz[i][0], hsz[i][1], interp, NULL, 0,
                            g_chan);
        uint32_t hcrop[4] = {640, 200, 720, 720};
        resize_case(&big, "hd_nv12", PIXEL_FORMAT_YVU_SEMIPLANAR_420, 224, 224, 1, hcrop, 0, g_chan);
        pic_free(&big);
        uint8_t *mid = dt_rgb_resample(rgbh, rw, rh, 333, 251);
        pic_t p444 = decoded_photo(mid, 333, 251, TJSAMP_444, PIXEL_FORMAT_UNKNOWN);
        CHECK_EQ_INT(p444.f, PIXEL_FORMAT_YVU_SEMIPLANAR_444);
        pic_dump(g_dir, "mid_yvu444", &p444);
        resize_case(&p444, "mid_yvu444", PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 1, NULL, 0, g_chan);
        resize_case(&p444, "mid_yvu444", PIXEL_FORMAT_YUV_SEMIPLANAR_420, 160, 120, 2, NULL, 0, g_chan);
        pic_free(&p444);
        pic_t odd = pic_new(PIXEL_FORMAT_RGB_888, 333, 251, 0);
        for (int y = 0; y < 251; y++) memcpy((uint8_t *)odd.buf + (size_t)y * odd.ws, mid + (size_t)y * 333 * 3, 333 * 3);
        pic_dump(g_dir, "odd_rgb", &odd);
        resize_case(&odd, "odd_rgb", PIXEL_FORMAT_RGB_888, 101, 77, 1, NULL, 0, g_chan);
        resize_case(&odd, "odd_rgb", PIXEL_FORMAT_RGB_888, 101, 77, 2, NULL, 0, g_chan);
        resize_case(&odd, "odd_rgb", PIXEL_FORMAT_RGB_888, 517, 389, 1, NULL, 0, g_chan);
        pic_free(&odd);
        free(mid), free(hd), free(rgbh);
    }
    /* borders (vs cv2.copyMakeBorder) and the pyramid (vs cv2.pyrDown), listed in extra.txt */
    {
        char epath[512];
        snprintf(epath, sizeof(epath), "%s/extra.txt", g_dir);
        FILE *ex = fopen(epath, "w");
        CHECK(ex != NULL);
        acldvppBorderType types[] = {BORDER_CONSTANT, BORDER_REPLICATE, BORDER_REFLECT, BORDER_REFLECT_101};
        for (int t = 0; t < 4 && ex; t++) {
            acldvppBorderConfig *b = acldvppCreateBorderConfig();
            OK(acldvppSetBorderConfigBorderType(b, types[t]));
            OK(acldvppSetBorderConfigTop(b, 16));
            OK(acldvppSetBorderConfigBottom(b, 6));
            OK(acldvppSetBorderConfigLeft(b, 32));
            OK(acldvppSetBorderConfigRight(b, 10));
            OK(acldvppSetBorderConfigValue(b, 0, 30));
            OK(acldvppSetBorderConfigValue(b, 1, 90));
            OK(acldvppSetBorderConfigValue(b, 2, 200));
            pic_t o = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, src.w + 42, src.h + 22, 0);
            OK(acldvppVpcMakeBorderAsync(g_chan, src.d, o.d, b, g_stream));
            OK(aclrtSynchronizeStream(g_stream));
            char name[64];
            snprintf(name, sizeof(name), "border_nv12_t%d", t);
            pic_dump(g_dir, name, &o);
            fprintf(ex, "border %s photo_nv12 1 %u %u %d 16 6 32 10 30 90 200\n", name, src.w, src.h, t);
            pic_free(&o);
            OK(acldvppDestroyBorderConfig(b));
        }
        /* the pyramid: the luma plane of the photograph as YUV400, and an odd size */
        uint32_t pys[][2] = {{src.w, src.h}, {331, 251}};
        for (int k = 0; k < 2 && ex; k++) {
            pic_t y4 = pic_new(PIXEL_FORMAT_YUV_400, pys[k][0], pys[k][1], 0);
            for (uint32_t y = 0; y < pys[k][1]; y++)
                memcpy((uint8_t *)y4.buf + (size_t)y * y4.ws, (uint8_t *)src.buf + (size_t)y * src.ws, pys[k][0]);
            pic_t o = pic_new(PIXEL_FORMAT_YUV_400, (pys[k][0] + 1) / 2, (pys[k][1] + 1) / 2, 0);
            OK(acldvppVpcPyrDownAsync(g_chan, y4.d, o.d, NULL, g_stream));
            OK(aclrtSynchronizeStream(g_stream));
            char in_name[64], out_name[64];
            snprintf(in_name, sizeof(in_name), "pyr_in_%u", pys[k][0]);
            snprintf(out_name, sizeof(out_name), "pyr_out_%u", pys[k][0]);
            pic_dump(g_dir, in_name, &y4);
            pic_dump(g_dir, out_name, &o);
            fprintf(ex, "pyr %s %s 0 %u %u\n", out_name, in_name, pys[k][0], pys[k][1]);
            pic_free(&o);
            pic_free(&y4);
        }
        if (ex) fclose(ex);
        /* exact: a batch crop-resize-make-border equals CropResize into the inner size, then MakeBorder */
        acldvppBatchPicDesc *sb = acldvppCreateBatchPicDesc(1), *db = acldvppCreateBatchPicDesc(1);
        acldvppPicDesc *s0 = acldvppGetPicDesc(sb, 0), *d0 = acldvppGetPicDesc(db, 0);
        OK(acldvppSetPicDescData(s0, src.buf));
        OK(acldvppSetPicDescSize(s0, src.size));
        OK(acldvppSetPicDescFormat(s0, src.f));
        OK(acldvppSetPicDescWidth(s0, src.w));
        OK(acldvppSetPicDescHeight(s0, src.h));
        OK(acldvppSetPicDescWidthStride(s0, src.ws));
        OK(acldvppSetPicDescHeightStride(s0, src.hs));
        pic_t bo = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 0);
        OK(acldvppSetPicDescData(d0, bo.buf));
        OK(acldvppSetPicDescSize(d0, bo.size));
        OK(acldvppSetPicDescFormat(d0, bo.f));
        OK(acldvppSetPicDescWidth(d0, 224));
        OK(acldvppSetPicDescHeight(d0, 224));
        OK(acldvppSetPicDescWidthStride(d0, bo.ws));
        OK(acldvppSetPicDescHeightStride(d0, bo.hs));
        acldvppRoiConfig *cr = acldvppCreateRoiConfig(100, 399, 50, 449);
        acldvppBorderConfig *bc = acldvppCreateBorderConfig();
        OK(acldvppSetBorderConfigBorderType(bc, BORDER_REFLECT_101));
        OK(acldvppSetBorderConfigTop(bc, 12));
        OK(acldvppSetBorderConfigBottom(bc, 12));
        OK(acldvppSetBorderConfigLeft(bc, 8));
        OK(acldvppSetBorderConfigRight(bc, 8));
        acldvppResizeConfig *rc = rcfg(1);
        uint32_t nums[1] = {1};
        acldvppRoiConfig *crs[1] = {cr};
        acldvppBorderConfig *bcs[1] = {bc};
        OK(acldvppVpcBatchCropResizeMakeBorderAsync(g_chan, sb, nums, 1, db, crs, bcs, rc, g_stream));
        pic_t inner = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 208, 200, 0), two = pic_new(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 0);
        OK(acldvppVpcCropResizeAsync(g_chan, src.d, inner.d, cr, rc, g_stream));
        OK(acldvppVpcMakeBorderAsync(g_chan, inner.d, two.d, bc, g_stream));
        OK(aclrtSynchronizeStream(g_stream));
        CHECK(rows_equal(&bo, 0, 0, &two, 0, 0, 224, 224, 1));
        CHECK(memcmp(uvp(&bo), uvp(&two), (size_t)bo.ws * 112) == 0);
        pic_free(&inner), pic_free(&two), pic_free(&bo);
        OK(acldvppDestroyRoiConfig(cr));
        OK(acldvppDestroyBorderConfig(bc));
        OK(acldvppDestroyResizeConfig(rc));
        OK(acldvppDestroyBatchPicDesc(sb));
        OK(acldvppDestroyBatchPicDesc(db));
    }
    /* RGB -> NV12 (BT.601 wide, the default matrix) from an RGB picture of the photograph */
    {
        int rw, rh;
        uint8_t *rgbh = dt_photo_rgb(argv[1], &rw, &rh);
        pic_t rgb = pic_new(PIXEL_FORMAT_RGB_888, (uint32_t)rw, (uint32_t)rh, 0);
        for (int y = 0; y < rh; y++) memcpy((uint8_t *)rgb.buf + (size_t)y * rgb.ws, rgbh + (size_t)y * rw * 3, (size_t)rw * 3);
        pic_dump(g_dir, "photo_rgb", &rgb);
        resize_case(&rgb, "photo_rgb", PIXEL_FORMAT_YUV_SEMIPLANAR_420, (uint32_t)rw, (uint32_t)rh, 1, NULL, 0, g_chan);
        resize_case(&rgb, "photo_rgb", PIXEL_FORMAT_RGB_888, 224, 224, 1, NULL, 0, g_chan);
        resize_case(&rgb, "photo_rgb", PIXEL_FORMAT_RGB_888, 224, 224, 2, NULL, 0, g_chan);
        pic_free(&rgb);
        free(rgbh);
    }
    fclose(g_manifest);

    pic_free(&canvas1);
    OK(acldvppDestroyPicDesc(src.d));
    OK(acldvppFree(src.buf));
    OK(acldvppFree(jin));
    free(jpg);
    dt_teardown();
    TEST_DONE();
}
