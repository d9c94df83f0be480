/* Sequences and optionals: container values are k_seq objects
 * (kernels/kernel.h): the engine hands run() an empty one for each container
 * output. */
#include "kernels/ref/control.h"
#include <stdlib.h>
#include <string.h>

static int has_in(const g_node *n, const k_tensor *in, int j)
{
    return j < n->n_in && n->in[j] >= 0 && in[j].dtype != G_UNDEF;
}

/* A scalar (or one-element) integer input as int64. */
static int scalar_i64(const g_node *n, const k_tensor *t, const char *what, int64_t *v)
{
    if (!t->data || g_shape_numel(&t->shape) != 1 || (t->dtype != G_I64 && t->dtype != G_I32))
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "%s must be one int32/int64 value", what);
    *v = read_i64(t);
    return 0;
}

static int box_infer_rank0(k_tensor *o, int dtype)
{
    o->dtype = dtype;
    memset(&o->shape, 0, sizeof o->shape);
    o->layout = G_LAYOUT_PLAIN;
    return 0;
}

static int seq_init(g_graph *g, g_node *n, void **st)
{
    const char *op = n->op_type;
    int d0 = in_dtype(g, n, 0);
    if (!strcmp(op, "SequenceInsert") || !strcmp(op, "SequenceAt") || !strcmp(op, "SequenceErase") ||
        !strcmp(op, "SequenceLength") || !strcmp(op, "ConcatFromSequence")) {
        if (!g_is_seq(d0))
            return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "input 0 must be a sequence, got %s",
                           g_dtype_name(d0));
    }
    if (!strcmp(op, "SequenceConstruct")) {
        if (n->n_in < 1) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "needs at least one input");
        for (int j = 0; j < n->n_in; j++)
            if (in_dtype(g, n, j) != d0 || g_is_container(d0) || !g_dtype_size(d0))
                return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "inputs must be tensors of one "
                               "type (input %d is %s, input 0 %s)", j,
                               g_dtype_name(in_dtype(g, n, j)), g_dtype_name(d0));
    }
    if (!strcmp(op, "SplitToSequence") && (g_is_container(d0) || !g_dtype_size(d0)))
        return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "input must be a tensor, got %s",
                       g_dtype_name(d0));
    if (!strcmp(op, "SequenceEmpty")) {
        int dt = (int)g_attr_int(n, "dtype", G_F32);
        if (!g_dtype_size(dt))
            return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "dtype %d is not supported", dt);
    }
    if (!strcmp(op, "ConcatFromSequence") && !g_node_attr(n, "axis"))
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "attribute 'axis' is required");
    return 0;
}

static int seq_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const char *op = n->op_type;
    if (!strcmp(op, "SequenceEmpty"))
        return box_infer_rank0(&out[0], G_SEQ_BASE + (int)g_attr_int(n, "dtype", G_F32));
    if (!strcmp(op, "SequenceConstruct")) return box_infer_rank0(&out[0], G_SEQ_BASE + in[0].dtype);
    if (!strcmp(op, "SplitToSequence")) return box_infer_rank0(&out[0], G_SEQ_BASE + in[0].dtype);
    if (!strcmp(op, "SequenceInsert")) {
        int e = g_container_elem(in[0].dtype);
        if (e != G_UNDEF && in[1].dtype != e)
            return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "inserting %s into %s",
                           g_dtype_name(in[1].dtype), g_dtype_name(in[0].dtype));
        return box_infer_rank0(&out[0], G_SEQ_BASE + in[1].dtype);
    }
    if (!strcmp(op, "SequenceErase")) return box_infer_rank0(&out[0], in[0].dtype);
    if (!strcmp(op, "SequenceLength")) return box_infer_rank0(&out[0], G_I64);
    /* SequenceAt, ConcatFromSequence: the value decides the shape */
    out[0].dtype = g_container_elem(in[0].dtype);
    out[0].layout = G_LAYOUT_PLAIN;
    const k_seq *q = in[0].data;
    if (!q || (!strcmp(op, "SequenceAt") && !in[1].data)) {
        out[0].shape.rank = -1;
        return K_NEED_DATA;
    }
    if (!strcmp(op, "SequenceAt")) {
        int64_t p = 0;
        int rc = scalar_i64(n, &in[1], "position", &p);
        if (rc) return rc;
        if (p < -q->n || p >= q->n)
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "position %lld is outside a sequence of %d",
                           (long long)p, q->n);
        const k_tensor *it = &q->items[p < 0 ? p + q->n : p];
        out[0].dtype = it->dtype;
        out[0].shape = it->shape;
        return 0;
    }
    /* ConcatFromSequence */
    if (q->n == 0) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "the sequence is empty");
    int new_axis = (int)g_attr_int(n, "new_axis", 0);
    const g_shape *s0 = &q->items[0].shape;
    int r = s0->rank + (new_axis ? 1 : 0), ax = 0;
    if (r > G_MAX_RANK) return cf_fail(n, ACL_ERROR_FEATURE_UNSUPPORTED, "rank %d too high", r);
    int rc = norm_axis(n, g_attr_int(n, "axis", 0), r, &ax);
    if (rc) return rc;
    g_shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (int i = 0, j = 0; i < r; i++) o.d[i] = (new_axis && i == ax) ? q->n : s0->d[j++];
    if (!new_axis) o.d[ax] = 0;
    for (int k = 0; k < q->n; k++) {
        const g_shape *sk = &q->items[k].shape;
        if (q->items[k].dtype != q->items[0].dtype || sk->rank != s0->rank)
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "element %d differs in type or rank", k);
        for (int i = 0; i < s0->rank; i++)
            if ((new_axis || i != ax) && sk->d[i] != s0->d[i])
                return cf_fail(n, ACL_ERROR_INVALID_PARAM, "element %d differs in dim %d", k, i);
        if (!new_axis) o.d[ax] += sk->d[ax];
    }
    out[0].dtype = q->items[0].dtype;
    out[0].shape = o;
    return 0;
}

/* Copies the [start, start+len) slab of x along axis into dst. */
static void slab_copy(const k_tensor *x, int axis, int64_t start, int64_t len, void *dst)
{
    size_t es = g_dtype_size(x->dtype);
    int64_t outer = 1, inner = (int64_t)es, D = x->shape.d[axis];
    for (int i = 0; i < axis; i++) outer *= x->shape.d[i];
    for (int i = axis + 1; i < x->shape.rank; i++) inner *= x->shape.d[i];
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)dst + o * len * inner, (const char *)x->data + (o * D + start) * inner,
               (size_t)(len * inner));
}

static int split_to_sequence(const g_node *n, const k_tensor *in, k_seq *q)
{
    const k_tensor *x = &in[0];
    int ax = 0, rc = norm_axis(n, g_attr_int(n, "axis", 0), x->shape.rank, &ax);
    if (rc) return rc;
    int64_t D = x->shape.d[ax];
    int64_t sizes_buf[64], *sizes = sizes_buf;
    int64_t cnt = 0;
    int squeeze = 0;
    if (has_in(n, in, 1)) {
        const k_tensor *sp = &in[1];
        int64_t ns = g_shape_numel(&sp->shape);
        if (!sp->data || (sp->dtype != G_I64 && sp->dtype != G_I32) || sp->shape.rank > 1)
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "'split' must be an int32/int64 scalar or "
                           "1-D tensor");
        if (sp->shape.rank == 0) {
            int64_t c = read_i64(sp);
            if (c <= 0) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "split size %lld", (long long)c);
            cnt = (D + c - 1) / c;
            if (cnt > 64 && !(sizes = malloc((size_t)cnt * sizeof *sizes)))
                return acl_fail(ACL_ERROR_BAD_ALLOC, "SplitToSequence: out of memory");
            for (int64_t i = 0; i < cnt; i++) sizes[i] = i + 1 < cnt ? c : D - c * (cnt - 1);
        } else {
            cnt = ns;
            if (cnt > 64 && !(sizes = malloc((size_t)cnt * sizeof *sizes)))
                return acl_fail(ACL_ERROR_BAD_ALLOC, "SplitToSequence: out of memory");
            int64_t sum = 0;
            for (int64_t i = 0; i < cnt; i++) {
                sizes[i] = sp->dtype == G_I64 ? ((const int64_t *)sp->data)[i] : ((const int32_t *)sp->data)[i];
                if (sizes[i] < 0) { rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "negative split"); break; }
                sum += sizes[i];
            }
            if (!rc && sum != D)
                rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "splits sum to %lld, axis has %lld",
                             (long long)sum, (long long)D);
        }
    } else {
        cnt = D;
        squeeze = g_attr_int(n, "keepdims", 1) == 0;
        if (cnt > 64 && !(sizes = malloc((size_t)cnt * sizeof *sizes)))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "SplitToSequence: out of memory");
        for (int64_t i = 0; i < cnt; i++) sizes[i] = 1;
    }
    int64_t start = 0;
    for (int64_t i = 0; i < cnt && !rc; i++) {
        k_tensor piece = { .dtype = x->dtype, .shape = x->shape };
        piece.shape.d[ax] = sizes[i];
        piece.nbytes = k_nbytes(&piece);
        piece.data = malloc(piece.nbytes ? piece.nbytes : 1);
        if (!piece.data) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "SplitToSequence: out of memory"); break; }
        slab_copy(x, ax, start, sizes[i], piece.data);
        start += sizes[i];
        if (squeeze) {
            for (int k = ax; k + 1 < piece.shape.rank; k++) piece.shape.d[k] = piece.shape.d[k + 1];
            piece.shape.rank--;
        }
        rc = k_seq_insert(q, q->n, &piece);
        free(piece.data);
    }
    if (sizes != sizes_buf) free(sizes);
    return rc;
}

static int seq_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const char *op = n->op_type;
    int rc = 0;
    if (!strcmp(op, "SequenceLength")) {
        *(int64_t *)out[0].data = ((const k_seq *)in[0].data)->n;
        return 0;
    }
    if (!strcmp(op, "SequenceAt") || !strcmp(op, "ConcatFromSequence")) {
        const k_seq *q = in[0].data;
        if (!strcmp(op, "SequenceAt")) {
            int64_t p = 0;
            if ((rc = scalar_i64(n, &in[1], "position", &p))) return rc;
            if (p < -q->n || p >= q->n) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "bad position");
            const k_tensor *it = &q->items[p < 0 ? p + q->n : p];
            size_t nb = k_nbytes(it);
            if (nb > out[0].nbytes) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "output too small");
            if (nb) memcpy(out[0].data, it->data, nb);
            return 0;
        }
        int new_axis = (int)g_attr_int(n, "new_axis", 0), ax = 0;
        if ((rc = norm_axis(n, g_attr_int(n, "axis", 0), out[0].shape.rank, &ax))) return rc;
        int64_t pos = 0;
        for (int k = 0; k < q->n; k++) {
            const k_tensor *it = &q->items[k];
            int64_t len = new_axis ? 1 : it->shape.d[ax];
            size_t es = g_dtype_size(it->dtype);
            int64_t outer = 1, inner = (int64_t)es, D = out[0].shape.d[ax];
            for (int i = 0; i < ax; i++) outer *= out[0].shape.d[i];
            for (int i = ax + 1; i < out[0].shape.rank; i++) inner *= out[0].shape.d[i];
            for (int64_t o = 0; o < outer; o++)
                memcpy((char *)out[0].data + (o * D + pos) * inner,
                       (const char *)it->data + o * len * inner, (size_t)(len * inner));
            pos += len;
        }
        return 0;
    }
    k_seq *q = out[0].data;
    k_seq_clear(q);
    if (!strcmp(op, "SequenceEmpty")) return 0;
    if (!strcmp(op, "SequenceConstruct")) {
        for (int j = 0; j < n->n_in && !rc; j++) rc = k_seq_insert(q, q->n, &in[j]);
        return rc ? acl_fail(rc, "SequenceConstruct: out of memory") : 0;
    }
    if (!strcmp(op, "SplitToSequence")) return split_to_sequence(n, in, q);
    const k_seq *src = in[0].data;
    for (int k = 0; k < src->n && !rc; k++) rc = k_seq_insert(q, q->n, &src->items[k]);
    if (rc) return acl_fail(rc, "%s: out of memory", op);
    int64_t p = 0;
    if (!strcmp(op, "SequenceInsert")) {
        p = q->n;
        if (has_in(n, in, 2) && (rc = scalar_i64(n, &in[2], "position", &p))) return rc;
        if (p < -q->n || p > q->n)
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "position %lld is outside [-%d, %d]",
                           (long long)p, q->n, q->n);
        rc = k_seq_insert(q, (int)(p < 0 ? p + q->n : p), &in[1]);
        return rc ? acl_fail(rc, "SequenceInsert: out of memory") : 0;
    }
    /* SequenceErase */
    p = -1;
    if (has_in(n, in, 1) && (rc = scalar_i64(n, &in[1], "position", &p))) return rc;
    if (p < -q->n || p >= q->n)
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "position %lld is outside a sequence of %d",
                       (long long)p, q->n);
    k_seq_erase(q, (int)(p < 0 ? p + q->n : p));
    return 0;
}

#define SEQ_OP(var, name, lo)                                                               \
    static const k_op var = { .op_type = name, .domain = "", .since = lo, .until = 0,       \
                              .impl = "ref", .priority = 0, .init = seq_init,               \
                              .infer = seq_infer, .run = seq_run };                         \
    K_REGISTER(var)
SEQ_OP(k_seq_empty, "SequenceEmpty", 11);
SEQ_OP(k_seq_construct, "SequenceConstruct", 11);
SEQ_OP(k_seq_insert_op, "SequenceInsert", 11);
SEQ_OP(k_seq_at, "SequenceAt", 11);
SEQ_OP(k_seq_erase_op, "SequenceErase", 11);
SEQ_OP(k_seq_length, "SequenceLength", 11);
SEQ_OP(k_split_to_seq, "SplitToSequence", 11);
SEQ_OP(k_concat_from_seq, "ConcatFromSequence", 11);

/* ---- optionals ---- */

static int opt_init(g_graph *g, g_node *n, void **st)
{
    int d0 = in_dtype(g, n, 0);
    if (!strcmp(n->op_type, "Optional")) {
        const g_attr *a = g_node_attr(n, "type");
        if (n->n_in < 1 || n->in[0] < 0) {
            if (!a || a->type != G_AT_TYPE || g_is_opt((int)a->i))
                return cf_fail(n, ACL_ERROR_INVALID_PARAM, "an empty Optional needs a 'type'");
        } else if (g_is_opt(d0)) {
            return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "optional of an optional");
        }
        return 0;
    }
    if (n->opset < 18 && !g_is_opt(d0))
        return cf_fail(n, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "input must be an optional, got %s",
                       g_dtype_name(d0));
    return 0;
}

static int opt_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    if (!strcmp(n->op_type, "Optional")) {
        int inner = has_in(n, in, 0) ? in[0].dtype : (int)g_attr_int(n, "type", G_UNDEF);
        return box_infer_rank0(&out[0], G_OPT_BASE + inner);
    }
    if (!strcmp(n->op_type, "OptionalHasElement")) return box_infer_rank0(&out[0], G_BOOL);
    /* OptionalGetElement */
    int inner = g_is_opt(in[0].dtype) ? g_container_elem(in[0].dtype) : in[0].dtype;
    if (g_is_container(inner)) return box_infer_rank0(&out[0], inner);
    out[0].dtype = inner;
    out[0].layout = G_LAYOUT_PLAIN;
    if (!g_is_opt(in[0].dtype)) { out[0].shape = in[0].shape; return 0; }
    const k_seq *q = in[0].data;
    if (!q) { out[0].shape.rank = -1; return K_NEED_DATA; }
    if (q->n == 0) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "the optional is empty");
    out[0].dtype = q->items[0].dtype;
    out[0].shape = q->items[0].shape;
    return 0;
}

static int opt_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int rc = 0;
    if (!strcmp(n->op_type, "Optional")) {
        k_seq *q = out[0].data;
        k_seq_clear(q);
        if (has_in(n, in, 0) && (rc = k_seq_insert(q, 0, &in[0])))
            return acl_fail(rc, "Optional: out of memory");
        return 0;
    }
    if (!strcmp(n->op_type, "OptionalHasElement")) {
        *(unsigned char *)out[0].data = !has_in(n, in, 0) ? 0 :
            g_is_opt(in[0].dtype) ? ((const k_seq *)in[0].data)->n > 0 : 1;
        return 0;
    }
    const k_tensor *v = &in[0];
    if (g_is_opt(in[0].dtype)) {
        const k_seq *q = in[0].data;
        if (q->n == 0) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "the optional is empty");
        v = &q->items[0];
    }
    if (g_is_container(v->dtype)) {
        k_seq *dst = out[0].data, *cl = k_seq_clone(v->data);
        if (!cl) return acl_fail(ACL_ERROR_BAD_ALLOC, "OptionalGetElement: out of memory");
        k_seq tmp = *dst;
        *dst = *cl;
        *cl = tmp;
        k_seq_free(cl);
        return 0;
    }
    size_t nb = k_nbytes(v);
    if (nb > out[0].nbytes) return cf_fail(n, ACL_ERROR_INVALID_PARAM, "output too small");
    if (nb) memcpy(out[0].data, v->data, nb);
    return 0;
}

#define OPT_OP(var, name, lo)                                                               \
    static const k_op var = { .op_type = name, .domain = "", .since = lo, .until = 0,       \
                              .impl = "ref", .priority = 0, .init = opt_init,               \
                              .infer = opt_infer, .run = opt_run };                         \
    K_REGISTER(var)
OPT_OP(k_optional, "Optional", 15);
OPT_OP(k_opt_has, "OptionalHasElement", 15);
OPT_OP(k_opt_get, "OptionalGetElement", 15);

/* Identity of a container value (tensors go to the elementwise Identity). */
static int box_id_init(g_graph *g, g_node *n, void **st)
{
    return g_is_container(in_dtype(g, n, 0)) ? 0 : K_DECLINE;
}

static int box_id_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    return box_infer_rank0(&out[0], in[0].dtype);
}

static int box_id_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    k_seq *dst = out[0].data, *cl = k_seq_clone(in[0].data);
    if (!cl) return acl_fail(ACL_ERROR_BAD_ALLOC, "Identity: out of memory");
    k_seq tmp = *dst;
    *dst = *cl;
    *cl = tmp;
    k_seq_free(cl);
    return 0;
}

static const k_op k_box_identity = { .op_type = "Identity", .domain = "", .since = 1, .until = 0,
                                     .impl = "ref_container", .priority = 1, .init = box_id_init,
                                     .infer = box_id_infer, .run = box_id_run };
K_REGISTER(k_box_identity);
