/* Loading an ONNX file holds its weights about once, not twice: the loader
 * unpacks the initializers one by one and lets the file mapping's pages go
 * behind its copies (onnx_import_ex), and binding releases each plain
 * constant behind its copy into the weight area.
 *
 * A model with a 64 MiB embedding table (Gather) and a small bias (Add) is
 * loaded from a file in a fresh process (so VmHWM is the load's): the peak
 * may grow by at most 100 MiB (the old path held the mapping and the copies
 * together: >= 128 MiB). Then the same weights in shapes the low-peak path
 * must hand to protobuf-c whole are checked for the right values:
 *  - raw_data given twice in one tensor (protobuf: the last one counts);
 *  - the graph field given twice (protobuf merges the two halves);
 *  - the model loaded from memory (no file pages to drop).
 * usage: test_load_peak <scratch dir>   (re-runs itself with --load FILE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"
#include "onnx_writer.h"

#define ROWS 16384
#define COLS 1024
#define PEAK_LIMIT_KB (100L * 1024)

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static long vm_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl)) v = atol(line + kl);
    if (f) fclose(f);
    return v;
}

static float emb_value(int r, int c) { return (float)r + (float)c / 1024.0f; }

/* kind 0: plain; 1: raw_data twice (garbage first); 2: the graph in two halves */
static void write_model(const char *path, int kind)
{
    float *emb = malloc((size_t)ROWS * COLS * sizeof *emb), bias[COLS];
    if (!emb) abort();
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) emb[(size_t)r * COLS + c] = emb_value(r, c);
    for (int c = 0; c < COLS; c++) bias[c] = 0.5f;
    pb g = { 0 }, g2 = { 0 }, t = { 0 }, b = { 0 }, model = { 0 };
    static const int64_t edims[2] = { ROWS, COLS }, bdims[1] = { COLS }, idims[1] = { 4 }, ydims[2] = { 4, COLS };
    static const char *const gin[] = { "emb", "idx", NULL }, *const gout[] = { "rows", NULL };
    static const char *const ain[] = { "rows", "bias", NULL }, *const aout[] = { "y", NULL };
    onnx_node(&g, "Gather", "gather", gin, gout);
    onnx_node(&g, "Add", "add", ain, aout);
    onnx_value_info(&g, 11, "idx", ONNX_INT64, 1, idims);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, ydims);
    pb *wg = kind == 2 ? &g2 : &g;   /* kind 2: initializers in a second graph field */
    if (kind == 1) {
        float junk[16] = { 0 };
        pb_bytes(&t, 9, junk, sizeof junk);   /* overridden by the raw_data that follows */
    }
    onnx_tensor(&t, "emb", ONNX_FLOAT, 2, edims, emb, (size_t)ROWS * COLS * sizeof *emb);
    pb_msg(wg, 5, &t);
    onnx_tensor(&b, "bias", ONNX_FLOAT, 1, bdims, bias, sizeof bias);
    pb_msg(wg, 5, &b);
    free(emb);
    onnx_model(&model, &g, 13);
    if (kind == 2) pb_msg(&model, 7, &g2);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(model.p, 1, model.n, f) != model.n) { perror(path); exit(2); }
    fclose(f);
    pb_free(&model);
}

/* Runs the model on rows {0, 5, 16383, 77}; 0 when every value is right. */
static int check_run(uint32_t id, const char *what)
{
    int64_t idx[4] = { 0, 5, ROWS - 1, 77 };
    size_t ysz = 4 * COLS * sizeof(float);
    void *din = NULL, *dout = NULL;
    float *y = malloc(ysz);
    int bad = !y || aclrtMalloc(&din, sizeof idx, ACL_MEM_MALLOC_NORMAL_ONLY) ||
              aclrtMalloc(&dout, ysz, ACL_MEM_MALLOC_NORMAL_ONLY);
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(din, sizeof idx), *bo = aclCreateDataBuffer(dout, ysz);
    if (!bad) bad = aclrtMemcpy(din, sizeof idx, idx, sizeof idx, ACL_MEMCPY_HOST_TO_DEVICE) ||
                    aclmdlAddDatasetBuffer(in, bi) || aclmdlAddDatasetBuffer(out, bo) || aclmdlExecute(id, in, out) ||
                    aclrtMemcpy(y, ysz, dout, ysz, ACL_MEMCPY_DEVICE_TO_HOST);
    if (bad) printf("FAIL %s: run: %s\n", what, aclGetRecentErrMsg());
    for (int k = 0; !bad && k < 4; k++)
        for (int c = 0; c < COLS; c++)
            if (y[k * COLS + c] != emb_value((int)idx[k], c) + 0.5f) {
                printf("FAIL %s: y[%d][%d] = %g, expected %g\n", what, k, c, y[k * COLS + c],
                       emb_value((int)idx[k], c) + 0.5f);
                bad = 1;
                break;
            }
    aclDestroyDataBuffer(bi);
    aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(in);
    aclmdlDestroyDataset(out);
    aclrtFree(din);
    aclrtFree(dout);
    free(y);
    return bad;
}

/* In a fresh process: the peak of one load from a file, and the values. */
static int child_load(const char *path)
{
    if (aclInit(NULL) || aclrtSetDevice(0)) { printf("FAIL init: %s\n", aclGetRecentErrMsg()); return 1; }
    long hwm0 = vm_kb("VmHWM:");
    uint32_t id = 0;
    if (aclmdlLoadFromFile(path, &id)) { printf("FAIL load: %s\n", aclGetRecentErrMsg()); return 1; }
    long grow = vm_kb("VmHWM:") - hwm0;
    int bad = check_run(id, "file load");
    printf("load peak growth: %ld KiB for %zu KiB of weights%s\n", grow, (size_t)ROWS * COLS * 4 / 1024,
           UNDER_ASAN ? " (ASan: not bounded)" : "");
    if (!UNDER_ASAN && grow > PEAK_LIMIT_KB) {
        printf("FAIL the load's peak grew by %ld KiB (limit %ld): weights held twice?\n", grow, PEAK_LIMIT_KB);
        bad = 1;
    }
    aclmdlUnload(id);
    aclrtResetDevice(0);
    aclFinalize();
    return bad;
}

static int run_child(const char *self, const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--load", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
    return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

static int load_check(const char *path, int from_mem, const char *what)
{
    uint32_t id = 0;
    int rc;
    if (from_mem) {
        FILE *f = fopen(path, "rb");
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        void *buf = malloc((size_t)n);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) abort();
        fclose(f);
        rc = aclmdlLoadFromMem(buf, (size_t)n, &id);
        free(buf);
    } else {
        rc = aclmdlLoadFromFile(path, &id);
    }
    if (rc) { printf("FAIL %s: load: %s\n", what, aclGetRecentErrMsg()); return 1; }
    int bad = check_run(id, what);
    aclmdlUnload(id);
    if (!bad) printf("ok %s\n", what);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--load")) return child_load(argv[2]);
    if (argc != 2) { fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]); return 2; }
    char p0[1024], p1[1024], p2[1024];
    snprintf(p0, sizeof p0, "%s/peak_plain.onnx", argv[1]);
    snprintf(p1, sizeof p1, "%s/peak_raw_twice.onnx", argv[1]);
    snprintf(p2, sizeof p2, "%s/peak_graph_twice.onnx", argv[1]);
    write_model(p0, 0);
    write_model(p1, 1);
    write_model(p2, 2);
    int fail = run_child(argv[0], p0);
    if (aclInit(NULL) || aclrtSetDevice(0)) { printf("FAIL init: %s\n", aclGetRecentErrMsg()); return 1; }
    fail += load_check(p1, 0, "raw_data twice");
    fail += load_check(p2, 0, "graph field twice");
    fail += load_check(p0, 1, "from memory");
    aclrtResetDevice(0);
    aclFinalize();
    remove(p0);
    remove(p1);
    remove(p2);
    if (fail) { printf("test_load_peak: %d failure(s)\n", fail); return 1; }
    printf("test_load_peak: ok\n");
    return 0;
}
