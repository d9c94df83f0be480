/* openacl.ChannelShuffle: the channel shuffle of ShuffleNet-style blocks,
 * Concat along channels -> Reshape [N, g, C/g, H, W] -> Transpose
 * (0, 2, 1, 3, 4) -> Reshape [N, C, H, W] -> Slices along channels, as one
 * pass over the data (the fusion pass in graph/fuse.c builds it).
 *
 * Inputs: the concatenated parts x1..xm, [N, Ci, H, W] each, one dtype.
 * Attributes: `groups` g (C = sum Ci, a multiple of g) and `ranges`
 * (s0, e0, s1, e1, ...): output o holds channels [so, eo) of the shuffled
 * tensor S, where S[:, j*g + q] = X[:, q*(C/g) + j] and X is the
 * concatenation of the inputs.
 *
 * Plain and channels-last parts mix; the outputs are channels-last when any
 * part is (as Concat's), so a ShuffleNet stays in the layout its
 * convolutions compute in instead of converting around every block. The
 * common case, g = 2 with float or bf16 data channels-last throughout,
 * interleaves two channel runs per pixel in one loop that vectorises;
 * everything else goes through strided N-d copies. In a bf16 model the
 * precision pass may store a shuffle's tensors as bf16 (graph/precision.c). */
#include "kernels/ref/shape_common.h"
#include "core/par.h"

#define SHUF_MAX_IN 64

/* A run of output channels [c, c + len*g) step g (from c), taken from
 * channels [a, a + len) of input i. */
typedef struct { int64_t c, len, a; int i; } piece;

/* The g = 2 channels-last path: an output pixel as runs that interleave
 * two source runs (o[2t] = a[t], o[2t + 1] = b[t], len pairs) or copy one
 * element (len 0). */
typedef struct { int64_t c, len, a_ch, b_ch; int a_in, b_in; } run2;

/* What one output copies, for the input channel counts and layouts it was
 * made for: runs on the interleaving path, else pieces. */
typedef struct {
    int np, nr;
    piece *pc;
    run2 *r;
} shuf_out;

typedef struct {
    int64_t groups;
    int n_ranges;
    int64_t *ranges;   /* 2 per output */
    /* the copy plan (made at plan time, again when shapes or layouts change) */
    int built, fast, n_in;
    size_t es;
    int64_t cin[SHUF_MAX_IN];
    unsigned char in_nhwc[SHUF_MAX_IN], out_nhwc;
    shuf_out *outs;
} shuf_state;

static void shuf_release(shuf_state *s)
{
    for (int o = 0; s->outs && o < s->n_ranges; o++) {
        free(s->outs[o].pc);
        free(s->outs[o].r);
    }
    free(s->outs);
    s->outs = NULL;
    s->built = 0;
}

static void shuf_fini(void *st)
{
    shuf_state *s = st;
    if (!s) return;
    shuf_release(s);
    free(s->ranges);
    free(s);
}

static int shuf_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_in < 1 || n->n_in > SHUF_MAX_IN)
        return ksh_fail(n, KSH_EINVAL, "%d inputs (1 to %d)", n->n_in, SHUF_MAX_IN);
    int e = ksh_check_same_movable(g, n);
    if (e) return e;
    const g_attr *ga = g_node_attr(n, "groups"), *ra = g_node_attr(n, "ranges");
    if (!ga || ga->type != G_AT_INT || ga->i < 1)
        return ksh_fail(n, KSH_EINVAL, "attribute 'groups' must be an integer >= 1");
    if (!ra || ra->type != G_AT_INTS || ra->n < 2 || ra->n % 2 || ra->n / 2 != n->n_out)
        return ksh_fail(n, KSH_EINVAL, "attribute 'ranges' must hold a (start, end) pair per output "
                        "(%d outputs)", n->n_out);
    shuf_state *s = calloc(1, sizeof *s);
    if (!s || !(s->ranges = malloc((size_t)ra->n * sizeof *s->ranges))) {
        free(s);
        return ksh_fail(n, KSH_ENOMEM, "out of memory");
    }
    s->groups = ga->i;
    s->n_ranges = ra->n / 2;
    memcpy(s->ranges, ra->ints, (size_t)ra->n * sizeof *s->ranges);
    *st = s;
    return 0;
}

static int shuf_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const shuf_state *s = st;
    int64_t C = 0, N = -1, H = -1, W = -1;
    int nhwc = 0;
    for (int i = 0; i < n->n_in; i++) {
        const g_shape *x = &in[i].shape;
        if (x->rank < 0 || !g_shape_known(x)) return ksh_need(out, n->n_out);
        if (x->rank != 4) return ksh_fail(n, KSH_EINVAL, "input %d has rank %d, expected 4", i, x->rank);
        if (i == 0) { N = x->d[0]; H = x->d[2]; W = x->d[3]; }
        else if (x->d[0] != N || x->d[2] != H || x->d[3] != W)
            return ksh_fail(n, KSH_EINVAL, "input %d is [%lld, %lld, %lld, %lld], input 0 has N, H, W = "
                            "%lld, %lld, %lld", i, (long long)x->d[0], (long long)x->d[1], (long long)x->d[2],
                            (long long)x->d[3], (long long)N, (long long)H, (long long)W);
        C += x->d[1];
        nhwc |= ksh_nhwc(&in[i]);
    }
    if (C % s->groups)
        return ksh_fail(n, KSH_EINVAL, "%lld channels do not split into %lld groups", (long long)C,
                        (long long)s->groups);
    for (int o = 0; o < s->n_ranges; o++) {
        int64_t a = s->ranges[2 * o], b = s->ranges[2 * o + 1];
        if (a < 0 || b <= a || b > C)
            return ksh_fail(n, KSH_EINVAL, "output %d: channel range [%lld, %lld) outside [0, %lld)", o,
                            (long long)a, (long long)b, (long long)C);
        out[o].dtype = in[0].dtype;
        out[o].shape = (g_shape){ .rank = 4, .d = { N, b - a, H, W } };
        out[o].layout = nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    }
    return 0;
}

/* The pieces of output range [s0, e0): per group q, the output channels
 * j*g + q in range come from X channels q*k + j, split where the inputs
 * meet. Returns the count (at most g * (n_in + 1)). */
static int pieces_of(const k_tensor *in, int n_in, int64_t g, int64_t C, int64_t s0, int64_t e0, piece *p)
{
    int np = 0;
    int64_t k = C / g;
    for (int64_t q = 0; q < g; q++) {
        int64_t j0 = s0 <= q ? 0 : (s0 - q + g - 1) / g, j1 = e0 <= q ? 0 : (e0 - q + g - 1) / g;
        int64_t x = q * k + j0, xe = q * k + j1, off = 0;
        for (int i = 0; i < n_in && x < xe; i++) {
            int64_t ci = in[i].shape.d[1];
            if (x < off + ci) {
                int64_t b = xe < off + ci ? xe : off + ci;
                p[np++] = (piece){ .c = (x - q * k) * g + q - s0, .len = b - x, .a = x - off, .i = i };
                x = b;
            }
            off += ci;
        }
    }
    return np;
}

/* o[2t] = a[t], o[2t + 1] = b[t]: GCC turns the pair of stores into
 * unpack instructions */
static void interleave2(uint32_t *restrict o, const uint32_t *restrict a, const uint32_t *restrict b,
                        int64_t n)
{
    for (int64_t t = 0; t < n; t++) {
        o[2 * t] = a[t];
        o[2 * t + 1] = b[t];
    }
}

static void interleave2_16(uint16_t *restrict o, const uint16_t *restrict a, const uint16_t *restrict b,
                           int64_t n)
{
    for (int64_t t = 0; t < n; t++) {
        o[2 * t] = a[t];
        o[2 * t + 1] = b[t];
    }
}

/* The runs of one output from its pieces (src_in / src_ch: scratch of co
 * entries, the source of each output channel). */
static int runs_of(const piece *p, int np, int64_t co, int *src_in, int64_t *src_ch, run2 *r)
{
    for (int k = 0; k < np; k++)
        for (int64_t t = 0; t < p[k].len; t++) {
            src_in[p[k].c + 2 * t] = p[k].i;
            src_ch[p[k].c + 2 * t] = p[k].a + t;
        }
    int nr = 0;
    for (int64_t c = 0; c < co;) {
        int64_t len = 0;
        while (c + 2 * len + 1 < co && src_in[c + 2 * len] == src_in[c] && src_in[c + 2 * len + 1] == src_in[c + 1] &&
               src_ch[c + 2 * len] == src_ch[c] + len && src_ch[c + 2 * len + 1] == src_ch[c + 1] + len)
            len++;
        if (len) {
            r[nr++] = (run2){ .c = c, .len = len, .a_in = src_in[c], .a_ch = src_ch[c], .b_in = src_in[c + 1],
                              .b_ch = src_ch[c + 1] };
            c += 2 * len;
        } else {
            r[nr++] = (run2){ .c = c, .len = 0, .a_in = src_in[c], .a_ch = src_ch[c], .b_in = -1 };
            c++;
        }
    }
    return nr;
}

/* Whether the copy plan was made for these inputs and outputs. */
static int shuf_same(const shuf_state *s, const g_node *n, const k_tensor *in, const k_tensor *out)
{
    if (!s->built || s->n_in != n->n_in || s->es != ksh_esize(out[0].dtype) || s->out_nhwc != ksh_nhwc(&out[0]))
        return 0;
    for (int i = 0; i < n->n_in; i++)
        if (s->cin[i] != in[i].shape.d[1] || s->in_nhwc[i] != ksh_nhwc(&in[i])) return 0;
    return 1;
}

/* Makes the copy plan: which input channels land where, per output. */
static int shuf_prepare(const g_node *n, shuf_state *s, const k_tensor *in, const k_tensor *out)
{
    shuf_release(s);
    int64_t g = s->groups, C = 0, comax = 0;
    int all_nhwc = 1;
    s->n_in = n->n_in;
    s->es = ksh_esize(out[0].dtype);
    s->out_nhwc = (unsigned char)ksh_nhwc(&out[0]);
    for (int i = 0; i < n->n_in; i++) {
        s->cin[i] = in[i].shape.d[1];
        s->in_nhwc[i] = (unsigned char)ksh_nhwc(&in[i]);
        C += s->cin[i];
        all_nhwc &= s->in_nhwc[i];
    }
    for (int o = 0; o < s->n_ranges; o++)
        if (s->ranges[2 * o + 1] - s->ranges[2 * o] > comax) comax = s->ranges[2 * o + 1] - s->ranges[2 * o];
    s->fast = g == 2 && (s->es == 4 || s->es == 2) && all_nhwc && s->out_nhwc;
    s->outs = calloc((size_t)s->n_ranges, sizeof *s->outs);
    int *src_in = s->fast ? malloc((size_t)comax * sizeof *src_in) : NULL;
    int64_t *src_ch = s->fast ? malloc((size_t)comax * sizeof *src_ch) : NULL;
    int rc = !s->outs || (s->fast && (!src_in || !src_ch)) ? ksh_fail(n, KSH_ENOMEM, "out of memory") : 0;
    for (int o = 0; o < s->n_ranges && !rc; o++) {
        shuf_out *so = &s->outs[o];
        int64_t s0 = s->ranges[2 * o], e0 = s->ranges[2 * o + 1];
        so->pc = malloc((size_t)(g * (n->n_in + 1)) * sizeof *so->pc);
        so->r = s->fast ? malloc((size_t)(e0 - s0) * sizeof *so->r) : NULL;
        if (!so->pc || (s->fast && !so->r)) { rc = ksh_fail(n, KSH_ENOMEM, "out of memory"); break; }
        so->np = pieces_of(in, n->n_in, g, C, s0, e0, so->pc);
        if (s->fast) so->nr = runs_of(so->pc, so->np, e0 - s0, src_in, src_ch, so->r);
    }
    free(src_in);
    free(src_ch);
    if (rc) { shuf_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int shuf_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, size_t *packed_bytes,
                     size_t *scratch_bytes)
{
    *packed_bytes = 0;
    *scratch_bytes = 0;
    return shuf_prepare(n, st, in, out);
}

/* One channels-last output pixel after another, each a sequence of runs. */
static void copy_runs(const shuf_state *s, const shuf_out *so, const k_tensor *in, const k_tensor *out, int64_t P,
                      int nt)
{
    const char *base[SHUF_MAX_IN];
    for (int i = 0; i < s->n_in; i++) base[i] = in[i].data;
    const int64_t *cin = s->cin, co = out->shape.d[1];
    const run2 *r = so->r;
    const size_t es = s->es;
    char *y = out->data;
    OA_PAR_FOR(nt, for (int64_t px = 0; px < P; px++) {
        for (int k = 0; k < so->nr; k++) {
            const char *a = base[r[k].a_in] + (size_t)(px * cin[r[k].a_in] + r[k].a_ch) * es;
            char *yo = y + (size_t)(px * co + r[k].c) * es;
            if (!r[k].len) {
                memcpy(yo, a, es);
                continue;
            }
            const char *b = base[r[k].b_in] + (size_t)(px * cin[r[k].b_in] + r[k].b_ch) * es;
            if (es == 4)
                interleave2((uint32_t *)yo, (const uint32_t *)a, (const uint32_t *)b, r[k].len);
            else
                interleave2_16((uint16_t *)yo, (const uint16_t *)a, (const uint16_t *)b, r[k].len);
        }
    });
}

static int shuf_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    shuf_state *s = st;
    int rc;
    if (!shuf_same(s, n, in, out) && (rc = shuf_prepare(n, s, in, out))) return rc;
    int64_t N = out[0].shape.d[0], H = out[0].shape.d[2], W = out[0].shape.d[3], P = N * H * W;
    if (P == 0) return 0;
    for (int o = 0; o < n->n_out; o++) {
        const shuf_out *so = &s->outs[o];
        int nt = ksh_threads(ctx, (size_t)(P * out[o].shape.d[1]) * s->es);
        if (s->fast) {
            copy_runs(s, so, in, &out[o], P, nt);
            continue;
        }
        /* each piece a strided 4-d copy, the output channel stride g times
         * the tensor's */
        int64_t ost[4], ist[4];
        ksh_lstrides(&out[o], ost);
        for (int k = 0; k < so->np; k++) {
            const piece *pc = &so->pc[k];
            ksh_lstrides(&in[pc->i], ist);
            int64_t dst[4] = { ost[0], ost[1] * s->groups, ost[2], ost[3] };
            int64_t dims[4] = { N, pc->len, H, W };
            ksh_copy_nd((char *)out[o].data + (size_t)(pc->c * ost[1]) * s->es, dst,
                        (const char *)in[pc->i].data + (size_t)(pc->a * ist[1]) * s->es, ist, dims, 4, s->es, nt);
        }
    }
    return 0;
}

static const k_op k_shuffle = {.op_type = "ChannelShuffle", .domain = "openacl", .since = 1, .impl = "ref",
                               .init = shuf_init, .infer = shuf_infer, .plan = shuf_plan, .run = shuf_run,
                               .fini = shuf_fini,
                               .accepts_layout = ksh_accept_all};
K_REGISTER(k_shuffle);
