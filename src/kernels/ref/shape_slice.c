/* Slice (steps of either sign, ONNX clamping) and Pad (constant, reflect,
 * edge, wrap; negative pads crop). Slice is one affine copy; constant Pad
 * fills and copies the interior; the other pad modes gather through
 * per-axis index tables. */
#include "kernels/ref/shape_common.h"

static int move_init(g_graph *g, g_node *n, void **st)
{
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

/* ---- Slice ---- */

/* Resolves start/step/length per axis of `x`. Returns K_NEED_DATA when an
 * input value is unknown; len[a] = -1 when the dim is unknown. */
static int slice_params(const g_node *n, const k_tensor *in, const g_shape *x, int64_t *start,
                        int64_t *step, int64_t *len)
{
    int64_t sv[G_MAX_RANK], ev[G_MAX_RANK], av[G_MAX_RANK], tv[G_MAX_RANK];
    int ns, ne, na = -1, nt = -1, e, r = x->rank;
    if (n->opset < 10) {
        const int64_t *p;
        ns = g_attr_ints(n, "starts", &p);
        if (ns < 0 || ns > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "attribute 'starts' missing or too long");
        memcpy(sv, p, (size_t)ns * 8);
        ne = g_attr_ints(n, "ends", &p);
        if (ne < 0 || ne > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "attribute 'ends' missing or too long");
        memcpy(ev, p, (size_t)ne * 8);
        na = g_attr_ints(n, "axes", &p);
        if (na > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "attribute 'axes' too long");
        if (na > 0) memcpy(av, p, (size_t)na * 8);
    } else {
        for (int i = 1; i < 5 && i < n->n_in; i++)
            if (ksh_has(n, in, i) && !in[i].data) return K_NEED_DATA;
        if (!ksh_has(n, in, 1) || !ksh_has(n, in, 2))
            return ksh_fail(n, KSH_EINVAL, "inputs 'starts' and 'ends' are required");
        if ((e = ksh_read_ints(n, &in[1], 1, sv, G_MAX_RANK, &ns))) return e;
        if ((e = ksh_read_ints(n, &in[2], 2, ev, G_MAX_RANK, &ne))) return e;
        if (ksh_has(n, in, 3) && (e = ksh_read_ints(n, &in[3], 3, av, G_MAX_RANK, &na))) return e;
        if (ksh_has(n, in, 4) && (e = ksh_read_ints(n, &in[4], 4, tv, G_MAX_RANK, &nt))) return e;
    }
    if (ns != ne) return ksh_fail(n, KSH_EINVAL, "starts has %d values, ends %d", ns, ne);
    if (na >= 0 && na != ns) return ksh_fail(n, KSH_EINVAL, "axes has %d values, starts %d", na, ns);
    if (nt >= 0 && nt != ns) return ksh_fail(n, KSH_EINVAL, "steps has %d values, starts %d", nt, ns);
    for (int a = 0; a < r; a++) { start[a] = 0; step[a] = 1; len[a] = x->d[a]; }
    int seen[G_MAX_RANK] = {0};
    for (int i = 0; i < ns; i++) {
        int a;
        if ((e = ksh_axis(n, na >= 0 ? av[i] : i, r, 0, &a))) return e;
        if (seen[a]) return ksh_fail(n, KSH_EINVAL, "axis %d repeated", a);
        seen[a] = 1;
        int64_t t = nt >= 0 ? tv[i] : 1, d = x->d[a], s = sv[i], en = ev[i];
        if (t == 0) return ksh_fail(n, KSH_EINVAL, "step 0 on axis %d", a);
        if (t == INT64_MIN) t = -INT64_MAX;   /* same result, negatable */
        if (d >= 0 && (t > d || t < -d)) t = t > 0 ? (d > 0 ? d : 1) : -(d > 0 ? d : 1);   /* same one element */
        step[a] = t;
        if (d < 0) { len[a] = -1; continue; }
        if (d == 0) { len[a] = 0; continue; }
        if (s < 0) s += d;
        if (en < 0) en += d;
        if (t > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            en = en < 0 ? 0 : en > d ? d : en;
            len[a] = en > s ? (en - s - 1) / t + 1 : 0;
        } else {
            s = s < 0 ? 0 : s > d - 1 ? d - 1 : s;
            en = en < -1 ? -1 : en > d - 1 ? d - 1 : en;
            len[a] = s > en ? (s - en - 1) / (-t) + 1 : 0;
        }
        start[a] = s;
    }
    return 0;
}

static int slice_init(g_graph *g, g_node *n, void **st)
{
    int e = move_init(g, n, st);
    if (e) return e;
    for (int i = 1; n->opset >= 10 && i < 5; i++) {
        int dt = ksh_in_dtype(g, n, i);
        if (dt != G_UNDEF && dt != G_I32 && dt != G_I64)
            return ksh_fail(n, KSH_ETYPE, "input %d must be int32 or int64, got %s", i, g_dtype_name(dt));
    }
    return 0;
}

static int slice_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t start[G_MAX_RANK], step[G_MAX_RANK], len[G_MAX_RANK];
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (in[0].shape.rank < 0) {
        for (int i = 1; n->opset >= 10 && i < 5 && i < n->n_in; i++)
            if (ksh_has(n, in, i) && !in[i].data) return ksh_need(out, 1);
        ksh_set_unknown(&out[0].shape);
        return 0;
    }
    int e = slice_params(n, in, &in[0].shape, start, step, len);
    if (e) return e == K_NEED_DATA ? ksh_need(out, 1) : e;
    out[0].shape = in[0].shape;
    for (int a = 0; a < in[0].shape.rank; a++) out[0].shape.d[a] = len[a];
    out[0].layout = ksh_same_layout(&in[0], &out[0].shape);
    return 0;
}

static int slice_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t start[G_MAX_RANK], step[G_MAX_RANK], len[G_MAX_RANK], ist[G_MAX_RANK],
            sst[G_MAX_RANK], ost[G_MAX_RANK];
    int r = in[0].shape.rank, e = slice_params(n, in, &in[0].shape, start, step, len);
    if (e) return e;
    ksh_lstrides(&in[0], ist);
    ksh_lstrides(&out[0], ost);
    int64_t off = 0;
    for (int a = 0; a < r; a++) {
        if (len[a] != out[0].shape.d[a])
            return ksh_fail(n, KSH_EINVAL, "output dim %d is %lld, slicing gives %lld", a,
                            (long long)out[0].shape.d[a], (long long)len[a]);
        off += start[a] * ist[a];
        sst[a] = ist[a] * step[a];
    }
    if (ksh_numel(&out[0].shape) == 0) return 0;
    size_t es = ksh_esize(in[0].dtype);
    ksh_copy_nd(out[0].data, ost, (const char *)in[0].data + off * (int64_t)es, sst, len, r, es,
                ksh_threads(c, (size_t)ksh_numel(&out[0].shape) * es));
    return 0;
}
static const k_op k_slice = {.op_type = "Slice", .domain = "", .since = 1, .impl = "ref",
                             .init = slice_init, .infer = slice_infer, .run = slice_run,
                             .accepts_layout = ksh_accept_data};
K_REGISTER(k_slice);

/* ---- Pad ---- */

enum { PAD_CONST, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

static int pad_init(g_graph *g, g_node *n, void **st)
{
    int e = move_init(g, n, st);
    if (e) return e;
    const char *m = g_attr_str(n, "mode", "constant");
    if (strcmp(m, "constant") && strcmp(m, "reflect") && strcmp(m, "edge") &&
        !(n->opset >= 19 && !strcmp(m, "wrap")))
        return ksh_fail(n, KSH_EUNSUP, "mode '%s' is not supported", m);
    if (n->opset >= 11) {
        int dt = ksh_in_dtype(g, n, 1);
        if (dt != G_I64) return ksh_fail(n, KSH_ETYPE, "the 'pads' input must be int64, got %s", g_dtype_name(dt));
        dt = ksh_in_dtype(g, n, 2);
        if (dt != G_UNDEF && dt != ksh_in_dtype(g, n, 0))
            return ksh_fail(n, KSH_ETYPE, "constant_value is %s, data is %s", g_dtype_name(dt),
                            g_dtype_name(ksh_in_dtype(g, n, 0)));
    }
    return 0;
}

static int pad_mode(const g_node *n)
{
    const char *m = g_attr_str(n, "mode", "constant");
    return !strcmp(m, "reflect") ? PAD_REFLECT : !strcmp(m, "edge") ? PAD_EDGE
         : !strcmp(m, "wrap") ? PAD_WRAP : PAD_CONST;
}

/* pb/pe per axis of a rank-r input. */
static int pad_amounts(const g_node *n, const k_tensor *in, int r, int64_t *pb, int64_t *pe)
{
    int64_t v[2 * G_MAX_RANK], ax[G_MAX_RANK];
    int k, na = -1, e;
    if (n->opset < 11) {
        const int64_t *p;
        k = g_attr_ints(n, "pads", &p);
        if (k < 0) k = g_attr_ints(n, "paddings", &p);
        if (k < 0 || k > 2 * G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "attribute 'pads' missing or too long");
        memcpy(v, p, (size_t)k * 8);
    } else {
        if (!in[1].data || (ksh_has(n, in, 3) && !in[3].data)) return K_NEED_DATA;
        if ((e = ksh_read_ints(n, &in[1], 1, v, 2 * G_MAX_RANK, &k))) return e;
        if (n->opset >= 18 && ksh_has(n, in, 3) &&
            (e = ksh_read_ints(n, &in[3], 3, ax, G_MAX_RANK, &na))) return e;
    }
    for (int a = 0; a < r; a++) pb[a] = pe[a] = 0;
    if (na < 0) {
        if (k != 2 * r) return ksh_fail(n, KSH_EINVAL, "pads has %d values, expected 2*rank = %d", k, 2 * r);
        for (int a = 0; a < r; a++) { pb[a] = v[a]; pe[a] = v[a + r]; }
    } else {
        if (k != 2 * na) return ksh_fail(n, KSH_EINVAL, "pads has %d values, expected 2*%d axes", k, na);
        for (int i = 0; i < na; i++) {
            int a;
            if ((e = ksh_axis(n, ax[i], r, 0, &a))) return e;
            pb[a] = v[i];
            pe[a] = v[i + na];
        }
    }
    return 0;
}

static int pad_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t pb[G_MAX_RANK], pe[G_MAX_RANK];
    int r = in[0].shape.rank, e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (r < 0) {
        if (n->opset >= 11 && !in[1].data) return ksh_need(out, 1);
        ksh_set_unknown(&out[0].shape);
        return 0;
    }
    if ((e = pad_amounts(n, in, r, pb, pe))) return e == K_NEED_DATA ? ksh_need(out, 1) : e;
    out[0].shape = in[0].shape;
    for (int a = 0; a < r; a++) {
        int64_t d = in[0].shape.d[a];
        if (d < 0) { out[0].shape.d[a] = -1; continue; }
        if (pb[a] < -KSH_DIM_MAX || pb[a] > KSH_DIM_MAX || pe[a] < -KSH_DIM_MAX || pe[a] > KSH_DIM_MAX)
            return ksh_fail(n, KSH_EINVAL, "pads %lld/%lld on axis %d are too large", (long long)pb[a],
                            (long long)pe[a], a);
        if (d + pb[a] + pe[a] < 0)
            return ksh_fail(n, KSH_EINVAL, "pads %lld/%lld on axis %d of size %lld give a negative size",
                            (long long)pb[a], (long long)pe[a], a, (long long)d);
        out[0].shape.d[a] = d + pb[a] + pe[a];
    }
    out[0].layout = ksh_same_layout(&in[0], &out[0].shape);
    return 0;
}

static int pad_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t pb[G_MAX_RANK], pe[G_MAX_RANK], ist[G_MAX_RANK], ost[G_MAX_RANK];
    int r = in[0].shape.rank, mode = pad_mode(n), e;
    if ((e = pad_amounts(n, in, r, pb, pe))) return e;
    const int64_t *id = in[0].shape.d, *od = out[0].shape.d;
    size_t es = ksh_esize(in[0].dtype);
    int64_t total = ksh_numel(&out[0].shape);
    int nt = ksh_threads(c, (size_t)total * es);
    if (total == 0) return 0;
    ksh_lstrides(&in[0], ist);
    ksh_lstrides(&out[0], ost);
    int64_t in_total = ksh_numel(&in[0].shape);
    if (mode == PAD_CONST || in_total == 0) {
        unsigned char val[8] = {0};
        if (n->opset < 11) ksh_setf(val, in[0].dtype, 0, g_attr_float(n, "value", 0.f));
        else if (ksh_has(n, in, 2) && in[2].data && ksh_numel(&in[2].shape) > 0) memcpy(val, in[2].data, es);
        if (mode != PAD_CONST)
            return ksh_fail(n, KSH_EINVAL, "cannot pad an empty input in non-constant mode");
        ksh_fill(out[0].data, val, es, (size_t)total);
        int64_t len[G_MAX_RANK], soff = 0, doff = 0;
        for (int a = 0; a < r; a++) {
            int64_t lo = pb[a] < 0 ? -pb[a] : 0, hi = pe[a] < 0 ? id[a] + pe[a] : id[a];
            len[a] = hi - lo;
            if (len[a] <= 0) return 0;
            soff += lo * ist[a];
            doff += (pb[a] > 0 ? pb[a] : 0) * ost[a];
        }
        ksh_copy_nd((char *)out[0].data + doff * (int64_t)es, ost,
                    (const char *)in[0].data + soff * (int64_t)es, ist, len, r, es, nt);
        return 0;
    }
    int64_t sum = 0;
    for (int a = 0; a < r; a++) sum += od[a];
    int64_t stackbuf[512], *buf = sum <= 512 ? stackbuf : malloc((size_t)sum * 8);
    if (!buf) return ksh_fail(n, KSH_ENOMEM, "out of memory for %lld index entries", (long long)sum);
    int64_t *maps[G_MAX_RANK], *p = buf;
    for (int a = 0; a < r; a++) {
        /* negative pads crop first; the mode then applies to the cropped axis */
        int64_t lo = pb[a] < 0 ? -pb[a] : 0, d = id[a] - lo - (pe[a] < 0 ? -pe[a] : 0);
        int64_t pre = pb[a] > 0 ? pb[a] : 0;
        maps[a] = p;
        if (d <= 0) {
            if (buf != stackbuf) free(buf);
            return ksh_fail(n, KSH_EINVAL, "axis %d is cropped to nothing and cannot be padded in this mode", a);
        }
        for (int64_t o = 0; o < od[a]; o++) {
            int64_t i = o - pre;
            if (mode == PAD_EDGE) i = i < 0 ? 0 : i >= d ? d - 1 : i;
            else if (mode == PAD_WRAP) i = ((i % d) + d) % d;
            else if (d == 1) i = 0;
            else {   /* reflect, repeating as numpy does for pads wider than the axis */
                int64_t per = 2 * (d - 1);
                i = ((i % per) + per) % per;
                if (i >= d) i = per - i;
            }
            p[o] = (i + lo) * ist[a];
        }
        p += od[a];
    }
    /* the gather walks the output in its physical order */
    int ord[G_MAX_RANK];
    int64_t pod[G_MAX_RANK], *pmaps[G_MAX_RANK];
    ksh_porder(&out[0], ord);
    for (int a = 0; a < r; a++) { pod[a] = od[ord[a]]; pmaps[a] = maps[ord[a]]; }
    ksh_gather_maps(out[0].data, in[0].data, pod, r, pmaps, es, NULL, nt);
    if (buf != stackbuf) free(buf);
    return 0;
}
static const k_op k_pad = {.op_type = "Pad", .domain = "", .since = 1, .impl = "ref",
                           .init = pad_init, .infer = pad_infer, .run = pad_run,
                           .accepts_layout = ksh_accept_data};
K_REGISTER(k_pad);
