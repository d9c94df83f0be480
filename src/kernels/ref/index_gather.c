/* Index-driven reads: Gather, GatherElements, GatherND. Every index is
 * checked against its axis before any data is touched; a bad one fails the
 * run naming the node, the index position and its value. */
#include "core/par.h"
#include "kernels/ref/shape_common.h"
#include <omp.h>

static inline int64_t idx_at(const void *p, int dt, int64_t i)
{
    return dt == G_I64 ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

/* Checks all n indices against [-lim, lim). */
static int check_indices(const g_node *n, const void *p, int dt, int64_t cnt, int64_t lim, int axis)
{
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = idx_at(p, dt, i);
        if (v < -lim || v >= lim)
            return ksh_fail(n, KSH_EINVAL, "index %lld at position %lld is out of range [%lld, %lld) for axis %d",
                            (long long)v, (long long)i, (long long)-lim, (long long)lim, axis);
    }
    return 0;
}

static int gather_init_common(g_graph *g, g_node *n)
{
    int dt = ksh_in_dtype(g, n, 1);
    if (dt != G_I32 && dt != G_I64)
        return ksh_fail(n, KSH_ETYPE, "indices must be int32 or int64, got %s", g_dtype_name(dt));
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}
static int gather_init(g_graph *g, g_node *n, void **st) { return gather_init_common(g, n); }

/* Copies one element or a block of `es` bytes. */
static inline void copy_elem(char *d, const char *s, size_t es)
{
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, es);
    }
}

/* ---- Gather ---- */

static int gather_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape;
    int ax, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0 || ix->rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax))) return e;
    int r = x->rank - 1 + ix->rank;
    if (r > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank %d exceeds %d", r, G_MAX_RANK);
    g_shape o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < ax; i++) o.d[o.rank++] = x->d[i];
    for (int i = 0; i < ix->rank; i++) o.d[o.rank++] = ix->d[i];
    for (int i = ax + 1; i < x->rank; i++) o.d[o.rank++] = x->d[i];
    out[0].shape = o;
    return 0;
}

static int gather_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int ax, e;
    ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax);
    int64_t outer = ksh_prod(x->d, 0, ax), A = x->d[ax], inner = ksh_prod(x->d, ax + 1, x->rank);
    int64_t ni = ksh_numel(&in[1].shape);
    int idt = in[1].dtype;
    if ((e = check_indices(n, in[1].data, idt, ni, A, ax))) return e;
    size_t es = ksh_esize(in[0].dtype), blk = (size_t)inner * es;
    const char *S = in[0].data;
    char *D = out[0].data;
    int64_t jobs = outer * ni;
    int nt = ksh_threads(c, (size_t)jobs * blk);
    OA_PAR_FOR(nt, for (int64_t j = 0; j < jobs; j++) {
        int64_t o = j / ni, k = j % ni, v = idx_at(in[1].data, idt, k);
        if (v < 0) v += A;
        const char *s = S + (size_t)(o * A + v) * blk;
        if (inner == 1) copy_elem(D + (size_t)j * blk, s, es);
        else memcpy(D + (size_t)j * blk, s, blk);
    });
    return 0;
}
static const k_op k_gather = {.op_type = "Gather", .domain = "", .since = 1, .impl = "ref",
                              .init = gather_init, .infer = gather_infer, .run = gather_run};
K_REGISTER(k_gather);

/* ---- GatherElements ---- */

static int gel_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int ax, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    out[0].shape = in[1].shape;
    if (in[0].shape.rank < 0 || in[1].shape.rank < 0) return 0;
    if (in[0].shape.rank != in[1].shape.rank)
        return ksh_fail(n, KSH_EINVAL, "data rank %d differs from indices rank %d", in[0].shape.rank,
                        in[1].shape.rank);
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 0), in[0].shape.rank, 0, &ax))) return e;
    return 0;
}

static int gel_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape;
    int r = x->rank, ax, e, idt = in[1].dtype;
    ksh_axis(n, g_attr_int(n, "axis", 0), r, 0, &ax);
    int64_t cnt = ksh_numel(ix), xs[G_MAX_RANK];
    if ((e = check_indices(n, in[1].data, idt, cnt, x->d[ax], ax))) return e;
    for (int a = 0; a < r; a++)
        if (a != ax && ix->d[a] > x->d[a])
            return ksh_fail(n, KSH_EINVAL, "indices dim %d (%lld) exceeds data dim (%lld)", a,
                            (long long)ix->d[a], (long long)x->d[a]);
    ksh_strides(x, xs);
    size_t es = ksh_esize(in[0].dtype);
    const char *S = in[0].data;
    char *D = out[0].data;
    int64_t idx[G_MAX_RANK] = {0}, base = 0;   /* base: offset without the axis term */
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = idx_at(in[1].data, idt, i);
        if (v < 0) v += x->d[ax];
        copy_elem(D + (size_t)i * es, S + (size_t)(base + v * xs[ax]) * es, es);
        for (int a = r - 1; a >= 0; a--) {
            if (++idx[a] < ix->d[a]) { if (a != ax) base += xs[a]; break; }
            if (a != ax) base -= (ix->d[a] - 1) * xs[a];
            idx[a] = 0;
        }
    }
    return 0;
}
static const k_op k_gel = {.op_type = "GatherElements", .domain = "", .since = 11, .impl = "ref",
                           .init = gather_init, .infer = gel_infer, .run = gel_run};
K_REGISTER(k_gel);

/* ---- GatherND ---- */

static int gnd_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape;
    int64_t b = n->opset >= 12 ? g_attr_int(n, "batch_dims", 0) : 0;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (ix->rank == 0) return ksh_fail(n, KSH_EINVAL, "indices must have rank >= 1");
    if (x->rank < 0 || ix->rank < 0 || ix->d[ix->rank - 1] < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    int64_t m = ix->d[ix->rank - 1];
    if (b < 0 || b >= ix->rank || b >= x->rank)
        return ksh_fail(n, KSH_EINVAL, "batch_dims %lld invalid for ranks %d and %d", (long long)b,
                        x->rank, ix->rank);
    if (m < 1 || m > x->rank - b)
        return ksh_fail(n, KSH_EINVAL, "indices last dim %lld must be in [1, %lld]", (long long)m,
                        (long long)(x->rank - b));
    for (int i = 0; i < b; i++)
        if (x->d[i] >= 0 && ix->d[i] >= 0 && x->d[i] != ix->d[i])
            return ksh_fail(n, KSH_EINVAL, "batch dim %d differs: data %lld, indices %lld", i,
                            (long long)x->d[i], (long long)ix->d[i]);
    g_shape o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < ix->rank - 1; i++) o.d[o.rank++] = ix->d[i];
    for (int i = (int)(b + m); i < x->rank; i++) {
        if (o.rank >= G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank exceeds %d", G_MAX_RANK);
        o.d[o.rank++] = x->d[i];
    }
    out[0].shape = o;
    return 0;
}

static int gnd_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape, *ix = &in[1].shape;
    int b = n->opset >= 12 ? (int)g_attr_int(n, "batch_dims", 0) : 0, idt = in[1].dtype;
    if (ix->rank < 1 || b < 0 || b >= ix->rank || b >= x->rank)
        return ksh_fail(n, KSH_EINVAL, "indices rank %d / batch_dims %d invalid", ix->rank, b);
    int m = (int)ix->d[ix->rank - 1];
    if (m < 1 || b + m > x->rank)
        return ksh_fail(n, KSH_EINVAL, "indices last dim %d invalid for data rank %d", m, x->rank);
    int64_t xs[G_MAX_RANK];
    ksh_strides(x, xs);
    int64_t nb = ksh_prod(x->d, 0, b), per = ksh_prod(ix->d, b, ix->rank - 1);
    int64_t slice = ksh_prod(x->d, b + m, x->rank), bstride = ksh_prod(x->d, b, x->rank);
    size_t es = ksh_esize(in[0].dtype), blk = (size_t)slice * es;
    const char *S = in[0].data;
    char *D = out[0].data;
    for (int64_t t = 0; t < nb * per; t++) {
        int64_t off = (t / per) * bstride;
        for (int j = 0; j < m; j++) {
            int64_t v = idx_at(in[1].data, idt, t * m + j), lim = x->d[b + j];
            if (v < -lim || v >= lim)
                return ksh_fail(n, KSH_EINVAL, "index %lld (tuple %lld, component %d) is out of range "
                                "[%lld, %lld) for data axis %d", (long long)v, (long long)t, j,
                                (long long)-lim, (long long)lim, b + j);
            off += (v < 0 ? v + lim : v) * xs[b + j];
        }
        memcpy(D + (size_t)t * blk, S + (size_t)off * es, blk);
    }
    return 0;
}
static const k_op k_gnd = {.op_type = "GatherND", .domain = "", .since = 11, .impl = "ref",
                           .init = gather_init, .infer = gnd_infer, .run = gnd_run};
K_REGISTER(k_gnd);
