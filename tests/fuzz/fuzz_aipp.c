/* libFuzzer target: the AIPP configuration text of atc --insert_op_conf
 * (graph/aipp_cfg.c). Each input is parsed; a refusal must carry a message;
 * an accepted file must respect the documented ranges, and each of its
 * static blocks is then put in front of a small float input (graph/aipp.c),
 * which must either succeed with a consistent image shape or refuse with a
 * message. The bytes are also read as a dynamic AIPP parameter block.
 * A crash, sanitizer report or leak is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "graph/aipp.h"
#include "graph/ir.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    return 0;
}

static void check_block(const aipp_cfg *c)
{
    if (c->mode != AIPP_MODE_STATIC && c->mode != AIPP_MODE_DYNAMIC) abort();
    if (c->mode == AIPP_MODE_DYNAMIC) {
        if (c->max_src_size <= 0) abort();
        return;
    }
    if (c->format < 1 || c->format > AIPP_RAW24) abort();
    if (c->src_w < 0 || c->src_w > 4096 || c->src_w == 1 || c->src_h < 0 || c->src_h > 4096) abort();
    if (c->pad_l < 0 || c->pad_l > 32 || c->pad_r < 0 || c->pad_r > 32 || c->pad_t < 0 || c->pad_t > 32 ||
        c->pad_b < 0 || c->pad_b > 32)
        abort();
    if (!c->pad && (c->pad_l || c->pad_r || c->pad_t || c->pad_b)) abort();
    for (int i = 0; i < 3; i++)
        if (c->in_bias[i] < 0 || c->in_bias[i] > 255 || c->out_bias[i] < 0 || c->out_bias[i] > 255) abort();
    for (int i = 0; i < 4; i++)
        if (c->mean[i] < 0 || c->mean[i] > 255 || !(c->min[i] >= 0 && c->min[i] <= 255)) abort();
}

/* One float NCHW input [1, ch, 16, 16] read by a Relu. */
static g_graph *tiny(int ch)
{
    g_graph *g = g_graph_new();
    if (!g) return NULL;
    int x = g_tensor_add(g, "x"), y = g_tensor_add(g, "y");
    if (x < 0 || y < 0) { g_graph_free(g); return NULL; }
    g->t[x].kind = G_TK_INPUT;
    g->t[x].dtype = G_F32;
    g->t[x].shape.rank = 4;
    g->t[x].shape.d[0] = 1; g->t[x].shape.d[1] = ch; g->t[x].shape.d[2] = 16; g->t[x].shape.d[3] = 16;
    g->inputs = malloc(sizeof *g->inputs);
    g->outputs = malloc(sizeof *g->outputs);
    if (!g->inputs || !g->outputs) { g_graph_free(g); return NULL; }
    g->inputs[0] = x; g->n_inputs = 1;
    g->outputs[0] = y; g->n_outputs = 1;
    g->t[y].is_output = 1;
    int in[1] = { x }, out[1] = { y };
    if (g_node_add(g, "Relu", "", "relu", 1, in, 1, out) < 0 || g_graph_link(g)) { g_graph_free(g); return NULL; }
    return g;
}

/* The same bytes as a dynamic AIPP parameter block (what the kernel reads
 * from an input at execute time): accepted only inside the image. */
static void check_dynamic(const uint8_t *data, size_t size)
{
    aipp_cfg c;
    for (int b = 0; b < 2; b++) {
        if (aipp_dyn_cfg("fuzz", data, size, b, 2, 4096, 16, 16, 3, &c)) {
            char *m = acl_err_take();
            if (!m) abort();
            free(m);
            continue;
        }
        int64_t w = c.crop ? c.crop_w : c.src_w, h = c.crop ? c.crop_h : c.src_h;
        if (c.crop_x < 0 || c.crop_y < 0 || c.crop_x + w > c.src_w || c.crop_y + h > c.src_h) abort();
        if (w + c.pad_l + c.pad_r != 16 || h + c.pad_t + c.pad_b != 16) abort();
        g_shape s;
        if (aipp_input_shape(c.format, 2, c.src_w, c.src_h, &s) || g_shape_numel(&s) > 4096) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_dynamic(data, size);
    aipp_cfg *v = NULL;
    int n = 0;
    int rc = aipp_parse("fuzz.cfg", (const char *)data, size, &v, &n);
    if (rc) {
        char *m = acl_err_take();
        if (!m || v || n) abort();
        free(m);
        return 0;
    }
    if (n < 1 || n > AIPP_MAX_BLOCKS) abort();
    for (int i = 0; i < n; i++) {
        check_block(&v[i]);
        g_graph *g = tiny(v[i].format == AIPP_YUV400_U8 ? 1 : 3);
        if (!g) abort();
        g_shape s = g->t[g->inputs[0]].shape;
        if (aipp_insert(g, "fuzz.cfg", &v[i], &s) == 0) {
            const g_tensor *img = &g->t[g->inputs[0]];
            if (img->dtype != G_U8 || !g_shape_eq(&img->shape, &s) || g_shape_numel(&s) <= 0) abort();
        } else {
            char *m = acl_err_take();
            if (!m) abort();
            free(m);
        }
        g_graph_free(g);
    }
    free(v);
    return 0;
}
