/* Runs a checked matrix product on the stream worker through oneDNN.
 *
 * oneDNN 2.x has no fp16 matmul on most CPUs, so fp16 A and B are first
 * widened to fp32 by oneDNN reorders (exact) and multiplied in fp32, which is
 * the fp32 accumulation CANN documents. alpha becomes the matmul's run-time
 * output scale and beta its sum post-op (dst = alpha*acc + beta*dst), on C
 * itself for fp32 C and on an fp32 copy of C for fp16 C, narrowed back once
 * by a reorder (one rounding, as numpy's float32 -> float16). For int32 C the
 * int8 product accumulates in int32 and alpha/beta are applied here in int32
 * (wrapping) arithmetic: oneDNN's scales are fp32 and would round results
 * above 2^24.
 *
 * Prepared primitives are kept in a small table keyed by shape, transposes,
 * types and (for float C) beta, which is part of the sum post-op; a repeated
 * call reuses them. Scratch memory (the fp32 copies, the int32 accumulator,
 * oneDNN's scratchpad) is a per-thread buffer that grows to the largest job
 * the worker has run and is freed when the worker ends. */
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
    dnnl_primitive_t mm;          /* the matmul */
    dnnl_primitive_t cvt_a, cvt_b; /* fp16 -> fp32 of A and B (fp16 inputs) */
    dnnl_primitive_t c_in, c_out;  /* fp16 C -> fp32 copy (beta != 0), fp32 -> fp16 C */
    dnnl_memory_desc_t a_md, b_md, d_md; /* matmul src, weights, dst */
    dnnl_memory_desc_t a16, a32, b16, b32; /* flat buffers of the widenings */
    dnnl_memory_desc_t c16, scale_md, sp_md;
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
    dnnl_primitive_t all[] = {p->mm, p->cvt_a, p->cvt_b, p->c_in, p->c_out};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i]) dnnl_primitive_destroy(all[i]);
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

static dnnl_status_t make_reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                                  dnnl_primitive_t *out, cb_prim *p)
{
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_primitive_attr_create(&attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success) st = dnnl_reorder_primitive_desc_create(&pd, from, g_engine, to, g_engine, attr);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) return st;
    return prim_from_pd(pd, out, p);
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
        flat_md(&p->a16, M * K, dnnl_f16);
        flat_md(&p->a32, M * K, dnnl_f32);
        flat_md(&p->b16, K * N, dnnl_f16);
        flat_md(&p->b32, K * N, dnnl_f32);
        p->off_a32 = off;
        off = align_up(off + (size_t)(M * K) * 4);
        p->off_b32 = off;
        off = align_up(off + (size_t)(K * N) * 4);
        st = make_reorder(&p->a16, &p->a32, &p->cvt_a, p);
        if (st == dnnl_success) st = make_reorder(&p->b16, &p->b32, &p->cvt_b, p);
    }
    if (key->c_type != ACL_FLOAT) { /* fp16 C's fp32 copy, or int32 C's accumulator */
        p->off_c = off;
        off = align_up(off + (size_t)(M * N) * 4);
    }
    if (st == dnnl_success && key->c_type == ACL_FLOAT16) {
        mat_md(&p->c16, M, N, 0, dnnl_f16);
        if (key->has_beta) st = make_reorder(&p->c16, &p->d_md, &p->c_in, p);
        if (st == dnnl_success) st = make_reorder(&p->d_md, &p->c16, &p->c_out, p);
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

static float scalar_f(const void *p, aclDataType t)
{
    if (t == ACL_FLOAT16) return half_to_float(*(const uint16_t *)p);
    float f;
    memcpy(&f, p, sizeof(f));
    return f;
}

typedef struct cb_args {
    dnnl_exec_arg_t a[6];
    int n;
} cb_args;

static void arg_add(cb_args *x, int what, dnnl_memory_t m)
{
    x->a[x->n].arg = what;
    x->a[x->n].memory = m;
    x->n++;
}

/* Memory objects of one run, released together. */
typedef struct cb_mems {
    dnnl_memory_t m[16]; /* at most 13: scratchpad, 4 reorders x 2, matmul 4 */
    int n;
} cb_mems;

static dnnl_status_t mem_new(cb_mems *ms, const dnnl_memory_desc_t *md, const void *ptr, dnnl_memory_t *out)
{
    dnnl_status_t st = dnnl_memory_create(out, md, g_engine, (void *)ptr);
    if (st == dnnl_success) ms->m[ms->n++] = *out;
    return st;
}

static dnnl_status_t run_reorder(cb_mems *ms, dnnl_stream_t s, dnnl_primitive_t r, const dnnl_memory_desc_t *from_md,
                                 const void *from, const dnnl_memory_desc_t *to_md, void *to, dnnl_memory_t sp)
{
    dnnl_memory_t mf, mt;
    dnnl_status_t st = mem_new(ms, from_md, from, &mf);
    if (st == dnnl_success) st = mem_new(ms, to_md, to, &mt);
    if (st != dnnl_success) return st;
    cb_args x = {.n = 0};
    arg_add(&x, DNNL_ARG_FROM, mf);
    arg_add(&x, DNNL_ARG_TO, mt);
    if (sp) arg_add(&x, DNNL_ARG_SCRATCHPAD, sp);
    return dnnl_primitive_execute(r, s, x.n, x.a);
}

/* int32 C = alpha * acc + beta * C, wrapping as int32 arithmetic does in
 * numpy (computed unsigned: signed overflow is undefined in C). */
static void epilogue_s32(int32_t *c, const int32_t *acc, int64_t count, int32_t alpha, int32_t beta)
{
    const uint32_t ua = (uint32_t)alpha, ub = (uint32_t)beta;
#pragma omp parallel for if (count >= (1 << 16)) schedule(static)
    for (int64_t i = 0; i < count; i++) {
        uint32_t v = ua * (uint32_t)acc[i];
        if (ub) v += ub * (uint32_t)c[i];
        c[i] = (int32_t)v;
    }
}

static int job_exec(const cb_job *j, const cb_prim *p, cb_tls *t)
{
    char *scr = t->buf;
    cb_mems ms = {.n = 0};
    dnnl_memory_t sp = NULL, ma, mb, md, mscale;
    dnnl_status_t st = dnnl_success;
    const char *what = "memory creation";
    const void *a = j->a, *b = j->b;
    void *dst = j->c;
    float alpha_f = 1.0f;
    int32_t alpha_i = 1, beta_i = 0;

    if (dnnl_memory_desc_get_size(&p->sp_md)) st = mem_new(&ms, &p->sp_md, scr + p->off_sp, &sp);
    if (st == dnnl_success && p->cvt_a) {
        what = "fp16 widening";
        st = run_reorder(&ms, t->stream, p->cvt_a, &p->a16, j->a, &p->a32, scr + p->off_a32, sp);
        if (st == dnnl_success)
            st = run_reorder(&ms, t->stream, p->cvt_b, &p->b16, j->b, &p->b32, scr + p->off_b32, sp);
        a = scr + p->off_a32;
        b = scr + p->off_b32;
    }
    if (j->c_type == ACL_INT32) {
        memcpy(&alpha_i, j->alpha, sizeof(alpha_i));
        memcpy(&beta_i, j->beta, sizeof(beta_i));
        if (alpha_i != 1 || beta_i != 0) dst = scr + p->off_c;
    } else {
        alpha_f = scalar_f(j->alpha, j->c_type);
        if (j->c_type == ACL_FLOAT16) {
            dst = scr + p->off_c;
            if (st == dnnl_success && p->c_in) {
                what = "fp16 C widening";
                st = run_reorder(&ms, t->stream, p->c_in, &p->c16, j->c, &p->d_md, dst, sp);
            }
        }
    }
    if (st == dnnl_success) {
        what = "matmul";
        cb_args x = {.n = 0};
        st = mem_new(&ms, &p->a_md, a, &ma);
        if (st == dnnl_success) st = mem_new(&ms, &p->b_md, b, &mb);
        if (st == dnnl_success) st = mem_new(&ms, &p->d_md, dst, &md);
        if (st == dnnl_success && p->scaled) st = mem_new(&ms, &p->scale_md, &alpha_f, &mscale);
        if (st == dnnl_success) {
            arg_add(&x, DNNL_ARG_SRC, ma);
            arg_add(&x, DNNL_ARG_WEIGHTS, mb);
            arg_add(&x, DNNL_ARG_DST, md);
            if (p->scaled) arg_add(&x, DNNL_ARG_ATTR_OUTPUT_SCALES, mscale);
            if (sp) arg_add(&x, DNNL_ARG_SCRATCHPAD, sp);
            st = dnnl_primitive_execute(p->mm, t->stream, x.n, x.a);
        }
    }
    if (st == dnnl_success && j->c_type == ACL_FLOAT16) {
        what = "fp16 narrowing";
        st = run_reorder(&ms, t->stream, p->c_out, &p->d_md, dst, &p->c16, j->c, sp);
    }
    if (st == dnnl_success) {
        what = "stream wait";
        st = dnnl_stream_wait(t->stream);
    }
    for (int i = 0; i < ms.n; i++) dnnl_memory_destroy(ms.m[i]);
    if (st != dnnl_success) return fail_dnnl(j, what, st);
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
