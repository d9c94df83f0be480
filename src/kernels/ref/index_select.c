/* Selection by value: NonZero and Compress (output sizes depend on the data,
 * so infer() needs the values: K_NEED_DATA until they are known), OneHot
 * (size depends on the depth value) and ReverseSequence. */
#include "kernels/ref/shape_common.h"

static int movable_init(g_graph *g, g_node *n, void **st)
{
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

/* ---- NonZero ---- */

static int64_t count_nonzero(const k_tensor *t)
{
    int64_t k = 0, cnt = ksh_numel(&t->shape);
    size_t es = ksh_esize(t->dtype);
    if (t->dtype == G_F32 || t->dtype == G_F64 || t->dtype == G_F16 || t->dtype == G_BF16) {
        for (int64_t i = 0; i < cnt; i++) k += ksh_nonzero(t->data, t->dtype, (size_t)i);
        return k;
    }
    const unsigned char *p = t->data;   /* integers and bool: any non-zero byte */
    for (int64_t i = 0; i < cnt; i++) {
        int nz = 0;
        for (size_t b = 0; b < es; b++) nz |= p[i * (int64_t)es + b];
        k += nz != 0;
    }
    return k;
}

static int nonzero_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_I64;
    out[0].layout = G_LAYOUT_PLAIN;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = 2;
    out[0].shape.d[0] = in[0].shape.rank < 0 ? -1 : in[0].shape.rank == 0 ? 1 : in[0].shape.rank;
    out[0].shape.d[1] = -1;
    if (!in[0].data) return K_NEED_DATA;
    out[0].shape.d[1] = count_nonzero(&in[0]);
    return 0;
}

static int nonzero_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int r = x->rank;
    int64_t nnz = out[0].shape.d[1], cnt = ksh_numel(x), k = 0, idx[G_MAX_RANK] = {0};
    int64_t *o = out[0].data;
    for (int64_t i = 0; i < cnt; i++) {
        if (ksh_nonzero(in[0].data, in[0].dtype, (size_t)i)) {
            if (k >= nnz) return ksh_fail(n, KSH_EINVAL, "more non-zeros than the %lld inferred", (long long)nnz);
            if (r == 0) o[k] = 0;
            for (int a = 0; a < r; a++) o[a * nnz + k] = idx[a];
            k++;
        }
        for (int a = r - 1; a >= 0; a--) {
            if (++idx[a] < x->d[a]) break;
            idx[a] = 0;
        }
    }
    return 0;
}
static const k_op k_nonzero = {.op_type = "NonZero", .domain = "", .since = 9, .impl = "ref",
                               .init = movable_init, .infer = nonzero_infer, .run = nonzero_run};
K_REGISTER(k_nonzero);

/* ---- Compress ---- */

static int compress_init(g_graph *g, g_node *n, void **st)
{
    if (ksh_in_dtype(g, n, 1) != G_BOOL)
        return ksh_fail(n, KSH_ETYPE, "condition must be bool, got %s", g_dtype_name(ksh_in_dtype(g, n, 1)));
    return movable_init(g, n, st);
}

static int compress_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape;
    int has_axis = g_node_attr(n, "axis") != NULL, ax = 0, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) {
        ksh_set_unknown(&out[0].shape);
        return in[1].data ? 0 : K_NEED_DATA;
    }
    if (has_axis && (e = ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax))) return e;
    if (has_axis) out[0].shape = *x;
    else { memset(&out[0].shape, 0, sizeof out[0].shape); out[0].shape.rank = 1; }
    int64_t lim = has_axis ? x->d[ax] : ksh_known(x) ? ksh_numel(x) : -1;
    int64_t *dst = &out[0].shape.d[has_axis ? ax : 0];
    *dst = -1;
    if (!in[1].data) return K_NEED_DATA;
    if (lim < 0) return 0;
    int64_t len = ksh_numel(&in[1].shape), k = 0;
    if (len > lim) len = lim;
    for (int64_t i = 0; i < len; i++) k += ((const unsigned char *)in[1].data)[i] != 0;
    *dst = k;
    return 0;
}

static int compress_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int has_axis = g_node_attr(n, "axis") != NULL, ax = 0;
    if (has_axis) ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax);
    int64_t outer = has_axis ? ksh_prod(x->d, 0, ax) : 1;
    int64_t A = has_axis ? x->d[ax] : ksh_numel(x);
    int64_t inner = has_axis ? ksh_prod(x->d, ax + 1, x->rank) : 1;
    int64_t len = ksh_numel(&in[1].shape), sel = has_axis ? out[0].shape.d[ax] : out[0].shape.d[0];
    if (len > A) len = A;
    size_t blk = (size_t)inner * ksh_esize(in[0].dtype);
    const unsigned char *cond = in[1].data;
    const char *S = in[0].data;
    char *D = out[0].data;
    for (int64_t o = 0; o < outer; o++) {
        int64_t k = 0;
        for (int64_t i = 0; i < len; i++) {
            if (!cond[i]) continue;
            if (k >= sel) return ksh_fail(n, KSH_EINVAL, "more selected slices than the %lld inferred", (long long)sel);
            memcpy(D + (size_t)(o * sel + k) * blk, S + (size_t)(o * A + i) * blk, blk);
            k++;
        }
    }
    return 0;
}
static const k_op k_compress = {.op_type = "Compress", .domain = "", .since = 9, .impl = "ref",
                                .init = compress_init, .infer = compress_infer, .run = compress_run};
K_REGISTER(k_compress);

/* ---- OneHot ---- */

static int onehot_init(g_graph *g, g_node *n, void **st)
{
    int it = ksh_in_dtype(g, n, 0), dt = ksh_in_dtype(g, n, 1), vt = ksh_in_dtype(g, n, 2);
    if (!ksh_is_int(it) && !ksh_is_float(it))
        return ksh_fail(n, KSH_ETYPE, "indices of type %s are not supported", g_dtype_name(it));
    if (!ksh_is_int(dt) && !ksh_is_float(dt))
        return ksh_fail(n, KSH_ETYPE, "depth of type %s is not supported", g_dtype_name(dt));
    return ksh_check_movable(n, vt, "values");
}

static int onehot_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape;
    int ax, e;
    out[0].dtype = in[2].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) return ksh_need(out, 1);
    if (x->rank + 1 > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank exceeds %d", G_MAX_RANK);
    if ((e = ksh_axis(n, g_attr_int(n, "axis", -1), x->rank + 1, 0, &ax))) return e;
    if (!in[1].data) return ksh_need(out, 1);
    if (ksh_numel(&in[1].shape) != 1) return ksh_fail(n, KSH_EINVAL, "depth must hold one value");
    double dv = ksh_getf(in[1].data, in[1].dtype, 0);
    if (!(dv >= 1 && dv <= (double)KSH_DIM_MAX)) return ksh_fail(n, KSH_EINVAL, "depth %g is not a valid size", dv);
    int64_t depth = (int64_t)dv;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = x->rank + 1;
    for (int i = 0, j = 0; i < o.rank; i++) o.d[i] = i == ax ? depth : x->d[j++];
    out[0].shape = o;
    return 0;
}

static int onehot_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int ax;
    ksh_axis(n, g_attr_int(n, "axis", -1), x->rank + 1, 0, &ax);
    if (ksh_numel(&in[2].shape) != 2) return ksh_fail(n, KSH_EINVAL, "values must hold 2 elements");
    int64_t depth = out[0].shape.d[ax], outer = ksh_prod(x->d, 0, ax), inner = ksh_prod(x->d, ax, x->rank);
    size_t es = ksh_esize(out[0].dtype);
    const char *vals = in[2].data;
    char *D = out[0].data;
    ksh_fill(D, vals, es, (size_t)ksh_numel(&out[0].shape));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t v = (int64_t)ksh_getf(in[0].data, in[0].dtype, (size_t)(o * inner + i));
            if (v < 0) v += depth;
            if (v < 0 || v >= depth) continue;
            memcpy(D + (size_t)((o * depth + v) * inner + i) * es, vals + es, es);
        }
    return 0;
}
static const k_op k_onehot = {.op_type = "OneHot", .domain = "", .since = 9, .impl = "ref",
                              .init = onehot_init, .infer = onehot_infer, .run = onehot_run};
K_REGISTER(k_onehot);

/* ---- ReverseSequence ---- */

static int revseq_axes(const g_node *n, int rank, int *bax, int *tax)
{
    int64_t b = g_attr_int(n, "batch_axis", 1), t = g_attr_int(n, "time_axis", 0);
    if (!((b == 0 && t == 1) || (b == 1 && t == 0)))
        return ksh_fail(n, KSH_EINVAL, "batch_axis %lld and time_axis %lld must be 0 and 1 in some order",
                        (long long)b, (long long)t);
    if (rank >= 0 && rank < 2) return ksh_fail(n, KSH_EINVAL, "input rank %d must be >= 2", rank);
    *bax = (int)b;
    *tax = (int)t;
    return 0;
}

static int revseq_init(g_graph *g, g_node *n, void **st)
{
    int b, t, e;
    if ((e = revseq_axes(n, -1, &b, &t))) return e;
    if (ksh_in_dtype(g, n, 1) != G_I64 && ksh_in_dtype(g, n, 1) != G_I32)
        return ksh_fail(n, KSH_ETYPE, "sequence_lens must be int64, got %s", g_dtype_name(ksh_in_dtype(g, n, 1)));
    return movable_init(g, n, st);
}

static int revseq_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int b, t;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    out[0].shape = in[0].shape;
    return revseq_axes(n, in[0].shape.rank, &b, &t);
}

static int revseq_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int bax = 1, tax = 0, e;
    if ((e = revseq_axes(n, x->rank, &bax, &tax))) return e;
    int64_t B = x->d[bax], T = x->d[tax], inner = ksh_prod(x->d, 2, x->rank);
    if (ksh_numel(&in[1].shape) != B)
        return ksh_fail(n, KSH_EINVAL, "sequence_lens has %lld values for batch %lld",
                        (long long)ksh_numel(&in[1].shape), (long long)B);
    size_t blk = (size_t)inner * ksh_esize(in[0].dtype);
    /* element offsets (in blocks) of (batch b, time t) */
    int64_t sb = bax == 0 ? T : 1, sT = tax == 0 ? B : 1;
    const char *S = in[0].data;
    char *D = out[0].data;
    for (int64_t b = 0; b < B; b++) {
        int64_t len = ksh_geti(in[1].data, in[1].dtype, (size_t)b);
        if (len < 0 || len > T)
            return ksh_fail(n, KSH_EINVAL, "sequence_lens[%lld] = %lld is outside [0, %lld]", (long long)b,
                            (long long)len, (long long)T);
        for (int64_t t = 0; t < T; t++) {
            int64_t src = t < len ? len - 1 - t : t;
            memcpy(D + (size_t)(b * sb + t * sT) * blk, S + (size_t)(b * sb + src * sT) * blk, blk);
        }
    }
    return 0;
}
static const k_op k_revseq = {.op_type = "ReverseSequence", .domain = "", .since = 10, .impl = "ref",
                              .init = revseq_init, .infer = revseq_infer, .run = revseq_run};
K_REGISTER(k_revseq);
