/* The int8 convolution's input zero point as a constant (see
 * dn_qconv_zp.h).
 *
 * Why: oneDNN's runtime source zero point makes the convolution correct
 * every output for zp * sum(W) at run time, which costs time in the kernel
 * (a 240x240 1x1 layer on 12x80: 168 -> 145 us; the 480x480 one on 6x80:
 * 299 -> 271, standalone). For a layer without padding every tap reads a
 * real input, so the correction is the constant zp * sum(W[m]) and goes
 * into the int32 bias. A padded layer reads zp at the border, whose taps
 * that constant would take out too; there the caller copies the input with
 * a zp border and runs the convolution unpadded, which is the same sum.
 * The pads must be zero for every shape (explicit zeros or VALID) in the
 * unpadded case, and the folded bias must stay in int32. Both forms pack
 * W differently from oneDNN's compensated form, so the switches are part of
 * the kernel ABI (dn_backend.c). */
#include "kernels/dnnl/dn_qconv_zp.h"
#include "kernels/dnnl/dn_common.h"
#include "core/par.h"
#include <stdlib.h>
#include <string.h>

/* OPENACL_QCONV_ZP_RT=1 keeps oneDNN's runtime zero point (read per load:
 * mdl_bench --ab). */
int dn_qconv_zp_rt(void)
{
    const char *e = getenv("OPENACL_QCONV_ZP_RT");
    return e && !strcmp(e, "1");
}

/* OPENACL_QCONV_ZPAD=0: padded layers keep oneDNN's runtime zero point. */
int dn_qconv_zpad_off(void)
{
    const char *e = getenv("OPENACL_QCONV_ZPAD");
    return e && !strcmp(e, "0");
}

int dn_qzp_fold_bias(const int8_t *w, int64_t taps, const int32_t *bias, int32_t zp, int64_t m, int32_t *out)
{
    int64_t sum = 0;
    for (int64_t j = 0; j < taps; j++) sum += w[m * taps + j];
    int64_t v = (bias ? (int64_t)bias[m] : 0) - (int64_t)zp * sum;
    if (v < INT32_MIN || v > INT32_MAX) return 0;
    *out = (int32_t)v;
    return 1;
}

int dn_qzp_foldable(const nn_win *w0, int64_t M, int32_t zp, const g_tensor *w, const g_tensor *b, int padded)
{
    if (!zp || dn_qconv_zp_rt() || !w->data || (b && !b->data)) return 0;
    if (w0->auto_pad == NN_PAD_SAME_UPPER || w0->auto_pad == NN_PAD_SAME_LOWER) return 0;
    int any = 0;
    for (int i = 0; i < NN_MAX_SP; i++) any |= w0->pb[i] || w0->pe[i];
    if (any != padded || (padded && (w->shape.rank != 4 || w0->auto_pad != NN_PAD_NOTSET || dn_qconv_zpad_off())))
        return 0;
    int64_t taps = M > 0 ? g_shape_numel(&w->shape) / M : 0;
    int32_t v;
    for (int64_t m = 0; m < M; m++)
        if (!dn_qzp_fold_bias(w->data, taps, b ? b->data : NULL, zp, m, &v)) return 0;
    return taps > 0;
}

/* OPENACL_QCONV_PAD_PAR=0: the zp-bordered copy on the calling thread
 * alone (read per load: mdl_bench --ab). 2: the team copies. */
int dn_qzp_pad_mode(void)
{
    const char *e = getenv("OPENACL_QCONV_PAD_PAR");
    return e && !strcmp(e, "0") ? 1 : 2;
}

/* One padded row r (of N * Hp): a border row of z, or z | x's row | z. */
static void pad_row(const uint8_t *x, uint8_t *xp, int64_t r, int64_t C, int64_t H, int64_t W, int64_t Hp,
                    int64_t pt, int64_t pl, int64_t pr, int z)
{
    int64_t n = r / Hp, h = r % Hp - pt, Wp = W + pl + pr;
    uint8_t *o = xp + (size_t)r * (size_t)(Wp * C);
    if (h < 0 || h >= H) {
        memset(o, z, (size_t)(Wp * C));
        return;
    }
    memset(o, z, (size_t)(pl * C));
    memcpy(o + pl * C, x + (size_t)((n * H + h) * W * C), (size_t)(W * C));
    memset(o + (pl + W) * C, z, (size_t)(pr * C));
}

void dn_qzp_pad_nhwc(const uint8_t *x, uint8_t *xp, const int64_t *d, int64_t pt, int64_t pb, int64_t pl,
                     int64_t pr, int z, int nthr)
{
    int64_t N = d[0], C = d[1], H = d[2], W = d[3], Hp = H + pt + pb, rows = N * Hp;
    /* PP-OCRv4 rec's padded depthwise layers: 0.1-0.4 MB a copy, which on
     * the calling thread alone kept them at 1.1-1.5x from a second thread;
     * below 64 KiB the region costs more than it saves */
    int nt = (size_t)(rows * (W + pl + pr) * C) >= ((size_t)64 << 10) && rows > 1 ? nthr : 1;
    OA_PAR_FOR(nt, for (int64_t r = 0; r < rows; r++) pad_row(x, xp, r, C, H, W, Hp, pt, pl, pr, z););
}

/* Why: oneDNN applies each eltwise post-op to every output value, and the
 * int8 1x1 layers of MobileNetV2 are bound by that per-value work, not by
 * their products (the 112x112 K = 16 expansion: 19 M multiply-adds, 1.2 M
 * outputs). Their Relu6 at y_scale 6/255 (or above: a bound of 484 steps)
 * with zero point 0 clamps nothing that the conversion's saturation to
 * [0, 255] would not. */
void dn_qpost_drop_saturated(nn_post *po, int32_t yzp, int s8)
{
    const char *e = getenv("OPENACL_QCONV_KEEP_CLAMPS");   /* read per load: mdl_bench --ab */
    if (e && *e && strcmp(e, "0")) return;
    for (int i = 0; i < po->n; i++)
        if (po->kind[i] != NN_PO_CLIP && !(po->kind[i] == NN_PO_RELU && po->a[i] == 0.f)) return;
    float qmin = s8 ? -128.f : 0.f, qmax = s8 ? 127.f : 255.f, z = (float)yzp;
    int n = 0;
    for (int i = 0; i < po->n; i++) {
        int clip = po->kind[i] == NN_PO_CLIP;
        float lo = clip ? po->a[i] : 0.f;
        int lo_free = lo + z < qmin + 0.5f, hi_free = !clip || po->b[i] + z > qmax - 0.5f;
        if (lo_free && hi_free) continue;
        po->kind[n] = po->kind[i];
        po->a[n] = po->a[i];
        po->b[n] = po->b[i];
        if (clip && hi_free && lo == 0.f) { po->kind[n] = NN_PO_RELU; po->a[n] = po->b[n] = 0.f; }
        n++;
    }
    po->n = n;
}

/* A folded residual (graph/qdq_conv.c try_sum): CLIP, LINEAR 1/s3, ROUND,
 * LINEAR s3, ADD, then Relu/Clip. oneDNN computes in s3 units (output
 * scales x_scale * w_scale[c] / s3): clip, round, the sum of the residual
 * (scale r_scale / s3, its zero point), linear s3 / y_scale, the chain,
 * less the clamps the conversion to 8 bits at zero point yzp does anyway
 * (dn_qpost_drop_saturated: ResNet's Relu after the Add at zero point 0;
 * an eltwise step costs these output-bound layers per value: ResNet-50's
 * 56x56 64 -> 256 layer 0.340 -> 0.327 ms, bench/qconv_mm). */
int dn_qsum_chain(const nn_post *c, float ysc, float rsc, int32_t yzp, int s8, nn_post *po, float *sum_scale,
                  float *unit)
{
    if (c->n < 5 || c->kind[0] != NN_PO_CLIP || c->kind[1] != NN_PO_LINEAR || c->b[1] != 0.f ||
        c->kind[2] != NN_PO_ROUND || c->kind[3] != NN_PO_LINEAR || c->b[3] != 0.f || c->kind[4] != NN_PO_ADD ||
        !(c->a[3] > 0.f))
        return 0;
    float s3 = c->a[3];
    nn_post p = { .n = 4, .kind = { NN_PO_CLIP, NN_PO_ROUND, NN_PO_ADD, NN_PO_LINEAR }, .has_add = 1 };
    p.a[0] = c->a[0] / s3;
    p.b[0] = c->b[0] / s3;
    p.a[3] = s3 / ysc;
    for (int i = 5; i < c->n; i++) {
        if (c->kind[i] != NN_PO_CLIP && !(c->kind[i] == NN_PO_RELU && c->a[i] == 0.f)) return 0;
        p.kind[p.n] = c->kind[i];
        p.a[p.n] = c->kind[i] == NN_PO_CLIP ? c->a[i] / ysc : 0.f;
        p.b[p.n] = c->kind[i] == NN_PO_CLIP ? c->b[i] / ysc : 0.f;
        p.n++;
    }
    nn_post tail = { .n = p.n - 4 };
    for (int i = 0; i < tail.n; i++) {
        tail.kind[i] = p.kind[4 + i]; tail.a[i] = p.a[4 + i]; tail.b[i] = p.b[4 + i];
    }
    dn_qpost_drop_saturated(&tail, yzp, s8);
    p.n = 4 + tail.n;
    for (int i = 0; i < tail.n; i++) {
        p.kind[4 + i] = tail.kind[i]; p.a[4 + i] = tail.a[i]; p.b[4 + i] = tail.b[i];
    }
    if (nn_post_conflict(&p)) return 0;
    *po = p;
    *sum_scale = rsc / s3;
    *unit = s3;
    return 1;
}
