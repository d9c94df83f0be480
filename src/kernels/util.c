/* Small helpers shared by every kernel: NumPy broadcasting of two shapes, the
 * byte size of a k_tensor, and container (sequence / optional) values. */
#include "kernels/kernel.h"
#include "graph/errs.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

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

/* ---- containers ---- */

k_seq *k_seq_new(void)
{
    return calloc(1, sizeof(k_seq));
}

void k_value_free(k_tensor *v)
{
    if (!v) return;
    if (g_is_container(v->dtype)) k_seq_free(v->data);
    else free(v->data);
    v->data = NULL;
}

void k_seq_clear(k_seq *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) k_value_free(&s->items[i]);
    s->n = 0;
}

void k_seq_free(k_seq *s)
{
    if (!s) return;
    k_seq_clear(s);
    free(s->items);
    free(s);
}

int k_value_copy(k_tensor *dst, const k_tensor *src)
{
    *dst = *src;
    if (g_is_container(src->dtype)) {
        dst->data = src->data ? k_seq_clone(src->data) : k_seq_new();
        if (!dst->data) return ACL_ERROR_BAD_ALLOC;
        dst->nbytes = sizeof(k_seq);
        return 0;
    }
    size_t nb = k_nbytes(src);
    dst->data = malloc(nb ? nb : 1);
    if (!dst->data) return ACL_ERROR_BAD_ALLOC;
    if (nb) memcpy(dst->data, src->data, nb);
    dst->nbytes = nb;
    return 0;
}

k_seq *k_seq_clone(const k_seq *s)
{
    k_seq *c = k_seq_new();
    if (!c) return NULL;
    for (int i = 0; s && i < s->n; i++)
        if (k_seq_insert(c, c->n, &s->items[i])) { k_seq_free(c); return NULL; }
    return c;
}

int k_seq_insert(k_seq *s, int pos, const k_tensor *v)
{
    if (pos < 0 || pos > s->n) return ACL_ERROR_INVALID_PARAM;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4;
        k_tensor *it = realloc(s->items, (size_t)cap * sizeof *it);
        if (!it) return ACL_ERROR_BAD_ALLOC;
        s->items = it;
        s->cap = cap;
    }
    k_tensor c;
    int rc = k_value_copy(&c, v);
    if (rc) return rc;
    memmove(&s->items[pos + 1], &s->items[pos], (size_t)(s->n - pos) * sizeof *s->items);
    s->items[pos] = c;
    s->n++;
    return 0;
}

void k_seq_erase(k_seq *s, int pos)
{
    if (!s || pos < 0 || pos >= s->n) return;
    k_value_free(&s->items[pos]);
    memmove(&s->items[pos], &s->items[pos + 1], (size_t)(s->n - pos - 1) * sizeof *s->items);
    s->n--;
}

void *k_alloc64(size_t n)
{
    size_t sz = (n + 63) & ~(size_t)63;
    if (sz < n) return NULL;
    return aligned_alloc(64, sz ? sz : 64);
}
