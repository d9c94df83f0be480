/* Helpers shared by the reference control-flow kernels (control.c) and the
 * sequence / optional kernels (sequence.c). */
#ifndef OPENACL_KERNELS_REF_CONTROL_H
#define OPENACL_KERNELS_REF_CONTROL_H
#include "kernels/kernel.h"
#include "graph/errs.h"
#include "core/core.h"
#include <stdarg.h>
#include <stdio.h>

/* acl_fail naming the node, its op and opset. */
static inline int cf_fail(const g_node *n, int code, const char *fmt, ...) OA_PRINTF(3, 4);
static inline int cf_fail(const g_node *n, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return acl_fail(code, "node '%s' (%s, opset %d): %s", n->name, n->op_type, n->opset, msg);
}

/* The value of a scalar integer tensor (int64, int32 or uint64; else 0). */
static inline int64_t read_i64(const k_tensor *t)
{
    switch (t->dtype) {
    case G_I64: return *(const int64_t *)t->data;
    case G_I32: return *(const int32_t *)t->data;
    case G_U64: return (int64_t)*(const uint64_t *)t->data;
    default: return 0;
    }
}

/* An axis in [-rank, rank) as 0..rank-1 (*out), or a failure naming n. */
static inline int norm_axis(const g_node *n, int64_t a, int rank, int *out)
{
    if (a < -rank || a >= rank)
        return cf_fail(n, ACL_ERROR_INVALID_PARAM, "axis %lld is out of range for rank %d",
                       (long long)a, rank);
    *out = (int)(a < 0 ? a + rank : a);
    return 0;
}

/* The dtype of n's input j in g (G_UNDEF when omitted). */
static inline int in_dtype(const g_graph *g, const g_node *n, int j)
{
    return j < n->n_in && n->in[j] >= 0 ? g->t[n->in[j]].dtype : G_UNDEF;
}

#endif
