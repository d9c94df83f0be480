/* Broadcasting data movers: Expand (zero strides on broadcast axes), Tile
 * (output viewed as [rep0, d0, rep1, d1, ...] reading with zero strides on
 * the rep axes) and Where (three-way broadcast select). */
#include "core/par.h"
#include "kernels/ref/shape_common.h"

/* Source strides of `x` broadcast to `o` (right-aligned; 0 on broadcast axes). */
static void bcast_strides(const g_shape *x, const g_shape *o, int64_t *st)
{
    int64_t xs[G_MAX_RANK];
    ksh_strides(x, xs);
    for (int i = 0; i < o->rank; i++) {
        int j = i - (o->rank - x->rank);
        st[i] = (j < 0 || x->d[j] == 1) ? 0 : xs[j];
    }
}

/* ---- Expand ---- */

static int expand_init(g_graph *g, g_node *n, void **st)
{
    if (ksh_in_dtype(g, n, 1) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "the 'shape' input must be int64, got %s",
                        g_dtype_name(ksh_in_dtype(g, n, 1)));
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

static int expand_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t v[G_MAX_RANK];
    int k, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (!in[1].data) return ksh_need(out, 1);
    if ((e = ksh_read_ints(n, &in[1], 1, v, G_MAX_RANK, &k))) return e;
    if (in[0].shape.rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    g_shape s;
    memset(&s, 0, sizeof s);
    s.rank = k;
    for (int i = 0; i < k; i++) {
        if (v[i] < 0 || v[i] > KSH_DIM_MAX)
            return ksh_fail(n, KSH_EINVAL, "shape[%d] = %lld is invalid", i, (long long)v[i]);
        s.d[i] = v[i];
    }
    return ksh_broadcast(n, &in[0].shape, &s, &out[0].shape);
}

static int expand_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t sst[G_MAX_RANK], ost[G_MAX_RANK];
    const g_shape *o = &out[0].shape;
    if (ksh_numel(o) == 0) return 0;
    bcast_strides(&in[0].shape, o, sst);
    ksh_strides(o, ost);
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, in[0].data, sst, o->d, o->rank, es,
                ksh_threads(c, (size_t)ksh_numel(o) * es));
    return 0;
}
static const k_op k_expand = {.op_type = "Expand", .domain = "", .since = 8, .impl = "ref",
                              .init = expand_init, .infer = expand_infer, .run = expand_run};
K_REGISTER(k_expand);

/* ---- Tile ---- */

static int tile_init(g_graph *g, g_node *n, void **st)
{
    int dt = ksh_in_dtype(g, n, 1);
    if (dt != G_I64 && dt != G_I32)
        return ksh_fail(n, KSH_ETYPE, "the 'repeats' input must be int64, got %s", g_dtype_name(dt));
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

static int tile_reps(const g_node *n, const k_tensor *in, int64_t *v)
{
    int k, e;
    if ((e = ksh_read_ints(n, &in[1], 1, v, G_MAX_RANK, &k))) return e;
    if (k != in[0].shape.rank)
        return ksh_fail(n, KSH_EINVAL, "repeats has %d values, the input has rank %d", k, in[0].shape.rank);
    for (int i = 0; i < k; i++)
        if (v[i] < 0 || v[i] > KSH_DIM_MAX)
            return ksh_fail(n, KSH_EINVAL, "repeats[%d] = %lld is invalid", i, (long long)v[i]);
    return 0;
}

static int tile_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t v[G_MAX_RANK];
    int e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (!in[1].data) return ksh_need(out, 1);
    if (in[0].shape.rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if ((e = tile_reps(n, in, v))) return e;
    out[0].shape = in[0].shape;
    for (int i = 0; i < in[0].shape.rank; i++) {
        int64_t p;
        if (in[0].shape.d[i] < 0) p = -1;
        else if (__builtin_mul_overflow(in[0].shape.d[i], v[i], &p) || p > KSH_DIM_MAX)
            return ksh_fail(n, KSH_EINVAL, "tiling dim %d by %lld is too large", i, (long long)v[i]);
        out[0].shape.d[i] = p;
    }
    return 0;
}

static int tile_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t v[G_MAX_RANK], ist[G_MAX_RANK], dims[2 * G_MAX_RANK], sst[2 * G_MAX_RANK],
            ost[2 * G_MAX_RANK];
    int r = in[0].shape.rank, e;
    if ((e = tile_reps(n, in, v))) return e;
    if (ksh_numel(&out[0].shape) == 0) return 0;
    ksh_strides(&in[0].shape, ist);
    for (int a = 0; a < r; a++) {
        dims[2 * a] = v[a];
        dims[2 * a + 1] = in[0].shape.d[a];
        sst[2 * a] = 0;
        sst[2 * a + 1] = ist[a];
    }
    int64_t k = 1;
    for (int i = 2 * r - 1; i >= 0; i--) { ost[i] = k; k *= dims[i]; }
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, in[0].data, sst, dims, 2 * r, es, ksh_threads(c, (size_t)k * es));
    return 0;
}
static const k_op k_tile = {.op_type = "Tile", .domain = "", .since = 6, .impl = "ref",
                            .init = tile_init, .infer = tile_infer, .run = tile_run};
K_REGISTER(k_tile);

/* ---- Where ---- */

static int where_init(g_graph *g, g_node *n, void **st)
{
    if (ksh_in_dtype(g, n, 0) != G_BOOL)
        return ksh_fail(n, KSH_ETYPE, "condition must be bool, got %s", g_dtype_name(ksh_in_dtype(g, n, 0)));
    if (ksh_in_dtype(g, n, 1) != ksh_in_dtype(g, n, 2))
        return ksh_fail(n, KSH_ETYPE, "X is %s but Y is %s", g_dtype_name(ksh_in_dtype(g, n, 1)),
                        g_dtype_name(ksh_in_dtype(g, n, 2)));
    return ksh_check_movable(n, ksh_in_dtype(g, n, 1), "input X");
}

static int where_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    g_shape t;
    int e;
    out[0].dtype = in[1].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (in[0].shape.rank < 0 || in[1].shape.rank < 0 || in[2].shape.rank < 0) {
        ksh_set_unknown(&out[0].shape);
        return 0;
    }
    if ((e = ksh_broadcast(n, &in[0].shape, &in[1].shape, &t))) return e;
    return ksh_broadcast(n, &t, &in[2].shape, &out[0].shape);
}

static int where_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *o = &out[0].shape;
    int r = o->rank;
    int64_t cs[G_MAX_RANK + 1], xs[G_MAX_RANK + 1], ys[G_MAX_RANK + 1];
    int64_t total = ksh_numel(o);
    if (total == 0) return 0;
    bcast_strides(&in[0].shape, o, cs);
    bcast_strides(&in[1].shape, o, xs);
    bcast_strides(&in[2].shape, o, ys);
    int64_t inner = r ? o->d[r - 1] : 1, nrow = total / inner;
    int64_t ci = r ? cs[r - 1] : 0, xi = r ? xs[r - 1] : 0, yi = r ? ys[r - 1] : 0;
    size_t es = ksh_esize(out[0].dtype);
    const unsigned char *C = in[0].data;
    const char *X = in[1].data, *Y = in[2].data;
    char *O = out[0].data;
    int nt = ksh_threads(c, (size_t)total * es);
    OA_PAR_FOR(nt, for (int64_t row = 0; row < nrow; row++) {
        int64_t q = row, co = 0, xo = 0, yo = 0;
        for (int a = r - 2; a >= 0; a--) {
            int64_t i = q % o->d[a];
            q /= o->d[a];
            co += i * cs[a]; xo += i * xs[a]; yo += i * ys[a];
        }
        char *dr = O + row * inner * (int64_t)es;
        for (int64_t j = 0; j < inner; j++) {
            const char *src = C[co + j * ci] ? X + (xo + j * xi) * (int64_t)es : Y + (yo + j * yi) * (int64_t)es;
            switch (es) {
            case 1: dr[j] = *src; break;
            case 2: memcpy(dr + 2 * j, src, 2); break;
            case 4: memcpy(dr + 4 * j, src, 4); break;
            case 8: memcpy(dr + 8 * j, src, 8); break;
            default: memcpy(dr + j * (int64_t)es, src, es);
            }
        }
    });
    return 0;
}
static const k_op k_where = {.op_type = "Where", .domain = "", .since = 9, .impl = "ref",
                             .init = where_init, .infer = where_infer, .run = where_run};
K_REGISTER(k_where);
