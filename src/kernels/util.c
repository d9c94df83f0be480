/* Small helpers shared by every kernel: NumPy broadcasting of two shapes and
 * the byte size of a k_tensor. */
#include "kernels/kernel.h"
#include "graph/errs.h"
#include "core/core.h"

/* Multidirectional (NumPy) broadcasting. Unknown dims (< 0) propagate unless
 * the other side pins the result: a known dim other than 1 wins, since the
 * unknown one must then be 1 or equal to it. */
int k_broadcast(const g_node *n, const g_shape *a, const g_shape *b, g_shape *out)
{
    if (a->rank < 0 || b->rank < 0) {
        out->rank = -1;
        return 0;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    if (r > G_MAX_RANK)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): broadcast rank %d exceeds %d",
                        n ? n->name : "?", n ? n->op_type : "?", r, G_MAX_RANK);
    g_shape o;
    o.rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        int64_t d;
        if (da == db) d = da;
        else if (da == 1) d = db;
        else if (db == 1) d = da;
        else if (da < 0) d = db;
        else if (db < 0) d = da;
        else {
            char sa[96], sb[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): shapes %s and %s "
                            "cannot be broadcast (axis %d: %lld vs %lld)",
                            n ? n->name : "?", n ? n->op_type : "?", n ? n->opset : 0,
                            g_shape_str(a, sa, sizeof sa), g_shape_str(b, sb, sizeof sb), i,
                            (long long)da, (long long)db);
        }
        o.d[i] = d;
    }
    for (int i = r; i < G_MAX_RANK; i++) o.d[i] = 0;
    *out = o;
    return 0;
}

size_t k_nbytes(const k_tensor *t)
{
    int64_t n = g_shape_numel(&t->shape);
    size_t es = g_dtype_size(t->dtype);
    if (n < 0 || es == 0) return 0;
    if ((uint64_t)n > SIZE_MAX / es) return 0;
    return (size_t)n * es;
}
