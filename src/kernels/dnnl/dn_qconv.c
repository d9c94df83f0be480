/* oneDNN QLinearConv (int8, VNNI where the CPU has it): uint8 or int8
 * activations with a per-tensor zero point (oneDNN runtime zero points),
 * int8 weights symmetric per output channel or per tensor, int32 bias, and
 * the requantisation folded at load into oneDNN output scales
 * (x_scale * w_scale[c] / y_scale) with the output zero point added by the
 * primitive. A float activation chain the QDQ folding pass carried over
 * (graph/qdq_conv.c, kernels/post.h) runs as eltwise post-ops: on the real
 * values (scales x_scale * w_scale[c], then a linear 1/y_scale post-op), or
 * for Relu/Clip chains on the requantised ones with the bounds scaled. A
 * residual QLinearAdd the pass folded in (inputs 9-11: the other addend,
 * its scale and zero point) is a sum post-op over the destination, which
 * holds the residual (copied in, or in place: dq_inplace).
 * Activations are computed channels-last; weights are reordered once into
 * the primitive's format (with oneDNN's zero-point compensation) in the
 * packed area, so a compiled model stores them packed. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_qconv_band.h"
#include "kernels/dnnl/dn_qconv_dir.h"
#include "kernels/dnnl/dn_qconv_s2.h"
#include "kernels/dnnl/dn_qconv_zp.h"
#include "kernels/dnnl/dn_qdw.h"
#include "kernels/dnnl/dn_qpw.h"
#include "kernels/dnnl/dn_qse.h"
#include "kernels/dnnl/dn_qstem.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DQ_SILU_AVX512 1
#endif

enum { QX = 0, QXS, QXZ, QW, QWS, QWZ, QYS, QYZ, QB, QR, QRS, QRZ };

/* One band shape of a SiLU convolution run in bands of output rows (see
 * dq_bands): its output rows, the input rows it reads and the padding rows
 * above and below them, with its primitive and memories. */
#define DQ_BANDS 6
#define DQ_TB 4   /* most threads that run bands each (dq_tband); memories [0] otherwise */
typedef struct dq_band {
    int64_t orows, irows, pt, pb;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t conv;
    dnnl_memory_t m_x[DQ_TB], m_y[DQ_TB], m_sp[DQ_TB];
} dq_band;

typedef struct dqconv {
    nn_win w0, w;
    nn_post po;        /* the chain oneDNN applies (scaled or with the final linear step) */
    int has_bias;      /* oneDNN gets an int32 bias: the input's, or zfold's */
    int bias_in;       /* the node has a bias input */
    int zfold;         /* the source zero point folded into that bias (dq_zfold) */
    int zpad_ok;       /* padded 2-D layer whose bias can take it (dq_zfold with pads) */
    int zpad;          /* ... and this kernel pads the channels-last input with zp itself (2: the team does) */
    int64_t pt, pb, pl, pr;   /* zpad: the pads */
    size_t off_pad;    /* zpad: the padded input in scratch */
    int has_add;       /* fused residual (inputs QR, QRS, QRZ) as a sum post-op */
    float sum_scale;
    int32_t rzp;
    int silu;          /* chain SiLU alone: float32 out of oneDNN, then dq_silu_q */
    int silu_div, silu_fold;   /* silu_fold: the SiLU step's form (dn_silu_form; oscale then as it left them) */
    int silu_pack;     /* 64 values a step, saturated by packs (OPENACL_SILU_PACK=0: 16 by conversions) */
    dn_qse *se;        /* a one-pixel SiLU or Sigmoid layer run by dn_qse.c (OPENACL_QSE_DIRECT=0: oneDNN) */
    float inv_ys;
    int xdt, ydt;      /* G_U8 / G_I8 */
    int32_t xzp, yzp;
    float *oscale;     /* per output channel (count nsc) */
    int64_t M, nsc;
    int built, nthr, sub;   /* sub: a stride-2 1x1 layer run at stride 1 on every second pixel (dn_qconv_s2.c) */
    g_shape xs, ys;
    int xl, yl, al;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t conv, re_x, re_y, re_a;
    dnnl_memory_t m_x, m_w, m_b, m_y, m_sp, m_xu, m_yu, m_xz, m_yz, m_au, m_yq;
    dnnl_memory_desc_t wmd;
    int have_wmd;
    size_t wbytes, bbytes, off_x, off_y, off_f, off_sp, scratch;
    int dw_ok;         /* a layer dn_qdw.c / dn_qpw.c takes (dn_qconv_dir_ok): its packing follows oneDNN's */
    int direct;        /* this build runs it (channels-last in and out, OPENACL_NO_QDW / _QPW unset) */
    int dw_k;          /* its kernel size, 3 or 5; DN_QDIR_PW: dn_qpw.c's 1x1 loop */
    int stem;          /* dw_ok for a 3-channel stem: dn_qstem.c's loop, channels-first in */
    float dw_lo, dw_hi;
    dn_qdw_geo dg;
    dn_qpw_geo pg;
    dq_band band[DQ_BANDS];
    int nband;
    int64_t brows;     /* output rows per band; 0: the whole image at once */
    int tband;         /* each thread runs whole bands (dq_tband), with the strides below */
    size_t bf_step, bsp_step;
    dq_rband rb;       /* row bands at 2 threads or more (dn_qconv_band.h) */
    dn_pk pk;
} dqconv;

static void dq_bands_free(dqconv *s)
{
    for (int i = 0; i < s->nband; i++) {
        dq_band *b = &s->band[i];
        if (b->pd) dnnl_primitive_desc_destroy(b->pd);
        dn_prim_free(&b->conv);
        for (int k = 0; k < DQ_TB; k++) { dn_mem_free(&b->m_x[k]); dn_mem_free(&b->m_y[k]); dn_mem_free(&b->m_sp[k]); }
        memset(b, 0, sizeof *b);
    }
    s->nband = 0;
    s->brows = 0;
    s->tband = 0;
}

static void dq_release(dqconv *s)
{
    if (s->pd) dnnl_primitive_desc_destroy(s->pd);
    dnnl_primitive_t *p[] = { &s->conv, &s->re_x, &s->re_y, &s->re_a };
    dnnl_memory_t *m[] = { &s->m_au, &s->m_x, &s->m_w, &s->m_b, &s->m_y, &s->m_sp, &s->m_xu, &s->m_yu, &s->m_xz,
                           &s->m_yz, &s->m_yq };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dn_prim_free(p[i]);
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) dn_mem_free(m[i]);
    dq_bands_free(s); dn_band_free(&s->rb);
    free(s->dg.wscr);
    s->dg.wscr = NULL;
    s->pd = NULL; s->built = 0;
}

static void dq_fini(void *state)
{
    dqconv *s = state;
    if (!s) return;
    dq_release(s);
    dn_pk_free(&s->pk);
    dn_qse_free(s->se);
    free(s->oscale);
    free(s);
}

static const g_tensor *cst(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    const g_tensor *t = &g->t[n->in[i]];
    return t->kind == G_TK_CONST && t->data ? t : NULL;
}

static int scalar_f32(const g_tensor *t, float *v)
{
    if (!t || t->dtype != G_F32 || g_shape_numel(&t->shape) != 1) return 0;
    *v = *(const float *)t->data;
    return *v > 0.f;
}

static int scalar_zp(const g_tensor *t, int dt, int32_t *v)
{
    if (!t) { *v = 0; return 1; }
    if (t->dtype != dt || g_shape_numel(&t->shape) != 1) return 0;
    *v = dt == G_I8 ? *(const int8_t *)t->data : *(const uint8_t *)t->data;
    return 1;
}

/* Output scales and the post-op chain oneDNN runs; 0 when not expressible.
 * A subnormal output scale (a calibrator gives a dead channel, all-zero
 * weights, a w_scale near 1e-42) is set to 0: every multiply by a subnormal
 * operand takes a microcode assist, which made PP-OCRv4 rec's 480x480 1x1
 * layer with 14 such channels 2.7x slower (0.83 -> 0.31 ms). The product it
 * drops is below 2^31 * FLT_MIN, 1e-29 of an output step, so the integers
 * written are the same. OPENACL_QCONV_SUBNORMAL=1 keeps the scale. */
static int dq_scales(dqconv *s, const nn_post *chain, float xsc, const g_tensor *ws, float ysc, float rsc)
{
    const char *e = getenv("OPENACL_QCONV_SUBNORMAL");   /* read per load: mdl_bench --ab */
    int flush = !(e && !strcmp(e, "1"));
    int homog = 1;
    float unit = 0.f;
    for (int i = 0; i < chain->n; i++)
        if (chain->kind[i] != NN_PO_RELU && chain->kind[i] != NN_PO_CLIP) homog = 0;
    if (chain->has_add && !dn_qsum_chain(chain, ysc, rsc, s->yzp, s->ydt == G_I8, &s->po, &s->sum_scale, &unit))
        return 0;
    s->nsc = g_shape_numel(&ws->shape);
    if (!(s->oscale = malloc((size_t)s->nsc * sizeof(float)))) return -1;
    for (int64_t c = 0; c < s->nsc; c++) {
        float w = ((const float *)ws->data)[c];
        if (!(w > 0.f)) return 0;
        s->oscale[c] = unit > 0.f ? xsc * w / unit : homog ? xsc * w / ysc : xsc * w;
        if (flush && s->oscale[c] < FLT_MIN) s->oscale[c] = 0.f;
    }
    if (chain->has_add) return 1;
    s->po = *chain;
    if (homog) {
        /* Relu (leaky too) and Clip commute with the positive 1/y_scale */
        for (int i = 0; i < s->po.n; i++)
            if (s->po.kind[i] == NN_PO_CLIP) { s->po.a[i] /= ysc; s->po.b[i] /= ysc; }
        dn_qpost_drop_saturated(&s->po, s->yzp, s->ydt == G_I8);
        return 1;
    }
    /* a final HardSigmoid or linear step takes the 1/y_scale itself (oneDNN
     * would apply one set of linear parameters to two linear steps) */
    int last = s->po.kind[s->po.n - 1];
    if (last == NN_PO_LINEAR) {
        s->po.a[s->po.n - 1] /= ysc;
        s->po.b[s->po.n - 1] /= ysc;
        return !nn_post_conflict(&s->po);
    }
    if (last == NN_PO_HSIGMOID && s->po.n < NN_MAX_PO) {
        int i = s->po.n - 1;
        s->po.kind[i] = NN_PO_LINEAR; s->po.a[i] /= ysc; s->po.b[i] /= ysc;
        s->po.kind[i + 1] = NN_PO_CLIP;
        s->po.a[i + 1] = 0.f;
        s->po.b[i + 1] = 1.f / ysc;
        s->po.n++;
        return !nn_post_conflict(&s->po);
    }
    if (s->po.n >= NN_MAX_PO) return 0;
    int j = s->po.n++;
    s->po.kind[j] = NN_PO_LINEAR; s->po.a[j] = 1.f / ysc; s->po.b[j] = 0.f;
    return !nn_post_conflict(&s->po);
}

/* SiLU chains: dn_silu_q (dn_silu.c) applies x * sigmoid(x) to the float32
 * output and quantises it. */
static void dq_silu_q(const dqconv *s, const float *f, void *dst, size_t n, int threads)
{ dn_silu_q(f, dst, n, s->inv_ys, s->yzp, s->ydt == G_I8, s->silu_div, s->silu_pack, s->silu_fold, threads); }

/* padded: whether the fold is asked for a layer with explicit pads (2-D),
 * whose input dn_qzp_pad_nhwc pads with zp itself (dq_build: channels-last) */
static int dq_zfold(const dqconv *s, const g_tensor *w, const g_tensor *b, int padded)
{
    return s->xzp && dn_qzp_foldable(&s->w0, s->M, s->xzp, w, b, padded);
}

/* Constant int8 weights with zero points 0, constant per-tensor scales and
 * zero points, 8-bit activations; anything else is the reference kernel's. */
static int dq_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || n->n_in < 8 || n->n_out != 1 || n->in[QX] < 0) return K_DECLINE;
    int xdt = g->t[n->in[QX]].dtype;
    const g_tensor *w = cst(g, n, QW), *ws = cst(g, n, QWS), *wz = cst(g, n, QWZ), *b = cst(g, n, QB);
    const g_tensor *xz = cst(g, n, QXZ), *yz = cst(g, n, QYZ);
    float xsc, ysc;
    if ((xdt != G_U8 && xdt != G_I8) || !w || w->dtype != G_I8 || w->shape.rank < 3 ||
        w->shape.rank > 5 || !ws || ws->dtype != G_F32 || !scalar_f32(cst(g, n, QXS), &xsc) ||
        !scalar_f32(cst(g, n, QYS), &ysc))
        return K_DECLINE;
    int ydt = yz ? yz->dtype : G_U8;
    int64_t M = w->shape.d[0], nws = g_shape_numel(&ws->shape);
    if ((ydt != G_U8 && ydt != G_I8) || (nws != 1 && nws != M)) return K_DECLINE;
    if (n->n_in > QB && n->in[QB] >= 0 && (!b || b->dtype != G_I32 || g_shape_numel(&b->shape) != M))
        return K_DECLINE;
    if (n->n_in > QWZ && n->in[QWZ] >= 0) {
        if (!wz || wz->dtype != G_I8) return K_DECLINE;
        for (int64_t i = 0; i < g_shape_numel(&wz->shape); i++)
            if (((const int8_t *)wz->data)[i]) return K_DECLINE;
    }
    int xr = g->t[n->in[QX]].shape.rank;
    if (xr >= 0 && xr != w->shape.rank) return K_DECLINE;
    dqconv *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    nn_post chain;
    int r = nn_win_parse(n, NN_CONV, &s->w0);
    if (!r) r = nn_post_parse(n, &chain);
    if (r) { free(s); return r; }
    s->xdt = xdt; s->ydt = ydt;
    s->M = M;
    s->bias_in = b != NULL;
    float rsc = 1.f;
    s->has_add = chain.has_add;
    s->silu = !chain.has_add && chain.n == 1 && chain.kind[0] == NN_PO_SILU && chain.a[0] == 1.0f &&
              !getenv("OPENACL_DNNL_SWISH");
    s->inv_ys = 1.0f / ysc;
    int ok = scalar_zp(xz, xdt, &s->xzp) && scalar_zp(yz, ydt, &s->yzp);
    s->zfold = ok && dq_zfold(s, w, b, 0);
    s->zpad_ok = ok && !s->zfold && dq_zfold(s, w, b, 1);
    if (ok && s->has_add)
        ok = n->n_in > QRZ && n->in[QR] >= 0 && g->t[n->in[QR]].dtype == ydt &&
             scalar_f32(cst(g, n, QRS), &rsc) && scalar_zp(cst(g, n, QRZ), ydt, &s->rzp);
    if (ok && (ok = dq_scales(s, &chain, xsc, ws, ysc, rsc)) < 0) {
        dq_fini(s);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    }
    if (ok && s->silu) {
        s->po.n = 0;   /* output scales x_scale * w_scale[c]: real values */
        s->silu_div = dn_silu_div(1);
        const char *e = getenv("OPENACL_SILU_PACK");   /* read per load: mdl_bench --ab */
        s->silu_pack = !(e && !strcmp(e, "0"));
        s->silu_fold = dn_silu_form(s->oscale, s->nsc);
    }
    int se = s->silu ? NN_PO_SILU : !s->has_add && chain.n == 1 && chain.kind[0] == NN_PO_SIGMOID ? NN_PO_SIGMOID : 0;
    dn_qse_out so = { se, s->inv_ys, s->yzp, ydt == G_I8, s->silu_div, s->silu_pack, s->silu_fold };   /* dn_qse.c */
    if (ok && se && xdt == G_U8) s->se = dn_qse_for(g, n, &s->w0, s->xzp, s->oscale, s->nsc, &so);
    if (!ok) { dq_fini(s); return K_DECLINE; }
    s->dw_ok = dn_qconv_dir_ok(&s->w0, w, M, xdt, s->has_add, s->silu, s->has_add ? &s->po : &chain, ysc, &s->dw_k,
                               &s->stem, &s->dw_lo, &s->dw_hi);
    s->pg.C = w->shape.d[1];   /* dn_qpw.c's input channels (packed_total) */
    /* dn_qdw.c reads the zero point itself, and a banded SiLU layer reads
     * its input rows in place: neither takes a zero-padded copy */
    if ((s->dw_ok && !s->stem) || s->silu) s->zpad_ok = 0;
    s->has_bias = s->bias_in || s->zfold || s->zpad_ok;
    *state = s;
    return 0;
}

static int dq_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dqconv *s = state;
    nn_win w = s->w0;
    k_tensor t[3];
    t[0] = in[QX];
    t[1] = in[QW];
    memset(&t[2], 0, sizeof t[2]);
    t[2].shape.rank = -1;
    int r = nn_conv_infer_shape(n, &w, 0, t, &out[0].shape);
    if (r) return r;
    out[0].dtype = s->ydt;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

static dnnl_data_type_t dt_of(int g) { return g == G_I8 ? dnnl_s8 : dnnl_u8; }

/* Weights as ONNX stores them ([M, C/G, k...]) in oneDNN's dims. */
static int user_wmd(const dqconv *s, int64_t C, dnnl_memory_desc_t *md)
{
    int nsp = s->w.nsp;
    int64_t G = s->w.group, M = s->M, K = 1;
    for (int i = 0; i < nsp; i++) K *= s->w.k[i];
    dnnl_dims_t d, st;
    int gi = G > 1 ? 1 : 0, nd = 2 + nsp + gi;
    if (gi) d[0] = G;
    d[gi] = M / G;
    d[gi + 1] = C / G;
    for (int i = 0; i < nsp; i++) d[gi + 2 + i] = s->w.k[i];
    dnnl_dim_t acc = 1;
    for (int i = nsp - 1; i >= 0; i--) { st[gi + 2 + i] = acc; acc *= s->w.k[i]; }
    st[gi + 1] = K;
    st[gi] = (C / G) * K;
    if (gi) st[0] = (M / G) * (C / G) * K;
    return dnnl_memory_desc_init_by_strides(md, nd, d, dnnl_s8, st) == dnnl_success ? 0 : -1;
}

static size_t off_b(const dqconv *s) { return dn_align(s->wbytes); }
/* dn_qdw.c's packing of a depthwise 3x3 layer follows oneDNN's: both are
 * there, whichever runs */
static size_t off_dw(const dqconv *s) { return dn_align(off_b(s) + s->bbytes); }
static size_t packed_total(const dqconv *s)
{
    if (!s->dw_ok) return off_b(s) + s->bbytes;
    if (s->dw_k == DN_QDIR_PW) return off_dw(s) + dn_qpw_packed_bytes(s->pg.C, s->M);
    return off_dw(s) + (s->stem ? dn_qstem_packed_bytes(s->M, s->dw_k) : dn_qdw_packed_bytes(s->M, s->w0.s[0], s->dw_k));
}

static dnnl_status_t dq_attr(const g_node *n, const dqconv *s, dnnl_primitive_attr_t *attr)
{
    static const int32_t rt = DNNL_RUNTIME_S32_VAL;
    dnnl_status_t st = dnnl_primitive_attr_create(attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success)
        st = dnnl_primitive_attr_set_output_scales(*attr, s->nsc, s->nsc > 1 ? 1 << 1 : 0, s->oscale);
    if (st == dnnl_success && s->xzp && !s->zfold && !s->zpad)
        st = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_SRC, 1, 0, &rt);
    if (st == dnnl_success && s->yzp && !s->silu)
        st = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_DST, 1, 0, &rt);
    int add_idx;
    if (st == dnnl_success && s->has_add && dn_post_ops_qsum(n, &s->po, s->sum_scale, s->rzp, *attr))
        st = dnnl_unimplemented;
    else if (st == dnnl_success && !s->has_add && dn_post_ops(n, &s->po, NULL, NULL, *attr, &add_idx))
        st = dnnl_unimplemented;
    return st;
}

/* The primitive descriptor for channels-last source xs and destination ys
 * with pt / pb rows of padding above and below (the rest of the window is
 * s->w's): the whole image, or one band of its output rows (dq_bands). */
static dnnl_status_t dq_pd(const g_node *n, dqconv *s, const g_shape *xs, const g_shape *ys, int64_t pt,
                           int64_t pb, dnnl_primitive_desc_t *pd)
{
    dnnl_memory_desc_t x_c, y_c, w_user, w_any, b_md;
    dnnl_dims_t strides, dil, pl, pr;
    if (dn_md_act(&x_c, xs, 1, dt_of(s->xdt)) || dn_md_act(&y_c, ys, 1, s->silu ? dnnl_f32 : dt_of(s->ydt)) ||
        user_wmd(s, xs->d[1], &w_user))
        return dnnl_invalid_arguments;
    for (int i = 0; i < s->w.nsp; i++) {
        strides[i] = s->w.s[i];
        dil[i] = s->w.d[i] - 1;
        pl[i] = i ? (s->zpad ? 0 : s->w.pb[i]) : pt;   /* zpad: the input carries its pads */
        pr[i] = i ? (s->zpad ? 0 : s->w.pe[i]) : pb;
    }
    if (s->have_wmd) w_any = s->wmd;
    else dnnl_memory_desc_init_by_tag(&w_any, w_user.ndims, w_user.dims, dnnl_s8, dnnl_format_tag_any);
    dnnl_dims_t bd = { s->M };
    dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_s32, dnnl_x);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_status_t st = dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
        dnnl_convolution_direct, &x_c, &w_any, s->has_bias ? &b_md : NULL, &y_c, strides, dil, pl, pr);
    if (st == dnnl_success) st = dq_attr(n, s, &attr);
    if (st == dnnl_success) st = dn_pd_create(pd, &cd, attr, NULL);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return st;
}

/* A stride-2 1x1 layer (dn_qconv_s2_applies) at stride 1 on its input's
 * even rows and columns, with *pd's packed weight format: *pd and the
 * source descriptor *x_c replaced, 1; 0 (the stride-2 primitive stays) when
 * oneDNN has only its reference implementation for that form. */
static int dq_s2(const g_node *n, dqconv *s, dnnl_primitive_desc_t *pd, dnnl_memory_desc_t *x_c)
{
    g_shape xh = s->xs;
    xh.d[2] = s->ys.d[2];
    xh.d[3] = s->ys.d[3];
    dnnl_primitive_desc_t p1 = NULL;
    s->w.s[0] = s->w.s[1] = 1;
    dnnl_memory_desc_t x1;
    if (dn_md_act(&x1, &xh, 1, dt_of(s->xdt)) || dq_pd(n, s, &xh, &s->ys, 0, 0, &p1) != dnnl_success ||
        dn_is_ref_impl(p1)) {
        if (p1) dnnl_primitive_desc_destroy(p1);
        s->w.s[0] = s->w.s[1] = 2;
        return 0;
    }
    dnnl_primitive_desc_destroy(*pd);
    *pd = p1;
    *x_c = x1;
    return 1;
}

static void band_geom(const dqconv *s, int64_t o0, int64_t r, int64_t *i0, int64_t *ih, int64_t *pt, int64_t *pb)
{
    dq_band_rows(s->xs.d[2], s->w.s[0], s->w.pb[0], s->w.k[0], s->w.d[0], o0, r, i0, ih, pt, pb);
}

static dq_band *band_find(dqconv *s, int64_t r, int64_t ih, int64_t pt, int64_t pb)
{
    for (int i = 0; i < s->nband; i++)
        if (s->band[i].orows == r && s->band[i].irows == ih && s->band[i].pt == pt && s->band[i].pb == pb)
            return &s->band[i];
    return NULL;
}

/* One more band shape: its descriptor (the whole image's weight layout, an
 * implementation other than oneDNN's reference) and memories: 1; 0 when
 * oneDNN has none such, and the node runs on whole images; 0 with *err set
 * when a memory could not be made. */
static int band_add(const g_node *n, dqconv *s, int64_t r, int64_t ih, int64_t pt, int64_t pb, int *err)
{
    if (s->nband == DQ_BANDS || ih <= 0) return 0;
    dq_band *b = &s->band[s->nband];
    g_shape xs = s->xs, ys = s->ys;
    xs.d[2] = ih;
    ys.d[2] = r;
    dnnl_memory_desc_t x_c, y_c;
    if (dn_md_act(&x_c, &xs, 1, dt_of(s->xdt)) || dn_md_act(&y_c, &ys, 1, dnnl_f32) ||
        dq_pd(n, s, &xs, &ys, pt, pb, &b->pd) != dnnl_success)
        return 0;
    s->nband++;
    *b = (dq_band){ .orows = r, .irows = ih, .pt = pt, .pb = pb, .pd = b->pd };
    const dnnl_memory_desc_t *wmd = dnnl_primitive_desc_query_md(b->pd, dnnl_query_weights_md, 0);
    if (dn_is_ref_impl(b->pd) || !wmd || !dnnl_memory_desc_equal(wmd, &s->wmd)) return 0;
    dnnl_memory_desc_t spmd = *dnnl_primitive_desc_query_md(b->pd, dnnl_query_scratchpad_md, 0);
    for (int k = 0; k < (s->tband ? s->nthr : 1); k++)
        if ((*err = dn_mem(n, &x_c, &b->m_x[k])) || (*err = dn_mem(n, &y_c, &b->m_y[k])) ||
            (dn_scratch_size(b->pd) && (*err = dn_mem(n, &spmd, &b->m_sp[k]))))
            return 0;
    return 1;
}

/* A SiLU convolution (float32 out of oneDNN, then dq_silu_q) between
 * channels-last tensors of one image runs in bands of output rows whose
 * float32 values stay in the core's cache (dq_band_bytes) between the two
 * steps, instead of the whole image's going out to memory and back: on
 * EfficientNet-B0's large expand and depthwise layers the float32 image is
 * four times the uint8 one. Sets the bands (none where it does not apply)
 * and the largest band scratchpad; an error code when a memory could not
 * be made. */
static int dq_bands(const g_node *n, dqconv *s, size_t *f32_bytes, size_t *sp_bytes)
{
    s->tband = dq_tband(s->nthr, DQ_TB);
    int64_t budget = dq_band_bytes(s->nthr, s->tband);
    if (!s->silu || s->direct || budget <= 0 || s->w.nsp != 2 || s->xs.rank != 4 || s->xs.d[0] != 1 ||
        s->xl != G_LAYOUT_NHWC || s->yl != G_LAYOUT_NHWC)
        return 0;
    int64_t Ho = s->ys.d[2], row = s->ys.d[3] * s->M * (int64_t)sizeof(float);
    int64_t R = row > 0 ? budget / row : 0;
    if (R < 1) R = 1;
    if (R >= Ho) { s->tband = 0; return 0; }
    if (s->tband) {   /* a multiple of the thread count of bands, as even as they come */
        int64_t nb = (Ho + R - 1) / R, k = (nb + s->nthr - 1) / s->nthr * s->nthr;
        R = (Ho + k - 1) / k;
    }
    for (int64_t o0 = 0; o0 < Ho; o0 += R) {
        int64_t r = Ho - o0 < R ? Ho - o0 : R, i0, ih, pt, pb;
        band_geom(s, o0, r, &i0, &ih, &pt, &pb);
        if (band_find(s, r, ih, pt, pb)) continue;
        int err = 0;
        if (!band_add(n, s, r, ih, pt, pb, &err)) { dq_bands_free(s); return err; }
    }
    s->brows = R;
    s->bf_step = dn_align((size_t)(R * row));
    for (int i = 0; i < s->nband; i++)
        if (dn_scratch_size(s->band[i].pd) > *sp_bytes) *sp_bytes = dn_scratch_size(s->band[i].pd);
    s->bsp_step = dn_align(*sp_bytes);
    int ntb = s->tband ? s->nthr : 1;
    *f32_bytes = s->bf_step * (size_t)ntb;
    *sp_bytes = s->bsp_step * (size_t)ntb;
    return 0;
}

static dnnl_status_t dq_band_pd(const g_node *n, void *ctx, int64_t ih, int64_t r, int64_t pt, int64_t pb,
                                dnnl_primitive_desc_t *pd)
{
    dqconv *s = ctx;
    g_shape xs = s->xs, ys = s->ys;
    xs.d[2] = ih;
    ys.d[2] = r;
    return dq_pd(n, s, &xs, &ys, pt, pb, pd);
}

/* Row bands (dn_qconv_band.h) on 2 threads or more, where they apply. */
static int dq_rbuild(const g_node *n, dqconv *s)
{
    int mode = dq_rband_mode();
    if (!mode || s->nthr < 2 || s->silu || s->direct || s->zpad || s->sub || s->re_x || s->re_y || s->re_a ||
        s->w.nsp != 2 || s->xs.rank != 4 || s->xs.d[0] != 1 || (mode == 1 && s->ys.d[2] > DQ_RB_MAX_ROWS))
        return 0;
    dq_rband_geo g = { .C = s->xs.d[1], .H = s->xs.d[2], .W = s->xs.d[3], .M = s->M, .OH = s->ys.d[2],
                       .OW = s->ys.d[3], .st = s->w.s[0], .pt = s->w.pb[0], .k = s->w.k[0], .d = s->w.d[0] };
    return dq_rband_build(n, &s->rb, s->nthr, &g, &s->wmd, s->has_bias, dq_band_pd, s);
}

/* Primitive descriptor and memories for these shapes and layouts. */
static int dq_build(const g_node *n, dqconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dq_release(s);
    s->w = s->w0;
    k_tensor t[3];
    t[0] = in[QX]; t[1] = in[QW];
    memset(&t[2], 0, sizeof t[2]);
    t[2].shape.rank = -1;
    int r = nn_conv_infer_shape(n, &s->w, 0, t, &s->ys);
    if (r) return r;
    s->xs = in[QX].shape;
    s->xl = in[QX].layout;
    s->yl = out[0].layout;
    s->al = s->has_add ? in[QR].layout : 0;
    s->nthr = nthr;
    int pw = s->dw_ok && s->dw_k == DN_QDIR_PW;
    s->direct = s->dw_ok && s->xs.rank == 4 && s->yl == G_LAYOUT_NHWC && (s->stem ? !dn_qstem_disabled() &&
                s->xl == G_LAYOUT_PLAIN : s->xl == G_LAYOUT_NHWC && (pw ? dn_qconv_dir_pw(&s->xs) &&
                (!s->has_add || s->al == G_LAYOUT_NHWC) :
                !dn_qdw_off(s->M, s->w.s[0], s->dw_k)));
    if (s->direct && pw)
        s->pg = (dn_qpw_geo){ .P = g_shape_numel(&s->xs) / s->pg.C, .C = s->pg.C, .M = s->M, .xzp = s->xzp,
                              .yzp = s->yzp, .s8 = s->ydt == G_I8, .silu = s->silu, .silu_div = s->silu_div,
                              .silu_fold = s->silu_fold, .keep_clamps = dn_qdw_opts() & DN_QDW_KEEP_CLAMPS,
                              .lo = s->dw_lo, .hi = s->dw_hi, .inv_ys = s->inv_ys, .add = s->has_add, .rzp = s->rzp,
                              .clo = s->po.a[0], .chi = s->po.b[0], .ssc = s->sum_scale, .lin = s->po.a[3] };
    else if (s->direct)
        s->dg = (dn_qdw_geo){ .N = s->xs.d[0], .H = s->xs.d[2], .W = s->xs.d[3], .C = s->M, .OH = s->ys.d[2],
                              .OW = s->ys.d[3], .S = s->w.s[0], .K = s->dw_k, .xzp = s->xzp, .yzp = s->yzp,
                              .s8 = s->ydt == G_I8, .silu = s->silu, .silu_div = s->silu_div, .silu_fold = s->silu_fold,
                              .one_px = dn_qdw_one_px(), .whole_rows = dn_qdw_whole_rows(), .pairs = dn_qdw_pairs(),
                              .lo = s->dw_lo, .hi = s->dw_hi, .inv_ys = s->inv_ys, .opts = dn_qdw_opts() };
    /* dn_qdw.c's workers' own quadruple rows (dn_qdw_geo.wscr), made here at the build, not per run */
    size_t wb = s->direct && !pw && !s->stem && nthr > 1 && !(s->dg.opts & DN_QDW_PLANNED_SCRATCH)
                    ? dn_qdw_worker_bytes(&s->dg) * (size_t)(nthr - 1) : 0;
    if (wb && !(s->dg.wscr = aligned_alloc(64, wb)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory for %zu bytes of worker rows", n->name,
                        n->op_type, wb);
    /* the first build decides (W's packed form follows it) */
    if (!s->have_wmd) s->zpad = (s->zpad_ok && s->xl == G_LAYOUT_NHWC && s->w.nsp == 2 && s->xs.rank == 4) * dn_qzp_pad_mode();
    g_shape xp = s->xs;   /* zpad: the input as padded */
    if (s->zpad) {
        s->pt = s->w.pb[0]; s->pb = s->w.pe[0]; s->pl = s->w.pb[1]; s->pr = s->w.pe[1];
        xp.d[2] += s->pt + s->pb;
        xp.d[3] += s->pl + s->pr;
    }
    dnnl_memory_desc_t x_c, y_c, y_q, x_u, y_u, a_u, b_md;
    if (dn_md_act(&x_c, &xp, 1, dt_of(s->xdt)) || dn_md_act(&y_q, &s->ys, 1, dt_of(s->ydt)) ||
        dn_md_act(&y_c, &s->ys, 1, s->silu ? dnnl_f32 : dt_of(s->ydt)) ||
        dn_md_act(&x_u, &s->xs, s->xl == G_LAYOUT_NHWC, dt_of(s->xdt)) ||
        dn_md_act(&y_u, &s->ys, s->yl == G_LAYOUT_NHWC, dt_of(s->ydt)) ||
        dn_md_act(&a_u, &s->ys, s->al == G_LAYOUT_NHWC, dt_of(s->ydt)))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): memory descriptors",
                        n->name, n->op_type);
    dnnl_dims_t bd = { s->M };
    dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_s32, dnnl_x);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = s->zpad ? dq_pd(n, s, &xp, &s->ys, 0, 0, &pd)
                                : dq_pd(n, s, &s->xs, &s->ys, s->w.pb[0], s->w.pe[0], &pd);
    if (st != dnnl_success)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, impl dnnl): oneDNN has no "
                        "int8 convolution for this configuration (status %d)", n->name, n->op_type,
                        (int)st);
    if (dn_is_ref_impl(pd))
        acl_log(1, "node '%s' (%s): oneDNN uses its reference int8 implementation", n->name, n->op_type);
    if (!s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    s->sub = !s->zpad && s->xl == G_LAYOUT_NHWC && s->xs.rank == 4 && !s->direct && !s->silu &&
             dn_qconv_s2_applies(&s->w, s->w.group, s->ys.d[2] * s->ys.d[3]) && dq_s2(n, s, &pd, &x_c);
    s->bbytes = s->has_bias ? (size_t)s->M * sizeof(int32_t) : 0;
    s->pd = pd;
    size_t off = 0, f32_bytes = dnnl_memory_desc_get_size(&y_c), sp_bytes = dn_scratch_size(pd);
    dnnl_memory_desc_t spmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (s->zpad || s->sub) {   /* the padded or the subsampled input */
        s->off_pad = off; off = dn_align(off + dnnl_memory_desc_get_size(&x_c));
    } else if (!dnnl_memory_desc_equal(&x_u, &x_c)) {
        s->off_x = off; off = dn_align(off + dnnl_memory_desc_get_size(&x_c));
        if (!r) r = dn_reorder_prim(n, &x_u, &x_c, &s->re_x);
        if (!r) r = dn_mem(n, &x_u, &s->m_xu);
    }
    if (!dnnl_memory_desc_equal(&y_u, &y_q)) {
        s->off_y = off; off = dn_align(off + dnnl_memory_desc_get_size(&y_q));
        if (!r) r = dn_reorder_prim(n, &y_q, &y_u, &s->re_y);
        if (!r) r = dn_mem(n, &y_u, &s->m_yu);
        if (!r && s->silu) r = dn_mem(n, &y_q, &s->m_yq);
    }
    if (!r) r = dq_bands(n, s, &f32_bytes, &sp_bytes);
    if (s->silu) { s->off_f = off; off = dn_align(off + f32_bytes); }
    if (s->has_add && !dnnl_memory_desc_equal(&a_u, &y_c)) {
        if (!r) r = dn_reorder_prim(n, &a_u, &y_c, &s->re_a);
        if (!r) r = dn_mem(n, &a_u, &s->m_au);
    }
    if (!r) r = dq_rbuild(n, s);
    s->off_sp = off;
    s->scratch = off + (sp_bytes > s->rb.scratch ? sp_bytes : s->rb.scratch);
    size_t dsc = !s->direct || pw ? 0 : s->stem ? dn_qstem_scratch_bytes(&s->dg, nthr) : dn_qdw_scratch_bytes(&s->dg, nthr);
    if (dsc > s->scratch) s->scratch = dsc;
    dnnl_dims_t one = { 1 };
    dnnl_memory_desc_t zmd;
    dnnl_memory_desc_init_by_tag(&zmd, 1, one, dnnl_s32, dnnl_x);
    if (!r) r = dn_mem(n, &x_c, &s->m_x);
    if (!r) r = dn_mem(n, &s->wmd, &s->m_w);
    if (!r && s->has_bias) r = dn_mem(n, &b_md, &s->m_b);
    if (!r) r = dn_mem(n, &y_c, &s->m_y);
    if (!r && dn_scratch_size(pd)) r = dn_mem(n, &spmd, &s->m_sp);
    if (!r && s->xzp && !s->zfold && !s->zpad) r = dn_mem(n, &zmd, &s->m_xz);
    if (!r && s->yzp && !s->silu) r = dn_mem(n, &zmd, &s->m_yz);
    if (r) { dq_release(s); return r; }
    s->built = 1;
    return 0;
}

static int dq_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                   size_t *packed_bytes, size_t *scratch_bytes)
{
    dqconv *s = state;
    int r = dq_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = packed_total(s);
    *scratch_bytes = s->scratch;
    return 0;
}

static int dq_pack_into(const g_node *n, dqconv *s, const k_tensor *in, void *packed)
{
    if (!in[QW].data || (s->bias_in && !in[QB].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): weights not "
                        "available for packing", n->name, n->op_type);
    dnnl_memory_desc_t w_user;
    if (user_wmd(s, s->xs.d[1], &w_user))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): weight descriptor", n->name, n->op_type);
    int r = dn_reorder_once(n, &w_user, in[QW].data, &s->wmd, packed);
    if (r) return r;
    if (s->bias_in) memcpy((char *)packed + off_b(s), in[QB].data, s->bbytes);
    else if (s->has_bias) memset((char *)packed + off_b(s), 0, s->bbytes);
    if (s->zfold || s->zpad) {
        int32_t *b = (int32_t *)((char *)packed + off_b(s));
        const int8_t *w = in[QW].data;
        int64_t taps = g_shape_numel(&in[QW].shape) / s->M;
        for (int64_t m = 0; m < s->M; m++)   /* in place: b[m] is read before it is written */
            if (!dn_qzp_fold_bias(w, taps, s->bias_in ? b : NULL, s->xzp, m, &b[m]))
                return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): bias with the "
                                "zero point folded in leaves int32 (channel %lld)", n->name, n->op_type,
                                (long long)m);
    }
    if (s->dw_ok && s->stem)
        dn_qstem_pack(in[QW].data, s->bias_in ? in[QB].data : NULL, s->oscale, s->nsc, s->M, s->dw_k, s->xzp,
                      (char *)packed + off_dw(s));
    else if (s->dw_ok && s->dw_k == DN_QDIR_PW)
        dn_qpw_pack(in[QW].data, s->bias_in ? in[QB].data : NULL, s->oscale, s->nsc, s->pg.C, s->M, s->xzp,
                    (char *)packed + off_dw(s));
    else if (s->dw_ok)
        dn_qdw_pack(in[QW].data, s->bias_in ? in[QB].data : NULL, s->oscale, s->nsc, s->M, s->w0.s[0], s->dw_k,
                    s->xzp, (char *)packed + off_dw(s));
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dq_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dqconv *s = state;
    int r;
    if (!s->built && (r = dq_build(n, s, in, out, dn_threads(NULL)))) return r;
    return dq_pack_into(n, s, in, packed);
}

static int dq_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dqconv *s = state;
    int r;
    if (!s->built && (r = dq_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int same_cfg(const dqconv *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    return s->built && s->nthr == nthr && g_shape_eq(&s->xs, &in[QX].shape) &&
           s->xl == in[QX].layout && s->yl == out[0].layout && (!s->has_add || s->al == in[QR].layout);
}

/* Band o0 of dq_bands with thread k's memories and float32 band: oneDNN's
 * product, then SiLU and quantisation into the output's rows (on
 * silu_thr threads). */
static int dq_band_run(const g_node *n, dqconv *s, const void *x, char *y, char *scr, dnnl_stream_t strm,
                       int64_t o0, int k, int silu_thr)
{
    int64_t Ho = s->ys.d[2], rows = Ho - o0 < s->brows ? Ho - o0 : s->brows, i0, ih, pt, pb;
    size_t xrow = (size_t)(s->xs.d[3] * s->xs.d[1]), yrow = (size_t)(s->ys.d[3] * s->M);
    band_geom(s, o0, rows, &i0, &ih, &pt, &pb);
    dq_band *b = band_find(s, rows, ih, pt, pb);
    if (!b || !b->conv) return ACL_ERROR_INTERNAL_ERROR;
    char *f = scr + s->off_f + (size_t)k * s->bf_step;
    int r;
    if ((r = dn_set_handle(n, b->m_x[k], (const char *)x + (size_t)i0 * xrow)) || (r = dn_set_handle(n, b->m_y[k], f)) ||
        (b->m_sp[k] && (r = dn_set_handle(n, b->m_sp[k], scr + s->off_sp + (size_t)k * s->bsp_step))))
        return r;
    dnnl_exec_arg_t a[6];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, b->m_x[k] };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_w };
    if (s->has_bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_b };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, b->m_y[k] };
    if (b->m_sp[k]) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, b->m_sp[k] };
    if (s->m_xz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s->m_xz };
    if ((r = dn_check(dnnl_primitive_execute(b->conv, strm, na, a), n, "int8 convolution")) ||
        (r = dn_check(dnnl_stream_wait(strm), n, "stream wait")))
        return r;
    dq_silu_q(s, (const float *)f, y + (size_t)o0 * yrow, (size_t)rows * yrow, silu_thr);
    return 0;
}

/* The bands of dq_bands: one after the other on all threads, or (tband)
 * the threads' shares of them at once, each band on one thread (oneDNN
 * runs a primitive inside a parallel region on the calling thread; every
 * thread has its own stream, memories, float32 band and scratchpad). */
static int dq_run_bands(const g_node *n, dqconv *s, const void *x, char *y, char *scr, dnnl_stream_t strm,
                        int nthr)
{
    int64_t Ho = s->ys.d[2], nb = (Ho + s->brows - 1) / s->brows;
    for (int64_t o0 = 0; o0 < Ho; o0 += s->brows) {
        int64_t rows = Ho - o0 < s->brows ? Ho - o0 : s->brows, i0, ih, pt, pb;
        band_geom(s, o0, rows, &i0, &ih, &pt, &pb);
        dq_band *b = band_find(s, rows, ih, pt, pb);
        if (!b) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): no band of %lld rows", n->name,
                                n->op_type, (long long)rows);
        int r;
        if (!b->conv && (r = dn_check(dnnl_primitive_create(&b->conv, b->pd), n, "int8 convolution primitive")))
            return r;
    }
    if (!s->tband) {
        for (int64_t o0 = 0; o0 < Ho; o0 += s->brows) {
            int r = dq_band_run(n, s, x, y, scr, strm, o0, 0, nthr);
            if (r) return r;
        }
        return 0;
    }
    int err = 0;
#pragma omp parallel num_threads(s->nthr)
    {
        int t = omp_get_thread_num(), tn = omp_get_num_threads(), r = 0;
        dnnl_stream_t ts = dn_stream();
        for (int64_t j = nb * t / tn; j < nb * (t + 1) / tn && !r; j++)
            r = ts ? dq_band_run(n, s, x, y, scr, ts, j * s->brows, t, 1) : ACL_ERROR_INTERNAL_ERROR;
        if (r) {
#pragma omp atomic write
            err = r;
        }
    }
    if (err) return acl_fail(err, "node '%s' (%s): an int8 convolution band failed on a worker thread", n->name, n->op_type);
    return 0;
}

static int dq_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    dqconv *s = state;
    int r, nthr = dn_threads(ctx);
    if (!same_cfg(s, in, out, nthr) && (r = dq_build(n, s, in, out, nthr))) return r;
    if (!s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, packed_total(s), &own)) || (r = dq_pack_into(n, s, in, own)))
            return r;
    }
    if (g_shape_numel(&s->ys) == 0) return 0;
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
#ifdef DQ_SILU_AVX512
    if (s->se) { dn_qse_run(s->se, in[QX].data, out[0].data); return 0; }
    if (s->direct && s->dw_k == DN_QDIR_PW) {
        dn_qpw_run(&s->pg, in[QX].data, (const char *)s->pk.packed + off_dw(s), out[0].data,
                   s->has_add ? in[QR].data : NULL, nthr);
        return 0;
    }
    if (s->direct) {
        (s->stem ? dn_qstem_run : dn_qdw_run)(&s->dg, in[QX].data, (const char *)s->pk.packed + off_dw(s),
                                              out[0].data, scr, nthr);
        return 0;
    }
#endif
    if (!s->conv && (r = dn_check(dnnl_primitive_create(&s->conv, s->pd), n, "int8 convolution primitive")))
        return r;
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    if (s->zpad) {
        dn_qzp_pad_nhwc(in[QX].data, (uint8_t *)(scr + s->off_pad), s->xs.d, s->pt, s->pb, s->pl, s->pr,
                        s->xdt == G_I8 ? (int)(uint8_t)(int8_t)s->xzp : (int)s->xzp, s->zpad > 1 ? nthr : 1);
        if ((r = dn_set_handle(n, s->m_x, scr + s->off_pad))) return r;
    } else if (s->sub) {
        dn_qconv_s2_gather(in[QX].data, (uint8_t *)(scr + s->off_pad), s->xs.d[0], s->xs.d[1], s->xs.d[2], s->xs.d[3],
                           s->ys.d[2], s->ys.d[3], nthr);
        if ((r = dn_set_handle(n, s->m_x, scr + s->off_pad))) return r;
    } else if (s->re_x) {
        if ((r = dn_set_handle(n, s->m_xu, in[QX].data)) || (r = dn_set_handle(n, s->m_x, scr + s->off_x)) ||
            (r = dn_reorder_exec(n, s->re_x, strm, s->m_xu, s->m_x)))
            return r;
    } else if ((r = dn_set_handle(n, s->m_x, in[QX].data))) return r;
    char *ydst = s->re_y ? scr + s->off_y : (char *)out[0].data;
    int32_t xz = s->xzp, yz = s->yzp;
    if ((r = dn_set_handle(n, s->m_y, s->silu ? scr + s->off_f : ydst)) || (r = dn_set_handle(n, s->m_w, s->pk.packed))) return r;
    if (s->has_bias && (r = dn_set_handle(n, s->m_b, (char *)s->pk.packed + off_b(s)))) return r;
    if (s->m_sp && (r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
    if (s->m_xz && (r = dn_set_handle(n, s->m_xz, &xz))) return r;
    if (s->m_yz && (r = dn_set_handle(n, s->m_yz, &yz))) return r;
    if (s->nband) return dq_run_bands(n, s, in[QX].data, ydst, scr, strm, nthr);
    if (s->has_add) {
        /* the sum post-op adds what the destination holds: the residual */
        if (s->re_a) {
            if ((r = dn_set_handle(n, s->m_au, in[QR].data)) || (r = dn_reorder_exec(n, s->re_a, strm, s->m_au, s->m_y)))
                return r;
        } else if (in[QR].data != ydst) {
            memcpy(ydst, in[QR].data, (size_t)g_shape_numel(&s->ys));
        }
    }
    if (s->rb.n)
        return dq_rband_run(n, &s->rb, in[QX].data, s->pk.packed, s->has_bias ? (char *)s->pk.packed + off_b(s) : NULL,
                            s->m_xz, s->m_yz, ydst, scr + s->off_sp, nthr);
    dnnl_exec_arg_t a[8];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, s->m_x };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_w };
    if (s->has_bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_b };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, s->m_y };
    if (s->m_sp) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    if (s->m_xz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s->m_xz };
    if (s->m_yz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, s->m_yz };
    if ((r = dn_check(dnnl_primitive_execute(s->conv, strm, na, a), n, "int8 convolution"))) return r;
    if (s->silu) {
        if ((r = dn_check(dnnl_stream_wait(strm), n, "stream wait"))) return r;
        dq_silu_q(s, (const float *)(scr + s->off_f), ydst, (size_t)g_shape_numel(&s->ys), nthr);
    }
    if (s->re_y) {
        dnnl_memory_t ysrc = s->silu ? s->m_yq : s->m_y;
        if ((s->silu && (r = dn_set_handle(n, s->m_yq, ydst))) || (r = dn_set_handle(n, s->m_yu, out[0].data)) ||
            (r = dn_reorder_exec(n, s->re_y, strm, ysrc, s->m_yu)))
            return r;
    }
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static int dq_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == QX || idx == QR));
}

/* The output may take the residual's storage: the sum post-op reads the
 * destination, where the residual then already lies (same layout and type,
 * no reorder of either). */
static int dq_inplace(const g_node *n, void *state)
{
    (void)n;
    dqconv *s = state;
    if (!s || !s->built || !s->has_add || s->re_a || s->re_y || s->al != s->yl) return -1;
    return QR;
}

/* Multiply-adds of the integer product, counted as conv flops (weights at slot 3). */
static double dq_flops(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    (void)n;
    const g_shape *w = &in[QW].shape;
    double y = (double)g_shape_numel(&out[0].shape), k = 1;
    if (w->rank < 2 || w->d[0] <= 0 || y < 0) return 4 * (y > 0 ? y : 0);
    for (int i = 1; i < w->rank; i++) k *= (double)w->d[i];
    return 2 * y * k;
}

static const k_op k_qlconv_dnnl = {
    .op_type = "QLinearConv", .domain = "", .since = 10, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dq_init, .infer = dq_infer, .plan = dq_plan, .pack = dq_pack, .run = dq_run,
    .fini = dq_fini, .accepts_layout = dq_accepts, .packed_inputs = (1u << QW) | (1u << QB),
    .adopt = dq_adopt, .inplace = dq_inplace, .flops = dq_flops,
};
K_REGISTER(k_qlconv_dnnl);
