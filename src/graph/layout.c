/* Layout pass: keeps 4-D activations channels-last (NHWC) between the
 * window ops (Conv, ConvTranspose, pools), the layout oneDNN's x86 kernels
 * compute in, so no reorder runs between consecutive layers.
 *
 * Window ops read any layout and write the one their _oa_layout attribute
 * names, and so does a Transpose to channels-first (its channels-last output
 * holds its input's bytes unchanged); every other op says through
 * accepts_layout which input layouts it reads (and whether one saves it
 * work: a Transpose to channels-last of an NHWC tensor copies nothing), and
 * its infer() derives its output layout from its inputs. The
 * pass first marks which tensors lead (through ops that accept NHWC) to a
 * window op, gives window ops whose output does a channels-last output,
 * then walks the graph in order simulating the kernels' own inference and
 * inserts an openacl.Reorder to plain wherever a consumer (or a graph
 * output) cannot take NHWC. */
#include "graph/passes.h"
#include "graph/errs.h"
#include "graph/precision.h"
#include "kernels/post.h"
#include "core/core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(void) { return acl_fail(ACL_ERROR_BAD_ALLOC, "layout pass: out of memory"); }

/* ORT's QLinearGlobalAveragePool is the int8 path's GlobalAveragePool: the
 * convolution before it computes channels-last and writes it so, instead of
 * reordering its output for the pool (the last convolution of int8 ResNet-50,
 * MobileNetV2 and EfficientNet-B0). */
static int is_window_type(const g_node *n)
{
    if (n->domain[0] && strcmp(n->domain, "ai.onnx"))
        return !strcmp(n->domain, "com.microsoft") && !strcmp(n->op_type, "QLinearGlobalAveragePool");
    static const char *const ops[] = { "Conv", "ConvTranspose", "MaxPool", "AveragePool",
                                       "GlobalAveragePool", "GlobalMaxPool", "LpPool", "QLinearConv" };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(n->op_type, ops[i])) return 1;
    return 0;
}

/* 0: n cannot read input `slot` in `layout`; 1: it can; 2: it can and
 * saves work so (kernel.h, accepts_layout). */
static int accepts(const g_node *n, int slot, int layout)
{
    if (layout == G_LAYOUT_PLAIN) return 1;
    if (!n->op || !n->op->accepts_layout) return 0;
    int a = n->op->accepts_layout(n, n->state, slot, layout);
    return a > 2 ? 2 : a < 0 ? 0 : a;
}

/* A 4-D Transpose to channels-first (perm 0,3,1,2): its output may be
 * stored channels-last, the very bytes of its input (a free transpose). */
static int to_channels_first(const g_graph *g, const g_node *n)
{
    if (n->domain[0] && strcmp(n->domain, "ai.onnx")) return 0;
    if (strcmp(n->op_type, "Transpose") || n->n_in < 1 || n->n_out != 1 || n->in[0] < 0 || n->out[0] < 0)
        return 0;
    const int64_t *p;
    if (g_attr_ints(n, "perm", &p) != 4 || g->t[n->in[0]].shape.rank != 4) return 0;
    return p[0] == 0 && p[1] == 3 && p[2] == 1 && p[3] == 2;
}

/* A window op reads NHWC on its data input (and a fused addend) and picks
 * its output layout itself. */
static int is_window(const g_node *n)
{
    if (!is_window_type(n) || n->n_out < 1 || n->out[0] < 0) return 0;
    return accepts(n, 0, G_LAYOUT_NHWC);
}

static int spatial_4d(const g_tensor *t)
{
    if (t->shape.rank != 4 || !g_shape_known(&t->shape)) return 0;
    return t->shape.d[2] * t->shape.d[3] > 1;
}

/* Input slots a consumer entry tells apart: QLinearConv's fused residual is
 * its input 9 (kernels/dnnl/dn_qconv.c), which a field of 8 slots read as
 * slot 7 (the output zero point, no NHWC), leaving ResNet-50's int8
 * downsample outputs channels-first with a reorder on either side. */
#define LP_SLOTS 16

typedef struct lp {
    g_graph *g;
    int *cstart, *clist;      /* consumers of each tensor: node*LP_SLOTS + slot (CSR) */
    unsigned char *want;      /* tensor: NHWC would reach a window op */
    int n_reorders;
    int free_perm;            /* channels-last around transposes (unless OPENACL_NO_FREE_PERM) */
} lp;

static int build_consumers(lp *s)
{
    g_graph *g = s->g;
    s->cstart = calloc((size_t)g->n_t + 2, sizeof(int));
    int total = 0;
    for (int i = 0; i < g->n_nodes; i++) total += g->nodes[i].n_in;
    s->clist = malloc((size_t)(total + 1) * sizeof(int));
    int *fill = calloc((size_t)g->n_t + 1, sizeof(int));
    if (!s->cstart || !s->clist || !fill) { free(fill); return oom(); }
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j] >= 0) s->cstart[g->nodes[i].in[j] + 1]++;
    for (int t = 0; t < g->n_t; t++) s->cstart[t + 1] += s->cstart[t];
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int t = g->nodes[i].in[j];
            if (t >= 0) s->clist[s->cstart[t] + fill[t]++] = i * LP_SLOTS + (j < LP_SLOTS - 1 ? j : LP_SLOTS - 1);
        }
    free(fill);
    return 0;
}

/* Reverse order: a tensor wants NHWC when some consumer is a window op, or
 * reads NHWC with less work (a Transpose to channels-last), or accepts NHWC
 * and has a 4-D output that wants it. */
static void mark_wants(lp *s)
{
    g_graph *g = s->g;
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        const g_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_out; k++) {
            int t = n->out[k];
            if (t < 0 || !spatial_4d(&g->t[t]) || g->t[t].dtype == G_UNDEF) continue;
            for (int u = s->cstart[t]; u < s->cstart[t + 1] && !s->want[t]; u++) {
                int ci = s->clist[u] / LP_SLOTS, slot = s->clist[u] % LP_SLOTS;
                const g_node *c = &g->nodes[ci];
                int a = accepts(c, slot, G_LAYOUT_NHWC);
                if (!a) continue;
                if (is_window(c) || (a == 2 && s->free_perm)) { s->want[t] = 1; break; }
                for (int m = 0; m < c->n_out; m++)
                    if (c->out[m] >= 0 && s->want[c->out[m]]) s->want[t] = 1;
            }
        }
    }
}

static void unbind(g_node *n)
{
    if (n->op && n->op->fini && n->state) n->op->fini(n->state);
    n->op = NULL;
    n->state = NULL;
}

static int set_layout_attr(g_node *n, int layout)
{
    for (int i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i].name, "_oa_layout")) {
            n->attr[i].type = G_AT_INT;
            n->attr[i].i = layout;
            return 0;
        }
    g_attr *a = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *a);
    if (!a) return oom();
    n->attr = a;
    g_attr *x = &a[n->n_attr];
    memset(x, 0, sizeof *x);
    x->name = malloc(sizeof "_oa_layout");
    if (!x->name) return oom();
    strcpy(x->name, "_oa_layout");
    x->type = G_AT_INT;
    x->i = layout;
    n->n_attr++;
    return 0;
}

/* Appends openacl.Reorder src -> new tensor in `layout` (or into `dst`
 * when dst >= 0). Returns the output tensor, -1 on failure. Node pointers
 * into g->nodes are invalid afterwards. */
static int add_reorder(lp *s, int src, int dst, int layout)
{
    g_graph *g = s->g;
    char name[300];
    const char *base = g->t[src].name ? g->t[src].name : "t";
    if (dst < 0) {
        for (int k = 0;; k++) {
            snprintf(name, sizeof name, "%s/_oa_%s%d", base, layout ? "nhwc" : "nchw", k);
            if (g_tensor_find(g, name) < 0) break;
        }
        dst = g_tensor_add(g, name);
        if (dst < 0) return -1;
        g->t[dst].dtype = g->t[src].dtype;
        g->t[dst].shape = g->t[src].shape;
    }
    g->t[dst].layout = layout;
    snprintf(name, sizeof name, "%s/_oa_reorder", base);
    int in[1] = { src }, out[1] = { dst };
    int ni = g_node_add(g, "Reorder", "openacl", name, 1, in, 1, out);
    if (ni < 0 || set_layout_attr(&g->nodes[ni], layout)) return -1;
    s->n_reorders++;
    return dst;
}

/* Output layouts of a bound node for the layouts its inputs have now, as
 * its own infer() computes them. Returns 0, or -1 when infer refused. */
static int predict(g_graph *g, g_node *n, int *lay)
{
    int m = n->n_in > n->n_out ? n->n_in : n->n_out;
    k_tensor *in = calloc((size_t)m + 1, sizeof *in), *out = calloc((size_t)m + 1, sizeof *out);
    if (!in || !out) { free(in); free(out); return -1; }
    graph_node_io(g, n, in, out);
    int r = n->op && n->op->infer ? n->op->infer(n, n->state, in, out) : 0;
    for (int k = 0; k < n->n_out; k++) lay[k] = r ? G_LAYOUT_PLAIN : out[k].layout;
    free(in);
    free(out);
    return r && r != K_NEED_DATA ? -1 : 0;
}

static int is_se(const g_node *n)
{
    return n->domain && !strcmp(n->domain, "openacl") && !strcmp(n->op_type, "SqueezeExcite");
}

static int set_bf16_out(g_node *n)
{
    for (int i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i].name, G_ATTR_BF16_OUT)) {
            n->attr[i].type = G_AT_INT;
            n->attr[i].i = 1;
            return 0;
        }
    g_attr *a = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *a);
    if (!a) return oom();
    n->attr = a;
    a = &n->attr[n->n_attr];
    memset(a, 0, sizeof *a);
    if (!(a->name = strdup(G_ATTR_BF16_OUT))) return oom();
    a->type = G_AT_INT;
    a->i = 1;
    n->n_attr++;
    return 0;
}

static void unbind_node(g_node *n)
{
    if (n->op && n->op->fini && n->state) n->op->fini(n->state);
    n->op = NULL;
    n->state = NULL;
}

/* Squeeze-excite blocks in bf16 (after graph_pass_bf16_act): a bf16
 * convolution's output read only by GlobalAveragePool and a channel-scale
 * Mul (EfficientNet's depthwise output) is stored as bf16, and the Mul's
 * output is bf16 when only bf16 convolutions read it. Otherwise the
 * depthwise output is float32 and the projection converts the Mul's float32
 * output again: two extra passes over the block's largest tensor. */
int graph_pass_bf16_se(g_graph *g)
{
    /* OPENACL_BF16_SE=2 also stores the depthwise output as bf16: ~3 % faster
     * on EfficientNet-B0, but a second rounding before the projection raises
     * its error against float32 by a fifth; off by default */
    const char *mode = getenv("OPENACL_BF16_SE");
    int deep = mode && !strcmp(mode, "2");
    unsigned char *touch = calloc((size_t)g->n_nodes + 1, 1);
    if (!touch) return oom();
    int rc = 0, count = 0;
    for (int t = 0; t < g->n_t && !rc; t++) {
        g_tensor *x = &g->t[t];
        if (x->kind != G_TK_ACT || x->is_output || x->dtype != G_F32 || x->producer < 0 || x->nuse <= 0)
            continue;
        g_node *p = &g->nodes[x->producer];
        int conv_src = deep && p->out[0] == t && k_bf16_io(p, 1);
        int mul_src = p->n_out == 1 && ((!strcmp(p->op_type, "Mul") && (!p->domain || !*p->domain) &&
                                         (k_reads_bf16(g, p, 0) || k_reads_bf16(g, p, 1))) ||
                                        (is_se(p) && p->op));
        if (!conv_src && !mul_src) continue;
        /* every reader: GAP / channel-scale Mul after a convolution, bf16
         * convolutions (data input) after a Mul */
        int ok = 1, seen = 0, muls = 0;
        for (int i = 0; i < g->n_nodes && ok; i++) {
            const g_node *c = &g->nodes[i];
            for (int j = 0; j < c->n_in && ok; j++) {
                if (c->in[j] != t) continue;
                seen++;
                if (conv_src) {
                    ok = k_reads_bf16(g, c, j);
                    muls += !strcmp(c->op_type, "Mul") || (is_se(c) && c->op);
                } else {
                    ok = j == 0 && k_bf16_io(c, 0);
                }
            }
        }
        if (!ok || seen != x->nuse || (conv_src && !muls)) continue;
        if ((rc = set_bf16_out(p))) break;
        x->dtype = G_BF16;
        touch[x->producer] = 1;
        for (int i = 0; i < g->n_nodes; i++)
            for (int j = 0; j < g->nodes[i].n_in; j++)
                if (g->nodes[i].in[j] == t) touch[i] = 1;
        count++;
    }
    for (int i = 0; i < g->n_nodes && !rc; i++)
        if (touch[i]) unbind_node(&g->nodes[i]);
    if (!rc && count) acl_log(1, "precision pass: %d squeeze-excite activations kept in bfloat16", count);
    free(touch);
    return rc;
}

/* Storage layouts (NHWC where the readers take it); the bfloat16 storage
 * passes follow in the pipeline (passes.c), once the layouts are final. */
int graph_pass_layout(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    const char *off = getenv("OPENACL_NO_LAYOUT");   /* debugging and tests: pass disabled */
    if (off && *off && strcmp(off, "0")) return 0;
    lp s = { .g = g };
    const char *fp = getenv("OPENACL_NO_FREE_PERM");
    s.free_perm = !(fp && *fp && strcmp(fp, "0"));
    int rc = build_consumers(&s);
    s.want = calloc((size_t)g->n_t + 1, 1);
    if (!rc && !s.want) rc = oom();
    if (rc) goto done;
    mark_wants(&s);
    int any = 0;
    for (int t = 0; t < g->n_t; t++) any |= s.want[t];
    if (!any) goto done;   /* nothing to gain: leave everything plain */

    int n0 = g->n_nodes;
    /* per tensor: its plain copy made by an inserted reorder (-1 none) */
    int *plain_of = malloc(((size_t)g->n_t + 1) * sizeof(int));
    if (!plain_of) { rc = oom(); goto done; }
    for (int t = 0; t < g->n_t; t++) plain_of[t] = -1;
    int nt0 = g->n_t;
    for (int i = 0; i < n0 && !rc; i++) {
        g_node *n = &g->nodes[i];
        if (!n->op) continue;
        /* inputs this node cannot read channels-last get a plain copy */
        int changed = 0;
        for (int j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0 || t >= nt0 || g->t[t].layout != G_LAYOUT_NHWC || accepts(n, j, G_LAYOUT_NHWC))
                continue;
            if (plain_of[t] < 0) {
                int p = add_reorder(&s, t, -1, G_LAYOUT_PLAIN);
                if (p < 0) { rc = oom(); break; }
                plain_of[t] = p;
                n = &g->nodes[i];
            }
            n->in[j] = plain_of[t];
            changed = 1;
        }
        if (rc) break;
        if (changed) unbind(n);
        /* window ops: channels-last output when it reaches another window op */
        if (is_window(n)) {
            int t = n->out[0];
            int want = t >= 0 && spatial_4d(&g->t[t]) && s.want[t] && !g->t[t].is_output;
            int cur = (int)g_attr_int(n, "_oa_layout", G_LAYOUT_PLAIN);
            int to = want ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
            if (cur != to) {
                if ((rc = set_layout_attr(n, to))) break;
                unbind(n);
            }
            if (t >= 0) g->t[t].layout = to;
            for (int k = 1; k < n->n_out; k++)
                if (n->out[k] >= 0) g->t[n->out[k]].layout = G_LAYOUT_PLAIN;
            continue;
        }
        /* a transpose to channels-first whose output wants NHWC writes it so */
        if (s.free_perm && to_channels_first(g, n)) {
            int t = n->out[0];
            int to = s.want[t] && !g->t[t].is_output && spatial_4d(&g->t[t]) ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
            if ((to == G_LAYOUT_NHWC || g_node_attr(n, "_oa_layout")) && (rc = set_layout_attr(n, to))) break;
            n = &g->nodes[i];
        }
        /* other ops: whatever their inference makes of the input layouts */
        int lay[16];
        if (n->n_out > 16) continue;
        int bound = n->op != NULL;
        if (!bound || predict(g, n, lay)) {
            for (int k = 0; k < n->n_out; k++)
                if (n->out[k] >= 0) g->t[n->out[k]].layout = G_LAYOUT_PLAIN;
            continue;
        }
        for (int k = 0; k < n->n_out; k++) {
            int t = n->out[k];
            if (t < 0) continue;
            g->t[t].layout = lay[k] == G_LAYOUT_NHWC && g->t[t].shape.rank == 4 ? G_LAYOUT_NHWC
                                                                               : G_LAYOUT_PLAIN;
            if (g->t[t].layout == G_LAYOUT_NHWC && g->t[t].is_output) {
                /* graph outputs are plain: the node writes a channels-last
                 * twin that a reorder turns into the output */
                char name[300];
                snprintf(name, sizeof name, "%s/_oa_nhwc", g->t[t].name ? g->t[t].name : "out");
                int twin = g_tensor_add(g, name);
                if (twin < 0) { rc = oom(); break; }
                g->t[twin].dtype = g->t[t].dtype;
                g->t[twin].shape = g->t[t].shape;
                g->t[twin].layout = G_LAYOUT_NHWC;
                g->nodes[i].out[k] = twin;
                /* later readers of t take the (plain) output as it is */
                if (add_reorder(&s, twin, t, G_LAYOUT_PLAIN) < 0) { rc = oom(); break; }
                g->t[t].layout = G_LAYOUT_PLAIN;
            }
        }
    }
    free(plain_of);
    if (!rc && s.n_reorders)
        acl_log(1, "layout pass: %d reorder nodes inserted around channels-last regions", s.n_reorders);
done:
    free(s.cstart);
    free(s.clist);
    free(s.want);
    return rc;
}
