/* Runs a checked matrix product on the stream worker through oneDNN.
 *
 * oneDNN 2.x has no fp16 matmul on most CPUs, so fp16 A and B are first
 * widened to fp32 (exact) and multiplied in fp32, which is the fp32
 * accumulation CANN documents. The widening and narrowing are our own F16C
 * loops: oneDNN's f16 reorder is a generic per-element path, 45 ns an element
 * (0.18 ms for a 64 x 64 matrix, four times the matmul). alpha becomes the
 * matmul's run-time output scale and beta its sum post-op
 * (dst = alpha*acc + beta*dst), on C itself for fp32 C and on an fp32 copy of
 * C for fp16 C, narrowed back once (round to nearest even, as numpy's
 * float32 -> float16). For int32 C the
 * int8 product accumulates in int32 and alpha/beta are applied here in int32
 * (wrapping) arithmetic: oneDNN's scales are fp32 and would round results
 * above 2^24.
 *
 * Prepared primitives are kept in a small table keyed by shape, transposes,
 * types and (for float C) beta, which is part of the sum post-op; a repeated
 * call reuses them. Scratch memory (the fp32 copies, the int32 accumulator,
 * oneDNN's scratchpad) is a per-thread buffer that grows to the largest job
 * the worker has run and is freed when the worker ends. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "cblas/cb_internal.h"
#include "rt/rt_ext.h"

#define CB_CACHE_MAX 64
#define CB_ALIGN 64

typedef struct cb_key {
    int64_t m, n, k;
    int32_t ta, tb, ab_type, c_type;
    int32_t has_beta;  /* float C: the sum post-op is present */
    uint32_t beta_bits; /* float C: its scale */
} cb_key;

typedef struct cb_prim {
    cb_key key;
    dnnl_primitive_t mm;                 /* the matmul */
    dnnl_memory_desc_t a_md, b_md, d_md; /* matmul src, weights, dst */
    dnnl_memory_desc_t scale_md, sp_md;
    size_t off_a32, off_b32, off_c, off_sp, scratch;
    int scaled; /* the matmul takes a run-time output scale */
} cb_prim;

static dnnl_engine_t g_engine;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cb_prim *g_cache[CB_CACHE_MAX];
static int g_cache_n;

/* Per worker thread: a oneDNN stream and the scratch buffer. */
typedef struct cb_tls {
    dnnl_stream_t stream;
    void *buf;
    size_t cap;
} cb_tls;
static pthread_key_t g_tls_key;
static pthread_once_t g_tls_once = PTHREAD_ONCE_INIT;

static void engine_make(void)
{
    if (dnnl_engine_create(&g_engine, dnnl_cpu, 0) != dnnl_success) g_engine = NULL;
}

static void tls_free(void *p)
{
    cb_tls *t = p;
    if (t->stream) dnnl_stream_destroy(t->stream);
    free(t->buf);
    free(t);
}

static void tls_make(void) { (void)pthread_key_create(&g_tls_key, tls_free); }

static size_t align_up(size_t v) { return (v + CB_ALIGN - 1) & ~(size_t)(CB_ALIGN - 1); }

static int fail_dnnl(const cb_job *j, const char *what, dnnl_status_t st)
{
    return openacl_ext_fail(st == dnnl_out_of_memory ? ACL_ERROR_BAD_ALLOC : ACL_ERROR_INTERNAL_ERROR,
                            "%s: m=%lld n=%lld k=%lld: oneDNN %s failed (status %d)", j->api, (long long)j->m,
                            (long long)j->n, (long long)j->k, what, (int)st);
}

static cb_tls *tls_get(const cb_job *j, size_t need, int *rc)
{
    pthread_once(&g_tls_once, tls_make);
    cb_tls *t = pthread_getspecific(g_tls_key);
    if (!t) {
        t = calloc(1, sizeof(*t));
        if (!t || pthread_setspecific(g_tls_key, t) != 0) {
            free(t);
            *rc = openacl_ext_fail(ACL_ERROR_BAD_ALLOC, "%s: no memory for the worker's state", j->api);
            return NULL;
        }
    }
    if (!t->stream) {
        dnnl_status_t st = dnnl_stream_create(&t->stream, g_engine, dnnl_stream_default_flags);
        if (st != dnnl_success) {
            t->stream = NULL;
            *rc = fail_dnnl(j, "stream creation", st);
            return NULL;
        }
    }
    if (need > t->cap) {
        void *nb = aligned_alloc(CB_ALIGN, align_up(need));
        if (!nb) {
            *rc = openacl_ext_fail(ACL_ERROR_BAD_ALLOC, "%s: m=%lld n=%lld k=%lld: no memory for %zu bytes of scratch",
                                   j->api, (long long)j->m, (long long)j->n, (long long)j->k, need);
            return NULL;
        }
        free(t->buf);
        t->buf = nb;
        t->cap = align_up(need);
    }
    return t;
}

static void prim_free(cb_prim *p)
{
    if (!p) return;
    if (p->mm) dnnl_primitive_destroy(p->mm);
    free(p);
}

/* Creates a primitive from pd (consumed) and grows the shared scratchpad. */
static dnnl_status_t prim_from_pd(dnnl_primitive_desc_t pd, dnnl_primitive_t *out, cb_prim *p)
{
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (sp && dnnl_memory_desc_get_size(sp) > dnnl_memory_desc_get_size(&p->sp_md)) p->sp_md = *sp;
    dnnl_status_t st = dnnl_primitive_create(out, pd);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) *out = NULL;
    return st;
}

static void flat_md(dnnl_memory_desc_t *md, int64_t n, dnnl_data_type_t dt)
{
    dnnl_dims_t d = {n};
    dnnl_memory_desc_init_by_tag(md, 1, d, dt, dnnl_a);
}

/* A row-major rows x cols operand read as its logical (r x c) matrix: the
 * buffer holds it transposed when trans is set. */
static void mat_md(dnnl_memory_desc_t *md, int64_t r, int64_t c, int trans, dnnl_data_type_t dt)
{
    dnnl_dims_t d = {r, c};
    dnnl_dims_t st = {trans ? 1 : c, trans ? r : 1};
    dnnl_memory_desc_init_by_strides(md, 2, d, dt, st);
}

static dnnl_status_t prim_build(const cb_key *key, float beta, cb_prim **out)
{
    cb_prim *p = calloc(1, sizeof(*p));
    if (!p) return dnnl_out_of_memory;
    p->key = *key;
    const int64_t M = key->m, N = key->n, K = key->k;
    const int f16_in = key->ab_type == ACL_FLOAT16;
    const dnnl_data_type_t in_dt = f16_in ? dnnl_f32 : dnnl_s8;
    const dnnl_data_type_t d_dt = key->c_type == ACL_INT32 ? dnnl_s32 : dnnl_f32;
    dnnl_status_t st = dnnl_success;

    mat_md(&p->a_md, M, K, key->ta, in_dt);
    mat_md(&p->b_md, K, N, key->tb, in_dt);
    mat_md(&p->d_md, M, N, 0, d_dt);
    size_t off = 0;
    if (f16_in) {
        p->off_a32 = off;
        off = align_up(off + (size_t)(M * K) * 4);
        p->off_b32 = off;
        off = align_up(off + (size_t)(K * N) * 4);
    }
    if (key->c_type != ACL_FLOAT) { /* fp16 C's fp32 copy, or int32 C's accumulator */
        p->off_c = off;
        off = align_up(off + (size_t)(M * N) * 4);
    }
    if (st == dnnl_success) {
        dnnl_matmul_desc_t md;
        dnnl_primitive_attr_t attr = NULL;
        dnnl_post_ops_t po = NULL;
        dnnl_primitive_desc_t pd = NULL;
        p->scaled = key->c_type != ACL_INT32;
        st = dnnl_matmul_desc_init(&md, &p->a_md, &p->b_md, NULL, &p->d_md);
        if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
        if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        if (st == dnnl_success && p->scaled) {
            const float rt = DNNL_RUNTIME_F32_VAL;
            st = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &rt);
            flat_md(&p->scale_md, 1, dnnl_f32);
        }
        if (st == dnnl_success && key->has_beta) {
            st = dnnl_post_ops_create(&po);
            if (st == dnnl_success) st = dnnl_post_ops_append_sum(po, beta);
            if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, po);
        }
        if (st == dnnl_success) st = dnnl_primitive_desc_create(&pd, &md, attr, g_engine, NULL);
        if (po) dnnl_post_ops_destroy(po);
        if (attr) dnnl_primitive_attr_destroy(attr);
        if (st == dnnl_success) st = prim_from_pd(pd, &p->mm, p);
    }
    if (st != dnnl_success) {
        prim_free(p);
        return st;
    }
    p->off_sp = off;
    p->scratch = off + dnnl_memory_desc_get_size(&p->sp_md);
    *out = p;
    return dnnl_success;
}

/* A cached primitive for key, or a new one; *transient says the caller must
 * free it (the table was full). */
static dnnl_status_t prim_get(const cb_key *key, float beta, cb_prim **out, int *transient)
{
    *transient = 0;
    pthread_mutex_lock(&g_cache_mu);
    for (int i = 0; i < g_cache_n; i++)
        if (memcmp(&g_cache[i]->key, key, sizeof(*key)) == 0) {
            *out = g_cache[i];
            pthread_mutex_unlock(&g_cache_mu);
            return dnnl_success;
        }
    pthread_mutex_unlock(&g_cache_mu);
    cb_prim *p = NULL;
    dnnl_status_t st = prim_build(key, beta, &p);
    if (st != dnnl_success) return st;
    pthread_mutex_lock(&g_cache_mu);
    for (int i = 0; i < g_cache_n; i++)
        if (memcmp(&g_cache[i]->key, key, sizeof(*key)) == 0) { /* another worker was faster */
            *out = g_cache[i];
            pthread_mutex_unlock(&g_cache_mu);
            prim_free(p);
            return dnnl_success;
        }
    if (g_cache_n < CB_CACHE_MAX)
        g_cache[g_cache_n++] = p;
    else
        *transient = 1;
    pthread_mutex_unlock(&g_cache_mu);
    *out = p;
    return dnnl_success;
}

static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0x1f) {
        bits = s | 0x7f800000u | (m << 13);
    } else if (e) {
        bits = s | ((e + 112) << 23) | (m << 13);
    } else if (!m) {
        bits = s;
    } else { /* subnormal: normalise */
        e = 113;
        while (!(m & 0x400)) {
            m <<= 1;
            e--;
        }
        bits = s | (e << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

/* Round to nearest even, as the F16C instruction and numpy do. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00 | ((ax >> 13) & 0x3ff)); /* NaN stays NaN, quiet */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* 65520 and up (and inf) round to inf */
    if (ax < 0x38800000u) { /* below 2^-14: a subnormal half, in units of 2^-24 */
        float v;
        memcpy(&v, &ax, sizeof(v));
        return (uint16_t)(sign | (uint16_t)nearbyintf(v * 16777216.0f)); /* exact scaling; 0x400 = 2^-14 */
    }
    uint32_t h = ((ax >> 23) - 112) << 10 | ((ax >> 13) & 0x3ff), rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* a carry moves into the exponent, as it should */
    return (uint16_t)(sign | h);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define CB_HAVE_F16C_PATH 1
__attribute__((target("avx,f16c"))) static void widen_f16c(const uint16_t *s, float *d, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    for (; i < n; i++) d[i] = half_to_float(s[i]);
}

__attribute__((target("avx,f16c"))) static void narrow_f16c(const float *s, uint16_t *d, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) d[i] = float_to_half(s[i]);
}
#endif

/* AVX and F16C present and the OS saving the ymm registers (cpuid, as some
 * compilers' __builtin_cpu_supports does not know "f16c"). */
static int have_f16c(void)
{
#ifdef CB_HAVE_F16C_PATH
    static int known = -1; /* written once per thread at most, same value */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        unsigned a, b, c, d;
        k = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) && (c & (1u << 28)) && (c & (1u << 29))) {
            unsigned lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            k = (lo & 6u) == 6u; /* xmm and ymm state enabled */
        }
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
#else
    return 0;
#endif
}

/* Chunks of 64 Ki elements over the thread pool; a small array stays on
 * the calling thread. */
#define CB_CHUNK ((int64_t)1 << 16)

static void widen(const uint16_t *s, float *d, int64_t n)
{
    const int fast = have_f16c();
    const int64_t chunks = (n + CB_CHUNK - 1) / CB_CHUNK;
#pragma omp parallel for if (chunks > 1) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t lo = c * CB_CHUNK, len = n - lo < CB_CHUNK ? n - lo : CB_CHUNK;
#ifdef CB_HAVE_F16C_PATH
        if (fast) {
            widen_f16c(s + lo, d + lo, len);
            continue;
        }
#endif
        for (int64_t i = lo; i < lo + len; i++) d[i] = half_to_float(s[i]);
    }
    (void)fast;
}

static void narrow(const float *s, uint16_t *d, int64_t n)
{
    const int fast = have_f16c();
    const int64_t chunks = (n + CB_CHUNK - 1) / CB_CHUNK;
#pragma omp parallel for if (chunks > 1) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t lo = c * CB_CHUNK, len = n - lo < CB_CHUNK ? n - lo : CB_CHUNK;
#ifdef CB_HAVE_F16C_PATH
        if (fast) {
            narrow_f16c(s + lo, d + lo, len);
            continue;
        }
#endif
        for (int64_t i = lo; i < lo + len; i++) d[i] = float_to_half(s[i]);
    }
    (void)fast;
}

static float scalar_f(const void *p, aclDataType t)
{
    if (t == ACL_FLOAT16) return half_to_float(*(const uint16_t *)p);
    float f;
    memcpy(&f, p, sizeof(f));
    return f;
}

/* int32 C = alpha * acc + beta * C, wrapping as int32 arithmetic does in
 * numpy (computed unsigned: signed overflow is undefined in C). */
static void epilogue_s32(int32_t *c, const int32_t *acc, int64_t count, int32_t alpha, int32_t beta)
{
    const uint32_t ua = (uint32_t)alpha, ub = (uint32_t)beta;
#pragma omp parallel for if (count >= CB_CHUNK) schedule(static)
    for (int64_t i = 0; i < count; i++) {
        uint32_t v = ua * (uint32_t)acc[i];
        if (ub) v += ub * (uint32_t)c[i];
        c[i] = (int32_t)v;
    }
}

static int job_exec(const cb_job *j, const cb_prim *p, cb_tls *t)
{
    char *scr = t->buf;
    const void *a = j->a, *b = j->b;
    void *dst = j->c;
    float alpha_f = 1.0f;
    int32_t alpha_i = 1, beta_i = 0;

    if (j->ab_type == ACL_FLOAT16) {
        a = scr + p->off_a32;
        b = scr + p->off_b32;
        widen(j->a, (float *)a, j->m * j->k);
        widen(j->b, (float *)b, j->k * j->n);
    }
    if (j->c_type == ACL_INT32) {
        memcpy(&alpha_i, j->alpha, sizeof(alpha_i));
        memcpy(&beta_i, j->beta, sizeof(beta_i));
        if (alpha_i != 1 || beta_i != 0) dst = scr + p->off_c;
    } else {
        alpha_f = scalar_f(j->alpha, j->c_type);
        if (j->c_type == ACL_FLOAT16) {
            dst = scr + p->off_c;
            if (p->key.has_beta) widen(j->c, dst, j->m * j->n);
        }
    }

    dnnl_memory_t mem[5] = {NULL};
    dnnl_exec_arg_t args[5];
    int n = 0;
    const struct {
        int arg;
        const dnnl_memory_desc_t *md;
        const void *ptr;
        int on;
    } want[5] = {
        {DNNL_ARG_SRC, &p->a_md, a, 1},
        {DNNL_ARG_WEIGHTS, &p->b_md, b, 1},
        {DNNL_ARG_DST, &p->d_md, dst, 1},
        {DNNL_ARG_ATTR_OUTPUT_SCALES, &p->scale_md, &alpha_f, p->scaled},
        {DNNL_ARG_SCRATCHPAD, &p->sp_md, scr + p->off_sp, dnnl_memory_desc_get_size(&p->sp_md) > 0},
    };
    dnnl_status_t st = dnnl_success;
    const char *what = "memory creation";
    for (int i = 0; i < 5 && st == dnnl_success; i++) {
        if (!want[i].on) continue;
        st = dnnl_memory_create(&mem[n], want[i].md, g_engine, (void *)want[i].ptr);
        if (st == dnnl_success) {
            args[n].arg = want[i].arg;
            args[n].memory = mem[n];
            n++;
        }
    }
    if (st == dnnl_success) {
        what = "matmul";
        st = dnnl_primitive_execute(p->mm, t->stream, n, args);
    }
    if (st == dnnl_success) {
        what = "stream wait";
        st = dnnl_stream_wait(t->stream);
    }
    for (int i = 0; i < n; i++) dnnl_memory_destroy(mem[i]);
    if (st != dnnl_success) return fail_dnnl(j, what, st);
    if (j->c_type == ACL_FLOAT16) narrow(dst, j->c, j->m * j->n);
    if (j->c_type == ACL_INT32 && dst != j->c) epilogue_s32(j->c, (const int32_t *)dst, j->m * j->n, alpha_i, beta_i);
    return ACL_SUCCESS;
}

int cb_job_run(void *arg)
{
    const cb_job *j = arg;
    pthread_once(&g_engine_once, engine_make);
    if (!g_engine) return openacl_ext_fail(ACL_ERROR_INTERNAL_ERROR, "%s: no oneDNN CPU engine", j->api);

    cb_key key;
    memset(&key, 0, sizeof(key)); /* padding takes part in memcmp */
    key.m = j->m;
    key.n = j->n;
    key.k = j->k;
    key.ta = j->ta;
    key.tb = j->tb;
    key.ab_type = j->ab_type;
    key.c_type = j->c_type;
    float beta = 0.0f;
    if (j->c_type != ACL_INT32) {
        beta = scalar_f(j->beta, j->c_type);
        /* beta == 0: C is not read (BLAS rule), so no sum post-op */
        key.has_beta = beta != 0.0f;
        if (key.has_beta) memcpy(&key.beta_bits, &beta, sizeof(beta));
    }
    cb_prim *p = NULL;
    int transient = 0;
    dnnl_status_t st = prim_get(&key, beta, &p, &transient);
    if (st != dnnl_success) return fail_dnnl(j, "matmul creation", st);

    int rc = ACL_SUCCESS;
    cb_tls *t = tls_get(j, p->scratch, &rc);
    if (t) {
        int threads = openacl_ext_device_threads(j->device);
        if (threads > 0 && omp_get_max_threads() != threads) omp_set_num_threads(threads);
        rc = job_exec(j, p, t);
    }
    if (transient) prim_free(p);
    return rc;
}
