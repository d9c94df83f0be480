/* Direct convolution for layers with few input channels (the first layer of
 * an image model: 3 -> 32 channels, 3x3 stride 2 in EfficientNet and
 * MobileNet, 7x7 stride 2 in ResNet), tried before the oneDNN Conv kernel
 * (dn_conv.c): the Conv implementation dn_conv_stem.c. See dn_stem.c for
 * why and how. */
#ifndef OPENACL_DN_STEM_H
#define OPENACL_DN_STEM_H
#include "kernels/ref/nn_common.h"
#include <stddef.h>
#include <stdint.h>

/* Largest input channel count the direct loop takes. */
#define DN_STEM_MAX_C 4

/* OPENACL_NO_STEM=1: such layers stay with oneDNN (A/B runs; part of the
 * compiled-model kernel ABI, dn_backend.c). Read at each call. */
int dn_stem_disabled(void);
/* Whether this CPU runs the loop (AVX-512, and oneDNN allowed to use it). */
int dn_stem_supported(void);
/* Whether the post-op chain runs inside the loop (no add; the activations
 * with a vector form here). */
int dn_stem_post_ok(const nn_post *p);

/* Geometry of one layer: input [N, C, H, W] addressed by element strides
 * (plain or channels-last), output [N, M, OH, OW]. */
typedef struct dn_stem_geo {
    int64_t N, C, H, W;
    int64_t xs_n, xs_c, xs_h, xs_w;
    int64_t M, OH, OW, KH, KW, SH, SW, PT, PL;
    int out_nhwc, out_bf16;
    int silu_div;   /* a SiLU in the chain by kernels/silu16.h's division forms */
    int shared_taps;   /* 3-wide stride-2 rows: one broadcast serves two taps (dn_stem.c) */
    int dyn_rows;      /* threads take rows a few at a time from one counter (OPENACL_STEM_DYN_ROWS=1) */
} dn_stem_geo;

/* OPENACL_STEM_SHARED_TAPS=0: every tap of a 3-wide stride-2 kernel row
 * broadcasts its own input value (read at each load; same packed weights,
 * same sums). */
int dn_stem_shared_taps(void);

/* OPENACL_STEM_DYN_ROWS=1: threads take output rows a few at a time from
 * one counter instead of each working through its own contiguous run first
 * (dn_stem.c rows_owned; read at each load). */
int dn_stem_dyn_rows(void);

/* Packed weights: [C][KH][KW][Mp] floats, Mp = M rounded up to 16 (zeros);
 * the bias, when there is one, [Mp] floats (zeros past M). */
int64_t dn_stem_mpad(int64_t M);
size_t dn_stem_packed_bytes(int64_t C, int64_t M, int64_t KH, int64_t KW);
/* w: ONNX weights [M, C, KH, KW] */
void dn_stem_pack(const float *w, int64_t C, int64_t M, int64_t KH, int64_t KW, float *dst);
/* Scratch the run needs with `threads` threads (a row of output per
 * thread when the output is bf16 or plain; else 0). */
size_t dn_stem_scratch_bytes(const dn_stem_geo *g, int threads);
/* y = post(conv(x, w) + bias); bias NULL or [Mp]. */
void dn_stem_run(const dn_stem_geo *g, const float *x, const float *wp, const float *bias, const nn_post *po,
                 void *y, void *scratch, int threads);
#endif
