/* Reference reductions: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,LogSumExp,
 * SumSquare} (axes as attribute, or as input from opset 13 for ReduceSum and
 * 18 for the others; keepdims; noop_with_empty_axes), ArgMax/ArgMin
 * (keepdims, select_last_index) and CumSum (exclusive, reverse).
 *
 * A reduction is first brought to canonical form: size-1 dims dropped and
 * neighbouring dims of the same kind (kept / reduced) merged. One reduced
 * group gives [outer, R, inner], which float32 handles with vectorised rows
 * (inner == 1) or column accumulators (inner > 1). Anything else, and every
 * other dtype, goes through a generic loop accumulating in double (floats)
 * or 64-bit integers (exact integer results). */
#include "kernels/ref/ew_common.h"
#include <omp.h>
#include <stdlib.h>

enum red_kind { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LSE, R_SUMSQ };

static const struct { const char *op; int kind; int input_since; } red_ops[] = {
    { "ReduceSum", R_SUM, 13 },     { "ReduceMean", R_MEAN, 18 },  { "ReduceMax", R_MAX, 18 },
    { "ReduceMin", R_MIN, 18 },     { "ReduceProd", R_PROD, 18 },  { "ReduceL1", R_L1, 18 },
    { "ReduceL2", R_L2, 18 },       { "ReduceLogSum", R_LOGSUM, 18 },
    { "ReduceLogSumExp", R_LSE, 18 }, { "ReduceSumSquare", R_SUMSQ, 18 },
};

typedef struct red_state {
    int kind, dt;
    int keepdims, noop;
    int axes_input;           /* axes come from input 1 */
    int naxes;                /* attribute axes; -1 = absent */
    int64_t axes[G_MAX_RANK];
    int ncaxes;               /* axes input 1 as a constant at init; -1 = not known */
    int64_t caxes[G_MAX_RANK];
} red_state;

static int red_init(g_graph *g, g_node *n, void **state)
{
    int kind = -1, since = 18;
    for (size_t i = 0; i < sizeof red_ops / sizeof red_ops[0]; i++)
        if (!strcmp(red_ops[i].op, n->op_type)) {
            kind = red_ops[i].kind;
            since = red_ops[i].input_since;
        }
    if (kind < 0) return K_DECLINE;
    int dt = ew_gdtype(g, n, 0);
    unsigned mask = EW_MNUM | ((kind == R_MAX || kind == R_MIN) ? EW_MBOOL : 0);
    int rc = ew_check_type(n, 0, dt, mask);
    if (rc) return rc;
    red_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->kind = kind;
    s->dt = dt;
    s->keepdims = g_attr_int(n, "keepdims", 1) != 0;
    s->noop = g_attr_int(n, "noop_with_empty_axes", 0) != 0;
    s->axes_input = n->opset >= since;
    s->naxes = -1;
    if (!s->axes_input) {
        const int64_t *ax;
        int na = g_attr_ints(n, "axes", &ax);
        if (na > G_MAX_RANK) {
            free(s);
            return ew_fail(n, EW_EINVAL, "%d axes given, at most %d supported", na, G_MAX_RANK);
        }
        if (na >= 0) {
            s->naxes = na;
            memcpy(s->axes, ax, (size_t)na * sizeof *ax);
        }
    } else if (n->n_in > 1 && n->in[1] >= 0) {
        int at = ew_gdtype(g, n, 1);
        if (at != G_I64 && at != G_I32) {
            free(s);
            return ew_fail(n, EW_ETYPE, "axes input is %s (expected int64)", g_dtype_name(at));
        }
    }
    s->ncaxes = -1;
    if (s->axes_input && n->n_in > 1 && n->in[1] >= 0) {
        const g_tensor *a = &g->t[n->in[1]];
        int64_t cnt = g_shape_known(&a->shape) ? g_shape_numel(&a->shape) : -1;
        if (a->kind == G_TK_CONST && a->data && cnt >= 0 && cnt <= G_MAX_RANK) {
            for (int64_t i = 0; i < cnt; i++) s->caxes[i] = ew_ldi(a->data, a->dtype, (size_t)i);
            s->ncaxes = (int)cnt;
        }
    }
    *state = s;
    return 0;
}

/* OPENACL_NO_REDUCE_NHWC=1: reductions read only plain inputs (the layout
 * pass then puts a reorder in front of a channels-last one). */
static int red_nhwc_off(void)
{
    const char *e = getenv("OPENACL_NO_REDUCE_NHWC");   /* read per load: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

/* k_op.accepts_layout: a 4-D input may come channels-last when the dims
 * kept keep their order in [N, H, W, C] (C reduced, or H and W both), so
 * the result's bytes are the plain result's; it saves the reorder in front
 * (MNASNet's and ShuffleNetV2's mean over H and W after their last
 * convolution, which then writes channels-last). The axes must be known
 * now: an attribute, or a constant input. */
static int red_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n;
    const red_state *s = state;
    if (layout == G_LAYOUT_PLAIN) return 1;
    if (layout != G_LAYOUT_NHWC || idx != 0 || !s || red_nhwc_off()) return 0;
    int na = s->axes_input ? s->ncaxes : s->naxes;
    const int64_t *ax = s->axes_input ? s->caxes : s->axes;
    if (na <= 0) return 0;
    int mask[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < na; i++) {
        int a = ew_axis(ax[i], 4);
        if (a < 0) return 0;
        mask[a] = 1;
    }
    return mask[1] || (mask[2] && mask[3]) ? 2 : 0;
}

/* The physical shape and reduced dims of input x: [N, H, W, C] for a 4-D
 * input stored channels-last (red_accepts), else its own. */
static void red_phys(const k_tensor *x, int *mask, g_shape *shape)
{
    *shape = x->shape;
    if (x->layout != G_LAYOUT_NHWC || x->shape.rank != 4) return;
    static const int p[4] = { 0, 2, 3, 1 };
    int m[4];
    for (int i = 0; i < 4; i++) {
        shape->d[i] = x->shape.d[p[i]];
        m[i] = mask[p[i]];
    }
    memcpy(mask, m, sizeof m);
}

/* Which dims are reduced. Returns 0, K_NEED_DATA or an error; *all_noop set
 * when the op is an identity (empty axes with noop_with_empty_axes). */
static int red_mask(const g_node *n, const red_state *s, const k_tensor *in, int r, int *mask,
                    int *noop)
{
    const int64_t *ax = s->axes;
    int64_t buf[G_MAX_RANK];
    int na = s->naxes;
    *noop = 0;
    if (s->axes_input) {
        na = -1;
        if (ew_has(n, in, 1)) {
            if (!in[1].data) return K_NEED_DATA;
            int64_t cnt = g_shape_numel(&in[1].shape);
            if (cnt > G_MAX_RANK) return ew_fail(n, EW_EINVAL, "%lld axes given", (long long)cnt);
            for (int64_t i = 0; i < cnt; i++) buf[i] = ew_ldi(in[1].data, in[1].dtype, (size_t)i);
            na = (int)cnt;
            ax = buf;
        }
    }
    if (na <= 0) {
        if (na == 0 && s->noop) *noop = 1;
        else if (na < 0 && s->noop && s->axes_input) *noop = 1;
        for (int i = 0; i < r; i++) mask[i] = !*noop;
        return 0;
    }
    for (int i = 0; i < r; i++) mask[i] = 0;
    for (int i = 0; i < na; i++) {
        int a = ew_axis(ax[i], r);
        if (a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)ax[i], r);
        if (mask[a]) return ew_fail(n, EW_EINVAL, "axis %lld is repeated", (long long)ax[i]);
        mask[a] = 1;
    }
    return 0;
}

static int red_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    red_state *s = state;
    int r = in[0].shape.rank, mask[G_MAX_RANK], noop;
    out[0].dtype = s->dt;
    out[0].layout = G_LAYOUT_PLAIN;
    if (r < 0) {
        out[0].shape.rank = -1;
        return 0;
    }
    int rc = red_mask(n, s, in, r, mask, &noop);
    if (rc) return rc;
    g_shape o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < r; i++) {
        if (!mask[i]) o.d[o.rank++] = in[0].shape.d[i];
        else if (s->keepdims) o.d[o.rank++] = 1;
    }
    out[0].shape = o;
    return 0;
}

/* ---- canonical form ---- */
typedef struct red_geo {
    int r;                    /* merged dims */
    int64_t d[G_MAX_RANK];
    int red[G_MAX_RANK];
    int64_t st[G_MAX_RANK];   /* input element strides of the merged dims */
    int64_t nout, nred;       /* output elements, elements per output */
} red_geo;

static void red_canon(const g_shape *x, const int *mask, red_geo *q)
{
    int64_t D[G_MAX_RANK];
    int M[G_MAX_RANK], m = 0;
    for (int i = 0; i < x->rank; i++) {
        if (x->d[i] == 1) continue;
        if (m > 0 && M[m - 1] == mask[i]) {
            D[m - 1] *= x->d[i];
            continue;
        }
        D[m] = x->d[i];
        M[m] = mask[i];
        m++;
    }
    q->r = m;
    q->nout = q->nred = 1;
    int64_t s = 1;
    for (int i = m - 1; i >= 0; i--) {
        q->d[i] = D[i];
        q->red[i] = M[i];
        q->st[i] = s;
        s *= D[i];
        if (M[i]) q->nred *= D[i];
        else q->nout *= D[i];
    }
}

/* ---- float32 fast paths ---- */
EW_CLONE static float row_f32(int kind, const float *x, int64_t R)
{
    float s = 0.0f;
    switch (kind) {
    case R_SUM: case R_MEAN: case R_LOGSUM:
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += x[i];
        if (kind == R_MEAN) s /= (float)R;
        if (kind == R_LOGSUM) s = logf(s);
        return s;
    case R_SUMSQ: case R_L2:
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += x[i] * x[i];
        return kind == R_L2 ? sqrtf(s) : s;
    case R_L1:
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += fabsf(x[i]);
        return s;
    case R_PROD: {
        float p = 1.0f;
        EW_SIMD_RED(*, p)
        for (int64_t i = 0; i < R; i++) p *= x[i];
        return p;
    }
    case R_MAX: case R_MIN: case R_LSE: {
        float m = kind == R_MIN ? INFINITY : -INFINITY;
        int nan = 0;
        if (kind == R_MIN) {
            EW_SIMD_RED2(min, m, |, nan)
            for (int64_t i = 0; i < R; i++) { m = x[i] < m ? x[i] : m; nan |= x[i] != x[i]; }
        } else {
            EW_SIMD_RED2(max, m, |, nan)
            for (int64_t i = 0; i < R; i++) { m = x[i] > m ? x[i] : m; nan |= x[i] != x[i]; }
        }
        if (nan) return NAN;
        if (kind != R_LSE) return m;
        if (m == -INFINITY || m == INFINITY) return m;
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += ew_expf(x[i] - m);
        return m + logf(s);
    }
    }
    return 0.0f;
}

/* columns: y[i] = reduce_r x[r*I + i] for i in [0, len) */
#define COLB 256
EW_CLONE static void cols_f32(int kind, const float *x, int64_t R, int64_t I, float *y, int64_t len)
{
    float acc[COLB], mx[COLB];
    for (int64_t j0 = 0; j0 < len; j0 += COLB) {
        int64_t m = len - j0 < COLB ? len - j0 : COLB;
        const float *xc = x + j0;
        float init = kind == R_PROD ? 1.0f : kind == R_MIN ? INFINITY : kind == R_MAX || kind == R_LSE ? -INFINITY : 0.0f;
        for (int64_t j = 0; j < m; j++) acc[j] = init;
        switch (kind) {
        case R_SUM: case R_MEAN: case R_LOGSUM:
            for (int64_t r = 0; r < R; r++) { EW_SIMD for (int64_t j = 0; j < m; j++) acc[j] += xc[r * I + j]; }
            break;
        case R_SUMSQ: case R_L2:
            for (int64_t r = 0; r < R; r++) { EW_SIMD for (int64_t j = 0; j < m; j++) acc[j] += xc[r * I + j] * xc[r * I + j]; }
            break;
        case R_L1:
            for (int64_t r = 0; r < R; r++) { EW_SIMD for (int64_t j = 0; j < m; j++) acc[j] += fabsf(xc[r * I + j]); }
            break;
        case R_PROD:
            for (int64_t r = 0; r < R; r++) { EW_SIMD for (int64_t j = 0; j < m; j++) acc[j] *= xc[r * I + j]; }
            break;
        case R_MAX: case R_LSE:
            for (int64_t r = 0; r < R; r++) {
                EW_SIMD for (int64_t j = 0; j < m; j++) {
                    float v = xc[r * I + j];
                    acc[j] = ((v > acc[j]) | (v != v)) ? v : acc[j];
                }
            }
            break;
        case R_MIN:
            for (int64_t r = 0; r < R; r++) {
                EW_SIMD for (int64_t j = 0; j < m; j++) {
                    float v = xc[r * I + j];
                    acc[j] = ((v < acc[j]) | (v != v)) ? v : acc[j];
                }
            }
            break;
        }
        if (kind == R_LSE) {
            for (int64_t j = 0; j < m; j++) { mx[j] = acc[j]; acc[j] = 0.0f; }
            for (int64_t r = 0; r < R; r++) {
                EW_SIMD for (int64_t j = 0; j < m; j++) {
                    float mj = mx[j] == -INFINITY || mx[j] == INFINITY ? 0.0f : mx[j];
                    acc[j] += ew_expf(xc[r * I + j] - mj);
                }
            }
            for (int64_t j = 0; j < m; j++) {
                float mj = mx[j];
                y[j0 + j] = (mj == -INFINITY || mj == INFINITY || mj != mj) ? mj : mj + logf(acc[j]);
            }
            continue;
        }
        for (int64_t j = 0; j < m; j++) {
            float v = acc[j];
            if (kind == R_MEAN) v /= (float)R;
            else if (kind == R_L2) v = sqrtf(v);
            else if (kind == R_LOGSUM) v = logf(v);
            y[j0 + j] = v;
        }
    }
}

static void red_f32(int kind, const float *x, float *y, int64_t O, int64_t R, int64_t I,
                    const k_ctx *ctx)
{
    if (I == 1) {
        int nt = ew_threads(ctx, (size_t)(O * R), EW_GRAIN_CHEAP);
        EW_PAR_FOR(o, O, y[o] = row_f32(kind, x + o * R, R););
        return;
    }
    int64_t nb = (I + COLB - 1) / COLB;
    int nt = ew_threads(ctx, (size_t)(O * R * I), EW_GRAIN_CHEAP);
    EW_PAR_FOR(u, O * nb,
        int64_t o = u / nb, j0 = (u % nb) * COLB;
        int64_t len = I - j0 < COLB ? I - j0 : COLB;
        cols_f32(kind, x + o * R * I + j0, R, I, y + o * I + j0, len);
    );
}

/* ---- generic path ---- */
static void red_generic(const red_geo *q, int kind, int dt, const void *x, void *y, const k_ctx *ctx)
{
    /* output dims (kept) and reduced dims of the merged shape */
    int ko[G_MAX_RANK], kr[G_MAX_RANK], nko = 0, nkr = 0;
    for (int i = 0; i < q->r; i++) {
        if (q->red[i]) kr[nkr++] = i;
        else ko[nko++] = i;
    }
    int isint = !ew_is_float(dt), isuns = ew_is_uint(dt) || dt == G_BOOL;
    int exact = isint && kind != R_L2 && kind != R_LOGSUM && kind != R_LSE;
    int64_t NR = q->nred;
    int nt = ew_threads(ctx, (size_t)(q->nout * (NR > 0 ? NR : 1)), EW_GRAIN_CHEAP);
    EW_PAR_FOR(o, q->nout,
        /* base offset of this output element */
        int64_t base = 0, rem = o;
        for (int k = nko - 1; k >= 0; k--) {
            int i = ko[k];
            base += (rem % q->d[i]) * q->st[i];
            rem /= q->d[i];
        }
        int64_t idx[G_MAX_RANK] = { 0 }, off = base;
        if (exact) {
            uint64_t acc = kind == R_PROD ? 1 : 0;
            int64_t sm = INT64_MIN, sn = INT64_MAX;
            uint64_t um = 0, un = UINT64_MAX;
            for (int64_t e = 0; e < NR; e++) {
                int64_t v = ew_ldi(x, dt, (size_t)off);
                switch (kind) {
                case R_SUM: case R_MEAN: acc += (uint64_t)v; break;
                case R_PROD: acc *= (uint64_t)v; break;
                case R_L1: acc += (!isuns && v < 0) ? 0 - (uint64_t)v : (uint64_t)v; break;
                case R_SUMSQ: acc += (uint64_t)v * (uint64_t)v; break;
                case R_MAX:
                    if (isuns) um = (uint64_t)v > um ? (uint64_t)v : um;
                    else sm = v > sm ? v : sm;
                    break;
                case R_MIN:
                    if (isuns) un = (uint64_t)v < un ? (uint64_t)v : un;
                    else sn = v < sn ? v : sn;
                    break;
                }
                for (int k = nkr - 1; k >= 0; k--) {
                    int i = kr[k];
                    off += q->st[i];
                    if (++idx[k] < q->d[i]) break;
                    off -= q->st[i] * q->d[i];
                    idx[k] = 0;
                }
            }
            if (kind == R_MAX) acc = isuns ? um : (uint64_t)sm;
            if (kind == R_MIN) acc = isuns ? un : (uint64_t)sn;
            if (kind == R_MEAN)
                acc = NR == 0 ? 0 : isuns ? acc / (uint64_t)NR : (uint64_t)((int64_t)acc / NR);
            ew_sti(y, dt, (size_t)o, (int64_t)acc);
            continue;
        }
        double acc = kind == R_PROD ? 1.0 : kind == R_MAX || kind == R_LSE ? -INFINITY : kind == R_MIN ? INFINITY : 0.0;
        int nan = 0;
        for (int pass = 0; pass < (kind == R_LSE ? 2 : 1); pass++) {
            double m = acc;
            if (pass == 1) {
                acc = 0.0;
                off = base;
                memset(idx, 0, sizeof idx);
                if (m == -INFINITY || m == INFINITY || nan) { acc = m; break; }
            }
            for (int64_t e = 0; e < NR; e++) {
                double v = ew_ld(x, dt, (size_t)off);
                switch (kind) {
                case R_SUM: case R_MEAN: case R_LOGSUM: acc += v; break;
                case R_PROD: acc *= v; break;
                case R_L1: acc += fabs(v); break;
                case R_SUMSQ: case R_L2: acc += v * v; break;
                case R_MAX: nan |= v != v; acc = v > acc ? v : acc; break;
                case R_MIN: nan |= v != v; acc = v < acc ? v : acc; break;
                case R_LSE:
                    if (pass == 0) { nan |= v != v; acc = v > acc ? v : acc; }
                    else acc += exp(v - m);
                    break;
                }
                for (int k = nkr - 1; k >= 0; k--) {
                    int i = kr[k];
                    off += q->st[i];
                    if (++idx[k] < q->d[i]) break;
                    off -= q->st[i] * q->d[i];
                    idx[k] = 0;
                }
            }
            if (pass == 1) acc = m + log(acc);
        }
        if (nan && (kind == R_MAX || kind == R_MIN || kind == R_LSE)) acc = NAN;
        if (kind == R_MEAN) acc /= (double)NR;
        else if (kind == R_L2) acc = sqrt(acc);
        else if (kind == R_LOGSUM) acc = log(acc);
        ew_st(y, dt, (size_t)o, acc);
    );
}

static int red_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    red_state *s = state;
    int r = in[0].shape.rank, mask[G_MAX_RANK], noop;
    int rc = red_mask(n, s, in, r, mask, &noop);
    if (rc) return rc == K_NEED_DATA ? ew_fail(n, EW_EINVAL, "axes input has no data") : rc;
    int64_t nout = g_shape_numel(&out[0].shape);
    if (nout <= 0) return 0;
    if (noop) {
        memmove(out[0].data, in[0].data, k_nbytes(&out[0]));
        return 0;
    }
    red_geo q;
    g_shape xs;
    red_phys(&in[0], mask, &xs);
    red_canon(&xs, mask, &q);
    int nred_groups = 0, first_red = -1;
    for (int i = 0; i < q.r; i++)
        if (q.red[i] && (i == 0 || !q.red[i - 1])) {
            nred_groups++;
            if (first_red < 0) first_red = i;
        }
    if (s->dt == G_F32 && nred_groups == 1 && q.nred > 0) {
        int64_t O, R, I;
        g_shape m;
        m.rank = q.r;
        for (int i = 0; i < q.r; i++) m.d[i] = q.d[i];
        ew_split3(&m, first_red, first_red + 1, &O, &R, &I);
        red_f32(s->kind, in[0].data, out[0].data, O, R, I, ctx);
        return 0;
    }
    red_generic(&q, s->kind, s->dt, in[0].data, out[0].data, ctx);
    return 0;
}

#define RED_OP(var, name)                                                                        \
    static const k_op var = { name, "", 1, 0, "ref", 0, red_init, red_infer, NULL, NULL, red_run, \
                              ew_fini_free, red_accepts };                                       \
    K_REGISTER(var);
RED_OP(k_rsum, "ReduceSum")
RED_OP(k_rmean, "ReduceMean")
RED_OP(k_rmax, "ReduceMax")
RED_OP(k_rmin, "ReduceMin")
RED_OP(k_rprod, "ReduceProd")
RED_OP(k_rl1, "ReduceL1")
RED_OP(k_rl2, "ReduceL2")
RED_OP(k_rlogsum, "ReduceLogSum")
RED_OP(k_rlse, "ReduceLogSumExp")
RED_OP(k_rsumsq, "ReduceSumSquare")

/* ---- ArgMax / ArgMin ---- */
typedef struct arg_state {
    int is_max, dt, keepdims, last;
    int64_t axis;
} arg_state;

static int arg_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, EW_MNUM);
    if (rc) return rc;
    arg_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->is_max = !strcmp(n->op_type, "ArgMax");
    s->dt = dt;
    s->keepdims = g_attr_int(n, "keepdims", 1) != 0;
    s->last = g_attr_int(n, "select_last_index", 0) != 0;
    s->axis = g_attr_int(n, "axis", 0);
    *state = s;
    return 0;
}

static int arg_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    arg_state *s = state;
    int r = in[0].shape.rank;
    out[0].dtype = G_I64;
    out[0].layout = G_LAYOUT_PLAIN;
    if (r < 0) {
        out[0].shape.rank = -1;
        return 0;
    }
    int a = ew_axis(s->axis, r);
    if (a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)s->axis, r);
    g_shape o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < r; i++) {
        if (i != a) o.d[o.rank++] = in[0].shape.d[i];
        else if (s->keepdims) o.d[o.rank++] = 1;
    }
    out[0].shape = o;
    return 0;
}

/* better(v, best): strictly better, or equal when the last index is wanted;
 * NaN wins over numbers (as NumPy) */
#define ARG_BETTER(v, b, mx, last) \
    ((v) != (v) ? ((b) == (b) || (last)) : (mx) ? ((last) ? (v) >= (b) : (v) > (b)) : ((last) ? (v) <= (b) : (v) < (b)))

static int arg_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    arg_state *s = state;
    int a = ew_axis(s->axis, in[0].shape.rank);
    int64_t O, R, I;
    ew_split3(&in[0].shape, a, a + 1, &O, &R, &I);
    int64_t *y = out[0].data;
    if (O * I <= 0) return 0;
    if (R <= 0) return ew_fail(n, EW_EINVAL, "cannot take Arg%s over an empty axis", s->is_max ? "Max" : "Min");
    int mx = s->is_max, last = s->last, dt = s->dt;
    int isint = !ew_is_float(dt), isuns = ew_is_uint(dt);
    int nt = ew_threads(ctx, (size_t)(O * R * I), EW_GRAIN_CHEAP);
    EW_PAR_FOR(u, O * I,
        int64_t o = u / I, i = u % I, base = o * R * I + i, bi = 0;
        if (dt == G_F32) {
            const float *x = (const float *)in[0].data + base;
            float b = x[0];
            for (int64_t r = 1; r < R; r++) {
                float v = x[r * I];
                if (b != b && !last) break;
                if (ARG_BETTER(v, b, mx, last)) { b = v; bi = r; }
            }
        } else if (isint) {
            int64_t b = ew_ldi(in[0].data, dt, (size_t)base);
            for (int64_t r = 1; r < R; r++) {
                int64_t v = ew_ldi(in[0].data, dt, (size_t)(base + r * I));
                int gt = isuns ? (uint64_t)v > (uint64_t)b : v > b, eq = v == b;
                if (mx ? (gt || (last && eq)) : ((!gt && !eq) || (last && eq))) { b = v; bi = r; }
            }
        } else {
            double b = ew_ld(in[0].data, dt, (size_t)base);
            for (int64_t r = 1; r < R; r++) {
                double v = ew_ld(in[0].data, dt, (size_t)(base + r * I));
                if (b != b && !last) break;
                if (ARG_BETTER(v, b, mx, last)) { b = v; bi = r; }
            }
        }
        y[u] = bi;
    );
    return 0;
}

static const k_op k_argmax = { "ArgMax", "", 1, 0, "ref", 0, arg_init, arg_infer, NULL, NULL, arg_run,
                               ew_fini_free, NULL };
K_REGISTER(k_argmax);
static const k_op k_argmin = { "ArgMin", "", 1, 0, "ref", 0, arg_init, arg_infer, NULL, NULL, arg_run,
                               ew_fini_free, NULL };
K_REGISTER(k_argmin);

/* ---- CumSum ---- */
typedef struct cum_state {
    int dt, exclusive, reverse;
} cum_state;

static int cum_init(g_graph *g, g_node *n, void **state)
{
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, EW_MNUM);
    if (rc) return rc;
    int at = ew_gdtype(g, n, 1);
    if (at != G_I32 && at != G_I64)
        return ew_fail(n, EW_ETYPE, "axis input is %s (expected int32 or int64)",
                       at == G_UNDEF ? "missing" : g_dtype_name(at));
    cum_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dt = dt;
    s->exclusive = g_attr_int(n, "exclusive", 0) != 0;
    s->reverse = g_attr_int(n, "reverse", 0) != 0;
    *state = s;
    return 0;
}

static int cum_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    if (n->n_in < 2 || in[1].dtype == G_UNDEF) return ew_fail(n, EW_EINVAL, "axis input is missing");
    return 0;
}

static int cum_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    cum_state *s = state;
    int ok;
    int64_t ax = (int64_t)ew_scalar(&in[1], &ok);
    int r = in[0].shape.rank;
    int a = ew_axis(ax, r);
    if (!ok || a < 0) return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)ax, r);
    int64_t O, R, I;
    ew_split3(&in[0].shape, a, a + 1, &O, &R, &I);
    if (O * R * I <= 0) return 0;
    int dt = s->dt, exc = s->exclusive, rev = s->reverse;
    int isint = !ew_is_float(dt);
    int nt = ew_threads(ctx, (size_t)(O * R * I), EW_GRAIN_CHEAP);
    EW_PAR_FOR(u, O * I,
        int64_t o = u / I, i = u % I, base = o * R * I + i;
        int64_t step = rev ? -I : I, start = base + (rev ? (R - 1) * I : 0);
        if (dt == G_F32) {
            const float *x = in[0].data;
            float *y = out[0].data, acc = 0.0f;
            for (int64_t r2 = 0, k = start; r2 < R; r2++, k += step) {
                float v = x[k];
                if (exc) { y[k] = acc; acc += v; }
                else { acc += v; y[k] = acc; }
            }
        } else if (dt == G_F64 || !isint) {
            double acc = 0.0;   /* halves accumulate in float precision as they go */
            for (int64_t r2 = 0, k = start; r2 < R; r2++, k += step) {
                double v = ew_ld(in[0].data, dt, (size_t)k);
                if (exc) { ew_st(out[0].data, dt, (size_t)k, acc); acc += v; }
                else { acc += v; ew_st(out[0].data, dt, (size_t)k, acc); }
                if (dt != G_F64) acc = (float)acc;
            }
        } else {
            uint64_t acc = 0;
            for (int64_t r2 = 0, k = start; r2 < R; r2++, k += step) {
                uint64_t v = (uint64_t)ew_ldi(in[0].data, dt, (size_t)k);
                if (exc) { ew_sti(out[0].data, dt, (size_t)k, (int64_t)acc); acc += v; }
                else { acc += v; ew_sti(out[0].data, dt, (size_t)k, (int64_t)acc); }
            }
        }
    );
    return 0;
}

static const k_op k_cumsum = { "CumSum", "", 11, 0, "ref", 0, cum_init, cum_infer, NULL, NULL, cum_run,
                               ew_fini_free, NULL };
K_REGISTER(k_cumsum);
