/* Private helpers of the reference elementwise, reduction, softmax and
 * normalisation kernels (ew_*.c, reduce*.c, softmax*.c, norm*.c): dtype
 * masks and conversions, vectorisable float math, the broadcast iteration
 * plan with its parallel driver, and the chunked adapters that run float16 /
 * bfloat16 (and odd integer types) through the float / double loops. */
#ifndef OPENACL_KERNELS_REF_EW_COMMON_H
#define OPENACL_KERNELS_REF_EW_COMMON_H
#include "kernels/kernel.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

#define EW_EINVAL ACL_ERROR_INVALID_PARAM
#define EW_EUNSUP ACL_ERROR_FEATURE_UNSUPPORTED
#define EW_ETYPE  ACL_ERROR_UNSUPPORTED_DATA_TYPE
#define EW_ENOMEM ACL_ERROR_BAD_ALLOC

/* acl_fail with the "node 'x' (Op, opset N): " prefix. */
int ew_fail(const g_node *n, int code, const char *fmt, ...) OA_PRINTF(3, 4);

/* ---- dtype masks ---- */
#define EW_NDT 17                       /* table size: dtypes 0..G_BF16 */
#define EW_M(dt) (1u << (dt))
#define EW_MHALF (EW_M(G_F16) | EW_M(G_BF16))
#define EW_MFLT  (EW_M(G_F32) | EW_M(G_F64) | EW_MHALF)
#define EW_MSINT (EW_M(G_I8) | EW_M(G_I16) | EW_M(G_I32) | EW_M(G_I64))
#define EW_MUINT (EW_M(G_U8) | EW_M(G_U16) | EW_M(G_U32) | EW_M(G_U64))
#define EW_MINT  (EW_MSINT | EW_MUINT)
#define EW_MNUM  (EW_MFLT | EW_MINT)
#define EW_MBOOL EW_M(G_BOOL)

static inline int ew_is_float(int dt) { return dt >= 0 && dt < EW_NDT && (EW_MFLT & EW_M(dt)); }
static inline int ew_is_half(int dt) { return dt == G_F16 || dt == G_BF16; }
static inline int ew_is_sint(int dt) { return dt >= 0 && dt < EW_NDT && (EW_MSINT & EW_M(dt)); }
static inline int ew_is_uint(int dt) { return dt >= 0 && dt < EW_NDT && (EW_MUINT & EW_M(dt)); }
static inline int ew_type_ok(unsigned mask, int dt) { return dt > 0 && dt < EW_NDT && (mask & EW_M(dt)); }

/* Input i is present (within n_in, not omitted, has a dtype). */
static inline int ew_has(const g_node *n, const k_tensor *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != G_UNDEF;
}
/* Output i is wanted by the graph. */
static inline int ew_want(const g_node *n, int i) { return i < n->n_out && n->out[i] >= 0; }
/* dtype of input i from the graph (init time), G_UNDEF when omitted. */
static inline int ew_gdtype(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0 || n->in[i] >= g->n_t) return G_UNDEF;
    return g->t[n->in[i]].dtype;
}
/* The constant value of input i when the graph holds one (init time). */
static inline const g_tensor *ew_gconst(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0 || n->in[i] >= g->n_t) return NULL;
    const g_tensor *t = &g->t[n->in[i]];
    return t->kind == G_TK_CONST && t->data ? t : NULL;
}

/* Refuse a dtype outside `mask` (init time). */
int ew_check_type(const g_node *n, int idx, int dt, unsigned mask);

/* ---- float16 / bfloat16 ---- */
static inline float ew_bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t ew_f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline float ew_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    if (em >= 0x7c00u) return ew_bits2f(sign | 0x7f800000u | ((em & 0x3ffu) << 13));
    if (em >= 0x0400u) return ew_bits2f(sign | ((em << 13) + (112u << 23)));
    float v = (float)em * 0x1p-24f;                 /* subnormal or zero: exact */
    return ew_bits2f(sign | ew_f2bits(v));
}
/* Round to nearest even; overflow to inf; NaN stays NaN (quiet). */
static inline uint16_t ew_f2h(float f)
{
    uint32_t x = ew_f2bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* below the smallest normal half: adding 0.5 puts the half's
         * subnormal unit (2^-24) in the float's last place, so the FPU rounds */
        float v = ew_bits2f(ax) + 0.5f;
        return (uint16_t)(sign | (ew_f2bits(v) - 0x3f000000u));
    }
    ax += 0xfffu + ((ax >> 13) & 1u);
    return (uint16_t)(sign | ((ax - (112u << 23)) >> 13));
}
static inline float ew_bf2f(uint16_t h) { return ew_bits2f((uint32_t)h << 16); }
static inline uint16_t ew_f2bf(float f)
{
    uint32_t x = ew_f2bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
/* Bulk conversions between a half type and float. */
void ew_half_to_f32(int dt, const uint16_t *x, float *y, size_t n);
void ew_f32_to_half(int dt, const float *x, uint16_t *y, size_t n);

/* ---- scalar access by dtype (generic paths) ---- */
double ew_ld(const void *p, int dt, size_t i);
void ew_st(void *p, int dt, size_t i, double v);
int64_t ew_ldi(const void *p, int dt, size_t i);      /* integers (and bool) exactly */
void ew_sti(void *p, int dt, size_t i, int64_t v);    /* wraps to the type's width */
/* Reads element 0 of a scalar input as double; `ok` = present and non-empty. */
double ew_scalar(const k_tensor *t, int *ok);

/* ---- vectorisable float math ----
 * Written branch-free (selects are bit blends, since with trapping math the
 * compiler will not if-convert an FP operation) so loops over them vectorise. */
typedef union { float f; uint32_t u; int32_t i; } ew_fu;

static inline float ew_sel(int c, float a, float b)
{
    ew_fu x, y;
    x.f = a; y.f = b;
    uint32_t m = 0u - (uint32_t)(c != 0);
    x.u = (x.u & m) | (y.u & ~m);
    return x.f;
}

/* max(v, lo) / min(v, hi) as blends; NaN v passes through */
static inline float ew_maxf(float v, float lo) { return ew_sel(v < lo, lo, v); }
static inline float ew_minf(float v, float hi) { return ew_sel(v > hi, hi, v); }

/* e^x, about 1 ulp; exact 0 / inf at the ends, NaN propagates. */
static inline float ew_expf(float x)
{
    const float hi = 88.72283f, lo = -104.0f;
    float xc = ew_maxf(ew_minf(x, hi), lo);
    ew_fu t;
    t.f = xc * 1.44269504088896341f + 12582912.0f;   /* round(x/ln2) in the low bits */
    int32_t k = t.i - 0x4b400000;
    float kf = t.f - 12582912.0f;
    float r = xc - kf * 0.693145751953125f;           /* ln2 split in two parts */
    r = r - kf * 1.428606765330187e-06f;
    float p = 1.0f / 5040;                             /* Taylor to r^7, |r| <= ln2/2 */
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t k1 = k >> 1, k2 = k - k1;                  /* 2^k in two factors: no overflow */
    ew_fu s1, s2;
    s1.u = (uint32_t)(k1 + 127) << 23;   /* unsigned: a NaN input gives any k */
    s2.u = (uint32_t)(k2 + 127) << 23;
    return ew_sel(x > hi, INFINITY, p * s1.f * s2.f);
}

/* ln x, about 1 ulp for normal and subnormal x; -inf at 0, NaN below. */
static inline float ew_logf(float x)
{
    int sub = x < 0x1p-126f;
    float xs = ew_sel(sub, x * 0x1p23f, x);
    ew_fu u;
    u.f = xs;
    int32_t e = (int32_t)((u.u >> 23) & 0xffu) - 127;
    u.u = (u.u & 0x007fffffu) | 0x3f800000u;           /* m in [1, 2) */
    int big = u.f > 1.41421356f;
    float m = ew_sel(big, u.f * 0.5f, u.f);            /* m in [0.707, 1.414) */
    float ef = (float)(e + big) - ew_sel(sub, 23.0f, 0.0f);
    float s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
    float q = 1.0f / 11;                               /* atanh series: ln m = 2 atanh s */
    q = q * s2 + 1.0f / 9;
    q = q * s2 + 1.0f / 7;
    q = q * s2 + 1.0f / 5;
    q = q * s2 + 1.0f / 3;
    q = q * s2 + 1.0f;
    float r = 2.0f * s * q + ef * 0.693147180559945f;
    r = ew_sel(x == INFINITY, INFINITY, r);
    r = ew_sel(x == 0.0f, -INFINITY, r);
    r = ew_sel((x < 0.0f) | (x != x), NAN, r);
    return r;
}

/* ln(1+u) for u >= 0 keeping relative accuracy for tiny u. */
static inline float ew_log1pf_pos(float u)
{
    float w = 1.0f + u, d = w - 1.0f;
    float r = ew_logf(w) * (u / ew_sel(d == 0.0f, 1.0f, d));
    return ew_sel(d == 0.0f, u, r);
}

static inline float ew_sigmoidf(float x)
{
    /* e^-|x| never overflows; mirror for negative x */
    float e = ew_expf(-fabsf(x));
    float s = 1.0f / (1.0f + e);
    return ew_sel(x >= 0.0f, s, e * s);
}

static inline float ew_tanhf(float x)
{
    float ax = fabsf(x), x2 = x * x;
    /* small |x|: odd Taylor series to x^17 (error < 1e-7 relative below 0.55) */
    float p = 0.00059002744f;
    p = p * x2 - 0.0014558344f;
    p = p * x2 + 0.0035921280f;
    p = p * x2 - 0.0088632355f;
    p = p * x2 + 0.021869488f;
    p = p * x2 - 0.053968254f;
    p = p * x2 + 0.13333334f;
    p = p * x2 - 0.33333334f;
    float small = x + x * x2 * p;
    float e = ew_expf(-2.0f * ax);                     /* in (0, 1]: no overflow */
    float big = (1.0f - e) / (1.0f + e);
    big = ew_sel(x < 0.0f, -big, big);
    return ew_sel(ax < 0.55f, small, big);
}

/* erf x: Taylor series near 0, Abramowitz-Stegun 7.1.26 beyond (|err| 1.5e-7). */
static inline float ew_erff(float x)
{
    float ax = fabsf(x), x2 = x * x;
    float p = -1.0f / 75600;                            /* sum (-1)^k x^(2k) / (k! (2k+1)) */
    p = p * x2 + 1.0f / 9360;
    p = p * x2 - 1.0f / 1320;
    p = p * x2 + 1.0f / 216;
    p = p * x2 - 1.0f / 42;
    p = p * x2 + 1.0f / 10;
    p = p * x2 - 1.0f / 3;
    p = p * x2 + 1.0f;
    float small = 1.1283791670955126f * x * p;
    float t = 1.0f / (1.0f + 0.3275911f * ax);
    float q = 1.061405429f;
    q = q * t - 1.453152027f;
    q = q * t + 1.421413741f;
    q = q * t - 0.284496736f;
    q = q * t + 0.254829592f;
    float big = 1.0f - q * t * ew_expf(-x2);
    big = ew_sel(x < 0.0f, -big, big);
    return ew_sel(ax < 0.5f, small, big);
}

/* ---- parameters handed to the loops ---- */
typedef struct ew_par ew_par;
typedef void (*ew_un_fn)(const void *x, void *y, size_t n, const ew_par *p);
typedef void (*ew_bin_fn)(const void *a, ptrdiff_t sa, const void *b, ptrdiff_t sb, void *y,
                          size_t n, const ew_par *p);
struct ew_par {
    float a, b, c;            /* float attributes (alpha, beta, ...) */
    int i0, i1;               /* int attributes */
    double da, db;            /* double-precision copies / bounds */
    int64_t il, ih;           /* integer bounds (Clip on signed types) */
    uint64_t ul, uh;          /* integer bounds (Clip on unsigned types) */
    /* adapters: the loop they wrap and the dtypes they convert */
    ew_un_fn un;
    ew_bin_fn bin;
    int dta, dtb, dty;
};

/* Adapters: convert chunks to float (halves) or double (anything), run the
 * wrapped loop (p->un / p->bin), convert back to p->dty. */
void ew_un_half(const void *x, void *y, size_t n, const ew_par *p);
void ew_un_dbl(const void *x, void *y, size_t n, const ew_par *p);
void ew_bin_half(const void *a, ptrdiff_t sa, const void *b, ptrdiff_t sb, void *y, size_t n,
                 const ew_par *p);
void ew_bin_dbl(const void *a, ptrdiff_t sa, const void *b, ptrdiff_t sb, void *y, size_t n,
                const ew_par *p);

/* ---- threading ---- */
/* Threads to use for `work` units when each thread should get at least
 * `grain` of them; 1 inside an enclosing parallel region. */
int ew_threads(const k_ctx *ctx, size_t work, size_t grain);

/* for (int64_t VAR = 0; VAR < N; VAR++) { body } split statically over `nt`
 * threads (a variable of that name at the use site); with nt <= 1 no OpenMP
 * region is entered at all, since even an if(0) region sets up a team
 * (~0.3 us), which the many small tensors of a model would pay. */
#define EW_PAR_FOR(VAR, N, ...)                                           \
    do {                                                                    \
        const int64_t ew_n_ = (N);                                          \
        if (nt <= 1) {                                                      \
            for (int64_t VAR = 0; VAR < ew_n_; VAR++) { __VA_ARGS__ }       \
        } else {                                                            \
            _Pragma("omp parallel for num_threads(nt) schedule(static)")   \
            for (int64_t VAR = 0; VAR < ew_n_; VAR++) { __VA_ARGS__ }       \
        }                                                                   \
    } while (0)

/* Flat unary driver: f over n elements, split in contiguous chunks. */
void ew_flat_run(ew_un_fn f, const void *x, size_t esx, void *y, size_t esy, size_t n,
                 const ew_par *p, const k_ctx *ctx, size_t grain);

/* ---- broadcasting ----
 * The output is iterated in its physical order (NHWC when its layout says
 * so); each input gets an element stride per output dim (0 = broadcast).
 * Size-1 dims are dropped and adjacent dims merged where every stride
 * allows, so same-shape, scalar, row and channel broadcasts all end in an
 * inner loop whose strides are 0 or 1. */
typedef struct ew_bc {
    int rank;                     /* >= 1 */
    int64_t d[G_MAX_RANK];
    int64_t st[2][G_MAX_RANK];
} ew_bc;
/* Logical-order element strides of t (honours a 4-D NHWC layout). */
void ew_strides(const k_tensor *t, int64_t *st);
int ew_bc_plan(ew_bc *bc, const k_tensor *y, const k_tensor *a, const k_tensor *b);
void ew_bc_run(const ew_bc *bc, ew_bin_fn f, const void *a, size_t esa, const void *b,
               size_t esb, void *y, size_t esy, const ew_par *p, const k_ctx *ctx, size_t grain);

/* Output layout for a broadcasting op: NHWC when the output is 4-D and some
 * 4-D input arrives NHWC. */
int ew_bc_layout(const k_tensor *in, int nin, const g_shape *out);

/* ---- axis helpers ---- */
/* Normalise a possibly negative axis against rank r; -1 when out of range. */
static inline int ew_axis(int64_t a, int r) { if (a < 0) a += r; return a >= 0 && a < r ? (int)a : -1; }
/* [outer, d[a0..a1), inner] split of a shape. */
static inline void ew_split3(const g_shape *s, int a0, int a1, int64_t *o, int64_t *r, int64_t *in)
{
    int64_t x = 1, y = 1, z = 1;
    for (int i = 0; i < a0; i++) x *= s->d[i];
    for (int i = a0; i < a1; i++) y *= s->d[i];
    for (int i = a1; i < s->rank; i++) z *= s->d[i];
    *o = x; *r = y; *in = z;
}

void ew_fini_free(void *state);
int ew_layout_any(const g_node *n, void *state, int idx, int layout);
/* y = x * k + b over m floats (k, b scalars, or per element for _ch), then
 * max(., 0) when relu: the per-channel affine of the normalisations */
void ew_affine_f32(const float *x, float *y, int64_t m, float k, float b, int relu);
void ew_affine_ch_f32(const float *x, float *y, int64_t m, const float *k, const float *b, int relu);

/* Loop annotations. Clones: the float32 loops get AVX2/AVX-512 versions
 * picked at load time (ifunc), since the library is built for baseline x86-64. */
#define EW_SIMD _Pragma("omp simd")
#define EW_PRAGMA(x) _Pragma(#x)
#define EW_SIMD_RED(op, v) EW_PRAGMA(omp simd reduction(op : v))
#define EW_SIMD_RED2(op, v, op2, v2) EW_PRAGMA(omp simd reduction(op : v) reduction(op2 : v2))
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define EW_CLONE __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EW_CLONE
#endif

/* Minimum work per thread (elements) for cheap / expensive element ops. */
#define EW_GRAIN_CHEAP  (1u << 15)
#define EW_GRAIN_MATH   (1u << 12)

#endif
