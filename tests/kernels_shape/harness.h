/* Test harness shared by the kernels_shape tests: builds a one-node graph
 * around hand-made k_tensors and attributes, then drives a registered kernel
 * through init -> infer -> plan -> run with guard bytes after every output. */
#ifndef KSH_TEST_HARNESS_H
#define KSH_TEST_HARNESS_H
#include "graph/ir.h"
#include "kernels/kernel.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int harness_go_on;   /* after a K_NEED_DATA load-time infer, run anyway */

typedef struct attr {
    const char *name;
    int type;                 /* G_AT_* */
    int64_t i;
    float f;
    const char *s;
    int n;
    const int64_t *ints;
    const float *floats;
    const k_tensor *t;        /* G_AT_TENSOR */
} attr;

#define A_INT(nm, v) {.name = nm, .type = G_AT_INT, .i = (v)}
#define A_FLOAT(nm, v) {.name = nm, .type = G_AT_FLOAT, .f = (v)}
#define A_STR(nm, v) {.name = nm, .type = G_AT_STRING, .s = (v)}
#define A_INTS(nm, arr) {.name = nm, .type = G_AT_INTS, .n = (int)(sizeof(arr) / sizeof((arr)[0])), .ints = (arr)}
#define A_FLOATS(nm, arr) {.name = nm, .type = G_AT_FLOATS, .n = (int)(sizeof(arr) / sizeof((arr)[0])), .floats = (arr)}

static k_tensor T(int dtype, int rank, const int64_t *dims, void *data)
{
    k_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.shape.rank = rank;
    for (int i = 0; i < rank; i++) t.shape.d[i] = dims[i];
    t.data = data;
    int64_t n = g_shape_numel(&t.shape);
    t.nbytes = n > 0 ? (size_t)n * g_dtype_size(dtype) : 0;
    return t;
}
static const k_tensor NONE = {.dtype = G_UNDEF, .shape = {.rank = -1}};

static char *dupstr(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

typedef struct run_res {
    int rc;                  /* 0, or the failing stage's code */
    const char *stage;       /* "init", "infer", "run" */
    k_tensor out[4];
    int nout;
} run_res;

static void res_free(run_res *r)
{
    for (int i = 0; i < r->nout; i++) free(r->out[i].data);
}

/* Runs op on inputs: init -> infer (values known) -> run. `alias` makes the
 * output buffer the input 0 buffer (engine aliasing of view ops). */
static run_res run_op_ex(const char *op, int opset, int nin, const k_tensor *in, int nout,
                         int nattr, const attr *at, int alias, int infer_without_data)
{
    run_res r;
    memset(&r, 0, sizeof r);
    r.nout = nout;
    g_graph *g = g_graph_new();
    g->opset = opset;
    int tin[8], tout[4];
    for (int i = 0; i < nin; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        if (in[i].dtype == G_UNDEF) { tin[i] = -1; continue; }
        tin[i] = g_tensor_add(g, name);
        g->t[tin[i]].dtype = in[i].dtype;
        g->t[tin[i]].shape = in[i].shape;
        g->t[tin[i]].kind = G_TK_INPUT;
        g->t[tin[i]].layout = in[i].layout;
    }
    for (int i = 0; i < nout; i++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", i);
        tout[i] = g_tensor_add(g, name);
    }
    int ni = g_node_add(g, op, "", "test_node", nin, tin, nout, tout);
    g_node *n = &g->nodes[ni];
    n->attr = calloc((size_t)(nattr ? nattr : 1), sizeof(g_attr));
    n->n_attr = nattr;
    for (int i = 0; i < nattr; i++) {
        g_attr *a = &n->attr[i];
        a->name = dupstr(at[i].name);
        a->type = at[i].type;
        a->i = at[i].i;
        a->f = at[i].f;
        if (at[i].s) { a->s = dupstr(at[i].s); a->slen = strlen(at[i].s); }
        a->n = at[i].n;
        if (at[i].ints) { a->ints = malloc((size_t)at[i].n * 8); memcpy(a->ints, at[i].ints, (size_t)at[i].n * 8); }
        if (at[i].floats) { a->floats = malloc((size_t)at[i].n * 4); memcpy(a->floats, at[i].floats, (size_t)at[i].n * 4); }
        if (at[i].t) {
            a->t = calloc(1, sizeof(g_tensor));
            a->t->name = dupstr("value");
            a->t->dtype = at[i].t->dtype;
            a->t->shape = at[i].t->shape;
            a->t->kind = G_TK_CONST;
            a->t->nbytes = at[i].t->nbytes;
            a->t->data = malloc(a->t->nbytes + 1);
            memcpy(a->t->data, at[i].t->data, a->t->nbytes);
        }
    }
    const k_op *ops[8];
    int nops = k_find(op, "", opset, ops, 8);
    if (nops == 0) { r.rc = -100; r.stage = "find"; g_graph_free(g); return r; }
    const k_op *kop = NULL;
    void *st = NULL;
    int rc = K_DECLINE;
    for (int i = 0; i < nops && rc == K_DECLINE; i++) { kop = ops[i]; st = NULL; rc = kop->init(g, n, &st); }
    if (rc) { r.rc = rc; r.stage = "init"; g_graph_free(g); return r; }
    k_tensor kin[8], kout[4];
    memset(kout, 0, sizeof kout);
    for (int i = 0; i < nin; i++) kin[i] = in[i];
    if (infer_without_data) {
        k_tensor nd[8];
        for (int i = 0; i < nin; i++) { nd[i] = in[i]; nd[i].data = NULL; }
        rc = kop->infer(n, st, nd, kout);
        if (rc && !(rc == K_NEED_DATA && harness_go_on)) { r.rc = rc; r.stage = "infer-nodata"; if (kop->fini) kop->fini(st); g_graph_free(g); return r; }
        memset(kout, 0, sizeof kout);
    }
    rc = kop->infer(n, st, kin, kout);
    if (rc) { r.rc = rc; r.stage = "infer"; if (kop->fini) kop->fini(st); g_graph_free(g); return r; }
    size_t scratch = 0, packed = 0;
    if (kop->plan) kop->plan(n, st, kin, kout, &packed, &scratch);
    for (int i = 0; i < nout; i++) {
        int64_t k = g_shape_numel(&kout[i].shape);
        kout[i].nbytes = (size_t)(k > 0 ? k : 0) * g_dtype_size(kout[i].dtype);
        if (alias && i == 0) kout[i].data = in[0].data;
        else {
            kout[i].data = malloc(kout[i].nbytes + 32);
            memset(kout[i].data, 0x5A, kout[i].nbytes + 32);
        }
    }
    k_ctx ctx = {.threads = 2, .scratch = scratch ? malloc(scratch) : NULL, .scratch_bytes = scratch};
    rc = kop->run(n, st, kin, kout, &ctx);
    free(ctx.scratch);
    if (kop->fini) kop->fini(st);
    for (int i = 0; i < nout; i++) {
        if (!(alias && i == 0)) {
            unsigned char *gb = (unsigned char *)kout[i].data + kout[i].nbytes;
            for (int j = 0; j < 32; j++)
                if (gb[j] != 0x5A) { printf("FAIL %s: output %d written past its end\n", op, i); failures++; break; }
        }
        r.out[i] = kout[i];
        if (alias && i == 0) r.out[i].data = NULL;   /* not ours to free */
    }
    if (alias) r.out[0].data = NULL;
    if (rc) {
        r.rc = rc;
        r.stage = "run";
        res_free(&r);
        for (int i = 0; i < nout; i++) r.out[i].data = NULL;
    }
    g_graph_free(g);
    return r;
}

__attribute__((unused)) static run_res run_op(const char *op, int opset, int nin, const k_tensor *in, int nout, int nattr,
                      const attr *at)
{
    return run_op_ex(op, opset, nin, in, nout, nattr, at, 0, 0);
}

#endif
