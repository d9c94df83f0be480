/* Reference com.microsoft quantised ops that ONNX Runtime's QOperator
 * quantiser emits around its convolutions and matrix products: QLinearMul,
 * QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearWhere and
 * QLinearReduceMean (uint8 and int8, per-tensor scales and zero points).
 * The arithmetic follows ONNX Runtime's CPU kernels step for step (float32
 * operations in the same order, rounding half to even, saturation), since
 * their results are the contract users compare against: 256-entry lookup
 * tables for the unary ops and QLinearWhere, the integer product times one
 * float ratio for QLinearMul, the exponential table of QLinearSoftmax. */
#include "kernels/ref/ew_common.h"
#include "kernels/ref/nn_common.h"
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { QO_SIGMOID, QO_LEAKY, QO_MUL, QO_SOFTMAX, QO_WHERE, QO_RMEAN };

/* Input roles: data inputs (u8/i8, one type per node), scales (float32),
 * zero points (the data type). Slots end with -1. */
typedef struct qo_desc {
    const char *op;
    int kind;
    int min_in;               /* inputs that must be present */
    int data[3];              /* quantised data inputs */
    int scale[4];
    int zp[4];
} qo_desc;

static const qo_desc qo_descs[] = {
    { "QLinearSigmoid", QO_SIGMOID, 4, { 0, -1 }, { 1, 3, -1 }, { 2, 4, -1 } },
    { "QLinearLeakyRelu", QO_LEAKY, 4, { 0, -1 }, { 1, 3, -1 }, { 2, 4, -1 } },
    { "QLinearMul", QO_MUL, 7, { 0, 3, -1 }, { 1, 4, 6, -1 }, { 2, 5, 7, -1 } },
    { "QLinearSoftmax", QO_SOFTMAX, 4, { 0, -1 }, { 1, 3, -1 }, { 2, 4, -1 } },
    { "QLinearWhere", QO_WHERE, 9, { 1, 4, -1 }, { 2, 5, 7, -1 }, { 3, 6, 8, -1 } },
    { "QLinearReduceMean", QO_RMEAN, 4, { 0, -1 }, { 1, 3, -1 }, { 2, 4, -1 } },
};

typedef struct qo_state {
    const qo_desc *d;
    int dt;                   /* G_U8 or G_I8 */
    float alpha;              /* QLinearLeakyRelu */
    int axis, opset;          /* QLinearSoftmax */
    int keepdims, naxes;      /* QLinearReduceMean */
    int64_t axes[G_MAX_RANK];
    int fixed;                /* tab (or tabs) built at init from constants */
    uint8_t tab[2][256];      /* byte -> byte tables (QLinearWhere: x, y) */
} qo_state;

static int qo_present(const g_node *n, int i) { return i < n->n_in && n->in[i] >= 0; }

/* ---- per-tensor parameters ---- */

/* A scale or zero point must hold one value (ONNX Runtime's kernels read
 * exactly one): a scalar or a 1-element vector. */
static int qo_check_param(const g_node *n, int idx, const k_tensor *t, const char *what)
{
    if (t->shape.rank < 0) return 0;
    if ((t->shape.rank == 0) || (t->shape.rank == 1 && t->shape.d[0] == 1)) return 0;
    char b[96];
    return ew_fail(n, EW_EINVAL, "input %d (%s) has shape %s; it must be a scalar or a "
                   "1-element vector (per-tensor quantisation only)", idx, what,
                   g_shape_str(&t->shape, b, sizeof b));
}

static float qo_scale(const void *p) { float v; memcpy(&v, p, sizeof v); return v; }
static int qo_zp(const void *p, int dt)
{
    if (!p) return 0;
    return dt == G_I8 ? (int)*(const int8_t *)p : (int)*(const uint8_t *)p;
}

/* The byte pattern i of dtype dt as an integer. */
static int qo_byte(int i, int dt) { return dt == G_I8 ? (int)(int8_t)(uint8_t)i : i; }

/* Saturate(RoundToEven(v / scale) + zero_point), as MLAS's QuantizeLinear. */
static uint8_t qo_quant(float v, float scale, int zp, int dt)
{
    float r = rintf(v / scale);
    int lo = dt == G_I8 ? -128 : 0, hi = dt == G_I8 ? 127 : 255;
    if (r != r) r = 0.f;
    float flo = (float)(lo - zp), fhi = (float)(hi - zp);
    r = r < flo ? flo : r > fhi ? fhi : r;
    int q = (int)r + zp;
    return (uint8_t)(dt == G_I8 ? (uint8_t)(int8_t)q : (uint8_t)q);
}

/* MLAS's logistic: Eigen's rational approximation on [-18, 18], evaluated
 * with fused multiply-adds as its FMA3 / AVX-512 kernels do. */
static float qo_logistic(float x)
{
    x = x < -18.0f ? -18.0f : x > 18.0f ? 18.0f : x;
    float x2 = x * x;
    float p = fmaf(x2, 4.37031012579801e-11f, 1.15627324459942e-07f);
    p = fmaf(p, x2, 6.08574864600143e-05f);
    p = fmaf(p, x2, 8.51377133304701e-03f);
    p = fmaf(p, x2, 2.48287947061529e-01f);
    p = p * x;
    float q = fmaf(x2, 6.10247389755681e-13f, 5.76102136993427e-09f);
    q = fmaf(q, x2, 6.29106785017040e-06f);
    q = fmaf(q, x2, 1.70198817374094e-03f);
    q = fmaf(q, x2, 1.16817656904453e-01f);
    q = fmaf(q, x2, 9.93151921023180e-01f);
    float y = p / q + 0.5f;
    return y < 0.f ? 0.f : y > 1.f ? 1.f : y;
}

/* Byte -> byte table: dequantise each of the 256 values, apply the op in
 * float32, quantise with the output's parameters. */
static void qo_table(uint8_t *tab, int kind, float alpha, int dt, float xs, int xz, float ys,
                     int yz)
{
    for (int i = 0; i < 256; i++) {
        float x = xs * (float)(qo_byte(i, dt) - xz);
        float v = kind == QO_SIGMOID ? qo_logistic(x) : kind == QO_LEAKY ? (x >= 0.f ? x : alpha * x) : x;
        tab[i] = qo_quant(v, ys, yz, dt);
    }
}

/* Tables from the values at hand: input 0's scale/zero point to the output's
 * (unary ops), or x's and y's to z's (QLinearWhere). */
static void qo_tables(const qo_state *s, const void *const *val, uint8_t tab[2][256])
{
    const qo_desc *d = s->d;
    if (d->kind == QO_WHERE) {
        float zs = qo_scale(val[7]);
        int zz = qo_zp(val[8], s->dt);
        qo_table(tab[0], QO_WHERE, 0.f, s->dt, qo_scale(val[2]), qo_zp(val[3], s->dt), zs, zz);
        qo_table(tab[1], QO_WHERE, 0.f, s->dt, qo_scale(val[5]), qo_zp(val[6], s->dt), zs, zz);
        return;
    }
    qo_table(tab[0], d->kind, s->alpha, s->dt, qo_scale(val[1]), qo_zp(val[2], s->dt),
             qo_scale(val[3]), qo_zp(val[4], s->dt));
}

/* ---- init: types and attributes ---- */

static int qo_init_types(const g_graph *g, const g_node *n, const qo_desc *d, int *dt)
{
    if (n->n_in < d->min_in)
        return ew_fail(n, EW_EINVAL, "has %d inputs; needs %d", n->n_in, d->min_in);
    for (int i = 0; i < d->min_in; i++) {
        int optional_zp = d->kind != QO_WHERE && (i == d->zp[0] || i == d->zp[1] || i == d->zp[2]);
        if (!qo_present(n, i) && !optional_zp)
            return ew_fail(n, EW_EINVAL, "input %d is missing (only zero points are optional)", i);
    }
    *dt = G_UNDEF;
    for (int k = 0; d->data[k] >= 0; k++) {
        int t = ew_gdtype(g, n, d->data[k]);
        if (t == G_UNDEF) continue;
        if (t != G_U8 && t != G_I8) return nn_fail_dtype(n, d->data[k], t);
        if (*dt != G_UNDEF && t != *dt)
            return ew_fail(n, EW_ETYPE, "input %d is %s but input %d is %s: the quantised "
                           "inputs must share one type", d->data[k], g_dtype_name(t), d->data[0],
                           g_dtype_name(*dt));
        *dt = t;
    }
    for (int k = 0; d->scale[k] >= 0; k++) {
        int t = ew_gdtype(g, n, d->scale[k]);
        if (t != G_UNDEF && t != G_F32)
            return ew_fail(n, EW_ETYPE, "input %d (a scale) is %s; scales must be float32",
                           d->scale[k], g_dtype_name(t));
    }
    for (int k = 0; d->zp[k] >= 0; k++) {
        int t = ew_gdtype(g, n, d->zp[k]);
        if (t == G_UNDEF) continue;
        if (t != G_U8 && t != G_I8)
            return ew_fail(n, EW_ETYPE, "input %d (a zero point) is %s; zero points are uint8 "
                           "or int8", d->zp[k], g_dtype_name(t));
        if (*dt == G_UNDEF) *dt = t;
        if (t != *dt)
            return ew_fail(n, EW_ETYPE, "input %d (a zero point) is %s but the quantised data "
                           "is %s: they must have the same type", d->zp[k], g_dtype_name(t),
                           g_dtype_name(*dt));
    }
    return 0;
}

static int qo_init_attrs(const g_node *n, qo_state *s)
{
    if (s->d->kind == QO_LEAKY) s->alpha = g_attr_float(n, "alpha", 0.01f);
    if (s->d->kind == QO_SOFTMAX) {
        s->opset = (int)g_attr_int(n, "opset", -1);
        if (s->opset < 1)
            return ew_fail(n, EW_EINVAL, "the 'opset' attribute (the Softmax opset whose axis "
                           "rule applies) is missing or invalid");
        /* -1 whatever the opset: the schema's default, which ONNX Runtime
         * fills in before its kernel reads the attribute. */
        s->axis = (int)g_attr_int(n, "axis", -1);
    }
    if (s->d->kind == QO_RMEAN) {
        const int64_t *ax;
        int na = g_attr_ints(n, "axes", &ax);
        if (na <= 0 || na > G_MAX_RANK)
            return ew_fail(n, EW_EINVAL, "the 'axes' attribute must list 1 to %d axes (has %d)",
                           G_MAX_RANK, na < 0 ? 0 : na);
        s->naxes = na;
        memcpy(s->axes, ax, (size_t)na * sizeof *ax);
        s->keepdims = g_attr_int(n, "keepdims", 1) != 0;
    }
    return 0;
}

/* Tables built once when every parameter they need is a constant of the
 * graph with a valid shape. */
static void qo_init_fixed(const g_graph *g, const g_node *n, qo_state *s)
{
    int kind = s->d->kind;
    if (kind != QO_SIGMOID && kind != QO_LEAKY && kind != QO_WHERE) return;
    const void *val[9] = { 0 };
    for (int k = 0; k < 2; k++) {
        const int *slots = k ? s->d->zp : s->d->scale;
        for (int j = 0; slots[j] >= 0; j++) {
            int i = slots[j];
            if (!qo_present(n, i)) continue;   /* omitted zero point: 0 */
            const g_tensor *t = ew_gconst(g, n, i);
            if (!t || g_shape_numel(&t->shape) != 1 || t->shape.rank > 1) return;
            val[i] = t->data;
        }
    }
    qo_tables(s, val, s->tab);
    s->fixed = 1;
}

static int qo_init(g_graph *g, g_node *n, void **state)
{
    const qo_desc *d = NULL;
    for (size_t i = 0; i < sizeof qo_descs / sizeof qo_descs[0]; i++)
        if (!strcmp(qo_descs[i].op, n->op_type)) d = &qo_descs[i];
    if (!d) return K_DECLINE;
    int dt = G_UNDEF;
    int rc = qo_init_types(g, n, d, &dt);
    if (rc) return rc;
    if (d->kind == QO_WHERE) {
        int ct = ew_gdtype(g, n, 0);
        if (ct != G_UNDEF && ct != G_BOOL) return nn_fail_dtype(n, 0, ct);
    }
    qo_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->d = d;
    s->dt = dt;
    rc = qo_init_attrs(n, s);
    if (rc) { free(s); return rc; }
    if (dt != G_UNDEF) qo_init_fixed(g, n, s);
    *state = s;
    return 0;
}

/* ---- shapes ---- */

static int qo_bcast3(const g_node *n, const k_tensor *a, const k_tensor *b, const k_tensor *c,
                     g_shape *out)
{
    g_shape t;
    int rc = k_broadcast(n, &a->shape, &b->shape, &t);
    if (!rc && c) rc = k_broadcast(n, &t, &c->shape, &t);
    if (!rc) *out = t;
    return rc;
}

/* Reduced axes of QLinearReduceMean as a mask over rank r. */
static int qo_rmean_mask(const g_node *n, const qo_state *s, int r, int *mask)
{
    memset(mask, 0, sizeof(int) * G_MAX_RANK);
    for (int i = 0; i < s->naxes; i++) {
        int a = ew_axis(s->axes[i], r);
        if (a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d",
                                  (long long)s->axes[i], r);
        mask[a] = 1;
    }
    return 0;
}

static int qo_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qo_state *s = state;
    const qo_desc *d = s->d;
    for (int k = 0; d->scale[k] >= 0; k++) {
        int rc = qo_check_param(n, d->scale[k], &in[d->scale[k]], "scale");
        if (rc) return rc;
    }
    for (int k = 0; d->zp[k] >= 0; k++) {
        if (!ew_has(n, in, d->zp[k])) continue;
        int rc = qo_check_param(n, d->zp[k], &in[d->zp[k]], "zero point");
        if (rc) return rc;
    }
    out[0].dtype = in[d->data[0]].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    /* Types not known at init (an untyped intermediate) are known now. */
    if (s->dt == G_UNDEF) s->dt = out[0].dtype;
    if (s->dt != G_U8 && s->dt != G_I8) return nn_fail_dtype(n, d->data[0], s->dt);
    for (int k = 0; d->zp[k] >= 0; k++)
        if (ew_has(n, in, d->zp[k]) && in[d->zp[k]].dtype != s->dt)
            return ew_fail(n, EW_ETYPE, "input %d (a zero point) is %s but the quantised data "
                           "is %s: they must have the same type", d->zp[k],
                           g_dtype_name(in[d->zp[k]].dtype), g_dtype_name(s->dt));
    if (d->kind == QO_MUL) return qo_bcast3(n, &in[0], &in[3], NULL, &out[0].shape);
    if (d->kind == QO_WHERE) {
        if (in[0].dtype != G_BOOL) return nn_fail_dtype(n, 0, in[0].dtype);
        return qo_bcast3(n, &in[0], &in[1], &in[4], &out[0].shape);
    }
    const g_shape *xs = &in[0].shape;
    out[0].shape = *xs;
    if (d->kind == QO_SOFTMAX && xs->rank >= 0 && ew_axis(s->axis, xs->rank) < 0)
        return ew_fail(n, EW_EINVAL, "axis %d is out of range for rank %d", s->axis, xs->rank);
    if (d->kind == QO_RMEAN && xs->rank >= 0) {
        int mask[G_MAX_RANK], r = 0;
        int rc = qo_rmean_mask(n, s, xs->rank, mask);
        if (rc) return rc;
        for (int i = 0; i < xs->rank; i++)
            if (!mask[i]) out[0].shape.d[r++] = xs->d[i];
            else if (s->keepdims) out[0].shape.d[r++] = 1;
        out[0].shape.rank = r;
    }
    return 0;
}

/* ---- broadcast walk: up to three inputs, output in row-major order ---- */

typedef struct qo_bc {
    int rank;                 /* >= 1 */
    int64_t d[G_MAX_RANK];
    int64_t st[3][G_MAX_RANK];
} qo_bc;

static void qo_bc_plan(qo_bc *bc, const g_shape *y, const g_shape *const *x, int nx)
{
    int r = y->rank;
    int64_t st[3][G_MAX_RANK];
    for (int k = 0; k < nx; k++) {
        int64_t stride = 1;
        for (int j = r - 1; j >= 0; j--) {
            int ij = j - (r - x[k]->rank);
            int64_t dj = ij >= 0 ? x[k]->d[ij] : 1;
            st[k][j] = dj == 1 ? 0 : stride;
            stride *= dj;
        }
    }
    /* Size-1 dims dropped, neighbours merged where every input allows, so a
     * channel or row broadcast ends in long rows with strides 0 or 1. */
    int m = 0;
    for (int j = 0; j < r; j++) {
        if (y->d[j] == 1) continue;
        int merge = m > 0;
        for (int k = 0; merge && k < nx; k++) merge = bc->st[k][m - 1] == st[k][j] * y->d[j];
        if (merge) {
            bc->d[m - 1] *= y->d[j];
            for (int k = 0; k < nx; k++) bc->st[k][m - 1] = st[k][j];
            continue;
        }
        bc->d[m] = y->d[j];
        for (int k = 0; k < nx; k++) bc->st[k][m] = st[k][j];
        m++;
    }
    if (m == 0) {
        bc->d[0] = 1;
        for (int k = 0; k < 3; k++) bc->st[k][0] = 0;
        m = 1;
    }
    for (int k = nx; k < 3; k++)
        for (int j = 0; j < m; j++) bc->st[k][j] = 0;
    bc->rank = m;
}

/* Calls row(ctx, offsets, inner strides, length, output offset) per piece
 * of a row: rows (long ones cut in pieces of QO_PIECE) are shared among the
 * threads, each finding its inputs' offsets from its own index. */
typedef void (*qo_row_fn)(const void *ctx, const int64_t *off, const int64_t *st, int64_t len,
                          int64_t yo);
#define QO_PIECE 16384

static void qo_bc_walk(const qo_bc *bc, int nx, qo_row_fn row, const void *ctx, const k_ctx *kc)
{
    int r = bc->rank;
    int64_t rows = 1, len = bc->d[r - 1];
    for (int i = 0; i < r - 1; i++) rows *= bc->d[i];
    if (rows == 0 || len == 0) return;
    int64_t pieces = (len + QO_PIECE - 1) / QO_PIECE, plen = len < QO_PIECE ? len : QO_PIECE;
    int64_t st[3] = { bc->st[0][r - 1], bc->st[1][r - 1], bc->st[2][r - 1] };
    int nt = ew_threads(kc, (size_t)(rows * len), 4 * QO_PIECE);
    EW_PAR_FOR(q, rows * pieces, {
        int64_t rq = q / pieces, start = (q % pieces) * plen, rem = rq;
        int64_t off[3] = { start * st[0], start * st[1], start * st[2] };
        for (int i = r - 2; i >= 0; i--) {
            int64_t ix = rem % bc->d[i];
            rem /= bc->d[i];
            for (int k = 0; k < nx; k++) off[k] += ix * bc->st[k][i];
        }
        row(ctx, off, st, len - start < plen ? len - start : plen, rq * len + start);
    });
}

/* ---- QLinearMul ---- */

typedef struct qo_mul_ctx {
    const uint8_t *a, *b;
    uint8_t *y;
    int dt, za, zb;
    float ratio, zc;
} qo_mul_ctx;

/* (a - za) * (b - zb) exactly in int32, times (a_scale * b_scale / c_scale)
 * in float32, plus c's zero point, rounded half to even and saturated: the
 * steps of MLAS's QLinearMul kernel. Inlined with constant strides and
 * signedness, so the contiguous and scalar-operand forms vectorise. */
static inline __attribute__((always_inline)) void
qo_mul_span(const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb, uint8_t *y, int64_t len,
            const qo_mul_ctx *c, int sgn)
{
    float lo = sgn ? -128.f : 0.f, hi = sgn ? 127.f : 255.f, ratio = c->ratio, zc = c->zc;
    int za = c->za, zb = c->zb;
    EW_SIMD
    for (int64_t i = 0; i < len; i++) {
        int av = sgn ? (int)(int8_t)a[i * sa] : (int)a[i * sa];
        int bv = sgn ? (int)(int8_t)b[i * sb] : (int)b[i * sb];
        float v = (float)((av - za) * (bv - zb)) * ratio + zc;
        /* Clamping before rounding gives the same integer (the bounds are
         * integers and rounding is monotonic) and lets 1.5 * 2^23 round half
         * to even in the default mode without a libm call: the loop then
         * vectorises on the baseline ISA. NaN becomes the lower bound, as
         * MLAS's conversion and saturation make it. */
        v = ew_sel(v > lo, v, lo);      /* bit blends: no branch, NaN -> lo */
        v = ew_minf(v, hi);
        v = (v + 12582912.0f) - 12582912.0f;
        y[i] = sgn ? (uint8_t)(int8_t)(int)v : (uint8_t)(int)v;
    }
}

/* Cloned for AVX2 / AVX-512 like the elementwise loops; fp-contract=off
 * keeps the product and the addition of c's zero point two roundings, as
 * in MLAS, where those ISAs would otherwise fuse them. */
EW_CLONE __attribute__((optimize("fp-contract=off"))) static void
qo_mul_row(const void *cv, const int64_t *off, const int64_t *st, int64_t len, int64_t yo)
{
    const qo_mul_ctx *c = cv;
    const uint8_t *a = c->a + off[0], *b = c->b + off[1];
    uint8_t *y = c->y + yo;
    int sgn = c->dt == G_I8;
    if (st[0] == 1 && st[1] == 1) {
        if (sgn) qo_mul_span(a, 1, b, 1, y, len, c, 1);
        else qo_mul_span(a, 1, b, 1, y, len, c, 0);
    } else if (st[0] == 1 && st[1] == 0) {
        if (sgn) qo_mul_span(a, 1, b, 0, y, len, c, 1);
        else qo_mul_span(a, 1, b, 0, y, len, c, 0);
    } else if (st[0] == 0 && st[1] == 1) {
        if (sgn) qo_mul_span(a, 0, b, 1, y, len, c, 1);
        else qo_mul_span(a, 0, b, 1, y, len, c, 0);
    } else {
        qo_mul_span(a, st[0], b, st[1], y, len, c, sgn);
    }
}

static int qo_run_mul(const g_node *n, const qo_state *s, const k_tensor *in, k_tensor *out,
                      const k_ctx *kc)
{
    qo_mul_ctx c = { in[0].data, in[3].data, out[0].data, s->dt, 0, 0, 0.f, 0.f };
    c.za = qo_zp(ew_has(n, in, 2) ? in[2].data : NULL, s->dt);
    c.zb = qo_zp(ew_has(n, in, 5) ? in[5].data : NULL, s->dt);
    c.zc = (float)qo_zp(ew_has(n, in, 7) ? in[7].data : NULL, s->dt);
    c.ratio = qo_scale(in[1].data) * qo_scale(in[4].data) / qo_scale(in[6].data);
    qo_bc bc;
    const g_shape *xs[2] = { &in[0].shape, &in[3].shape };
    qo_bc_plan(&bc, &out[0].shape, xs, 2);
    qo_bc_walk(&bc, 2, qo_mul_row, &c, kc);
    return 0;
}

/* ---- QLinearWhere ---- */

typedef struct qo_where_ctx {
    const uint8_t *cond, *x, *y;
    uint8_t *z;
    const uint8_t *tx, *ty;
} qo_where_ctx;

static void qo_where_row(const void *cv, const int64_t *off, const int64_t *st, int64_t len,
                         int64_t yo)
{
    const qo_where_ctx *c = cv;
    const uint8_t *cd = c->cond + off[0], *x = c->x + off[1], *y = c->y + off[2];
    uint8_t *z = c->z + yo;
    const uint8_t *tx = c->tx, *ty = c->ty;
    int64_t s0 = st[0], s1 = st[1], s2 = st[2];
    for (int64_t i = 0; i < len; i++, cd += s0, x += s1, y += s2) {
        /* a blend, not a branch: conditions are data, often unpredictable */
        uint8_t a = tx[*x], b = ty[*y], m = (uint8_t)(0u - (*cd != 0));
        z[i] = (uint8_t)((a & m) | (b & (uint8_t)~m));
    }
}

static void qo_run_where(const k_tensor *in, k_tensor *out, uint8_t tab[2][256],
                         const k_ctx *kc)
{
    qo_where_ctx c = { in[0].data, in[1].data, in[4].data, out[0].data, tab[0], tab[1] };
    qo_bc bc;
    const g_shape *xs[3] = { &in[0].shape, &in[1].shape, &in[4].shape };
    qo_bc_plan(&bc, &out[0].shape, xs, 3);
    qo_bc_walk(&bc, 3, qo_where_row, &c, kc);
}

/* ---- QLinearSoftmax ---- */

/* exp((i - 255 + shift) * x_scale) for i in 0..255, with the shift that
 * keeps a row's sum in range: ONNX Runtime's table, in double then float. */
static void qo_exp_table(float *tab, float xs, int64_t reduce_len)
{
    double shift = log((double)(FLT_MAX / (float)reduce_len));
    shift = (shift - 5.0 > 0.0 ? shift - 5.0 : 0.0) / (double)xs;
    for (int i = 0; i < 256; i++)
        tab[i] = (float)exp(((double)i - 255 + shift) * (double)xs);
}

/* One row of D values spaced `inner` apart: each e = tab[x - max + 255],
 * the sum accumulated in order in float32, y = round(e * floor(1/y_scale)
 * / sum) + y_zero_point, saturated. */
/* The quotient step over n exponentials: round(e * yscale / sum) + zero
 * point, saturated (a separate loop over a buffer, so it vectorises). Only
 * a zero or NaN scale leaves [0, 256]: bounded (NaN -> 0) before the
 * conversion, where NaN or infinity would be undefined, then rounded half to
 * even by 1.5 * 2^23 (no libm call). */
EW_CLONE static void qo_softmax_quot(const float *e, int32_t *q, int n, float yscale, float sum,
                                    int yz, int hi)
{
    EW_SIMD
    for (int j = 0; j < n; j++) {
        float f = e[j] * yscale / sum;
        f = ew_sel(f > 0.f, f, 0.f);
        f = ew_minf(f, 512.f);
        f = (f + 12582912.0f) - 12582912.0f;
        int v = (int)f + yz;
        q[j] = v > hi ? hi : v;
    }
}

/* One row of D values spaced `inner` apart: each e = tab[x - max + 255],
 * the sum accumulated in order in float32, y = round(e * floor(1/y_scale)
 * / sum) + y_zero_point, saturated. */
static void qo_softmax_row(const uint8_t *x, uint8_t *y, int64_t D, int64_t inner, int dt,
                           const float *tab, float yscale, int yz)
{
    int sgn = dt == G_I8, mx = sgn ? -128 : 0;
    for (int64_t k = 0; k < D; k++) {
        int v = sgn ? (int)(int8_t)x[k * inner] : (int)x[k * inner];
        mx = v > mx ? v : mx;
    }
    const float *t = tab + 255;   /* t[v - mx], v - mx in [-255, 0] */
    float sum = 0.f;
    for (int64_t k = 0; k < D; k++)
        sum += t[(sgn ? (int)(int8_t)x[k * inner] : (int)x[k * inner]) - mx];
    float eb[256];
    int32_t qb[256];
    for (int64_t k0 = 0; k0 < D; k0 += 256) {
        int n = (int)(D - k0 < 256 ? D - k0 : 256);
        for (int j = 0; j < n; j++) {
            uint8_t b = x[(k0 + j) * inner];
            eb[j] = t[(sgn ? (int)(int8_t)b : (int)b) - mx];
        }
        qo_softmax_quot(eb, qb, n, yscale, sum, yz, sgn ? 127 : 255);
        for (int j = 0; j < n; j++) y[(k0 + j) * inner] = (uint8_t)qb[j];
    }
}

static int qo_run_softmax(const g_node *n, const qo_state *s, const k_tensor *in, k_tensor *out,
                          const k_ctx *kc)
{
    const g_shape *xs = &in[0].shape;
    int64_t cnt = g_shape_numel(xs);
    if (cnt == 0) return 0;
    int r = xs->rank, a = ew_axis(s->axis, r > 0 ? r : 1);
    int64_t O, D, I;
    if (s->opset < 13) {
        ew_split3(xs, a, r, &O, &D, &I);
        I = 1;
    } else {
        ew_split3(xs, a, a + 1, &O, &D, &I);
    }
    float tab[256];
    qo_exp_table(tab, qo_scale(in[1].data), D);
    float yscale = floorf(1.0f / qo_scale(in[3].data));
    int yz = qo_zp(ew_has(n, in, 4) ? in[4].data : NULL, s->dt);
    const uint8_t *x = in[0].data;
    uint8_t *y = out[0].data;
    int nt = ew_threads(kc, (size_t)cnt, 4 * QO_PIECE);
    int dt = s->dt;
    EW_PAR_FOR(q, O * I, {
        int64_t o = q / I, i = q % I;
        qo_softmax_row(x + o * D * I + i, y + o * D * I + i, D, I, dt, tab, yscale, yz);
    });
    return 0;
}

/* ---- QLinearReduceMean ---- */

/* Dequantise, average, quantise: the sum of (x - zero point) is exact in
 * int64; mean * x_scale / y_scale in double, rounded half to even. */
static int qo_run_rmean(const g_node *n, const qo_state *s, const k_tensor *in, k_tensor *out,
                        const k_ctx *ctx)
{
    const g_shape *xs = &in[0].shape;
    int r = xs->rank, mask[G_MAX_RANK];
    int rc = qo_rmean_mask(n, s, r, mask);
    if (rc) return rc;
    int64_t ycnt = g_shape_numel(&out[0].shape), xcnt = g_shape_numel(xs);
    int64_t count = ycnt > 0 ? xcnt / ycnt : 0;
    int xz = qo_zp(ew_has(n, in, 2) ? in[2].data : NULL, s->dt);
    int yz = qo_zp(ew_has(n, in, 4) ? in[4].data : NULL, s->dt);
    double ratio = (double)qo_scale(in[1].data) / (double)qo_scale(in[3].data);
    int sgn = s->dt == G_I8;
    int heap;
    size_t bytes = (size_t)(ycnt > 0 ? ycnt : 1) * sizeof(int64_t);
    int64_t *acc = nn_tmp_get(ctx, bytes, &heap);   /* plan()'s scratch when static */
    if (!acc) return ew_fail(n, EW_ENOMEM, "out of memory (%lld sums)", (long long)ycnt);
    memset(acc, 0, bytes);
    /* Each input element adds into the output element its kept indices name. */
    int64_t idx[G_MAX_RANK] = { 0 }, yst[G_MAX_RANK], st = 1;
    for (int i = r - 1; i >= 0; i--) {
        yst[i] = mask[i] ? 0 : st;
        if (!mask[i]) st *= xs->d[i];
    }
    const uint8_t *x = in[0].data;
    for (int64_t e = 0; e < xcnt; e++) {
        int64_t yo = 0;
        for (int i = 0; i < r; i++) yo += idx[i] * yst[i];
        acc[yo] += (sgn ? (int)(int8_t)x[e] : (int)x[e]) - xz;
        for (int i = r - 1; i >= 0; i--) {
            if (++idx[i] < xs->d[i]) break;
            idx[i] = 0;
        }
    }
    uint8_t *y = out[0].data;
    int lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    for (int64_t o = 0; o < ycnt; o++) {
        /* An empty reduction (a zero-sized axis) has no mean: the zero point. */
        double v = count ? rint((double)acc[o] / (double)count * ratio) + yz : yz;
        int q = v >= hi ? hi : v > lo ? (int)v : lo;   /* NaN (zero scales): lo */
        y[o] = sgn ? (uint8_t)(int8_t)q : (uint8_t)q;
    }
    nn_tmp_put(acc, heap);
    return 0;
}

static int qo_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                   size_t *packed_bytes, size_t *scratch_bytes)
{
    qo_state *s = state;
    int64_t ycnt = g_shape_numel(&out[0].shape);
    *packed_bytes = 0;
    *scratch_bytes = s->d->kind == QO_RMEAN && ycnt > 0 ? (size_t)ycnt * sizeof(int64_t) : 0;
    return 0;
}

/* ---- run ---- */

static void qo_run_table(const uint8_t *tab, const uint8_t *x, uint8_t *y, int64_t cnt,
                         const k_ctx *kc)
{
    int64_t pieces = (cnt + QO_PIECE - 1) / QO_PIECE;
    int nt = ew_threads(kc, (size_t)cnt, 4 * QO_PIECE);
    EW_PAR_FOR(p, pieces, {
        int64_t e = (p + 1) * QO_PIECE < cnt ? (p + 1) * QO_PIECE : cnt;
        for (int64_t i = p * QO_PIECE; i < e; i++) y[i] = tab[x[i]];
    });
}

static int qo_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                  const k_ctx *ctx)
{
    qo_state *s = state;
    /* Parameters arriving at run time are checked again (dynamic shapes). */
    int rc = qo_infer(n, state, in, &(k_tensor){ 0 });
    if (rc) return rc;
    switch (s->d->kind) {
    case QO_MUL: return qo_run_mul(n, s, in, out, ctx);
    case QO_SOFTMAX: return qo_run_softmax(n, s, in, out, ctx);
    case QO_RMEAN: return qo_run_rmean(n, s, in, out, ctx);
    default: break;
    }
    uint8_t local[2][256];
    uint8_t (*tab)[256] = s->fixed ? s->tab : local;
    if (!s->fixed) {
        const void *val[9] = { 0 };
        for (int i = 0; i < n->n_in && i < 9; i++) val[i] = ew_has(n, in, i) ? in[i].data : NULL;
        qo_tables(s, val, local);
    }
    if (s->d->kind == QO_WHERE) qo_run_where(in, out, tab, ctx);
    else qo_run_table(tab[0], in[0].data, out[0].data, g_shape_numel(&in[0].shape), ctx);
    return 0;
}

#define QO_OP(var, name)                                                                     \
    static const k_op var = { .op_type = name, .domain = "com.microsoft", .since = 1,         \
        .until = 0, .impl = "ref", .priority = 0, .init = qo_init, .infer = qo_infer,         \
        .plan = qo_plan, .run = qo_run, .fini = ew_fini_free };                              \
    K_REGISTER(var)

QO_OP(k_qlinear_sigmoid_ref, "QLinearSigmoid");
QO_OP(k_qlinear_leakyrelu_ref, "QLinearLeakyRelu");
QO_OP(k_qlinear_mul_ref, "QLinearMul");
QO_OP(k_qlinear_softmax_ref, "QLinearSoftmax");
QO_OP(k_qlinear_where_ref, "QLinearWhere");
QO_OP(k_qlinear_reducemean_ref, "QLinearReduceMean");
