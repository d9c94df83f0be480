/* Window-op attribute parsing, output-shape rules (ONNX semantics), the fused
 * post-op list and small conversion helpers shared by ref/ and dnnl/ NN
 * kernels. */
#include "kernels/ref/nn_common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int win_ints(const g_node *n, const char *name, int *nsp, int64_t *dst, int mult,
                    int64_t minv)
{
    const int64_t *v;
    int c = g_attr_ints(n, name, &v);
    if (c < 0) return 0;
    if (c == 0) return 0;   /* empty list: treated as absent */
    if (c % mult || c / mult > NN_MAX_SP)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, opset %d): attribute '%s' "
                        "has %d values; expected %s for 1 to %d spatial dims", n->name,
                        n->op_type, n->opset, name, c, mult == 2 ? "2 per axis" : "1 per axis",
                        NN_MAX_SP);
    int ns = c / mult;
    if (*nsp && *nsp != ns)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): attribute '%s' has %d "
                        "values, other attributes imply %d spatial dims", n->name, n->op_type,
                        n->opset, name, c, *nsp);
    *nsp = ns;
    for (int i = 0; i < c; i++) {
        if (v[i] < minv)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): attribute '%s'[%d] "
                            "= %lld; must be >= %lld", n->name, n->op_type, n->opset, name, i,
                            (long long)v[i], (long long)minv);
        dst[i] = v[i];
    }
    return 1;
}

int nn_win_parse(const g_node *n, int kind, nn_win *w)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    for (int i = 0; i < NN_MAX_SP; i++) { w->s[i] = 1; w->d[i] = 1; }
    int64_t pads[2 * NN_MAX_SP] = {0};
    int r;
    if ((r = win_ints(n, "kernel_shape", &w->nsp, w->k, 1, 1)) != 0 && r != 1) return r;
    if (r > 0) w->has_kernel = 1;
    if ((r = win_ints(n, "strides", &w->nsp, w->s, 1, 1)) != 0 && r != 1) return r;
    if ((r = win_ints(n, "dilations", &w->nsp, w->d, 1, 1)) != 0 && r != 1) return r;
    if ((r = win_ints(n, "pads", &w->nsp, pads, 2, 0)) != 0 && r != 1) return r;
    w->has_pads = r == 1;
    if (w->has_pads)
        for (int i = 0; i < w->nsp; i++) { w->pb[i] = pads[i]; w->pe[i] = pads[i + w->nsp]; }
    const char *ap = g_attr_str(n, "auto_pad", "NOTSET");
    if (!strcmp(ap, "NOTSET") || !*ap) w->auto_pad = NN_PAD_NOTSET;
    else if (!strcmp(ap, "SAME_UPPER")) w->auto_pad = NN_PAD_SAME_UPPER;
    else if (!strcmp(ap, "SAME_LOWER")) w->auto_pad = NN_PAD_SAME_LOWER;
    else if (!strcmp(ap, "VALID")) w->auto_pad = NN_PAD_VALID;
    else
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): auto_pad '%s' is not "
                        "one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", n->name, n->op_type,
                        n->opset, ap);
    if (kind == NN_POOL) {
        int64_t cm = g_attr_int(n, "ceil_mode", 0);
        if (cm != 0 && cm != 1)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): ceil_mode %lld; "
                            "expected 0 or 1", n->name, n->op_type, n->opset, (long long)cm);
        w->ceil_mode = (int)cm;
        if (!w->has_kernel)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): required "
                            "attribute kernel_shape is missing", n->name, n->op_type, n->opset);
    } else {
        w->group = g_attr_int(n, "group", 1);
        if (w->group < 1)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): group %lld; must "
                            "be >= 1", n->name, n->op_type, n->opset, (long long)w->group);
    }
    if (kind == NN_CONVT) {
        if ((r = win_ints(n, "output_padding", &w->nsp, w->opad, 1, 0)) != 0 && r != 1) return r;
        const int64_t *v;
        int c = g_attr_ints(n, "output_shape", &v);
        r = 0;
        if (c > 0 && (c > NN_MAX_SP || (w->nsp && c == w->nsp + 2))) {
            /* output_shape given with its N and C dims too: keep the spatial part */
            if (c - 2 < 1 || c - 2 > NN_MAX_SP || (w->nsp && w->nsp != c - 2))
                return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): "
                                "output_shape has %d values", n->name, n->op_type, n->opset, c);
            w->nsp = c - 2;
            for (int i = 0; i < c - 2; i++) w->oshape[i] = v[i + 2];
            r = 1;
        } else if ((r = win_ints(n, "output_shape", &w->nsp, w->oshape, 1, 0)) != 0 && r != 1) {
            return r;
        }
        w->has_oshape = r == 1;
    }
    return 0;
}

static int64_t div_floor(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t div_ceil(int64_t a, int64_t b) { return -div_floor(-a, b); }

int nn_win_resolve(const g_node *n, nn_win *w, int nsp, const int64_t *in_sp)
{
    if (nsp < 1 || nsp > NN_MAX_SP)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, opset %d): %d spatial "
                        "dims; supported 1 to %d", n->name, n->op_type, n->opset, nsp, NN_MAX_SP);
    if (w->nsp && w->nsp != nsp)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): attributes describe "
                        "%d spatial dims but the input has %d", n->name, n->op_type, n->opset,
                        w->nsp, nsp);
    w->nsp = nsp;
    for (int i = 0; i < nsp; i++) {
        int64_t in = in_sp[i], k = w->k[i], s = w->s[i], d = w->d[i];
        /* every size here comes from the model: bounded first, so that the
         * window arithmetic below cannot overflow int64 */
        const int64_t lim = (int64_t)1 << 24, big = (int64_t)1 << 36;
        if (k > big || in > big || s < 1 || s > lim || d < 1 || d > lim || w->pb[i] < 0 || w->pb[i] > lim ||
            w->pe[i] < 0 || w->pe[i] > lim ||
            (w->kind == NN_CONVT && (w->opad[i] < 0 || w->opad[i] > lim ||
                                     (w->has_oshape && (w->oshape[i] < 0 || w->oshape[i] > big)))))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): spatial axis %d: size "
                            "%lld, kernel %lld, stride %lld, dilation %lld, pads %lld/%lld out of range",
                            n->name, n->op_type, n->opset, i, (long long)in, (long long)k, (long long)s,
                            (long long)d, (long long)w->pb[i], (long long)w->pe[i]);
        int64_t ext = (k - 1) * d + 1, out;
        w->in[i] = in;
        if (k < 1)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): kernel size %lld "
                            "on spatial axis %d", n->name, n->op_type, n->opset, (long long)k, i);
        if (w->kind == NN_CONVT) {
            int64_t pb = w->pb[i], pe = w->pe[i];
            if (w->has_oshape || w->auto_pad == NN_PAD_SAME_UPPER ||
                w->auto_pad == NN_PAD_SAME_LOWER) {
                out = w->has_oshape ? w->oshape[i] : in * s;
                int64_t total = s * (in - 1) + w->opad[i] + ext - out;
                if (total < 0) total = 0;
                if (w->auto_pad == NN_PAD_SAME_UPPER) { pb = total / 2; pe = total - pb; }
                else { pe = total / 2; pb = total - pe; }
                /* the requested size wins; pads only place the window */
                w->pb[i] = pb; w->pe[i] = pe;
            } else {
                if (w->auto_pad == NN_PAD_VALID) { pb = pe = 0; w->pb[i] = w->pe[i] = 0; }
                out = s * (in - 1) + w->opad[i] + ext - pb - pe;
            }
            if (w->opad[i] >= s && w->opad[i] >= d)
                return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): "
                                "output_padding[%d] = %lld must be less than stride %lld or "
                                "dilation %lld", n->name, n->op_type, n->opset, i,
                                (long long)w->opad[i], (long long)s, (long long)d);
        } else if (w->auto_pad == NN_PAD_SAME_UPPER || w->auto_pad == NN_PAD_SAME_LOWER) {
            out = div_ceil(in, s);
            int64_t total = (out - 1) * s + ext - in;
            if (total < 0) total = 0;
            if (w->auto_pad == NN_PAD_SAME_UPPER) { w->pb[i] = total / 2; w->pe[i] = total - total / 2; }
            else { w->pe[i] = total / 2; w->pb[i] = total - total / 2; }
        } else {
            if (w->auto_pad == NN_PAD_VALID) w->pb[i] = w->pe[i] = 0;
            int64_t span = in + w->pb[i] + w->pe[i] - ext;
            if (w->ceil_mode) {
                out = div_ceil(span, s) + 1;
                /* the last window must start inside the input or the left pad */
                if (out > 0 && (out - 1) * s >= in + w->pb[i]) out--;
            } else {
                out = div_floor(span, s) + 1;
            }
        }
        if (out < 0 || (out == 0 && in > 0)) {
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): spatial axis %d "
                            "of size %lld gives output size %lld (kernel %lld, stride %lld, "
                            "dilation %lld, pads %lld/%lld)", n->name, n->op_type, n->opset, i,
                            (long long)in, (long long)out, (long long)k, (long long)s,
                            (long long)d, (long long)w->pb[i], (long long)w->pe[i]);
        }
        w->out[i] = out;
    }
    return 0;
}

/* ---- post-ops (the parsers: kernels/post.c) ---- */

void nn_dw_win(const nn_dw *d, int64_t M, int64_t H, int64_t W, nn_win *w)
{
    memset(w, 0, sizeof *w);
    w->kind = NN_CONV;
    w->nsp = 2;
    w->group = M;
    w->has_kernel = 1;
    int64_t in[2] = { H, W };
    for (int i = 0; i < 2; i++) {
        w->k[i] = 3; w->s[i] = d->stride; w->d[i] = 1; w->pb[i] = w->pe[i] = 1;
        w->in[i] = in[i];
        w->out[i] = (in[i] + 2 - 3) / d->stride + 1;
    }
}

float nn_act(int kind, float a, float b, float x)
{
    switch (kind) {
    case NN_PO_RELU: return x > 0.f ? x : x * a;
    case NN_PO_CLIP: return x < a ? a : (x > b ? b : x);
    case NN_PO_SIGMOID: return 1.f / (1.f + expf(-x));
    case NN_PO_TANH: return tanhf(x);
    case NN_PO_HSIGMOID: { float v = a * x + b; return v < 0.f ? 0.f : (v > 1.f ? 1.f : v); }
    case NN_PO_HSWISH: { float v = x / 6.f + 0.5f; v = v < 0.f ? 0.f : (v > 1.f ? 1.f : v); return x * v; }
    case NN_PO_GELU_ERF: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case NN_PO_GELU_TANH:
        return 0.5f * x * (1.f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case NN_PO_SILU: return x / (1.f + expf(-a * x));
    case NN_PO_ELU: return x > 0.f ? x : a * (expf(x) - 1.f);
    case NN_PO_LINEAR: return a * x + b;
    case NN_PO_ROUND: return rintf(x);
    default: return x;
    }
}

void nn_post_apply(const nn_post *p, float *y, size_t len, const float *add)
{
    for (int j = 0; j < p->n; j++) {
        int k = p->kind[j];
        float a = p->a[j], b = p->b[j];
        if (k == NN_PO_ADD) {
            for (size_t i = 0; i < len; i++) y[i] += add[i];
        } else if (k == NN_PO_RELU && a == 0.f) {
            for (size_t i = 0; i < len; i++) y[i] = y[i] > 0.f ? y[i] : 0.f;
        } else if (k == NN_PO_CLIP) {
            for (size_t i = 0; i < len; i++) y[i] = y[i] < a ? a : (y[i] > b ? b : y[i]);
        } else {
            for (size_t i = 0; i < len; i++) y[i] = nn_act(k, a, b, y[i]);
        }
    }
}

/* ---- addressing ---- */

void nn_strides_of(const g_shape *s, int layout, nn_strides *st)
{
    int r = s->rank;
    int nsp = r - 2;
    memset(st, 0, sizeof *st);
    if (r < 2) return;
    if (layout == G_LAYOUT_NHWC && r >= 3) {
        /* channels last: N, spatial..., C */
        int64_t acc = s->d[1];
        st->c = 1;
        for (int i = nsp - 1; i >= 0; i--) { st->sp[i] = acc; acc *= s->d[2 + i]; }
        st->n = acc;
    } else {
        int64_t acc = 1;
        for (int i = nsp - 1; i >= 0; i--) { st->sp[i] = acc; acc *= s->d[2 + i]; }
        st->c = acc;
        acc *= s->d[1];
        st->n = acc;
    }
}

int nn_out_layout(const g_node *n, const g_shape *s)
{
    int l = (int)g_attr_int(n, "_oa_layout", G_LAYOUT_PLAIN);
    return (l == G_LAYOUT_NHWC && s->rank == 4) ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
}

int nn_fail_dtype(const g_node *n, int idx, int dtype)
{
    return acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "node '%s' (%s, opset %d): input %d has "
                    "type %s, not supported by this op", n->name, n->op_type, n->opset, idx,
                    g_dtype_name(dtype));
}

int nn_is_const(const g_graph *g, const g_node *n, int idx)
{
    if (idx >= n->n_in || n->in[idx] < 0) return 0;
    return g->t[n->in[idx]].kind == G_TK_CONST && g->t[n->in[idx]].data != NULL;
}

int nn_check_rank(const g_node *n, int idx, const g_shape *s, int lo, int hi)
{
    if (s->rank < lo || s->rank > hi) {
        char b[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): input %d has shape "
                        "%s; expected rank %d to %d", n->name, n->op_type, n->opset, idx,
                        g_shape_str(s, b, sizeof b), lo, hi);
    }
    return 0;
}

void *nn_tmp_get(const k_ctx *ctx, size_t bytes, int *heap)
{
    *heap = 0;
    if (bytes == 0) bytes = 1;
    if (ctx && ctx->scratch && ctx->scratch_bytes >= bytes) return ctx->scratch;
    *heap = 1;
    return malloc(bytes);
}

void nn_tmp_put(void *p, int heap)
{
    if (heap) free(p);
}

/* ---- half precision ---- */

float nn_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    if (e == 0) {
        if (m == 0) u = sign;
        else {           /* subnormal: normalise */
            e = 113;
            while (!(m & 0x400)) { m <<= 1; e--; }
            m &= 0x3ff;
            u = sign | (e << 23) | (m << 13);
        }
    } else if (e == 31) {
        u = sign | 0x7f800000u | (m << 13);
    } else {
        u = sign | ((e + 112) << 23) | (m << 13);
    }
    union { uint32_t u; float f; } v = { u };
    return v.f;
}

uint16_t nn_f2h(float f)
{
    union { float f; uint32_t u; } v = { f };
    uint32_t u = v.u, sign = (u >> 16) & 0x8000;
    int32_t e = (int32_t)((u >> 23) & 0xff) - 127 + 15;
    uint32_t m = u & 0x7fffff;
    if (((u >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        m |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1))) hm++;
        return (uint16_t)(sign | hm);
    }
    uint32_t hm = m >> 13, rem = m & 0x1fff;
    uint32_t r = sign | ((uint32_t)e << 10) | hm;
    if (rem > 0x1000 || (rem == 0x1000 && (hm & 1))) r++;   /* may carry into the exponent */
    return (uint16_t)r;
}

uint16_t nn_f2bf(float f)
{
    union { float f; uint32_t u; } v = { f };
    if ((v.u & 0x7fffffff) > 0x7f800000) return (uint16_t)((v.u >> 16) | 0x40);
    uint32_t r = v.u + 0x7fff + ((v.u >> 16) & 1);
    return (uint16_t)(r >> 16);
}

float nn_loadf(const void *p, int dtype, size_t i)
{
    switch (dtype) {
    case G_F32: return ((const float *)p)[i];
    case G_F16: return nn_h2f(((const uint16_t *)p)[i]);
    case G_BF16: return nn_bf2f(((const uint16_t *)p)[i]);
    case G_F64: return (float)((const double *)p)[i];
    default: return 0.f;
    }
}

void nn_storef(void *p, int dtype, size_t i, float v)
{
    switch (dtype) {
    case G_F32: ((float *)p)[i] = v; break;
    case G_F16: ((uint16_t *)p)[i] = nn_f2h(v); break;
    case G_BF16: ((uint16_t *)p)[i] = nn_f2bf(v); break;
    case G_F64: ((double *)p)[i] = v; break;
    default: break;
    }
}

/* ---- float32 views ---- */

void nn_f32_none(nn_f32buf *b)
{
    b->p = NULL; b->heap = 0; b->n = 0;
}

int nn_f32_in(const g_node *n, const k_tensor *t, nn_f32buf *b)
{
    nn_f32_none(b);
    int64_t cnt = g_shape_numel(&t->shape);
    if (cnt < 0 || !t->data)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): input without data or shape",
                        n->name, n->op_type);
    b->n = (size_t)cnt;
    if (t->dtype == G_F32) { b->p = t->data; return 0; }
    if (!nn_is_float(t->dtype)) return nn_fail_dtype(n, -1, t->dtype);
    b->p = malloc((size_t)(cnt ? cnt : 1) * sizeof(float));
    if (!b->p) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    b->heap = 1;
    for (int64_t i = 0; i < cnt; i++) b->p[i] = nn_loadf(t->data, t->dtype, (size_t)i);
    return 0;
}

int nn_f32_out(const g_node *n, const k_tensor *t, nn_f32buf *b)
{
    nn_f32_none(b);
    int64_t cnt = g_shape_numel(&t->shape);
    if (cnt < 0 || !t->data)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): output without buffer or shape",
                        n->name, n->op_type);
    b->n = (size_t)cnt;
    if ((size_t)cnt * g_dtype_size(t->dtype) > t->nbytes)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): output buffer of %zu bytes, "
                        "needs %zu", n->name, n->op_type, t->nbytes,
                        (size_t)cnt * g_dtype_size(t->dtype));
    if (t->dtype == G_F32) { b->p = t->data; return 0; }
    if (!nn_is_float(t->dtype)) return nn_fail_dtype(n, -1, t->dtype);
    b->p = malloc((size_t)(cnt ? cnt : 1) * sizeof(float));
    if (!b->p) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    b->heap = 1;
    return 0;
}

void nn_f32_commit(k_tensor *t, const nn_f32buf *b)
{
    if (!b->heap) return;
    for (size_t i = 0; i < b->n; i++) nn_storef(t->data, t->dtype, i, b->p[i]);
}

void nn_f32_free(nn_f32buf *b)
{
    if (b->heap) free(b->p);
    nn_f32_none(b);
}
