/* Small helpers shared by the single-layer benchmark tools (qconv_mm.c,
 * qconv_wino.c, qpw_bench.c): a clock in milliseconds, a comparison for
 * sorting timings, a memory's data pointer, a blocking reorder from one
 * memory into another, a primitive with its memories, one waited-for
 * execution. */
#ifndef OPENACL_BENCH_DNNL_BENCH_H
#define OPENACL_BENCH_DNNL_BENCH_H
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <time.h>

/* clock c (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) in milliseconds */
static inline double bd_now_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* qsort's comparison of doubles, ascending */
static inline int bd_cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void *bd_handle(dnnl_memory_t m)
{
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    return h;
}

/* 0 on success, -1 when oneDNN has no such reorder or it failed */
static inline int bd_reorder(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *fmd, *tmd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    dnnl_memory_get_memory_desc(from, &fmd);
    dnnl_memory_get_memory_desc(to, &tmd);
    if (dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, NULL) != dnnl_success) return -1;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) return -1;
    dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, from }, { DNNL_ARG_TO, to } };
    st = dnnl_primitive_execute(p, strm, 2, a);
    dnnl_stream_wait(strm);
    dnnl_primitive_destroy(p);
    return st == dnnl_success ? 0 : -1;
}

/* pd's primitive (pd destroyed here) with newly allocated source x,
 * destination y, weight w and scratchpad sp memories, and its
 * implementation's name in impl: 0 or -1 */
static inline int bd_make(dnnl_primitive_desc_t pd, dnnl_engine_t eng, const dnnl_memory_desc_t *xmd,
                          const dnnl_memory_desc_t *ymd, dnnl_primitive_t *p, dnnl_memory_t *x, dnnl_memory_t *y,
                          dnnl_memory_t *w, dnnl_memory_t *sp, char *impl, size_t impl_len)
{
    const char *name = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
    snprintf(impl, impl_len, "%s", name);
    const dnnl_memory_desc_t *pw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *ps = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int bad = dnnl_primitive_create(p, pd) != dnnl_success ||
              dnnl_memory_create(x, xmd, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
              dnnl_memory_create(y, ymd, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
              dnnl_memory_create(w, pw, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
              dnnl_memory_create(sp, ps, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success;
    dnnl_primitive_desc_destroy(pd);
    return bad ? -1 : 0;
}

/* One forward convolution or matmul with bias and a user scratchpad,
 * waited for: 0 or -1 */
static inline int bd_exec(dnnl_primitive_t p, dnnl_stream_t strm, dnnl_memory_t x, dnnl_memory_t w,
                          dnnl_memory_t b, dnnl_memory_t y, dnnl_memory_t sp)
{
    dnnl_exec_arg_t a[5] = { { DNNL_ARG_SRC, x }, { DNNL_ARG_WEIGHTS, w }, { DNNL_ARG_BIAS, b },
                             { DNNL_ARG_DST, y }, { DNNL_ARG_SCRATCHPAD, sp } };
    dnnl_status_t s = dnnl_primitive_execute(p, strm, 5, a);
    dnnl_stream_wait(strm);
    return s == dnnl_success ? 0 : -1;
}
#endif
