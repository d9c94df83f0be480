/* Kernel registry: every K_REGISTER()ed k_op lands in the "oa_kops" linker
 * section; lookups walk that array and return matches best first. */
#include "kernels/kernel.h"
#include <stdlib.h>
#include <string.h>

extern const k_op *const __start_oa_kops[] __attribute__((weak, visibility("hidden")));
extern const k_op *const __stop_oa_kops[] __attribute__((weak, visibility("hidden")));

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

int k_find(const char *op_type, const char *domain, int opset, const k_op **out, int max)
{
    int n = 0, ref_only = k_force_ref();
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

int k_known(const char *op_type, const char *domain)
{
    if (!__start_oa_kops) return 0;
    for (const k_op *const *p = __start_oa_kops; p < __stop_oa_kops; p++)
        if (!strcmp((*p)->op_type, op_type) && dom_eq((*p)->domain, domain)) return 1;
    return 0;
}
