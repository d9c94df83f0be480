/* Kernel registry: every K_REGISTER()ed k_op lands in the "oa_kops" linker
 * section (every K_REGISTER_BACKEND()ed k_backend in "oa_kbackends"); lookups
 * walk those arrays and return matches best first. The questions passes and
 * the engine ask implementations (kernel.h) are routed here. */
#include "kernels/kernel.h"
#include "kernels/post.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The linker defines the bounds of a section only when some object puts
 * something in it: weak, so a program linking the registry without any
 * kernel (an internal unit test) still links and finds none. */
extern const k_op *const __start_oa_kops[] __attribute__((weak, visibility("hidden")));
extern const k_op *const __stop_oa_kops[] __attribute__((weak, visibility("hidden")));
extern const k_backend *const __start_oa_kbackends[] __attribute__((weak, visibility("hidden")));
extern const k_backend *const __stop_oa_kbackends[] __attribute__((weak, visibility("hidden")));

static int g_force_ref = -1;   /* -1: not decided yet, read the environment */

void k_set_force_ref(int on) { g_force_ref = on ? 1 : 0; }

int k_force_ref(void)
{
    if (g_force_ref < 0) {
        const char *e = getenv("OPENACL_FORCE_REF");
        g_force_ref = (e && *e && strcmp(e, "0") != 0) ? 1 : 0;
    }
    return g_force_ref;
}

static int dom_eq(const char *a, const char *b)
{
    if (!a || !strcmp(a, "ai.onnx")) a = "";
    if (!b || !strcmp(b, "ai.onnx")) b = "";
    return strcmp(a, b) == 0;
}

static int find(const char *op_type, const char *domain, int opset, int ref_only,
                const k_op **out, int max)
{
    int n = 0;
    if (!__start_oa_kops) return 0;
    for (const k_op *const *p = __start_oa_kops; p < __stop_oa_kops; p++) {
        const k_op *op = *p;
        if (strcmp(op->op_type, op_type) || !dom_eq(op->domain, domain)) continue;
        if (opset < op->since || (op->until && opset > op->until)) continue;
        if (ref_only && op->priority != 0) continue;
        if (n < max) out[n] = op;
        n++;
    }
    if (n > max) n = max;
    /* insertion sort by priority, highest first; stable for equal ones */
    for (int i = 1; i < n; i++) {
        const k_op *x = out[i];
        int j = i - 1;
        while (j >= 0 && out[j]->priority < x->priority) { out[j + 1] = out[j]; j--; }
        out[j + 1] = x;
    }
    return n;
}

int k_find(const char *op_type, const char *domain, int opset, const k_op **out, int max)
{
    return find(op_type, domain, opset, k_force_ref(), out, max);
}

int k_known(const char *op_type, const char *domain)
{
    if (!__start_oa_kops) return 0;
    for (const k_op *const *p = __start_oa_kops; p < __stop_oa_kops; p++)
        if (!strcmp((*p)->op_type, op_type) && dom_eq((*p)->domain, domain)) return 1;
    return 0;
}

/* ---- questions to implementations ---- */

int k_bf16_io(const g_node *n, int as_producer)
{
    return n->op && n->op->bf16_io && n->state ? n->op->bf16_io(n, n->state, as_producer) : 0;
}

int k_bf16_addend(const g_node *n, int j)
{
    return n->op && n->op->bf16_addend && n->state ? n->op->bf16_addend(n, n->state, j) : 0;
}

#define K_ASK_MAX 16

int k_reads_bf16(const g_graph *g, const g_node *n, int slot)
{
    const k_op *c[K_ASK_MAX];
    int nc = find(n->op_type, n->domain, n->opset, 0, c, K_ASK_MAX);
    for (int i = 0; i < nc; i++)
        if (c[i]->reads_bf16) return c[i]->reads_bf16(g, n, slot);
    return 0;
}

int k_fuse_dw(const g_node *n, const struct k_dw_fusion *q)
{
    const k_op *c[K_ASK_MAX];
    int nc = find(n->op_type, n->domain, n->opset, 0, c, K_ASK_MAX);
    for (int i = 0; i < nc; i++)
        if (c[i]->fuse_dw) return c[i]->fuse_dw(q);
    return 0;
}

static double numel(const k_tensor *t)
{
    if (!t || t->shape.rank < 0) return 0;
    double v = 1;
    for (int i = 0; i < t->shape.rank; i++) v *= t->shape.d[i] > 0 ? (double)t->shape.d[i] : 0;
    return v;
}

double k_flops(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    if (n->op && n->op->flops) return n->op->flops(n, in, out);
    return 4 * numel(&out[0]);   /* elementwise work, transcendental-ish */
}

/* per output element: weights / output channels multiply-adds */
double k_flops_conv(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    if (n->n_in > 1 && n->in[1] >= 0 && in[1].shape.rank >= 2 && in[1].shape.d[0] > 0)
        return 2 * numel(&out[0]) * (numel(&in[1]) / (double)in[1].shape.d[0]);
    return 4 * numel(&out[0]);
}

double k_flops_convt(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    if (n->n_in > 1 && n->in[1] >= 0 && in[1].shape.rank >= 2 && in[1].shape.d[0] > 0)
        return 2 * numel(&in[0]) * numel(&in[1]) / (double)in[1].shape.d[0];
    return 4 * numel(&out[0]);
}

static double mm_flops(const k_tensor *in, const k_tensor *out, int64_t k)
{
    return 2 * numel(&out[0]) * (double)(k > 0 ? k : 1);
}

double k_flops_matmul(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    (void)n;
    if (in[0].shape.rank < 1) return 4 * numel(&out[0]);
    return mm_flops(in, out, in[0].shape.d[in[0].shape.rank - 1]);
}

double k_flops_gemm(const g_node *n, const k_tensor *in, const k_tensor *out)
{
    if (in[0].shape.rank < 1) return 4 * numel(&out[0]);
    int64_t k = in[0].shape.d[in[0].shape.rank - 1];
    if (g_attr_int(n, "transA", 0) && in[0].shape.rank == 2) k = in[0].shape.d[0];
    return mm_flops(in, out, k);
}

/* ---- backends ---- */

const char *k_abi(void)
{
    /* per thread: the tags follow switches read per load */
    static __thread char buf[64];
    int w = snprintf(buf, sizeof buf, "openacl %s", OPENACL_VERSION_STRING);
    if (__start_oa_kbackends)
        for (const k_backend *const *p = __start_oa_kbackends; p < __stop_oa_kbackends; p++) {
            const char *t = (*p)->abi_tag ? (*p)->abi_tag() : NULL;
            if (t && w >= 0 && (size_t)w < sizeof buf) w += snprintf(buf + w, sizeof buf - (size_t)w, " %s", t);
        }
    return buf;
}

int k_cpu_bf16(void)
{
    if (__start_oa_kbackends)
        for (const k_backend *const *p = __start_oa_kbackends; p < __stop_oa_kbackends; p++)
            if ((*p)->has_bf16 && (*p)->has_bf16()) return 1;
    return 0;
}

/* ---- what the engine lends kernels ---- */

static const k_subgraph_host *g_sub_host;

void k_set_subgraph_host(const k_subgraph_host *h) { __atomic_store_n(&g_sub_host, h, __ATOMIC_RELEASE); }

const k_subgraph_host *k_get_subgraph_host(void) { return __atomic_load_n(&g_sub_host, __ATOMIC_ACQUIRE); }
