/* The engine's side of the compiled format (docs/om-format.md): its
 * optimised, planned programs (one per gear) described for src/om's writer
 * (om/program.h, om/om_write.c), and the reader.
 *
 * Reading: no graph pass runs. Every count and index is bounded before use,
 * every checksum checked (weights in parallel), each node is bound to the
 * implementation the compiler chose (or, if this build lacks it, the best
 * that accepts the node), re-inferred and compared with what the file
 * records. Packed weights are adopted in place when the file's kernel ABI is
 * this build's and every packed node plans for the thread count it was
 * packed with (EXEC section); otherwise they are packed again from the plain
 * copies. A program compiled for bfloat16 runs in bfloat16 whatever
 * OPENACL_PRECISION says; where this load cannot compute in bfloat16 it
 * falls back to float32 (bf16 activations widened, weights packed again). */
#include "engine/eng_priv.h"
#include "engine/compile.h"
#include "om/om.h"
#include "om/program.h"
#include "graph/errs.h"
#include "graph/passes.h"
#include "graph/plan.h"
#include "graph/precision.h"
#include "onnx/onnx_import.h"
#include "core/core.h"
#include <cjson/cJSON.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STR (1u << 20)
#define MAX_ITEMS (1u << 24)
#define MAX_THREADS_REC 65536u


/* ---- meta ---- */

void eng_om_meta_free(eng_om_meta *x)
{
    if (!x) return;
    free(x->producer); free(x->kernel_abi); free(x->soc_version); free(x->precision_mode);
    free(x->input_format); free(x->framework); free(x->cmdline);
    for (int i = 0; i < x->n_in && x->in_names; i++) free(x->in_names[i]);
    free(x->in_names); free(x->in_dtype); free(x->in_shape); free(x->lo); free(x->hi);
    free(x);
}

int eng_om_meta_range(const eng_om_meta *x, int i, int d, int64_t *lo, int64_t *hi)
{
    if (!x || !x->has_ranges || i < 0 || i >= x->n_in || d < 0 || d >= G_MAX_RANK) return -1;
    if (d >= x->in_shape[i].rank) return -1;
    *lo = x->lo[(size_t)i * G_MAX_RANK + (size_t)d];
    *hi = x->hi[(size_t)i * G_MAX_RANK + (size_t)d];
    return 0;
}

/* ---- kernel ABI: the backends' tags (kernels/kernel.h) ---- */

const char *eng_kernel_abi(void) { return k_abi(); }

int eng_cpu_bf16(void) { return k_cpu_bf16(); }

static const char *precision_name(int p) { return p == ENG_PRECISION_BF16 ? "bf16" : "fp32"; }

/* The first main-graph node carrying the bf16 mark, -1 if none. */
static int first_bf16_node(const g_graph *g)
{
    for (int i = 0; g && i < g->n_nodes; i++)
        if (graph_node_bf16(&g->nodes[i])) return i;
    return -1;
}

int eng_is_compiled(const void *buf, size_t len) { return om_is_image(buf, len); }

/* =====================================================================
 * Writing: the engine's programs described for src/om's writer
 * ===================================================================== */

_Static_assert(OM_MAX_SUBGRAPH_DEPTH == ONNX_MAX_SUBGRAPH_DEPTH, "the format nests as deep as the importer");
_Static_assert(OM_PREC_FP32 == ENG_PRECISION_FP32 && OM_PREC_BF16 == ENG_PRECISION_BF16,
               "the EXEC section stores enum eng_precision");

static void wprog_free(om_wprog *p)
{
    free(p->const_rt); free(p->plain_only); free(p->nodes); free(p->impl);
    memset(p, 0, sizeof *p);
}

/* The program as the writer sees it: its graph, plan and weights. */
static int wprog_of(const eng_model *m, int k, om_wprog *p)
{
    memset(p, 0, sizeof *p);
    if (!m->bound || !m->weights)
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "compiled model: program %d is not bound", k);
    const g_graph *g = m->g;
    p->g = g;
    p->is_static = m->is_static;
    p->work_size = m->is_static ? m->work_size : 0;
    p->const_rt = calloc((size_t)g->n_t + 1, sizeof *p->const_rt);
    p->plain_only = calloc((size_t)g->n_t + 1, 1);
    p->impl = calloc((size_t)g->n_nodes + 1, sizeof *p->impl);
    if (m->is_static && m->steps) p->nodes = calloc((size_t)g->n_nodes + 1, sizeof *p->nodes);
    if (!p->const_rt || !p->plain_only || !p->impl || (m->is_static && m->steps && !p->nodes)) {
        wprog_free(p);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
    }
    for (int t = 0; t < g->n_t; t++) {
        if (g->t[t].kind != G_TK_CONST) continue;
        if (m->const_off[t] >= 0) p->const_rt[t] = m->weights + m->const_off[t];
        p->plain_only[t] = m->pack_only[t];
    }
    for (int i = 0; i < g->n_nodes; i++) p->impl[i] = g->nodes[i].op ? g->nodes[i].op->impl : "";
    for (int i = 0; p->nodes && i < g->n_nodes && i < m->n_steps; i++) {
        const step *st = &m->steps[i];
        om_node_plan *q = &p->nodes[i];
        q->packed_bytes = st->packed_bytes;
        q->scratch_off = st->scratch_off;
        q->scratch_bytes = st->scratch_bytes;
        q->threads = st->threads;
        if (st->packed_bytes && g->nodes[i].op->pack) q->packed = m->weights + st->packed_off;
    }
    return 0;
}

int eng_export(const eng_export_req *req, void **image, size_t *len)
{
    *image = NULL;
    *len = 0;
    if (!req || req->n_progs < 1 || !req->progs)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "compiled model: nothing to write");
    om_wprog *progs = calloc((size_t)req->n_progs, sizeof *progs);
    if (!progs) return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
    int rc = 0;
    for (int k = 0; k < req->n_progs && !rc; k++) rc = wprog_of(req->progs[k], k, &progs[k]);
    if (!rc) {
        const eng_model *p0 = req->progs[0];
        om_write_req w = {
            .progs = progs, .n_progs = req->n_progs,
            .gear_kind = req->gear_kind, .gear_nvals = req->gear_nvals, .gear_vals = req->gear_vals,
            .n_in = req->n_in, .in_names = req->in_names, .in_dtype = req->in_dtype,
            .in_shape = req->in_shape, .lo = req->lo, .hi = req->hi,
            .n_out = p0->n_out,
            .producer = req->producer, .soc_version = req->soc_version,
            .precision_mode = req->precision_mode, .input_format = req->input_format,
            .framework = req->framework, .cmdline = req->cmdline,
            .kernel_abi = eng_kernel_abi(),
            .progress = req->progress, .progress_ctx = req->progress_ctx,
            .precision = req->precision == ENG_PRECISION_FP32 || req->precision == ENG_PRECISION_BF16
                         ? req->precision : 0,
        };
        const char **on = calloc((size_t)p0->n_out + 1, sizeof *on);
        int *od = calloc((size_t)p0->n_out + 1, sizeof *od);
        g_shape *os = calloc((size_t)p0->n_out + 1, sizeof *os);
        if (!on || !od || !os) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
        for (int i = 0; !rc && i < p0->n_out; i++) {
            on[i] = p0->outs[i].name;
            od[i] = p0->outs[i].dtype;
            os[i] = p0->outs[i].shape;
        }
        w.out_names = on;
        w.out_dtype = od;
        w.out_shape = os;
        if (!rc) rc = om_write(&w, image, len);
        free(on); free(od); free(os);
    }
    for (int k = 0; k < req->n_progs; k++) wprog_free(&progs[k]);
    free(progs);
    return rc;
}

/* =====================================================================
 * Reading
 * ===================================================================== */

typedef struct blobtab {
    int n;
    om_bent *e;
    const unsigned char *rt, *plain;   /* region bases in the image */
    size_t rt_len, plain_len;
} blobtab;

typedef struct rdctx {
    const char *api, *src;
    om_rd r;
    const blobtab *bt;
} rdctx;

static int bad(rdctx *c, const char *what)
{
    return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %s (at byte %zu of the "
                    "programs section)", c->api, c->src, what, c->r.pos);
}

static int r_shape(rdctx *c, g_shape *s)
{
    int32_t rank = or_i32(&c->r);
    memset(s, 0, sizeof *s);
    if (c->r.bad || rank < -1 || rank > G_MAX_RANK) return bad(c, "tensor rank out of range");
    s->rank = rank;
    /* the known part of a shape is bounded like a whole one (2^37 elements,
     * 1 TiB of doubles), so no later size computation can overflow when the
     * unknown dims are filled in */
    const int64_t lim = (int64_t)1 << 37;
    int64_t known = 1;
    for (int i = 0; i < rank; i++) {
        s->d[i] = or_i64(&c->r);
        if (s->d[i] < -1) return bad(c, "negative dimension");
        if (s->d[i] > lim || (s->d[i] > 0 && known > lim / s->d[i])) return bad(c, "dimension too large");
        if (s->d[i] >= 0) known *= s->d[i];
    }
    return c->r.bad ? bad(c, "truncated shape") : 0;
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

static int r_graph(rdctx *c, int depth, int main_graph, g_graph **out, eng_rec *rec, unsigned char **borrowed);

static int r_attr(rdctx *c, g_attr *a, int depth)
{
    om_rd *r = &c->r;
    a->name = or_str(r, MAX_STR);
    a->type = or_i32(r);
    if (r->bad || !a->name) return bad(c, "truncated attribute");
    switch (a->type) {
    case G_AT_FLOAT: a->f = or_f32(r); break;
    case G_AT_INT: case G_AT_TYPE: a->i = or_i64(r); break;
    case G_AT_STRING: {
        size_t n;
        const void *p = or_blob(r, &n);
        if (r->bad || n > MAX_STR) return bad(c, "string attribute");
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
        if (r->bad) return bad(c, "attribute list count");
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
        if (r->bad) return bad(c, "attribute list count");
        a->strings = calloc((size_t)n + 1, sizeof *a->strings);
        if (!a->strings) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        a->n = (int)n;
        for (uint32_t i = 0; i < n; i++) {
            size_t len;
            const void *p = or_blob(r, &len);
            if (r->bad || len > MAX_STR) return bad(c, "string list attribute");
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
        if (r->bad || !t->name || !dtype_ok(t->dtype)) return bad(c, "tensor attribute");
        int rc = r_shape(c, &t->shape);
        if (rc) return rc;
        size_t n;
        const void *p = or_blob(r, &n);
        int64_t want = dense_bytes(t->dtype, &t->shape);
        if (r->bad || (want >= 0 && (uint64_t)want != n)) return bad(c, "tensor attribute data size");
        t->data = malloc(n ? n : 1);
        if (!t->data) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        memcpy(t->data, p, n);
        t->nbytes = n;
        break;
    }
    case G_AT_GRAPH:
        return r_graph(c, depth + 1, 0, &a->g, NULL, NULL);
    default:
        return bad(c, "unknown attribute type");
    }
    return r->bad ? bad(c, "truncated attribute") : 0;
}

static void rec_free(eng_rec *r)
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

static int blob_ref(rdctx *c, int id, int region, size_t need, const unsigned char **p, size_t *off)
{
    if (id < 0) return 0;
    if (id >= c->bt->n || c->bt->e[id].region != region) return bad(c, "blob reference out of range");
    const om_bent *e = &c->bt->e[id];
    if (e->size < need) return bad(c, "blob smaller than its tensor");
    *p = (region == OM_REGION_PLAIN ? c->bt->plain : c->bt->rt) + e->off;
    *off = e->off;
    return 0;
}

/* Reads a graph record. Main graphs fill rec (plans, blob offsets) and
 * borrowed (constants whose data lies in the image). */
static int r_graph(rdctx *c, int depth, int main_graph, g_graph **out, eng_rec *rec, unsigned char **borrowed)
{
    om_rd *r = &c->r;
    int rc = 0;
    *out = NULL;
    if (depth > ONNX_MAX_SUBGRAPH_DEPTH) return bad(c, "subgraphs nested too deeply");
    g_graph *g = g_graph_new();
    if (!g) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    *out = g;
    g->opset = or_i32(r);
    uint32_t nt = or_count(r, 32, MAX_ITEMS);
    if (r->bad) return bad(c, "tensor count");
    if (main_graph) {
        rec->mem_offset = malloc(((size_t)nt + 1) * sizeof *rec->mem_offset);
        rec->const_off = malloc(((size_t)nt + 1) * sizeof *rec->const_off);
        *borrowed = calloc((size_t)nt + 1, 1);
        if (!rec->mem_offset || !rec->const_off || !*borrowed)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    }
    for (uint32_t t = 0; t < nt; t++) {
        char *name = or_str(r, MAX_STR);
        if (!name) return bad(c, "tensor name");
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
            return bad(c, "tensor record");
        if ((rc = r_shape(c, &x->shape))) return rc;
        if (g_shape_known(&x->shape)) {
            int64_t ne = g_shape_numel(&x->shape);
            if (ne < 0 || ne > ((int64_t)1 << 40) / 8) return bad(c, "tensor too large");
        }
        int64_t mo = or_i64(r);
        uint64_t nb = or_u64(r);
        if (r->bad) return bad(c, "truncated tensor");
        /* the planner places every buffer at a multiple of PLAN_ALIGN; kernels rely on it */
        if (mo > 0 && mo % PLAN_ALIGN) return bad(c, "arena offset not aligned");
        if (main_graph) { rec->mem_offset[t] = mo < 0 ? -1 : mo; rec->const_off[t] = -1; }
        if (dk != OM_DK_NONE && x->kind != G_TK_CONST) return bad(c, "data on a tensor that is not a constant");
        if (dk == OM_DK_NONE) continue;
        int64_t want = dense_bytes(x->dtype, &x->shape);
        if (want < 0 || (uint64_t)want != nb) return bad(c, "constant data size does not match its shape");
        x->nbytes = (size_t)nb;
        if (dk == OM_DK_BLOB) {
            int32_t rt = or_i32(r), pl = or_i32(r);
            if (r->bad || !main_graph || (rt < 0 && pl < 0)) return bad(c, "constant blob reference");
            const unsigned char *prt = NULL, *ppl = NULL;
            size_t ort = 0, opl = 0;
            if ((rc = blob_ref(c, rt, OM_REGION_WEIGHTS, x->nbytes, &prt, &ort))) return rc;
            if ((rc = blob_ref(c, pl, OM_REGION_PLAIN, x->nbytes, &ppl, &opl))) return rc;
            x->data = (void *)(prt ? prt : ppl);
            (*borrowed)[t] = 1;
            rec->const_off[t] = rt >= 0 ? (int64_t)ort : -1;
        } else {
            size_t n;
            const void *p = or_blob(r, &n);
            if (r->bad || n != x->nbytes) return bad(c, "inline constant");
            x->data = malloc(n ? n : 1);
            if (!x->data) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
            memcpy(x->data, p, n);
        }
    }
    for (int k = 0; k < 2; k++) {
        uint32_t n = or_count(r, 4, nt);
        if (r->bad) return bad(c, k ? "output count" : "input count");
        int *v = malloc(((size_t)n + 1) * sizeof *v);
        if (!v) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
        if (k) { g->outputs = v; g->n_outputs = (int)n; } else { g->inputs = v; g->n_inputs = (int)n; }
        for (uint32_t i = 0; i < n; i++) {
            v[i] = or_i32(r);
            if (r->bad || v[i] < 0 || (uint32_t)v[i] >= nt) return bad(c, "graph input/output index");
            if (!k && g->t[v[i]].kind != G_TK_INPUT) return bad(c, "graph input is not an input tensor");
            /* the engine keeps exactly the flagged tensors alive past a run */
            if (k && !g->t[v[i]].is_output) return bad(c, "graph output is not flagged as an output");
        }
    }
    uint32_t flagged = 0;
    for (uint32_t t = 0; t < nt; t++) flagged += g->t[t].is_output ? 1u : 0u;
    for (int i = 0; i < g->n_outputs; i++)
        for (int j = 0; j < i; j++)
            if (g->outputs[j] == g->outputs[i]) { flagged++; break; }
    if (flagged != (uint32_t)g->n_outputs) return bad(c, "tensor flagged as an output but not listed");
    uint32_t nn = or_count(r, 40, MAX_ITEMS);
    if (r->bad) return bad(c, "node count");
    if (main_graph) {
        rec->packed_bytes = calloc((size_t)nn + 1, sizeof *rec->packed_bytes);
        rec->scratch_off = calloc((size_t)nn + 1, sizeof *rec->scratch_off);
        rec->scratch_bytes = calloc((size_t)nn + 1, sizeof *rec->scratch_bytes);
        rec->packed_off = calloc((size_t)nn + 1, sizeof *rec->packed_off);
        rec->impl = calloc((size_t)nn + 1, sizeof *rec->impl);
        if (!rec->packed_bytes || !rec->scratch_off || !rec->scratch_bytes || !rec->packed_off || !rec->impl)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    }
    for (uint32_t i = 0; i < nn; i++) {
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
        if (!ok) { free(impl); return bad(c, "node record"); }
        if (idx < 0) { free(impl); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api); }
        g_node *n = &g->nodes[idx];
        n->opset = opset;
        if (main_graph) { rec->impl[i] = impl; rec->n_impl = i + 1; } else free(impl);
        uint32_t na = or_count(r, 8, 1u << 16);
        if (r->bad) return bad(c, "attribute count");
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
        if (r->bad) return bad(c, "truncated node plan");
        if (so % PLAN_ALIGN) return bad(c, "scratch offset not aligned");
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
            return bad(c, "plan fields on a subgraph node");
        }
    }
    /* order and single production: what the planner's liveness relies on */
    if ((rc = g_graph_link(g))) return rc;
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t >= 0 && g->t[t].kind == G_TK_ACT && (g->t[t].producer < 0 || g->t[t].producer >= i) &&
                main_graph)
                return bad(c, "a node reads a tensor no earlier node produces");
        }
    }
    return 0;
}

static void info_free_strs(eng_om_meta *m) { eng_om_meta_free(m); }

/* INFO section: model-level facts. */
static int r_info(const char *api, const char *src, const unsigned char *p, size_t len, eng_om_meta **out,
                  int *gear_kind, int *n_gears, int *nvals, int64_t **vals, int *n_progs)
{
    om_rd r;
    or_init(&r, p, len);
    *out = NULL;
    *vals = NULL;
    eng_om_meta *m = calloc(1, sizeof *m);
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
    else if (*gear_kind < ENG_GEAR_NONE || *gear_kind > ENG_GEAR_DIMS) why = "unknown gear kind";
    else if (*gear_kind && (*n_gears < 1 || *n_gears > ENG_MAX_GEARS)) why = "gear count out of range";
    else if (*gear_kind && (*nvals < 1 || *nvals > G_MAX_RANK * 16)) why = "gear value count out of range";
    else if (!*gear_kind && (*n_gears || *nvals)) why = "gears on a model without a gear kind";
    if (!why && *gear_kind) {
        size_t nv = (size_t)*n_gears * (size_t)*nvals;
        *vals = malloc(nv * sizeof **vals);
        if (!*vals) { eng_om_meta_free(m); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
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
            eng_om_meta_free(m);
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
    if (!why && (*n_progs < 1 || *n_progs > ENG_MAX_GEARS || (*gear_kind && *n_progs != *n_gears) ||
                 (!*gear_kind && *n_progs != 1)))
        why = "program count does not match the gears";
    if (why) {
        info_free_strs(m);
        free(*vals);
        *vals = NULL;
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: info section: %s", api, src, why);
    }
    *out = m;
    return 0;
}

static int r_blobs(const char *api, const char *src, const om_file *f, blobtab *bt)
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

/* EXEC section (format 1.1, optional): what the programs were built for. */
typedef struct execrec {
    int present;
    int precision;            /* enum eng_precision */
    int n_progs;
    uint32_t *n_nodes;        /* per program */
    uint32_t **threads;       /* per program, per node: planned thread count (0: not planned) */
} execrec;

static void exec_free(execrec *x)
{
    for (int k = 0; x->threads && k < x->n_progs; k++) free(x->threads[k]);
    free(x->threads);
    free(x->n_nodes);
    memset(x, 0, sizeof *x);
}

static int r_exec(const char *api, const char *src, const om_file *f, int n_progs, execrec *x)
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
    else if (prec != ENG_PRECISION_FP32 && prec != ENG_PRECISION_BF16) why = "unknown precision";
    else if ((int)np != n_progs || np > ENG_MAX_GEARS) why = "program count differs from the info section";
    if (!why) {
        x->n_nodes = calloc((size_t)np + 1, sizeof *x->n_nodes);
        x->threads = calloc((size_t)np + 1, sizeof *x->threads);
        if (!x->n_nodes || !x->threads) { exec_free(x); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
        x->n_progs = (int)np;
    }
    for (uint32_t k = 0; k < np && !why; k++) {
        uint32_t nn = or_count(&r, 4, MAX_ITEMS);
        if (r.bad) { why = "node count"; break; }
        x->n_nodes[k] = nn;
        x->threads[k] = malloc(((size_t)nn + 1) * sizeof **x->threads);
        if (!x->threads[k]) { exec_free(x); return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); }
        for (uint32_t i = 0; i < nn && !why; i++) {
            x->threads[k][i] = or_u32(&r);
            if (x->threads[k][i] > MAX_THREADS_REC) why = "thread count out of range";
        }
    }
    if (!why && (r.bad || r.pos != r.len)) why = r.bad ? "truncated" : "bytes after the last program";
    if (why) {
        exec_free(x);
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: execution section: %s", api, src,
                        why);
    }
    x->present = 1;
    x->precision = (int)prec;
    return 0;
}

/* A bf16 program where this load cannot compute in bf16: the activations
 * the compiler stored as bf16 (written by a convolution marked
 * G_ATTR_BF16_OUT) become float32 again, so the kernels (which then compute
 * in float32) agree with the recorded types; their recorded arena places no
 * longer fit, so the memory plan is made again. */
static int widen_bf16(g_graph *g, eng_rec *rec)
{
    int n = 0;
    for (int t = 0; t < g->n_t; t++) {
        g_tensor *x = &g->t[t];
        if (x->dtype != G_BF16 || x->kind != G_TK_ACT || x->producer < 0 || x->producer >= g->n_nodes) continue;
        if (!g_attr_int(&g->nodes[x->producer], G_ATTR_BF16_OUT, 0)) continue;
        x->dtype = G_F32;
        rec->mem_offset[t] = -1;
        n++;
    }
    return n;
}

/* Binds every node of a loaded program: the implementation the compiler
 * chose first, then (if this build lacks it or it declines) the others in
 * priority order. */
static int bind_loaded(const char *api, const char *src, g_graph *g, const eng_rec *rec, int *changed)
{
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        const k_op *cand[16];
        int nc = k_find(n->op_type, n->domain, n->opset, cand, 16);
        if (nc == 0)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: compiled model %s: node '%s' (%s, domain '%s', "
                            "opset %d): this build has no kernel for the operator", api, src, n->name,
                            n->op_type, *n->domain ? n->domain : "ai.onnx", n->opset);
        /* the recorded implementation's candidates first, each group in
         * priority order (several k_ops may share an implementation name) */
        const char *want = rec->impl[i];
        const k_op *ord[16];
        int no = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < nc; k++)
                if ((want && !strcmp(cand[k]->impl, want)) == (pass == 0)) ord[no++] = cand[k];
        for (int k = 0; k < no; k++) cand[k] = ord[k];
        int bound = 0;
        for (int k = 0; k < nc && !bound; k++) {
            void *st = NULL;
            int rc = cand[k]->init ? cand[k]->init(g, n, &st) : 0;
            if (rc == K_DECLINE) {
                if (st && cand[k]->fini) cand[k]->fini(st);
                continue;
            }
            if (rc) {
                if (st && cand[k]->fini) cand[k]->fini(st);
                return acl_fail(rc, "%s: compiled model %s: node '%s' (%s, opset %d) refused its attributes", api,
                                src, n->name, n->op_type, n->opset);
            }
            n->op = cand[k];
            n->state = st;
            bound = 1;
        }
        if (!bound)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: compiled model %s: node '%s' (%s, opset %d): no "
                            "kernel of this build accepts it", api, src, n->name, n->op_type, n->opset);
        if (!want || strcmp(want, n->op->impl)) {
            if (!*changed)
                acl_log(2, "%s: compiled model %s: node '%s' (%s) was compiled for kernel '%s', this build "
                        "runs it with '%s'", api, src, n->name, n->op_type, want ? want : "?", n->op->impl);
            *changed = 1;
        }
    }
    return 0;
}

/* Re-infers a static program and compares with what the file records. */
static int check_inferred(const char *api, const char *src, g_graph *g, int is_static)
{
    int maxio = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].n_in > maxio) maxio = g->nodes[i].n_in;
        if (g->nodes[i].n_out > maxio) maxio = g->nodes[i].n_out;
    }
    k_tensor *in = calloc((size_t)maxio + GRAPH_IO_PAD, sizeof *in);
    k_tensor *out = calloc((size_t)maxio + GRAPH_IO_PAD, sizeof *out);
    int rc = 0;
    if (!in || !out) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        g_node *n = &g->nodes[i];
        graph_node_io(g, n, in, out);
        memset(in + n->n_in, 0, GRAPH_IO_PAD * sizeof *in);
        memset(out + n->n_out, 0, GRAPH_IO_PAD * sizeof *out);
        int r = n->op->infer ? n->op->infer(n, n->state, in, out) : 0;
        if (!is_static) continue;
        if (r) {
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: node '%s' (%s, kernel %s) refuses the "
                          "shapes the file records for its inputs (damaged file or incompatible kernels: "
                          "compile the model again)", api, src, n->name, n->op_type, n->op->impl);
            break;
        }
        for (int j = 0; j < n->n_out; j++) {
            if (n->out[j] < 0) continue;
            const g_tensor *t = &g->t[n->out[j]];
            if (out[j].dtype == t->dtype && g_shape_eq(&out[j].shape, &t->shape) && out[j].layout == t->layout)
                continue;
            char a[128], b[128];
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: node '%s' (%s, kernel %s) output %d: this "
                          "build infers %s%s%s, the file records %s%s%s (damaged file or incompatible kernels: "
                          "compile the model again)", api, src, n->name, n->op_type, n->op->impl, j,
                          g_dtype_name(out[j].dtype), g_shape_str(&out[j].shape, a, sizeof a),
                          out[j].layout ? "/nhwc" : "", g_dtype_name(t->dtype),
                          g_shape_str(&t->shape, b, sizeof b), t->layout ? "/nhwc" : "");
            break;
        }
    }
    free(in);
    free(out);
    return rc;
}

typedef struct loaded {
    eng_model *m;
    eng_rec rec;
    int bf16;                 /* compiled for bf16 (recorded, or marked in a 1.0 file) */
    int widened;              /* bf16 activations made float32 (no bf16 on this load) */
} loaded;

/* Reads and binds one program; planning happens after all are read.
 * prec: the precision the file records (0: none recorded, a 1.0 file);
 * can_bf16: whether this load's kernels can compute in bf16. */
static int load_program(rdctx *c, const eng_opts *o, int abi_match, int prec, int can_bf16, loaded *L, int *changed)
{
    om_rd *r = &c->r;
    uint32_t flags = or_u32(r);
    uint64_t work = or_u64(r);
    if (r->bad || flags > 1) return bad(c, "program header");
    eng_model *m = calloc(1, sizeof *m);
    if (!m) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    L->m = m;
    m->threads = o && o->threads > 0 ? o->threads : 0;
    L->rec.work_size = (size_t)work;
    L->rec.abi_match = abi_match;
    int rc = r_graph(c, 0, 1, &m->g, &L->rec, &m->borrowed);
    if (rc) return rc;
    int marked = first_bf16_node(m->g);
    if (prec == ENG_PRECISION_FP32 && marked >= 0)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: it records float32 compute, but "
                        "node '%s' (%s) is marked for bfloat16", c->api, c->src, m->g->nodes[marked].name,
                        m->g->nodes[marked].op_type);
    L->bf16 = prec == ENG_PRECISION_BF16 || (!prec && marked >= 0);
    if (L->bf16 && !can_bf16) L->widened = widen_bf16(m->g, &L->rec) + 1;
    if ((rc = bind_loaded(c->api, c->src, m->g, &L->rec, changed))) return rc;
    if ((rc = check_inferred(c->api, c->src, m->g, flags & 1))) return rc;
    m->rec = &L->rec;
    m->img_w = c->bt->rt;
    m->img_w_len = c->bt->rt_len;
    if ((rc = eng_prepare_io(m))) return rc;
    if (m->is_static != (int)(flags & 1))
        return bad(c, flags & 1 ? "a static program with shapes left unknown" : "static flag missing");
    return 0;
}

/* The top-level model of a gear model: the user inputs as declared (-1 in
 * the gear dims, the largest gear's size), the gear input, the outputs of
 * the largest gear with the largest size over gears. */
static int assemble_gears(const char *api, const char *src, eng_model *top, loaded *L, int n,
                          const eng_om_meta *meta)
{
    const eng_model *p0 = L[0].m;
    int nu = p0->n_in, k = top->gear_nvals;
    if (meta->n_in != nu)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d inputs declared, the "
                        "programs have %d", api, src, meta->n_in, nu);
    /* the gear positions: every -1 of the declared shapes */
    int npos = 0;
    for (int i = 0; i < nu; i++)
        for (int d = 0; d < meta->in_shape[i].rank; d++) npos += meta->in_shape[i].d[d] < 0;
    if (!npos || (top->gear_kind == ENG_GEAR_DIMS && npos != k) || (top->gear_kind == ENG_GEAR_BATCH && k != 1) ||
        (top->gear_kind == ENG_GEAR_HW && k != 2))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d gear values for %d "
                        "dynamic dims", api, src, k, npos);
    size_t total_max = 0;
    for (int g = 0; g < n; g++) {
        const eng_model *p = L[g].m;
        const int64_t *v = top->gear_vals + (size_t)g * (size_t)k;
        if (!p->is_static || p->n_in != nu || p->n_out != p0->n_out)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: gear %d's program "
                            "differs in its inputs/outputs", api, src, g);
        size_t tot = 0;
        int pos = 0;
        for (int i = 0; i < nu; i++) {
            const eng_io *io = &p->ins[i];
            const g_shape *ds = &meta->in_shape[i];
            int ok = !strcmp(io->name, meta->in_names[i]) && io->dtype == meta->in_dtype[i] &&
                     io->shape.rank == ds->rank;
            for (int d = 0; ok && d < ds->rank; d++) {
                int64_t want = ds->d[d];
                if (want < 0) {
                    if (top->gear_kind == ENG_GEAR_BATCH) ok = d == 0;
                    else if (top->gear_kind == ENG_GEAR_HW) ok = ds->rank == 4 && (d == 2 || d == 3);
                    if (ok)
                        want = top->gear_kind == ENG_GEAR_BATCH ? v[0] : top->gear_kind == ENG_GEAR_HW ? v[d - 2]
                                                                                                        : v[pos];
                    pos++;
                }
                ok = ok && io->shape.d[d] == want;
            }
            if (!ok) {
                char a[128], b[128];
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: gear %d input '%s' "
                                "has shape %s, which does not follow the declared %s and the gear's values", api,
                                src, g, io->name, g_shape_str(&io->shape, a, sizeof a), g_shape_str(ds, b, sizeof b));
            }
            tot += io->nbytes;
        }
        for (int o = 0; o < p->n_out; o++)
            if (strcmp(p->outs[o].name, p0->outs[o].name) || p->outs[o].dtype != p0->outs[o].dtype ||
                p->outs[o].shape.rank != p0->outs[o].shape.rank)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: gear %d output %d "
                                "differs from gear 0's", api, src, g, o);
        if (g == 0 || tot > total_max) { total_max = tot; top->largest = g; }
    }
    top->n_in = nu + 1;
    top->n_out = p0->n_out;
    top->ins = calloc((size_t)top->n_in + 1, sizeof *top->ins);
    top->outs = calloc((size_t)top->n_out + 1, sizeof *top->outs);
    top->gears = calloc((size_t)n + 1, sizeof *top->gears);
    if (!top->ins || !top->outs || !top->gears) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    top->io_names_owned = 1;
    const eng_model *big = L[top->largest].m;
    for (int i = 0; i < top->n_in; i++) {
        eng_io *io = &top->ins[i];
        if (i == nu) {
            io->name = strdup(ENG_GEAR_NAME);
            io->dtype = G_I32;
            io->shape.rank = 1;
            io->shape.d[0] = k;
            io->nbytes = (size_t)k * 4;
        } else {
            io->name = strdup(meta->in_names[i]);
            io->dtype = meta->in_dtype[i];
            io->shape = meta->in_shape[i];
            for (int g = 0; g < n; g++)
                if (L[g].m->ins[i].nbytes > io->nbytes) io->nbytes = L[g].m->ins[i].nbytes;
        }
        if (!io->name) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    for (int o = 0; o < top->n_out; o++) {
        eng_io *io = &top->outs[o];
        *io = big->outs[o];
        io->name = strdup(big->outs[o].name);
        if (!io->name) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        for (int g = 0; g < n; g++)
            if (L[g].m->outs[o].nbytes > io->nbytes) io->nbytes = L[g].m->outs[o].nbytes;
    }
    for (int i = 0; i < n; i++) { top->gears[i] = L[i].m; L[i].m = NULL; }
    top->n_gears = n;
    top->gear_input = nu;
    top->is_static = 1;
    return 0;
}

/* Whether program k's packed nodes plan for the thread counts they were
 * packed with: oneDNN picks weight blockings per thread count (bf16 1x1
 * convolutions: 48 or 64 output channels per block, the same byte size), so
 * stored weights are only valid for the same count. */
static int threads_agree(const char *api, const char *src, const loaded *L, const execrec *ex, int k)
{
    const eng_model *m = L->m;
    if (!m->is_static) return 1;   /* dynamic programs pack per shape at run time */
    if (!ex->present) {
        if (!L->bf16) return 1;
        acl_log(2, "%s: compiled model %s computes in bfloat16 and records no thread counts (format 1.0): "
                "weights are packed again at load (compile it again for instant loads)", api, src);
        return 0;
    }
    for (int i = 0; i < m->n_steps && (uint32_t)i < ex->n_nodes[k]; i++) {
        const step *s = &m->steps[i];
        if (!s->packed_bytes || !s->n->op->pack || (uint32_t)s->threads == ex->threads[k][i]) continue;
        acl_log(2, "%s: compiled model %s: node '%s' (%s) was packed for %u thread(s), this load runs it on %d: "
                "weights are packed again at load (compile with OPENACL_THREADS=%d, the runtime's thread count, "
                "for instant loads)", api, src, s->n->name, s->n->op_type, ex->threads[k][i], s->threads,
                m->threads > 0 ? m->threads : s->threads);
        return 0;
    }
    return 1;
}

static void prefetch(const unsigned char *p, size_t n)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
    if (!n) return;
#ifdef MADV_POPULATE_READ
    if (!madvise((void *)a, e - a, MADV_POPULATE_READ)) return;
#endif
    (void)madvise((void *)a, e - a, MADV_WILLNEED);
}

int eng_load_compiled(const char *api, const char *src, const void *buf, size_t len, const eng_opts *o,
                      eng_model **out)
{
    if (!api) api = "model load";
    if (!src) src = "image";
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: output handle pointer is NULL", api);
    *out = NULL;
    om_file f;
    int rc = om_open(api, src, buf, len, &f);
    if (rc) return rc;
    /* checking is memory-bound: one core does ~20 GB/s here, and starting a
     * thread team costs more than it saves below a few hundred MiB */
    int threads = o && o->threads > 0 ? o->threads : 1;
    if (len < ((size_t)512 << 20)) threads = 1;
    const om_section *si = om_find(&f, OM_SEC_INFO), *sp = om_find(&f, OM_SEC_PROGRAMS),
                     *sw = om_find(&f, OM_SEC_WEIGHTS);
    if (!si || !sp || !sw)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s lacks its %s section", api, src,
                        !si ? "info" : !sp ? "programs" : "weights");
    eng_om_meta *meta = NULL;
    int gear_kind, n_gears, nvals, n_progs;
    int64_t *vals = NULL;
    if ((rc = r_info(api, src, f.base + si->off, (size_t)si->size, &meta, &gear_kind, &n_gears, &nvals, &vals,
                     &n_progs)))
        return rc;
    meta->major = f.major;
    meta->minor = f.minor;
    meta->kernel_abi = strdup(f.kernel_abi);
    blobtab bt;
    loaded *L = NULL;
    eng_model *top = NULL;
    int changed = 0;
    execrec ex;
    memset(&ex, 0, sizeof ex);
    if ((rc = r_blobs(api, src, &f, &bt))) goto done;
    if ((rc = r_exec(api, src, &f, n_progs, &ex))) goto done;
    /* every run-time weight byte is checked before any kernel reads it;
     * populating the mapping's page tables in one call is cheaper than
     * faulting each page in during the check */
    prefetch(f.base + sw->off, (size_t)sw->size);
    if ((rc = om_verify_chunked(api, src, &f, sw, threads))) goto done;
    int abi_match = !strcmp(f.kernel_abi, eng_kernel_abi());
    if (!abi_match)
        acl_log(2, "%s: compiled model %s was compiled for \"%s\", this machine is \"%s\": weights are packed "
                "again at load (compile the model on this machine for instant loads)", api, src, f.kernel_abi,
                eng_kernel_abi());
    L = calloc((size_t)n_progs, sizeof *L);
    if (!L) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); goto done; }
    rdctx c = { api, src, { 0 }, &bt };
    or_init(&c.r, f.base + sp->off, (size_t)sp->size);
    uint32_t np = or_u32(&c.r);
    if (c.r.bad || (int)np != n_progs) { rc = bad(&c, "program count differs from the info section"); goto done; }
    /* bf16 compute needs oneDNN's bf16 kernels (reference kernels are f32) */
    int can_bf16 = eng_cpu_bf16() && !k_force_ref();
    for (int k = 0; k < n_progs && !rc; k++)
        rc = load_program(&c, o, abi_match, ex.present ? ex.precision : 0, can_bf16, &L[k], &changed);
    if (!rc && c.r.pos != c.r.len) rc = bad(&c, "bytes after the last program");
    for (int k = 0; k < n_progs && !rc && ex.present; k++)
        if (ex.n_nodes[k] != (uint32_t)L[k].m->g->n_nodes)
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: the execution section "
                          "records %u nodes for program %d, which has %d", api, src, ex.n_nodes[k], k,
                          L[k].m->g->n_nodes);
    if (rc) goto done;
    int bf16 = 0, widened = 0;
    for (int k = 0; k < n_progs; k++) { bf16 |= L[k].bf16; widened |= L[k].widened; }
    if (widened)
        acl_log(2, "%s: compiled model %s was compiled for bfloat16 compute, but %s: it runs in float32 (weights "
                "packed again from its plain copies, memory planned again)", api, src,
                k_force_ref() ? "OPENACL_FORCE_REF selects the reference kernels (float32 only)"
                              : "this CPU has no bfloat16 instructions");
    else if (bf16)
        acl_log(1, "%s: compiled model %s computes in bfloat16 (convolutions and matrix products)", api, src);
    {   /* precedence: a compiled model runs in the precision it was compiled for */
        const char *pe = getenv("OPENACL_PRECISION");
        int have = bf16 ? ENG_PRECISION_BF16 : ENG_PRECISION_FP32;
        if ((o && o->precision) || (pe && *pe)) {
            int want = eng_precision_of(o);
            if (want != have)
                acl_log(2, "%s: compiled model %s was compiled for %s compute; %s asks for %s, which applies to "
                        "ONNX models only (atc --precision_mode chooses a compiled model's)", api, src,
                        precision_name(have), o && o->precision ? "the load option" : "OPENACL_PRECISION",
                        precision_name(want));
        }
    }
    /* planning: the recorded plans are reused where this build agrees */
    int adopt = !widened;
    for (int k = 0; k < n_progs && !rc; k++) {
        eng_model *m = L[k].m;
        if (m->is_static) rc = eng_prepare_steps(m);
        if (!rc && adopt) adopt = eng_can_adopt(m) && threads_agree(api, src, &L[k], &ex, k);
    }
    if (rc) goto done;
    const om_section *spl = om_find(&f, OM_SEC_PLAIN);
    if (!adopt && spl && spl->size) {
        prefetch(f.base + spl->off, (size_t)spl->size);
        if ((rc = om_verify_chunked(api, src, &f, spl, threads))) goto done;
    }
    size_t base = 0;
    for (int k = 0; k < n_progs && !rc; k++) {
        eng_model *m = L[k].m;
        m->weight_base = base;
        if (m->is_static) rc = eng_prepare_refs(m, adopt);
        else rc = eng_prepare_dynamic(m, adopt);   /* the executor packs per shape */
        if (!adopt) base += m->weight_size;
    }
    if (rc) goto done;
    if (gear_kind) {
        top = calloc(1, sizeof *top);
        if (!top) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); goto done; }
        top->gear_kind = gear_kind;
        top->gear_nvals = nvals;
        top->gear_vals = vals;
        vals = NULL;
        if ((rc = assemble_gears(api, src, top, L, n_progs, meta))) goto done;
        for (int g = 0; g < n_progs; g++) {
            eng_model *p = top->gears[g];
            if (p->work_size > top->work_size) top->work_size = p->work_size;
        }
        top->weight_size = adopt ? bt.rt_len : base;
        top->threads = o && o->threads > 0 ? o->threads : 0;
    } else {
        top = L[0].m;
        L[0].m = NULL;
        eng_model *p = top;
        if (meta->n_in != p->n_in)
            { rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d inputs declared, the "
                            "program has %d", api, src, meta->n_in, p->n_in); goto done; }
        for (int i = 0; i < p->n_in; i++)
            if (strcmp(meta->in_names[i], p->ins[i].name))
                { rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: input %d is named '%s' "
                                "in the info section, '%s' in the program", api, src, i, meta->in_names[i],
                                p->ins[i].name); goto done; }
        top->gear_input = -1;
    }
    top->adopt = adopt;
    top->img_w = bt.rt;
    top->img_w_len = bt.rt_len;
    top->meta = meta;
    meta = NULL;
    if (o && o->release) {
        top->release = o->release;
        top->release_ctx = o->release_ctx;
    }
    if (top->n_gears)
        for (int k = 0; k < top->n_gears; k++) top->gears[k]->rec = NULL;
    top->rec = NULL;
    *out = top;
    top = NULL;
done:
    if (L) {
        for (int k = 0; k < n_progs; k++) {
            if (L[k].m) { L[k].m->rec = NULL; eng_free(L[k].m); }
            rec_free(&L[k].rec);
        }
        free(L);
    }
    if (top) { top->release = NULL; eng_free(top); }
    free(bt.e);
    free(vals);
    exec_free(&ex);
    eng_om_meta_free(meta);
    return rc;
}

/* =====================================================================
 * JSON dump (atc --mode=1)
 * ===================================================================== */

static cJSON *j_i64(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    return cJSON_CreateRaw(b);
}

static cJSON *j_shape(const g_shape *s)
{
    if (s->rank < 0) return cJSON_CreateString("unknown rank");
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < s->rank; i++) cJSON_AddItemToArray(a, j_i64(s->d[i]));
    return a;
}

static const char *gear_kind_name(int k)
{
    return k == ENG_GEAR_BATCH ? "dynamic_batch_size" : k == ENG_GEAR_HW ? "dynamic_image_size" :
           k == ENG_GEAR_DIMS ? "dynamic_dims" : "none";
}

static cJSON *j_graph(const g_graph *g, const eng_rec *rec, const blobtab *bt, const unsigned char *borrowed);

static cJSON *j_attr(const g_attr *a)
{
    switch (a->type) {
    case G_AT_FLOAT: return cJSON_CreateNumber(a->f);
    case G_AT_INT: return j_i64(a->i);
    case G_AT_TYPE: return cJSON_CreateString(g_dtype_name((int)a->i));
    case G_AT_STRING: return cJSON_CreateString(a->s ? a->s : "");
    case G_AT_FLOATS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, cJSON_CreateNumber(a->floats[i]));
        return v;
    }
    case G_AT_INTS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, j_i64(a->ints[i]));
        return v;
    }
    case G_AT_STRINGS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, cJSON_CreateString(a->strings[i]));
        return v;
    }
    case G_AT_TENSOR: {
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "tensor_dtype", g_dtype_name(a->t->dtype));
        cJSON_AddItemToObject(v, "shape", j_shape(&a->t->shape));
        cJSON_AddItemToObject(v, "bytes", j_i64((int64_t)a->t->nbytes));
        return v;
    }
    case G_AT_GRAPH: return j_graph(a->g, NULL, NULL, NULL);
    default: return cJSON_CreateNull();
    }
}

static cJSON *j_graph(const g_graph *g, const eng_rec *rec, const blobtab *bt, const unsigned char *borrowed)
{
    static const char *const kinds[] = { "activation", "input", "constant" };
    cJSON *o = cJSON_CreateObject();
    cJSON *ts = cJSON_AddArrayToObject(o, "tensors");
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", x->name);
        cJSON_AddStringToObject(e, "kind", kinds[x->kind]);
        cJSON_AddStringToObject(e, "dtype", g_dtype_name(x->dtype));
        cJSON_AddItemToObject(e, "shape", j_shape(&x->shape));
        cJSON_AddStringToObject(e, "layout", x->layout == G_LAYOUT_NHWC ? "nhwc" : "plain");
        if (x->is_output) cJSON_AddBoolToObject(e, "output", 1);
        if (rec && rec->mem_offset[t] >= 0) cJSON_AddItemToObject(e, "arena_offset", j_i64(rec->mem_offset[t]));
        if (x->kind == G_TK_CONST && x->data) {
            cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)x->nbytes));
            if (rec && rec->const_off[t] >= 0)
                cJSON_AddItemToObject(e, "weights_offset", j_i64(rec->const_off[t]));
            else if (borrowed && borrowed[t] && bt)
                cJSON_AddItemToObject(e, "plain_offset",
                                      j_i64((int64_t)((const unsigned char *)x->data - bt->plain)));
            else
                cJSON_AddStringToObject(e, "data", "inline");
        }
        cJSON_AddItemToArray(ts, e);
    }
    cJSON *ins = cJSON_AddArrayToObject(o, "inputs"), *outs = cJSON_AddArrayToObject(o, "outputs");
    for (int i = 0; i < g->n_inputs; i++) cJSON_AddItemToArray(ins, cJSON_CreateString(g->t[g->inputs[i]].name));
    for (int i = 0; i < g->n_outputs; i++)
        cJSON_AddItemToArray(outs, cJSON_CreateString(g->t[g->outputs[i]].name));
    cJSON *ns = cJSON_AddArrayToObject(o, "nodes");
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", n->name);
        cJSON_AddStringToObject(e, "op", n->op_type);
        cJSON_AddStringToObject(e, "domain", *n->domain ? n->domain : "ai.onnx");
        cJSON_AddNumberToObject(e, "opset", n->opset);
        if (rec && rec->impl[i]) cJSON_AddStringToObject(e, "kernel", rec->impl[i]);
        cJSON *a = cJSON_AddArrayToObject(e, "inputs"), *b = cJSON_AddArrayToObject(e, "outputs");
        for (int j = 0; j < n->n_in; j++)
            cJSON_AddItemToArray(a, n->in[j] < 0 ? cJSON_CreateNull() : cJSON_CreateString(g->t[n->in[j]].name));
        for (int j = 0; j < n->n_out; j++)
            cJSON_AddItemToArray(b, n->out[j] < 0 ? cJSON_CreateNull() : cJSON_CreateString(g->t[n->out[j]].name));
        if (n->n_attr) {
            cJSON *at = cJSON_AddObjectToObject(e, "attributes");
            for (int k = 0; k < n->n_attr; k++) cJSON_AddItemToObject(at, n->attr[k].name, j_attr(&n->attr[k]));
        }
        if (rec && rec->packed_bytes[i]) {
            cJSON_AddItemToObject(e, "packed_bytes", j_i64((int64_t)rec->packed_bytes[i]));
            if (rec->packed_off[i] >= 0) cJSON_AddItemToObject(e, "packed_offset", j_i64(rec->packed_off[i]));
        }
        if (rec && rec->scratch_bytes[i]) {
            cJSON_AddItemToObject(e, "scratch_offset", j_i64((int64_t)rec->scratch_off[i]));
            cJSON_AddItemToObject(e, "scratch_bytes", j_i64((int64_t)rec->scratch_bytes[i]));
        }
        cJSON_AddItemToArray(ns, e);
    }
    return o;
}

int eng_om_dump_json(const char *src, const void *image, size_t len, char **json)
{
    static const char api[] = "atc --mode=1";
    *json = NULL;
    om_file f;
    int rc = om_open(api, src, image, len, &f);
    if (rc) return rc;
    const om_section *si = om_find(&f, OM_SEC_INFO), *sp = om_find(&f, OM_SEC_PROGRAMS);
    if (!si || !sp) return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s lacks its info or programs", api, src);
    eng_om_meta *meta = NULL;
    int gk, ng, nv, np;
    int64_t *vals = NULL;
    if ((rc = r_info(api, src, f.base + si->off, (size_t)si->size, &meta, &gk, &ng, &nv, &vals, &np))) return rc;
    blobtab bt;
    if ((rc = r_blobs(api, src, &f, &bt))) { eng_om_meta_free(meta); free(vals); return rc; }
    execrec ex;
    if ((rc = r_exec(api, src, &f, np, &ex))) { free(bt.e); eng_om_meta_free(meta); free(vals); return rc; }
    static const char *const secnames[] = { "", "info", "programs", "blobs", "weights", "plain", "sums", "exec" };
    cJSON *root = cJSON_CreateObject();
    char ver[16];
    snprintf(ver, sizeof ver, "%u.%u", f.major, f.minor);
    cJSON_AddStringToObject(root, "format", "openacl compiled model");
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddStringToObject(root, "producer", f.producer);
    cJSON_AddStringToObject(root, "kernel_abi", f.kernel_abi);
    cJSON_AddBoolToObject(root, "kernel_abi_matches_this_machine", !strcmp(f.kernel_abi, eng_kernel_abi()));
    cJSON_AddItemToObject(root, "file_bytes", j_i64((int64_t)len));
    cJSON *secs = cJSON_AddArrayToObject(root, "sections");
    for (int i = 0; i < f.n_sec; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", f.sec[i].id <= OM_SEC_EXEC ? secnames[f.sec[i].id] : "?");
        cJSON_AddItemToObject(e, "offset", j_i64((int64_t)f.sec[i].off));
        cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)f.sec[i].size));
        cJSON_AddStringToObject(e, "checksum", f.sec[i].flags & OM_SF_CHUNKED ? "crc32c per MiB" : "crc32c");
        cJSON_AddItemToArray(secs, e);
    }
    cJSON *cmp = cJSON_AddObjectToObject(root, "compile");
    cJSON_AddStringToObject(cmp, "framework", meta->framework ? meta->framework : "");
    cJSON_AddStringToObject(cmp, "soc_version", meta->soc_version ? meta->soc_version : "");
    cJSON_AddStringToObject(cmp, "precision_mode", meta->precision_mode ? meta->precision_mode : "");
    /* the compute precision: recorded (EXEC), or for 1.0 files what the
     * node marks say (set after the programs are read) */
    cJSON *precision = cJSON_AddStringToObject(cmp, "precision", precision_name(ex.present ? ex.precision : 0));
    cJSON_AddStringToObject(cmp, "precision_source", ex.present ? "recorded" : "node marks (no execution section)");
    int any_marked = 0;
    cJSON_AddStringToObject(cmp, "input_format", meta->input_format ? meta->input_format : "");
    cJSON_AddStringToObject(cmp, "command", meta->cmdline ? meta->cmdline : "");
    cJSON *gears = cJSON_AddObjectToObject(root, "gears");
    cJSON_AddStringToObject(gears, "kind", gear_kind_name(gk));
    cJSON *gv = cJSON_AddArrayToObject(gears, "values");
    for (int g = 0; g < ng; g++) {
        cJSON *a = cJSON_CreateArray();
        for (int k = 0; k < nv; k++) cJSON_AddItemToArray(a, j_i64(vals[(size_t)g * (size_t)nv + (size_t)k]));
        cJSON_AddItemToArray(gv, a);
    }
    cJSON *ins = cJSON_AddArrayToObject(root, "inputs");
    for (int i = 0; i < meta->n_in; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", meta->in_names[i]);
        cJSON_AddStringToObject(e, "dtype", g_dtype_name(meta->in_dtype[i]));
        cJSON_AddItemToObject(e, "shape", j_shape(&meta->in_shape[i]));
        if (meta->has_ranges) {
            cJSON *rg = cJSON_AddArrayToObject(e, "range");
            for (int d = 0; d < meta->in_shape[i].rank; d++) {
                cJSON *p = cJSON_CreateArray();
                cJSON_AddItemToArray(p, j_i64(meta->lo[(size_t)i * G_MAX_RANK + (size_t)d]));
                cJSON_AddItemToArray(p, j_i64(meta->hi[(size_t)i * G_MAX_RANK + (size_t)d]));
                cJSON_AddItemToArray(rg, p);
            }
        }
        cJSON_AddItemToArray(ins, e);
    }
    cJSON *bl = cJSON_AddArrayToObject(root, "blobs");
    for (int i = 0; i < bt.n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "section", bt.e[i].region == OM_REGION_PLAIN ? "plain" : "weights");
        cJSON_AddItemToObject(e, "offset", j_i64((int64_t)bt.e[i].off));
        cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)bt.e[i].size));
        cJSON_AddItemToArray(bl, e);
    }
    cJSON *progs = cJSON_AddArrayToObject(root, "programs");
    rdctx c = { api, src, { 0 }, &bt };
    or_init(&c.r, f.base + sp->off, (size_t)sp->size);
    (void)or_u32(&c.r);
    for (int k = 0; k < np && !rc; k++) {
        uint32_t flags = or_u32(&c.r);
        uint64_t work = or_u64(&c.r);
        eng_rec rec;
        memset(&rec, 0, sizeof rec);
        g_graph *g = NULL;
        unsigned char *borrowed = NULL;
        rc = c.r.bad ? bad(&c, "program header") : r_graph(&c, 0, 1, &g, &rec, &borrowed);
        if (!rc) {
            cJSON *p = j_graph(g, &rec, &bt, borrowed);
            any_marked |= first_bf16_node(g) >= 0;
            if (ex.present && ex.n_nodes[k] != (uint32_t)g->n_nodes) {
                rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: the execution section "
                              "records %u nodes for program %d, which has %d", api, src, ex.n_nodes[k], k, g->n_nodes);
            } else if (ex.present) {
                /* the thread count each node was planned (and its weights packed) with */
                cJSON *ns = cJSON_GetObjectItemCaseSensitive(p, "nodes");
                int i = 0;
                for (cJSON *e = ns ? ns->child : NULL; e; e = e->next, i++)
                    if (ex.threads[k][i]) cJSON_AddNumberToObject(e, "planned_threads", ex.threads[k][i]);
            }
            cJSON_AddBoolToObject(p, "static", flags & 1);
            cJSON_AddItemToObject(p, "work_bytes", j_i64((int64_t)work));
            if (gk) {
                cJSON *a = cJSON_CreateArray();
                for (int v = 0; v < nv; v++) cJSON_AddItemToArray(a, j_i64(vals[(size_t)k * (size_t)nv + (size_t)v]));
                cJSON_AddItemToObject(p, "gear", a);
            }
            cJSON_AddItemToArray(progs, p);
        }
        if (g && borrowed)
            for (int t = 0; t < g->n_t; t++) if (borrowed[t]) g->t[t].data = NULL;
        g_graph_free(g);
        free(borrowed);
        rec_free(&rec);
    }
    if (!rc && !ex.present && any_marked) cJSON_SetValuestring(precision, precision_name(ENG_PRECISION_BF16));
    if (!rc) {
        *json = cJSON_Print(root);
        if (!*json) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    cJSON_Delete(root);
    free(bt.e);
    free(vals);
    exec_free(&ex);
    eng_om_meta_free(meta);
    return rc;
}
