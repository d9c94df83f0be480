/* oneDNN plumbing shared by the dnnl kernels: the one process-wide CPU
 * engine, a per-thread stream, status-to-aclError mapping, memory
 * descriptors for activations in either layout, and the translation of the
 * fused post-op list into oneDNN post-ops. */
#ifndef OPENACL_DN_COMMON_H
#define OPENACL_DN_COMMON_H
#include "kernels/ref/nn_common.h"
#include <oneapi/dnnl/dnnl.h>

dnnl_engine_t dn_engine(void);                  /* NULL when oneDNN cannot start */
dnnl_stream_t dn_stream(void);                  /* the calling thread's stream */

/* acl_fail naming the node and the oneDNN call when st != dnnl_success. */
int dn_check(dnnl_status_t st, const g_node *n, const char *what);
#define DN_TRY(n, call) do { int rc_ = dn_check((call), (n), #call); if (rc_) return rc_; } while (0)

/* Whether the CPU computes bfloat16 natively (AVX512-BF16 or newer):
 * only then do marked nodes (G_ATTR_BF16) run in bf16. */
int dn_has_bf16(void);
/* Whether the CPU has AVX-512 (F) and oneDNN may use its avx512_core level
 * or above: the condition of the hand-written AVX-512 loops beside oneDNN
 * (dn_gemv.c, dn_stem.c). */
int dn_has_avx512(void);
/* Marked convolutions and matrix products below this many FLOPs (with f32
 * tensors around them) compute in f32: converting the operands costs more
 * than bf16 saves (silero VAD's convolutions, squeeze-excite layers). */
#define DN_BF16_MIN_FLOPS 2.0e6

/* y = y * sigmoid(y) in place (dn_silu.c): the fast path for a fused
 * chain's final SiLU, on up to `threads` threads. div: the division forms
 * of kernels/silu16.h (dn_silu_div() says which this CPU prefers; kernels
 * ask at load and keep the answer). */
void dn_silu_f32(float *y, size_t n, int threads, int div);
/* The same over bfloat16 values (rounded to nearest even; computed with the
 * bf16-grade sigmoid below, well inside half a bf16 ulp). */
void dn_silu_bf16(uint16_t *y, size_t n, int threads, int div);
/* float32 values with a bf16-grade sigmoid (relative error < 2e-4, a third
 * fewer instructions): for outputs of convolutions computed in bfloat16,
 * whose own error is ten times larger. */
void dn_silu_f32_fast(float *y, size_t n, int threads, int div);
/* x * sigmoid(x) of n float32 values f, quantised into dst (int8 when s8,
 * else uint8): saturate(round(v * inv) + zp), ties to even (the int8
 * convolutions' SiLU chains, dn_qconv.c); div and pack as those kernels
 * choose them; fold: the step's form (dn_silu_form; for DN_SILU_FOLD_T the
 * values are t = -x log2 e); on up to `threads` threads. */
void dn_silu_q(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8, int div, int pack, int fold,
               int threads);
/* Whether the Winograd Conv implementation (dn_conv.c, k_conv_wino; the rule in dn_conv_wino.c) takes
 * 3x3 stride-1 float32 convolutions: on unless OPENACL_WINOGRAD=0; part of
 * the kernel ABI. */
int dn_winograd(void);
/* Whether OPENACL_QMM_BINARY=1 keeps the int8 products (dn_qmatmul.c) on
 * brgemm with binary scale and bias post-ops: their packed W differs, so it
 * is part of the ABI tag. Read per call (per load). */
int dn_qmm_binary(void);
/* Whether OPENACL_QCONV_ZP_RT=1 keeps oneDNN's runtime source zero point on
 * unpadded int8 convolutions (dn_qconv_zp.c) instead of folding it into the
 * bias: W's packed form differs, so it is part of the ABI tag. */
int dn_qconv_zp_rt(void);
/* OPENACL_QCONV_ZPAD=0: padded int8 convolutions keep oneDNN's runtime
 * source zero point instead of padding the input with it themselves
 * (dn_qconv_zp.c); part of the ABI tag too. */
int dn_qconv_zpad_off(void);
/* OPENACL_WINO_PLANE=1 (dn_conv.c): the Winograd kernel takes layers by the
 * earlier rule (output plane of 28x28 or more, any channel count) instead
 * of by output tiles and channel product; part of the kernel ABI. */
int dn_wino_plane(void);
/* OPENACL_WINO_SMALL=0 (dn_conv.c): output planes under 7x7 tiles of 4x4
 * pixels stay on the direct kernel instead of oneDNN's F(2x2,3x3)
 * Winograd; part of the kernel ABI. */
int dn_wino_small(void);
/* The Winograd kernels dn_conv.c picks between. */
enum { DN_WINO_4X3 = 1, DN_WINO_2X3 = 2 };
/* Which of them a C -> M 3x3 stride-1 layer with an oh x ow output plane
 * takes, 0 for the direct kernel (dn_conv_wino.c). */
int dn_wino_kind(int64_t C, int64_t M, int64_t oh, int64_t ow);
/* dn_maxpool.c: whether 2-D MaxPools (float32 or 8-bit) between channels-last
 * tensors take the AVX-512 loop (an AVX-512 CPU, OPENACL_NO_FAST_MAXPOOL unset; read
 * per build of the pool), and the loop: x [N, H, W, C] -> y [N, OH, OW, C]
 * over window w (resolved, no dilation) on nthr threads. */
int dn_maxpool_fast(void);
void dn_maxpool_nhwc_f32(const nn_win *w, int64_t N, int64_t C, const float *x, float *y, int nthr);
/* ... the same over uint8 (sgn 0) or int8 (sgn 1) bytes */
void dn_maxpool_nhwc_8(const nn_win *w, int64_t N, int64_t C, const void *x, void *y, int sgn, int nthr);
/* ... and 2-D AveragePools the same way (OPENACL_NO_FAST_AVGPOOL=1: oneDNN's
 * primitive), with ONNX's divisor (count_include_pad or not). */
int dn_avgpool_fast(void);
void dn_avgpool_nhwc_f32(const nn_win *w, int64_t N, int64_t C, const float *x, float *y, int include_pad,
                         int nthr);
/* OPENACL_BF16_RESIDUAL=0 (dn_conv.c): residual adds of bf16 convolutions
 * keep their stream in float32 (default: bf16, read by the precision pass
 * at load). */
int dn_bf16_residual(void);
/* Whether this CPU runs the division forms faster: of the precise forms
 * (fast 0: dn_silu_f32) or of the bf16-grade ones (fast 1: dn_silu_f32_fast,
 * dn_silu_bf16, the int8 steps of dn_silu_q and dn_qdw.h); OPENACL_SILU_DIV
 * overrides both; read at each call. */
int dn_silu_div(int fast);
/* The form the int8 SiLU step of a layer whose n output scales (the
 * accumulator's factors) are sc takes (dn_qdw.h's DN_SILU_*): plain
 * (dn_silu_q16), y_scale folded into the sigmoid (dn_silu_q16k), or that
 * and -log2 e folded into the scales, which this multiplies by it, so that
 * the kernels hand the step t = -x log2 e (dn_silu_q16t). DN_SILU_FOLD_T
 * where the CPU has AVX512DQ, unless OPENACL_SILU_FOLD=0 (plain) or 1 (K);
 * read per call (kernels ask at load; the T form changes packed scales:
 * the ABI tag carries a setting of the variable). */
int dn_silu_form(float *sc, int64_t n);
/* Whether OPENACL_SILU_FOLD is set (the ABI tag's int8 switches). */
int dn_silu_fold_set(void);

/* Aligns byte offsets inside packed/scratch areas. */
static inline size_t dn_align(size_t x) { return (x + 63) & ~(size_t)63; }

/* ---- what every weight-packing dnnl kernel (Conv, MatMul/Gemm, the
 * matmul ConvTranspose) keeps of its packed area, and the memory of its own
 * it needs for runs without a plan (dynamic shapes) ---- */
typedef struct dn_pk {
    void *packed;             /* the packed area in use: the engine's, an image's, or own_packed */
    int packed_ok;            /* packed holds what pack() writes for the built configuration */
    void *own_packed, *own_scratch;
    size_t own_scratch_bytes;
} dn_pk;
/* Frees the kernel's own areas. */
void dn_pk_free(dn_pk *p);
/* kernel.h pack / adopt: the area now holds the packed weights. */
static inline void dn_pk_adopt(dn_pk *p, void *packed) { p->packed = packed; p->packed_ok = 1; }
/* A run the engine did not plan: a fresh own area of `bytes` for pack_into
 * to fill (*area). 0 or ACL_ERROR_BAD_ALLOC naming the node. */
int dn_pk_own_packed(const g_node *n, dn_pk *p, size_t bytes, void **area);
/* The run's scratch (*scr): the engine's planned area when it holds `need`
 * bytes, else the kernel's own, grown once per larger shape. */
int dn_pk_grow_scratch(const g_node *n, dn_pk *p, size_t need, char **scr);
static inline int dn_pk_scratch(const g_node *n, dn_pk *p, const k_ctx *ctx, size_t need, char **scr)
{
    *scr = ctx ? ctx->scratch : NULL;
    if (!need || (ctx && ctx->scratch_bytes >= need)) return 0;
    return dn_pk_grow_scratch(n, p, need, scr);
}

/* Points a memory object at p (a run's buffer). */
int dn_set_handle(const g_node *n, dnnl_memory_t m, const void *p);
/* Executes a reorder primitive from -> to. */
int dn_reorder_exec(const g_node *n, dnnl_primitive_t p, dnnl_stream_t strm, dnnl_memory_t from,
                    dnnl_memory_t to);

/* Applies the run's thread budget to the OpenMP pool oneDNN uses; returns
 * the budget in force. */
int dn_threads(const k_ctx *ctx);

/* Activation memory descriptor: rank 3-5 in plain (ncw/nchw/ncdhw) or
 * channels-last (nwc/nhwc/ndhwc), other ranks plain row-major. */
int dn_md_act(dnnl_memory_desc_t *md, const g_shape *s, int channels_last, dnnl_data_type_t dt);
/* Plain row-major memory descriptor for any rank (rank 0 treated as [1]). */
int dn_md_plain(dnnl_memory_desc_t *md, const g_shape *s, dnnl_data_type_t dt);

/* Sets the oneDNN post-ops for p on attr; *add_idx gets the post-op index
 * of the binary add (-1 when none), add_md describes the addend (NULL: the
 * add becomes a sum post-op over the destination's prior contents). lead_md,
 * when not NULL, puts a binary add of that operand first (index 0).
 * Returns -1 without a message for chains oneDNN would get wrong
 * (nn_post_conflict). */
int dn_post_ops(const g_node *n, const nn_post *p, const dnnl_memory_desc_t *add_md,
                const dnnl_memory_desc_t *lead_md, dnnl_primitive_attr_t attr, int *add_idx);

/* The post-ops of an int8 convolution (dn_qconv.c): p with its add as a
 * sum post-op reading the destination's prior (8-bit) contents, minus
 * sum_zp, times sum_scale. -1 (no message) when not expressible. */
int dn_post_ops_qsum(const g_node *n, const nn_post *p, float sum_scale, int32_t sum_zp,
                     dnnl_primitive_attr_t attr);

/* Post-ops of a convolution with a fused depthwise step: p, the depthwise
 * convolution, then its own list. -1 (no message) when not expressible. */
int dn_dw_post_ops(const g_node *n, const nn_post *p, const nn_dw *d, dnnl_primitive_attr_t attr);
/* The oneDNN Conv's answer to the fusion pass (k_op.fuse_dw): whether a 1x1
 * convolution and the depthwise step q describes run as one fused jit
 * primitive (dn_common.c). */
int dn_conv_fuse_dw(const struct k_dw_fusion *q);

/* Primitive descriptor for op_desc: the first implementation whose name
 * starts with `prefer` when one does (oneDNN's own order otherwise). */
dnnl_status_t dn_pd_create(dnnl_primitive_desc_t *pd, const_dnnl_op_desc_t op_desc,
                           const_dnnl_primitive_attr_t attr, const char *prefer);

/* Whether oneDNN chose its slow reference implementation. */
int dn_is_ref_impl(const_dnnl_primitive_desc_t pd);
/* Whether the implementation name contains `what` (e.g. "gemm"). */
int dn_impl_has(const_dnnl_primitive_desc_t pd, const char *what);

/* Runs a one-off reorder between two memories (load time only). */
int dn_reorder_once(const g_node *n, const dnnl_memory_desc_t *src_md, void *src,
                    const dnnl_memory_desc_t *dst_md, void *dst);

/* Builds an activation reorder primitive (layout change, no scratchpad). */
int dn_reorder_prim(const g_node *n, const dnnl_memory_desc_t *src_md,
                    const dnnl_memory_desc_t *dst_md, dnnl_primitive_t *prim);

/* Scratchpad memory size of a primitive descriptor. */
size_t dn_scratch_size(const_dnnl_primitive_desc_t pd);

/* Creates a memory object without a buffer (handle set at run time). */
int dn_mem(const g_node *n, const dnnl_memory_desc_t *md, dnnl_memory_t *m);
void dn_mem_free(dnnl_memory_t *m);
void dn_prim_free(dnnl_primitive_t *p);

#endif
