/* The small model the fault-injection and stress tests run:
 *   y = MatMul(Relu(Conv(x, W, B, pads 1)) + C, M)
 *   x [1,2,4,4] float, W [3,2,3,3] (external data file), B [3], C [3,1,1],
 *   M [4,5]; y [1,3,4,5].
 * Weights come from a seed, so several distinct models can be written; the
 * expected output is computed here in plain C. */
#ifndef OPENACL_TESTS_SMALL_NET_H
#define OPENACL_TESTS_SMALL_NET_H

#include <stddef.h>

#define SN_IN_ELEMS (1 * 2 * 4 * 4)
#define SN_OUT_ELEMS (1 * 3 * 4 * 5)

typedef struct sn_weights {
    float w[3 * 2 * 3 * 3], b[3], c[3], m[4 * 5];
} sn_weights;

void sn_weights_init(sn_weights *wt, unsigned seed);
/* Writes dir/<name>.onnx and its external weight file dir/<name>.w.bin.
 * Returns 0 on success. */
int sn_write_model(const char *dir, const char *name, const sn_weights *wt);
/* Reference output for input x. */
void sn_reference(const sn_weights *wt, const float *x, float *y);
/* Largest |a-b| relative to max(1,|b|) over n values. */
float sn_max_err(const float *a, const float *b, size_t n);

#endif
