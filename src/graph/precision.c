/* bfloat16 marks and activations (see precision.h). */
#include "graph/precision.h"
#include "kernels/kernel.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

static int is_heavy(const g_node *n)
{
    if (n->domain && *n->domain) return 0;
    return !strcmp(n->op_type, "Conv") || !strcmp(n->op_type, "ConvTranspose") ||
           !strcmp(n->op_type, "MatMul") || !strcmp(n->op_type, "Gemm");
}

int graph_mark_bf16(g_graph *g)
{
    int marked = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        if (!is_heavy(n) || graph_node_bf16(n)) continue;
        /* a layer reading the model's input stays float32: rounding the raw
         * input to 8 bits of mantissa costs the most accuracy per FLOP
         * (ResNet-50 logits: max error 1.8 % -> 1.5 % of their range) */
        if (n->n_in > 0 && n->in[0] >= 0 && g->t[n->in[0]].kind == G_TK_INPUT) continue;
        g_attr *a = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *a);
        if (!a) return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
        n->attr = a;
        a = &n->attr[n->n_attr];
        memset(a, 0, sizeof *a);
        if (!(a->name = strdup(G_ATTR_BF16)))
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model load: out of memory");
        a->type = G_AT_INT;
        a->i = 1;
        n->n_attr++;
        marked++;
    }
    acl_log(1, "precision: %d convolutions and matrix products may compute in bfloat16", marked);
    return 0;
}

static int set_int_attr(g_node *n, const char *name, int64_t v)
{
    for (int i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i].name, name)) {
            n->attr[i].type = G_AT_INT;
            n->attr[i].i = v;
            return 0;
        }
    g_attr *a = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *a);
    if (!a) return acl_fail(ACL_ERROR_BAD_ALLOC, "precision pass: out of memory");
    n->attr = a;
    a = &n->attr[n->n_attr];
    memset(a, 0, sizeof *a);
    if (!(a->name = strdup(name))) return acl_fail(ACL_ERROR_BAD_ALLOC, "precision pass: out of memory");
    a->type = G_AT_INT;
    a->i = v;
    n->n_attr++;
    return 0;
}

static void unbind(g_node *n)
{
    if (n->op && n->op->fini && n->state) n->op->fini(n->state);
    n->op = NULL;
    n->state = NULL;
}

static int is_shuffle(const g_node *n)
{
    return n->domain && !strcmp(n->domain, "openacl") && !strcmp(n->op_type, "ChannelShuffle");
}

/* Tensor j of n's inputs then outputs, or -1. */
static int io_t(const g_node *n, int j)
{
    return j < n->n_in ? n->in[j] : n->out[j - n->n_in];
}

static int io_ok(const g_node *n, int j, const unsigned char *ok)
{
    int t = io_t(n, j);
    return t >= 0 && ok[t];
}

static void set_io(const g_node *n, unsigned char *ok, unsigned char v)
{
    for (int j = 0; j < n->n_in + n->n_out; j++)
        if (io_t(n, j) >= 0) ok[io_t(n, j)] = v;
}

/* bf16 through channel shuffles (ShuffleNet): a ChannelShuffle moves any
 * dtype but needs one for all its inputs and outputs, and its blocks chain
 * (each passes half its channels to the next), so the tensors around
 * shuffles go bf16 together or not at all. A tensor qualifies when it is
 * written by a shuffle or by a bf16 convolution able to store bf16 (with
 * no float32 addend) and read only by shuffles and, as their data input,
 * by bf16 convolutions; a shuffle qualifies when all its tensors do, and a
 * shuffle that does not disqualifies all its tensors (to a fixed point). */
static int shuffle_bf16(g_graph *g, unsigned char *touch, int *count)
{
    int any = 0;
    for (int i = 0; i < g->n_nodes && !any; i++) any = is_shuffle(&g->nodes[i]);
    if (!any) return 0;
    /* 1: candidate, 0: not */
    unsigned char *ok = calloc((size_t)g->n_t + 1, 1);
    if (!ok) return acl_fail(ACL_ERROR_BAD_ALLOC, "precision pass: out of memory");
    for (int i = 0; i < g->n_nodes; i++)
        if (is_shuffle(&g->nodes[i])) set_io(&g->nodes[i], ok, 1);
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (!ok[t]) continue;
        if (x->kind != G_TK_ACT || x->is_output || x->dtype != G_F32 || x->producer < 0) { ok[t] = 0; continue; }
        const g_node *p = &g->nodes[x->producer];
        if (is_shuffle(p)) continue;
        int fit = k_bf16_io(p, 1) && p->out[0] == t;
        for (int j = 1; j < p->n_in && fit; j++)
            if (p->in[j] >= 0 && k_bf16_addend(p, j) && g->t[p->in[j]].dtype != G_BF16) fit = 0;
        if (!fit) ok[t] = 0;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        if (is_shuffle(n)) continue;
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t >= 0 && ok[t] && !(j == 0 && k_bf16_io(n, 0))) ok[t] = 0;
        }
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < g->n_nodes; i++) {
            const g_node *n = &g->nodes[i];
            if (!is_shuffle(n)) continue;
            int cnt = 0, total = n->n_in + n->n_out;
            for (int j = 0; j < total; j++) cnt += io_ok(n, j, ok);
            if (cnt == total || cnt == 0) continue;
            set_io(n, ok, 0);
            changed = 1;
        }
    }
    int rc = 0;
    for (int t = 0; t < g->n_t && !rc; t++) {
        if (!ok[t]) continue;
        g_node *p = &g->nodes[g->t[t].producer];
        if (!is_shuffle(p)) rc = set_int_attr(p, G_ATTR_BF16_OUT, 1);
        g->t[t].dtype = G_BF16;
        touch[g->t[t].producer] = 1;
        (*count)++;
    }
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in && !touch[i]; j++)
            if (n->in[j] >= 0 && ok[n->in[j]]) touch[i] = 1;
    }
    free(ok);
    return rc;
}

int graph_pass_bf16_act(g_graph *g)
{
    int any = 0;
    for (int i = 0; i < g->n_nodes && !any; i++) any = graph_node_bf16(&g->nodes[i]);
    if (!any) return 0;
    /* per tensor: -1 not a candidate, else the number of consumers seen */
    int *ok = calloc((size_t)g->n_t + 1, sizeof *ok);
    unsigned char *touch = calloc((size_t)g->n_nodes + 1, 1);
    if (!ok || !touch) { free(ok); free(touch); return acl_fail(ACL_ERROR_BAD_ALLOC, "precision pass: out of memory"); }
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        ok[t] = x->kind == G_TK_ACT && !x->is_output && x->dtype == G_F32 && x->producer >= 0 && x->nuse > 0 &&
                k_bf16_io(&g->nodes[x->producer], 1) && g->nodes[x->producer].out[0] == t ? 0 : -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0 || ok[t] < 0) continue;
            /* the data input of a bf16 convolution, or the residual addend
             * a bf16 convolution adds (its output then bf16 too) */
            int reads = j == 0 ? k_bf16_io(n, 0) : k_bf16_addend(n, j);
            if (!reads) ok[t] = -1;
            else ok[t]++;
        }
    }
    int rc = 0, count = 0;
    /* in node order (the graph is sorted), so that an addend is decided
     * before the convolution adding it */
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        g_node *p = &g->nodes[i];
        int t = p->n_out > 0 ? p->out[0] : -1;
        if (t < 0 || ok[t] <= 0 || ok[t] != g->t[t].nuse) continue;
        /* a residual convolution writes bf16 only when it adds a bf16
         * addend: with a float32 one its output keeps the addend's storage
         * (the sum post-op in place) instead of converting it first */
        int addend_f32 = 0;
        for (int j = 1; j < p->n_in; j++)
            if (p->in[j] >= 0 && k_bf16_addend(p, j) && g->t[p->in[j]].dtype != G_BF16) addend_f32 = 1;
        if (addend_f32) continue;
        if ((rc = set_int_attr(p, G_ATTR_BF16_OUT, 1))) break;
        touch[g->t[t].producer] = 1;
        g->t[t].dtype = G_BF16;
        count++;
    }
    if (!rc) rc = shuffle_bf16(g, touch, &count);
    /* producers and every reader of a changed tensor bind again */
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in && !touch[i]; j++)
            if (n->in[j] >= 0 && g->t[n->in[j]].dtype == G_BF16 && ok[n->in[j]] > 0) touch[i] = 1;
    }
    for (int i = 0; i < g->n_nodes && !rc; i++)
        if (touch[i]) unbind(&g->nodes[i]);
    if (!rc && count)
        acl_log(1, "precision pass: %d activations between bfloat16 convolutions kept in bfloat16", count);
    free(ok);
    free(touch);
    return rc;
}
