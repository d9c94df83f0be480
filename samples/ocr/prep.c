/* Pre-processing as PaddleOCR does it: NCHW float32 tensors from BGR
 * images. Detection: multiple-of-32 sizes, ImageNet mean/std. Classifier
 * and recogniser: height 48, aspect ratio kept, [-1, 1], zero padding. */
#include <math.h>
#include <string.h>

#include "ocr.h"

void ocr_det_size(int w, int h, int limit_side, int *out_w, int *out_h)
{
    int side = w > h ? w : h;
    double ratio = side > limit_side ? (double)limit_side / side : 1.0;
    int rw = (int)(w * ratio), rh = (int)(h * ratio);
    /* nearbyint rounds halves to even, like Python's round(). */
    rw = (int)nearbyint(rw / 32.0) * 32;
    rh = (int)nearbyint(rh / 32.0) * 32;
    *out_w = rw < 32 ? 32 : rw;
    *out_h = rh < 32 ? 32 : rh;
}

int ocr_det_prep(const ocr_image *img, int w, int h, float *dst)
{
    static const float mean[3] = {0.485f, 0.456f, 0.406f};
    static const float std[3] = {0.229f, 0.224f, 0.225f};
    ocr_image r;
    if (ocr_image_resize(img, w, h, &r))
        return -1;
    size_t plane = (size_t)w * h;
    for (int c = 0; c < 3; c++) {
        float scale = 1.0f / (255.0f * std[c]), shift = -mean[c] / std[c];
        float *o = dst + c * plane;
        for (size_t i = 0; i < plane; i++)
            o[i] = r.px[i * 3 + c] * scale + shift;
    }
    ocr_image_free(&r);
    return 0;
}

int ocr_line_prep(const ocr_image *crop, int height, int width, float *dst)
{
    double ratio = (double)crop->w / crop->h;
    int rw = (int)ceil(height * ratio);
    if (rw > width)
        rw = width;
    if (rw < 1)
        rw = 1;
    ocr_image r;
    if (ocr_image_resize(crop, rw, height, &r))
        return -1;
    size_t plane = (size_t)width * height;
    memset(dst, 0, 3 * plane * sizeof(float));
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < height; y++) {
            float *o = dst + c * plane + (size_t)y * width;
            const uint8_t *p = r.px + (size_t)y * rw * 3 + c;
            for (int x = 0; x < rw; x++)
                o[x] = p[x * 3] * (2.0f / 255.0f) - 1.0f;
        }
    ocr_image_free(&r);
    return 0;
}
