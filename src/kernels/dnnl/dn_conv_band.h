/* A oneDNN convolution run as bands of output rows, one single-thread
 * primitive per band, each thread running its own bands (dn_conv.c).
 *
 * oneDNN 2.6's direct kernel for grouped channels-last layers (RegNetX's
 * 3x3 convolutions with 16 channels a group, `jit:avx512_core`) shares its
 * work between threads by group, then rows: at stride 2 the two threads of
 * RegNetX-400MF's first grouped layers took 0.87x and 0.90x of one
 * thread's time. Here each thread computes a contiguous run of output rows
 * over all groups, reading only the input rows those need, with a primitive
 * built for one thread (no barrier inside), so the layer scales like the
 * dense ones around it. Channels-last float32 input and output, 2-D, batch
 * 1, no fused depthwise step, a final SiLU run over each band's rows, a residual addend only as a sum post-op (the
 * addend already in the output); the packed weights are the whole layer's
 * (every band's primitive takes that format or the bands are not used). */
#ifndef OPENACL_DN_CONV_BAND_H
#define OPENACL_DN_CONV_BAND_H
#include "kernels/dnnl/dn_common.h"

#define DN_BAND_MAX 16   /* more threads than this: the layer stays whole */
/* Fewer output rows a band and the split costs more than it saves
 * (RegNetX-400MF's 7x7 grouped layers at 2 threads: 28 -> 34 us; its 14x14
 * ones level, 28x28 and 56x56 ones 25-30 % faster). */
#define DN_BAND_MIN_ROWS 7

typedef struct dn_band {
    int n;                                   /* bands; 0: not in use */
    int64_t r0[DN_BAND_MAX + 1];             /* output rows of band b: [r0[b], r0[b + 1]) */
    int64_t ir0[DN_BAND_MAX];                /* first input row band b reads */
    size_t xrow, yrow;                       /* bytes per input / output row */
    size_t sp_off[DN_BAND_MAX], scratch;     /* each band's oneDNN scratchpad in the run's scratch */
    dnnl_primitive_desc_t pd[DN_BAND_MAX];   /* until the first run creates the primitive */
    dnnl_primitive_t prim[DN_BAND_MAX];
    dnnl_memory_t mx[DN_BAND_MAX], mw[DN_BAND_MAX], mb[DN_BAND_MAX], my[DN_BAND_MAX], msp[DN_BAND_MAX];
} dn_band;

/* The geometry of the whole layer: input [1, C, H, W], output [1, M, OH,
 * OW], oneDNN's strides, dilations (0: none) and paddings, the kernel
 * height. */
typedef struct dn_band_geo {
    int64_t C, H, W, M, OH, OW, KH;
    dnnl_dims_t strides, dil, pl, pr;   /* [0]: rows, [1]: columns */
} dn_band_geo;

/* OPENACL_CONV_BANDS: which layers run as bands at 2 threads or more:
 * unset or "small": grouped ones (not depthwise) of any plane, and every
 * other one with at most DN_BAND_SMALL_ROWS output rows; "grouped": grouped
 * ones only; "all": any layer the conditions above admit; "0": none. Read
 * at each load. */
#define DN_BANDS_OFF 0
#define DN_BANDS_GROUPED 1
#define DN_BANDS_SMALL 2
#define DN_BANDS_ALL 3
/* Planes of 14 to 20 rows at 2 threads: a thread's band of a 14x14 layer,
 * run by a primitive built for one thread, beat oneDNN's own split of the
 * layer (MobileNetV2 / MNASNet-0.5 at 2 threads, per-node minimum over 6
 * alternating runs of each, four sets: depthwise 14x14 layers 0.83-0.97x
 * the time, pointwise 0.87-1.03x); 28x28 ones were 0.90-1.13x, larger ones
 * level or worse. */
#define DN_BAND_SMALL_ROWS 20
int dn_conv_bands_mode(void);

/* Builds `nb` bands, one per thread (none unless 2 <= nb <= DN_BAND_MAX),
 * with weights in format *wmd, bias when has_bias, post-ops po (an add as a
 * sum over what the output holds). Returns 0 with b->n set, or 0 with b->n
 * == 0 when oneDNN does not take a band the same way (the caller keeps its
 * whole-layer primitive); errors too leave the bands off. The primitive
 * descriptors are made for one thread. */
int dn_band_build(const g_node *n, dn_band *b, int nb, const dn_band_geo *g, const dnnl_memory_desc_t *wmd,
                  int has_bias, const nn_post *po);
/* Runs the bands on nthr threads: x, y the whole input and output, w the
 * packed weights, bias (or NULL), addend the residual the sum post-op adds
 * (NULL when none; copied into y first unless it is y), scr at least
 * b->scratch bytes; silu_div >= 0: a final SiLU over each band's rows right
 * after it, by dn_silu_f32 with those division forms (< 0: none). */
int dn_band_run(const g_node *n, dn_band *b, const void *x, const void *w, const void *bias, const void *addend,
                void *y, char *scr, int nthr, int silu_div);
void dn_band_free(dn_band *b);

/* One run's tensors for band execution: the whole input x and output y,
 * the packed weights w, bias (or NULL), the runtime zero-point memories
 * xz / yz (int8; NULL: none), the run's scratch, and what the error
 * messages call the band. */
typedef struct dn_band_io {
    const void *x, *w, *bias;
    void *y;
    char *scr;
    dnnl_memory_t xz, yz;
    const char *what;
} dn_band_io;
/* Band i's primitive on the calling thread (its own stream). */
int dn_band_exec(const g_node *n, dn_band *b, int i, const dn_band_io *io);
/* Creates the bands' primitives on first use, then runs fn(n, b, i, ctx)
 * for every band on nthr threads, each thread taking bands t, t + nt, ...;
 * the first error code, named in the calling thread's message when a
 * worker hit it. */
int dn_band_par(const g_node *n, dn_band *b, int nthr, int (*fn)(const g_node *n, dn_band *b, int i, void *ctx),
                void *ctx, const char *what);
#endif
