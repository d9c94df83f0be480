/* Unit tests of the OCR sample's host-side steps (no models): image
 * decoding, resize and crops, PaddleOCR sizes and normalisation, the DB box
 * extraction on synthetic probability maps, dictionary loading and CTC. */
#include "../common/oa_check.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "ocr.h"



static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

static void test_det_size(void)
{
    int w, h;
    ocr_det_size(547, 298, 960, &w, &h);
    CHECK(w == 544 && h == 288, "547x298 -> %dx%d", w, h);
    ocr_det_size(2000, 1000, 960, &w, &h);
    CHECK(w == 960 && h == 480, "2000x1000 -> %dx%d", w, h);
    ocr_det_size(10, 10, 960, &w, &h);
    CHECK(w == 32 && h == 32, "10x10 -> %dx%d", w, h);
    ocr_det_size(80, 112, 960, &w, &h);  /* 2.5 and 3.5 blocks: halves round to even */
    CHECK(w == 64 && h == 128, "80x112 -> %dx%d", w, h);
}

static void test_png_jpeg(void)
{
    char err[256];
    /* PNG, RGB: the loader must hand back BGR. */
    uint8_t rgb[4 * 3 * 3];
    for (int i = 0; i < 12; i++) {
        rgb[i * 3] = (uint8_t)(i * 20);
        rgb[i * 3 + 1] = (uint8_t)(i * 10 + 1);
        rgb[i * 3 + 2] = (uint8_t)(255 - i);
    }
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = 4;
    pi.height = 3;
    pi.format = PNG_FORMAT_RGB;
    CHECK(png_image_write_to_file(&pi, tmp_path("rgb.png"), 0, rgb, 0, NULL), "png write: %s", pi.message);
    ocr_image img;
    CHECK(ocr_image_load(tmp_path("rgb.png"), &img, err, sizeof err) == 0, "%s", err);
    if (img.px) {
        CHECK(img.w == 4 && img.h == 3, "size %dx%d", img.w, img.h);
        int same = 1;
        for (int i = 0; i < 12; i++)
            same &= img.px[i * 3] == rgb[i * 3 + 2] && img.px[i * 3 + 1] == rgb[i * 3 + 1] &&
                    img.px[i * 3 + 2] == rgb[i * 3];
        CHECK(same, "PNG pixels are not the BGR of what was written");
        ocr_image_free(&img);
    }
    /* Grey + alpha: transparent pixels come out white, opaque ones keep their grey. */
    uint8_t ga[2 * 2] = {0, 0, 50, 255};
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = 2;
    pi.height = 1;
    pi.format = PNG_FORMAT_GA;
    CHECK(png_image_write_to_file(&pi, tmp_path("ga.png"), 0, ga, 0, NULL), "png write: %s", pi.message);
    CHECK(ocr_image_load(tmp_path("ga.png"), &img, err, sizeof err) == 0, "%s", err);
    if (img.px) {
        CHECK(img.px[0] == 255 && img.px[2] == 255, "transparent pixel %d,%d,%d", img.px[0], img.px[1], img.px[2]);
        CHECK(img.px[3] == 50 && img.px[4] == 50 && img.px[5] == 50, "grey pixel %d", img.px[3]);
        ocr_image_free(&img);
    }

    /* JPEG of one flat colour: decodes to nearly that colour, in BGR. */
    FILE *f = fopen(tmp_path("flat.jpg"), "wb");
    CHECK(f != NULL, "cannot write flat.jpg");
    if (f) {
        struct jpeg_compress_struct c;
        struct jpeg_error_mgr jerr;
        c.err = jpeg_std_error(&jerr);
        jpeg_create_compress(&c);
        jpeg_stdio_dest(&c, f);
        c.image_width = 16;
        c.image_height = 8;
        c.input_components = 3;
        c.in_color_space = JCS_RGB;
        jpeg_set_defaults(&c);
        jpeg_set_quality(&c, 95, TRUE);
        jpeg_start_compress(&c, TRUE);
        uint8_t row[16 * 3];
        for (int x = 0; x < 16; x++) {
            row[x * 3] = 200;
            row[x * 3 + 1] = 40;
            row[x * 3 + 2] = 90;
        }
        while (c.next_scanline < c.image_height) {
            JSAMPROW r = row;
            jpeg_write_scanlines(&c, &r, 1);
        }
        jpeg_finish_compress(&c);
        jpeg_destroy_compress(&c);
        fclose(f);
        CHECK(ocr_image_load(tmp_path("flat.jpg"), &img, err, sizeof err) == 0, "%s", err);
        if (img.px) {
            CHECK(img.w == 16 && img.h == 8, "jpeg size %dx%d", img.w, img.h);
            int p = (3 * 16 + 5) * 3;
            CHECK(abs(img.px[p] - 90) <= 3 && abs(img.px[p + 1] - 40) <= 3 && abs(img.px[p + 2] - 200) <= 3,
                  "jpeg pixel BGR %d,%d,%d, want about 90,40,200", img.px[p], img.px[p + 1], img.px[p + 2]);
            ocr_image_free(&img);
        }
    }

    /* Not an image, and a missing file: errors with messages, no crash. */
    f = fopen(tmp_path("junk.bin"), "wb");
    if (f) {
        fputs("hello, not an image", f);
        fclose(f);
    }
    err[0] = '\0';
    CHECK(ocr_image_load(tmp_path("junk.bin"), &img, err, sizeof err) == -1 && strstr(err, "not a PNG or JPEG"),
          "junk: '%s'", err);
    CHECK(ocr_image_load(tmp_path("missing.png"), &img, err, sizeof err) == -1 && strstr(err, "missing.png"),
          "missing: '%s'", err);
    /* A truncated PNG fails inside libpng. */
    f = fopen(tmp_path("rgb.png"), "rb");
    uint8_t buf[64];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    f = fopen(tmp_path("cut.png"), "wb");
    if (f) {
        fwrite(buf, 1, n > 40 ? 40 : n, f);
        fclose(f);
    }
    CHECK(ocr_image_load(tmp_path("cut.png"), &img, err, sizeof err) == -1, "truncated PNG accepted");
}

static void test_resize_warp_rotate(void)
{
    /* OpenCV INTER_LINEAR, 2 -> 4 columns: 0,25,75,100 (half-pixel centres). */
    ocr_image s, d;
    ocr_image_alloc(&s, 2, 1);
    memset(s.px, 0, 6);
    s.px[3] = s.px[4] = s.px[5] = 100;
    CHECK(ocr_image_resize(&s, 4, 1, &d) == 0, "resize");
    CHECK(d.px[0] == 0 && d.px[3] == 25 && d.px[6] == 75 && d.px[9] == 100, "row %d %d %d %d", d.px[0], d.px[3],
          d.px[6], d.px[9]);
    ocr_image_free(&s);
    ocr_image_free(&d);

    /* An axis-aligned quad is an exact sub-image copy (cubic weights at t=0 are 0,1,0,0). */
    ocr_image_alloc(&s, 40, 20);
    for (int i = 0; i < 40 * 20 * 3; i++)
        s.px[i] = (uint8_t)(i * 7 + i / 3);
    ocr_pt q[4] = {{10, 5}, {30, 5}, {30, 15}, {10, 15}};
    CHECK(ocr_image_warp_quad(&s, q, 20, 10, &d) == 0, "warp");
    int same = 1;
    for (int y = 0; y < 10; y++)
        same &= memcmp(d.px + (size_t)y * 20 * 3, s.px + ((size_t)(y + 5) * 40 + 10) * 3, 20 * 3) == 0;
    CHECK(same, "axis-aligned crop differs from the sub-image");
    ocr_image_free(&d);

    /* A quad given 180 degrees around reads the region upside down. */
    ocr_pt r[4] = {{30, 15}, {10, 15}, {10, 5}, {30, 5}};
    CHECK(ocr_image_warp_quad(&s, r, 20, 10, &d) == 0, "warp");
    ocr_image_rotate180(&d);
    /* dst (x,y) samples src (30-x, 15-y); turned, (x,y) samples src (11+x, 6+y). */
    same = 1;
    for (int y = 0; y < 10; y++)
        same &= memcmp(d.px + (size_t)y * 20 * 3, s.px + ((size_t)(y + 6) * 40 + 11) * 3, 20 * 3) == 0;
    CHECK(same, "reversed quad + rotate180 is not the sub-image at (11,6)");
    ocr_image_free(&d);
    ocr_image_free(&s);

    /* rot90 counter-clockwise of a 3x2 image: new row i = old column (w-1-i). */
    ocr_image_alloc(&s, 3, 2);
    for (int i = 0; i < 6; i++)
        s.px[i * 3] = s.px[i * 3 + 1] = s.px[i * 3 + 2] = (uint8_t)i;  /* 0 1 2 / 3 4 5 */
    CHECK(ocr_image_rotate90ccw(&s) == 0, "rot90");
    static const uint8_t want[6] = {2, 5, 1, 4, 0, 3};
    same = s.w == 2 && s.h == 3;
    for (int i = 0; i < 6 && same; i++)
        same &= s.px[i * 3] == want[i];
    CHECK(same, "rot90 result %dx%d", s.w, s.h);
    ocr_image_free(&s);
}

static void test_line_prep(void)
{
    /* A white 24x24 crop: resized to 48x48, [-1,1] -> 1.0 there, zero padding after. */
    ocr_image s;
    ocr_image_alloc(&s, 24, 24);
    memset(s.px, 255, 24 * 24 * 3);
    s.px[0] = s.px[1] = s.px[2] = 0;
    float *t = malloc(sizeof(float) * 3 * 48 * 192);
    CHECK(ocr_line_prep(&s, 48, 192, t) == 0, "line_prep");
    CHECK(t[0] == -1.0f, "black corner %f", t[0]);
    CHECK(fabsf(t[47] - 1.0f) < 1e-6f && fabsf(t[2 * 48 * 192 + 40 * 192 + 30] - 1.0f) < 1e-6f, "white %f", t[47]);
    CHECK(t[48] == 0.0f && t[191] == 0.0f && t[2 * 48 * 192 + 47 * 192 + 100] == 0.0f, "padding %f", t[48]);
    ocr_image_free(&s);
    /* Very wide crop: width capped at the slot. */
    ocr_image_alloc(&s, 1000, 10);
    memset(s.px, 0, 1000 * 10 * 3);
    CHECK(ocr_line_prep(&s, 48, 192, t) == 0, "line_prep wide");
    CHECK(t[191] == -1.0f, "last column of a capped line %f", t[191]);
    ocr_image_free(&s);

    /* Detection normalisation: channel 0 (blue) with mean 0.485 / std 0.229. */
    ocr_image_alloc(&s, 32, 32);
    for (int i = 0; i < 32 * 32; i++) {
        s.px[i * 3] = 255;
        s.px[i * 3 + 1] = 0;
        s.px[i * 3 + 2] = 128;
    }
    CHECK(ocr_det_prep(&s, 32, 32, t) == 0, "det_prep");
    CHECK(fabsf(t[5] - (1 - 0.485f) / 0.229f) < 1e-4f, "B %f", t[5]);
    CHECK(fabsf(t[1024 + 5] - (0 - 0.456f) / 0.224f) < 1e-4f, "G %f", t[1024 + 5]);
    CHECK(fabsf(t[2048 + 5] - (128 / 255.0f - 0.406f) / 0.225f) < 1e-4f, "R %f", t[2048 + 5]);
    ocr_image_free(&s);
    free(t);
}

static void fill_rotated(float *map, int w, int h, float cx, float cy, float len, float thick, float deg, float v)
{
    float a = deg * (float)M_PI / 180, ux = cosf(a), uy = sinf(a);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float dx = x - cx, dy = y - cy;
            float u = dx * ux + dy * uy, n = -dx * uy + dy * ux;
            if (fabsf(u) <= len / 2 && fabsf(n) <= thick / 2)
                map[(size_t)y * w + x] = v;
        }
}

static void test_db_boxes(void)
{
    const int mw = 200, mh = 120;
    float *map = calloc((size_t)mw * mh, sizeof(float));
    for (int y = 30; y <= 49; y++)  /* text line: pixel centres span 99 x 19 */
        for (int x = 20; x <= 119; x++)
            map[y * mw + x] = 0.9f;
    for (int y = 80; y <= 95; y++)  /* a second line, lower and further left */
        for (int x = 5; x <= 60; x++)
            map[y * mw + x] = 0.8f;
    for (int y = 5; y <= 6; y++)  /* a speck: too thin for a box */
        for (int x = 150; x <= 151; x++)
            map[y * mw + x] = 0.99f;
    for (int y = 5; y <= 20; y++)  /* above the pixel threshold, below the box threshold */
        for (int x = 140; x <= 190; x++)
            map[y * mw + x] = 0.45f;
    ocr_db_params prm = {0.3f, 0.6f, 1.5f, 1000};
    ocr_box *b = NULL;
    int n = ocr_db_boxes(map, mw, mh, 2 * mw, 2 * mh, &prm, &b);
    CHECK(n == 2, "found %d boxes, want 2", n);
    if (n >= 1) {
        /* d = 99*19*1.5/(2*(99+19)) = 11.955; x 8.04..130.96, y 18.04..60.96, times 2, rounded. */
        const float want[4][2] = {{16, 36}, {262, 36}, {262, 122}, {16, 122}};
        int ok = 1;
        for (int k = 0; k < 4; k++)
            ok &= b[0].p[k].x == want[k][0] && b[0].p[k].y == want[k][1];
        CHECK(ok, "box 0: %g,%g %g,%g %g,%g %g,%g", b[0].p[0].x, b[0].p[0].y, b[0].p[1].x, b[0].p[1].y, b[0].p[2].x,
              b[0].p[2].y, b[0].p[3].x, b[0].p[3].y);
        CHECK(fabsf(b[0].det_score - 0.9f) < 1e-5f, "score %f", b[0].det_score);
    }
    if (n >= 2)
        CHECK(b[1].p[0].y > b[0].p[0].y, "reading order: second line first");
    free(b);

    /* Same-line boxes go left to right even when the right one sits a little higher. */
    memset(map, 0, sizeof(float) * (size_t)mw * mh);
    for (int y = 42; y <= 60; y++)
        for (int x = 10; x <= 80; x++)
            map[y * mw + x] = 0.9f;
    for (int y = 38; y <= 56; y++)
        for (int x = 110; x <= 190; x++)
            map[y * mw + x] = 0.9f;
    n = ocr_db_boxes(map, mw, mh, mw, mh, &prm, &b);
    CHECK(n == 2 && b[0].p[0].x < b[1].p[0].x, "same line order: n=%d", n);
    free(b);

    /* A line at 30 degrees gives a box turned by 30 degrees. */
    memset(map, 0, sizeof(float) * (size_t)mw * mh);
    fill_rotated(map, mw, mh, 100, 60, 120, 16, 30, 0.95f);
    n = ocr_db_boxes(map, mw, mh, mw, mh, &prm, &b);
    CHECK(n == 1, "rotated: %d boxes", n);
    if (n == 1) {
        float ang = atan2f(b[0].p[1].y - b[0].p[0].y, b[0].p[1].x - b[0].p[0].x) * 180 / (float)M_PI;
        float len = hypotf(b[0].p[1].x - b[0].p[0].x, b[0].p[1].y - b[0].p[0].y);
        float thick = hypotf(b[0].p[3].x - b[0].p[0].x, b[0].p[3].y - b[0].p[0].y);
        /* Unclip adds d = 120*16*1.5/(2*136) ~ 10.6 per side (minus the pixel-centre half pixels). */
        CHECK(fabsf(ang - 30) < 2, "angle %f", ang);
        CHECK(fabsf(len - 140) < 4 && fabsf(thick - 36) < 4, "sides %f x %f", len, thick);
    }
    free(b);

    /* Nothing above the threshold: no boxes. */
    memset(map, 0, sizeof(float) * (size_t)mw * mh);
    n = ocr_db_boxes(map, mw, mh, mw, mh, &prm, &b);
    CHECK(n == 0, "empty map: %d boxes", n);
    free(b);
    free(map);
}

static void test_dict_ctc(void)
{
    FILE *f = fopen(tmp_path("dict.txt"), "wb");
    fputs("a\r\nb\n\xe4\xb8\xad", f);  /* CRLF line, LF line, last line without newline (UTF-8) */
    fclose(f);
    ocr_dict d;
    char err[256];
    CHECK(ocr_dict_load(tmp_path("dict.txt"), &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.n == 5, "classes %d, want blank + 3 + space", d.n);
    if (d.n != 5)
        return;
    CHECK(strcmp(d.sym[0], "") == 0 && strcmp(d.sym[1], "a") == 0 && strcmp(d.sym[2], "b") == 0 &&
              strcmp(d.sym[3], "\xe4\xb8\xad") == 0 && strcmp(d.sym[4], " ") == 0,
          "symbols '%s' '%s' '%s' '%s'", d.sym[1], d.sym[2], d.sym[3], d.sym[4]);
    /* steps: a a _ a b sp sp 中 _  ->  "aab 中" */
    static const int seq[9] = {1, 1, 0, 1, 2, 4, 4, 3, 0};
    float probs[9 * 5];
    for (int t = 0; t < 9; t++)
        for (int c = 0; c < 5; c++)
            probs[t * 5 + c] = c == seq[t] ? 0.6f + 0.04f * t : 0.1f;
    float score;
    char *s = ocr_ctc_decode(&d, probs, 9, 5, &score);
    CHECK(s && strcmp(s, "aab \xe4\xb8\xad") == 0, "decoded '%s'", s ? s : "(null)");
    /* kept steps 0, 3, 4, 5, 7 */
    float want = (0.6f * 5 + 0.04f * (0 + 3 + 4 + 5 + 7)) / 5;
    CHECK(fabsf(score - want) < 1e-5f, "score %f, want %f", score, want);
    free(s);
    s = ocr_ctc_decode(&d, probs, 0, 5, &score);
    CHECK(s && s[0] == '\0' && score == 0, "empty sequence");
    free(s);
    ocr_dict_free(&d);
    CHECK(ocr_dict_load(tmp_path("nope.txt"), &d, err, sizeof err) == -1, "missing dictionary accepted");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ocr_units.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_det_size();
    test_png_jpeg();
    test_resize_warp_rotate();
    test_line_prep();
    test_db_boxes();
    test_dict_ctc();
    static const char *files[] = {"rgb.png", "ga.png", "flat.jpg", "junk.bin", "cut.png", "dict.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        unlink(tmp_path(files[i]));
    rmdir(tmpdir);
    if (oa_failures) {
        fprintf(stderr, "ocr_units: %d check(s) failed\n", oa_failures);
        return 1;
    }
    printf("ocr_units: all checks passed\n");
    return 0;
}
