/* Generators: Constant (every value_* attribute but strings and sparse),
 * ConstantOfShape, Range, EyeLike and Trilu (a masked copy). */
#include "kernels/ref/shape_common.h"
#include <math.h>

/* ---- Constant ---- */

typedef struct const_state {
    int dtype;
    g_shape shape;
    const void *data;      /* attribute-owned, or `own` */
    size_t nbytes;
    unsigned char own[8];  /* value_float / value_int */
    void *heap;            /* value_floats converted */
} const_state;

static int const_init(g_graph *g, g_node *n, void **stp)
{
    const_state *s = calloc(1, sizeof *s);
    if (!s) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    const g_attr *a;
    int e = 0;
    if ((a = g_node_attr(n, "value")) && a->type == G_AT_TENSOR && a->t) {
        s->dtype = a->t->dtype;
        s->shape = a->t->shape;
        s->data = a->t->data;
        s->nbytes = a->t->nbytes;
        if (ksh_esize(s->dtype) == 0)
            e = ksh_fail(n, KSH_ETYPE, "value tensor of type %s is not supported", g_dtype_name(s->dtype));
        else if (!ksh_known(&s->shape) ||
                 s->nbytes < (size_t)ksh_numel(&s->shape) * ksh_esize(s->dtype) ||
                 (!s->data && ksh_numel(&s->shape) > 0))
            e = ksh_fail(n, KSH_EINVAL, "value tensor has %zu bytes for its shape", s->nbytes);
    } else if ((a = g_node_attr(n, "value_float"))) {
        float f = a->f;
        s->dtype = G_F32;
        memcpy(s->own, &f, 4);
        s->data = s->own;
        s->nbytes = 4;
    } else if ((a = g_node_attr(n, "value_int"))) {
        s->dtype = G_I64;
        memcpy(s->own, &a->i, 8);
        s->data = s->own;
        s->nbytes = 8;
    } else if ((a = g_node_attr(n, "value_floats")) && a->type == G_AT_FLOATS) {
        s->dtype = G_F32;
        s->shape.rank = 1;
        s->shape.d[0] = a->n;
        s->data = a->floats;
        s->nbytes = (size_t)a->n * 4;
    } else if ((a = g_node_attr(n, "value_ints")) && a->type == G_AT_INTS) {
        s->dtype = G_I64;
        s->shape.rank = 1;
        s->shape.d[0] = a->n;
        s->data = a->ints;
        s->nbytes = (size_t)a->n * 8;
    } else if (g_node_attr(n, "value_string") || g_node_attr(n, "value_strings")) {
        e = ksh_fail(n, KSH_ETYPE, "string constants are not supported");
    } else if (g_node_attr(n, "sparse_value")) {
        e = ksh_fail(n, KSH_EUNSUP, "sparse_value constants are not supported");
    } else {
        e = ksh_fail(n, KSH_EINVAL, "no value attribute");
    }
    if (e) { free(s); return e; }
    *stp = s;
    return 0;
}

static void const_fini(void *st) { free(st); }

static int const_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const const_state *s = st;
    out[0].dtype = s->dtype;
    out[0].shape = s->shape;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int const_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const const_state *s = st;
    size_t b = (size_t)ksh_numel(&s->shape) * ksh_esize(s->dtype);
    if (b) memcpy(out[0].data, s->data, b);
    return 0;
}
static const k_op k_constant = {.op_type = "Constant", .domain = "", .since = 1, .impl = "ref",
                                .init = const_init, .infer = const_infer, .run = const_run,
                                .fini = const_fini};
K_REGISTER(k_constant);

/* ---- ConstantOfShape ---- */

static int cos_init(g_graph *g, g_node *n, void **stp)
{
    const g_attr *a = g_node_attr(n, "value");
    if (ksh_in_dtype(g, n, 0) != G_I64)
        return ksh_fail(n, KSH_ETYPE, "the shape input must be int64, got %s",
                        g_dtype_name(ksh_in_dtype(g, n, 0)));
    if (a && (a->type != G_AT_TENSOR || !a->t))
        return ksh_fail(n, KSH_EINVAL, "attribute 'value' must be a tensor");
    if (a) {
        if (ksh_esize(a->t->dtype) == 0)
            return ksh_fail(n, KSH_ETYPE, "value of type %s is not supported", g_dtype_name(a->t->dtype));
        if (ksh_numel(&a->t->shape) != 1 || !a->t->data || a->t->nbytes < ksh_esize(a->t->dtype))
            return ksh_fail(n, KSH_EINVAL, "attribute 'value' must hold exactly one element");
    }
    return 0;
}

static int cos_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_attr *a = g_node_attr(n, "value");
    int64_t v[G_MAX_RANK];
    int k, e;
    out[0].dtype = a ? a->t->dtype : G_F32;
    out[0].layout = G_LAYOUT_PLAIN;
    if (!in[0].data) return ksh_need(out, 1);
    if ((e = ksh_read_ints(n, &in[0], 0, v, G_MAX_RANK, &k))) return e;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = k;
    for (int i = 0; i < k; i++) {
        if (v[i] < 0 || v[i] > KSH_DIM_MAX)
            return ksh_fail(n, KSH_EINVAL, "shape[%d] = %lld is invalid", i, (long long)v[i]);
        out[0].shape.d[i] = v[i];
    }
    return 0;
}

static int cos_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const g_attr *a = g_node_attr(n, "value");
    static const unsigned char zero[8];
    ksh_fill(out[0].data, a ? a->t->data : zero, ksh_esize(out[0].dtype),
             (size_t)ksh_numel(&out[0].shape));
    return 0;
}
static const k_op k_cos = {.op_type = "ConstantOfShape", .domain = "", .since = 9, .impl = "ref",
                           .init = cos_init, .infer = cos_infer, .run = cos_run};
K_REGISTER(k_cos);

/* ---- Range ---- */

static const int range_types[] = {G_F32, G_F64, G_I16, G_I32, G_I64, G_UNDEF};

static int range_init(g_graph *g, g_node *n, void **st)
{
    int dt = ksh_in_dtype(g, n, 0), e;
    if ((e = ksh_check_dtype(n, dt, "start", range_types))) return e;
    for (int i = 1; i < 3; i++)
        if (ksh_in_dtype(g, n, i) != dt)
            return ksh_fail(n, KSH_ETYPE, "input %d is %s, start is %s", i,
                            g_dtype_name(ksh_in_dtype(g, n, i)), g_dtype_name(dt));
    return 0;
}

static int range_count(const g_node *n, const k_tensor *in, int64_t *cnt)
{
    int dt = in[0].dtype;
    for (int i = 0; i < 3; i++)
        if (ksh_numel(&in[i].shape) != 1)
            return ksh_fail(n, KSH_EINVAL, "input %d must be a scalar", i);
    if (ksh_is_float(dt)) {
        double s = ksh_getf(in[0].data, dt, 0), l = ksh_getf(in[1].data, dt, 0),
               d = ksh_getf(in[2].data, dt, 0);
        if (d == 0 || !isfinite(s) || !isfinite(l) || !isfinite(d))
            return ksh_fail(n, KSH_EINVAL, "start %g, limit %g, delta %g give no finite range", s, l, d);
        double diff = dt == G_F32 ? (double)((float)l - (float)s) : l - s;
        double k = ceil(diff / d);
        if (k > (double)KSH_DIM_MAX) return ksh_fail(n, KSH_EINVAL, "range of %g elements is too large", k);
        *cnt = k > 0 ? (int64_t)k : 0;
    } else {
        int64_t s = ksh_geti(in[0].data, dt, 0), l = ksh_geti(in[1].data, dt, 0),
                d = ksh_geti(in[2].data, dt, 0);
        if (d == 0) return ksh_fail(n, KSH_EINVAL, "delta is 0");
        int64_t diff, k;
        if (__builtin_sub_overflow(l, s, &diff) || diff == INT64_MIN)
            return ksh_fail(n, KSH_EINVAL, "range from %lld to %lld is too large", (long long)s, (long long)l);
        if ((diff > 0) != (d > 0) || diff == 0) k = 0;
        else k = d == -1 ? -diff : diff / d + (diff % d != 0);
        if (k > KSH_DIM_MAX) return ksh_fail(n, KSH_EINVAL, "range of %lld elements is too large", (long long)k);
        *cnt = k;
    }
    return 0;
}

static int range_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    int64_t k = 0;
    int e;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (!in[0].data || !in[1].data || !in[2].data) return ksh_need(out, 1);
    if ((e = range_count(n, in, &k))) return e;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = 1;
    out[0].shape.d[0] = k;
    return 0;
}

static int range_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int dt = in[0].dtype;
    int64_t k = out[0].shape.d[0];
    if (dt == G_F32) {
        float s = *(const float *)in[0].data, d = *(const float *)in[2].data;
        float *o = out[0].data;
        for (int64_t i = 0; i < k; i++) o[i] = s + (float)i * d;
    } else if (dt == G_F64) {
        double s = *(const double *)in[0].data, d = *(const double *)in[2].data;
        double *o = out[0].data;
        for (int64_t i = 0; i < k; i++) o[i] = s + (double)i * d;
    } else {
        int64_t s = ksh_geti(in[0].data, dt, 0), d = ksh_geti(in[2].data, dt, 0);
        for (int64_t i = 0; i < k; i++) ksh_seti(out[0].data, dt, (size_t)i, s + i * d);
    }
    return 0;
}
static const k_op k_range = {.op_type = "Range", .domain = "", .since = 11, .impl = "ref",
                             .init = range_init, .infer = range_infer, .run = range_run};
K_REGISTER(k_range);

/* ---- EyeLike ---- */

static int eye_dtype(const g_node *n, int in_dt)
{
    return g_node_attr(n, "dtype") ? (int)g_attr_int(n, "dtype", G_F32) : in_dt;
}

static int eye_init(g_graph *g, g_node *n, void **st)
{
    int dt = eye_dtype(n, ksh_in_dtype(g, n, 0));
    return ksh_check_movable(n, dt, "the output");
}

static int eye_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = eye_dtype(n, in[0].dtype);
    out[0].layout = G_LAYOUT_PLAIN;
    out[0].shape = in[0].shape;
    if (in[0].shape.rank >= 0 && in[0].shape.rank != 2)
        return ksh_fail(n, KSH_EINVAL, "input must be 2-D, got rank %d", in[0].shape.rank);
    return 0;
}

static int eye_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t R = out[0].shape.d[0], C = out[0].shape.d[1], k = g_attr_int(n, "k", 0);
    size_t es = ksh_esize(out[0].dtype);
    memset(out[0].data, 0, (size_t)(R * C) * es);
    for (int64_t i = 0; i < R; i++) {
        int64_t j = i + k;
        if (j >= 0 && j < C) ksh_seti(out[0].data, out[0].dtype, (size_t)(i * C + j), 1);
    }
    return 0;
}
static const k_op k_eye = {.op_type = "EyeLike", .domain = "", .since = 9, .impl = "ref",
                           .init = eye_init, .infer = eye_infer, .run = eye_run};
K_REGISTER(k_eye);

/* ---- Trilu ---- */

static int trilu_init(g_graph *g, g_node *n, void **st)
{
    int dt = ksh_in_dtype(g, n, 1);
    if (dt != G_UNDEF && dt != G_I64)
        return ksh_fail(n, KSH_ETYPE, "k must be int64, got %s", g_dtype_name(dt));
    return ksh_check_movable(n, ksh_in_dtype(g, n, 0), "input 0");
}

static int trilu_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    out[0].shape = in[0].shape;
    if (in[0].shape.rank >= 0 && in[0].shape.rank < 2)
        return ksh_fail(n, KSH_EINVAL, "input must have rank >= 2, got %d", in[0].shape.rank);
    return 0;
}

static int trilu_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int r = in[0].shape.rank, upper = (int)g_attr_int(n, "upper", 1);
    int64_t k = 0;
    if (ksh_has(n, in, 1)) {
        if (!in[1].data || ksh_numel(&in[1].shape) != 1)
            return ksh_fail(n, KSH_EINVAL, "k must be a known scalar");
        k = ksh_geti(in[1].data, G_I64, 0);
    }
    int64_t R = in[0].shape.d[r - 2], C = in[0].shape.d[r - 1];
    k = k < -(R + 1) ? -(R + 1) : k > C + 1 ? C + 1 : k;   /* beyond these nothing changes */
    int64_t nmat = ksh_prod(in[0].shape.d, 0, r - 2);
    size_t es = ksh_esize(in[0].dtype);
    const char *s = in[0].data;
    char *d = out[0].data;
    for (int64_t m = 0; m < nmat; m++)
        for (int64_t i = 0; i < R; i++) {
            size_t off = (size_t)((m * R + i) * C) * es;
            /* kept columns: upper j >= i+k, lower j <= i+k */
            int64_t lo = upper ? i + k : 0, hi = upper ? C : i + k + 1;
            lo = lo < 0 ? 0 : lo > C ? C : lo;
            hi = hi < 0 ? 0 : hi > C ? C : hi;
            if (hi < lo) hi = lo;
            memset(d + off, 0, (size_t)lo * es);
            if (hi > lo && d != s) memcpy(d + off + lo * es, s + off + lo * es, (size_t)(hi - lo) * es);
            memset(d + off + hi * es, 0, (size_t)(C - hi) * es);
        }
    return 0;
}
static const k_op k_trilu = {.op_type = "Trilu", .domain = "", .since = 14, .impl = "ref",
                             .init = trilu_init, .infer = trilu_infer, .run = trilu_run};
K_REGISTER(k_trilu);
