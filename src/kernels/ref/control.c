/* Control flow: If, Loop and Scan run their bodies through the dynamic
 * executor. A body reads outer values through capture tensors, which the
 * importer appended to the owner node's inputs after the ONNX ones; they are
 * matched back by name at init.
 *
 * Output shapes of these ops generally depend on the data (which branch,
 * how many iterations), so when infer() is given every input's value (at run
 * time in dynamic models) it executes the op and keeps the results for the
 * run() that follows; in static models run() executes it itself. */
#include "kernels/ref/control.h"
#include "core/core.h"
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CF_IF, CF_LOOP, CF_SCAN, CF_SEQMAP };

typedef struct cf_sub {
    g_graph *g;
    const k_subgraph_host *host;
    void *d;                    /* the host's runner of the body */
    int ncap;
    int *cap_t, *cap_in;      /* capture tensor in the body, owner node input index */
    k_tensor *vals;
    unsigned char *owned;
} cf_sub;

typedef struct cf_state {
    int kind;
    cf_sub sub[2];
    int nsub;
    int n_formal;             /* ONNX inputs of the node (captures follow) */
    int N, M, K;              /* carried/state, scan inputs, scan outputs */
    int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
    /* results computed by infer() for the next run() */
    int pend_n;
    k_tensor *pend;
    const void **pend_src;    /* input data pointers they were computed from */
    int pend_nsrc;
} cf_state;


static void own_free(k_tensor *t, unsigned char *owned)
{
    if (*owned) k_value_free(t);
    t->data = NULL;
    *owned = 0;
}

/* Makes t own its bytes (copying when it aliases someone else's). */
static int own_copy(k_tensor *t, unsigned char *owned)
{
    if (*owned) return 0;
    if (g_is_container(t->dtype)) {
        k_seq *c = k_seq_clone(t->data);
        if (!c) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
        t->data = c;
        t->nbytes = sizeof(k_seq);
        *owned = 1;
        return 0;
    }
    size_t nb = k_nbytes(t);
    void *p = k_alloc64(nb);
    if (!p) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory (%zu bytes)", nb);
    if (nb) memcpy(p, t->data, nb);
    t->data = p;
    t->nbytes = nb;
    *owned = 1;
    return 0;
}

static void pend_clear(cf_state *s)
{
    for (int i = 0; i < s->pend_n; i++) k_value_free(&s->pend[i]);
    free(s->pend);
    free(s->pend_src);
    s->pend = NULL;
    s->pend_src = NULL;
    s->pend_n = s->pend_nsrc = 0;
}

static void sub_fini(cf_sub *b)
{
    if (b->host) b->host->release(b->d);
    free(b->cap_t); free(b->cap_in); free(b->vals); free(b->owned);
    memset(b, 0, sizeof *b);
}

static void cf_fini(void *p)
{
    cf_state *s = p;
    if (!s) return;
    pend_clear(s);
    for (int i = 0; i < s->nsub; i++) sub_fini(&s->sub[i]);
    free(s->in_axes); free(s->in_dirs); free(s->out_axes); free(s->out_dirs);
    free(s);
}

static g_graph *body_attr(const g_node *n, const char *name)
{
    const g_attr *a = g_node_attr(n, name);
    return a && a->type == G_AT_GRAPH ? a->g : NULL;
}

/* Links the body's captures to node inputs, prepares and binds the body. */
static int sub_setup(g_graph *g, g_node *n, cf_state *s, cf_sub *b, g_graph *body)
{
    b->g = body;
    for (int t = 0; t < body->n_t; t++) if (body->t[t].is_capture) b->ncap++;
    b->cap_t = calloc((size_t)b->ncap + 1, sizeof(int));
    b->cap_in = calloc((size_t)b->ncap + 1, sizeof(int));
    if (!b->cap_t || !b->cap_in) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    int c = 0;
    for (int t = 0; t < body->n_t; t++) {
        if (!body->t[t].is_capture) continue;
        int found = -1;
        for (int j = s->n_formal; j < n->n_in && found < 0; j++)
            if (n->in[j] >= 0 && !strcmp(g->t[n->in[j]].name, body->t[t].name)) found = j;
        if (found < 0)
            return cf_fail(n, ACL_ERROR_PARSE_MODEL, "the body uses outer value '%s' which the "
                           "node does not receive", body->t[t].name);
        const g_tensor *pt = &g->t[n->in[found]];
        body->t[t].dtype = pt->dtype;
        body->t[t].shape = pt->shape;
        if (pt->kind == G_TK_CONST && pt->data && !g_is_container(pt->dtype)) {
            /* an outer constant becomes the body's own, so folding sees it:
             * exported recurrent layers re-slice and concatenate their
             * captured weights on every run otherwise (silero VAD: ~1 MB
             * copied per inference) */
            void *copy = malloc(pt->nbytes ? pt->nbytes : 1);
            if (!copy) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
            memcpy(copy, pt->data, pt->nbytes);
            body->t[t].kind = G_TK_CONST;
            body->t[t].is_capture = 0;   /* the body's own from now on */
            body->t[t].data = copy;
            body->t[t].nbytes = pt->nbytes;
            continue;
        }
        b->cap_t[c] = t;
        b->cap_in[c++] = found;
    }
    b->ncap = c;
    if (!(b->host = k_get_subgraph_host()))
        return cf_fail(n, ACL_ERROR_FEATURE_UNSUPPORTED, "no engine is linked in to run its body");
    int rc = b->host->prepare(body, &b->d);
    if (rc) return rc;
    b->vals = calloc((size_t)body->n_t + 1, sizeof *b->vals);
    b->owned = calloc((size_t)body->n_t + 1, 1);
    if (!b->d || !b->vals || !b->owned) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    return 0;
}

/* Runs a body. res[i] (one per body output) come back owned by the caller
 * (res_owned[i] = 1) or aliasing memory that outlives the call (inputs). */
static int sub_run(cf_sub *b, const k_tensor *formal, int nf, const k_tensor *node_in,
                   k_tensor *res, unsigned char *res_owned, int threads)
{
    g_graph *g = b->g;
    memset(b->vals, 0, (size_t)g->n_t * sizeof *b->vals);
    memset(b->owned, 0, (size_t)g->n_t);
    for (int k = 0; k < nf && k < g->n_inputs; k++) b->vals[g->inputs[k]] = formal[k];
    for (int c = 0; c < b->ncap; c++) b->vals[b->cap_t[c]] = node_in[b->cap_in[c]];
    int rc = b->host->run(b->d, b->vals, b->owned, threads);
    if (!rc) {
        for (int o = 0; o < g->n_outputs; o++) {
            int t = g->outputs[o];
            res[o] = b->vals[t];
            res_owned[o] = b->owned[t];
            b->owned[t] = 0;
        }
    }
    b->host->vals_release(g->n_t, b->vals, b->owned);
    return rc;
}

static int formal_present(const cf_state *s, const g_node *n, const k_tensor *in, int j)
{
    return j < s->n_formal && j < n->n_in && n->in[j] >= 0 && in[j].dtype != G_UNDEF;
}

static int all_data(const g_node *n, const k_tensor *in)
{
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && !in[j].data) return 0;
    return 1;
}

static int read_bool(const k_tensor *t)
{
    size_t es = g_dtype_size(t->dtype);
    const unsigned char *p = t->data;
    for (size_t i = 0; i < es; i++) if (p[i]) return 1;
    return 0;
}

static g_shape shape_merge(const g_shape *a, const g_shape *b)
{
    g_shape r = { .rank = -1 };
    if (a->rank < 0 || a->rank != b->rank) return r;
    r = *a;
    for (int i = 0; i < a->rank; i++) if (a->d[i] != b->d[i]) r.d[i] = -1;
    return r;
}

/* ---- the three ops' executions, results into s->pend ---- */

static int pend_alloc(cf_state *s, int n, const g_node *node, const k_tensor *in)
{
    pend_clear(s);
    s->pend = calloc((size_t)n + 1, sizeof *s->pend);
    s->pend_src = calloc((size_t)node->n_in + 1, sizeof *s->pend_src);
    if (!s->pend || !s->pend_src) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    s->pend_n = n;
    s->pend_nsrc = node->n_in;
    for (int j = 0; j < node->n_in; j++) s->pend_src[j] = node->in[j] >= 0 ? in[j].data : NULL;
    return 0;
}

static int exec_if(cf_state *s, const g_node *n, const k_tensor *in, int threads)
{
    cf_sub *b = &s->sub[read_bool(&in[0]) ? 0 : 1];
    int no = b->g->n_outputs, rc;
    if (no < n->n_out)
        return cf_fail(n, ACL_ERROR_PARSE_MODEL, "the chosen branch has %d outputs, the node %d",
                       no, n->n_out);
    k_tensor *res = calloc((size_t)no + 1, sizeof *res);
    unsigned char *own = calloc((size_t)no + 1, 1);
    if (!res || !own) { free(res); free(own); return acl_fail(ACL_ERROR_BAD_ALLOC, "If: out of memory"); }
    rc = sub_run(b, NULL, 0, in, res, own, threads);
    if (!rc) rc = pend_alloc(s, n->n_out, n, in);
    for (int o = 0; o < no; o++) {
        if (!rc && o < n->n_out) {
            if (!(rc = own_copy(&res[o], &own[o]))) { s->pend[o] = res[o]; own[o] = 0; }
        }
        own_free(&res[o], &own[o]);
    }
    free(res); free(own);
    if (rc) pend_clear(s);
    return rc;
}

/* A growing stack of equally shaped slices (Loop's scan outputs). */
typedef struct stack { char *buf; size_t len, cap; g_shape elem; int dtype; int64_t count; } stack;

static int stack_push(stack *st, const g_node *n, int k, const k_tensor *v)
{
    if (g_is_container(v->dtype))
        return cf_fail(n, ACL_ERROR_FEATURE_UNSUPPORTED, "scan output %d is a %s; scan outputs "
                       "must be tensors", k, g_dtype_name(v->dtype));
    if (st->count == 0) { st->elem = v->shape; st->dtype = v->dtype; }
    else if (!g_shape_eq(&st->elem, &v->shape) || st->dtype != v->dtype) {
        char a[96], b[96];
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "scan output %d changes from %s %s to %s %s "
                       "between iterations", k, g_dtype_name(st->dtype),
                       g_shape_str(&st->elem, a, sizeof a), g_dtype_name(v->dtype),
                       g_shape_str(&v->shape, b, sizeof b));
    }
    size_t nb = k_nbytes(v);
    if (st->len + nb > st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        while (cap < st->len + nb) cap *= 2;
        char *p = realloc(st->buf, cap);
        if (!p) return acl_fail(ACL_ERROR_BAD_ALLOC, "Loop: out of memory");
        st->buf = p;
        st->cap = cap;
    }
    if (nb) memcpy(st->buf + st->len, v->data, nb);
    st->len += nb;
    st->count++;
    return 0;
}

static int exec_loop(cf_state *s, const g_node *n, const k_tensor *in, int threads)
{
    cf_sub *b = &s->sub[0];
    int N = s->N, K = s->K, rc = 0;
    int64_t trip = formal_present(s, n, in, 0) ? read_i64(&in[0]) : INT64_MAX;
    unsigned char cond = formal_present(s, n, in, 1) ? (unsigned char)read_bool(&in[1]) : 1;
    int nres = b->g->n_outputs;
    k_tensor *carry = calloc((size_t)N + 1, sizeof *carry);
    unsigned char *cown = calloc((size_t)N + 1, 1);
    k_tensor *formal = calloc((size_t)N + 3, sizeof *formal);
    k_tensor *res = calloc((size_t)nres + 1, sizeof *res);
    unsigned char *rown = calloc((size_t)nres + 1, 1);
    stack *st = calloc((size_t)K + 1, sizeof *st);
    if (!carry || !cown || !formal || !res || !rown || !st) {
        rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Loop: out of memory");
        goto done;
    }
    for (int k = 0; k < N; k++) carry[k] = in[2 + k];
    int64_t it = 0;
    for (; it < trip && cond; it++) {
        int64_t iv = it;
        unsigned char cv = cond;
        formal[0] = (k_tensor){ .dtype = G_I64, .shape = { .rank = 0 }, .data = &iv, .nbytes = 8 };
        formal[1] = (k_tensor){ .dtype = G_BOOL, .shape = { .rank = 0 }, .data = &cv, .nbytes = 1 };
        for (int k = 0; k < N; k++) formal[2 + k] = carry[k];
        if ((rc = sub_run(b, formal, 2 + N, in, res, rown, threads))) goto done;
        cond = (unsigned char)read_bool(&res[0]);
        /* scan outputs first: they may alias this iteration's carried inputs */
        for (int k = 0; k < K && !rc; k++) rc = stack_push(&st[k], n, k, &res[1 + N + k]);
        for (int k = 0; k < N && !rc; k++) rc = own_copy(&res[1 + k], &rown[1 + k]);
        for (int k = 0; k < N && !rc; k++) {
            own_free(&carry[k], &cown[k]);
            carry[k] = res[1 + k];
            cown[k] = rown[1 + k];
            rown[1 + k] = 0;
        }
        for (int o = 0; o < nres; o++) own_free(&res[o], &rown[o]);
        if (rc) goto done;
    }
    if ((rc = pend_alloc(s, N + K, n, in))) goto done;
    for (int k = 0; k < N; k++) {
        if ((rc = own_copy(&carry[k], &cown[k]))) goto done;
        s->pend[k] = carry[k];
        cown[k] = 0;
        carry[k].data = NULL;
    }
    for (int k = 0; k < K; k++) {
        k_tensor *p = &s->pend[N + k];
        stack *x = &st[k];
        if (x->count == 0) {
            /* no iteration ran: the element shape comes from the body */
            const g_tensor *bt = &b->g->t[b->g->outputs[1 + N + k]];
            x->elem = bt->shape;
            x->dtype = bt->dtype;
            if (x->elem.rank < 0) x->elem.rank = 0;
            for (int i = 0; i < x->elem.rank; i++) if (x->elem.d[i] < 0) x->elem.d[i] = 0;
        }
        if (x->elem.rank + 1 > G_MAX_RANK) {
            rc = cf_fail(n, ACL_ERROR_FEATURE_UNSUPPORTED, "scan output %d would have rank %d",
                         k, x->elem.rank + 1);
            goto done;
        }
        p->dtype = x->dtype;
        p->shape.rank = x->elem.rank + 1;
        p->shape.d[0] = x->count;
        for (int i = 0; i < x->elem.rank; i++) p->shape.d[i + 1] = x->elem.d[i];
        p->nbytes = x->len;
        p->data = k_alloc64(x->len);
        if (!p->data) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Loop: out of memory"); goto done; }
        if (x->len) memcpy(p->data, x->buf, x->len);
    }
done:
    if (rc) pend_clear(s);
    for (int k = 0; carry && k < N; k++) own_free(&carry[k], &cown[k]);
    for (int k = 0; st && k < K; k++) free(st[k].buf);
    free(carry); free(cown); free(formal); free(res); free(rown); free(st);
    return rc;
}

/* Copies slice `idx` of x along `axis` into dst (preallocated, shape set). */
static void slice_axis(const k_tensor *x, int axis, int64_t idx, void *dst)
{
    size_t es = g_dtype_size(x->dtype);
    int64_t outer = 1, inner = (int64_t)es, L = x->shape.d[axis];
    for (int i = 0; i < axis; i++) outer *= x->shape.d[i];
    for (int i = axis + 1; i < x->shape.rank; i++) inner *= x->shape.d[i];
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)dst + o * inner, (const char *)x->data + (o * L + idx) * inner, (size_t)inner);
}

/* Writes element v at position p of y's axis (y's shape = v's with L inserted). */
static void place_axis(k_tensor *y, int axis, int64_t p, const k_tensor *v)
{
    size_t es = g_dtype_size(v->dtype);
    int64_t outer = 1, inner = (int64_t)es, L = y->shape.d[axis];
    for (int i = 0; i < axis; i++) outer *= v->shape.d[i];
    for (int i = axis; i < v->shape.rank; i++) inner *= v->shape.d[i];
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)y->data + (o * L + p) * inner, (const char *)v->data + o * inner, (size_t)inner);
}


/* One Scan over L steps (opset 9 semantics). states: N initial values;
 * scans: M inputs; outputs: N final states then K stacked outputs, owned. */
static int scan_core(cf_state *s, const g_node *n, const k_tensor *node_in, const k_tensor *states,
                     const k_tensor *scans, const int *in_ax, int64_t L, k_tensor *outs,
                     int threads)
{
    cf_sub *b = &s->sub[0];
    int N = s->N, M = s->M, K = s->K, rc = 0, nres = b->g->n_outputs;
    k_tensor *formal = calloc((size_t)(N + M) + 1, sizeof *formal);
    k_tensor *carry = calloc((size_t)N + 1, sizeof *carry);
    unsigned char *cown = calloc((size_t)N + 1, 1);
    k_tensor *res = calloc((size_t)nres + 1, sizeof *res);
    unsigned char *rown = calloc((size_t)nres + 1, 1);
    void **slice = calloc((size_t)M + 1, sizeof *slice);
    int *out_ax = calloc((size_t)K + 1, sizeof *out_ax);
    if (!formal || !carry || !cown || !res || !rown || !slice || !out_ax) {
        rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory");
        goto done;
    }
    for (int k = 0; k < N; k++) carry[k] = states[k];
    for (int m = 0; m < M; m++) {
        const k_tensor *x = &scans[m];
        k_tensor *f = &formal[N + m];
        f->dtype = x->dtype;
        f->shape.rank = x->shape.rank - 1;
        for (int i = 0, j = 0; i < x->shape.rank; i++) if (i != in_ax[m]) f->shape.d[j++] = x->shape.d[i];
        f->nbytes = k_nbytes(f);
        if (!(slice[m] = k_alloc64(f->nbytes))) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory"); goto done; }
        f->data = slice[m];
    }
    for (int64_t t = 0; t < L; t++) {
        for (int m = 0; m < M; m++) {
            int64_t idx = s->in_dirs && s->in_dirs[m] ? L - 1 - t : t;
            slice_axis(&scans[m], in_ax[m], idx, slice[m]);
        }
        for (int k = 0; k < N; k++) formal[k] = carry[k];
        if ((rc = sub_run(b, formal, N + M, node_in, res, rown, threads))) goto done;
        /* new states are copied out before the old ones (which the scan
         * outputs below may alias) are released */
        for (int k = 0; k < N && !rc; k++) rc = own_copy(&res[k], &rown[k]);
        for (int k = 0; k < K && !rc; k++) {
            const k_tensor *v = &res[N + k];
            k_tensor *y = &outs[N + k];
            if (t == 0) {
                int r = v->shape.rank + 1;
                if (r > G_MAX_RANK) { rc = cf_fail(n, ACL_ERROR_FEATURE_UNSUPPORTED, "scan output rank %d", r); break; }
                int64_t a = s->out_axes ? s->out_axes[k] : 0;
                if ((rc = norm_axis(n, a, r, &out_ax[k]))) break;
                y->dtype = v->dtype;
                y->shape.rank = r;
                for (int i = 0, j = 0; i < r; i++) y->shape.d[i] = i == out_ax[k] ? L : v->shape.d[j++];
                y->nbytes = k_nbytes(y);
                if (!(y->data = k_alloc64(y->nbytes))) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory"); break; }
            } else {
                g_shape e = y->shape;
                for (int i = out_ax[k]; i + 1 < e.rank; i++) e.d[i] = e.d[i + 1];
                e.rank--;
                if (!g_shape_eq(&e, &v->shape) || v->dtype != y->dtype) {
                    rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "scan output %d changes shape between iterations", k);
                    break;
                }
            }
            int64_t p = s->out_dirs && s->out_dirs[k] ? L - 1 - t : t;
            place_axis(y, out_ax[k], p, v);
        }
        for (int k = 0; k < N && !rc; k++) {
            own_free(&carry[k], &cown[k]);
            carry[k] = res[k];
            cown[k] = rown[k];
            rown[k] = 0;
        }
        for (int o = 0; o < nres; o++) own_free(&res[o], &rown[o]);
        if (rc) goto done;
    }
    for (int k = 0; k < N; k++) {
        if ((rc = own_copy(&carry[k], &cown[k]))) goto done;
        outs[k] = carry[k];
        cown[k] = 0;
        carry[k].data = NULL;
    }
    for (int k = 0; k < K; k++) {
        if (outs[N + k].data) continue;
        /* L == 0: shape from the body with the empty axis */
        const g_tensor *bt = &b->g->t[b->g->outputs[N + k]];
        k_tensor *y = &outs[N + k];
        int r = (bt->shape.rank < 0 ? 0 : bt->shape.rank) + 1;
        if ((rc = norm_axis(n, s->out_axes ? s->out_axes[k] : 0, r, &out_ax[k]))) goto done;
        y->dtype = bt->dtype;
        y->shape.rank = r;
        for (int i = 0, j = 0; i < r; i++) y->shape.d[i] = i == out_ax[k] ? 0 : (bt->shape.d[j] < 0 ? 0 : bt->shape.d[j]), j += i != out_ax[k];
        y->nbytes = 0;
        if (!(y->data = k_alloc64(0))) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory"); goto done; }
    }
done:
    for (int k = 0; carry && k < N; k++) own_free(&carry[k], &cown[k]);
    for (int m = 0; slice && m < M; m++) free(slice[m]);
    free(formal); free(carry); free(cown); free(res); free(rown); free(slice); free(out_ax);
    return rc;
}

static int exec_scan(cf_state *s, const g_node *n, const k_tensor *in, int threads)
{
    int N = s->N, M = s->M, K = s->K, rc = 0;
    int off = n->opset < 9 ? 1 : 0;
    int *ax = calloc((size_t)M + 1, sizeof *ax);
    if (!ax) return acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory");
    if (n->opset >= 9) {
        int64_t L = -1;
        for (int m = 0; m < M && !rc; m++) {
            const k_tensor *x = &in[off + N + m];
            if ((rc = norm_axis(n, s->in_axes ? s->in_axes[m] : 0, x->shape.rank, &ax[m]))) break;
            int64_t l = x->shape.d[ax[m]];
            if (L >= 0 && l != L)
                rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "scan inputs have different lengths (%lld "
                             "and %lld)", (long long)L, (long long)l);
            L = l;
        }
        if (!rc && (rc = pend_alloc(s, N + K, n, in)) == 0)
            rc = scan_core(s, n, in, in + off, in + off + N, ax, L < 0 ? 0 : L, s->pend, threads);
        if (rc) pend_clear(s);
        free(ax);
        return rc;
    }
    /* opset 8: every input has a leading batch axis, scan inputs scan axis 1 */
    const k_tensor *lens = formal_present(s, n, in, 0) ? &in[0] : NULL;
    int64_t B = -1;
    for (int j = 0; j < N + M; j++) {
        const k_tensor *x = &in[off + j];
        if (x->shape.rank < 1 + (j >= N)) {
            free(ax);
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "input %d needs a batch axis", off + j);
        }
        if (B >= 0 && x->shape.d[0] != B) {
            free(ax);
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "inputs disagree on the batch size");
        }
        B = x->shape.d[0];
    }
    int64_t L = M ? in[off + N].shape.d[1] : 0;
    k_tensor *vs = calloc((size_t)(N + M) + 1, sizeof *vs);
    k_tensor *outs = calloc((size_t)(N + K) + 1, sizeof *outs);
    if (!vs || !outs || (rc = pend_alloc(s, N + K, n, in))) {
        free(ax); free(vs); free(outs);
        return rc ? rc : acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory");
    }
    for (int64_t bi = 0; bi < B && !rc; bi++) {
        int64_t Lb = lens ? (lens->dtype == G_I32 ? ((const int32_t *)lens->data)[bi]
                                                 : ((const int64_t *)lens->data)[bi]) : L;
        if (Lb < 0 || Lb > L) { rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "sequence length %lld out of range", (long long)Lb); break; }
        for (int j = 0; j < N + M; j++) {
            const k_tensor *x = &in[off + j];
            k_tensor *v = &vs[j];
            v->dtype = x->dtype;
            v->shape.rank = x->shape.rank - 1;
            for (int i = 1; i < x->shape.rank; i++) v->shape.d[i - 1] = x->shape.d[i];
            size_t per = k_nbytes(v);
            v->data = (char *)x->data + (size_t)bi * per;
            if (j >= N) v->shape.d[0] = Lb;   /* leading Lb steps of this row */
            v->nbytes = k_nbytes(v);
            ax[j >= N ? j - N : 0] = 0;
        }
        memset(outs, 0, (size_t)(N + K) * sizeof *outs);
        /* a row with fewer steps: its scan inputs are the leading Lb rows */
        k_tensor *sc = vs + N;
        rc = scan_core(s, n, in, vs, sc, ax, Lb, outs, threads);
        for (int k = 0; k < N + K && !rc; k++) {
            k_tensor *p = &s->pend[k];
            const k_tensor *o = &outs[k];
            if (bi == 0) {
                p->dtype = o->dtype;
                p->shape.rank = o->shape.rank + 1;
                p->shape.d[0] = B;
                for (int i = 0; i < o->shape.rank; i++) p->shape.d[i + 1] = o->shape.d[i];
                if (k >= N) p->shape.d[1] = L;
                p->nbytes = k_nbytes(p);
                if (!(p->data = k_alloc64(p->nbytes))) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "Scan: out of memory"); break; }
                memset(p->data, 0, p->nbytes);
            }
            size_t per = p->nbytes / (size_t)(B ? B : 1);
            size_t nb = k_nbytes(o);
            if (nb > per) { rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "output %d changes shape across the batch", k); break; }
            memcpy((char *)p->data + (size_t)bi * per, o->data, nb);
        }
        for (int k = 0; k < N + K; k++) free(outs[k].data);
    }
    if (rc) pend_clear(s);
    free(ax); free(vs); free(outs);
    return rc;
}

/* SequenceMap: the body runs once per element of the first input; sequence
 * inputs give their i-th element, tensors are passed whole; output k collects
 * body output k of every step. */
static int exec_seqmap(cf_state *s, const g_node *n, const k_tensor *in, int threads)
{
    cf_sub *b = &s->sub[0];
    int nf = s->n_formal, nres = b->g->n_outputs, rc = 0;
    const k_seq *first = in[0].data;
    int len = first ? first->n : 0;
    for (int j = 1; j < nf; j++)
        if (g_is_seq(in[j].dtype) && in[j].data && ((const k_seq *)in[j].data)->n != len)
            return cf_fail(n, ACL_ERROR_INVALID_PARAM, "input %d has %d elements, input 0 has %d",
                           j, ((const k_seq *)in[j].data)->n, len);
    k_tensor *formal = calloc((size_t)nf + 1, sizeof *formal);
    k_tensor *res = calloc((size_t)nres + 1, sizeof *res);
    unsigned char *rown = calloc((size_t)nres + 1, 1);
    if (!formal || !res || !rown || (rc = pend_alloc(s, n->n_out, n, in))) {
        free(formal); free(res); free(rown);
        return rc ? rc : acl_fail(ACL_ERROR_BAD_ALLOC, "SequenceMap: out of memory");
    }
    for (int o = 0; o < n->n_out && !rc; o++) {
        const g_tensor *bo = &b->g->t[b->g->outputs[o]];
        s->pend[o].dtype = G_SEQ_BASE + (g_is_container(bo->dtype) ? G_UNDEF : bo->dtype);
        s->pend[o].nbytes = sizeof(k_seq);
        if (!(s->pend[o].data = k_seq_new())) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "SequenceMap: out of memory");
    }
    for (int i = 0; i < len && !rc; i++) {
        for (int j = 0; j < nf; j++)
            formal[j] = g_is_seq(in[j].dtype) ? ((const k_seq *)in[j].data)->items[i] : in[j];
        if ((rc = sub_run(b, formal, nf, in, res, rown, threads))) break;
        for (int o = 0; o < n->n_out && !rc; o++) {
            k_seq *q = s->pend[o].data;
            if ((rc = k_seq_insert(q, q->n, &res[o])))
                acl_fail(rc, "SequenceMap: out of memory");
            if (!g_is_container(res[o].dtype)) s->pend[o].dtype = G_SEQ_BASE + res[o].dtype;
        }
        for (int o = 0; o < nres; o++) own_free(&res[o], &rown[o]);
    }
    free(formal); free(res); free(rown);
    if (rc) pend_clear(s);
    return rc;
}

static int cf_exec(cf_state *s, const g_node *n, const k_tensor *in, int threads)
{
    switch (s->kind) {
    case CF_IF: return exec_if(s, n, in, threads);
    case CF_LOOP: return exec_loop(s, n, in, threads);
    case CF_SEQMAP: return exec_seqmap(s, n, in, threads);
    default: return exec_scan(s, n, in, threads);
    }
}

/* ---- init / infer / run ---- */

static int ints_attr(const g_node *n, const char *name, int want, int64_t **dst)
{
    const int64_t *v;
    int c = g_attr_ints(n, name, &v);
    if (c < 0) return 0;
    if (c != want)
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "attribute '%s' has %d values, expected %d",
                       name, c, want);
    *dst = malloc((size_t)(c ? c : 1) * sizeof **dst);
    if (!*dst) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    memcpy(*dst, v, (size_t)c * sizeof **dst);
    return 0;
}

static void set_formal(g_graph *body, int k, int dtype, const g_shape *shape)
{
    if (k >= body->n_inputs) return;
    g_tensor *t = &body->t[body->inputs[k]];
    if (t->dtype == G_UNDEF) t->dtype = dtype;
    if (shape) t->shape = *shape;
}


static int cf_init(g_graph *g, g_node *n, void **state)
{
    cf_state *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "control flow: out of memory");
    *state = s;
    int rc = 0;
    if (!strcmp(n->op_type, "If")) {
        s->kind = CF_IF;
        g_graph *tb = body_attr(n, "then_branch"), *eb = body_attr(n, "else_branch");
        if (!tb || !eb) return cf_fail(n, ACL_ERROR_PARSE_MODEL, "then_branch/else_branch missing");
        if (tb->n_outputs != eb->n_outputs || tb->n_outputs < n->n_out)
            return cf_fail(n, ACL_ERROR_PARSE_MODEL, "branches have %d and %d outputs, the node %d",
                           tb->n_outputs, eb->n_outputs, n->n_out);
        s->n_formal = 1;
        if (n->n_in < 1 || n->in[0] < 0) return cf_fail(n, ACL_ERROR_PARSE_MODEL, "no condition input");
        s->nsub = 2;
        if ((rc = sub_setup(g, n, s, &s->sub[0], tb))) return rc;
        return sub_setup(g, n, s, &s->sub[1], eb);
    }
    g_graph *body = body_attr(n, "body");
    if (!body) return cf_fail(n, ACL_ERROR_PARSE_MODEL, "attribute 'body' missing");
    s->nsub = 1;
    if (!strcmp(n->op_type, "SequenceMap")) {
        s->kind = CF_SEQMAP;
        s->n_formal = body->n_inputs;
        if (body->n_inputs < 1 || n->n_in < body->n_inputs || body->n_outputs < n->n_out ||
            !g_is_seq(in_dtype(g, n, 0)))
            return cf_fail(n, ACL_ERROR_PARSE_MODEL, "needs a sequence first input and a body "
                           "with one input per node input (%d for %d) and an output per node "
                           "output", body->n_inputs, n->n_in);
        for (int j = 0; j < body->n_inputs; j++) {
            int dt = in_dtype(g, n, j);
            set_formal(body, j, g_is_seq(dt) ? g_container_elem(dt) : dt, NULL);
        }
        return sub_setup(g, n, s, &s->sub[0], body);
    }
    if (!strcmp(n->op_type, "Loop")) {
        s->kind = CF_LOOP;
        s->n_formal = body->n_inputs;
        s->N = body->n_inputs - 2;
        s->K = body->n_outputs - 1 - s->N;
        if (s->N < 0 || s->K < 0 || n->n_out > s->N + s->K)
            return cf_fail(n, ACL_ERROR_PARSE_MODEL, "body has %d inputs and %d outputs, which "
                           "does not fit a Loop with %d outputs", body->n_inputs, body->n_outputs,
                           n->n_out);
        g_shape sc = { .rank = 0 };
        set_formal(body, 0, G_I64, &sc);
        set_formal(body, 1, G_BOOL, &sc);
        for (int k = 0; k < s->N; k++) {
            if (2 + k >= n->n_in || n->in[2 + k] < 0)
                return cf_fail(n, ACL_ERROR_PARSE_MODEL, "loop-carried input %d is missing", k);
            set_formal(body, 2 + k, in_dtype(g, n, 2 + k), NULL);
        }
        return sub_setup(g, n, s, &s->sub[0], body);
    }
    s->kind = CF_SCAN;
    s->M = (int)g_attr_int(n, "num_scan_inputs", -1);
    int off = n->opset < 9 ? 1 : 0;
    s->n_formal = off + body->n_inputs;
    s->N = body->n_inputs - s->M;
    s->K = body->n_outputs - s->N;
    if (s->M < 1 || s->N < 0 || s->K < 0 || n->n_in < s->n_formal || n->n_out > s->N + s->K)
        return cf_fail(n, ACL_ERROR_PARSE_MODEL, "num_scan_inputs %d does not fit a body with %d "
                       "inputs and %d outputs and a node with %d inputs", s->M, body->n_inputs,
                       body->n_outputs, n->n_in);
    if (n->opset < 9) {
        if ((rc = ints_attr(n, "directions", s->M, &s->in_dirs))) return rc;
    } else {
        if ((rc = ints_attr(n, "scan_input_axes", s->M, &s->in_axes))) return rc;
        if ((rc = ints_attr(n, "scan_input_directions", s->M, &s->in_dirs))) return rc;
        if ((rc = ints_attr(n, "scan_output_axes", s->K, &s->out_axes))) return rc;
        if ((rc = ints_attr(n, "scan_output_directions", s->K, &s->out_dirs))) return rc;
    }
    for (int j = 0; j < s->N + s->M; j++) {
        int nj = off + j;
        if (n->in[nj] < 0) return cf_fail(n, ACL_ERROR_PARSE_MODEL, "input %d is missing", nj);
        const g_tensor *x = &g->t[n->in[nj]];
        g_shape sl = { .rank = -1 };
        if (j >= s->N && x->shape.rank >= 1) {
            /* a slice's shape is the same at every step: worth telling the body */
            int ax = 0;
            if (off) ax = 1;
            else if (s->in_axes) ax = (int)(s->in_axes[j - s->N] < 0 ? s->in_axes[j - s->N] + x->shape.rank : s->in_axes[j - s->N]);
            if (ax >= 0 && ax < x->shape.rank && x->shape.rank - 1 - off >= 0) {
                sl.rank = 0;
                for (int i = off; i < x->shape.rank; i++) if (i != ax) sl.d[sl.rank++] = x->shape.d[i];
            }
        }
        set_formal(body, j, x->dtype, sl.rank >= 0 ? &sl : NULL);
    }
    return sub_setup(g, n, s, &s->sub[0], body);
}

static int cf_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    cf_state *s = state;
    if (all_data(n, in)) {
        int rc = cf_exec(s, n, in, omp_get_max_threads());
        if (rc) return rc;
        for (int o = 0; o < n->n_out && o < s->pend_n; o++) {
            out[o].dtype = s->pend[o].dtype;
            out[o].shape = s->pend[o].shape;
            out[o].layout = G_LAYOUT_PLAIN;
        }
        return 0;
    }
    const g_graph *b0 = s->sub[0].g;
    if (s->kind == CF_IF) {
        const g_graph *b1 = s->sub[1].g;
        int pick = in[0].data ? (read_bool(&in[0]) ? 0 : 1) : -1;
        for (int o = 0; o < n->n_out; o++) {
            const g_tensor *a = &b0->t[b0->outputs[o]], *b = &b1->t[b1->outputs[o]];
            const g_tensor *p = pick == 1 ? b : a;
            out[o].dtype = p->dtype != G_UNDEF ? p->dtype : (pick < 0 ? b->dtype : G_UNDEF);
            out[o].shape = pick >= 0 ? p->shape : shape_merge(&a->shape, &b->shape);
            out[o].layout = G_LAYOUT_PLAIN;
        }
        return 0;
    }
    if (s->kind == CF_SEQMAP) {
        for (int o = 0; o < n->n_out; o++) {
            const g_tensor *bo = &b0->t[b0->outputs[o]];
            out[o].dtype = G_SEQ_BASE + (g_is_container(bo->dtype) ? G_UNDEF : bo->dtype);
            memset(&out[o].shape, 0, sizeof out[o].shape);
        }
        return 0;
    }
    int N = s->N, off = s->kind == CF_SCAN && n->opset < 9 ? 1 : 0;
    int carried0 = s->kind == CF_LOOP ? 2 : off;       /* node input of state 0 */
    int bout0 = s->kind == CF_LOOP ? 1 : 0;            /* body output of state 0 */
    for (int o = 0; o < n->n_out; o++) {
        out[o].layout = G_LAYOUT_PLAIN;
        if (o < N) {
            const k_tensor *init = &in[carried0 + o];
            const g_tensor *bo = &b0->t[b0->outputs[bout0 + o]];
            /* the body's type wins (an optional start may carry on as its content) */
            out[o].dtype = bo->dtype != G_UNDEF && (g_is_container(bo->dtype) || g_is_container(init->dtype))
                           ? bo->dtype : init->dtype;
            g_shape want = init->shape;
            if (off) {   /* opset-8 Scan: the body sees one batch row */
                for (int i = 1; i < want.rank; i++) want.d[i - 1] = want.d[i];
                want.rank--;
            }
            out[o].shape = g_shape_known(&bo->shape) && g_shape_eq(&bo->shape, &want)
                           ? init->shape : (g_shape){ .rank = -1 };
            continue;
        }
        const g_tensor *bo = &b0->t[b0->outputs[bout0 + o]];
        out[o].dtype = bo->dtype;
        g_shape e = bo->shape, r = { .rank = -1 };
        if (e.rank >= 0 && e.rank + 1 + off <= G_MAX_RANK) {
            int64_t L = -1;
            if (s->kind == CF_SCAN && s->M > 0) {
                const k_tensor *x = &in[off + N];
                int ax = off ? 1 : 0;
                if (!off && s->in_axes) ax = (int)(s->in_axes[0] < 0 ? s->in_axes[0] + x->shape.rank : s->in_axes[0]);
                if (x->shape.rank > ax && ax >= 0) L = x->shape.d[ax];
                if (off && n->in[0] >= 0) L = x->shape.rank > 1 ? x->shape.d[1] : -1;
            }
            int oa = 0;
            if (s->kind == CF_SCAN && s->out_axes) {
                int64_t a = s->out_axes[o - N];
                oa = (int)(a < 0 ? a + e.rank + 1 : a);
                if (oa < 0 || oa > e.rank) oa = 0;
            }
            r.rank = e.rank + 1 + off;
            if (off) r.d[0] = in[off].shape.rank > 0 ? in[off].shape.d[0] : -1;
            for (int i = 0, j = 0; i < e.rank + 1; i++)
                r.d[off + i] = i == oa ? L : e.d[j++];
        }
        out[o].shape = r;
    }
    return 0;
}

static int cf_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    cf_state *s = state;
    int fresh = s->pend && s->pend_nsrc == n->n_in;
    for (int j = 0; fresh && j < n->n_in; j++)
        if (n->in[j] >= 0 && s->pend_src[j] != in[j].data) fresh = 0;
    if (!fresh) {
        int rc = cf_exec(s, n, in, ctx->threads);
        if (rc) return rc;
    }
    int rc = 0;
    for (int o = 0; o < n->n_out && !rc; o++) {
        if (n->out[o] < 0) continue;
        k_tensor *p = &s->pend[o];
        if (g_is_container(p->dtype) && g_is_seq(p->dtype) == g_is_seq(out[o].dtype) &&
            g_is_opt(p->dtype) == g_is_opt(out[o].dtype) && out[o].data) {
            k_seq tmp = *(k_seq *)out[o].data;   /* hand the result's items over */
            *(k_seq *)out[o].data = *(k_seq *)p->data;
            *(k_seq *)p->data = tmp;
            continue;
        }
        if (p->dtype != out[o].dtype || !g_shape_eq(&p->shape, &out[o].shape)) {
            char a[96], b[96];
            rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "output %d came out %s %s, planned %s %s", o,
                         g_dtype_name(p->dtype), g_shape_str(&p->shape, a, sizeof a),
                         g_dtype_name(out[o].dtype), g_shape_str(&out[o].shape, b, sizeof b));
            break;
        }
        size_t nb = k_nbytes(p);
        if (nb > out[o].nbytes) { rc = cf_fail(n, ACL_ERROR_INVALID_PARAM, "output %d too small", o); break; }
        if (nb) memcpy(out[o].data, p->data, nb);
    }
    pend_clear(s);
    return rc;
}

static const k_op k_if = { .op_type = "If", .domain = "", .since = 1, .until = 0, .impl = "ref",
                           .priority = 0, .init = cf_init, .infer = cf_infer, .run = cf_run,
                           .fini = cf_fini };
static const k_op k_loop = { .op_type = "Loop", .domain = "", .since = 1, .until = 0, .impl = "ref",
                             .priority = 0, .init = cf_init, .infer = cf_infer, .run = cf_run,
                             .fini = cf_fini };
static const k_op k_scan = { .op_type = "Scan", .domain = "", .since = 8, .until = 0, .impl = "ref",
                             .priority = 0, .init = cf_init, .infer = cf_infer, .run = cf_run,
                             .fini = cf_fini };
static const k_op k_seqmap = { .op_type = "SequenceMap", .domain = "", .since = 17, .until = 0,
                               .impl = "ref", .priority = 0, .init = cf_init, .infer = cf_infer,
                               .run = cf_run, .fini = cf_fini };
K_REGISTER(k_if);
K_REGISTER(k_loop);
K_REGISTER(k_scan);
K_REGISTER(k_seqmap);
