/* View ops, whose output holds the input's bytes unchanged (Reshape, Flatten,
 * Squeeze, Unsqueeze): run() is a memcpy only when the engine did not alias
 * the output onto the input. Also the shape queries Shape and Size. */
#include "kernels/ref/shape_common.h"

#define KSH_REF(var, name, lo, hi, ini, inf, rn)                                      \
    static const k_op var = {.op_type = name, .domain = "", .since = lo, .until = hi, \
                             .impl = "ref", .priority = 0, .init = ini, .infer = inf, \
                             .run = rn};                                              \
    K_REGISTER(var)

static int view_init(g_graph *g, g_node *n, void **st)
{
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

static int view_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    size_t b = (size_t)ksh_numel(&out[0].shape) * ksh_esize(out[0].dtype);
    if (b > in[0].nbytes && in[0].nbytes) b = in[0].nbytes;
    if (b && out[0].data != in[0].data) memcpy(out[0].data, in[0].data, b);
    return 0;
}

/* ---- Reshape ---- */

static int reshape_init(g_graph *g, g_node *n, void **st)
{
    int r = view_init(g, n, st);
    if (r) return r;
    if (n->opset >= 5 && (n->n_in < 2 || n->in[1] < 0))
        return ksh_fail(n, KSH_EINVAL, "the 'shape' input is missing");
    if (n->opset >= 5 && ksh_in_dtype(g, n, 1) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "the 'shape' input must be int64, got %s",
                        g_dtype_name(ksh_in_dtype(g, n, 1)));
    return 0;
}

static int reshape_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t v[G_MAX_RANK + 1];
    int k = 0, r;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (n->opset < 5) {
        const int64_t *a;
        k = g_attr_ints(n, "shape", &a);
        if (k < 0) return ksh_fail(n, KSH_EINVAL, "attribute 'shape' is missing");
        if (k > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "target rank %d exceeds %d", k, G_MAX_RANK);
        memcpy(v, a, (size_t)k * sizeof *v);
    } else {
        if (!in[1].data) return ksh_need(out, 1);
        if ((r = ksh_read_ints(n, &in[1], 1, v, G_MAX_RANK, &k))) return r;
    }
    int allowzero = n->opset >= 14 ? (int)g_attr_int(n, "allowzero", 0) : 0;
    int neg = -1;
    int64_t known = 1;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = k;
    for (int i = 0; i < k; i++) {
        int64_t d = v[i];
        if (d == 0 && !allowzero) {
            if (in[0].shape.rank >= 0 && i >= in[0].shape.rank)
                return ksh_fail(n, KSH_EINVAL, "shape[%d] = 0 copies input dim %d, but the input has rank %d",
                                i, i, in[0].shape.rank);
            d = in[0].shape.rank < 0 ? -1 : in[0].shape.d[i];
        } else if (d == -1) {
            if (neg >= 0) return ksh_fail(n, KSH_EINVAL, "more than one -1 in the target shape");
            neg = i;
            o.d[i] = -1;
            continue;
        } else if (d < -1) {
            return ksh_fail(n, KSH_EINVAL, "shape[%d] = %lld is invalid", i, (long long)d);
        }
        o.d[i] = d;
        if (d < 0) known = -1;
        else if (known >= 0) {
            if (d > KSH_DIM_MAX || (d && known > KSH_DIM_MAX / d))
                return ksh_fail(n, KSH_EINVAL, "target shape too large (dim %d = %lld)", i, (long long)d);
            known *= d;
        }
    }
    if (allowzero && neg >= 0)
        for (int i = 0; i < k; i++)
            if (v[i] == 0) return ksh_fail(n, KSH_EINVAL, "allowzero=1 with both 0 and -1 in the shape");
    int64_t tot = in[0].shape.rank >= 0 && ksh_known(&in[0].shape) ? ksh_numel(&in[0].shape) : -1;
    if (neg >= 0) {
        if (tot >= 0 && known > 0) {
            if (tot % known)
                return ksh_fail(n, KSH_EINVAL, "cannot infer -1: %lld elements are not divisible by %lld",
                                (long long)tot, (long long)known);
            o.d[neg] = tot / known;
        } else if (tot == 0 && known == 0) {
            o.d[neg] = 0;
        } else if (tot >= 0 && known == 0) {
            return ksh_fail(n, KSH_EINVAL, "cannot infer -1 with a zero-sized target dim");
        }
    } else if (tot >= 0 && known >= 0 && tot != known) {
        char a[96];
        return ksh_fail(n, KSH_EINVAL, "input %s has %lld elements, target shape has %lld",
                        g_shape_str(&in[0].shape, a, sizeof a), (long long)tot, (long long)known);
    }
    out[0].shape = o;
    return 0;
}
KSH_REF(k_reshape, "Reshape", 1, 0, reshape_init, reshape_infer, view_run);

/* ---- Flatten ---- */

static int flatten_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int r = in[0].shape.rank, ax, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (r < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 1), r, 1, &ax))) return e;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = 2;
    o.d[0] = o.d[1] = 1;
    for (int i = 0; i < r; i++) {
        int64_t *t = &o.d[i < ax ? 0 : 1];
        if (in[0].shape.d[i] < 0 || *t < 0) *t = -1;
        else *t *= in[0].shape.d[i];
    }
    out[0].shape = o;
    return 0;
}
KSH_REF(k_flatten, "Flatten", 1, 0, view_init, flatten_infer, view_run);

/* ---- Squeeze / Unsqueeze: axes from the attribute (< 13) or input 1 ---- */

/* Returns 0 with *k = -1 when no axes were given, K_NEED_DATA when the axes
 * input's value is unknown. */
static int get_axes(const g_node *n, const k_tensor *in, int64_t *v, int *k)
{
    *k = -1;
    if (n->opset < 13) {
        const int64_t *a;
        int c = g_attr_ints(n, "axes", &a);
        if (c < 0) return 0;
        if (c > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "%d axes given, at most %d", c, G_MAX_RANK);
        memcpy(v, a, (size_t)c * sizeof *v);
        *k = c;
        return 0;
    }
    if (!ksh_has(n, in, 1)) return 0;
    if (!in[1].data) return K_NEED_DATA;
    return ksh_read_ints(n, &in[1], 1, v, G_MAX_RANK, k);
}

static int squeeze_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t v[G_MAX_RANK];
    int k, r = in[0].shape.rank, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if ((e = get_axes(n, in, v, &k))) return e == K_NEED_DATA ? ksh_need(out, 1) : e;
    if (r < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    int drop[G_MAX_RANK] = {0};
    if (k < 0) {
        for (int i = 0; i < r; i++) {
            if (in[0].shape.d[i] < 0) { ksh_set_unknown(&out[0].shape); return 0; }
            drop[i] = in[0].shape.d[i] == 1;
        }
    } else {
        for (int i = 0; i < k; i++) {
            int a;
            if ((e = ksh_axis(n, v[i], r, 0, &a))) return e;
            if (in[0].shape.d[a] >= 0 && in[0].shape.d[a] != 1)
                return ksh_fail(n, KSH_EINVAL, "cannot squeeze axis %d of size %lld", a,
                                (long long)in[0].shape.d[a]);
            drop[a] = 1;
        }
    }
    g_shape o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < r; i++)
        if (!drop[i]) o.d[o.rank++] = in[0].shape.d[i];
    out[0].shape = o;
    return 0;
}
KSH_REF(k_squeeze, "Squeeze", 1, 0, view_init, squeeze_infer, view_run);

static int unsqueeze_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t v[G_MAX_RANK];
    int k, r = in[0].shape.rank, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if ((e = get_axes(n, in, v, &k))) return e == K_NEED_DATA ? ksh_need(out, 1) : e;
    if (k < 0) return ksh_fail(n, KSH_EINVAL, "the axes are missing");
    if (r < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    int orank = r + k;
    if (orank > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank %d exceeds %d", orank, G_MAX_RANK);
    int ins[G_MAX_RANK] = {0};
    for (int i = 0; i < k; i++) {
        int a;
        if ((e = ksh_axis(n, v[i], orank, 0, &a))) return e;
        if (ins[a]) return ksh_fail(n, KSH_EINVAL, "axis %lld repeated", (long long)v[i]);
        ins[a] = 1;
    }
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = orank;
    for (int i = 0, j = 0; i < orank; i++) o.d[i] = ins[i] ? 1 : in[0].shape.d[j++];
    out[0].shape = o;
    return 0;
}
KSH_REF(k_unsqueeze, "Unsqueeze", 1, 0, view_init, unsqueeze_infer, view_run);

/* ---- Shape / Size: need only the input's shape, in any layout ---- */

static int any_layout(const g_node *n, void *st, int idx, int layout) { return 1; }

static int shape_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_in != 1 || n->n_out != 1 || n->in[0] < 0)
        return ksh_fail(n, KSH_EINVAL, "expects 1 input and 1 output, got %d and %d",
                        n->n_in == 1 && n->in[0] < 0 ? 0 : n->n_in, n->n_out);
    return 0;
}

static void shape_range(const g_node *n, int r, int64_t *s, int64_t *e)
{
    int64_t a = 0, b = r;
    if (n->opset >= 15) {
        a = g_attr_int(n, "start", 0);
        b = g_attr_int(n, "end", r);
        if (a < 0) a += r;
        if (b < 0) b += r;
        a = a < 0 ? 0 : a > r ? r : a;
        b = b < 0 ? 0 : b > r ? r : b;
        if (b < a) b = a;
    }
    *s = a; *e = b;
}

static int shape_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_I64;
    out[0].layout = G_LAYOUT_PLAIN;
    if (in[0].shape.rank < 0) {
        out[0].shape.rank = 1;
        out[0].shape.d[0] = -1;
        return 0;
    }
    int64_t a, b;
    shape_range(n, in[0].shape.rank, &a, &b);
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = 1;
    out[0].shape.d[0] = b - a;
    return 0;
}

static int shape_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t a, b;
    shape_range(n, in[0].shape.rank, &a, &b);
    for (int64_t i = a; i < b; i++) ksh_seti(out[0].data, G_I64, (size_t)(i - a), in[0].shape.d[i]);
    return 0;
}
static const k_op k_shape = {.op_type = "Shape", .domain = "", .since = 1, .impl = "ref",
                             .init = shape_init, .infer = shape_infer, .run = shape_run,
                             .accepts_layout = any_layout};
K_REGISTER(k_shape);

static int size_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_I64;
    out[0].layout = G_LAYOUT_PLAIN;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    return 0;
}

static int size_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    ksh_seti(out[0].data, G_I64, 0, ksh_numel(&in[0].shape));
    return 0;
}
static const k_op k_size = {.op_type = "Size", .domain = "", .since = 1, .impl = "ref",
                            .init = shape_init, .infer = size_infer, .run = size_run,
                            .accepts_layout = any_layout};
K_REGISTER(k_size);
