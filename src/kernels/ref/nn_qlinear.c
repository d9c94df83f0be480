/* ONNX Runtime's quantised contrib ops (domain com.microsoft) that a folded
 * QDQ model runs between its int8 layers (graph/qdq_conv.c): QLinearAdd,
 * QLinearMul,
 * QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat. Semantics as
 * ORT's contrib op documentation gives them: dequantise, compute, requantise
 * rounding half to even and saturating. QLinearAdd may carry the folded
 * graph's activation chain as post-ops (kernels/post.h), applied to the real
 * sum before requantisation. 8-bit activations (uint8 or int8), per-tensor
 * scales and zero points. */
#include "kernels/ref/nn_common.h"
#include "kernels/ref/ew_common.h"
#include "kernels/ref/nn_qlinear.h"
#include "core/par.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The plain C loops of the uint8 fast paths; vectorised by the compiler
 * (clones for AVX2 / AVX-512 as the elementwise loops, ew_common.h) with
 * fp-contract=off, so a product and a sum stay two roundings as in the
 * vector implementation (kernels/x86/x86_qlinear.c) that shares this file's
 * driver through nn_qlinear.h. */
#if defined(__GNUC__) && !defined(__clang__)
#define QL_ROW EW_CLONE __attribute__((optimize("fp-contract=off")))
#else
#define QL_ROW
#endif

static int is_q8(int dt) { return dt == G_U8 || dt == G_I8; }
static int has(const g_node *n, int i) { return i < n->n_in && n->in[i] >= 0; }

static float sc_of(const k_tensor *in, int i) { return nn_loadf(in[i].data, in[i].dtype, 0); }
static int32_t zp_of(const g_node *n, const k_tensor *in, int i)
{
    if (!has(n, i) || !in[i].data) return 0;
    return in[i].dtype == G_I8 ? ((const int8_t *)in[i].data)[0] : ((const uint8_t *)in[i].data)[0];
}
static int32_t ld8(const void *p, int dt, size_t i)
{
    return dt == G_I8 ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

/* Rounds half to even (the float32 magic-number trick, exact for |v| < 2^22
 * once clamped) and saturates v + zp into dt. */
static inline int32_t q_round(float v, int32_t zp, int dt)
{
    float lo = (dt == G_I8 ? -128.f : 0.f) - (float)zp, hi = (dt == G_I8 ? 127.f : 255.f) - (float)zp;
    v = v < lo ? lo : v > hi ? hi : v;
    if (v != v) v = 0.f;
    float r = (v + 12582912.f) - 12582912.f;
    return (int32_t)r + zp;
}

static void st8(void *p, int dt, size_t i, int32_t v)
{
    if (dt == G_I8) ((int8_t *)p)[i] = (int8_t)v;
    else ((uint8_t *)p)[i] = (uint8_t)v;
}

static int check_scalars(const g_node *n, const k_tensor *in, const int *idx, int cnt)
{
    for (int k = 0; k < cnt; k++) {
        int i = idx[k];
        if (!has(n, i)) continue;
        if (!in[i].data || g_shape_numel(&in[i].shape) != 1)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): input %d must be a "
                            "constant scalar (per-tensor quantisation)", n->name, n->op_type, i);
    }
    return 0;
}

/* ---- QLinearAdd: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp ---- */

typedef struct qadd_st {
    nn_post po;
    int scaled;   /* the chain is Relu/Clip only: it commutes with 1/C_scale */
    int same;     /* A and B have one known 4-D shape: either may be channels-last */
    int mul;      /* QLinearMul */
    int chan;     /* QLinearMul of [N,C,H,W] by [N,C,1,1]: 1 B is the small one, 2 A */
    const nn_ql_rows *rows;   /* the uint8 loops: plain C here, vector ones (kernels/x86) */
    int one_px;   /* OPENACL_QMUL_RUNS=0: a channels-last channel scaling calls its row loop per pixel */
    int fstride;  /* OPENACL_QMUL_FROW=0: the repeated factor row written a factor at a time, R apart */
} qadd_st;

/* Pixels per call of a channels-last channel scaling's row loop: runs of
 * about 1024 values over a factor row repeated that many times (the same
 * arithmetic per value), so that narrow rows (EfficientNet-B0's first
 * squeeze-excite scaling: 32 channels) reach the vector loop's 64-value
 * steps, and a thread takes a run, not a pixel, per iteration. */
static int64_t qmul_px(const qadd_st *s, int64_t C, int64_t P)
{
    int64_t r = s->one_px || C <= 0 || C >= 1024 ? 1 : (1024 + C - 1) / C;
    return r < P ? r : P > 0 ? P : 1;
}

/* Whether small is [N,C,1,1] against big's [N,C,H,W] (both known). */
static int chan_of(const g_shape *big, const g_shape *small)
{
    if (big->rank != 4 || small->rank != 4 || !g_shape_known(big) || !g_shape_known(small)) return 0;
    return small->d[0] == big->d[0] && small->d[1] == big->d[1] && small->d[2] == 1 && small->d[3] == 1 &&
           big->d[2] * big->d[3] > 1;
}

void nn_ql_fini(void *s) { free(s); }

static int qbin_init(g_graph *g, g_node *n, void **state, int mul, const nn_ql_rows *rows)
{
    if (n->n_in < 7 || n->in[0] < 0 || n->in[3] < 0 || n->in[1] < 0 || n->in[4] < 0 || n->in[6] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): needs A, A_scale, B, B_scale "
                        "and C_scale", n->name, n->op_type);
    int at = g->t[n->in[0]].dtype, bt = g->t[n->in[3]].dtype;
    if (at != G_UNDEF && !is_q8(at)) return nn_fail_dtype(n, 0, at);
    if (bt != G_UNDEF && bt != at) return nn_fail_dtype(n, 3, bt);
    qadd_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    int r = nn_post_parse(n, &s->po);
    if (!r && s->po.has_add)
        r = acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): a fused add is not supported",
                     n->name, n->op_type);
    if (r) { free(s); return r; }
    const g_shape *as = &g->t[n->in[0]].shape, *bs = &g->t[n->in[3]].shape;
    s->same = as->rank == 4 && g_shape_known(as) && g_shape_eq(as, bs);
    s->mul = mul;
    s->rows = rows;
    s->chan = mul ? (chan_of(as, bs) ? 1 : chan_of(bs, as) ? 2 : 0) : 0;
    const char *e = getenv("OPENACL_QMUL_RUNS");   /* read per load: mdl_bench --ab */
    s->one_px = e && !strcmp(e, "0");
    e = getenv("OPENACL_QMUL_FROW");   /* read per load: mdl_bench --ab */
    s->fstride = e && !strcmp(e, "0");
    s->scaled = 1;
    for (int i = 0; i < s->po.n; i++)
        if (s->po.kind[i] != NN_PO_RELU && s->po.kind[i] != NN_PO_CLIP) s->scaled = 0;
    *state = s;
    return 0;
}

int nn_qladd_init(g_graph *g, g_node *n, void **st, const nn_ql_rows *rows)
{
    return qbin_init(g, n, st, 0, rows);
}
static int qadd_init(g_graph *g, g_node *n, void **st) { return nn_qladd_init(g, n, st, &nn_ql_rows_c); }
/* QLinearMul here is the form the int8 pass (graph/qdq_conv.c) writes: a
 * product of two tensors of one 4-D shape or a channel scaling ([N,C,H,W] by
 * [N,C,1,1], squeeze-excite), either in channels-last layout, or any product
 * carrying an activation chain. Every other QLinearMul (general broadcasting)
 * is the generic kernel's (nn_qops.c): this implementation declines it. */
int nn_qlmul_init(g_graph *g, g_node *n, void **st, const nn_ql_rows *rows)
{
    int r = qbin_init(g, n, st, 1, rows);
    if (r) return r;
    const qadd_st *s = *st;
    if (s->same || s->chan || s->po.n) return 0;
    free(*st);
    *st = NULL;
    return K_DECLINE;
}
static int qmul_init(g_graph *g, g_node *n, void **st) { return nn_qlmul_init(g, n, st, &nn_ql_rows_c); }

int nn_qladd_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    const qadd_st *s = state;
    int r = k_broadcast(n, &in[0].shape, &in[3].shape, &out[0].shape);
    if (r) return r;
    out[0].dtype = has(n, 7) && in[7].dtype != G_UNDEF ? in[7].dtype : in[0].dtype;
    int same = g_shape_eq(&in[0].shape, &in[3].shape);
    out[0].layout = same && in[0].layout == G_LAYOUT_NHWC && in[3].layout == G_LAYOUT_NHWC &&
                    out[0].shape.rank == 4 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    /* channel scaling: the output takes the large input's layout */
    if (s && s->mul && chan_of(&in[0].shape, &in[3].shape)) out[0].layout = in[0].layout;
    if (s && s->mul && chan_of(&in[3].shape, &in[0].shape)) out[0].layout = in[3].layout;
    return 0;
}

/* uint8 rows of C channels (channels-last) or planes (plain) times one
 * factor per channel (fstep 1) or one for the row (0):
 * y = clamp((a - za) * f + zc) rounded half to even. */
QL_ROW static void qmul_row_c(const uint8_t *a, uint8_t *y, int64_t n, const float *f, int fstep, float za,
                       float zc)
{
    for (int64_t i = 0; i < n; i++) {
        float v = rintf(((float)a[i] - za) * f[fstep ? i : 0]) + zc;
        y[i] = (uint8_t)(v >= 0.f ? (v <= 255.f ? v : 255.f) : 0.f);
    }
}

/* uint8 product of two tensors of one shape and layout, no chain:
 * y = clamp(((a - za) * (b - zb) * k) rounded + zc). */
QL_ROW static void qmul_u8_c(const uint8_t *a, const uint8_t *b, uint8_t *y, int64_t n, float za, float zb,
                      float k, float zc)
{
    for (int64_t i = 0; i < n; i++) {
        float v = rintf(((float)a[i] - za) * ((float)b[i] - zb) * k) + zc;
        y[i] = (uint8_t)(v >= 0.f ? (v <= 255.f ? v : 255.f) : 0.f);
    }
}

static void qmul_u8(const qadd_st *s, const uint8_t *a, const uint8_t *b, uint8_t *y, int64_t n, float za,
                    float zb, float k, float zc, int nthr)
{
    int64_t chunk = 16384, nch = (n + chunk - 1) / chunk;
    OA_PAR_FOR(nthr > 1 && n > 65536 ? nthr : 1, for (int64_t c = 0; c < nch; c++) {
        int64_t e = (c + 1) * chunk < n ? (c + 1) * chunk : n, o = c * chunk;
        s->rows->mul_u8(a + o, b + o, y + o, e - o, za, zb, k, zc);
    });
}

/* QLinearMul of [N,C,H,W] (either layout) by [N,C,1,1], uint8, no chain:
 * the squeeze-excite scaling. */
static int qmul_chan(const qadd_st *s, const g_node *n, const k_tensor *in, k_tensor *out, float k,
                     int32_t za, int32_t zb, int32_t zc, const k_ctx *ctx)
{
    int nthr = ctx ? ctx->threads : 1;
    const k_tensor *big = &in[s->chan == 1 ? 0 : 3], *small = &in[s->chan == 1 ? 3 : 0];
    int32_t zbig = s->chan == 1 ? za : zb, zsm = s->chan == 1 ? zb : za;
    const g_shape *xs = &big->shape;
    int64_t N = xs->d[0], C = xs->d[1], P = xs->d[2] * xs->d[3], R = qmul_px(s, C, P);
    int heap = 0;
    float *f = nn_tmp_get(ctx, (size_t)(N * C * R) * sizeof(float), &heap);   /* plan()'s scratch */
    if (!f) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int nhwc = big->layout == G_LAYOUT_NHWC;
    /* channels-last: image i's factors R times over at f + i * C * R; its
     * first row, then copies of it (OPENACL_QMUL_FROW=0: a factor at a
     * time, R rows apart, a division per factor: 1-2 us a node on
     * EfficientNet-B0) */
    const uint8_t *sv = small->data;
    if (s->fstride) {
        for (int64_t i = 0; i < N * C; i++) {
            float v = (float)(sv[i] - zsm) * k;
            if (!nhwc) f[i] = v;
            else for (int64_t j = 0; j < R; j++) f[(i / C) * C * R + j * C + i % C] = v;
        }
    } else {
        for (int64_t i = 0; i < N; i++) {
            float *fi = f + (nhwc ? i * C * R : i * C);
            for (int64_t c = 0; c < C; c++) fi[c] = (float)(sv[i * C + c] - zsm) * k;
            for (int64_t j = 1; nhwc && j < R; j++) memcpy(fi + j * C, fi, (size_t)C * sizeof(float));
        }
    }
    const uint8_t *a = big->data;
    uint8_t *y = out[0].data;
    int64_t runs = (P + R - 1) / R, rows = nhwc ? N * runs : N * C;
    OA_PAR_FOR(nthr > 1 && N * C * P > 65536 ? nthr : 1, for (int64_t r = 0; r < rows; r++) {
        if (nhwc) {
            int64_t i = r / runs, p0 = (r % runs) * R, np = P - p0 < R ? P - p0 : R, o = (i * P + p0) * C;
            s->rows->mul_row(a + o, y + o, np * C, f + i * C * R, 1, (float)zbig, (float)zc);
        } else {
            s->rows->mul_row(a + r * P, y + r * P, P, f + r, 0, (float)zbig, (float)zc);
        }
    });
    nn_tmp_put(f, heap);
    return 0;
}

/* uint8 with a Relu/Clip chain or none: y = clamp(a*ra + b*rb + off) rounded
 * half to even. */
QL_ROW static void qadd_u8_c(const uint8_t *a, const uint8_t *b, uint8_t *y, int64_t n, float ra, float rb,
                      float off, float lo, float hi)
{
    for (int64_t i = 0; i < n; i++) {
        float v = rintf((float)a[i] * ra + (float)b[i] * rb + off);
        y[i] = (uint8_t)(v >= lo ? (v <= hi ? v : hi) : lo);
    }
}

static void gap_sum_u8(const uint8_t *x, int64_t C, int64_t plane, int nhwc, int64_t *sum);
const nn_ql_rows nn_ql_rows_c = { qmul_row_c, qmul_u8_c, qadd_u8_c, gap_sum_u8 };

/* Same shape and layout: one flat loop. */
static void qadd_flat(const qadd_st *s, const void *a, const void *b, void *y, int dt, int64_t cnt,
                      int32_t za, int32_t zb, int32_t zc, float sa, float sb, float sc, int nthr)
{
    float ra = sa / sc, rb = sb / sc, lo = -3.4e38f, hi = 3.4e38f;
    if (s->scaled)
        for (int i = 0; i < s->po.n; i++) {
            if (s->po.kind[i] == NN_PO_RELU && s->po.a[i] == 0.f) { if (lo < 0.f) lo = 0.f; }
            else if (s->po.kind[i] == NN_PO_CLIP) {
                float l = s->po.a[i] / sc, h = s->po.b[i] / sc;
                lo = lo > l ? lo : l; hi = hi < h ? hi : h;
            }
        }
    int plain = s->scaled && (s->po.n == 0 || lo != -3.4e38f || hi != 3.4e38f);
    for (int i = 0; i < s->po.n && plain; i++)
        if (s->po.kind[i] == NN_PO_RELU && s->po.a[i] != 0.f) plain = 0;
    int64_t chunk = 16384, nch = (cnt + chunk - 1) / chunk;
    int fast = plain && dt == G_U8;
    float off = (float)zc - (float)za * ra - (float)zb * rb;
    /* the chain's bounds in output steps, rounded as the values are: the
     * loops clamp rounded values, and rint(clamp(v, lo, hi)) is
     * clamp(rint(v), rint(lo), rint(hi)); a bound left fractional would be
     * truncated by the byte conversion (Clip(0, 2.5) at scale 0.06: 169,
     * not 170) */
    float flo = lo + (float)zc > 0.f ? lo + (float)zc : 0.f, fhi = hi + (float)zc < 255.f ? hi + (float)zc : 255.f;
    flo = rintf(flo);
    fhi = rintf(fhi);
    OA_PAR_FOR(nthr > 1 && cnt > 65536 ? nthr : 1, for (int64_t c = 0; c < nch; c++) {
        int64_t e = (c + 1) * chunk < cnt ? (c + 1) * chunk : cnt;
        if (fast) {
            s->rows->add_u8((const uint8_t *)a + c * chunk, (const uint8_t *)b + c * chunk, (uint8_t *)y + c * chunk,
                    e - c * chunk, ra, rb, off, flo, fhi);
            continue;
        }
        for (int64_t i = c * chunk; i < e; i++) {
            float v;
            if (plain) {
                v = (float)(ld8(a, dt, (size_t)i) - za) * ra + (float)(ld8(b, dt, (size_t)i) - zb) * rb;
                v = v < lo ? lo : v > hi ? hi : v;
            } else {
                v = (float)(ld8(a, dt, (size_t)i) - za) * sa + (float)(ld8(b, dt, (size_t)i) - zb) * sb;
                nn_post_apply(&s->po, &v, 1, NULL);
                v /= sc;
            }
            st8(y, dt, (size_t)i, q_round(v, zc, dt));
        }
    });
}

int nn_qladd_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    qadd_st *s = state;
    static const int sc[] = { 1, 2, 4, 5, 6, 7 };
    int r = check_scalars(n, in, sc, 6);
    if (r) return r;
    float sa = sc_of(in, 1), sb = sc_of(in, 4), scy = sc_of(in, 6);
    int32_t za = zp_of(n, in, 2), zb = zp_of(n, in, 5), zc = zp_of(n, in, 7);
    int dt = out[0].dtype;
    const g_shape *ys = &out[0].shape;
    int64_t cnt = g_shape_numel(ys);
    if (s->mul && s->chan && !s->po.n && dt == G_U8 && in[0].dtype == G_U8 &&
        chan_of(&in[s->chan == 1 ? 0 : 3].shape, &in[s->chan == 1 ? 3 : 0].shape) &&
        out[0].layout == in[s->chan == 1 ? 0 : 3].layout)
        return qmul_chan(s, n, in, out, sa * sb / scy, za, zb, zc, ctx);
    if (s->mul && !s->po.n && dt == G_U8 && in[0].dtype == G_U8 && g_shape_eq(&in[0].shape, &in[3].shape) &&
        in[0].layout == in[3].layout && in[0].layout == out[0].layout) {
        qmul_u8(s, in[0].data, in[3].data, out[0].data, cnt, (float)za, (float)zb, sa * sb / scy, (float)zc,
                ctx ? ctx->threads : 1);
        return 0;
    }
    if (!s->mul && g_shape_eq(&in[0].shape, &in[3].shape) && in[0].layout == in[3].layout &&
        in[0].layout == out[0].layout) {
        qadd_flat(s, in[0].data, in[3].data, out[0].data, dt, cnt, za, zb, zc, sa, sb, scy,
                  ctx ? ctx->threads : 1);
        return 0;
    }
    /* broadcasting; 4-D tensors in either layout (each addressed through
     * its own strides, a dimension of 1 broadcast), other ranks plain */
    int rank = ys->rank, four = rank == 4 && in[0].shape.rank == 4 && in[3].shape.rank == 4;
    if (!four && (in[0].layout || in[3].layout || out[0].layout))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): broadcasting over a "
                        "channels-last tensor", n->name, n->op_type);
    int64_t sa_[G_MAX_RANK], sb_[G_MAX_RANK], sy_[G_MAX_RANK];
    if (four) {
        nn_strides xa, xb, xy;
        nn_strides_of(&in[0].shape, in[0].layout, &xa);
        nn_strides_of(&in[3].shape, in[3].layout, &xb);
        nn_strides_of(ys, out[0].layout, &xy);
        int64_t a4[4] = { xa.n, xa.c, xa.sp[0], xa.sp[1] }, b4[4] = { xb.n, xb.c, xb.sp[0], xb.sp[1] };
        int64_t y4[4] = { xy.n, xy.c, xy.sp[0], xy.sp[1] };
        for (int d = 0; d < 4; d++) {
            sa_[d] = in[0].shape.d[d] == 1 ? 0 : a4[d];
            sb_[d] = in[3].shape.d[d] == 1 ? 0 : b4[d];
            sy_[d] = y4[d];
        }
    } else {
        int64_t ea = 1, eb = 1, ey = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int ia = d - (rank - in[0].shape.rank), ib = d - (rank - in[3].shape.rank);
            int64_t da = ia >= 0 ? in[0].shape.d[ia] : 1, db = ib >= 0 ? in[3].shape.d[ib] : 1;
            sa_[d] = da == 1 ? 0 : ea;
            sb_[d] = db == 1 ? 0 : eb;
            sy_[d] = ey;
            ea *= da;
            eb *= db;
            ey *= ys->d[d];
        }
    }
    if (four) {
        /* nested loops in the output's storage order: no index arithmetic per value */
        int ord[4] = { 0, 1, 2, 3 };
        if (out[0].layout == G_LAYOUT_NHWC) { ord[1] = 2; ord[2] = 3; ord[3] = 1; }
        const int64_t *D = ys->d;
        int64_t i0, i1, i2, i3;
        if (!s->mul && sa_[ord[3]] == 1 && sb_[ord[3]] == 1 && sy_[ord[3]] == 1 && in[0].dtype == dt &&
            in[3].dtype == dt) {
            /* rows contiguous in all three (e.g. attention scores plus a
             * [1,1,1,W] mask): the same-shape loop per row */
            int64_t n1 = D[ord[1]], n2 = D[ord[2]], rows = D[ord[0]] * n1 * n2;
            const char *pa = in[0].data, *pb = in[3].data;
            char *py = out[0].data;
            int nthr = ctx ? ctx->threads : 1;
            OA_PAR_FOR(nthr > 1 && cnt > 65536 ? nthr : 1, for (int64_t rw = 0; rw < rows; rw++) {
                int64_t j0 = rw / (n1 * n2), j1 = rw / n2 % n1, j2 = rw % n2;
                int64_t oa = j0 * sa_[ord[0]] + j1 * sa_[ord[1]] + j2 * sa_[ord[2]];
                int64_t ob = j0 * sb_[ord[0]] + j1 * sb_[ord[1]] + j2 * sb_[ord[2]];
                int64_t oy = j0 * sy_[ord[0]] + j1 * sy_[ord[1]] + j2 * sy_[ord[2]];
                qadd_flat(s, pa + oa, pb + ob, py + oy, dt, D[ord[3]], za, zb, zc, sa, sb, scy, 1);
            });
            return 0;
        }
        for (i0 = 0; i0 < D[ord[0]]; i0++)
            for (i1 = 0; i1 < D[ord[1]]; i1++)
                for (i2 = 0; i2 < D[ord[2]]; i2++) {
                    int64_t oa = i0 * sa_[ord[0]] + i1 * sa_[ord[1]] + i2 * sa_[ord[2]];
                    int64_t ob = i0 * sb_[ord[0]] + i1 * sb_[ord[1]] + i2 * sb_[ord[2]];
                    int64_t oy = i0 * sy_[ord[0]] + i1 * sy_[ord[1]] + i2 * sy_[ord[2]];
                    for (i3 = 0; i3 < D[ord[3]]; i3++) {
                        float da = (float)(ld8(in[0].data, in[0].dtype, (size_t)(oa + i3 * sa_[ord[3]])) - za) * sa;
                        float db = (float)(ld8(in[3].data, in[3].dtype, (size_t)(ob + i3 * sb_[ord[3]])) - zb) * sb;
                        float v = s->mul ? da * db : da + db;
                        if (s->po.n) nn_post_apply(&s->po, &v, 1, NULL);
                        st8(out[0].data, dt, (size_t)(oy + i3 * sy_[ord[3]]), q_round(v / scy, zc, dt));
                    }
                }
        return 0;
    }
    for (int64_t i = 0; i < cnt; i++) {
        int64_t rem = i, oa = 0, ob = 0, oy = 0;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t k = rem % ys->d[d];
            rem /= ys->d[d];
            oa += k * sa_[d];
            ob += k * sb_[d];
            oy += k * sy_[d];
        }
        float da = (float)(ld8(in[0].data, in[0].dtype, (size_t)oa) - za) * sa;
        float db = (float)(ld8(in[3].data, in[3].dtype, (size_t)ob) - zb) * sb;
        float v = s->mul ? da * db : da + db;
        nn_post_apply(&s->po, &v, 1, NULL);
        st8(out[0].data, dt, (size_t)oy, q_round(v / scy, zc, dt));
    }
    return 0;
}

int nn_qladd_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n;
    const qadd_st *s = state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && s && (s->same || s->chan) &&
                                        (idx == 0 || idx == 3));
}

/* ---- QLinearGlobalAveragePool: X, x_scale, x_zp, y_scale, y_zp ---- */

static int qx_init(g_graph *g, g_node *n, void **state, int min_in)
{
    if (n->n_in < min_in || n->in[0] < 0 || n->in[1] < 0 || n->in[3] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): needs X, x_scale and y_scale",
                        n->name, n->op_type);
    int xt = g->t[n->in[0]].dtype;
    if (xt != G_UNDEF && !is_q8(xt)) return nn_fail_dtype(n, 0, xt);
    if (g_attr_int(n, "channels_last", 0) != 0)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): channels_last=1 is not "
                        "supported", n->name, n->op_type);
    *state = NULL;
    return 0;
}

typedef struct qgap_st {
    const nn_ql_rows *rows;
    int scalar;   /* OPENACL_QGAP_VEC=0: the requantisation a value at a time */
} qgap_st;

/* The pooled sums requantised into 8-bit channels: q_round's float steps in
 * its order (a loop the clones vectorise: EfficientNet-B0's 17 pools of up
 * to 1152 channels spent about 1.4 us each in the value-at-a-time form). */
QL_ROW static void qgap_requant(const int64_t *sum, void *y, int s8, int64_t C, int64_t zsum, float scale,
                                int32_t zy)
{
    float lo = (s8 ? -128.f : 0.f) - (float)zy, hi = (s8 ? 127.f : 255.f) - (float)zy;
    for (int64_t c = 0; c < C; c++) {
        float v = (float)(sum[c] - zsum) * scale;
        v = v < lo ? lo : v > hi ? hi : v;
        if (v != v) v = 0.f;
        int32_t q = (int32_t)((v + 12582912.f) - 12582912.f) + zy;
        if (s8) ((int8_t *)y)[c] = (int8_t)q;
        else ((uint8_t *)y)[c] = (uint8_t)q;
    }
}

int nn_qgap_init(g_graph *g, g_node *n, void **st, const nn_ql_rows *rows)
{
    int r = qx_init(g, n, st, 4);
    if (r) return r;
    qgap_st *s = malloc(sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    s->rows = rows;
    const char *e = getenv("OPENACL_QGAP_VEC");   /* read per load: mdl_bench --ab */
    s->scalar = e && !strcmp(e, "0");
    *st = s;
    return 0;
}

static int qgap_init(g_graph *g, g_node *n, void **st) { return nn_qgap_init(g, n, st, &nn_ql_rows_c); }

int nn_qgap_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    if (in[0].shape.rank >= 0 && in[0].shape.rank < 3) return nn_check_rank(n, 0, &in[0].shape, 3, 8);
    out[0].shape = in[0].shape;
    for (int i = 2; i < out[0].shape.rank; i++) out[0].shape.d[i] = 1;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

/* uint8 sums per channel (plane < 2^23: int32 cannot overflow), in loops
 * the compiler vectorises: channels-last adds rows of C bytes into C
 * 32-bit sums (in blocks of 256 channels, which stay in registers/L1);
 * plain sums each plane. */
static void gap_sum_u8(const uint8_t *x, int64_t C, int64_t plane, int nhwc, int64_t *sum)
{
    if (!nhwc) {
        for (int64_t c = 0; c < C; c++) {
            const uint8_t *p = x + c * plane;
            uint32_t acc = 0;
            for (int64_t i = 0; i < plane; i++) acc += p[i];
            sum[c] = acc;
        }
        return;
    }
    for (int64_t c0 = 0; c0 < C; c0 += 256) {
        int64_t cn = C - c0 < 256 ? C - c0 : 256;
        uint32_t acc[256];
        memset(acc, 0, sizeof acc);
        for (int64_t p = 0; p < plane; p++) {
            const uint8_t *row = x + p * C + c0;
            for (int64_t c = 0; c < cn; c++) acc[c] += row[c];
        }
        for (int64_t c = 0; c < cn; c++) sum[c0 + c] = acc[c];
    }
}

/* Up to GAP_PARTS threads share a uint8 pooling: channels-last, each sums
 * its rows into partial sums of its own (added after); planes, each its
 * channels. Integer sums, so the same bytes as one thread's. */
#define GAP_PARTS 4
static void gap_sums(void (*sum_u8)(const uint8_t *, int64_t, int64_t, int, int64_t *), const uint8_t *x,
                     int64_t C, int64_t plane, int nhwc, int64_t *sum, const k_ctx *ctx)
{
    int nt = ctx && ctx->threads > 1 ? ctx->threads : 1;
    if (nt > GAP_PARTS) nt = GAP_PARTS;
    if (C * plane < 65536 || plane < nt || C < nt) nt = 1;
    OA_PAR_FOR(nt, for (int64_t t = 0; t < nt; t++) {
        if (nhwc) {
            int64_t p0 = plane * t / nt, p1 = plane * (t + 1) / nt;
            sum_u8(x + p0 * C, C, p1 - p0, 1, sum + t * C);
        } else {
            int64_t c0 = C * t / nt, c1 = C * (t + 1) / nt;
            sum_u8(x + c0 * plane, c1 - c0, plane, 0, sum + c0);
        }
    });
    for (int t = 1; nhwc && t < nt; t++)
        for (int64_t c = 0; c < C; c++) sum[c] += sum[t * C + c];
}

int nn_qgap_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    const qgap_st *st = state;
    void (*sum_u8)(const uint8_t *, int64_t, int64_t, int, int64_t *) = st ? st->rows->gap_sum_u8 : gap_sum_u8;
    static const int sc[] = { 1, 2, 3, 4 };
    int r = check_scalars(n, in, sc, 4);
    if (r) return r;
    const g_shape *xs = &in[0].shape;
    int64_t N = xs->d[0], C = xs->d[1], plane = 1;
    for (int i = 2; i < xs->rank; i++) plane *= xs->d[i];
    float scale = sc_of(in, 1) / (sc_of(in, 3) * (float)plane);
    int32_t zx = zp_of(n, in, 2), zy = zp_of(n, in, 4);
    int nhwc = in[0].layout == G_LAYOUT_NHWC && xs->rank == 4;
    int dt = in[0].dtype;
    int heap = 0;
    int64_t *sum = nn_tmp_get(ctx, (size_t)C * GAP_PARTS * sizeof(int64_t), &heap);   /* plan()'s scratch */
    if (!sum) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    for (int64_t b = 0; b < N; b++) {
        memset(sum, 0, (size_t)C * sizeof(int64_t));
        if (dt == G_U8 && plane < ((int64_t)1 << 23)) {
            gap_sums(sum_u8, (const uint8_t *)in[0].data + b * C * plane, C, plane, nhwc, sum, ctx);
        } else if (nhwc) {
            /* channels-last: rows of C values, summed row by row */
            for (int64_t p = 0; p < plane; p++)
                for (int64_t c = 0; c < C; c++) sum[c] += ld8(in[0].data, dt, (size_t)((b * plane + p) * C + c));
        } else {
            for (int64_t c = 0; c < C; c++)
                for (int64_t p = 0; p < plane; p++) sum[c] += ld8(in[0].data, dt, (size_t)((b * C + c) * plane + p));
        }
        if (st && !st->scalar && is_q8(out[0].dtype)) {
            qgap_requant(sum, (char *)out[0].data + b * C, out[0].dtype == G_I8, C, (int64_t)zx * plane, scale, zy);
            continue;
        }
        for (int64_t c = 0; c < C; c++) {
            float v = (float)(sum[c] - (int64_t)zx * plane) * scale;
            st8(out[0].data, out[0].dtype, (size_t)(b * C + c), q_round(v, zy, out[0].dtype));
        }
    }
    nn_tmp_put(sum, heap);
    return 0;
}

/* The per-run buffers, from the shapes the plan fixes: the channel factors of
 * a channel scaling (QLinearMul) and the channel sums of the pooling. Runs
 * without a plan (dynamic shapes) allocate them instead (nn_tmp_get). */
int nn_qlmul_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                  size_t *packed_bytes, size_t *scratch_bytes)
{
    (void)n; (void)out;
    const qadd_st *s = state;
    *packed_bytes = 0;
    *scratch_bytes = 0;
    if (s->chan) {
        const g_shape *big = &in[s->chan == 1 ? 0 : 3].shape;
        *scratch_bytes = (size_t)(big->d[0] * big->d[1] * qmul_px(s, big->d[1], big->d[2] * big->d[3])) * sizeof(float);
    }
    return 0;
}

int nn_qgap_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                     size_t *packed_bytes, size_t *scratch_bytes)
{
    (void)n; (void)state; (void)out;
    *packed_bytes = 0;
    *scratch_bytes = in[0].shape.rank >= 2 ? (size_t)in[0].shape.d[1] * GAP_PARTS * sizeof(int64_t) : 0;
    return 0;
}

int nn_qgap_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && idx == 0);
}

/* ---- QLinearAveragePool: X, x_scale, x_zp, y_scale, y_zp; AveragePool's
 * attributes. Dequantised into scratch, pooled in float32, requantised. ---- */

typedef struct qap_st {
    nn_win w;
    int include_pad;
} qap_st;

static int qap_init(g_graph *g, g_node *n, void **state)
{
    int r = qx_init(g, n, state, 4);
    if (r) return r;
    qap_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    if ((r = nn_win_parse(n, NN_POOL, &s->w))) { free(s); return r; }
    s->include_pad = (int)g_attr_int(n, "count_include_pad", 0);
    *state = s;
    return 0;
}

static int qap_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qap_st *s = state;
    int r = nn_pool_infer_shape(n, &s->w, 0, &in[0].shape, &out[0].shape);
    if (r) return r;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int qap_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    qap_st *s = state;
    static const int sc[] = { 1, 2, 3, 4 };
    int r = check_scalars(n, in, sc, 4);
    if (r) return r;
    g_shape ys;
    nn_win w = s->w;
    if ((r = nn_pool_infer_shape(n, &w, 0, &in[0].shape, &ys))) return r;
    int64_t nx = g_shape_numel(&in[0].shape), ny = g_shape_numel(&ys);
    int heap = 0;
    float *buf = nn_tmp_get(ctx, (size_t)(nx + ny) * sizeof(float), &heap);
    if (!buf) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    float sx = sc_of(in, 1), sy = sc_of(in, 3);
    int32_t zx = zp_of(n, in, 2), zy = zp_of(n, in, 4);
    for (int64_t i = 0; i < nx; i++) buf[i] = (float)(ld8(in[0].data, in[0].dtype, (size_t)i) - zx) * sx;
    k_tensor xf = in[0], yf = out[0];
    xf.dtype = G_F32; xf.data = buf; xf.nbytes = (size_t)nx * sizeof(float);
    yf.dtype = G_F32; yf.data = buf + nx; yf.shape = ys; yf.layout = G_LAYOUT_PLAIN;
    yf.nbytes = (size_t)ny * sizeof(float);
    nn_pool_compute(&w, POOL_AVG, s->include_pad, 0, 0.f, &xf, &yf, NULL);
    for (int64_t i = 0; i < ny; i++)
        st8(out[0].data, out[0].dtype, (size_t)i, q_round(buf[nx + i] / sy, zy, out[0].dtype));
    nn_tmp_put(buf, heap);
    return 0;
}

/* ---- QLinearConcat: Y_scale, Y_zp, then (X, X_scale, X_zp) per input ---- */

static int qcat_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 5 || (n->n_in - 2) % 3 || n->in[0] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): expected Y_scale, Y_zero_point "
                        "and (X, X_scale, X_zero_point) per input, got %d inputs", n->name,
                        n->op_type, n->n_in);
    for (int j = 2; j < n->n_in; j += 3) {
        int xt = n->in[j] >= 0 ? g->t[n->in[j]].dtype : G_UNDEF;
        if (n->in[j] < 0 || n->in[j + 1] < 0 || (xt != G_UNDEF && !is_q8(xt))) return nn_fail_dtype(n, j, xt);
    }
    *state = NULL;
    return 0;
}

static int qcat_axis(const g_node *n, int rank, int64_t *ax)
{
    int64_t a = g_attr_int(n, "axis", 0);
    if (a < 0) a += rank;
    if (a < 0 || a >= rank)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): axis %lld out of range for rank %d",
                        n->name, n->op_type, (long long)g_attr_int(n, "axis", 0), rank);
    *ax = a;
    return 0;
}

static int qcat_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    const g_shape *s0 = &in[2].shape;
    out[0].dtype = has(n, 1) && in[1].dtype != G_UNDEF ? in[1].dtype : in[2].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (s0->rank < 0) { out[0].shape.rank = -1; return 0; }
    int64_t ax = 0;
    int r = qcat_axis(n, s0->rank, &ax);
    if (r) return r;
    out[0].shape = *s0;
    out[0].shape.d[ax] = 0;
    for (int j = 2; j < n->n_in; j += 3) {
        const g_shape *s = &in[j].shape;
        if (s->rank != s0->rank) {
            char b[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): input %d has shape %s of "
                            "another rank", n->name, n->op_type, j, g_shape_str(s, b, sizeof b));
        }
        for (int d = 0; d < s->rank; d++)
            if (d != ax && s->d[d] >= 0 && s0->d[d] >= 0 && s->d[d] != s0->d[d]) {
                char b[96];
                return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): input %d has shape %s; "
                                "dims other than the axis must match", n->name, n->op_type, j,
                                g_shape_str(s, b, sizeof b));
            }
        out[0].shape.d[ax] = out[0].shape.d[ax] < 0 || s->d[ax] < 0 ? -1 : out[0].shape.d[ax] + s->d[ax];
    }
    return 0;
}

static int qcat_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)state; (void)ctx;
    int64_t ax = 0;
    const g_shape *ys = &out[0].shape;
    int r = qcat_axis(n, ys->rank, &ax);
    if (r) return r;
    if (!in[0].data || g_shape_numel(&in[0].shape) != 1)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): Y_scale must be a constant "
                        "scalar", n->name, n->op_type);
    float sy = sc_of(in, 0);
    int32_t zy = zp_of(n, in, 1);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++) outer *= ys->d[d];
    for (int d = (int)ax + 1; d < ys->rank; d++) inner *= ys->d[d];
    int64_t yrow = ys->d[ax] * inner, off = 0;
    int dt = out[0].dtype;
    for (int j = 2; j < n->n_in; j += 3) {
        if (!in[j + 1].data || g_shape_numel(&in[j + 1].shape) != 1 ||
            (has(n, j + 2) && (!in[j + 2].data || g_shape_numel(&in[j + 2].shape) != 1)))
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): input %d's scale and "
                            "zero point must be constant scalars", n->name, n->op_type, j);
        float sx = sc_of(in, j + 1);
        int32_t zx = zp_of(n, in, j + 2);
        int64_t row = in[j].shape.d[ax] * inner;
        int copy = sx == sy && zx == zy && in[j].dtype == dt;
        int32_t lut[256];
        for (int v = 0; v < 256; v++) {
            int32_t q = in[j].dtype == G_I8 ? v - 128 : v;
            lut[v] = q_round((float)(q - zx) * sx / sy, zy, dt);
        }
        for (int64_t o = 0; o < outer; o++) {
            const uint8_t *src = (const uint8_t *)in[j].data + o * row;
            uint8_t *dst = (uint8_t *)out[0].data + o * yrow + off;
            if (copy) { memcpy(dst, src, (size_t)row); continue; }
            for (int64_t i = 0; i < row; i++) {
                int32_t q = in[j].dtype == G_I8 ? (int8_t)src[i] + 128 : src[i];
                st8(dst, dt, (size_t)i, lut[q]);
            }
        }
        off += row;
    }
    return 0;
}

#define QMS(var, name, in_, inf, rn, fin, acc) \
    static const k_op var = { .op_type = name, .domain = "com.microsoft", .since = 1, .until = 0, \
        .impl = "ref", .priority = 0, .init = in_, .infer = inf, .run = rn, .fini = fin, \
        .accepts_layout = acc }; \
    K_REGISTER(var)

QMS(k_qladd_ref, "QLinearAdd", qadd_init, nn_qladd_infer, nn_qladd_run, nn_ql_fini, nn_qladd_accepts);
/* before the generic QLinearMul (nn_qops.c), whose arithmetic it shares */
static const k_op k_qlmul_layout = { .op_type = "QLinearMul", .domain = "com.microsoft", .since = 1,
    .until = 0, .impl = "ref_layout", .priority = 5, .init = qmul_init, .infer = nn_qladd_infer,
    .plan = nn_qlmul_plan, .run = nn_qladd_run, .fini = nn_ql_fini, .accepts_layout = nn_qladd_accepts };
K_REGISTER(k_qlmul_layout);
static const k_op k_qlgap_ref = { .op_type = "QLinearGlobalAveragePool", .domain = "com.microsoft",
    .since = 1, .until = 0, .impl = "ref", .priority = 0, .init = qgap_init, .infer = nn_qgap_infer,
    .plan = nn_qgap_plan, .run = nn_qgap_run, .fini = nn_ql_fini, .accepts_layout = nn_qgap_accepts };
K_REGISTER(k_qlgap_ref);
QMS(k_qlap_ref, "QLinearAveragePool", qap_init, qap_infer, qap_run, nn_ql_fini, NULL);
QMS(k_qlcat_ref, "QLinearConcat", qcat_init, qcat_infer, qcat_run, nn_ql_fini, NULL);
