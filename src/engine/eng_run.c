/* Running a loaded model (engine.h eng_run): the caller's inputs checked
 * against the program, then a flat loop over the program's prepared steps
 * (eng_program_run: nothing is allocated, looked up or locked) or the
 * model's dynamic executor (engine/dyn.c) for shapes known only at run time.
 *
 * Outputs: eng_run writes each output's actual dtype/shape into out[i] and
 * sets out[i].nbytes to the bytes written. */
#include "engine/eng_priv.h"
#include "core/par.h"
#include "engine/eng_prof.h"
#include "graph/errs.h"
#include "core/core.h"
#include "acl/error_codes/ge_error_codes.h"
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int check_input(const eng_io *ins, int i, const k_tensor *x, int strict_shape)
{
    const eng_io *io = &ins[i];
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

static int prepare_output(const eng_io *outs, int o, k_tensor *y, size_t need,
                          eng_alloc_fn alloc, void *actx)
{
    if (!y->data) {
        if (!alloc)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: output %d '%s' has no buffer "
                            "and no allocator was given", o, outs[o].name);
        y->data = alloc(actx, need);
        if (!y->data && need)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model execute: allocating %zu bytes for output "
                            "%d '%s' failed", need, o, outs[o].name);
        y->nbytes = need;
    } else if (y->nbytes < need) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: output %d '%s' needs %zu bytes, "
                        "the buffer has %zu", o, outs[o].name, need, y->nbytes);
    }
    return 0;
}

static int set_threads(int threads)
{
    if (threads > 0) {
        omp_set_num_threads(threads);
        return threads;
    }
    return omp_get_max_threads();
}

int eng_program_run(eng_program *p, int budget, eng_dump *dump, char *work, const k_tensor *in,
                    k_tensor *out, eng_alloc_fn alloc, void *actx)
{
    int rc;
    eng_prof_init();
    double t_run = eng_prof_on ? eng_prof_now() : 0;
    for (int i = 0; i < p->n_in; i++)
        if ((rc = check_input(p->ins, i, &in[i], 1))) return rc;
    for (int o = 0; o < p->n_out; o++)
        if ((rc = prepare_output(p->outs, o, &out[o], p->outs[o].nbytes, alloc, actx))) return rc;
    char *w = p->weights;
    for (int r = 0; r < p->n_refs; r++) {
        const slot_ref *f = &p->refs[r];
        switch (f->kind) {
        case REF_ARENA: f->slot->data = work + f->idx; break;
        case REF_WEIGHT: f->slot->data = w + f->idx; break;
        case REF_INPUT: f->slot->data = in[f->idx].data; break;
        case REF_OUTPUT: f->slot->data = out[f->idx].data; break;
        }
    }
    int threads = set_threads(budget), cur = threads;
    oa_par_adapt(threads);
    if (__builtin_expect(dump != NULL, 0) && !eng_dump_begin(dump)) dump = NULL;
    for (int s = 0; s < p->n_steps; s++) {
        step *st = &p->steps[s];
        const g_node *n = st->n;
        int nt = st->threads == 1 ? 1 : threads;
        /* kernels that open their own parallel regions read the pool size */
        if (nt != cur) { omp_set_num_threads(nt); cur = nt; }
        k_ctx ctx = { .threads = nt, .scratch = st->scratch_bytes ? work + st->scratch_off : NULL,
                      .scratch_bytes = st->scratch_bytes };
        if (__builtin_expect(dump != NULL, 0)) eng_dump_node(dump, p->g, s, n, st->in, 0);
        double t0 = eng_prof_on ? eng_prof_now() : 0;
        if ((rc = n->op->run(n, n->state, st->in, st->out, &ctx))) {
            if (cur != threads) omp_set_num_threads(threads);
            if (dump) eng_dump_end(dump);
            return acl_fail(rc, "model execute: node '%s' (%s, opset %d) failed", n->name,
                            n->op_type, n->opset);
        }
        if (eng_prof_on) eng_prof_node(p->g, n, &st->out[0], t0, eng_prof_now());
        if (__builtin_expect(dump != NULL, 0)) eng_dump_node(dump, p->g, s, n, st->out, 1);
    }
    if (dump) eng_dump_end(dump);
    if (cur != threads) omp_set_num_threads(threads);
    for (int c = 0; c < p->n_copies; c++) {
        const out_copy *cp = &p->copies[c];
        const void *src = cp->kind == REF_INPUT ? in[cp->idx].data :
                          cp->kind == REF_WEIGHT ? (const void *)(w + cp->idx) : out[cp->idx].data;
        if (cp->nbytes && src != out[cp->out].data) memmove(out[cp->out].data, src, cp->nbytes);
    }
    for (int o = 0; o < p->n_out; o++) {
        out[o].dtype = p->outs[o].dtype;
        out[o].shape = p->outs[o].shape;
        out[o].layout = G_LAYOUT_PLAIN;
        out[o].nbytes = p->outs[o].nbytes;
    }
    if (eng_prof_on) eng_prof_run(p->g, 0, t_run, eng_prof_now());
    return 0;
}

static int run_dynamic(eng_model *m, const k_tensor *in, k_tensor *out, eng_alloc_fn alloc,
                       void *actx)
{
    const eng_program *p = m->prog;
    g_graph *g = p->g;
    int rc;
    for (int i = 0; i < m->n_in; i++)
        if ((rc = check_input(m->ins, i, &in[i], 0))) return rc;
    memset(m->vals, 0, (size_t)g->n_t * sizeof *m->vals);
    for (int i = 0; i < m->n_in; i++) {
        k_tensor *v = &m->vals[p->in_t[i]];
        *v = in[i];
        v->layout = G_LAYOUT_PLAIN;
    }
    rc = eng_dyn_run_dump(m->dyn, m->dump, m->vals, m->owned, set_threads(m->threads));
    for (int o = 0; o < m->n_out && !rc; o++) {
        int t = p->out_t[o];
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
        if ((rc = prepare_output(m->outs, o, &out[o], need, alloc, actx))) break;
        if (need && v->data != out[o].data) memcpy(out[o].data, v->data, need);
        out[o].dtype = v->dtype;
        out[o].shape = v->shape;
        out[o].layout = G_LAYOUT_PLAIN;
        out[o].nbytes = need;
    }
    eng_vals_release(g->n_t, m->vals, m->owned);
    return rc;
}

static int check_counts(const eng_model *m, const k_tensor *in, int n_in, const k_tensor *out, int n_out)
{
    if (n_in != m->n_in || (n_in && !in))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: %d inputs given, the model has "
                        "%d", n_in, m->n_in);
    if (n_out != m->n_out || (n_out && !out))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: %d outputs given, the model has "
                        "%d", n_out, m->n_out);
    return 0;
}

static int get_work(eng_model *top, void **work)
{
    if (*work && ((uintptr_t)*work & 63))
        return acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "model execute: work memory %p is "
                        "not 64-byte aligned", *work);
    if (!*work) {
        if (!top->own_work && !(top->own_work = eng_alloc64(top->work_size)))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model execute: cannot allocate %zu bytes of "
                            "work memory", top->work_size);
        *work = top->own_work;
    }
    return 0;
}

int eng_run(eng_model *m, void *work, const k_tensor *in, int n_in, k_tensor *out, int n_out,
            eng_alloc_fn alloc, void *alloc_ctx)
{
    if (!m) return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: model is NULL");
    int rc;
    if ((rc = check_counts(m, in, n_in, out, n_out))) return rc;
    if (m->n_gears) {
        int64_t v[G_MAX_RANK * 16];
        const k_tensor *gi = &in[m->gear_input];
        int gear = eng_gear_decode(m, gi->data, gi->nbytes, v);
        if (gear == -2)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: the gear input '%s' buffer holds %zu "
                            "bytes, at least %d needed", ENG_GEAR_NAME, gi->nbytes, 4 * m->gear_nvals);
        if (gear < 0)
            return acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "model execute: the gear input '%s' "
                            "holds %lld, which is not one of the model's %d gears", ENG_GEAR_NAME,
                            (long long)v[0], m->n_gears);
        return eng_run_gear(m, gear, work, in, n_in, out, n_out, alloc, alloc_ctx);
    }
    if (!m->bound && (rc = eng_bind_weights(m, NULL))) return rc;
    if (!m->is_static && m->shapes) {
        int handled;
        rc = eng_shapes_run(m, in, out, alloc, alloc_ctx, &handled);
        if (handled) return rc;
    }
    if (!m->is_static) return run_dynamic(m, in, out, alloc, alloc_ctx);
    if ((rc = get_work(m, &work))) return rc;
    return eng_program_run(m->prog, m->threads, m->dump, work, in, out, alloc, alloc_ctx);
}

int eng_run_gear(eng_model *m, int gear, void *work, const k_tensor *in, int n_in, k_tensor *out,
                 int n_out, eng_alloc_fn alloc, void *alloc_ctx)
{
    if (!m) return acl_fail(ACL_ERROR_INVALID_PARAM, "model execute: model is NULL");
    if (!m->n_gears || gear < 0 || gear >= m->n_gears)
        return acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "model execute: gear %d does not exist "
                        "(the model has %d)", gear, m->n_gears);
    int rc;
    if ((rc = check_counts(m, in, n_in, out, n_out))) return rc;
    if (!m->bound && (rc = eng_bind_weights(m, NULL))) return rc;
    if ((rc = get_work(m, &work))) return rc;
    /* the program has the user inputs only; the gear input stays behind */
    return eng_program_run(m->gears[gear], m->threads, m->dump, work, in, out, alloc, alloc_ctx);
}
