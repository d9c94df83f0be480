/* com.microsoft.QLinearAveragePool over 2-D planes in integers: each window's
 * sum of (x - x_zp) exact in int32, then one float step to y's grid
 * (sum * x_scale / count / y_scale, rounded half to even, saturated). The
 * reference (nn_qlinear.c) dequantises the whole tensor into a temporary,
 * pools in float32 and requantises; this one touches only the bytes, needs
 * no float temporary, and shares the planes (channels-last: the output
 * rows) among the node's threads. Results
 * agree with it (and ONNX Runtime) except where float32 summation lands on
 * the other side of a rounding tie (one step). Declines what it does not
 * take (a rank other than 4 or a row width unknown or wider than QAP_COLS
 * at load, dilations, channels_last, parameters that are not constants):
 * the reference runs those. */
#include "kernels/kernel.h"
#include "kernels/ref/nn_common.h"
#include "kernels/ref/ew_common.h"
#include "core/core.h"
#include "core/par.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QAP_COLS 2048   /* widest row summed through the column buffer */

typedef struct qap2 {
    nn_win w;
    int include_pad;
    int col_split;          /* rows cut in column chunks when fewer than the threads */
    float mul;              /* x_scale / y_scale */
    int32_t zx, zy;
} qap2;

static int cscalar(const g_graph *g, const g_node *n, int i, int f32)
{
    if (i >= n->n_in || n->in[i] < 0) return !f32;   /* an omitted zero point is 0 */
    const g_tensor *t = &g->t[n->in[i]];
    if (t->kind != G_TK_CONST || !t->data || g_shape_numel(&t->shape) != 1) return 0;
    return f32 ? t->dtype == G_F32 : (t->dtype == G_U8 || t->dtype == G_I8);
}

static int32_t czp(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return 0;
    const g_tensor *t = &g->t[n->in[i]];
    return t->dtype == G_I8 ? *(const int8_t *)t->data : *(const uint8_t *)t->data;
}

static int qap2_init(g_graph *g, g_node *n, void **state)
{
    const char *off = getenv("OPENACL_QAVGPOOL_INT");   /* 0: the reference takes every node */
    if (off && !strcmp(off, "0")) return K_DECLINE;
    if (n->n_in < 4 || n->in[0] < 0 || !cscalar(g, n, 1, 1) || !cscalar(g, n, 3, 1) || !cscalar(g, n, 2, 0) ||
        !cscalar(g, n, 4, 0) || g_attr_int(n, "channels_last", 0) != 0)
        return K_DECLINE;
    int xt = g->t[n->in[0]].dtype;
    if ((xt != G_U8 && xt != G_I8) || g->t[n->in[0]].shape.rank != 4) return K_DECLINE;
    if ((n->n_in > 2 && n->in[2] >= 0 && g->t[n->in[2]].dtype != xt) ||
        (n->n_in > 4 && n->in[4] >= 0 && g->t[n->in[4]].dtype != xt))
        return K_DECLINE;
    qap2 *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    int r = nn_win_parse(n, NN_POOL, &s->w);
    if (r) { free(s); return r; }
    float sx = *(const float *)g->t[n->in[1]].data, sy = *(const float *)g->t[n->in[3]].data;
    s->mul = sx / sy;
    s->zx = czp(g, n, 2);
    s->zy = czp(g, n, 4);
    s->include_pad = (int)g_attr_int(n, "count_include_pad", 0);
    const char *cols = getenv("OPENACL_QAVGPOOL_COLS");   /* read per load: mdl_bench --ab */
    s->col_split = !(cols && !strcmp(cols, "0"));
    if (!(sx > 0.f) || !(sy > 0.f) || !isfinite(s->mul) || s->w.d[0] > 1 || s->w.d[1] > 1 ||
        g->t[n->in[0]].shape.d[3] < 0 || g->t[n->in[0]].shape.d[3] > QAP_COLS) {
        free(s);
        return K_DECLINE;
    }
    *state = s;
    return 0;
}

static int qap2_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qap2 *s = state;
    if (in[0].shape.rank != 4) return nn_check_rank(n, 0, &in[0].shape, 4, 4);
    int r = nn_pool_infer_shape(n, &s->w, 0, &in[0].shape, &out[0].shape);
    if (r) return r;
    if (s->w.d[0] > 1 || s->w.d[1] > 1)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): dilations are not supported",
                        n->name, n->op_type);
    out[0].dtype = in[0].dtype;
    out[0].layout = in[0].layout == G_LAYOUT_NHWC ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    return 0;
}

static inline int32_t rq(float v, int32_t zp, int i8)
{
    float lo = (i8 ? -128.f : 0.f) - (float)zp, hi = (i8 ? 127.f : 255.f) - (float)zp;
    v = v < lo ? lo : v > hi ? hi : v;
    return (int32_t)((v + 12582912.f) - 12582912.f) + zp;   /* half to even */
}

/* One output row's column sums: col[c] = sum over input rows [ha, hb) of
 * the n values x[h * pitch + c]. */
EW_CLONE static void col_sums(const uint8_t *x, int64_t pitch, int64_t n, int64_t ha, int64_t hb, int i8,
                              int32_t *col)
{
    for (int64_t c = 0; c < n; c++) col[c] = 0;
    for (int64_t h = ha; h < hb; h++) {
        const uint8_t *r = x + h * pitch;
        if (i8) for (int64_t c = 0; c < n; c++) col[c] += (int8_t)r[c];
        else for (int64_t c = 0; c < n; c++) col[c] += r[c];
    }
}

/* One plane: x H x W bytes to y OH x OW (as uint8 or int8 through i8);
 * the window's rows are summed per column first (a vector loop), then
 * each output adds its window's columns. */
static void plane(const qap2 *s, const uint8_t *x, uint8_t *y, int i8)
{
    const nn_win *w = &s->w;
    int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
    int32_t col[QAP_COLS];
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t h0 = oh * w->s[0] - w->pb[0], h1 = h0 + w->k[0];
        int64_t hp1 = h1 < H + w->pe[0] ? h1 : H + w->pe[0];
        int64_t ha = h0 < 0 ? 0 : h0, hb = h1 < H ? h1 : H;
        col_sums(x, W, W, ha, hb, i8, col);
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = ow * w->s[1] - w->pb[1], w1 = w0 + w->k[1];
            int64_t wp1 = w1 < W + w->pe[1] ? w1 : W + w->pe[1];
            int64_t wa = w0 < 0 ? 0 : w0, wb = w1 < W ? w1 : W;
            int32_t sum = 0;
            for (int64_t c = wa; c < wb; c++) sum += col[c];
            int64_t cnt = (hb - ha) * (wb - wa);
            /* with count_include_pad the explicit pads count, not what
             * ceil_mode adds beyond them (as the reference) */
            int64_t div = s->include_pad ? (hp1 - h0) * (wp1 - w0) : cnt;
            float v = cnt > 0 && div > 0 ? (float)(sum - (int32_t)cnt * s->zx) * s->mul / (float)div : 0.f;
            y[oh * OW + ow] = (uint8_t)rq(v, s->zy, i8);
        }
    }
}

/* One pixel's C outputs from its window's summed columns: the window
 * count's checks hoisted out of the channel loop, so the loop (the same
 * float steps per value as before) vectorises. */
EW_CLONE static void pix_out(const qap2 *s, const int32_t *acc, uint8_t *d, int64_t C, int64_t cnt, int64_t div,
                             int i8)
{
    if (!(cnt > 0 && div > 0)) {
        for (int64_t c = 0; c < C; c++) d[c] = (uint8_t)rq(0.f, s->zy, i8);
        return;
    }
    const int32_t cz = (int32_t)cnt * s->zx;
    const float mul = s->mul, fd = (float)div;
    for (int64_t c = 0; c < C; c++) d[c] = (uint8_t)rq((float)(acc[c] - cz) * mul / fd, s->zy, i8);
}

/* Channels-last: one image's output row oh, output columns [ow0, ow1), all
 * channels at once. The window's rows are summed into col (W x C int32,
 * only the input columns those outputs read), then each output pixel adds
 * its window's columns channel by channel. */
EW_CLONE static void row_nhwc(const qap2 *s, const uint8_t *x, uint8_t *y, int64_t C, int64_t oh, int64_t ow0,
                              int64_t ow1, int i8, int32_t *col, int32_t *acc)
{
    const nn_win *w = &s->w;
    int64_t H = w->in[0], W = w->in[1], OW = w->out[1];
    int64_t h0 = oh * w->s[0] - w->pb[0], h1 = h0 + w->k[0];
    int64_t hp1 = h1 < H + w->pe[0] ? h1 : H + w->pe[0];
    int64_t ha = h0 < 0 ? 0 : h0, hb = h1 < H ? h1 : H;
    int64_t ca = ow0 * w->s[1] - w->pb[1], cb = (ow1 - 1) * w->s[1] - w->pb[1] + w->k[1];
    ca = ca < 0 ? 0 : ca;
    cb = cb < W ? cb : W;
    if (cb > ca) col_sums(x + ca * C, W * C, (cb - ca) * C, ha, hb, i8, col + ca * C);
    for (int64_t ow = ow0; ow < ow1; ow++) {
        int64_t w0 = ow * w->s[1] - w->pb[1], w1 = w0 + w->k[1];
        int64_t wp1 = w1 < W + w->pe[1] ? w1 : W + w->pe[1];
        int64_t wa = w0 < 0 ? 0 : w0, wb = w1 < W ? w1 : W;
        for (int64_t c = 0; c < C; c++) acc[c] = 0;
        for (int64_t k = wa; k < wb; k++)
            for (int64_t c = 0; c < C; c++) acc[c] += col[k * C + c];
        int64_t cnt = (hb - ha) * (wb - wa);
        int64_t div = s->include_pad ? (hp1 - h0) * (wp1 - w0) : cnt;
        pix_out(s, acc, y + (oh * OW + ow) * C, C, cnt, div, i8);
    }
}

static int qap2_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    qap2 *s = state;
    nn_win w = s->w;
    g_shape ys;
    int r = nn_pool_infer_shape(n, &w, 0, &in[0].shape, &ys);
    if (r) return r;
    if (w.in[1] > QAP_COLS)   /* (init saw the width; a static plan cannot change it) */
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): rows of %lld values, more than "
                        "%d", n->name, n->op_type, (long long)w.in[1], QAP_COLS);
    qap2 st = *s;
    st.w = w;
    int64_t N = in[0].shape.d[0], C = in[0].shape.d[1];
    int64_t xp = w.in[0] * w.in[1], yp = w.out[0] * w.out[1];
    const uint8_t *x = in[0].data;
    uint8_t *y = out[0].data;
    int i8 = in[0].dtype == G_I8;
    int nt = ctx && ctx->threads > 1 ? ctx->threads : 1;
    if (in[0].layout != G_LAYOUT_NHWC) {
        int64_t planes = N * C;
        OA_PAR_FOR(planes > 1 ? nt : 1, for (int64_t p = 0; p < planes; p++) plane(&st, x + p * xp, y + p * yp, i8););
        return 0;
    }
    /* rows of all images shared among the threads, each cut in column
     * chunks when there are fewer rows than threads (PP-OCRv4 rec's neck
     * pool writes one row of 40 pixels; OPENACL_QAVGPOOL_COLS=0: whole
     * rows); col and acc from plan()'s scratch */
    int64_t rows = N * w.out[0], cs = rows < nt && s->col_split ? nt : 1;
    if (cs > w.out[1]) cs = w.out[1] > 0 ? w.out[1] : 1;
    size_t per = (size_t)(w.in[1] * C + C) * sizeof(int32_t);
    size_t fit = ctx && ctx->scratch ? ctx->scratch_bytes / per : 0;   /* runs without a plan allocate */
    int32_t *buf = fit ? ctx->scratch : NULL;
    if (fit && (size_t)nt > fit) nt = (int)fit;
    if (!fit && !(buf = malloc(per * (size_t)nt)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int64_t units = rows * cs, OW = w.out[1];
    OA_PAR_REGION(units > 1 ? nt : 1, {
        int t = omp_get_thread_num(), tn = omp_get_num_threads();
        int32_t *col = buf + (size_t)t * (per / sizeof(int32_t)), *acc = col + w.in[1] * C;
        for (int64_t u = units * t / tn; u < units * (t + 1) / tn; u++) {
            int64_t rr = u / cs, j = u % cs, b = rr / w.out[0], oh = rr % w.out[0];
            if (OW * (j + 1) / cs > OW * j / cs)
                row_nhwc(&st, x + b * xp * C, y + b * yp * C, C, oh, OW * j / cs, OW * (j + 1) / cs, i8, col,
                         acc);
        }
    });
    if (!fit) free(buf);
    return 0;
}

static int qap2_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, size_t *packed,
                     size_t *scratch)
{
    (void)n; (void)state; (void)out;
    *packed = 0;
    /* channels-last rows: one column buffer per thread of the pool */
    int nt = omp_get_max_threads();
    *scratch = in[0].layout == G_LAYOUT_NHWC && g_shape_known(&in[0].shape)
                   ? (size_t)(in[0].shape.d[3] * in[0].shape.d[1] + in[0].shape.d[1]) * sizeof(int32_t) *
                         (size_t)(nt > 0 ? nt : 1)
                   : 0;
    return 0;
}

static int qap2_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && idx == 0);
}

static double qap2_flops(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    (void)in;
    const g_attr *k = g_node_attr(n, "kernel_shape");
    double win = 1;
    for (int i = 0; k && i < k->n; i++) win *= (double)k->ints[i];
    return (double)g_shape_numel(&out[0].shape) * win;
}

static void qap2_fini(void *s) { free(s); }

/* before the reference (nn_qlinear.c, priority 0) */
static const k_op k_qlap_int = { .op_type = "QLinearAveragePool", .domain = "com.microsoft", .since = 1,
    .until = 0, .impl = "ref_int", .priority = 5, .init = qap2_init, .infer = qap2_infer,
    .plan = qap2_plan, .run = qap2_run, .fini = qap2_fini, .accepts_layout = qap2_accepts,
    .flops = qap2_flops };
K_REGISTER(k_qlap_int);
