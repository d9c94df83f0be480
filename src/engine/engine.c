/* The engine (engine.h): load = import + optimise + plan; run = a flat loop
 * over prepared steps (static models) or the dynamic executor (models with
 * shapes known only at run time). Compiled models (eng_om.c) arrive here
 * already optimised and planned; gear models are several static programs
 * sharing one weight area and the largest gear's work area.
 *
 * Static plan: every kernel argument is a k_tensor prepared at load whose
 * data pointer is (re)written from a small fix-up table at the start of each
 * run (arena base + offset, weight base + offset, caller input/output
 * pointer); the run itself is eng_run.c. */
#include "engine/eng_priv.h"
#include "engine/eng_dump.h"
#include "graph/aipp.h"
#include "graph/errs.h"
#include "graph/passes.h"
#include "graph/plan.h"
#include "onnx/onnx_import.h"
#include "engine/eng_prof.h"
#include "graph/precision.h"
#include "core/core.h"
#include "acl/error_codes/ge_error_codes.h"
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static int alloc_weight_tables(eng_model *m)
{
    g_graph *g = m->g;
    if (!m->const_off) m->const_off = malloc(((size_t)g->n_t + 1) * sizeof *m->const_off);
    if (!m->pack_only) m->pack_only = calloc((size_t)g->n_t + 1, 1);
    if (!m->const_off || !m->pack_only) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    memset(m->pack_only, 0, (size_t)g->n_t + 1);
    if (m->is_static) find_pack_only(m);
    return 0;
}

static int needs_copy(const eng_model *m, int t)
{
    const g_tensor *x = &m->g->t[t];
    return x->kind == G_TK_CONST && x->data && (x->nuse > 0 || x->is_output) && !m->pack_only[t];
}

int eng_layout_weights(eng_model *m, size_t base)
{
    g_graph *g = m->g;
    int rc = alloc_weight_tables(m);
    if (rc) return rc;
    size_t off = base;
    for (int t = 0; t < g->n_t; t++) {
        m->const_off[t] = -1;
        if (!needs_copy(m, t)) continue;
        m->const_off[t] = (int64_t)off;
        off += up64(g->t[t].nbytes);
    }
    for (int s = 0; s < m->n_steps; s++) {
        m->steps[s].packed_off = off;
        off += up64(m->steps[s].packed_bytes);
    }
    m->weight_base = base;
    m->weight_size = off - base;
    return 0;
}

/* Takes the image's weight layout (adopt): constants and packed areas where
 * the compiler put them. */
static int layout_recorded(eng_model *m)
{
    g_graph *g = m->g;
    const eng_rec *r = m->rec;
    int rc = alloc_weight_tables(m);
    if (rc) return rc;
    for (int t = 0; t < g->n_t; t++) {
        m->const_off[t] = needs_copy(m, t) ? r->const_off[t] : -1;
        if (needs_copy(m, t) && r->const_off[t] < 0)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "compiled model: constant '%s' has no run-time copy",
                            g->t[t].name);
    }
    for (int s = 0; s < m->n_steps; s++) m->steps[s].packed_off = r->packed_off[s] >= 0 ? (size_t)r->packed_off[s] : 0;
    m->weight_base = 0;
    m->weight_size = m->img_w_len;
    return 0;
}

static void add_ref(eng_model *m, k_tensor *slot, int kind, int64_t idx)
{
    m->refs[m->n_refs++] = (slot_ref){ slot, kind, idx };
}

static int tensor_ref(const eng_model *m, int t, int *kind, int64_t *idx)
{
    const g_tensor *x = &m->g->t[t];
    for (int i = 0; i < m->n_in; i++) if (m->in_t[i] == t) { *kind = REF_INPUT; *idx = i; return 0; }
    if (x->kind == G_TK_CONST) {
        /* a packed-only constant: its readers never look at it while running */
        *kind = m->pack_only[t] ? REF_NONE : REF_WEIGHT;
        *idx = m->const_off[t];
        if (*kind == REF_WEIGHT && *idx < 0)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: constant '%s' has no storage", x->name);
        return 0;
    }
    for (int i = 0; i < m->n_out; i++) if (m->out_t[i] == t) { *kind = REF_OUTPUT; *idx = i; return 0; }
    if (x->mem_offset >= 0) { *kind = REF_ARENA; *idx = x->mem_offset; return 0; }
    return acl_fail(ACL_ERROR_INTERNAL_ERROR, "model load: tensor '%s' has no storage", x->name);
}

/* The recorded memory plan, used when this build plans every node's scratch
 * as the compiler did and the plan is sound: every buffer inside the arena,
 * aligned, and no two buffers live at once sharing a byte. A damaged file
 * could otherwise point a kernel outside the arena, or lay one node's
 * scratch (where oneDNN keeps pointers) over the tensor it writes. Anything
 * else is planned again. */
static int use_recorded_plan(eng_model *m, const size_t *scratch, const int *inplace)
{
    g_graph *g = m->g;
    const eng_rec *r = m->rec;
    for (int i = 0; i < m->n_steps; i++)
        if (scratch[i] != r->scratch_bytes[i]) return 0;
    /* never more than every buffer side by side: a damaged size cannot
     * make the runtime allocate absurd amounts */
    if (r->work_size > plan_graph_naive(g, scratch)) return 0;
    if (!plan_graph_check(g, r->mem_offset, r->scratch_bytes, r->scratch_off, inplace, r->work_size)) return 0;
    for (int t = 0; t < g->n_t; t++) g->t[t].mem_offset = r->mem_offset[t];
    for (int i = 0; i < m->n_steps; i++) m->steps[i].scratch_off = r->scratch_off[i];
    m->work_size = r->work_size;
    m->plan_recorded = 1;
    return 1;
}

int eng_precision_of(const eng_opts *o)
{
    if (o && o->precision == ENG_PRECISION_BF16) return ENG_PRECISION_BF16;
    if (o && o->precision == ENG_PRECISION_FP32) return ENG_PRECISION_FP32;
    const char *e = getenv("OPENACL_PRECISION");
    if (e && (!strcmp(e, "bf16") || !strcmp(e, "BF16"))) return ENG_PRECISION_BF16;
    if (e && *e && strcmp(e, "fp32") && strcmp(e, "FP32"))
        acl_log(2, "OPENACL_PRECISION=%s: expected bf16 or fp32; fp32 used", e);
    return ENG_PRECISION_FP32;
}

/* Kernels create their primitives for the thread count in force when they
 * plan and pack; a different count at the first run would build them again
 * (hundreds of ms on a CNN), so planning runs under the model's own. */
static void load_threads(const eng_model *m)
{
    if (m->threads > 0 && omp_get_max_threads() != m->threads) omp_set_num_threads(m->threads);
}

int eng_prepare_steps(eng_model *m)
{
    g_graph *g = m->g;
    int rc = 0, ns = g->n_nodes, nslots = 0;
    load_threads(m);
    int budget = m->threads > 0 ? m->threads : omp_get_max_threads();
    for (int i = 0; i < ns; i++) nslots += g->nodes[i].n_in + g->nodes[i].n_out + 2 * GRAPH_IO_PAD;
    m->steps = calloc((size_t)ns + 1, sizeof *m->steps);
    m->slots = calloc((size_t)nslots + 1, sizeof *m->slots);
    m->refs = calloc((size_t)nslots + 1, sizeof *m->refs);
    m->copies = calloc((size_t)m->n_out + 1, sizeof *m->copies);
    size_t *scratch = calloc((size_t)ns + 1, sizeof *scratch);
    size_t *scratch_off = calloc((size_t)ns + 1, sizeof *scratch_off);
    int *inplace = calloc((size_t)ns + 1, sizeof *inplace);
    if (!m->steps || !m->slots || !m->refs || !m->copies || !scratch || !scratch_off || !inplace) {
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
    if (m->rec) {
        if ((rc = g_graph_link(g))) goto done;
        if (use_recorded_plan(m, scratch, inplace)) goto done;
        acl_log(1, "compiled model: recorded memory plan not usable (scratch sizes differ on this build, or "
                   "buffers live at once overlap): planned again");
    }
    if ((rc = plan_graph_inplace(g, scratch, inplace, scratch_off, &m->work_size))) goto done;
    for (int i = 0; i < ns; i++) m->steps[i].scratch_off = scratch_off[i];
done:
    free(scratch); free(scratch_off); free(inplace);
    return rc;
}

int eng_can_adopt(const eng_model *m)
{
    const eng_rec *r = m->rec;
    if (!r || !r->abi_match || !m->img_w) return 0;
    for (int i = 0; i < m->n_steps; i++) {
        const step *s = &m->steps[i];
        if (s->packed_bytes != r->packed_bytes[i]) return 0;
        if (!s->packed_bytes || !s->n->op->pack) continue;
        if (!s->n->op->adopt || r->packed_off[i] < 0) return 0;
        if (!r->impl[i] || strcmp(r->impl[i], s->n->op->impl)) return 0;
        if ((size_t)r->packed_off[i] > m->img_w_len || s->packed_bytes > m->img_w_len - (size_t)r->packed_off[i])
            return 0;
    }
    if (!m->is_static) {
        for (int t = 0; t < m->g->n_t; t++)
            if (m->g->t[t].kind == G_TK_CONST && m->g->t[t].data && r->const_off[t] < 0 &&
                (m->g->t[t].nuse > 0 || m->g->t[t].is_output)) return 0;
    }
    return 1;
}

int eng_prepare_refs(eng_model *m, int adopt)
{
    int rc = 0, ns = m->n_steps;
    m->adopt = adopt;
    if ((rc = adopt ? layout_recorded(m) : eng_layout_weights(m, m->weight_base))) return rc;
    m->n_refs = 0;
    m->n_copies = 0;
    for (int i = 0; i < ns && !rc; i++) {
        step *s = &m->steps[i];
        const g_node *n = s->n;
        for (int j = 0; j < n->n_in + n->n_out && !rc; j++) {
            int isin = j < n->n_in;
            int t = isin ? n->in[j] : n->out[j - n->n_in];
            k_tensor *slot = isin ? &s->in[j] : &s->out[j - n->n_in];
            if (t < 0) { slot->data = NULL; slot->nbytes = 0; continue; }
            int kind = REF_NONE; int64_t idx = -1;
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
        int kind = REF_NONE; int64_t idx = -1;
        if ((rc = tensor_ref(m, t, &kind, &idx))) break;
        if (kind == REF_OUTPUT && idx == o) continue;
        m->copies[m->n_copies++] = (out_copy){ o, kind, idx, m->outs[o].nbytes };
    }
    return rc;
}

int eng_prepare_dynamic(eng_model *m, int adopt)
{
    m->work_size = 0;
    m->adopt = adopt;
    int rc = adopt ? layout_recorded(m) : eng_layout_weights(m, 0);
    if (rc) return rc;
    m->dyn = eng_dyn_new(m->g);
    m->vals = calloc((size_t)m->g->n_t + 1, sizeof *m->vals);
    m->owned = calloc((size_t)m->g->n_t + 1, 1);
    if (!m->dyn || !m->vals || !m->owned)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    return 0;
}

int eng_prepare_io(eng_model *m)
{
    int rc = build_io(m);
    if (rc) return rc;
    m->gear_input = -1;
    m->is_static = graph_is_static(m->g);
    return 0;
}

int eng_prepare(eng_model *m)
{
    int rc = eng_prepare_io(m);
    if (rc) return rc;
    if (!m->is_static) {
        if (m->rec) g_graph_link(m->g);
        return eng_prepare_dynamic(m, m->rec && m->img_w ? eng_can_adopt(m) : 0);
    }
    if ((rc = eng_prepare_steps(m))) return rc;
    return eng_prepare_refs(m, m->rec ? eng_can_adopt(m) : 0);
}

static void dump_if_wanted(const eng_model *m)
{
    if (!graph_dump_wanted() || !m->g) return;
    fprintf(stderr, "openacl: model plan (%s, work %zu bytes, weights %zu bytes)\n",
            m->is_static ? "static" : "dynamic", m->work_size, m->weight_size);
    graph_dump(m->g, stderr, 2);
}

int eng_build(g_graph *g, const eng_opts *o, eng_model **out)
{
    static const eng_opts defaults = { 0 };
    if (!o) o = &defaults;
    *out = NULL;
    eng_model *m = calloc(1, sizeof *m);
    if (!m) { g_graph_free(g); return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory"); }
    m->g = g;
    m->threads = o->threads > 0 ? o->threads : 0;
    load_threads(m);
    int rc = apply_fixes(m->g, o);
    if (!rc && eng_precision_of(o) == ENG_PRECISION_BF16) rc = graph_mark_bf16(m->g);
    if (!rc) rc = graph_optimize(m->g);
    if (!rc) rc = eng_prepare(m);
    if (rc) { eng_free(m); return rc; }
    dump_if_wanted(m);
    *out = m;
    return 0;
}

int eng_load_fixed(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: output handle pointer is NULL");
    *out = NULL;
    if (o && (o->n_fix < 0 || (o->n_fix > 0 && (!o->fix_names || !o->fix_shapes))))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: %d fixed shapes but no names/shapes",
                        o->n_fix);
    g_graph *g = NULL;
    int rc = onnx_import_ex(buf, len, o ? o->base_dir : NULL, o ? o->drop : NULL, o ? o->drop_ctx : NULL, &g);
    if (rc) return rc;
    return eng_build(g, o, out);
}

int eng_describe(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    static const eng_opts defaults = { 0 };
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "model describe: output handle pointer is NULL");
    *out = NULL;
    if (!o) o = &defaults;
    g_graph *g = NULL;
    int rc = onnx_import_ex(buf, len, o->base_dir, NULL, NULL, &g);
    if (rc) return rc;
    eng_model *m = calloc(1, sizeof *m);
    if (!m) { g_graph_free(g); return acl_fail(ACL_ERROR_BAD_ALLOC, "model describe: out of memory"); }
    m->g = g;
    m->described_only = 1;
    rc = apply_fixes(g, o);
    if (!rc) rc = graph_describe(g);
    if (!rc) rc = eng_prepare_io(m);
    if (rc) { eng_free(m); return rc; }
    *out = m;
    return 0;
}

int eng_load(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    int rc = eng_load_fixed(buf, len, o, out);
    /* dynamic models keep their source for static programs per input shape */
    if (!rc && (rc = eng_shapes_keep(*out, buf, len, o))) { eng_free(*out); *out = NULL; }
    return rc;
}

/* Pointers into the caller's image must not be freed (nor kept past bind). */
static void drop_borrowed(eng_model *m)
{
    if (!m->borrowed || !m->g) return;
    for (int t = 0; t < m->g->n_t; t++)
        if (m->borrowed[t]) { m->g->t[t].data = NULL; m->borrowed[t] = 0; }
}

void eng_free(eng_model *m)
{
    if (!m) return;
    eng_dump_detach(m);
    eng_shapes_free(m);
    if (m->vals && m->owned && m->g) eng_vals_release(m->g->n_t, m->vals, m->owned);
    eng_dyn_free(m->dyn);
    drop_borrowed(m);
    g_graph_free(m->g);
    for (int i = 0; i < m->n_gears && m->gears; i++) eng_free(m->gears[i]);
    free(m->gears);
    free(m->gear_vals);
    if (m->io_names_owned) {
        for (int i = 0; i < m->n_in; i++) free((char *)m->ins[i].name);
        for (int i = 0; i < m->n_out; i++) free((char *)m->outs[i].name);
    }
    if (m->weights_owned) free(m->weights);
    if (m->release) m->release(m->release_ctx);
    free(m->own_work);
    free(m->ins); free(m->outs); free(m->in_t); free(m->out_t);
    free(m->const_off); free(m->pack_only); free(m->steps); free(m->slots); free(m->refs); free(m->copies);
    free(m->vals); free(m->owned); free(m->borrowed);
    om_meta_free(m->meta);
    free(m);
}

int eng_num_inputs(const eng_model *m) { return m ? m->n_in : 0; }
int eng_num_outputs(const eng_model *m) { return m ? m->n_out : 0; }
const eng_io *eng_input(const eng_model *m, int i) { return m && i >= 0 && i < m->n_in ? &m->ins[i] : NULL; }
const eng_io *eng_output(const eng_model *m, int i) { return m && i >= 0 && i < m->n_out ? &m->outs[i] : NULL; }
int eng_is_static(const eng_model *m) { return m ? m->is_static : 0; }

static int input_of(const eng_model *m, const g_graph *g, int t)
{
    for (int i = 0; t >= 0 && i < m->n_in; i++) if (!strcmp(m->ins[i].name, g->t[t].name)) return i;
    return -1;
}

int eng_input_aipp(const eng_model *m, int i, aipp_cfg *cfg, g_shape *net, int *attached)
{
    *attached = -1;
    if (!m || !m->g || i < 0 || i >= m->n_in) return 0;
    const g_graph *g = m->g;
    int t = g_tensor_find(g, m->ins[i].name);
    for (int k = 0; t >= 0 && k < g->n_nodes; k++) {
        const g_node *n = &g->nodes[k];
        if (n->n_in < 1 || n->n_out < 1 || strcmp(n->op_type, "Aipp") || strcmp(n->domain, "openacl")) continue;
        int slot = n->in[0] == t ? 0 : n->n_in > 1 && n->in[1] == t ? 1 : -1;
        if (slot < 0) continue;
        if (aipp_from_node(n, cfg)) return 0;
        *net = g->t[n->out[0]].shape;
        if (n->n_in == 1) return 1;
        *attached = input_of(m, g, n->in[1 - slot]);
        return slot ? 3 : 2;
    }
    return 0;
}
size_t eng_work_size(const eng_model *m) { return m && m->is_static ? m->work_size : 0; }
size_t eng_weight_size(const eng_model *m) { return m ? m->weight_size : 0; }

int eng_plan_from_image(const eng_model *m)
{
    if (!m) return 0;
    if (!m->gears) return m->plan_recorded;
    for (int k = 0; k < m->n_gears; k++)
        if (!m->gears[k] || !m->gears[k]->plan_recorded) return 0;
    return 1;
}

int eng_weights_in_image(const eng_model *m)
{
    return m && m->adopt && m->img_w && m->release && !m->bound;
}

/* Fills one program's part of the weight area w (shared by gears) and packs
 * or adopts its kernels' weights. */
/* Frees constant t's plain copy once the weight area holds what runs need. */
static void drop_plain(eng_model *m, int t)
{
    g_graph *g = m->g;
    if (!g->t[t].data || (m->pack_only[t] && m->keep_plain)) return;   /* the compiler still writes them */
    if (!m->borrowed || !m->borrowed[t]) free(g->t[t].data);
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

static int bind_program(eng_model *m, char *w)
{
    g_graph *g = m->g;
    /* Plain copies go as soon as nothing needs them, so the peak of a load
     * is about one copy of the weights, not the plain and packed sets
     * together (ResNet-50: ~100 MB less). A failed bind therefore leaves
     * the model unusable (callers free it). */
    int *last = calloc((size_t)g->n_t + 1, sizeof *last);
    if (!last) return acl_fail(ACL_ERROR_BAD_ALLOC, "eng_bind_weights: out of memory");
    for (int t = 0; t < g->n_t; t++) last[t] = -1;
    for (int s = 0; s < m->n_steps; s++) {
        const step *st = &m->steps[s];
        if (!st->packed_bytes || !st->n->op->pack) continue;
        for (int j = 0; j < st->n->n_in; j++)
            if (st->n->in[j] >= 0 && m->pack_only[st->n->in[j]]) last[st->n->in[j]] = s;
    }
    if (!m->adopt)
        for (int t = 0; t < g->n_t; t++)
            if (m->const_off[t] >= 0) {
                int last_use = !m->pack_only[t] && !m->dyn;
                int own = last_use && (!m->borrowed || !m->borrowed[t]);
                copy_plain(w + m->const_off[t], g->t[t].data, g->t[t].nbytes, own);
                if (last_use) drop_plain(m, t);
            }
    m->bind_spent = 1;
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
        int rc = m->adopt ? n->op->adopt(n, n->state, st->in, st->out, w + st->packed_off)
                          : n->op->pack(n, n->state, st->in, st->out, w + st->packed_off);
        if (rc) {
            free(last);
            return acl_fail(rc, "eng_bind_weights: node '%s' (%s): %s failed", n->name, n->op_type,
                            m->adopt ? "adopting the compiled packed weights" : "packing");
        }
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0 && last[n->in[j]] == s && !m->dyn) drop_plain(m, n->in[j]);
    }
    free(last);
    /* the weight area now holds the only copy the run needs */
    for (int t = 0; t < g->n_t; t++) {
        if (m->const_off[t] < 0 && !m->pack_only[t]) continue;
        if (m->dyn && m->const_off[t] >= 0) eng_dyn_set_const(m->dyn, t, w + m->const_off[t]);
        drop_plain(m, t);
    }
    /* slots of packed-only constants were pointed at the old copies for pack() */
    for (int r = 0; r < m->n_refs; r++)
        if (m->refs[r].kind == REF_NONE) m->refs[r].slot->data = NULL;
    m->weights = w;
    m->bound = 1;
    return 0;
}

int eng_bind_weights(eng_model *m, void *weights)
{
    if (!m) return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: model is NULL");
    if (m->bound)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: weights are already bound");
    if (m->described_only)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: the model was only described, not loaded");
    if (weights && ((uintptr_t)weights & 63))
        return acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "eng_bind_weights: weight memory %p "
                        "is not 64-byte aligned", weights);
    if (m->bind_spent)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: an earlier bind failed after "
                        "releasing the model's plain weights; load the model again");
    load_threads(m);
    int owned = 0;
    if (!weights && eng_weights_in_image(m)) {
        weights = (void *)m->img_w;     /* read-only: adopted weights are never written */
        m->img_in_use = 1;
    } else {
        if (!weights) {
            weights = eng_alloc64(m->weight_size);
            if (!weights)
                return acl_fail(ACL_ERROR_BAD_ALLOC, "eng_bind_weights: cannot allocate %zu bytes",
                                m->weight_size);
            owned = 1;
        }
        if (m->adopt && m->img_w && m->weight_size) memcpy(weights, m->img_w, m->weight_size);
    }
    int rc = 0;
    if (m->n_gears) {
        for (int i = 0; i < m->n_gears && !rc; i++) rc = bind_program(m->gears[i], weights);
        for (int i = 0; i < m->n_gears; i++) drop_borrowed(m->gears[i]);
    } else {
        rc = bind_program(m, weights);
    }
    drop_borrowed(m);
    if (rc) {
        if (owned) free(weights);
        m->weights = NULL;
        m->img_in_use = 0;
        for (int i = 0; i < m->n_gears; i++) m->gears[i]->bound = 0;
        m->bound = 0;
        return rc;
    }
    m->weights = weights;
    m->weights_owned = owned;
    m->bound = 1;
    /* nothing points into the caller's image any more: hand it back now */
    if (!m->img_in_use && m->release) {
        m->release(m->release_ctx);
        m->release = NULL;
    }
    return 0;
}

/* ---- gears ---- */

int eng_gear_kind(const eng_model *m) { return m ? m->gear_kind : ENG_GEAR_NONE; }
int eng_gear_count(const eng_model *m) { return m ? m->n_gears : 0; }
int eng_gear_nvals(const eng_model *m) { return m ? m->gear_nvals : 0; }
int eng_gear_input_index(const eng_model *m) { return m && m->n_gears ? m->gear_input : -1; }
int eng_gear_largest(const eng_model *m) { return m && m->n_gears ? m->largest : -1; }

const int64_t *eng_gear_values(const eng_model *m, int gear)
{
    if (!m || gear < 0 || gear >= m->n_gears) return NULL;
    return m->gear_vals + (size_t)gear * (size_t)m->gear_nvals;
}

int eng_gear_find(const eng_model *m, const int64_t *vals, int n)
{
    if (!m || !vals || n != m->gear_nvals) return -1;
    for (int g = 0; g < m->n_gears; g++)
        if (!memcmp(eng_gear_values(m, g), vals, (size_t)n * sizeof *vals)) return g;
    return -1;
}

const eng_io *eng_gear_input(const eng_model *m, int gear, int i)
{
    if (!m || gear < 0 || gear >= m->n_gears) return NULL;
    return eng_input(m->gears[gear], i);
}

const eng_io *eng_gear_output(const eng_model *m, int gear, int i)
{
    if (!m || gear < 0 || gear >= m->n_gears) return NULL;
    return eng_output(m->gears[gear], i);
}

int eng_gear_decode(const eng_model *m, const void *buf, size_t nbytes, int64_t *vals)
{
    int k = m ? m->gear_nvals : 0;
    if (!m || !m->n_gears || k <= 0) return -1;
    vals[0] = 0;
    if (!buf || nbytes < (size_t)k * 4) return -2;
    const unsigned char *p = buf;
    for (int i = 0; i < k; i++) {
        if (nbytes >= (size_t)k * 8) {
            uint64_t v;
            memcpy(&v, p + 8 * (size_t)i, 8);
            vals[i] = v > INT64_MAX ? -1 : (int64_t)v;
        } else {
            uint32_t v;
            memcpy(&v, p + 4 * (size_t)i, 4);
            vals[i] = v;
        }
    }
    return eng_gear_find(m, vals, k);
}

int eng_input_range(const eng_model *m, int i, int d, int64_t *lo, int64_t *hi)
{
    return om_meta_range(m ? m->meta : NULL, i, d, lo, hi);
}
