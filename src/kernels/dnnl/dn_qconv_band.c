/* int8 convolutions as bands of output rows (dn_qconv_band.h). */
#include "kernels/dnnl/dn_qconv_band.h"
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
    dn_band_free(b);
    if (nb < 2 || nb > DN_BAND_MAX || g->OH < DN_BAND_MIN_ROWS * nb) return 0;
    /* each band's kernel is configured for the one thread that runs it */
    int cur = omp_get_max_threads(), ok = 1, err = 0;
    omp_set_num_threads(1);
    for (int i = 0; i <= nb; i++) b->r0[i] = g->OH * i / nb;
    for (int i = 0; i < nb && ok; i++) ok = rband_one(n, b, i, g, wmd, has_bias, fn, ctx, &err);
    omp_set_num_threads(cur);
    if (!ok) {
        dn_band_free(b);
        if (!err) acl_last_error(1);   /* the whole-layer primitive runs instead */
        return err;
    }
    b->xrow = (size_t)(g->W * g->C);
    b->yrow = (size_t)(g->OW * g->M);
    b->n = nb;
    return 0;
}

static int rband_exec(const g_node *n, dn_band *b, int i, void *ctx)
{
    return dn_band_exec(n, b, i, ctx);
}

int dq_rband_run(const g_node *n, dq_rband *b, const void *x, const void *w, const void *bias, dnnl_memory_t xz,
                 dnnl_memory_t yz, void *y, char *scr, int nthr)
{
    dn_band_io io = { .x = x, .w = w, .bias = bias, .y = y, .scr = scr, .xz = xz, .yz = yz,
                      .what = "int8 convolution band" };
    return dn_band_par(n, b, nthr, rband_exec, &io, "int8 convolution band");
}
