/* Matrix-vector products with a constant matrix packed as one sequential
 * stream (dn_gemv.c): the MatMul / Gemm implementation of dn_mm_gemv.c,
 * tried before the oneDNN one (dn_matmul.c). */
#ifndef OPENACL_DN_GEMV_H
#define OPENACL_DN_GEMV_H
#include <stddef.h>
#include <stdint.h>

/* OPENACL_NO_GEMV=1 (dn_mm_gemv.c): one-row products stay with oneDNN. */
int dn_gemv_disabled(void);
/* Whether this CPU runs the packed loops (AVX-512; AVX512-BF16 for bf16). */
int dn_gemv_supported(int bf16);
/* Bytes of the packed matrix and of the run's scratch (bf16: x rounded). */
size_t dn_gemv_packed_bytes(int64_t K, int64_t N, int bf16);
size_t dn_gemv_scratch_bytes(int64_t K, int bf16);
/* Packs alpha * B, B [K, N] row-major (tb: B stored as [N, K]). */
void dn_gemv_pack(const float *b, int tb, int64_t K, int64_t N, float alpha, int bf16, void *dst);
/* OPENACL_GEMV_ONE_STREAM=1 (dn_mm_gemv.c, read per load): each panel is
 * read as one sequential stream instead of several runs of rows at once. */
int dn_gemv_one_stream(void);
/* y[N] = x[K] . B + bias (bias_n 1: one value for all, N: per column, or
 * bias NULL) on up to `threads` threads. scratch: dn_gemv_scratch_bytes.
 * streams: read long fp32 panels as several runs of rows at once (the same
 * packed layout either way; the sum's rounding differs). */
void dn_gemv_run(const float *x, const void *packed, int64_t K, int64_t N, int bf16, const float *bias,
                 int64_t bias_n, float *y, void *scratch, int threads, int streams);
#endif
