/* Index-driven writes: ScatterElements (and the old Scatter), ScatterND, with
 * the none/add/mul/max/min reductions. The output starts as a copy of data
 * (skipped when the engine aliases them); updates apply in index order, so
 * with duplicates and no reduction the last one wins. */
#include "kernels/ref/shape_common.h"

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static int parse_red(const g_node *n, int *red)
{
    const char *s = n->opset >= 16 ? g_attr_str(n, "reduction", "none") : "none";
    if (!strcmp(s, "none")) *red = RED_NONE;
    else if (!strcmp(s, "add")) *red = RED_ADD;
    else if (!strcmp(s, "mul")) *red = RED_MUL;
    else if (n->opset >= 18 && !strcmp(s, "max")) *red = RED_MAX;
    else if (n->opset >= 18 && !strcmp(s, "min")) *red = RED_MIN;
    else return ksh_fail(n, KSH_EUNSUP, "reduction '%s' is not supported", s);
    return 0;
}

static int scatter_init(g_graph *g, g_node *n, void **st)
{
    int red = RED_NONE, e, dt = ksh_in_dtype(g, n, 0), it = ksh_in_dtype(g, n, 1);
    if ((e = parse_red(n, &red))) return e;
    if (it != G_I32 && it != G_I64)
        return ksh_fail(n, KSH_ETYPE, "indices must be int32 or int64, got %s", g_dtype_name(it));
    if (ksh_in_dtype(g, n, 2) != dt)
        return ksh_fail(n, KSH_ETYPE, "updates are %s, data is %s", g_dtype_name(ksh_in_dtype(g, n, 2)),
                        g_dtype_name(dt));
    if (red != RED_NONE && dt == G_BOOL)
        return ksh_fail(n, KSH_ETYPE, "reduction on bool data is not supported");
    return ksh_check_movable(n, dt, "data");
}

static int scatter_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

#define DEF_LS(N, T) \
    static inline T ld_##N(const char *p) { T v; memcpy(&v, p, sizeof v); return v; } \
    static inline void st_##N(char *p, T v) { memcpy(p, &v, sizeof v); }
DEF_LS(f32, float) DEF_LS(f64, double) DEF_LS(i8, int8_t) DEF_LS(u8, uint8_t)
DEF_LS(i16, int16_t) DEF_LS(u16, uint16_t) DEF_LS(i32, int32_t) DEF_LS(u32, uint32_t)
DEF_LS(i64, int64_t) DEF_LS(u64, uint64_t)

/* dst = red(dst, src) for cnt elements of type dt. */
static void reduce(char *dst, const char *src, int dt, int red, int64_t cnt)
{
    size_t es = ksh_esize(dt);
    if (red == RED_NONE) { memcpy(dst, src, (size_t)cnt * es); return; }
#define RED_LOOP(T, LD, ST)                                                        \
    for (int64_t i = 0; i < cnt; i++) {                                            \
        T a_, b_;                                                                  \
        a_ = LD(dst + i * (int64_t)sizeof(a_)); b_ = LD(src + i * (int64_t)sizeof(a_)); \
        switch (red) {                                                             \
        case RED_ADD: a_ = (T)WRAP(a_, +, b_); break;                             \
        case RED_MUL: a_ = (T)WRAP(a_, *, b_); break;                             \
        case RED_MAX: a_ = a_ > b_ ? a_ : b_; break;                               \
        default: a_ = a_ < b_ ? a_ : b_; break;                                    \
        }                                                                          \
        ST(dst + i * (int64_t)sizeof(a_), a_);                                     \
    }
    /* integers wrap (unsigned arithmetic, no signed overflow) */
#define WRAP(a, op, b) ((uint64_t)(a) op (uint64_t)(b))
    switch (dt) {
    case G_I8: { RED_LOOP(int8_t, ld_i8, st_i8) break; }
    case G_U8: { RED_LOOP(uint8_t, ld_u8, st_u8) break; }
    case G_I16: { RED_LOOP(int16_t, ld_i16, st_i16) break; }
    case G_U16: { RED_LOOP(uint16_t, ld_u16, st_u16) break; }
    case G_I32: { RED_LOOP(int32_t, ld_i32, st_i32) break; }
    case G_U32: { RED_LOOP(uint32_t, ld_u32, st_u32) break; }
    case G_I64: { RED_LOOP(int64_t, ld_i64, st_i64) break; }
    case G_U64: { RED_LOOP(uint64_t, ld_u64, st_u64) break; }
#undef WRAP
#define WRAP(a, op, b) ((a) op (b))
    case G_F32: { RED_LOOP(float, ld_f32, st_f32) break; }
    case G_F64: { RED_LOOP(double, ld_f64, st_f64) break; }
#undef WRAP
    default:   /* float16 / bfloat16 through float */
        for (int64_t i = 0; i < cnt; i++) {
            double a = ksh_getf(dst, dt, (size_t)i), b = ksh_getf(src, dt, (size_t)i);
            a = red == RED_ADD ? a + b : red == RED_MUL ? a * b : red == RED_MAX ? (a > b ? a : b)
              : (a < b ? a : b);
            ksh_setf(dst, dt, (size_t)i, (float)a);
        }
    }
#undef RED_LOOP
}

static void copy_data(const k_tensor *in, k_tensor *out)
{
    size_t b = (size_t)ksh_numel(&in[0].shape) * ksh_esize(in[0].dtype);
    if (b && out[0].data != in[0].data) memcpy(out[0].data, in[0].data, b);
}

static inline int64_t idx_at(const void *p, int dt, int64_t i)
{
    return dt == G_I64 ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

/* ---- ScatterElements / Scatter ---- */

static int sel_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape;
    int r = x->rank, ax, red, e, idt = in[1].dtype;
    if ((e = parse_red(n, &red))) return e;
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 0), r, 0, &ax))) return e;
    if (ix->rank != r || !g_shape_eq(ix, &in[2].shape))
        return ksh_fail(n, KSH_EINVAL, "indices and updates must have the data's rank and equal shapes");
    for (int a = 0; a < r; a++)
        if (a != ax && ix->d[a] > x->d[a])
            return ksh_fail(n, KSH_EINVAL, "indices dim %d (%lld) exceeds data dim (%lld)", a,
                            (long long)ix->d[a], (long long)x->d[a]);
    int64_t cnt = ksh_numel(ix), xs[G_MAX_RANK], lim = x->d[ax];
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = idx_at(in[1].data, idt, i);
        if (v < -lim || v >= lim)
            return ksh_fail(n, KSH_EINVAL, "index %lld at position %lld is out of range [%lld, %lld) for axis %d",
                            (long long)v, (long long)i, (long long)-lim, (long long)lim, ax);
    }
    copy_data(in, out);
    ksh_strides(x, xs);
    size_t es = ksh_esize(in[0].dtype);
    char *D = out[0].data;
    const char *U = in[2].data;
    int64_t idx[G_MAX_RANK] = {0}, base = 0;
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = idx_at(in[1].data, idt, i);
        if (v < 0) v += lim;
        reduce(D + (size_t)(base + v * xs[ax]) * es, U + (size_t)i * es, in[0].dtype, red, 1);
        for (int a = r - 1; a >= 0; a--) {
            if (++idx[a] < ix->d[a]) { if (a != ax) base += xs[a]; break; }
            if (a != ax) base -= (ix->d[a] - 1) * xs[a];
            idx[a] = 0;
        }
    }
    return 0;
}
static const k_op k_sel = {.op_type = "ScatterElements", .domain = "", .since = 11, .impl = "ref",
                           .init = scatter_init, .infer = scatter_infer, .run = sel_run};
K_REGISTER(k_sel);
static const k_op k_scatter = {.op_type = "Scatter", .domain = "", .since = 9, .impl = "ref",
                               .init = scatter_init, .infer = scatter_infer, .run = sel_run};
K_REGISTER(k_scatter);

/* ---- ScatterND ---- */

static int snd_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape, *u = &in[2].shape;
    int red, e, idt = in[1].dtype;
    if ((e = parse_red(n, &red))) return e;
    if (ix->rank < 1) return ksh_fail(n, KSH_EINVAL, "indices must have rank >= 1");
    int m = (int)ix->d[ix->rank - 1];
    if (m < 1 || m > x->rank) return ksh_fail(n, KSH_EINVAL, "indices last dim %d exceeds data rank %d", m, x->rank);
    /* updates shape = indices.shape[:-1] + data.shape[m:] */
    int ur = ix->rank - 1 + x->rank - m, ok = u->rank == ur;
    for (int i = 0; ok && i < ix->rank - 1; i++) ok = u->d[i] == ix->d[i];
    for (int i = m; ok && i < x->rank; i++) ok = u->d[ix->rank - 1 + i - m] == x->d[i];
    if (!ok) {
        char a[96], b[96], cc[96];
        return ksh_fail(n, KSH_EINVAL, "updates shape %s does not match indices %s and data %s",
                        g_shape_str(u, a, sizeof a), g_shape_str(ix, b, sizeof b), g_shape_str(x, cc, sizeof cc));
    }
    int64_t xs[G_MAX_RANK];
    ksh_strides(x, xs);
    int64_t nt = ksh_prod(ix->d, 0, ix->rank - 1), slice = ksh_prod(x->d, m, x->rank);
    for (int64_t t = 0; t < nt; t++)
        for (int j = 0; j < m; j++) {
            int64_t v = idx_at(in[1].data, idt, t * m + j), lim = x->d[j];
            if (v < -lim || v >= lim)
                return ksh_fail(n, KSH_EINVAL, "index %lld (tuple %lld, component %d) is out of range "
                                "[%lld, %lld)", (long long)v, (long long)t, j, (long long)-lim, (long long)lim);
        }
    copy_data(in, out);
    size_t es = ksh_esize(in[0].dtype);
    char *D = out[0].data;
    const char *U = in[2].data;
    for (int64_t t = 0; t < nt; t++) {
        int64_t off = 0;
        for (int j = 0; j < m; j++) {
            int64_t v = idx_at(in[1].data, idt, t * m + j);
            off += (v < 0 ? v + x->d[j] : v) * xs[j];
        }
        reduce(D + (size_t)off * es, U + (size_t)(t * slice) * es, in[0].dtype, red, slice);
    }
    return 0;
}
static const k_op k_snd = {.op_type = "ScatterND", .domain = "", .since = 11, .impl = "ref",
                           .init = scatter_init, .infer = scatter_infer, .run = snd_run};
K_REGISTER(k_snd);
