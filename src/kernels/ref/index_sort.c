/* Ordering ops: TopK (a bounded heap per slice, ties to the lower index,
 * NaN ranked above every number) and Unique (stable merge sort of slice
 * indices, so the first occurrence of each value leads its group). */
#include "kernels/ref/shape_common.h"
#include <math.h>

/* Keys compared as double (float types), int64 or uint64. */
enum { KEY_F, KEY_I, KEY_U };
typedef struct ent { union { double f; int64_t i; uint64_t u; } k; int64_t idx; } ent;

static int key_mode(int dt)
{
    return ksh_is_float(dt) ? KEY_F : dt == G_U64 ? KEY_U : KEY_I;
}
static inline void key_load(ent *e, const void *p, int dt, int mode, size_t i)
{
    if (mode == KEY_F) e->k.f = ksh_getf(p, dt, i);
    else if (mode == KEY_U) memcpy(&e->k.u, (const char *)p + 8 * i, 8);
    else e->k.i = ksh_geti(p, dt, i);
}
/* -1, 0, 1; NaN sorts above every number and equals NaN. */
static inline int key_cmp(const ent *a, const ent *b, int mode)
{
    if (mode == KEY_F) {
        int na = isnan(a->k.f), nb = isnan(b->k.f);
        if (na || nb) return na - nb;
        return (a->k.f > b->k.f) - (a->k.f < b->k.f);
    }
    if (mode == KEY_U) return (a->k.u > b->k.u) - (a->k.u < b->k.u);
    return (a->k.i > b->k.i) - (a->k.i < b->k.i);
}

/* ---- TopK ---- */

static const int topk_types[] = {G_F32, G_F64, G_F16, G_BF16, G_I8, G_U8, G_I16, G_U16, G_I32,
                                 G_U32, G_I64, G_U64, G_UNDEF};

static int topk_init(g_graph *g, g_node *n, void **st)
{
    int e;
    if ((e = ksh_check_dtype(n, ksh_in_dtype(g, n, 0), "input X", topk_types))) return e;
    if (n->opset >= 10 && ksh_in_dtype(g, n, 1) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "K must be int64, got %s", g_dtype_name(ksh_in_dtype(g, n, 1)));
    return 0;
}

static int topk_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape;
    int ax, e;
    out[0].dtype = in[0].dtype;
    out[1].dtype = G_I64;
    out[0].layout = out[1].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) {
        ksh_set_unknown(&out[0].shape);
        ksh_set_unknown(&out[1].shape);
        return n->opset < 10 || in[1].data ? 0 : K_NEED_DATA;
    }
    if ((e = ksh_axis(n, g_attr_int(n, "axis", -1), x->rank, 0, &ax))) return e;
    out[0].shape = *x;
    out[0].shape.d[ax] = -1;
    out[1].shape = out[0].shape;
    int64_t k;
    if (n->opset < 10) k = g_attr_int(n, "k", -1);
    else {
        if (!in[1].data) return K_NEED_DATA;
        if (ksh_numel(&in[1].shape) != 1) return ksh_fail(n, KSH_EINVAL, "K must hold one value");
        k = ksh_geti(in[1].data, G_I64, 0);
    }
    if (k < 0 || (x->d[ax] >= 0 && k > x->d[ax]))
        return ksh_fail(n, KSH_EINVAL, "k = %lld is outside [0, %lld] (axis %d)", (long long)k,
                        (long long)x->d[ax], ax);
    out[0].shape.d[ax] = out[1].shape.d[ax] = k;
    return 0;
}

static int topk_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out,
                     size_t *packed, size_t *scratch)
{
    int ax;
    ksh_axis(n, g_attr_int(n, "axis", -1), in[0].shape.rank, 0, &ax);
    *packed = 0;
    *scratch = (size_t)(out[0].shape.d[ax] + 1) * sizeof(ent);
    return 0;
}

/* `better` for the requested order: higher (largest) or lower, ties to the lower index. */
static inline int better(const ent *a, const ent *b, int mode, int largest)
{
    int c = key_cmp(a, b, mode);
    if (!largest) c = -c;
    return c > 0 || (c == 0 && a->idx < b->idx);
}

/* Heap with the worst kept entry at the root. */
static void sift_down(ent *h, int64_t n, int64_t i, int mode, int largest)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && better(&h[w], &h[l], mode, largest)) w = l;
        if (r < n && better(&h[w], &h[r], mode, largest)) w = r;
        if (w == i) return;
        ent t = h[i]; h[i] = h[w]; h[w] = t;
        i = w;
    }
}

static int topk_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int ax, dt = in[0].dtype, mode = key_mode(dt);
    int largest = n->opset >= 11 ? (int)g_attr_int(n, "largest", 1) : 1;
    ksh_axis(n, g_attr_int(n, "axis", -1), x->rank, 0, &ax);
    int64_t A = x->d[ax], k = out[0].shape.d[ax];
    int64_t outer = ksh_prod(x->d, 0, ax), inner = ksh_prod(x->d, ax + 1, x->rank);
    if (k == 0 || outer * inner == 0) return 0;
    int owned;
    ent *h = ksh_scratch(c, (size_t)(k + 1) * sizeof(ent), &owned);
    if (!h) return ksh_fail(n, KSH_ENOMEM, "out of memory for k = %lld", (long long)k);
    size_t es = ksh_esize(dt);
    int64_t *oi = out[1].data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * A * inner + i, m = 0;
            for (int64_t a = 0; a < A; a++) {
                ent e;
                key_load(&e, in[0].data, dt, mode, (size_t)(base + a * inner));
                e.idx = a;
                if (m < k) {   /* sift up */
                    int64_t j = m++;
                    h[j] = e;
                    while (j > 0 && better(&h[(j - 1) / 2], &h[j], mode, largest)) {
                        ent t = h[j]; h[j] = h[(j - 1) / 2]; h[(j - 1) / 2] = t;
                        j = (j - 1) / 2;
                    }
                } else if (better(&e, &h[0], mode, largest)) {
                    h[0] = e;
                    sift_down(h, m, 0, mode, largest);
                }
            }
            /* pop worst first into the back of the output */
            for (int64_t j = k - 1; j >= 0; j--) {
                int64_t dst = o * k * inner + j * inner + i;
                memcpy((char *)out[0].data + dst * (int64_t)es,
                       (const char *)in[0].data + (base + h[0].idx * inner) * (int64_t)es, es);
                oi[dst] = h[0].idx;
                h[0] = h[--m];
                sift_down(h, m, 0, mode, largest);
            }
        }
    if (owned) free(h);
    return 0;
}
static const k_op k_topk = {.op_type = "TopK", .domain = "", .since = 1, .impl = "ref",
                            .init = topk_init, .infer = topk_infer, .plan = topk_plan,
                            .run = topk_run};
K_REGISTER(k_topk);

/* ---- Unique ---- */

typedef struct uq_ctx {
    const void *p;
    int dt, mode;
    int64_t outer, A, inner;
} uq_ctx;

/* Lexicographic comparison of slices a and b along the axis. */
static int slice_cmp(const uq_ctx *u, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < u->outer; o++)
        for (int64_t i = 0; i < u->inner; i++) {
            ent x, y;
            key_load(&x, u->p, u->dt, u->mode, (size_t)((o * u->A + a) * u->inner + i));
            key_load(&y, u->p, u->dt, u->mode, (size_t)((o * u->A + b) * u->inner + i));
            int c = key_cmp(&x, &y, u->mode);
            if (c) return c;
        }
    return 0;
}

/* Stable bottom-up merge sort of v[0..n) by slice order. */
static void msort(const uq_ctx *u, int64_t *v, int64_t *tmp, int64_t n)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = slice_cmp(u, v[j], v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid) tmp[k++] = v[i++];
            while (j < hi) tmp[k++] = v[j++];
        }
        memcpy(v, tmp, (size_t)n * sizeof *v);
    }
}

/* Computes the unique slices. first[u] (first occurrence), cnt[u] and
 * inv[a] are filled when non-NULL; returns the count or a negative error. */
static int64_t unique_compute(const g_node *n, const k_tensor *x, int has_axis, int ax, int sorted,
                              int64_t *first, int64_t *cnt, int64_t *inv)
{
    uq_ctx u = {.p = x->data, .dt = x->dtype, .mode = key_mode(x->dtype)};
    if (has_axis) {
        u.outer = ksh_prod(x->shape.d, 0, ax);
        u.A = x->shape.d[ax];
        u.inner = ksh_prod(x->shape.d, ax + 1, x->shape.rank);
    } else {
        u.outer = 1;
        u.A = ksh_numel(&x->shape);
        u.inner = 1;
    }
    int64_t A = u.A;
    int64_t *perm = malloc((size_t)(3 * A + 1) * sizeof(int64_t));
    if (!perm) return -1;
    int64_t *tmp = perm + A, *gid = tmp + A, ng = 0;
    for (int64_t i = 0; i < A; i++) perm[i] = i;
    msort(&u, perm, tmp, A);
    /* groups in sorted order; tmp[g] = first occurrence of group g */
    for (int64_t i = 0; i < A; i++) {
        if (i == 0 || slice_cmp(&u, perm[i - 1], perm[i])) tmp[ng++] = perm[i];
        gid[perm[i]] = ng - 1;
    }
    /* rank[g]: output position of group g (sorted order, or by first occurrence) */
    int64_t *rank = perm;   /* perm no longer needed */
    for (int64_t g = 0; g < ng; g++) rank[g] = g;
    if (!sorted) {
        int64_t pos = 0;
        for (int64_t i = 0; i < A; i++)
            if (tmp[gid[i]] == i) rank[gid[i]] = pos++;
    }
    if (first)
        for (int64_t g = 0; g < ng; g++) first[rank[g]] = tmp[g];
    if (cnt) {
        for (int64_t g = 0; g < ng; g++) cnt[g] = 0;
        for (int64_t i = 0; i < A; i++) cnt[rank[gid[i]]]++;
    }
    if (inv)
        for (int64_t i = 0; i < A; i++) inv[i] = rank[gid[i]];
    free(perm);
    return ng;
}

static const int unique_types[] = {G_F32, G_F64, G_F16, G_BF16, G_I8, G_U8, G_I16, G_U16, G_I32,
                                   G_U32, G_I64, G_U64, G_BOOL, G_UNDEF};

static int unique_init(g_graph *g, g_node *n, void **st)
{
    return ksh_check_dtype(n, ksh_in_dtype(g, n, 0), "input X", unique_types);
}

static int unique_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape;
    int has_axis = g_node_attr(n, "axis") != NULL, ax = 0, e;
    for (int i = 0; i < n->n_out && i < 4; i++) {
        out[i].dtype = i == 0 ? in[0].dtype : G_I64;
        out[i].layout = G_LAYOUT_PLAIN;
        memset(&out[i].shape, 0, sizeof out[i].shape);
        out[i].shape.rank = 1;
        out[i].shape.d[0] = -1;
    }
    if (x->rank < 0) { ksh_set_unknown(&out[0].shape); return K_NEED_DATA; }
    if (has_axis && (e = ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax))) return e;
    if (has_axis) { out[0].shape = *x; out[0].shape.d[ax] = -1; }
    if (n->n_out > 2) out[2].shape.d[0] = has_axis ? x->d[ax] : ksh_known(x) ? ksh_numel(x) : -1;
    if (!in[0].data) return K_NEED_DATA;
    int64_t u = unique_compute(n, &in[0], has_axis, ax, 1, NULL, NULL, NULL);
    if (u < 0) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    out[0].shape.d[has_axis ? ax : 0] = u;
    if (n->n_out > 1) out[1].shape.d[0] = u;
    if (n->n_out > 3) out[3].shape.d[0] = u;
    return 0;
}

static int unique_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_shape *x = &in[0].shape;
    int has_axis = g_node_attr(n, "axis") != NULL, ax = 0, sorted = (int)g_attr_int(n, "sorted", 1);
    if (has_axis) ksh_axis(n, g_attr_int(n, "axis", 0), x->rank, 0, &ax);
    int64_t A = has_axis ? x->d[ax] : ksh_numel(x);
    int64_t *buf = malloc((size_t)(3 * A + 1) * sizeof(int64_t));
    if (!buf) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    int64_t *first = buf, *cnt = buf + A, *inv = cnt + A;
    int64_t u = unique_compute(n, &in[0], has_axis, ax, sorted, first, cnt, inv);
    int64_t want = out[0].shape.d[has_axis ? ax : 0];
    if (u != want) {
        free(buf);
        return u < 0 ? ksh_fail(n, KSH_ENOMEM, "out of memory")
                     : ksh_fail(n, KSH_EINVAL, "%lld unique values, %lld inferred", (long long)u, (long long)want);
    }
    int64_t outer = has_axis ? ksh_prod(x->d, 0, ax) : 1, inner = has_axis ? ksh_prod(x->d, ax + 1, x->rank) : 1;
    size_t blk = (size_t)inner * ksh_esize(in[0].dtype);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < u; k++)
            memcpy((char *)out[0].data + (size_t)(o * u + k) * blk,
                   (const char *)in[0].data + (size_t)(o * A + first[k]) * blk, blk);
    if (n->n_out > 1 && out[1].data) memcpy(out[1].data, first, (size_t)u * 8);
    if (n->n_out > 2 && out[2].data) memcpy(out[2].data, inv, (size_t)A * 8);
    if (n->n_out > 3 && out[3].data) memcpy(out[3].data, cnt, (size_t)u * 8);
    free(buf);
    return 0;
}
static const k_op k_unique = {.op_type = "Unique", .domain = "", .since = 11, .impl = "ref",
                              .init = unique_init, .infer = unique_infer, .run = unique_run};
K_REGISTER(k_unique);
