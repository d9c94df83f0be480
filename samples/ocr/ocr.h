/* Shared declarations of the OCR sample: images, the pre/post-processing
 * steps of PaddleOCR's pipeline (plain C, host side) and the text boxes that
 * flow from detection through angle classification to recognition. The ACL
 * part lives in ocr_main.c only. */
#ifndef OCR_SAMPLE_OCR_H
#define OCR_SAMPLE_OCR_H

#include <stddef.h>
#include <stdint.h>

/* 8-bit interleaved BGR (OpenCV's order, which PaddleOCR's constants assume). */
typedef struct {
    int w, h;
    uint8_t *px;  /* w*h*3 bytes, row-major */
} ocr_image;

typedef struct {
    float x, y;
} ocr_pt;

/* A text region: four corners clockwise from top-left, in source-image pixels. */
typedef struct {
    ocr_pt p[4];
    float det_score;  /* mean probability inside the detected box */
    int flipped;      /* the angle classifier turned the crop by 180 degrees */
    float cls_score;
    float rec_score;  /* mean of the kept CTC steps' probabilities */
    char *text;       /* UTF-8, owned */
} ocr_box;

/* ---- image.c: decoding and geometry ---- */
/* Decodes a PNG (libpng) or JPEG (libjpeg-turbo) file, chosen by its
 * signature. Returns 0, or -1 with a message in err. */
int ocr_image_load(const char *path, ocr_image *img, char *err, size_t errlen);
int ocr_image_alloc(ocr_image *img, int w, int h);
void ocr_image_free(ocr_image *img);
/* Bilinear resize with OpenCV's INTER_LINEAR sampling (half-pixel centres). */
int ocr_image_resize(const ocr_image *src, int w, int h, ocr_image *dst);
/* Cuts the quadrilateral q (clockwise from top-left) out of src into an
 * upright w x h image: perspective warp, bicubic, edge pixels replicated. */
int ocr_image_warp_quad(const ocr_image *src, const ocr_pt q[4], int w, int h, ocr_image *dst);
void ocr_image_rotate180(ocr_image *img);
/* Quarter turn counter-clockwise (numpy's rot90), for tall crops. */
int ocr_image_rotate90ccw(ocr_image *img);

/* ---- prep.c: tensors in the layout each model wants (NCHW float32) ---- */
/* Detection size: scale so the long side is at most limit_side, then round
 * each side to a multiple of 32 (at least 32). */
void ocr_det_size(int w, int h, int limit_side, int *out_w, int *out_h);
/* Writes 3*h*w floats: resize to (w,h), x/255, ImageNet mean/std per
 * channel in BGR order (as PaddleOCR feeds OpenCV images). */
int ocr_det_prep(const ocr_image *img, int w, int h, float *dst);
/* Writes one 3 x 48 x width slot: the crop resized to height 48 keeping its
 * aspect ratio (width capped at `width`), (x/255-0.5)/0.5, zero padding on
 * the right. Used by the classifier (width 192) and the recogniser. */
int ocr_line_prep(const ocr_image *crop, int height, int width, float *dst);

/* ---- dbpost.c: differentiable-binarisation post-processing ---- */
typedef struct {
    float thresh;       /* pixel threshold of the probability map (0.3) */
    float box_thresh;   /* minimum mean probability inside a box (0.6) */
    float unclip_ratio; /* box growth: area*ratio/perimeter on each side (1.5) */
    int max_candidates; /* at most this many components are considered (1000) */
} ocr_db_params;

/* From the probability map prob (map_h x map_w) computed for an image of
 * src_w x src_h, finds text boxes in source pixels, filtered, in reading
 * order. Returns the count (>= 0, boxes in *out, malloc'd) or -1. */
int ocr_db_boxes(const float *prob, int map_w, int map_h, int src_w, int src_h, const ocr_db_params *prm,
                 ocr_box **out);

/* ---- ctc.c: dictionary and greedy CTC decoding ---- */
typedef struct {
    char **sym;  /* sym[0] = blank, sym[1..n-2] = dictionary lines, sym[n-1] = " " */
    int n;
    char *blob;
} ocr_dict;

int ocr_dict_load(const char *path, ocr_dict *d, char *err, size_t errlen);
void ocr_dict_free(ocr_dict *d);
/* Greedy decoding of one sequence of T steps x C classes (softmax rows):
 * argmax per step, merge repeats, drop blanks. Returns the malloc'd text and
 * the mean probability of the kept steps in *score (0 when empty). */
char *ocr_ctc_decode(const ocr_dict *d, const float *probs, int steps, int classes, float *score);

#endif /* OCR_SAMPLE_OCR_H */
