/* The graph step behind atc --insert_op_conf: an openacl.Aipp node in front
 * of a network input. The node carries the whole configuration as
 * attributes, so the compiled format, the kernel and the description calls
 * all read it from one place (aipp_from_node). */
#include "graph/aipp.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

int aipp_input_shape(int f, int64_t n, int64_t w, int64_t h, g_shape *o)
{
    memset(o, 0, sizeof *o);
    o->rank = 4;
    o->d[0] = n; o->d[1] = h; o->d[2] = w; o->d[3] = 1;
    switch (f) {
    case AIPP_YUV420SP_U8: o->d[1] = h * 3 / 2; return 0;
    case AIPP_YUV422SP_U8: o->d[1] = h * 2; return 0;
    case AIPP_YUV400_U8: return 0;
    case AIPP_YUYV_U8: o->d[3] = 2; return 0;
    case AIPP_RGB888_U8: o->d[3] = 3; return 0;
    case AIPP_XRGB8888_U8: case AIPP_ARGB8888_U8: case AIPP_AYUV444_U8: o->d[3] = 4; return 0;
    default: return -1;
    }
}

static int put(g_node *nd, const char *name, int type, int n, const int *iv, const float *fv)
{
    g_attr *a = &nd->attr[nd->n_attr];
    memset(a, 0, sizeof *a);
    a->name = strdup(name);
    a->type = type;
    if (!a->name) return -1;
    nd->n_attr++;
    if (type == G_AT_INT) { a->i = iv[0]; return 0; }
    if (type == G_AT_FLOAT) { a->f = fv[0]; return 0; }
    a->n = n;
    if (type == G_AT_INTS) {
        if (!(a->ints = malloc((size_t)n * sizeof *a->ints))) return -1;
        for (int i = 0; i < n; i++) a->ints[i] = iv[i];
    } else {
        if (!(a->floats = malloc((size_t)n * sizeof *a->floats))) return -1;
        memcpy(a->floats, fv, (size_t)n * sizeof *fv);
    }
    return 0;
}

static int put_attrs(g_node *nd, const aipp_cfg *c)
{
    if (!(nd->attr = calloc(16, sizeof *nd->attr))) return -1;
    int src[2] = { c->src_w, c->src_h }, crop[5] = { c->crop, c->crop_x, c->crop_y, c->crop_w, c->crop_h };
    int pad[5] = { c->pad, c->pad_t, c->pad_b, c->pad_l, c->pad_r }, sw[3] = { c->csc, c->rbuv_swap, c->ax_swap };
    int rc = put(nd, "input_format", G_AT_INT, 1, &c->format, NULL);
    rc |= put(nd, "src_size", G_AT_INTS, 2, src, NULL);
    rc |= put(nd, "crop", G_AT_INTS, 5, crop, NULL);
    rc |= put(nd, "padding", G_AT_INTS, 5, pad, NULL);
    rc |= put(nd, "padding_value", G_AT_FLOAT, 1, NULL, &c->pad_value);
    rc |= put(nd, "switches", G_AT_INTS, 3, sw, NULL);
    rc |= put(nd, "matrix", G_AT_INTS, 9, c->matrix, NULL);
    rc |= put(nd, "input_bias", G_AT_INTS, 3, c->in_bias, NULL);
    rc |= put(nd, "output_bias", G_AT_INTS, 3, c->out_bias, NULL);
    rc |= put(nd, "mean", G_AT_INTS, 4, c->mean, NULL);
    rc |= put(nd, "min", G_AT_FLOATS, 4, NULL, c->min);
    rc |= put(nd, "var_reci", G_AT_FLOATS, 4, NULL, c->var_reci);
    return rc;
}

static int ints(const g_node *n, const char *name, int want, int *dst)
{
    const int64_t *v;
    if (g_attr_ints(n, name, &v) != want) return -1;
    for (int i = 0; i < want; i++) {
        if (v[i] < -65536 || v[i] > 65536) return -1;
        dst[i] = (int)v[i];
    }
    return 0;
}

int aipp_from_node(const g_node *n, aipp_cfg *c)
{
    memset(c, 0, sizeof *c);
    if (g_attr_int(n, "dynamic", 0)) {
        c->mode = AIPP_MODE_DYNAMIC;
        int64_t m = g_attr_int(n, "max_src_size", 0);
        if (n->n_in != 2 || m < 1 || m > 2147483647)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': a dynamic AIPP needs 2 inputs and "
                            "max_src_size > 0", n->name);
        c->max_src_size = (int)m;
        return 0;
    }
    c->mode = AIPP_MODE_STATIC;
    int src[2], crop[5], pad[5], sw[3];
    const float *mn, *vr;
    const g_attr *fa = g_node_attr(n, "input_format"), *pv = g_node_attr(n, "padding_value");
    if (!fa || fa->type != G_AT_INT || !pv || pv->type != G_AT_FLOAT || ints(n, "src_size", 2, src) ||
        ints(n, "crop", 5, crop) || ints(n, "padding", 5, pad) || ints(n, "switches", 3, sw) ||
        ints(n, "matrix", 9, c->matrix) || ints(n, "input_bias", 3, c->in_bias) ||
        ints(n, "output_bias", 3, c->out_bias) || ints(n, "mean", 4, c->mean) ||
        g_attr_floats(n, "min", &mn) != 4 || g_attr_floats(n, "var_reci", &vr) != 4)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': its attributes are incomplete", n->name);
    g_shape s;
    c->format = (int)fa->i;
    if (fa->i < 1 || fa->i > AIPP_RAW24 || aipp_input_shape(c->format, 1, 1, 1, &s))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': input_format %lld has no byte layout here",
                        n->name, (long long)fa->i);
    c->src_w = src[0]; c->src_h = src[1];
    c->crop = crop[0]; c->crop_x = crop[1]; c->crop_y = crop[2]; c->crop_w = crop[3]; c->crop_h = crop[4];
    c->pad = pad[0]; c->pad_t = pad[1]; c->pad_b = pad[2]; c->pad_l = pad[3]; c->pad_r = pad[4];
    c->pad_value = pv->f;
    c->csc = sw[0]; c->rbuv_swap = sw[1]; c->ax_swap = sw[2];
    memcpy(c->min, mn, sizeof c->min);
    memcpy(c->var_reci, vr, sizeof c->var_reci);
    return 0;
}

static char *cat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) { memcpy(s, a, la); memcpy(s + la, b, lb + 1); }
    return s;
}

/* Fills what the file left to the model (sizes 0) and checks that the AIPP
 * output is what the network reads. */
static int fit(const char *src, aipp_cfg *c, const g_tensor *x, const g_shape *s)
{
    int ln = c->line;
    int64_t N = s->d[0], C = s->d[1], H = s->d[2], W = s->d[3];
    char b[96];
    if (x->dtype != G_F32 || s->rank != 4 || !g_shape_known(s))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: input '%s' is %s %s; AIPP feeds a "
                        "float32 NCHW input of known shape (give it with --input_shape)", src, ln, x->name,
                        g_dtype_name(x->dtype), g_shape_str(s, b, sizeof b));
    int want_c = c->format == AIPP_YUV400_U8 ? 1 : 3;
    if (C != want_c)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: input '%s' has %lld channels; AIPP "
                        "from %s gives %d", src, ln, x->name, (long long)C, aipp_format_name(c->format), want_c);
    if (c->crop && !c->pad && !c->crop_w && !c->crop_h) { c->crop_w = (int)W; c->crop_h = (int)H; }
    if (!c->src_w && !c->src_h) {
        if (c->crop || c->pad)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: src_image_size_w/h are needed "
                            "with crop or padding", src, ln);
        c->src_w = (int)W; c->src_h = (int)H;
    }
    if (!c->src_w || !c->src_h)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: give both src_image_size_w and "
                        "src_image_size_h (or neither)", src, ln);
    if (c->crop && ((int64_t)c->crop_x + c->crop_w > c->src_w || (int64_t)c->crop_y + c->crop_h > c->src_h || !c->crop_w || !c->crop_h))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: the crop (%d,%d)+%dx%d lies outside "
                        "the %dx%d source image", src, ln, c->crop_x, c->crop_y, c->crop_w, c->crop_h, c->src_w,
                        c->src_h);
    int64_t ow = (int64_t)(c->crop ? c->crop_w : c->src_w) + c->pad_l + c->pad_r;
    int64_t oh = (int64_t)(c->crop ? c->crop_h : c->src_h) + c->pad_t + c->pad_b;
    if (ow != W || oh != H)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: AIPP gives %lldx%lld images (crop "
                        "and padding of the %dx%d source) but input '%s' reads %lldx%lld (W x H)", src, ln,
                        (long long)ow, (long long)oh, c->src_w, c->src_h, x->name, (long long)W, (long long)H);
    (void)N;
    return 0;
}

/* Dynamic AIPP: the input becomes max_src_image_size bytes of image, and a
 * new input (AIPP_DYN_NAME) carries the parameters aclmdlSetInputAIPP
 * writes for each call. */
static int insert_dynamic(g_graph *g, const char *src, const aipp_cfg *c, int k, g_shape *shape)
{
    int t = g->inputs[k];
    const g_tensor *x = &g->t[t];
    char b[96];
    if (x->dtype != G_F32 || shape->rank != 4 || !g_shape_known(shape) || (shape->d[1] != 3 && shape->d[1] != 1))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: input '%s' is %s %s; AIPP feeds a "
                        "float32 NCHW input of known shape with 1 or 3 channels", src, c->line, x->name,
                        g_dtype_name(x->dtype), g_shape_str(shape, b, sizeof b));
    int64_t n = shape->d[0];
    if (n < 1 || n > 1024)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: a dynamic AIPP input takes 1 to "
                        "1024 images, not %lld", src, c->line, (long long)n);
    char pname[64];
    snprintf(pname, sizeof pname, "%s", AIPP_DYN_NAME);
    for (int i = 1; g_tensor_find(g, pname) >= 0; i++) snprintf(pname, sizeof pname, "%s_%d", AIPP_DYN_NAME, i);
    const char *name = x->name;
    char *alias = cat(name, "::openacl_aipp_out"), *nname = cat(name, "::openacl_aipp");
    int *ins = realloc(g->inputs, ((size_t)g->n_inputs + 1) * sizeof *ins);
    if (ins) g->inputs = ins;
    int nt = alias && nname && ins ? g_tensor_add(g, name) : -1;
    int pt = nt >= 0 ? g_tensor_add(g, pname) : -1;
    if (pt < 0) { free(alias); free(nname); return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); }
    free(g->t[t].name);
    g->t[t].name = alias;
    g->t[t].kind = G_TK_ACT;
    g->t[t].shape = *shape;
    g_shape img = { .rank = 1, .d = { c->max_src_size } };
    g_shape par = { .rank = 1, .d = { AIPP_DYN_HEAD + AIPP_DYN_BATCH * n } };
    g->t[nt].kind = g->t[pt].kind = G_TK_INPUT;
    g->t[nt].dtype = g->t[pt].dtype = G_U8;
    g->t[nt].shape = img;
    g->t[pt].shape = par;
    g->inputs[k] = nt;
    g->inputs[g->n_inputs++] = pt;
    int in[2] = { nt, pt }, out[1] = { t };
    int ni = g_node_add(g, "Aipp", "openacl", nname, 2, in, 1, out);
    free(nname);
    g_node *nd = ni >= 0 ? &g->nodes[ni] : NULL;
    int one = 1, net[4] = { (int)shape->d[0], (int)shape->d[1], (int)shape->d[2], (int)shape->d[3] };
    if (!nd || !(nd->attr = calloc(3, sizeof *nd->attr)) || put(nd, "dynamic", G_AT_INT, 1, &one, NULL) ||
        put(nd, "max_src_size", G_AT_INT, 1, &c->max_src_size, NULL) || put(nd, "net_shape", G_AT_INTS, 4, net, NULL))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
    nd->opset = 1;
    *shape = img;
    return 0;
}

static int factor2(int f)   /* bytes per pixel, doubled */
{
    switch (f) {
    case AIPP_YUV420SP_U8: return 3;
    case AIPP_YUV400_U8: return 2;
    case AIPP_RGB888_U8: return 6;
    case AIPP_XRGB8888_U8: return 8;
    default: return 0;
    }
}

int aipp_dyn_cfg(const char *who, const unsigned char *p, size_t len, int b, int64_t n, size_t img_bytes,
                 int64_t net_h, int64_t net_w, int net_c, aipp_cfg *c)
{
    aipp_dyn_head h;
    aipp_dyn_batch q;
    memset(c, 0, sizeof *c);
    if (len < AIPP_DYN_HEAD + (size_t)AIPP_DYN_BATCH * (size_t)(b + 1))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the dynamic AIPP parameters are %zu bytes, too few for batch "
                        "%d", who, len, b);
    memcpy(&h, p, sizeof h);
    memcpy(&q, p + AIPP_DYN_HEAD + (size_t)AIPP_DYN_BATCH * (size_t)b, sizeof q);
    if (h.batch < n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the dynamic AIPP parameters are for %u images, the model takes "
                        "%lld (were they set with aclmdlSetInputAIPP?)", who, h.batch, (long long)n);
    int f2 = factor2(h.format);
    if (!f2)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dynamic AIPP input format %d is not YUV420SP_U8, XRGB8888_U8, "
                        "RGB888_U8 or YUV400_U8", who, h.format);
    c->mode = AIPP_MODE_DYNAMIC;
    c->format = h.format;
    c->src_w = h.src_w; c->src_h = h.src_h;
    c->csc = h.csc; c->rbuv_swap = h.rbuv_swap; c->ax_swap = h.ax_swap;
    for (int i = 0; i < 9; i++) c->matrix[i] = h.matrix[i];
    for (int i = 0; i < 3; i++) { c->out_bias[i] = h.out_bias[i]; c->in_bias[i] = h.in_bias[i]; }
    c->crop = q.crop; c->crop_x = q.crop_x; c->crop_y = q.crop_y; c->crop_w = q.crop_w; c->crop_h = q.crop_h;
    c->pad = q.pad; c->pad_t = q.pad_t; c->pad_b = q.pad_b; c->pad_l = q.pad_l; c->pad_r = q.pad_r;
    if (!c->crop) c->crop_x = c->crop_y = c->crop_w = c->crop_h = 0;
    if (!c->pad) c->pad_t = c->pad_b = c->pad_l = c->pad_r = 0;
    for (int i = 0; i < 4; i++) { c->mean[i] = q.mean[i]; c->min[i] = q.min[i]; c->var_reci[i] = q.var_reci[i]; }
    /* the sizes are checked before they are multiplied: they come from the
     * application's parameter bytes */
    int size_ok = c->src_w >= 2 && c->src_w <= 4096 && c->src_h >= 1 && c->src_h <= 4096 && n >= 0 &&
                  n <= INT64_MAX / (4096LL * 4096 * 4);
    int64_t need = size_ok ? (int64_t)c->src_w * c->src_h * f2 / 2 * n : -1;
    if (!size_ok || need > (int64_t)img_bytes)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %lld images of %dx%d %s are %lld bytes; the image input holds "
                        "%zu (max_src_image_size)", who, (long long)n, c->src_w, c->src_h,
                        aipp_format_name(c->format), (long long)need, img_bytes);
    if (c->crop && (c->crop_x < 0 || c->crop_y < 0 || c->crop_w < 1 || c->crop_h < 1 ||
                    (int64_t)c->crop_x + c->crop_w > c->src_w || (int64_t)c->crop_y + c->crop_h > c->src_h))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batch %d: the crop (%d,%d)+%dx%d lies outside the %dx%d image",
                        who, b, c->crop_x, c->crop_y, c->crop_w, c->crop_h, c->src_w, c->src_h);
    if (c->pad_t < 0 || c->pad_t > 32 || c->pad_b < 0 || c->pad_b > 32 || c->pad_l < 0 || c->pad_l > 32 ||
        c->pad_r < 0 || c->pad_r > 32)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batch %d: padding %d,%d,%d,%d (top, bottom, left, right) "
                        "outside [0, 32]", who, b, c->pad_t, c->pad_b, c->pad_l, c->pad_r);
    if (q.scf)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batch %d: scaling (scfSwitch 1) is not supported", who, b);
    if ((c->format == AIPP_YUV420SP_U8 && ((c->src_w & 1) || (c->src_h & 1) || (c->crop_x & 1) || (c->crop_y & 1))) ||
        (c->csc && c->format == AIPP_YUV400_U8))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batch %d: %s needs even sizes and crop offsets and no CSC for "
                        "YUV400", who, b, aipp_format_name(c->format));
    int64_t ow = (int64_t)(c->crop ? c->crop_w : c->src_w) + c->pad_l + c->pad_r;
    int64_t oh = (int64_t)(c->crop ? c->crop_h : c->src_h) + c->pad_t + c->pad_b;
    int want_c = c->format == AIPP_YUV400_U8 ? 1 : 3;
    if (ow != net_w || oh != net_h || want_c != net_c)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batch %d: the dynamic AIPP gives %lldx%lld images of %d "
                        "channel(s), the network reads %lldx%lld of %d (W x H)", who, b, (long long)ow,
                        (long long)oh, want_c, (long long)net_w, (long long)net_h, net_c);
    return 0;
}

int aipp_insert(g_graph *g, const char *src, const aipp_cfg *cfg, g_shape *shape)
{
    aipp_cfg c = *cfg;
    int ln = c.line;
    g_shape probe;
    if (c.mode == AIPP_MODE_STATIC && aipp_input_shape(c.format, 1, 2, 2, &probe))
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "--insert_op_conf: %s line %d: input_format %s is not "
                        "supported by this build", src, ln, aipp_format_name(c.format));
    if (c.resize || c.rotation_angle || c.n_edge || c.single_line)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "--insert_op_conf: %s line %d: resize, rotation_angle, "
                        "input_edge_idx and single_line_mode are reserved by CANN and not supported", src, ln);
    int k = -1;
    if (c.related_name[0]) {
        for (int i = 0; i < g->n_inputs && k < 0; i++) if (!strcmp(g->t[g->inputs[i]].name, c.related_name)) k = i;
        if (k < 0)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: related_input_name '%s' is not "
                            "an input of the model", src, ln, c.related_name);
    } else if (c.rank >= g->n_inputs) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: related_input_rank %d is out of "
                        "range: the model has %d input(s)", src, ln, c.rank, g->n_inputs);
    } else {
        k = c.rank;
    }
    int t = g->inputs[k];
    if (g->t[t].producer >= 0 || g->t[t].kind != G_TK_INPUT)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: input %d already has an AIPP", src,
                        ln, k);
    if (c.mode == AIPP_MODE_DYNAMIC) return insert_dynamic(g, src, &c, k, shape);
    int rc = fit(src, &c, &g->t[t], shape);
    if (rc) return rc;
    g_shape img;
    aipp_input_shape(c.format, shape->d[0], c.src_w, c.src_h, &img);
    const char *name = g->t[t].name;
    char *alias = cat(name, "::openacl_aipp_out"), *nname = cat(name, "::openacl_aipp");
    int nt = alias && nname ? g_tensor_add(g, name) : -1;
    if (nt < 0) { free(alias); free(nname); return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); }
    free(g->t[t].name);
    g->t[t].name = alias;
    g->t[t].kind = G_TK_ACT;
    g->t[t].shape = *shape;
    g->t[nt].kind = G_TK_INPUT;
    g->t[nt].dtype = G_U8;
    g->t[nt].shape = img;
    g->inputs[k] = nt;
    int in[1] = { nt }, out[1] = { t };
    int ni = g_node_add(g, "Aipp", "openacl", nname, 1, in, 1, out);
    free(nname);
    if (ni < 0 || put_attrs(&g->nodes[ni], &c)) return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
    g->nodes[ni].opset = 1;
    *shape = img;
    return 0;
}
