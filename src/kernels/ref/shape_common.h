/* Private helpers of the reference data-movement kernels (shape_*, index_*,
 * resize*, cast*, einsum*): node-named failures, reading integer inputs,
 * axis normalisation, scalar element access by dtype, and the two copy
 * engines every layout op is expressed with (an affine strided N-d copy and
 * a per-axis index-table gather). */
#ifndef OPENACL_KERNELS_REF_SHAPE_COMMON_H
#define OPENACL_KERNELS_REF_SHAPE_COMMON_H
#include "kernels/kernel.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

/* Error codes used by these kernels. */
#define KSH_EINVAL  ACL_ERROR_INVALID_PARAM
#define KSH_EUNSUP  ACL_ERROR_FEATURE_UNSUPPORTED
#define KSH_ETYPE   ACL_ERROR_UNSUPPORTED_DATA_TYPE
#define KSH_ENOMEM  ACL_ERROR_BAD_ALLOC

/* acl_fail with the "node 'x' (Op, opset N): " prefix. */
int ksh_fail(const g_node *n, int code, const char *fmt, ...) OA_PRINTF(3, 4);

/* Element size of a dtype the kernels can move (0 for string/undefined). */
static inline size_t ksh_esize(int dt)
{
    switch (dt) {
    case G_F32: case G_I32: case G_U32: return 4;
    case G_U8: case G_I8: case G_BOOL: return 1;
    case G_U16: case G_I16: case G_F16: case G_BF16: return 2;
    case G_I64: case G_U64: case G_F64: return 8;
    default: return 0;
    }
}
static inline int ksh_is_float(int dt)
{
    return dt == G_F32 || dt == G_F64 || dt == G_F16 || dt == G_BF16;
}
static inline int ksh_is_int(int dt)
{
    return dt == G_U8 || dt == G_I8 || dt == G_U16 || dt == G_I16 || dt == G_I32 ||
           dt == G_I64 || dt == G_U32 || dt == G_U64;
}

/* Input i is present (not omitted, within n_in). */
static inline int ksh_has(const g_node *n, const k_tensor *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != G_UNDEF;
}
/* dtype of input i as recorded in the graph, G_UNDEF when omitted. */
static inline int ksh_in_dtype(const g_graph *g, const g_node *n, int i)
{
    return (i < n->n_in && n->in[i] >= 0) ? g->t[n->in[i]].dtype : G_UNDEF;
}
static inline int ksh_out_used(const g_node *n, int i)
{
    return i < n->n_out && n->out[i] >= 0;
}

/* Refuses strings/undefined types: movable types are all fixed-size ones. */
int ksh_check_movable(const g_node *n, int dtype, const char *what);
/* Every input of n one movable dtype (Concat's and ChannelShuffle's parts). */
int ksh_check_same_movable(const g_graph *g, const g_node *n);
/* Refuses dtypes not in `allowed` (a G_UNDEF-terminated list). */
int ksh_check_dtype(const g_node *n, int dtype, const char *what, const int *allowed);

static inline int64_t ksh_numel(const g_shape *s)
{
    int64_t k = 1;
    for (int i = 0; i < s->rank; i++) k *= s->d[i];
    return k;
}
static inline int ksh_known(const g_shape *s)
{
    if (s->rank < 0) return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] < 0) return 0;
    return 1;
}
static inline void ksh_set_unknown(g_shape *s) { s->rank = -1; }
/* Contiguous element strides of a shape. */
static inline void ksh_strides(const g_shape *s, int64_t *st)
{
    int64_t k = 1;
    for (int i = s->rank - 1; i >= 0; i--) { st[i] = k; k *= s->d[i]; }
}
static inline int64_t ksh_prod(const int64_t *d, int a, int b)
{
    int64_t k = 1;
    for (int i = a; i < b; i++) k *= d[i];
    return k;
}

/* ---- layouts: 4-D activations may be channels-last (G_LAYOUT_NHWC) ---- */
static inline int ksh_nhwc(const k_tensor *t)
{
    return t->layout == G_LAYOUT_NHWC && t->shape.rank == 4;
}
/* Element stride of each logical axis in t's physical layout. */
static inline void ksh_lstrides(const k_tensor *t, int64_t *st)
{
    if (!ksh_nhwc(t)) { ksh_strides(&t->shape, st); return; }
    const int64_t *d = t->shape.d;   /* logical N, C, H, W */
    st[1] = 1;
    st[3] = d[1];
    st[2] = d[3] * d[1];
    st[0] = d[2] * d[3] * d[1];
}
/* Logical axes in physical order, outermost first. */
static inline void ksh_porder(const k_tensor *t, int *ord)
{
    static const int nhwc[4] = {0, 2, 3, 1};
    for (int i = 0; i < t->shape.rank; i++) ord[i] = ksh_nhwc(t) ? nhwc[i] : i;
}
/* Output layout for ops that keep the layout of their data input. */
static inline int ksh_same_layout(const k_tensor *in, const g_shape *out)
{
    return in->layout == G_LAYOUT_NHWC && in->shape.rank == 4 && out->rank == 4 ? G_LAYOUT_NHWC
                                                                               : G_LAYOUT_PLAIN;
}
/* accepts_layout: channels-last on every input / on the data input only. */
int ksh_accept_all(const g_node *n, void *st, int idx, int layout);
int ksh_accept_data(const g_node *n, void *st, int idx, int layout);

/* Largest dimension / element count a kernel accepts from data values
 * (keeps every later product and sum far from int64 overflow). */
#define KSH_DIM_MAX ((int64_t)1 << 48)

/* Normalises axis into [0, rank) (or [0, rank] with `inclusive`). */
int ksh_axis(const g_node *n, int64_t axis, int rank, int inclusive, int *out);

/* Reads the integer values of input tensor t (int32 or int64, any shape,
 * data known) into v (at most max). Returns the count via *cnt. */
int ksh_read_ints(const g_node *n, const k_tensor *t, int idx, int64_t *v, int max, int *cnt);
/* Scalar element access with conversion (slow path helpers). */
double ksh_getf(const void *p, int dt, size_t i);
int64_t ksh_geti(const void *p, int dt, size_t i);
void ksh_setf(void *p, int dt, size_t i, double v);
void ksh_seti(void *p, int dt, size_t i, int64_t v);
/* Whether element i is non-zero (NaN counts as non-zero). */
int ksh_nonzero(const void *p, int dt, size_t i);

/* Half and bfloat16 conversions (round to nearest even). The float ones
 * are written without data-dependent loops so compilers can vectorise them. */
uint16_t ksh_d2h(double d);
static inline float ksh_h2f(uint16_t h)
{
    uint32_t u = (uint32_t)(h & 0x7fff) << 13, e = u & 0x0f800000u;
    float f;
    u += (uint32_t)(127 - 15) << 23;               /* rebias the exponent */
    if (e == 0x0f800000u) {
        u += (uint32_t)(128 - 16) << 23;           /* infinity / NaN */
    } else if (e == 0) {                           /* zero / subnormal: let the FPU normalise */
        u += 1u << 23;
        memcpy(&f, &u, 4);
        f -= 6.103515625e-05f;                     /* 2^-14 */
        memcpy(&u, &f, 4);
    }
    u |= (uint32_t)(h & 0x8000) << 16;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t ksh_f2h(float x)
{
    uint32_t u, sign, o;
    memcpy(&u, &x, 4);
    sign = (u >> 16) & 0x8000;
    u &= 0x7fffffffu;
    if (u >= 0x47800000u) {                        /* >= 2^16, infinity, NaN */
        o = u > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (u < 0x38800000u) {                  /* below 2^-14: subnormal or zero */
        float f;
        memcpy(&f, &u, 4);
        f += 0.5f;                                 /* ulp(0.5) = 2^-24: the FPU rounds for us */
        memcpy(&o, &f, 4);
        o -= 0x3f000000u;
    } else {                                       /* normal: rebias, round half to even */
        u += ((uint32_t)(15 - 127) << 23) + 0xfffu + ((u >> 13) & 1u);
        o = u >> 13;                               /* a carry into 31 gives infinity */
    }
    return (uint16_t)(o | sign);
}
static inline float ksh_bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t ksh_f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);  /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* infer() result when an input value is still unknown: output shapes unknown. */
static inline int ksh_need(k_tensor *out, int nout)
{
    for (int i = 0; i < nout; i++) out[i].shape.rank = -1;
    return K_NEED_DATA;
}

/* Thread count for a job of `bytes` bytes under the context's budget. */
int ksh_threads(const k_ctx *ctx, size_t bytes);

/* Affine N-d copy: dst[i] = src[i] over `dims`, strides in elements (may be
 * 0 to broadcast or negative to reverse). Coalesces dims, copies contiguous
 * rows with memcpy and transposes through cache tiles when the innermost
 * source and destination axes differ. */
void ksh_copy_nd(void *dst, const int64_t *dst_st, const void *src, const int64_t *src_st,
                 const int64_t *dims, int rank, size_t es, int nthreads);

/* Per-axis table gather: out (contiguous, dims od[0..rank)) at index
 * (i0..ir) = src at element offset sum(map[a][ia]); a negative map entry
 * writes `fill` (es bytes) instead. maps[a] has od[a] entries. */
void ksh_gather_maps(void *dst, const void *src, const int64_t *od, int rank,
                     int64_t *const *maps, size_t es, const void *fill, int nthreads);

/* Converts n elements between any two fixed-size types (cast.c). */
void ksh_cast(const void *src, int stype, void *dst, int dtype, size_t n, int nthreads);

/* Fills n elements of es bytes with the value at `val`. */
void ksh_fill(void *dst, const void *val, size_t es, size_t n);

/* Shape helper: out = multidirectional broadcast of a and b. */
int ksh_broadcast(const g_node *n, const g_shape *a, const g_shape *b, g_shape *out);

/* Allocates scratch either from the context (when large enough) or the heap;
 * *owned tells the caller to free() it. */
void *ksh_scratch(const k_ctx *ctx, size_t bytes, int *owned);

#endif
