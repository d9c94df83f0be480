/* Cast and CastLike between every fixed-size type (float16, bfloat16 and bool
 * included; strings and float8/int4 refused at init). Each element goes
 * through one canonical value (double for float types, int64 or uint64 for
 * integers); out-of-range float-to-integer conversions are defined the way
 * x86 numpy produces them (INT_MIN of the conversion width, then wrap), never
 * C undefined behaviour. */
#include "core/par.h"
#include "kernels/ref/shape_common.h"
#include <math.h>
#include <omp.h>

static inline double h2d(uint16_t h) { return ksh_h2f(h); }
static inline double bf2d(uint16_t b) { return ksh_bf2f(b); }
static inline int64_t b2i(uint8_t b) { return b != 0; }

static inline int32_t d2i32(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}
static inline int64_t d2i64(double x)
{
    return (x >= -9.2233720368547758e18 && x < 9.2233720368547758e18) ? (int64_t)x : INT64_MIN;
}
static inline uint64_t d2u64(double x)
{
    if (x >= 9.2233720368547758e18 && x < 1.8446744073709552e19) return (uint64_t)x;
    return (uint64_t)d2i64(x);
}

/* stores: <dst>_D from double, <dst>_I from int64, <dst>_U from uint64 */
#define F32_D(x) ((float)(x))
#define F32_I(x) ((float)(x))
#define F64_D(x) ((double)(x))
#define F64_I(x) ((double)(x))
#define F16_D(x) ksh_d2h(x)
#define F16_I(x) ksh_d2h((double)(x))
#define BF16_D(x) ksh_f2bf((float)(x))
#define BF16_I(x) ksh_f2bf((float)(x))
#define I8_D(x) ((int8_t)d2i32(x))
#define U8_D(x) ((uint8_t)d2i32(x))
#define I16_D(x) ((int16_t)d2i32(x))
#define U16_D(x) ((uint16_t)d2i32(x))
#define I32_D(x) d2i32(x)
#define U32_D(x) ((uint32_t)d2i64(x))
#define I64_D(x) d2i64(x)
#define U64_D(x) d2u64(x)
#define BOOL_D(x) ((uint8_t)((x) != 0))
#define WRAP(T) (T)
#define BOOL_I(x) ((uint8_t)((x) != 0))

#define LOOP(ST, LD, DT, STORE)                                                  \
    do {                                                                         \
        const ST *s_ = (const ST *)src;                                          \
        DT *d_ = (DT *)dst;                                                      \
        for (size_t i_ = 0; i_ < n; i_++) d_[i_] = STORE(LD(s_[i_]));            \
    } while (0)
#define NOP(x) (x)

/* One destination type: dispatch on the source type. */
#define FROM_ANY(DT, SD, SI, SU)                                                 \
    switch (stype) {                                                             \
    case G_F32: LOOP(float, NOP, DT, SD); break;                                 \
    case G_F64: LOOP(double, NOP, DT, SD); break;                                \
    case G_F16: LOOP(uint16_t, h2d, DT, SD); break;                              \
    case G_BF16: LOOP(uint16_t, bf2d, DT, SD); break;                            \
    case G_I8: LOOP(int8_t, (int64_t), DT, SI); break;                           \
    case G_U8: LOOP(uint8_t, (int64_t), DT, SI); break;                          \
    case G_I16: LOOP(int16_t, (int64_t), DT, SI); break;                         \
    case G_U16: LOOP(uint16_t, (int64_t), DT, SI); break;                        \
    case G_I32: LOOP(int32_t, (int64_t), DT, SI); break;                         \
    case G_U32: LOOP(uint32_t, (int64_t), DT, SI); break;                        \
    case G_I64: LOOP(int64_t, NOP, DT, SI); break;                               \
    case G_U64: LOOP(uint64_t, NOP, DT, SU); break;                              \
    case G_BOOL: LOOP(uint8_t, b2i, DT, SI); break;                              \
    }

static void cast_range(const void *src, int stype, void *dst, int dtype, size_t n)
{
    if (stype == G_F32 && dtype == G_F16) {   /* direct, without the double detour */
        LOOP(float, NOP, uint16_t, ksh_f2h);
        return;
    }
    switch (dtype) {
    case G_F32: FROM_ANY(float, F32_D, F32_I, F32_I); break;
    case G_F64: FROM_ANY(double, F64_D, F64_I, F64_I); break;
    case G_F16: FROM_ANY(uint16_t, F16_D, F16_I, F16_I); break;
    case G_BF16: FROM_ANY(uint16_t, BF16_D, BF16_I, BF16_I); break;
    case G_I8: FROM_ANY(int8_t, I8_D, WRAP(int8_t), WRAP(int8_t)); break;
    case G_U8: FROM_ANY(uint8_t, U8_D, WRAP(uint8_t), WRAP(uint8_t)); break;
    case G_I16: FROM_ANY(int16_t, I16_D, WRAP(int16_t), WRAP(int16_t)); break;
    case G_U16: FROM_ANY(uint16_t, U16_D, WRAP(uint16_t), WRAP(uint16_t)); break;
    case G_I32: FROM_ANY(int32_t, I32_D, WRAP(int32_t), WRAP(int32_t)); break;
    case G_U32: FROM_ANY(uint32_t, U32_D, WRAP(uint32_t), WRAP(uint32_t)); break;
    case G_I64: FROM_ANY(int64_t, I64_D, WRAP(int64_t), WRAP(int64_t)); break;
    case G_U64: FROM_ANY(uint64_t, U64_D, WRAP(uint64_t), WRAP(uint64_t)); break;
    case G_BOOL: FROM_ANY(uint8_t, BOOL_D, BOOL_I, BOOL_I); break;
    }
}

/* Public to the other reference kernels of this family. */
void ksh_cast(const void *src, int stype, void *dst, int dtype, size_t n, int nthreads)
{
    if (stype == dtype) {
        if (dst != src) memcpy(dst, src, n * ksh_esize(stype));
        return;
    }
    size_t si = ksh_esize(stype), di = ksh_esize(dtype);
    OA_PAR_REGION(nthreads, {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        size_t a = n * (size_t)t / (size_t)nt, b = n * (size_t)(t + 1) / (size_t)nt;
        if (b > a) cast_range((const char *)src + a * si, stype, (char *)dst + a * di, dtype, b - a);
    });
}

static int cast_target(const g_node *n, int *to)
{
    const g_attr *a = g_node_attr(n, "to");
    if (!a) return ksh_fail(n, KSH_EINVAL, "attribute 'to' is missing");
    if (a->type == G_AT_STRING) {   /* opset 1 spelled the type by name */
        static const struct { const char *s; int t; } names[] = {
            {"FLOAT", G_F32}, {"UINT8", G_U8}, {"INT8", G_I8}, {"UINT16", G_U16}, {"INT16", G_I16},
            {"INT32", G_I32}, {"INT64", G_I64}, {"BOOL", G_BOOL}, {"FLOAT16", G_F16},
            {"DOUBLE", G_F64}, {"UINT32", G_U32}, {"UINT64", G_U64}};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (!strcmp(a->s, names[i].s)) { *to = names[i].t; return 0; }
        return ksh_fail(n, KSH_ETYPE, "cast to '%s' is not supported", a->s);
    }
    *to = (int)a->i;
    return 0;
}

static int cast_check(const g_node *n, int from, int to)
{
    if (ksh_esize(from) == 0)
        return ksh_fail(n, KSH_ETYPE, "cast from %s (type %d) is not supported", g_dtype_name(from), from);
    if (ksh_esize(to) == 0)
        return ksh_fail(n, KSH_ETYPE, "cast to %s (type %d) is not supported", g_dtype_name(to), to);
    return 0;
}

static int cast_init(g_graph *g, g_node *n, void **st)
{
    int to, e;
    if ((e = cast_target(n, &to))) return e;
    return cast_check(n, ksh_in_dtype(g, n, 0), to);
}

static int castlike_init(g_graph *g, g_node *n, void **st)
{
    return cast_check(n, ksh_in_dtype(g, n, 0), ksh_in_dtype(g, n, 1));
}

static int cast_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int to = 0, e;
    if (!strcmp(n->op_type, "CastLike")) to = in[1].dtype;
    else if ((e = cast_target(n, &to))) return e;
    out[0].dtype = to;
    out[0].shape = in[0].shape;
    out[0].layout = ksh_same_layout(&in[0], &out[0].shape);
    return 0;
}

static int cast_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    size_t cnt = (size_t)ksh_numel(&in[0].shape);
    ksh_cast(in[0].data, in[0].dtype, out[0].data, out[0].dtype, cnt,
             ksh_threads(c, cnt * (ksh_esize(in[0].dtype) + ksh_esize(out[0].dtype))));
    return 0;
}
static const k_op k_cast = {.op_type = "Cast", .domain = "", .since = 1, .impl = "ref",
                            .init = cast_init, .infer = cast_infer, .run = cast_run,
                            .accepts_layout = ksh_accept_data};
K_REGISTER(k_cast);
static const k_op k_castlike = {.op_type = "CastLike", .domain = "", .since = 15, .impl = "ref",
                                .init = castlike_init, .infer = cast_infer, .run = cast_run,
                                .accepts_layout = ksh_accept_all};
K_REGISTER(k_castlike);
