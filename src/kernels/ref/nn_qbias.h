/* openacl.QBias (nn_qbias.c) for the implementations that share its table
 * and driver: the reference looks every byte up in the table; the x86 one
 * (kernels/x86/x86_qbias.c) computes bias-only rows with vector loops
 * instead, the table's float32 steps in its order. */
#ifndef OPENACL_KERNELS_REF_NN_QBIAS_H
#define OPENACL_KERNELS_REF_NN_QBIAS_H
#include "kernels/kernel.h"
#include <stdint.h>

typedef struct nn_qbias {
    int64_t N;
    int gelu;
    float sx, zx, sy, zy;
    float *bias;         /* a copy (bias-only rows may be computed, not looked up) */
    uint8_t *lut;        /* [N][256]: the output byte per column and input byte */
    /* one row of N values; init sets the table lookup */
    void (*row)(const struct nn_qbias *s, const uint8_t *x, uint8_t *y);
} nn_qbias;

int nn_qbias_init(g_graph *g, g_node *n, void **state);
int nn_qbias_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int nn_qbias_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
void nn_qbias_fini(void *state);

#endif
