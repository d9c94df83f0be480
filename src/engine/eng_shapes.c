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
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

#define SHAPES_DEFAULT 4
#define SHAPES_MAX 64

typedef struct shape_entry {
    g_shape *sig;             /* n_in shapes */
    eng_model *prog;          /* NULL: the model stays dynamic for these shapes */
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

void eng_shapes_free(eng_model *m)
{
    eng_shapes *s = m ? m->shapes : NULL;
    if (!s) return;
    for (int i = 0; i < s->n; i++) { eng_free(s->e[i].prog); free(s->e[i].sig); }
    free(s->e); free(s->src); free(s->base_dir); free(s);
    m->shapes = NULL;
}

static int sig_match(const shape_entry *e, const k_tensor *in, int n)
{
    for (int i = 0; i < n; i++)
        if (!g_shape_eq(&e->sig[i], &in[i].shape)) return 0;
    return 1;
}

/* Loads the model with the inputs fixed to these shapes; NULL when that
 * fails or leaves it dynamic. */
static eng_model *build_prog(eng_model *m, const k_tensor *in)
{
    eng_shapes *s = m->shapes;
    const char **names = calloc((size_t)m->n_in, sizeof *names);
    g_shape *shapes = calloc((size_t)m->n_in, sizeof *shapes);
    eng_model *p = NULL;
    if (names && shapes) {
        for (int i = 0; i < m->n_in; i++) { names[i] = m->ins[i].name; shapes[i] = in[i].shape; }
        eng_opts o = { .threads = s->threads, .base_dir = s->base_dir, .n_fix = m->n_in,
                       .fix_names = names, .fix_shapes = shapes, .precision = s->precision };
        int quiet = acl_err_quiet(1);   /* a failure here only means: stay dynamic */
        int rc = eng_load_fixed(s->src, s->len, &o, &p);
        acl_err_quiet(quiet);
        if (!rc && !eng_is_static(p)) { eng_free(p); p = NULL; }
        else if (rc) {
            acl_log(1, "shape cache: the model does not load with its inputs fixed (error %d); "
                    "these shapes run on the dynamic path", rc);
            p = NULL;
        }
    }
    free(names); free(shapes);
    return p;
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
            eng_free(s->e[lru].prog);
            free(s->e[lru].sig);
            s->st.evictions++;
            s->e[lru] = s->e[--s->n];
        }
        g_shape *sig = malloc((size_t)m->n_in * sizeof *sig);
        if (!sig) return 0;
        for (int i = 0; i < m->n_in; i++) sig[i] = in[i].shape;
        e = &s->e[s->n++];
        e->sig = sig;
        e->prog = build_prog(m, in);
        s->st.builds++;
        acl_log(1, "shape cache: %s for new input shapes (%d of %d entries)",
                e->prog ? "static program built" : "model stays dynamic", s->n, s->cap);
    } else {
        s->st.hits++;
    }
    e->last_use = ++s->clock;
    if (!e->prog) { s->st.dynamic_runs++; return 0; }
    *handled = 1;
    e->prog->dump = m->dump;   /* the model's dump (not owned) covers its programs */
    return eng_run(e->prog, NULL, in, m->n_in, out, m->n_out, alloc, actx);
}

void eng_shapes_get_stats(const eng_model *m, eng_shapes_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!m || !m->shapes) return;
    *st = m->shapes->st;
    st->capacity = m->shapes->cap;
    for (int k = 0; k < m->shapes->n; k++) st->programs += m->shapes->e[k].prog != NULL;
}
