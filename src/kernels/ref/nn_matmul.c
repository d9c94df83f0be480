/* Reference MatMul (N-D, batch broadcasting, 1-D operands) and Gemm
 * (transA/transB, alpha/beta, broadcast C), with the fused bias and
 * post-ops of the fusion pass. */
#include "kernels/ref/nn_common.h"
#include <stdlib.h>
#include <string.h>

typedef struct mm_st {
    nn_post po;
    int gemm;
    int ta, tb;
    float alpha, beta;
} mm_st;

static int mm_init_common(g_graph *g, g_node *n, void **state, int gemm)
{
    mm_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_post_parse(n, &s->po);
    if (r) { free(s); return r; }
    s->gemm = gemm;
    s->ta = (int)g_attr_int(n, "transA", 0);
    s->tb = (int)g_attr_int(n, "transB", 0);
    s->alpha = g_attr_float(n, "alpha", 1.f);
    s->beta = g_attr_float(n, "beta", 1.f);
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) {
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): needs inputs A and B",
                        n->name, n->op_type, n->opset);
    }
    for (int i = 0; i < n->n_in && i < 4; i++) {
        if (n->in[i] < 0) continue;
        int dt = g->t[n->in[i]].dtype;
        if (dt != G_UNDEF && !nn_is_float(dt)) { free(s); return nn_fail_dtype(n, i, dt); }
    }
    *state = s;
    return 0;
}

static int matmul_init(g_graph *g, g_node *n, void **st) { return mm_init_common(g, n, st, 0); }
static int gemm_init(g_graph *g, g_node *n, void **st) { return mm_init_common(g, n, st, 1); }

/* Shared with dnnl: output shape of MatMul, and M, K, N. */
int nn_matmul_shape(const g_node *n, const g_shape *a, const g_shape *b, g_shape *y,
                    int64_t *M, int64_t *K, int64_t *N)
{
    if (a->rank < 0 || b->rank < 0) {   /* not known before run time */
        y->rank = -1;
        *M = *K = *N = -1;
        return 0;
    }
    if (a->rank < 1 || b->rank < 1) {
        char x[96], z[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): operands %s and %s; "
                        "both need rank >= 1", n->name, n->op_type, n->opset,
                        g_shape_str(a, x, sizeof x), g_shape_str(b, z, sizeof z));
    }
    g_shape a2 = *a, b2 = *b;
    if (a->rank == 1) { a2.rank = 2; a2.d[0] = 1; a2.d[1] = a->d[0]; }
    if (b->rank == 1) { b2.rank = 2; b2.d[0] = b->d[0]; b2.d[1] = 1; }
    *M = a2.d[a2.rank - 2];
    *K = a2.d[a2.rank - 1];
    *N = b2.d[b2.rank - 1];
    int64_t kb = b2.d[b2.rank - 2];
    if (*K >= 0 && kb >= 0 && *K != kb) {
        char x[96], z[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): inner dims differ: "
                        "%s x %s (%lld vs %lld)", n->name, n->op_type, n->opset,
                        g_shape_str(a, x, sizeof x), g_shape_str(b, z, sizeof z),
                        (long long)*K, (long long)kb);
    }
    g_shape ab = a2, bb = b2, ob;
    ab.rank -= 2; bb.rank -= 2;
    int r = k_broadcast(n, &ab, &bb, &ob);
    if (r) return r;
    if (ob.rank + 2 > G_MAX_RANK)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): rank over %d", n->name,
                        n->op_type, G_MAX_RANK);
    *y = ob;
    if (a->rank > 1) y->d[y->rank++] = *M;
    if (b->rank > 1) y->d[y->rank++] = *N;
    return 0;
}

/* Gemm operand dims: A is [M,K] (or [K,M]), B is [K,N] (or [N,K]). */
int nn_gemm_shape(const g_node *n, int ta, int tb, const g_shape *a, const g_shape *b,
                  const g_shape *c, g_shape *y, int64_t *M, int64_t *K, int64_t *N)
{
    if (a->rank < 0 || b->rank < 0) {
        y->rank = 2;
        *M = a->rank == 2 ? (ta ? a->d[1] : a->d[0]) : -1;
        *N = b->rank == 2 ? (tb ? b->d[0] : b->d[1]) : -1;
        *K = -1;
        y->d[0] = *M;
        y->d[1] = *N;
        return 0;
    }
    if (a->rank != 2 || b->rank != 2) {
        char x[96], z[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): A %s and B %s must be "
                        "2-D", n->name, n->op_type, n->opset, g_shape_str(a, x, sizeof x),
                        g_shape_str(b, z, sizeof z));
    }
    *M = ta ? a->d[1] : a->d[0];
    *K = ta ? a->d[0] : a->d[1];
    *N = tb ? b->d[0] : b->d[1];
    int64_t kb = tb ? b->d[1] : b->d[0];
    if (*K >= 0 && kb >= 0 && *K != kb)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): inner dims differ "
                        "(%lld vs %lld; transA %d transB %d)", n->name, n->op_type, n->opset,
                        (long long)*K, (long long)kb, ta, tb);
    y->rank = 2;
    y->d[0] = *M;
    y->d[1] = *N;
    if (c && c->rank >= 0) {
        g_shape o;
        if (c->rank > 2)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): C has rank %d", n->name,
                            n->op_type, c->rank);
        int r = k_broadcast(n, y, c, &o);
        if (r) return r;
        if (g_shape_known(&o) && g_shape_known(y) && !g_shape_eq(&o, y)) {
            char x[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): C %s does not "
                            "broadcast to [%lld,%lld]", n->name, n->op_type, n->opset,
                            g_shape_str(c, x, sizeof x), (long long)*M, (long long)*N);
        }
    }
    return 0;
}

static int mm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    mm_st *s = state;
    int64_t M, K, N;
    int r;
    if (s->gemm) {
        const g_shape *c = n->n_in > 2 && n->in[2] >= 0 ? &in[2].shape : NULL;
        r = nn_gemm_shape(n, s->ta, s->tb, &in[0].shape, &in[1].shape, c, &out[0].shape, &M, &K, &N);
    } else {
        r = nn_matmul_shape(n, &in[0].shape, &in[1].shape, &out[0].shape, &M, &K, &N);
        if (!r && n->n_in > 2 && n->in[2] >= 0) {
            const g_shape *bs = &in[2].shape;
            if (bs->rank != 1 || (N >= 0 && bs->d[0] >= 0 && bs->d[0] != N)) {
                char x[96];
                return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused bias %s; "
                                "expected [%lld]", n->name, n->op_type,
                                g_shape_str(bs, x, sizeof x), (long long)N);
            }
        }
    }
    if (r) return r;
    if (s->po.has_add && g_shape_known(&out[0].shape) &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape)) {
        char x[96], z[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused addend %s differs from "
                        "the output %s", n->name, n->op_type,
                        g_shape_str(&in[NN_ADD_INPUT].shape, x, sizeof x),
                        g_shape_str(&out[0].shape, z, sizeof z));
    }
    out[0].dtype = in[0].dtype;
    return 0;
}

/* y[M,N] = a * b with arbitrary element strides for A and B. */
static void gemm_f32(int64_t M, int64_t K, int64_t N, const float *a, int64_t sam, int64_t sak,
                     const float *b, int64_t sbk, int64_t sbn, float *y)
{
    for (int64_t m = 0; m < M; m++) {
        float *yr = y + m * N;
        for (int64_t j = 0; j < N; j++) yr[j] = 0.f;
        for (int64_t k = 0; k < K; k++) {
            float av = a[m * sam + k * sak];
            const float *br = b + k * sbk;
            if (sbn == 1)
                for (int64_t j = 0; j < N; j++) yr[j] += av * br[j];
            else
                for (int64_t j = 0; j < N; j++) yr[j] += av * br[j * sbn];
        }
    }
}

static int mm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                  const k_ctx *ctx)
{
    mm_st *s = state;
    (void)ctx;
    return nn_mm_compute(n, s->gemm, s->ta, s->tb, s->alpha, s->beta, &s->po, in, out);
}

int nn_mm_compute(const g_node *n, int gemm, int ta, int tb, float alpha, float beta,
                  const nn_post *po, const k_tensor *in, k_tensor *out)
{
    int64_t M, K, N;
    g_shape ys;
    int r;
    int has_c = n->n_in > 2 && n->in[2] >= 0 && in[2].data;
    if (gemm)
        r = nn_gemm_shape(n, ta, tb, &in[0].shape, &in[1].shape,
                          has_c ? &in[2].shape : NULL, &ys, &M, &K, &N);
    else
        r = nn_matmul_shape(n, &in[0].shape, &in[1].shape, &ys, &M, &K, &N);
    if (r) return r;
    if (g_shape_numel(&ys) == 0) return 0;
    nn_f32buf ba, bb, bc, bd, by;
    nn_f32_none(&bc); nn_f32_none(&bd);
    r = nn_f32_in(n, &in[0], &ba);
    if (!r) r = nn_f32_in(n, &in[1], &bb);
    if (!r && has_c) r = nn_f32_in(n, &in[2], &bc);
    if (!r && po->has_add) r = nn_f32_in(n, &in[NN_ADD_INPUT], &bd);
    if (!r) r = nn_f32_out(n, &out[0], &by);
    if (r) goto done;
    if (gemm) {
        gemm_f32(M, K, N, ba.p, ta ? 1 : K, ta ? M : 1, bb.p, tb ? 1 : N, tb ? K : 1, by.p);
        for (int64_t i = 0; i < M * N; i++) by.p[i] *= alpha;
        if (has_c && beta != 0.f) {
            /* C broadcast to [M,N] */
            const g_shape *cs = &in[2].shape;
            int64_t cm = 1, cn = 1;
            if (cs->rank == 2) { cm = cs->d[0]; cn = cs->d[1]; }
            else if (cs->rank == 1) cn = cs->d[0];
            for (int64_t m = 0; m < M; m++)
                for (int64_t j = 0; j < N; j++)
                    by.p[m * N + j] += beta * bc.p[(cm == 1 ? 0 : m) * cn + (cn == 1 ? 0 : j)];
        }
    } else {
        const g_shape *as = &in[0].shape, *bs = &in[1].shape;
        int ob = ys.rank - (as->rank > 1) - (bs->rank > 1);   /* batch rank of the output */
        int64_t nbatch = 1;
        for (int i = 0; i < ob; i++) nbatch *= ys.d[i];
        int abr = as->rank > 2 ? as->rank - 2 : 0, bbr = bs->rank > 2 ? bs->rank - 2 : 0;
        for (int64_t bi = 0; bi < nbatch; bi++) {
            /* decompose bi over the output batch dims, map to A and B offsets */
            int64_t rem = bi, aoff = 0, boff = 0, astr = M * K, bstr = K * N;
            for (int i = ob - 1; i >= 0; i--) {
                int64_t idx = rem % ys.d[i];
                rem /= ys.d[i];
                int ai = i - (ob - abr), bj = i - (ob - bbr);
                if (ai >= 0) { if (as->d[ai] != 1) aoff += idx * astr; astr *= as->d[ai]; }
                if (bj >= 0) { if (bs->d[bj] != 1) boff += idx * bstr; bstr *= bs->d[bj]; }
            }
            gemm_f32(M, K, N, ba.p + aoff, K, 1, bb.p + boff, N, 1, by.p + bi * M * N);
        }
        if (has_c)   /* fused bias over the last dim */
            for (int64_t i = 0; i < nbatch * M; i++)
                for (int64_t j = 0; j < N; j++) by.p[i * N + j] += bc.p[j];
    }
    if (po->n) nn_post_apply(po, by.p, by.n, bd.p);
    nn_f32_commit(&out[0], &by);
done:
    nn_f32_free(&ba); nn_f32_free(&bb); nn_f32_free(&bc); nn_f32_free(&bd); nn_f32_free(&by);
    return r;
}

static void mm_fini(void *state) { free(state); }

static const k_op k_matmul_ref = {
    .op_type = "MatMul", .domain = "", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = matmul_init, .infer = mm_infer, .run = mm_run, .fini = mm_fini,
    .flops = k_flops_matmul,
};
K_REGISTER(k_matmul_ref);

static const k_op k_gemm_ref = {
    .op_type = "Gemm", .domain = "", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = gemm_init, .infer = mm_infer, .run = mm_run, .fini = mm_fini,
    .flops = k_flops_gemm,
};
K_REGISTER(k_gemm_ref);
