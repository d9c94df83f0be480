/* The engine (engine.h): load = import + optimise + plan a program
 * (eng_program.c); run = a flat loop over a static program's prepared steps
 * or the dynamic executor (models with shapes known only at run time;
 * eng_run.c). A model (eng_priv.h) is what the application loads: its
 * inputs and outputs, the weight area every program it runs is bound to,
 * its program, or one per gear (gear models, compiled by atc: eng_om.c),
 * the dynamic executor and the shape cache (eng_shapes.c), the compiled
 * image it may keep, the operator dump. */
#include "engine/eng_priv.h"
#include "engine/eng_dump.h"
#include "graph/aipp.h"
#include "graph/errs.h"
#include "onnx/onnx_import.h"
#include "core/core.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- load ---- */

/* A model whose inputs and outputs are program p's (p is the model's). */
static eng_model *model_new(eng_program *p)
{
    eng_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->prog = p;
    m->is_static = p->is_static;
    m->ins = p->ins;
    m->outs = p->outs;
    m->n_in = p->n_in;
    m->n_out = p->n_out;
    m->gear_input = -1;
    return m;
}

int eng_model_of(eng_program *p, int threads, eng_model **out)
{
    *out = NULL;
    eng_model *m = model_new(p);
    if (!m) { eng_program_free(p); return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory"); }
    m->threads = threads > 0 ? threads : 0;
    m->work_size = p->work_size;
    m->weight_size = p->weight_size;
    if (!p->is_static) {
        /* shapes known only at run time: the executor runs the program's graph */
        m->dyn = eng_dyn_new(p->g);
        m->vals = calloc((size_t)p->g->n_t + 1, sizeof *m->vals);
        m->owned = calloc((size_t)p->g->n_t + 1, 1);
        if (!m->dyn || !m->vals || !m->owned) {
            eng_free(m);
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
        }
    }
    *out = m;
    return 0;
}

/* A model of the program built from an ONNX image (eng_load without the shape cache). */
static int load_fixed(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: output handle pointer is NULL");
    *out = NULL;
    if (o && (o->n_fix < 0 || (o->n_fix > 0 && (!o->fix_names || !o->fix_shapes))))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model load: %d fixed shapes but no names/shapes",
                        o->n_fix);
    g_graph *g = NULL;
    int rc = onnx_import_ex(buf, len, o ? o->base_dir : NULL, o ? o->drop : NULL, o ? o->drop_ctx : NULL, &g);
    if (rc) return rc;
    eng_program *p = NULL;
    if ((rc = eng_program_build(g, o, &p))) return rc;
    return eng_model_of(p, o ? o->threads : 0, out);
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
    eng_program *p = NULL;
    if ((rc = eng_program_describe(g, o, &p))) return rc;
    eng_model *m = model_new(p);
    if (!m) { eng_program_free(p); return acl_fail(ACL_ERROR_BAD_ALLOC, "model describe: out of memory"); }
    m->described_only = 1;
    *out = m;
    return 0;
}

int eng_load(const void *buf, size_t len, const eng_opts *o, eng_model **out)
{
    int rc = load_fixed(buf, len, o, out);
    /* dynamic models keep their source for static programs per input shape */
    if (!rc && (rc = eng_shapes_keep(*out, buf, len, o))) { eng_free(*out); *out = NULL; }
    return rc;
}

void eng_free(eng_model *m)
{
    if (!m) return;
    eng_dump_detach(m);
    eng_shapes_free(m);
    if (m->vals && m->owned && m->prog) eng_vals_release(m->prog->g->n_t, m->vals, m->owned);
    eng_dyn_free(m->dyn);
    eng_program_free(m->prog);
    for (int i = 0; i < m->n_gears && m->gears; i++) eng_program_free(m->gears[i]);
    free(m->gears);
    free(m->gear_vals);
    if (m->io_owned) {
        for (int i = 0; i < m->n_in && m->ins; i++) free((char *)m->ins[i].name);
        for (int i = 0; i < m->n_out && m->outs; i++) free((char *)m->outs[i].name);
        free(m->ins); free(m->outs);
    }
    if (m->weights_owned) free(m->weights);
    if (m->release) m->release(m->release_ctx);
    free(m->own_work);
    free(m->vals); free(m->owned);
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
    /* gear models: the programs' graphs are the gears' own */
    if (!m || !m->prog || i < 0 || i >= m->n_in) return 0;
    const g_graph *g = m->prog->g;
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
    if (!m->gears) return m->prog && m->prog->plan_recorded;
    for (int k = 0; k < m->n_gears; k++)
        if (!m->gears[k] || !m->gears[k]->plan_recorded) return 0;
    return 1;
}

int eng_weights_in_image(const eng_model *m)
{
    return m && m->adopt && m->img_w && m->release && !m->bound;
}

/* The programs the weight area serves: the gears', or the model's one. */
static eng_program **programs(eng_model *m, int *n)
{
    *n = m->n_gears ? m->n_gears : m->prog ? 1 : 0;
    return m->n_gears ? m->gears : &m->prog;
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
    int n;
    eng_program **progs = programs(m, &n);
    for (int i = 0; i < n; i++)
        if (progs[i]->bind_spent)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "eng_bind_weights: an earlier bind failed after "
                            "releasing the model's plain weights; load the model again");
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
    for (int i = 0; i < n && !rc; i++) rc = eng_program_bind(progs[i], weights, m->dyn);
    for (int i = 0; i < n; i++) eng_program_drop_borrowed(progs[i]);
    if (rc) {
        if (owned) free(weights);
        m->weights = NULL;
        m->img_in_use = 0;
        for (int i = 0; i < n; i++) progs[i]->bound = 0;
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
    const eng_program *p = m->gears[gear];
    return i >= 0 && i < p->n_in ? &p->ins[i] : NULL;
}

const eng_io *eng_gear_output(const eng_model *m, int gear, int i)
{
    if (!m || gear < 0 || gear >= m->n_gears) return NULL;
    const eng_program *p = m->gears[gear];
    return i >= 0 && i < p->n_out ? &p->outs[i] : NULL;
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
