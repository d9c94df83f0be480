/* Concat and Split: each input (output) is a [outer, inner] block copied at a
 * column offset of the [outer, total] output (input), so one ksh_copy_nd per
 * part; with axis 0 every part is a single memcpy. */
#include "kernels/ref/shape_common.h"
#include "core/par.h"

/* ---- Concat ---- */

static int concat_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_in < 1) return ksh_fail(n, KSH_EINVAL, "no inputs");
    if (!g_node_attr(n, "axis") && n->opset >= 4)   /* Concat-1 defaulted to axis 1 */
        return ksh_fail(n, KSH_EINVAL, "attribute 'axis' is missing");
    int e = ksh_check_same_movable(g, n);
    if (e) return e;
    /* the state: whether channels-last channel concats go pixel by pixel
     * (concat_pixels; read at load, so an A/B of two loads compares both) */
    const char *v = getenv("OPENACL_CONCAT_PIXEL");
    int *pix = malloc(sizeof *pix);
    if (!pix) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    *pix = !(v && !strcmp(v, "0"));
    *st = pix;
    return 0;
}

static void concat_fini(void *st) { free(st); }

static int concat_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int r = -1, ax, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    for (int i = 0; i < n->n_in; i++)
        if (in[i].shape.rank >= 0) { r = in[i].shape.rank; break; }
    if (r < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 1), r, 0, &ax))) return e;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (int a = 0; a < r; a++) o.d[a] = a == ax ? 0 : -1;
    for (int i = 0; i < n->n_in; i++) {
        const g_shape *s = &in[i].shape;
        if (s->rank < 0) { o.d[ax] = -1; continue; }
        if (s->rank != r) return ksh_fail(n, KSH_EINVAL, "input %d has rank %d, expected %d", i, s->rank, r);
        for (int a = 0; a < r; a++) {
            if (a == ax) {
                o.d[ax] = (o.d[ax] < 0 || s->d[a] < 0) ? -1 : o.d[ax] + s->d[a];
            } else if (s->d[a] >= 0) {
                if (o.d[a] >= 0 && o.d[a] != s->d[a])
                    return ksh_fail(n, KSH_EINVAL, "input %d has dim %lld on axis %d, expected %lld",
                                    i, (long long)s->d[a], a, (long long)o.d[a]);
                o.d[a] = s->d[a];
            }
        }
    }
    out[0].shape = o;
    for (int i = 0; i < n->n_in; i++)
        if (ksh_nhwc(&in[i]) && r == 4) out[0].layout = G_LAYOUT_NHWC;
    return 0;
}

/* A channel concat of channels-last tensors: pixel by pixel, every part's
 * channel run copied in turn, so the output is written front to back in one
 * pass (a pass per part would stride through the whole output once for
 * each). OPENACL_CONCAT_PIXEL=0 turns it off (per-part copies). Returns 0
 * when the layouts are not all channels-last along axis 1. */
static int concat_pixels(const g_node *n, const k_tensor *in, k_tensor *out, int ax, size_t es, int nt)
{
    if (ax != 1 || !ksh_nhwc(&out[0]) || out[0].shape.rank != 4 || n->n_in > 256) return 0;
    for (int i = 0; i < n->n_in; i++)
        if (!ksh_nhwc(&in[i]) || in[i].dtype != out[0].dtype) return 0;
    const g_shape *sh = &out[0].shape;
    int64_t P = sh->d[0] * sh->d[2] * sh->d[3], C = sh->d[1];
    size_t row[256], at[256];
    const char *src[256];
    char *y = out[0].data;
    int parts = 0;
    int64_t c0 = 0;
    for (int i = 0; i < n->n_in; i++) {
        int64_t Ck = in[i].shape.d[1];
        /* a part the memory plan placed in the output is already there */
        if (Ck > 0 && (const char *)in[i].data != y + (size_t)c0 * es) {
            row[parts] = (size_t)Ck * es;
            at[parts] = (size_t)c0 * es;
            src[parts++] = in[i].data;
        }
        c0 += Ck;
    }
    size_t orow = (size_t)C * es;
    enum { PIX = 16 };
    int64_t tasks = (P + PIX - 1) / PIX;
    OA_PAR_FOR(nt, for (int64_t t = 0; t < tasks; t++) {
        int64_t p1 = (t + 1) * PIX < P ? (t + 1) * PIX : P;
        for (int64_t p = t * PIX; p < p1; p++)
            for (int k = 0; k < parts; k++)
                memcpy(y + (size_t)p * orow + at[k], src[k] + (size_t)p * row[k], row[k]);
    });
    return 1;
}

/* Each input lands at its offset along the axis; strides follow each
 * tensor's own layout, so plain and channels-last inputs mix freely (for
 * plain tensors the copy coalesces into [outer, block] rows). An input
 * already at its place (same address) is skipped, so a slice the planner
 * placed in the output costs nothing. */
static int concat_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int r = out[0].shape.rank, ax;
    ksh_axis(n, g_attr_int(n, "axis", 1), r, 0, &ax);
    size_t es = ksh_esize(out[0].dtype);
    int64_t ost[G_MAX_RANK], ist[G_MAX_RANK], off = 0;
    ksh_lstrides(&out[0], ost);
    int nt = ksh_threads(c, (size_t)ksh_numel(&out[0].shape) * es);
    if (st && *(const int *)st && concat_pixels(n, in, out, ax, es, nt)) return 0;
    for (int i = 0; i < n->n_in; i++) {
        char *dst = (char *)out[0].data + off * ost[ax] * (int64_t)es;
        off += in[i].shape.d[ax];
        /* an input the memory plan placed in its slice of the output
         * (concat in place, graph/plan.h) is already there */
        if (ksh_numel(&in[i].shape) == 0 || (const char *)in[i].data == dst) continue;
        ksh_lstrides(&in[i], ist);
        ksh_copy_nd(dst, ost, in[i].data, ist, in[i].shape.d, r, es, nt);
    }
    return 0;
}
static const k_op k_concat = {.op_type = "Concat", .domain = "", .since = 1, .impl = "ref",
                              .init = concat_init, .infer = concat_infer, .run = concat_run,
                              .fini = concat_fini, .accepts_layout = ksh_accept_all};
K_REGISTER(k_concat);

/* ---- Split ---- */

static int split_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_out < 1) return ksh_fail(n, KSH_EINVAL, "no outputs");
    if (n->opset >= 13 && ksh_in_dtype(g, n, 1) != G_UNDEF && ksh_in_dtype(g, n, 1) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "the 'split' input must be int64, got %s",
                        g_dtype_name(ksh_in_dtype(g, n, 1)));
    if (n->opset >= 18 && g_node_attr(n, "num_outputs") &&
        g_attr_int(n, "num_outputs", 0) != n->n_out)
        return ksh_fail(n, KSH_EINVAL, "num_outputs = %lld but the node has %d outputs",
                        (long long)g_attr_int(n, "num_outputs", 0), n->n_out);
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

static int split_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int r = in[0].shape.rank, ax, e, k = -1, no = n->n_out;
    int64_t v[256];
    for (int i = 0; i < no; i++) { out[i].dtype = in[0].dtype; out[i].layout = G_LAYOUT_PLAIN; }
    if (n->opset < 13) {
        const int64_t *a;
        k = g_attr_ints(n, "split", &a);
        if (k > 256) return ksh_fail(n, KSH_EUNSUP, "more than 256 parts");
        if (k > 0) memcpy(v, a, (size_t)k * sizeof *v);
    } else if (ksh_has(n, in, 1)) {
        if (!in[1].data) return ksh_need(out, no);
        if ((e = ksh_read_ints(n, &in[1], 1, v, 256, &k))) return e;
    }
    if (r < 0) {
        for (int i = 0; i < no; i++) ksh_set_unknown(&out[i].shape);
        return 0;
    }
    if ((e = ksh_axis(n, g_attr_int(n, "axis", 0), r, 0, &ax))) return e;
    int64_t d = in[0].shape.d[ax];
    if (k >= 0) {
        if (k != no) return ksh_fail(n, KSH_EINVAL, "split has %d entries for %d outputs", k, no);
        int64_t sum = 0;
        for (int i = 0; i < k; i++) {
            if (v[i] < 0 || v[i] > KSH_DIM_MAX)
                return ksh_fail(n, KSH_EINVAL, "split[%d] = %lld is invalid", i, (long long)v[i]);
            sum += v[i];
        }
        if (d >= 0 && sum != d)
            return ksh_fail(n, KSH_EINVAL, "split sums to %lld, axis %d has %lld", (long long)sum, ax,
                            (long long)d);
    } else if (d < 0) {
        for (int i = 0; i < no; i++) v[i] = -1;
    } else if (n->opset >= 18 && g_node_attr(n, "num_outputs")) {
        int64_t chunk = (d + no - 1) / no, left = d;
        for (int i = 0; i < no; i++) {
            v[i] = left < chunk ? left : chunk;
            left -= v[i];
        }
    } else {
        if (d % no)
            return ksh_fail(n, KSH_EINVAL, "axis %d of size %lld does not split into %d equal parts",
                            ax, (long long)d, no);
        for (int i = 0; i < no; i++) v[i] = d / no;
    }
    for (int i = 0; i < no; i++) {
        out[i].shape = in[0].shape;
        out[i].shape.d[ax] = v[i];
        out[i].layout = ksh_same_layout(&in[0], &out[i].shape);
    }
    return 0;
}

static int split_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int r = in[0].shape.rank, ax;
    ksh_axis(n, g_attr_int(n, "axis", 0), r, 0, &ax);
    size_t es = ksh_esize(in[0].dtype);
    int64_t ist[G_MAX_RANK], ost[G_MAX_RANK], off = 0;
    ksh_lstrides(&in[0], ist);
    int nt = ksh_threads(c, (size_t)ksh_numel(&in[0].shape) * es);
    for (int i = 0; i < n->n_out; i++) {
        if (out[i].data && ksh_numel(&out[i].shape) > 0) {
            ksh_lstrides(&out[i], ost);
            ksh_copy_nd(out[i].data, ost, (const char *)in[0].data + off * ist[ax] * (int64_t)es, ist,
                        out[i].shape.d, r, es, nt);
        }
        off += out[i].shape.d[ax];
    }
    return 0;
}
static const k_op k_split = {.op_type = "Split", .domain = "", .since = 1, .impl = "ref",
                             .init = split_init, .infer = split_infer, .run = split_run,
                             .accepts_layout = ksh_accept_data};
K_REGISTER(k_split);
