/* Convolutions as bands of output rows (dn_conv_band.h): one oneDNN
 * primitive per band, built for one thread, the threads each running their
 * own bands inside one parallel region. */
#include "kernels/dnnl/dn_conv_band.h"
#include "core/par.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

int dn_conv_bands_mode(void)
{
    const char *e = getenv("OPENACL_CONV_BANDS");
    if (!e || !*e || !strcmp(e, "small")) return DN_BANDS_SMALL;
    if (!strcmp(e, "grouped")) return DN_BANDS_GROUPED;
    if (!strcmp(e, "all")) return DN_BANDS_ALL;
    return DN_BANDS_OFF;
}

void dn_band_free(dn_band *b)
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

/* The descriptor of band i: output rows [r0, r1), the input rows they read
 * and the padding that is left at either end. */
static dnnl_status_t band_pd(dn_band *b, int i, const dn_band_geo *g, const dnnl_memory_desc_t *wmd, int has_bias,
                             dnnl_primitive_attr_t attr)
{
    int64_t r0 = b->r0[i], r1 = b->r0[i + 1];
    int64_t keff = (g->KH - 1) * (g->dil[0] + 1) + 1;
    int64_t first = r0 * g->strides[0] - g->pl[0], last = (r1 - 1) * g->strides[0] - g->pl[0] + keff - 1;
    int64_t ia = first > 0 ? first : 0, ib = last < g->H - 1 ? last : g->H - 1;
    if (ib < ia) return dnnl_unimplemented;   /* a band of padding only */
    b->ir0[i] = ia;
    dnnl_memory_desc_t x, y, bm;
    dnnl_dims_t xd = { 1, g->C, ib - ia + 1, g->W }, yd = { 1, g->M, r1 - r0, g->OW }, bd = { g->M };
    dnnl_dims_t pl = { ia - first, g->pl[1] }, pr = { last - ib, g->pr[1] };
    if (dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, dnnl_nhwc) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&y, 4, yd, dnnl_f32, dnnl_nhwc) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&bm, 1, bd, dnnl_f32, dnnl_x) != dnnl_success)
        return dnnl_unimplemented;
    dnnl_convolution_desc_t cd;
    dnnl_status_t st = dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                           dnnl_convolution_direct, &x, wmd, has_bias ? &bm : NULL, &y, g->strides,
                           g->dil, pl, pr);
    if (st == dnnl_success) st = dnnl_primitive_desc_create(&b->pd[i], &cd, attr, dn_engine(), NULL);
    if (st != dnnl_success) return st;
    /* the whole layer's packed weights must serve every band */
    if (!dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(b->pd[i], dnnl_query_weights_md, 0), wmd) ||
        dn_is_ref_impl(b->pd[i]))
        return dnnl_unimplemented;
    return dnnl_success;
}

static int band_mems(const g_node *n, dn_band *b, int i, const dnnl_memory_desc_t *wmd, int has_bias)
{
    dnnl_primitive_desc_t pd = b->pd[i];
    int rc = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), &b->mx[i]);
    if (!rc) rc = dn_mem(n, wmd, &b->mw[i]);
    if (!rc && has_bias) rc = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), &b->mb[i]);
    if (!rc) rc = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), &b->my[i]);
    size_t sp = dn_scratch_size(pd);
    b->sp_off[i] = b->scratch;
    if (!rc && sp) {
        rc = dn_mem(n, dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0), &b->msp[i]);
        b->scratch = dn_align(b->scratch + sp);
    }
    return rc;
}

int dn_band_build(const g_node *n, dn_band *b, int nb, const dn_band_geo *g, const dnnl_memory_desc_t *wmd,
                  int has_bias, const nn_post *po)
{
    dn_band_free(b);
    if (nb < 2 || nb > DN_BAND_MAX || g->OH < DN_BAND_MIN_ROWS * nb) return 0;
    dnnl_primitive_attr_t attr = NULL;
    int add_idx = -1, ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
                           dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success &&
                           !dn_post_ops(n, po, NULL, NULL, attr, &add_idx);
    /* each band's kernel is configured for the one thread that runs it */
    int cur = omp_get_max_threads();
    omp_set_num_threads(1);
    for (int i = 0; i <= nb; i++) b->r0[i] = g->OH * i / nb;
    for (int i = 0; i < nb && ok; i++)
        ok = band_pd(b, i, g, wmd, has_bias, attr) == dnnl_success && !band_mems(n, b, i, wmd, has_bias);
    omp_set_num_threads(cur);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (!ok) {
        dn_band_free(b);
        acl_last_error(1);   /* the whole-layer primitive runs instead */
        return 0;
    }
    b->xrow = (size_t)(g->W * g->C) * sizeof(float);
    b->yrow = (size_t)(g->OW * g->M) * sizeof(float);
    b->n = nb;
    return 0;
}

int dn_band_exec(const g_node *n, dn_band *b, int i, const dn_band_io *io)
{
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    int r;
    if ((r = dn_set_handle(n, b->mx[i], (const char *)io->x + (size_t)b->ir0[i] * b->xrow)) ||
        (r = dn_set_handle(n, b->mw[i], io->w)) ||
        (r = dn_set_handle(n, b->my[i], (char *)io->y + (size_t)b->r0[i] * b->yrow)) ||
        (io->bias && (r = dn_set_handle(n, b->mb[i], io->bias))) ||
        (b->msp[i] && (r = dn_set_handle(n, b->msp[i], io->scr + b->sp_off[i]))))
        return r;
    dnnl_exec_arg_t a[7];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, b->mx[i] };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, b->mw[i] };
    if (io->bias) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, b->mb[i] };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, b->my[i] };
    if (b->msp[i]) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, b->msp[i] };
    if (io->xz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, io->xz };
    if (io->yz) a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, io->yz };
    if ((r = dn_check(dnnl_primitive_execute(b->prim[i], strm, na, a), n, io->what))) return r;
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

int dn_band_par(const g_node *n, dn_band *b, int nthr, int (*fn)(const g_node *n, dn_band *b, int i, void *ctx),
                void *ctx, const char *what)
{
    int r;
    for (int i = 0; i < b->n; i++)
        if (!b->prim[i] && (r = dn_check(dnnl_primitive_create(&b->prim[i], b->pd[i]), n, what))) return r;
    int err = 0, err_band = -1, err_here = 0;   /* err_here: the calling thread left the message */
    OA_PAR_REGION(nthr, {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int i = t; i < b->n; i += nt) {
            int e = fn(n, b, i, ctx);
            if (e) {
                __atomic_store_n(&err, e, __ATOMIC_RELAXED);
                __atomic_store_n(&err_band, i, __ATOMIC_RELAXED);
                if (t == 0) __atomic_store_n(&err_here, 1, __ATOMIC_RELAXED);
            }
        }
    });
    /* a worker's message stays on its thread: name the failure on the caller's */
    if (err && !err_here)
        return acl_fail(err, "node '%s': %s %d of %d failed on a worker thread", n->name, what, err_band, b->n);
    return err;
}

typedef struct band_f32 {
    dn_band_io io;
    int silu_div;
} band_f32;

/* Band i and, while its rows are in this core's cache, its SiLU. */
static int band_f32_one(const g_node *n, dn_band *b, int i, void *ctx)
{
    const band_f32 *c = ctx;
    int e = dn_band_exec(n, b, i, &c->io);
    if (!e && c->silu_div >= 0)
        dn_silu_f32((float *)((char *)c->io.y + (size_t)b->r0[i] * b->yrow),
                    (size_t)(b->r0[i + 1] - b->r0[i]) * b->yrow / sizeof(float), 1, c->silu_div);
    return e;
}

int dn_band_run(const g_node *n, dn_band *b, const void *x, const void *w, const void *bias, const void *addend,
                void *y, char *scr, int nthr, int silu_div)
{
    /* the sum post-op adds what the output holds */
    if (addend && addend != y) memcpy(y, addend, (size_t)(b->r0[b->n]) * b->yrow);
    band_f32 c = { .io = { .x = x, .w = w, .bias = bias, .y = y, .scr = scr, .what = "convolution band" },
                   .silu_div = silu_div };
    return dn_band_par(n, b, nthr, band_f32_one, &c, "convolution band");
}
