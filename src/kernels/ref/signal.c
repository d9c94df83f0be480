/* Reference signal-processing ops of opset 17: the Hann, Hamming and Blackman
 * windows, DFT (real or complex input, any axis, dft_length padding or
 * truncation, onesided, inverse; axis as an input from opset 20), STFT
 * (frames of a real or complex signal, optional window, onesided) and
 * MelWeightMatrix. Transforms are direct sums in double precision with the
 * twiddle index reduced mod N (exact angles); O(N^2) per line, which is what
 * a reference kernel can afford. Output sizes depend on input values, so
 * infer() asks for them (K_NEED_DATA) until they are known. */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

#define SIG_FLT (EW_M(G_F32) | EW_M(G_F64) | EW_MHALF)
#define SIG_IDX (EW_M(G_I32) | EW_M(G_I64))

static int sig_need(k_tensor *out, int dt)
{
    out[0].dtype = dt;
    out[0].shape.rank = -1;
    out[0].layout = G_LAYOUT_PLAIN;
    return K_NEED_DATA;
}

/* Integer value of a scalar input. */
static int sig_scalar_int(const g_node *n, const k_tensor *t, const char *what, int64_t *v)
{
    if (g_shape_numel(&t->shape) != 1) {
        char b[96];
        return ew_fail(n, EW_EINVAL, "%s must be a scalar, got shape %s", what,
                       g_shape_str(&t->shape, b, sizeof b));
    }
    *v = ew_ldi(t->data, t->dtype, 0);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Windows */

enum { W_HANN, W_HAMMING, W_BLACKMAN };

typedef struct win_state { int kind, periodic, dty; } win_state;

static int out_dtype_attr(const g_node *n, int *dty)
{
    int64_t od = g_attr_int(n, "output_datatype", G_F32);
    if (!(od > 0 && od < EW_NDT && ew_type_ok(EW_MNUM, (int)od)))
        return ew_fail(n, EW_EUNSUP, "output_datatype=%lld is not a supported numeric type",
                       (long long)od);
    *dty = (int)od;
    return 0;
}

static int win_init(g_graph *g, g_node *n, void **state)
{
    int kind = !strcmp(n->op_type, "HannWindow") ? W_HANN : !strcmp(n->op_type, "HammingWindow")
             ? W_HAMMING : !strcmp(n->op_type, "BlackmanWindow") ? W_BLACKMAN : -1;
    if (kind < 0) return K_DECLINE;
    if (n->n_in < 1 || n->in[0] < 0) return ew_fail(n, EW_EINVAL, "needs input size");
    int rc = ew_check_type(n, 0, ew_gdtype(g, n, 0), SIG_IDX);
    int dty = 0;
    if (!rc) rc = out_dtype_attr(n, &dty);
    if (rc) return rc;
    win_state *s = malloc(sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->kind = kind;
    s->periodic = g_attr_int(n, "periodic", 1) != 0;
    s->dty = dty;
    *state = s;
    return 0;
}

static int win_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    win_state *s = state;
    if (!in[0].data) return sig_need(out, s->dty);
    int64_t size = 0;
    int rc = sig_scalar_int(n, &in[0], "size", &size);
    if (rc) return rc;
    if (size < 0) return ew_fail(n, EW_EINVAL, "size %lld is negative", (long long)size);
    out[0].dtype = s->dty;
    out[0].shape.rank = 1;
    out[0].shape.d[0] = size;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int win_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    win_state *s = state;
    (void)in; (void)ctx; (void)n;
    int64_t size = out[0].shape.d[0];
    /* the periodic window is the symmetric one of size + 1, cut short */
    double N = (double)(s->periodic ? size : size - 1);
    for (int64_t i = 0; i < size; i++) {
        double ph = N > 0 ? 2.0 * M_PI * (double)i / N : 0.0, v;
        switch (s->kind) {
        case W_HANN: v = 0.5 - 0.5 * cos(ph); break;
        case W_HAMMING: v = 25.0 / 46.0 - 21.0 / 46.0 * cos(ph); break;
        default: v = 0.42 - 0.5 * cos(ph) + 0.08 * cos(2.0 * ph); break;
        }
        ew_st(out[0].data, s->dty, (size_t)i, v);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * DFT over one line: x (n_in complex values, stride xs in complex units,
 * imaginary parts absent when real) into y (n_out bins, stride ys). */

typedef struct line {
    const void *x; int dt; int cplx;
    int64_t base, stride;      /* element index of sample 0 (real part), step between samples */
    int64_t len;               /* samples present (the rest are zero) */
} line;

static void dft_line(const line *l, int64_t N, int64_t nbins, int inverse, const double *win,
                     void *y, int dty, int64_t ybase, int64_t ystride)
{
    double sign = inverse ? 1.0 : -1.0;
    int64_t L = l->len < N ? l->len : N;
    for (int64_t k = 0; k < nbins; k++) {
        double re = 0.0, im = 0.0;
        for (int64_t t = 0; t < L; t++) {
            size_t e = (size_t)(l->base + t * l->stride);
            double xr = ew_ld(l->x, l->dt, e), xi = l->cplx ? ew_ld(l->x, l->dt, e + 1) : 0.0;
            if (win) { xr *= win[t]; xi *= win[t]; }
            double a = sign * 2.0 * M_PI * (double)((k * t) % N) / (double)N;
            double c = cos(a), sn = sin(a);
            re += xr * c - xi * sn;
            im += xr * sn + xi * c;
        }
        if (inverse) { re /= (double)N; im /= (double)N; }
        ew_st(y, dty, (size_t)(ybase + k * ystride), re);
        ew_st(y, dty, (size_t)(ybase + k * ystride + 1), im);
    }
}

typedef struct dft_state { int inverse, onesided, dt; int64_t axis; int axis_input; } dft_state;

static int dft_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 1 || n->in[0] < 0) return ew_fail(n, EW_EINVAL, "needs an input");
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, SIG_FLT);
    if (!rc && ew_gdtype(g, n, 1) != G_UNDEF) rc = ew_check_type(n, 1, ew_gdtype(g, n, 1), SIG_IDX);
    if (!rc && ew_gdtype(g, n, 2) != G_UNDEF) rc = ew_check_type(n, 2, ew_gdtype(g, n, 2), SIG_IDX);
    if (rc) return rc;
    dft_state *s = malloc(sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->inverse = g_attr_int(n, "inverse", 0) != 0;
    s->onesided = g_attr_int(n, "onesided", 0) != 0;
    s->dt = dt;
    s->axis_input = n->opset >= 20;
    s->axis = s->axis_input ? -2 : g_attr_int(n, "axis", 1);
    if (s->inverse && s->onesided) {
        free(s);
        return ew_fail(n, EW_EUNSUP, "inverse=1 with onesided=1 (a onesided inverse transform) "
                       "is not supported");
    }
    *state = s;
    return 0;
}

/* axis and transform length; 0 or an error / K_NEED_DATA */
static int dft_params(const g_node *n, const dft_state *s, const k_tensor *in, int *axis,
                      int64_t *N)
{
    const g_shape *x = &in[0].shape;
    int r = x->rank;
    char b[96];
    if (r < 2 || (x->d[r - 1] != 1 && x->d[r - 1] != 2))
        return ew_fail(n, EW_EINVAL, "input %s must end in a dimension of 1 (real) or 2 (complex)",
                       g_shape_str(x, b, sizeof b));
    int64_t ax = s->axis;
    if (s->axis_input && ew_has(n, in, 2)) {
        if (!in[2].data) return K_NEED_DATA;
        int rc = sig_scalar_int(n, &in[2], "axis", &ax);
        if (rc) return rc;
    }
    if (ax < 0) ax += r;
    if (ax < 0 || ax >= r - 1)
        return ew_fail(n, EW_EINVAL, "axis %lld is out of range for input %s (the last dim holds "
                       "real/imaginary parts)", (long long)(s->axis_input ? ax : s->axis),
                       g_shape_str(x, b, sizeof b));
    *axis = (int)ax;
    *N = x->d[ax];
    if (ew_has(n, in, 1)) {
        if (!in[1].data) return K_NEED_DATA;
        int rc = sig_scalar_int(n, &in[1], "dft_length", N);
        if (rc) return rc;
        if (*N < 1) return ew_fail(n, EW_EINVAL, "dft_length %lld must be positive", (long long)*N);
    }
    if (s->onesided && x->d[r - 1] == 2)
        return ew_fail(n, EW_EUNSUP, "onesided=1 with complex input (the spec rules it out)");
    return 0;
}

static int dft_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dft_state *s = state;
    if (in[0].shape.rank < 0) return sig_need(out, s->dt);
    int axis = 0;
    int64_t N = 0;
    int rc = dft_params(n, s, in, &axis, &N);
    if (rc == K_NEED_DATA) return sig_need(out, s->dt);
    if (rc) return rc;
    out[0].dtype = s->dt;
    out[0].shape = in[0].shape;
    out[0].shape.d[axis] = s->onesided ? N / 2 + 1 : N;
    out[0].shape.d[in[0].shape.rank - 1] = 2;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int dft_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    dft_state *s = state;
    (void)ctx;
    int axis = 0;
    int64_t N = 0;
    int rc = dft_params(n, s, in, &axis, &N);
    if (rc) return rc == K_NEED_DATA ? ew_fail(n, EW_EINVAL, "dft_length/axis unknown at run") : rc;
    const g_shape *xs = &in[0].shape, *ys = &out[0].shape;
    int r = xs->rank;
    int cplx = xs->d[r - 1] == 2;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; i++) outer *= xs->d[i];
    for (int i = axis + 1; i < r - 1; i++) inner *= xs->d[i];
    int64_t xc = xs->d[r - 1], nax = xs->d[axis], nbins = ys->d[axis];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            line l = { in[0].data, s->dt, cplx, ((o * nax) * inner + i) * xc, inner * xc, nax };
            dft_line(&l, N, nbins, s->inverse, NULL, out[0].data, s->dt, ((o * nbins) * inner + i) * 2,
                     inner * 2);
        }
    return 0;
}

/* ---------------------------------------------------------------------------
 * STFT: signal [batch, length, 1|2], frame_step, window [W]?, frame_length? */

typedef struct stft_state { int onesided, dt; } stft_state;

static int stft_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
        return ew_fail(n, EW_EINVAL, "needs inputs signal and frame_step");
    int dt = ew_gdtype(g, n, 0);
    int rc = ew_check_type(n, 0, dt, SIG_FLT);
    if (!rc) rc = ew_check_type(n, 1, ew_gdtype(g, n, 1), SIG_IDX);
    if (!rc && ew_gdtype(g, n, 2) != G_UNDEF && ew_gdtype(g, n, 2) != dt)
        rc = ew_fail(n, EW_ETYPE, "window is %s but the signal is %s",
                     g_dtype_name(ew_gdtype(g, n, 2)), g_dtype_name(dt));
    if (!rc && ew_gdtype(g, n, 3) != G_UNDEF) rc = ew_check_type(n, 3, ew_gdtype(g, n, 3), SIG_IDX);
    if (rc) return rc;
    stft_state *s = malloc(sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->onesided = g_attr_int(n, "onesided", 1) != 0;
    s->dt = dt;
    *state = s;
    return 0;
}

static int stft_params(const g_node *n, const stft_state *s, const k_tensor *in, int64_t *step,
                       int64_t *flen, int64_t *frames)
{
    const g_shape *x = &in[0].shape;
    char b[96];
    if (x->rank != 3 || (x->d[2] != 1 && x->d[2] != 2))
        return ew_fail(n, EW_EINVAL, "signal %s must be [batch, length, 1 or 2]",
                       g_shape_str(x, b, sizeof b));
    if (!in[1].data || (ew_has(n, in, 3) && !in[3].data)) return K_NEED_DATA;
    int rc = sig_scalar_int(n, &in[1], "frame_step", step);
    if (rc) return rc;
    if (*step < 1) return ew_fail(n, EW_EINVAL, "frame_step %lld must be positive", (long long)*step);
    int64_t wl = -1, fl = -1;
    if (ew_has(n, in, 2)) {
        if (in[2].shape.rank != 1)
            return ew_fail(n, EW_EINVAL, "window %s must be 1-D", g_shape_str(&in[2].shape, b, sizeof b));
        wl = in[2].shape.d[0];
    }
    if (ew_has(n, in, 3) && (rc = sig_scalar_int(n, &in[3], "frame_length", &fl))) return rc;
    if (wl < 0 && fl < 0)
        return ew_fail(n, EW_EINVAL, "needs a window or a frame_length");
    if (wl >= 0 && fl >= 0 && wl != fl)
        return ew_fail(n, EW_EINVAL, "window length %lld differs from frame_length %lld",
                       (long long)wl, (long long)fl);
    *flen = fl >= 0 ? fl : wl;
    if (*flen < 1 || *flen > x->d[1])
        return ew_fail(n, EW_EINVAL, "frame length %lld does not fit the signal length %lld",
                       (long long)*flen, (long long)x->d[1]);
    if (s->onesided && x->d[2] == 2)
        return ew_fail(n, EW_EUNSUP, "onesided=1 with a complex signal (the spec rules it out)");
    *frames = (x->d[1] - *flen) / *step + 1;
    return 0;
}

static int stft_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    stft_state *s = state;
    if (in[0].shape.rank < 0) return sig_need(out, s->dt);
    int64_t step, flen, frames;
    int rc = stft_params(n, s, in, &step, &flen, &frames);
    if (rc == K_NEED_DATA) return sig_need(out, s->dt);
    if (rc) return rc;
    out[0].dtype = s->dt;
    out[0].shape.rank = 4;
    out[0].shape.d[0] = in[0].shape.d[0];
    out[0].shape.d[1] = frames;
    out[0].shape.d[2] = s->onesided ? flen / 2 + 1 : flen;
    out[0].shape.d[3] = 2;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int stft_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    stft_state *s = state;
    (void)ctx;
    int64_t step, flen, frames;
    int rc = stft_params(n, s, in, &step, &flen, &frames);
    if (rc) return rc == K_NEED_DATA ? ew_fail(n, EW_EINVAL, "frame_step/frame_length unknown at run") : rc;
    double *win = NULL;
    if (ew_has(n, in, 2)) {
        win = malloc((size_t)flen * sizeof *win);
        if (!win) return ew_fail(n, EW_ENOMEM, "out of memory");
        for (int64_t i = 0; i < flen; i++) win[i] = ew_ld(in[2].data, in[2].dtype, (size_t)i);
    }
    const g_shape *xs = &in[0].shape;
    int64_t B = xs->d[0], L = xs->d[1], xc = xs->d[2], nbins = out[0].shape.d[2];
    for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < frames; f++) {
            line l = { in[0].data, s->dt, xc == 2, (b * L + f * step) * xc, xc, flen };
            dft_line(&l, flen, nbins, 0, win, out[0].data, s->dt, ((b * frames + f) * nbins) * 2, 2);
        }
    free(win);
    return 0;
}

/* ---------------------------------------------------------------------------
 * MelWeightMatrix: triangular filters, equally spaced on the mel scale
 * mel(f) = 2595 log10(1 + f / 700), mapped to DFT bins by
 * floor((dft_length + 1) * f / sample_rate). */

typedef struct mel_state { int dty; } mel_state;

static int mel_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in != 5) return ew_fail(n, EW_EINVAL, "got %d inputs, expected 5", n->n_in);
    int rc = 0;
    for (int i = 0; i < 5 && !rc; i++) {
        if (n->in[i] < 0) return ew_fail(n, EW_EINVAL, "input %d is missing", i);
        rc = ew_check_type(n, i, ew_gdtype(g, n, i), i < 3 ? SIG_IDX : SIG_FLT);
    }
    int dty = 0;
    if (!rc) rc = out_dtype_attr(n, &dty);
    if (rc) return rc;
    mel_state *s = malloc(sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->dty = dty;
    *state = s;
    return 0;
}

static int mel_params(const g_node *n, const k_tensor *in, int64_t *nmel, int64_t *dftl, int64_t *sr)
{
    int rc = sig_scalar_int(n, &in[0], "num_mel_bins", nmel);
    if (!rc) rc = sig_scalar_int(n, &in[1], "dft_length", dftl);
    if (!rc) rc = sig_scalar_int(n, &in[2], "sample_rate", sr);
    if (rc) return rc;
    if (*nmel < 1 || *dftl < 1 || *sr < 1)
        return ew_fail(n, EW_EINVAL, "num_mel_bins %lld, dft_length %lld and sample_rate %lld must "
                       "be positive", (long long)*nmel, (long long)*dftl, (long long)*sr);
    return 0;
}

static int mel_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    mel_state *s = state;
    if (!in[0].data || !in[1].data || !in[2].data) return sig_need(out, s->dty);
    int64_t nmel = 0, dftl = 0, sr = 0;
    int rc = mel_params(n, in, &nmel, &dftl, &sr);
    if (rc) return rc;
    out[0].dtype = s->dty;
    out[0].shape.rank = 2;
    out[0].shape.d[0] = dftl / 2 + 1;
    out[0].shape.d[1] = nmel;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int mel_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    mel_state *s = state;
    (void)ctx;
    int64_t nmel = 0, dftl = 0, sr = 0;
    int rc = mel_params(n, in, &nmel, &dftl, &sr);
    if (rc) return rc;
    int64_t nspec = dftl / 2 + 1;
    double lo = ew_ld(in[3].data, in[3].dtype, 0), hi = ew_ld(in[4].data, in[4].dtype, 0);
    double lo_mel = 2595.0 * log10(1.0 + lo / 700.0), hi_mel = 2595.0 * log10(1.0 + hi / 700.0);
    /* nmel + 2 edges; the spacing divides by their count, as the ONNX
     * reference (and its test data) do */
    double step = (hi_mel - lo_mel) / (double)(nmel + 2);
    int64_t *bin = malloc((size_t)(nmel + 2) * sizeof *bin);
    if (!bin) return ew_fail(n, EW_ENOMEM, "out of memory");
    for (int64_t i = 0; i < nmel + 2; i++) {
        double hz = 700.0 * (pow(10.0, (lo_mel + (double)i * step) / 2595.0) - 1.0);
        double b = floor((double)(dftl + 1) * hz / (double)sr);
        /* only keep the cast defined (NaN, huge edges); loops stay in range */
        if (!(b >= -1e15)) b = -1e15;
        if (b > 1e15) b = 1e15;
        bin[i] = (int64_t)b;
    }
    for (int64_t e = 0; e < nspec * nmel; e++) ew_st(out[0].data, s->dty, (size_t)e, 0.0);
    for (int64_t m = 0; m < nmel; m++) {
        int64_t left = bin[m], center = bin[m + 1], right = bin[m + 2];
#define MEL_SET(j, v) do { if ((j) >= 0 && (j) < nspec) ew_st(out[0].data, s->dty, (size_t)((j) * nmel + m), (v)); } while (0)
        if (center == left) {
            MEL_SET(center, 1.0);
        } else {
            for (int64_t j = left > 0 ? left : 0; j <= center && j < nspec; j++)
                MEL_SET(j, (double)(j - left) / (double)(center - left));
        }
        if (right > center)
            for (int64_t j = center > 0 ? center : 0; j < right && j < nspec; j++)
                MEL_SET(j, (double)(right - j) / (double)(right - center));
#undef MEL_SET
    }
    free(bin);
    return 0;
}

#define SIG_OP(var, name, init, infer, run)                                                   \
    static const k_op var = { name, "", 17, 0, "ref", 0, init, infer, NULL, NULL, run,         \
                              ew_fini_free, NULL };                                           \
    K_REGISTER(var);
SIG_OP(k_hann, "HannWindow", win_init, win_infer, win_run)
SIG_OP(k_hamming, "HammingWindow", win_init, win_infer, win_run)
SIG_OP(k_blackman, "BlackmanWindow", win_init, win_infer, win_run)
SIG_OP(k_dft, "DFT", dft_init, dft_infer, dft_run)
SIG_OP(k_stft, "STFT", stft_init, stft_infer, stft_run)
SIG_OP(k_mel, "MelWeightMatrix", mel_init, mel_infer, mel_run)
