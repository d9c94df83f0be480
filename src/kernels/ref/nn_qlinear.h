/* The uint8 QLinearAdd, QLinearMul and QLinearGlobalAveragePool kernels of nn_qlinear.c with their
 * inner loops taken from a table: the reference registers them with the
 * plain C loops (nn_ql_rows_c), the x86 vector implementation
 * (kernels/x86/x86_qlinear.c) with its own, so both share one driver (the
 * checks, the layouts, the broadcasting, the threads) and differ only in the
 * loops, which compute the same float32 steps in the same order. */
#ifndef OPENACL_KERNELS_REF_NN_QLINEAR_H
#define OPENACL_KERNELS_REF_NN_QLINEAR_H
#include "kernels/kernel.h"
#include <stdint.h>

typedef struct nn_ql_rows {
    /* y = clamp(rint((a - za) * f) + zc, 0, 255); one factor per value
     * (fstep 1) or f[0] for the row (0) */
    void (*mul_row)(const uint8_t *a, uint8_t *y, int64_t n, const float *f, int fstep, float za, float zc);
    /* y = clamp(rint((a - za) * (b - zb) * k) + zc, 0, 255) */
    void (*mul_u8)(const uint8_t *a, const uint8_t *b, uint8_t *y, int64_t n, float za, float zb, float k,
                   float zc);
    /* y = clamp(rint(a * ra + b * rb + off), lo, hi), lo/hi within 0..255 */
    void (*add_u8)(const uint8_t *a, const uint8_t *b, uint8_t *y, int64_t n, float ra, float rb, float off,
                   float lo, float hi);
    /* QLinearGlobalAveragePool's channel sums of one image, exact: x is
     * [C, plane] (plain) or [plane, C] (channels-last), plane < 2^23 */
    void (*gap_sum_u8)(const uint8_t *x, int64_t C, int64_t plane, int nhwc, int64_t *sum);
} nn_ql_rows;

extern const nn_ql_rows nn_ql_rows_c;

/* k_op entries of QLinearAdd (com.microsoft) and of the QLinearMul forms the
 * int8 pass writes, for implementations that bring their own loops */
int nn_qladd_init(g_graph *g, g_node *n, void **state, const nn_ql_rows *rows);
int nn_qlmul_init(g_graph *g, g_node *n, void **state, const nn_ql_rows *rows);
int nn_qladd_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int nn_qlmul_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                  size_t *packed_bytes, size_t *scratch_bytes);
int nn_qladd_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
int nn_qladd_accepts(const g_node *n, void *state, int idx, int layout);
void nn_ql_fini(void *state);
/* k_op entries of QLinearGlobalAveragePool (com.microsoft) */
int nn_qgap_init(g_graph *g, g_node *n, void **state, const nn_ql_rows *rows);
int nn_qgap_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int nn_qgap_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                 size_t *packed_bytes, size_t *scratch_bytes);
int nn_qgap_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
int nn_qgap_accepts(const g_node *n, void *state, int idx, int layout);

#endif
