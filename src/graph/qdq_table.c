/* QDQ models: an elementwise float function of one quantised tensor that is
 * quantised again is a table of 256 bytes. From DequantizeLinear(x), x one
 * uint8/int8 tensor with one scale: nodes that are elementwise (the ops of
 * TABLE_OPS, per-tensor QuantizeLinear/DequantizeLinear) and read only
 * tensors computed from x that way or constants of one value form the
 * closure of x; each byte of its tensors depends on the byte of x at the same
 * position only. A per-tensor QuantizeLinear of the closure whose output
 * leaves it (read by another node, or a graph output) becomes
 * openacl.QTable(x, T) with T[b] the closure evaluated on byte b (int8
 * bytes as stored: -1 is b = 255). ONNX Runtime's quantiser writes SiLU so:
 *     Conv -> Q -> DQ -> Sigmoid -> Q -> DQ -> Mul(DQ, DQ) -> Q
 * (openacl-quant --act-tables too); the Conv becomes a QLinearConv and the
 * rest one table lookup.
 * T is computed by the nodes themselves: the pass copies the part of the
 * closure the QuantizeLinear reads into a graph of its own whose input is
 * the constant of the 256 byte values, and that graph's constant folding
 * runs the kernels the float chain would have run, so T holds what the
 * chain computes here, value for value. A chain that does not fold (an op
 * without a kernel, an error) is left as it was.
 * Runs before the int8 passes (the Conv then writes x as a QLinearConv);
 * OPENACL_QDQ_TABLE=0: off. */
#include "graph/passes.h"
#include "graph/qdq_util.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

#define QT_MAX_NODES 32

/* elementwise ops of one float tensor (or two of the closure) and scalar
 * constants: each output element depends on the same element of the inputs */
static const char *const TABLE_OPS[] = {
    "Abs", "Add", "Ceil", "Celu", "Clip", "Cos", "Div", "Elu", "Erf", "Exp", "Floor", "Gelu",
    "HardSigmoid", "HardSwish", "Identity", "LeakyRelu", "Log", "Max", "Mean", "Min", "Mish", "Mul",
    "Neg", "Pow", "PRelu", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Softplus",
    "Softsign", "Sqrt", "Sub", "Sum", "Tanh", "ThresholdedRelu",
};

static int table_op(const g_graph *g, int ni)
{
    const g_node *n = &g->nodes[ni];
    qdq_param p;
    if (qdq_is_op(n, "QuantizeLinear") || qdq_is_op(n, "DequantizeLinear"))
        return qdq_param_of(g, ni, qdq_is_op(n, "QuantizeLinear"), &p) && p.count == 1 &&
               (p.qtype == G_U8 || p.qtype == G_I8);
    if (n->n_out != 1 || n->out[0] < 0) return 0;
    for (size_t i = 0; i < sizeof TABLE_OPS / sizeof TABLE_OPS[0]; i++)
        if (qdq_is_op(n, TABLE_OPS[i])) return 1;
    return 0;
}

/* Whether node ni joins the closure (in_s: tensors computed from x): an
 * elementwise op reading at least one closure tensor, everything else it
 * reads constants of one value whose rank does not exceed x's (the output
 * keeps x's shape). */
static int joins(const g_graph *g, int ni, const unsigned char *in_s, int xrank)
{
    const g_node *n = &g->nodes[ni];
    int from_x = 0;
    for (int j = 0; j < n->n_in; j++) {
        int t = n->in[j];
        if (t < 0) continue;
        if (in_s[t]) { from_x = 1; continue; }
        const g_tensor *c = &g->t[t];
        if (c->kind != G_TK_CONST || !c->data || g_shape_numel(&c->shape) != 1 || c->shape.rank > xrank)
            return 0;
    }
    return from_x && table_op(g, ni);
}

static int copy_attrs(g_node *dst, const g_node *src)
{
    if (!src->n_attr) return 0;
    dst->attr = calloc((size_t)src->n_attr, sizeof *dst->attr);
    if (!dst->attr) return -1;
    for (int a = 0; a < src->n_attr; a++) {
        const g_attr *s = &src->attr[a];
        g_attr *d = &dst->attr[dst->n_attr];
        if (s->type != G_AT_FLOAT && s->type != G_AT_INT && s->type != G_AT_STRING && s->type != G_AT_INTS &&
            s->type != G_AT_FLOATS)
            return -1;
        *d = (g_attr){ .type = s->type, .f = s->f, .i = s->i, .n = s->n, .slen = s->slen };
        dst->n_attr++;
        d->name = strdup(s->name);
        if (!d->name) return -1;
        if (s->s && (!(d->s = malloc(s->slen + 1)) || !memcpy(d->s, s->s, s->slen + 1))) return -1;
        if (s->ints && s->n && (!(d->ints = malloc((size_t)s->n * 8)) || !memcpy(d->ints, s->ints, (size_t)s->n * 8)))
            return -1;
        if (s->floats && s->n &&
            (!(d->floats = malloc((size_t)s->n * 4)) || !memcpy(d->floats, s->floats, (size_t)s->n * 4)))
            return -1;
    }
    return 0;
}

/* Copies node ni of g into mini (tensor map: g's index -> mini's, -1 not yet):
 * constants are copied, the outputs made anew. 0, or -1. */
static int clone_node(const g_graph *g, g_graph *mini, int ni, int *map)
{
    const g_node *n = &g->nodes[ni];
    int in[8], out[1];
    if (n->n_in > 8 || n->n_out != 1) return -1;
    for (int j = 0; j < n->n_in; j++) {
        int t = n->in[j];
        if (t < 0) { in[j] = -1; continue; }
        if (map[t] < 0) {
            const g_tensor *c = &g->t[t];
            if (c->kind != G_TK_CONST) return -1;
            map[t] = qdq_const_add(mini, c->name, "c", c->dtype, &c->shape, c->data);
            if (map[t] < 0) return -1;
        }
        in[j] = map[t];
    }
    out[0] = map[n->out[0]] = g_tensor_add(mini, g->t[n->out[0]].name);
    if (out[0] < 0) return -1;
    int k = g_node_add(mini, n->op_type, n->domain, n->name, n->n_in, in, 1, out);
    if (k < 0) return -1;
    mini->nodes[k].opset = n->opset;
    return copy_attrs(&mini->nodes[k], n);
}

/* The table of exit QuantizeLinear e over leaf tensor x (closure marks in
 * in_c, nodes in topological order): the 256 bytes in tab and 1, or 0 when
 * the chain does not fold here (or memory ran out: the chain then stays). */
static int eval_table(const g_graph *g, int x, int e, const unsigned char *in_c, uint8_t *tab)
{
    g_graph *mini = g_graph_new();
    int *map = malloc((size_t)g->n_t * sizeof *map);
    unsigned char *need = calloc((size_t)g->n_nodes, 1);
    int rc = 0, quiet = acl_err_quiet(1);
    if (!mini || !map || !need) goto done;
    for (int t = 0; t < g->n_t; t++) map[t] = -1;
    /* the nodes e reads through the closure, walked back */
    need[e] = 1;
    for (int i = e; i >= 0; i--) {
        if (!need[i]) continue;
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int t = g->nodes[i].in[j], p = t >= 0 ? g->t[t].producer : -1;
            if (p >= 0 && in_c[p]) need[p] = 1;
        }
    }
    uint8_t bytes[256];
    for (int b = 0; b < 256; b++) bytes[b] = (uint8_t)b;
    g_shape s = { .rank = 1, .d = { 256 } };
    mini->opset = g->opset;
    map[x] = qdq_const_add(mini, g->t[x].name, "bytes", g->t[x].dtype, &s, bytes);
    if (map[x] < 0) goto done;
    for (int i = 0; i <= e; i++)
        if (need[i] && clone_node(g, mini, i, map)) goto done;
    if (graph_toposort(mini) || graph_bind_infer(mini, 1)) goto done;
    int y = g->nodes[e].out[0];
    const g_tensor *t = &mini->t[map[y]];
    if (t->kind == G_TK_CONST && t->data && t->nbytes == 256 && t->dtype == g->t[y].dtype) {
        memcpy(tab, t->data, 256);
        rc = 1;
    }
done:
    acl_err_quiet(quiet);
    g_graph_free(mini);
    free(map);
    free(need);
    return rc;
}

/* Whether tensor t is read outside the closure: by a node not in it, as a
 * graph output, or (deep 1) through a DequantizeLinear of the closure whose
 * output is (the next op reads the integers: a QuantizeLinear whose bytes
 * only come back as floats to the closure is an inner step, not an exit). */
static int leaves(const g_graph *g, int t, const unsigned char *in_c, int deep)
{
    if (g->t[t].is_output) return 1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            if (g->nodes[i].in[j] != t) continue;
            if (!in_c[i]) return 1;
            if (deep && qdq_is_op(&g->nodes[i], "DequantizeLinear") && leaves(g, g->nodes[i].out[0], in_c, 0))
                return 1;
        }
    return 0;
}

/* The closure of DequantizeLinear d (in_c over nodes, in_s over tensors,
 * both cleared by the caller): its node count, or 0 when it is not a leaf. */
static int closure(const g_graph *g, int d, unsigned char *in_c, unsigned char *in_s, int *xrank)
{
    qdq_param p;
    if (!qdq_param_of(g, d, 0, &p) || p.count != 1 || (p.qtype != G_U8 && p.qtype != G_I8)) return 0;
    const g_tensor *x = &g->t[p.x];
    if (x->kind == G_TK_CONST || x->shape.rank < 0) return 0;
    *xrank = x->shape.rank;
    in_c[d] = 1;
    in_s[p.y] = 1;
    int cnt = 1;
    for (int i = d + 1; i < g->n_nodes && cnt < QT_MAX_NODES; i++) {
        if (!joins(g, i, in_s, *xrank)) continue;
        in_c[i] = 1;
        in_s[g->nodes[i].out[0]] = 1;
        cnt++;
    }
    return cnt;
}

/* Turns the exits of DequantizeLinear d's closure into tables: how many, or
 * a negative aclError. */
static int table_leaf(g_graph *g, int d, unsigned char *in_c, unsigned char *in_s)
{
    int xrank, made = 0;
    memset(in_c, 0, (size_t)g->n_nodes);
    memset(in_s, 0, (size_t)g->n_t);
    if (closure(g, d, in_c, in_s, &xrank) < 2) return 0;
    int x = g->nodes[d].in[0];
    for (int e = d + 1; e < g->n_nodes; e++) {
        if (!in_c[e] || !qdq_is_op(&g->nodes[e], "QuantizeLinear") || !leaves(g, g->nodes[e].out[0], in_c, 1))
            continue;
        uint8_t tab[256];
        if (!eval_table(g, x, e, in_c, tab)) continue;
        g_shape s = { .rank = 1, .d = { 256 } };
        int yt = g->t[g->nodes[e].out[0]].dtype;
        int t = qdq_const_add(g, g->nodes[e].name, "table", yt, &s, tab);
        if (t < 0) return -acl_fail(ACL_ERROR_BAD_ALLOC, "QDQ table pass: out of memory");
        int in[2] = { x, t };
        int rc = qdq_retype(&g->nodes[e], "QDQ table", "QTable", "openacl", in, 2, 1);
        if (rc) return -rc;
        made++;
    }
    return made;
}

static int table_on(void)
{
    const char *e = getenv("OPENACL_QDQ_TABLE");
    return !(e && !strcmp(e, "0"));
}

int graph_pass_qdq_table(g_graph *g)
{
    if (!g || !table_on()) return 0;
    int have_dq = 0;
    for (int i = 0; i < g->n_nodes && !have_dq; i++) have_dq = qdq_is_op(&g->nodes[i], "DequantizeLinear");
    if (!have_dq) return 0;
    int rc = graph_bind_infer(g, 0);   /* ranks, for the broadcast check */
    if (rc) return rc;
    int made = 0;
    for (int d = 0; d < g->n_nodes; d++) {
        if (!qdq_is_op(&g->nodes[d], "DequantizeLinear")) continue;
        /* sized anew per leaf: the tables made so far added constants */
        unsigned char *in_c = calloc((size_t)g->n_nodes, 1), *in_s = calloc((size_t)g->n_t + 1, 1);
        int r = in_c && in_s ? table_leaf(g, d, in_c, in_s) : -acl_fail(ACL_ERROR_BAD_ALLOC, "QDQ table pass: out of memory");
        free(in_c);
        free(in_s);
        if (r < 0) return -r;
        made += r;
    }
    if (!made) return 0;
    rc = graph_dce(g);
    if (!rc) rc = graph_toposort(g);
    if (!rc) acl_log(1, "QDQ table: %d elementwise chain(s) between quantised tensors run as 256-entry tables", made);
    return rc;
}
