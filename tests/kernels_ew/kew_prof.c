/* Developer tool: where a real model's time goes, per op type, with every
 * node run through the registry as imported (no fusion, no layout pass; a
 * file-order graph as exported). Shows which standalone kernels matter and
 * how fast they are (ns per output element).
 *
 * usage: kew_prof MODEL.onnx DATA_DIR [--runs N] [--threads T] [--wall]
 * Times are process CPU time unless --wall.
 * DATA_DIR holds input_<i>.npy for the graph inputs in order. */
#include "graph/ir.h"
#include "kernels/kernel.h"
#include "onnx/onnx_import.h"
#include "npy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *aclGetRecentErrMsg(void);

/* CPU time of the process: stable on a shared machine (threads add up) */
static int threads_cpu = 1;
static double now_us(void)
{
    struct timespec t;
    clock_gettime(threads_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int g_of_npy(int d)
{
    switch (d) {
    case NPY_FLOAT32: return G_F32;
    case NPY_FLOAT16: return G_F16;
    case NPY_INT8: return G_I8;
    case NPY_INT32: return G_I32;
    case NPY_UINT8: return G_U8;
    case NPY_INT16: return G_I16;
    case NPY_UINT16: return G_U16;
    case NPY_UINT32: return G_U32;
    case NPY_INT64: return G_I64;
    case NPY_UINT64: return G_U64;
    case NPY_FLOAT64: return G_F64;
    case NPY_BOOL: return G_BOOL;
    }
    return G_UNDEF;
}

typedef struct stat_row {
    const char *op;
    double us;
    double elems;
    int calls;
} stat_row;

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.onnx DATA_DIR [--runs N] [--threads T]\n", argv[0]);
        return 2;
    }
    int runs = 10, threads = 1;
    for (int i = 3; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--runs")) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[++i]);
    for (int i = 3; i < argc; i++)
        if (!strcmp(argv[i], "--wall")) threads_cpu = 0;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)len);
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) { fclose(f); return 2; }
    fclose(f);
    g_graph *g = NULL;
    if (onnx_import(buf, (size_t)len, NULL, &g)) {
        fprintf(stderr, "import: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    free(buf);
    k_tensor *val = calloc((size_t)g->n_t, sizeof *val);
    for (int i = 0; i < g->n_t; i++) {
        val[i].dtype = g->t[i].dtype;
        val[i].shape = g->t[i].shape;
        if (g->t[i].kind == G_TK_CONST) {
            val[i].data = g->t[i].data;
            val[i].nbytes = g->t[i].nbytes;
        }
    }
    for (int k = 0; k < g->n_inputs; k++) {
        char p[1024], err[256];
        npy_array a;
        snprintf(p, sizeof p, "%s/input_%d.npy", argv[2], k);
        if (npy_read(p, &a, err, sizeof err)) { fprintf(stderr, "%s: %s\n", p, err); return 1; }
        k_tensor *t = &val[g->inputs[k]];
        t->dtype = g_of_npy(a.dtype);
        t->shape.rank = a.ndim;
        for (int d = 0; d < a.ndim; d++) t->shape.d[d] = a.shape[d];
        t->data = a.data;
        t->nbytes = a.nbytes;
    }
    const k_op **ops = calloc((size_t)g->n_nodes, sizeof *ops);
    void **st = calloc((size_t)g->n_nodes, sizeof *st);
    double *tn = calloc((size_t)g->n_nodes, sizeof *tn);
    k_ctx ctx = { threads, NULL, 0 };
    for (int r = 0; r <= runs; r++) {
        for (int ni = 0; ni < g->n_nodes; ni++) {
            g_node *n = &g->nodes[ni];
            if (!ops[ni]) {
                const k_op *c[8];
                int nc = k_find(n->op_type, n->domain, n->opset, c, 8), rc = K_DECLINE;
                for (int i = 0; i < nc && rc == K_DECLINE; i++) {
                    rc = c[i]->init(g, n, &st[ni]);
                    if (!rc) ops[ni] = c[i];
                }
                if (!ops[ni]) {
                    fprintf(stderr, "node %s (%s): %s\n", n->name, n->op_type, aclGetRecentErrMsg());
                    return 1;
                }
            }
            k_tensor in[16], out[16];
            memset(in, 0, sizeof in);
            memset(out, 0, sizeof out);
            for (int i = 0; i < n->n_in && i < 16; i++)
                if (n->in[i] >= 0) in[i] = val[n->in[i]];
            if (ops[ni]->infer(n, st[ni], in, out)) {
                fprintf(stderr, "infer %s (%s): %s\n", n->name, n->op_type, aclGetRecentErrMsg());
                return 1;
            }
            for (int i = 0; i < n->n_out && i < 16; i++) {
                if (n->out[i] < 0) continue;
                g->t[n->out[i]].dtype = out[i].dtype;   /* later nodes' init reads it */
                g->t[n->out[i]].shape = out[i].shape;
                k_tensor *v = &val[n->out[i]];
                size_t nb = k_nbytes(&out[i]);
                if (!v->data || v->nbytes < nb) {
                    free(v->data);
                    v->data = aligned_alloc(64, (nb + 64) & ~(size_t)63);
                }
                out[i].data = v->data;
                out[i].nbytes = nb;
            }
            double t0 = now_us();
            if (ops[ni]->run(n, st[ni], in, out, &ctx)) {
                fprintf(stderr, "run %s (%s): %s\n", n->name, n->op_type, aclGetRecentErrMsg());
                return 1;
            }
            if (r > 0) tn[ni] += now_us() - t0;
            for (int i = 0; i < n->n_out && i < 16; i++)
                if (n->out[i] >= 0) {
                    void *d = val[n->out[i]].data;
                    val[n->out[i]] = out[i];
                    val[n->out[i]].data = d;
                }
        }
    }
    stat_row rows[256];
    int nr = 0;
    double total = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        g_node *n = &g->nodes[ni];
        int k = 0;
        while (k < nr && strcmp(rows[k].op, n->op_type)) k++;
        if (k == nr && nr < 256) rows[nr++] = (stat_row){ n->op_type, 0, 0, 0 };
        if (k >= 256) continue;
        rows[k].us += tn[ni] / runs;
        rows[k].calls++;
        if (n->n_out > 0 && n->out[0] >= 0) rows[k].elems += (double)g_shape_numel(&val[n->out[0]].shape);
        total += tn[ni] / runs;
    }
    for (int i = 0; i < nr; i++)
        for (int j = i + 1; j < nr; j++)
            if (rows[j].us > rows[i].us) { stat_row t = rows[i]; rows[i] = rows[j]; rows[j] = t; }
    printf("%-24s %6s %10s %6s %10s  (impl)\n", "op", "calls", "us/run", "%", "ns/elem");
    for (int i = 0; i < nr; i++) {
        const char *impl = "?";
        for (int ni = 0; ni < g->n_nodes; ni++)
            if (!strcmp(g->nodes[ni].op_type, rows[i].op)) { impl = ops[ni]->impl; break; }
        printf("%-24s %6d %10.1f %6.1f %10.3f  (%s)\n", rows[i].op, rows[i].calls, rows[i].us,
               100.0 * rows[i].us / total, rows[i].elems > 0 ? rows[i].us * 1e3 / rows[i].elems : 0.0, impl);
    }
    printf("total %.1f us per run (%d runs, %d threads)\n", total, runs, threads);
    for (int ni = 0; ni < g->n_nodes; ni++)
        if (ops[ni] && ops[ni]->fini) ops[ni]->fini(st[ni]);
    return 0;
}
