/* Shared machinery of the reference data-movement kernels: failures named
 * after the node, integer-input reading, scalar conversions, and the two copy
 * engines (affine strided copy, per-axis table gather) that Transpose, Slice,
 * Concat, Split, Pad, Expand, Tile, DepthToSpace and Resize are built on. */
#include "core/par.h"
#include "kernels/ref/shape_common.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <math.h>

int ksh_fail(const g_node *n, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return acl_fail(code, "node '%s' (%s, opset %d): %s", n && n->name ? n->name : "",
                    n && n->op_type ? n->op_type : "?", n ? n->opset : 0, msg);
}

int ksh_check_movable(const g_node *n, int dtype, const char *what)
{
    if (ksh_esize(dtype) == 0)
        return ksh_fail(n, KSH_ETYPE, "%s has data type %s, which this kernel does not support",
                        what, g_dtype_name(dtype));
    return 0;
}

int ksh_check_same_movable(const g_graph *g, const g_node *n)
{
    int dt = ksh_in_dtype(g, n, 0), e;
    if ((e = ksh_check_movable(n, dt, "input 0"))) return e;
    for (int i = 1; i < n->n_in; i++)
        if (ksh_in_dtype(g, n, i) != dt)
            return ksh_fail(n, KSH_EINVAL, "input %d is %s, input 0 is %s", i,
                            g_dtype_name(ksh_in_dtype(g, n, i)), g_dtype_name(dt));
    return 0;
}

int ksh_check_dtype(const g_node *n, int dtype, const char *what, const int *allowed)
{
    for (const int *a = allowed; *a != G_UNDEF; a++)
        if (*a == dtype) return 0;
    return ksh_fail(n, KSH_ETYPE, "%s has data type %s, which this kernel does not support",
                    what, g_dtype_name(dtype));
}

int ksh_axis(const g_node *n, int64_t axis, int rank, int inclusive, int *out)
{
    int64_t hi = inclusive ? rank + 1 : rank;
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= hi)
        return ksh_fail(n, KSH_EINVAL, "axis %lld out of range for rank %d (valid [%d, %lld])",
                        (long long)axis, rank, -rank, (long long)(hi - 1));
    *out = (int)a;
    return 0;
}

int ksh_read_ints(const g_node *n, const k_tensor *t, int idx, int64_t *v, int max, int *cnt)
{
    if (!t->data)
        return ksh_fail(n, KSH_EINVAL, "input %d: value not known", idx);
    if (t->dtype != G_I64 && t->dtype != G_I32)
        return ksh_fail(n, KSH_ETYPE, "input %d must be int32 or int64, got %s", idx,
                        g_dtype_name(t->dtype));
    int64_t k = ksh_numel(&t->shape);
    if (k > max)
        return ksh_fail(n, KSH_EINVAL, "input %d has %lld values, at most %d allowed", idx,
                        (long long)k, max);
    for (int64_t i = 0; i < k; i++) v[i] = ksh_geti(t->data, t->dtype, (size_t)i);
    *cnt = (int)k;
    return 0;
}

static uint64_t rne_shift(uint64_t m, int sh)
{
    if (sh >= 64) return 0;
    if (sh <= 0) return m;
    uint64_t r = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return r;
}

uint16_t ksh_d2h(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
    int e = (int)((u >> 52) & 0x7ff);
    uint64_t m = u & 0xfffffffffffffull;
    if (e == 0x7ff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int he = e - 1008;              /* half exponent field */
    if (he >= 31) return (uint16_t)(sign | 0x7c00);
    if (he <= 0) {
        if (e == 0) return sign;    /* double subnormal: far below half range */
        return (uint16_t)(sign | rne_shift(m | (1ull << 52), 43 - he));
    }
    /* the carry of rounding may step into the next exponent or to infinity,
     * which is what the encoding wants */
    return (uint16_t)(sign | rne_shift(((uint64_t)he << 52) | m, 42));
}

int64_t ksh_geti(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_I64: { int64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return v; }
    case G_I32: { int32_t v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
    case G_I16: { int16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return v; }
    case G_I8: return ((const int8_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_U16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return v; }
    case G_U32: { uint32_t v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
    case G_U64: { uint64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return (int64_t)v; }
    default: {
        double d = ksh_getf(p, dt, i);
        if (!(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)) return INT64_MIN;
        return (int64_t)d;
    }
    }
}

double ksh_getf(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_F32: { float v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
    case G_F64: { double v; memcpy(&v, (const char *)p + 8 * i, 8); return v; }
    case G_F16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return ksh_h2f(v); }
    case G_BF16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return ksh_bf2f(v); }
    case G_U64: { uint64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return (double)v; }
    default: return (double)ksh_geti(p, dt, i);
    }
}

void ksh_seti(void *p, int dt, size_t i, int64_t v)
{
    char *c = (char *)p;
    switch (dt) {
    case G_I64: case G_U64: memcpy(c + 8 * i, &v, 8); break;
    case G_I32: case G_U32: { uint32_t x = (uint32_t)v; memcpy(c + 4 * i, &x, 4); break; }
    case G_I16: case G_U16: { uint16_t x = (uint16_t)v; memcpy(c + 2 * i, &x, 2); break; }
    case G_I8: case G_U8: c[i] = (char)(uint8_t)v; break;
    case G_BOOL: c[i] = v != 0; break;
    default: ksh_setf(p, dt, i, (double)v); break;
    }
}

void ksh_setf(void *p, int dt, size_t i, double v)
{
    char *c = (char *)p;
    switch (dt) {
    case G_F32: { float x = (float)v; memcpy(c + 4 * i, &x, 4); break; }
    case G_F64: memcpy(c + 8 * i, &v, 8); break;
    case G_F16: { uint16_t x = ksh_d2h(v); memcpy(c + 2 * i, &x, 2); break; }
    case G_BF16: { uint16_t x = ksh_f2bf((float)v); memcpy(c + 2 * i, &x, 2); break; }
    case G_BOOL: c[i] = v != 0; break;
    case G_U64:
        if (v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) {
            uint64_t x = (uint64_t)v;
            memcpy(c + 8 * i, &x, 8);
            break;
        }
        /* fall through */
    default: {
        int64_t x = (v >= -9.2233720368547758e18 && v < 9.2233720368547758e18) ? (int64_t)v
                                                                                 : INT64_MIN;
        ksh_seti(p, dt, i, x);
        break;
    }
    }
}

int ksh_nonzero(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_F16: case G_BF16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return (v & 0x7fff) != 0; }
    case G_F32: case G_F64: return ksh_getf(p, dt, i) != 0.0;
    default: return ksh_geti(p, dt, i) != 0;
    }
}

int ksh_accept_all(const g_node *n, void *st, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

int ksh_accept_data(const g_node *n, void *st, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && idx == 0);
}

int ksh_threads(const k_ctx *ctx, size_t bytes)
{
    /* memory-bound copies: one thread per 256 KiB at most, none nested */
    const size_t grain = (size_t)1 << 18;
    if (bytes < 2 * grain || omp_in_parallel()) return 1;
    int t = (ctx && ctx->threads > 0) ? ctx->threads : omp_get_max_threads();
    if ((size_t)t > bytes / grain) t = (int)(bytes / grain);
    return t < 1 ? 1 : t;
}

void *ksh_scratch(const k_ctx *ctx, size_t bytes, int *owned)
{
    *owned = 0;
    if (bytes == 0) bytes = 1;
    if (ctx && ctx->scratch && ctx->scratch_bytes >= bytes) return ctx->scratch;
    void *p = malloc(bytes);
    if (p) *owned = 1;
    return p;
}

void ksh_fill(void *dst, const void *val, size_t es, size_t n)
{
    char *d = (char *)dst;
    if (n == 0) return;
    int zero = 1;
    for (size_t b = 0; b < es; b++)
        if (((const char *)val)[b]) { zero = 0; break; }
    if (zero || es == 1) { memset(d, zero ? 0 : ((const char *)val)[0], es * n); return; }
    memcpy(d, val, es);
    size_t done = 1;
    while (done < n) {   /* doubling copies */
        size_t k = done < n - done ? done : n - done;
        memcpy(d + done * es, d, k * es);
        done += k;
    }
}

int ksh_broadcast(const g_node *n, const g_shape *a, const g_shape *b, g_shape *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        if (da == db || db == 1) o.d[i] = da;
        else if (da == 1) o.d[i] = db;
        else if (da < 0) o.d[i] = db;
        else if (db < 0) o.d[i] = da;
        else {
            char sa[96], sb[96];
            return ksh_fail(n, KSH_EINVAL, "shapes %s and %s cannot be broadcast (axis %d: %lld vs %lld)",
                            g_shape_str(a, sa, sizeof sa), g_shape_str(b, sb, sizeof sb), i,
                            (long long)da, (long long)db);
        }
    }
    *out = o;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Strided copy. */

#define KSH_MAXR 16

/* Element loop with a compile-time element size so memcpy becomes a move. */
#define KSH_ELEM_LOOP(T, d, dstep, s, sstep, cnt)                                   \
    do {                                                                            \
        char *d_ = (d); const char *s_ = (s);                                       \
        for (int64_t j_ = 0; j_ < (cnt); j_++) {                                    \
            T v_;                                                                   \
            memcpy(&v_, s_ + j_ * (sstep), sizeof(T));                              \
            memcpy(d_ + j_ * (dstep), &v_, sizeof(T));                              \
        }                                                                           \
    } while (0)

/* dst/src steps are in bytes here. */
static inline void copy_row(char *d, int64_t dstep, const char *s, int64_t sstep, int64_t cnt,
                            size_t es)
{
    if (dstep == (int64_t)es && sstep == (int64_t)es) { memcpy(d, s, (size_t)cnt * es); return; }
    switch (es) {
    case 1: KSH_ELEM_LOOP(uint8_t, d, dstep, s, sstep, cnt); break;
    case 2: KSH_ELEM_LOOP(uint16_t, d, dstep, s, sstep, cnt); break;
    case 4: KSH_ELEM_LOOP(uint32_t, d, dstep, s, sstep, cnt); break;
    case 8: KSH_ELEM_LOOP(uint64_t, d, dstep, s, sstep, cnt); break;
    default:
        for (int64_t j = 0; j < cnt; j++) memcpy(d + j * dstep, s + j * sstep, es);
    }
}

/* Offsets (bytes) of outer row `o` of dims d[0..r). */
static inline void unravel(int64_t o, int r, const int64_t *d, const int64_t *ss, const int64_t *ds,
                           int64_t *idx, int64_t *so, int64_t *dof)
{
    *so = 0; *dof = 0;
    for (int a = r - 1; a >= 0; a--) {
        idx[a] = o % d[a];
        o /= d[a];
        *so += idx[a] * ss[a];
        *dof += idx[a] * ds[a];
    }
}
static inline void step(int r, const int64_t *d, const int64_t *ss, const int64_t *ds, int64_t *idx,
                        int64_t *so, int64_t *dof)
{
    for (int a = r - 1; a >= 0; a--) {
        if (++idx[a] < d[a]) { *so += ss[a]; *dof += ds[a]; return; }
        idx[a] = 0;
        *so -= (d[a] - 1) * ss[a];
        *dof -= (d[a] - 1) * ds[a];
    }
}

/* 4x4 transpose of 4-byte elements with portable vector extensions:
 * d[i*dq + j] = s[i + j*sj] for i, j in 0..3 (strides in elements). */
typedef uint32_t ksh_v4 __attribute__((vector_size(16)));
#if defined(__clang__)
#define KSH_SHUF(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define KSH_SHUF(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (ksh_v4){i0, i1, i2, i3})
#endif
static inline void tr4x4(char *d, int64_t dq, const char *s, int64_t sj)
{
    ksh_v4 r0, r1, r2, r3;
    memcpy(&r0, s, 16);
    memcpy(&r1, s + sj * 4, 16);
    memcpy(&r2, s + 2 * sj * 4, 16);
    memcpy(&r3, s + 3 * sj * 4, 16);
    ksh_v4 t0 = KSH_SHUF(r0, r1, 0, 4, 1, 5), t1 = KSH_SHUF(r0, r1, 2, 6, 3, 7);
    ksh_v4 t2 = KSH_SHUF(r2, r3, 0, 4, 1, 5), t3 = KSH_SHUF(r2, r3, 2, 6, 3, 7);
    ksh_v4 c0 = KSH_SHUF(t0, t2, 0, 1, 4, 5), c1 = KSH_SHUF(t0, t2, 2, 3, 6, 7);
    ksh_v4 c2 = KSH_SHUF(t1, t3, 0, 1, 4, 5), c3 = KSH_SHUF(t1, t3, 2, 3, 6, 7);
    memcpy(d, &c0, 16);
    memcpy(d + dq * 4, &c1, 16);
    memcpy(d + 2 * dq * 4, &c2, 16);
    memcpy(d + 3 * dq * 4, &c3, 16);
}

void ksh_copy_nd(void *dst, const int64_t *dst_st, const void *src, const int64_t *src_st,
                 const int64_t *dims, int rank, size_t es, int nthreads)
{
    int64_t d[KSH_MAXR], ss[KSH_MAXR], ds[KSH_MAXR];
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0) return;
        if (dims[i] == 1) continue;
        d[r] = dims[i]; ss[r] = src_st[i]; ds[r] = dst_st[i]; r++;
    }
    /* walk the destination in memory order (any axis order copies the same
     * elements): a channels-last tensor's channel axis, logically second,
     * becomes the inner run, so NHWC concats and slices copy rows instead
     * of single elements (PP-OCR det's channel concat: 8.4 ms -> memcpy) */
    for (int i = 1; i < r; i++) {
        int64_t td = d[i], ts = ss[i], tds = ds[i], key = tds < 0 ? -tds : tds;
        int j = i - 1;
        for (; j >= 0 && (ds[j] < 0 ? -ds[j] : ds[j]) < key; j--) {
            d[j + 1] = d[j]; ss[j + 1] = ss[j]; ds[j + 1] = ds[j];
        }
        d[j + 1] = td; ss[j + 1] = ts; ds[j + 1] = tds;
    }
    /* merge an outer axis into the inner group when both sides are contiguous */
    int m = 0;
    int64_t cd[KSH_MAXR], cs[KSH_MAXR], cds[KSH_MAXR];
    for (int i = r - 1; i >= 0; i--) {
        if (m > 0 && ss[i] == cs[m - 1] * cd[m - 1] && ds[i] == cds[m - 1] * cd[m - 1]) {
            cd[m - 1] *= d[i];
            continue;
        }
        cd[m] = d[i]; cs[m] = ss[i]; cds[m] = ds[i]; m++;
    }
    r = m;
    for (int i = 0; i < r; i++) {   /* reverse back to outer-first, in bytes */
        d[i] = cd[r - 1 - i];
        ss[i] = cs[r - 1 - i] * (int64_t)es;
        ds[i] = cds[r - 1 - i] * (int64_t)es;
    }
    char *D = (char *)dst;
    const char *S = (const char *)src;
    if (r == 0) { memcpy(D, S, es); return; }

    int64_t total = ksh_prod(d, 0, r);
    if (total * (int64_t)es < (1 << 18)) nthreads = 1;
    int64_t ein = (int64_t)es;

    /* transposing case: innermost destination axis is contiguous but the
     * source's contiguous axis q is another one: copy through square tiles */
    int q = -1;
    if (ds[r - 1] == ein && ss[r - 1] != ein && d[r - 1] >= 8)
        for (int a = 0; a < r - 1; a++)
            if (ss[a] == ein && d[a] >= 8) { q = a; break; }
    if (q >= 0) {
        enum { TB = 32 };
        int64_t od[KSH_MAXR], oss[KSH_MAXR], ods[KSH_MAXR];
        int orr = 0;
        for (int a = 0; a < r - 1; a++)
            if (a != q) { od[orr] = d[a]; oss[orr] = ss[a]; ods[orr] = ds[a]; orr++; }
        int64_t nq = d[q], nj = d[r - 1];
        int64_t tq = (nq + TB - 1) / TB, tj = (nj + TB - 1) / TB;
        int64_t nouter = ksh_prod(od, 0, orr), njobs = nouter * tq * tj;
        int64_t sq = ss[q], dq = ds[q], sj = ss[r - 1];
        OA_PAR_FOR(nthreads, for (int64_t job = 0; job < njobs; job++) {
            int64_t o = job / (tq * tj), t = job % (tq * tj);
            int64_t i0 = (t / tj) * TB, j0 = (t % tj) * TB;
            int64_t i1 = i0 + TB < nq ? i0 + TB : nq, j1 = j0 + TB < nj ? j0 + TB : nj;
            int64_t idx[KSH_MAXR], so, dof;
            unravel(o, orr, od, oss, ods, idx, &so, &dof);
            int64_t i = i0;
            if (es == 4) {   /* sq == 4 bytes here: the source's contiguous axis */
                for (; i + 4 <= i1; i += 4) {
                    int64_t j = j0;
                    for (; j + 4 <= j1; j += 4)
                        tr4x4(D + dof + i * dq + j * 4, dq / 4, S + so + i * 4 + j * sj, sj / 4);
                    for (int64_t ii = i; ii < i + 4 && j < j1; ii++)
                        copy_row(D + dof + ii * dq + j * 4, 4, S + so + ii * 4 + j * sj, sj, j1 - j, 4);
                }
            }
            for (; i < i1; i++)
                copy_row(D + dof + i * dq + j0 * ein, ein, S + so + i * sq + j0 * sj, sj, j1 - j0, es);
        });
        return;
    }

    int64_t nrow = ksh_prod(d, 0, r - 1), cnt = d[r - 1];
    int64_t sstep = ss[r - 1], dstep = ds[r - 1];
    if (nrow < nthreads) {   /* few long rows: split each row instead */
        for (int64_t o = 0; o < nrow; o++) {
            int64_t idx[KSH_MAXR], so, dof;
            unravel(o, r - 1, d, ss, ds, idx, &so, &dof);
#pragma omp parallel num_threads(nthreads)
            {
                int nt = omp_get_num_threads(), t = omp_get_thread_num();
                int64_t a = cnt * t / nt, b = cnt * (t + 1) / nt;
                if (a < b) copy_row(D + dof + a * dstep, dstep, S + so + a * sstep, sstep, b - a, es);
            }
        }
        return;
    }
    OA_PAR_REGION(nthreads, {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t r0 = nrow * t / nt, r1 = nrow * (t + 1) / nt;
        if (r0 < r1) {
            int64_t idx[KSH_MAXR], so, dof;
            unravel(r0, r - 1, d, ss, ds, idx, &so, &dof);
            for (int64_t o = r0; o < r1; o++) {
                copy_row(D + dof, dstep, S + so, sstep, cnt, es);
                step(r - 1, d, ss, ds, idx, &so, &dof);
            }
        }
    });
}

void ksh_gather_maps(void *dst, const void *src, const int64_t *od, int rank,
                     int64_t *const *maps, size_t es, const void *fill, int nthreads)
{
    char *D = (char *)dst;
    const char *S = (const char *)src;
    if (rank == 0) { memcpy(D, S, es); return; }
    for (int a = 0; a < rank; a++)
        if (od[a] == 0) return;
    int64_t cnt = od[rank - 1], nrow = ksh_prod(od, 0, rank - 1);
    const int64_t *im = maps[rank - 1];
    int ident = 1;   /* inner map is a contiguous run: rows become memcpy */
    for (int64_t j = 0; j < cnt; j++)
        if (im[j] < 0 || im[j] != im[0] + j) { ident = 0; break; }
    if ((size_t)(nrow * cnt) * es < ((size_t)1 << 18)) nthreads = 1;
/* one element size's gather loop (a macro outside the region's macro) */
#define KSH_GM(T)                                                                   \
    for (int64_t j = 0; j < cnt; j++) {                                             \
        if (im[j] < 0) memcpy(dr + j * sizeof(T), fill, sizeof(T));                 \
        else memcpy(dr + j * sizeof(T), sb + im[j] * (int64_t)sizeof(T), sizeof(T)); \
    }
    OA_PAR_REGION(nthreads, {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t r0 = nrow * t / nt, r1 = nrow * (t + 1) / nt;
        int64_t idx[KSH_MAXR];
        int64_t o = r0;
        for (int a = rank - 2; a >= 0; a--) { idx[a] = o % od[a]; o /= od[a]; }
        for (int64_t row = r0; row < r1; row++) {
            int64_t base = 0;
            int out = 0;
            for (int a = 0; a < rank - 1; a++) {
                int64_t v = maps[a][idx[a]];
                if (v < 0) out = 1;
                base += v;
            }
            char *dr = D + row * cnt * (int64_t)es;
            if (out) ksh_fill(dr, fill, es, (size_t)cnt);
            else if (ident) memcpy(dr, S + (base + im[0]) * (int64_t)es, (size_t)cnt * es);
            else {
                const char *sb = S + base * (int64_t)es;
                switch (es) {
                case 1: KSH_GM(uint8_t); break;
                case 2: KSH_GM(uint16_t); break;
                case 4: KSH_GM(uint32_t); break;
                case 8: KSH_GM(uint64_t); break;
                default:
                    for (int64_t j = 0; j < cnt; j++)
                        memcpy(dr + j * (int64_t)es, im[j] < 0 ? fill : sb + im[j] * (int64_t)es, es);
                }
            }
            for (int a = rank - 2; a >= 0; a--) {
                if (++idx[a] < od[a]) break;
                idx[a] = 0;
            }
        }
    });
#undef KSH_GM
}
