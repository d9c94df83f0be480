/* The choice of a hand-written VNNI loop for a QLinearConv layer
 * (dn_qconv.c's dw_ok): the layers each loop takes and the clamp a
 * Relu / Clip chain leaves, in output steps. */
#include "kernels/dnnl/dn_qconv_dir.h"
#include "kernels/dnnl/dn_qdw.h"
#include "kernels/dnnl/dn_qpw.h"
#include "kernels/dnnl/dn_qstem.h"
#include <math.h>

/* dn_qpw.c: 1x1, stride 1, no padding or dilation, one group, and channel
 * counts it is faster on (dn_qpw_takes). */
static int pw_ok(const nn_win *v, const g_tensor *w, int64_t M)
{
    if (w->shape.rank != 4 || w->shape.d[2] != 1 || w->shape.d[3] != 1 || v->group != 1 ||
        v->auto_pad != NN_PAD_NOTSET || !dn_qpw_takes(w->shape.d[1], M))
        return 0;
    for (int i = 0; i < 2; i++)
        if (v->s[i] != 1 || v->d[i] != 1 || v->pb[i] != 0 || v->pe[i] != 0) return 0;
    return 1;
}

/* dn_qdw.c: depthwise 3x3 or 5x5 ([C, 1, K, K], group C; or dn_qstem.c a
 * 3x3 / 7x7 stem, [M, 3, K, K] at stride 2), stride 1 or 2 both ways, no
 * dilation, K/2 pixels of padding on every side, and a channel count the
 * loop is faster on (dn_qdw_takes). */
static int dw_ok(const nn_win *v, const g_tensor *w, int64_t M, int *stem_out)
{
    int64_t K = w->shape.rank == 4 ? w->shape.d[2] : 0;
    int stem = w->shape.d[1] == 3 && v->group == 1 && dn_qstem_takes(M, v->s[0], K);
    if ((K != 3 && K != 5 && !stem) || w->shape.d[3] != K ||
        (!stem && (!dn_qdw_takes(M, v->s[0], (int)K) || w->shape.d[1] != 1 || v->group != M)) ||
        v->auto_pad != NN_PAD_NOTSET || !v->has_pads || v->s[0] != v->s[1] || (v->s[0] != 1 && v->s[0] != 2))
        return 0;
    for (int i = 0; i < 2; i++)
        if (v->d[i] != 1 || v->pb[i] != K / 2 || v->pe[i] != K / 2) return 0;
    *stem_out = stem;
    return (int)K;
}

/* A folded residual as dn_qsum_chain gives it, with nothing after the
 * linear step: dn_qpw.c's residual chain (dn_qpw_takes_add). */
static int add_ok(const nn_win *v, const g_tensor *w, int64_t M, const nn_post *po)
{
    return pw_ok(v, w, M) && dn_qpw_takes_add(w->shape.d[1], M) && po->n == 4 && po->kind[0] == NN_PO_CLIP &&
           po->kind[1] == NN_PO_ROUND && po->kind[2] == NN_PO_ADD && po->kind[3] == NN_PO_LINEAR && po->b[3] == 0.f;
}

/* Every loop: uint8 input, a chain of SiLU alone or of Relu / Clip; a fused
 * residual only dn_qpw.c's (chain: then the chain oneDNN runs). */
int dn_qconv_dir_ok(const nn_win *v, const g_tensor *w, int64_t M, int xdt, int has_add, int silu,
                    const nn_post *chain, float ysc, int *k, int *stem, float *lo, float *hi)
{
    if (!dn_qdw_supported() || xdt != G_U8) return 0;
    if (has_add) {
        if (!add_ok(v, w, M, chain)) return 0;
        *k = DN_QDIR_PW;
        *stem = 0;
        *lo = -INFINITY;
        *hi = INFINITY;
        return 1;
    }
    int st = 0, K = pw_ok(v, w, M) ? DN_QDIR_PW : dw_ok(v, w, M, &st);
    if (!K) return 0;
    float l = -INFINITY, h = INFINITY;
    if (!silu)
        for (int i = 0; i < chain->n; i++) {
            if (chain->kind[i] == NN_PO_RELU && chain->a[i] == 0.f) l = fmaxf(l, 0.f);
            else if (chain->kind[i] == NN_PO_CLIP) { l = fmaxf(l, chain->a[i]); h = fminf(h, chain->b[i]); }
            else return 0;
        }
    if (!(l <= h)) return 0;
    *k = K;
    *stem = st;
    *lo = l / ysc;
    *hi = h / ysc;
    return 1;
}

int dn_qconv_dir_pw(const g_shape *xs)
{
    return !dn_qpw_disabled() && xs->rank == 4 && xs->d[0] * xs->d[2] * xs->d[3] >= 64;
}
