/* Einsum, general and simple: the equation (explicit or implicit output,
 * '...' broadcasting, repeated labels for diagonals) is resolved into one
 * stride per (operand, label); each output element then sums the product of
 * the operands over the odometer of the summed labels. Float types
 * accumulate in double, integers in int64. */
#include "core/par.h"
#include "kernels/ref/shape_common.h"
#include <ctype.h>
#include <omp.h>

#define ES_MAXOP 8
#define ES_MAXL (52 + G_MAX_RANK)   /* a-z, A-Z, then ellipsis dims */
#define ES_ELL 100                  /* marker of "..." in a parsed term */

typedef struct es_state {
    int nops;
    int nterm[ES_MAXOP], term[ES_MAXOP][G_MAX_RANK + 1];
    int explicit_out, nout, out[G_MAX_RANK + 1];
} es_state;

/* The equation resolved against the input ranks and dims. */
typedef struct es_plan {
    int nl;                          /* labels in use, ids in lab[] */
    int64_t dim[ES_MAXL];
    int64_t st[ES_MAXOP][ES_MAXL];   /* per operand, summed element strides */
    int nout, out[G_MAX_RANK];
    int nsum, sum[ES_MAXL];
} es_plan;

static int label_id(char c)
{
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return 26 + c - 'A';
    return -1;
}

/* Parses one term into ids (ES_ELL for "..."). */
static int parse_term(const g_node *n, const char **p, const char *end, int *ids, int *cnt)
{
    int k = 0, ell = 0;
    const char *s = *p;
    while (s < end && *s != ',' && *s != '-') {
        if (isspace((unsigned char)*s)) { s++; continue; }
        if (*s == '.') {
            if (end - s < 3 || s[1] != '.' || s[2] != '.' || ell)
                return ksh_fail(n, KSH_EINVAL, "malformed '...' in the equation");
            ell = 1;
            if (k > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "too many labels in a term");
            ids[k++] = ES_ELL;
            s += 3;
            continue;
        }
        int id = label_id(*s);
        if (id < 0) return ksh_fail(n, KSH_EINVAL, "invalid character '%c' in the equation", *s);
        if (k > G_MAX_RANK) return ksh_fail(n, KSH_EINVAL, "too many labels in a term");
        ids[k++] = id;
        s++;
    }
    *cnt = k;
    *p = s;
    return 0;
}

static int es_init(g_graph *g, g_node *n, void **stp)
{
    const char *eq = g_attr_str(n, "equation", NULL);
    if (!eq) return ksh_fail(n, KSH_EINVAL, "attribute 'equation' is missing");
    if (n->n_in < 1 || n->n_in > ES_MAXOP)
        return ksh_fail(n, KSH_EUNSUP, "%d operands (1..%d supported)", n->n_in, ES_MAXOP);
    int dt = ksh_in_dtype(g, n, 0);
    if (!ksh_is_float(dt) && !ksh_is_int(dt))
        return ksh_fail(n, KSH_ETYPE, "operands of type %s are not supported", g_dtype_name(dt));
    for (int i = 1; i < n->n_in; i++)
        if (ksh_in_dtype(g, n, i) != dt)
            return ksh_fail(n, KSH_ETYPE, "operand %d is %s, operand 0 is %s", i,
                            g_dtype_name(ksh_in_dtype(g, n, i)), g_dtype_name(dt));
    es_state s;
    memset(&s, 0, sizeof s);
    const char *p = eq, *end = eq + strlen(eq), *arrow = strstr(eq, "->");
    const char *lhs_end = arrow ? arrow : end;
    int e;
    for (;;) {
        if (s.nops >= ES_MAXOP) return ksh_fail(n, KSH_EUNSUP, "too many operands in '%s'", eq);
        if ((e = parse_term(n, &p, lhs_end, s.term[s.nops], &s.nterm[s.nops]))) return e;
        s.nops++;
        if (p < lhs_end && *p == ',') { p++; continue; }
        break;
    }
    if (p != lhs_end) return ksh_fail(n, KSH_EINVAL, "malformed equation '%s'", eq);
    if (s.nops != n->n_in)
        return ksh_fail(n, KSH_EINVAL, "equation '%s' has %d operands, the node %d inputs", eq, s.nops, n->n_in);
    if (arrow) {
        p = arrow + 2;
        s.explicit_out = 1;
        if ((e = parse_term(n, &p, end, s.out, &s.nout))) return e;
        if (p != end) return ksh_fail(n, KSH_EINVAL, "malformed output in '%s'", eq);
        for (int i = 0; i < s.nout; i++)
            for (int j = 0; j < i; j++)
                if (s.out[i] == s.out[j]) return ksh_fail(n, KSH_EINVAL, "output label repeated in '%s'", eq);
    }
    es_state *ps = malloc(sizeof *ps);
    if (!ps) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    *ps = s;
    *stp = ps;
    return 0;
}

static void es_fini(void *st) { free(st); }

static int es_resolve(const g_node *n, const es_state *s, const k_tensor *in, es_plan *pl)
{
    int E = 0, used[ES_MAXL] = {0}, count[ES_MAXL] = {0};
    memset(pl, 0, sizeof *pl);
    for (int l = 0; l < ES_MAXL; l++) pl->dim[l] = -2;   /* -2: unset */
    for (int i = 0; i < s->nops; i++) {
        int letters = 0, ell = 0;
        for (int k = 0; k < s->nterm[i]; k++) {
            if (s->term[i][k] == ES_ELL) ell = 1;
            else letters++;
        }
        int r = in[i].shape.rank;
        if (r < letters || (!ell && r != letters))
            return ksh_fail(n, KSH_EINVAL, "operand %d has rank %d, its term has %d labels", i, r, letters);
        if (ell && r - letters > E) E = r - letters;
    }
    for (int i = 0; i < s->nops; i++) {
        int r = in[i].shape.rank, letters = s->nterm[i], ax = 0;
        int64_t xs[G_MAX_RANK];
        ksh_strides(&in[i].shape, xs);
        for (int k = 0; k < s->nterm[i]; k++) letters -= s->term[i][k] == ES_ELL;
        for (int k = 0; k < s->nterm[i]; k++) {
            int id = s->term[i][k];
            int nd = id == ES_ELL ? r - letters : 1;
            for (int j = 0; j < nd; j++, ax++) {
                int l = id == ES_ELL ? 52 + E - nd + j : id;
                int64_t d = in[i].shape.d[ax];
                if (id == ES_ELL && d == 1) {   /* broadcast: stride 0, size from others */
                    if (pl->dim[l] == -2) pl->dim[l] = 1;
                } else if (pl->dim[l] == -2 || (id == ES_ELL && pl->dim[l] == 1)) {
                    pl->dim[l] = d;
                    pl->st[i][l] += xs[ax];
                } else if (pl->dim[l] != d && d >= 0 && pl->dim[l] >= 0) {
                    return ksh_fail(n, KSH_EINVAL, "label '%c' has size %lld and %lld",
                                    l < 26 ? 'a' + l : l < 52 ? 'A' + l - 26 : '.', (long long)pl->dim[l],
                                    (long long)d);
                } else {
                    pl->st[i][l] += xs[ax];
                }
                used[l] = 1;
            }
        }
    }
    /* occurrences of each letter over all terms (implicit output: those seen once) */
    for (int i = 0; i < s->nops; i++)
        for (int k = 0; k < s->nterm[i]; k++)
            if (s->term[i][k] != ES_ELL) count[s->term[i][k]]++;
    int inout[ES_MAXL] = {0};
    if (s->explicit_out) {
        for (int k = 0; k < s->nout; k++) {
            int id = s->out[k];
            if (id == ES_ELL) {
                for (int j = 0; j < E; j++) { pl->out[pl->nout++] = 52 + j; inout[52 + j] = 1; }
            } else {
                if (!used[id]) return ksh_fail(n, KSH_EINVAL, "output label '%c' is not in any operand",
                                               id < 26 ? 'a' + id : 'A' + id - 26);
                pl->out[pl->nout++] = id;
                inout[id] = 1;
            }
            if (pl->nout > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank exceeds %d", G_MAX_RANK);
        }
    } else {
        for (int j = 0; j < E; j++) { pl->out[pl->nout++] = 52 + j; inout[52 + j] = 1; }
        /* ASCII order: upper case first */
        for (int id = 26; id < 52; id++)
            if (used[id] && count[id] == 1) { pl->out[pl->nout++] = id; inout[id] = 1; }
        for (int id = 0; id < 26; id++)
            if (used[id] && count[id] == 1) { pl->out[pl->nout++] = id; inout[id] = 1; }
        if (pl->nout > G_MAX_RANK) return ksh_fail(n, KSH_EUNSUP, "output rank exceeds %d", G_MAX_RANK);
    }
    for (int l = 0; l < ES_MAXL; l++)
        if (used[l] && !inout[l]) pl->sum[pl->nsum++] = l;
    return 0;
}

static int es_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    es_plan pl;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    for (int i = 0; i < n->n_in; i++)
        if (in[i].shape.rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    int e = es_resolve(n, st, in, &pl);
    if (e) return e;
    memset(&out[0].shape, 0, sizeof out[0].shape);
    out[0].shape.rank = pl.nout;
    for (int k = 0; k < pl.nout; k++) out[0].shape.d[k] = pl.dim[pl.out[k]];
    return 0;
}

static int es_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const es_state *s = st;
    es_plan pl;
    int e = es_resolve(n, s, in, &pl), dt = in[0].dtype, isf = ksh_is_float(dt), nops = s->nops;
    if (e) return e;
    int64_t total = ksh_numel(&out[0].shape), nsum = 1;
    for (int k = 0; k < pl.nsum; k++) nsum *= pl.dim[pl.sum[k]];
    int nt = ksh_threads(c, (size_t)(total * (nsum > 0 ? nsum : 1)) * 8);
    const void *src[ES_MAXOP];
    for (int i = 0; i < nops; i++) src[i] = in[i].data;
    /* the last summed label runs in a tight strided loop; the others step
     * through an odometer */
    int ns = pl.nsum, last = ns ? pl.sum[ns - 1] : -1;
    int64_t nlast = ns ? pl.dim[last] : 1, stl[ES_MAXOP];
    for (int j = 0; j < nops; j++) stl[j] = ns ? pl.st[j][last] : 0;
    int64_t nouter = nlast ? nsum / nlast : 0;
    OA_PAR_FOR(nt, for (int64_t o = 0; o < total; o++) {
        int64_t off[ES_MAXOP] = {0}, q = o;
        for (int k = pl.nout - 1; k >= 0; k--) {
            int l = pl.out[k];
            int64_t i = q % pl.dim[l];
            q /= pl.dim[l];
            for (int j = 0; j < nops; j++) off[j] += i * pl.st[j][l];
        }
        double accf = 0;
        uint64_t acci = 0;   /* integers wrap, as two's complement hardware does */
        int64_t idx[ES_MAXL] = {0};
        for (int64_t t = 0; t < nouter; t++) {
            if (dt == G_F32 && nops == 2) {
                const float *x = (const float *)src[0] + off[0], *y = (const float *)src[1] + off[1];
                int64_t sx = stl[0], sy = stl[1];
                for (int64_t k = 0; k < nlast; k++) accf += (double)x[k * sx] * y[k * sy];
            } else if (dt == G_F32 && nops == 1) {
                const float *x = (const float *)src[0] + off[0];
                for (int64_t k = 0; k < nlast; k++) accf += x[k * stl[0]];
            } else {
                for (int64_t k = 0; k < nlast; k++) {
                    if (isf) {
                        double p = 1;
                        for (int j = 0; j < nops; j++) p *= ksh_getf(src[j], dt, (size_t)(off[j] + k * stl[j]));
                        accf += p;
                    } else {
                        uint64_t p = 1;
                        for (int j = 0; j < nops; j++) p *= (uint64_t)ksh_geti(src[j], dt, (size_t)(off[j] + k * stl[j]));
                        acci += p;
                    }
                }
            }
            for (int k = ns - 2; k >= 0; k--) {
                int l = pl.sum[k];
                if (++idx[k] < pl.dim[l]) {
                    for (int j = 0; j < nops; j++) off[j] += pl.st[j][l];
                    break;
                }
                idx[k] = 0;
                for (int j = 0; j < nops; j++) off[j] -= (pl.dim[l] - 1) * pl.st[j][l];
            }
        }
        if (isf) ksh_setf(out[0].data, dt, (size_t)o, accf);
        else ksh_seti(out[0].data, dt, (size_t)o, (int64_t)acci);
    });
    return 0;
}
static const k_op k_einsum = {.op_type = "Einsum", .domain = "", .since = 12, .impl = "ref",
                              .init = es_init, .infer = es_infer, .run = es_run, .fini = es_fini};
K_REGISTER(k_einsum);
