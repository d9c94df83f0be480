/*
 * cpu_peak: the arithmetic peak of one core of this machine, measured.
 *
 * A model's speed only means something next to what the core can do at
 * most. This program times long runs of independent AVX-512 multiply-adds
 * on one thread and prints, as one JSON object, the best rate it saw for
 *   fp32  vfmadd231ps       16 multiply-adds per instruction
 *   int8  vpdpbusd (VNNI)   64 u8 x s8 multiply-adds
 *   bf16  vdpbf16ps         32 bf16 multiply-adds
 * in G multiply-adds per second (GMAC/s). Sixteen accumulators hide the
 * instruction latency on every AVX-512 core we know of; each kind runs
 * --rounds timed rounds of about --seconds and keeps the fastest, so a
 * shared host lowers the figure only if it was busy throughout.
 * A kind the CPU lacks is reported as null. bench/int8.py uses the int8
 * figure to state how close a model's int8 run is to the core's limit.
 *
 *   cpu_peak [--seconds 0.2] [--rounds 5]
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ACC 16
#define INNER 1000L

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Each kernel runs INNER * n blocks of ACC independent instructions and
 * returns a value built from every accumulator, so none is dead code. */
__attribute__((target("avx512f"))) static float run_fp32(long n)
{
    __m512 acc[ACC];
    __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
    for (int k = 0; k < ACC; k++)
        acc[k] = _mm512_set1_ps((float)k);
    for (long i = 0; i < n * INNER; i++) {
#pragma GCC unroll 16
        for (int k = 0; k < ACC; k++)
            acc[k] = _mm512_fmadd_ps(acc[k], x, y);
        __asm__ volatile("" : "+v"(x));
    }
    float s = 0;
    for (int k = 0; k < ACC; k++)
        s += _mm512_reduce_add_ps(acc[k]);
    return s;
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static float run_int8(long n)
{
    __m512i acc[ACC];
    __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-5);
    for (int k = 0; k < ACC; k++)
        acc[k] = _mm512_set1_epi32(k);
    for (long i = 0; i < n * INNER; i++) {
#pragma GCC unroll 16
        for (int k = 0; k < ACC; k++)
            acc[k] = _mm512_dpbusd_epi32(acc[k], x, y);
        __asm__ volatile("" : "+v"(x));
    }
    int s = 0;
    for (int k = 0; k < ACC; k++)
        s += _mm512_reduce_add_epi32(acc[k]);
    return (float)s;
}

__attribute__((target("avx512f,avx512bf16"))) static float run_bf16(long n)
{
    __m512 acc[ACC];
    __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3f00);
    for (int k = 0; k < ACC; k++)
        acc[k] = _mm512_set1_ps((float)k);
    for (long i = 0; i < n * INNER; i++) {
#pragma GCC unroll 16
        for (int k = 0; k < ACC; k++)
            acc[k] = _mm512_dpbf16_ps(acc[k], x, y);
        __asm__ volatile("" : "+v"(x));
    }
    float s = 0;
    for (int k = 0; k < ACC; k++)
        s += _mm512_reduce_add_ps(acc[k]);
    return s;
}

typedef float (*kernel_fn)(long n);

/* Best GMAC/s over `rounds` rounds of about `secs` seconds each. */
static double best_rate(kernel_fn fn, int macs_per_insn, double secs, int rounds, float *sink)
{
    long n = 1;
    double t;
    for (;;) { /* size a round: double n until it lasts a tenth of secs */
        double t0 = now_s();
        *sink += fn(n);
        t = now_s() - t0;
        if (t >= secs / 10 || n > (1L << 40))
            break;
        n *= 2;
    }
    n = (long)((double)n * secs / (t > 0 ? t : 1e-9)) + 1;
    double best = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_s();
        *sink += fn(n);
        double dt = now_s() - t0;
        double rate = (double)n * INNER * ACC * macs_per_insn / dt / 1e9;
        if (rate > best)
            best = rate;
    }
    return best;
}

static void print_rate(const char *name, int ok, kernel_fn fn, int macs, double secs, int rounds, float *sink,
                       const char *sep)
{
    if (ok)
        printf("\"%s_gmacs\": %.1f%s", name, best_rate(fn, macs, secs, rounds, sink), sep);
    else
        printf("\"%s_gmacs\": null%s", name, sep);
}

int main(int argc, char **argv)
{
    double secs = 0.2;
    int rounds = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: cpu_peak [--seconds S] [--rounds N]\n");
            return 2;
        }
    }
    if (!(secs > 0 && secs < 60) || rounds < 1 || rounds > 100) {
        fprintf(stderr, "cpu_peak: --seconds must be in (0, 60) and --rounds in [1, 100]\n");
        return 2;
    }
    __builtin_cpu_init();
    float sink = 0;
    printf("{\"what\": \"one core's best multiply-add rate, G per second\", ");
    print_rate("fp32", __builtin_cpu_supports("avx512f"), run_fp32, 16, secs, rounds, &sink, ", ");
    print_rate("int8", __builtin_cpu_supports("avx512vnni"), run_int8, 64, secs, rounds, &sink, ", ");
    print_rate("bf16", __builtin_cpu_supports("avx512bf16"), run_bf16, 32, secs, rounds, &sink, ", ");
    printf("\"seconds\": %g, \"rounds\": %d}\n", secs, rounds);
    volatile float keep = sink; /* the kernels' results are used */
    (void)keep;
    return 0;
}
