/* libFuzzer target: an untrusted ONNX model image through the public API.
 * aclmdlLoadFromMem must refuse or accept; an accepted model has its
 * description read and is executed once on zeroed inputs (dynamic dims set
 * to 1 through a tensor descriptor, runtime-allocated outputs), then
 * unloaded. Any crash, sanitizer report or leak is a finding.
 * First, differentially: the importer's low-peak unpacking (initializers one
 * by one, used for model files) must reach the same verdict and the same
 * graph as protobuf-c's whole-message parse (used for memory images).
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
    if (size) import_both_ways(data, size);
    fz_model_one(data, size);
    return 0;
}
