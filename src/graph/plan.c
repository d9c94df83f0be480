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

/* Storage sharing, union-find style: par[t] is the tensor whose buffer t
 * lives in (t itself for a buffer of its own) and poff[t] t's byte offset
 * in it; a view's or in-place output's parent is its input (offset 0), a
 * Concat input placed in place has the Concat's output as parent. */
typedef struct share {
    int *par, *last, *first;   /* first/last: of the whole buffer at a root */
    size_t *poff;
    int *cat;                  /* tensor: the Concat output it is to be placed in, -1 none */
    size_t *cat_off;
} share;

/* Root of t's buffer; *off (may be NULL) gets t's offset in it. Compresses
 * the path. */
static int share_find(share *s, int t, size_t *off)
{
    int r = t;
    size_t acc = 0;
    while (s->par[r] != r) { acc += s->poff[r]; r = s->par[r]; }
    if (off) *off = acc;
    for (int x = t; s->par[x] != x;) {
        int nx = s->par[x];
        size_t px = s->poff[x];
        s->par[x] = r;
        s->poff[x] = acc;
        acc -= px;
        x = nx;
    }
    return r;
}

int plan_concat_inplace_on(void)
{
    const char *e = getenv("OPENACL_NO_CONCAT_INPLACE");
    return !(e && *e && strcmp(e, "0"));
}

static int is_concat(const g_node *n)
{
    return !*n->domain && !strcmp(n->op_type, "Concat") && n->n_out == 1 && n->out[0] >= 0;
}

int plan_concat_slices(const g_graph *g, const g_node *n, size_t *off)
{
    for (int k = 0; is_concat(n) && k < n->n_in; k++) off[k] = (size_t)-1;
    if (!is_concat(n)) return 0;
    const g_tensor *y = &g->t[n->out[0]];
    int r = y->shape.rank;
    size_t es = g_dtype_size(y->dtype);
    if (r < 1 || !es || !g_shape_known(&y->shape) || (y->layout == G_LAYOUT_NHWC && r != 4)) return 0;
    int ax = (int)g_attr_int(n, "axis", 1);
    if (ax < 0) ax += r;
    if (ax < 0 || ax >= r) return 0;
    /* storage order of the dims: plain, or channels-last N,H,W,C */
    int ord[G_MAX_RANK];
    for (int a = 0; a < r; a++) ord[a] = a;
    if (y->layout == G_LAYOUT_NHWC) { ord[1] = 2; ord[2] = 3; ord[3] = 1; }
    int64_t outer = 1, inner = 1, at = 0;
    int seen = 0, count = 0;
    for (int p = 0; p < r; p++) {
        if (ord[p] == ax) { seen = 1; continue; }
        if (seen) inner *= y->shape.d[ord[p]];
        else outer *= y->shape.d[ord[p]];
    }
    if (outer != 1) return 0;
    for (int k = 0; k < n->n_in; k++) {
        if (n->in[k] < 0) return count;
        const g_tensor *x = &g->t[n->in[k]];
        if (x->shape.rank != r || x->shape.d[ax] < 0) return count;
        int ok = x->dtype == y->dtype && x->layout == y->layout && g_shape_known(&x->shape);
        for (int a = 0; a < r && ok; a++) ok = a == ax || x->shape.d[a] == y->shape.d[a];
        if (ok) { off[k] = (size_t)(at * inner) * es; count++; }
        at += x->shape.d[ax];
    }
    return count;
}

/* Which Concat inputs go in place (see plan.h): s->cat / cat_off. A tensor
 * is placed in one Concat at most: the first in node order. s->par serves
 * as a per-tensor count of a Concat's uses of it (reset after each). */
static void concat_choose(const g_graph *g, share *s)
{
    for (int t = 0; t < g->n_t; t++) { s->cat[t] = -1; s->par[t] = 0; }
    if (!plan_concat_inplace_on()) return;
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        if (!is_concat(n) || !in_arena(&g->t[n->out[0]]) || tensor_bytes(&g->t[n->out[0]]) == (size_t)-1)
            continue;
        size_t *off = s->cat_off + g->n_t + 1;   /* scratch past the per-tensor offsets */
        if (!plan_concat_slices(g, n, off)) continue;
        for (int k = 0; k < n->n_in; k++) if (n->in[k] >= 0) s->par[n->in[k]]++;
        for (int k = 0; k < n->n_in; k++) {
            int x = n->in[k];
            if (x < 0 || off[k] == (size_t)-1 || !in_arena(&g->t[x]) || s->cat[x] >= 0 || x == n->out[0] ||
                s->par[x] != 1 || off[k] % PLAN_ALIGN || !tensor_bytes(&g->t[x]))
                continue;
            s->cat[x] = n->out[0];
            s->cat_off[x] = off[k];
        }
        for (int k = 0; k < n->n_in; k++) if (n->in[k] >= 0) s->par[n->in[k]] = 0;
    }
}

/* Node i (input j asked for by its kernel) may write output 0 over input j's
 * buffer when both live in the arena, the buffer (root r, with every tensor
 * sharing it) is read by nothing after node i nor through another input of
 * node i, and input j has output 0's dtype and byte size. */
static int inplace_ok(const g_graph *g, share *s, int i, int j)
{
    const g_node *n = &g->nodes[i];
    if (j < 0 || j >= n->n_in || n->in[j] < 0 || n->n_out < 1 || n->out[0] < 0) return 0;
    int r = share_find(s, n->in[j], NULL);
    const g_tensor *x = &g->t[n->in[j]], *y = &g->t[n->out[0]];
    if (!in_arena(x) || !in_arena(y) || s->last[r] != i || x->dtype != y->dtype ||
        tensor_bytes(x) == (size_t)-1 || tensor_bytes(x) != tensor_bytes(y))
        return 0;
    for (int k = 0; k < n->n_in; k++)
        if (k != j && n->in[k] >= 0 && share_find(s, n->in[k], NULL) == r) return 0;
    return 1;
}

/* Lifetimes (see plan.h): s->last[t] is the step of t's last reader (its
 * producer when nothing reads it), for a root the last use of any tensor
 * in its buffer, and s->first[r] the step its buffer is first written (a
 * Concat's output buffer: when its first placed input is made). The
 * buffers come from views, from outputs granted their input's storage by
 * inplace[] (may be NULL) and from Concat inputs placed in their output
 * (concat_choose). Arrays are g->n_t + 1 long. */
static void lifetimes(const g_graph *g, const int *inplace, share *s)
{
    concat_choose(g, s);
    for (int t = 0; t < g->n_t; t++) {
        s->last[t] = s->first[t] = g->t[t].producer;
        s->par[t] = t;
        s->poff[t] = 0;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) if (n->in[j] >= 0) s->last[n->in[j]] = i;
    }
    /* in node order, so a buffer's last use is known when a later node
     * asks to take it over: every reader of a member after node i reads a
     * member made at or before i, whose own last use is already counted
     * (a Concat's placed inputs join its buffer at the Concat) */
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        if (is_concat(n)) {
            int y = n->out[0];
            for (int k = 0; k < n->n_in; k++) {
                int x = n->in[k];
                if (x < 0 || s->cat[x] != y || s->par[x] != x) continue;
                s->par[x] = y;
                s->poff[x] = s->cat_off[x];
                if (s->last[x] > s->last[y]) s->last[y] = s->last[x];
                if (s->first[x] < s->first[y]) s->first[y] = s->first[x];
            }
            continue;
        }
        int from = -1;
        /* an output to be placed in a Concat keeps a buffer of its own */
        if (n->n_out >= 1 && n->out[0] >= 0 && s->cat[n->out[0]] >= 0) continue;
        if (is_view(g, n) && in_arena(&g->t[n->in[0]]) && in_arena(&g->t[n->out[0]])) from = n->in[0];
        else if (inplace && inplace_ok(g, s, i, inplace[i])) from = n->in[inplace[i]];
        if (from < 0) continue;
        int r = share_find(s, from, NULL), to = n->out[0];
        s->par[to] = from;
        s->poff[to] = 0;
        if (s->last[to] > s->last[r]) s->last[r] = s->last[to];
    }
}

static void share_free(share *s)
{
    free(s->par); free(s->last); free(s->first); free(s->poff); free(s->cat); free(s->cat_off);
}

static int share_alloc(const g_graph *g, share *s)
{
    size_t n = (size_t)g->n_t + 1;
    s->par = malloc(n * sizeof *s->par);
    s->last = malloc(n * sizeof *s->last);
    s->first = malloc(n * sizeof *s->first);
    s->poff = malloc(n * sizeof *s->poff);
    s->cat = malloc(n * sizeof *s->cat);
    int most = 0;   /* the largest node input count: concat_choose's scratch */
    for (int i = 0; i < g->n_nodes; i++) if (g->nodes[i].n_in > most) most = g->nodes[i].n_in;
    s->cat_off = malloc((n + (size_t)most + 1) * sizeof *s->cat_off);
    if (s->par && s->last && s->first && s->poff && s->cat && s->cat_off) return 0;
    share_free(s);
    return -1;
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
    share s;
    plan_item *items = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *items);
    int *owner = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *owner);
    if (!items || !owner || share_alloc(g, &s)) {
        free(items); free(owner);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "memory plan: out of memory");
    }
    lifetimes(g, inplace, &s);
    int ni = 0;
    for (int t = 0; t < g->n_t; t++) {
        g_tensor *x = &g->t[t];
        x->mem_offset = -1;
        if (!in_arena(x) || share_find(&s, t, NULL) != t) continue;
        size_t size = tensor_bytes(x);
        if (size == (size_t)-1) {
            free(items); free(owner); share_free(&s);
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "memory plan: tensor '%s' has no static "
                            "size", x->name);
        }
        items[ni] = (plan_item){ .size = size, .first = s.first[t], .last = s.last[t] };
        owner[ni++] = t;
    }
    for (int i = 0; scratch_bytes && i < g->n_nodes; i++) {
        if (!scratch_bytes[i]) { if (scratch_off) scratch_off[i] = 0; continue; }
        items[ni] = (plan_item){ .size = scratch_bytes[i], .first = i, .last = i };
        owner[ni++] = -1 - i;
    }
    size_t sz = plan_assign(items, ni);
    if (sz == (size_t)-1) {
        free(items); free(owner); share_free(&s);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "memory plan: out of memory");
    }
    for (int k = 0; k < ni; k++) {
        if (owner[k] >= 0) g->t[owner[k]].mem_offset = (int64_t)items[k].offset;
        else if (scratch_off) scratch_off[-1 - owner[k]] = items[k].offset;
    }
    for (int t = 0; t < g->n_t; t++) {
        size_t off;
        int r = share_find(&s, t, &off);
        if (r != t && in_arena(&g->t[t])) g->t[t].mem_offset = g->t[r].mem_offset + (int64_t)off;
    }
    *arena = sz;
    free(items); free(owner); share_free(&s);
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
    share s;
    chk_item *it = malloc(((size_t)g->n_t + (size_t)g->n_nodes + 1) * sizeof *it);
    int ok = it && !share_alloc(g, &s), n = 0;
    if (!ok) { free(it); return 0; }
    lifetimes(g, inplace, &s);
    for (int t = 0; ok && t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (!in_arena(x)) { ok = mem_offset[t] < 0; continue; }
        int64_t numel = g_shape_numel(&x->shape), off = mem_offset[t];
        size_t es = g_dtype_size(x->dtype), sub;
        if (numel < 0 || !es || off < 0 || (size_t)off > arena || (size_t)off % PLAN_ALIGN) { ok = 0; break; }
        if ((uint64_t)numel > (arena - (size_t)off) / es) { ok = 0; break; }
        size_t size = (size_t)numel * es;
        int r = share_find(&s, t, &sub);
        /* a view, in-place output or placed Concat input lying exactly where
         * it belongs in its root's buffer is part of that buffer (whose own
         * item is checked, over the buffer's whole life) */
        if (r != t && mem_offset[r] >= 0 && mem_offset[t] == mem_offset[r] + (int64_t)sub) continue;
        int first = r == t ? s.first[t] : x->producer;
        if (size) it[n++] = (chk_item){ (size_t)off, (size_t)off + size, first, s.last[t] };
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
    share_free(&s);
    free(it);
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
