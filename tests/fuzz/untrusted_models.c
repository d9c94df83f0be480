/* Hostile model files through the public API (aclmdlLoadFromFile /
 * aclmdlLoadFromMem): each must be refused with a clear error (code and a
 * message naming the problem), quickly, without a crash, a hang, or a large
 * allocation. Extends tests/engine/engine_unit_test.c (which covers '..',
 * absolute and symlinked external paths, dims overflow and message nesting
 * at the engine level) with what only shows through the file API or the
 * process: peak RSS while a model declares a 1 TB tensor, FIFOs and devices
 * as model or data files, symlinked folders, wrapping dims products, lying
 * length prefixes, type and attribute nesting bombs, long chains and cycles.
 * Every case runs in one process: afterwards the runtime must still load and
 * run a good model. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "onnx_writer.h"

static int g_checks, g_fail;
static char g_dir[PATH_MAX], g_out[PATH_MAX];
static const char *g_msg;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        g_checks++;                                                              \
        if (!(cond)) {                                                           \
            g_fail++;                                                            \
            fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n   last message: %s\n", g_msg ? g_msg : "(none)"); \
        }                                                                        \
    } while (0)

static int has(const char *needle) { return g_msg && strstr(g_msg, needle) != NULL; }

/* Peak resident set (VmHWM) in KiB. */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) v = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return v;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n)) { perror(path); exit(2); }
    fclose(f);
}

static const char *in_dir(const char *dir, const char *name)
{
    static char buf[4][PATH_MAX + 64];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* Loads `path`; expects refusal with `code` (0: any error) and each of the
 * NULL-terminated message fragments. Unloads if it unexpectedly loaded. */
static int load_file(const char *path, uint32_t *id)
{
    aclGetRecentErrMsg();
    int rc = aclmdlLoadFromFile(path, id);
    g_msg = rc ? aclGetRecentErrMsg() : NULL;
    return rc;
}

static void expect_refused(const char *what, int rc, int code, const char *frag1, const char *frag2, uint32_t id)
{
    if (rc == 0) aclmdlUnload(id);
    CHECK(rc != 0, "%s: refused (got success)", what);
    CHECK(rc == 0 || code == 0 || rc == code, "%s: code %d, expected %d", what, rc, code);
    CHECK(rc == 0 || g_msg != NULL, "%s: a message is left", what);
    CHECK(rc == 0 || !frag1 || has(frag1), "%s: message names \"%s\"", what, frag1);
    CHECK(rc == 0 || !frag2 || has(frag2), "%s: message names \"%s\"", what, frag2);
}

static void save_model(const char *path, pb *model)
{
    write_file(path, model->p, model->n);
    pb_free(model);
}

/* y = x + w, x and w float [2,3]; w is an initializer finished by `fill`. */
static void model_add_w(pb *model, void (*fill)(pb *t, const void *arg), const void *arg, int rank,
                        const int64_t *wdims)
{
    static const int64_t d23[2] = { 2, 3 };
    pb g = { 0 }, t = { 0 };
    const char *in[] = { "x", "w", NULL }, *out[] = { "y", NULL };
    pb_str(&g, 2, "g");
    onnx_node(&g, "Add", "add", in, out);
    onnx_tensor(&t, "w", ONNX_FLOAT, rank, wdims ? wdims : d23, NULL, 0);
    fill(&t, arg);
    pb_msg(&g, 5, &t);
    onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
    onnx_model(model, &g, 13);
}

static void fill_external(pb *t, const void *arg)
{
    const char *const *kv = arg;
    onnx_external(t, kv[0], kv[1], kv[2]);
}

static void fill_raw(pb *t, const void *arg)
{
    const size_t *n = arg;
    float *z = calloc(*n ? *n : 1, 1);
    pb_bytes(t, 9, z, *n);
    free(z);
}

/* A good model must still load and compute after everything else. */
static void good_model_runs(const char *tag)
{
    float w[6] = { 1, 2, 3, 4, 5, 6 };
    size_t wl = sizeof w;
    (void)wl;
    pb m = { 0 };
    static const int64_t d23[2] = { 2, 3 };
    pb g = { 0 }, t = { 0 };
    const char *in[] = { "x", "w", NULL }, *out[] = { "y", NULL };
    pb_str(&g, 2, "g");
    onnx_node(&g, "Add", "add", in, out);
    onnx_tensor(&t, "w", ONNX_FLOAT, 2, d23, w, sizeof w);
    pb_msg(&g, 5, &t);
    onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
    onnx_model(&m, &g, 13);
    uint32_t id = 0;
    int rc = aclmdlLoadFromMem(m.p, m.n, &id);
    g_msg = rc ? aclGetRecentErrMsg() : NULL;
    CHECK(rc == 0, "%s: a good model loads", tag);
    pb_free(&m);
    if (rc) return;
    void *xi = NULL, *yo = NULL;
    aclrtMalloc(&xi, 24, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclrtMalloc(&yo, 24, ACL_MEM_MALLOC_NORMAL_ONLY);
    float ones[6] = { 1, 1, 1, 1, 1, 1 }, y[6] = { 0 };
    aclrtMemcpy(xi, 24, ones, 24, ACL_MEMCPY_HOST_TO_DEVICE);
    aclmdlDataset *din = aclmdlCreateDataset(), *dout = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(xi, 24), *bo = aclCreateDataBuffer(yo, 24);
    aclmdlAddDatasetBuffer(din, bi);
    aclmdlAddDatasetBuffer(dout, bo);
    rc = aclmdlExecute(id, din, dout);
    g_msg = rc ? aclGetRecentErrMsg() : NULL;
    aclrtMemcpy(y, 24, yo, 24, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(rc == 0 && y[0] == 2 && y[5] == 7, "%s: the good model computes (rc %d, y %g %g)", tag, rc, y[0], y[5]);
    aclDestroyDataBuffer(bi);
    aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(din);
    aclmdlDestroyDataset(dout);
    aclrtFree(xi);
    aclrtFree(yo);
    CHECK(aclmdlUnload(id) == 0, "%s: unload", tag);
}

/* ---- external data ---- */

static void test_external_paths(void)
{
    float w[6] = { 1, 2, 3, 4, 5, 6 };
    write_file(in_dir(g_dir, "w.bin"), w, sizeof w);
    write_file(in_dir(g_out, "secret.bin"), w, sizeof w);
    mkdir(in_dir(g_dir, "d"), 0700);
    mkdir(in_dir(g_dir, "sub"), 0700);
    symlink(g_out, in_dir(g_dir, "outlink"));            /* a symlinked folder pointing out */
    symlink(in_dir(g_dir, "w.bin"), in_dir(g_dir, "sub/inside.bin"));   /* a link staying inside */
    struct {
        const char *loc, *off, *len;
        int code;
        const char *frag;
    } cases[] = {
        { "outlink/secret.bin", NULL, NULL, ACL_ERROR_INVALID_FILE, "outside the model folder" },
        { "sub/../../secret.bin", NULL, NULL, ACL_ERROR_INVALID_FILE, ".." },
        { "..", NULL, NULL, ACL_ERROR_INVALID_FILE, ".." },
        { "/etc/passwd", NULL, NULL, ACL_ERROR_INVALID_FILE, "absolute" },
        { "", NULL, NULL, ACL_ERROR_PARSE_MODEL, "location" },
        { "d", NULL, NULL, ACL_ERROR_INVALID_FILE, "not a regular file" },
        { "fifo", NULL, NULL, ACL_ERROR_INVALID_FILE, "not a regular file" },
        { "w.bin", "-8", NULL, ACL_ERROR_PARSE_MODEL, "offset" },
        { "w.bin", "99999999999999999999", NULL, ACL_ERROR_PARSE_MODEL, "offset" },
        { "w.bin", "9223372036854775807", NULL, ACL_ERROR_INVALID_FILE_SIZE, "needs 24" },
        { "w.bin", NULL, "23", ACL_ERROR_PARSE_MODEL, "length" },
        { "w.bin", "1", NULL, ACL_ERROR_INVALID_FILE_SIZE, "needs 24" },
    };
    if (mkfifo(in_dir(g_dir, "fifo"), 0600)) perror("mkfifo");
    char mpath[PATH_MAX + 64];
    snprintf(mpath, sizeof mpath, "%s/m.onnx", g_dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *kv[3] = { cases[i].loc, cases[i].off, cases[i].len };
        pb m = { 0 };
        model_add_w(&m, fill_external, kv, 2, NULL);
        save_model(mpath, &m);
        uint32_t id = 0;
        double t0 = now_s();
        int rc = load_file(mpath, &id);
        char what[128];
        snprintf(what, sizeof what, "external location '%s' offset %s length %s", cases[i].loc,
                 cases[i].off ? cases[i].off : "-", cases[i].len ? cases[i].len : "-");
        expect_refused(what, rc, cases[i].code, cases[i].frag, "'w'", id);
        CHECK(now_s() - t0 < 10, "%s: refused at once", what);
    }
    /* a symlink that stays inside the folder is fine */
    const char *kv[3] = { "sub/inside.bin", NULL, NULL };
    pb m = { 0 };
    model_add_w(&m, fill_external, kv, 2, NULL);
    save_model(mpath, &m);
    uint32_t id = 0;
    int rc = load_file(mpath, &id);
    CHECK(rc == 0, "an in-folder symlink to external data loads");
    if (!rc) aclmdlUnload(id);
    /* the model file itself: a FIFO, a folder, a device, an empty file */
    struct { const char *path; const char *frag; } bad[] = {
        { in_dir(g_dir, "fifo"), "not a regular file" },
        { g_dir, "not a regular file" },
        { "/dev/zero", "not a regular file" },
        { in_dir(g_dir, "empty.onnx"), "empty" },
        { in_dir(g_dir, "nonexistent.onnx"), "nonexistent.onnx" },
    };
    write_file(in_dir(g_dir, "empty.onnx"), "", 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double t0 = now_s();
        rc = load_file(bad[i].path, &id);
        expect_refused(bad[i].path, rc, 0, bad[i].frag, "aclmdlLoadFromFile", id);
        CHECK(now_s() - t0 < 10, "%s: refused at once", bad[i].path);
    }
}

/* ---- sizes ---- */

static void test_huge_declarations(void)
{
    char mpath[PATH_MAX + 64];
    snprintf(mpath, sizeof mpath, "%s/big.onnx", g_dir);
    float w[6] = { 0 };
    write_file(in_dir(g_dir, "small.bin"), w, sizeof w);
    long rss0 = peak_rss_kb();

    /* 1 TB (2^40 bytes) of float declared in a 24-byte external file */
    static const int64_t tb[2] = { (int64_t)1 << 19, (int64_t)1 << 19 };
    const char *kv[3] = { "small.bin", NULL, NULL };
    pb m = { 0 };
    model_add_w(&m, fill_external, kv, 2, tb);
    save_model(mpath, &m);
    uint32_t id = 0;
    int rc = load_file(mpath, &id);
    expect_refused("1 TB external tensor in a 24-byte file", rc, ACL_ERROR_INVALID_FILE_SIZE, "'w'", "small.bin", id);

    /* the same size declared with raw_data of 24 bytes */
    size_t n = 24;
    m = (pb){ 0 };
    model_add_w(&m, fill_raw, &n, 2, tb);
    save_model(mpath, &m);
    rc = load_file(mpath, &id);
    expect_refused("1 TB raw_data tensor with 24 bytes", rc, ACL_ERROR_PARSE_MODEL, "'w'", "raw_data", id);

    /* dims whose product wraps to 0 (2^32 * 2^32) with empty raw_data */
    static const int64_t wrap[2] = { (int64_t)1 << 32, (int64_t)1 << 32 };
    n = 0;
    m = (pb){ 0 };
    model_add_w(&m, fill_raw, &n, 2, wrap);
    save_model(mpath, &m);
    rc = load_file(mpath, &id);
    expect_refused("dims product wrapping to 0", rc, ACL_ERROR_MODEL_SIZE_INVALID, "'w'", "overflow", id);
    static const int64_t wrap3[3] = { (int64_t)1 << 22, (int64_t)1 << 21, (int64_t)1 << 21 };
    m = (pb){ 0 };
    model_add_w(&m, fill_raw, &n, 3, wrap3);
    save_model(mpath, &m);
    rc = load_file(mpath, &id);
    expect_refused("dims product 2^64 over three axes", rc, ACL_ERROR_MODEL_SIZE_INVALID, "'w'", NULL, id);
    static const int64_t neg[2] = { -2, -3 };
    m = (pb){ 0 };
    n = 24;
    model_add_w(&m, fill_raw, &n, 2, neg);
    save_model(mpath, &m);
    rc = load_file(mpath, &id);
    expect_refused("negative initializer dims", rc, ACL_ERROR_PARSE_MODEL, "'w'", "negative", id);

    /* a raw_data length prefix claiming 1 TB in a small file */
    {
        pb g = { 0 }, t = { 0 }, mm = { 0 };
        static const int64_t d23[2] = { 2, 3 };
        const char *in[] = { "x", "w", NULL }, *out[] = { "y", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Add", "add", in, out);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
        onnx_tensor(&t, "w", ONNX_FLOAT, 2, d23, NULL, 0);
        pb_msg(&g, 5, &t);
        onnx_model(&mm, &g, 13);
        /* append a graph field whose length claims 2^40 bytes, then 24 bytes */
        pb_len_header(&mm, 7, (uint64_t)1 << 40);
        pb_raw(&mm, w, sizeof w);
        save_model(mpath, &mm);
        rc = load_file(mpath, &id);
        expect_refused("length prefix claiming 1 TB", rc, ACL_ERROR_PARSE_MODEL, "truncated", NULL, id);
    }
    /* a value_info declaring an input of 2^60 elements */
    {
        pb g = { 0 }, mm = { 0 };
        static const int64_t big[3] = { (int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20 };
        const char *in[] = { "x", "x", NULL }, *out[] = { "y", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Add", "add", in, out);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 3, big);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 3, big);
        onnx_model(&mm, &g, 13);
        save_model(mpath, &mm);
        rc = load_file(mpath, &id);
        expect_refused("input declaring 2^60 elements", rc, ACL_ERROR_MODEL_SIZE_INVALID, "'x'", NULL, id);
    }
    /* a constant-foldable op producing 2^40 floats from a tiny shape tensor */
    {
        pb g = { 0 }, t = { 0 }, mm = { 0 };
        int64_t shape[3] = { (int64_t)1 << 14, (int64_t)1 << 13, (int64_t)1 << 13 };
        static const int64_t d3[1] = { 3 }, dy[3] = { 1 << 14, 1 << 13, 1 << 13 };
        const char *in[] = { "s", NULL }, *out[] = { "y", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "ConstantOfShape", "cos", in, out);
        onnx_tensor(&t, "s", ONNX_INT64, 1, d3, shape, sizeof shape);
        pb_msg(&g, 5, &t);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 3, dy);
        onnx_model(&mm, &g, 13);
        save_model(mpath, &mm);
        rc = load_file(mpath, &id);
        expect_refused("ConstantOfShape folding to 4 TB", rc, 0, NULL, NULL, id);
    }
    long rss1 = peak_rss_kb();
    printf("peak RSS before the huge declarations %ld KiB, after %ld KiB\n", rss0, rss1);
    CHECK(rss1 - rss0 < 100 * 1024, "peak RSS grew by %ld KiB (< 100 MiB allowed)", rss1 - rss0);
}

/* ---- graph structure ---- */

static void test_graph_shapes(void)
{
    char mpath[PATH_MAX + 64];
    snprintf(mpath, sizeof mpath, "%s/graph.onnx", g_dir);
    static const int64_t d4[1] = { 4 };
    uint32_t id = 0;
    int rc;

    /* self loop: y = Relu(y) */
    {
        pb g = { 0 }, m = { 0 };
        const char *in[] = { "y", NULL }, *out[] = { "y", NULL }, *in2[] = { "x", "y", NULL }, *o2[] = { "z", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Relu", "selfloop", in, out);
        onnx_node(&g, "Add", "use", in2, o2);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 1, d4);
        onnx_value_info(&g, 12, "z", ONNX_FLOAT, 1, d4);
        onnx_model(&m, &g, 13);
        save_model(mpath, &m);
        rc = load_file(mpath, &id);
        expect_refused("a node consuming its own output", rc, ACL_ERROR_PARSE_MODEL, "selfloop", NULL, id);
    }
    /* a three-node cycle hanging off a valid path */
    {
        pb g = { 0 }, m = { 0 };
        const char *a_in[] = { "x", "c", NULL }, *a_out[] = { "a", NULL };
        const char *b_in[] = { "a", NULL }, *b_out[] = { "b", NULL };
        const char *c_in[] = { "b", NULL }, *c_out[] = { "c", NULL };
        pb_str(&g, 2, "g");
        onnx_node(&g, "Add", "cyc_a", a_in, a_out);
        onnx_node(&g, "Relu", "cyc_b", b_in, b_out);
        onnx_node(&g, "Neg", "cyc_c", c_in, c_out);
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 1, d4);
        onnx_value_info(&g, 12, "b", ONNX_FLOAT, 1, d4);
        onnx_model(&m, &g, 13);
        save_model(mpath, &m);
        rc = load_file(mpath, &id);
        expect_refused("a three-node cycle", rc, ACL_ERROR_PARSE_MODEL, "cycle", "cyc_", id);
    }
    /* a long chain: 100000 Relu nodes must load (or be refused cleanly)
     * without recursion trouble, and run */
    {
        enum { CHAIN = 100000 };
        pb g = { 0 }, m = { 0 };
        char a[32], b[32], nm[32];
        pb_str(&g, 2, "g");
        for (int i = 0; i < CHAIN; i++) {
            snprintf(a, sizeof a, i ? "t%d" : "x", i);
            snprintf(b, sizeof b, i == CHAIN - 1 ? "y" : "t%d", i + 1);
            snprintf(nm, sizeof nm, "r%d", i);
            const char *in[] = { a, NULL }, *out[] = { b, NULL };
            onnx_node(&g, (i & 1) ? "Relu" : "Neg", nm, in, out);
        }
        onnx_value_info(&g, 11, "x", ONNX_FLOAT, 1, d4);
        onnx_value_info(&g, 12, "y", ONNX_FLOAT, 1, d4);
        onnx_model(&m, &g, 13);
        size_t bytes = m.n;
        save_model(mpath, &m);
        long r0 = peak_rss_kb();
        double t0 = now_s();
        rc = load_file(mpath, &id);
        double dt = now_s() - t0;
        long r1 = peak_rss_kb();
        printf("100000-node chain (%zu bytes): load rc %d in %.2f s, peak RSS +%ld KiB\n", bytes, rc, dt, r1 - r0);
        CHECK(rc == 0, "a 100000-node chain loads");
        if (rc == 0) {
            aclmdlDesc *d = aclmdlCreateDesc();
            CHECK(aclmdlGetDesc(d, id) == 0 && aclmdlGetNumInputs(d) == 1, "chain desc");
            aclmdlDestroyDesc(d);
            void *xi = NULL, *yo = NULL;
            float x[4] = { 1, -2, 3, -4 }, y[4] = { 0 };
            aclrtMalloc(&xi, 16, ACL_MEM_MALLOC_NORMAL_ONLY);
            aclrtMalloc(&yo, 16, ACL_MEM_MALLOC_NORMAL_ONLY);
            aclrtMemcpy(xi, 16, x, 16, ACL_MEMCPY_HOST_TO_DEVICE);
            aclmdlDataset *din = aclmdlCreateDataset(), *dout = aclmdlCreateDataset();
            aclDataBuffer *bi = aclCreateDataBuffer(xi, 16), *bo = aclCreateDataBuffer(yo, 16);
            aclmdlAddDatasetBuffer(din, bi);
            aclmdlAddDatasetBuffer(dout, bo);
            rc = aclmdlExecute(id, din, dout);
            g_msg = rc ? aclGetRecentErrMsg() : NULL;
            aclrtMemcpy(y, 16, yo, 16, ACL_MEMCPY_DEVICE_TO_HOST);
            /* Neg,Relu pairs: Relu(-x) 50000 times = max(-x,0) then Neg/Relu of non-positive... */
            CHECK(rc == 0 && y[0] == 0 && y[1] == 0 && y[2] == 0 && y[3] == 0,
                  "chain runs: rc %d y %g %g %g %g", rc, y[0], y[1], y[2], y[3]);
            aclDestroyDataBuffer(bi);
            aclDestroyDataBuffer(bo);
            aclmdlDestroyDataset(din);
            aclmdlDestroyDataset(dout);
            aclrtFree(xi);
            aclrtFree(yo);
            aclmdlUnload(id);
        }
    }
}

/* A fan-in bomb: 50000 tensors alive at once, all read by one Concat. The
 * memory planner looked at every pair (minutes); now it must load quickly
 * and compute. */
static void test_fan_in(void)
{
    enum { FAN = 50000 };
    char mpath[PATH_MAX + 64];
    snprintf(mpath, sizeof mpath, "%s/fan.onnx", g_dir);
    static const int64_t d4[1] = { 4 }, dy[1] = { 4 * FAN };
    pb g = { 0 }, n = { 0 }, attr = { 0 }, m = { 0 };
    char nm[32];
    pb_str(&g, 2, "g");
    for (int i = 0; i < FAN; i++) {
        snprintf(nm, sizeof nm, "r%d", i);
        const char *in[] = { "x", NULL }, *out[] = { nm, NULL };
        onnx_node(&g, (i & 1) ? "Relu" : "Neg", nm, in, out);
    }
    for (int i = 0; i < FAN; i++) {
        snprintf(nm, sizeof nm, "r%d", i);
        pb_str(&n, 1, nm);
    }
    pb_str(&n, 2, "y");
    pb_str(&n, 3, "cat");
    pb_str(&n, 4, "Concat");
    pb_str(&attr, 1, "axis");
    pb_int(&attr, 3, 0);
    pb_int(&attr, 20, 2);   /* AttributeProto.INT */
    pb_msg(&n, 5, &attr);
    pb_msg(&g, 1, &n);
    onnx_value_info(&g, 11, "x", ONNX_FLOAT, 1, d4);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 1, dy);
    onnx_model(&m, &g, 13);
    save_model(mpath, &m);
    uint32_t id = 0;
    double t0 = now_s();
    int rc = load_file(mpath, &id);
    double dt = now_s() - t0;
    printf("fan-in of %d tensors: load rc %d in %.2f s\n", FAN, rc, dt);
    CHECK(rc == 0, "a 50000-input Concat loads");
    CHECK(dt < 20, "a 50000-input Concat loads in seconds (took %.1f s)", dt);
    if (rc) return;
    size_t ob = (size_t)4 * FAN * sizeof(float);
    void *xi = NULL, *yo = NULL;
    float x[4] = { 1, -2, 3, -4 };
    float *y = malloc(ob);
    aclrtMalloc(&xi, 16, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclrtMalloc(&yo, ob, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclrtMemcpy(xi, 16, x, 16, ACL_MEMCPY_HOST_TO_DEVICE);
    aclmdlDataset *din = aclmdlCreateDataset(), *dout = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(xi, 16), *bo = aclCreateDataBuffer(yo, ob);
    aclmdlAddDatasetBuffer(din, bi);
    aclmdlAddDatasetBuffer(dout, bo);
    rc = aclmdlExecute(id, din, dout);
    g_msg = rc ? aclGetRecentErrMsg() : NULL;
    aclrtMemcpy(y, ob, yo, ob, ACL_MEMCPY_DEVICE_TO_HOST);
    int ok = rc == 0;
    for (int i = 0; ok && i < FAN; i++)
        for (int k = 0; k < 4; k++) {
            float want = (i & 1) ? (x[k] > 0 ? x[k] : 0) : -x[k];
            if (y[i * 4 + k] != want) { ok = 0; break; }
        }
    CHECK(ok, "the 50000-input Concat computes (rc %d)", rc);
    free(y);
    aclDestroyDataBuffer(bi);
    aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(din);
    aclmdlDestroyDataset(dout);
    aclrtFree(xi);
    aclrtFree(yo);
    aclmdlUnload(id);
}

/* ---- protobuf nesting bombs ---- */

/* Wraps the bytes of b `levels` times, alternating the given fields, the
 * innermost first. Built back to front in one buffer (linear time). */
static void nest(pb *b, const int *fields, int nfields, long levels)
{
    size_t cap = b->n + (size_t)levels * 12 + 16, pos = cap - b->n;
    unsigned char *buf = malloc(cap);
    if (!buf) abort();
    memcpy(buf + pos, b->p, b->n);
    for (long l = 0; l < levels; l++) {
        pb h = { 0 };
        pb_tag(&h, fields[l % nfields], 2);
        pb_varint(&h, cap - pos);
        pos -= h.n;
        memcpy(buf + pos, h.p, h.n);
        pb_free(&h);
    }
    pb_free(b);
    pb_raw(b, buf + pos, cap - pos);
    free(buf);
}

static void test_nesting_bombs(void)
{
    uint32_t id = 0;
    int rc;
    /* TypeProto.sequence_type.elem_type ... 100000 deep inside an input's type */
    {
        pb t = { 0 }, vi = { 0 }, g = { 0 }, m = { 0 };
        static const int fields[2] = { 1, 4 };   /* Sequence.elem_type, TypeProto.sequence_type */
        pb_int(&t, 1, 1);
        nest(&t, fields, 2, 100000);
        pb_str(&vi, 1, "x");
        pb_msg(&vi, 2, &t);
        pb_str(&g, 2, "g");
        pb_msg(&g, 11, &vi);
        onnx_model(&m, &g, 13);
        double t0 = now_s();
        aclGetRecentErrMsg();
        rc = aclmdlLoadFromMem(m.p, m.n, &id);
        g_msg = rc ? aclGetRecentErrMsg() : NULL;
        expect_refused("type nesting bomb (100000 messages deep)", rc, ACL_ERROR_PARSE_MODEL, "deep", NULL, id);
        CHECK(now_s() - t0 < 10, "type bomb refused at once");
        pb_free(&m);
    }
    /* NodeProto.attribute.g.node.attribute.g ... through a Loop body */
    {
        pb a = { 0 }, g = { 0 }, m = { 0 };
        static const int fields[3] = { 6, 5, 1 };   /* Attribute.g, Node.attribute, Graph.node */
        pb_str(&a, 1, "body");
        nest(&a, fields, 3, 99999);   /* a multiple of 3: the outermost is Graph.node */
        /* a is now a GraphProto.node payload: wrap into the main graph */
        pb_raw(&g, a.p, a.n);
        pb_free(&a);
        onnx_model(&m, &g, 13);
        aclGetRecentErrMsg();
        rc = aclmdlLoadFromMem(m.p, m.n, &id);
        g_msg = rc ? aclGetRecentErrMsg() : NULL;
        expect_refused("graph nesting bomb (100000 messages deep)", rc, ACL_ERROR_PARSE_MODEL, "deep", NULL, id);
        pb_free(&m);
    }
    /* unknown fields nested deep (not in the recursive set): protobuf-c skips
     * them without recursion, so they must simply be ignored or refused */
    {
        pb u = { 0 }, m = { 0 };
        static const int fields[1] = { 99 };
        pb_int(&u, 1, 1);
        nest(&u, fields, 1, 100000);
        pb_raw(&m, u.p, u.n);
        pb_free(&u);
        aclGetRecentErrMsg();
        rc = aclmdlLoadFromMem(m.p, m.n, &id);
        g_msg = rc ? aclGetRecentErrMsg() : NULL;
        expect_refused("unknown fields nested 100000 deep", rc, ACL_ERROR_PARSE_MODEL, NULL, NULL, id);
        pb_free(&m);
    }
}

static void rm_tree(const char *d)
{
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", d);
}

int main(void)
{
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/oa_untrusted_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    snprintf(g_out, sizeof g_out, "%s/oa_outside_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir) || !mkdtemp(g_out)) { perror("mkdtemp"); return 2; }
    if (aclInit(NULL) || aclrtSetDevice(0)) { fprintf(stderr, "init: %s\n", aclGetRecentErrMsg()); return 2; }
    struct { const char *name; void (*fn)(void); } parts[] = {
        { "huge declarations", test_huge_declarations }, { "external paths", test_external_paths },
        { "graph shapes", test_graph_shapes }, { "fan-in", test_fan_in }, { "nesting bombs", test_nesting_bombs },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        double t0 = now_s();
        parts[i].fn();
        printf("%-18s %.2f s\n", parts[i].name, now_s() - t0);
    }
    good_model_runs("after the hostile models");
    aclrtResetDevice(0);
    CHECK(aclFinalize() == 0, "finalize");
    rm_tree(g_dir);
    rm_tree(g_out);
    printf("%d checks, %d failures\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
