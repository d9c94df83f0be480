/* oneDNN plumbing for the dnnl kernels (see dn_common.h). One CPU engine for
 * the process, created on first use; one stream per thread, created on the
 * thread's first run and destroyed when the thread exits. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "kernels/dnnl/dn_common.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <omp.h>
#include <pthread.h>
#include <string.h>

static dnnl_engine_t g_engine;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_stream_key;
static __thread dnnl_stream_t t_stream;

static void stream_dtor(void *p)
{
    if (p) dnnl_stream_destroy((dnnl_stream_t)p);
}

/* lib/ompenv: what the early constructor set for libgomp's waiting. Looked
 * up at run time rather than referenced, so linking an application against
 * libascendcl never needs that library's symbols (a CANN-style stub/ folder
 * or a bare -lascendcl link works); the loader still loads it first, being
 * among libascendcl's DT_NEEDED entries. */
static const char *ompenv_applied(void)
{
    const char *(*fn)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "openacl_ompenv_applied");
    memcpy(&fn, &sym, sizeof(fn)); /* object pointer to function pointer, without -Wpedantic's complaint */
    return fn ? fn() : "unknown (libascendcl_ompenv is not loaded)";
}

static void engine_make(void)
{
    acl_log(1, "OpenMP waiting: %s", ompenv_applied());
    if (dnnl_engine_create(&g_engine, dnnl_cpu, 0) != dnnl_success) g_engine = NULL;
    pthread_key_create(&g_stream_key, stream_dtor);
}

dnnl_engine_t dn_engine(void)
{
    pthread_once(&g_engine_once, engine_make);
    return g_engine;
}

dnnl_stream_t dn_stream(void)
{
    if (t_stream) return t_stream;
    dnnl_engine_t e = dn_engine();
    if (!e) return NULL;
    if (dnnl_stream_create(&t_stream, e, dnnl_stream_default_flags) != dnnl_success) {
        t_stream = NULL;
        return NULL;
    }
    pthread_setspecific(g_stream_key, t_stream);
    return t_stream;
}

static const char *st_name(dnnl_status_t st)
{
    switch (st) {
    case dnnl_success: return "success";
    case dnnl_out_of_memory: return "out of memory";
    case dnnl_invalid_arguments: return "invalid arguments";
    case dnnl_unimplemented: return "unimplemented";
    case dnnl_iterator_ends: return "iterator ends";
    case dnnl_runtime_error: return "runtime error";
    case dnnl_not_required: return "not required";
    default: return "unknown status";
    }
}

int dn_check(dnnl_status_t st, const g_node *n, const char *what)
{
    if (st == dnnl_success) return 0;
    int code = st == dnnl_out_of_memory ? ACL_ERROR_BAD_ALLOC :
               st == dnnl_unimplemented ? ACL_ERROR_FEATURE_UNSUPPORTED : ACL_ERROR_INTERNAL_ERROR;
    return acl_fail(code, "node '%s' (%s, opset %d, impl dnnl): oneDNN %s failed: %s",
                    n ? n->name : "?", n ? n->op_type : "?", n ? n->opset : 0, what, st_name(st));
}

int dn_has_bf16(void)
{
    static int has = -1;
    if (has < 0) {
        dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
        has = isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_amx;
    }
    return has;
}

int dn_has_avx512(void)
{
    static int has = -1;
    if (has < 0) {
#if defined(__x86_64__) && defined(__GNUC__)
        /* what the CPU has and what oneDNN is allowed to use (ONEDNN_MAX_CPU_ISA
         * caps both, so a capped run behaves as the smaller machine would) */
        dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
        has = __builtin_cpu_supports("avx512f") &&
              (isa == dnnl_cpu_isa_avx512_core || isa == dnnl_cpu_isa_avx512_core_vnni ||
               isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_amx);
#else
        has = 0;
#endif
    }
    return has;
}

int dn_threads(const k_ctx *ctx)
{
    int cur = omp_get_max_threads();
    if (ctx && ctx->threads > 0 && ctx->threads != cur) {
        omp_set_num_threads(ctx->threads);
        cur = ctx->threads;
    }
    return cur;
}

int dn_md_act(dnnl_memory_desc_t *md, const g_shape *s, int channels_last, dnnl_data_type_t dt)
{
    dnnl_dims_t d;
    for (int i = 0; i < s->rank; i++) d[i] = s->d[i];
    dnnl_format_tag_t tag;
    switch (s->rank) {
    case 3: tag = channels_last ? dnnl_nwc : dnnl_ncw; break;
    case 4: tag = channels_last ? dnnl_nhwc : dnnl_nchw; break;
    case 5: tag = channels_last ? dnnl_ndhwc : dnnl_ncdhw; break;
    default: return dn_md_plain(md, s, dt);
    }
    return dnnl_memory_desc_init_by_tag(md, s->rank, d, dt, tag) == dnnl_success ? 0 : -1;
}

int dn_md_plain(dnnl_memory_desc_t *md, const g_shape *s, dnnl_data_type_t dt)
{
    dnnl_dims_t d, st;
    int r = s->rank > 0 ? s->rank : 1;
    if (s->rank <= 0) d[0] = 1;
    else for (int i = 0; i < r; i++) d[i] = s->d[i];
    dnnl_dim_t acc = 1;
    for (int i = r - 1; i >= 0; i--) { st[i] = acc; acc *= d[i] > 0 ? d[i] : 1; }
    return dnnl_memory_desc_init_by_strides(md, r, d, dt, st) == dnnl_success ? 0 : -1;
}

static dnnl_status_t elt(dnnl_post_ops_t po, dnnl_alg_kind_t alg, float a, float b)
{
    return dnnl_post_ops_append_eltwise(po, 1.f, alg, a, b);
}

/* Appends p's operations to po; *idx counts oneDNN entries. qsum (int8
 * convolutions): the add is a sum post-op of that scale and zero point. */
typedef struct qsum_t { float scale; int32_t zp; } qsum_t;
static dnnl_status_t post_append_q(dnnl_post_ops_t po, const nn_post *p, const dnnl_memory_desc_t *add_md,
                                   int *idx, int *add_idx, const qsum_t *qsum)
{
    dnnl_status_t st = dnnl_success;
    for (int i = 0; i < p->n && st == dnnl_success; i++) {
        float a = p->a[i], b = p->b[i];
        switch (p->kind[i]) {
        case NN_PO_RELU: st = elt(po, dnnl_eltwise_relu, a, 0.f); break;
        case NN_PO_CLIP: st = elt(po, dnnl_eltwise_clip_v2, a, b); break;
        case NN_PO_SIGMOID: st = elt(po, dnnl_eltwise_logistic, 0.f, 0.f); break;
        case NN_PO_TANH: st = elt(po, dnnl_eltwise_tanh, 0.f, 0.f); break;
        case NN_PO_HSIGMOID:
            st = elt(po, dnnl_eltwise_linear, a, b);
            if (st == dnnl_success) { (*idx)++; st = elt(po, dnnl_eltwise_clip_v2, 0.f, 1.f); }
            break;
        case NN_PO_HSWISH: st = elt(po, dnnl_eltwise_hardswish, 0.f, 0.f); break;
        case NN_PO_GELU_ERF: st = elt(po, dnnl_eltwise_gelu_erf, 0.f, 0.f); break;
        case NN_PO_GELU_TANH: st = elt(po, dnnl_eltwise_gelu_tanh, 0.f, 0.f); break;
        case NN_PO_SILU: st = elt(po, dnnl_eltwise_swish, a, 0.f); break;
        case NN_PO_ELU: st = elt(po, dnnl_eltwise_elu, a, 0.f); break;
        case NN_PO_LINEAR: st = elt(po, dnnl_eltwise_linear, a, b); break;
        case NN_PO_ROUND: st = elt(po, dnnl_eltwise_round, 0.f, 0.f); break;
        case NN_PO_ADD:
            /* without a descriptor: an in-place sum, the caller puts the
             * addend in the destination first */
            st = qsum ? dnnl_post_ops_append_sum_v3(po, qsum->scale, qsum->zp, dnnl_data_type_undef)
                 : add_md ? dnnl_post_ops_append_binary(po, dnnl_binary_add, add_md)
                          : dnnl_post_ops_append_sum(po, 1.f);
            *add_idx = *idx;
            break;
        default: st = dnnl_unimplemented; break;
        }
        (*idx)++;
    }
    return st;
}

static dnnl_status_t post_append(dnnl_post_ops_t po, const nn_post *p,
                                 const dnnl_memory_desc_t *add_md, int *idx, int *add_idx)
{
    return post_append_q(po, p, add_md, idx, add_idx, NULL);
}

int dn_post_ops_qsum(const g_node *n, const nn_post *p, float sum_scale, int32_t sum_zp,
                     dnnl_primitive_attr_t attr)
{
    if (!p->n) return 0;
    if (nn_post_conflict(p)) return -1;
    dnnl_post_ops_t po;
    DN_TRY(n, dnnl_post_ops_create(&po));
    int idx = 0, add_idx = -1;
    qsum_t q = { sum_scale, sum_zp };
    dnnl_status_t st = post_append_q(po, p, NULL, &idx, &add_idx, &q);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_post_ops_destroy(po);
    return st == dnnl_success ? 0 : -1;
}

int dn_post_ops(const g_node *n, const nn_post *p, const dnnl_memory_desc_t *add_md,
                const dnnl_memory_desc_t *lead_md, dnnl_primitive_attr_t attr, int *add_idx)
{
    *add_idx = -1;
    if (!p->n && !lead_md) return 0;
    if (nn_post_conflict(p)) return -1;   /* silently: the caller falls back */
    dnnl_post_ops_t po;
    DN_TRY(n, dnnl_post_ops_create(&po));
    dnnl_status_t st = dnnl_success;
    int idx = 0;
    if (lead_md) {
        st = dnnl_post_ops_append_binary(po, dnnl_binary_add, lead_md);
        idx++;
    }
    if (st == dnnl_success) st = post_append(po, p, add_md, &idx, add_idx);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_post_ops_destroy(po);
    return dn_check(st, n, "post-op setup");
}

int dn_dw_post_ops(const g_node *n, const nn_post *p, const nn_dw *d, dnnl_primitive_attr_t attr)
{
    /* one chain for oneDNN's injector: check it whole */
    nn_post all = *p;
    if (p->has_add || p->n + d->po.n > NN_MAX_PO) return -1;
    for (int i = 0; i < d->po.n; i++) {
        all.kind[all.n] = d->po.kind[i]; all.a[all.n] = d->po.a[i]; all.b[all.n] = d->po.b[i];
        all.n++;
    }
    if (nn_post_conflict(&all)) return -1;
    dnnl_post_ops_t po;
    if (dnnl_post_ops_create(&po) != dnnl_success) return -1;
    int idx = 0, add_idx = -1;
    dnnl_status_t st = post_append(po, p, NULL, &idx, &add_idx);
    if (st == dnnl_success)
        st = dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 3, d->stride, 1, 0, 0, NULL);
    if (st == dnnl_success) st = post_append(po, &d->po, NULL, &idx, &add_idx);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_post_ops_destroy(po);
    return st == dnnl_success ? 0 : -1;
}

dnnl_status_t dn_pd_create(dnnl_primitive_desc_t *pd, const_dnnl_op_desc_t op_desc,
                           const_dnnl_primitive_attr_t attr, const char *prefer)
{
    *pd = NULL;
    if (!prefer) return dnnl_primitive_desc_create(pd, op_desc, attr, dn_engine(), NULL);
    dnnl_primitive_desc_iterator_t it;
    dnnl_status_t st = dnnl_primitive_desc_iterator_create(&it, op_desc, attr, dn_engine(), NULL);
    if (st != dnnl_success) return st;
    dnnl_primitive_desc_t first = NULL;
    do {
        dnnl_primitive_desc_t cand = dnnl_primitive_desc_iterator_fetch(it);
        if (!cand) break;
        const char *impl = NULL;
        dnnl_primitive_desc_query(cand, dnnl_query_impl_info_str, 0, &impl);
        if (impl && !strncmp(impl, prefer, strlen(prefer))) {
            if (first) dnnl_primitive_desc_destroy(first);
            *pd = cand;
            break;
        }
        if (!first) first = cand;
        else dnnl_primitive_desc_destroy(cand);
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    if (!*pd) *pd = first;
    return *pd ? dnnl_success : dnnl_unimplemented;
}

int dn_is_ref_impl(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl)
        return 0;
    return !strncmp(impl, "ref", 3);
}

int dn_impl_has(const_dnnl_primitive_desc_t pd, const char *what)
{
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl)
        return 0;
    return strstr(impl, what) != NULL;
}

size_t dn_scratch_size(const_dnnl_primitive_desc_t pd)
{
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    return md ? dnnl_memory_desc_get_size(md) : 0;
}

int dn_mem(const g_node *n, const dnnl_memory_desc_t *md, dnnl_memory_t *m)
{
    DN_TRY(n, dnnl_memory_create(m, md, dn_engine(), DNNL_MEMORY_NONE));
    return 0;
}

void dn_mem_free(dnnl_memory_t *m)
{
    if (*m) dnnl_memory_destroy(*m);
    *m = NULL;
}

void dn_prim_free(dnnl_primitive_t *p)
{
    if (*p) dnnl_primitive_destroy(*p);
    *p = NULL;
}

int dn_reorder_prim(const g_node *n, const dnnl_memory_desc_t *src_md,
                    const dnnl_memory_desc_t *dst_md, dnnl_primitive_t *prim)
{
    /* plain <-> channels-last reorders need no scratchpad, so the default
     * attributes allocate nothing at run time */
    dnnl_engine_t e = dn_engine();
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, src_md, e, dst_md, e, NULL);
    if (st == dnnl_success) st = dnnl_primitive_create(prim, pd);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return dn_check(st, n, "reorder creation");
}

int dn_reorder_once(const g_node *n, const dnnl_memory_desc_t *src_md, void *src,
                    const dnnl_memory_desc_t *dst_md, void *dst)
{
    dnnl_engine_t e = dn_engine();
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t ms = NULL, md = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, src_md, e, dst_md, e, NULL);
    if (st == dnnl_success) st = dnnl_primitive_create(&prim, pd);
    if (st == dnnl_success) st = dnnl_memory_create(&ms, src_md, e, src);
    if (st == dnnl_success) st = dnnl_memory_create(&md, dst_md, e, dst);
    if (st == dnnl_success) {
        dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, ms }, { DNNL_ARG_TO, md } };
        dnnl_stream_t s = dn_stream();
        st = s ? dnnl_primitive_execute(prim, s, 2, args) : dnnl_runtime_error;
        if (st == dnnl_success) st = dnnl_stream_wait(s);
    }
    if (ms) dnnl_memory_destroy(ms);
    if (md) dnnl_memory_destroy(md);
    if (prim) dnnl_primitive_destroy(prim);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return dn_check(st, n, "weight reorder");
}

/* ---- dn_pk: packed areas and own run memory (dn_common.h) ---- */

void dn_pk_free(dn_pk *p)
{
    free(p->own_packed);
    free(p->own_scratch);
    p->own_packed = p->own_scratch = NULL;
    p->own_scratch_bytes = 0;
}

int dn_pk_own_packed(const g_node *n, dn_pk *p, size_t bytes, void **area)
{
    free(p->own_packed);
    p->own_packed = aligned_alloc(64, dn_align(bytes + 1));
    *area = p->own_packed;
    if (!p->own_packed)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    return 0;
}

int dn_pk_grow_scratch(const g_node *n, dn_pk *p, size_t need, char **scr)
{
    if (p->own_scratch_bytes < need) {
        free(p->own_scratch);
        p->own_scratch_bytes = 0;
        if (!(p->own_scratch = aligned_alloc(64, dn_align(need + 1))))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory for %zu bytes of scratch",
                            n->name, n->op_type, need);
        p->own_scratch_bytes = need;
    }
    *scr = p->own_scratch;
    return 0;
}

int dn_set_handle(const g_node *n, dnnl_memory_t m, const void *p)
{
    return dn_check(dnnl_memory_set_data_handle(m, (void *)p), n, "set data handle");
}

int dn_reorder_exec(const g_node *n, dnnl_primitive_t p, dnnl_stream_t strm, dnnl_memory_t from,
                    dnnl_memory_t to)
{
    dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, from }, { DNNL_ARG_TO, to } };
    return dn_check(dnnl_primitive_execute(p, strm, 2, a), n, "reorder");
}

/* The oneDNN Conv's answer to the fusion pass (k_op.fuse_dw, dn_conv.c):
 * whether oneDNN runs a 1x1 convolution C -> M on an H x W plane with
 * post-ops pa followed by the depthwise step d as one fused jit primitive
 * (on the blocked layout dconv_build then uses). */
int dn_conv_fuse_dw(const k_dw_fusion *q)
{
    int64_t C = q->C, M = q->M, H = q->H, W = q->W;
    const nn_post *pa = q->pa;
    const nn_dw *d = q->d;
    if (!dn_engine() || pa->has_add) return 0;
    dnnl_memory_desc_t x, w, b, y, yf;
    dnnl_dims_t xd = { 1, C, H, W }, wd = { M, C, 1, 1 }, bd = { M }, yd = { 1, M, H, W };
    dnnl_dims_t fd = { 1, M, (H - 1) / d->stride + 1, (W - 1) / d->stride + 1 };
    dnnl_dims_t one = { 1, 1 }, zero = { 0, 0 };
    if (C % 16 || M % 16) return 0;
    dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_init_by_tag(&w, 4, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&b, 1, bd, dnnl_f32, dnnl_x);
    dnnl_memory_desc_init_by_tag(&y, 4, yd, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_init_by_tag(&yf, 4, fd, dnnl_f32, dnnl_nChw16c);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int ok = 0;
    if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                           &x, &w, &b, &y, one, zero, zero) == dnnl_success &&
        dnnl_primitive_attr_create(&attr) == dnnl_success &&
        dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success &&
        !dn_dw_post_ops(NULL, pa, d, attr) &&
        dnnl_primitive_desc_create(&pd, &cd, attr, dn_engine(), NULL) == dnnl_success)
        /* only a true fusion pays: not oneDNN's two-step "ref_fused" */
        ok = dn_impl_has(pd, "jit_1x1") && !dn_is_ref_impl(pd) &&
             dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), &yf);
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return ok;
}
