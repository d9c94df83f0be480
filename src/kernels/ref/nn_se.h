/* openacl.SqueezeExcite (nn_se.c) for the implementations that share its
 * driver: the state, packing and the one parallel region are the
 * reference's; the loops of the four steps come from a table, plain C in
 * the reference, AVX-512 in kernels/x86/x86_se.c. */
#ifndef OPENACL_KERNELS_REF_NN_SE_H
#define OPENACL_KERNELS_REF_NN_SE_H
#include "kernels/ref/nn_common.h"

typedef struct nn_se_loops {
    /* m[0..C) = sums over P rows of C channels (channels-last); x float32
     * or bf16 (xb) */
    void (*sums_nhwc)(const void *x, int xb, int64_t P, int64_t C, float *m);
    /* sum of x[0..len) */
    float (*total)(const void *x, int xb, size_t len);
    /* h[r] = b[r] + W[r,:] . m for r in [r0, r1); W float32 or bf16 (wb) */
    void (*squeeze)(const void *w, int wb, const float *b, const float *m, int64_t C, int64_t r0, int64_t r1,
                    float *h);
    /* sv[c] = b[c] + sum_r Wt[r, c] h[r] for c in [c0, c1) */
    void (*excite)(const void *wt, int wb, const float *b, const float *h, int64_t R, int64_t C, int64_t c0,
                   int64_t c1, float *sv);
    /* an activation list over a small vector */
    void (*act)(const nn_post *p, float *y, size_t len);
    /* rows [q0, q1) of `len` values, `rpi` rows per image whose scales start
     * at s + image * stride: channels-last (per_elem: a row times
     * s[0..len)) or plain (row r of an image times s[r]) */
    void (*scale_rows)(const void *x, int xb, void *y, int yb, const float *s, size_t stride, int per_elem,
                       int64_t rpi, int64_t len, int64_t q0, int64_t q1);
} nn_se_loops;

/* init with these loops; wbf16: pack W1 and W2 as bf16 (loops that read
 * them so) */
int nn_se_init(g_graph *g, g_node *n, void **state, const nn_se_loops *loops, int wbf16);
int nn_se_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
int nn_se_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, size_t *packed_bytes,
               size_t *scratch_bytes);
int nn_se_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed);
int nn_se_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed);
int nn_se_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx);
void nn_se_fini(void *state);
int nn_se_accepts(const g_node *n, void *state, int idx, int layout);
int nn_se_reads_bf16(const g_graph *g, const g_node *n, int slot);
/* the inputs pack() keeps (k_op.packed_inputs) */
#define NN_SE_PACKED 0x1eu

#endif
