/* libFuzzer target: an untrusted ONNX model image through the public API.
 * aclmdlLoadFromMem must refuse or accept; an accepted model has its
 * description read and is executed once on zeroed inputs (dynamic dims set
 * to 1 through a tensor descriptor, runtime-allocated outputs), then
 * unloaded. Any crash, sanitizer report or leak is a finding.
 * First, differentially: the importer's low-peak unpacking (initializers one
 * by one, used for model files) must reach the same verdict and the same
 * graph as protobuf-c's whole-message parse (used for memory images).
 * Models whose window ops (pools, convolutions) would need more than
 * FZ_MAX_WORK multiply-adds or comparisons are loaded and described but not
 * executed: the fuzzer looks for crashes and wrong refusals, and a valid but
 * huge pooling (a 60x80 dilated window over a 1000x1768 image: 2e9
 * comparisons, 20-90 s here) only times the run out.
 * The same file, linked with replay_main.c, replays committed inputs. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_model.h"
#include "graph/ir.h"
#include "onnx/onnx_import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fz_runtime_up()) abort();
    return 0;
}

#define FZ_MAX_WORK 2.0e8

/* A bound on the work of the graph's window ops: per node with a
 * kernel_shape, the window (times the input channels of a convolution's
 * constant weight) times the largest declared input or constant, counting
 * unknown dims as 1 as the run does. Intermediate tensors can be larger;
 * this catches the direct cases. */
static double window_work(const g_graph *g)
{
    double big = 1.0;
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (x->shape.rank < 0) continue;
        double e = 1.0;
        for (int k = 0; k < x->shape.rank; k++) e *= x->shape.d[k] > 0 ? (double)x->shape.d[k] : 1.0;
        if (e > big) big = e;
    }
    double worst = 0.0;
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        const int64_t *k = NULL;
        int nk = g_attr_ints(n, "kernel_shape", &k);
        double w = 1.0;
        for (int j = 0; j < nk; j++) w *= k[j] > 0 ? (double)k[j] : 1.0;
        if (n->n_in > 1 && n->in[1] >= 0 && strstr(n->op_type, "Conv")) {
            const g_tensor *wt = &g->t[n->in[1]];
            if (wt->shape.rank >= 2 && wt->shape.d[1] > 0) w *= (double)wt->shape.d[1];
        }
        if (nk > 0 && w * big > worst) worst = w * big;
    }
    return worst;
}

static void keep_pages(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    (void)p;
    (void)n;
}

static void import_both_ways(const uint8_t *data, size_t size)
{
    g_graph *a = NULL, *b = NULL;
    int ra = onnx_import(data, size, NULL, &a);
    int rb = onnx_import_ex(data, size, NULL, keep_pages, NULL, &b);
    if ((ra == 0) != (rb == 0)) abort();
    fz_skip_run = !ra && window_work(a) > FZ_MAX_WORK;
    if (!ra && (a->n_t != b->n_t || a->n_nodes != b->n_nodes || a->n_inputs != b->n_inputs ||
                a->n_outputs != b->n_outputs))
        abort();
    for (int t = 0; !ra && t < a->n_t; t++)
        if (a->t[t].nbytes != b->t[t].nbytes || (a->t[t].data && a->t[t].nbytes &&
                                                 memcmp(a->t[t].data, b->t[t].data, a->t[t].nbytes)))
            abort();
    g_graph_free(a);
    g_graph_free(b);
    aclGetRecentErrMsg();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_skip_run = 0;
    if (size) import_both_ways(data, size);
    fz_model_one(data, size);
    return 0;
}
