/* The engine (engine.h): load = import + optimise + plan; run = a flat loop
 * over prepared steps (static models) or the dynamic executor (models with
 * shapes known only at run time).
 *
 * Static plan: every kernel argument is a k_tensor prepared at load whose
 * data pointer is (re)written from a small fix-up table at the start of each
 * run (arena base + offset, weight base + offset, caller input/output
 * pointer); nothing is allocated, looked up or locked while running.
 *
 * Outputs: eng_run writes each output's actual dtype/shape into out[i] and
 * sets out[i].nbytes to the bytes written. */
#include "engine/engine.h"
#include "engine/exec.h"
#include "graph/errs.h"
#include "graph/passes.h"
#include "graph/plan.h"
#include "onnx/onnx_import.h"
#include "core/core.h"
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { REF_NONE = 0, REF_ARENA, REF_WEIGHT, REF_INPUT, REF_OUTPUT };

typedef struct slot_ref {
    k_tensor *slot;
    int kind;
    int64_t idx;              /* offset (arena/weight) or io index */
} slot_ref;

typedef struct step {
    g_node *n;
    k_tensor *in, *out;
    size_t scratch_off, scratch_bytes;
    size_t packed_off, packed_bytes;
} step;

/* An output whose value must be copied at the end of a run. */
typedef struct out_copy {
    int out;                  /* destination output index */
    int kind;                 /* REF_INPUT / REF_WEIGHT / REF_OUTPUT */
    int64_t idx;
    size_t nbytes;
} out_copy;

struct eng_model {
    g_graph *g;
    int threads;
    int is_static;
    eng_io *ins, *outs;
    int n_in, n_out;
    int *in_t, *out_t;        /* tensor index of each input / output */

    size_t work_size, weight_size;
    int64_t *const_off;       /* per tensor: offset in the weight area or -1 */
    unsigned char *pack_only; /* per tensor: a constant only packed kernels read */
    void *weights;
    int weights_owned, bound;
    void *own_work;

    /* static plan */
    step *steps; int n_steps;
    k_tensor *slots;
    slot_ref *refs; int n_refs;
    out_copy *copies; int n_copies;

    /* dynamic */
    eng_dyn *dyn;
    k_tensor *vals;
    unsigned char *owned;
};

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

/* ---- load ---- */

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
        if (!g_shape_known(s))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: fixed shape %s for input '%s' "
                            "has unknown dims", g_shape_str(s, a, sizeof a), name);
        int ok = x->shape.rank < 0 || x->shape.rank == s->rank;
        for (int k = 0; ok && x->shape.rank >= 0 && k < s->rank; k++)
            if (x->shape.d[k] >= 0 && x->shape.d[k] != s->d[k]) ok = 0;
        if (!ok)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: fixed shape %s for input '%s' "
                            "contradicts its declared shape %s", g_shape_str(s, a, sizeof a), name,
                            g_shape_str(&x->shape, b, sizeof b));
        x->shape = *s;
    }
    return 0;
}

static int build_io(eng_model *m)
{
    g_graph *g = m->g;
    m->n_in = g->n_inputs;
    m->n_out = g->n_outputs;
    m->ins = calloc((size_t)m->n_in + 1, sizeof *m->ins);
    m->outs = calloc((size_t)m->n_out + 1, sizeof *m->outs);
    m->in_t = calloc((size_t)m->n_in + 1, sizeof *m->in_t);
    m->out_t = calloc((size_t)m->n_out + 1, sizeof *m->out_t);
    if (!m->ins || !m->outs || !m->in_t || !m->out_t)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    for (int i = 0; i < m->n_in + m->n_out; i++) {
        int isin = i < m->n_in, k = isin ? i : i - m->n_in;
        int t = isin ? g->inputs[k] : g->outputs[k];
        const g_tensor *x = &g->t[t];
        eng_io *io = isin ? &m->ins[k] : &m->outs[k];
        (isin ? m->in_t : m->out_t)[k] = t;
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
static void find_pack_only(eng_model *m)
{
    g_graph *g = m->g;
    for (int t = 0; t < g->n_t; t++)
        m->pack_only[t] = g->t[t].kind == G_TK_CONST && g->t[t].data && g->t[t].nuse > 0 &&
                          !g->t[t].is_output;
    for (int i = 0; i < m->n_steps; i++) {
        const step *st = &m->steps[i];
        const g_node *n = st->n;
        int packs = st->packed_bytes > 0 && n->op->pack;
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0) continue;
            if (!packs || j >= 32 || !((n->op->packed_inputs >> j) & 1u)) m->pack_only[t] = 0;
        }
    }
}

static int layout_weights(eng_model *m)
{
    g_graph *g = m->g;
    m->const_off = malloc(((size_t)g->n_t + 1) * sizeof *m->const_off);
    m->pack_only = calloc((size_t)g->n_t + 1, 1);
    if (!m->const_off || !m->pack_only) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    if (m->is_static) find_pack_only(m);
    size_t off = 0;
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        m->const_off[t] = -1;
        if (x->kind != G_TK_CONST || !x->data || (x->nuse == 0 && !x->is_output)) continue;
        if (m->pack_only[t]) continue;
        m->const_off[t] = (int64_t)off;
        off += up64(x->nbytes);
    }
    for (int s = 0; s < m->n_steps; s++) {
        m->steps[s].packed_off = off;
        off += up64(m->steps[s].packed_bytes);
    }
    m->weight_size = off;
    return 0;
}

static int add_ref(eng_model *m, k_tensor *slot, int kind, int64_t idx)
{
    m->refs[m->n_refs++] = (slot_ref){ slot, kind, idx };
    return 0;
}

static int tensor_ref(const eng_model *m, int t, int *kind, int64_t *idx)
{
    const g_tensor *x = &m->g->t[t];
    for (int i = 0; i < m->n_in; i++) if (m->in_t[i] == t) { *kind = REF_INPUT; *idx = i; return 0; }
    if (x->kind == G_TK_CONST) {
        /* a packed-only constant: its readers never look at it while running */
        *kind = m->pack_only[t] ? REF_NONE : REF_WEIGHT;
        *idx = m->const_off[t];
        return 0;
    }
    for (int i = 0; i < m->n_out; i++) if (m->out_t[i] == t) { *kind = REF_OUTPUT; *idx = i; return 0; }
    if (x->mem_offset >= 0) { *kind = REF_ARENA; *idx = x->mem_offset; return 0; }
    return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: tensor '%s' has no storage", x->name);
}

static int prepare_static(eng_model *m)
{
    g_graph *g = m->g;
    int rc = 0, ns = g->n_nodes, nslots = 0;
    for (int i = 0; i < ns; i++) nslots += g->nodes[i].n_in + g->nodes[i].n_out + 2 * GRAPH_IO_PAD;
    m->steps = calloc((size_t)ns + 1, sizeof *m->steps);
    m->slots = calloc((size_t)nslots + 1, sizeof *m->slots);
    m->refs = calloc((size_t)nslots + 1, sizeof *m->refs);
    m->copies = calloc((size_t)m->n_out + 1, sizeof *m->copies);
    size_t *scratch = calloc((size_t)ns + 1, sizeof *scratch);
    size_t *scratch_off = calloc((size_t)ns + 1, sizeof *scratch_off);
    if (!m->steps || !m->slots || !m->refs || !m->copies || !scratch || !scratch_off) {
        rc = acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
        goto done;
    }
    m->n_steps = ns;
    k_tensor *sl = m->slots;
    for (int i = 0; i < ns; i++) {
        g_node *n = &g->nodes[i];
        step *s = &m->steps[i];
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
        if (n->op->plan && (rc = n->op->plan(n, n->state, s->in, s->out, &pb, &sb))) {
            acl_fail(rc, "model load: node '%s' (%s, opset %d): planning failed", n->name,
                     n->op_type, n->opset);
            goto done;
        }
        s->packed_bytes = pb;
        s->scratch_bytes = scratch[i] = sb;
    }
    if ((rc = plan_graph(g, scratch, scratch_off, &m->work_size))) goto done;
    for (int i = 0; i < ns; i++) m->steps[i].scratch_off = scratch_off[i];
    if ((rc = layout_weights(m))) goto done;
    for (int i = 0; i < ns && !rc; i++) {
        step *s = &m->steps[i];
        const g_node *n = s->n;
        for (int j = 0; j < n->n_in + n->n_out && !rc; j++) {
            int isin = j < n->n_in;
            int t = isin ? n->in[j] : n->out[j - n->n_in];
            k_tensor *slot = isin ? &s->in[j] : &s->out[j - n->n_in];
            if (t < 0) { slot->data = NULL; slot->nbytes = 0; continue; }
            int kind; int64_t idx;
            if ((rc = tensor_ref(m, t, &kind, &idx))) break;
            if (!isin && kind != REF_OUTPUT && kind != REF_ARENA) {
                rc = acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: node '%s' writes a constant "
                              "or input", n->name);
                break;
            }
            slot->data = NULL;
            add_ref(m, slot, kind, idx);
        }
    }
    /* outputs not written by a step of their own */
    for (int o = 0; o < m->n_out && !rc; o++) {
        int t = m->out_t[o];
        int kind; int64_t idx;
        if ((rc = tensor_ref(m, t, &kind, &idx))) break;
        if (kind == REF_OUTPUT && idx == o) continue;
        m->copies[m->n_copies++] = (out_copy){ o, kind, idx, m->outs[o].nbytes };
    }
done:
    free(scratch); free(scratch_off);
    return rc;
}

static int prepare_dynamic(eng_model *m)
{
    m->work_size = 0;
    int rc = layout_weights(m);
    if (rc) return rc;
    m->dyn = eng_dyn_new(m->g);
    m->vals = calloc((size_t)m->g->n_t + 1, sizeof *m->vals);
    m->owned = calloc((size_t)m->g->n_t + 1, 1);
    if (!m->dyn || !m->vals || !m->owned)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    return 0;
}

int eng_load(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    static const eng_opts defaults = { 0 };
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: output handle pointer is NULL");
    *out = NULL;
    if (!o) o = &defaults;
    if (o->n_fix < 0 || (o->n_fix > 0 && (!o->fix_names || !o->fix_shapes)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: %d fixed shapes but no names/shapes",
                        o->n_fix);
    eng_model *m = calloc(1, sizeof *m);
    if (!m) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    m->threads = o->threads > 0 ? o->threads : 0;
    int rc = onnx_import(buf, len, o->base_dir, &m->g);
    if (!rc) rc = apply_fixes(m->g, o);
    if (!rc) rc = graph_optimize(m->g);
    if (!rc) rc = build_io(m);
    if (!rc) {
        m->is_static = graph_is_static(m->g);
        rc = m->is_static ? prepare_static(m) : prepare_dynamic(m);
    }
    if (rc) { eng_free(m); return rc; }
    if (graph_dump_wanted()) {
        fprintf(stderr, "openacl: model plan (%s, work %zu bytes, weights %zu bytes)\n",
                m->is_static ? "static" : "dynamic", m->work_size, m->weight_size);
        graph_dump(m->g, stderr, 2);
    }
    *out = m;
    return 0;
}

void eng_free(eng_model *m)
{
    if (!m) return;
    if (m->vals && m->owned && m->g) eng_vals_release(m->g->n_t, m->vals, m->owned);
    eng_dyn_free(m->dyn);
    g_graph_free(m->g);
    if (m->weights_owned) free(m->weights);
    free(m->own_work);
    free(m->ins); free(m->outs); free(m->in_t); free(m->out_t);
    free(m->const_off); free(m->pack_only); free(m->steps); free(m->slots); free(m->refs); free(m->copies);
    free(m->vals); free(m->owned);
    free(m);
}

int eng_num_inputs(const eng_model *m) { return m ? m->n_in : 0; }
int eng_num_outputs(const eng_model *m) { return m ? m->n_out : 0; }
const eng_io *eng_input(const eng_model *m, int i) { return m && i >= 0 && i < m->n_in ? &m->ins[i] : NULL; }
const eng_io *eng_output(const eng_model *m, int i) { return m && i >= 0 && i < m->n_out ? &m->outs[i] : NULL; }
int eng_is_static(const eng_model *m) { return m ? m->is_static : 0; }
size_t eng_work_size(const eng_model *m) { return m && m->is_static ? m->work_size : 0; }
size_t eng_weight_size(const eng_model *m) { return m ? m->weight_size : 0; }

int eng_bind_weights(eng_model *m, void *weights)
{
    if (!m) return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: model is NULL");
    if (m->bound)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: weights are already bound");
    if (weights && ((uintptr_t)weights & 63))
        return acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "eng_bind_weights: weight memory %p "
                        "is not 64-byte aligned", weights);
    if (!weights) {
        weights = eng_alloc64(m->weight_size);
        if (!weights)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "eng_bind_weights: cannot allocate %zu bytes",
                            m->weight_size);
        m->weights_owned = 1;
    }
    m->weights = weights;
    g_graph *g = m->g;
    char *w = weights;
    for (int t = 0; t < g->n_t; t++)
        if (m->const_off[t] >= 0) memcpy(w + m->const_off[t], g->t[t].data, g->t[t].nbytes);
    for (int s = 0; s < m->n_steps; s++) {
        step *st = &m->steps[s];
        const g_node *n = st->n;
        if (!st->packed_bytes || !n->op->pack) continue;
        /* pack reads the constants: point the slots at their new home */
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            st->in[j].data = t < 0 ? NULL : m->const_off[t] >= 0 ? w + m->const_off[t]
                           : m->pack_only[t] ? g->t[t].data : NULL;
        }
        int rc = n->op->pack(n, n->state, st->in, st->out, w + st->packed_off);
        if (rc) {
            if (m->weights_owned) { free(m->weights); m->weights_owned = 0; }
            m->weights = NULL;
            return acl_fail(rc, "eng_bind_weights: node '%s' (%s): packing failed", n->name,
                            n->op_type);
        }
    }
    /* the weight area now holds the only copy the run needs */
    for (int t = 0; t < g->n_t; t++) {
        if (m->const_off[t] < 0 && !m->pack_only[t]) continue;
        if (m->dyn && m->const_off[t] >= 0) eng_dyn_set_const(m->dyn, t, w + m->const_off[t]);
        free(g->t[t].data);
        g->t[t].data = NULL;
    }
    /* slots of packed-only constants were pointed at the old copies for pack() */
    for (int r = 0; r < m->n_refs; r++)
        if (m->refs[r].kind == REF_NONE) m->refs[r].slot->data = NULL;
    m->bound = 1;
    return 0;
}

/* ---- run ---- */

static int check_input(const eng_model *m, int i, const k_tensor *x, int strict_shape)
{
    const eng_io *io = &m->ins[i];
    char a[128], b[128];
    if (g_is_container(io->dtype)) {
        /* a sequence/optional: a k_seq of the declared kind */
        int want = io->dtype, e = g_container_elem(want);
        int ok = x->dtype == want || (g_is_seq(want) && e == G_UNDEF && g_is_seq(x->dtype)) ||
                 (g_is_opt(want) && e == G_UNDEF && g_is_opt(x->dtype));
        if (!ok)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' has type %s, the "
                            "model expects %s", i, io->name, g_dtype_name(x->dtype),
                            g_dtype_name(want));
        if (!x->data)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' has no value", i,
                            io->name);
        return 0;
    }
    if (x->dtype != io->dtype)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' has type %s, the "
                        "model expects %s", i, io->name, g_dtype_name(x->dtype),
                        g_dtype_name(io->dtype));
    int ok = x->shape.rank >= 0 && x->shape.rank <= G_MAX_RANK && g_shape_known(&x->shape);
    if (ok && io->shape.rank >= 0) {
        ok = x->shape.rank == io->shape.rank;
        for (int k = 0; ok && k < io->shape.rank; k++)
            if ((io->shape.d[k] >= 0 || strict_shape) && io->shape.d[k] != x->shape.d[k]) ok = 0;
    }
    if (!ok)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' has shape %s, the "
                        "model expects %s", i, io->name, g_shape_str(&x->shape, a, sizeof a),
                        g_shape_str(&io->shape, b, sizeof b));
    size_t need = k_nbytes(x);
    if (x->nbytes < need)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' %s needs %zu bytes,"
                        " the buffer has %zu", i, io->name, g_shape_str(&x->shape, a, sizeof a),
                        need, x->nbytes);
    if (!x->data && need)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: input %d '%s' has no data", i,
                        io->name);
    return 0;
}

static int prepare_output(const eng_model *m, int o, k_tensor *y, size_t need,
                          eng_alloc_fn alloc, void *actx)
{
    if (!y->data) {
        if (!alloc)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: output %d '%s' has no buffer "
                            "and no allocator was given", o, m->outs[o].name);
        y->data = alloc(actx, need);
        if (!y->data && need)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model execute: allocating %zu bytes for output "
                            "%d '%s' failed", need, o, m->outs[o].name);
        y->nbytes = need;
    } else if (y->nbytes < need) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: output %d '%s' needs %zu bytes, "
                        "the buffer has %zu", o, m->outs[o].name, need, y->nbytes);
    }
    return 0;
}

static int set_threads(const eng_model *m)
{
    if (m->threads > 0) {
        omp_set_num_threads(m->threads);
        return m->threads;
    }
    return omp_get_max_threads();
}

static int run_static(eng_model *m, char *work, const k_tensor *in, k_tensor *out,
                      eng_alloc_fn alloc, void *actx)
{
    int rc;
    for (int i = 0; i < m->n_in; i++)
        if ((rc = check_input(m, i, &in[i], 1))) return rc;
    for (int o = 0; o < m->n_out; o++)
        if ((rc = prepare_output(m, o, &out[o], m->outs[o].nbytes, alloc, actx))) return rc;
    char *w = m->weights;
    for (int r = 0; r < m->n_refs; r++) {
        const slot_ref *f = &m->refs[r];
        switch (f->kind) {
        case REF_ARENA: f->slot->data = work + f->idx; break;
        case REF_WEIGHT: f->slot->data = w + f->idx; break;
        case REF_INPUT: f->slot->data = in[f->idx].data; break;
        case REF_OUTPUT: f->slot->data = out[f->idx].data; break;
        }
    }
    int threads = set_threads(m);
    for (int s = 0; s < m->n_steps; s++) {
        step *st = &m->steps[s];
        const g_node *n = st->n;
        k_ctx ctx = { .threads = threads, .scratch = st->scratch_bytes ? work + st->scratch_off : NULL,
                      .scratch_bytes = st->scratch_bytes };
        if ((rc = n->op->run(n, n->state, st->in, st->out, &ctx)))
            return acl_fail(rc, "model execute: node '%s' (%s, opset %d) failed", n->name,
                            n->op_type, n->opset);
    }
    for (int c = 0; c < m->n_copies; c++) {
        const out_copy *cp = &m->copies[c];
        const void *src = cp->kind == REF_INPUT ? in[cp->idx].data :
                          cp->kind == REF_WEIGHT ? (const void *)(w + cp->idx) : out[cp->idx].data;
        if (cp->nbytes && src != out[cp->out].data) memmove(out[cp->out].data, src, cp->nbytes);
    }
    for (int o = 0; o < m->n_out; o++) {
        out[o].dtype = m->outs[o].dtype;
        out[o].shape = m->outs[o].shape;
        out[o].layout = G_LAYOUT_PLAIN;
        out[o].nbytes = m->outs[o].nbytes;
    }
    return 0;
}

static int run_dynamic(eng_model *m, const k_tensor *in, k_tensor *out, eng_alloc_fn alloc,
                       void *actx)
{
    g_graph *g = m->g;
    int rc;
    for (int i = 0; i < m->n_in; i++)
        if ((rc = check_input(m, i, &in[i], 0))) return rc;
    memset(m->vals, 0, (size_t)g->n_t * sizeof *m->vals);
    for (int i = 0; i < m->n_in; i++) {
        k_tensor *v = &m->vals[m->in_t[i]];
        *v = in[i];
        v->layout = G_LAYOUT_PLAIN;
    }
    rc = eng_dyn_run(m->dyn, m->vals, m->owned, set_threads(m));
    for (int o = 0; o < m->n_out && !rc; o++) {
        int t = m->out_t[o];
        k_tensor *v = &m->vals[t];
        if (g_is_container(v->dtype)) {
            /* handed over as a k_seq the caller releases with k_seq_free */
            if (m->owned[t]) {
                out[o] = *v;
                m->owned[t] = 0;   /* a repeat of this output copies from it */
            } else if ((rc = k_value_copy(&out[o], v))) {
                acl_fail(rc, "model execute: output %d '%s': out of memory", o, m->outs[o].name);
            }
            continue;
        }
        size_t need = k_nbytes(v);
        if ((rc = prepare_output(m, o, &out[o], need, alloc, actx))) break;
        if (need && v->data != out[o].data) memcpy(out[o].data, v->data, need);
        out[o].dtype = v->dtype;
        out[o].shape = v->shape;
        out[o].layout = G_LAYOUT_PLAIN;
        out[o].nbytes = need;
    }
    eng_vals_release(g->n_t, m->vals, m->owned);
    return rc;
}

int eng_run(eng_model *m, void *work, const k_tensor *in, int n_in, k_tensor *out, int n_out,
            eng_alloc_fn alloc, void *alloc_ctx)
{
    if (!m) return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: model is NULL");
    if (n_in != m->n_in || (n_in && !in))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: %d inputs given, the model has "
                        "%d", n_in, m->n_in);
    if (n_out != m->n_out || (n_out && !out))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: %d outputs given, the model has "
                        "%d", n_out, m->n_out);
    int rc;
    if (!m->bound && (rc = eng_bind_weights(m, NULL))) return rc;
    if (!m->is_static) return run_dynamic(m, in, out, alloc, alloc_ctx);
    if (work && ((uintptr_t)work & 63))
        return acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "model execute: work memory %p is "
                        "not 64-byte aligned", work);
    if (!work) {
        if (!m->own_work && !(m->own_work = eng_alloc64(m->work_size)))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model execute: cannot allocate %zu bytes of "
                            "work memory", m->work_size);
        work = m->own_work;
    }
    return run_static(m, work, in, out, alloc, alloc_ctx);
}
