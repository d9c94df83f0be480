/* The memory planner (see plan.h). Lifetimes come from the node order:
 * a tensor is born at its producer and dies after its last consumer. */
#include "graph/plan.h"
#include "graph/errs.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

static size_t round_up(size_t x) { return (x + PLAN_ALIGN - 1) & ~(size_t)(PLAN_ALIGN - 1); }

/* qsort has no context argument: the items being sorted, per thread */
static __thread const plan_item *g_sort_items;
static int by_size_desc(const void *a, const void *b)
{
    const plan_item *x = &g_sort_items[*(const int *)a], *y = &g_sort_items[*(const int *)b];
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

typedef struct span { size_t off, end; } span;
static int by_off(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Placed items are indexed by time buckets, so finding those whose lifetime
 * overlaps a new item costs about the number of overlaps instead of the
 * number placed so far: scanning every placed item made a 100000-node chain
 * take seconds to plan and a 1M-node model (30 MB) many minutes. The bucket
 * width keeps the index within a few entries per item; the offsets chosen
 * are the same as with the full scan.
 * Items that all live at once (a node with 100 000 inputs) still make every
 * placement look at every other item; past PLAN_WORK_BUDGET index entries
 * visited, the remaining items go to the top of the arena (no reuse, like
 * the naive plan) so such a graph costs seconds, not hours. */
#define PLAN_WORK_BUDGET ((uint64_t)1 << 22)   /* real models need < 2000 */
size_t plan_assign(plan_item *items, int n)
{
    if (n <= 0) return 0;
    int tmin = items[0].first, tmax = items[0].last;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        int f = items[i].first, l = items[i].last < f ? f : items[i].last;
        if (f < tmin) tmin = f;
        if (l > tmax) tmax = l;
        total += (uint64_t)(l - f) + 1;
    }
    int64_t width = (int64_t)(total / (4 * (uint64_t)n)) + 1;
    size_t nb = (size_t)(((int64_t)tmax - tmin) / width) + 1, cap = 0;
    for (int i = 0; i < n; i++) {
        int f = items[i].first, l = items[i].last < f ? f : items[i].last;
        cap += (size_t)(((int64_t)l - tmin) / width - ((int64_t)f - tmin) / width) + 1;
    }
    typedef struct link { int item, next; } link;
    int *order = malloc((size_t)n * sizeof *order);
    int *stamp = malloc((size_t)n * sizeof *stamp);
    int *head = malloc(nb * sizeof *head);
    link *pool = malloc(cap * sizeof *pool);
    span *sp = malloc((size_t)n * sizeof *sp);
    if (!order || !stamp || !head || !pool || !sp) {
        free(order); free(stamp); free(head); free(pool); free(sp);
        return (size_t)-1;
    }
    for (int i = 0; i < n; i++) { order[i] = i; stamp[i] = -1; }
    for (size_t b = 0; b < nb; b++) head[b] = -1;
    g_sort_items = items;
    qsort(order, (size_t)n, sizeof *order, by_size_desc);
    size_t arena = 0, used = 0;
    uint64_t work = 0;
    for (int k = 0; k < n; k++) {
        plan_item *it = &items[order[k]];
        size_t sz = round_up(it->size);
        if (work > PLAN_WORK_BUDGET) {
            it->offset = arena;   /* above everything placed: overlaps nothing */
            arena += sz;
            continue;
        }
        int last = it->last < it->first ? it->first : it->last;
        size_t b0 = (size_t)(((int64_t)it->first - tmin) / width);
        size_t b1 = (size_t)(((int64_t)last - tmin) / width);
        int ns = 0;
        for (size_t b = b0; b <= b1; b++) {
            for (int e = head[b]; e >= 0; e = pool[e].next) {
                int j = pool[e].item;
                work++;
                if (stamp[j] == k) continue;
                stamp[j] = k;
                const plan_item *p = &items[j];
                if (p->first <= it->last && it->first <= p->last && p->size)
                    sp[ns++] = (span){ p->offset, p->offset + round_up(p->size) };
            }
        }
        qsort(sp, (size_t)ns, sizeof *sp, by_off);
        size_t cur = 0, best = (size_t)-1, best_gap = (size_t)-1;
        for (int j = 0; j < ns; j++) {
            if (sp[j].off > cur) {
                size_t gap = sp[j].off - cur;
                if (gap >= sz && gap < best_gap) { best_gap = gap; best = cur; }
            }
            if (sp[j].end > cur) cur = sp[j].end;
        }
        it->offset = best != (size_t)-1 ? best : cur;
        if (it->offset + sz > arena) arena = it->offset + sz;
        for (size_t b = b0; b <= b1; b++) {
            pool[used] = (link){ order[k], head[b] };
            head[b] = (int)used++;
        }
    }
    free(order); free(stamp); free(head); free(pool); free(sp);
    return arena;
}

static int in_arena(const g_tensor *t)
{
    return t->kind == G_TK_ACT && t->producer >= 0 && !t->is_output;
}

/* Ops whose output holds the input's bytes unchanged: the output may share
 * the input's storage (their kernels skip the copy when out.data == in.data). */
static int is_view(const g_graph *g, const g_node *n)
{
    static const char *const views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                          "Identity", NULL };
    if (*n->domain || n->n_in < 1 || n->n_out != 1 || n->in[0] < 0 || n->out[0] < 0) return 0;
    int hit = 0;
    for (int i = 0; views[i] && !hit; i++) hit = !strcmp(n->op_type, views[i]);
    if (!hit) return 0;
    const g_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
    int64_t a = g_shape_numel(&x->shape), b = g_shape_numel(&y->shape);
    return a >= 0 && a == b && x->dtype == y->dtype && x->layout == y->layout;
}

/* Byte size of a tensor's value; (size_t)-1 when not static or not a
 * plain element type. */
static size_t tensor_bytes(const g_tensor *x)
{
    int64_t numel = g_shape_numel(&x->shape);
    size_t es = g_dtype_size(x->dtype);
    return numel < 0 || !es ? (size_t)-1 : (size_t)numel * es;
}

/* Node i (input j asked for by its kernel) may write output 0 over input j's
 * buffer when both live in the arena, the buffer (root r, with every tensor
 * sharing it) is read by nothing after node i nor through another input of
 * node i, and it has output 0's dtype and byte size. */
static int inplace_ok(const g_graph *g, int i, int j, const int *last, const int *root)
{
    const g_node *n = &g->nodes[i];
    if (j < 0 || j >= n->n_in || n->in[j] < 0 || n->n_out < 1 || n->out[0] < 0) return 0;
    int r = root[n->in[j]];
    const g_tensor *x = &g->t[r], *y = &g->t[n->out[0]];
    if (!in_arena(&g->t[n->in[j]]) || !in_arena(y) || last[r] != i || x->dtype != y->dtype ||
        tensor_bytes(x) == (size_t)-1 || tensor_bytes(x) != tensor_bytes(y))
        return 0;
    for (int k = 0; k < n->n_in; k++)
        if (k != j && n->in[k] >= 0 && root[n->in[k]] == r) return 0;
    return 1;
}

/* Lifetimes (see plan.h): last[t] is the step of t's last reader (its
 * producer when nothing reads it) and root[t] the tensor whose storage t
 * shares (a view's output, or an output granted its input's storage by
 * inplace[], may be NULL; t itself for the rest); a shared buffer lives until
 * the last use of any tensor in it. Both arrays are g->n_t + 1 long. */
static void lifetimes(const g_graph *g, const int *inplace, int *last, int *root)
{
    for (int t = 0; t < g->n_t; t++) { last[t] = g->t[t].producer; root[t] = t; }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) if (n->in[j] >= 0) last[n->in[j]] = i;
    }
    /* in node order, so a buffer's last use is known when a later node
     * asks to take it over: every reader of a member after node i reads a
     * member made at or before i, whose own last use is already counted */
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        int from = -1;
        if (is_view(g, n) && in_arena(&g->t[n->in[0]]) && in_arena(&g->t[n->out[0]])) from = n->in[0];
        else if (inplace && inplace_ok(g, i, inplace[i], last, root)) from = n->in[inplace[i]];
        if (from < 0) continue;
        int r = root[from], to = n->out[0];
        root[to] = r;
        if (last[to] > last[r]) last[r] = last[to];
    }
}

int plan_graph(g_graph *g, const size_t *scratch_bytes, size_t *scratch_off, size_t *arena)
{
    return plan_graph_inplace(g, scratch_bytes, NULL, scratch_off, arena);
}

int plan_graph_inplace(g_graph *g, const size_t *scratch_bytes, const int *inplace, size_t *scratch_off,
                       size_t *arena)
{
    int rc = g_graph_link(g);
    if (rc) return rc;
    int *last = malloc(((size_t)g->n_t + 1) * sizeof *last);
    plan_item *items = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *items);
    int *owner = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *owner);
    if (!last || !items || !owner) {
        free(last); free(items); free(owner);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "memory plan: out of memory");
    }
    int *root = malloc(((size_t)g->n_t + 1) * sizeof *root);
    if (!root) {
        free(last); free(items); free(owner);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "memory plan: out of memory");
    }
    lifetimes(g, inplace, last, root);
    int ni = 0;
    for (int t = 0; t < g->n_t; t++) {
        g_tensor *x = &g->t[t];
        x->mem_offset = -1;
        if (!in_arena(x) || root[t] != t) continue;
        size_t size = tensor_bytes(x);
        if (size == (size_t)-1) {
            free(last); free(items); free(owner); free(root);
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "memory plan: tensor '%s' has no static "
                            "size", x->name);
        }
        items[ni] = (plan_item){ .size = size, .first = x->producer, .last = last[t] };
        owner[ni++] = t;
    }
    for (int i = 0; scratch_bytes && i < g->n_nodes; i++) {
        if (!scratch_bytes[i]) { if (scratch_off) scratch_off[i] = 0; continue; }
        items[ni] = (plan_item){ .size = scratch_bytes[i], .first = i, .last = i };
        owner[ni++] = -1 - i;
    }
    size_t sz = plan_assign(items, ni);
    if (sz == (size_t)-1) {
        free(last); free(items); free(owner); free(root);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "memory plan: out of memory");
    }
    for (int k = 0; k < ni; k++) {
        if (owner[k] >= 0) g->t[owner[k]].mem_offset = (int64_t)items[k].offset;
        else if (scratch_off) scratch_off[-1 - owner[k]] = items[k].offset;
    }
    for (int t = 0; t < g->n_t; t++)
        if (root[t] != t && in_arena(&g->t[t])) g->t[t].mem_offset = g->t[root[t]].mem_offset;
    *arena = sz;
    free(last); free(items); free(owner); free(root);
    return 0;
}

/* One buffer of a plan being checked. */
typedef struct chk_item { size_t off, end; int first, last; } chk_item;
static int by_first(const void *a, const void *b)
{
    const chk_item *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Sweeps the steps in order, holding the buffers live at the current step
 * sorted by offset; as they never overlap one another, a new buffer only
 * needs comparing with its two neighbours there. */
#define CHECK_WORK_BUDGET ((uint64_t)1 << 26)
static int items_disjoint(chk_item *it, int n)
{
    qsort(it, (size_t)n, sizeof *it, by_first);
    chk_item *live = malloc(((size_t)n + 1) * sizeof *live);
    if (!live) return 0;
    int nl = 0, ok = 1, cur = n ? it[0].first - 1 : 0;
    uint64_t work = 0;
    for (int k = 0; k < n && ok; k++) {
        const chk_item *x = &it[k];
        if (x->first != cur) {   /* a new step: drop what died before it */
            int w = 0;
            for (int j = 0; j < nl; j++) if (live[j].last >= x->first) live[w++] = live[j];
            work += (uint64_t)nl;
            nl = w;
            cur = x->first;
        }
        int lo = 0, hi = nl;   /* first live buffer starting at or after x */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (live[mid].off < x->off) lo = mid + 1; else hi = mid;
        }
        if ((lo > 0 && live[lo - 1].end > x->off) || (lo < nl && live[lo].off < x->end)) { ok = 0; break; }
        memmove(live + lo + 1, live + lo, (size_t)(nl - lo) * sizeof *live);
        live[lo] = *x;
        nl++;
        work += (uint64_t)(nl - lo);
        if (work > CHECK_WORK_BUDGET) ok = 0;
    }
    free(live);
    return ok;
}

int plan_graph_check(const g_graph *g, const int64_t *mem_offset, const size_t *scratch_bytes,
                     const size_t *scratch_off, const int *inplace, size_t arena)
{
    int *last = malloc(((size_t)g->n_t + 1) * sizeof *last), *root = malloc(((size_t)g->n_t + 1) * sizeof *root);
    chk_item *it = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *it);
    int ok = last && root && it, n = 0;
    if (ok) lifetimes(g, inplace, last, root);
    for (int t = 0; ok && t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (!in_arena(x)) { ok = mem_offset[t] < 0; continue; }
        int64_t numel = g_shape_numel(&x->shape), off = mem_offset[t];
        size_t es = g_dtype_size(x->dtype);
        if (numel < 0 || !es || off < 0 || (size_t)off > arena || (size_t)off % PLAN_ALIGN) { ok = 0; break; }
        if ((uint64_t)numel > (arena - (size_t)off) / es) { ok = 0; break; }
        size_t size = (size_t)numel * es;
        /* a view or in-place output sharing its root's storage exactly is part of the root's buffer */
        if (root[t] != t && mem_offset[root[t]] == off) continue;
        if (size) it[n++] = (chk_item){ (size_t)off, (size_t)off + size, x->producer, last[t] };
    }
    for (int i = 0; ok && scratch_bytes && i < g->n_nodes; i++) {
        if (!scratch_bytes[i]) continue;
        if (scratch_off[i] > arena || scratch_bytes[i] > arena - scratch_off[i] || scratch_off[i] % PLAN_ALIGN) {
            ok = 0;
            break;
        }
        it[n++] = (chk_item){ scratch_off[i], scratch_off[i] + scratch_bytes[i], i, i };
    }
    if (ok) ok = items_disjoint(it, n);
    free(last); free(root); free(it);
    return ok;
}

size_t plan_graph_naive(const g_graph *g, const size_t *scratch_bytes)
{
    size_t s = 0;
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (!in_arena(x)) continue;
        size_t size = tensor_bytes(x);
        if (size != (size_t)-1) s += round_up(size);
    }
    for (int i = 0; scratch_bytes && i < g->n_nodes; i++) s += round_up(scratch_bytes[i]);
    return s;
}
