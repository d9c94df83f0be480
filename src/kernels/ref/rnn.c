/* Reference recurrent layers RNN, GRU and LSTM (float32): forward, reverse
 * and bidirectional; layout 0 ([seq, batch, ...]) and 1 ([batch, seq, ...]);
 * per-batch sequence_lens (outputs past a sequence's end are 0, Y_h/Y_c hold
 * the state at its last step); initial states; biases; LSTM peepholes and
 * input_forget; GRU linear_before_reset; clip; and the activation functions
 * of the spec with their alpha/beta. Batch items (and directions) are
 * independent recurrences, so they are the parallel loop; each step is a
 * pair of small matrix-vector products on contiguous weight rows. */
#include "kernels/ref/ew_common.h"
#include "kernels/ref/nn_common.h"
#include <ctype.h>
#include <stdlib.h>

enum { RK_RNN, RK_GRU, RK_LSTM };
enum { AF_RELU, AF_TANH, AF_SIGMOID, AF_AFFINE, AF_LEAKY, AF_TRELU, AF_STANH, AF_HSIG, AF_ELU,
       AF_SOFTSIGN, AF_SOFTPLUS };

static const struct {
    const char *name;
    int kind, n_alpha, n_beta;
    float alpha, beta;        /* defaults */
} af_tab[] = {
    { "relu", AF_RELU, 0, 0, 0.f, 0.f },          { "tanh", AF_TANH, 0, 0, 0.f, 0.f },
    { "sigmoid", AF_SIGMOID, 0, 0, 0.f, 0.f },    { "affine", AF_AFFINE, 1, 1, 1.f, 0.f },
    { "leakyrelu", AF_LEAKY, 1, 0, 0.01f, 0.f },  { "thresholdedrelu", AF_TRELU, 1, 0, 1.f, 0.f },
    { "scaledtanh", AF_STANH, 1, 1, 1.f, 1.f },   { "hardsigmoid", AF_HSIG, 1, 1, 0.2f, 0.5f },
    { "elu", AF_ELU, 1, 0, 1.f, 0.f },            { "softsign", AF_SOFTSIGN, 0, 0, 0.f, 0.f },
    { "softplus", AF_SOFTPLUS, 0, 0, 0.f, 0.f },
};

typedef struct rnn_act { int kind; float a, b; } rnn_act;

static inline float act(const rnn_act *f, float x)
{
    switch (f->kind) {
    case AF_RELU: return x > 0.f ? x : 0.f;
    case AF_TANH: return tanhf(x);
    case AF_SIGMOID: return 1.f / (1.f + expf(-x));
    case AF_AFFINE: return f->a * x + f->b;
    case AF_LEAKY: return x >= 0.f ? x : f->a * x;
    case AF_TRELU: return x > f->a ? x : 0.f;
    case AF_STANH: return f->a * tanhf(f->b * x);
    case AF_HSIG: { float v = f->a * x + f->b; return v < 0.f ? 0.f : v > 1.f ? 1.f : v; }
    case AF_ELU: return x >= 0.f ? x : f->a * (expf(x) - 1.f);
    case AF_SOFTSIGN: return x / (1.f + fabsf(x));
    default: return x > 0.f ? x + log1pf(expf(-x)) : log1pf(expf(x));   /* softplus */
    }
}

typedef struct rnn_state {
    int kind;
    int ngates;               /* 1, 3, 4 */
    int nact;                 /* activations per direction: 1, 2, 3 */
    int ndir, reverse;        /* reverse: single direction, backwards */
    int layout;
    int64_t hidden;           /* attribute, -1 when absent */
    int has_clip;
    float clip;
    int lbr;                  /* GRU linear_before_reset */
    int input_forget;         /* LSTM */
    rnn_act f[2][3];          /* per direction */
} rnn_state;

static int rnn_init(g_graph *g, g_node *n, void **state)
{
    int kind = !strcmp(n->op_type, "RNN") ? RK_RNN : !strcmp(n->op_type, "GRU") ? RK_GRU
             : !strcmp(n->op_type, "LSTM") ? RK_LSTM : -1;
    if (kind < 0) return K_DECLINE;
    if (n->n_in < 3 || n->in[0] < 0 || n->in[1] < 0 || n->in[2] < 0)
        return ew_fail(n, EW_EINVAL, "needs inputs X, W and R");
    for (int i = 0; i < n->n_in; i++) {
        int dt = ew_gdtype(g, n, i);
        if (dt == G_UNDEF) continue;
        if (i == 4 ? dt != G_I32 : dt != G_F32)
            return ew_fail(n, EW_ETYPE, "input %d is %s (this kernel takes float32 tensors and "
                           "int32 sequence_lens)", i, g_dtype_name(dt));
    }
    rnn_state s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.ngates = kind == RK_RNN ? 1 : kind == RK_GRU ? 3 : 4;
    s.nact = kind == RK_RNN ? 1 : kind == RK_GRU ? 2 : 3;
    const char *dir = g_attr_str(n, "direction", "forward");
    if (!strcmp(dir, "forward")) s.ndir = 1;
    else if (!strcmp(dir, "reverse")) { s.ndir = 1; s.reverse = 1; }
    else if (!strcmp(dir, "bidirectional")) s.ndir = 2;
    else return ew_fail(n, EW_EINVAL, "direction='%s' (expected forward, reverse or bidirectional)", dir);
    s.layout = (int)g_attr_int(n, "layout", 0);
    if (s.layout != 0 && s.layout != 1)
        return ew_fail(n, EW_EINVAL, "layout=%d (expected 0 or 1)", s.layout);
    s.hidden = g_attr_int(n, "hidden_size", -1);
    const g_attr *ca = g_node_attr(n, "clip");
    if (ca) {
        s.has_clip = 1;
        s.clip = g_attr_float(n, "clip", 0.f);
        if (!(s.clip > 0.f)) return ew_fail(n, EW_EINVAL, "clip=%g (must be positive)", s.clip);
    }
    s.lbr = (int)g_attr_int(n, "linear_before_reset", 0);
    s.input_forget = (int)g_attr_int(n, "input_forget", 0);
    if (kind == RK_GRU && s.lbr != 0 && s.lbr != 1)
        return ew_fail(n, EW_EINVAL, "linear_before_reset=%d (expected 0 or 1)", s.lbr);
    if (kind == RK_LSTM && s.input_forget != 0 && s.input_forget != 1)
        return ew_fail(n, EW_EINVAL, "input_forget=%d (expected 0 or 1)", s.input_forget);
    /* activations: defaults, or the list (nact per direction) with alpha /
     * beta consumed in order by the functions that take them */
    static const char *const defs[3][3] = { { "tanh" }, { "sigmoid", "tanh" },
                                            { "sigmoid", "tanh", "tanh" } };
    const g_attr *al = g_node_attr(n, "activations");
    const float *alpha = NULL, *beta = NULL;
    int na = g_attr_floats(n, "activation_alpha", &alpha), nb = g_attr_floats(n, "activation_beta", &beta);
    int ia = 0, ib = 0;
    if (al && al->type == G_AT_STRINGS && al->n != s.nact * s.ndir)
        return ew_fail(n, EW_EINVAL, "%d activations given, expected %d (%d per direction)", al->n,
                       s.nact * s.ndir, s.nact);
    for (int d = 0; d < s.ndir; d++)
        for (int k = 0; k < s.nact; k++) {
            const char *nm = al && al->type == G_AT_STRINGS ? al->strings[d * s.nact + k] : defs[kind][k];
            char low[32];
            size_t L = 0;
            for (; nm[L] && L + 1 < sizeof low; L++) low[L] = (char)tolower((unsigned char)nm[L]);
            low[L] = 0;
            int found = -1;
            for (size_t t = 0; t < sizeof af_tab / sizeof af_tab[0]; t++)
                if (!strcmp(af_tab[t].name, low)) found = (int)t;
            if (found < 0) return ew_fail(n, EW_EUNSUP, "activation '%s' is not supported", nm);
            rnn_act *f = &s.f[d][k];
            f->kind = af_tab[found].kind;
            f->a = af_tab[found].alpha;
            f->b = af_tab[found].beta;
            if (af_tab[found].n_alpha && ia < na) f->a = alpha[ia++];
            if (af_tab[found].n_beta && ib < nb) f->b = beta[ib++];
        }
    rnn_state *p = malloc(sizeof *p);
    if (!p) return ew_fail(n, EW_ENOMEM, "out of memory");
    *p = s;
    *state = p;
    return 0;
}

typedef struct rnn_dims { int64_t S, B, I, H; } rnn_dims;

static int rnn_dims_of(const g_node *n, const rnn_state *s, const k_tensor *in, rnn_dims *d)
{
    const g_shape *x = &in[0].shape, *w = &in[1].shape, *r = &in[2].shape;
    char a[96], b[96], c[96];
    if (x->rank != 3 || w->rank != 3 || r->rank != 3)
        return ew_fail(n, EW_EINVAL, "X %s, W %s and R %s must all have rank 3",
                       g_shape_str(x, a, sizeof a), g_shape_str(w, b, sizeof b), g_shape_str(r, c, sizeof c));
    d->S = s->layout ? x->d[1] : x->d[0];
    d->B = s->layout ? x->d[0] : x->d[1];
    d->I = x->d[2];
    d->H = s->hidden >= 0 ? s->hidden : r->d[2];
    /* hidden_size comes from the model: bound it before multiplying */
    if (d->H < 0 || d->H > ((int64_t)1 << 40))
        return ew_fail(n, EW_EINVAL, "hidden size %lld is out of range", (long long)d->H);
    int64_t GH = s->ngates * d->H;
    if (w->d[0] != s->ndir || w->d[1] != GH || w->d[2] != d->I || r->d[0] != s->ndir ||
        r->d[1] != GH || r->d[2] != d->H)
        return ew_fail(n, EW_EINVAL, "W %s / R %s do not match %d direction(s), %d gate(s) of "
                       "hidden size %lld and input size %lld", g_shape_str(w, a, sizeof a),
                       g_shape_str(r, b, sizeof b), s->ndir, s->ngates, (long long)d->H,
                       (long long)d->I);
    static const int64_t mult[] = { 0, 0, 0, 2, 1, 1, 1, 3 };   /* B, -, h0, c0, P by slot */
    for (int i = 3; i < n->n_in && i < 8; i++) {
        if (!ew_has(n, in, i)) continue;
        const g_shape *t = &in[i].shape;
        g_shape want = { .rank = 3 };
        if (i == 3 || i == 7) {
            want.rank = 2;
            want.d[0] = s->ndir;
            want.d[1] = mult[i] * (i == 3 ? GH : d->H);
        } else if (i == 4) {
            want.rank = 1;
            want.d[0] = d->B;
        } else if (s->layout) {
            want.d[0] = d->B; want.d[1] = s->ndir; want.d[2] = d->H;
        } else {
            want.d[0] = s->ndir; want.d[1] = d->B; want.d[2] = d->H;
        }
        if (i >= 6 && s->kind != RK_LSTM) continue;
        if (!g_shape_eq(t, &want))
            return ew_fail(n, EW_EINVAL, "input %d has shape %s, expected %s", i,
                           g_shape_str(t, a, sizeof a), g_shape_str(&want, b, sizeof b));
    }
    return 0;
}

static int rnn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    rnn_state *s = state;
    for (int i = 0; i < n->n_out; i++) {
        out[i].dtype = G_F32;
        out[i].shape.rank = -1;
        out[i].layout = G_LAYOUT_PLAIN;
    }
    if (n->n_out > (s->kind == RK_LSTM ? 3 : 2))
        return ew_fail(n, EW_EINVAL, "has %d outputs, expected at most %d", n->n_out,
                       s->kind == RK_LSTM ? 3 : 2);
    if (!g_shape_known(&in[0].shape) || !g_shape_known(&in[1].shape) || !g_shape_known(&in[2].shape))
        return 0;
    rnn_dims d;
    int rc = rnn_dims_of(n, s, in, &d);
    if (rc) return rc;
    g_shape y = { .rank = 4 }, h = { .rank = 3 };
    if (s->layout) {
        y.d[0] = d.B; y.d[1] = d.S; y.d[2] = s->ndir; y.d[3] = d.H;
        h.d[0] = d.B; h.d[1] = s->ndir; h.d[2] = d.H;
    } else {
        y.d[0] = d.S; y.d[1] = s->ndir; y.d[2] = d.B; y.d[3] = d.H;
        h.d[0] = s->ndir; h.d[1] = d.B; h.d[2] = d.H;
    }
    for (int i = 0; i < n->n_out; i++) out[i].shape = i == 0 ? y : h;
    return 0;
}

static int rnn_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    size_t *packed, size_t *scratch)
{
    rnn_state *s = state;
    (void)out;
    rnn_dims d;
    *packed = 0;
    *scratch = 0;
    if (rnn_dims_of(n, s, in, &d)) return 0;   /* run() reports it */
    *scratch = (size_t)(s->ndir * d.B) * (size_t)(2 * s->ngates + 3) * (size_t)d.H * sizeof(float);
    return 0;
}

static inline float clipf(const rnn_state *s, float v)
{
    if (!s->has_clip) return v;
    return v < -s->clip ? -s->clip : v > s->clip ? s->clip : v;
}

/* y[j] = sum_k m[j][k] x[k] (+ y[j] when acc), rows of m contiguous */
EW_CLONE static void matvec(const float *m, const float *x, float *y, int64_t rows, int64_t cols,
                            int acc)
{
    for (int64_t j = 0; j < rows; j++) {
        const float *row = m + j * cols;
        float sum = 0.f;
        EW_SIMD_RED(+, sum)
        for (int64_t k = 0; k < cols; k++) sum += row[k] * x[k];
        y[j] = acc ? y[j] + sum : sum;
    }
}

/* One direction of one batch item. buf holds (2 ngates + 3) H floats. */
static void rnn_one(const rnn_state *s, const rnn_dims *dm, int dir, int64_t b, const k_tensor *in,
                    k_tensor *out, float *buf, const g_node *n)
{
    const int64_t S = dm->S, B = dm->B, I = dm->I, H = dm->H, G = s->ngates, D = s->ndir;
    const float *X = in[0].data;
    const float *W = (const float *)in[1].data + dir * G * H * I;
    const float *R = (const float *)in[2].data + dir * G * H * H;
    const float *Wb = ew_has(n, in, 3) ? (const float *)in[3].data + dir * 2 * G * H : NULL;
    const float *Rb = Wb ? Wb + G * H : NULL;
    const float *P = s->kind == RK_LSTM && ew_has(n, in, 7) ? (const float *)in[7].data + dir * 3 * H : NULL;
    int64_t len = ew_has(n, in, 4) ? ((const int32_t *)in[4].data)[b] : S;
    if (len > S) len = S;
    if (len < 0) len = 0;
    int rev = s->reverse || dir == 1;
    const rnn_act *f = s->f[dir];
    float *gx = buf, *gh = buf + G * H, *h = gh + G * H, *c = h + H;
    float *rh = c + H;        /* GRU: r (.) h */
    size_t hoff = s->layout ? (size_t)((b * D + dir) * H) : (size_t)((dir * B + b) * H);
    if (ew_has(n, in, 5)) memcpy(h, (const float *)in[5].data + hoff, (size_t)H * sizeof(float));
    else memset(h, 0, (size_t)H * sizeof(float));
    if (s->kind == RK_LSTM && ew_has(n, in, 6)) memcpy(c, (const float *)in[6].data + hoff, (size_t)H * sizeof(float));
    else memset(c, 0, (size_t)H * sizeof(float));
    float *Y = ew_want(n, 0) ? out[0].data : NULL;
    for (int64_t step = 0; step < len; step++) {
        int64_t t = rev ? len - 1 - step : step;
        const float *xt = X + (s->layout ? (b * S + t) * I : (t * B + b) * I);
        matvec(W, xt, gx, G * H, I, 0);
        if (Wb) for (int64_t j = 0; j < G * H; j++) gx[j] += Wb[j];
        if (s->kind == RK_RNN) {
            matvec(R, h, gh, H, H, 0);
            for (int64_t j = 0; j < H; j++)
                h[j] = act(&f[0], clipf(s, gx[j] + gh[j] + (Rb ? Rb[j] : 0.f)));
        } else if (s->kind == RK_GRU) {
            /* gates z, r, h; R rows in the same order */
            matvec(R, h, gh, 2 * H, H, 0);
            float *z = gx, *r = gx + H, *hh = gx + 2 * H;
            for (int64_t j = 0; j < 2 * H; j++) {
                float v = clipf(s, gx[j] + gh[j] + (Rb ? Rb[j] : 0.f));
                gx[j] = act(&f[0], v);
            }
            if (s->lbr) {
                matvec(R + 2 * H * H, h, gh + 2 * H, H, H, 0);
                for (int64_t j = 0; j < H; j++)
                    hh[j] = act(&f[1], clipf(s, hh[j] + r[j] * (gh[2 * H + j] + (Rb ? Rb[2 * H + j] : 0.f))));
            } else {
                for (int64_t j = 0; j < H; j++) rh[j] = r[j] * h[j];
                matvec(R + 2 * H * H, rh, gh + 2 * H, H, H, 0);
                for (int64_t j = 0; j < H; j++)
                    hh[j] = act(&f[1], clipf(s, hh[j] + gh[2 * H + j] + (Rb ? Rb[2 * H + j] : 0.f)));
            }
            for (int64_t j = 0; j < H; j++) h[j] = (1.f - z[j]) * hh[j] + z[j] * h[j];
        } else {
            /* gates i, o, f, c */
            matvec(R, h, gh, 4 * H, H, 0);
            for (int64_t j = 0; j < 4 * H; j++) gx[j] += gh[j] + (Rb ? Rb[j] : 0.f);
            float *gi = gx, *go = gx + H, *gf = gx + 2 * H, *gc = gx + 3 * H;
            for (int64_t j = 0; j < H; j++) {
                float iv = act(&f[0], clipf(s, gi[j] + (P ? P[j] * c[j] : 0.f)));
                float fv = s->input_forget ? 1.f - iv
                         : act(&f[0], clipf(s, gf[j] + (P ? P[2 * H + j] * c[j] : 0.f)));
                float cv = act(&f[1], clipf(s, gc[j]));
                c[j] = fv * c[j] + iv * cv;
                float ov = act(&f[0], clipf(s, go[j] + (P ? P[H + j] * c[j] : 0.f)));
                h[j] = ov * act(&f[2], c[j]);
            }
        }
        if (Y) {
            float *yt = Y + (s->layout ? ((b * S + t) * D + dir) * H : ((t * D + dir) * B + b) * H);
            memcpy(yt, h, (size_t)H * sizeof(float));
        }
    }
    if (ew_want(n, 1)) memcpy((float *)out[1].data + hoff, h, (size_t)H * sizeof(float));
    if (s->kind == RK_LSTM && ew_want(n, 2)) memcpy((float *)out[2].data + hoff, c, (size_t)H * sizeof(float));
}

static int rnn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    rnn_state *s = state;
    rnn_dims d;
    int rc = rnn_dims_of(n, s, in, &d);
    if (rc) return rc;
    if (ew_has(n, in, 4))
        for (int64_t b = 0; b < d.B; b++) {
            int32_t l = ((const int32_t *)in[4].data)[b];
            if (l < 0 || l > d.S)
                return ew_fail(n, EW_EINVAL, "sequence_lens[%lld] = %d is outside [0, %lld]",
                               (long long)b, l, (long long)d.S);
        }
    if (ew_want(n, 0) && out[0].nbytes) memset(out[0].data, 0, out[0].nbytes);
    int64_t units = s->ndir * d.B;
    size_t per = (size_t)(2 * s->ngates + 3) * (size_t)d.H;
    if (units <= 0 || d.H <= 0) return 0;
    int heap = 0;
    float *buf = nn_tmp_get(ctx, (size_t)units * per * sizeof(float), &heap);
    if (!buf) return ew_fail(n, EW_ENOMEM, "out of memory");
    int nt = ew_threads(ctx, (size_t)(units * d.S * s->ngates * d.H * (d.I + d.H)), 1u << 16);
    if (nt > units) nt = (int)units;
    EW_PAR_FOR(u, units,
        rnn_one(s, &d, (int)(u / d.B), u % d.B, in, out, buf + (size_t)u * per, n););
    nn_tmp_put(buf, heap);
    return 0;
}

#define RNN_OP(var, name)                                                                     \
    static const k_op var = { name, "", 1, 0, "ref", 0, rnn_init, rnn_infer, rnn_plan, NULL,   \
                              rnn_run, ew_fini_free, NULL };                                  \
    K_REGISTER(var);
RNN_OP(k_rnn, "RNN")
RNN_OP(k_gru, "GRU")
RNN_OP(k_lstm, "LSTM")
