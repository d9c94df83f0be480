/* QDQ models: a scalar affine between two quantised tensors that maps every
 * integer onto itself. DequantizeLinear(h) -> Mul/Add/Sub/Div by one value
 * each -> QuantizeLinear(y) whose grids line up (y's step is a * h's step and
 * the offset b a whole number of steps; openacl-quant lays the learnable
 * affine of PP-OCR's blocks out so, docs/quantization.md section 4) gives
 * q(y) == q(h) for every input byte: the readers of q(y) read q(h) itself,
 * and the float chain goes with dead-node removal when nobody else reads it.
 * The check is on all 256 integers in double precision, clear of the
 * rounding ties by more than float32 evaluation could move a value, so any
 * evaluation of the chain (ours, ONNX Runtime's) rounds to the same
 * integer: the rewrite changes no value. An offset a fraction of a step
 * off the grid still qualifies when it rounds away (saturation at the two
 * ends included); a tie does not.
 * Runs before the int8 passes, so the convolution after it becomes one
 * QLinearConv reading the byte tensor (OPENACL_QDQ_AFFINE=0: off). */
#include "graph/passes.h"
#include "graph/qdq_util.h"
#include "core/core.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QA_MAX_STEPS 8

typedef struct qa_step {
    char op;          /* '*', '+', '-', '/' */
    int const_first;  /* c op x instead of x op c */
    double c;
} qa_step;

/* The one-value float32 constant among n's two inputs and the other input:
 * 1 with *var and st filled, else 0. The constant's rank may not exceed the
 * variable's, so the output keeps the variable's shape. */
static int scalar_step(const g_graph *g, const g_node *n, int *var, qa_step *st)
{
    static const char ops[] = { '*', '+', '-', '/' };
    static const char *const names[] = { "Mul", "Add", "Sub", "Div" };
    int k = -1;
    for (int i = 0; i < 4 && k < 0; i++)
        if (qdq_is_op(n, names[i])) k = i;
    if (k < 0 || n->n_in != 2 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0) return 0;
    for (int j = 0; j < 2; j++) {
        const g_tensor *c = &g->t[n->in[j]];
        const g_tensor *v = &g->t[n->in[1 - j]];
        if (c->kind != G_TK_CONST || !c->data || c->dtype != G_F32 || g_shape_numel(&c->shape) != 1)
            continue;
        if (v->kind == G_TK_CONST) return 0;
        if (c->shape.rank > 0 && v->shape.rank < c->shape.rank) return 0;   /* (or unknown) */
        *var = n->in[1 - j];
        st->op = ops[k];
        st->const_first = j == 0;
        st->c = ((const float *)c->data)[0];
        return 1;
    }
    return 0;
}

static double step_apply(const qa_step *st, double x)
{
    double a = st->const_first ? st->c : x, b = st->const_first ? x : st->c;
    switch (st->op) {
    case '*': return a * b;
    case '+': return a + b;
    case '-': return a - b;
    default: return a / b;
    }
}

/* Whether every integer of the type maps to itself through dequantise,
 * the steps (applied last to first) and quantise: computed in double, each
 * value must round to itself (or saturate onto itself at the two ends) with
 * a margin from the rounding tie of 1e-3 steps plus what float32 rounding
 * of the largest intermediate could move it, so any float32 evaluation of
 * the chain (ours, ONNX Runtime's) quantises to the same integer. */
static int maps_identity(const g_graph *g, const qdq_param *dq, const qdq_param *q, const qa_step *st, int n)
{
    int lo = dq->qtype == G_U8 ? 0 : -128, hi = dq->qtype == G_U8 ? 255 : 127;
    double sx = qdq_scale(g, dq, 0), sy = qdq_scale(g, q, 0);
    double zx = qdq_zp(g, dq, 0), zy = qdq_zp(g, q, 0);
    for (int v = lo; v <= hi; v++) {
        double x = (v - zx) * sx, big = fabs(x);
        for (int i = n - 1; i >= 0; i--) {
            x = step_apply(&st[i], x);
            if (fabs(x) > big) big = fabs(x);
        }
        double r = x / sy + zy;
        double eps = 1e-3 + 1e-6 * (n + 2) * (big / sy + fabs(zy));
        int ok = fabs(r - v) < 0.5 - eps || (v == lo && r < lo + 0.5 - eps) || (v == hi && r > hi - 0.5 + eps);
        if (!ok || !isfinite(r) || !(eps < 0.25)) return 0;   /* NaN and inf fail too */
    }
    return 1;
}

/* QuantizeLinear node qi: the integer tensor its output repeats, or -1. */
static int identity_source(const g_graph *g, int qi)
{
    qdq_param q, dq;
    if (!qdq_param_of(g, qi, 1, &q) || q.count != 1 || (q.qtype != G_U8 && q.qtype != G_I8)) return -1;
    if (g->t[q.y].is_output) return -1;
    qa_step st[QA_MAX_STEPS];
    int n = 0, t = q.x;
    while (n < QA_MAX_STEPS && t >= 0 && g->t[t].producer >= 0) {
        int var;
        if (!scalar_step(g, &g->nodes[g->t[t].producer], &var, &st[n])) break;
        n++;
        t = var;
    }
    if (!n || !qdq_dq_of(g, t, &dq) || dq.count != 1 || dq.qtype != q.qtype) return -1;
    return maps_identity(g, &dq, &q, st, n) ? dq.x : -1;
}

static int affine_on(void)
{
    const char *e = getenv("OPENACL_QDQ_AFFINE");
    return !(e && !strcmp(e, "0"));
}

/* Whether g has both a QuantizeLinear and a DequantizeLinear, and no
 * subgraph (whose nodes could read a rewired tensor by name). */
static int candidate(const g_graph *g)
{
    int q = 0, dq = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        q |= qdq_is_op(n, "QuantizeLinear");
        dq |= qdq_is_op(n, "DequantizeLinear");
        for (int a = 0; a < n->n_attr; a++)
            if (n->attr[a].type == G_AT_GRAPH) return 0;
    }
    return q && dq;
}

int graph_pass_qdq_affine(g_graph *g)
{
    if (!g || !affine_on() || !candidate(g)) return 0;
    /* the ranks the broadcast check needs (the qdq pass infers again) */
    int rc = graph_bind_infer(g, 0);
    if (rc) return rc;
    int nfold = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!qdq_is_op(&g->nodes[i], "QuantizeLinear")) continue;
        int src = identity_source(g, i);
        if (src < 0) continue;
        int y = g->nodes[i].out[0];
        for (int k = 0; k < g->n_nodes; k++) {
            g_node *r = &g->nodes[k];
            for (int j = 0; j < r->n_in; j++)
                if (r->in[j] == y) r->in[j] = src;
        }
        nfold++;
    }
    if (!nfold) return 0;
    rc = graph_dce(g);
    if (!rc) rc = graph_toposort(g);
    if (!rc) acl_log(1, "QDQ affine: %d scalar affine(s) between quantised tensors read as the same integers", nfold);
    return rc;
}
