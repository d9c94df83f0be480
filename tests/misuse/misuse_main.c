/* Runs the generated misuse matrix (see gen_misuse.py). The cases of one
 * function and state run in one forked child with a fresh fixture, so a
 * crash or hang names its function and case, and one case cannot spoil the
 * state of another function's cases. A case passes when it did not crash,
 * and: an aclError result is non-zero (and ACL_ERROR_UNINITIALIZE, or
 * ACL_ERROR_FEATURE_UNSUPPORTED for an unsupported stub, in the U/F states)
 * with a message naming the function; a pointer result is NULL; any other
 * result leaves a message naming the function. An S case (an unsupported
 * runtime call with plausible arguments on a live runtime) must return
 * exactly ACL_ERROR_FEATURE_UNSUPPORTED, or NULL, with a message naming it.
 *
 * usage: misuse_test [--shard K/M] [--only FUNCTION] [--verbose] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "misuse.h"
#include "onnx_writer.h"

static int g_verbose;
static char g_dir[4096], g_model[4200];

void mx_noop_cb(void *arg) { (void)arg; }
void mx_noop_exc(aclrtExceptionInfo *info) { (void)info; }

char *mx_str(mx_fix *f, const char *s)
{
    snprintf(f->strbuf, sizeof f->strbuf, "%s", s);
    return f->strbuf;
}

/* y = x + x, x float [2,3]: a small model written once by the parent. */
static int write_model(void)
{
    static const int64_t d23[2] = { 2, 3 };
    pb g = { 0 }, m = { 0 };
    const char *in[] = { "x", "x", NULL }, *out[] = { "y", NULL };
    pb_str(&g, 2, "g");
    onnx_node(&g, "Add", "add", in, out);
    onnx_value_info(&g, 11, "x", ONNX_FLOAT, 2, d23);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 2, d23);
    onnx_model(&m, &g, 13);
    FILE *f = fopen(g_model, "wb");
    int ok = f && fwrite(m.p, m.n, 1, f) == 1;
    if (f) fclose(f);
    pb_free(&m);
    return ok ? 0 : -1;
}

static void *read_model(size_t *n)
{
    FILE *f = fopen(g_model, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long l = ftell(f);
    rewind(f);
    void *p = malloc((size_t)l);
    if (p && fread(p, 1, (size_t)l, f) != (size_t)l) { free(p); p = NULL; }
    fclose(f);
    *n = (size_t)l;
    return p;
}

#define FX_OK(expr)                                                                        \
    do {                                                                                   \
        int rc_ = (int)(expr);                                                             \
        if (rc_) {                                                                         \
            fprintf(stderr, "fixture: %s -> %d: %s\n", #expr, rc_, aclGetRecentErrMsg());  \
            exit(3);                                                                       \
        }                                                                                  \
    } while (0)

/* Plain objects (no runtime needed), then the runtime ones when `live`. */
static void fixture_up(mx_fix *f, int state)
{
    memset(f, 0, sizeof *f);
    f->scratch = calloc(1, 1 << 20);
    f->scratch_i64 = calloc(256, sizeof(int64_t));
    for (int i = 0; i < 256; i++) f->scratch_i64[i] = 1;
    f->model_path = g_model;
    f->model_mem = read_model(&f->model_size);
    if (!f->scratch || !f->model_mem) exit(3);
    static const int64_t dims[2] = { 2, 3 };
    f->td = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    f->ds = aclmdlCreateDataset();
    f->desc = aclmdlCreateDesc();
    f->cfg = aclmdlCreateConfigHandle();
    f->ecfg = aclmdlCreateExecConfigHandle();
    if (state == MX_FINALIZED) {
        FX_OK(aclInit(NULL));
        FX_OK(aclFinalize());
    }
    if (state != MX_LIVE) {
        f->buf = aclCreateDataBuffer(f->scratch, 64);
        aclGetRecentErrMsg();
        return;
    }
    FX_OK(aclInit(NULL));
    /* device 1 first, so its context exists; device 0 ends up current */
    FX_OK(aclrtCreateContext(&f->ctx1, 1));
    FX_OK(aclrtCreateStream(&f->stream_dev1));
    FX_OK(aclrtMalloc(&f->dev1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    FX_OK(aclmdlLoadFromFile(g_model, &f->model_ctx1));
    FX_OK(aclrtCreateContext(&f->dead_ctx, 0));
    FX_OK(aclrtDestroyContext(f->dead_ctx));
    FX_OK(aclrtSetDevice(0));
    FX_OK(aclrtGetCurrentContext(&f->ctx0));
    FX_OK(aclrtCreateStream(&f->stream));
    FX_OK(aclrtCreateStream(&f->dead_stream));
    FX_OK(aclrtDestroyStream(f->dead_stream));
    FX_OK(aclrtCreateEvent(&f->event));
    FX_OK(aclrtCreateEvent(&f->dead_event));
    FX_OK(aclrtDestroyEvent(f->dead_event));
    FX_OK(aclrtMalloc(&f->dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    FX_OK(aclrtMallocHost(&f->host, 4096));
    FX_OK(aclmdlLoadFromFile(g_model, &f->model));
    FX_OK(aclmdlLoadFromFile(g_model, &f->dead_model));
    FX_OK(aclmdlUnload(f->dead_model));
    FX_OK(aclmdlGetDesc(f->desc, f->model));
    f->buf = aclCreateDataBuffer(f->dev, 64);
    FX_OK(aclmdlAddDatasetBuffer(f->ds, f->buf));
    /* execute datasets: input and output of 24 bytes in device memory */
    f->ds_in = aclmdlCreateDataset();
    f->ds_out = aclmdlCreateDataset();
    FX_OK(aclmdlAddDatasetBuffer(f->ds_in, aclCreateDataBuffer(f->dev, 24)));
    FX_OK(aclmdlAddDatasetBuffer(f->ds_out, aclCreateDataBuffer((char *)f->dev + 1024, 24)));
    /* freed memory last, so no later fixture allocation reuses its address;
     * kept large so a small allocation of a case cannot land on it either */
    FX_OK(aclrtMalloc(&f->dead_dev, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY));
    FX_OK(aclrtFree(f->dead_dev));
    FX_OK(aclrtMallocHost(&f->dead_host, 1 << 20));
    FX_OK(aclrtFreeHost(f->dead_host));
    aclGetRecentErrMsg();
}

static void destroy_dataset(aclmdlDataset *ds)
{
    if (!ds) return;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++) aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds, i));
    aclmdlDestroyDataset(ds);
}

static void fixture_down(mx_fix *f)
{
    if (f->ds) aclmdlDestroyDataset(f->ds);
    if (f->buf) aclDestroyDataBuffer(f->buf);
    destroy_dataset(f->ds_in);
    destroy_dataset(f->ds_out);
    aclDestroyTensorDesc(f->td);
    if (f->desc) aclmdlDestroyDesc(f->desc);
    if (f->cfg) aclmdlDestroyConfigHandle(f->cfg);
    if (f->ecfg) aclmdlDestroyExecConfigHandle(f->ecfg);
    aclFinalize();   /* everything of the runtime; harmless when not initialised */
    aclGetRecentErrMsg();
    free(f->scratch);
    free(f->scratch_i64);
    free(f->model_mem);
}

/* Child: runs cases [a, b) (one function, one state). Exit status = failures. */
static int run_group(int a, int b)
{
    mx_fix f;
    int fails = 0;
    fixture_up(&f, mx_cases[a].state);
    for (int i = a; i < b; i++) {
        const mx_case *c = &mx_cases[i];
        if (g_verbose) {
            printf("  case %d %s [%c] %s\n", i, c->fn, c->kind, c->note);
            fflush(stdout);
        }
        if (c->state == MX_LIVE) aclrtSetCurrentContext(f.ctx0);
        aclGetRecentErrMsg();
        mx_result r = { 0, NULL };
        c->run(&f, &r);
        const char *m = aclGetRecentErrMsg();
        int named = m && strstr(m, c->fn);
        const char *why = NULL;
        char buf[160];
        switch (c->ret) {
        case MX_RET_ERR:
            if (r.val == 0) why = "returned ACL_SUCCESS";
            else if (c->kind == 'S' && r.val != ACL_ERROR_FEATURE_UNSUPPORTED) {
                snprintf(buf, sizeof buf, "unsupported call returned %lld, expected ACL_ERROR_FEATURE_UNSUPPORTED (200006)",
                         r.val);
                why = buf;
            } else if (c->state != MX_LIVE && r.val != ACL_ERROR_UNINITIALIZE &&
                     !(c->stub && r.val == ACL_ERROR_FEATURE_UNSUPPORTED) &&
                     !(r.val == ACL_ERROR_REPEAT_FINALIZE && !strncmp(c->fn, "aclFinalize", 11))) {
                snprintf(buf, sizeof buf, "returned %lld, expected ACL_ERROR_UNINITIALIZE (100001)", r.val);
                why = buf;
            } else if (!named) why = m ? "message does not name the call" : "no message";
            break;
        case MX_RET_PTR:
            if (r.val) why = "returned a non-NULL pointer";
            else if (!named) why = m ? "message does not name the call" : "no message";
            break;
        case MX_RET_VAL:
            if (!named) why = m ? "message does not name the call" : "no message";
            break;
        default:
            break;
        }
        if (why) {
            fails++;
            printf("FAIL %s [%c %s]: %s%s%s\n", c->fn, c->kind, c->note, why, m ? " -- " : "", m ? m : "");
        }
    }
    fflush(stdout);
    fixture_down(&f);
    return fails > 100 ? 100 : fails;
}

/* ---- wrong-state calls whose code the headers document ---- */

static int g_state_fail;

static void expect(const char *what, const char *fn, int rc, int want)
{
    const char *m = aclGetRecentErrMsg();
    if (rc != want || !m || !strstr(m, fn)) {
        g_state_fail++;
        printf("FAIL state: %s: %s returned %d (want %d)%s%s\n", what, fn, rc, want, m ? " -- " : ", no message",
               m ? m : "");
    }
}

/* In a child: the documented codes of calls made in the wrong state. */
static int run_state_cases(void)
{
    mx_fix f;
    fixture_up(&f, MX_LIVE);
    aclrtStream dflt = NULL;
    aclrtCtxGetCurrentDefaultStream(&dflt);
    aclGetRecentErrMsg();
    expect("callback on a stream nobody subscribed to", "aclrtLaunchCallback",
           aclrtLaunchCallback(mx_noop_cb, NULL, ACL_CALLBACK_BLOCK, f.stream), ACL_ERROR_RT_STREAM_NO_CB_REG);
    expect("report processing without a subscription", "aclrtProcessReport", aclrtProcessReport(10),
           ACL_ERROR_RT_THREAD_SUBSCRIBE);
    expect("report timeout 0", "aclrtProcessReport", aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    expect("stream sync timeout 0", "aclrtSynchronizeStreamWithTimeout",
           aclrtSynchronizeStreamWithTimeout(f.stream, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect("stream sync timeout -2", "aclrtSynchronizeStreamWithTimeout",
           aclrtSynchronizeStreamWithTimeout(f.stream, -2), ACL_ERROR_RT_PARAM_INVALID);
    expect("event sync timeout -2", "aclrtSynchronizeEventWithTimeout",
           aclrtSynchronizeEventWithTimeout(f.event, -2), ACL_ERROR_RT_PARAM_INVALID);
    expect("device sync timeout -2", "aclrtSynchronizeDeviceWithTimeout", aclrtSynchronizeDeviceWithTimeout(-2),
           ACL_ERROR_RT_PARAM_INVALID);
    aclrtEvent e2 = NULL;
    aclrtCreateEvent(&e2);
    float ms = 0;
    expect("elapsed time of events never recorded", "aclrtEventElapsedTime", aclrtEventElapsedTime(&ms, f.event, e2),
           ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    aclrtDestroyEvent(e2);
    expect("destroying the default context", "aclrtDestroyContext", aclrtDestroyContext(f.ctx0),
           ACL_ERROR_INVALID_PARAM);
    expect("event flag with unknown bits", "aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e2, 0x80000000u),
           ACL_ERROR_INVALID_PARAM);
    expect("memcpy count > destMax", "aclrtMemcpy",
           aclrtMemcpy(f.dev, 16, (char *)f.dev + 2048, 32, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    expect("memset count > maxCount", "aclrtMemset", aclrtMemset(f.dev, 16, 0, 32), ACL_ERROR_INVALID_PARAM);
    expect("free of a pointer inside an allocation", "aclrtFree", aclrtFree((char *)f.dev + 64),
           ACL_ERROR_INVALID_PARAM);
    expect("unknown model id", "aclmdlUnload", aclmdlUnload(f.dead_model), ACL_ERROR_INVALID_MODEL_ID);
    expect("model of another context", "aclmdlExecute", aclmdlExecute(f.model_ctx1, f.ds_in, f.ds_out),
           ACL_ERROR_RESOURCE_NOT_MATCH);
    aclmdlDataset *empty = aclmdlCreateDataset();
    expect("input dataset with too few buffers", "aclmdlExecute", aclmdlExecute(f.model, empty, f.ds_out),
           ACL_ERROR_MODEL_INPUT_NOT_MATCH);
    expect("output dataset with too few buffers", "aclmdlExecute", aclmdlExecute(f.model, f.ds_in, empty),
           ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
    aclmdlDestroyDataset(empty);
    expect("finalize dump without init", "aclmdlFinalizeDump", aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
    aclmdlInitDump();
    expect("init dump twice", "aclmdlInitDump", aclmdlInitDump(), ACL_ERROR_DUMP_ALREADY_RUN);
    expect("invalid device id", "aclrtSetDevice", aclrtSetDevice(1000), ACL_ERROR_RT_INVALID_DEVICEID);
    expect("a second aclInit", "aclInit", aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    aclFinalizeReference(NULL);   /* undo the count the second aclInit added */
    aclGetRecentErrMsg();
    fixture_down(&f);
    expect("aclFinalize twice", "aclFinalize", aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    printf("%d wrong-state cases failed\n", g_state_fail);
    fflush(stdout);
    return g_state_fail;
}

int main(int argc, char **argv)
{
    long sk = 0, sm = 1;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ld/%ld", &sk, &sm) != 2 || sm < 1) return 2;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--verbose")) {
            g_verbose = 1;
        }
    }
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/oa_misuse_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    snprintf(g_model, sizeof g_model, "%s/add.onnx", g_dir);
    if (write_model()) { fprintf(stderr, "cannot write the model\n"); return 2; }

    int groups = 0, ran = 0, failed_cases = 0, crashed = 0;
    int kinds[128] = { 0 };
    for (int a = 0; a < mx_n_cases;) {
        int b = a + 1;
        while (b < mx_n_cases && !strcmp(mx_cases[b].fn, mx_cases[a].fn) && mx_cases[b].state == mx_cases[a].state)
            b++;
        int g = groups++;
        if (g % sm != sk || (only && strcmp(only, mx_cases[a].fn))) { a = b; continue; }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(60);
            exit(run_group(a, b));   /* exit, not _exit: LeakSanitizer checks the child */
        }
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        for (int i = a; i < b; i++) kinds[(unsigned char)mx_cases[i].kind]++;
        ran += b - a;
        if (WIFSIGNALED(st)) {
            crashed++;
            printf("CRASH %s (state %d): signal %d in one of its %d cases (rerun with --only %s --verbose)\n",
                   mx_cases[a].fn, mx_cases[a].state, WTERMSIG(st), b - a, mx_cases[a].fn);
        } else if (WEXITSTATUS(st)) {
            failed_cases += WEXITSTATUS(st);
        }
        a = b;
    }
    if (sk == 0 && !only) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(60);
            exit(run_state_cases());
        }
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        if (WIFSIGNALED(st)) {
            crashed++;
            printf("CRASH in the wrong-state cases: signal %d\n", WTERMSIG(st));
        } else {
            failed_cases += WEXITSTATUS(st);
        }
    }
    printf("%d functions, %d cases generated; ran %d (U %d, F %d, N %d, D %d, X %d) in %d groups: %d failed, %d "
           "groups crashed\n", mx_n_funcs, mx_n_cases, ran, kinds['U'], kinds['F'], kinds['N'], kinds['D'],
           kinds['X'], groups, failed_cases, crashed);
    unlink(g_model);
    rmdir(g_dir);
    return failed_cases || crashed ? 1 : 0;
}
