/* openacl.Reorder: copies a 4-D activation from its input's physical layout
 * to its output's (plain NCHW <-> channels-last NHWC). The layout pass
 * inserts it where a consumer cannot read the producer's layout. Any dtype. */
#include "kernels/ref/nn_common.h"
#include <stdlib.h>
#include <string.h>

static int reorder_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in != 1 || n->n_out != 1 || n->in[0] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.Reorder): needs one input "
                        "and one output", n->name);
    *state = NULL;
    return 0;
}

static int reorder_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

/* Copies an (N, C, P) tensor between channel-major and channel-minor order,
 * in tiles so both sides stream through the cache. */
void nn_reorder_bytes(const void *src, int src_layout, void *dst, int dst_layout,
                      const g_shape *s, size_t es)
{
    int64_t numel = g_shape_numel(s);
    if (src_layout == dst_layout || s->rank < 3) {
        memcpy(dst, src, (size_t)numel * es);
        return;
    }
    int64_t N = s->d[0], C = s->d[1], P = 1;
    for (int i = 2; i < s->rank; i++) P *= s->d[i];
    const char *x = src;
    char *y = dst;
    const int64_t T = 32;
    for (int64_t nb = 0; nb < N; nb++) {
        const char *xb = x + (size_t)(nb * C * P) * es;
        char *yb = y + (size_t)(nb * C * P) * es;
        for (int64_t c0 = 0; c0 < C; c0 += T)
            for (int64_t p0 = 0; p0 < P; p0 += T) {
                int64_t c1 = c0 + T < C ? c0 + T : C, p1 = p0 + T < P ? p0 + T : P;
                for (int64_t c = c0; c < c1; c++)
                    for (int64_t p = p0; p < p1; p++) {
                        /* plain index c*P+p, channels-last index p*C+c */
                        int64_t si = src_layout == G_LAYOUT_PLAIN ? c * P + p : p * C + c;
                        int64_t di = dst_layout == G_LAYOUT_PLAIN ? c * P + p : p * C + c;
                        memcpy(yb + (size_t)di * es, xb + (size_t)si * es, es);
                    }
            }
    }
}

static int reorder_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                       const k_ctx *ctx)
{
    size_t es = g_dtype_size(in[0].dtype);
    if (!es) return nn_fail_dtype(n, 0, in[0].dtype);
    if (k_nbytes(&in[0]) > out[0].nbytes)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (openacl.Reorder): output of %zu "
                        "bytes, needs %zu", n->name, out[0].nbytes, k_nbytes(&in[0]));
    nn_reorder_bytes(in[0].data, in[0].layout, out[0].data, out[0].layout, &in[0].shape, es);
    (void)ctx;
    return 0;
}

static int reorder_accepts(const g_node *n, void *state, int idx, int layout)
{
    return 1;
}

static const k_op k_reorder_ref = {
    .op_type = "Reorder", .domain = "openacl", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = reorder_init, .infer = reorder_infer, .run = reorder_run,
    .accepts_layout = reorder_accepts,
};
K_REGISTER(k_reorder_ref);
