/* Softmax, LogSoftmax and Hardmax: the reference's state and driver
 * (kernels/ref/softmax.c), shared with the x86 implementation
 * (kernels/x86/x86_softmax.c), which only supplies a faster loop over whole
 * float32 rows (the usual last-axis case) and leaves everything else here. */
#ifndef OPENACL_KERNELS_REF_SOFTMAX_H
#define OPENACL_KERNELS_REF_SOFTMAX_H
#include "kernels/kernel.h"
#include <stdint.h>

/* exp(d) at or below this is subnormal or nearly: such terms count as 0 */
#define SM_TINY_ARG (-87.0f)

enum { SM_SOFT, SM_LOG, SM_HARD };

typedef struct sm_state {
    int kind, dt, coerce;
    int pad_rows;           /* short float32 rows through a padded buffer (sm_padded) */
    int64_t axis;
    /* when set: Softmax or LogSoftmax (kind) of rows [0, n) of R float32
     * values, x and y row-major; else the reference loops */
    void (*rows)(int kind, const float *x, float *y, int64_t n, int64_t R);
} sm_state;

int softmax_init(g_graph *g, g_node *n, void **state);
int softmax_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int softmax_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
void softmax_fini(void *state);

#endif
