/* int8 convolutions (dn_qconv.c) as bands of output rows: the band
 * geometry and SiLU band settings dn_qconv.c's cache bands use, and row
 * bands for the other layers at 2 threads or more.
 *
 * Row bands follow dn_conv_band.h's float32 ones: one oneDNN primitive per
 * band, built for one thread, the threads each running their own band
 * inside one parallel region, reading only the input rows it needs and
 * writing its rows of the output. oneDNN 2.6's int8 1x1 kernels split a
 * small plane poorly between two threads (its own split of MobileNetV2's
 * 14x14 and 7x7 pointwise layers). Each output is computed by the same
 * integer product and requantisation in a band as in the whole layer, so
 * the bytes written are the same. Channels-last input and output, 2-D,
 * batch 1, no reorder on either side, a residual only as the sum post-op
 * over what the output holds, no SiLU (those run dn_qconv.c's bands), no
 * zero-padded copy of the input. */
#ifndef OPENACL_DN_QCONV_BAND_H
#define OPENACL_DN_QCONV_BAND_H
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_conv_band.h"

/* Output rows [o0, o0 + r) of a layer of input height H, stride st, top
 * padding p, kernel height k, dilation d (ONNX's, 1: none) read input rows
 * [*i0, *i0 + *ih), with *pt / *pb rows of padding above and below. */
void dq_band_rows(int64_t H, int64_t st, int64_t p, int64_t k, int64_t d, int64_t o0, int64_t r, int64_t *i0,
                  int64_t *ih, int64_t *pt, int64_t *pb);

/* Whether the cache bands of a SiLU convolution on nthr threads run as
 * whole bands per thread (one parallel region for the layer, each thread's
 * product on one thread and its SiLU pass on its own float32 band) rather
 * than one band at a time on all threads (two parallel regions a band):
 * 2 to tb_max threads, unless OPENACL_QCONV_TBANDS=0; read per build. */
int dq_tband(int nthr, int tb_max);
/* f32 bytes of a SiLU convolution's output band: OPENACL_QCONV_BAND_KB
 * KiB per thread (0: whole images), read per build of the node; a band per
 * thread (tband) or one for them all. */
int64_t dq_band_bytes(int nthr, int tband);

/* OPENACL_QCONV_ROW_BANDS: "1": row bands for layers of at most
 * DQ_RB_MAX_ROWS output rows; "all": any plane; unset or "0": none (they
 * measured level with oneDNN's own partition). Read per build. */
#define DQ_RB_MAX_ROWS 20
int dq_rband_mode(void);   /* 0: none, 1: small planes, 2: all */

/* Makes band i's primitive descriptor: input rows ih (with pt / pb rows of
 * padding), output rows orows, the layer's attributes and packed weights;
 * ctx is the caller's layer. */
typedef dnnl_status_t (*dq_rband_pd_fn)(const g_node *n, void *ctx, int64_t ih, int64_t orows, int64_t pt,
                                        int64_t pb, dnnl_primitive_desc_t *pd);

typedef dn_band dq_rband;   /* the float32 bands' record (dn_conv_band.h) */

/* The layer: input [1, C, H, W] and output [1, M, OH, OW] of 8-bit values,
 * stride, top padding, kernel height and dilation (ONNX's) of its rows. */
typedef struct dq_rband_geo {
    int64_t C, H, W, M, OH, OW, st, pt, k, d;
} dq_rband_geo;

/* Builds nb bands (2 <= nb <= DN_BAND_MAX, at least DN_BAND_MIN_ROWS
 * output rows each) whose descriptors take the weights in format *wmd:
 * 0 with b->n set, or 0 with b->n == 0 when they do not apply or oneDNN
 * takes a band another way (the whole-layer primitive runs instead); an
 * error code when a memory could not be made. */
int dq_rband_build(const g_node *n, dq_rband *b, int nb, const dq_rband_geo *g, const dnnl_memory_desc_t *wmd,
                   int has_bias, dq_rband_pd_fn fn, void *ctx);
/* Runs the bands on nthr threads: x, y the whole input and output (y holds
 * the residual already when the sum post-op adds one), w the packed
 * weights, bias (or NULL), xz / yz the runtime zero-point memories (or
 * NULL; read only), scr at least b->scratch bytes. */
int dq_rband_run(const g_node *n, dq_rband *b, const void *x, const void *w, const void *bias, dnnl_memory_t xz,
                 dnnl_memory_t yz, void *y, char *scr, int nthr);
#endif
