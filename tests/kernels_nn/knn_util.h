/* Test helpers for the NN kernel tests: hand-built graphs, attributes, a
 * kernel driver with guard bytes after every buffer, and comparison. */
#ifndef KNN_UTIL_H
#define KNN_UTIL_H
#include "../common/oa_check.h"
#include "graph/ir.h"
#include "kernels/kernel.h"
#include "kernels/ref/nn_common.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
#define GUARD_BYTE 0xA5


static uint64_t knn_rng = 0x9E3779B97F4A7C15ull;
static inline uint32_t rnd(void)
{
    knn_rng ^= knn_rng << 13; knn_rng ^= knn_rng >> 7; knn_rng ^= knn_rng << 17;
    return (uint32_t)(knn_rng >> 11);
}
static inline int rndi(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static inline float rndf(void) { return (float)(rnd() % 2000001) / 1000000.f - 1.f; }

static inline g_shape shp(int rank, const int64_t *d)
{
    g_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    for (int i = 0; i < rank; i++) s.d[i] = d[i];
    return s;
}

static inline char *knn_dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

/* tensor: kind G_TK_INPUT / G_TK_ACT / G_TK_CONST (data copied) */
static inline int tadd(g_graph *g, const char *name, int kind, int dtype, g_shape s, const void *data)
{
    int t = g_tensor_add(g, name);
    g->t[t].kind = kind;
    g->t[t].dtype = dtype;
    g->t[t].shape = s;
    if (kind == G_TK_CONST) {
        size_t nb = (size_t)g_shape_numel(&s) * g_dtype_size(dtype);
        g->t[t].data = malloc(nb ? nb : 1);
        if (nb) memcpy(g->t[t].data, data, nb);
        g->t[t].nbytes = nb;
    }
    if (kind == G_TK_INPUT) {
        g->inputs = realloc(g->inputs, (size_t)(g->n_inputs + 1) * sizeof(int));
        g->inputs[g->n_inputs++] = t;
    }
    return t;
}

static inline void mark_output(g_graph *g, int t)
{
    g->outputs = realloc(g->outputs, (size_t)(g->n_outputs + 1) * sizeof(int));
    g->outputs[g->n_outputs++] = t;
    g->t[t].is_output = 1;
}

static inline g_attr *attr_new(g_node *n, const char *name, int type)
{
    n->attr = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof(g_attr));
    g_attr *a = &n->attr[n->n_attr++];
    memset(a, 0, sizeof *a);
    a->name = knn_dup(name);
    a->type = type;
    return a;
}

static inline void attr_ints(g_node *n, const char *name, const int64_t *v, int cnt)
{
    g_attr *a = attr_new(n, name, G_AT_INTS);
    a->n = cnt;
    a->ints = malloc((size_t)(cnt ? cnt : 1) * sizeof(int64_t));
    memcpy(a->ints, v, (size_t)cnt * sizeof(int64_t));
}

static inline void attr_floats(g_node *n, const char *name, const float *v, int cnt)
{
    g_attr *a = attr_new(n, name, G_AT_FLOATS);
    a->n = cnt;
    a->floats = malloc((size_t)(cnt ? cnt : 1) * sizeof(float));
    memcpy(a->floats, v, (size_t)cnt * sizeof(float));
}

static inline void attr_int(g_node *n, const char *name, int64_t v)
{
    attr_new(n, name, G_AT_INT)->i = v;
}

static inline void attr_float(g_node *n, const char *name, float v)
{
    attr_new(n, name, G_AT_FLOAT)->f = v;
}

static inline void attr_str(g_node *n, const char *name, const char *v)
{
    g_attr *a = attr_new(n, name, G_AT_STRING);
    a->s = knn_dup(v);
    a->slen = strlen(v);
}

static inline void *galloc(size_t n)
{
    unsigned char *p = aligned_alloc(64, (n + GUARD + 63) & ~(size_t)63);
    memset(p + n, GUARD_BYTE, GUARD);
    return p;
}

static inline int guard_ok(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p + n;
    for (int i = 0; i < GUARD; i++) if (c[i] != GUARD_BYTE) return 0;
    return 1;
}

static inline const k_op *find_impl(const g_node *n, const char *impl)
{
    const k_op *ops[8];
    int c = k_find(n->op_type, n->domain, n->opset, ops, 8);
    for (int i = 0; i < c; i++) if (!strcmp(ops[i]->impl, impl)) return ops[i];
    return NULL;
}

/* The implementation named impl the engine would bind to node ni: the
 * first of that name, best first, whose init() takes the node (several
 * implementations may share a backend's name, each declining what it does
 * not handle). NULL when none takes it. */
static inline const k_op *accepting_impl(g_graph *g, int ni, const char *impl)
{
    g_node *n = &g->nodes[ni];
    const k_op *ops[8];
    int c = k_find(n->op_type, n->domain, n->opset, ops, 8);
    for (int i = 0; i < c; i++) {
        if (strcmp(ops[i]->impl, impl)) continue;
        void *st = NULL;
        int r = ops[i]->init(g, n, &st);
        if (st && ops[i]->fini) ops[i]->fini(st);
        if (r != K_DECLINE) return ops[i];
    }
    return NULL;
}

/* Runs one kernel on node ni. in[] carries data (layouts set); out[0..n_out)
 * get freshly allocated buffers with guards (caller frees). Returns the
 * kernel's status, K_DECLINE, or -100 for a guard overrun. reruns: extra
 * runs whose outputs must equal the first. */
static inline int drive(const k_op *op, g_graph *g, int ni, const k_tensor *in, k_tensor *out, int reruns)
{
    g_node *n = &g->nodes[ni];
    void *st = NULL;
    int r = op->init(g, n, &st);
    if (r) return r;
    for (int j = 0; j < n->n_out; j++) { memset(&out[j], 0, sizeof out[j]); out[j].shape.rank = -1; }
    r = op->infer ? op->infer(n, st, in, out) : 0;
    if (r) { if (op->fini) op->fini(st); return r; }
    size_t pb = 0, sb = 0;
    if (op->plan && (r = op->plan(n, st, in, out, &pb, &sb))) { if (op->fini) op->fini(st); return r; }
    void *packed = pb ? galloc(pb) : NULL, *scratch = sb ? galloc(sb) : NULL;
    if (pb && op->pack && (r = op->pack(n, st, in, out, packed))) goto done;
    for (int j = 0; j < n->n_out; j++) {
        if (n->out[j] < 0) continue;
        out[j].nbytes = k_nbytes(&out[j]);
        out[j].data = galloc(out[j].nbytes);
        memset(out[j].data, 0x7f, out[j].nbytes);   /* NaN-ish fill: unwritten values show */
    }
    k_ctx ctx = { .threads = omp_get_max_threads(), .scratch = scratch, .scratch_bytes = sb };
    r = op->run(n, st, in, out, &ctx);
    for (int j = 0; j < n->n_out && !r; j++)
        if (out[j].data && !guard_ok(out[j].data, out[j].nbytes)) r = -100;
    for (int k = 0; k < reruns && !r; k++) {
        void *save = malloc(out[0].nbytes + 1);
        memcpy(save, out[0].data, out[0].nbytes);
        r = op->run(n, st, in, out, &ctx);
        if (!r && memcmp(save, out[0].data, out[0].nbytes)) r = -101;
        free(save);
    }
    if (!r && packed && !guard_ok(packed, pb)) r = -100;
    if (!r && scratch && !guard_ok(scratch, sb)) r = -100;
done:
    if (op->fini) op->fini(st);
    free(packed);
    free(scratch);
    return r;
}

/* max |a-b| / (atol + rtol*|b|) over logical elements */
static inline double cmp_f32(const float *a, const float *b, size_t n, double atol, double rtol, size_t *at)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = a[i] == b[i] ? 0.0 : fabs((double)a[i] - b[i]);   /* equal infinities match */
        if (isnan(a[i]) != isnan(b[i]) || (isnan(d) && !(isnan(a[i]) && isnan(b[i])))) d = INFINITY;
        if (isnan(a[i]) && isnan(b[i])) d = 0.0;
        double e = d / (atol + rtol * fabs((double)b[i]));
        if (!(e <= worst)) { worst = e; if (at) *at = i; }
    }
    return worst;
}

/* Physical buffer of a logical NCHW float tensor in `layout`. */
static inline float *to_layout(const float *x, const g_shape *s, int layout)
{
    size_t n = (size_t)g_shape_numel(s);
    float *y = malloc(n * sizeof(float) + 1);
    nn_reorder_bytes(x, G_LAYOUT_PLAIN, y, layout, s, sizeof(float));
    return y;
}

static inline float *from_layout(const float *x, const g_shape *s, int layout)
{
    size_t n = (size_t)g_shape_numel(s);
    float *y = malloc(n * sizeof(float) + 1);
    nn_reorder_bytes(x, layout, y, G_LAYOUT_PLAIN, s, sizeof(float));
    return y;
}

static inline float *rand_buf(size_t n)
{
    float *p = malloc(n * sizeof(float) + 1);
    for (size_t i = 0; i < n; i++) p[i] = rndf();
    return p;
}

#endif
