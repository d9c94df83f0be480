/* Runs ONNX backend node tests (model.onnx + test_data_set_N/{input,output}_K.pb)
 * straight through the kernel registry, without the engine: import the
 * model, then for each node in file order pick the kernel (k_find), init,
 * infer (first with only constants known, as at load, then with every value),
 * run, and compare the graph outputs with the expected tensors.
 *
 * usage: ksh_node_runner <node-data-dir> [-v] [-x name_substring]... op_prefix...
 * A test directory is run when its name starts with "test_<op_prefix>";
 * "_expanded" variants are skipped (they test other ops). Exit status 1 when
 * any selected test fails; per-prefix pass counts are printed. */
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

static int verbose;

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int load_pb(const char *path, k_tensor *t)
{
    size_t len;
    void *buf = read_file(path, &len);
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
    if (es == 0) { onnx__tensor_proto__free_unpacked(p, NULL); return -2; }
    t->nbytes = (size_t)n * es;
    t->data = calloc(1, t->nbytes + 8);
    if (p->has_raw_data) {
        if (p->raw_data.len) memcpy(t->data, p->raw_data.data, p->raw_data.len < t->nbytes ? p->raw_data.len : t->nbytes);
    } else {
        for (int64_t i = 0; i < n; i++) {
            char *d = (char *)t->data + i * (int64_t)es;
            switch (t->dtype) {
            case G_F32: memcpy(d, &p->float_data[i], 4); break;
            case G_F64: memcpy(d, &p->double_data[i], 8); break;
            case G_I64: memcpy(d, &p->int64_data[i], 8); break;
            case G_U32: case G_U64: { uint64_t v = p->uint64_data[i]; memcpy(d, &v, es); break; }
            default: { int32_t v = p->int32_data[i]; memcpy(d, &v, es); break; }   /* little endian */
            }
        }
    }
    onnx__tensor_proto__free_unpacked(p, NULL);
    return 0;
}

static double getd(const k_tensor *t, int64_t i)
{
    const char *p = (const char *)t->data;
    switch (t->dtype) {
    case G_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
    case G_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
    case G_F16: {
        uint16_t h; memcpy(&h, p + 2 * i, 2);
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
        return (h & 0x8000) ? -v : v;
    }
    case G_BF16: { uint16_t h; memcpy(&h, p + 2 * i, 2); uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
    case G_I8: return ((const int8_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case G_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case G_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case G_U32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case G_I64: { int64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
    case G_U64: { uint64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
    }
    return NAN;
}

static int compare(const char *what, const k_tensor *got, const k_tensor *exp)
{
    char a[128], b[128];
    if (got->dtype != exp->dtype) {
        printf("    %s: dtype %s, expected %s\n", what, g_dtype_name(got->dtype), g_dtype_name(exp->dtype));
        return 1;
    }
    if (!g_shape_eq(&got->shape, &exp->shape)) {
        printf("    %s: shape %s, expected %s\n", what, g_shape_str(&got->shape, a, sizeof a),
               g_shape_str(&exp->shape, b, sizeof b));
        return 1;
    }
    int64_t n = g_shape_numel(&exp->shape), bad = 0;
    int isf = exp->dtype == G_F32 || exp->dtype == G_F64 || exp->dtype == G_F16 || exp->dtype == G_BF16;
    for (int64_t i = 0; i < n; i++) {
        double x = getd(got, i), y = getd(exp, i);
        int ok;
        if (isf) {
            double rtol = exp->dtype == G_F32 || exp->dtype == G_F64 ? 1e-3 : 1e-2;   /* ONNX backend default */
            ok = (isnan(x) && isnan(y)) || x == y || fabs(x - y) <= 1e-6 + rtol * fabs(y);
        } else {
            ok = memcmp((const char *)got->data + i * g_dtype_size(got->dtype),
                        (const char *)exp->data + i * g_dtype_size(exp->dtype), g_dtype_size(exp->dtype)) == 0;
        }
        if (!ok && bad++ < 5) printf("    %s[%lld]: got %.9g expected %.9g\n", what, (long long)i, x, y);
    }
    if (bad) printf("    %s: %lld of %lld values differ\n", what, (long long)bad, (long long)n);
    return bad != 0;
}

/* Executes the graph on the given inputs. vals[] has one k_tensor per graph tensor. */
static int execute(g_graph *g, k_tensor *vals, int two_phase)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        g_node *n = &g->nodes[ni];
        const k_op *ops[8];
        int nops = k_find(n->op_type, n->domain, n->opset, ops, 8);
        if (nops == 0) {
            printf("    no kernel for %s (opset %d)\n", n->op_type, n->opset);
            return -1;
        }
        int rc = K_DECLINE;
        void *st = NULL;
        const k_op *op = NULL;
        for (int i = 0; i < nops && rc == K_DECLINE; i++) {
            st = NULL;
            rc = ops[i]->init(g, n, &st);
            op = ops[i];
        }
        if (rc) { printf("    init failed: %s\n", aclGetRecentErrMsg()); return -1; }
        k_tensor in[32], out[32];
        memset(in, 0, sizeof in);
        memset(out, 0, sizeof out);
        for (int i = 0; i < n->n_in && i < 32; i++) {
            if (n->in[i] < 0) { in[i].dtype = G_UNDEF; in[i].shape.rank = -1; continue; }
            in[i] = vals[n->in[i]];
            if (two_phase && g->t[n->in[i]].kind != G_TK_CONST) in[i].data = NULL;
        }
        if (two_phase) {   /* load-time inference: only constants known */
            for (int i = 0; i < n->n_in; i++)
                if (n->in[i] >= 0 && g->t[n->in[i]].kind != G_TK_CONST) in[i].shape = g->t[n->in[i]].shape;
            rc = op->infer(n, st, in, out);
            if (rc && rc != K_NEED_DATA) {
                printf("    load-time infer failed: %s\n", aclGetRecentErrMsg());
                if (op->fini) op->fini(st);
                return -1;
            }
            for (int i = 0; i < n->n_in && i < 32; i++)
                if (n->in[i] >= 0) in[i] = vals[n->in[i]];
            memset(out, 0, sizeof out);
        }
        rc = op->infer(n, st, in, out);
        if (rc) {
            printf("    infer failed (%d): %s\n", rc, aclGetRecentErrMsg());
            if (op->fini) op->fini(st);
            return -1;
        }
        size_t scratch = 0, packed = 0;
        if (op->plan && (rc = op->plan(n, st, in, out, &packed, &scratch))) {
            printf("    plan failed: %s\n", aclGetRecentErrMsg());
            if (op->fini) op->fini(st);
            return -1;
        }
        void *pk = packed ? aligned_alloc(64, (packed + 63) & ~(size_t)63) : NULL;
        if (op->pack && packed && (rc = op->pack(n, st, in, out, pk))) {
            printf("    pack failed: %s\n", aclGetRecentErrMsg());
            return -1;
        }
        for (int i = 0; i < n->n_out; i++) {
            int64_t k = g_shape_numel(&out[i].shape);
            if (k < 0) { printf("    output %d shape unknown after infer\n", i); return -1; }
            out[i].nbytes = (size_t)k * g_dtype_size(out[i].dtype);
            out[i].data = malloc(out[i].nbytes + 64);
            memset(out[i].data, 0xA5, out[i].nbytes + 64);   /* guard bytes after the buffer */
        }
        k_ctx ctx = {.threads = 2, .scratch = scratch ? aligned_alloc(64, (scratch + 63) & ~(size_t)63) : NULL,
                     .scratch_bytes = scratch};
        rc = op->run(n, st, in, out, &ctx);
        free(ctx.scratch);
        free(pk);
        if (op->fini) op->fini(st);
        if (rc) { printf("    run failed (%d): %s\n", rc, aclGetRecentErrMsg()); return -1; }
        for (int i = 0; i < n->n_out; i++) {
            unsigned char *gb = (unsigned char *)out[i].data + out[i].nbytes;
            for (int j = 0; j < 64; j++)
                if (gb[j] != 0xA5) { printf("    output %d: write past the end\n", i); return -1; }
            if (n->out[i] >= 0) { free(vals[n->out[i]].data); vals[n->out[i]] = out[i]; }
            else free(out[i].data);
        }
    }
    return 0;
}

static int run_dir(const char *dir)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    size_t len;
    void *buf = read_file(path, &len);
    if (!buf) return -1;
    g_graph *g = NULL;
    int rc = onnx_import(buf, len, dir, &g);
    free(buf);
    if (rc) { printf("    import failed: %s\n", aclGetRecentErrMsg()); return -1; }
    int fails = 0, sets = 0;
    for (int s = 0;; s++) {
        snprintf(path, sizeof path, "%s/test_data_set_%d", dir, s);
        DIR *dd = opendir(path);
        if (!dd) break;
        closedir(dd);
        sets++;
        k_tensor *vals = calloc((size_t)g->n_t, sizeof *vals);
        for (int i = 0; i < g->n_t; i++) {
            if (g->t[i].kind == G_TK_CONST) {
                vals[i].dtype = g->t[i].dtype;
                vals[i].shape = g->t[i].shape;
                vals[i].nbytes = g->t[i].nbytes;
                vals[i].data = malloc(g->t[i].nbytes + 1);
                if (g->t[i].nbytes) memcpy(vals[i].data, g->t[i].data, g->t[i].nbytes);
            }
        }
        int bad = 0;
        for (int i = 0; i < g->n_inputs; i++) {
            snprintf(path, sizeof path, "%s/test_data_set_%d/input_%d.pb", dir, s, i);
            int lr = load_pb(path, &vals[g->inputs[i]]);
            if (lr) { printf("    cannot load %s (%s)\n", path, lr == -2 ? "unsupported dtype" : "missing"); bad = 1; }
            /* old test data stores bfloat16 as uint16 */
            else if (vals[g->inputs[i]].dtype == G_U16 && g->t[g->inputs[i]].dtype == G_BF16)
                vals[g->inputs[i]].dtype = G_BF16;
        }
        if (!bad) bad = execute(g, vals, s == 0) != 0;
        for (int i = 0; !bad && i < g->n_outputs; i++) {
            k_tensor e;
            snprintf(path, sizeof path, "%s/test_data_set_%d/output_%d.pb", dir, s, i);
            if (load_pb(path, &e)) { printf("    cannot load %s\n", path); bad = 1; break; }
            if (e.dtype == G_U16 && g->t[g->outputs[i]].dtype == G_BF16) e.dtype = G_BF16;
            char what[64];
            snprintf(what, sizeof what, "output %d", i);
            bad |= compare(what, &vals[g->outputs[i]], &e);
            free(e.data);
        }
        for (int i = 0; i < g->n_t; i++) free(vals[i].data);
        free(vals);
        fails += bad;
    }
    g_graph_free(g);
    return sets == 0 ? -1 : fails ? 1 : 0;
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <node-data-dir> [-v] [-x substr]... op_prefix...\n", argv[0]);
        return 2;
    }
    const char *root = argv[1];
    const char *excl[64];
    int nexcl = 0;
    char *names[4096];
    int nn = 0;
    DIR *d = opendir(root);
    if (!d) { fprintf(stderr, "cannot open %s\n", root); return 2; }
    struct dirent *e;
    while ((e = readdir(d)) && nn < 4096)
        if (!strncmp(e->d_name, "test_", 5)) names[nn++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmpstr);
    int total_fail = 0, total = 0, total_pass = 0;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "-v")) { verbose = 1; continue; }
        if (!strcmp(argv[a], "-x") && a + 1 < argc) { excl[nexcl++] = argv[++a]; continue; }
        char pre[256];
        snprintf(pre, sizeof pre, "test_%s", argv[a]);
        int pass = 0, cnt = 0;
        for (int i = 0; i < nn; i++) {
            if (strncmp(names[i], pre, strlen(pre)) || strstr(names[i], "_expanded")) continue;
            int skip = 0;
            for (int x = 0; x < nexcl; x++)
                if (strstr(names[i], excl[x])) skip = 1;
            if (skip) continue;
            char dir[2048];
            snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
            int r = run_dir(dir);
            cnt++;
            if (r == 0) pass++;
            if (r != 0 || verbose) printf("%s %s\n", r == 0 ? "PASS" : "FAIL", names[i]);
        }
        printf("== %s: %d/%d passed\n", argv[a], pass, cnt);
        total += cnt;
        total_pass += pass;
        total_fail += cnt - pass;
    }
    printf("== total: %d/%d passed\n", total_pass, total);
    for (int i = 0; i < nn; i++) free(names[i]);
    return total_fail ? 1 : 0;
}
