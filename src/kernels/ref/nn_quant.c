/* Reference quantisation ops: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul,
 * QLinearConv. Integer products accumulate exactly in int32; requantisation
 * scales are float32 products rounded half to even, as ONNX Runtime does. */
#include "kernels/ref/nn_common.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_q8(int dt) { return dt == G_U8 || dt == G_I8; }

static int32_t qget(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_U8: return ((const uint8_t *)p)[i];
    case G_I8: return ((const int8_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_U16: return ((const uint16_t *)p)[i];
    case G_I16: return ((const int16_t *)p)[i];
    default: return 0;
    }
}

/* Rounds half to even and saturates into dt. */
static void qput(void *p, int dt, size_t i, float v)
{
    /* NaN (e.g. a zero scale: 0/0) fails every comparison below and its
     * conversion to an integer is undefined behaviour: it becomes 0. */
    if (v != v) v = 0.f;
    float r = rintf(v);
    switch (dt) {
    case G_U8: ((uint8_t *)p)[i] = (uint8_t)(r < 0.f ? 0.f : r > 255.f ? 255.f : r); break;
    case G_I8: ((int8_t *)p)[i] = (int8_t)(r < -128.f ? -128.f : r > 127.f ? 127.f : r); break;
    case G_U16: ((uint16_t *)p)[i] = (uint16_t)(r < 0.f ? 0.f : r > 65535.f ? 65535.f : r); break;
    case G_I16: ((int16_t *)p)[i] = (int16_t)(r < -32768.f ? -32768.f : r > 32767.f ? 32767.f : r); break;
    case G_I32: {
        double d = rint((double)v);
        ((int32_t *)p)[i] = (int32_t)(d < INT_MIN ? INT_MIN : d > INT_MAX ? INT_MAX : d);
        break;
    }
    default: break;
    }
}

static int has(const g_node *n, int i) { return i < n->n_in && n->in[i] >= 0; }

static int fail_shape(const g_node *n, int idx, const g_shape *s, const char *want)
{
    char b[96];
    return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): input %d has shape %s; "
                    "expected %s", n->name, n->op_type, n->opset, idx, g_shape_str(s, b, sizeof b), want);
}

/* ---- QuantizeLinear / DequantizeLinear ----
 * Per tensor, per axis (opset 13) or blocked along the axis (opset 21
 * block_size: the scale has x's shape with ceil(x.d[axis] / block_size) at the
 * axis). Also registered for com.microsoft, the form ONNX Runtime's tools
 * write for 16-bit types before opset 21 (axis attribute, output of
 * DequantizeLinear in the scale's type). */

typedef struct qdq_st {
    int64_t axis;
    int64_t block;     /* block_size; 0: not blocked */
    int out_dt;        /* QuantizeLinear output_dtype (opset 21); G_UNDEF: from the zero point */
    int per_tensor;    /* a constant scalar scale: elementwise, any layout */
} qdq_st;

static int is_qint(int dt) { return is_q8(dt) || dt == G_U16 || dt == G_I16; }
static int is_ms(const g_node *n) { return n->domain && !strcmp(n->domain, "com.microsoft"); }

static int qdq_init_attrs(const g_node *n, qdq_st *s, int quant, int zt)
{
    s->axis = g_attr_int(n, "axis", 1);
    s->block = g_attr_int(n, "block_size", 0);
    if (s->block < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): block_size %lld is "
                        "negative", n->name, n->op_type, n->opset, (long long)s->block);
    int64_t od = quant ? g_attr_int(n, "output_dtype", 0) : 0;
    s->out_dt = (int)od;
    if (od != 0 && !is_qint((int)od))
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, opset %d): output_dtype "
                        "%lld is not supported (uint8, int8, uint16 and int16 are)", n->name,
                        n->op_type, n->opset, (long long)od);
    if (od != 0 && zt != G_UNDEF && zt != od)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): output_dtype is %s "
                        "but the zero point is %s", n->name, n->op_type, n->opset,
                        g_dtype_name((int)od), g_dtype_name(zt));
    return 0;
}

static int qdq_init(g_graph *g, g_node *n, void **state, int quant)
{
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): needs x and a scale",
                        n->name, n->op_type, n->opset);
    int xt = g->t[n->in[0]].dtype, st = g->t[n->in[1]].dtype;
    int zt = has(n, 2) ? g->t[n->in[2]].dtype : G_UNDEF;
    if (st != G_UNDEF && !nn_is_float(st)) return nn_fail_dtype(n, 1, st);
    if (quant) {
        if (xt != G_UNDEF && !nn_is_float(xt)) return nn_fail_dtype(n, 0, xt);
        if (zt != G_UNDEF && !is_qint(zt)) return nn_fail_dtype(n, 2, zt);
    } else {
        if (xt != G_UNDEF && !is_qint(xt) && xt != G_I32) return nn_fail_dtype(n, 0, xt);
        if (zt != G_UNDEF && xt != G_UNDEF && zt != xt)
            return acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "node '%s' (%s, opset %d): the zero "
                            "point is %s but x is %s: they must have the same type", n->name,
                            n->op_type, n->opset, g_dtype_name(zt), g_dtype_name(xt));
    }
    qdq_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    int r = qdq_init_attrs(n, s, quant, zt);
    if (r) { free(s); return r; }
    const g_tensor *sc = &g->t[n->in[1]];
    s->per_tensor = sc->kind == G_TK_CONST && sc->shape.rank >= 0 && g_shape_numel(&sc->shape) == 1;
    *state = s;
    return 0;
}

/* Per tensor the op is elementwise: a 4-D input may be channels-last, and
 * the output keeps its layout (qdq_layout). */
static int qdq_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n;
    const qdq_st *s = state;
    return layout == G_LAYOUT_PLAIN || (s && s->per_tensor && idx == 0);
}

static void qdq_layout(const qdq_st *s, const k_tensor *in, k_tensor *out)
{
    out[0].layout = s && s->per_tensor && in[0].shape.rank == 4 ? in[0].layout : G_LAYOUT_PLAIN;
}

static int q_init(g_graph *g, g_node *n, void **st) { return qdq_init(g, n, st, 1); }
static int dq_init(g_graph *g, g_node *n, void **st) { return qdq_init(g, n, st, 0); }

/* Where each element of x finds its scale and zero point: element i (outer
 * o, axis index a, inner j; per = x.d[axis]) reads a per axis, and
 * (o * nb + a / block) * inner + j when blocked (block > 0); per tensor:
 * axis -1. */
typedef struct qdq_map {
    int64_t axis, per, inner, nb, block;
} qdq_map;

static int qdq_blocked(const g_node *n, const qdq_st *s, const k_tensor *in, int64_t a,
                       qdq_map *m)
{
    const g_shape *xs = &in[0].shape, *ss = &in[1].shape;
    int ok = ss->rank == xs->rank;
    for (int i = 0; ok && i < xs->rank; i++)
        ok = i == a ? ss->d[i] == (xs->d[i] + s->block - 1) / s->block : ss->d[i] == xs->d[i];
    if (!ok)
        return fail_shape(n, 1, ss, "x's shape with ceil(x.d[axis] / block_size) at the axis "
                          "(blocked quantisation)");
    m->nb = ss->d[a];
    m->block = s->block;
    return 0;
}

/* Scale/zero-point layout: per tensor (one value), per `axis` slice, or
 * blocked along it. The zero point, when given, has the scale's shape. */
static int qdq_axis(const g_node *n, const qdq_st *s, const k_tensor *in, qdq_map *m)
{
    const g_shape *xs = &in[0].shape;
    int64_t cnt = g_shape_numel(&in[1].shape);
    *m = (qdq_map){ -1, 1, 1, 1, 0 };
    if (has(n, 2) && in[2].dtype != G_UNDEF && in[2].shape.rank >= 0 &&
        (g_shape_numel(&in[2].shape) != cnt || (in[2].shape.rank > 1 && in[2].shape.rank != in[1].shape.rank)))
        return fail_shape(n, 2, &in[2].shape, "the scale's shape");
    if (cnt == 1 && s->block == 0) return 0;
    int64_t a = s->axis < 0 ? s->axis + xs->rank : s->axis;
    if (a < 0 || a >= xs->rank)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): axis %lld is out of "
                        "range for rank %d", n->name, n->op_type, n->opset, (long long)s->axis,
                        xs->rank);
    m->axis = a;
    m->per = xs->d[a];
    for (int i = (int)a + 1; i < xs->rank; i++) m->inner *= xs->d[i];
    if (s->block > 0) return qdq_blocked(n, s, in, a, m);
    if (in[1].shape.rank != 1 || xs->d[a] != cnt)
        return fail_shape(n, 1, &in[1].shape, "a scalar or a vector along the axis");
    m->nb = cnt;
    return 0;
}

/* At load, when the shapes are known: the parameters' layout is checked
 * then, not first at run time. */
static int qdq_check_known(const g_node *n, void *state, const k_tensor *in)
{
    if (g_shape_numel(&in[0].shape) < 0 || g_shape_numel(&in[1].shape) < 0) return 0;
    if (has(n, 2) && in[2].dtype != G_UNDEF && g_shape_numel(&in[2].shape) < 0) return 0;
    qdq_map m;
    return qdq_axis(n, state, in, &m);
}

static int q_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qdq_st *s = state;
    qdq_layout(state, in, out);
    out[0].shape = in[0].shape;
    out[0].dtype = has(n, 2) && in[2].dtype != G_UNDEF ? in[2].dtype
                 : s->out_dt != G_UNDEF ? s->out_dt : G_U8;
    return qdq_check_known(n, state, in);
}

static int dq_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qdq_layout(state, in, out);
    out[0].shape = in[0].shape;
    out[0].dtype = (n->opset >= 19 || is_ms(n)) && nn_is_float(in[1].dtype) ? in[1].dtype : G_F32;
    return qdq_check_known(n, state, in);
}

/* The per-tensor uint8 loops, vectorised by the compiler: the clones are
 * picked by an ifunc resolver at load, before a sanitizer's runtime is up,
 * so sanitizer builds keep the one baseline loop (as EW_CLONE does). The
 * hand-written AVX-512 forms are kernels/x86/x86_qdq.c's. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define QU8_CLONE __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define QU8_CLONE
#endif

/* float32 -> uint8 per tensor (the input of an int8 model, and the float
 * tensors a QDQ model quantises between its float ops): the same rounding
 * (half to even of x / scale, then the zero point, saturated; NaN -> 0). */
QU8_CLONE static void q_u8(const float *x, uint8_t *y, int64_t n, float sc, float z)
{
    for (int64_t i = 0; i < n; i++) {
        float v = rintf(x[i] / sc) + z;
        y[i] = (uint8_t)(v >= 0.f ? (v <= 255.f ? v : 255.f) : 0.f);
    }
}

/* uint8 -> float32 per tensor */
QU8_CLONE static void dq_u8(const uint8_t *x, float *y, int64_t n, float sc, float z)
{
    for (int64_t i = 0; i < n; i++) y[i] = ((float)x[i] - z) * sc;
}

/* Per axis (not blocked), float32 <-> uint8: each run of `inner` elements
 * shares one scale and zero point, so it goes through the per-tensor loops
 * above (the same rounding as the element loop below, without its index
 * arithmetic and type dispatch per element: a per-channel activation's
 * pair took most of a run of an EfficientNet that way). 1 when done. */
static int qdq_axis_u8(const g_node *n, const k_tensor *in, k_tensor *out, const qdq_map *m, int quant)
{
    int zp = has(n, 2) && in[2].data;
    if (m->axis < 0 || m->block || in[1].dtype != G_F32 || (zp && in[2].dtype != G_U8)) return 0;
    if (quant ? in[0].dtype != G_F32 || out[0].dtype != G_U8 : in[0].dtype != G_U8 || out[0].dtype != G_F32)
        return 0;
    const float *sc = in[1].data;
    const uint8_t *zs = zp ? in[2].data : NULL;
    for (int64_t a = 0; a < m->per; a++)
        if (quant && !(sc[a] > 0.f)) return 0;      /* the element loop's NaN/infinity handling */
    int64_t outer = g_shape_numel(&in[0].shape) / (m->per * m->inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < m->per; a++) {
            int64_t at = (o * m->per + a) * m->inner;
            float z = zs ? (float)zs[a] : 0.f;
            if (quant) q_u8((const float *)in[0].data + at, (uint8_t *)out[0].data + at, m->inner, sc[a], z);
            else dq_u8((const uint8_t *)in[0].data + at, (float *)out[0].data + at, m->inner, sc[a], z);
        }
    return 1;
}

static int qdq_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx, int quant)
{
    qdq_st *s = state;
    qdq_map m;
    int r = qdq_axis(n, s, in, &m);
    if (r) return r;
    int64_t cnt = g_shape_numel(&in[0].shape), span = m.per * m.inner;
    int64_t per = g_shape_numel(&in[1].shape);   /* scale values; 1: one for every element */
    int zp = has(n, 2) && in[2].data;
    if (!quant && per == 1 && in[0].dtype == G_U8 && out[0].dtype == G_F32 && in[1].dtype == G_F32) {
        dq_u8(in[0].data, out[0].data, cnt, *(const float *)in[1].data,
              zp ? (float)qget(in[2].data, in[2].dtype, 0) : 0.f);
        return 0;
    }
    if (quant && per == 1 && in[0].dtype == G_F32 && out[0].dtype == G_U8 && in[1].dtype == G_F32) {
        float sc = *(const float *)in[1].data;
        if (sc > 0.f) {
            q_u8(in[0].data, out[0].data, cnt, sc, zp ? (float)qget(in[2].data, in[2].dtype, 0) : 0.f);
            return 0;
        }
    }
    if (per > 1 && qdq_axis_u8(n, in, out, &m, quant)) return 0;
    for (int64_t i = 0; i < cnt; i++) {
        int64_t c = 0;
        if (per > 1) {
            int64_t o = i / span, a = (i / m.inner) % m.per, j = i % m.inner;
            c = m.block ? (o * m.nb + a / m.block) * m.inner + j : a;
        }
        float sc = nn_loadf(in[1].data, in[1].dtype, (size_t)c);
        int32_t z = zp ? qget(in[2].data, in[2].dtype, (size_t)c) : 0;
        if (quant) {
            float x = nn_loadf(in[0].data, in[0].dtype, (size_t)i);
            qput(out[0].data, out[0].dtype, (size_t)i, rintf(x / sc) + (float)z);
        } else {
            int32_t x = qget(in[0].data, in[0].dtype, (size_t)i);
            nn_storef(out[0].data, out[0].dtype, (size_t)i, (float)((int64_t)x - z) * sc); /* int32 x, z */
        }
    }
    (void)ctx;
    return 0;
}

static int q_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    return qdq_run(n, st, in, out, c, 1);
}

static int dq_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    return qdq_run(n, st, in, out, c, 0);
}

/* ---- DynamicQuantizeLinear ---- */

static int dql_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 1 || n->in[0] < 0 || (g->t[n->in[0]].dtype != G_F32 && g->t[n->in[0]].dtype != G_UNDEF))
        return nn_fail_dtype(n, 0, n->n_in ? g->t[n->in[0]].dtype : G_UNDEF);
    *state = NULL;
    return 0;
}

static int dql_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    out[0].shape = in[0].shape;
    out[0].dtype = G_U8;
    if (n->n_out > 1) { out[1].dtype = G_F32; out[1].shape.rank = 0; }
    if (n->n_out > 2) { out[2].dtype = G_U8; out[2].shape.rank = 0; }
    return 0;
}

static int dql_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    const float *x = in[0].data;
    int64_t cnt = g_shape_numel(&in[0].shape);
    float lo = 0.f, hi = 0.f;
    for (int64_t i = 0; i < cnt; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    float scale = (hi - lo) / 255.f;
    float zpf = scale != 0.f ? rintf(0.f - lo / scale) : 0.f;
    zpf = zpf < 0.f ? 0.f : zpf > 255.f ? 255.f : zpf;
    for (int64_t i = 0; i < cnt; i++)
        qput(out[0].data, G_U8, (size_t)i, scale != 0.f ? rintf(x[i] / scale) + zpf : zpf);
    if (n->n_out > 1 && out[1].data) *(float *)out[1].data = scale;
    if (n->n_out > 2 && out[2].data) *(uint8_t *)out[2].data = (uint8_t)zpf;
    (void)ctx;
    return 0;
}

/* ---- integer matrix products ---- */

typedef struct qmm_st {
    int qlinear;   /* QLinearMatMul: inputs a, as, azp, b, bs, bzp, ys, yzp */
} qmm_st;

static int qmm_init_common(g_graph *g, g_node *n, void **state, int qlinear)
{
    int ia = 0, ib = qlinear ? 3 : 1;
    if (n->n_in <= ib || n->in[ia] < 0 || n->in[ib] < 0 || (qlinear && n->n_in < 8))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): missing inputs",
                        n->name, n->op_type, n->opset);
    int at = g->t[n->in[ia]].dtype, bt = g->t[n->in[ib]].dtype;
    if (at != G_UNDEF && !is_q8(at)) return nn_fail_dtype(n, ia, at);
    if (bt != G_UNDEF && !is_q8(bt)) return nn_fail_dtype(n, ib, bt);
    qmm_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    s->qlinear = qlinear;
    *state = s;
    return 0;
}

static int mmi_init(g_graph *g, g_node *n, void **st) { return qmm_init_common(g, n, st, 0); }
static int qlmm_init(g_graph *g, g_node *n, void **st) { return qmm_init_common(g, n, st, 1); }

static int qmm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qmm_st *s = state;
    int64_t M, K, N;
    int r = nn_matmul_shape(n, &in[0].shape, &in[s->qlinear ? 3 : 1].shape, &out[0].shape, &M, &K, &N);
    if (r) return r;
    out[0].dtype = !s->qlinear ? G_I32 : (in[7].dtype != G_UNDEF ? in[7].dtype : in[0].dtype);
    return 0;
}

static int qmm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    qmm_st *s = state;
    int ia = 0, ib = s->qlinear ? 3 : 1, iaz = s->qlinear ? 2 : 2, ibz = s->qlinear ? 5 : 3;
    const g_shape *as = &in[ia].shape, *bs = &in[ib].shape;
    g_shape ys;
    int64_t M, K, N;
    int r = nn_matmul_shape(n, as, bs, &ys, &M, &K, &N);
    if (r) return r;
    int hz_a = has(n, iaz) && in[iaz].data, hz_b = has(n, ibz) && in[ibz].data;
    int64_t na_z = hz_a ? g_shape_numel(&in[iaz].shape) : 0, nb_z = hz_b ? g_shape_numel(&in[ibz].shape) : 0;
    if ((na_z > 1 && na_z != M) || (nb_z > 1 && nb_z != N))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): zero points must be scalars or "
                        "per row of A (%lld) / per column of B (%lld)", n->name, n->op_type,
                        (long long)M, (long long)N);
    float rq = 1.f;
    int64_t nbs = 1;
    if (s->qlinear) {
        nbs = g_shape_numel(&in[4].shape);
        if (g_shape_numel(&in[1].shape) != 1 || g_shape_numel(&in[6].shape) != 1 || (nbs != 1 && nbs != N))
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): only per-tensor a/y "
                            "scales and per-tensor or per-column b scales", n->name, n->op_type);
        rq = nn_loadf(in[1].data, in[1].dtype, 0) / nn_loadf(in[6].data, in[6].dtype, 0);
    }
    int32_t yz = s->qlinear && has(n, 7) && in[7].data ? qget(in[7].data, in[7].dtype, 0) : 0;
    int ob = ys.rank - (as->rank > 1) - (bs->rank > 1);
    int64_t nbatch = 1;
    for (int i = 0; i < ob; i++) nbatch *= ys.d[i];
    int abr = as->rank > 2 ? as->rank - 2 : 0, bbr = bs->rank > 2 ? bs->rank - 2 : 0;
    for (int64_t bi = 0; bi < nbatch; bi++) {
        int64_t rem = bi, aoff = 0, boff = 0, astr = M * K, bstr = K * N;
        for (int i = ob - 1; i >= 0; i--) {
            int64_t idx = rem % ys.d[i];
            rem /= ys.d[i];
            int ai = i - (ob - abr), bj = i - (ob - bbr);
            if (ai >= 0) { if (as->d[ai] != 1) aoff += idx * astr; astr *= as->d[ai]; }
            if (bj >= 0) { if (bs->d[bj] != 1) boff += idx * bstr; bstr *= bs->d[bj]; }
        }
        for (int64_t m = 0; m < M; m++) {
            int32_t za = hz_a ? qget(in[iaz].data, in[iaz].dtype, (size_t)(na_z > 1 ? m : 0)) : 0;
            for (int64_t j = 0; j < N; j++) {
                int32_t zb = hz_b ? qget(in[ibz].data, in[ibz].dtype, (size_t)(nb_z > 1 ? j : 0)) : 0;
                int32_t acc = 0;
                for (int64_t k = 0; k < K; k++)
                    acc = nn_acc32(acc, (qget(in[ia].data, in[ia].dtype, (size_t)(aoff + m * K + k)) - za) *
                                         (qget(in[ib].data, in[ib].dtype, (size_t)(boff + k * N + j)) - zb));
                size_t o = (size_t)((bi * M + m) * N + j);
                if (!s->qlinear) {
                    ((int32_t *)out[0].data)[o] = acc;
                } else {
                    float bsc = nn_loadf(in[4].data, in[4].dtype, (size_t)(nbs > 1 ? j : 0));
                    qput(out[0].data, out[0].dtype, o, rintf((float)acc * (rq * bsc)) + (float)yz);
                }
            }
        }
    }
    (void)ctx;
    return 0;
}

/* ---- integer convolutions ---- */

typedef struct qconv_st {
    nn_win w;
    int qlinear;   /* QLinearConv: x, xs, xzp, w, ws, wzp, ys, yzp, B */
    nn_post po;    /* QLinearConv folded from QDQ (graph/qdq_conv.c): the float
                      activation chain between dequantisation and requantisation */
} qconv_st;

static int qconv_init_common(g_graph *g, g_node *n, void **state, int qlinear)
{
    int ix = 0, iw = qlinear ? 3 : 1;
    if (n->n_in <= iw || n->in[ix] < 0 || n->in[iw] < 0 || (qlinear && n->n_in < 8))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): missing inputs",
                        n->name, n->op_type, n->opset);
    int xt = g->t[n->in[ix]].dtype, wt = g->t[n->in[iw]].dtype;
    if (xt != G_UNDEF && !is_q8(xt)) return nn_fail_dtype(n, ix, xt);
    if (wt != G_UNDEF && !is_q8(wt)) return nn_fail_dtype(n, iw, wt);
    qconv_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    int r = nn_win_parse(n, NN_CONV, &s->w);
    if (!r && qlinear) r = nn_post_parse(n, &s->po);
    if (!r && s->po.has_add && n->n_in < 12)
        r = acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): a fused add needs its addend, "
                     "scale and zero point as inputs 9-11", n->name, n->op_type);
    if (r) { free(s); return r; }
    s->qlinear = qlinear;
    *state = s;
    return 0;
}

static int ci_init(g_graph *g, g_node *n, void **st) { return qconv_init_common(g, n, st, 0); }
static int qlc_init(g_graph *g, g_node *n, void **st) { return qconv_init_common(g, n, st, 1); }

/* Output shape: x and w at their slots, no bias check (other inputs). */
static int qconv_shape(const g_node *n, qconv_st *s, const k_tensor *in, nn_win *w, g_shape *ys)
{
    k_tensor t[3];
    t[0] = in[0];
    t[1] = in[s->qlinear ? 3 : 1];
    memset(&t[2], 0, sizeof t[2]);
    t[2].shape.rank = -1;
    *w = s->w;
    return nn_conv_infer_shape(n, w, 0, t, ys);
}

static int qconv_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qconv_st *s = state;
    nn_win w;
    int r = qconv_shape(n, s, in, &w, &out[0].shape);
    if (r) return r;
    out[0].dtype = !s->qlinear ? G_I32 : (in[7].dtype != G_UNDEF ? in[7].dtype : in[0].dtype);
    return 0;
}

static int qconv_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                     const k_ctx *ctx)
{
    qconv_st *s = state;
    nn_win w;
    g_shape ys;
    int r = qconv_shape(n, s, in, &w, &ys);
    if (r) return r;
    int ix = 0, iw = s->qlinear ? 3 : 1, ixz = 2, iwz = s->qlinear ? 5 : 3;
    const k_tensor *X = &in[ix], *W = &in[iw];
    int64_t N = X->shape.d[0], C = X->shape.d[1], M = ys.d[1], G = w.group, cg = C / G, mg = M / G;
    int nsp = w.nsp;
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, Kk[3] = {1, 1, 1}, S[3] = {1, 1, 1}, D[3] = {1, 1, 1};
    int64_t P[3] = {0, 0, 0};
    for (int i = 0; i < nsp; i++) {
        I[3 - nsp + i] = w.in[i]; O[3 - nsp + i] = w.out[i]; Kk[3 - nsp + i] = w.k[i];
        S[3 - nsp + i] = w.s[i]; D[3 - nsp + i] = w.d[i]; P[3 - nsp + i] = w.pb[i];
    }
    int32_t xz = has(n, ixz) && in[ixz].data ? qget(in[ixz].data, in[ixz].dtype, 0) : 0;
    int64_t nwz = has(n, iwz) && in[iwz].data ? g_shape_numel(&in[iwz].shape) : 0;
    if (nwz > 1 && nwz != M)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): weight zero point has %lld "
                        "values for %lld output channels", n->name, n->op_type, (long long)nwz,
                        (long long)M);
    float xs_ = 1.f, ys_ = 1.f;
    int64_t nws = 1;
    int32_t yz = 0;
    int hb = s->qlinear && has(n, 8) && in[8].data;
    if (s->qlinear) {
        nws = g_shape_numel(&in[4].shape);
        if (g_shape_numel(&in[1].shape) != 1 || g_shape_numel(&in[6].shape) != 1 || (nws != 1 && nws != M))
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): x/y scales must be "
                            "per tensor, w scale per tensor or per output channel", n->name,
                            n->op_type);
        xs_ = nn_loadf(in[1].data, in[1].dtype, 0);
        ys_ = nn_loadf(in[6].data, in[6].dtype, 0);
        yz = has(n, 7) && in[7].data ? qget(in[7].data, in[7].dtype, 0) : 0;
    }
    int64_t ksz = Kk[0] * Kk[1] * Kk[2], isz = I[0] * I[1] * I[2], osz = O[0] * O[1] * O[2];
    /* a residual folded in (graph/qdq_conv.c): inputs 9-11, same shape as y */
    int ha = s->qlinear && s->po.has_add;
    float rs_ = ha ? nn_loadf(in[10].data, in[10].dtype, 0) : 0.f;
    int32_t rz = ha && has(n, 11) && in[11].data ? qget(in[11].data, in[11].dtype, 0) : 0;
    if (ha && !g_shape_eq(&in[9].shape, &ys))
        return fail_shape(n, 9, &in[9].shape, "the output's shape");
    for (int64_t nb = 0; nb < N; nb++)
        for (int64_t oc = 0; oc < M; oc++) {
            int64_t g = oc / mg;
            int32_t wz = nwz ? qget(in[iwz].data, in[iwz].dtype, (size_t)(nwz > 1 ? oc : 0)) : 0;
            for (int64_t o0 = 0; o0 < O[0]; o0++)
                for (int64_t o1 = 0; o1 < O[1]; o1++)
                    for (int64_t o2 = 0; o2 < O[2]; o2++) {
                        int32_t acc = 0;
                        for (int64_t ci = 0; ci < cg; ci++) {
                            int64_t ic = g * cg + ci;
                            for (int64_t k0 = 0; k0 < Kk[0]; k0++) {
                                int64_t i0 = o0 * S[0] - P[0] + k0 * D[0];
                                if (i0 < 0 || i0 >= I[0]) continue;
                                for (int64_t k1 = 0; k1 < Kk[1]; k1++) {
                                    int64_t i1 = o1 * S[1] - P[1] + k1 * D[1];
                                    if (i1 < 0 || i1 >= I[1]) continue;
                                    for (int64_t k2 = 0; k2 < Kk[2]; k2++) {
                                        int64_t i2 = o2 * S[2] - P[2] + k2 * D[2];
                                        if (i2 < 0 || i2 >= I[2]) continue;
                                        int32_t xv = qget(X->data, X->dtype, (size_t)((nb * C + ic) * isz + (i0 * I[1] + i1) * I[2] + i2)) - xz;
                                        int32_t wv = qget(W->data, W->dtype, (size_t)((oc * cg + ci) * ksz + (k0 * Kk[1] + k1) * Kk[2] + k2)) - wz;
                                        acc = nn_acc32(acc, xv * wv);
                                    }
                                }
                            }
                        }
                        size_t o = (size_t)((nb * M + oc) * osz + (o0 * O[1] + o1) * O[2] + o2);
                        if (!s->qlinear) {
                            ((int32_t *)out[0].data)[o] = acc;
                        } else {
                            if (hb) acc = nn_acc32(acc, qget(in[8].data, in[8].dtype, (size_t)oc));
                            float wsc = nn_loadf(in[4].data, in[4].dtype, (size_t)(nws > 1 ? oc : 0));
                            if (!s->po.n) {
                                qput(out[0].data, out[0].dtype, o, rintf((float)acc * (xs_ * wsc / ys_)) + (float)yz);
                            } else {
                                /* the chain computes on real values, as the float graph did */
                                float v = (float)acc * (xs_ * wsc);
                                float av = ha ? (float)(qget(in[9].data, in[9].dtype, o) - rz) * rs_ : 0.f;
                                nn_post_apply(&s->po, &v, 1, &av);
                                qput(out[0].data, out[0].dtype, o, rintf(v / ys_) + (float)yz);
                            }
                        }
                    }
        }
    (void)ctx;
    return 0;
}

static void q_fini(void *state) { free(state); }

#define QOP_DOM(var, name, dom, from, in_, inf, rn) \
    static const k_op var = { .op_type = name, .domain = dom, .since = from, .until = 0, \
        .impl = "ref", .priority = 0, .init = in_, .infer = inf, .run = rn, .fini = q_fini }; \
    K_REGISTER(var)
#define QOP(var, name, from, in_, inf, rn) QOP_DOM(var, name, "", from, in_, inf, rn)

QOP_DOM(k_quantize_ms_ref, "QuantizeLinear", "com.microsoft", 1, q_init, q_infer, q_run);
QOP_DOM(k_dequantize_ms_ref, "DequantizeLinear", "com.microsoft", 1, dq_init, dq_infer, dq_run);
static const k_op k_quantize_ref = { .op_type = "QuantizeLinear", .domain = "", .since = 10, .until = 0,
    .impl = "ref", .priority = 0, .init = q_init, .infer = q_infer, .run = q_run, .fini = q_fini,
    .accepts_layout = qdq_accepts };
K_REGISTER(k_quantize_ref);
static const k_op k_dequantize_ref = { .op_type = "DequantizeLinear", .domain = "", .since = 10, .until = 0,
    .impl = "ref", .priority = 0, .init = dq_init, .infer = dq_infer, .run = dq_run, .fini = q_fini,
    .accepts_layout = qdq_accepts };
K_REGISTER(k_dequantize_ref);
QOP(k_dynquant_ref, "DynamicQuantizeLinear", 11, dql_init, dql_infer, dql_run);
QOP(k_matmulint_ref, "MatMulInteger", 10, mmi_init, qmm_infer, qmm_run);
QOP(k_qlmatmul_ref, "QLinearMatMul", 10, qlmm_init, qmm_infer, qmm_run);
QOP(k_convint_ref, "ConvInteger", 10, ci_init, qconv_infer, qconv_run);
QOP(k_qlconv_ref, "QLinearConv", 10, qlc_init, qconv_infer, qconv_run);
