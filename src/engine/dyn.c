/* Dynamic execution (see exec.h): per node infer -> allocate -> (re)plan
 * when input shapes changed -> run -> release inputs after their last use. */
#include "core/par.h"
#include "engine/exec.h"
#include "engine/eng_prof.h"
#include "engine/eng_priv.h"
#include <omp.h>
#include "graph/errs.h"
#include "graph/passes.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

typedef struct node_cache {
    int valid;
    k_tensor *sig;            /* input metadata the plan was made for (data unused) */
    void *packed;
    size_t packed_bytes, scratch_bytes;
} node_cache;

struct eng_dyn {
    g_graph *g;
    struct eng_dump *dump;    /* the model's operator dump while a run dumps (eng_dump.h), else NULL */
    node_cache *nc;
    const void **cptr;        /* per tensor: constant data override */
    int *uses;                /* per tensor: consumer count template */
    void *scratch;
    size_t scratch_cap;
    k_tensor *in, *out;       /* per-node argument buffers */
    int maxio;
    /* Intermediates come from a pool of freed buffers so steady runs do not
     * map and fault in fresh pages; what a run did not touch is released. */
    struct pbuf { void *p; size_t cap; int touched; } *pool;
    int npool, cappool;
    size_t *cap;              /* per tensor: capacity of its pooled buffer */
};

void *eng_alloc64(size_t n) { return k_alloc64(n); }

eng_dyn *eng_dyn_new(g_graph *g)
{
    eng_dyn *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->g = g;
    d->maxio = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].n_in > d->maxio) d->maxio = g->nodes[i].n_in;
        if (g->nodes[i].n_out > d->maxio) d->maxio = g->nodes[i].n_out;
    }
    d->nc = calloc((size_t)g->n_nodes + 1, sizeof *d->nc);
    d->cptr = calloc((size_t)g->n_t + 1, sizeof *d->cptr);
    d->uses = calloc((size_t)g->n_t + 1, sizeof *d->uses);
    d->cap = calloc((size_t)g->n_t + 1, sizeof *d->cap);
    d->in = calloc((size_t)(d->maxio + GRAPH_IO_PAD), sizeof *d->in);
    d->out = calloc((size_t)(d->maxio + GRAPH_IO_PAD), sizeof *d->out);
    if (!d->nc || !d->cptr || !d->uses || !d->in || !d->out || !d->cap) { eng_dyn_free(d); return NULL; }
    return d;
}

void eng_dyn_free(eng_dyn *d)
{
    if (!d) return;
    if (d->nc)
        for (int i = 0; i < d->g->n_nodes; i++) { free(d->nc[i].sig); free(d->nc[i].packed); }
    for (int i = 0; i < d->npool; i++) free(d->pool[i].p);
    free(d->pool); free(d->cap);
    free(d->nc); free(d->cptr); free(d->uses); free(d->in); free(d->out); free(d->scratch);
    free(d);
}

void eng_dyn_set_const(eng_dyn *d, int t, const void *p)
{
    if (d && t >= 0 && t < d->g->n_t) d->cptr[t] = p;
}

void eng_vals_release(int n, k_tensor *vals, unsigned char *owned)
{
    for (int t = 0; t < n; t++)
        if (owned[t]) { k_value_free(&vals[t]); owned[t] = 0; }
}

static int sig_same(const node_cache *c, const g_node *n, const k_tensor *in)
{
    if (!c->valid) return 0;
    for (int j = 0; j < n->n_in; j++) {
        if (c->sig[j].dtype != in[j].dtype || c->sig[j].layout != in[j].layout ||
            !g_shape_eq(&c->sig[j].shape, &in[j].shape))
            return 0;
        /* constants packed by value: a different pointer means different data */
        if (c->sig[j].data != in[j].data && c->sig[j].data) return 0;
    }
    return 1;
}

/* Makes sure node i has a plan (packed weights, scratch size) for these inputs. */
static int ensure_plan(eng_dyn *d, int i, const g_node *n, const k_tensor *in, const k_tensor *out)
{
    node_cache *c = &d->nc[i];
    if (!n->op->plan) { c->valid = 1; c->scratch_bytes = 0; return 0; }
    if (sig_same(c, n, in)) return 0;
    size_t pb = 0, sb = 0;
    int rc = n->op->plan(n, n->state, in, out, &pb, &sb);
    if (rc) return acl_fail(rc, "node '%s' (%s, opset %d): planning failed", n->name, n->op_type,
                            n->opset);
    free(c->packed);
    c->packed = NULL;
    c->valid = 0;
    if (pb) {
        if (!(c->packed = eng_alloc64(pb)))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): cannot allocate %zu bytes of "
                            "packed weights", n->name, n->op_type, pb);
        if (n->op->pack && (rc = n->op->pack(n, n->state, in, out, c->packed)))
            return acl_fail(rc, "node '%s' (%s): packing weights failed", n->name, n->op_type);
    }
    if (!c->sig && !(c->sig = calloc((size_t)(n->n_in ? n->n_in : 1), sizeof *c->sig)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "dynamic run: out of memory");
    for (int j = 0; j < n->n_in; j++) {
        c->sig[j] = in[j];
        /* only constants' pointers identify their data across runs */
        int ti = n->in[j];
        if (ti < 0 || d->g->t[ti].kind != G_TK_CONST) c->sig[j].data = NULL;
    }
    c->packed_bytes = pb;
    c->scratch_bytes = sb;
    c->valid = 1;
    return 0;
}

/* Smallest pooled buffer of n..2n bytes, else a new one. */
static void *pool_get(eng_dyn *d, size_t n, size_t *cap)
{
    int best = -1;
    for (int i = 0; i < d->npool; i++) {
        size_t c = d->pool[i].cap;
        if (c >= n && c / 2 <= n && (best < 0 || c < d->pool[best].cap)) best = i;
    }
    if (best >= 0) {
        void *p = d->pool[best].p;
        *cap = d->pool[best].cap;
        d->pool[best] = d->pool[--d->npool];
        return p;
    }
    *cap = n;
    return eng_alloc64(n);
}

static void pool_put(eng_dyn *d, void *p, size_t cap)
{
    if (!p) return;
    if (d->npool == d->cappool) {
        int nc = d->cappool ? d->cappool * 2 : 32;
        struct pbuf *v = realloc(d->pool, (size_t)nc * sizeof *v);
        if (!v) { free(p); return; }
        d->pool = v;
        d->cappool = nc;
    }
    d->pool[d->npool++] = (struct pbuf){ p, cap, 1 };
}

/* Frees tensor t's buffer: graph outputs were plain allocations (the caller
 * may keep them), intermediates go back to the pool. */
static void val_drop(eng_dyn *d, k_tensor *vals, unsigned char *owned, int t)
{
    if (!owned[t]) return;
    if (g_is_container(vals[t].dtype)) k_seq_free(vals[t].data);
    else if (d->g->t[t].is_output) free(vals[t].data);
    else pool_put(d, vals[t].data, d->cap[t]);
    vals[t].data = NULL;
    owned[t] = 0;
}

static int dyn_run(eng_dyn *d, k_tensor *vals, unsigned char *owned, int threads);

int eng_dyn_run_dump(eng_dyn *d, struct eng_dump *dump, k_tensor *vals, unsigned char *owned, int threads)
{
    if (dump && !eng_dump_begin(dump)) dump = NULL;
    d->dump = dump;
    int rc = eng_dyn_run(d, vals, owned, threads);
    d->dump = NULL;
    if (dump) eng_dump_end(dump);
    return rc;
}

int eng_dyn_run(eng_dyn *d, k_tensor *vals, unsigned char *owned, int threads)
{
    eng_prof_init();
    double t_run = eng_prof_on ? eng_prof_now() : 0;
    oa_par_adapt(threads > 0 ? threads : omp_get_max_threads());
    int rc = dyn_run(d, vals, owned, threads);
    if (threads > 0 && omp_get_max_threads() != threads) omp_set_num_threads(threads);
    if (eng_prof_on) eng_prof_run(d->g, 1, t_run, eng_prof_now());
    /* only graph outputs leave; everything else returns to the pool */
    for (int t = 0; t < d->g->n_t; t++)
        if (owned[t] && !d->g->t[t].is_output) val_drop(d, vals, owned, t);
    int w = 0;
    for (int i = 0; i < d->npool; i++) {
        if (!d->pool[i].touched) { free(d->pool[i].p); continue; }
        d->pool[i].touched = 0;
        d->pool[w++] = d->pool[i];
    }
    d->npool = w;
    return rc;
}

static int dyn_run(eng_dyn *d, k_tensor *vals, unsigned char *owned, int threads)
{
    g_graph *g = d->g;
    for (int t = 0; t < g->n_t; t++) {
        g_tensor *x = &g->t[t];
        d->uses[t] = x->nuse;
        if (x->kind != G_TK_CONST) continue;
        k_tensor *v = &vals[t];
        v->dtype = x->dtype;
        v->shape = x->shape;
        v->layout = x->layout;
        v->data = (void *)(d->cptr[t] ? d->cptr[t] : x->data);
        v->nbytes = x->nbytes;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        k_tensor *in = d->in, *out = d->out;
        memset(in + n->n_in, 0, GRAPH_IO_PAD * sizeof *in);
        memset(out + n->n_out, 0, GRAPH_IO_PAD * sizeof *out);
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j] < 0) {
                memset(&in[j], 0, sizeof in[j]);
                in[j].dtype = G_UNDEF;
                continue;
            }
            in[j] = vals[n->in[j]];
            if (!in[j].data && in[j].nbytes)
                return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s): input %d '%s' has no "
                                "value", n->name, n->op_type, j, g->t[n->in[j]].name);
        }
        for (int j = 0; j < n->n_out; j++) {
            memset(&out[j], 0, sizeof out[j]);
            out[j].shape.rank = -1;
            out[j].dtype = n->out[j] >= 0 ? g->t[n->out[j]].dtype : G_UNDEF;
        }
        int rc = n->op->infer ? n->op->infer(n, n->state, in, out) : 0;
        if (rc == K_NEED_DATA)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, opset %d): shape inference "
                            "asked for data although every input is known", n->name, n->op_type,
                            n->opset);
        if (rc) return acl_fail(rc, "node '%s' (%s, opset %d): shape inference failed at run time",
                                n->name, n->op_type, n->opset);
        for (int j = 0; j < n->n_out; j++) {
            if (n->out[j] < 0) { out[j].data = NULL; out[j].nbytes = 0; continue; }
            int box = g_is_container(out[j].dtype);
            if (box) memset(&out[j].shape, 0, sizeof out[j].shape);
            if ((!box && !g_dtype_size(out[j].dtype)) || !g_shape_known(&out[j].shape)) {
                char s[96];
                return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, opset %d): output %d "
                                "'%s' has type %s and shape %s after inference", n->name,
                                n->op_type, n->opset, j, g->t[n->out[j]].name,
                                g_dtype_name(out[j].dtype), g_shape_str(&out[j].shape, s, sizeof s));
            }
            out[j].nbytes = k_nbytes(&out[j]);
            int ti = n->out[j];
            val_drop(d, vals, owned, ti);   /* a previous value (loops) */
            size_t cap = out[j].nbytes;
            if (box) {
                out[j].data = k_seq_new();   /* run() fills the empty container */
                out[j].nbytes = sizeof(k_seq);
            } else {
                out[j].data = g->t[ti].is_output ? eng_alloc64(out[j].nbytes)
                                                 : pool_get(d, out[j].nbytes, &cap);
            }
            if (!out[j].data)
                return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): cannot allocate %zu bytes "
                                "for output %d", n->name, n->op_type, out[j].nbytes, j);
            vals[ti] = out[j];
            owned[ti] = 1;
            d->cap[ti] = cap;
        }
        /* small nodes run (and oneDNN builds) on the calling thread alone */
        int nt = eng_node_threads(n, in, out, threads);
        if (nt != omp_get_max_threads()) omp_set_num_threads(nt);
        if ((rc = ensure_plan(d, i, n, in, out))) return rc;
        size_t sb = d->nc[i].scratch_bytes;
        if (sb > d->scratch_cap) {
            free(d->scratch);
            d->scratch_cap = 0;
            if (!(d->scratch = eng_alloc64(sb)))
                return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): cannot allocate %zu bytes "
                                "of scratch", n->name, n->op_type, sb);
            d->scratch_cap = sb;
        }
        k_ctx ctx = { .threads = nt, .scratch = sb ? d->scratch : NULL, .scratch_bytes = sb };
        if (__builtin_expect(d->dump != NULL, 0)) eng_dump_node(d->dump, g, i, n, in, 0);
        double t0 = eng_prof_on ? eng_prof_now() : 0;
        if ((rc = n->op->run(n, n->state, in, out, &ctx)))
            return acl_fail(rc, "node '%s' (%s, opset %d) failed", n->name, n->op_type, n->opset);
        if (eng_prof_on) eng_prof_node(g, n, &out[0], t0, eng_prof_now());
        if (__builtin_expect(d->dump != NULL, 0)) eng_dump_node(d->dump, g, i, n, out, 1);
        /* release what nobody reads any more */
        for (int j = 0; j < n->n_in; j++) {
            int ti = n->in[j];
            if (ti >= 0 && --d->uses[ti] == 0 && !g->t[ti].is_output) val_drop(d, vals, owned, ti);
        }
        for (int j = 0; j < n->n_out; j++) {
            int ti = n->out[j];
            if (ti >= 0 && g->t[ti].nuse == 0 && !g->t[ti].is_output) val_drop(d, vals, owned, ti);
        }
    }
    return 0;
}

/* ---- the subgraph host lent to control-flow kernels (kernels/kernel.h) ---- */

static int sub_prepare(g_graph *body, void **runner)
{
    *runner = NULL;
    int rc = graph_prepare_sub(body);
    if (rc) return rc;
    if (!(*runner = eng_dyn_new(body)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    return 0;
}

static int sub_run(void *runner, k_tensor *vals, unsigned char *owned, int threads)
{
    return eng_dyn_run(runner, vals, owned, threads);
}

static void sub_release(void *runner) { eng_dyn_free(runner); }

static const k_subgraph_host g_sub_host = {
    .prepare = sub_prepare, .run = sub_run, .vals_release = eng_vals_release, .release = sub_release,
};

__attribute__((constructor)) static void sub_host_install(void) { k_set_subgraph_host(&g_sub_host); }
