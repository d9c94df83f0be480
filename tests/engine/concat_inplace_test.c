/* Concat in place (graph/plan.h): the planner puts a Concat's inputs inside
 * its output's buffer when they are contiguous slices of it.
 * Planner part, on hand-built graphs: which inputs are placed (odd cases:
 * an input read again later, one feeding two Concats, a graph output, slices
 * off a 64-byte boundary, N=2, a nested Concat, in-place requests over a
 * placed input, a Concat of 50 000 inputs), that the plan check accepts
 * such plans and refuses one with a placed input moved over a live tensor,
 * and the off switch. Model part, on make_concat_nets.py's models: outputs against numpy
 * references, identical with and without (OPENACL_NO_CONCAT_INPLACE=1), the
 * count of placed inputs, a dynamic-shape model (batch 1 and 2: the shape
 * cache plans a static program for each), and compiled models (one
 * recorded with placement, one recorded without, as an older build did).
 * usage: concat_inplace_test <dir of make_concat_nets.py> */
#include "onnx_testdata.h"
#include "engine/eng_priv.h"
#include "engine/engine.h"
#include "graph/plan.h"
#include "../common/oa_check.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------- planner, hand-built graphs ---------------- */

static int act(g_graph *g, const char *name, int c, int h, int w, int n)
{
    int t = g_tensor_add(g, name);
    g->t[t].kind = G_TK_ACT;
    g->t[t].dtype = G_F32;
    g->t[t].shape = (g_shape){ .rank = 4, .d = { n, c, h, w } };
    return t;
}

static int in_t(g_graph *g, const char *name, int c, int h, int w, int n)
{
    int t = act(g, name, c, h, w, n);
    g->t[t].kind = G_TK_INPUT;
    g->inputs = realloc(g->inputs, (size_t)(g->n_inputs + 1) * sizeof(int));
    g->inputs[g->n_inputs++] = t;
    return t;
}

static void out_t(g_graph *g, int t)
{
    g->outputs = realloc(g->outputs, (size_t)(g->n_outputs + 1) * sizeof(int));
    g->outputs[g->n_outputs++] = t;
    g->t[t].is_output = 1;
}

static int node1(g_graph *g, const char *op, int n_in, const int *in, int out)
{
    return g_node_add(g, op, "", op, n_in, in, 1, &out);
}

static int concat(g_graph *g, int n_in, const int *in, int out, int axis)
{
    int i = node1(g, "Concat", n_in, in, out);
    g_node *n = &g->nodes[i];
    n->attr = calloc(1, sizeof *n->attr);
    n->attr[0].name = strdup("axis");
    n->attr[0].type = G_AT_INT;
    n->attr[0].i = axis;
    n->n_attr = 1;
    return i;
}

/* Whether input k of Concat node ni lies at its slice of the output. */
static int placed(const g_graph *g, int ni, int k)
{
    const g_node *n = &g->nodes[ni];
    size_t off[64];
    if (n->n_in > 64 || !plan_concat_slices(g, n, off) || off[k] == (size_t)-1) return 0;
    return g->t[n->in[k]].mem_offset >= 0 && g->t[n->in[k]].mem_offset == g->t[n->out[0]].mem_offset + (int64_t)off[k];
}

static int plan_and_check(g_graph *g, const int *inplace, size_t *arena)
{
    int rc = plan_graph_inplace(g, NULL, inplace, NULL, arena);
    CHECK(rc == 0, "plans: %d", rc);
    if (rc) return 0;
    int64_t *off = malloc((size_t)g->n_t * sizeof *off);
    for (int t = 0; t < g->n_t; t++) off[t] = g->t[t].mem_offset;
    int ok = plan_graph_check(g, off, NULL, NULL, inplace, *arena);
    free(off);
    CHECK(ok, "the plan check accepts the planner's own plan");
    return ok;
}

/* x -> a, b, e, o (graph output), p5/q5 (5 channels of 3x3);
 * c1 = Concat(a, b); d = Relu(a) after it; c2 = Concat(e, a2) and
 * c3 = Concat(k, e); c4 = Concat(o, s); c5 = Concat(p5, q5, r5);
 * c6 = Concat(m1, m2) with N=2; c7 = Concat(c1, f) nested. */
static void test_cases(void)
{
    g_graph *g = g_graph_new();
    int x = in_t(g, "x", 16, 4, 4, 1), x5 = in_t(g, "x5", 5, 3, 3, 1), x2 = in_t(g, "x2", 8, 2, 2, 2);
    int a = act(g, "a", 16, 4, 4, 1), b = act(g, "b", 16, 4, 4, 1), c1 = act(g, "c1", 32, 4, 4, 1);
    int d = act(g, "d", 16, 4, 4, 1), e = act(g, "e", 16, 4, 4, 1), a2 = act(g, "a2", 16, 4, 4, 1);
    int k = act(g, "k", 16, 4, 4, 1), c2 = act(g, "c2", 32, 4, 4, 1), c3 = act(g, "c3", 32, 4, 4, 1);
    int o = act(g, "o", 16, 4, 4, 1), s = act(g, "s", 16, 4, 4, 1), c4 = act(g, "c4", 32, 4, 4, 1);
    int p5 = act(g, "p5", 5, 3, 3, 1), q5 = act(g, "q5", 5, 3, 3, 1), r5 = act(g, "r5", 5, 3, 3, 1);
    int c5 = act(g, "c5", 15, 3, 3, 1);
    int m1 = act(g, "m1", 8, 2, 2, 2), m2 = act(g, "m2", 8, 2, 2, 2), c6 = act(g, "c6", 16, 2, 2, 2);
    int f = act(g, "f", 16, 4, 4, 1), c7 = act(g, "c7", 48, 4, 4, 1);
    int sum = act(g, "sum", 32, 4, 4, 1);
    out_t(g, o);
    node1(g, "Relu", 1, &x, a);
    node1(g, "Neg", 1, &x, b);
    int n_c1 = concat(g, 2, (int[]){ a, b }, c1, 1);
    node1(g, "Relu", 1, &a, d);                      /* a read again after c1 */
    node1(g, "Tanh", 1, &x, e);
    node1(g, "Abs", 1, &d, a2);
    int n_c2 = concat(g, 2, (int[]){ e, a2 }, c2, 1);
    node1(g, "Exp", 1, &x, k);
    int n_c3 = concat(g, 2, (int[]){ k, e }, c3, -3); /* e is in c2 already */
    node1(g, "Sin", 1, &x, o);
    node1(g, "Cos", 1, &x, s);
    int n_c4 = concat(g, 2, (int[]){ o, s }, c4, 1);
    node1(g, "Relu", 1, &x5, p5);
    node1(g, "Neg", 1, &x5, q5);
    node1(g, "Abs", 1, &x5, r5);
    int n_c5 = concat(g, 3, (int[]){ p5, q5, r5 }, c5, 1);
    node1(g, "Relu", 1, &x2, m1);
    node1(g, "Neg", 1, &x2, m2);
    int n_c6 = concat(g, 2, (int[]){ m1, m2 }, c6, 1);
    node1(g, "Sqrt", 1, &x, f);
    int n_c7 = concat(g, 2, (int[]){ c1, f }, c7, 1);
    node1(g, "Add", 2, (int[]){ c2, c3 }, sum);
    int fin[5] = { sum, c4, c5, c6, c7 };
    for (int i = 0; i < 5; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "y%d", i);
        int y = g_tensor_add(g, nm);
        g->t[y].kind = G_TK_ACT;
        g->t[y].dtype = G_F32;
        g->t[y].shape = g->t[fin[i]].shape;
        node1(g, "Neg", 1, &fin[i], y);
        out_t(g, y);
    }
    size_t arena = 0;
    unsetenv("OPENACL_NO_CONCAT_INPLACE");
    if (plan_and_check(g, NULL, &arena)) {
        CHECK(placed(g, n_c1, 0) && placed(g, n_c1, 1), "c1: both inputs placed (a is read again later)");
        CHECK(placed(g, n_c2, 0) && placed(g, n_c2, 1), "c2: both inputs placed");
        CHECK(placed(g, n_c3, 0) && !placed(g, n_c3, 1), "c3: k placed, e (in c2) not");
        CHECK(!placed(g, n_c4, 0) && placed(g, n_c4, 1), "c4: the graph output is not placed, s is");
        CHECK(placed(g, n_c5, 0) && !placed(g, n_c5, 1) && !placed(g, n_c5, 2),
              "c5: only the slice on a 64-byte boundary is placed");
        CHECK(!placed(g, n_c6, 0) && !placed(g, n_c6, 1), "c6 (N=2, axis 1): nothing placed");
        CHECK(placed(g, n_c7, 0) && placed(g, n_c7, 1) && g->t[a].mem_offset == g->t[c7].mem_offset,
              "c7: c1 (with a and b inside it) is placed in c7");
        /* a's buffer (inside c7's) outlives d's producer: no other tensor may share it */
        CHECK(g->t[d].mem_offset + 1024 <= g->t[c7].mem_offset || g->t[d].mem_offset >= g->t[c7].mem_offset + 3072,
              "d does not overlap the buffer a lives in");
        /* a moved out of its slice onto d's bytes while both live: refused */
        int64_t *off = malloc((size_t)g->n_t * sizeof *off);
        for (int t = 0; t < g->n_t; t++) off[t] = g->t[t].mem_offset;
        off[a] = off[d];
        CHECK(!plan_graph_check(g, off, NULL, NULL, NULL, arena), "a plan putting a over d is refused");
        free(off);
    }
    size_t arena_on = arena;
    setenv("OPENACL_NO_CONCAT_INPLACE", "1", 1);
    if (plan_and_check(g, NULL, &arena)) {
        CHECK(!placed(g, n_c1, 0) && !placed(g, n_c2, 0) && !placed(g, n_c7, 0), "off: nothing placed");
        printf("planner: arena %zu bytes with concat in place, %zu without\n", arena_on, arena);
        CHECK(arena_on <= arena, "placing saves memory here (%zu vs %zu)", arena_on, arena);
    }
    unsetenv("OPENACL_NO_CONCAT_INPLACE");
    g_graph_free(g);
}

/* In-place requests (k_op.inplace) over placed inputs: r1 = F(a) in place
 * over a while c = Concat(a, b) is still read later: refused; r2 = F(b) in
 * place over b once c and b are dead: granted, at b's slice. */
static void test_inplace(void)
{
    g_graph *g = g_graph_new();
    int x = in_t(g, "x", 16, 4, 4, 1);
    int a = act(g, "a", 16, 4, 4, 1), b = act(g, "b", 16, 4, 4, 1), c = act(g, "c", 32, 4, 4, 1);
    int r1 = act(g, "r1", 16, 4, 4, 1), y1 = act(g, "y1", 32, 4, 4, 1), r2 = act(g, "r2", 16, 4, 4, 1);
    int y2 = act(g, "y2", 16, 4, 4, 1), y3 = act(g, "y3", 16, 4, 4, 1);
    node1(g, "Relu", 1, &x, a);
    node1(g, "Neg", 1, &x, b);
    int nc = concat(g, 2, (int[]){ a, b }, c, 1);
    int n1 = node1(g, "Abs", 1, &a, r1);   /* asks for a: c is read below */
    node1(g, "Neg", 1, &c, y1);
    int n2 = node1(g, "Abs", 1, &b, r2);   /* asks for b: c, b dead after it */
    node1(g, "Neg", 1, &r1, y2);
    node1(g, "Neg", 1, &r2, y3);
    out_t(g, y1);
    out_t(g, y2);
    out_t(g, y3);
    int inplace[16];
    for (int i = 0; i < 16; i++) inplace[i] = -1;
    inplace[n1] = 0;
    inplace[n2] = 0;
    size_t arena;
    if (plan_and_check(g, inplace, &arena)) {
        CHECK(placed(g, nc, 0) && placed(g, nc, 1), "both inputs placed");
        CHECK(g->t[r1].mem_offset != g->t[a].mem_offset, "r1 not granted a's slice while c lives");
        CHECK(g->t[r2].mem_offset == g->t[b].mem_offset, "r2 granted b's slice once c is dead");
        /* r1's own buffer must not overlap c's, which y1 still reads */
        int64_t c0 = g->t[c].mem_offset, c1e = c0 + 2048, p = g->t[r1].mem_offset;
        CHECK(p + 1024 <= c0 || p >= c1e, "r1 does not overlap c");
    }
    g_graph_free(g);
}

/* A Concat of 50 000 inputs (each a [1,16] float row, 64 bytes): planning
 * stays linear in the inputs (each is looked at once) and all are placed. */
static void test_wide(void)
{
    enum { K = 50000 };
    g_graph *g = g_graph_new();
    int x = g_tensor_add(g, "x");
    g->t[x].kind = G_TK_INPUT;
    g->t[x].dtype = G_F32;
    g->t[x].shape = (g_shape){ .rank = 2, .d = { 1, 16 } };
    g->inputs = malloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    int *parts = malloc(K * sizeof *parts);
    char nm[32];
    for (int i = 0; i < K; i++) {
        snprintf(nm, sizeof nm, "p%d", i);
        parts[i] = g_tensor_add(g, nm);
        g->t[parts[i]].kind = G_TK_ACT;
        g->t[parts[i]].dtype = G_F32;
        g->t[parts[i]].shape = g->t[x].shape;
        node1(g, "Relu", 1, &x, parts[i]);
    }
    int c = g_tensor_add(g, "c"), y = g_tensor_add(g, "y");
    g->t[c].kind = g->t[y].kind = G_TK_ACT;
    g->t[c].dtype = g->t[y].dtype = G_F32;
    g->t[c].shape = g->t[y].shape = (g_shape){ .rank = 2, .d = { 1, 16 * (int64_t)K } };
    int nc = concat(g, K, parts, c, 1);
    node1(g, "Neg", 1, &c, y);
    out_t(g, y);
    size_t arena;
    double t0 = now_s();
    int rc = plan_graph(g, NULL, NULL, &arena);
    double dt = now_s() - t0;
    CHECK(rc == 0, "wide concat plans: %d", rc);
    int all = 1;
    for (int k = 0; k < K && !rc; k++) all &= g->t[parts[k]].mem_offset == g->t[c].mem_offset + 64 * (int64_t)k;
    CHECK(!rc && all && g->nodes[nc].n_in == K, "every one of the %d inputs is placed", K);
    CHECK(arena == (size_t)K * 64, "the arena is the Concat's output alone: %zu", arena);
    printf("wide concat: %d inputs planned in %.3f s, arena %zu bytes\n", K, dt, arena);
    CHECK(dt < 5.0, "planning took %.1f s", dt);
    free(parts);
    g_graph_free(g);
}

/* ---------------- models ---------------- */

static void *read_file(const char *path, size_t *len)
{
    void *b = NULL;
    if (otd_read_file(path, &b, len) != 0) return NULL;
    return b;
}

#define MAXIO 16
typedef struct meta {
    int n_in, n_out, placed;
    g_shape in_shape[MAXIO];
    float *in[MAXIO], *ref[MAXIO];
    size_t ref_n[MAXIO];
} meta;

static int meta_read(const char *dir, const char *model, meta *m)
{
    char p[1024];
    memset(m, 0, sizeof *m);
    snprintf(p, sizeof p, "%s/%s.meta", dir, model);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    int ok = fscanf(f, " inputs %d", &m->n_in) == 1 && m->n_in > 0 && m->n_in <= MAXIO;
    for (int i = 0; ok && i < m->n_in; i++) {
        ok = fscanf(f, " %d", &m->in_shape[i].rank) == 1;
        for (int d = 0; ok && d < m->in_shape[i].rank; d++) {
            long long v;
            ok = fscanf(f, " %lld", &v) == 1;
            m->in_shape[i].d[d] = v;
        }
    }
    ok = ok && fscanf(f, " outputs %d placed %d", &m->n_out, &m->placed) == 2 && m->n_out <= MAXIO;
    fclose(f);
    for (int i = 0; ok && i < m->n_in; i++) {
        size_t len;
        snprintf(p, sizeof p, "%s/%s.in%d.bin", dir, model, i);
        ok = (m->in[i] = read_file(p, &len)) != NULL;
    }
    for (int i = 0; ok && i < m->n_out; i++) {
        snprintf(p, sizeof p, "%s/%s.out%d.bin", dir, model, i);
        ok = (m->ref[i] = read_file(p, &m->ref_n[i])) != NULL;
        m->ref_n[i] /= sizeof(float);
    }
    return ok ? 0 : -1;
}

static void meta_free(meta *m)
{
    for (int i = 0; i < MAXIO; i++) { free(m->in[i]); free(m->ref[i]); }
}

/* Placed Concat inputs in a loaded static model's plan. */
static int count_placed(const eng_model *em)
{
    if (!em->prog || !em->prog->g || !em->prog->steps) return -1;
    const g_graph *g = em->prog->g;
    int c = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++) c += placed(g, i, k);
    return c;
}

static void *alloc_out(void *ctx, size_t n) { (void)ctx; return malloc(n ? n : 1); }

/* Loads (ONNX or compiled) and runs the model; outputs into outs[]. */
static int run(const void *buf, size_t len, const meta *mt, int compiled, float **outs, int *n_placed,
               int *from_image)
{
    eng_model *m = NULL;
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    int rc = compiled ? eng_load_compiled("concat_inplace_test", "image", buf, len, &o, &m)
                      : eng_load(buf, len, &o, &m);
    if (!rc && compiled) rc = eng_bind_weights(m, NULL);
    if (rc) { eng_free(m); return rc; }
    *n_placed = count_placed(m);
    if (from_image) *from_image = compiled ? eng_plan_from_image(m) : 0;
    k_tensor in[MAXIO], out[MAXIO];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int i = 0; i < mt->n_in; i++) {
        in[i].dtype = G_F32;
        in[i].shape = mt->in_shape[i];
        in[i].nbytes = k_nbytes(&in[i]);
        in[i].data = mt->in[i];
    }
    for (int i = 0; i < mt->n_out; i++) out[i].dtype = G_F32;
    rc = eng_run(m, NULL, in, mt->n_in, out, mt->n_out, alloc_out, NULL);
    for (int i = 0; i < mt->n_out; i++) {
        if (!rc && out[i].nbytes != mt->ref_n[i] * sizeof(float)) rc = -1;
        outs[i] = out[i].data;
    }
    eng_free(m);
    return rc;
}

/* want: the placed inputs expected with the switch on (-1: not checked;
 * an image recorded without placement may be used as it is or planned
 * again, so either count) */
static void check_model(const char *dir, const char *model, const char *file, int compiled, int plain, int want)
{
    meta mt;
    char p[1024];
    size_t len;
    CHECK(meta_read(dir, model, &mt) == 0, "%s: cannot read its meta or data", model);
    snprintf(p, sizeof p, "%s/%s", dir, file);
    void *buf = read_file(p, &len);
    CHECK(buf != NULL, "cannot read %s", p);
    if (!buf) { meta_free(&mt); return; }
    if (plain) setenv("OPENACL_NO_LAYOUT", "1", 1);
    float *on[MAXIO] = { 0 }, *off[MAXIO] = { 0 };
    int p_on = -1, p_off = -1, img_on = 0, img_off = 0;
    unsetenv("OPENACL_NO_CONCAT_INPLACE");
    int rc1 = run(buf, len, &mt, compiled, on, &p_on, &img_on);
    setenv("OPENACL_NO_CONCAT_INPLACE", "1", 1);
    int rc2 = run(buf, len, &mt, compiled, off, &p_off, &img_off);
    unsetenv("OPENACL_NO_CONCAT_INPLACE");
    unsetenv("OPENACL_NO_LAYOUT");
    CHECK(rc1 == 0 && rc2 == 0, "%s: runs failed (%d, %d)", file, rc1, rc2);
    printf("%s%s: %d Concat inputs placed (%d with the switch off)%s\n", file, plain ? " (plain layouts)" : "",
           p_on, p_off, compiled ? (img_on ? ", recorded plan used" : ", planned again at load") : "");
    if (want >= 0) {
        CHECK(p_on == want, "%s: %d inputs placed, want %d", file, p_on, want);
        CHECK(p_off == 0, "%s: %d inputs placed with OPENACL_NO_CONCAT_INPLACE=1", file, p_off);
    }
    if (compiled && want > 0) CHECK(img_on, "%s: the recorded plan is used", file);
    if (compiled && want < 0) CHECK(p_on == 0 || p_on == mt.placed, "%s: %d placed, want 0 or %d", file, p_on, mt.placed);
    for (int i = 0; !rc1 && !rc2 && i < mt.n_out; i++) {
        double worst = 0;
        for (size_t j = 0; j < mt.ref_n[i]; j++) {
            double e = fabs((double)on[i][j] - mt.ref[i][j]) / (1e-4 + 1e-4 * fabs(mt.ref[i][j]));
            if (!(e <= worst)) worst = e;
        }
        CHECK(worst <= 1, "%s output %d: %.3g x tolerance from numpy", file, i, worst);
        CHECK(!memcmp(on[i], off[i], mt.ref_n[i] * sizeof(float)), "%s output %d differs with the switch off",
              file, i);
    }
    for (int i = 0; i < MAXIO; i++) { free(on[i]); free(off[i]); }
    free(buf);
    meta_free(&mt);
}

int main(int argc, char **argv)
{
    test_cases();
    test_inplace();
    test_wide();
    if (argc > 1) {
        const char *d = argv[1];
        meta m;
        int want_odd = meta_read(d, "cat_odd", &m) ? 0 : m.placed, want_conv;
        meta_free(&m);
        want_conv = meta_read(d, "cat_conv", &m) ? 0 : m.placed;
        meta_free(&m);
        check_model(d, "cat_odd", "cat_odd.onnx", 0, 0, want_odd);
        check_model(d, "cat_conv", "cat_conv.onnx", 0, 1, want_conv);
        /* channels-last: the slices are strided, nothing is placed */
        check_model(d, "cat_conv", "cat_conv.onnx", 0, 0, 0);
        check_model(d, "cat_dyn", "cat_dyn.onnx", 0, 0, -1);
        check_model(d, "cat_dyn_b2", "cat_dyn.onnx", 0, 0, -1);
        check_model(d, "cat_odd", "cat_odd.om", 1, 0, want_odd);
        check_model(d, "cat_conv", "cat_conv.om", 1, 1, want_conv);
        check_model(d, "cat_odd", "cat_odd_old.om", 1, 0, -1);
    }
    if (oa_failures) { printf("%d failures\n", oa_failures); return 1; }
    printf("all passed\n");
    return 0;
}
