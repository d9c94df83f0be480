/* Which ONNX nodes a fused node stands for: before the fusion pass removes
 * the nodes it absorbed, each absorbed node is credited to the live node
 * that now produces the value it fed (found by walking forward through
 * other absorbed nodes). The names go into the string-list attribute
 * G_COVER_ATTR, which compiled models keep like any attribute; the dump
 * index (engine/eng_dump.c) reports it. */
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

/* The live node that absorbed dead node d, -1 when none is found. */
static int absorber(const g_graph *g, const unsigned char *dead, const int *prod, int d)
{
    int cur = d;
    for (int hop = 0; hop < g->n_nodes; hop++) {
        const g_node *n = &g->nodes[cur];
        int next = -1;
        for (int o = 0; o < n->n_out; o++) {
            int t = n->out[o];
            if (t < 0) continue;
            if (prod[t] >= 0) return prod[t];
            for (int k = 0; k < g->n_nodes && next < 0; k++) {
                if (!dead[k] || k == cur) continue;
                for (int j = 0; j < g->nodes[k].n_in; j++)
                    if (g->nodes[k].in[j] == t) { next = k; break; }
            }
        }
        if (next < 0) return -1;
        cur = next;
    }
    return -1;
}

int graph_record_cover(g_graph *g, const unsigned char *dead)
{
    int *prod = malloc((size_t)(g->n_t ? g->n_t : 1) * sizeof *prod);
    if (!prod) return acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory");
    for (int t = 0; t < g->n_t; t++) prod[t] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        if (dead[i]) continue;
        for (int o = 0; o < g->nodes[i].n_out; o++)
            if (g->nodes[i].out[o] >= 0) prod[g->nodes[i].out[o]] = i;
    }
    int rc = 0;
    for (int d = 0; d < g->n_nodes && !rc; d++) {
        if (!dead[d]) continue;
        int a = absorber(g, dead, prod, d);
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
    return rc ? acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory recording fused nodes") : 0;
}
