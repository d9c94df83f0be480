/* What the hand-written x86 vector kernels (kernels/x86/, impl "avx512")
 * share: the CPU questions their init() asks before anything else (an
 * implementation whose ISA the CPU lacks declines, and the next one, down to
 * the portable reference, is tried) and the intrinsics header. The loops are
 * compiled per function for their ISA (__attribute__((target))); the
 * library itself stays baseline x86-64. Only where X86_SIMD is defined. */
#ifndef OPENACL_KERNELS_X86_COMMON_H
#define OPENACL_KERNELS_X86_COMMON_H
#include "kernels/kernel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define X86_SIMD 1
#endif

/* AVX-512 F, BW and VL (what every loop here may use): 1 or 0 */
int x86_has_avx512(void);
/* the above and AVX512-BF16 (loops that read or write bfloat16 data) */
int x86_has_avx512_bf16(void);
/* the thread count of a run (ctx->threads, at least 1) */
int x86_threads(const k_ctx *ctx);

#endif
