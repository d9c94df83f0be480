/* oneDNN Conv and ConvTranspose (float32). Activations are computed in the
 * channels-last layout, the one oneDNN's fast x86 kernels want; inputs or
 * outputs the graph keeps plain are reordered through scratch. Weights are
 * reordered once into the primitive's preferred format inside the packed
 * area; bias and fused post-ops (activations, residual add as a binary
 * post-op, a following depthwise 3x3 convolution) run inside the primitive.
 * Two Conv implementations share this state: the oneDNN Conv (priority 10)
 * and the Winograd one (k_conv_wino, 15); layers with few input channels are
 * dn_conv_stem.c's (20). */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_conv_band.h"
#include "kernels/dnnl/dn_conv_phase.h"
#include "kernels/dnnl/dn_qconv_s2.h"
#include <stdlib.h>
#include <string.h>

typedef struct dconv {
    nn_win w0;
    nn_post po;
    nn_dw dw;         /* fused depthwise step */
    int transposed, has_bias;
    int bf16;         /* bfloat16 compute (node marked, CPU has it) */
    int out_bf16;     /* the output activation is stored as bf16 (G_ATTR_BF16_OUT) */
    int silu_tail;    /* the chain's final SiLU runs as dn_silu_f32 over the output */
    nn_post po_dn;    /* the chain oneDNN applies (po without that SiLU) */
    int silu_div, silu_div_fast;   /* the SiLU pass's division forms, precise and bf16-grade (dn_silu_div at load) */
    int wino;         /* the Winograd implementation's state (dwino_init) */
    int phase;        /* this build runs a dilated layer as a batch of its phases (dn_conv_phase.h): the factor */
    int sub;          /* this build runs a stride-2 1x1 layer at stride 1 on every second pixel (sub_build) */
    /* the configuration the primitives were built for */
    int built, fallback, nthr;
    nn_win w;
    g_shape xs, ys, ws;
    int xl, yl, al;
    dnnl_primitive_desc_t pd;   /* kept until the first run creates `conv` */
    dnnl_primitive_t conv, re_x, re_y, re_a;
    dnnl_memory_t m_x, m_w, m_b, m_y, m_sp, m_a, m_xu, m_yu, m_au, m_dww, m_dwb;
    dnnl_memory_desc_t wmd, dwwmd;
    int have_wmd;
    size_t wbytes, bbytes, dwwbytes, dwbbytes;
    size_t off_x, off_y, off_a, off_sp, scratch;
    int add_idx;
    size_t a_es;      /* bytes per addend value (bf16 or float32) */
    int add_sum;      /* residual add as an in-place sum post-op */
    int sum_kept;     /* the memory plan gave the output the addend's storage
                         (dconv_inplace): every rebuild keeps the sum post-op */
    int bands_mode, s2_off, phase_off;   /* dn_conv_bands_mode(), OPENACL_CONV_S2 / _WINO_DILATED=0, at load */
    dn_band band;     /* the layer as bands of rows, one per thread (dn_conv_band.h) */
    /* packed constants */
    dn_pk pk;                 /* packed area, own memory for unplanned runs */
} dconv;

static void dconv_release(dconv *s)
{
    if (s->pd) dnnl_primitive_desc_destroy(s->pd);
    s->pd = NULL;
    dn_prim_free(&s->conv); dn_prim_free(&s->re_x); dn_prim_free(&s->re_y); dn_prim_free(&s->re_a);
    dn_mem_free(&s->m_x); dn_mem_free(&s->m_w); dn_mem_free(&s->m_b); dn_mem_free(&s->m_y);
    dn_mem_free(&s->m_sp); dn_mem_free(&s->m_a); dn_mem_free(&s->m_xu); dn_mem_free(&s->m_yu);
    dn_mem_free(&s->m_au); dn_mem_free(&s->m_dww); dn_mem_free(&s->m_dwb);
    dn_band_free(&s->band);
    s->built = 0;
}

static void dconv_fini(void *state)
{
    dconv *s = state;
    if (!s) return;
    dconv_release(s);
    dn_pk_free(&s->pk);
    free(s);
}

static int dconv_init_common(g_graph *g, g_node *n, void **state, int transposed)
{
    if (!dn_engine()) return K_DECLINE;
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    /* float32 activations, constant float32 weights (and bias) */
    /* a bf16-marked convolution may read a bf16 activation (graph/precision.h) */
    /* (and a bf16 residual addend, dn_conv_bf16_addend) */
    int bf16_ok = graph_node_bf16(n) && dn_has_bf16();
    int in_bf16 = n->in[0] >= 0 && g->t[n->in[0]].dtype == G_BF16 && bf16_ok;
    for (int i = 0; i < n->n_in && i < 6; i++)
        if (n->in[i] >= 0 && g->t[n->in[i]].dtype != G_F32 && !(i == 0 && in_bf16) &&
            !(i == NN_ADD_INPUT && g->t[n->in[i]].dtype == G_BF16 && bf16_ok))
            return K_DECLINE;
    if (!nn_is_const(g, n, 1)) return K_DECLINE;
    for (int i = NN_DW_W; i < n->n_in && i <= NN_DW_B; i++)
        if (n->in[i] >= 0 && !nn_is_const(g, n, i)) return K_DECLINE;
    if (n->n_in > 2 && n->in[2] >= 0 && !nn_is_const(g, n, 2)) return K_DECLINE;
    int xr = g->t[n->in[0]].shape.rank;
    if (xr >= 0 && (xr < 3 || xr > 5)) return K_DECLINE;
    dconv *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_win_parse(n, transposed ? NN_CONVT : NN_CONV, &s->w0);
    if (!r) r = nn_post_parse(n, &s->po);
    if (!r && !transposed) r = nn_dw_parse(n, &s->dw);
    if (r) { free(s); return r; }
    s->transposed = transposed;
    s->has_bias = n->n_in > 2 && n->in[2] >= 0;
    /* constant folding computes exactly; a fused depthwise step stays f32 */
    s->bf16 = graph_node_bf16(n) && !nn_is_const(g, n, 0) && !s->dw.on && dn_has_bf16();
    /* (a residual convolution too: its sum post-op then reads and writes
     * bf16, dconv_bf16_addend; few-channel layers are dn_conv_stem.c's) */
    s->out_bf16 = s->bf16 && !s->transposed && g_attr_int(n, G_ATTR_BF16_OUT, 0);
    s->po_dn = s->po;
    s->silu_tail = !s->dw.on && s->po.n > 0 && s->po.kind[s->po.n - 1] == NN_PO_SILU &&
                   s->po.a[s->po.n - 1] == 1.0f && !getenv("OPENACL_DNNL_SWISH");
    if (s->silu_tail) s->po_dn.n--;
    s->silu_div = dn_silu_div(0);
    s->silu_div_fast = dn_silu_div(1);
    s->bands_mode = dn_conv_bands_mode();
    s->s2_off = dn_conv_s2_off(), s->phase_off = dn_wino_dilated_off();
    *state = s;
    return 0;
}

static int dconv_init(g_graph *g, g_node *n, void **st) { return dconv_init_common(g, n, st, 0); }

/* Which Winograd kernel (dn_wino_kind; 0: none) a layer with the resolved
 * window w, input xs and output ys takes, and in *ph its phase factor: 1
 * for an undilated layer, d for a dilated one run over its phase planes
 * (dn_conv_phase.h: no fused addend, dn_phase_kind's rule). */
static int wino_choice(const dconv *s, const nn_win *w, const g_shape *xs, const g_shape *ys, int *ph)
{
    *ph = 1;
    if (s->bf16 || s->transposed || s->dw.on || w->nsp != 2 || w->group != 1 || xs->d[1] % 16 || ys->d[1] % 16)
        return 0;
    if (w->d[0] > 1 && (s->po.has_add || s->phase_off || !(*ph = dn_phase_factor(w, xs)))) return 0;
    for (int i = 0; i < 2; i++)
        if (w->k[i] != 3 || w->s[i] != 1 || (*ph == 1 && w->d[i] != 1)) return 0;
    return *ph > 1 ? dn_phase_kind(xs->d[1], ys->d[1], ys->d[0], ys->d[2], ys->d[3], *ph)
                   : dn_wino_kind(xs->d[1], ys->d[1], ys->d[2], ys->d[3]);
}

/* The Winograd implementation (k_conv_wino): float32 2-D convolutions, 3x3
 * stride 1 without dilation, one group, multiples of 16 channels in and out,
 * no fused depthwise step, whose shapes (known at init: a static plan, or a
 * dynamic model's program with its inputs fixed) suit it (dn_wino_kind);
 * declined under OPENACL_WINOGRAD=0. Its state is
 * the oneDNN Conv's, built with the Winograd algorithm first (dconv_build:
 * the direct one where oneDNN refuses it or for later, smaller planes). */
static int dwino_init(g_graph *g, g_node *n, void **st)
{
    if (!dn_winograd() || !dn_engine() || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    const g_tensor *wt = &g->t[n->in[1]];
    if (wt->shape.rank != 4 || wt->shape.d[0] % 16 || wt->shape.d[1] % 16 || wt->shape.d[2] != 3 ||
        wt->shape.d[3] != 3 || g->t[n->in[0]].shape.rank != 4 || !g_shape_known(&g->t[n->in[0]].shape))
        return K_DECLINE;
    int r = dconv_init_common(g, n, st, 0);
    if (r) return r;
    dconv *s = *st;
    k_tensor in[3];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 3 && i < n->n_in; i++)
        if (n->in[i] >= 0) in[i].shape = g->t[n->in[i]].shape;
    nn_win w = s->w0;
    g_shape ys;
    int ph;
    if (nn_conv_infer_shape(n, &w, 0, in, &ys) || !wino_choice(s, &w, &in[0].shape, &ys, &ph)) {
        dconv_fini(s);
        *st = NULL;
        return K_DECLINE;
    }
    s->wino = 1;
    return 0;
}
static int dconvt_init(g_graph *g, g_node *n, void **st) { return dconv_init_common(g, n, st, 1); }

static int dconv_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dconv *s = state;
    nn_win w = s->w0;
    int r = nn_conv_infer_shape(n, &w, s->transposed, in, &out[0].shape);
    if (!r) r = nn_conv_dw_shape(n, &s->dw, in, &out[0].shape);
    if (r) return r;
    if (s->po.has_add && g_shape_known(&out[0].shape) && in[NN_ADD_INPUT].shape.rank >= 0 &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape)) {
        char a[96], b[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused addend %s differs from "
                        "the output %s", n->name, n->op_type,
                        g_shape_str(&in[NN_ADD_INPUT].shape, a, sizeof a),
                        g_shape_str(&out[0].shape, b, sizeof b));
    }
    out[0].dtype = s->out_bf16 ? G_BF16 : G_F32;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

/* Weights as ONNX stores them, in oneDNN's dims ([G,] OC/G, IC/G, k...). */
static int user_wmd(const dconv *s, int64_t C, int64_t M, dnnl_memory_desc_t *md)
{
    int nsp = s->w.nsp;
    int64_t G = s->w.group, K = 1;
    for (int i = 0; i < nsp; i++) K *= s->w.k[i];
    dnnl_dims_t d, st;
    int gi = G > 1 ? 1 : 0, nd = 2 + nsp + gi;
    if (gi) d[0] = G;
    d[gi] = M / G;
    d[gi + 1] = C / G;
    for (int i = 0; i < nsp; i++) d[gi + 2 + i] = s->w.k[i];
    dnnl_dim_t acc = 1;
    for (int i = nsp - 1; i >= 0; i--) { st[gi + 2 + i] = acc; acc *= s->w.k[i]; }
    if (!s->transposed) {          /* [M, C/G, k...] */
        st[gi + 1] = K;
        st[gi] = (C / G) * K;
        if (gi) st[0] = (M / G) * (C / G) * K;
    } else {                       /* [C, M/G, k...] */
        st[gi] = K;
        st[gi + 1] = (M / G) * K;
        if (gi) st[0] = (C / G) * (M / G) * K;
    }
    return dnnl_memory_desc_init_by_strides(md, nd, d, dnnl_f32, st) == dnnl_success ? 0 : -1;
}

/* Packed area: weights, bias, fused depthwise weights and bias, each at a
 * 64-byte boundary. */
static size_t off_b(const dconv *s) { return dn_align(s->wbytes); }
static size_t off_dww(const dconv *s) { return off_b(s) + dn_align(s->bbytes); }
static size_t off_dwb(const dconv *s) { return off_dww(s) + dn_align(s->dwwbytes); }
static size_t packed_total(const dconv *s) { return off_dwb(s) + s->dwbbytes; }

static int same_cfg(const dconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    if (!s->built || s->nthr != nthr) return 0;
    if (!g_shape_eq(&s->xs, &in[0].shape) || s->xl != in[0].layout || s->yl != out[0].layout)
        return 0;
    if (s->po.has_add && s->al != in[NN_ADD_INPUT].layout) return 0;
    return 1;
}

/* The descriptors one build works with: the node's output ys and the first
 * convolution's ya (they differ with a fused depthwise step); activations
 * in the compute layouts (x_c, y_c, ya_c) and as the graph stores them
 * (x_u, y_u, a_u: input, output, addend); weights as ONNX stores them
 * (w_user) and as the primitive may choose them (w_any); the bias. */
typedef struct conv_mds {
    g_shape ys, ya;
    dnnl_memory_desc_t x_c, y_c, ya_c, x_u, y_u, a_u, w_user, w_any, b_md;
    dnnl_dims_t strides, dil, pl, pr;
    dnnl_data_type_t cdt;   /* compute type of the source and weights */
    int neg_pad;            /* a transposed convolution's output padding exceeds its end padding */
} conv_mds;

/* One attempt at a primitive descriptor for an algorithm and the compute
 * layouts x_c/y_c; add_sum: the fused residual add as a sum post-op (else
 * a binary one, whose index lands in s->add_idx). */
static dnnl_status_t conv_pd(const g_node *n, dconv *s, dnnl_alg_kind_t alg, const conv_mds *m,
                             const dnnl_memory_desc_t *x_c, const dnnl_memory_desc_t *y_c, int add_sum,
                             const char *prefer, dnnl_primitive_desc_t *pd)
{
    union { dnnl_convolution_desc_t c; dnnl_deconvolution_desc_t d; } desc;
    dnnl_status_t st;
    const dnnl_memory_desc_t *b = s->has_bias ? &m->b_md : NULL;
    *pd = NULL;
    if (!s->transposed)
        st = dnnl_dilated_convolution_forward_desc_init(&desc.c, dnnl_forward_inference, alg, x_c,
                 &m->w_any, b, y_c, m->strides, m->dil, m->pl, m->pr);
    else
        st = dnnl_dilated_deconvolution_forward_desc_init(&desc.d, dnnl_forward_inference, alg, x_c,
                 &m->w_any, b, y_c, m->strides, m->dil, m->pl, m->pr);
    if (st != dnnl_success) return st;
    dnnl_primitive_attr_t attr = NULL;
    st = dnnl_primitive_attr_create(&attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success && !s->dw.on &&
        dn_post_ops(n, &s->po_dn, add_sum ? NULL : y_c, NULL, attr, &s->add_idx))
        st = dnnl_unimplemented;
    if (st == dnnl_success && s->dw.on && dn_dw_post_ops(n, &s->po, &s->dw, attr))
        st = dnnl_unimplemented;
    if (st == dnnl_success) st = dn_pd_create(pd, &desc, attr, prefer);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return st;
}

/* Shapes, layouts and sizes of this build and the descriptors of m; 0 when
 * some descriptor cannot be made (the reference loops then run). */
static int conv_mds_init(const g_node *n, dconv *s, const k_tensor *in, const k_tensor *out, conv_mds *m)
{
    g_shape *ys = &m->ys, *ya = &m->ya;
    s->xs = in[0].shape; s->ys = *ys; s->ws = in[1].shape;
    if (s->bf16 && !s->have_wmd && in[0].dtype == G_F32 && !s->out_bf16 &&
        2.0 * (double)g_shape_numel(ys) * (double)g_shape_numel(&in[1].shape) /
            (double)(in[1].shape.d[s->transposed ? 1 : 0] > 0 ? in[1].shape.d[s->transposed ? 1 : 0] : 1) <
            DN_BF16_MIN_FLOPS)
        s->bf16 = 0;   /* too small: converting costs more than bf16 saves */
    s->xl = in[0].layout; s->yl = out[0].layout;
    s->al = s->po.has_add ? in[NN_ADD_INPUT].layout : 0;
    s->a_es = s->po.has_add && in[NN_ADD_INPUT].dtype == G_BF16 ? 2 : 4;
    int64_t C = s->xs.d[1], M = ys->d[1];
    s->bbytes = s->has_bias ? (size_t)M * sizeof(float) : 0;
    s->dwwbytes = s->dw.on ? (size_t)M * 9 * sizeof(float) : 0;
    s->dwbbytes = s->dw.on && s->dw.has_bias ? (size_t)M * sizeof(float) : 0;
    /* bf16: the source is converted in the reorder to the compute layout,
     * the destination stays f32 (post-ops and the next node read f32) */
    m->cdt = s->bf16 ? dnnl_bf16 : dnnl_f32;
    int ok = !dn_md_act(&m->x_c, &s->xs, 1, m->cdt) &&
             !dn_md_act(&m->y_c, ys, 1, s->bf16 && s->out_bf16 ? dnnl_bf16 : dnnl_f32) &&
             !dn_md_act(&m->x_u, &s->xs, s->xl == G_LAYOUT_NHWC, in[0].dtype == G_BF16 ? dnnl_bf16 : dnnl_f32) &&
             !dn_md_act(&m->y_u, ys, s->yl == G_LAYOUT_NHWC, s->out_bf16 ? dnnl_bf16 : dnnl_f32) &&
             !dn_md_act(&m->a_u, ys, s->al == G_LAYOUT_NHWC, s->a_es == 2 ? dnnl_bf16 : dnnl_f32) &&
             !dn_md_act(&m->ya_c, ya, 1, dnnl_f32) && !user_wmd(s, C, M, &m->w_user);
    if (ok && s->dw.on) {
        /* oneDNN 2.6 fuses the depthwise step correctly only on the 16-channel
         * blocked layout (channels-last gives wrong results) */
        dnnl_dims_t xd = { s->xs.d[0], C, s->xs.d[2], s->xs.d[3] };
        dnnl_dims_t ad = { ya->d[0], M, ya->d[2], ya->d[3] }, fd = { ys->d[0], M, ys->d[2], ys->d[3] };
        ok = C % 16 == 0 && M % 16 == 0 && s->xs.rank == 4 &&
             dnnl_memory_desc_init_by_tag(&m->x_c, 4, xd, dnnl_f32, dnnl_nChw16c) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&m->ya_c, 4, ad, dnnl_f32, dnnl_nChw16c) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&m->y_c, 4, fd, dnnl_f32, dnnl_nChw16c) == dnnl_success;
    }
    m->neg_pad = 0;
    for (int i = 0; i < s->w.nsp; i++) {
        m->strides[i] = s->w.s[i];
        m->dil[i] = s->w.d[i] - 1;
        m->pl[i] = s->w.pb[i];
        m->pr[i] = s->transposed ? s->w.pe[i] - s->w.opad[i] : s->w.pe[i];
        if (m->pr[i] < 0) m->neg_pad = 1;
    }
    if (s->have_wmd) m->w_any = s->wmd;
    else {
        dnnl_dims_t wd;
        for (int i = 0; i < m->w_user.ndims; i++) wd[i] = m->w_user.dims[i];
        dnnl_memory_desc_init_by_tag(&m->w_any, m->w_user.ndims, wd, m->cdt, dnnl_format_tag_any);
    }
    dnnl_dims_t bd = { M };
    dnnl_memory_desc_init_by_tag(&m->b_md, 1, bd, dnnl_f32, dnnl_x);
    return ok;
}

/* The Winograd implementation's first choice (s->wino, dwino_init): 3x3
 * stride-1 convolutions by oneDNN's F(4x4,3x3) kernel, 2-3x fewer
 * operations, offered only on the 16-channel blocked layout, so activations
 * are reordered around it through scratch (x_c, y_c become that layout).
 * Not for later shapes it does not suit, nor once the packed weights have
 * the direct format. */
static dnnl_status_t wino_pd(const g_node *n, dconv *s, conv_mds *m, dnnl_primitive_desc_t *pd)
{
    int64_t C = s->xs.d[1], M = m->ys.d[1];
    int nsp = s->w.nsp, ph = 1;
    int kind = s->wino ? wino_choice(s, &s->w, &s->xs, &m->ys, &ph) : 0;
    /* the phase planes are gathered and scattered as float32 */
    if (ph > 1 && (m->x_u.data_type != dnnl_f32 || m->y_u.data_type != dnnl_f32)) kind = 0;
    int wino = kind != 0;
    s->phase = 0;
    if (s->have_wmd && (s->wmd.format_kind == dnnl_format_kind_wino) != wino) wino = 0;
    *pd = NULL;
    if (!wino) return dnnl_unimplemented;
    dnnl_memory_desc_t x_b, y_b;
    dnnl_dims_t xd = { s->xs.d[0] * ph * ph, C, (s->xs.d[2] + ph - 1) / ph, (s->xs.d[3] + ph - 1) / ph };
    dnnl_dims_t yd = { m->ys.d[0] * ph * ph, M, (m->ys.d[2] + ph - 1) / ph, (m->ys.d[3] + ph - 1) / ph };
    conv_mds mp = *m;   /* the phases' geometry: undilated, padding 1 */
    for (int i = 0; i < nsp && ph > 1; i++) { mp.dil[i] = 0; mp.pl[i] = mp.pr[i] = 1; }
    dnnl_memory_desc_init_by_tag(&x_b, 4, xd, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_init_by_tag(&y_b, 4, yd, dnnl_f32, dnnl_nChw16c);
    dnnl_status_t st = dnnl_unimplemented;
    for (int add_sum = s->sum_kept; add_sum < 1 + s->po.has_add; add_sum++) {
        st = conv_pd(n, s, dnnl_convolution_winograd, &mp, &x_b, &y_b, add_sum,
                     kind == DN_WINO_2X3 ? "jit_fp32_wino_2x3" : "jit_wino_4x3", pd);
        if (st == dnnl_success) { s->add_sum = add_sum; break; }
    }
    /* F(2x2,3x3) blocking more than 8 output blocks at once (M / 16 = 11,
     * 13: 176 or 208 channels) runs 1.4x slower than the direct kernel */
    const dnnl_memory_desc_t *wq = st == dnnl_success ? dnnl_primitive_desc_query_md(*pd, dnnl_query_weights_md, 0)
                                                      : NULL;
    if (kind == DN_WINO_2X3 && wq && wq->format_kind == dnnl_format_kind_wino &&
        wq->format_desc.wino_desc.oc2_block > 8) {
        dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
        return dnnl_unimplemented;
    }
    if (st == dnnl_success) { m->x_c = x_b; m->y_c = y_b; s->phase = ph > 1 ? (int)ph : 0; }
    if (st == dnnl_success && ph > 1)
        acl_log(1, "node '%s' (%s): dilation %d run as %d phase planes of %lldx%lld by Winograd", n->name,
                n->op_type, ph, ph * ph, (long long)yd[2], (long long)yd[3]);
    return st;
}

static void pd_drop(dnnl_primitive_desc_t *pd)
{
    if (*pd) dnnl_primitive_desc_destroy(*pd);
    *pd = NULL;
}

/* The direct algorithm (every other convolution, and Winograd's where
 * oneDNN refuses it). */
static dnnl_status_t direct_pd(const g_node *n, dconv *s, const conv_mds *m, dnnl_primitive_desc_t *pd)
{
    dnnl_status_t st = dnnl_unimplemented;
    int64_t C = s->xs.d[1], M = m->ys.d[1];
    *pd = NULL;
    /* depthwise: oneDNN 2.6's jit_dw beats the brdgmm kernel it
     * lists first for channels-last (10-40% on MobileNet layers) */
    int dw = s->w.group > 1 && s->w.group == C && C == M && s->w.nsp == 2;
    /* with a fused depthwise step the descriptor names the first
     * convolution's output; the primitive writes the second's */
    /* oneDNN 2.6's brgemm kernels take a residual add only as a sum post-op:
     * with the full-tensor binary one it falls back to the older jit
     * kernels, in bfloat16 about half as fast (ResNet-50's expanding 1x1
     * layers at 56x56: 1.12 -> 0.55 ms). The sum reads the addend from the
     * destination, which the memory plan lets be the addend's own storage
     * (dconv_inplace). So a residual convolution asks for the sum first and
     * keeps it when oneDNN's first choice is brgemm (one descriptor; walking
     * the implementation list costs a millisecond a layer). In float32 too
     * (ResNet-50 fp32 on the Zen 5 benchmark VM -3.0 % at 1 thread, -2.7 %
     * at 2; level on an earlier machine, 21.6 ms for those layers vs 23.0). */
    int keep = s->sum_kept && s->po.has_add;
    if (keep || (s->po.has_add && !s->transposed && !s->dw.on)) {
        st = conv_pd(n, s, dnnl_convolution_direct, m, &m->x_c, &m->y_c, 1, NULL, pd);
        if (st == dnnl_success && (keep || dn_impl_has(*pd, "brg"))) {
            s->add_sum = 1;
        } else {
            pd_drop(pd);
            st = dnnl_unimplemented;
        }
    }
    /* (never the binary post-op once the output shares the addend's
     * storage: without a sum descriptor the reference loops run,
     * which read each addend value before writing its output) */
    if (!s->add_sum && !keep)
        st = conv_pd(n, s, s->transposed ? dnnl_deconvolution_direct : dnnl_convolution_direct, m, &m->x_c,
                     s->dw.on ? &m->ya_c : &m->y_c, 0, dw ? "jit_dw" : NULL, pd);
    if (st == dnnl_success && s->dw.on &&
        (!dn_impl_has(*pd, "jit_1x1") || dn_is_ref_impl(*pd) ||
         !dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(*pd, dnnl_query_dst_md, 0), &m->y_c))) {
        pd_drop(pd);
        st = dnnl_unimplemented;
    }
    /* oneDNN 2.6's gemm-based convolution gets binary post-ops wrong
     * (grouped convolutions): there the residual add is a sum post-op */
    if (st == dnnl_success && s->po.has_add && !s->add_sum && dn_impl_has(*pd, "gemm")) {
        pd_drop(pd);
        s->add_sum = 1;
        st = conv_pd(n, s, dnnl_convolution_direct, m, &m->x_c, &m->y_c, 1, NULL, pd);
    }
    return st;
}

static int dconv_build(const g_node *n, dconv *s, const k_tensor *in, const k_tensor *out, int nthr);

/* No primitive for this configuration: f32 for a bf16 one, a repack for
 * packed weights the new shapes do not fit, else reference loops inside
 * this kernel with the weights kept as given. */
static int build_declined(const g_node *n, dconv *s, const k_tensor *in, const k_tensor *out, int nthr,
                          int neg_pad)
{
    if (s->bf16 && !s->have_wmd) {
        acl_log(1, "node '%s' (%s): no bfloat16 primitive, float32 used", n->name, n->op_type);
        s->bf16 = 0;
        return dconv_build(n, s, in, out, nthr);
    }
    if (s->have_wmd && !s->fallback) {
        /* new shapes do not fit the packed weight format: repack from the
         * original weights when the run still has them */
        if (!in[1].data)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): no oneDNN "
                            "primitive for this input shape with the packed weight format",
                            n->name, n->op_type);
        s->have_wmd = 0;
        s->pk.packed_ok = 0;
        return dconv_build(n, s, in, out, nthr);
    }
    if (in[0].dtype == G_BF16 || s->out_bf16 || s->a_es == 2)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, impl dnnl): no oneDNN "
                        "primitive for this configuration with bfloat16 activations", n->name,
                        n->op_type);
    acl_log(1, "node '%s' (%s): oneDNN declined the configuration (%s), reference loops "
            "used", n->name, n->op_type, neg_pad ? "output padding exceeds end padding" :
            s->fallback ? "kept" : "no primitive");
    s->fallback = 1;
    s->wbytes = (size_t)g_shape_numel(&in[1].shape) * sizeof(float);
    s->scratch = 0;   /* with a fused depthwise step: two reference steps, no plane scratch */
    if (!s->dw.on) {
        size_t plane = 1;
        for (int i = 0; i < s->w.nsp; i++) plane *= (size_t)s->w.out[i];
        s->scratch = plane * sizeof(float);
    }
    s->built = 1;
    return 0;
}

/* The packed formats pd chose (weights and fused depthwise weights, the
 * first kept for the state's life) and its fused depthwise bias (*dwbmd). */
static int take_formats(const g_node *n, dconv *s, dnnl_primitive_desc_t pd, dnnl_memory_desc_t *dwbmd)
{
    if (!s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    if (!s->dw.on) return 0;
    const dnnl_memory_desc_t *q = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                                                               DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    if (s->pk.packed_ok && !dnnl_memory_desc_equal(q, &s->dwwmd))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): the fused "
                        "depthwise weights changed format on a rebuild", n->name, n->op_type);
    s->dwwmd = *q;
    s->dwwbytes = dnnl_memory_desc_get_size(q);
    *dwbmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS);
    return 0;
}

/* Scratch layout (reordered input, output and addend, then oneDNN's
 * scratchpad), the reorders, and the memory objects of a built pd. */
static int build_mems(const g_node *n, dconv *s, dnnl_primitive_desc_t pd, const conv_mds *m,
                      const dnnl_memory_desc_t *dwbmd)
{
    size_t sp = dn_scratch_size(pd), off = 0;
    dnnl_memory_desc_t spmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int rc = 0;
    if (s->phase || s->sub) {   /* gathered (and scattered) by dn_conv_phase.c, dn_qconv_s2.c */
        s->off_x = off; off = dn_align(off + dnnl_memory_desc_get_size(&m->x_c));
        if (s->phase) { s->off_y = off; off = dn_align(off + dnnl_memory_desc_get_size(&m->y_c)); }
    } else if (!dnnl_memory_desc_equal(&m->x_u, &m->x_c)) {
        s->off_x = off; off = dn_align(off + dnnl_memory_desc_get_size(&m->x_c));
        if (!rc) rc = dn_reorder_prim(n, &m->x_u, &m->x_c, &s->re_x);
        if (!rc) rc = dn_mem(n, &m->x_u, &s->m_xu);
    }
    if (!s->phase && !dnnl_memory_desc_equal(&m->y_u, &m->y_c)) {
        s->off_y = off; off = dn_align(off + dnnl_memory_desc_get_size(&m->y_c));
        if (!rc) rc = dn_reorder_prim(n, &m->y_c, &m->y_u, &s->re_y);
        if (!rc) rc = dn_mem(n, &m->y_u, &s->m_yu);
    }
    if (s->po.has_add && !dnnl_memory_desc_equal(&m->a_u, &m->y_c)) {
        s->off_a = off; off = dn_align(off + dnnl_memory_desc_get_size(&m->y_c));
        if (!rc) rc = dn_reorder_prim(n, &m->a_u, &m->y_c, &s->re_a);
        if (!rc) rc = dn_mem(n, &m->a_u, &s->m_au);
    }
    s->off_sp = off;
    s->scratch = off + sp;
    if (!rc) rc = dn_mem(n, &m->x_c, &s->m_x);
    if (!rc) rc = dn_mem(n, &s->wmd, &s->m_w);
    if (!rc && s->has_bias) rc = dn_mem(n, &m->b_md, &s->m_b);
    if (!rc) rc = dn_mem(n, &m->y_c, &s->m_y);
    if (!rc && sp) rc = dn_mem(n, &spmd, &s->m_sp);
    if (!rc && s->po.has_add) rc = dn_mem(n, &m->y_c, &s->m_a);
    if (!rc && s->dw.on) rc = dn_mem(n, &s->dwwmd, &s->m_dww);
    if (!rc && s->dw.on && s->dw.has_bias) rc = dn_mem(n, dwbmd, &s->m_dwb);
    return rc;
}

/* Whether this build runs as bands of output rows (dn_conv_band.h): on 2
 * threads or more, a direct float32 2-D layer between channels-last tensors
 * of batch 1 with nothing the bands leave out (a residual addend other than
 * the sum post-op, fused depthwise step, bf16); by default grouped
 * layers and layers of small planes (dn_conv_bands_mode). */
static int band_suits(const dconv *s, dnnl_primitive_desc_t pd, int nthr)
{
    int64_t C = s->xs.d[1], G = s->w.group;
    if (s->bands_mode == DN_BANDS_OFF || nthr < 2 || s->transposed || s->dw.on ||
        (s->po.has_add && (!s->add_sum || s->re_a || s->a_es != 4)) || s->bf16 || s->out_bf16 ||
        s->w.nsp != 2 || s->xs.rank != 4 || s->xs.d[0] != 1 || s->re_x || s->re_y || s->sub || s->xl != G_LAYOUT_NHWC ||
        s->yl != G_LAYOUT_NHWC || dn_impl_has(pd, "wino"))
        return 0;
    if (G > 1 && G < C) return 1;
    return s->bands_mode == DN_BANDS_ALL || (s->bands_mode == DN_BANDS_SMALL && s->ys.d[2] <= DN_BAND_SMALL_ROWS);
}

static void band_build(const g_node *n, dconv *s, const conv_mds *m, int nthr)
{
    dn_band_geo g = { .C = s->xs.d[1], .H = s->xs.d[2], .W = s->xs.d[3], .M = m->ys.d[1], .OH = m->ys.d[2],
                      .OW = m->ys.d[3], .KH = s->w.k[0] };
    for (int i = 0; i < 2; i++) {
        g.strides[i] = m->strides[i]; g.dil[i] = m->dil[i]; g.pl[i] = m->pl[i]; g.pr[i] = m->pr[i];
    }
    dn_band_build(n, &s->band, nthr, &g, &s->wmd, s->has_bias, &s->po_dn);
    if (s->band.n && s->band.scratch > s->scratch) s->scratch = s->band.scratch;
}

/* A stride-2 1x1 float32 layer on an output plane of at most DN_CONV_S2_PIX
 * pixels runs at stride 1 on its input's even pixels, gathered into scratch
 * (same sums, faster: docs/config.md OPENACL_CONV_S2), in the stride-2
 * primitive's weight format, else stays strided. OPENACL_CONV_S2=0: off. */
static void sub_build(const g_node *n, dconv *s, conv_mds *m, dnnl_primitive_desc_t *pd)
{
    s->sub = 0;
    if (s->s2_off || s->transposed || s->dw.on || s->bf16 || s->xl != G_LAYOUT_NHWC ||
        m->x_u.data_type != dnnl_f32 || s->xs.rank != 4 || s->w.group != 1 || dn_impl_has(*pd, "wino") ||
        !dn_s2_window(&s->w) || m->ys.d[2] * m->ys.d[3] > DN_CONV_S2_PIX)
        return;
    conv_mds m1 = *m;
    g_shape xs1 = s->xs;
    xs1.d[2] = m->ys.d[2];
    xs1.d[3] = m->ys.d[3];
    m1.w_any = s->wmd;
    m1.strides[0] = m1.strides[1] = 1;
    dnnl_primitive_desc_t p1 = NULL;
    if (dn_md_act(&m1.x_c, &xs1, 1, dnnl_f32) ||
        conv_pd(n, s, dnnl_convolution_direct, &m1, &m1.x_c, &m->y_c, s->add_sum, NULL, &p1) != dnnl_success)
        return;
    int ok = !dn_is_ref_impl(p1) &&
             dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(p1, dnnl_query_weights_md, 0), &s->wmd);
    dnnl_primitive_desc_destroy(ok ? *pd : p1);
    if (!ok) return;
    *pd = p1;
    m->x_c = m1.x_c;
    s->sub = 1;
    acl_log(1, "node '%s' (%s): stride-2 1x1 layer run at stride 1 on every second pixel", n->name, n->op_type);
}

/* Creates the primitives for the given shapes and layouts. The weight format
 * stays the one first packed, so a rebuild (other shapes or thread count)
 * never needs the original weights. */
static int dconv_build(const g_node *n, dconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dconv_release(s);
    s->w = s->w0;
    conv_mds m;
    int r = nn_conv_infer_shape(n, &s->w, s->transposed, in, &m.ya);
    m.ys = m.ya;
    if (!r) r = nn_conv_dw_shape(n, &s->dw, in, &m.ys);
    if (r) return r;
    s->nthr = nthr;
    int ok = conv_mds_init(n, s, in, out, &m);
    dnnl_status_t st = dnnl_unimplemented;
    dnnl_primitive_desc_t pd = NULL;
    /* once on reference loops (weights packed raw), stay there */
    if (ok && !m.neg_pad && !(s->fallback && s->pk.packed_ok)) {
        s->add_sum = 0;
        st = wino_pd(n, s, &m, &pd);
        if (st != dnnl_success) st = direct_pd(n, s, &m, &pd);
    }
    if (st != dnnl_success) {
        pd_drop(&pd);
        return build_declined(n, s, in, out, nthr, m.neg_pad);
    }
    if (dn_is_ref_impl(pd))
        acl_log(1, "node '%s' (%s): oneDNN uses its reference implementation", n->name, n->op_type);
    dnnl_memory_desc_t dwbmd;
    if ((r = take_formats(n, s, pd, &dwbmd))) {
        dnnl_primitive_desc_destroy(pd);
        return r;
    }
    sub_build(n, s, &m, &pd);
    /* the primitive (and its JIT code) is made at the first run, with the
     * run's thread count: planning may happen under another one */
    s->pd = pd;
    if ((r = build_mems(n, s, pd, &m, &dwbmd))) { dconv_release(s); return r; }
    if (band_suits(s, pd, nthr)) band_build(n, s, &m, nthr);
    s->built = 1;
    return 0;
}

static int dconv_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                      size_t *packed_bytes, size_t *scratch_bytes)
{
    dconv *s = state;
    int r = dconv_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = packed_total(s);
    *scratch_bytes = s->scratch;
    return 0;
}

static int dconv_pack_into(const g_node *n, dconv *s, const k_tensor *in, void *packed)
{
    int r;
    if (!in[1].data)
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): weights not "
                        "available for packing", n->name, n->op_type);
    if (s->fallback) {
        memcpy(packed, in[1].data, s->wbytes);
    } else {
        dnnl_memory_desc_t w_user;
        if (user_wmd(s, s->xs.d[1], s->ys.d[1], &w_user))
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): weight descriptor",
                            n->name, n->op_type);
        if ((r = dn_reorder_once(n, &w_user, in[1].data, &s->wmd, packed))) return r;
    }
    if (s->has_bias) {
        if (!in[2].data)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): bias not "
                            "available for packing", n->name, n->op_type);
        memcpy((char *)packed + off_b(s), in[2].data, s->bbytes);
    }
    if (s->dw.on) {
        if (!in[NN_DW_W].data || (s->dw.has_bias && !in[NN_DW_B].data))
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): depthwise "
                            "weights not available for packing", n->name, n->op_type);
        if (s->fallback) {
            memcpy((char *)packed + off_dww(s), in[NN_DW_W].data, s->dwwbytes);
        } else {
            /* ONNX [M,1,3,3] is oneDNN's grouped [M,1,1,3,3] */
            dnnl_memory_desc_t u;
            dnnl_dims_t d = { s->ys.d[1], 1, 1, 3, 3 };
            dnnl_memory_desc_init_by_tag(&u, 5, d, dnnl_f32, dnnl_goihw);
            if ((r = dn_reorder_once(n, &u, in[NN_DW_W].data, &s->dwwmd, (char *)packed + off_dww(s))))
                return r;
        }
        if (s->dw.has_bias) memcpy((char *)packed + off_dwb(s), in[NN_DW_B].data, s->dwbbytes);
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dconv_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                      void *packed)
{
    dconv *s = state;
    int r;
    if (!s->built && (r = dconv_build(n, s, in, out, dn_threads(NULL)))) return r;
    return dconv_pack_into(n, s, in, packed);
}

/* A compiled model's packed weights (kernel.h adopt): the area holds what
 * dconv_pack_into wrote with this build on this CPU; it is only read. */
static int dconv_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                       void *packed)
{
    dconv *s = state;
    int r;
    if (!s->built && (r = dconv_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dconv_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                     const k_ctx *ctx)
{
    dconv *s = state;
    int r, nthr = dn_threads(ctx);
    if (!same_cfg(s, in, out, nthr) && (r = dconv_build(n, s, in, out, nthr))) return r;
    if (!s->pk.packed_ok) {
        /* never planned/packed by the engine (dynamic shapes): own memory */
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, packed_total(s), &own)) || (r = dconv_pack_into(n, s, in, own)))
            return r;
    }
    if (g_shape_numel(&s->ys) == 0) return 0;   /* an empty batch or plane: nothing to write */
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    const float *bias = s->has_bias ? (const float *)((char *)s->pk.packed + off_b(s)) : NULL;
    if (s->fallback && s->dw.on)
        return nn_conv_dw_f32(n, &s->w, &s->po, &s->dw, &in[0].shape, in[0].layout, in[0].data,
                              s->pk.packed, bias, (const float *)((char *)s->pk.packed + off_dww(s)),
                              s->dw.has_bias ? (const float *)((char *)s->pk.packed + off_dwb(s)) : NULL,
                              &s->ys, out[0].layout, out[0].data);
    if (s->fallback) {
        nn_conv_f32(&s->w, &s->po, s->transposed, &in[0].shape, in[0].layout, in[0].data,
                    s->pk.packed, bias, &s->ys, out[0].layout, out[0].data,
                    s->po.has_add ? in[NN_ADD_INPUT].data : NULL, s->al, (float *)scr);
        return 0;
    }
    if (s->band.n)
        return dn_band_run(n, &s->band, in[0].data, s->pk.packed, bias, s->po.has_add ? in[NN_ADD_INPUT].data : NULL,
                           out[0].data, scr, nthr, s->silu_tail ? s->silu_div : -1);
    if (!s->conv && (r = dn_check(dnnl_primitive_create(&s->conv, s->pd), n,
                                  "convolution primitive creation")))
        return r;
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    if (s->phase) {
        dn_phase_gather(in[0].data, s->xl == G_LAYOUT_NHWC, (float *)(scr + s->off_x), s->xs.d[0], s->xs.d[1],
                        s->xs.d[2], s->xs.d[3], s->phase, nthr);
        if ((r = dn_set_handle(n, s->m_x, scr + s->off_x))) return r;
    } else if (s->sub) {
        dn_qconv_s2_gather(in[0].data, (uint8_t *)(scr + s->off_x), s->xs.d[0], s->xs.d[1] * (int64_t)sizeof(float),
                           s->xs.d[2], s->xs.d[3], s->ys.d[2], s->ys.d[3], nthr);
        if ((r = dn_set_handle(n, s->m_x, scr + s->off_x))) return r;
    } else if (s->re_x) {
        if ((r = dn_set_handle(n, s->m_xu, in[0].data)) || (r = dn_set_handle(n, s->m_x, scr + s->off_x)) ||
            (r = dn_reorder_exec(n, s->re_x, strm, s->m_xu, s->m_x)))
            return r;
    } else if ((r = dn_set_handle(n, s->m_x, in[0].data))) return r;
    char *ydst = s->re_y || s->phase ? scr + s->off_y : (char *)out[0].data;
    if ((r = dn_set_handle(n, s->m_y, ydst))) return r;
    if (s->po.has_add && s->add_sum) {
        /* the sum post-op adds what the destination holds */
        if (s->re_a) {
            if ((r = dn_set_handle(n, s->m_au, in[NN_ADD_INPUT].data)) || (r = dn_reorder_exec(n, s->re_a, strm, s->m_au, s->m_y)))
                return r;
        } else if (in[NN_ADD_INPUT].data != ydst) {
            memcpy(ydst, in[NN_ADD_INPUT].data, (size_t)g_shape_numel(&s->ys) * s->a_es);
        }
    } else if (s->po.has_add) {
        if (s->re_a) {
            if ((r = dn_set_handle(n, s->m_au, in[NN_ADD_INPUT].data)) || (r = dn_set_handle(n, s->m_a, scr + s->off_a)) ||
                (r = dn_reorder_exec(n, s->re_a, strm, s->m_au, s->m_a)))
                return r;
        } else if ((r = dn_set_handle(n, s->m_a, in[NN_ADD_INPUT].data))) return r;
    }
    if ((r = dn_set_handle(n, s->m_w, s->pk.packed))) return r;
    if (s->has_bias && (r = dn_set_handle(n, s->m_b, (void *)bias))) return r;
    if (s->m_sp && (r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
    dnnl_exec_arg_t a[8];
    int na = 0;
    if (s->dw.on) {
        if ((r = dn_set_handle(n, s->m_dww, (char *)s->pk.packed + off_dww(s)))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, s->m_dww };
        if (s->m_dwb) {
            if ((r = dn_set_handle(n, s->m_dwb, (char *)s->pk.packed + off_dwb(s)))) return r;
            a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, s->m_dwb };
        }
    }
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, s->m_x };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_w };
    if (s->has_bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_b };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, s->m_y };
    if (s->m_sp) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    if (s->po.has_add && !s->add_sum)
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_MULTIPLE_POST_OP(s->add_idx) | DNNL_ARG_SRC_1, s->m_a };
    if ((r = dn_check(dnnl_primitive_execute(s->conv, strm, na, a), n, "convolution"))) return r;
    if (s->re_y) {
        if ((r = dn_set_handle(n, s->m_yu, out[0].data)) || (r = dn_reorder_exec(n, s->re_y, strm, s->m_y, s->m_yu)))
            return r;
    }
    if ((r = dn_check(dnnl_stream_wait(strm), n, "stream wait"))) return r;
    if (s->phase)
        dn_phase_scatter((const float *)ydst, out[0].data, s->yl == G_LAYOUT_NHWC, s->ys.d[0], s->ys.d[1], s->ys.d[2],
                         s->ys.d[3], s->phase, nthr);
    size_t ny = (size_t)g_shape_numel(&s->ys);
    if (s->silu_tail && out[0].dtype == G_BF16) dn_silu_bf16(out[0].data, ny, nthr, s->silu_div_fast);
    else if (s->silu_tail && s->bf16) dn_silu_f32_fast(out[0].data, ny, nthr, s->silu_div_fast);
    else if (s->silu_tail) dn_silu_f32(out[0].data, ny, nthr, s->silu_div);
    return 0;
}

/* The output may take over the residual addend's storage when the add is a
 * sum post-op reading the destination where the addend already lies: same
 * layout, float32 both, no reorder of either. From then on every rebuild
 * keeps the sum post-op (a binary post-op would read the addend after
 * partial results overwrote it). */
static int dconv_inplace(const g_node *n, void *state)
{
    (void)n;
    dconv *s = state;
    /* (no reorder of the addend or the output: the three share one dtype
     * and layout, bf16 for a bf16 residual stream) */
    if (!s || !s->built || !s->po.has_add || !s->add_sum || s->fallback || s->re_a || s->re_y || s->dw.on ||
        s->transposed || s->al != s->yl)
        return -1;
    s->sum_kept = 1;
    return NN_ADD_INPUT;
}

static int dconv_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == 0 || idx == NN_ADD_INPUT));
}

/* For the precision pass (k_op.bf16_io): whether bound node n computes
 * in bf16 through oneDNN and may read (as_producer 0) or write (1) its data
 * activation as bf16. */
static int dconv_bf16_io(const g_node *n, void *state, int as_producer)
{
    (void)n;
    const dconv *s = state;
    if (!s->bf16 || s->dw.on || s->transposed) return 0;
    return as_producer ? !s->po.has_add || dn_bf16_residual() : 1;
}

/* Whether bf16 residual streams are allowed (OPENACL_BF16_RESIDUAL, read
 * when the precision pass runs at load; default on). */
int dn_bf16_residual(void)
{
    const char *e = getenv("OPENACL_BF16_RESIDUAL");
    return !(e && !strcmp(e, "0"));
}

/* For the precision pass (k_op.bf16_addend): whether bound node n may read its input j as a
 * bf16 residual addend (the sum post-op converts while it adds). */
static int dconv_bf16_addend(const g_node *n, void *state, int j)
{
    (void)n;
    if (j != NN_ADD_INPUT) return 0;
    const dconv *s = state;
    return s->bf16 && s->po.has_add && !s->dw.on && !s->transposed && dn_bf16_residual();
}

static const k_op k_conv_dnnl = {
    .op_type = "Conv", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dconv_init, .infer = dconv_infer, .plan = dconv_plan, .pack = dconv_pack,
    .run = dconv_run, .fini = dconv_fini, .accepts_layout = dconv_accepts,
    .packed_inputs = (1u << 1) | (1u << 2) | (1u << NN_DW_W) | (1u << NN_DW_B),
    .adopt = dconv_adopt, .inplace = dconv_inplace, .bf16_io = dconv_bf16_io,
    .bf16_addend = dconv_bf16_addend, .fuse_dw = dn_conv_fuse_dw, .flops = k_flops_conv,
};
K_REGISTER(k_conv_dnnl);

/* Between the direct loop for few channels (dn_conv_stem.c, 20) and the
 * oneDNN Conv (10); the two take disjoint configurations. */
static const k_op k_conv_wino = {
    .op_type = "Conv", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = 15,
    .init = dwino_init, .infer = dconv_infer, .plan = dconv_plan, .pack = dconv_pack,
    .run = dconv_run, .fini = dconv_fini, .accepts_layout = dconv_accepts,
    .packed_inputs = (1u << 1) | (1u << 2) | (1u << NN_DW_W) | (1u << NN_DW_B),
    .adopt = dconv_adopt, .inplace = dconv_inplace, .bf16_io = dconv_bf16_io,
    .bf16_addend = dconv_bf16_addend, .flops = k_flops_conv,
};
K_REGISTER(k_conv_wino);

static const k_op k_convt_dnnl = {
    .op_type = "ConvTranspose", .domain = "", .since = 1, .until = 0, .impl = "dnnl",
    .priority = 10, .init = dconvt_init, .infer = dconv_infer, .plan = dconv_plan,
    .pack = dconv_pack, .run = dconv_run, .fini = dconv_fini, .accepts_layout = dconv_accepts,
    .packed_inputs = (1u << 1) | (1u << 2), .adopt = dconv_adopt, .flops = k_flops_convt,
};
K_REGISTER(k_convt_dnnl);

