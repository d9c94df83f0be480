/* Reference unary elementwise ops (math, activations, predicates) as one
 * table: per op the dtypes it takes, its float attributes and a loop per
 * element type. float16/bfloat16 run through the float32 loop in chunks;
 * integer types without a loop of their own run through the double loop.
 * The data is processed flat, so any layout is accepted and kept. */
#include "kernels/ref/ew_common.h"
#include <float.h>
#include <stdlib.h>

/* ---- loop generators ---- */
#define UN_LOOP(ATTR, FN, T, TY, EXPR)                                             \
    ATTR static void FN(const void *xv, void *yv, size_t n, const ew_par *p)      \
    {                                                                              \
        const T *X = (const T *)xv;                                                \
        TY *Y = (TY *)yv;                                                          \
        (void)p;                                                                   \
        EW_SIMD for (size_t i = 0; i < n; i++) {                                   \
            const T x = X[i];                                                      \
            Y[i] = (TY)(EXPR);                                                     \
        }                                                                          \
    }
#define UN_F(NAME, E32, E64) \
    UN_LOOP(EW_CLONE, NAME##_f32, float, float, E32) UN_LOOP(, NAME##_f64, double, double, E64)
#define UN_FB(NAME, E32, E64) \
    UN_LOOP(, NAME##_f32, float, uint8_t, E32) UN_LOOP(, NAME##_f64, double, uint8_t, E64)
#define UN_S(NAME, EXPR)                                                                     \
    UN_LOOP(, NAME##_i8, int8_t, int8_t, EXPR) UN_LOOP(, NAME##_i16, int16_t, int16_t, EXPR) \
    UN_LOOP(, NAME##_i32, int32_t, int32_t, EXPR) UN_LOOP(, NAME##_i64, int64_t, int64_t, EXPR)
#define UN_U(NAME, EXPR)                                                                         \
    UN_LOOP(, NAME##_u8, uint8_t, uint8_t, EXPR) UN_LOOP(, NAME##_u16, uint16_t, uint16_t, EXPR) \
    UN_LOOP(, NAME##_u32, uint32_t, uint32_t, EXPR) UN_LOOP(, NAME##_u64, uint64_t, uint64_t, EXPR)

#define FN_F(NAME) [G_F32] = NAME##_f32, [G_F64] = NAME##_f64
#define FN_S(NAME) [G_I8] = NAME##_i8, [G_I16] = NAME##_i16, [G_I32] = NAME##_i32, [G_I64] = NAME##_i64
#define FN_U(NAME) [G_U8] = NAME##_u8, [G_U16] = NAME##_u16, [G_U32] = NAME##_u32, [G_U64] = NAME##_u64

/* ---- scalar helpers for the less trivial activations ---- */
static inline float hsig_f(float x, float a, float b)
{
    return ew_minf(ew_maxf(a * x + b, 0.0f), 1.0f);
}
static inline double hsig_d(double x, double a, double b)
{
    double v = a * x + b;
    v = v < 0.0 ? 0.0 : v;
    return v > 1.0 ? 1.0 : v;
}
static inline float softplus_f(float x)
{
    return ew_maxf(x, 0.0f) + ew_log1pf_pos(ew_expf(-fabsf(x)));
}
static inline double softplus_d(double x)
{
    return (x > 0.0 ? x : 0.0) + log1p(exp(-fabs(x)));
}
/* Gelu: exact (erf) and tanh-approximated forms */
static inline float gelu_f(float x) { return 0.5f * x * (1.0f + ew_erff(x * 0.7071067811865476f)); }
static inline double gelu_d(double x) { return 0.5 * x * (1.0 + erf(x * 0.7071067811865476)); }
static inline float gelut_f(float x)
{
    return 0.5f * x * (1.0f + ew_tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
static inline double gelut_d(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
/* x * tanh(softplus x) = x * n / (n + 2) with n = e^x (e^x + 2) */
static inline float mish_f(float x)
{
    float e = ew_expf(ew_minf(x, 20.0f));
    float nn = e * (e + 2.0f);
    return ew_sel(x >= 20.0f, x, x * nn / (nn + 2.0f));
}
static inline float shrink_f(float x, float l, float b)
{
    return ew_sel(x < -l, x + b, ew_sel(x > l, x - b, 0.0f));
}
static inline double shrink_d(double x, double l, double b)
{
    return x < -l ? x + b : (x > l ? x - b : 0.0);
}
static inline float celu_f(float x, float a)
{
    float neg = a * (ew_expf(x / a) - 1.0f);
    return ew_maxf(x, 0.0f) + ew_minf(neg, 0.0f);
}
static inline double celu_d(double x, double a)
{
    double neg = a * expm1(x / a);
    return (x > 0.0 ? x : 0.0) + (neg < 0.0 ? neg : 0.0);
}

/* ---- the loops ---- */
UN_F(abs, fabsf(x), fabs(x))
UN_S(abs, x < 0 ? 0 - (uint64_t)x : (uint64_t)x)
UN_U(abs, x)
UN_F(neg, -x, -x)
UN_S(neg, 0 - (uint64_t)x)
UN_F(exp, ew_expf(x), exp(x))
UN_F(log, ew_logf(x), log(x))
UN_F(sqrt, sqrtf(x), sqrt(x))
UN_F(recip, 1.0f / x, 1.0 / x)
UN_F(floor, floorf(x), floor(x))
UN_F(ceil, ceilf(x), ceil(x))
UN_F(round, rintf(x), rint(x))   /* default rounding mode: half to even */
UN_F(sign, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x), x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x))
UN_S(sign, (x > 0) - (x < 0))
UN_U(sign, x > 0)
UN_F(sin, sinf(x), sin(x))
UN_F(cos, cosf(x), cos(x))
UN_F(tan, tanf(x), tan(x))
UN_F(asin, asinf(x), asin(x))
UN_F(acos, acosf(x), acos(x))
UN_F(atan, atanf(x), atan(x))
UN_F(sinh, sinhf(x), sinh(x))
UN_F(cosh, coshf(x), cosh(x))
UN_F(asinh, asinhf(x), asinh(x))
UN_F(acosh, acoshf(x), acosh(x))
UN_F(atanh, atanhf(x), atanh(x))
UN_F(erf, ew_erff(x), erf(x))
UN_LOOP(, not_b, uint8_t, uint8_t, x == 0)
UN_FB(isnan, x != x, x != x)
UN_FB(isinf, (p->i0 && x == INFINITY) || (p->i1 && x == -INFINITY),
      (p->i0 && x == INFINITY) || (p->i1 && x == -INFINITY))
UN_S(bnot, ~(uint64_t)x)
UN_U(bnot, ~(uint64_t)x)
UN_F(relu, x < 0.0f ? 0.0f : x, x < 0.0 ? 0.0 : x)
UN_S(relu, x < 0 ? 0 : x)
UN_F(lrelu, ew_sel(x < 0.0f, x * p->a, x), x < 0.0 ? x * p->a : x)
UN_F(elu, ew_sel(x < 0.0f, p->a * (ew_expf(x) - 1.0f), x), x < 0.0 ? p->a * expm1(x) : x)
UN_F(selu, p->b * ew_sel(x <= 0.0f, p->a * (ew_expf(x) - 1.0f), x),
     (double)p->b * (x <= 0.0 ? p->a * expm1(x) : x))
UN_F(celu, celu_f(x, p->a), celu_d(x, p->a))
UN_F(sigmoid, ew_sigmoidf(x), 1.0 / (1.0 + exp(-x)))
UN_F(hsig, hsig_f(x, p->a, p->b), hsig_d(x, p->a, p->b))
UN_F(hswish, x * hsig_f(x, 1.0f / 6.0f, 0.5f), x * hsig_d(x, 1.0 / 6.0, 0.5))
UN_F(softplus, softplus_f(x), softplus_d(x))
UN_F(softsign, x / (1.0f + fabsf(x)), x / (1.0 + fabs(x)))
UN_F(tanh, ew_tanhf(x), tanh(x))
UN_F(trelu, x > p->a ? x : 0.0f, x > p->a ? x : 0.0)
UN_F(gelu, gelu_f(x), gelu_d(x))
UN_F(gelut, gelut_f(x), gelut_d(x))
UN_F(mish, mish_f(x), x * tanh(softplus_d(x)))
UN_F(shrink, shrink_f(x, p->a, p->b), shrink_d(x, p->a, p->b))

/* ---- the table ---- */
typedef struct un_desc {
    const char *op;
    unsigned types;
    int out_bool;
    unsigned grain;
    const char *an[2];        /* float attributes read into par.a / par.b */
    float ad[2];              /* their defaults */
    ew_un_fn fn[EW_NDT];
} un_desc;

#define C EW_GRAIN_CHEAP
#define M EW_GRAIN_MATH
static const un_desc un_tab[] = {
    { "Abs", EW_MNUM, 0, C, { 0 }, { 0 }, { FN_F(abs), FN_S(abs), FN_U(abs) } },
    { "Neg", EW_MFLT | EW_MSINT, 0, C, { 0 }, { 0 }, { FN_F(neg), FN_S(neg) } },
    { "Exp", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(exp) } },
    { "Log", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(log) } },
    { "Sqrt", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(sqrt) } },
    { "Reciprocal", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(recip) } },
    { "Floor", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(floor) } },
    { "Ceil", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(ceil) } },
    { "Round", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(round) } },
    { "Sign", EW_MNUM, 0, C, { 0 }, { 0 }, { FN_F(sign), FN_S(sign), FN_U(sign) } },
    { "Sin", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(sin) } },
    { "Cos", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(cos) } },
    { "Tan", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(tan) } },
    { "Asin", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(asin) } },
    { "Acos", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(acos) } },
    { "Atan", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(atan) } },
    { "Sinh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(sinh) } },
    { "Cosh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(cosh) } },
    { "Asinh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(asinh) } },
    { "Acosh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(acosh) } },
    { "Atanh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(atanh) } },
    { "Erf", EW_MNUM, 0, M, { 0 }, { 0 }, { FN_F(erf) } },
    { "Not", EW_MBOOL, 1, C, { 0 }, { 0 }, { [G_BOOL] = not_b } },
    { "IsNaN", EW_MFLT, 1, C, { 0 }, { 0 }, { FN_F(isnan) } },
    { "IsInf", EW_MFLT, 1, C, { 0 }, { 0 }, { FN_F(isinf) } },
    { "BitwiseNot", EW_MINT, 0, C, { 0 }, { 0 }, { FN_S(bnot), FN_U(bnot) } },
    { "Relu", EW_MFLT | EW_MSINT, 0, C, { 0 }, { 0 }, { FN_F(relu), FN_S(relu) } },
    { "LeakyRelu", EW_MFLT, 0, C, { "alpha" }, { 0.01f }, { FN_F(lrelu) } },
    { "Elu", EW_MFLT, 0, M, { "alpha" }, { 1.0f }, { FN_F(elu) } },
    { "Selu", EW_MFLT, 0, M, { "alpha", "gamma" },
      { 1.67326319217681884765625f, 1.05070102214813232421875f }, { FN_F(selu) } },
    { "Celu", EW_MFLT, 0, M, { "alpha" }, { 1.0f }, { FN_F(celu) } },
    { "Sigmoid", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(sigmoid) } },
    { "HardSigmoid", EW_MFLT, 0, C, { "alpha", "beta" }, { 0.2f, 0.5f }, { FN_F(hsig) } },
    { "HardSwish", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(hswish) } },
    { "Softplus", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(softplus) } },
    { "Softsign", EW_MFLT, 0, C, { 0 }, { 0 }, { FN_F(softsign) } },
    { "Tanh", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(tanh) } },
    { "ThresholdedRelu", EW_MFLT, 0, C, { "alpha" }, { 1.0f }, { FN_F(trelu) } },
    { "Gelu", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(gelu) } },
    { "Mish", EW_MFLT, 0, M, { 0 }, { 0 }, { FN_F(mish) } },
    { "Shrink", EW_MNUM, 0, C, { "lambd", "bias" }, { 0.5f, 0.0f }, { FN_F(shrink) } },
};
#undef C
#undef M

typedef struct un_state {
    const un_desc *d;
    int dt;
    ew_un_fn f;
    ew_par par;
} un_state;

static const un_desc *un_lookup(const char *op)
{
    for (size_t i = 0; i < sizeof un_tab / sizeof un_tab[0]; i++)
        if (!strcmp(un_tab[i].op, op)) return &un_tab[i];
    return NULL;
}

static int un_init(g_graph *g, g_node *n, void **state)
{
    const un_desc *d = un_lookup(n->op_type);
    if (!d) return K_DECLINE;
    if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1)
        return ew_fail(n, EW_EINVAL, "expects 1 input and 1 output, got %d and %d", n->n_in, n->n_out);
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, d->types);
    if (rc) return rc;
    un_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->d = d;
    s->dt = dt;
    for (int k = 0; k < 2; k++) {
        float v = d->ad[k];
        if (d->an[k]) v = g_attr_float(n, d->an[k], v);
        if (k == 0) s->par.a = v; else s->par.b = v;
    }
    if (!strcmp(d->op, "IsInf")) {
        s->par.i0 = g_attr_int(n, "detect_positive", 1) != 0;
        s->par.i1 = g_attr_int(n, "detect_negative", 1) != 0;
    } else if (!strcmp(d->op, "Gelu")) {
        const char *mode = g_attr_str(n, "approximate", "none");
        if (strcmp(mode, "none") && strcmp(mode, "tanh")) {
            free(s);
            return ew_fail(n, EW_EUNSUP, "approximate='%s' (expected 'none' or 'tanh')", mode);
        }
        s->par.i0 = !strcmp(mode, "tanh");
    } else if (!strcmp(d->op, "Celu") && s->par.a == 0.0f) {
        free(s);
        return ew_fail(n, EW_EINVAL, "alpha must not be 0");
    }
    static const ew_un_fn gelut_fn[EW_NDT] = { FN_F(gelut) };
    const ew_un_fn *fn = d->fn;
    if (!strcmp(d->op, "Gelu") && s->par.i0) fn = gelut_fn;
    s->par.dta = dt;
    s->par.dty = d->out_bool ? G_BOOL : dt;
    if (fn[dt]) {
        s->f = fn[dt];
    } else if (ew_is_half(dt) && fn[G_F32]) {
        s->par.un = fn[G_F32];
        s->f = ew_un_half;
    } else if (fn[G_F64]) {
        s->par.un = fn[G_F64];
        s->f = ew_un_dbl;
    } else {
        free(s);
        return ew_check_type(n, 0, dt, 0);
    }
    *state = s;
    return 0;
}

static int un_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    un_state *s = state;
    if (in[0].dtype != s->dt)
        return ew_fail(n, EW_ETYPE, "input 0 is %s at run time but %s at load",
                       g_dtype_name(in[0].dtype), g_dtype_name(s->dt));
    out[0].dtype = s->par.dty;
    out[0].shape = in[0].shape;
    out[0].layout = in[0].layout;
    return 0;
}

static int un_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                  const k_ctx *ctx)
{
    un_state *s = state;
    int64_t ne = g_shape_numel(&out[0].shape);
    if (ne <= 0) return 0;
    ew_flat_run(s->f, in[0].data, g_dtype_size(s->dt), out[0].data, g_dtype_size(s->par.dty),
                (size_t)ne, &s->par, ctx, s->d->grain);
    return 0;
}

#define UN_OP(var, name, since)                                                          \
    static const k_op var = { name, "", since, 0, "ref", 0, un_init, un_infer, NULL, NULL, \
                              un_run, ew_fini_free, ew_layout_any };                     \
    K_REGISTER(var);

UN_OP(k_abs, "Abs", 1)
UN_OP(k_neg, "Neg", 1)
UN_OP(k_exp, "Exp", 1)
UN_OP(k_log, "Log", 1)
UN_OP(k_sqrt, "Sqrt", 1)
UN_OP(k_recip, "Reciprocal", 1)
UN_OP(k_floor, "Floor", 1)
UN_OP(k_ceil, "Ceil", 1)
UN_OP(k_round, "Round", 11)
UN_OP(k_sign, "Sign", 9)
UN_OP(k_sin, "Sin", 7)
UN_OP(k_cos, "Cos", 7)
UN_OP(k_tan, "Tan", 7)
UN_OP(k_asin, "Asin", 7)
UN_OP(k_acos, "Acos", 7)
UN_OP(k_atan, "Atan", 7)
UN_OP(k_sinh, "Sinh", 9)
UN_OP(k_cosh, "Cosh", 9)
UN_OP(k_asinh, "Asinh", 9)
UN_OP(k_acosh, "Acosh", 9)
UN_OP(k_atanh, "Atanh", 9)
UN_OP(k_erf, "Erf", 9)
UN_OP(k_not, "Not", 1)
UN_OP(k_isnan, "IsNaN", 9)
UN_OP(k_isinf, "IsInf", 10)
UN_OP(k_bnot, "BitwiseNot", 18)
UN_OP(k_relu, "Relu", 1)
UN_OP(k_lrelu, "LeakyRelu", 1)
UN_OP(k_elu, "Elu", 1)
UN_OP(k_selu, "Selu", 1)
UN_OP(k_celu, "Celu", 12)
UN_OP(k_sigmoid, "Sigmoid", 1)
UN_OP(k_hsig, "HardSigmoid", 1)
UN_OP(k_hswish, "HardSwish", 14)
UN_OP(k_softplus, "Softplus", 1)
UN_OP(k_softsign, "Softsign", 1)
UN_OP(k_tanh, "Tanh", 1)
UN_OP(k_trelu, "ThresholdedRelu", 10)
UN_OP(k_gelu, "Gelu", 20)
UN_OP(k_mish, "Mish", 18)
UN_OP(k_shrink, "Shrink", 9)

/* ---- Clip: bounds are attributes before opset 11, optional scalar inputs
 * from 11 on (integer types from 12). min > max clamps everything to max. ---- */
UN_LOOP(EW_CLONE, clip_f32, float, float, ew_minf(ew_maxf(x, p->a), p->b))
UN_LOOP(, clip_f64, double, double, x < p->da ? p->da : (x > p->db ? p->db : x))
UN_S(clip, x < p->il ? p->il : (x > p->ih ? p->ih : x))
UN_U(clip, x < p->ul ? p->ul : (x > p->uh ? p->uh : x))
static const ew_un_fn clip_fn[EW_NDT] = { FN_F(clip), FN_S(clip), FN_U(clip) };

typedef struct clip_state {
    int dt;
    int from_inputs;
    float amin, amax;         /* opset < 11 */
} clip_state;

static int clip_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, n->opset >= 12 ? EW_MNUM : EW_MFLT);
    if (rc) return rc;
    for (int i = 1; i < n->n_in && i < 3; i++) {
        int bt = ew_gdtype(g, n, i);
        if (bt != G_UNDEF && bt != dt)
            return ew_fail(n, EW_ETYPE, "input %d is %s but the data is %s (must match)", i,
                           g_dtype_name(bt), g_dtype_name(dt));
    }
    clip_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->from_inputs = n->opset >= 11;
    s->amin = g_attr_float(n, "min", -INFINITY);
    s->amax = g_attr_float(n, "max", INFINITY);
    *state = s;
    return 0;
}

static int same_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    if (n->n_in < 1 || in[0].dtype == G_UNDEF)
        return ew_fail(n, EW_EINVAL, "input 0 is missing");
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = in[0].layout;
    return 0;
}

static int clip_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    clip_state *s = state;
    int dt = s->dt;
    int64_t ne = g_shape_numel(&out[0].shape);
    if (ne <= 0) return 0;
    ew_par p;
    memset(&p, 0, sizeof p);
    int has_lo = 0, has_hi = 0;
    const k_tensor *tlo = NULL, *thi = NULL;
    if (s->from_inputs) {
        if (ew_has(n, in, 1) && g_shape_numel(&in[1].shape) > 0) { tlo = &in[1]; has_lo = 1; }
        if (ew_has(n, in, 2) && g_shape_numel(&in[2].shape) > 0) { thi = &in[2]; has_hi = 1; }
    }
    if (ew_is_float(dt)) {
        double lo = -INFINITY, hi = INFINITY;
        if (!s->from_inputs) { lo = s->amin; hi = s->amax; }
        if (has_lo) lo = ew_ld(tlo->data, tlo->dtype, 0);
        if (has_hi) hi = ew_ld(thi->data, thi->dtype, 0);
        if (lo > hi) lo = hi;
        p.da = lo; p.db = hi;
        p.a = (float)lo; p.b = (float)hi;
    } else if (ew_is_sint(dt)) {
        int64_t tmin = dt == G_I8 ? INT8_MIN : dt == G_I16 ? INT16_MIN : dt == G_I32 ? INT32_MIN : INT64_MIN;
        int64_t tmax = dt == G_I8 ? INT8_MAX : dt == G_I16 ? INT16_MAX : dt == G_I32 ? INT32_MAX : INT64_MAX;
        p.il = has_lo ? ew_ldi(tlo->data, tlo->dtype, 0) : tmin;
        p.ih = has_hi ? ew_ldi(thi->data, thi->dtype, 0) : tmax;
        if (p.il > p.ih) p.il = p.ih;
    } else {
        p.ul = has_lo ? (uint64_t)ew_ldi(tlo->data, tlo->dtype, 0) : 0;
        p.uh = has_hi ? (uint64_t)ew_ldi(thi->data, thi->dtype, 0) : UINT64_MAX;
        if (p.ul > p.uh) p.ul = p.uh;
    }
    ew_un_fn f = clip_fn[dt];
    if (!f) {               /* halves */
        p.un = clip_fn[G_F32];
        p.dta = p.dty = dt;
        f = ew_un_half;
    }
    size_t es = g_dtype_size(dt);
    ew_flat_run(f, in[0].data, es, out[0].data, es, (size_t)ne, &p, ctx, EW_GRAIN_CHEAP);
    return 0;
}

static const k_op k_clip = { "Clip", "", 1, 0, "ref", 0, clip_init, same_infer, NULL, NULL,
                             clip_run, ew_fini_free, ew_layout_any };
K_REGISTER(k_clip);

/* ---- Identity and Dropout (inference: a copy; the mask is all true) ---- */
typedef struct copy_state {
    int mask_bool;            /* Dropout >= 10: mask is bool, else the data type */
    int check_train;          /* Dropout >= 12: training_mode input may be set at run time */
} copy_state;

static int copy_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0);
    if (g_dtype_size(dt) == 0)
        return ew_fail(n, EW_ETYPE, "input 0 has data type %s; only fixed-size tensors are supported",
                       dt == G_UNDEF ? "undefined (sequence/optional?)" : g_dtype_name(dt));
    copy_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    if (!strcmp(n->op_type, "Dropout")) {
        s->mask_bool = n->opset >= 10;
        if (n->opset < 7 && g_attr_int(n, "is_test", 0) == 0 && g_attr_float(n, "ratio", 0.5f) != 0.0f) {
            free(s);
            return ew_fail(n, EW_EUNSUP, "training-mode dropout (is_test=0) is not supported");
        }
        if (n->opset >= 12 && n->n_in > 2 && n->in[2] >= 0) {
            const g_tensor *tm = ew_gconst(g, n, 2), *tr = ew_gconst(g, n, 1);
            double ratio = 0.5;
            int ratio_known = n->n_in < 2 || n->in[1] < 0;
            if (tr && g_shape_numel(&tr->shape) > 0) {
                ratio = ew_ld(tr->data, tr->dtype, 0);
                ratio_known = 1;
            }
            if (tm && g_shape_numel(&tm->shape) > 0 && ratio_known) {
                if (ew_ld(tm->data, tm->dtype, 0) != 0.0 && ratio != 0.0) {
                    free(s);
                    return ew_fail(n, EW_EUNSUP, "training_mode=true with ratio %g: random dropout "
                                   "is not supported (inference only)", ratio);
                }
            } else {
                s->check_train = 1;   /* decided by the values at run time */
            }
        }
    }
    *state = s;
    return 0;
}

static int copy_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    copy_state *s = state;
    int rc = same_infer(n, state, in, out);
    if (rc) return rc;
    if (n->n_out > 1) {
        out[1].dtype = s->mask_bool ? G_BOOL : in[0].dtype;
        out[1].shape = in[0].shape;
        out[1].layout = in[0].layout;
    }
    return 0;
}

static int copy_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    copy_state *s = state;
    (void)ctx;
    if (s->check_train && ew_has(n, in, 2) && in[2].data && g_shape_numel(&in[2].shape) > 0 &&
        ew_ld(in[2].data, in[2].dtype, 0) != 0.0) {
        int ok = 0;
        double ratio = ew_has(n, in, 1) ? ew_scalar(&in[1], &ok) : 0.5;
        if (!ok && !ew_has(n, in, 1)) ratio = 0.5;
        if (ratio != 0.0)
            return ew_fail(n, EW_EUNSUP, "training_mode=true with ratio %g at run time: random "
                           "dropout is not supported (inference only)", ratio);
    }
    size_t nb = k_nbytes(&out[0]);
    if (nb && out[0].data != in[0].data) memmove(out[0].data, in[0].data, nb);
    if (n->n_out > 1 && ew_want(n, 1) && out[1].data) {
        int64_t ne = g_shape_numel(&out[1].shape);
        if (out[1].dtype == G_BOOL) {
            memset(out[1].data, 1, (size_t)(ne > 0 ? ne : 0));
        } else {
            for (int64_t i = 0; i < ne; i++) ew_st(out[1].data, out[1].dtype, (size_t)i, 1.0);
        }
    }
    return 0;
}

static const k_op k_identity = { "Identity", "", 1, 0, "ref", 0, copy_init, copy_infer, NULL, NULL,
                                 copy_run, ew_fini_free, ew_layout_any };
K_REGISTER(k_identity);
static const k_op k_dropout = { "Dropout", "", 1, 0, "ref", 0, copy_init, copy_infer, NULL, NULL,
                                copy_run, ew_fini_free, ew_layout_any };
K_REGISTER(k_dropout);
