/* The load-time graph passes (see passes.h for the pipeline): ordering,
 * cleanup, kernel choice, shape/type inference and constant folding. */
#include "graph/passes.h"
#include "graph/errs.h"
#include "graph/precision.h"
#include "core/core.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FOLD_MAX_BYTES ((size_t)1 << 30)

static int oom(const char *where) { return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", where); }

int graph_node_has_subgraph(const g_node *n)
{
    for (int i = 0; i < n->n_attr; i++)
        if (n->attr[i].type == G_AT_GRAPH && n->attr[i].g) return 1;
    return 0;
}

void graph_node_io(const g_graph *g, const g_node *n, k_tensor *in, k_tensor *out)
{
    for (int i = 0; i < n->n_in; i++) {
        k_tensor *k = &in[i];
        memset(k, 0, sizeof *k);
        int ti = n->in[i];
        if (ti < 0) { k->dtype = G_UNDEF; k->shape.rank = 0; continue; }
        const g_tensor *t = &g->t[ti];
        k->dtype = t->dtype;
        k->shape = t->shape;
        k->layout = t->layout;
        if (t->kind == G_TK_CONST && t->data) {
            k->data = t->data;
            k->nbytes = t->nbytes;
        } else {
            k->nbytes = k_nbytes(k);
        }
    }
    for (int i = 0; i < n->n_out; i++) {
        k_tensor *k = &out[i];
        memset(k, 0, sizeof *k);
        int ti = n->out[i];
        k->shape.rank = -1;
        if (ti < 0) { k->dtype = G_UNDEF; continue; }
        k->dtype = g->t[ti].dtype;
    }
}

int graph_remove_nodes(g_graph *g, const unsigned char *dead)
{
    return graph_remove_nodes_snap(g, dead, NULL);
}

int graph_remove_nodes_snap(g_graph *g, const unsigned char *dead, const g_cover_snap *snap)
{
    /* first credit what goes to the nodes that stay (dump index, cover.c) */
    g_cover_snap now = { 0 };
    int rc = snap ? 0 : graph_cover_snap(g, &now);
    if (!rc) rc = graph_record_cover(g, dead, snap ? snap : &now);
    graph_cover_snap_free(&now);
    if (rc) return rc;
    int w = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        if (!dead[i]) {
            if (w != i) g->nodes[w] = *n;
            w++;
            continue;
        }
        if (n->op && n->op->fini && n->state) n->op->fini(n->state);
        free(n->name); free(n->op_type); free(n->domain); free(n->in); free(n->out);
        for (int j = 0; j < n->n_attr; j++) g_attr_clear(&n->attr[j]);
        free(n->attr);
    }
    g->n_nodes = w;
    return g_graph_link(g);
}

/* ---- topological sort ---- */

int graph_toposort(g_graph *g)
{
    int rc = g_graph_link(g);
    if (rc) return rc;
    int nn = g->n_nodes;
    if (nn == 0) return 0;
    int *indeg = calloc((size_t)nn, sizeof *indeg);
    int *start = calloc((size_t)g->n_t + 1, sizeof *start);   /* CSR of consumers per tensor */
    int total = 0;
    for (int i = 0; i < nn; i++) total += g->nodes[i].n_in;
    int *cons = malloc((size_t)(total + 1) * sizeof *cons);
    int *fill = calloc((size_t)g->n_t + 1, sizeof *fill);
    int *queue = malloc((size_t)nn * sizeof *queue);
    if (!indeg || !start || !cons || !fill || !queue) {
        free(indeg); free(start); free(cons); free(fill); free(queue);
        return oom("graph toposort");
    }
    for (int i = 0; i < nn; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int ti = n->in[j];
            if (ti < 0 || g->t[ti].producer < 0) continue;
            indeg[i]++;
            start[ti + 1]++;
        }
    }
    for (int t = 0; t < g->n_t; t++) start[t + 1] += start[t];
    for (int i = 0; i < nn; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int ti = n->in[j];
            if (ti < 0 || g->t[ti].producer < 0) continue;
            cons[start[ti] + fill[ti]++] = i;
        }
    }
    int qh = 0, qt = 0;
    for (int i = 0; i < nn; i++) if (!indeg[i]) queue[qt++] = i;
    while (qh < qt) {
        const g_node *n = &g->nodes[queue[qh++]];
        for (int j = 0; j < n->n_out; j++) {
            int ti = n->out[j];
            if (ti < 0) continue;
            for (int c = start[ti]; c < start[ti + 1]; c++)
                if (--indeg[cons[c]] == 0) queue[qt++] = cons[c];
        }
    }
    if (qt < nn) {
        /* Walk back from an unsorted node through unsorted producers until a
         * node repeats: that node lies on a cycle. */
        int cur = -1;
        for (int i = 0; i < nn && cur < 0; i++) if (indeg[i] > 0) cur = i;
        unsigned char *seen = calloc((size_t)nn, 1);
        for (int steps = 0; seen && !seen[cur] && steps <= nn; steps++) {
            seen[cur] = 1;
            const g_node *n = &g->nodes[cur];
            int next = -1;
            for (int j = 0; j < n->n_in && next < 0; j++) {
                int ti = n->in[j];
                if (ti >= 0 && g->t[ti].producer >= 0 && indeg[g->t[ti].producer] > 0)
                    next = g->t[ti].producer;
            }
            if (next < 0) break;
            cur = next;
        }
        free(seen);
        const g_node *n = &g->nodes[cur];
        rc = acl_fail(ACL_ERROR_PARSE_MODEL, "graph: the nodes form a cycle (%d of %d nodes "
                      "cannot be ordered); node '%s' (%s) is on it", nn - qt, nn, n->name,
                      n->op_type);
    } else {
        g_node *sorted = malloc((size_t)(unsigned)nn * sizeof *sorted);
        if (!sorted) rc = oom("graph toposort");
        else {
            for (int i = 0; i < nn; i++) sorted[i] = g->nodes[queue[i]];
            memcpy(g->nodes, sorted, (size_t)nn * sizeof *sorted);
            free(sorted);
            rc = g_graph_link(g);
        }
    }
    free(indeg); free(start); free(cons); free(fill); free(queue);
    return rc;
}

/* ---- Identity / Dropout elimination ---- */

static int tensor_feeds_subgraph_owner(const g_graph *g, int ti)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        if (!graph_node_has_subgraph(n)) continue;
        for (int j = 0; j < n->n_in; j++) if (n->in[j] == ti) return 1;
    }
    return 0;
}

static void replace_uses(g_graph *g, int from, int to)
{
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) if (n->in[j] == from) n->in[j] = to;
    }
}

/* A Dropout whose ratio is a constant 0 passes its input through even in
 * training mode: every element is kept and scaled by 1 / (1 - 0) (torchvision's
 * Swin exports its attention dropouts so, training_mode true, ratio 0). */
static int ratio_zero(const g_graph *g, const g_node *n)
{
    if (n->opset < 12 || n->n_in < 2 || n->in[1] < 0) return 0;
    const g_tensor *r = &g->t[n->in[1]];
    if (r->kind != G_TK_CONST || !r->data || g_shape_numel(&r->shape) != 1) return 0;
    if (r->dtype == G_F32 && r->nbytes >= 4) return *(const float *)r->data == 0.0f;
    if (r->dtype == G_F64 && r->nbytes >= 8) return *(const double *)r->data == 0.0;
    if (r->dtype == G_F16 && r->nbytes >= 2) return (*(const uint16_t *)r->data & 0x7fffu) == 0;
    return 0;
}

static int is_passthrough(const g_graph *g, const g_node *n)
{
    if (*n->domain) return 0;
    if (n->n_out < 1 || n->n_in < 1 || n->in[0] < 0 || n->out[0] < 0) return 0;
    if (!strcmp(n->op_type, "Identity")) return n->n_out == 1;
    if (strcmp(n->op_type, "Dropout")) return 0;
    if (n->n_out > 1 && n->out[1] >= 0) {
        const g_tensor *m = &g->t[n->out[1]];
        if (m->nuse > 0 || m->is_output) return 0;   /* the mask is wanted */
    }
    if (n->opset >= 12 && n->n_in > 2 && n->in[2] >= 0) {
        const g_tensor *tm = &g->t[n->in[2]];
        if (tm->kind != G_TK_CONST || !tm->data || tm->nbytes < 1 || ((unsigned char *)tm->data)[0])
            return ratio_zero(g, n);   /* training mode on or unknown: only a zero ratio keeps all */
    }
    return 1;
}

int graph_elim_identity(g_graph *g)
{
    int rc = g_graph_link(g);
    if (rc) return rc;
    if (!g->n_nodes) return 0;
    unsigned char *dead = calloc((size_t)g->n_nodes, 1);
    if (!dead) return oom("identity elimination");
    int any = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        if (!is_passthrough(g, n)) continue;
        int x = n->in[0], y = n->out[0];
        g_tensor *tx = &g->t[x], *ty = &g->t[y];
        if (tensor_feeds_subgraph_owner(g, y)) continue;   /* captured by name */
        if (!ty->is_output) {
            replace_uses(g, y, x);
            tx->nuse += ty->nuse;
            ty->nuse = 0;
        } else if (tx->kind == G_TK_ACT && !tx->is_output && tx->producer >= 0 &&
                   !dead[tx->producer] && !tensor_feeds_subgraph_owner(g, x)) {
            /* y is a graph output: let x's producer write y directly */
            g_node *p = &g->nodes[tx->producer];
            for (int j = 0; j < p->n_out; j++) if (p->out[j] == x) p->out[j] = y;
            n->in[0] = -1;
            replace_uses(g, x, y);
            if (ty->dtype == G_UNDEF) ty->dtype = tx->dtype;
            ty->producer = tx->producer;
            tx->producer = -1;
        } else if (g->parent && !tensor_feeds_subgraph_owner(g, x)) {
            /* in a body, outputs are positional: point them at x itself */
            for (int k = 0; k < g->n_outputs; k++) if (g->outputs[k] == y) g->outputs[k] = x;
            replace_uses(g, y, x);
            tx->is_output = 1;
            ty->is_output = 0;
        } else {
            continue;
        }
        dead[i] = 1;
        any = 1;
        /* n may point into moved memory after relinking: refetch next round */
    }
    rc = any ? graph_remove_nodes(g, dead) : 0;
    free(dead);
    return rc;
}

/* ---- dead-node elimination ---- */

int graph_dce(g_graph *g)
{
    int rc = g_graph_link(g);
    if (rc) return rc;
    unsigned char *live = calloc((size_t)g->n_t + 1, 1);
    unsigned char *dead = calloc((size_t)g->n_nodes + 1, 1);
    if (!live || !dead) { free(live); free(dead); return oom("dead-node elimination"); }
    for (int i = 0; i < g->n_outputs; i++) live[g->outputs[i]] = 1;
    int any = 0;
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        const g_node *n = &g->nodes[i];
        int used = 0;
        for (int j = 0; j < n->n_out; j++) if (n->out[j] >= 0 && live[n->out[j]]) used = 1;
        if (!used) { dead[i] = 1; any = 1; continue; }
        for (int j = 0; j < n->n_in; j++) if (n->in[j] >= 0) live[n->in[j]] = 1;
    }
    if (any) rc = graph_remove_nodes(g, dead);
    /* constants nobody reads any more */
    for (int t = 0; t < g->n_t && !rc; t++) {
        g_tensor *x = &g->t[t];
        if (x->kind == G_TK_CONST && !live[t] && x->data) {
            free(x->data);
            x->data = NULL;
        }
    }
    free(live); free(dead);
    return rc;
}

/* ---- supported-op check ---- */

typedef struct strbuf { char *s; size_t n, cap; int count; } strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) OA_PRINTF(2, 3);
static void sb_add(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int w = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    size_t len = strlen(tmp);
    if (b->n + len + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 1024) + len;
        char *s = realloc(b->s, cap);
        if (!s) return;
        b->s = s; b->cap = cap;
    }
    memcpy(b->s + b->n, tmp, len + 1);
    b->n += len;
}

static void collect_unsupported(const g_graph *g, strbuf *b, int *total)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        const k_op *ops[1];
        if (k_find(n->op_type, n->domain, n->opset, ops, 1) == 0) {
            (*total)++;
            if (*total <= 64)
                sb_add(b, "%s'%s' (%s, domain '%s', opset %d%s)", *total > 1 ? ", " : "",
                       n->name, n->op_type, *n->domain ? n->domain : "ai.onnx", n->opset,
                       k_known(n->op_type, n->domain) ? ": no kernel for this opset" : "");
        }
        for (int a = 0; a < n->n_attr; a++)
            if (n->attr[a].type == G_AT_GRAPH && n->attr[a].g)
                collect_unsupported(n->attr[a].g, b, total);
    }
}

int graph_check_supported(const g_graph *g)
{
    strbuf b = { 0 };
    int total = 0;
    collect_unsupported(g, &b, &total);
    if (!total) { free(b.s); return 0; }
    int rc = acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "model load: %d node%s use%s operators "
                      "without a kernel: %s%s", total, total > 1 ? "s" : "", total > 1 ? "" : "s",
                      b.s ? b.s : "?", total > 64 ? ", ..." : "");
    free(b.s);
    return rc;
}

/* ---- kernel binding, inference, folding ---- */

static int bind_node(g_graph *g, g_node *n)
{
    const k_op *cand[16];
    int nc = k_find(n->op_type, n->domain, n->opset, cand, 16);
    if (nc == 0)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, domain '%s', opset %d): "
                        "no kernel implements this operator", n->name, n->op_type,
                        *n->domain ? n->domain : "ai.onnx", n->opset);
    for (int c = 0; c < nc; c++) {
        void *st = NULL;
        int rc = cand[c]->init ? cand[c]->init(g, n, &st) : 0;
        if (rc == K_DECLINE) {
            if (st && cand[c]->fini) cand[c]->fini(st);
            continue;
        }
        if (rc) {
            if (st && cand[c]->fini) cand[c]->fini(st);
            return rc;
        }
        n->op = cand[c];
        n->state = st;
        return 0;
    }
    char dts[256] = "";
    size_t p = 0;
    for (int j = 0; j < n->n_in && p < sizeof dts - 32; j++)
        p += (size_t)snprintf(dts + p, sizeof dts - p, "%s%s", j ? "," : "",
                              n->in[j] < 0 ? "-" : g_dtype_name(g->t[n->in[j]].dtype));
    return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, opset %d): none of the %d "
                    "kernel implementations accepts this configuration (input types %s)",
                    n->name, n->op_type, n->opset, nc, dts);
}

static int shape_known_all(const k_tensor *in, const g_node *n)
{
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && !g_shape_known(&in[j].shape)) return 0;
    return 1;
}

static int is_random(const char *op)
{
    static const char *const r[] = { "RandomNormal", "RandomNormalLike", "RandomUniform",
                                     "RandomUniformLike", "Multinomial", "Bernoulli", NULL };
    for (int i = 0; r[i]; i++) if (!strcmp(op, r[i])) return 1;
    return 0;
}

static void *alloc64(size_t n)
{
    size_t sz = (n + 63) & ~(size_t)63;
    return aligned_alloc(64, sz ? sz : 64);
}

/* Runs node n on constant inputs at load; its outputs become constants. */
static int fold_node(g_graph *g, g_node *n, k_tensor *in, k_tensor *out)
{
    size_t tot = 0;
    for (int j = 0; j < n->n_out; j++) {
        if (n->out[j] < 0) continue;
        out[j].nbytes = k_nbytes(&out[j]);
        tot += out[j].nbytes;
    }
    if (tot > FOLD_MAX_BYTES) return 1;   /* not folded; computed at run time */
    int rc = 0;
    void *packed = NULL, *scratch = NULL;
    size_t pb = 0, sb = 0;
    for (int j = 0; j < n->n_out; j++) {
        out[j].data = NULL;
        if (n->out[j] < 0) continue;
        out[j].data = alloc64(out[j].nbytes);
        if (!out[j].data) { rc = oom("constant folding"); goto fail; }
    }
    if (n->op->plan && (rc = n->op->plan(n, n->state, in, out, &pb, &sb))) goto fail;
    if (pb) {
        if (!(packed = alloc64(pb))) { rc = oom("constant folding"); goto fail; }
        if (n->op->pack && (rc = n->op->pack(n, n->state, in, out, packed))) goto fail;
    }
    if (sb && !(scratch = alloc64(sb))) { rc = oom("constant folding"); goto fail; }
    k_ctx ctx = { .threads = omp_get_max_threads(), .scratch = scratch, .scratch_bytes = sb };
    if ((rc = n->op->run(n, n->state, in, out, &ctx))) {
        acl_fail(rc, "constant folding: node '%s' (%s, opset %d) failed at load", n->name,
                 n->op_type, n->opset);
        goto fail;
    }
    free(packed); free(scratch);
    for (int j = 0; j < n->n_out; j++) {
        if (n->out[j] < 0) continue;
        g_tensor *t = &g->t[n->out[j]];
        free(t->data);
        t->data = out[j].data;
        t->nbytes = out[j].nbytes;
        t->kind = G_TK_CONST;
        t->dtype = out[j].dtype;
        t->shape = out[j].shape;
        t->layout = out[j].layout;
    }
    return 0;
fail:
    free(packed); free(scratch);
    for (int j = 0; j < n->n_out; j++) if (n->out[j] >= 0) { free(out[j].data); out[j].data = NULL; }
    return rc;
}

/* Shape and Size of a tensor whose shape is known are constants whatever its data. */
static int fold_shape_query(g_graph *g, g_node *n)
{
    if (*n->domain || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0) return 0;
    int is_shape = !strcmp(n->op_type, "Shape"), is_size = !strcmp(n->op_type, "Size");
    if (!is_shape && !is_size) return 0;
    const g_tensor *x = &g->t[n->in[0]];
    if (!g_shape_known(&x->shape)) return 0;
    int64_t v[G_MAX_RANK];
    int cnt = 0;
    if (is_size) {
        v[0] = g_shape_numel(&x->shape);
        if (v[0] < 0) return 0;
        cnt = 1;
    } else {
        int r = x->shape.rank;
        int64_t s = 0, e = r;
        if (n->opset >= 15) {
            s = g_attr_int(n, "start", 0);
            e = g_attr_int(n, "end", r);
        }
        if (s < 0) s += r;
        if (e < 0) e += r;
        if (s < 0) s = 0;
        if (s > r) s = r;
        if (e < 0) e = 0;
        if (e > r) e = r;
        for (int64_t i = s; i < e; i++) v[cnt++] = x->shape.d[i];
    }
    g_tensor *t = &g->t[n->out[0]];
    void *d = malloc(cnt ? (size_t)cnt * 8 : 8);
    if (!d) return -1;
    memcpy(d, v, (size_t)cnt * 8);
    free(t->data);
    t->data = d;
    t->nbytes = (size_t)cnt * 8;
    t->dtype = G_I64;
    t->kind = G_TK_CONST;
    t->layout = G_LAYOUT_PLAIN;
    memset(&t->shape, 0, sizeof t->shape);
    t->shape.rank = is_size ? 0 : 1;
    if (!is_size) t->shape.d[0] = cnt;
    return 1;
}

int graph_bind_infer(g_graph *g, int fold)
{
    int maxio = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].n_in > maxio) maxio = g->nodes[i].n_in;
        if (g->nodes[i].n_out > maxio) maxio = g->nodes[i].n_out;
    }
    k_tensor *in = malloc((size_t)(maxio + GRAPH_IO_PAD) * sizeof *in);
    k_tensor *out = malloc((size_t)(maxio + GRAPH_IO_PAD) * sizeof *out);
    unsigned char *dead = calloc((size_t)g->n_nodes + 1, 1);
    int rc = 0, any = 0;
    if (!in || !out || !dead) { rc = oom("shape inference"); goto done; }
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        g_node *n = &g->nodes[i];
        if (fold) {
            int f = fold_shape_query(g, n);
            if (f < 0) { rc = oom("shape inference"); break; }
            if (f) { dead[i] = 1; any = 1; continue; }
        }
        if (!n->op && (rc = bind_node(g, n))) break;
        graph_node_io(g, n, in, out);
        memset(in + n->n_in, 0, GRAPH_IO_PAD * sizeof *in);
        memset(out + n->n_out, 0, GRAPH_IO_PAD * sizeof *out);
        int r = n->op->infer ? n->op->infer(n, n->state, in, out) : 0;
        if (r && r != K_NEED_DATA) {
            if (shape_known_all(in, n)) {
                rc = acl_fail(r, "shape inference: node '%s' (%s, opset %d) refused its inputs",
                              n->name, n->op_type, n->opset);
                break;
            }
            acl_log(0, "shape inference: node '%s' (%s) left unknown until run time", n->name,
                    n->op_type);
        }
        for (int j = 0; j < n->n_out && r == 0; j++) {
            /* a shape whose size overflows would break every consumer's arithmetic */
            int64_t ne = g_shape_numel(&out[j].shape);
            uint64_t known = 1;
            int huge = 0;
            for (int k = 0; k < out[j].shape.rank && k < G_MAX_RANK; k++) {
                int64_t v = out[j].shape.d[k];
                if (v > 0 && known > (UINT64_C(1) << 40) / (uint64_t)v) huge = 1;
                else if (v > 0) known *= (uint64_t)v;
            }
            if (n->out[j] >= 0 && (huge || (ne >= 0 && (uint64_t)ne > (UINT64_C(1) << 40)))) {
                char sb[128];
                rc = acl_fail(ACL_ERROR_MODEL_SIZE_INVALID, "shape inference: node '%s' (%s, opset "
                              "%d) output %d would have shape %s (too large)", n->name, n->op_type,
                              n->opset, j, g_shape_str(&out[j].shape, sb, sizeof sb));
            }
        }
        if (rc) break;
        for (int j = 0; j < n->n_out; j++) {
            if (n->out[j] < 0) continue;
            g_tensor *t = &g->t[n->out[j]];
            if (out[j].dtype != G_UNDEF) t->dtype = out[j].dtype;
            if (t->dtype == G_UNDEF && r) {
                /* the kernel could not tell yet and the model declares nothing:
                 * most ops keep their first input's type; run time re-infers */
                for (int k = 0; k < n->n_in && t->dtype == G_UNDEF; k++)
                    if (n->in[k] >= 0) t->dtype = g->t[n->in[k]].dtype;
            }
            if (r == 0) {
                t->shape = out[j].shape;
                t->layout = out[j].layout;
            } else if (r == K_NEED_DATA) {
                /* whatever the kernel left is a bound, not an answer: make
                 * sure the tensor reads as not yet known */
                t->shape = out[j].shape;
                if (g_shape_known(&t->shape))
                    for (int k = 0; k < t->shape.rank; k++) t->shape.d[k] = -1;
                if (t->shape.rank == 0) t->shape.rank = -1;
            } else {
                t->shape = (g_shape){ .rank = -1 };
            }
        }
        if (r || !fold || n->n_in == 0 || is_random(n->op_type) || graph_node_has_subgraph(n))
            continue;
        int all_const = 1, have = 0;
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j] < 0) continue;
            have = 1;
            if (!in[j].data) all_const = 0;
        }
        for (int j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0 && (!g_shape_known(&out[j].shape) || !g_dtype_size(out[j].dtype)))
                all_const = 0;
        if (!have || !all_const) continue;
        int f = fold_node(g, n, in, out);
        if (f < 0 || f > 1) { rc = f; break; }
        if (f == 0) { dead[i] = 1; any = 1; }
    }
    if (!rc && any) rc = graph_remove_nodes(g, dead);
done:
    free(in); free(out); free(dead);
    return rc;
}

int graph_is_static(const g_graph *g)
{
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        int used = x->nuse > 0 || x->is_output || x->producer >= 0;
        if (x->kind == G_TK_INPUT && !x->is_output) {
            int listed = 0;
            for (int i = 0; i < g->n_inputs; i++) if (g->inputs[i] == t) listed = 1;
            used = used || listed;
        }
        if (!used) continue;
        if (!g_dtype_size(x->dtype) || !g_shape_known(&x->shape)) return 0;
    }
    return 1;
}

/* ---- the pipeline ---- */

static int env_on(const char *name)
{
    const char *e = getenv(name);
    return e && *e && strcmp(e, "0");
}

static int has_bf16_marks(const g_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (graph_node_bf16(&g->nodes[i])) return 1;
    return 0;
}

static int fuse_on(const g_graph *g) { (void)g; return !env_on("OPENACL_NO_FUSE"); }
static int qdq_on(const g_graph *g) { (void)g; return !env_on("OPENACL_NO_QDQ"); }
static int layout_on(const g_graph *g) { (void)g; return !env_on("OPENACL_NO_LAYOUT"); }
static int qmatmul_on(const g_graph *g) { (void)g; return !env_on("OPENACL_NO_QMATMUL"); }
static int bf16_on(const g_graph *g) { return has_bf16_marks(g); }
static int bf16_se_on(const g_graph *g)
{
    const char *off = getenv("OPENACL_BF16_SE");   /* 0: squeeze-excite steps stay float32 */
    return has_bf16_marks(g) && !(off && !strcmp(off, "0"));
}
static int fold(g_graph *g) { return graph_bind_infer(g, 1); }
static int supported(g_graph *g) { return graph_check_supported(g); }

typedef struct graph_pass {
    const char *name;
    int (*run)(g_graph *g);
    int (*on)(const g_graph *g);   /* the switch; NULL: always */
    const char *when;              /* the switch in words, for the printout */
    int rebind;                    /* sort, bind and infer again after it ran */
    int shapes;                    /* part of what a description needs (graph_describe) */
} graph_pass;

static const graph_pass g_pipeline[] = {
    { "toposort", graph_toposort, NULL, "always", 0, 1 },
    { "elim_identity", graph_elim_identity, NULL, "always", 0, 1 },
    { "dce", graph_dce, NULL, "always", 0, 1 },
    { "supported", supported, NULL, "always", 0, 1 },
    { "qdq_affine", graph_pass_qdq_affine, qdq_on, "unless OPENACL_NO_QDQ", 0, 0 },
    { "qdq_matmul", graph_pass_qdq_matmul, qmatmul_on, "unless OPENACL_NO_QMATMUL", 0, 0 },
    { "qdq_table", graph_pass_qdq_table, qdq_on, "unless OPENACL_NO_QDQ", 0, 0 },
    { "qdq", graph_pass_qdq, qdq_on, "unless OPENACL_NO_QDQ", 0, 0 },
    { "fold", fold, NULL, "always", 0, 1 },
    { "dce", graph_dce, NULL, "always", 0, 1 },
    { "qmatmul", graph_pass_qmatmul, qmatmul_on, "unless OPENACL_NO_QMATMUL", 1, 0 },
    { "fuse", graph_pass_fuse, fuse_on, "unless OPENACL_NO_FUSE", 1, 0 },
    { "perm_fold", graph_pass_perm_fold, fuse_on, "unless OPENACL_NO_FUSE / OPENACL_NO_PERM_FOLD", 1, 0 },
    { "qmatmul_out", graph_pass_qmatmul_out, qmatmul_on, "unless OPENACL_NO_QMATMUL", 1, 0 },
    { "qbias", graph_pass_qbias, qmatmul_on, "unless OPENACL_NO_QMATMUL", 1, 0 },
    { "layout", graph_pass_layout, layout_on, "unless OPENACL_NO_LAYOUT", 1, 0 },
    { "bf16_act", graph_pass_bf16_act, bf16_on, "bf16-marked graphs", 1, 0 },
    { "bf16_se", graph_pass_bf16_se, bf16_se_on, "bf16-marked graphs unless OPENACL_BF16_SE=0", 1, 0 },
    { "dce", graph_dce, NULL, "always", 0, 0 },
};
#define N_PIPELINE ((int)(sizeof g_pipeline / sizeof g_pipeline[0]))

static int run_pipeline(g_graph *g, int shapes_only)
{
    int print = env_on("OPENACL_PRINT_PASSES");
    for (int i = 0; i < N_PIPELINE; i++) {
        const graph_pass *p = &g_pipeline[i];
        if (shapes_only && !p->shapes) continue;
        if (p->on && !p->on(g)) {
            if (print) fprintf(stderr, "openacl: pass %-14s skipped (%s)\n", p->name, p->when);
            continue;
        }
        int rc = p->run(g);
        if (!rc && p->rebind && !(rc = graph_toposort(g))) rc = graph_bind_infer(g, 0);
        if (print)
            fprintf(stderr, "openacl: pass %-14s %s, %d nodes\n", p->name, rc ? "failed" : "done",
                    g->n_nodes);
        if (rc) return rc;
    }
    return 0;
}

int graph_optimize(g_graph *g) { return run_pipeline(g, 0); }

int graph_describe(g_graph *g) { return run_pipeline(g, 1); }

int graph_prepare_sub(g_graph *sub)
{
    int rc;
    if ((rc = graph_toposort(sub))) return rc;
    if ((rc = graph_elim_identity(sub))) return rc;
    if ((rc = graph_dce(sub))) return rc;
    return graph_bind_infer(sub, 1);
}
