/* int8 convolutions as bands of output rows (dn_qconv_band.h). */
#include "kernels/dnnl/dn_qconv_band.h"
#include "core/par.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void dq_band_rows(int64_t H, int64_t st, int64_t p, int64_t k, int64_t d, int64_t o0, int64_t r, int64_t *i0,
                  int64_t *ih, int64_t *pt, int64_t *pb)
{
    int64_t first = o0 * st - p, end = first + (r - 1) * st + (k - 1) * d + 1;
    int64_t a = first < 0 ? 0 : first, b = end > H ? H : end;
    *i0 = a;
    *ih = b - a;
    *pt = a - first;
    *pb = end - b;
}

int dq_tband(int nthr, int tb_max)
{
    const char *e = getenv("OPENACL_QCONV_TBANDS");
    return nthr > 1 && nthr <= tb_max && !(e && !strcmp(e, "0"));
}

int64_t dq_band_bytes(int nthr, int tband)
{
    const char *e = getenv("OPENACL_QCONV_BAND_KB");
    long kb = e && *e ? strtol(e, NULL, 10) : 256;
    return kb > 0 ? (int64_t)kb * 1024 * (nthr > 1 && !tband ? nthr : 1) : 0;
}

int dq_rband_mode(void)
{
    const char *e = getenv("OPENACL_QCONV_ROW_BANDS");   /* off unless asked: level on a quiet host */
    if (!e || !*e) return 0;
    return !strcmp(e, "all") ? 2 : !strcmp(e, "1") ? 1 : 0;
}

void dq_rband_free(dq_rband *b)
{
    for (int i = 0; i < DN_BAND_MAX; i++) {
        if (b->pd[i]) dnnl_primitive_desc_destroy(b->pd[i]);
        b->pd[i] = NULL;
        dn_prim_free(&b->prim[i]);
        dn_mem_free(&b->mx[i]); dn_mem_free(&b->mw[i]); dn_mem_free(&b->mb[i]);
        dn_mem_free(&b->my[i]); dn_mem_free(&b->msp[i]);
    }
    b->n = 0;
    b->scratch = 0;
}

/* Band i's descriptor (1 when oneDNN takes it with the layer's packed
 * weights and not by its reference code) and memories (*err on failure). */
static int rband_one(const g_node *n, dq_rband *b, int i, const dq_rband_geo *g, const dnnl_memory_desc_t *wmd,
                     int has_bias, dq_rband_pd_fn fn, void *ctx, int *err)
{
    int64_t i0, ih, pt, pb;
    dq_band_rows(g->H, g->st, g->pt, g->k, g->d, b->r0[i], b->r0[i + 1] - b->r0[i], &i0, &ih, &pt, &pb);
    if (ih <= 0 || fn(n, ctx, ih, b->r0[i + 1] - b->r0[i], pt, pb, &b->pd[i]) != dnnl_success) return 0;
    dnnl_primitive_desc_t pd = b->pd[i];
    const dnnl_memory_desc_t *w = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    if (!w || !dnnl_memory_desc_equal(w, wmd) || dn_is_ref_impl(pd)) return 0;
    b->ir0[i] = i0;
    if ((*err = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), &b->mx[i])) ||
        (*err = dn_mem(n, wmd, &b->mw[i])) ||
        (has_bias && (*err = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), &b->mb[i]))) ||
        (*err = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), &b->my[i])))
        return 0;
    size_t sp = dn_scratch_size(pd);
    b->sp_off[i] = b->scratch;
    if (sp) {
        if ((*err = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0), &b->msp[i]))) return 0;
        b->scratch = dn_align(b->scratch + sp);
    }
    return 1;
}

int dq_rband_build(const g_node *n, dq_rband *b, int nb, const dq_rband_geo *g, const dnnl_memory_desc_t *wmd,
                   int has_bias, dq_rband_pd_fn fn, void *ctx)
{
    dq_rband_free(b);
    if (nb < 2 || nb > DN_BAND_MAX || g->OH < DN_BAND_MIN_ROWS * nb) return 0;
    /* each band's kernel is configured for the one thread that runs it */
    int cur = omp_get_max_threads(), ok = 1, err = 0;
    omp_set_num_threads(1);
    for (int i = 0; i <= nb; i++) b->r0[i] = g->OH * i / nb;
    for (int i = 0; i < nb && ok; i++) ok = rband_one(n, b, i, g, wmd, has_bias, fn, ctx, &err);
    omp_set_num_threads(cur);
    if (!ok) {
        dq_rband_free(b);
        if (!err) acl_last_error(1);   /* the whole-layer primitive runs instead */
        return err;
    }
    b->xrow = (size_t)(g->W * g->C);
    b->yrow = (size_t)(g->OW * g->M);
    b->n = nb;
    return 0;
}

/* Band i on the calling thread (its own stream). */
static int rband_exec(const g_node *n, dq_rband *b, int i, const void *x, const void *w, const void *bias,
                      dnnl_memory_t xz, dnnl_memory_t yz, void *y, char *scr)
{
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    int r;
    if ((r = dn_set_handle(n, b->mx[i], (const char *)x + (size_t)b->ir0[i] * b->xrow)) ||
        (r = dn_set_handle(n, b->mw[i], w)) || (r = dn_set_handle(n, b->my[i], (char *)y + (size_t)b->r0[i] * b->yrow)) ||
        (bias && (r = dn_set_handle(n, b->mb[i], bias))) ||
        (b->msp[i] && (r = dn_set_handle(n, b->msp[i], scr + b->sp_off[i]))))
        return r;
    dnnl_exec_arg_t a[7];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, b->mx[i] };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, b->mw[i] };
    if (bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, b->mb[i] };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, b->my[i] };
    if (b->msp[i]) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, b->msp[i] };
    if (xz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, xz };
    if (yz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, yz };
    if ((r = dn_check(dnnl_primitive_execute(b->prim[i], strm, na, a), n, "int8 convolution band"))) return r;
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

int dq_rband_run(const g_node *n, dq_rband *b, const void *x, const void *w, const void *bias, dnnl_memory_t xz,
                 dnnl_memory_t yz, void *y, char *scr, int nthr)
{
    int r;
    for (int i = 0; i < b->n; i++)
        if (!b->prim[i] && (r = dn_check(dnnl_primitive_create(&b->prim[i], b->pd[i]), n,
                                         "int8 convolution band primitive creation")))
            return r;
    int err = 0, err_band = -1, err_here = 0;   /* err_here: the calling thread left the message */
    OA_PAR_REGION(nthr, {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int i = t; i < b->n; i += nt) {
            int e = rband_exec(n, b, i, x, w, bias, xz, yz, y, scr);
            if (e) {
                __atomic_store_n(&err, e, __ATOMIC_RELAXED);
                __atomic_store_n(&err_band, i, __ATOMIC_RELAXED);
                if (t == 0) __atomic_store_n(&err_here, 1, __ATOMIC_RELAXED);
            }
        }
    });
    /* a worker's message stays on its thread: name the failure on the caller's */
    if (err && !err_here)
        return acl_fail(err, "node '%s': int8 convolution band %d of %d failed on a worker thread", n->name,
                        err_band, b->n);
    return err;
}
