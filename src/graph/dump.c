/* Human-readable dump of a graph after optimisation: each node with the
 * kernel chosen for it and its tensors (type, shape, layout, storage). Set
 * OPENACL_DUMP_GRAPH=1 to get it on stderr at every model load. */
#include "graph/passes.h"
#include "graph/plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dump_tensor(FILE *f, const g_graph *g, int t)
{
    if (t < 0) { fprintf(f, "-"); return; }
    const g_tensor *x = &g->t[t];
    char s[128];
    fprintf(f, "%s:%s%s%s", x->name, g_dtype_name(x->dtype), g_shape_str(&x->shape, s, sizeof s),
            x->layout == G_LAYOUT_NHWC ? "/nhwc" : "");
    if (x->kind == G_TK_CONST) fprintf(f, "(const)");
    else if (x->kind == G_TK_INPUT) fprintf(f, "(input)");
    else if (x->is_output) fprintf(f, "(output)");
    else if (x->mem_offset >= 0) fprintf(f, "@%lld", (long long)x->mem_offset);
}

/* A Concat's inputs the memory plan placed in their slice of its output
 * (their producers write them there and the Concat skips them). */
static void dump_concat_placed(FILE *f, const g_graph *g, const g_node *n, int indent)
{
    if (*n->domain || strcmp(n->op_type, "Concat") || n->n_out != 1 || n->out[0] < 0 ||
        g->t[n->out[0]].mem_offset < 0)
        return;
    size_t *off = malloc(((size_t)n->n_in + 1) * sizeof *off);
    if (!off || !plan_concat_slices(g, n, off)) { free(off); return; }
    const g_tensor *y = &g->t[n->out[0]];
    int any = 0;
    for (int k = 0; k < n->n_in; k++) {
        if (off[k] == (size_t)-1 || g->t[n->in[k]].mem_offset != y->mem_offset + (int64_t)off[k]) continue;
        if (!any) fprintf(f, "%*s  concat in place:", indent, "");
        fprintf(f, "%s input %d at +%zu", any ? "," : "", k, off[k]);
        any = 1;
    }
    if (any) fprintf(f, "\n");
    free(off);
}

void graph_dump(const g_graph *g, FILE *f, int indent)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        fprintf(f, "%*s#%d %s '%s' [%s] (", indent, "", i, n->op_type, n->name,
                n->op ? n->op->impl : "unbound");
        for (int j = 0; j < n->n_in; j++) {
            if (j) fprintf(f, ", ");
            dump_tensor(f, g, n->in[j]);
        }
        fprintf(f, ") -> (");
        for (int j = 0; j < n->n_out; j++) {
            if (j) fprintf(f, ", ");
            dump_tensor(f, g, n->out[j]);
        }
        fprintf(f, ")\n");
        dump_concat_placed(f, g, n, indent);
        for (int a = 0; a < n->n_attr; a++)
            if (n->attr[a].type == G_AT_GRAPH && n->attr[a].g) {
                fprintf(f, "%*s  body '%s':\n", indent, "", n->attr[a].name);
                graph_dump(n->attr[a].g, f, indent + 4);
            }
    }
}

int graph_dump_wanted(void)
{
    const char *e = getenv("OPENACL_DUMP_GRAPH");
    return e && *e && strcmp(e, "0");
}
