/* Axis permutations: Transpose, DepthToSpace and SpaceToDepth. Each is one
 * affine copy (ksh_copy_nd), which merges axes that stay adjacent and uses
 * cache tiles when the innermost axis moves (NCHW<->NHWC, last-two swap). */
#include "kernels/ref/shape_common.h"

static int move_init(g_graph *g, g_node *n, void **st)
{
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

/* ---- Transpose ---- */

static int perm_of(const g_node *n, int r, int *p)
{
    const int64_t *a;
    int k = g_attr_ints(n, "perm", &a);
    if (k < 0) {
        for (int i = 0; i < r; i++) p[i] = r - 1 - i;
        return 0;
    }
    if (k != r) return ksh_fail(n, KSH_EINVAL, "perm has %d entries, the input has rank %d", k, r);
    int seen[G_MAX_RANK] = {0};
    for (int i = 0; i < r; i++) {
        if (a[i] < 0 || a[i] >= r || seen[a[i]])
            return ksh_fail(n, KSH_EINVAL, "perm[%d] = %lld is not a permutation of 0..%d", i,
                            (long long)a[i], r - 1);
        seen[a[i]] = 1;
        p[i] = (int)a[i];
    }
    return 0;
}

/* The channels-first permutation (0, 3, 1, 2) of a 4-D tensor may write
 * its output channels-last (attribute _oa_layout = G_LAYOUT_NHWC, set by the
 * layout pass): the bytes are then the input's, unchanged. So is the
 * channels-last permutation (0, 2, 3, 1) of a tensor stored NHWC. Such a
 * "free" transpose asks the planner for its input's storage (inplace) and
 * copies nothing when granted (ConvNeXt's Permute pairs around each block). */
typedef struct tr_state { int noop; } tr_state;

/* Whether n's perm attribute is want (4 entries); asks without failing. */
static int perm_is(const g_node *n, const int *want)
{
    const int64_t *a;
    if (g_attr_ints(n, "perm", &a) != 4) return 0;
    for (int i = 0; i < 4; i++) if (a[i] != want[i]) return 0;
    return 1;
}
static const int k_to_nchw[4] = { 0, 3, 1, 2 }, k_to_nhwc[4] = { 0, 2, 3, 1 };

static int transpose_init(g_graph *g, g_node *n, void **st)
{
    int e = move_init(g, n, st);
    if (e) return e;
    tr_state *s = calloc(1, sizeof *s);
    if (!s) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    *st = s;
    return 0;
}

static int transpose_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int p[G_MAX_RANK], r = in[0].shape.rank, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (r < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if ((e = perm_of(n, r, p))) return e;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (int i = 0; i < r; i++) o.d[i] = in[0].shape.d[p[i]];
    out[0].shape = o;
    if (r == 4 && in[0].layout == G_LAYOUT_PLAIN && perm_is(n, k_to_nchw) &&
        g_attr_int(n, "_oa_layout", G_LAYOUT_PLAIN) == G_LAYOUT_NHWC)
        out[0].layout = G_LAYOUT_NHWC;
    return 0;
}

/* Source strides of each output axis (in logical output order) and the
 * output's own strides, both as stored. */
static int transpose_strides(const g_node *n, const k_tensor *in, const k_tensor *out, int64_t *sst,
                             int64_t *ost)
{
    int p[G_MAX_RANK], r = in[0].shape.rank, e;
    if ((e = perm_of(n, r, p))) return e;
    int64_t ist[G_MAX_RANK];
    ksh_lstrides(&in[0], ist);
    ksh_lstrides(&out[0], ost);
    for (int i = 0; i < r; i++) sst[i] = ist[p[i]];
    return 0;
}

static int transpose_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out,
                          size_t *packed, size_t *scratch)
{
    tr_state *s = st;
    int64_t sst[G_MAX_RANK], ost[G_MAX_RANK];
    *packed = *scratch = 0;
    s->noop = 0;
    if (in[0].shape.rank < 0 || transpose_strides(n, in, out, sst, ost)) return 0;
    /* the same bytes when every axis longer than 1 has the same stride on both sides */
    s->noop = 1;
    for (int i = 0; i < out[0].shape.rank; i++)
        if (out[0].shape.d[i] > 1 && sst[i] != ost[i]) s->noop = 0;
    return 0;
}

static int transpose_inplace(const g_node *n, void *st)
{
    const tr_state *s = st;
    return s && s->noop ? 0 : -1;
}

static int transpose_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out,
                         const k_ctx *c)
{
    int64_t sst[G_MAX_RANK], ost[G_MAX_RANK];
    int r = in[0].shape.rank, e;
    if ((e = transpose_strides(n, in, out, sst, ost))) return e;
    if (out[0].data == in[0].data) return 0;   /* granted in place: only when the bytes are the same */
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, in[0].data, sst, out[0].shape.d, r, es,
                ksh_threads(c, (size_t)ksh_numel(&out[0].shape) * es));
    return 0;
}

/* NHWC input: any permutation reads it; the channels-last one (2) copies
 * nothing, so the layout pass stores its input so whenever it can. */
static int transpose_accepts(const g_node *n, void *st, int idx, int layout)
{
    if (layout == G_LAYOUT_PLAIN) return 1;
    if (layout != G_LAYOUT_NHWC || idx != 0) return 0;
    return perm_is(n, k_to_nhwc) ? 2 : 1;
}

static const k_op k_transpose = {.op_type = "Transpose", .domain = "", .since = 1, .impl = "ref",
                                 .init = transpose_init, .infer = transpose_infer,
                                 .plan = transpose_plan, .run = transpose_run, .fini = free,
                                 .accepts_layout = transpose_accepts, .inplace = transpose_inplace};
K_REGISTER(k_transpose);

/* ---- DepthToSpace / SpaceToDepth ---- */

typedef struct d2s_state { int64_t bs; int crd; } d2s_state;

static int d2s_init_common(g_graph *g, g_node *n, void **st, int d2s)
{
    int e = move_init(g, n, st);
    if (e) return e;
    int64_t bs = g_attr_int(n, "blocksize", 0);
    if (bs <= 0) return ksh_fail(n, KSH_EINVAL, "blocksize must be positive, got %lld", (long long)bs);
    int crd = 0;
    if (d2s) {
        const char *m = g_attr_str(n, "mode", "DCR");
        if (!strcmp(m, "CRD")) crd = 1;
        else if (strcmp(m, "DCR"))
            return ksh_fail(n, KSH_EUNSUP, "mode '%s' is not supported (DCR or CRD)", m);
    }
    d2s_state *s = malloc(sizeof *s);
    if (!s) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    s->bs = bs;
    s->crd = crd;
    *st = s;
    return 0;
}
static int d2s_init(g_graph *g, g_node *n, void **st) { return d2s_init_common(g, n, st, 1); }
static int s2d_init(g_graph *g, g_node *n, void **st) { return d2s_init_common(g, n, st, 0); }
static void d2s_fini(void *st) { free(st); }

static int d2s_infer_common(const g_node *n, const d2s_state *s, const k_tensor *in, k_tensor *out,
                            int d2s)
{
    const g_shape *x = &in[0].shape;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) {
        memset(&out[0].shape, 0, sizeof out[0].shape);
        out[0].shape.rank = 4;
        for (int i = 0; i < 4; i++) out[0].shape.d[i] = -1;
        return 0;
    }
    if (x->rank != 4) return ksh_fail(n, KSH_EINVAL, "input must be 4-D, got rank %d", x->rank);
    int64_t b = s->bs, b2 = b * b;
    g_shape o = *x;
    if (d2s) {
        if (x->d[1] >= 0 && x->d[1] % b2)
            return ksh_fail(n, KSH_EINVAL, "channels %lld not divisible by blocksize^2 = %lld",
                            (long long)x->d[1], (long long)b2);
        o.d[1] = x->d[1] < 0 ? -1 : x->d[1] / b2;
        o.d[2] = x->d[2] < 0 ? -1 : x->d[2] * b;
        o.d[3] = x->d[3] < 0 ? -1 : x->d[3] * b;
    } else {
        for (int i = 2; i < 4; i++)
            if (x->d[i] >= 0 && x->d[i] % b)
                return ksh_fail(n, KSH_EINVAL, "spatial dim %d (%lld) not divisible by blocksize %lld",
                                i, (long long)x->d[i], (long long)b);
        o.d[1] = x->d[1] < 0 ? -1 : x->d[1] * b2;
        o.d[2] = x->d[2] < 0 ? -1 : x->d[2] / b;
        o.d[3] = x->d[3] < 0 ? -1 : x->d[3] / b;
    }
    out[0].shape = o;
    return 0;
}
static int d2s_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    return d2s_infer_common(n, st, in, out, 1);
}
static int s2d_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    return d2s_infer_common(n, st, in, out, 0);
}

static int d2s_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const d2s_state *s = st;
    const int64_t *x = in[0].shape.d;
    int64_t N = x[0], C = x[1], H = x[2], W = x[3], b = s->bs, Co = C / (b * b);
    /* output viewed as [N, Co, H, b1, W, b2]; source strides of each */
    int64_t dims[6] = {N, Co, H, b, W, b}, ost[6], sst[6];
    int64_t sc, sb1, sb2;
    if (s->crd) { sc = b * b * H * W; sb1 = b * H * W; sb2 = H * W; }
    else { sb1 = b * Co * H * W; sb2 = Co * H * W; sc = H * W; }
    int64_t t[6] = {C * H * W, sc, W, sb1, 1, sb2};
    memcpy(sst, t, sizeof t);
    int64_t k = 1;
    for (int i = 5; i >= 0; i--) { ost[i] = k; k *= dims[i]; }
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, in[0].data, sst, dims, 6, es, ksh_threads(c, (size_t)k * es));
    return 0;
}

static int s2d_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const d2s_state *s = st;
    const int64_t *x = in[0].shape.d;
    int64_t N = x[0], C = x[1], H = x[2], W = x[3], b = s->bs;
    /* output viewed as [N, b1, b2, C, H/b, W/b] */
    int64_t dims[6] = {N, b, b, C, H / b, W / b}, ost[6];
    int64_t sst[6] = {C * H * W, W, 1, H * W, b * W, b};
    int64_t k = 1;
    for (int i = 5; i >= 0; i--) { ost[i] = k; k *= dims[i]; }
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, in[0].data, sst, dims, 6, es, ksh_threads(c, (size_t)k * es));
    return 0;
}

static const k_op k_d2s = {.op_type = "DepthToSpace", .domain = "", .since = 1, .impl = "ref",
                           .init = d2s_init, .infer = d2s_infer, .run = d2s_run, .fini = d2s_fini};
K_REGISTER(k_d2s);
static const k_op k_s2d = {.op_type = "SpaceToDepth", .domain = "", .since = 1, .impl = "ref",
                           .init = s2d_init, .infer = s2d_infer, .run = s2d_run, .fini = d2s_fini};
K_REGISTER(k_s2d);
