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
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STR (1u << 20)
#define MAX_ITEMS (1u << 24)
#define MAX_THREADS_REC 65536u


/* ---- kernel ABI: the backends' tags (kernels/kernel.h) ---- */

const char *eng_kernel_abi(void) { return k_abi(); }

int eng_cpu_bf16(void) { return k_cpu_bf16(); }

static const char *precision_name(int p) { return p == OM_PREC_BF16 ? "bf16" : "fp32"; }

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

_Static_assert(OM_MAX_SUBGRAPH_DEPTH == OM_MAX_SUBGRAPH_DEPTH, "the format nests as deep as the importer");
_Static_assert(OM_PREC_FP32 == OM_PREC_FP32 && OM_PREC_BF16 == OM_PREC_BF16,
               "the EXEC section stores enum eng_precision");

static void wprog_free(om_wprog *p)
{
    free(p->const_rt); free(p->plain_only); free(p->nodes); free(p->impl);
    memset(p, 0, sizeof *p);
}

/* The program as the writer sees it: its graph, plan and weights. */
static int wprog_of(const eng_program *m, int k, om_wprog *p)
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
        const eng_program *p0 = req->progs[0];
        om_write_req w = req->facts;
        w.progs = progs;
        w.n_progs = req->n_progs;
        w.n_out = p0->n_out;
        w.kernel_abi = eng_kernel_abi();
        if (w.precision != ENG_PRECISION_FP32 && w.precision != ENG_PRECISION_BF16) w.precision = 0;
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

/* A bf16 program where this load cannot compute in bf16: the activations
 * the compiler stored as bf16 (written by a convolution marked
 * G_ATTR_BF16_OUT) become float32 again, so the kernels (which then compute
 * in float32) agree with the recorded types; their recorded arena places no
 * longer fit, so the memory plan is made again. */
static int widen_bf16(g_graph *g, om_rec *rec)
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
static int bind_loaded(const char *api, const char *src, g_graph *g, const om_rec *rec, int *changed)
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
    eng_program *p;
    om_rec rec;
    int bf16;                 /* compiled for bf16 (recorded, or marked in a 1.0 file) */
    int widened;              /* bf16 activations made float32 (no bf16 on this load) */
} loaded;

/* Reads and binds one program; planning happens after all are read.
 * prec: the precision the file records (0: none recorded, a 1.0 file);
 * can_bf16: whether this load's kernels can compute in bf16. */
static int load_program(om_rdctx *c, const eng_opts *o, int abi_match, int prec, int can_bf16, loaded *L, int *changed)
{
    om_rd *r = &c->r;
    uint32_t flags = or_u32(r);
    uint64_t work = or_u64(r);
    if (r->bad || flags > 1) return om_malformed(c, "program header");
    eng_program *m = calloc(1, sizeof *m);
    if (!m) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->api);
    L->p = m;
    m->threads = o && o->threads > 0 ? o->threads : 0;
    L->rec.work_size = (size_t)work;
    L->rec.abi_match = abi_match;
    int rc = om_read_graph(c, 0, 1, &m->g, &L->rec, &m->borrowed);
    if (rc) return rc;
    int marked = first_bf16_node(m->g);
    if (prec == OM_PREC_FP32 && marked >= 0)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: it records float32 compute, but "
                        "node '%s' (%s) is marked for bfloat16", c->api, c->src, m->g->nodes[marked].name,
                        m->g->nodes[marked].op_type);
    L->bf16 = prec == OM_PREC_BF16 || (!prec && marked >= 0);
    if (L->bf16 && !can_bf16) L->widened = widen_bf16(m->g, &L->rec) + 1;
    if ((rc = bind_loaded(c->api, c->src, m->g, &L->rec, changed))) return rc;
    if ((rc = check_inferred(c->api, c->src, m->g, flags & 1))) return rc;
    m->rec = &L->rec;
    m->img_w = c->bt->rt;
    m->img_w_len = c->bt->rt_len;
    if ((rc = eng_program_io(m))) return rc;
    if (m->is_static != (int)(flags & 1))
        return om_malformed(c, flags & 1 ? "a static program with shapes left unknown" : "static flag missing");
    return 0;
}

/* The top-level model of a gear model: the user inputs as declared (-1 in
 * the gear dims, the largest gear's size), the gear input, the outputs of
 * the largest gear with the largest size over gears. */
static int assemble_gears(const char *api, const char *src, eng_model *top, loaded *L, int n,
                          const om_meta *meta)
{
    const eng_program *p0 = L[0].p;
    int nu = p0->n_in, k = top->gear_nvals;
    if (meta->n_in != nu)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d inputs declared, the "
                        "programs have %d", api, src, meta->n_in, nu);
    /* the gear positions: every -1 of the declared shapes */
    int npos = 0;
    for (int i = 0; i < nu; i++)
        for (int d = 0; d < meta->in_shape[i].rank; d++) npos += meta->in_shape[i].d[d] < 0;
    if (!npos || (top->gear_kind == OM_GEAR_DIMS && npos != k) || (top->gear_kind == OM_GEAR_BATCH && k != 1) ||
        (top->gear_kind == OM_GEAR_HW && k != 2))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d gear values for %d "
                        "dynamic dims", api, src, k, npos);
    size_t total_max = 0;
    for (int g = 0; g < n; g++) {
        const eng_program *p = L[g].p;
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
                    if (top->gear_kind == OM_GEAR_BATCH) ok = d == 0;
                    else if (top->gear_kind == OM_GEAR_HW) ok = ds->rank == 4 && (d == 2 || d == 3);
                    if (ok)
                        want = top->gear_kind == OM_GEAR_BATCH ? v[0] : top->gear_kind == OM_GEAR_HW ? v[d - 2]
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
    top->io_owned = 1;        /* eng_free releases what was allocated */
    if (!top->ins || !top->outs || !top->gears) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    const eng_program *big = L[top->largest].p;
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
                if (L[g].p->ins[i].nbytes > io->nbytes) io->nbytes = L[g].p->ins[i].nbytes;
        }
        if (!io->name) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    for (int o = 0; o < top->n_out; o++) {
        eng_io *io = &top->outs[o];
        *io = big->outs[o];
        io->name = strdup(big->outs[o].name);
        if (!io->name) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        for (int g = 0; g < n; g++)
            if (L[g].p->outs[o].nbytes > io->nbytes) io->nbytes = L[g].p->outs[o].nbytes;
    }
    for (int i = 0; i < n; i++) { top->gears[i] = L[i].p; L[i].p = NULL; }
    top->n_gears = n;
    top->gear_input = nu;
    top->is_static = 1;
    return 0;
}

/* Whether program k's packed nodes plan for the thread counts they were
 * packed with: oneDNN picks weight blockings per thread count (bf16 1x1
 * convolutions: 48 or 64 output channels per block, the same byte size), so
 * stored weights are only valid for the same count. */
static int threads_agree(const char *api, const char *src, const loaded *L, const om_exec *ex, int k)
{
    const eng_program *m = L->p;
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

/* Planning: the recorded plans are reused where this build agrees, and the
 * stored packed weights adopted (*adopt stays 1) or the plain copies checked
 * for packing again; *base: the weight bytes the programs need then. */
static int plan_programs(const char *api, const char *src, const om_file *f, loaded *L, int n_progs,
                         const om_exec *ex, int threads, int *adopt, size_t *base)
{
    int rc = 0;
    for (int k = 0; k < n_progs && !rc; k++) {
        eng_program *m = L[k].p;
        if (m->is_static) rc = eng_program_steps(m);
        if (!rc && *adopt) *adopt = eng_program_can_adopt(m) && threads_agree(api, src, &L[k], ex, k);
    }
    if (rc) return rc;
    const om_section *spl = om_find(f, OM_SEC_PLAIN);
    if (!*adopt && spl && spl->size) {
        prefetch(f->base + spl->off, (size_t)spl->size);
        if ((rc = om_verify_chunked(api, src, f, spl, threads))) return rc;
    }
    *base = 0;
    for (int k = 0; k < n_progs && !rc; k++) {
        eng_program *m = L[k].p;
        m->weight_base = *base;
        if (m->is_static) rc = eng_program_refs(m, *adopt);
        else rc = eng_program_layout_dynamic(m, *adopt);   /* the executor packs per shape */
        if (!*adopt) *base += m->weight_size;
    }
    return rc;
}

/* The compute precision the programs settled on, said in the log; returns
 * whether a bf16 program had to be widened to float32 here. */
static int log_precision(const char *api, const char *src, const eng_opts *o, const loaded *L, int n_progs)
{
    int bf16 = 0, widened = 0;
    for (int k = 0; k < n_progs; k++) { bf16 |= L[k].bf16; widened |= L[k].widened; }
    if (widened)
        acl_log(2, "%s: compiled model %s was compiled for bfloat16 compute, but %s: it runs in float32 (weights "
                "packed again from its plain copies, memory planned again)", api, src,
                k_force_ref() ? "OPENACL_FORCE_REF selects the reference kernels (float32 only)"
                              : "this CPU has no bfloat16 instructions");
    else if (bf16)
        acl_log(1, "%s: compiled model %s computes in bfloat16 (convolutions and matrix products)", api, src);
    /* precedence: a compiled model runs in the precision it was compiled for */
    const char *pe = getenv("OPENACL_PRECISION");
    int have = bf16 ? OM_PREC_BF16 : OM_PREC_FP32;
    if ((o && o->precision) || (pe && *pe)) {
        int want = eng_precision_of(o);
        if (want != have)
            acl_log(2, "%s: compiled model %s was compiled for %s compute; %s asks for %s, which applies to "
                    "ONNX models only (atc --precision_mode chooses a compiled model's)", api, src,
                    precision_name(have), o && o->precision ? "the load option" : "OPENACL_PRECISION",
                    precision_name(want));
    }
    return widened;
}

/* A model without gears: its program's inputs are the ones INFO declares. */
static int check_inputs(const char *api, const char *src, const om_meta *meta, const eng_program *p)
{
    if (meta->n_in != p->n_in)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: %d inputs declared, the "
                        "program has %d", api, src, meta->n_in, p->n_in);
    for (int i = 0; i < p->n_in; i++)
        if (strcmp(meta->in_names[i], p->ins[i].name))
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: input %d is named '%s' "
                            "in the info section, '%s' in the program", api, src, i, meta->in_names[i],
                            p->ins[i].name);
    return 0;
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
    om_meta *meta = NULL;
    int gear_kind, n_gears, nvals, n_progs;
    int64_t *vals = NULL;
    if ((rc = om_read_info(api, src, f.base + si->off, (size_t)si->size, &meta, &gear_kind, &n_gears, &nvals, &vals,
                     &n_progs)))
        return rc;
    meta->major = f.major;
    meta->minor = f.minor;
    meta->kernel_abi = strdup(f.kernel_abi);
    om_blobtab bt;
    loaded *L = NULL;
    eng_model *top = NULL;
    int changed = 0;
    om_exec ex;
    memset(&ex, 0, sizeof ex);
    if ((rc = om_read_blobs(api, src, &f, &bt))) goto done;
    if ((rc = om_read_exec(api, src, &f, n_progs, &ex))) goto done;
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
    om_rdctx c = { api, src, { 0 }, &bt };
    or_init(&c.r, f.base + sp->off, (size_t)sp->size);
    uint32_t np = or_u32(&c.r);
    if (c.r.bad || (int)np != n_progs) { rc = om_malformed(&c, "program count differs from the info section"); goto done; }
    /* bf16 compute needs oneDNN's bf16 kernels (reference kernels are f32) */
    int can_bf16 = eng_cpu_bf16() && !k_force_ref();
    for (int k = 0; k < n_progs && !rc; k++)
        rc = load_program(&c, o, abi_match, ex.present ? ex.precision : 0, can_bf16, &L[k], &changed);
    if (!rc && c.r.pos != c.r.len) rc = om_malformed(&c, "bytes after the last program");
    for (int k = 0; k < n_progs && !rc && ex.present; k++)
        if (ex.n_nodes[k] != (uint32_t)L[k].p->g->n_nodes)
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: the execution section "
                          "records %u nodes for program %d, which has %d", api, src, ex.n_nodes[k], k,
                          L[k].p->g->n_nodes);
    if (rc) goto done;
    int widened = log_precision(api, src, o, L, n_progs);
    int adopt = !widened;
    size_t base = 0;
    if ((rc = plan_programs(api, src, &f, L, n_progs, &ex, threads, &adopt, &base))) goto done;
    if (gear_kind) {
        top = calloc(1, sizeof *top);
        if (!top) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api); goto done; }
        top->gear_kind = gear_kind;
        top->gear_nvals = nvals;
        top->gear_vals = vals;
        vals = NULL;
        if ((rc = assemble_gears(api, src, top, L, n_progs, meta))) goto done;
        for (int g = 0; g < n_progs; g++) {
            const eng_program *p = top->gears[g];
            if (p->work_size > top->work_size) top->work_size = p->work_size;
        }
        top->threads = o && o->threads > 0 ? o->threads : 0;
    } else {
        if ((rc = check_inputs(api, src, meta, L[0].p))) goto done;
        L[0].p->rec = NULL;
        rc = eng_model_of(L[0].p, o ? o->threads : 0, &top);
        L[0].p = NULL;   /* the model's now (freed on failure too) */
        if (rc) goto done;
    }
    top->weight_size = adopt ? bt.rt_len : base;
    top->adopt = adopt;
    top->img_w = bt.rt;
    top->img_w_len = bt.rt_len;
    top->meta = meta;
    meta = NULL;
    if (o && o->release) {
        top->release = o->release;
        top->release_ctx = o->release_ctx;
    }
    for (int k = 0; k < top->n_gears; k++) top->gears[k]->rec = NULL;
    *out = top;
    top = NULL;
done:
    if (L) {
        for (int k = 0; k < n_progs; k++) {
            if (L[k].p) { L[k].p->rec = NULL; eng_program_free(L[k].p); }
            om_rec_free(&L[k].rec);
        }
        free(L);
    }
    if (top) { top->release = NULL; eng_free(top); }
    free(bt.e);
    free(vals);
    om_exec_free(&ex);
    om_meta_free(meta);
    return rc;
}

/* atc --mode=1 (engine/compile.h): the dump, told this build's kernel ABI. */
int eng_om_dump_json(const char *src, const void *image, size_t len, char **json)
{
    return om_dump_json(src, image, len, eng_kernel_abi(), json);
}
