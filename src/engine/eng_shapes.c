/* Static programs for the input shapes a dynamic model is run with.
 *
 * A model whose shapes are known only at run time goes through the dynamic
 * executor node by node: no fusion or layout decisions (they need shapes),
 * per-node planning when shapes change. When the same input shapes come
 * back (an OCR recogniser fed lines of a few widths, a detector fed one
 * camera size), the whole model is instead loaded again with those shapes
 * fixed, fully optimised and planned as a static program, and the run goes
 * there. Programs live in a small LRU cache (OPENACL_SHAPE_CACHE entries,
 * default 4, 0 disables); shapes for which the model stays dynamic (shapes
 * that depend on data) are remembered as such and keep the dynamic path.
 *
 * Costs: a copy of the model file per dynamic model, and per cached program
 * its packed weights and work area (engine memory, not device-counted).
 * The first run of a new shape pays the load (about one model load). */
#include "engine/eng_priv.h"
#include "onnx/onnx_import.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

#define SHAPES_DEFAULT 4
#define SHAPES_MAX 64

typedef struct shape_entry {
    g_shape *sig;             /* n_in shapes */
    eng_program *prog;        /* NULL: the model stays dynamic for these shapes */
    void *weights, *work;     /* the program's own weight area (bound) and work area */
    uint64_t last_use;
} shape_entry;

struct eng_shapes {
    void *src;                /* the model file */
    size_t len;
    char *base_dir;
    int threads, precision, cap, n;
    uint64_t clock;
    shape_entry *e;
    eng_shapes_stats st;
};

static int cache_capacity(void)
{
    const char *v = getenv("OPENACL_SHAPE_CACHE");
    if (!v || !*v) return SHAPES_DEFAULT;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 0) {
        acl_log(2, "OPENACL_SHAPE_CACHE=%s is not a count: default %d used", v, SHAPES_DEFAULT);
        return SHAPES_DEFAULT;
    }
    return n > SHAPES_MAX ? SHAPES_MAX : (int)n;
}

int eng_shapes_keep(eng_model *m, const void *buf, size_t len, const eng_opts *o)
{
    if (m->is_static || m->n_gears || !buf || !len) return 0;
    int cap = cache_capacity();
    if (!cap || m->n_in <= 0) return 0;
    for (int i = 0; i < m->n_in; i++)
        if (g_is_container(m->ins[i].dtype)) return 0;
    for (int i = 0; i < m->n_out; i++)
        if (g_is_container(m->outs[i].dtype)) return 0;
    eng_shapes *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    s->src = malloc(len);
    s->e = calloc((size_t)cap, sizeof *s->e);
    s->base_dir = o && o->base_dir ? strdup(o->base_dir) : NULL;
    if (!s->src || !s->e || (o && o->base_dir && !s->base_dir)) {
        free(s->src); free(s->e); free(s->base_dir); free(s);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
    }
    memcpy(s->src, buf, len);
    s->len = len;
    s->cap = cap;
    s->threads = m->threads;
    s->precision = eng_precision_of(o);
    m->shapes = s;
    return 0;
}

static void entry_free(shape_entry *e)
{
    eng_program_free(e->prog);
    free(e->weights); free(e->work); free(e->sig);
}

void eng_shapes_free(eng_model *m)
{
    eng_shapes *s = m ? m->shapes : NULL;
    if (!s) return;
    for (int i = 0; i < s->n; i++) entry_free(&s->e[i]);
    free(s->e); free(s->src); free(s->base_dir); free(s);
    m->shapes = NULL;
}

static int sig_match(const shape_entry *e, const k_tensor *in, int n)
{
    for (int i = 0; i < n; i++)
        if (!g_shape_eq(&e->sig[i], &in[i].shape)) return 0;
    return 1;
}

/* Imports the model again and builds its program with the inputs fixed to
 * these shapes (fully optimised and planned), bound to weights of its own.
 * e->prog stays NULL when that fails or leaves the program dynamic. */
static void build_prog(eng_model *m, const k_tensor *in, shape_entry *e)
{
    eng_shapes *s = m->shapes;
    const char **names = calloc((size_t)m->n_in, sizeof *names);
    g_shape *shapes = calloc((size_t)m->n_in, sizeof *shapes);
    eng_program *p = NULL;
    if (names && shapes) {
        for (int i = 0; i < m->n_in; i++) { names[i] = m->ins[i].name; shapes[i] = in[i].shape; }
        eng_opts o = { .threads = s->threads, .base_dir = s->base_dir, .n_fix = m->n_in,
                       .fix_names = names, .fix_shapes = shapes, .precision = s->precision };
        int quiet = acl_err_quiet(1);   /* a failure here only means: stay dynamic */
        g_graph *g = NULL;
        int rc = onnx_import_ex(s->src, s->len, s->base_dir, NULL, NULL, &g);
        if (!rc) rc = eng_program_build(g, &o, &p);
        if (!rc && p->is_static && !(e->weights = eng_alloc64(p->weight_size))) rc = ACL_ERROR_BAD_ALLOC;
        if (!rc && p->is_static) rc = eng_program_bind(p, e->weights, NULL);
        acl_err_quiet(quiet);
        if (!rc && !p->is_static) { eng_program_free(p); p = NULL; }
        else if (rc) {
            acl_log(1, "shape cache: the model does not load with its inputs fixed (error %d); "
                    "these shapes run on the dynamic path", rc);
            eng_program_free(p);
            free(e->weights);
            e->weights = NULL;
            p = NULL;
        }
    }
    free(names); free(shapes);
    e->prog = p;
}

int eng_shapes_run(eng_model *m, const k_tensor *in, k_tensor *out, eng_alloc_fn alloc,
                   void *actx, int *handled)
{
    eng_shapes *s = m->shapes;
    *handled = 0;
    for (int i = 0; i < m->n_in; i++) {
        const k_tensor *x = &in[i];
        if (x->dtype != m->ins[i].dtype || x->shape.rank < 0 || x->shape.rank > G_MAX_RANK ||
            !g_shape_known(&x->shape))
            return 0;   /* the dynamic path reports it */
    }
    shape_entry *e = NULL;
    for (int k = 0; k < s->n && !e; k++)
        if (sig_match(&s->e[k], in, m->n_in)) e = &s->e[k];
    if (!e) {
        if (s->n == s->cap) {   /* evict the least recently used */
            int lru = 0;
            for (int k = 1; k < s->n; k++)
                if (s->e[k].last_use < s->e[lru].last_use) lru = k;
            entry_free(&s->e[lru]);
            s->st.evictions++;
            s->e[lru] = s->e[--s->n];
        }
        g_shape *sig = malloc((size_t)m->n_in * sizeof *sig);
        if (!sig) return 0;
        for (int i = 0; i < m->n_in; i++) sig[i] = in[i].shape;
        e = &s->e[s->n++];
        memset(e, 0, sizeof *e);
        e->sig = sig;
        build_prog(m, in, e);
        s->st.builds++;
        acl_log(1, "shape cache: %s for new input shapes (%d of %d entries)",
                e->prog ? "static program built" : "model stays dynamic", s->n, s->cap);
    } else {
        s->st.hits++;
    }
    e->last_use = ++s->clock;
    if (!e->prog) { s->st.dynamic_runs++; return 0; }
    *handled = 1;
    if (!e->work && !(e->work = eng_alloc64(e->prog->work_size)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model execute: cannot allocate %zu bytes of work memory",
                        e->prog->work_size);
    /* the model's dump covers the programs it runs */
    return eng_program_run(e->prog, s->threads, m->dump, e->work, in, out, alloc, actx);
}

void eng_shapes_get_stats(const eng_model *m, eng_shapes_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!m || !m->shapes) return;
    *st = m->shapes->st;
    st->capacity = m->shapes->cap;
    for (int k = 0; k < m->shapes->n; k++) st->programs += m->shapes->e[k].prog != NULL;
}
