/* Shared helpers of the media (DVPP) tests: runtime set-up, a real
 * photograph as test material, JPEG/PNG making with the libraries' own
 * encoders, and media-memory uploads. Reuses the CHECK/OK/FAILS harness of
 * tests/rt/rt_test.h. */
#ifndef OPENACL_DVPP_TEST_H
#define OPENACL_DVPP_TEST_H

#define ENABLE_DVPP_INTERFACE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "rt_test.h"

static aclrtStream g_stream;
static acldvppChannelDesc *g_chan;

static inline void dt_setup(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtCreateStream(&g_stream));
    g_chan = acldvppCreateChannelDesc();
    CHECK(g_chan != NULL);
    OK(acldvppCreateChannel(g_chan));
}

static inline void dt_teardown(void)
{
    OK(acldvppDestroyChannel(g_chan));
    OK(acldvppDestroyChannelDesc(g_chan));
    OK(aclrtDestroyStream(g_stream));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
}

static inline uint8_t *dt_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* The photograph as packed RGB (decoded with TurboJPEG itself). */
static inline uint8_t *dt_photo_rgb(const char *path, int *w, int *h)
{
    size_t n = 0;
    uint8_t *jpg = dt_read_file(path, &n);
    if (!jpg) {
        fprintf(stderr, "cannot read the test photograph %s\n", path);
        exit(1);
    }
    tjhandle tj = tjInitDecompress();
    int ss, cs;
    tjDecompressHeader3(tj, jpg, (unsigned long)n, w, h, &ss, &cs);
    uint8_t *rgb = malloc((size_t)*w * *h * 3);
    if (tjDecompress2(tj, jpg, (unsigned long)n, rgb, *w, 0, *h, TJPF_RGB, 0) != 0) {
        fprintf(stderr, "cannot decode %s: %s\n", path, tjGetErrorStr2(tj));
        exit(1);
    }
    tjDestroy(tj);
    free(jpg);
    return rgb;
}

/* Bilinear resample of packed RGB (test material only: any sensible picture of that size). */
static inline uint8_t *dt_rgb_resample(const uint8_t *src, int sw, int sh, int dw, int dh)
{
    uint8_t *d = malloc((size_t)dw * dh * 3);
    for (int y = 0; y < dh; y++) {
        double fy = (y + 0.5) * sh / dh - 0.5;
        if (fy < 0) fy = 0;
        int y0 = (int)fy, y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
        double wy = fy - y0;
        for (int x = 0; x < dw; x++) {
            double fx = (x + 0.5) * sw / dw - 0.5;
            if (fx < 0) fx = 0;
            int x0 = (int)fx, x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
            double wx = fx - x0;
            for (int c = 0; c < 3; c++) {
                double v = (1 - wy) * ((1 - wx) * src[((size_t)y0 * sw + x0) * 3 + c] + wx * src[((size_t)y0 * sw + x1) * 3 + c]) +
                           wy * ((1 - wx) * src[((size_t)y1 * sw + x0) * 3 + c] + wx * src[((size_t)y1 * sw + x1) * 3 + c]);
                d[((size_t)y * dw + x) * 3 + c] = (uint8_t)(v + 0.5);
            }
        }
    }
    return d;
}

/* A JPEG of rgb with TurboJPEG: subsampling TJSAMP_*, progressive or baseline. Free with tjFree. */
static inline uint8_t *dt_make_jpeg(const uint8_t *rgb, int w, int h, int subsamp, int progressive, int quality,
                             unsigned long *len)
{
    tjhandle tj = tjInitCompress();
    unsigned char *out = NULL;
    *len = 0;
    int flags = progressive ? TJFLAG_PROGRESSIVE : 0;
    if (tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, &out, len, subsamp, quality, flags) != 0) {
        fprintf(stderr, "tjCompress2 %dx%d: %s\n", w, h, tjGetErrorStr2(tj));
        exit(1);
    }
    tjDestroy(tj);
    return out;
}

/* Copies n host bytes into new media memory. */
static inline void *dt_upload(const void *src, size_t n)
{
    void *p = NULL;
    OK(acldvppMalloc(&p, n));
    if (p) OK(aclrtMemcpy(p, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
    return p;
}

static inline double dt_psnr(const uint8_t *a, int astride, const uint8_t *b, int bstride, int w, int h)
{
    double se = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double d = (double)a[(size_t)y * astride + x] - b[(size_t)y * bstride + x];
            se += d * d;
        }
    double mse = se / ((double)w * h);
    return mse == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
}

/* A picture description over existing media memory. */
static inline acldvppPicDesc *dt_pic(void *data, uint32_t size, acldvppPixelFormat f, uint32_t w, uint32_t h, uint32_t ws,
                              uint32_t hs)
{
    acldvppPicDesc *p = acldvppCreatePicDesc();
    OK(acldvppSetPicDescData(p, data));
    OK(acldvppSetPicDescSize(p, size));
    OK(acldvppSetPicDescFormat(p, f));
    OK(acldvppSetPicDescWidth(p, w));
    OK(acldvppSetPicDescHeight(p, h));
    OK(acldvppSetPicDescWidthStride(p, ws));
    OK(acldvppSetPicDescHeightStride(p, hs));
    return p;
}

#endif
