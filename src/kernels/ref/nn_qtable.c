/* openacl.QTable: the reference (nn_qtable.h). */
#include "kernels/ref/nn_qtable.h"
#include "kernels/ref/nn_common.h"
#include "kernels/ref/shape_common.h"
#include "core/par.h"
#include <stdlib.h>
#include <string.h>

static void map_ref(const uint8_t *lut, const uint8_t *x, uint8_t *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = lut[x[i]];
}

static int is_byte(int dt) { return dt == G_U8 || dt == G_I8; }

int nn_qtable_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (n->n_in != 2 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): needs inputs X and table and one output",
                        n->name, n->op_type);
    const g_tensor *x = &g->t[n->in[0]], *t = &g->t[n->in[1]];
    if (x->dtype != G_UNDEF && !is_byte(x->dtype)) return nn_fail_dtype(n, 0, x->dtype);
    if (t->kind != G_TK_CONST || !t->data || !is_byte(t->dtype) || g_shape_numel(&t->shape) != 256 ||
        t->nbytes != 256)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): the table must be a constant of 256 "
                        "uint8 or int8 values", n->name, n->op_type);
    nn_qtable *s = malloc(sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    memcpy(s->lut, t->data, 256);
    s->map = map_ref;
    *state = s;
    return 0;
}

int nn_qtable_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)n; (void)state;
    out[0].shape = in[0].shape;
    out[0].dtype = in[1].dtype;
    out[0].layout = in[0].layout;
    return 0;
}

int nn_qtable_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    const nn_qtable *s = state;
    int64_t total = g_shape_numel(&in[0].shape);
    if (total <= 0) return 0;
    const uint8_t *x = in[0].data;
    uint8_t *y = out[0].data;
    /* memory-bound: one thread per 256 KiB at most; blocks of 64 bytes */
    int nt = ksh_threads(ctx, (size_t)total);
    int64_t blocks = (total + 63) / 64, per = (blocks + nt - 1) / nt;
    OA_PAR_FOR(nt, for (int k = 0; k < nt; k++) {
        int64_t lo = k * per * 64, hi = lo + per * 64 < total ? lo + per * 64 : total;
        if (lo < hi) s->map(s->lut, x + lo, y + lo, hi - lo);
    });
    return 0;
}

int nn_qtable_inplace(const g_node *n, void *state)
{
    (void)n; (void)state;
    return 0;
}

void nn_qtable_fini(void *state) { free(state); }

static const k_op k_qtable_ref = {
    .op_type = "QTable", .domain = "openacl", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = nn_qtable_init, .infer = nn_qtable_infer, .run = nn_qtable_run, .fini = nn_qtable_fini,
    .accepts_layout = ksh_accept_data, .inplace = nn_qtable_inplace,
};
K_REGISTER(k_qtable_ref);
