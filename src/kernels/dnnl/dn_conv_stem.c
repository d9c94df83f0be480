/* Conv with few input channels (an image model's first layer) by the direct
 * loop of dn_stem.c: an implementation of its own in the kernel registry,
 * tried before the oneDNN Conv (dn_conv.c), which takes every configuration
 * this one declines and all of them under OPENACL_NO_STEM. It belongs to the
 * dnnl backend (impl "dnnl": same library family, packed formats under the
 * same kernel ABI tag, dn_backend.c), so compiled models record and bind it
 * as before. It computes in float32 and may store a bf16 output for a bf16
 * convolution to read. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_stem.h"
#include <stdlib.h>
#include <string.h>

/* Above the oneDNN Conv (10). */
#define DN_STEM_PRIORITY 20

typedef struct dstem {
    nn_win w0, w;
    nn_post po;
    int has_bias;
    int out_bf16;     /* the output activation is stored as bf16 (G_ATTR_BF16_OUT) */
    dn_stem_geo sg;
    /* the configuration the geometry was built for */
    int built, nthr, xl, yl;
    g_shape xs, ys;
    size_t wbytes, bbytes, scratch;
    dn_pk pk;
} dstem;

static void dstem_fini(void *state)
{
    dstem *s = state;
    if (!s) return;
    dn_pk_free(&s->pk);
    free(s);
}

/* The configurations the direct loop takes: float32 activations, constant
 * float32 weights [M, C <= DN_STEM_MAX_C, KH, KW] (and bias), group 1, no
 * dilation, no fused depthwise step or addend, a post-op chain it has loops
 * for; declined under OPENACL_NO_STEM or without AVX-512. */
static int dstem_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || dn_stem_disabled() || !dn_stem_supported()) return K_DECLINE;
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    for (int i = 0; i < n->n_in && i < 6; i++)
        if (n->in[i] >= 0 && g->t[n->in[i]].dtype != G_F32) return K_DECLINE;
    if (!nn_is_const(g, n, 1)) return K_DECLINE;
    for (int i = NN_DW_W; i < n->n_in && i <= NN_DW_B; i++)
        if (n->in[i] >= 0 && !nn_is_const(g, n, i)) return K_DECLINE;
    if (n->n_in > 2 && n->in[2] >= 0 && !nn_is_const(g, n, 2)) return K_DECLINE;
    int xr = g->t[n->in[0]].shape.rank;
    if (xr >= 0 && (xr < 3 || xr > 5)) return K_DECLINE;
    const g_tensor *wt = &g->t[n->in[1]];
    if (wt->shape.rank != 4 || wt->shape.d[1] < 1 || wt->shape.d[1] > DN_STEM_MAX_C) return K_DECLINE;
    nn_win w;
    nn_post po;
    nn_dw dw;
    int r = nn_win_parse(n, NN_CONV, &w);
    if (!r) r = nn_post_parse(n, &po);
    if (!r) r = nn_dw_parse(n, &dw);
    if (r) return r;
    if (dw.on || w.group != 1 || w.d[0] != 1 || w.d[1] != 1 || !dn_stem_post_ok(&po)) return K_DECLINE;
    dstem *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    s->w0 = w;
    s->po = po;
    s->has_bias = n->n_in > 2 && n->in[2] >= 0;
    /* (a bf16 output only where the CPU computes bf16, else a compiled
     * model's bf16 activations are float32 again at load) */
    s->out_bf16 = dn_has_bf16() && g_attr_int(n, G_ATTR_BF16_OUT, 0);
    s->sg.silu_div = dn_silu_div(s->out_bf16);   /* post_row's grade */
    s->sg.shared_taps = dn_stem_shared_taps();
    s->sg.dyn_rows = dn_stem_dyn_rows();
    *state = s;
    return 0;
}

static int dstem_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dstem *s = state;
    nn_win w = s->w0;
    int r = nn_conv_infer_shape(n, &w, 0, in, &out[0].shape);
    if (r) return r;
    out[0].dtype = s->out_bf16 ? G_BF16 : G_F32;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

/* Packed area: the weights, then the bias padded to whole 16-channel
 * groups, at a 64-byte boundary. */
static size_t dstem_off_b(const dstem *s) { return dn_align(s->wbytes); }
static size_t dstem_packed_total(const dstem *s) { return dstem_off_b(s) + dn_align(s->bbytes); }

/* The loop's geometry for these shapes and layouts. */
static int dstem_build(const g_node *n, dstem *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    s->built = 0;
    s->w = s->w0;
    g_shape ys;
    int r = nn_conv_infer_shape(n, &s->w, 0, in, &ys);
    if (r) return r;
    const g_shape *x = &in[0].shape, *ws = &in[1].shape;
    if (x->rank != 4 || ys.rank != 4 || ws->rank != 4)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): input rank %d, weights rank %d; expected 4",
                        n->name, n->op_type, x->rank, ws->rank);
    s->xs = *x; s->ys = ys;
    dn_stem_geo *g = &s->sg;
    int silu_div = g->silu_div, shared_taps = g->shared_taps, dyn_rows = g->dyn_rows;
    memset(g, 0, sizeof *g);
    g->N = x->d[0]; g->C = x->d[1]; g->H = x->d[2]; g->W = x->d[3];
    g->xs_n = g->C * g->H * g->W;
    if (in[0].layout == G_LAYOUT_NHWC) { g->xs_c = 1; g->xs_w = g->C; g->xs_h = g->W * g->C; }
    else { g->xs_c = g->H * g->W; g->xs_h = g->W; g->xs_w = 1; }
    g->M = ys.d[1]; g->OH = ys.d[2]; g->OW = ys.d[3];
    g->KH = ws->d[2]; g->KW = ws->d[3];
    g->SH = s->w.s[0]; g->SW = s->w.s[1];
    g->PT = s->w.pb[0]; g->PL = s->w.pb[1];
    g->out_nhwc = out[0].layout == G_LAYOUT_NHWC;
    g->out_bf16 = s->out_bf16;
    g->silu_div = silu_div;
    g->shared_taps = shared_taps;
    g->dyn_rows = dyn_rows;
    s->xl = in[0].layout; s->yl = out[0].layout;
    s->nthr = nthr;
    s->wbytes = dn_stem_packed_bytes(g->C, g->M, g->KH, g->KW);
    s->bbytes = s->has_bias ? (size_t)dn_stem_mpad(g->M) * sizeof(float) : 0;
    s->scratch = dn_stem_scratch_bytes(g, nthr);
    s->built = 1;
    return 0;
}

static int dstem_same_cfg(const dstem *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    return s->built && s->nthr == nthr && g_shape_eq(&s->xs, &in[0].shape) && s->xl == in[0].layout &&
           s->yl == out[0].layout;
}

static int dstem_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                      size_t *packed_bytes, size_t *scratch_bytes)
{
    dstem *s = state;
    int r = dstem_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = dstem_packed_total(s);
    *scratch_bytes = s->scratch;
    return 0;
}

static int dstem_pack_into(const g_node *n, dstem *s, const k_tensor *in, void *packed)
{
    if (!in[1].data || (s->has_bias && !in[2].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): %s not available for packing",
                        n->name, n->op_type, in[1].data ? "bias" : "weights");
    dn_stem_pack(in[1].data, s->sg.C, s->sg.M, s->sg.KH, s->sg.KW, packed);
    if (s->has_bias) {
        memset((char *)packed + dstem_off_b(s), 0, s->bbytes);
        memcpy((char *)packed + dstem_off_b(s), in[2].data, (size_t)s->sg.M * sizeof(float));
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dstem_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dstem *s = state;
    int r;
    if (!s->built && (r = dstem_build(n, s, in, out, dn_threads(NULL)))) return r;
    return dstem_pack_into(n, s, in, packed);
}

/* A compiled model's packed weights (kernel.h adopt), only read. */
static int dstem_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dstem *s = state;
    int r;
    if (!s->built && (r = dstem_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dstem_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    dstem *s = state;
    int r, nthr = dn_threads(ctx);
    if (!dstem_same_cfg(s, in, out, nthr) && (r = dstem_build(n, s, in, out, nthr))) return r;
    if (!s->pk.packed_ok) {
        /* never planned/packed by the engine (dynamic shapes): own memory */
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, dstem_packed_total(s), &own)) ||
            (r = dstem_pack_into(n, s, in, own)))
            return r;
    }
    if (g_shape_numel(&s->ys) == 0) return 0;   /* an empty batch or plane: nothing to write */
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    const float *bias = s->has_bias ? (const float *)((char *)s->pk.packed + dstem_off_b(s)) : NULL;
    dn_stem_run(&s->sg, in[0].data, s->pk.packed, bias, &s->po, out[0].data, scr, nthr);
    return 0;
}

/* Input 0 plain or channels-last (the loop reads either where it lies). */
static int dstem_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == 0 || idx == NN_ADD_INPUT));
}

/* For the precision pass (k_op.bf16_io): the loop reads float32 and may
 * write its output as bf16 for a bf16 convolution to read. */
static int dstem_bf16_io(const g_node *n, void *state, int as_producer)
{
    (void)n; (void)state;
    return as_producer;
}

static const k_op k_conv_stem = {
    .op_type = "Conv", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = DN_STEM_PRIORITY,
    .init = dstem_init, .infer = dstem_infer, .plan = dstem_plan, .pack = dstem_pack,
    .run = dstem_run, .fini = dstem_fini, .accepts_layout = dstem_accepts,
    .packed_inputs = (1u << 1) | (1u << 2), .adopt = dstem_adopt, .bf16_io = dstem_bf16_io,
    .flops = k_flops_conv,
};
K_REGISTER(k_conv_stem);
