/* Programs (eng_priv.h): one graph at fixed shapes, optimised and planned.
 *
 * Static plan: every kernel argument is a k_tensor prepared here whose data
 * pointer is (re)written from a small fix-up table at the start of each run
 * (arena base + offset, weight base + offset, caller input/output pointer);
 * the run itself is eng_run.c. Weights: every constant read at run time and
 * each step's packed weights get an offset in a weight area the model binds
 * (gear programs share one area, each from its own weight_base). Compiled
 * programs (eng_om.c) arrive with a recorded plan (p->rec), used where this
 * build agrees with it. */
#include "engine/eng_priv.h"
#include "graph/errs.h"
#include "graph/passes.h"
#include "graph/plan.h"
#include "graph/precision.h"
#include "core/core.h"
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

/* ---- fixed shapes, I/O, weight layout, references ---- */

static int apply_fixes(g_graph *g, const eng_opts *o)
{
    for (int i = 0; i < o->n_fix; i++) {
        const char *name = o->fix_names ? o->fix_names[i] : NULL;
        if (!name)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: fixed shape %d has no input name", i);
        int t = -1;
        for (int k = 0; k < g->n_inputs; k++)
            if (!strcmp(g->t[g->inputs[k]].name, name)) t = g->inputs[k];
        if (t < 0)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: fixed shape for '%s', which is "
                            "not an input of the model", name);
        g_tensor *x = &g->t[t];
        const g_shape *s = &o->fix_shapes[i];
        char a[128], b[128];
        if (s->rank < 0 || s->rank > G_MAX_RANK || (!o->fix_override && !g_shape_known(s)))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: fixed shape %s for input '%s' "
                            "has unknown dims", g_shape_str(s, a, sizeof a), name);
        int ok = x->shape.rank < 0 || x->shape.rank == s->rank;
        for (int k = 0; ok && !o->fix_override && x->shape.rank >= 0 && k < s->rank; k++)
            if (x->shape.d[k] >= 0 && x->shape.d[k] != s->d[k]) ok = 0;
        if (!ok)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: %s shape %s for input '%s' "
                            "contradicts its declared shape %s", o->fix_override ? "given" : "fixed",
                            g_shape_str(s, a, sizeof a), name, g_shape_str(&x->shape, b, sizeof b));
        x->shape = *s;
    }
    return 0;
}

static int build_io(eng_program *p)
{
    g_graph *g = p->g;
    p->n_in = g->n_inputs;
    p->n_out = g->n_outputs;
    p->ins = calloc((size_t)p->n_in + 1, sizeof *p->ins);
    p->outs = calloc((size_t)p->n_out + 1, sizeof *p->outs);
    p->in_t = calloc((size_t)p->n_in + 1, sizeof *p->in_t);
    p->out_t = calloc((size_t)p->n_out + 1, sizeof *p->out_t);
    if (!p->ins || !p->outs || !p->in_t || !p->out_t)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    for (int i = 0; i < p->n_in + p->n_out; i++) {
        int isin = i < p->n_in, k = isin ? i : i - p->n_in;
        int t = isin ? g->inputs[k] : g->outputs[k];
        const g_tensor *x = &g->t[t];
        eng_io *io = isin ? &p->ins[k] : &p->outs[k];
        (isin ? p->in_t : p->out_t)[k] = t;
        io->name = x->name;
        io->dtype = x->dtype;
        io->shape = x->shape;
        io->layout = G_LAYOUT_PLAIN;
        k_tensor kt = { .dtype = x->dtype, .shape = x->shape };
        io->nbytes = g_shape_known(&x->shape) ? k_nbytes(&kt) : 0;
        if (!isin && x->layout != G_LAYOUT_PLAIN)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: output '%s' left in a blocked "
                            "layout by the optimiser", x->name);
    }
    return 0;
}

/* Weight area: every constant read at run time (64-byte aligned each), then
 * each step's packed weights. */
/* Constants every reader of which keeps only a packed copy (k_op.packed_inputs)
 * need no place of their own in a static plan: pack() reads them at bind and
 * they are dropped. Dynamic plans may pack again for new shapes: they keep all. */
static void find_pack_only(eng_program *p)
{
    g_graph *g = p->g;
    for (int t = 0; t < g->n_t; t++)
        p->pack_only[t] = g->t[t].kind == G_TK_CONST && g->t[t].data && g->t[t].nuse > 0 &&
                          !g->t[t].is_output;
    for (int i = 0; i < p->n_steps; i++) {
        const step *st = &p->steps[i];
        const g_node *n = st->n;
        int packs = st->packed_bytes > 0 && n->op->pack;
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0) continue;
            if (!packs || j >= 32 || !((n->op->packed_inputs >> j) & 1u)) p->pack_only[t] = 0;
        }
    }
}

static int alloc_weight_tables(eng_program *p)
{
    g_graph *g = p->g;
    if (!p->const_off) p->const_off = malloc(((size_t)g->n_t + 1) * sizeof *p->const_off);
    if (!p->pack_only) p->pack_only = calloc((size_t)g->n_t + 1, 1);
    if (!p->const_off || !p->pack_only) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    memset(p->pack_only, 0, (size_t)g->n_t + 1);
    if (p->is_static) find_pack_only(p);
    return 0;
}

static int needs_copy(const eng_program *p, int t)
{
    const g_tensor *x = &p->g->t[t];
    return x->kind == G_TK_CONST && x->data && (x->nuse > 0 || x->is_output) && !p->pack_only[t];
}

static int layout_weights(eng_program *p, size_t base)
{
    g_graph *g = p->g;
    int rc = alloc_weight_tables(p);
    if (rc) return rc;
    size_t off = base;
    for (int t = 0; t < g->n_t; t++) {
        p->const_off[t] = -1;
        if (!needs_copy(p, t)) continue;
        p->const_off[t] = (int64_t)off;
        off += up64(g->t[t].nbytes);
    }
    for (int s = 0; s < p->n_steps; s++) {
        p->steps[s].packed_off = off;
        off += up64(p->steps[s].packed_bytes);
    }
    p->weight_base = base;
    p->weight_size = off - base;
    return 0;
}

/* Takes the image's weight layout (adopt): constants and packed areas where
 * the compiler put them. */
static int layout_recorded(eng_program *p)
{
    g_graph *g = p->g;
    const eng_rec *r = p->rec;
    int rc = alloc_weight_tables(p);
    if (rc) return rc;
    for (int t = 0; t < g->n_t; t++) {
        p->const_off[t] = needs_copy(p, t) ? r->const_off[t] : -1;
        if (needs_copy(p, t) && r->const_off[t] < 0)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "compiled model: constant '%s' has no run-time copy",
                            g->t[t].name);
    }
    for (int s = 0; s < p->n_steps; s++) p->steps[s].packed_off = r->packed_off[s] >= 0 ? (size_t)r->packed_off[s] : 0;
    p->weight_base = 0;
    p->weight_size = p->img_w_len;
    return 0;
}

static void add_ref(eng_program *p, k_tensor *slot, int kind, int64_t idx)
{
    p->refs[p->n_refs++] = (slot_ref){ slot, kind, idx };
}

static int tensor_ref(const eng_program *p, int t, int *kind, int64_t *idx)
{
    const g_tensor *x = &p->g->t[t];
    for (int i = 0; i < p->n_in; i++) if (p->in_t[i] == t) { *kind = REF_INPUT; *idx = i; return 0; }
    if (x->kind == G_TK_CONST) {
        /* a packed-only constant: its readers never look at it while running */
        *kind = p->pack_only[t] ? REF_NONE : REF_WEIGHT;
        *idx = p->const_off[t];
        if (*kind == REF_WEIGHT && *idx < 0)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: constant '%s' has no storage", x->name);
        return 0;
    }
    for (int i = 0; i < p->n_out; i++) if (p->out_t[i] == t) { *kind = REF_OUTPUT; *idx = i; return 0; }
    if (x->mem_offset >= 0) { *kind = REF_ARENA; *idx = x->mem_offset; return 0; }
    return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: tensor '%s' has no storage", x->name);
}

/* The recorded memory plan, used when this build plans every node's scratch
 * as the compiler did and the plan is sound: every buffer inside the arena,
 * aligned, and no two buffers live at once sharing a byte. A damaged file
 * could otherwise point a kernel outside the arena, or lay one node's
 * scratch (where oneDNN keeps pointers) over the tensor it writes. Anything
 * else is planned again. */
static int use_recorded_plan(eng_program *p, const size_t *scratch, const int *inplace)
{
    g_graph *g = p->g;
    const eng_rec *r = p->rec;
    for (int i = 0; i < p->n_steps; i++)
        if (scratch[i] != r->scratch_bytes[i]) return 0;
    /* never more than every buffer side by side: a damaged size cannot
     * make the runtime allocate absurd amounts */
    if (r->work_size > plan_graph_naive(g, scratch)) return 0;
    if (!plan_graph_check(g, r->mem_offset, r->scratch_bytes, r->scratch_off, inplace, r->work_size)) return 0;
    for (int t = 0; t < g->n_t; t++) g->t[t].mem_offset = r->mem_offset[t];
    for (int i = 0; i < p->n_steps; i++) p->steps[i].scratch_off = r->scratch_off[i];
    p->work_size = r->work_size;
    p->plan_recorded = 1;
    return 1;
}

/* Kernels create their primitives for the thread count in force when they
 * plan and pack; a different count at the first run would build them again
 * (hundreds of ms on a CNN), so planning runs under the model's own. */
static void load_threads(const eng_program *p)
{
    if (p->threads > 0 && omp_get_max_threads() != p->threads) omp_set_num_threads(p->threads);
}

int eng_program_steps(eng_program *p)
{
    g_graph *g = p->g;
    int rc = 0, ns = g->n_nodes, nslots = 0;
    load_threads(p);
    eng_threads_reload();
    int budget = p->threads > 0 ? p->threads : omp_get_max_threads();
    for (int i = 0; i < ns; i++) nslots += g->nodes[i].n_in + g->nodes[i].n_out + 2 * GRAPH_IO_PAD;
    p->steps = calloc((size_t)ns + 1, sizeof *p->steps);
    p->slots = calloc((size_t)nslots + 1, sizeof *p->slots);
    p->refs = calloc((size_t)nslots + 1, sizeof *p->refs);
    p->copies = calloc((size_t)p->n_out + 1, sizeof *p->copies);
    size_t *scratch = calloc((size_t)ns + 1, sizeof *scratch);
    size_t *scratch_off = calloc((size_t)ns + 1, sizeof *scratch_off);
    int *inplace = calloc((size_t)ns + 1, sizeof *inplace);
    if (!p->steps || !p->slots || !p->refs || !p->copies || !scratch || !scratch_off || !inplace) {
        rc = acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
        goto done;
    }
    p->n_steps = ns;
    k_tensor *sl = p->slots;
    for (int i = 0; i < ns; i++) {
        g_node *n = &g->nodes[i];
        step *s = &p->steps[i];
        s->n = n;
        s->in = sl; sl += n->n_in + GRAPH_IO_PAD;
        s->out = sl; sl += n->n_out + GRAPH_IO_PAD;
        graph_node_io(g, n, s->in, s->out);
        for (int j = 0; j < n->n_out; j++) {
            if (n->out[j] < 0) continue;
            const g_tensor *x = &g->t[n->out[j]];
            s->out[j].dtype = x->dtype;
            s->out[j].shape = x->shape;
            s->out[j].layout = x->layout;
            s->out[j].nbytes = k_nbytes(&s->out[j]);
        }
        size_t pb = 0, sb = 0;
        /* small nodes plan (oneDNN: build) for the one thread they run on */
        s->threads = eng_node_threads(n, s->in, s->out, budget);
        if (s->threads != omp_get_max_threads()) omp_set_num_threads(s->threads);
        if (n->op->plan && (rc = n->op->plan(n, n->state, s->in, s->out, &pb, &sb))) {
            acl_fail(rc, "model load: node '%s' (%s, opset %d): planning failed", n->name,
                     n->op_type, n->opset);
            goto done;
        }
        s->packed_bytes = pb;
        s->scratch_bytes = scratch[i] = sb;
        inplace[i] = n->op->inplace ? n->op->inplace(n, n->state) : -1;
    }
    if (omp_get_max_threads() != budget) omp_set_num_threads(budget);
    if (p->rec) {
        if ((rc = g_graph_link(g))) goto done;
        if (use_recorded_plan(p, scratch, inplace)) goto done;
        acl_log(1, "compiled model: recorded memory plan not usable (scratch sizes differ on this build, or "
                   "buffers live at once overlap): planned again");
    }
    if ((rc = plan_graph_inplace(g, scratch, inplace, scratch_off, &p->work_size))) goto done;
    for (int i = 0; i < ns; i++) p->steps[i].scratch_off = scratch_off[i];
done:
    free(scratch); free(scratch_off); free(inplace);
    return rc;
}

int eng_program_can_adopt(const eng_program *p)
{
    const eng_rec *r = p->rec;
    if (!r || !r->abi_match || !p->img_w) return 0;
    for (int i = 0; i < p->n_steps; i++) {
        const step *s = &p->steps[i];
        if (s->packed_bytes != r->packed_bytes[i]) return 0;
        if (!s->packed_bytes || !s->n->op->pack) continue;
        if (!s->n->op->adopt || r->packed_off[i] < 0) return 0;
        if (!r->impl[i] || strcmp(r->impl[i], s->n->op->impl)) return 0;
        if ((size_t)r->packed_off[i] > p->img_w_len || s->packed_bytes > p->img_w_len - (size_t)r->packed_off[i])
            return 0;
    }
    if (!p->is_static) {
        for (int t = 0; t < p->g->n_t; t++)
            if (p->g->t[t].kind == G_TK_CONST && p->g->t[t].data && r->const_off[t] < 0 &&
                (p->g->t[t].nuse > 0 || p->g->t[t].is_output)) return 0;
    }
    return 1;
}

int eng_program_refs(eng_program *p, int adopt)
{
    int rc = 0, ns = p->n_steps;
    p->adopt = adopt;
    if ((rc = adopt ? layout_recorded(p) : layout_weights(p, p->weight_base))) return rc;
    p->n_refs = 0;
    p->n_copies = 0;
    for (int i = 0; i < ns && !rc; i++) {
        step *s = &p->steps[i];
        const g_node *n = s->n;
        for (int j = 0; j < n->n_in + n->n_out && !rc; j++) {
            int isin = j < n->n_in;
            int t = isin ? n->in[j] : n->out[j - n->n_in];
            k_tensor *slot = isin ? &s->in[j] : &s->out[j - n->n_in];
            if (t < 0) { slot->data = NULL; slot->nbytes = 0; continue; }
            int kind = REF_NONE; int64_t idx = -1;
            if ((rc = tensor_ref(p, t, &kind, &idx))) break;
            if (!isin && kind != REF_OUTPUT && kind != REF_ARENA) {
                rc = acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: node '%s' writes a constant "
                              "or input", n->name);
                break;
            }
            slot->data = NULL;
            add_ref(p, slot, kind, idx);
        }
    }
    /* outputs not written by a step of their own */
    for (int o = 0; o < p->n_out && !rc; o++) {
        int t = p->out_t[o];
        int kind = REF_NONE; int64_t idx = -1;
        if ((rc = tensor_ref(p, t, &kind, &idx))) break;
        if (kind == REF_OUTPUT && idx == o) continue;
        p->copies[p->n_copies++] = (out_copy){ o, kind, idx, p->outs[o].nbytes };
    }
    return rc;
}

int eng_program_layout_dynamic(eng_program *p, int adopt)
{
    p->work_size = 0;
    p->adopt = adopt;
    return adopt ? layout_recorded(p) : layout_weights(p, 0);
}

int eng_program_io(eng_program *p)
{
    int rc = build_io(p);
    if (rc) return rc;
    p->is_static = graph_is_static(p->g);
    return 0;
}

static void dump_if_wanted(const eng_program *p)
{
    if (!graph_dump_wanted() || !p->g) return;
    fprintf(stderr, "openacl: model plan (%s, work %zu bytes, weights %zu bytes)\n",
            p->is_static ? "static" : "dynamic", p->work_size, p->weight_size);
    graph_dump(p->g, stderr, 2);
}

int eng_program_build(g_graph *g, const eng_opts *o, eng_program **out)
{
    static const eng_opts defaults = { 0 };
    if (!o) o = &defaults;
    *out = NULL;
    eng_program *p = calloc(1, sizeof *p);
    if (!p) { g_graph_free(g); return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory"); }
    p->g = g;
    p->threads = o->threads > 0 ? o->threads : 0;
    load_threads(p);
    int rc = apply_fixes(g, o);
    if (!rc && eng_precision_of(o) == ENG_PRECISION_BF16) rc = graph_mark_bf16(g);
    if (!rc) rc = graph_optimize(g);
    if (!rc) rc = eng_program_io(p);
    if (!rc && p->is_static) rc = eng_program_steps(p);
    if (!rc) rc = p->is_static ? eng_program_refs(p, 0) : eng_program_layout_dynamic(p, 0);
    if (rc) { eng_program_free(p); return rc; }
    dump_if_wanted(p);
    *out = p;
    return 0;
}

int eng_program_describe(g_graph *g, const eng_opts *o, eng_program **out)
{
    *out = NULL;
    eng_program *p = calloc(1, sizeof *p);
    if (!p) { g_graph_free(g); return acl_fail(ACL_ERROR_BAD_ALLOC, "model describe: out of memory"); }
    p->g = g;
    int rc = apply_fixes(g, o);
    if (!rc) rc = graph_describe(g);
    if (!rc) rc = eng_program_io(p);
    if (rc) { eng_program_free(p); return rc; }
    *out = p;
    return 0;
}

void eng_program_drop_borrowed(eng_program *p)
{
    if (!p->borrowed || !p->g) return;
    for (int t = 0; t < p->g->n_t; t++)
        if (p->borrowed[t]) { p->g->t[t].data = NULL; p->borrowed[t] = 0; }
}

/* Frees constant t's plain copy once the weight area holds what runs need. */
static void drop_plain(eng_program *p, int t)
{
    g_graph *g = p->g;
    if (!g->t[t].data || (p->pack_only[t] && p->keep_plain)) return;   /* the compiler still writes them */
    if (!p->borrowed || !p->borrowed[t]) free(g->t[t].data);
    g->t[t].data = NULL;
}

/* Copies a plain constant into the weight area; when the copy is the last
 * use of an owned buffer, its pages are released behind the copy (a large
 * embedding table is then never resident twice). */
static void copy_plain(char *dst, const char *src, size_t n, int release)
{
    const size_t chunk = (size_t)1 << 20;
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        memcpy(dst + off, src + off, k);
        if (release) oa_pages_release(src + off, k);
    }
}

int eng_program_bind(eng_program *p, char *w, eng_dyn *dyn)
{
    g_graph *g = p->g;
    int dynamic = !p->is_static;   /* the executor may pack again: plain copies stay until the end */
    load_threads(p);
    /* Plain copies go as soon as nothing needs them, so the peak of a load
     * is about one copy of the weights, not the plain and packed sets
     * together (ResNet-50: ~100 MB less). A failed bind therefore leaves
     * the model unusable (callers free it). */
    int *last = calloc((size_t)g->n_t + 1, sizeof *last);
    if (!last) return acl_fail(ACL_ERROR_BAD_ALLOC, "eng_bind_weights: out of memory");
    for (int t = 0; t < g->n_t; t++) last[t] = -1;
    for (int s = 0; s < p->n_steps; s++) {
        const step *st = &p->steps[s];
        if (!st->packed_bytes || !st->n->op->pack) continue;
        for (int j = 0; j < st->n->n_in; j++)
            if (st->n->in[j] >= 0 && p->pack_only[st->n->in[j]]) last[st->n->in[j]] = s;
    }
    if (!p->adopt)
        for (int t = 0; t < g->n_t; t++)
            if (p->const_off[t] >= 0) {
                int last_use = !p->pack_only[t] && !dynamic;
                int own = last_use && (!p->borrowed || !p->borrowed[t]);
                copy_plain(w + p->const_off[t], g->t[t].data, g->t[t].nbytes, own);
                if (last_use) drop_plain(p, t);
            }
    p->bind_spent = 1;
    for (int s = 0; s < p->n_steps; s++) {
        step *st = &p->steps[s];
        const g_node *n = st->n;
        if (!st->packed_bytes || !n->op->pack) continue;
        /* pack reads the constants: point the slots at their new home */
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            st->in[j].data = t < 0 ? NULL : p->const_off[t] >= 0 ? w + p->const_off[t]
                           : p->pack_only[t] ? g->t[t].data : NULL;
        }
        int rc = p->adopt ? n->op->adopt(n, n->state, st->in, st->out, w + st->packed_off)
                          : n->op->pack(n, n->state, st->in, st->out, w + st->packed_off);
        if (rc) {
            free(last);
            return acl_fail(rc, "eng_bind_weights: node '%s' (%s): %s failed", n->name, n->op_type,
                            p->adopt ? "adopting the compiled packed weights" : "packing");
        }
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0 && last[n->in[j]] == s && !dynamic) drop_plain(p, n->in[j]);
    }
    free(last);
    /* the weight area now holds the only copy the run needs */
    for (int t = 0; t < g->n_t; t++) {
        if (p->const_off[t] < 0 && !p->pack_only[t]) continue;
        if (dyn && p->const_off[t] >= 0) eng_dyn_set_const(dyn, t, w + p->const_off[t]);
        drop_plain(p, t);
    }
    /* slots of packed-only constants were pointed at the old copies for pack() */
    for (int r = 0; r < p->n_refs; r++)
        if (p->refs[r].kind == REF_NONE) p->refs[r].slot->data = NULL;
    p->weights = w;
    p->bound = 1;
    return 0;
}

void eng_program_free(eng_program *p)
{
    if (!p) return;
    eng_program_drop_borrowed(p);
    g_graph_free(p->g);
    free(p->ins); free(p->outs); free(p->in_t); free(p->out_t);
    free(p->const_off); free(p->pack_only); free(p->steps); free(p->slots); free(p->refs); free(p->copies);
    free(p->borrowed);
    free(p);
}
