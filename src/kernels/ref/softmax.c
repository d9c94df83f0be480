/* Reference Softmax, LogSoftmax and Hardmax. Before opset 13 the input is
 * coerced to 2-D at `axis` (default 1) and the op works on whole rows of
 * prod(d[axis:]); from 13 it works along the single `axis` (default -1).
 * Either way the data is [outer, R, inner]: float32 runs vectorised rows
 * (inner == 1, the usual last-axis case) or blocks of columns; the other
 * float types go through a double-precision loop.
 *
 * float32 Softmax writes 0 where the probability would be subnormal (below
 * FLT_MIN, an absolute error under 1.2e-38): a masked attention row (Swin's
 * shifted windows add -100) otherwise fills the tensor with subnormals, and
 * every operation on one, here and in the MatMul that reads the
 * probabilities, takes a microcode assist on x86 (Swin-T: a 49x49 by 49x32
 * batched product 0.05 -> 4.9 ms). */
#include "kernels/ref/softmax.h"
#include "kernels/ref/ew_common.h"
#include <float.h>
#include <omp.h>
#include <stdlib.h>

int softmax_init(g_graph *g, g_node *n, void **state)
{
    int kind = !strcmp(n->op_type, "Softmax") ? SM_SOFT : !strcmp(n->op_type, "LogSoftmax") ? SM_LOG
             : !strcmp(n->op_type, "Hardmax") ? SM_HARD : -1;
    if (kind < 0) return K_DECLINE;
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, EW_MFLT);
    if (rc) return rc;
    sm_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->kind = kind;
    s->dt = dt;
    s->coerce = n->opset < 13;
    s->axis = g_attr_int(n, "axis", s->coerce ? 1 : -1);
    const char *e = getenv("OPENACL_SOFTMAX_PAD_ROWS");   /* read per load: mdl_bench --ab */
    s->pad_rows = !(e && !strcmp(e, "0"));
    *state = s;
    return 0;
}

int softmax_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    sm_state *s = state;
    int r = in[0].shape.rank;
    if (r >= 0 && ew_axis(s->axis, r) < 0 && !(s->coerce && s->axis == r && r > 0))
        return ew_fail(n, EW_EINVAL, "axis %lld is out of range for rank %d", (long long)s->axis, r);
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

EW_CLONE static void row_f32(int kind, const float *x, float *y, int64_t R)
{
    float m = -INFINITY;
    if (kind == SM_HARD) {
        int64_t bi = 0;
        for (int64_t i = 0; i < R; i++)
            if (x[i] > x[bi]) bi = i;
        for (int64_t i = 0; i < R; i++) y[i] = 0.0f;
        y[bi] = 1.0f;
        return;
    }
    EW_SIMD_RED(max, m)
    for (int64_t i = 0; i < R; i++) m = x[i] > m ? x[i] : m;
    float s = 0.0f;
    if (kind == SM_SOFT) {
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) {
            float d = x[i] - m;
            /* the argument clamped so exp never computes a subnormal */
            float e = ew_sel(d < SM_TINY_ARG, 0.0f, ew_expf(ew_maxf(d, SM_TINY_ARG)));
            y[i] = e;
            s += e;
        }
        const float inv = 1.0f / s, tiny = 2.0f * FLT_MIN * s;
        EW_SIMD for (int64_t i = 0; i < R; i++) y[i] = ew_sel(y[i] < tiny, 0.0f, y[i]) * inv;
    } else {
        EW_SIMD_RED(+, s)
        for (int64_t i = 0; i < R; i++) s += ew_expf(x[i] - m);
        const float sh = m + logf(s);
        EW_SIMD for (int64_t i = 0; i < R; i++) y[i] = x[i] - sh;
    }
}

/* Rows shorter than SM_PAD_MAX values whose length is not a multiple of
 * 16: the vector loops of row_f32 leave up to 15 values to a scalar tail,
 * whose exponentials cost more than the rest of a short row (PP-OCRv4 rec's
 * attention, 320 rows of 40: 54 us, 4 ns a value, against 0.6 ns in rows of
 * 6625). Such rows are copied into a buffer padded with -inf to a multiple
 * of 16, which contributes exact zeros (an exponential below SM_TINY_ARG is
 * 0), so the loops run whole vectors. The sum's lanes are then added in
 * another order than the tail's: results may differ from the unpadded form
 * by rounding (OPENACL_SOFTMAX_PAD_ROWS=0 keeps it). */
#define SM_PAD_MAX 256
static int sm_padded(int kind, int64_t R) { return kind == SM_SOFT && R < SM_PAD_MAX && R % 16 != 0; }

static void rows_padded(int kind, const float *x, float *y, int64_t o0, int64_t o1, int64_t R)
{
    float bx[SM_PAD_MAX] __attribute__((aligned(64))), by[SM_PAD_MAX] __attribute__((aligned(64)));
    int64_t Rp = (R + 15) / 16 * 16;
    for (int64_t i = R; i < Rp; i++) bx[i] = -INFINITY;
    for (int64_t o = o0; o < o1; o++) {
        memcpy(bx, x + o * R, (size_t)R * sizeof(float));
        row_f32(kind, bx, by, Rp);
        memcpy(y + o * R, by, (size_t)R * sizeof(float));
    }
}

#define SMB 256
/* columns j in [0, len) of an [R, I] block, I the row pitch */
EW_CLONE static void cols_f32(int kind, const float *x, float *y, int64_t R, int64_t I, int64_t len)
{
    float m[SMB], s[SMB];
    int64_t bi[SMB];
    for (int64_t j = 0; j < len; j++) { m[j] = x[j]; s[j] = 0.0f; bi[j] = 0; }
    for (int64_t r = 1; r < R; r++)
        for (int64_t j = 0; j < len; j++)
            if (x[r * I + j] > m[j]) { m[j] = x[r * I + j]; bi[j] = r; }
    if (kind == SM_HARD) {
        for (int64_t r = 0; r < R; r++)
            for (int64_t j = 0; j < len; j++) y[r * I + j] = bi[j] == r ? 1.0f : 0.0f;
        return;
    }
    for (int64_t r = 0; r < R; r++) {
        EW_SIMD for (int64_t j = 0; j < len; j++) {
            float d = x[r * I + j] - m[j];
            float e = ew_sel(d < SM_TINY_ARG, 0.0f, ew_expf(ew_maxf(d, SM_TINY_ARG)));
            s[j] += e;
            if (kind == SM_SOFT) y[r * I + j] = e;
        }
    }
    if (kind == SM_SOFT) {
        float tiny[SMB];
        for (int64_t j = 0; j < len; j++) { tiny[j] = 2.0f * FLT_MIN * s[j]; s[j] = 1.0f / s[j]; }
        for (int64_t r = 0; r < R; r++) {
            EW_SIMD for (int64_t j = 0; j < len; j++)
                y[r * I + j] = ew_sel(y[r * I + j] < tiny[j], 0.0f, y[r * I + j]) * s[j];
        }
    } else {
        for (int64_t j = 0; j < len; j++) s[j] = m[j] + logf(s[j]);
        for (int64_t r = 0; r < R; r++) { EW_SIMD for (int64_t j = 0; j < len; j++) y[r * I + j] = x[r * I + j] - s[j]; }
    }
}

/* one column (stride I) in double precision, any float type */
static void col_gen(int kind, int dt, const void *x, void *y, int64_t base, int64_t R, int64_t I)
{
    double m = ew_ld(x, dt, (size_t)base);
    int64_t bi = 0;
    for (int64_t r = 1; r < R; r++) {
        double v = ew_ld(x, dt, (size_t)(base + r * I));
        if (v > m) { m = v; bi = r; }
    }
    if (kind == SM_HARD) {
        for (int64_t r = 0; r < R; r++) ew_st(y, dt, (size_t)(base + r * I), r == bi ? 1.0 : 0.0);
        return;
    }
    double s = 0.0;
    for (int64_t r = 0; r < R; r++) s += exp(ew_ld(x, dt, (size_t)(base + r * I)) - m);
    for (int64_t r = 0; r < R; r++) {
        double v = ew_ld(x, dt, (size_t)(base + r * I)) - m;
        ew_st(y, dt, (size_t)(base + r * I), kind == SM_SOFT ? exp(v) / s : v - log(s));
    }
}

int softmax_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    sm_state *s = state;
    int r = in[0].shape.rank;
    int a = r == 0 ? 0 : (s->coerce && s->axis == r) ? r : ew_axis(s->axis, r);
    int64_t O, R, I;
    if (r == 0) { O = R = I = 1; }
    else if (s->coerce) ew_split3(&in[0].shape, a, r, &O, &R, &I);
    else ew_split3(&in[0].shape, a, a + 1, &O, &R, &I);
    if (O * R * I <= 0) return 0;
    const void *x = in[0].data;
    void *y = out[0].data;
    int kind = s->kind, dt = s->dt;
    int nt = ew_threads(ctx, (size_t)(O * R * I), EW_GRAIN_MATH);
    if (dt == G_F32 && I == 1 && s->rows && kind != SM_HARD) {
        /* contiguous runs of rows per thread */
        int64_t per = (O + nt - 1) / nt;
        EW_PAR_FOR(t, nt, if (t * per < O) s->rows(kind, (const float *)x + t * per * R, (float *)y + t * per * R,
                                                   (t + 1) * per < O ? per : O - t * per, R););
    } else if (dt == G_F32 && I == 1 && s->pad_rows && sm_padded(kind, R)) {
        /* contiguous runs of rows per thread, one buffer each */
        int64_t per = (O + nt - 1) / nt;
        EW_PAR_FOR(t, nt, rows_padded(kind, x, y, t * per, (t + 1) * per < O ? (t + 1) * per : O, R););
    } else if (dt == G_F32 && I == 1) {
        EW_PAR_FOR(o, O, row_f32(kind, (const float *)x + o * R, (float *)y + o * R, R););
    } else if (dt == G_F32) {
        int64_t nb = (I + SMB - 1) / SMB;
        EW_PAR_FOR(u, O * nb,
            int64_t o = u / nb, j0 = (u % nb) * SMB, len = I - j0 < SMB ? I - j0 : SMB;
            cols_f32(kind, (const float *)x + o * R * I + j0, (float *)y + o * R * I + j0, R, I, len);
        );
    } else {
        EW_PAR_FOR(u, O * I, col_gen(kind, dt, x, y, (u / I) * R * I + u % I, R, I););
    }
    return 0;
}

void softmax_fini(void *state) { free(state); }

#define SM_OP(var, name)                                                                                 \
    static const k_op var = { name, "", 1, 0, "ref", 0, softmax_init, softmax_infer, NULL, NULL, softmax_run, \
                              softmax_fini, NULL };                                                      \
    K_REGISTER(var);
SM_OP(k_softmax, "Softmax")
SM_OP(k_logsoftmax, "LogSoftmax")
SM_OP(k_hardmax, "Hardmax")
