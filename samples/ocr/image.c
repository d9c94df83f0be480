/* Image decoding (libpng's simplified API, libjpeg-turbo) and the few
 * geometric operations OCR needs: OpenCV-compatible bilinear resize, a
 * perspective crop of a quadrilateral and quarter/half turns. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>  /* before jpeglib.h, which uses FILE and size_t */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

#include "ocr.h"

int ocr_image_alloc(ocr_image *img, int w, int h)
{
    img->w = w;
    img->h = h;
    img->px = malloc((size_t)w * (size_t)h * 3 + 1);
    return img->px ? 0 : -1;
}

void ocr_image_free(ocr_image *img)
{
    free(img->px);
    img->px = NULL;
    img->w = img->h = 0;
}

static int load_png(const char *path, ocr_image *img, char *err, size_t errlen)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) {
        snprintf(err, errlen, "%s: %s", path, im.message);
        return -1;
    }
    /* libpng converts palette, grey, 16-bit and alpha (composed on white) to BGR. */
    im.format = PNG_FORMAT_BGR;
    if (ocr_image_alloc(img, (int)im.width, (int)im.height)) {
        png_image_free(&im);
        snprintf(err, errlen, "%s: out of memory for %ux%u pixels", path, im.width, im.height);
        return -1;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&im, &white, img->px, 0, NULL)) {
        snprintf(err, errlen, "%s: %s", path, im.message);
        ocr_image_free(img);
        return -1;
    }
    return 0;
}

typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

static void jpeg_on_error(j_common_ptr c)
{
    jpeg_err *e = (jpeg_err *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jump, 1);
}

static int load_jpeg(const char *path, FILE *f, ocr_image *img, char *err, size_t errlen)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_err je;
    cinfo.err = jpeg_std_error(&je.mgr);
    je.mgr.error_exit = jpeg_on_error;
    img->px = NULL;
    if (setjmp(je.jump)) {
        snprintf(err, errlen, "%s: %s", path, je.msg);
        jpeg_destroy_decompress(&cinfo);
        ocr_image_free(img);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, f);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_EXT_BGR;  /* libjpeg-turbo writes BGR directly (grey is expanded) */
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 3 || ocr_image_alloc(img, (int)cinfo.output_width, (int)cinfo.output_height)) {
        snprintf(err, errlen, "%s: cannot decode to 3-channel BGR (%d components)", path, cinfo.output_components);
        jpeg_destroy_decompress(&cinfo);
        ocr_image_free(img);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = img->px + (size_t)cinfo.output_scanline * (size_t)img->w * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int ocr_image_load(const char *path, ocr_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char sig[8] = {0};
    size_t n = fread(sig, 1, sizeof sig, f);
    int rc;
    if (n == 8 && png_sig_cmp(sig, 0, 8) == 0) {
        fclose(f);
        rc = load_png(path, img, err, errlen);
    } else if (n >= 3 && sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF) {
        rewind(f);
        rc = load_jpeg(path, f, img, err, errlen);
        fclose(f);
    } else {
        fclose(f);
        snprintf(err, errlen, "%s: not a PNG or JPEG file", path);
        return -1;
    }
    if (rc == 0 && (img->w < 1 || img->h < 1)) {
        snprintf(err, errlen, "%s: empty image", path);
        ocr_image_free(img);
        return -1;
    }
    return rc;
}

/* Source index and weight of the right/lower neighbour for each destination
 * coordinate, sampling at pixel centres as OpenCV's INTER_LINEAR does. */
static void linear_taps(int src, int dst, int *idx, float *wt)
{
    double scale = (double)src / dst;
    for (int d = 0; d < dst; d++) {
        double f = (d + 0.5) * scale - 0.5;
        int i = (int)floor(f);
        f -= i;
        if (i < 0) {
            i = 0;
            f = 0;
        }
        if (i >= src - 1) {
            i = src - 1;
            f = 0;
        }
        idx[d] = i;
        wt[d] = (float)f;
    }
}

int ocr_image_resize(const ocr_image *src, int w, int h, ocr_image *dst)
{
    if (ocr_image_alloc(dst, w, h))
        return -1;
    int *xi = malloc(sizeof(int) * (size_t)(w + h));
    float *xw = malloc(sizeof(float) * (size_t)(w + h));
    if (!xi || !xw) {
        free(xi);
        free(xw);
        ocr_image_free(dst);
        return -1;
    }
    int *yi = xi + w;
    float *yw = xw + w;
    linear_taps(src->w, w, xi, xw);
    linear_taps(src->h, h, yi, yw);
    size_t stride = (size_t)src->w * 3;
    for (int y = 0; y < h; y++) {
        const uint8_t *r0 = src->px + (size_t)yi[y] * stride;
        const uint8_t *r1 = yi[y] + 1 < src->h ? r0 + stride : r0;
        float fy = yw[y];
        uint8_t *o = dst->px + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) {
            int x0 = xi[x] * 3, x1 = xi[x] + 1 < src->w ? x0 + 3 : x0;
            float fx = xw[x];
            for (int c = 0; c < 3; c++) {
                float top = r0[x0 + c] + (r0[x1 + c] - r0[x0 + c]) * fx;
                float bot = r1[x0 + c] + (r1[x1 + c] - r1[x0 + c]) * fx;
                float v = top + (bot - top) * fy;
                o[x * 3 + c] = (uint8_t)(v + 0.5f);
            }
        }
    }
    free(xi);
    free(xw);
    return 0;
}

/* Solves the 8x8 system of a homography mapping from[i] to to[i]; h[8] = 1. */
static int homography(const ocr_pt from[4], const ocr_pt to[4], double h[9])
{
    double a[8][9];
    for (int i = 0; i < 4; i++) {
        double u = from[i].x, v = from[i].y, x = to[i].x, y = to[i].y;
        double r0[9] = {u, v, 1, 0, 0, 0, -u * x, -v * x, x};
        double r1[9] = {0, 0, 0, u, v, 1, -u * y, -v * y, y};
        memcpy(a[2 * i], r0, sizeof r0);
        memcpy(a[2 * i + 1], r1, sizeof r1);
    }
    for (int c = 0; c < 8; c++) {
        int piv = c;
        for (int r = c + 1; r < 8; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-12)
            return -1;
        if (piv != c)
            for (int k = 0; k < 9; k++) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
        for (int r = 0; r < 8; r++) {
            if (r == c)
                continue;
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 9; k++)
                a[r][k] -= f * a[c][k];
        }
    }
    for (int i = 0; i < 8; i++)
        h[i] = a[i][8] / a[i][i];
    h[8] = 1;
    return 0;
}

/* Keys' cubic kernel with a = -0.75 (OpenCV's INTER_CUBIC). */
static void cubic_weights(float t, float w[4])
{
    const float a = -0.75f;
    float x;
    x = 1 + t;
    w[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    x = t;
    w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x = 1 - t;
    w[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    w[3] = 1 - w[0] - w[1] - w[2];
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int ocr_image_warp_quad(const ocr_image *src, const ocr_pt q[4], int w, int h, ocr_image *dst)
{
    const ocr_pt corners[4] = {{0, 0}, {(float)w, 0}, {(float)w, (float)h}, {0, (float)h}};
    double m[9];
    /* Map destination pixels back into the source directly. */
    if (homography(corners, q, m) || ocr_image_alloc(dst, w, h))
        return -1;
    for (int y = 0; y < h; y++) {
        uint8_t *o = dst->px + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) {
            double d = m[6] * x + m[7] * y + m[8];
            double sx = (m[0] * x + m[1] * y + m[2]) / d;
            double sy = (m[3] * x + m[4] * y + m[5]) / d;
            int ix = (int)floor(sx), iy = (int)floor(sy);
            float wx[4], wy[4];
            cubic_weights((float)(sx - ix), wx);
            cubic_weights((float)(sy - iy), wy);
            float acc[3] = {0, 0, 0};
            for (int j = 0; j < 4; j++) {
                const uint8_t *row = src->px + (size_t)clampi(iy - 1 + j, 0, src->h - 1) * src->w * 3;
                float rowacc[3] = {0, 0, 0};
                for (int i = 0; i < 4; i++) {
                    const uint8_t *p = row + clampi(ix - 1 + i, 0, src->w - 1) * 3;
                    for (int c = 0; c < 3; c++)
                        rowacc[c] += wx[i] * p[c];
                }
                for (int c = 0; c < 3; c++)
                    acc[c] += wy[j] * rowacc[c];
            }
            for (int c = 0; c < 3; c++) {
                float v = acc[c] + 0.5f;
                o[x * 3 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    }
    return 0;
}

void ocr_image_rotate180(ocr_image *img)
{
    size_t n = (size_t)img->w * img->h;
    for (size_t i = 0, j = n - 1; i < j; i++, j--)
        for (int c = 0; c < 3; c++) {
            uint8_t t = img->px[i * 3 + c];
            img->px[i * 3 + c] = img->px[j * 3 + c];
            img->px[j * 3 + c] = t;
        }
}

int ocr_image_rotate90ccw(ocr_image *img)
{
    ocr_image r;
    if (ocr_image_alloc(&r, img->h, img->w))
        return -1;
    /* Row i of the result is column (w-1-i) of the source, read top to bottom. */
    for (int i = 0; i < r.h; i++)
        for (int j = 0; j < r.w; j++)
            memcpy(r.px + ((size_t)i * r.w + j) * 3, img->px + ((size_t)j * img->w + (img->w - 1 - i)) * 3, 3);
    ocr_image_free(img);
    *img = r;
    return 0;
}
