/* NonMaxSuppression: per batch and class, candidates above the score
 * threshold in descending score order (ties: lower box index first), kept
 * greedily while their IoU with every kept box is <= iou_threshold. The
 * output size depends on the data, so infer() runs the selection too. */
#include "kernels/ref/shape_common.h"
#include <math.h>

typedef struct cand { float s; int64_t i; } cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->s != y->s) return x->s > y->s ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Box as (x1, y1, x2, y2) with x1 <= x2, y1 <= y2. */
static void box_at(const float *b, int center, float *o)
{
    if (center) {
        float cx = b[0], cy = b[1], w = b[2], h = b[3];
        o[0] = cx - w / 2; o[2] = cx + w / 2;
        o[1] = cy - h / 2; o[3] = cy + h / 2;
    } else {
        o[1] = fminf(b[0], b[2]); o[3] = fmaxf(b[0], b[2]);
        o[0] = fminf(b[1], b[3]); o[2] = fmaxf(b[1], b[3]);
    }
}

static int suppressed(const float *a, const float *b, float thr)
{
    float ix1 = fmaxf(a[0], b[0]), ix2 = fminf(a[2], b[2]);
    float iy1 = fmaxf(a[1], b[1]), iy2 = fminf(a[3], b[3]);
    if (ix2 <= ix1 || iy2 <= iy1) return 0;
    float aa = (a[2] - a[0]) * (a[3] - a[1]), ab = (b[2] - b[0]) * (b[3] - b[1]);
    if (aa <= 0 || ab <= 0) return 0;
    float inter = (ix2 - ix1) * (iy2 - iy1);
    return inter / (aa + ab - inter) > thr;
}

/* Runs the selection; writes triples into out (when non-NULL, at most cap)
 * and returns the count, or minus an aclError. */
static int64_t nms_compute(const g_node *n, const k_tensor *in, int64_t *out, int64_t cap)
{
    const g_shape *bs = &in[0].shape, *ss = &in[1].shape;
    if (bs->rank != 3 || bs->d[2] != 4 || ss->rank != 3 || ss->d[0] != bs->d[0] || ss->d[2] != bs->d[1])
        return -(int64_t)ksh_fail(n, KSH_EINVAL, "boxes must be [B,N,4] and scores [B,C,N]");
    int64_t B = bs->d[0], N = bs->d[1], C = ss->d[1];
    int64_t maxo = ksh_has(n, in, 2) && ksh_numel(&in[2].shape) > 0 ? ksh_geti(in[2].data, in[2].dtype, 0) : 0;
    float iou = ksh_has(n, in, 3) && ksh_numel(&in[3].shape) > 0 ? (float)ksh_getf(in[3].data, in[3].dtype, 0) : 0.f;
    int has_st = ksh_has(n, in, 4) && ksh_numel(&in[4].shape) > 0;
    float sthr = has_st ? (float)ksh_getf(in[4].data, in[4].dtype, 0) : 0.f;
    int center = (int)g_attr_int(n, "center_point_box", 0);
    if (maxo <= 0 || N == 0) return 0;
    cand *cs = malloc((size_t)N * sizeof *cs);
    int64_t *keep = malloc((size_t)N * sizeof *keep);
    if (!cs || !keep) { free(cs); free(keep); return -(int64_t)ksh_fail(n, KSH_ENOMEM, "out of memory"); }
    const float *boxes = in[0].data, *scores = in[1].data;
    int64_t total = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *sc = scores + (b * C + c) * N;
            int64_t m = 0, nk = 0;
            for (int64_t i = 0; i < N; i++)
                if (!has_st || sc[i] > sthr) { cs[m].s = sc[i]; cs[m].i = i; m++; }
            qsort(cs, (size_t)m, sizeof *cs, cand_cmp);
            for (int64_t j = 0; j < m && nk < maxo; j++) {
                float bj[4];
                box_at(boxes + (b * N + cs[j].i) * 4, center, bj);
                int sup = 0;
                for (int64_t q = 0; q < nk && !sup; q++) {
                    float bq[4];
                    box_at(boxes + (b * N + keep[q]) * 4, center, bq);
                    sup = suppressed(bj, bq, iou);
                }
                if (sup) continue;
                keep[nk++] = cs[j].i;
                if (out && total < cap) {
                    out[3 * total] = b;
                    out[3 * total + 1] = c;
                    out[3 * total + 2] = cs[j].i;
                }
                total++;
            }
        }
    free(cs);
    free(keep);
    return total;
}

static int nms_init(g_graph *g, g_node *n, void **st)
{
    if (ksh_in_dtype(g, n, 0) != G_F32 || ksh_in_dtype(g, n, 1) != G_F32)
        return ksh_fail(n, KSH_ETYPE, "boxes and scores must be float32, got %s and %s",
                        g_dtype_name(ksh_in_dtype(g, n, 0)), g_dtype_name(ksh_in_dtype(g, n, 1)));
    int64_t c = g_attr_int(n, "center_point_box", 0);
    if (c != 0 && c != 1) return ksh_fail(n, KSH_EINVAL, "center_point_box must be 0 or 1, got %lld", (long long)c);
    return 0;
}

static int nms_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_I64;
    out[0].layout = G_LAYOUT_PLAIN;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = 2;
    out[0].shape.d[0] = -1;
    out[0].shape.d[1] = 3;
    for (int i = 0; i < n->n_in && i < 5; i++)
        if (ksh_has(n, in, i) && !in[i].data) return K_NEED_DATA;
    int64_t k = nms_compute(n, in, NULL, 0);
    if (k < 0) return (int)-k;
    out[0].shape.d[0] = k;
    return 0;
}

static int nms_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t cap = out[0].shape.d[0], k = nms_compute(n, in, out[0].data, cap);
    if (k < 0) return (int)-k;
    if (k != cap) return ksh_fail(n, KSH_EINVAL, "%lld boxes selected, %lld inferred", (long long)k, (long long)cap);
    return 0;
}
static const k_op k_nms = {.op_type = "NonMaxSuppression", .domain = "", .since = 10, .impl = "ref",
                           .init = nms_init, .infer = nms_infer, .run = nms_run};
K_REGISTER(k_nms);
