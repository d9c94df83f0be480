/* openacl.QTable(x, table) -> y: each byte of y is table[byte of x], x and y
 * of one element count and layout. What graph_pass_qdq_table
 * (graph/qdq_table.c) makes of an elementwise float function of one
 * quantised tensor that is quantised again. x and y are uint8 or int8
 * (int8 bytes index the table as they are stored: -1 is entry 255); table is
 * a constant of 256 values of y's type. The reference looks each byte up;
 * the x86 implementation (kernels/x86/x86_qtable.c) does 64 a step. */
#ifndef OPENACL_KERNELS_REF_NN_QTABLE_H
#define OPENACL_KERNELS_REF_NN_QTABLE_H
#include "kernels/kernel.h"
#include <stdint.h>

typedef struct nn_qtable {
    uint8_t lut[256];
    /* y[i] = lut[x[i]] for i < n; x == y allowed (run in place) */
    void (*map)(const uint8_t *lut, const uint8_t *x, uint8_t *y, int64_t n);
} nn_qtable;

int nn_qtable_init(g_graph *g, g_node *n, void **state);
int nn_qtable_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int nn_qtable_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
int nn_qtable_inplace(const g_node *n, void *state);
void nn_qtable_fini(void *state);

#endif
