/* Shared by the reference and the oneDNN NN kernels: attribute parsing for
 * window ops (Conv, ConvTranspose, pools), their output-shape arithmetic,
 * layout-aware strides, and the fused post-op list that the fusion pass
 * (src/graph/fuse.c) attaches to heavy nodes. Both implementations read the
 * same description so the reference stays the ground truth for fused nodes. */
#ifndef OPENACL_NN_COMMON_H
#define OPENACL_NN_COMMON_H
#include "kernels/kernel.h"
#include "kernels/post.h"
#include "core/core.h"
#include "acl/acl_base.h"

#define NN_MAX_SP 3

enum nn_win_kind { NN_CONV = 0, NN_CONVT = 1, NN_POOL = 2 };
enum nn_auto_pad { NN_PAD_NOTSET = 0, NN_PAD_SAME_UPPER, NN_PAD_SAME_LOWER, NN_PAD_VALID };

/* Window geometry. Attributes are parsed by nn_win_parse (init time); the
 * spatial sizes, resolved pads and output sizes by nn_win_resolve (infer). */
typedef struct nn_win {
    int kind;                  /* enum nn_win_kind */
    int nsp;                   /* spatial dims, 0 until known */
    int has_kernel;            /* kernel_shape attribute given */
    int64_t k[NN_MAX_SP], s[NN_MAX_SP], d[NN_MAX_SP];
    int64_t pb[NN_MAX_SP], pe[NN_MAX_SP];   /* pads begin / end (resolved) */
    int has_pads;
    int auto_pad;
    int ceil_mode;
    int64_t group;
    int64_t opad[NN_MAX_SP];   /* ConvTranspose output_padding */
    int has_oshape;
    int64_t oshape[NN_MAX_SP]; /* ConvTranspose output_shape (spatial) */
    /* resolved */
    int64_t in[NN_MAX_SP], out[NN_MAX_SP];
} nn_win;

int nn_win_parse(const g_node *n, int kind, nn_win *w);
/* Given the input's spatial sizes, resolve pads and output sizes. */
int nn_win_resolve(const g_node *n, nn_win *w, int nsp, const int64_t *in_sp);

/* The fused post-op list and depthwise step: kernels/post.h. */
/* The depthwise step's geometry over an M x H x W plane. */
void nn_dw_win(const nn_dw *d, int64_t M, int64_t H, int64_t W, nn_win *w);
float nn_act(int kind, float a, float b, float x);
/* Applies the post-op list to `len` contiguous values; `add` holds the
 * values of the addend at the same positions (or NULL when no ADD). */
void nn_post_apply(const nn_post *p, float *y, size_t len, const float *add);

/* ---- layout-aware addressing of an N-C-spatial tensor ----
 * Element strides of n, c and up to 3 spatial dims, in elements. */
typedef struct nn_strides {
    int64_t n, c, sp[NN_MAX_SP];
} nn_strides;
void nn_strides_of(const g_shape *s, int layout, nn_strides *st);

/* Output layout chosen by the layout pass for window ops and reorders: the
 * node attribute _oa_layout (enum g_layout), honoured for 4-D outputs. */
int nn_out_layout(const g_node *n, const g_shape *s);

/* Helpers for messages and checks. */
int nn_fail_dtype(const g_node *n, int idx, int dtype);
int nn_is_const(const g_graph *g, const g_node *n, int idx);
int nn_check_rank(const g_node *n, int idx, const g_shape *s, int lo, int hi);

/* Per-run temporary memory for reference kernels: ctx scratch when big
 * enough, otherwise heap (reference kernels only; fast kernels size their
 * scratch in plan()). */
void *nn_tmp_get(const k_ctx *ctx, size_t bytes, int *heap);
void nn_tmp_put(void *p, int heap);

/* float16 / bfloat16 conversions for the conversion-based paths. */
float nn_h2f(uint16_t h);
uint16_t nn_f2h(float f);
/* The int32 accumulator of integer products adds as the hardware's does,
 * wrapping modulo 2^32 (VNNI's vpdpbusd, ORT's and oneDNN's int32 sums):
 * a model whose sums leave int32 (a fuzzed bias of 2^31 - 1, or 70 000
 * taps of 255 x 127) gets wrapped values, not undefined behaviour. */
static inline int32_t nn_acc32(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline float nn_bf2f(uint16_t b)
{
    union { uint32_t u; float f; } v;
    v.u = (uint32_t)b << 16;
    return v.f;
}
uint16_t nn_f2bf(float f);
/* Reads element i of a float tensor of dtype f32/f16/bf16/f64 as float. */
float nn_loadf(const void *p, int dtype, size_t i);
void nn_storef(void *p, int dtype, size_t i, float v);
static inline int nn_is_float(int dt)
{
    return dt == G_F32 || dt == G_F16 || dt == G_BF16 || dt == G_F64;
}

/* Float32 views of tensors for the reference kernels: the data itself when
 * it is float32, otherwise a converted heap copy. */
typedef struct nn_f32buf { float *p; int heap; size_t n; } nn_f32buf;
int nn_f32_in(const g_node *n, const k_tensor *t, nn_f32buf *b);
int nn_f32_out(const g_node *n, const k_tensor *t, nn_f32buf *b);
void nn_f32_none(nn_f32buf *b);
void nn_f32_commit(k_tensor *t, const nn_f32buf *b);   /* converts back when needed */
void nn_f32_free(nn_f32buf *b);

/* ---- shared by ref and dnnl conv ---- */
int nn_conv_infer_shape(const g_node *n, nn_win *w, int transposed, const k_tensor *in,
                        g_shape *out);
/* Applies a fused depthwise step (if any) to a Conv output shape. */
int nn_conv_dw_shape(const g_node *n, const nn_dw *d, const k_tensor *in, g_shape *s);
/* Conv + fused depthwise step in float32 (reference and fallback): the
 * first convolution into a plain temporary, then the depthwise one. */
int nn_conv_dw_f32(const g_node *n, const nn_win *w, const nn_post *po, const nn_dw *d,
                   const g_shape *xshape, int xlayout, const float *x, const float *wt,
                   const float *bias, const float *dww, const float *dwb, const g_shape *yshape,
                   int ylayout, float *y);
/* Direct convolution (or transposed) in float32; `plane` holds one output
 * channel's spatial plane. */
void nn_conv_f32(const nn_win *w, const nn_post *po, int transposed, const g_shape *xshape,
                 int xlayout, const float *x, const float *wt, const float *bias,
                 const g_shape *yshape, int ylayout, float *y, const float *add, int alayout,
                 float *plane);
enum { POOL_MAX, POOL_AVG, POOL_LP };
/* Pooling with w resolved; idx (MaxPool Indices, int64) may be NULL. */
void nn_pool_compute(const nn_win *w, int type, int include_pad, int storage_order, float p,
                     const k_tensor *x, k_tensor *y, int64_t *idx);
int nn_pool_infer_shape(const g_node *n, nn_win *w, int global, const g_shape *xs, g_shape *ys);
void nn_lrn_compute(int64_t size, float alpha, float beta, float bias, const k_tensor *x,
                    k_tensor *y);
int nn_lrn_parse(const g_node *n, int64_t *size, float *alpha, float *beta, float *bias);
int nn_matmul_shape(const g_node *n, const g_shape *a, const g_shape *b, g_shape *y,
                    int64_t *M, int64_t *K, int64_t *N);
int nn_gemm_shape(const g_node *n, int ta, int tb, const g_shape *a, const g_shape *b,
                  const g_shape *c, g_shape *y, int64_t *M, int64_t *K, int64_t *N);
/* MatMul (gemm = 0; input 2 a fused bias) or Gemm in float32 math. */
int nn_mm_compute(const g_node *n, int gemm, int ta, int tb, float alpha, float beta,
                  const nn_post *po, const k_tensor *in, k_tensor *out);
void nn_reorder_bytes(const void *src, int src_layout, void *dst, int dst_layout,
                      const g_shape *s, size_t es);

#endif
