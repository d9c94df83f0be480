/* Reference binary and variadic elementwise ops with NumPy broadcasting:
 * arithmetic, Pow (mixed types), Mod, Max/Min/Sum/Mean, comparisons,
 * logic, bit ops and PRelu. One table names each op's dtypes and its loop per
 * element type; every loop has contiguous, scalar-operand and strided forms
 * and the broadcast driver (ew_bc_run) feeds it inner rows. Inputs may arrive
 * NHWC: the driver walks the output in its physical order. */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

#define BIN_LOOP(ATTR, FN, T, TY, EXPR)                                                     \
    ATTR static void FN(const void *av, ptrdiff_t sa, const void *bv, ptrdiff_t sb, void *yv, \
                        size_t n, const ew_par *p)                                        \
    {                                                                                     \
        const T *A = (const T *)av, *B = (const T *)bv;                                   \
        TY *Y = (TY *)yv;                                                                 \
        (void)p;                                                                          \
        if (sa == 1 && sb == 1) {                                                         \
            EW_SIMD for (size_t i = 0; i < n; i++) {                                      \
                const T a = A[i], b = B[i];                                               \
                Y[i] = (TY)(EXPR);                                                        \
            }                                                                             \
        } else if (sa == 1 && sb == 0) {                                                  \
            const T b = B[0];                                                             \
            EW_SIMD for (size_t i = 0; i < n; i++) {                                      \
                const T a = A[i];                                                         \
                Y[i] = (TY)(EXPR);                                                        \
            }                                                                             \
        } else if (sa == 0 && sb == 1) {                                                  \
            const T a = A[0];                                                             \
            EW_SIMD for (size_t i = 0; i < n; i++) {                                      \
                const T b = B[i];                                                         \
                Y[i] = (TY)(EXPR);                                                        \
            }                                                                             \
        } else {                                                                          \
            for (size_t i = 0; i < n; i++) {                                              \
                const T a = A[(ptrdiff_t)i * sa], b = B[(ptrdiff_t)i * sb];               \
                Y[i] = (TY)(EXPR);                                                        \
            }                                                                             \
        }                                                                                 \
    }
#define BIN_F(NAME, E32, E64) \
    BIN_LOOP(EW_CLONE, NAME##_f32, float, float, E32) BIN_LOOP(, NAME##_f64, double, double, E64)
#define BIN_FB(NAME, E) \
    BIN_LOOP(, NAME##_f32, float, uint8_t, E) BIN_LOOP(, NAME##_f64, double, uint8_t, E)
#define BIN_S(NAME, EXPR)                                                                       \
    BIN_LOOP(, NAME##_i8, int8_t, int8_t, EXPR) BIN_LOOP(, NAME##_i16, int16_t, int16_t, EXPR)  \
    BIN_LOOP(, NAME##_i32, int32_t, int32_t, EXPR) BIN_LOOP(, NAME##_i64, int64_t, int64_t, EXPR)
#define BIN_U(NAME, EXPR)                                                                           \
    BIN_LOOP(, NAME##_u8, uint8_t, uint8_t, EXPR) BIN_LOOP(, NAME##_u16, uint16_t, uint16_t, EXPR)  \
    BIN_LOOP(, NAME##_u32, uint32_t, uint32_t, EXPR) BIN_LOOP(, NAME##_u64, uint64_t, uint64_t, EXPR)
#define BIN_SB(NAME, EXPR)                                                                      \
    BIN_LOOP(, NAME##_i8, int8_t, uint8_t, EXPR) BIN_LOOP(, NAME##_i16, int16_t, uint8_t, EXPR) \
    BIN_LOOP(, NAME##_i32, int32_t, uint8_t, EXPR) BIN_LOOP(, NAME##_i64, int64_t, uint8_t, EXPR)
#define BIN_UB(NAME, EXPR)                                                                        \
    BIN_LOOP(, NAME##_u8, uint8_t, uint8_t, EXPR) BIN_LOOP(, NAME##_u16, uint16_t, uint8_t, EXPR) \
    BIN_LOOP(, NAME##_u32, uint32_t, uint8_t, EXPR) BIN_LOOP(, NAME##_u64, uint64_t, uint8_t, EXPR)

#define FN_F(NAME) [G_F32] = NAME##_f32, [G_F64] = NAME##_f64
#define FN_S(NAME) [G_I8] = NAME##_i8, [G_I16] = NAME##_i16, [G_I32] = NAME##_i32, [G_I64] = NAME##_i64
#define FN_U(NAME) [G_U8] = NAME##_u8, [G_U16] = NAME##_u16, [G_U32] = NAME##_u32, [G_U64] = NAME##_u64
#define FN_NUM(NAME) FN_F(NAME), FN_S(NAME), FN_U(NAME)

/* Integer helpers: wrap-around arithmetic (through uint64), division and
 * remainder defined for every operand (x/0 = 0, MIN/-1 wraps). */
static inline int64_t sdiv(int64_t a, int64_t b)
{
    return b == 0 ? 0 : b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}
static inline int64_t smod_c(int64_t a, int64_t b) { return (b == 0 || b == -1) ? 0 : a % b; }
static inline int64_t smod_py(int64_t a, int64_t b)
{
    int64_t r = smod_c(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline uint64_t udiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
static inline uint64_t umod(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }
static inline int64_t spow(int64_t a, int64_t b)
{
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    for (; b; b >>= 1, x *= x)
        if (b & 1) r *= x;
    return (int64_t)r;
}
static inline uint64_t upow(uint64_t a, uint64_t b)
{
    uint64_t r = 1;
    for (; b; b >>= 1, a *= a)
        if (b & 1) r *= a;
    return r;
}
static inline uint64_t ushl(uint64_t a, uint64_t b, unsigned bits) { return b >= bits ? 0 : a << b; }
static inline uint64_t ushr(uint64_t a, uint64_t b, unsigned bits) { return b >= bits ? 0 : a >> b; }

/* NaN-propagating max/min (as NumPy's maximum/minimum) */
#define FMAX(a, b) ((a) > (b) ? (a) : ((b) != (b) ? (b) : ((a) != (a) ? (a) : (b))))
#define FMIN(a, b) ((a) < (b) ? (a) : ((b) != (b) ? (b) : ((a) != (a) ? (a) : (b))))
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))
#define WRAP(a, OP, b) ((uint64_t)(a) OP (uint64_t)(b))

BIN_F(add, a + b, a + b)
BIN_S(add, WRAP(a, +, b))
BIN_U(add, WRAP(a, +, b))
BIN_F(sub, a - b, a - b)
BIN_S(sub, WRAP(a, -, b))
BIN_U(sub, WRAP(a, -, b))
BIN_F(mul, a * b, a * b)
BIN_S(mul, WRAP(a, *, b))
BIN_U(mul, WRAP(a, *, b))
BIN_F(div, a / b, a / b)
BIN_S(div, sdiv(a, b))
BIN_U(div, udiv(a, b))
BIN_F(fmod, fmodf(a, b), fmod(a, b))
BIN_S(fmod, smod_c(a, b))
BIN_U(fmod, umod(a, b))
BIN_S(mod, smod_py(a, b))
BIN_F(max, FMAX(a, b), FMAX(a, b))
BIN_S(max, IMAX(a, b))
BIN_U(max, IMAX(a, b))
BIN_F(min, FMIN(a, b), FMIN(a, b))
BIN_S(min, IMIN(a, b))
BIN_U(min, IMIN(a, b))
BIN_F(prelu, ew_sel(a < 0.0f, a * b, a), a < 0.0 ? a * b : a)
BIN_S(prelu, a < 0 ? WRAP(a, *, b) : (uint64_t)a)
BIN_U(prelu, ((void)b, a))
BIN_FB(eq, a == b)
BIN_SB(eq, a == b)
BIN_UB(eq, a == b)
BIN_FB(gt, a > b)
BIN_SB(gt, a > b)
BIN_UB(gt, a > b)
BIN_FB(lt, a < b)
BIN_SB(lt, a < b)
BIN_UB(lt, a < b)
BIN_FB(ge, a >= b)
BIN_SB(ge, a >= b)
BIN_UB(ge, a >= b)
BIN_FB(le, a <= b)
BIN_SB(le, a <= b)
BIN_UB(le, a <= b)
BIN_LOOP(, and_b, uint8_t, uint8_t, (a != 0) & (b != 0))
BIN_LOOP(, or_b, uint8_t, uint8_t, (a != 0) | (b != 0))
BIN_LOOP(, xor_b, uint8_t, uint8_t, (a != 0) ^ (b != 0))
BIN_S(band, WRAP(a, &, b))
BIN_U(band, WRAP(a, &, b))
BIN_S(bor, WRAP(a, |, b))
BIN_U(bor, WRAP(a, |, b))
BIN_S(bxor, WRAP(a, ^, b))
BIN_U(bxor, WRAP(a, ^, b))
BIN_U(shl, ushl(a, b, 8 * sizeof a))
BIN_U(shr, ushr(a, b, 8 * sizeof a))
BIN_S(ipow, spow(a, b))
BIN_U(ipow, upow(a, b))
BIN_LOOP(, pow_f64, double, double, pow(a, b))

/* float32 Pow: the exponents models use as constants get exact fast forms */
EW_CLONE static void pow_f32(const void *av, ptrdiff_t sa, const void *bv, ptrdiff_t sb,
                             void *yv, size_t n, const ew_par *p)
{
    const float *A = av, *B = bv;
    float *Y = yv;
    (void)p;
    if (sa == 1 && sb == 0) {
        const float b = B[0];
        if (b == 2.0f) {
            EW_SIMD for (size_t i = 0; i < n; i++) Y[i] = A[i] * A[i];
            return;
        }
        if (b == 1.0f) {
            EW_SIMD for (size_t i = 0; i < n; i++) Y[i] = A[i];
            return;
        }
        if (b == 3.0f) {
            EW_SIMD for (size_t i = 0; i < n; i++) Y[i] = A[i] * A[i] * A[i];
            return;
        }
        if (b == 0.5f) {
            for (size_t i = 0; i < n; i++) Y[i] = A[i] == -INFINITY ? INFINITY : sqrtf(A[i]);
            return;
        }
    }
    for (size_t i = 0; i < n; i++) Y[i] = powf(A[(ptrdiff_t)i * sa], B[(ptrdiff_t)i * sb]);
}

/* float scaling for Mean */
EW_CLONE static void scale_f32(const void *x, void *y, size_t n, const ew_par *p)
{
    const float *X = x;
    float *Y = y;
    const float s = p->a;
    EW_SIMD for (size_t i = 0; i < n; i++) Y[i] = X[i] * s;
}
static void scale_f64(const void *x, void *y, size_t n, const ew_par *p)
{
    const double *X = x;
    double *Y = y;
    for (size_t i = 0; i < n; i++) Y[i] = X[i] * p->da;
}

typedef struct bin_desc {
    const char *op;
    unsigned types;
    int out_bool;
    int variadic;
    ew_bin_fn fn[EW_NDT];
} bin_desc;

static const bin_desc bin_tab[] = {
    { "Add", EW_MNUM, 0, 0, { FN_NUM(add) } },
    { "Sub", EW_MNUM, 0, 0, { FN_NUM(sub) } },
    { "Mul", EW_MNUM, 0, 0, { FN_NUM(mul) } },
    { "Div", EW_MNUM, 0, 0, { FN_NUM(div) } },
    { "Mod", EW_MINT, 0, 0, { FN_S(mod), FN_U(fmod) } },           /* fmod=0 */
    { "Mod.fmod", EW_MNUM, 0, 0, { FN_NUM(fmod) } },               /* fmod=1 */
    { "Pow", EW_MNUM, 0, 0, { [G_F32] = pow_f32, [G_F64] = pow_f64, FN_S(ipow), FN_U(ipow) } },
    { "Max", EW_MNUM, 0, 1, { FN_NUM(max) } },
    { "Min", EW_MNUM, 0, 1, { FN_NUM(min) } },
    { "Sum", EW_MNUM, 0, 1, { FN_NUM(add) } },
    { "Mean", EW_MFLT, 0, 1, { FN_F(add) } },
    { "PRelu", EW_MNUM, 0, 0, { FN_NUM(prelu) } },
    { "Equal", EW_MNUM | EW_MBOOL, 1, 0, { FN_NUM(eq), [G_BOOL] = eq_u8 } },
    { "Greater", EW_MNUM, 1, 0, { FN_NUM(gt) } },
    { "Less", EW_MNUM, 1, 0, { FN_NUM(lt) } },
    { "GreaterOrEqual", EW_MNUM, 1, 0, { FN_NUM(ge) } },
    { "LessOrEqual", EW_MNUM, 1, 0, { FN_NUM(le) } },
    { "And", EW_MBOOL, 1, 0, { [G_BOOL] = and_b } },
    { "Or", EW_MBOOL, 1, 0, { [G_BOOL] = or_b } },
    { "Xor", EW_MBOOL, 1, 0, { [G_BOOL] = xor_b } },
    { "BitwiseAnd", EW_MINT, 0, 0, { FN_S(band), FN_U(band) } },
    { "BitwiseOr", EW_MINT, 0, 0, { FN_S(bor), FN_U(bor) } },
    { "BitwiseXor", EW_MINT, 0, 0, { FN_S(bxor), FN_U(bxor) } },
    { "BitShift.LEFT", EW_MUINT, 0, 0, { FN_U(shl) } },
    { "BitShift.RIGHT", EW_MUINT, 0, 0, { FN_U(shr) } },
};

typedef struct bin_state {
    const bin_desc *d;
    int dta, dtb, dty;        /* dtypes of input 0, input 1 (variadic: all), output */
    ew_bin_fn f;              /* loop (or adapter) */
    ew_par par;
} bin_state;

static const bin_desc *bin_lookup(const char *op)
{
    for (size_t i = 0; i < sizeof bin_tab / sizeof bin_tab[0]; i++)
        if (!strcmp(bin_tab[i].op, op)) return &bin_tab[i];
    return NULL;
}

static int bin_init(g_graph *g, g_node *n, void **state)
{
    const char *name = n->op_type;
    if (!strcmp(name, "Mod")) {
        int64_t fm = g_attr_int(n, "fmod", 0);
        if (fm != 0 && fm != 1) return ew_fail(n, EW_EINVAL, "fmod=%lld (expected 0 or 1)", (long long)fm);
        if (fm) name = "Mod.fmod";
        else if (ew_is_float(ew_gdtype(g, n, 0)))
            return ew_fail(n, EW_EINVAL, "fmod=0 with floating-point input %s: the ONNX spec requires "
                           "fmod=1 for floats", g_dtype_name(ew_gdtype(g, n, 0)));
    } else if (!strcmp(name, "BitShift")) {
        const char *dir = g_attr_str(n, "direction", "");
        if (!strcmp(dir, "LEFT")) name = "BitShift.LEFT";
        else if (!strcmp(dir, "RIGHT")) name = "BitShift.RIGHT";
        else return ew_fail(n, EW_EINVAL, "direction='%s' (expected LEFT or RIGHT)", dir);
    }
    const bin_desc *d = bin_lookup(name);
    if (!d) return K_DECLINE;
    int nin = n->n_in;
    if (d->variadic ? nin < 1 : nin != 2)
        return ew_fail(n, EW_EINVAL, "got %d inputs, expected %s", nin, d->variadic ? "1 or more" : "2");
    int dta = ew_gdtype(g, n, 0), dtb = nin > 1 ? ew_gdtype(g, n, 1) : dta;
    int rc = ew_check_type(n, 0, dta, d->types);
    if (rc) return rc;
    int is_pow = !strcmp(d->op, "Pow");
    for (int i = 1; i < nin; i++) {
        int dt = ew_gdtype(g, n, i);
        if (is_pow) {
            if ((rc = ew_check_type(n, i, dt, EW_MNUM))) return rc;
        } else if (dt != dta) {
            return ew_fail(n, EW_ETYPE, "input %d is %s but input 0 is %s (must match)", i,
                           g_dtype_name(dt), g_dtype_name(dta));
        }
    }
    bin_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->d = d;
    s->dta = dta;
    s->dtb = dtb;
    s->dty = d->out_bool ? G_BOOL : dta;
    s->par.dta = dta;
    s->par.dtb = dtb;
    s->par.dty = s->dty;
    if (dta == dtb && d->fn[dta]) {
        s->f = d->fn[dta];
    } else if (dta == dtb && ew_is_half(dta) && d->fn[G_F32]) {
        s->par.bin = d->fn[G_F32];
        s->f = ew_bin_half;
    } else if (is_pow) {
        s->par.bin = pow_f64;     /* mixed types: through double */
        s->f = ew_bin_dbl;
    } else {
        free(s);
        return ew_check_type(n, 0, dta, 0);
    }
    *state = s;
    return 0;
}

static int bin_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    bin_state *s = state;
    g_shape sh = in[0].shape;
    if (in[0].dtype != s->dta)
        return ew_fail(n, EW_ETYPE, "input 0 is %s at run time but %s at load",
                       g_dtype_name(in[0].dtype), g_dtype_name(s->dta));
    for (int i = 1; i < n->n_in; i++) {
        if (in[i].dtype == G_UNDEF) return ew_fail(n, EW_EINVAL, "input %d is missing", i);
        int rc = k_broadcast(n, &sh, &in[i].shape, &sh);
        if (rc) return rc;
    }
    if (!strcmp(s->d->op, "PRelu") && in[0].shape.rank >= 0 && !g_shape_eq(&sh, &in[0].shape)) {
        char a[96], b[96];
        return ew_fail(n, EW_EINVAL, "slope %s does not broadcast to the input %s",
                       g_shape_str(&in[1].shape, a, sizeof a), g_shape_str(&in[0].shape, b, sizeof b));
    }
    out[0].dtype = s->dty;
    out[0].shape = sh;
    out[0].layout = ew_bc_layout(in, n->n_in, &sh);
    return 0;
}

static int bin_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    bin_state *s = state;
    int64_t ne = g_shape_numel(&out[0].shape);
    if (ne <= 0) return 0;
    size_t esa = g_dtype_size(s->dta), esb = g_dtype_size(s->dtb), esy = g_dtype_size(s->dty);
    size_t grain = !strcmp(s->d->op, "Pow") ? EW_GRAIN_MATH : EW_GRAIN_CHEAP;
    ew_bc bc;
    if (n->n_in == 1) {
        /* a single input is its own result; max(x, x) copies any type into
         * the output's layout */
        const bin_desc *mx = bin_lookup("Max");
        ew_par q = s->par;
        ew_bin_fn f = mx->fn[s->dta];
        if (!f) {
            q.bin = mx->fn[G_F32];
            f = ew_bin_half;
        }
        if (ew_bc_plan(&bc, &out[0], &in[0], &in[0]))
            return ew_fail(n, EW_EINVAL, "input 0 does not match the output shape");
        ew_bc_run(&bc, f, in[0].data, esa, in[0].data, esa, out[0].data, esy, &q, ctx, grain);
        return 0;
    }
    if (ew_bc_plan(&bc, &out[0], &in[0], &in[1]))
        return ew_fail(n, EW_EINVAL, "inputs 0 and 1 do not broadcast to the output shape");
    ew_bc_run(&bc, s->f, in[0].data, esa, in[1].data, esb, out[0].data, esy, &s->par, ctx, grain);
    for (int i = 2; i < n->n_in; i++) {
        if (ew_bc_plan(&bc, &out[0], &out[0], &in[i]))
            return ew_fail(n, EW_EINVAL, "input %d does not broadcast to the output shape", i);
        ew_bc_run(&bc, s->f, out[0].data, esy, in[i].data, esb, out[0].data, esy, &s->par, ctx, grain);
    }
    if (!strcmp(s->d->op, "Mean") && n->n_in > 1) {
        ew_par p = s->par;
        p.a = (float)(1.0 / n->n_in);
        p.da = 1.0 / n->n_in;
        ew_un_fn f = s->dty == G_F64 ? scale_f64 : scale_f32;
        if (ew_is_half(s->dty)) {
            p.un = scale_f32;
            p.dta = p.dty = s->dty;
            f = ew_un_half;
        }
        ew_flat_run(f, out[0].data, esy, out[0].data, esy, (size_t)ne, &p, ctx, EW_GRAIN_CHEAP);
    }
    return 0;
}

static int bin_layout(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state; (void)idx;
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

#define BIN_OP(var, name, since)                                                           \
    static const k_op var = { name, "", since, 0, "ref", 0, bin_init, bin_infer, NULL, NULL, \
                              bin_run, ew_fini_free, bin_layout };                         \
    K_REGISTER(var);

BIN_OP(k_add, "Add", 7)
BIN_OP(k_sub, "Sub", 7)
BIN_OP(k_mul, "Mul", 7)
BIN_OP(k_div, "Div", 7)
BIN_OP(k_mod, "Mod", 10)
BIN_OP(k_pow, "Pow", 7)
BIN_OP(k_max, "Max", 6)
BIN_OP(k_min, "Min", 6)
BIN_OP(k_sum, "Sum", 6)
BIN_OP(k_mean, "Mean", 6)
BIN_OP(k_prelu, "PRelu", 7)
BIN_OP(k_equal, "Equal", 7)
BIN_OP(k_greater, "Greater", 7)
BIN_OP(k_less, "Less", 7)
BIN_OP(k_ge, "GreaterOrEqual", 12)
BIN_OP(k_le, "LessOrEqual", 12)
BIN_OP(k_and, "And", 7)
BIN_OP(k_or, "Or", 7)
BIN_OP(k_xor, "Xor", 7)
BIN_OP(k_band, "BitwiseAnd", 18)
BIN_OP(k_bor, "BitwiseOr", 18)
BIN_OP(k_bxor, "BitwiseXor", 18)
BIN_OP(k_bitshift, "BitShift", 11)
