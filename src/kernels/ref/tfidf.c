/* Reference TfIdfVectorizer (opset 9) over integer tokens: counts the
 * n-grams of the pool (lengths min_gram_length..max_gram_length, with 0 to
 * max_skip_count tokens skipped between the items of an n-gram; 1-grams
 * once) in each row of X, then weights them by mode TF / IDF / TFIDF.
 * String pools are refused (string tensors are not supported). */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

enum { TF_TF, TF_IDF, TF_TFIDF };

typedef struct tf_state {
    int mode;
    int64_t min_n, max_n, max_skip;
    int64_t npool;             /* values in pool_int64s */
    int64_t *pool;
    int nlen;                  /* entries of ngram_counts */
    int64_t *starts;           /* ngram_counts: pool offset of each length's n-grams */
    int64_t nid;               /* n-grams in the pool (= entries of ngram_indexes) */
    int64_t *out_idx;          /* ngram_indexes */
    float *weights;            /* NULL: all 1 */
    int64_t width;             /* max(ngram_indexes) + 1 */
    int64_t *base_id;          /* per length n (index n-1): id of its first n-gram */
} tf_state;

static void tf_fini(void *state)
{
    tf_state *s = state;
    if (!s) return;
    free(s->base_id);
    free(s->pool);
    free(s->starts);
    free(s->out_idx);
    free(s->weights);
    free(s);
}

/* a private copy of an attribute array (the state outlives no graph) */
static void *tf_dup(const void *p, int n, size_t es)
{
    void *q = malloc((size_t)(n > 0 ? n : 1) * es);
    if (q && n > 0) memcpy(q, p, (size_t)n * es);
    return q;
}

static int tf_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in != 1 || n->in[0] < 0) return ew_fail(n, EW_EINVAL, "needs one input");
    if (g_node_attr(n, "pool_strings"))
        return ew_fail(n, EW_EUNSUP, "pool_strings: string tensors are not supported");
    int rc = ew_check_type(n, 0, ew_gdtype(g, n, 0), EW_M(G_I32) | EW_M(G_I64));
    if (rc) return rc;
    tf_state s;
    memset(&s, 0, sizeof s);
    const char *mode = g_attr_str(n, "mode", "");
    if (!strcmp(mode, "TF")) s.mode = TF_TF;
    else if (!strcmp(mode, "IDF")) s.mode = TF_IDF;
    else if (!strcmp(mode, "TFIDF")) s.mode = TF_TFIDF;
    else return ew_fail(n, EW_EINVAL, "mode='%s' (expected TF, IDF or TFIDF)", mode);
    s.min_n = g_attr_int(n, "min_gram_length", 0);
    s.max_n = g_attr_int(n, "max_gram_length", 0);
    s.max_skip = g_attr_int(n, "max_skip_count", 0);
    if (s.min_n < 1 || s.max_n < s.min_n || s.max_skip < 0)
        return ew_fail(n, EW_EINVAL, "min_gram_length %lld, max_gram_length %lld, max_skip_count %lld",
                       (long long)s.min_n, (long long)s.max_n, (long long)s.max_skip);
    const int64_t *pool, *starts, *out_idx;
    const float *weights;
    int np = g_attr_ints(n, "pool_int64s", &pool);
    s.nlen = g_attr_ints(n, "ngram_counts", &starts);
    int ni = g_attr_ints(n, "ngram_indexes", &out_idx);
    if (np < 0 || s.nlen < 0 || ni < 0)
        return ew_fail(n, EW_EINVAL, "needs pool_int64s, ngram_counts and ngram_indexes");
    s.npool = np;
    s.pool = (int64_t *)pool;
    s.starts = (int64_t *)starts;
    s.out_idx = (int64_t *)out_idx;
    /* n-gram ids: each length's region of the pool holds whole n-grams */
    s.base_id = calloc((size_t)s.nlen + 1, sizeof *s.base_id);
    if (!s.base_id) return ew_fail(n, EW_ENOMEM, "out of memory");
    int64_t id = 0;
    for (int l = 0; l < s.nlen; l++) {
        int64_t a = s.starts[l], b = l + 1 < s.nlen ? s.starts[l + 1] : s.npool;
        if (a < 0 || b < a || b > s.npool || (b - a) % (l + 1)) {
            free(s.base_id);
            return ew_fail(n, EW_EINVAL, "ngram_counts[%d] = %lld does not split pool_int64s (%lld "
                           "values) into %d-grams", l, (long long)a, (long long)s.npool, l + 1);
        }
        s.base_id[l] = id;
        id += (b - a) / (l + 1);
    }
    s.base_id[s.nlen] = id;
    s.nid = id;
    if (ni != s.nid) {
        free(s.base_id);
        return ew_fail(n, EW_EINVAL, "%d ngram_indexes for %lld n-grams in the pool", ni,
                       (long long)s.nid);
    }
    s.width = 0;
    for (int i = 0; i < ni; i++) {
        if (s.out_idx[i] < 0) {
            free(s.base_id);
            return ew_fail(n, EW_EINVAL, "ngram_indexes[%d] = %lld is negative", i,
                           (long long)s.out_idx[i]);
        }
        if (s.out_idx[i] + 1 > s.width) s.width = s.out_idx[i] + 1;
    }
    int nw = g_attr_floats(n, "weights", &weights);
    if (nw >= 0 && nw != ni) {
        free(s.base_id);
        return ew_fail(n, EW_EINVAL, "%d weights for %d n-grams", nw, ni);
    }
    tf_state *p = calloc(1, sizeof *p);
    if (p) {
        *p = s;
        p->pool = tf_dup(pool, np, sizeof *pool);
        p->starts = tf_dup(starts, s.nlen, sizeof *starts);
        p->out_idx = tf_dup(out_idx, ni, sizeof *out_idx);
        p->weights = nw >= 0 ? tf_dup(weights, nw, sizeof *weights) : NULL;
    }
    if (!p || !p->pool || !p->starts || !p->out_idx || (nw >= 0 && !p->weights)) {
        if (p) tf_fini(p);
        else free(s.base_id);
        return ew_fail(n, EW_ENOMEM, "out of memory");
    }
    *state = p;
    return 0;
}

static int tf_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    tf_state *s = state;
    const g_shape *x = &in[0].shape;
    char b[96];
    out[0].dtype = G_F32;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0) { out[0].shape.rank = -1; return 0; }
    if (x->rank < 1 || x->rank > 2)
        return ew_fail(n, EW_EINVAL, "input %s must be [C] or [N, C]", g_shape_str(x, b, sizeof b));
    out[0].shape.rank = x->rank;
    if (x->rank == 2) out[0].shape.d[0] = x->d[0];
    out[0].shape.d[x->rank - 1] = s->width;
    return 0;
}

static int tf_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                  const k_ctx *ctx)
{
    tf_state *s = state;
    (void)ctx; (void)n;
    const g_shape *x = &in[0].shape;
    int64_t rows = x->rank == 2 ? x->d[0] : 1, C = x->d[x->rank - 1];
    float *Y = out[0].data;
    memset(Y, 0, out[0].nbytes);
    int dt = in[0].dtype;
    for (int64_t r = 0; r < rows; r++) {
        float *y = Y + r * s->width;
        size_t row = (size_t)(r * C);
        for (int64_t len = s->min_n; len <= s->max_n && len <= s->nlen; len++) {
            int64_t a = s->starts[len - 1], b = len < s->nlen ? s->starts[len] : s->npool;
            int64_t skips = len == 1 ? 0 : s->max_skip;
            for (int64_t sk = 0; sk <= skips; sk++) {
                int64_t step = sk + 1;
                for (int64_t i = 0; i + (len - 1) * step < C; i++) {
                    for (int64_t p = a; p < b; p += len) {
                        int64_t k = 0;
                        while (k < len && ew_ldi(in[0].data, dt, row + (size_t)(i + k * step)) == s->pool[p + k]) k++;
                        if (k == len) {
                            y[s->out_idx[s->base_id[len - 1] + (p - a) / len]] += 1.f;
                            break;
                        }
                    }
                }
            }
        }
        if (s->mode != TF_TF) {
            /* weights by n-gram id; IDF counts presence only */
            for (int64_t id = 0; id < s->nid; id++) {
                float *v = &y[s->out_idx[id]];
                if (*v == 0.f) continue;
                float c = s->mode == TF_IDF ? 1.f : *v;
                *v = c * (s->weights ? s->weights[id] : 1.f);
            }
        }
    }
    return 0;
}

static const k_op k_tfidf = { "TfIdfVectorizer", "", 9, 0, "ref", 0, tf_init, tf_infer, NULL,
                              NULL, tf_run, tf_fini, NULL };
K_REGISTER(k_tfidf);
