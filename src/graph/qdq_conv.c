/* QDQ folding for convolutional networks (the int8 path of a QDQ model):
 * DequantizeLinear -> Conv -> [activation chain] -> QuantizeLinear becomes
 * QLinearConv with the chain as post-ops (kernels/post.h), and likewise
 * Add -> com.microsoft.QLinearAdd, Mul -> com.microsoft.QLinearMul,
 * GlobalAveragePool ->
 * com.microsoft.QLinearGlobalAveragePool, AveragePool ->
 * com.microsoft.QLinearAveragePool, Concat -> com.microsoft.QLinearConcat,
 * while MaxPool, Reshape, Flatten and nearest Resize whose Q after them
 * repeats the DQ's parameters run on the integer tensor itself. The quantised tensors then
 * flow between int8 layers and the DequantizeLinear nodes nobody reads any
 * more go with dead-node removal. Runs before constant folding, which would
 * turn the int8 weights behind their DequantizeLinear into float32; a
 * pattern that does not match stays as it is (the float Q/DQ path). */
#include "graph/passes.h"
#include "graph/fuse_priv.h"
#include "graph/qdq_util.h"
#include "graph/errs.h"
#include "core/core.h"
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define QC_CHAIN 16

typedef struct qc {
    g_graph *g;
    unsigned char *dead;
    int nconv, nother, nsum;
} qc;

static int oom(void) { return acl_fail(ACL_ERROR_BAD_ALLOC, "QDQ folding pass: out of memory"); }

/* A per-tensor 8-bit activation DQ feeding tensor t. */
static int act_dq(const g_graph *g, int t, qdq_param *p)
{
    return qdq_dq_of(g, t, p) && p->count == 1 && (p->qtype == G_U8 || p->qtype == G_I8);
}

/* The QuantizeLinear that is the only reader of t (per tensor, 8-bit). */
static int out_q(const qc *s, int t, qdq_param *q)
{
    int who[2], slot[2];
    if (qdq_readers(s->g, s->dead, t, who, slot, 2) != 1 || who[0] < 0 || slot[0] != 0) return 0;
    return qdq_param_of(s->g, who[0], 1, q) && q->count == 1 && (q->qtype == G_U8 || q->qtype == G_I8);
}

/* The zero point tensor of p, or a new zero of its type when omitted. */
static int zp_or_zero(g_graph *g, const qdq_param *p, const char *base)
{
    if (p->zp >= 0) return p->zp;
    int64_t zero = 0;
    g_shape sc = { .rank = 0 };
    return qdq_const_add(g, base, "zp", p->qtype, &sc, &zero);
}

static void kill(qc *s, const int *chain, int nchain, int qnode)
{
    for (int k = 0; k < nchain; k++) s->dead[chain[k]] = 1;
    s->dead[qnode] = 1;
}

/* The bias as int32 in the accumulator's scale x_scale * w_scale[c]: an
 * int32 DQ whose scale is that product keeps its values; any other
 * constant bias (float32, or another scale) is requantised. */
static int bias_i32(const g_graph *g, int bt, const qdq_param *dx, const qdq_param *dw, int64_t M,
                    int32_t *out)
{
    qdq_param db;
    const g_tensor *bf = NULL;
    int is_dq = qdq_dq_of(g, bt, &db);
    if (is_dq) {
        if (db.qtype != G_I32 || g->t[db.x].kind != G_TK_CONST || !g->t[db.x].data ||
            g_shape_numel(&g->t[db.x].shape) != M || (db.count != 1 && db.count != M))
            return 0;
    } else {
        bf = &g->t[bt];
        if (bf->kind != G_TK_CONST || !bf->data || bf->dtype != G_F32 || g_shape_numel(&bf->shape) != M)
            return 0;
    }
    float xs = qdq_scale(g, dx, 0);
    for (int64_t c = 0; c < M; c++) {
        float acc_scale = xs * qdq_scale(g, dw, c);
        double v;
        if (is_dq) {
            int32_t q = ((const int32_t *)g->t[db.x].data)[c];
            float sb = qdq_scale(g, &db, c);
            int32_t zb = qdq_zp(g, &db, c);
            if (sb == acc_scale && zb == 0) { out[c] = q; continue; }
            v = (double)(float)((double)((int64_t)q - zb) * sb); /* int32 q, zb: no wrap */
        } else {
            v = ((const float *)bf->data)[c];
        }
        double r = rint(v / (double)acc_scale);
        out[c] = r != r ? 0 : (int32_t)(r < INT_MIN ? INT_MIN : r > INT_MAX ? INT_MAX : r);
    }
    return 1;
}

static int try_conv(qc *s, int ni)
{
    g_graph *g = s->g;
    const g_node *n = &g->nodes[ni];
    if (n->n_in < 2 || n->n_in > 3 || n->n_out != 1 || n->out[0] < 0) return 0;
    qdq_param dx, dw, q;
    if (!act_dq(g, n->in[0], &dx) || !qdq_dq_of(g, n->in[1], &dw)) return 0;
    const g_tensor *w = &g->t[dw.x];
    if ((dw.qtype != G_I8 && dw.qtype != G_U8) || w->kind != G_TK_CONST || !w->data || w->shape.rank < 3)
        return 0;
    int64_t M = w->shape.d[0];
    int64_t ax = dw.axis < 0 ? dw.axis + w->shape.rank : dw.axis;
    if (dw.count != 1 && (dw.count != M || ax != 0)) return 0;
    int has_b = n->n_in == 3 && n->in[2] >= 0;
    nn_post p = { 0 };
    int chain[QC_CHAIN], nchain = 0;
    int last = qdq_chain(g, s->dead, n->out[0], &p, chain, &nchain, QC_CHAIN);
    if (!out_q(s, last, &q)) return 0;
    int32_t *b = NULL;
    if (has_b) {
        if (!(b = malloc((size_t)M * sizeof *b))) return oom();
        if (!bias_i32(g, n->in[2], &dx, &dw, M, b)) { free(b); return 0; }
    }
    const char *base = g->t[n->out[0]].name;
    int in[9] = { dx.x, dx.scale, -1, dw.x, dw.scale, -1, q.scale, -1, -1 };
    int qnode = q.node, qy = q.y;
    int rc = 0;
    if ((in[2] = zp_or_zero(g, &dx, base)) < 0 || (in[5] = zp_or_zero(g, &dw, base)) < 0 ||
        (in[7] = zp_or_zero(g, &q, base)) < 0)
        rc = oom();
    if (!rc && has_b) {
        g_shape bs = { .rank = 1, .d = { M } };
        if ((in[8] = qdq_const_add(g, base, "bias_i32_", G_I32, &bs, b)) < 0) rc = oom();
    }
    free(b);
    if (!rc) rc = qdq_retype(&g->nodes[ni], "qdq", "QLinearConv", "", in, has_b ? 9 : 8, 0);
    if (!rc && p.n) rc = fz_write_post(&g->nodes[ni], &p);
    if (rc) return rc;
    g->nodes[ni].out[0] = qy;
    kill(s, chain, nchain, qnode);
    s->nconv++;
    return 1;
}

/* Add or Mul of two quantised activations (with its chain) -> QLinearAdd
 * or QLinearMul (squeeze-excite scaling). */
static int try_bin(qc *s, int ni, const char *qop)
{
    g_graph *g = s->g;
    const g_node *n = &g->nodes[ni];
    qdq_param da, db, q;
    if (n->n_in != 2 || n->n_out != 1 || !act_dq(g, n->in[0], &da) || !act_dq(g, n->in[1], &db) ||
        da.qtype != db.qtype)
        return 0;
    nn_post p = { 0 };
    int chain[QC_CHAIN], nchain = 0;
    int last = qdq_chain(g, s->dead, n->out[0], &p, chain, &nchain, QC_CHAIN);
    if (!out_q(s, last, &q) || q.qtype != da.qtype) return 0;
    const char *base = g->t[n->out[0]].name;
    int in[8] = { da.x, da.scale, -1, db.x, db.scale, -1, q.scale, -1 };
    int qnode = q.node, qy = q.y, rc = 0;
    if ((in[2] = zp_or_zero(g, &da, base)) < 0 || (in[5] = zp_or_zero(g, &db, base)) < 0 ||
        (in[7] = zp_or_zero(g, &q, base)) < 0)
        rc = oom();
    if (!rc) rc = qdq_retype(&g->nodes[ni], "qdq", qop, "com.microsoft", in, 8, 0);
    if (!rc && p.n) rc = fz_write_post(&g->nodes[ni], &p);
    if (rc) return rc;
    g->nodes[ni].out[0] = qy;
    kill(s, chain, nchain, qnode);
    s->nother++;
    return 1;
}

/* GlobalAveragePool / AveragePool -> their com.microsoft QLinear forms. */
static int try_avg(qc *s, int ni, const char *qop)
{
    g_graph *g = s->g;
    const g_node *n = &g->nodes[ni];
    qdq_param dx, q;
    if (n->n_in != 1 || n->n_out != 1 || !act_dq(g, n->in[0], &dx) || !out_q(s, n->out[0], &q) ||
        q.qtype != dx.qtype)
        return 0;
    const char *base = g->t[n->out[0]].name;
    int in[5] = { dx.x, dx.scale, -1, q.scale, -1 };
    int qnode = q.node, qy = q.y, rc = 0;
    if ((in[2] = zp_or_zero(g, &dx, base)) < 0 || (in[4] = zp_or_zero(g, &q, base)) < 0) rc = oom();
    if (!rc) rc = qdq_retype(&g->nodes[ni], "qdq", qop, "com.microsoft", in, 5, 0);
    if (rc) return rc;
    g->nodes[ni].out[0] = qy;
    kill(s, NULL, 0, qnode);
    s->nother++;
    return 1;
}

/* Concat of quantised activations -> QLinearConcat (y scale, y zp, then
 * (x, scale, zp) per input). */
static int try_concat(qc *s, int ni)
{
    g_graph *g = s->g;
    const g_node *n = &g->nodes[ni];
    qdq_param q;
    if (n->n_in < 1 || n->n_out != 1 || !out_q(s, n->out[0], &q)) return 0;
    int k = n->n_in;
    qdq_param *d = malloc((size_t)k * sizeof *d);
    int *in = malloc((size_t)(2 + 3 * k) * sizeof *in);
    if (!d || !in) { free(d); free(in); return oom(); }
    int ok = 1;
    for (int j = 0; j < k && ok; j++) ok = act_dq(g, n->in[j], &d[j]) && d[j].qtype == q.qtype;
    int rc = 0;
    if (ok) {
        const char *base = g->t[n->out[0]].name;
        int qnode = q.node, qy = q.y;
        in[0] = q.scale;
        if ((in[1] = zp_or_zero(g, &q, base)) < 0) rc = oom();
        for (int j = 0; j < k && !rc; j++) {
            in[2 + 3 * j] = d[j].x;
            in[3 + 3 * j] = d[j].scale;
            if ((in[4 + 3 * j] = zp_or_zero(g, &d[j], base)) < 0) rc = oom();
        }
        if (!rc) rc = qdq_retype(&g->nodes[ni], "qdq", "QLinearConcat", "com.microsoft", in, 2 + 3 * k, 0);
        if (!rc) {
            g->nodes[ni].out[0] = qy;
            kill(s, NULL, 0, qnode);
            s->nother++;
        }
    }
    free(d);
    free(in);
    return rc ? rc : ok;
}

/* MaxPool, Reshape, Flatten between a DQ and a Q of the same parameters:
 * the op reads and writes the integer tensor (order-preserving or moving). */
static int try_same(qc *s, int ni)
{
    g_graph *g = s->g;
    const g_node *n = &g->nodes[ni];
    qdq_param dx, q;
    if (n->n_in < 1 || n->n_out < 1 || !act_dq(g, n->in[0], &dx)) return 0;
    for (int j = 1; j < n->n_out; j++)
        if (n->out[j] >= 0 && (g->t[n->out[j]].nuse > 0 || g->t[n->out[j]].is_output)) return 0;
    if (!out_q(s, n->out[0], &q) || !qdq_same(g, &dx, &q)) return 0;
    g_node *m = &g->nodes[ni];
    fz_unbind(m);
    m->in[0] = dx.x;
    m->out[0] = q.y;
    kill(s, NULL, 0, q.node);
    s->nother++;
    return 1;
}

/* A Resize that only gathers (nearest, no extrapolation fill): it runs on
 * the integers exactly as on their dequantised values. */
static int gathers(const g_node *n)
{
    return !strcmp(g_attr_str(n, "mode", "nearest"), "nearest") &&
           strcmp(g_attr_str(n, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize");
}

/* Readers of t that still matter: a DequantizeLinear whose output nobody
 * reads any more (its reader now takes t itself) does not count. */
static int live_readers(const qc *s, int t)
{
    const g_graph *g = s->g;
    int cnt = g->t[t].is_output ? 1 : 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (s->dead[i]) continue;
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j] != t) continue;
            int who[1], slot[1];
            if (qdq_is_op(n, "DequantizeLinear") && n->out[0] >= 0 &&
                qdq_readers(g, s->dead, n->out[0], who, slot, 1) == 0)
                continue;
            cnt++;
        }
    }
    return cnt;
}

/* A QLinearAdd (no broadcast, a Relu/Clip chain or none) one of whose
 * addends is a QLinearConv's output read by nothing else: the convolution
 * adds the other addend itself (inputs 9-11; its post-ops saturate and round
 * to its own output step as before, then NN_PO_ADD, then the add's chain)
 * and writes the add's output, a sum post-op for oneDNN. */
static int try_sum(qc *s, int ai)
{
    g_graph *g = s->g;
    const g_node *a = &g->nodes[ai];
    if (strcmp(a->op_type, "QLinearAdd") || strcmp(a->domain, "com.microsoft") || a->n_in != 8 ||
        a->n_out != 1)
        return 0;
    const g_shape *ys = &g->t[a->out[0]].shape;
    if (!g_shape_known(ys)) return 0;
    for (int k = 0; k < 2; k++) {
        int t = a->in[k * 3], rt = a->in[3 - k * 3];
        int pi = -1;   /* (the links are stale: the folded nodes write the Qs' outputs) */
        for (int i = 0; i < g->n_nodes && pi < 0; i++)
            if (!s->dead[i] && g->nodes[i].n_out > 0 && g->nodes[i].out[0] == t) pi = i;
        if (pi < 0 || !g_shape_eq(&g->t[rt].shape, ys) || !g_shape_eq(&g->t[t].shape, ys))
            continue;
        const g_node *c = &g->nodes[pi];
        if (strcmp(c->op_type, "QLinearConv") || c->domain[0] || c->n_in > 9 || c->out[0] != t ||
            live_readers(s, t) != 1)
            continue;
        nn_post cp, ap;
        if (nn_post_parse(c, &cp) || cp.n || nn_post_parse(a, &ap) || ap.n + 5 > NN_MAX_PO) continue;
        int homog = 1;   /* (Relu/Clip after the add: oneDNN then takes the whole chain) */
        for (int i = 0; i < ap.n; i++)
            if (ap.kind[i] != NN_PO_CLIP && !(ap.kind[i] == NN_PO_RELU && ap.a[i] == 0.f)) homog = 0;
        if (!homog) continue;
        /* the convolution's own output step s3 as ORT computes it: saturate
         * to its range and round to the step, then add */
        float s3 = g->t[c->in[6]].kind == G_TK_CONST ? *(const float *)g->t[c->in[6]].data : 0.f;
        const g_tensor *z3t = &g->t[c->in[7]];
        if (!(s3 > 0.f) || z3t->kind != G_TK_CONST || !z3t->data || (z3t->dtype != G_U8 && z3t->dtype != G_I8))
            continue;
        int32_t z3 = z3t->dtype == G_U8 ? *(const uint8_t *)z3t->data : *(const int8_t *)z3t->data;
        float qlo = z3t->dtype == G_U8 ? 0.f : -128.f, qhi = z3t->dtype == G_U8 ? 255.f : 127.f;
        nn_post p = { .n = 5, .kind = { NN_PO_CLIP, NN_PO_LINEAR, NN_PO_ROUND, NN_PO_LINEAR, NN_PO_ADD },
                      .has_add = 1 };
        p.a[0] = (qlo - (float)z3) * s3;
        p.b[0] = (qhi - (float)z3) * s3;
        p.a[1] = 1.f / s3;
        p.a[3] = s3;
        for (int i = 0; i < ap.n; i++) { p.kind[p.n] = ap.kind[i]; p.a[p.n] = ap.a[i]; p.b[p.n] = ap.b[i]; p.n++; }
        int in[12];
        for (int i = 0; i < 9; i++) in[i] = i < c->n_in ? c->in[i] : -1;
        in[6] = a->in[6];
        in[7] = a->in[7];
        in[9] = rt;
        in[10] = a->in[4 - k * 3];
        in[11] = a->in[5 - k * 3];
        int out = a->out[0];
        int rc = qdq_retype(&g->nodes[pi], "qdq", "QLinearConv", "", in, 12, 0);
        if (!rc) rc = fz_write_post(&g->nodes[pi], &p);
        if (rc) return rc;
        g->nodes[pi].out[0] = out;
        s->dead[ai] = 1;
        s->nsum++;
        return 1;
    }
    return 0;
}

static int sum_on(void)
{
    const char *e = getenv("OPENACL_QDQ_SUM");   /* 0: residual adds stay QLinearAdd nodes */
    return !(e && !strcmp(e, "0"));
}

static int has_dq(const g_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (qdq_is_op(&g->nodes[i], "DequantizeLinear")) return 1;
    return 0;
}

int graph_pass_qdq(g_graph *g)
{
    if (!g || !has_dq(g)) return 0;
    /* types and shapes, without folding (which would dequantise the weights) */
    int rc = graph_bind_infer(g, 0);
    if (rc) return rc;
    qc s = { .g = g };
    s.dead = calloc((size_t)g->n_nodes + 1, 1);
    if (!s.dead) return oom();
    /* each try_* answers 1 (folded), 0 (left as it is) or an aclError */
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        if (s.dead[i]) continue;
        const g_node *n = &g->nodes[i];
        int r = 0;
        if (qdq_is_op(n, "Conv")) r = try_conv(&s, i);
        else if (qdq_is_op(n, "Add")) r = try_bin(&s, i, "QLinearAdd");
        else if (qdq_is_op(n, "Mul")) r = try_bin(&s, i, "QLinearMul");
        else if (qdq_is_op(n, "GlobalAveragePool")) r = try_avg(&s, i, "QLinearGlobalAveragePool");
        else if (qdq_is_op(n, "AveragePool")) r = try_avg(&s, i, "QLinearAveragePool");
        else if (qdq_is_op(n, "Concat")) r = try_concat(&s, i);
        else if (qdq_is_op(n, "MaxPool") || qdq_is_op(n, "Reshape") || qdq_is_op(n, "Flatten") ||
                 (qdq_is_op(n, "Resize") && gathers(n)))
            r = try_same(&s, i);
        if (r > 1) rc = r;
    }
    for (int i = 0; i < g->n_nodes && !rc && sum_on(); i++) {
        if (s.dead[i]) continue;
        int r = try_sum(&s, i);
        if (r > 1) rc = r;
    }
    /* the fold pass binds afresh: an implementation chosen here saw the
     * weights behind their DequantizeLinear as activations, not constants */
    for (int i = 0; i < g->n_nodes; i++) fz_unbind(&g->nodes[i]);
    if (!rc && (s.nconv || s.nother)) {
        rc = graph_remove_nodes(g, s.dead);
        /* a convolution that took in a residual may read a tensor made later
         * in node order (a float branch's QuantizeLinear): sort before
         * dead-node removal, whose backward walk needs readers after
         * producers, or that branch goes as unread */
        if (!rc) rc = graph_toposort(g);
        if (!rc) rc = graph_dce(g);
        if (!rc)
            acl_log(1, "QDQ folding: %d int8 convolutions (%d with their residual add), %d other "
                    "int8 ops", s.nconv, s.nsum, s.nother);
    }
    free(s.dead);
    return rc;
}
