/* Which ONNX nodes a node stands for: before a pass removes nodes (fusion,
 * constant folding, identity elimination), each removed node is credited to
 * the live node that took over its work: the one that now produces the
 * value it fed, or reads it (walking forward through other removed nodes),
 * else the producer of its input (an Identity). The names go into the
 * string-list attribute G_COVER_ATTR, which compiled models keep like any
 * attribute; the dump index (engine/eng_dump.c) reports it. */
#include <stdlib.h>
#include <string.h>

#include "graph/passes.h"
#include "core/core.h"
#include "acl/acl_base.h"

/* Appends name to n's cover list (created holding n's own name first). */
static int cover_add(g_node *n, const char *name)
{
    g_attr *a = NULL;
    for (int i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i].name, G_COVER_ATTR)) a = &n->attr[i];
    if (!a) {
        g_attr *v = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *v);
        if (!v) return -1;
        n->attr = v;
        a = &v[n->n_attr];
        memset(a, 0, sizeof *a);
        if (!(a->name = strdup(G_COVER_ATTR))) return -1;
        n->n_attr++;
        a->type = G_AT_STRINGS;
        if (!(a->strings = calloc(1, sizeof *a->strings))) return -1;
        if (!(a->strings[0] = strdup(n->name ? n->name : ""))) return -1;
        a->n = 1;
    }
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->strings[i], name)) return 0;
    char **s = realloc(a->strings, (size_t)(a->n + 1) * sizeof *s);
    if (!s) return -1;
    a->strings = s;
    if (!(s[a->n] = strdup(name))) return -1;
    a->n++;
    return 0;
}

int graph_cover_snap(const g_graph *g, g_cover_snap *s)
{
    size_t total = 0;
    for (int i = 0; i < g->n_nodes; i++) total += (size_t)g->nodes[i].n_in;
    s->off = malloc((size_t)(g->n_nodes + 1) * sizeof *s->off);
    s->in = malloc((total ? total : 1) * sizeof *s->in);
    if (!s->off || !s->in) {
        graph_cover_snap_free(s);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory");
    }
    s->n_nodes = g->n_nodes;
    int k = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        s->off[i] = k;
        for (int j = 0; j < g->nodes[i].n_in; j++) s->in[k++] = g->nodes[i].in[j];
    }
    s->off[g->n_nodes] = k;
    return 0;
}

void graph_cover_snap_free(g_cover_snap *s)
{
    free(s->off);
    free(s->in);
    s->off = s->in = NULL;
}

/* The live node that absorbed dead node d: the one now producing a value d
 * fed (through other absorbed nodes), or the live node that read it before
 * fusion rewired its inputs (a squeeze-excite block's Mul); -1 none. */
static int absorber(const g_graph *g, const unsigned char *dead, const int *prod, const int *reader, int d)
{
    int cur = d;
    for (int hop = 0; hop < g->n_nodes; hop++) {
        const g_node *n = &g->nodes[cur];
        int next = -1;
        for (int o = 0; o < n->n_out && next < 0; o++) {
            int t = n->out[o];
            if (t < 0) continue;
            if (prod[t] >= 0) return prod[t];
            int r = reader[t] != cur ? reader[t] : -1;
            if (r >= 0 && !dead[r]) return r;
            next = r;
        }
        if (next < 0) break;
        cur = next;
    }
    /* an eliminated pass-through (its readers now read its input): the
     * producer of that input; a node nobody read (dead code) is nobody's */
    const g_node *n = &g->nodes[d];
    int t = n->n_in > 0 ? n->in[0] : -1;
    int pass = !*n->domain && (!strcmp(n->op_type, "Identity") || !strcmp(n->op_type, "Dropout"));
    if (!pass || t < 0) return -1;
    return prod[t] >= 0 ? prod[t] : reader[t];   /* a forwarded weight: its reader */
}

int graph_record_cover(g_graph *g, const unsigned char *dead, const g_cover_snap *snap)
{    size_t nt = (size_t)(g->n_t ? g->n_t : 1);
    int *prod = malloc(nt * sizeof *prod), *reader = malloc(nt * sizeof *reader);
    if (!prod || !reader) {
        free(prod);
        free(reader);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory");
    }
    for (int t = 0; t < g->n_t; t++) prod[t] = reader[t] = -1;
    /* a reader before fusion of each tensor, a live one preferred */
    for (int k = 0; k < snap->n_nodes && k < g->n_nodes; k++)
        for (int j = snap->off[k]; j < snap->off[k + 1]; j++) {
            int t = snap->in[j];
            if (t >= 0 && t < g->n_t && (reader[t] < 0 || (dead[reader[t]] && !dead[k]))) reader[t] = k;
        }
    for (int i = 0; i < g->n_nodes; i++) {
        if (dead[i]) continue;
        for (int o = 0; o < g->nodes[i].n_out; o++)
            if (g->nodes[i].out[o] >= 0) prod[g->nodes[i].out[o]] = i;
    }
    int rc = 0;
    for (int d = 0; d < g->n_nodes && !rc; d++) {
        if (!dead[d]) continue;
        int a = absorber(g, dead, prod, reader, d);
        if (a < 0) continue;
        const g_node *dn = &g->nodes[d];
        const g_attr *had = g_node_attr(dn, G_COVER_ATTR);
        if (had && had->type == G_AT_STRINGS) {
            for (int i = 0; i < had->n && !rc; i++) rc = cover_add(&g->nodes[a], had->strings[i]);
        } else {
            rc = cover_add(&g->nodes[a], dn->name ? dn->name : "");
        }
    }
    free(prod);
    free(reader);
    return rc ? acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory recording fused nodes") : 0;
}
