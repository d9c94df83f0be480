/* Opset 1-6 forms of the binary ops (Add, Sub, Mul, Div, Pow, And, Or, Xor,
 * Equal, Greater, Less) and of PRelu, as old exporters (PyTorch 0.3/0.4)
 * wrote them. Before opset 7 these ops did not broadcast NumPy-style: with
 * broadcast=0 both inputs have one shape, with broadcast=1 B is laid over A
 * starting at dimension `axis` (suffix-aligned when axis is absent). PRelu-6
 * applies a slope of A's channel count along axis 1 (PyTorch's meaning).
 *
 * Each maps onto the opset-7 reference kernel of the same op: B gets trailing
 * size-1 dims so that NumPy broadcasting lays it where the old rule did, and
 * the wrapped kernel's init/infer/run do the work on the reshaped view. */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

typedef struct leg_state {
    const k_op *inner;        /* the opset-7 "ref" kernel of the same op */
    void *ist;                /* its state */
    int prelu;
    int bcast;                /* broadcast attribute (not PRelu) */
    int has_axis;
    int64_t axis;
} leg_state;

static void leg_fini(void *state)
{
    leg_state *s = state;
    if (!s) return;
    if (s->inner && s->inner->fini) s->inner->fini(s->ist);
    free(s);
}

static int leg_init(g_graph *g, g_node *n, void **state)
{
    const k_op *cand[8];
    int nc = k_find(n->op_type, "", 7, cand, 8);
    const k_op *inner = NULL;
    for (int i = 0; i < nc && !inner; i++)
        if (cand[i]->priority == 0 && !strcmp(cand[i]->impl, "ref")) inner = cand[i];
    if (!inner)
        return ew_fail(n, EW_EUNSUP, "no opset-7 reference kernel to run the legacy form on");
    if (n->n_in != 2)
        return ew_fail(n, EW_EINVAL, "got %d inputs, expected 2", n->n_in);
    leg_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->inner = inner;
    s->prelu = !strcmp(n->op_type, "PRelu");
    if (!s->prelu) {
        int64_t b = g_attr_int(n, "broadcast", 0);
        if (b != 0 && b != 1) {
            free(s);
            return ew_fail(n, EW_EINVAL, "broadcast=%lld (expected 0 or 1)", (long long)b);
        }
        s->bcast = (int)b;
        s->has_axis = g_node_attr(n, "axis") != NULL;
        s->axis = g_attr_int(n, "axis", 0);
    }
    int rc = inner->init(g, n, &s->ist);
    if (rc) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* The view of B that NumPy broadcasting places where the legacy rule does;
 * fails when the legacy rule rejects the shapes. */
static int leg_view(const g_node *n, const leg_state *s, const k_tensor *in, k_tensor *v)
{
    v[0] = in[0];
    v[1] = in[1];
    const g_shape *a = &in[0].shape, *b = &in[1].shape;
    if (a->rank < 0 || b->rank < 0) return 0;   /* not known yet: the inner infer copes */
    char sa[96], sb[96];
    g_shape_str(a, sa, sizeof sa);
    g_shape_str(b, sb, sizeof sb);
    if (s->prelu) {
        int64_t nb = g_shape_numel(b);
        if (nb == 1 || g_shape_eq(a, b)) return 0;
        /* one slope per channel (dim 1) */
        if (a->rank >= 2 && nb == a->d[1] && nb >= 0) {
            g_shape c = { .rank = a->rank - 1 };
            c.d[0] = nb;
            for (int i = 1; i < c.rank; i++) c.d[i] = 1;
            v[1].shape = c;
            return 0;
        }
        return ew_fail(n, EW_EINVAL, "slope %s is neither one value, one per channel of the input "
                       "%s, nor the input's shape", sb, sa);
    }
    if (!s->bcast) {
        if (g_shape_eq(a, b)) return 0;
        return ew_fail(n, EW_EINVAL, "input shapes %s and %s differ and broadcast=0", sa, sb);
    }
    if (b->rank > a->rank)
        return ew_fail(n, EW_EINVAL, "B %s has more dims than A %s (broadcast=1)", sb, sa);
    int axis = s->has_axis ? (int)(s->axis < 0 ? s->axis + a->rank : s->axis) : a->rank - b->rank;
    if (b->rank == 0 || (b->rank == 1 && b->d[0] == 1)) return 0;   /* a scalar B fits anywhere */
    if (axis < 0 || axis + b->rank > a->rank)
        return ew_fail(n, EW_EINVAL, "B %s does not fit into A %s at axis %lld", sb, sa,
                       (long long)s->axis);
    g_shape c = *b;
    for (int i = 0; i < b->rank; i++) {
        int64_t da = a->d[axis + i], db = b->d[i];
        if (da >= 0 && db >= 0 && db != da && db != 1)
            return ew_fail(n, EW_EINVAL, "B %s does not match A %s at axis %d (dim %d: %lld vs %lld)",
                           sb, sa, axis, axis + i, (long long)db, (long long)da);
    }
    c.rank = a->rank - axis;
    for (int i = b->rank; i < c.rank; i++) c.d[i] = 1;
    v[1].shape = c;
    return 0;
}

static int leg_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    leg_state *s = state;
    k_tensor v[2];
    int rc = leg_view(n, s, in, v);
    if (rc) return rc;
    rc = s->inner->infer(n, s->ist, v, out);
    if (rc) return rc;
    /* the legacy ops never grow A */
    if (in[0].shape.rank >= 0 && out[0].shape.rank >= 0 && g_shape_known(&in[0].shape) &&
        g_shape_known(&out[0].shape) && !g_shape_eq(&out[0].shape, &in[0].shape)) {
        char sa[96], sb[96];
        return ew_fail(n, EW_EINVAL, "B %s would broadcast A %s to a larger shape",
                       g_shape_str(&in[1].shape, sb, sizeof sb), g_shape_str(&in[0].shape, sa, sizeof sa));
    }
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

static int leg_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    leg_state *s = state;
    k_tensor v[2];
    int rc = leg_view(n, s, in, v);
    if (rc) return rc;
    return s->inner->run(n, s->ist, v, out, ctx);
}

#define LEG_OP(var, name)                                                                     \
    static const k_op var = { name, "", 1, 6, "ref", 0, leg_init, leg_infer, NULL, NULL,       \
                              leg_run, leg_fini, NULL };                                      \
    K_REGISTER(var);

LEG_OP(k_legacy_add, "Add")
LEG_OP(k_legacy_sub, "Sub")
LEG_OP(k_legacy_mul, "Mul")
LEG_OP(k_legacy_div, "Div")
LEG_OP(k_legacy_pow, "Pow")
LEG_OP(k_legacy_prelu, "PRelu")
LEG_OP(k_legacy_and, "And")
LEG_OP(k_legacy_or, "Or")
LEG_OP(k_legacy_xor, "Xor")
LEG_OP(k_legacy_equal, "Equal")
LEG_OP(k_legacy_greater, "Greater")
LEG_OP(k_legacy_less, "Less")
