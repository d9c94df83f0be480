/* The graph IR's construction, lookup and teardown helpers (see ir.h).
 * Everything here is plain bookkeeping over flat arrays: no policy, no
 * knowledge of ONNX or kernels beyond freeing a bound node's state. */
#include "graph/ir.h"
#include "graph/errs.h"
#include "kernels/kernel.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

size_t g_dtype_size(int dtype)
{
    switch (dtype) {
    case G_F32: case G_I32: case G_U32: return 4;
    case G_U8: case G_I8: case G_BOOL: return 1;
    case G_U16: case G_I16: case G_F16: case G_BF16: return 2;
    case G_I64: case G_U64: case G_F64: return 8;
    default: return 0;
    }
}

const char *g_dtype_name(int dtype)
{
    switch (dtype) {
    case G_UNDEF: return "undefined";
    case G_F32: return "float32";
    case G_U8: return "uint8";
    case G_I8: return "int8";
    case G_U16: return "uint16";
    case G_I16: return "int16";
    case G_I32: return "int32";
    case G_I64: return "int64";
    case G_STR: return "string";
    case G_BOOL: return "bool";
    case G_F16: return "float16";
    case G_F64: return "float64";
    case G_U32: return "uint32";
    case G_U64: return "uint64";
    case G_BF16: return "bfloat16";
    default: break;
    }
    if (g_is_container(dtype)) {
        /* a few rotating buffers so several names fit in one message */
        static __thread char buf[4][48];
        static __thread int k;
        char *b = buf[k++ & 3];
        int e = g_container_elem(dtype);
        if (g_is_seq(dtype)) snprintf(b, sizeof buf[0], "seq(%s)", g_dtype_name(e));
        else snprintf(b, sizeof buf[0], "optional(%s)", g_dtype_name(e));
        return b;
    }
    return "unknown-dtype";
}

int64_t g_shape_numel(const g_shape *s)
{
    if (!s || s->rank < 0 || s->rank > G_MAX_RANK) return -1;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        int64_t d = s->d[i];
        if (d < 0) return -1;
        if (d == 0) n = 0;
        else if (n > INT64_MAX / d) return -1;   /* overflow: treat as unknown */
        else n *= d;
    }
    return n;
}

int g_shape_known(const g_shape *s)
{
    if (!s || s->rank < 0 || s->rank > G_MAX_RANK) return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] < 0) return 0;
    return 1;
}

int g_shape_eq(const g_shape *a, const g_shape *b)
{
    if (a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank && i < G_MAX_RANK; i++)
        if (a->d[i] != b->d[i]) return 0;
    return 1;
}

char *g_shape_str(const g_shape *s, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    buf[0] = 0;
    if (!s || s->rank < 0 || s->rank > G_MAX_RANK) {
        snprintf(buf, len, "[?]");
        return buf;
    }
    size_t p = 0;
    int w = snprintf(buf, len, "[");
    p = (w > 0 && (size_t)w < len) ? (size_t)w : len - 1;
    for (int i = 0; i < s->rank && p < len - 1; i++) {
        w = snprintf(buf + p, len - p, i ? ",%lld" : "%lld", (long long)s->d[i]);
        if (w < 0) break;
        p += (size_t)w;
        if (p >= len) p = len - 1;
    }
    if (p < len - 1) snprintf(buf + p, len - p, "]");
    return buf;
}

g_graph *g_graph_new(void)
{
    g_graph *g = calloc(1, sizeof *g);
    return g;
}

static void tensor_clear(g_tensor *t)
{
    free(t->name);
    free(t->data);
    t->name = NULL;
    t->data = NULL;
}

void g_attr_clear(g_attr *a)
{
    if (!a) return;
    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
    if (a->strings) {
        for (int i = 0; i < a->n; i++) free(a->strings[i]);
        free(a->strings);
    }
    if (a->t) {
        tensor_clear(a->t);
        free(a->t);
    }
    if (a->g) g_graph_free(a->g);
    memset(a, 0, sizeof *a);
}

/* A bound node owns its kernel state: freeing the graph releases it through
 * the kernel's fini so nobody else has to walk the nodes first. */
void g_graph_free(g_graph *g)
{
    if (!g) return;
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        if (n->op && n->op->fini && n->state) n->op->fini(n->state);
        free(n->name);
        free(n->op_type);
        free(n->domain);
        free(n->in);
        free(n->out);
        for (int j = 0; j < n->n_attr; j++) g_attr_clear(&n->attr[j]);
        free(n->attr);
    }
    free(g->nodes);
    for (int i = 0; i < g->n_t; i++) tensor_clear(&g->t[i]);
    free(g->t);
    free(g->inputs);
    free(g->outputs);
    free(g);
}

static char *dupstr(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

int g_tensor_add(g_graph *g, const char *name)
{
    if (!g) return -1;
    if (g->n_t == g->cap_t) {
        int cap = g->cap_t ? g->cap_t * 2 : 16;
        g_tensor *t = realloc(g->t, (size_t)cap * sizeof *t);
        if (!t) return -1;
        g->t = t;
        g->cap_t = cap;
    }
    g_tensor *t = &g->t[g->n_t];
    memset(t, 0, sizeof *t);
    t->name = dupstr(name);
    if (!t->name) return -1;
    t->dtype = G_UNDEF;
    t->shape.rank = -1;
    t->kind = G_TK_ACT;
    t->producer = -1;
    t->layout = G_LAYOUT_PLAIN;
    t->mem_offset = -1;
    return g->n_t++;
}

int g_tensor_find(const g_graph *g, const char *name)
{
    if (!g || !name) return -1;
    for (int i = 0; i < g->n_t; i++)
        if (g->t[i].name && !strcmp(g->t[i].name, name)) return i;
    return -1;
}

/* Standard operators with more than one output: the most over their
 * versions, -1 for any number. */
static const struct { const char *op; int n; } k_multi_out[] = {
    { "BatchNormalization", 5 }, { "Dropout", 2 }, { "DynamicQuantizeLinear", 3 }, { "GRU", 2 }, { "If", -1 },
    { "LSTM", 3 }, { "LayerNormalization", 3 }, { "Loop", -1 }, { "MaxPool", 2 }, { "RNN", 2 }, { "Scan", -1 },
    { "SequenceMap", -1 }, { "SoftmaxCrossEntropyLoss", 2 }, { "Split", -1 }, { "TopK", 2 }, { "Unique", 4 },
};

int g_node_outputs_bad(const char *domain, const char *op_type, int n_out, const int *outs, int *slot)
{
    int std = !domain || !*domain || !strcmp(domain, "ai.onnx"), need = 1, most = std ? 1 : -1;
    if (std && (!strcmp(op_type, "LSTM") || !strcmp(op_type, "GRU") || !strcmp(op_type, "RNN"))) need = 0;
    else if (std && !strcmp(op_type, "TopK")) need = 2;
    else if (std && !strcmp(op_type, "DynamicQuantizeLinear")) need = 3;
    else if (domain && !strcmp(domain, "openacl")) need = n_out > 1 ? n_out : 1;   /* made by our passes: all */
    for (size_t i = 0; std && i < sizeof k_multi_out / sizeof k_multi_out[0]; i++)
        if (!strcmp(op_type, k_multi_out[i].op)) most = k_multi_out[i].n;
    for (int j = 0; j < need; j++)
        if (j >= n_out || outs[j] < 0) return *slot = j, 1;
    if (most >= 0 && n_out > most) return *slot = most, 2;
    return 0;
}

int g_node_check_outputs(const char *who, const char *what, const char *name, const char *domain,
                         const char *op_type, int n_out, const int *outs)
{
    int slot = 0, bad = g_node_outputs_bad(domain, op_type, n_out, outs, &slot);
    if (bad == 1)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: %s: node '%s' (%s) leaves its output %d unnamed, which the "
                        "operator requires", who, what, name, op_type, slot);
    if (bad == 2)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: %s: node '%s' (%s) lists %d outputs; the operator has %d", who,
                        what, name, op_type, n_out, slot);
    return 0;
}

int g_node_add(g_graph *g, const char *op_type, const char *domain, const char *name,
               int n_in, const int *in, int n_out, const int *out)
{
    if (!g || n_in < 0 || n_out < 0) return -1;
    if (g->n_nodes == g->cap_nodes) {
        int cap = g->cap_nodes ? g->cap_nodes * 2 : 16;
        g_node *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return -1;
        g->nodes = nn;
        g->cap_nodes = cap;
    }
    g_node *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof *n);
    n->name = dupstr(name);
    n->op_type = dupstr(op_type);
    n->domain = dupstr(domain && strcmp(domain, "ai.onnx") ? domain : "");
    n->in = malloc((size_t)(n_in ? n_in : 1) * sizeof(int));
    n->out = malloc((size_t)(n_out ? n_out : 1) * sizeof(int));
    if (!n->name || !n->op_type || !n->domain || !n->in || !n->out) {
        free(n->name); free(n->op_type); free(n->domain); free(n->in); free(n->out);
        memset(n, 0, sizeof *n);
        return -1;
    }
    if (n_in) memcpy(n->in, in, (size_t)n_in * sizeof(int));
    if (n_out) memcpy(n->out, out, (size_t)n_out * sizeof(int));
    n->n_in = n_in;
    n->n_out = n_out;
    n->opset = g->opset;
    return g->n_nodes++;
}

int g_graph_link(g_graph *g)
{
    if (!g) return ACL_ERROR_INVALID_PARAM;
    for (int i = 0; i < g->n_t; i++) {
        g->t[i].producer = -1;
        g->t[i].nuse = 0;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_out; j++) {
            int ti = n->out[j];
            if (ti < 0) continue;
            if (ti >= g->n_t)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "graph: node '%s' (%s) output %d refers to "
                                "tensor %d of %d", n->name, n->op_type, j, ti, g->n_t);
            g_tensor *t = &g->t[ti];
            if (t->producer >= 0)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "graph: tensor '%s' is produced twice, by "
                                "node '%s' (%s) and node '%s' (%s)", t->name,
                                g->nodes[t->producer].name, g->nodes[t->producer].op_type,
                                n->name, n->op_type);
            if (t->kind != G_TK_ACT)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "graph: node '%s' (%s) writes tensor '%s' "
                                "which is a graph %s", n->name, n->op_type, t->name,
                                t->kind == G_TK_INPUT ? "input" : "initializer/constant");
            t->producer = i;
        }
        for (int j = 0; j < n->n_in; j++) {
            int ti = n->in[j];
            if (ti < 0) continue;
            if (ti >= g->n_t)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "graph: node '%s' (%s) input %d refers to "
                                "tensor %d of %d", n->name, n->op_type, j, ti, g->n_t);
            g->t[ti].nuse++;
        }
    }
    return 0;
}

const g_attr *g_node_attr(const g_node *n, const char *name)
{
    if (!n || !name) return NULL;
    for (int i = 0; i < n->n_attr; i++)
        if (n->attr[i].name && !strcmp(n->attr[i].name, name)) return &n->attr[i];
    return NULL;
}

int64_t g_attr_int(const g_node *n, const char *name, int64_t def)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a) return def;
    if (a->type == G_AT_INT) return a->i;
    if (a->type == G_AT_FLOAT) {
        /* an integer attribute written as a float: out-of-range values (and
         * NaN) saturate, so the op's own range check refuses them */
        if (a->f >= 9.2e18f) return INT64_MAX;
        if (!(a->f > -9.2e18f)) return INT64_MIN;
        return (int64_t)a->f;
    }
    return def;
}

float g_attr_float(const g_node *n, const char *name, float def)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a) return def;
    if (a->type == G_AT_FLOAT) return a->f;
    if (a->type == G_AT_INT) return (float)a->i;
    return def;
}

const char *g_attr_str(const g_node *n, const char *name, const char *def)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a || a->type != G_AT_STRING || !a->s) return def;
    return a->s;
}

int g_attr_ints(const g_node *n, const char *name, const int64_t **v)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a || a->type != G_AT_INTS) return -1;
    if (v) *v = a->ints;
    return a->n;
}

int g_attr_floats(const g_node *n, const char *name, const float **v)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a || a->type != G_AT_FLOATS) return -1;
    if (v) *v = a->floats;
    return a->n;
}

int graph_node_bf16(const g_node *n)
{
    return g_attr_int(n, G_ATTR_BF16, 0) != 0;
}

