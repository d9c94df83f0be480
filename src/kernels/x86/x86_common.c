/* The CPU questions of the x86 vector kernels (x86_common.h).
 * __builtin_cpu_supports reads what libgcc found at start: cheap enough to
 * ask again, so nothing is cached here (and no thread races on a cache). */
#include "kernels/x86/x86_common.h"

static int cpu_has(int bf16)
{
#ifdef X86_SIMD
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl"))
        return 0;
    return !bf16 || __builtin_cpu_supports("avx512bf16");
#else
    (void)bf16;
    return 0;
#endif
}

int x86_has_avx512(void) { return cpu_has(0); }
int x86_has_avx512_bf16(void) { return cpu_has(1); }
int x86_threads(const k_ctx *ctx) { return ctx && ctx->threads > 1 ? ctx->threads : 1; }
