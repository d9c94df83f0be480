/* Runs ONNX node tests (a folder per test: model.onnx and
 * test_data_set_N/{input,output}_K.pb) through the kernel registry alone:
 * import, then per node in file order choose the kernel, init, infer once as
 * at load (only constants known, K_NEED_DATA allowed) and once with every
 * value, run into guarded buffers, and compare the graph outputs.
 *
 * usage: kew_node_runner [-v] [-t threads] [-x skip_substr]... DIR prefix...
 * A test folder is run when its name starts with "test_<prefix>"; the
 * "_expanded" ones are skipped (they exercise other ops). Prints one line per
 * failure and a pass count per prefix; exits 1 on any failure. */
#include "graph/ir.h"
#include "kernels/kernel.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx.pb-c.h"
#include "acl/acl.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
static int verbose, nthreads = 2;
static char why[1024];

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return b;
}

static float h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, u;
    if (e == 31) u = s | 0x7f800000u | (m << 13);
    else if (e) u = s | ((e + 112) << 23) | (m << 13);
    else {
        float v = (float)m * 0x1p-24f;
        memcpy(&u, &v, 4);
        u |= s;
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double get(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case G_F32: return ((const float *)p)[i];
    case G_F64: return ((const double *)p)[i];
    case G_F16: return h2f(((const uint16_t *)p)[i]);
    case G_BF16: {
        uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case G_I8: return ((const int8_t *)p)[i];
    case G_I16: return ((const int16_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_I64: return (double)((const int64_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_U16: return ((const uint16_t *)p)[i];
    case G_U32: return ((const uint32_t *)p)[i];
    case G_U64: return (double)((const uint64_t *)p)[i];
    }
    return 0;
}

/* TensorProto file -> dense k_tensor (data malloc'ed) */
static int load_pb(const char *path, k_tensor *t)
{
    size_t len;
    void *buf = slurp(path, &len);
    if (!buf) return -1;
    Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, len, buf);
    free(buf);
    if (!p) return -1;
    memset(t, 0, sizeof *t);
    t->dtype = p->data_type;
    t->shape.rank = (int)p->n_dims;
    for (size_t i = 0; i < p->n_dims; i++) t->shape.d[i] = p->dims[i];
    int64_t n = g_shape_numel(&t->shape);
    size_t es = g_dtype_size(t->dtype);
    if (es == 0) {
        onnx__tensor_proto__free_unpacked(p, NULL);
        return -2;
    }
    t->nbytes = (size_t)n * es;
    t->data = calloc(1, t->nbytes + 8);
    if (p->has_raw_data) {
        if (p->raw_data.len) memcpy(t->data, p->raw_data.data, p->raw_data.len < t->nbytes ? p->raw_data.len : t->nbytes);
    } else {
        for (int64_t i = 0; i < n; i++) {
            char *d = (char *)t->data + i * (int64_t)es;
            switch (t->dtype) {
            case G_F32: if ((size_t)i < p->n_float_data) memcpy(d, &p->float_data[i], 4); break;
            case G_F64: if ((size_t)i < p->n_double_data) memcpy(d, &p->double_data[i], 8); break;
            case G_I64: if ((size_t)i < p->n_int64_data) memcpy(d, &p->int64_data[i], 8); break;
            case G_U32: case G_U64:
                if ((size_t)i < p->n_uint64_data) {
                    uint64_t v = p->uint64_data[i];
                    memcpy(d, &v, es);
                }
                break;
            default:
                if ((size_t)i < p->n_int32_data) {
                    int32_t v = p->int32_data[i];
                    if (es == 1) { int8_t b = (int8_t)v; memcpy(d, &b, 1); }
                    else if (es == 2) { int16_t h = (int16_t)v; memcpy(d, &h, 2); }
                    else memcpy(d, &v, 4);
                }
            }
        }
    }
    onnx__tensor_proto__free_unpacked(p, NULL);
    return 0;
}

static int close_enough(int dt, double got, double exp)
{
    if (isnan(exp)) return isnan(got);
    if (isinf(exp)) return got == exp;
    double rtol = 1e-3, atol = 1e-5;
    if (dt == G_F16) { rtol = 4e-3; atol = 1e-3; }
    if (dt == G_BF16) { rtol = 2e-2; atol = 1e-2; }
    if (!(dt == G_F32 || dt == G_F64 || dt == G_F16 || dt == G_BF16)) return got == exp;
    return fabs(got - exp) <= atol + rtol * fabs(exp);
}

/* run every node of g in file order over the values in val[] */
static int run_graph(g_graph *g, k_tensor *val)
{
    k_ctx ctx = { nthreads, NULL, 0 };
    for (int ni = 0; ni < g->n_nodes; ni++) {
        g_node *n = &g->nodes[ni];
        const k_op *ops[8];
        int nops = k_find(n->op_type, n->domain, n->opset, ops, 8), rc = K_DECLINE;
        const k_op *op = NULL;
        void *st = NULL;
        for (int i = 0; i < nops && rc == K_DECLINE; i++) {
            st = NULL;
            rc = ops[i]->init(g, n, &st);
            if (rc == 0) op = ops[i];
        }
        if (!op) {
            snprintf(why, sizeof why, "node %s (%s opset %d): %s (rc %d) %s", n->name, n->op_type,
                     n->opset, nops ? "init failed" : "no kernel", rc, aclGetRecentErrMsg());
            return -1;
        }
        k_tensor in[16], out[16];
        memset(in, 0, sizeof in);
        memset(out, 0, sizeof out);
        /* as at load: only constants known */
        for (int i = 0; i < n->n_in && i < 16; i++) {
            if (n->in[i] < 0) continue;
            in[i] = val[n->in[i]];
            if (g->t[n->in[i]].kind != G_TK_CONST) in[i].data = NULL;
        }
        rc = op->infer(n, st, in, out);
        if (rc && rc != K_NEED_DATA) {
            snprintf(why, sizeof why, "node %s: load-time infer rc %d %s", n->name, rc, aclGetRecentErrMsg());
            if (op->fini) op->fini(st);
            return -1;
        }
        for (int i = 0; i < n->n_in && i < 16; i++)
            if (n->in[i] >= 0) in[i] = val[n->in[i]];
        memset(out, 0, sizeof out);
        rc = op->infer(n, st, in, out);
        if (rc) {
            snprintf(why, sizeof why, "node %s: infer rc %d %s", n->name, rc, aclGetRecentErrMsg());
            if (op->fini) op->fini(st);
            return -1;
        }
        unsigned char *bufs[16] = { 0 };
        for (int i = 0; i < n->n_out && i < 16; i++) {
            if (n->out[i] < 0) continue;
            size_t nb = k_nbytes(&out[i]);
            bufs[i] = malloc(nb + GUARD);
            memset(bufs[i], 0xA5, nb + GUARD);
            out[i].data = bufs[i];
            out[i].nbytes = nb;
        }
        rc = op->run(n, st, in, out, &ctx);
        if (op->fini) op->fini(st);
        for (int i = 0; i < n->n_out && i < 16; i++) {
            if (!bufs[i]) continue;
            for (int k = 0; k < GUARD; k++)
                if (bufs[i][out[i].nbytes + k] != 0xA5) {
                    snprintf(why, sizeof why, "node %s: output %d written past its %zu bytes", n->name,
                             i, out[i].nbytes);
                    rc = -1;
                    break;
                }
            k_tensor *v = &val[n->out[i]];
            free(v->data);
            *v = out[i];
        }
        if (rc) {
            if (rc != -1) snprintf(why, sizeof why, "node %s: run rc %d %s", n->name, rc, aclGetRecentErrMsg());
            return -1;
        }
    }
    return 0;
}

static int run_test(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    size_t len;
    void *buf = slurp(path, &len);
    if (!buf) {
        snprintf(why, sizeof why, "cannot read %s", path);
        return -1;
    }
    /* The importer takes opset 7 and up (as ONNX Runtime); the few node tests
     * recorded at opset 1-6 have the same semantics at 7 for these ops, so
     * they are lifted to keep the kernels covered. */
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
    if (mp) {
        int lifted = 0;
        for (size_t i = 0; i < mp->n_opset_import; i++) {
            Onnx__OperatorSetIdProto *os = mp->opset_import[i];
            if ((!os->domain || !os->domain[0] || !strcmp(os->domain, "ai.onnx")) && os->version < 7) {
                os->version = 7;
                lifted = 1;
            }
        }
        if (lifted) {
            size_t nl = onnx__model_proto__get_packed_size(mp);
            void *nb = malloc(nl);
            onnx__model_proto__pack(mp, nb);
            free(buf);
            buf = nb;
            len = nl;
        }
        onnx__model_proto__free_unpacked(mp, NULL);
    }
    g_graph *g = NULL;
    int rc = onnx_import(buf, len, dir, &g);
    free(buf);
    if (rc) {
        snprintf(why, sizeof why, "import rc %d: %s", rc, aclGetRecentErrMsg());
        return -1;
    }
    int result = 0, nsets = 0;
    for (int set = 0; set < 16 && result == 0; set++) {
        snprintf(path, sizeof path, "%s/test_data_set_%d", dir, set);
        DIR *dd = opendir(path);
        if (!dd) break;
        closedir(dd);
        nsets++;
        k_tensor *val = calloc((size_t)g->n_t, sizeof *val);
        for (int i = 0; i < g->n_t; i++) {
            val[i].dtype = g->t[i].dtype;
            val[i].shape = g->t[i].shape;
            if (g->t[i].kind == G_TK_CONST) {
                val[i].data = malloc(g->t[i].nbytes + 1);
                memcpy(val[i].data, g->t[i].data, g->t[i].nbytes);
                val[i].nbytes = g->t[i].nbytes;
            }
        }
        for (int k = 0; k < g->n_inputs; k++) {
            snprintf(path, sizeof path, "%s/test_data_set_%d/input_%d.pb", dir, set, k);
            k_tensor t;
            if (load_pb(path, &t)) {
                snprintf(why, sizeof why, "cannot load %s", path);
                result = -1;
                break;
            }
            free(val[g->inputs[k]].data);
            val[g->inputs[k]] = t;
        }
        if (result == 0 && run_graph(g, val)) result = -1;
        for (int k = 0; result == 0 && k < g->n_outputs; k++) {
            snprintf(path, sizeof path, "%s/test_data_set_%d/output_%d.pb", dir, set, k);
            k_tensor e;
            if (load_pb(path, &e)) {
                snprintf(why, sizeof why, "cannot load %s", path);
                result = -1;
                break;
            }
            k_tensor *o = &val[g->outputs[k]];
            char s1[128], s2[128];
            if (o->dtype != e.dtype || !g_shape_eq(&o->shape, &e.shape)) {
                snprintf(why, sizeof why, "output %d: got %s %s, expected %s %s", k,
                         g_dtype_name(o->dtype), g_shape_str(&o->shape, s1, sizeof s1),
                         g_dtype_name(e.dtype), g_shape_str(&e.shape, s2, sizeof s2));
                result = -1;
            } else {
                int64_t ne = g_shape_numel(&e.shape), bad = 0, first = -1;
                for (int64_t i = 0; i < ne; i++)
                    if (!close_enough(e.dtype, get(o->data, o->dtype, i), get(e.data, e.dtype, i))) {
                        if (first < 0) first = i;
                        bad++;
                    }
                if (bad) {
                    snprintf(why, sizeof why, "output %d: %lld of %lld values differ, first at %lld: "
                             "got %.9g expected %.9g", k, (long long)bad, (long long)ne,
                             (long long)first, get(o->data, o->dtype, first), get(e.data, e.dtype, first));
                    result = -1;
                }
            }
            free(e.data);
        }
        for (int i = 0; i < g->n_t; i++) free(val[i].data);
        free(val);
    }
    if (nsets == 0 && result == 0) {
        snprintf(why, sizeof why, "no test_data_set");
        result = -1;
    }
    g_graph_free(g);
    return result;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    const char *skip[64];
    int nskip = 0, ai = 1;
    for (; ai < argc && argv[ai][0] == '-'; ai++) {
        if (!strcmp(argv[ai], "-v")) verbose = 1;
        else if (!strcmp(argv[ai], "-t") && ai + 1 < argc) nthreads = atoi(argv[++ai]);
        else if (!strcmp(argv[ai], "-x") && ai + 1 < argc && nskip < 64) skip[nskip++] = argv[++ai];
    }
    if (ai >= argc) {
        fprintf(stderr, "usage: %s [-v] [-t threads] [-x skip]... DIR prefix...\n", argv[0]);
        return 2;
    }
    const char *root = argv[ai++];
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", root);
        return 2;
    }
    char **names = NULL;
    int nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "test_", 5)) continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, (size_t)cap * sizeof *names);
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmp_str);
    int total_fail = 0;
    for (int pi = ai; pi < argc; pi++) {
        char pre[256];
        snprintf(pre, sizeof pre, "test_%s", argv[pi]);
        int pass = 0, run = 0;
        for (int i = 0; i < nn; i++) {
            if (strncmp(names[i], pre, strlen(pre))) continue;
            /* whole op names only: "exp" is not "expand", "max" not "maxpool" */
            char nx = names[i][strlen(pre)];
            if (nx && nx != '_' && !(nx >= '0' && nx <= '9')) continue;
            if (strstr(names[i], "_expanded")) continue;
            int sk = 0;
            for (int k = 0; k < nskip; k++) sk |= strstr(names[i], skip[k]) != NULL;
            if (sk) continue;
            /* a longer prefix given elsewhere owns the test (e.g. "reduce_sum" vs "reduce_sum_square") */
            int other = 0;
            for (int pj = ai; pj < argc; pj++) {
                if (pj == pi || strlen(argv[pj]) <= strlen(argv[pi])) continue;
                char p2[256];
                snprintf(p2, sizeof p2, "test_%s", argv[pj]);
                if (!strncmp(names[i], p2, strlen(p2))) other = 1;
            }
            if (other) continue;
            char dir[1024];
            snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
            why[0] = 0;
            run++;
            aclGetRecentErrMsg();
            if (run_test(dir) == 0) {
                pass++;
                if (verbose) printf("PASS %s\n", names[i]);
            } else {
                printf("FAIL %s: %s\n", names[i], why);
            }
        }
        printf("%-28s %3d / %3d\n", argv[pi], pass, run);
        total_fail += run - pass;
    }
    for (int i = 0; i < nn; i++) free(names[i]);
    free(names);
    printf("total failures: %d\n", total_fail);
    return total_fail ? 1 : 0;
}
