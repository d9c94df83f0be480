/* How many threads one node runs with (engine.h / exec.h callers).
 *
 * A parallel region costs a thread wake-up and a barrier: a few
 * microseconds on free cores, tens to hundreds when the cores are shared and
 * the partner thread has to be scheduled first. Nodes with less work than
 * that (most of a VAD or a BERT's elementwise and shape ops, the squeeze-
 * excite convolutions on 1x1 planes) are faster on the calling thread
 * alone, as ONNX Runtime's cost model does too. The estimate is rough on
 * purpose: bytes touched at a single core's streaming rate, or arithmetic of
 * convolutions and matrix products at a single core's fp32 rate. The
 * decision is made once per shape (static plans: at load), so oneDNN builds
 * each primitive for the thread count it will run with. */
#include "engine/eng_priv.h"
#include <stdlib.h>

/* Below this estimated single-thread time (microseconds) a node runs on one
 * thread. OPENACL_SMALL_OP_US overrides (0: never), read at each load's
 * planning (eng_threads_reload) so that mdl_bench --ab can compare values;
 * the dynamic executor's per-run decisions use the last value read. The
 * estimate below overstates cache-resident nodes (a 14x14x384 int8
 * depthwise layer: 22 us estimated, 12-14 us measured), and a region on
 * free cores costs 1-2 us, so 40 kept on one thread layers that two threads
 * do finish sooner: int8 MobileNetV2 at 2 threads on a quiet host 1.42 ->
 * 1.31 ms with 12 (docs/config.md has the other models). Below about 10
 * the fp32 RegNets and EfficientNets lose 1-2 %. */
#define SMALL_OP_US 12.0

static _Atomic double g_small_us = -1.0;

static double small_op_env(void)
{
    const char *e = getenv("OPENACL_SMALL_OP_US");
    char *end = NULL;
    double x = e && *e ? strtod(e, &end) : SMALL_OP_US;
    return (e && *e && (end == e || *end || x < 0)) ? SMALL_OP_US : x;
}

void eng_threads_reload(void)
{
    g_small_us = small_op_env();
}

static double small_op_us(void)
{
    double v = g_small_us;
    if (v < 0) g_small_us = v = small_op_env();
    return v;
}

static double numel(const k_tensor *t)
{
    if (!t || t->shape.rank < 0) return 0;
    double n = 1;
    for (int i = 0; i < t->shape.rank; i++) n *= t->shape.d[i] > 0 ? (double)t->shape.d[i] : 0;
    return n;
}

/* The implementation's own ceiling (k_op.max_threads), within [1, threads]. */
static int impl_threads(const g_node *n, const k_tensor *in, const k_tensor *out, int threads)
{
    if (!n->op || !n->op->max_threads) return threads;
    int m = n->op->max_threads(n, n->state, in, out, threads);
    return m >= 1 && m < threads ? m : threads;
}

int eng_node_threads(const g_node *n, const k_tensor *in, const k_tensor *out, int threads)
{
    if (threads <= 1) return threads;
    double limit = small_op_us();
    if (limit <= 0) return impl_threads(n, in, out, threads);
    /* subgraph bodies run their own nodes with the budget */
    for (int i = 0; i < n->n_attr; i++)
        if (n->attr[i].type == G_AT_GRAPH) return threads;
    double bytes = 0;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0) bytes += numel(&in[j]) * (double)(g_dtype_size(in[j].dtype) ? g_dtype_size(in[j].dtype) : 4);
    for (int j = 0; j < n->n_out; j++)
        if (n->out[j] >= 0) bytes += numel(&out[j]) * (double)(g_dtype_size(out[j].dtype) ? g_dtype_size(out[j].dtype) : 4);
    /* the arithmetic, as the bound implementation counts it (kernel.h) */
    double flops = k_flops(n, in, out);
    /* a core streams ~8 GB/s (8000 bytes/us) and computes ~60 GFLOP/s in
     * the shapes these kernels meet */
    double us = bytes / 8000.0;
    if (flops / 60000.0 > us) us = flops / 60000.0;
    return us < limit ? 1 : impl_threads(n, in, out, threads);
}
