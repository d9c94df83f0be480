/* PNG decode through the API. Material: a real RGBA photograph (argv[2]) and
 * the JPEG photograph (argv[1]) re-encoded by libspng as gray, gray+alpha,
 * RGB and RGBA at 8 and 16 bits, several sizes, odd ones included. Each
 * decode must equal libspng's own decode of the same bytes, and for 8-bit
 * files also the pixels that were encoded (gray repeated into R, G, B;
 * opaque alpha 255 where the file has none). */
#include <spng.h>

#include "dvpp_test.h"

static int g_decodes;

/* rgba: packed 8-bit RGBA source; ct/depth: PNG colour type and bit depth to write. */
static uint8_t *make_png(const uint8_t *rgba, int w, int h, int ct, int depth, int interlace, size_t *len)
{
    int ch = ct == SPNG_COLOR_TYPE_GRAYSCALE ? 1 : ct == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2
             : ct == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : 4;
    int bps = depth / 8;
    size_t n = (size_t)w * h * ch * bps;
    uint8_t *img = malloc(n);
    for (int i = 0; i < w * h; i++) {
        const uint8_t *s = rgba + 4 * (size_t)i;
        uint8_t gray = (uint8_t)((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8);
        uint8_t v[4];
        if (ch == 1) v[0] = gray;
        if (ch == 2) v[0] = gray, v[1] = s[3];
        if (ch >= 3) v[0] = s[0], v[1] = s[1], v[2] = s[2], v[3] = s[3];
        for (int c = 0; c < ch; c++) {
            if (bps == 1) {
                img[(size_t)i * ch + c] = v[c];
            } else { /* 16-bit big-endian: value * 257 plus a low byte that the 8-bit decode drops */
                img[((size_t)i * ch + c) * 2] = v[c];
                img[((size_t)i * ch + c) * 2 + 1] = (uint8_t)(i * 31 + c);
            }
        }
    }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ih = {(uint32_t)w, (uint32_t)h, (uint8_t)depth, (uint8_t)ct, 0, 0, (uint8_t)interlace};
    spng_set_ihdr(ctx, &ih);
    int e = spng_encode_image(ctx, img, n, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    uint8_t *png = NULL;
    if (!e) png = spng_get_png_buffer(ctx, len, &e);
    if (e) {
        fprintf(stderr, "libspng cannot encode %dx%d ct %d depth %d interlace %d: %s\n", w, h, ct, depth, interlace,
                spng_strerror(e));
        png = NULL;
    }
    spng_ctx_free(ctx);
    free(img);
    return png;
}

/* Decodes png through the API (req: RGB_888 / RGBA_8888 / UNKNOWN) and checks it. */
static void check_decode(const uint8_t *png, size_t len, int w, int h, int ct, int depth, const uint8_t *src_rgba,
                         acldvppPixelFormat req, const char *label)
{
    int alpha = ct == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA || ct == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    acldvppPixelFormat res = req == PIXEL_FORMAT_UNKNOWN ? (alpha ? PIXEL_FORMAT_RGBA_8888 : PIXEL_FORMAT_RGB_888) : req;
    int bpp = res == PIXEL_FORMAT_RGB_888 ? 3 : 4;
    uint32_t iw = 0, ih = 0, pred = 0;
    int32_t comp = 0;
    OK(acldvppPngGetImageInfo(png, (uint32_t)len, &iw, &ih, &comp));
    CHECK_EQ_INT(iw, w);
    CHECK_EQ_INT(ih, h);
    CHECK_EQ_INT(comp, ct == 0 ? 1 : ct == 4 ? 2 : ct == 2 ? 3 : 4);
    OK(acldvppPngPredictDecSize(png, (uint32_t)len, req, &pred));
    uint32_t ws = (uint32_t)(w + 127) / 128 * 128 * (uint32_t)bpp, hs = (uint32_t)(h + 15) / 16 * 16;
    CHECK_EQ_INT(pred, ws * hs);
    void *in = dt_upload(png, len), *out = NULL;
    OK(acldvppMalloc(&out, pred));
    acldvppPicDesc *od = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(od, out));
    OK(acldvppSetPicDescSize(od, pred));
    OK(acldvppSetPicDescFormat(od, req));
    OK(acldvppPngDecodeAsync(g_chan, in, (uint32_t)len, od, g_stream));
    aclError rc = aclrtSynchronizeStream(g_stream);
    if (rc) {
        fprintf(stderr, "%s: decode failed: %s\n", label, aclGetRecentErrMsg());
        g_failures++;
        goto done;
    }
    g_decodes++;
    CHECK_EQ_INT(acldvppGetPicDescWidth(od), w);
    CHECK_EQ_INT(acldvppGetPicDescHeight(od), h);
    CHECK_EQ_INT(acldvppGetPicDescWidthStride(od), ws);
    CHECK_EQ_INT(acldvppGetPicDescHeightStride(od), hs);
    CHECK_EQ_INT(acldvppGetPicDescFormat(od), res);
    CHECK_EQ_INT(acldvppGetPicDescRetCode(od), 0);
    /* libspng's own decode of the same bytes */
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, png, len);
    size_t rl = 0;
    int fmt = bpp == 3 ? SPNG_FMT_RGB8 : SPNG_FMT_RGBA8;
    spng_decoded_image_size(ctx, fmt, &rl);
    uint8_t *ref = malloc(rl);
    CHECK(spng_decode_image(ctx, ref, rl, fmt, bpp == 4 ? SPNG_DECODE_TRNS : 0) == 0);
    spng_ctx_free(ctx);
    long bad_ref = 0, bad_src = 0;
    const uint8_t *o = out;
    for (int y = 0; y < h; y++) {
        if (memcmp(o + (size_t)y * ws, ref + (size_t)y * w * bpp, (size_t)w * bpp)) bad_ref++;
        if (depth != 8) continue;
        for (int x = 0; x < w; x++) {
            const uint8_t *s = src_rgba + 4 * ((size_t)y * w + x), *d = o + (size_t)y * ws + (size_t)x * bpp;
            uint8_t gray = (uint8_t)((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8);
            int color = ct == SPNG_COLOR_TYPE_TRUECOLOR || ct == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
            uint8_t e[4] = {color ? s[0] : gray, color ? s[1] : gray, color ? s[2] : gray, alpha ? s[3] : 255};
            if (memcmp(d, e, (size_t)bpp)) bad_src++;
        }
    }
    if (bad_ref || bad_src) {
        fprintf(stderr, "%s: %ld rows differ from libspng's decode, %ld pixels from the encoded ones\n", label, bad_ref,
                bad_src);
        g_failures++;
    }
    free(ref);
done:
    OK(acldvppDestroyPicDesc(od));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PHOTO.jpg PHOTO.png\n", argv[0]);
        return 2;
    }
    dt_setup();
    /* the RGBA photograph as it is */
    size_t plen = 0;
    uint8_t *png = dt_read_file(argv[2], &plen);
    CHECK(png != NULL);
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, png, plen);
    struct spng_ihdr ih;
    CHECK(spng_get_ihdr(ctx, &ih) == 0);
    size_t rl = 0;
    spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &rl);
    uint8_t *prgba = malloc(rl);
    CHECK(spng_decode_image(ctx, prgba, rl, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS) == 0);
    spng_ctx_free(ctx);
    check_decode(png, plen, (int)ih.width, (int)ih.height, ih.color_type, ih.bit_depth, prgba, PIXEL_FORMAT_UNKNOWN,
                 "photo.png UNKNOWN");
    check_decode(png, plen, (int)ih.width, (int)ih.height, ih.color_type, ih.bit_depth, prgba, PIXEL_FORMAT_RGB_888,
                 "photo.png RGB");
    free(png);
    free(prgba);

    /* the JPEG photograph (with a synthetic alpha ramp) in every colour type and depth */
    int pw, ph;
    uint8_t *rgb = dt_photo_rgb(argv[1], &pw, &ph);
    int sizes[][2] = {{32, 32}, {77, 41}, {0, 0}, {1001, 333}};
    int cts[] = {SPNG_COLOR_TYPE_GRAYSCALE, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, SPNG_COLOR_TYPE_TRUECOLOR,
                 SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    int files = 0;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        int w = sizes[si][0] ? sizes[si][0] : pw, h = sizes[si][1] ? sizes[si][1] : ph;
        uint8_t *img = sizes[si][0] ? dt_rgb_resample(rgb, pw, ph, w, h) : rgb;
        uint8_t *rgba = malloc((size_t)w * h * 4);
        for (int i = 0; i < w * h; i++) {
            memcpy(rgba + 4 * (size_t)i, img + 3 * (size_t)i, 3);
            rgba[4 * (size_t)i + 3] = (uint8_t)((i % w) * 255 / w);
        }
        for (size_t ci = 0; ci < 4; ci++)
            for (int depth = 8; depth <= 16; depth += 8)
                for (int il = 0; il < 2; il++) {
                    size_t len = 0;
                    uint8_t *p = make_png(rgba, w, h, cts[ci], depth, il, &len);
                    if (!p) {
                        g_failures++;
                        continue;
                    }
                    files++;
                    char label[96];
                    snprintf(label, sizeof(label), "%dx%d ct %d depth %d%s", w, h, cts[ci], depth, il ? " interlaced" : "");
                    check_decode(p, len, w, h, cts[ci], depth, rgba, PIXEL_FORMAT_UNKNOWN, label);
                    check_decode(p, len, w, h, cts[ci], depth, rgba, PIXEL_FORMAT_RGB_888, label);
                    check_decode(p, len, w, h, cts[ci], depth, rgba, PIXEL_FORMAT_RGBA_8888, label);
                    free(p);
                }
        free(rgba);
        if (img != rgb) free(img);
    }
    printf("%d PNG files, %d decodes equal to libspng's decode and to the encoded pixels\n", files + 1, g_decodes);
    CHECK(g_decodes == 2 + files * 3);
    free(rgb);
    dt_teardown();
    TEST_DONE();
}
