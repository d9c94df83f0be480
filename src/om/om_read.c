/* The compiled-model reader's decoders (docs/om-format.md): the INFO, BLOBS
 * and EXEC sections and the program graphs, from the src/om container into
 * the neutral records of om/program.h. Every count and index is bounded
 * before use; nothing here binds kernels or plans (the engine realises the
 * programs, engine/eng_om.c). */
#include "om/om.h"
#include "om/program.h"
#include "graph/plan.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STR (1u << 20)
#define MAX_ITEMS (1u << 24)
#define MAX_THREADS_REC 65536u

void om_meta_free(om_meta *x)
{
    if (!x) return;
    free(x->producer); free(x->kernel_abi); free(x->soc_version); free(x->precision_mode);
    free(x->input_format); free(x->framework); free(x->cmdline);
    for (int i = 0; i < x->n_in && x->in_names; i++) free(x->in_names[i]);
    free(x->in_names); free(x->in_dtype); free(x->in_shape); free(x->lo); free(x->hi);
    free(x);
}

int om_meta_range(const om_meta *x, int i, int d, int64_t *lo, int64_t *hi)
{
    if (!x || !x->has_ranges || i < 0 || i >= x->n_in || d < 0 || d >= G_MAX_RANK) return -1;
    if (d >= x->in_shape[i].rank) return -1;
    *lo = x->lo[(size_t)i * G_MAX_RANK + (size_t)d];
    *hi = x->hi[(size_t)i * G_MAX_RANK + (size_t)d];
    return 0;
}




int om_malformed(om_rdctx *c, const char *what)
{
    return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %s (at byte %zu of the "
                    "programs section)", c->api, c->src, what, c->r.pos);
}

static int r_shape(om_rdctx *c, g_shape *s)
{
    int32_t rank = or_i32(&c->r);
    memset(s, 0, sizeof *s);
    if (c->r.bad || rank < -1 || rank > G_MAX_RANK) return om_malformed(c, "tensor rank out of range");
    s->rank = rank;
    /* the known part of a shape is bounded like a whole one (2^37 elements,
     * 1 TiB of doubles), so no later size computation can overflow when the
     * unknown dims are filled in */
    const int64_t lim = (int64_t)1 << 37;
    int64_t known = 1;
    for (int i = 0; i < rank; i++) {
        s->d[i] = or_i64(&c->r);
        if (s->d[i] < -1) return om_malformed(c, "negative dimension");
        if (s->d[i] > lim || (s->d[i] > 0 && known > lim / s->d[i])) return om_malformed(c, "dimension too large");
        if (s->d[i] >= 0) known *= s->d[i];
    }
    return c->r.bad ? om_malformed(c, "truncated shape") : 0;
}

static int dtype_ok(int dt)
{
    return (dt >= G_UNDEF && dt <= G_BF16) || g_is_container(dt);
}

/* Size of a dense tensor's data, or -1 when unknown / too large. */
static int64_t dense_bytes(int dtype, const g_shape *s)
{
    int64_t n = g_shape_numel(s);
    size_t es = g_dtype_size(dtype);
    if (n < 0 || !es || n > (INT64_MAX / 16)) return -1;
    return n * (int64_t)es;
}

static int r_attr(om_rdctx *c, g_attr *a, int depth)
{
    om_rd *r = &c->r;
    a->name = or_str(r, MAX_STR);
    a->type = or_i32(r);
    if (r->bad || !a->name) return om_malformed(c, "truncated attribute");
    switch (a->type) {
    case G_AT_FLOAT: a->f = or_f32(r); break;
    case G_AT_INT: case G_AT_TYPE: a->i = or_i64(r); break;
    case G_AT_STRING: {
        size_t n;
        const void *p = or_blob(r, &n);
        if (r->bad || n > MAX_STR) return om_malformed(c, "string attribute");
        a->s = malloc(n + 1);
        if (!a->s) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        memcpy(a->s, p, n);
        a->s[n] = 0;
        a->slen = n;
        break;
    }
    case G_AT_FLOATS: case G_AT_INTS: {
        size_t es = a->type == G_AT_FLOATS ? sizeof(float) : sizeof(int64_t);
        uint32_t n = or_count(r, es, MAX_ITEMS);
        if (r->bad) return om_malformed(c, "attribute list count");
        void *v = malloc((size_t)n * es + 1);
        if (!v) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        for (uint32_t i = 0; i < n; i++) {
            if (a->type == G_AT_FLOATS) ((float *)v)[i] = or_f32(r);
            else ((int64_t *)v)[i] = or_i64(r);
        }
        if (a->type == G_AT_FLOATS) a->floats = v; else a->ints = v;
        a->n = (int)n;
        break;
    }
    case G_AT_STRINGS: {
        uint32_t n = or_count(r, 8, MAX_ITEMS);
        if (r->bad) return om_malformed(c, "attribute list count");
        a->strings = calloc((size_t)n + 1, sizeof *a->strings);
        if (!a->strings) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        a->n = (int)n;
        for (uint32_t i = 0; i < n; i++) {
            size_t len;
            const void *p = or_blob(r, &len);
            if (r->bad || len > MAX_STR) return om_malformed(c, "string list attribute");
            a->strings[i] = malloc(len + 1);
            if (!a->strings[i]) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
            memcpy(a->strings[i], p, len);
            a->strings[i][len] = 0;
        }
        break;
    }
    case G_AT_TENSOR: {
        g_tensor *t = calloc(1, sizeof *t);
        if (!t) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        a->t = t;
        t->name = or_str(r, MAX_STR);
        t->dtype = or_i32(r);
        t->kind = G_TK_CONST;
        t->producer = -1;
        t->mem_offset = -1;
        if (r->bad || !t->name || !dtype_ok(t->dtype)) return om_malformed(c, "tensor attribute");
        int rc = r_shape(c, &t->shape);
        if (rc) return rc;
        size_t n;
        const void *p = or_blob(r, &n);
        int64_t want = dense_bytes(t->dtype, &t->shape);
        if (r->bad || (want >= 0 && (uint64_t)want != n)) return om_malformed(c, "tensor attribute data size");
        t->data = malloc(n ? n : 1);
        if (!t->data) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        memcpy(t->data, p, n);
        t->nbytes = n;
        break;
    }
    case G_AT_GRAPH:
        return om_read_graph(c, depth + 1, 0, &a->g, NULL, NULL);
    default:
        return om_malformed(c, "unknown attribute type");
    }
    return r->bad ? om_malformed(c, "truncated attribute") : 0;
}

void om_rec_free(om_rec *r)
{
    if (!r) return;
    free(r->mem_offset); free(r->packed_bytes); free(r->scratch_off); free(r->scratch_bytes);
    free(r->packed_off); free(r->const_off);
    if (r->impl) {
        size_t n = r->n_impl;
        for (size_t i = 0; i < n; i++) free(r->impl[i]);
    }
    free(r->impl);
    memset(r, 0, sizeof *r);
}

static int blob_ref(om_rdctx *c, int id, int region, size_t need, const unsigned char **p, size_t *off)
{
    if (id < 0) return 0;
    if (id >= c->bt->n || c->bt->e[id].region != region) return om_malformed(c, "blob reference out of range");
    const om_bent *e = &c->bt->e[id];
    if (e->size < need) return om_malformed(c, "blob smaller than its tensor");
    *p = (region == OM_REGION_PLAIN ? c->bt->plain : c->bt->rt) + e->off;
    *off = e->off;
    return 0;
}

/* One tensor record (index t) of a graph. */
static int r_tensor(om_rdctx *c, g_graph *g, uint32_t t, int main_graph, om_rec *rec, unsigned char *borrowed)
{
    om_rd *r = &c->r;
    int rc;
    char *name = or_str(r, MAX_STR);
    if (!name) return om_malformed(c, "tensor name");
    int idx = g_tensor_add(g, name);
    free(name);
    if (idx < 0) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    g_tensor *x = &g->t[idx];
    x->dtype = or_i32(r);
    x->kind = (int)or_u8(r);
    x->layout = (int)or_u8(r);
    x->is_output = (int)or_u8(r);
    unsigned dk = or_u8(r);
    if (r->bad || !dtype_ok(x->dtype) || x->kind > G_TK_CONST || x->layout > G_LAYOUT_NHWC ||
        x->is_output > 1 || dk > OM_DK_INLINE)
        return om_malformed(c, "tensor record");
    if ((rc = r_shape(c, &x->shape))) return rc;
    if (g_shape_known(&x->shape)) {
        int64_t ne = g_shape_numel(&x->shape);
        if (ne < 0 || ne > ((int64_t)1 << 40) / 8) return om_malformed(c, "tensor too large");
    }
    int64_t mo = or_i64(r);
    uint64_t nb = or_u64(r);
    if (r->bad) return om_malformed(c, "truncated tensor");
    /* the planner places every buffer at a multiple of PLAN_ALIGN; kernels rely on it */
    if (mo > 0 && mo % PLAN_ALIGN) return om_malformed(c, "arena offset not aligned");
    if (main_graph) { rec->mem_offset[t] = mo < 0 ? -1 : mo; rec->const_off[t] = -1; }
    if (dk != OM_DK_NONE && x->kind != G_TK_CONST) return om_malformed(c, "data on a tensor that is not a constant");
    if (dk == OM_DK_NONE) return 0;
    int64_t want = dense_bytes(x->dtype, &x->shape);
    if (want < 0 || (uint64_t)want != nb) return om_malformed(c, "constant data size does not match its shape");
    x->nbytes = (size_t)nb;
    if (dk == OM_DK_BLOB) {
        int32_t rt = or_i32(r), pl = or_i32(r);
        if (r->bad || !main_graph || (rt < 0 && pl < 0)) return om_malformed(c, "constant blob reference");
        const unsigned char *prt = NULL, *ppl = NULL;
        size_t ort = 0, opl = 0;
        if ((rc = blob_ref(c, rt, OM_REGION_WEIGHTS, x->nbytes, &prt, &ort))) return rc;
        if ((rc = blob_ref(c, pl, OM_REGION_PLAIN, x->nbytes, &ppl, &opl))) return rc;
        x->data = (void *)(prt ? prt : ppl);
        borrowed[t] = 1;
        rec->const_off[t] = rt >= 0 ? (int64_t)ort : -1;
    } else {
        size_t n;
        const void *p = or_blob(r, &n);
        if (r->bad || n != x->nbytes) return om_malformed(c, "inline constant");
        x->data = malloc(n ? n : 1);
        if (!x->data) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        memcpy(x->data, p, n);
    }
    return 0;
}

/* One node record (index i) of a graph of nt tensors, with its plan. */
static int r_node(om_rdctx *c, g_graph *g, uint32_t i, uint32_t nt, int depth, int main_graph, om_rec *rec)
{
    om_rd *r = &c->r;
    int rc;
    char *name = or_str(r, MAX_STR), *op = or_str(r, MAX_STR), *dom = or_str(r, MAX_STR);
    int32_t opset = or_i32(r);
    char *impl = or_str(r, 256);
    uint32_t ni = or_count(r, 4, 1u << 16);
    int *in = NULL, *outv = NULL;
    if (!r->bad) in = malloc(((size_t)ni + 1) * sizeof *in);
    for (uint32_t j = 0; in && j < ni; j++) in[j] = or_i32(r);
    uint32_t no = or_count(r, 4, 1u << 16);
    if (!r->bad) outv = malloc(((size_t)no + 1) * sizeof *outv);
    for (uint32_t j = 0; outv && j < no; j++) outv[j] = or_i32(r);
    int ok = !r->bad && name && op && dom && impl && in && outv && *op && opset >= 0;
    for (uint32_t j = 0; ok && j < ni; j++) ok = in[j] >= -1 && in[j] < (int)nt;
    for (uint32_t j = 0; ok && j < no; j++) ok = outv[j] >= -1 && outv[j] < (int)nt;
    int idx = ok ? g_node_add(g, op, dom, name, (int)ni, in, (int)no, outv) : -1;
    free(name); free(op); free(dom); free(in); free(outv);
    if (!ok) { free(impl); return om_malformed(c, "node record"); }
    if (idx < 0) { free(impl); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api); }
    g_node *n = &g->nodes[idx];
    n->opset = opset;
    if (main_graph) { rec->impl[i] = impl; rec->n_impl = i + 1; } else free(impl);
    uint32_t na = or_count(r, 8, 1u << 16);
    if (r->bad) return om_malformed(c, "attribute count");
    n->attr = calloc((size_t)na + 1, sizeof *n->attr);
    if (!n->attr) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    for (uint32_t a = 0; a < na; a++) {
        n->n_attr = (int)a + 1;
        if ((rc = r_attr(c, &n->attr[a], depth))) return rc;
        if (n->attr[a].type == G_AT_GRAPH) n->attr[a].g->parent = g;
    }
    uint64_t pb = or_u64(r);
    int32_t pblob = or_i32(r);
    uint64_t so = or_u64(r), sb = or_u64(r);
    if (r->bad) return om_malformed(c, "truncated node plan");
    if (so % PLAN_ALIGN) return om_malformed(c, "scratch offset not aligned");
    if (main_graph) {
        rec->packed_bytes[i] = (size_t)pb;
        rec->scratch_off[i] = (size_t)so;
        rec->scratch_bytes[i] = (size_t)sb;
        rec->packed_off[i] = -1;
        if (pblob >= 0) {
            const unsigned char *pp;
            size_t off = 0;
            if ((rc = blob_ref(c, pblob, OM_REGION_WEIGHTS, (size_t)pb, &pp, &off))) return rc;
            rec->packed_off[i] = (int64_t)off;
        }
    } else if (pb || pblob >= 0 || so || sb) {
        return om_malformed(c, "plan fields on a subgraph node");
    }
    return 0;
}

/* Reads a graph record. Main graphs fill rec (plans, blob offsets) and
 * borrowed (constants whose data lies in the image). */
int om_read_graph(om_rdctx *c, int depth, int main_graph, g_graph **out, om_rec *rec, unsigned char **borrowed)
{
    om_rd *r = &c->r;
    int rc = 0;
    *out = NULL;
    if (depth > OM_MAX_SUBGRAPH_DEPTH) return om_malformed(c, "subgraphs nested too deeply");
    g_graph *g = g_graph_new();
    if (!g) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    *out = g;
    g->opset = or_i32(r);
    uint32_t nt = or_count(r, 32, MAX_ITEMS);
    if (r->bad) return om_malformed(c, "tensor count");
    if (main_graph) {
        rec->mem_offset = malloc(((size_t)nt + 1) * sizeof *rec->mem_offset);
        rec->const_off = malloc(((size_t)nt + 1) * sizeof *rec->const_off);
        *borrowed = calloc((size_t)nt + 1, 1);
        if (!rec->mem_offset || !rec->const_off || !*borrowed)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    }
    for (uint32_t t = 0; t < nt; t++)
        if ((rc = r_tensor(c, g, t, main_graph, rec, main_graph ? *borrowed : NULL))) return rc;
    for (int k = 0; k < 2; k++) {
        uint32_t n = or_count(r, 4, nt);
        if (r->bad) return om_malformed(c, k ? "output count" : "input count");
        int *v = malloc(((size_t)n + 1) * sizeof *v);
        if (!v) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        if (k) { g->outputs = v; g->n_outputs = (int)n; } else { g->inputs = v; g->n_inputs = (int)n; }
        for (uint32_t i = 0; i < n; i++) {
            v[i] = or_i32(r);
            if (r->bad || v[i] < 0 || (uint32_t)v[i] >= nt) return om_malformed(c, "graph input/output index");
            if (!k && g->t[v[i]].kind != G_TK_INPUT) return om_malformed(c, "graph input is not an input tensor");
            /* the engine keeps exactly the flagged tensors alive past a run */
            if (k && !g->t[v[i]].is_output) return om_malformed(c, "graph output is not flagged as an output");
        }
    }
    /* the format stores a body's captures as input tensors that are not
     * among its formal inputs: marked as the ONNX importer marks them */
    for (uint32_t t = 0; !main_graph && t < nt; t++) {
        int listed = g->t[t].kind != G_TK_INPUT;
        for (int i = 0; !listed && i < g->n_inputs; i++) listed = g->inputs[i] == (int)t;
        g->t[t].is_capture = !listed;
    }
    uint32_t flagged = 0;
    for (uint32_t t = 0; t < nt; t++) flagged += g->t[t].is_output ? 1u : 0u;
    for (int i = 0; i < g->n_outputs; i++)
        for (int j = 0; j < i; j++)
            if (g->outputs[j] == g->outputs[i]) { flagged++; break; }
    if (flagged != (uint32_t)g->n_outputs) return om_malformed(c, "tensor flagged as an output but not listed");
    uint32_t nn = or_count(r, 40, MAX_ITEMS);
    if (r->bad) return om_malformed(c, "node count");
    if (main_graph) {
        rec->packed_bytes = calloc((size_t)nn + 1, sizeof *rec->packed_bytes);
        rec->scratch_off = calloc((size_t)nn + 1, sizeof *rec->scratch_off);
        rec->scratch_bytes = calloc((size_t)nn + 1, sizeof *rec->scratch_bytes);
        rec->packed_off = calloc((size_t)nn + 1, sizeof *rec->packed_off);
        rec->impl = calloc((size_t)nn + 1, sizeof *rec->impl);
        if (!rec->packed_bytes || !rec->scratch_off || !rec->scratch_bytes || !rec->packed_off || !rec->impl)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    }
    for (uint32_t i = 0; i < nn; i++)
        if ((rc = r_node(c, g, i, nt, depth, main_graph, rec))) return rc;
    /* order and single production: what the planner's liveness relies on */
    if ((rc = g_graph_link(g))) return rc;
    for (int i = 0; i < g->n_outputs; i++) {
        const g_tensor *t = &g->t[g->outputs[i]];
        if (t->kind == G_TK_ACT && t->producer < 0) return om_malformed(c, "a graph output no node produces");
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        /* the compiler drops such nodes; a kernel would write to no storage */
        int made = 0;
        for (int j = 0; j < n->n_out; j++) made |= n->out[j] >= 0;
        if (!made) return om_malformed(c, "a node that produces nothing");
        int slot, bad = g_node_outputs_bad(n->domain, n->op_type, n->n_out, n->out, &slot);
        if (bad) return om_malformed(c, bad == 1 ? "a node without an output its operator requires"
                                                 : "a node with more outputs than its operator has");
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t >= 0 && g->t[t].kind == G_TK_ACT && (g->t[t].producer < 0 || g->t[t].producer >= i) &&
                main_graph)
                return om_malformed(c, "a node reads a tensor no earlier node produces");
        }
    }
    return 0;
}


/* INFO section: model-level facts. */
int om_read_info(const char *api, const char *src, const unsigned char *p, size_t len, om_meta **out,
                  int *gear_kind, int *n_gears, int *nvals, int64_t **vals, int *n_progs)
{
    om_rd r;
    or_init(&r, p, len);
    *out = NULL;
    *vals = NULL;
    om_meta *m = calloc(1, sizeof *m);
    if (!m) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    uint32_t ver = or_u32(&r);
    m->producer = or_str(&r, 4096);
    m->soc_version = or_str(&r, 4096);
    m->precision_mode = or_str(&r, 4096);
    m->input_format = or_str(&r, 4096);
    m->framework = or_str(&r, 4096);
    m->cmdline = or_str(&r, MAX_STR);
    *gear_kind = (int)or_u32(&r);
    *n_gears = (int)or_u32(&r);
    *nvals = (int)or_u32(&r);
    const char *why = NULL;
    if (r.bad) why = "truncated";
    else if (ver != OM_INFO_VERSION) why = "unknown info version";
    else if (*gear_kind < OM_GEAR_NONE || *gear_kind > OM_GEAR_DIMS) why = "unknown gear kind";
    else if (*gear_kind && (*n_gears < 1 || *n_gears > OM_MAX_GEARS)) why = "gear count out of range";
    else if (*gear_kind && (*nvals < 1 || *nvals > G_MAX_RANK * 16)) why = "gear value count out of range";
    else if (!*gear_kind && (*n_gears || *nvals)) why = "gears on a model without a gear kind";
    if (!why && *gear_kind) {
        size_t nv = (size_t)*n_gears * (size_t)*nvals;
        *vals = malloc(nv * sizeof **vals);
        if (!*vals) { om_meta_free(m); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
        for (size_t i = 0; i < nv; i++) {
            (*vals)[i] = or_i64(&r);
            if ((*vals)[i] < 1) why = "gear value below 1";
        }
    }
    uint32_t nin = why ? 0 : or_count(&r, 12, 1u << 16);
    if (!why && !r.bad) {
        m->n_in = (int)nin;
        m->in_names = calloc((size_t)nin + 1, sizeof *m->in_names);
        m->in_dtype = calloc((size_t)nin + 1, sizeof *m->in_dtype);
        m->in_shape = calloc((size_t)nin + 1, sizeof *m->in_shape);
        m->lo = calloc(((size_t)nin + 1) * G_MAX_RANK, sizeof *m->lo);
        m->hi = calloc(((size_t)nin + 1) * G_MAX_RANK, sizeof *m->hi);
        if (!m->in_names || !m->in_dtype || !m->in_shape || !m->lo || !m->hi) {
            om_meta_free(m);
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        }
        for (uint32_t i = 0; i < nin && !why; i++) {
            m->in_names[i] = or_str(&r, MAX_STR);
            m->in_dtype[i] = or_i32(&r);
            int32_t rank = or_i32(&r);
            if (r.bad || !m->in_names[i] || rank < -1 || rank > G_MAX_RANK || !dtype_ok(m->in_dtype[i])) {
                why = "input record";
                break;
            }
            m->in_shape[i].rank = rank;
            for (int d = 0; d < rank; d++) m->in_shape[i].d[d] = or_i64(&r);
            for (int d = 0; d < rank; d++) {
                int64_t lo = or_i64(&r), hi = or_i64(&r);
                m->lo[(size_t)i * G_MAX_RANK + (size_t)d] = lo;
                m->hi[(size_t)i * G_MAX_RANK + (size_t)d] = hi;
                if (m->in_shape[i].d[d] < -1 || lo < 0 || hi < -1 || (hi >= 0 && hi < lo)) why = "input range";
                if (m->in_shape[i].d[d] < 0 && (lo > 1 || hi >= 0)) m->has_ranges = 1;
            }
        }
    }
    uint32_t nout = (why || r.bad) ? 0 : or_count(&r, 12, 1u << 16);
    for (uint32_t i = 0; i < nout && !why && !r.bad; i++) {
        char *nm = or_str(&r, MAX_STR);
        free(nm);
        (void)or_i32(&r);
        int32_t rank = or_i32(&r);
        if (rank < -1 || rank > G_MAX_RANK) { why = "output record"; break; }
        for (int d = 0; d < rank; d++) (void)or_i64(&r);
    }
    *n_progs = (why || r.bad) ? 0 : (int)or_u32(&r);
    if (!why && r.bad) why = "truncated";
    if (!why && (*n_progs < 1 || *n_progs > OM_MAX_GEARS || (*gear_kind && *n_progs != *n_gears) ||
                 (!*gear_kind && *n_progs != 1)))
        why = "program count does not match the gears";
    if (why) {
        om_meta_free(m);
        free(*vals);
        *vals = NULL;
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: info section: %s", api, src, why);
    }
    *out = m;
    return 0;
}

int om_read_blobs(const char *api, const char *src, const om_file *f, om_blobtab *bt)
{
    const om_section *sb = om_find(f, OM_SEC_BLOBS), *sw = om_find(f, OM_SEC_WEIGHTS), *sp = om_find(f, OM_SEC_PLAIN);
    memset(bt, 0, sizeof *bt);
    if (!sb || !sw || !sp)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s lacks its %s section", api, src,
                        !sb ? "blob table" : !sw ? "weights" : "plain weights");
    bt->rt = f->base + sw->off;
    bt->rt_len = (size_t)sw->size;
    bt->plain = f->base + sp->off;
    bt->plain_len = (size_t)sp->size;
    om_rd r;
    or_init(&r, f->base + sb->off, (size_t)sb->size);
    uint32_t n = or_count(&r, 24, MAX_ITEMS);
    if (r.bad)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: blob count", api, src);
    bt->e = calloc((size_t)n + 1, sizeof *bt->e);
    if (!bt->e) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    bt->n = (int)n;
    for (uint32_t i = 0; i < n; i++) {
        unsigned region = or_u8(&r);
        for (int k = 0; k < 7; k++) (void)or_u8(&r);
        uint64_t off = or_u64(&r), size = or_u64(&r);
        size_t lim = region == OM_REGION_PLAIN ? bt->plain_len : bt->rt_len;
        if (r.bad || region > OM_REGION_PLAIN || off % OM_ALIGN || off > lim || size > lim - off)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: blob %u (%llu bytes at "
                            "%llu) lies outside its section", api, src, i, (unsigned long long)size,
                            (unsigned long long)off);
        bt->e[i] = (om_bent){ (int)region, (size_t)off, (size_t)size, 0 };
    }
    return 0;
}


void om_exec_free(om_exec *x)
{
    for (int k = 0; x->threads && k < x->n_progs; k++) free(x->threads[k]);
    free(x->threads);
    free(x->n_nodes);
    memset(x, 0, sizeof *x);
}

int om_read_exec(const char *api, const char *src, const om_file *f, int n_progs, om_exec *x)
{
    memset(x, 0, sizeof *x);
    const om_section *s = om_find(f, OM_SEC_EXEC);
    if (!s) return 0;
    om_rd r;
    or_init(&r, f->base + s->off, (size_t)s->size);
    uint32_t ver = or_u32(&r);
    if (!r.bad && ver != OM_EXEC_VERSION) {
        /* optional: a later layout of it is ignored, the file runs as a 1.0 one */
        acl_log(1, "%s: compiled model %s: execution section version %u is not known to this build: ignored",
                api, src, ver);
        return 0;
    }
    uint32_t prec = or_u32(&r), np = or_u32(&r);
    const char *why = NULL;
    if (r.bad) why = "truncated";
    else if (prec != OM_PREC_FP32 && prec != OM_PREC_BF16) why = "unknown precision";
    else if ((int)np != n_progs || np > OM_MAX_GEARS) why = "program count differs from the info section";
    if (!why) {
        x->n_nodes = calloc((size_t)np + 1, sizeof *x->n_nodes);
        x->threads = calloc((size_t)np + 1, sizeof *x->threads);
        if (!x->n_nodes || !x->threads) { om_exec_free(x); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
        x->n_progs = (int)np;
    }
    for (uint32_t k = 0; k < np && !why; k++) {
        uint32_t nn = or_count(&r, 4, MAX_ITEMS);
        if (r.bad) { why = "node count"; break; }
        x->n_nodes[k] = nn;
        x->threads[k] = malloc(((size_t)nn + 1) * sizeof **x->threads);
        if (!x->threads[k]) { om_exec_free(x); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
        for (uint32_t i = 0; i < nn && !why; i++) {
            x->threads[k][i] = or_u32(&r);
            if (x->threads[k][i] > MAX_THREADS_REC) why = "thread count out of range";
        }
    }
    if (!why && (r.bad || r.pos != r.len)) why = r.bad ? "truncated" : "bytes after the last program";
    if (why) {
        om_exec_free(x);
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: execution section: %s", api, src,
                        why);
    }
    x->present = 1;
    x->precision = (int)prec;
    return 0;
}
