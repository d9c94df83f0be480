/* Bad input gets a clear error and loses nothing: truncated, corrupt,
 * huge-dimension and decompression-bomb JPEG/PNG files, colour spaces and
 * formats the decoders refuse, memory that is not media memory, misaligned
 * strides, buffers too small, bad regions. Every refusal is checked for
 * its code and a message naming the call; after each, the same stream and
 * channel still do good work, and refused calls leave output buffers alone. */
#include <sys/time.h>
#include <zlib.h>

#include <spng.h>

#include "dvpp_test.h"

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static uint8_t *g_good;
static unsigned long g_good_len;

/* The good JPEG still decodes on the same stream and channel. */
static void still_works(const char *after)
{
    uint32_t sz = 0;
    OK(acldvppJpegPredictDecSize(g_good, (uint32_t)g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz));
    void *in = dt_upload(g_good, g_good_len), *out = NULL;
    OK(acldvppMalloc(&out, sz));
    acldvppPicDesc *d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(d, out));
    OK(acldvppSetPicDescSize(d, sz));
    OK(acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    OK(acldvppJpegDecodeAsync(g_chan, in, (uint32_t)g_good_len, d, g_stream));
    aclError rc = aclrtSynchronizeStream(g_stream);
    if (rc || acldvppGetPicDescWidth(d) != 640) {
        fprintf(stderr, "after %s the good JPEG no longer decodes: %d\n", after, (int)rc);
        g_failures++;
    }
    OK(acldvppDestroyPicDesc(d));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
}

/* Decodes bytes (JPEG or PNG) into a buffer of cap bytes; returns the sync result. */
static aclError decode(int png, const uint8_t *bytes, size_t len, acldvppPixelFormat f, uint32_t cap,
                       uint32_t *retcode)
{
    void *in = dt_upload(bytes, len), *out = NULL;
    OK(acldvppMalloc(&out, cap));
    acldvppPicDesc *d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(d, out));
    OK(acldvppSetPicDescSize(d, cap));
    OK(acldvppSetPicDescFormat(d, f));
    aclError rc = png ? acldvppPngDecodeAsync(g_chan, in, (uint32_t)len, d, g_stream)
                      : acldvppJpegDecodeAsync(g_chan, in, (uint32_t)len, d, g_stream);
    if (rc == ACL_SUCCESS) rc = aclrtSynchronizeStream(g_stream);
    *retcode = acldvppGetPicDescRetCode(d);
    OK(acldvppDestroyPicDesc(d));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
    return rc;
}

#define DECODE_FAILS(png, bytes, len, fmt, cap, code, what)                                                    \
    do {                                                                                                       \
        uint32_t rcode_ = 0;                                                                                   \
        FAILS(decode(png, bytes, len, fmt, cap, &rcode_), code,                                                \
              png ? "acldvppPngDecodeAsync" : "acldvppJpegDecodeAsync");                                     \
        CHECK(rcode_ != 0);                                                                                    \
        still_works(what);                                                                                     \
    } while (0)

static size_t find_marker(const uint8_t *j, size_t n, uint8_t m)
{
    for (size_t i = 2; i + 1 < n; i++)
        if (j[i] == 0xFF && j[i + 1] == m) return i;
    return 0;
}

static void jpeg_cases(const uint8_t *rgb, int pw, int ph)
{
    uint32_t w, h, sz;
    int32_t comp;
    /* truncated: in the header, half way, just before the end */
    size_t cuts[] = {20, g_good_len / 2, g_good_len - 10};
    for (int i = 0; i < 3; i++) {
        if (cuts[i] == 20)
            FAILS(acldvppJpegGetImageInfo(g_good, 20, &w, &h, &comp), ACL_ERROR_FAILURE, "acldvppJpegGetImageInfo");
        DECODE_FAILS(0, g_good, cuts[i], PIXEL_FORMAT_YUV_SEMIPLANAR_420, 640 * 480 * 2,
                     cuts[i] == 20 ? ACL_ERROR_FAILURE : ACL_ERROR_FAILURE, "a truncated JPEG");
    }
    /* not a JPEG at all */
    uint8_t junk[4096];
    for (size_t i = 0; i < sizeof(junk); i++) junk[i] = (uint8_t)(i * 2654435761u >> 13);
    FAILS(acldvppJpegGetImageInfo(junk, sizeof(junk), &w, &h, &comp), ACL_ERROR_FAILURE, "acldvppJpegGetImageInfo");
    FAILS(acldvppJpegPredictDecSize(junk, sizeof(junk), PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz), ACL_ERROR_FAILURE,
          "acldvppJpegPredictDecSize");
    DECODE_FAILS(0, junk, sizeof(junk), PIXEL_FORMAT_YUV_SEMIPLANAR_420, 4096, ACL_ERROR_FAILURE, "junk bytes");
    /* corrupt entropy data: decodes to something or fails, never crashes */
    uint8_t *bad = malloc(g_good_len);
    memcpy(bad, g_good, g_good_len);
    for (size_t i = g_good_len / 3; i < g_good_len - 4; i += 97) bad[i] ^= 0x5A;
    uint32_t rcode = 0;
    aclError rc = decode(0, bad, g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 640 * 480 * 2, &rcode);
    CHECK(rc == ACL_SUCCESS || (rc == ACL_ERROR_FAILURE && rcode != 0));
    printf("corrupt scan data: %s\n", rc ? aclGetRecentErrMsg() : "decoded (libjpeg-turbo accepts it)");
    still_works("corrupt scan data");
    /* huge dimensions: 60000 x 60000 in the frame header */
    memcpy(bad, g_good, g_good_len);
    size_t sof = find_marker(bad, g_good_len, 0xC0);
    CHECK(sof != 0);
    bad[sof + 5] = 60000 >> 8, bad[sof + 6] = 60000 & 0xFF, bad[sof + 7] = 60000 >> 8, bad[sof + 8] = 60000 & 0xFF;
    OK(acldvppJpegGetImageInfo(bad, (uint32_t)g_good_len, &w, &h, &comp));
    CHECK_EQ_INT(w, 60000);
    FAILS(acldvppJpegPredictDecSize(bad, (uint32_t)g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz),
          ACL_ERROR_INVALID_PARAM, "60000x60000");
    double t0 = now_s();
    DECODE_FAILS(0, bad, g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 640 * 480 * 2, ACL_ERROR_INVALID_PARAM,
                 "a 60000x60000 header");
    /* a bomb: a header claiming 8192 x 8192 over 640x480 worth of data, with room for the full output */
    bad[sof + 5] = 0x20, bad[sof + 6] = 0, bad[sof + 7] = 0x20, bad[sof + 8] = 0;
    OK(acldvppJpegPredictDecSize(bad, (uint32_t)g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz));
    CHECK_EQ_INT(sz, 8192 * 8192 * 3 / 2);
    DECODE_FAILS(0, bad, g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, sz, ACL_ERROR_FAILURE, "an 8192x8192 bomb");
    double dt = now_s() - t0;
    printf("huge and bomb JPEG headers refused in %.2f s\n", dt);
    CHECK(dt < 20.0);
    free(bad);
    /* CMYK: decoders refuse it, the info call reports 4 components */
    tjhandle tj = tjInitCompress();
    uint8_t *cmyk = malloc((size_t)64 * 64 * 4);
    for (int i = 0; i < 64 * 64 * 4; i++) cmyk[i] = rgb[i % (pw * 3)];
    unsigned char *cj = NULL;
    unsigned long cl = 0;
    CHECK(tjCompress2(tj, cmyk, 64, 0, 64, TJPF_CMYK, &cj, &cl, TJSAMP_444, 90, 0) == 0);
    tjDestroy(tj);
    OK(acldvppJpegGetImageInfo(cj, (uint32_t)cl, &w, &h, &comp));
    CHECK_EQ_INT(comp, 4);
    FAILS(acldvppJpegPredictDecSize(cj, (uint32_t)cl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz), ACL_ERROR_UNSUPPORTED_JPEG,
          "colour space");
    DECODE_FAILS(0, cj, cl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 64 * 64 * 4, ACL_ERROR_UNSUPPORTED_JPEG, "a CMYK JPEG");
    tjFree(cj);
    free(cmyk);
    /* too small for the decoder's limits */
    unsigned long tl;
    uint8_t *tiny = dt_make_jpeg(rgb, 16, 16, TJSAMP_420, 0, 90, &tl);
    FAILS(acldvppJpegPredictDecSize(tiny, (uint32_t)tl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &sz), ACL_ERROR_INVALID_PARAM,
          "16x16");
    tjFree(tiny);
    /* output buffer too small: refused when the task runs, the buffer's bytes untouched */
    DECODE_FAILS(0, g_good, g_good_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 1000, ACL_ERROR_INVALID_PARAM,
                 "a small output");
    /* immediate refusals: formats, memory kinds, sizes, channels */
    void *in = dt_upload(g_good, g_good_len), *out = NULL;
    OK(acldvppMalloc(&out, 1 << 20));
    memset(out, 0x77, 1 << 20);
    acldvppPicDesc *d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(d, out));
    OK(acldvppSetPicDescSize(d, 1 << 20));
    OK(acldvppSetPicDescFormat(d, PIXEL_FORMAT_RGB_888));
    FAILS(acldvppJpegDecodeAsync(g_chan, in, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_FORMAT_NOT_MATCH,
          "RGB_888");
    OK(acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    uint8_t *host = malloc(g_good_len);
    memcpy(host, g_good, g_good_len);
    FAILS(acldvppJpegDecodeAsync(g_chan, host, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_INVALID_PARAM,
          "acldvppMalloc");
    free(host);
    void *devmem = NULL;
    OK(aclrtMalloc(&devmem, g_good_len, ACL_MEM_MALLOC_HUGE_FIRST));
    FAILS(acldvppJpegDecodeAsync(g_chan, devmem, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_INVALID_PARAM,
          "aclrtMalloc");
    OK(aclrtFree(devmem));
    FAILS(acldvppJpegDecodeAsync(g_chan, in, (uint32_t)g_good_len + 4096, d, g_stream), ACL_ERROR_INVALID_PARAM,
          "runs past");
    FAILS(acldvppJpegDecodeAsync(g_chan, NULL, 100, d, g_stream), ACL_ERROR_INVALID_PARAM, "data is NULL");
    FAILS(acldvppJpegDecodeAsync(NULL, in, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_INVALID_PARAM, "channelDesc");
    acldvppChannelDesc *nc = acldvppCreateChannelDesc();
    FAILS(acldvppJpegDecodeAsync(nc, in, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_INVALID_PARAM,
          "acldvppCreateChannel");
    OK(acldvppSetChannelDescMode(nc, DVPP_CHNMODE_VPC));
    OK(acldvppCreateChannel(nc));
    FAILS(acldvppJpegDecodeAsync(nc, in, (uint32_t)g_good_len, d, g_stream), ACL_ERROR_INVALID_PARAM, "mode");
    OK(acldvppDestroyChannel(nc));
    OK(acldvppDestroyChannelDesc(nc));
    long changed = 0;
    for (int i = 0; i < 1 << 20; i++) changed += ((uint8_t *)out)[i] != 0x77;
    CHECK_EQ_INT(changed, 0);
    OK(acldvppDestroyPicDesc(d));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
    still_works("immediate refusals");
}

/* ---- PNG ---- */

static void png_crc_fix(uint8_t *chunk_len_pos)
{
    uint32_t len = (uint32_t)chunk_len_pos[0] << 24 | chunk_len_pos[1] << 16 | chunk_len_pos[2] << 8 | chunk_len_pos[3];
    uLong c = crc32(0, chunk_len_pos + 4, len + 4);
    uint8_t *p = chunk_len_pos + 8 + len;
    p[0] = (uint8_t)(c >> 24), p[1] = (uint8_t)(c >> 16), p[2] = (uint8_t)(c >> 8), p[3] = (uint8_t)c;
}

static uint8_t *png_of(const uint8_t *pix, int w, int h, int ct, size_t *len)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ih = {(uint32_t)w, (uint32_t)h, 8, (uint8_t)ct, 0, 0, 0};
    spng_set_ihdr(ctx, &ih);
    if (ct == SPNG_COLOR_TYPE_INDEXED) {
        struct spng_plte pl = {0};
        pl.n_entries = 256;
        for (int i = 0; i < 256; i++) pl.entries[i].red = pl.entries[i].green = pl.entries[i].blue = (uint8_t)i;
        spng_set_plte(ctx, &pl);
    }
    int ch = ct == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : 1, e;
    e = spng_encode_image(ctx, pix, (size_t)w * h * ch, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    uint8_t *out = e ? NULL : spng_get_png_buffer(ctx, len, &e);
    spng_ctx_free(ctx);
    CHECK(out != NULL);
    return out;
}

static void png_cases(const uint8_t *rgb, int pw, int ph)
{
    uint32_t w, h, sz;
    int32_t comp;
    size_t len = 0;
    uint8_t *png = png_of(rgb, pw, ph, SPNG_COLOR_TYPE_TRUECOLOR, &len);
    uint32_t cap = (uint32_t)((pw + 127) / 128 * 128 * 3 * ((ph + 15) / 16 * 16));
    uint32_t rcode;
    OK(decode(1, png, len, PIXEL_FORMAT_RGB_888, cap, &rcode));
    /* truncated */
    FAILS(acldvppPngGetImageInfo(png, 20, &w, &h, &comp), ACL_ERROR_INVALID_PARAM, "acldvppPngGetImageInfo");
    DECODE_FAILS(1, png, len / 2, PIXEL_FORMAT_RGB_888, cap, ACL_ERROR_FAILURE, "a truncated PNG");
    /* a corrupted IHDR (its CRC no longer matches) */
    uint8_t *bad = malloc(len);
    memcpy(bad, png, len);
    bad[29] ^= 1;
    /* the header fields still read (as CANN's header parser reads them); decoding checks the CRC */
    OK(acldvppPngGetImageInfo(bad, (uint32_t)len, &w, &h, &comp));
    DECODE_FAILS(1, bad, len, PIXEL_FORMAT_RGB_888, cap, ACL_ERROR_FAILURE, "a bad IHDR CRC");
    /* corrupt image data (IDAT bytes flipped, CRCs left wrong) */
    memcpy(bad, png, len);
    for (size_t i = len / 2; i < len - 20; i += 101) bad[i] ^= 0x33;
    DECODE_FAILS(1, bad, len, PIXEL_FORMAT_RGB_888, cap, ACL_ERROR_FAILURE, "corrupt IDAT");
    /* huge: 100000 x 100000 in a valid IHDR */
    memcpy(bad, png, len);
    uint32_t big = 100000;
    for (int k = 0; k < 2; k++) {
        uint8_t *p = bad + 16 + 4 * k;
        p[0] = (uint8_t)(big >> 24), p[1] = (uint8_t)(big >> 16), p[2] = (uint8_t)(big >> 8), p[3] = (uint8_t)big;
    }
    png_crc_fix(bad + 8);
    OK(acldvppPngGetImageInfo(bad, (uint32_t)len, &w, &h, &comp));
    CHECK_EQ_INT(w, 100000);
    FAILS(acldvppPngPredictDecSize(bad, (uint32_t)len, PIXEL_FORMAT_RGB_888, &sz), ACL_ERROR_INVALID_PARAM,
          "100000x100000");
    DECODE_FAILS(1, bad, len, PIXEL_FORMAT_RGB_888, cap, ACL_ERROR_INVALID_PARAM, "a 100000x100000 PNG");
    free(bad);
    /* decompression bomb: a zTXt chunk inflating to 256 MiB of zeros, before the image data */
    {
        uLong raw = 256ul << 20, clen = compressBound(raw);
        uint8_t *zeros = calloc(1, raw), *z = malloc(clen);
        CHECK(compress2(z, &clen, zeros, raw, 9) == Z_OK);
        free(zeros);
        size_t chunk = 4 + 4 + 4 + 2 + clen + 4; /* len, type, "bomb\0", method, data, crc */
        uint8_t *b = malloc(len + chunk);
        memcpy(b, png, 33); /* signature + IHDR */
        uint8_t *c = b + 33;
        uint32_t dl = (uint32_t)(5 + 1 + clen);
        c[0] = (uint8_t)(dl >> 24), c[1] = (uint8_t)(dl >> 16), c[2] = (uint8_t)(dl >> 8), c[3] = (uint8_t)dl;
        memcpy(c + 4, "zTXtbomb\0\0", 10);
        memcpy(c + 14, z, clen);
        png_crc_fix(c);
        memcpy(c + 8 + dl + 4, png + 33, len - 33);
        size_t blen = 33 + 12 + dl + len - 33;
        double t0 = now_s();
        uint32_t rc2 = 0;
        aclError r = decode(1, b, blen, PIXEL_FORMAT_RGB_888, cap, &rc2);
        double dt = now_s() - t0;
        printf("PNG with a 256 MiB zTXt bomb (%lu bytes compressed): %s in %.2f s\n", clen,
               r ? aclGetRecentErrMsg() : "decoded, the text left alone", dt);
        CHECK(r == ACL_SUCCESS || r == ACL_ERROR_FAILURE);
        CHECK(dt < 10.0);
        still_works("a zTXt bomb");
        free(b), free(z);
    }
    /* palette PNGs are refused like CANN refuses them */
    uint8_t *idx = malloc(64 * 64);
    for (int i = 0; i < 64 * 64; i++) idx[i] = (uint8_t)i;
    size_t il = 0;
    uint8_t *pal = png_of(idx, 64, 64, SPNG_COLOR_TYPE_INDEXED, &il);
    FAILS(acldvppPngGetImageInfo(pal, (uint32_t)il, &w, &h, &comp), ACL_ERROR_FORMAT_NOT_MATCH, "palette");
    DECODE_FAILS(1, pal, il, PIXEL_FORMAT_RGB_888, 128 * 3 * 64, ACL_ERROR_FORMAT_NOT_MATCH, "a palette PNG");
    free(pal), free(idx);
    /* output format / too small buffer */
    void *in = dt_upload(png, len), *out = NULL;
    OK(acldvppMalloc(&out, cap));
    acldvppPicDesc *d = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(d, out));
    OK(acldvppSetPicDescSize(d, cap));
    OK(acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    FAILS(acldvppPngDecodeAsync(g_chan, in, (uint32_t)len, d, g_stream), ACL_ERROR_FORMAT_NOT_MATCH, "RGB_888");
    OK(acldvppDestroyPicDesc(d));
    OK(acldvppFree(out));
    OK(acldvppFree(in));
    DECODE_FAILS(1, png, len, PIXEL_FORMAT_RGB_888, 4096, ACL_ERROR_INVALID_PARAM, "a small PNG output");
    free(png);
}

/* ---- VPC argument checks ---- */

static void vpc_cases(void)
{
    uint32_t w = 320, h = 240, ws = 320, hs = 240, size = ws * hs * 3 / 2;
    void *ib = NULL, *ob = NULL;
    OK(acldvppMalloc(&ib, size));
    OK(acldvppMalloc(&ob, 224 * 224 * 3 / 2));
    memset(ib, 100, size);
    memset(ob, 0x33, 224 * 224 * 3 / 2);
    acldvppPicDesc *in = dt_pic(ib, size, PIXEL_FORMAT_YUV_SEMIPLANAR_420, w, h, ws, hs);
    acldvppPicDesc *out = dt_pic(ob, 224 * 224 * 3 / 2, PIXEL_FORMAT_YUV_SEMIPLANAR_420, 224, 224, 224, 224);
    acldvppResizeConfig *rc = acldvppCreateResizeConfig();
    static const char R[] = "acldvppVpcResizeAsync";
    /* strides, sizes, formats */
    OK(acldvppSetPicDescWidthStride(in, 328));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "widthStride 328");
    OK(acldvppSetPicDescWidthStride(in, 304));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "widthStride 304");
    OK(acldvppSetPicDescWidthStride(in, ws));
    OK(acldvppSetPicDescHeightStride(in, 230));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "heightStride 230");
    OK(acldvppSetPicDescHeightStride(in, hs));
    OK(acldvppSetPicDescSize(in, size - 1));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "too small");
    OK(acldvppSetPicDescSize(in, size + 4096));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "runs past");
    OK(acldvppSetPicDescSize(in, size));
    OK(acldvppSetPicDescWidth(in, 319));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "even width");
    OK(acldvppSetPicDescWidth(in, 8));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_INVALID_PARAM, "8x240");
    OK(acldvppSetPicDescWidth(in, w));
    OK(acldvppSetPicDescFormat(in, PIXEL_FORMAT_YUV_SEMI_PLANNER_420_10BIT));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_FORMAT_NOT_MATCH, "10-bit");
    OK(acldvppSetPicDescFormat(in, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    OK(acldvppSetPicDescFormat(out, PIXEL_FORMAT_YUV_SEMIPLANAR_444));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, rc, g_stream), ACL_ERROR_FORMAT_NOT_MATCH, "outputDesc format");
    OK(acldvppSetPicDescFormat(out, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    FAILS(acldvppVpcResizeAsync(g_chan, in, out, NULL, g_stream), ACL_ERROR_INVALID_PARAM, "resizeConfig is NULL");
    FAILS(acldvppVpcResizeAsync(g_chan, (acldvppPicDesc *)rc, out, rc, g_stream), ACL_ERROR_INVALID_PARAM,
          "not a live acldvppPicDesc");
    FAILS(acldvppSetResizeConfigInterpolation(rc, 5), ACL_ERROR_INVALID_PARAM, "interpolation 5");
    /* regions */
    static const char C[] = "acldvppVpcCropAndPasteAsync";
    acldvppRoiConfig *crop = acldvppCreateRoiConfig(1, 100, 0, 99), *paste = acldvppCreateRoiConfig(0, 99, 0, 99);
    FAILS(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, paste, g_stream), ACL_ERROR_INVALID_PARAM, "left and top");
    OK(acldvppSetRoiConfig(crop, 0, 399, 0, 99));
    FAILS(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, paste, g_stream), ACL_ERROR_INVALID_PARAM, "outside");
    OK(acldvppSetRoiConfig(crop, 0, 3, 0, 3));
    FAILS(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, paste, g_stream), ACL_ERROR_INVALID_PARAM, "smaller");
    OK(acldvppSetRoiConfig(crop, 0, 99, 0, 99));
    OK(acldvppSetRoiConfig(paste, 8, 107, 0, 99));
    FAILS(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, paste, g_stream), ACL_ERROR_INVALID_PARAM,
          "multiple of 16");
    OK(acldvppSetRoiConfig(paste, 16, 115, 0, 99));
    FAILS(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, NULL, g_stream), ACL_ERROR_INVALID_PARAM, C);
    /* batches */
    acldvppBatchPicDesc *sb = acldvppCreateBatchPicDesc(1), *db = acldvppCreateBatchPicDesc(2);
    uint32_t nums[1] = {3};
    acldvppRoiConfig *crops[2] = {crop, crop};
    FAILS(acldvppVpcBatchCropAsync(g_chan, sb, nums, 1, db, crops, g_stream), ACL_ERROR_INVALID_PARAM, "add up to 3");
    nums[0] = 0;
    FAILS(acldvppVpcBatchCropAsync(g_chan, sb, nums, 1, db, crops, g_stream), ACL_ERROR_INVALID_PARAM, "roiNums[0]");
    nums[0] = 2;
    FAILS(acldvppVpcBatchCropAsync(g_chan, sb, nums, 0, db, crops, g_stream), ACL_ERROR_INVALID_PARAM, "size 0");
    FAILS(acldvppVpcBatchCropAsync(g_chan, sb, nums, 1, db, crops, g_stream), ACL_ERROR_INVALID_PARAM,
          "srcBatchPicDescs[0]");
    CHECK(acldvppCreateBatchPicDesc(0) == NULL);
    MSG_NAMES("acldvppCreateBatchPicDesc");
    CHECK(acldvppCreateBatchPicDesc(257) == NULL);
    CHECK(acldvppGetPicDesc(db, 2) == NULL);
    MSG_NAMES("out of the batch");
    FAILS(acldvppDestroyPicDesc(acldvppGetPicDesc(db, 0)), ACL_ERROR_INVALID_PARAM, "destroy the batch");
    /* nothing above touched the output; the good call still works */
    long changed = 0;
    for (uint32_t i = 0; i < 224 * 224 * 3 / 2; i++) changed += ((uint8_t *)ob)[i] != 0x33;
    CHECK_EQ_INT(changed, 0);
    OK(acldvppVpcCropAndPasteAsync(g_chan, in, out, crop, paste, g_stream));
    OK(aclrtSynchronizeStream(g_stream));
    CHECK_EQ_INT(((uint8_t *)ob)[16], 100);
    CHECK_EQ_INT(((uint8_t *)ob)[0], 0x33);
    (void)R;
    OK(acldvppDestroyBatchPicDesc(sb));
    OK(acldvppDestroyBatchPicDesc(db));
    OK(acldvppDestroyRoiConfig(crop));
    OK(acldvppDestroyRoiConfig(paste));
    OK(acldvppDestroyResizeConfig(rc));
    OK(acldvppDestroyPicDesc(in));
    OK(acldvppDestroyPicDesc(out));
    OK(acldvppFree(ib));
    OK(acldvppFree(ob));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PHOTO.jpg\n", argv[0]);
        return 2;
    }
    /* before aclInit */
    void *p = NULL;
    FAILS(acldvppMalloc(&p, 100), ACL_ERROR_UNINITIALIZE, "acldvppMalloc");
    acldvppChannelDesc *c = acldvppCreateChannelDesc();
    FAILS(acldvppCreateChannel(c), ACL_ERROR_UNINITIALIZE, "acldvppCreateChannel");
    OK(acldvppDestroyChannelDesc(c));

    dt_setup();
    int pw, ph;
    uint8_t *rgb = dt_photo_rgb(argv[1], &pw, &ph);
    uint8_t *img = dt_rgb_resample(rgb, pw, ph, 640, 480);
    g_good = dt_make_jpeg(img, 640, 480, TJSAMP_420, 0, 90, &g_good_len);
    jpeg_cases(rgb, pw, ph);
    png_cases(rgb, pw, ph);
    vpc_cases();
    tjFree(g_good);
    free(img);
    free(rgb);
    dt_teardown();
    TEST_DONE();
}
