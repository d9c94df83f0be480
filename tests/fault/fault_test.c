/* Fault-injection sweep over the whole life of a model:
 *   aclInit(config file) -> aclrtSetDevice -> aclrtCreateStream ->
 *   aclmdlLoadFromFile (external weights) -> aclmdlGetDesc -> aclrtMalloc ->
 *   aclmdlExecute -> aclmdlExecuteAsync + aclrtLaunchHostFunc + synchronize ->
 *   aclmdlUnload -> destroy everything -> aclrtResetDevice -> aclFinalize
 * A clean run counts the calls of each class (allocations, file reads,
 * thread creations) the library makes; then for every N the Nth call of
 * that class fails. Each cycle must either succeed with correct outputs or
 * fail with an error code and a message; afterwards a clean cycle in the
 * same process must succeed (the runtime is still usable) and, under
 * AddressSanitizer, LeakSanitizer must find nothing leaked.
 *
 * usage: fault_test [--class alloc|io|thread|all] [--shard K/M] [--stride S] [--persistent]
 *   --shard K/M: only the N with N % M == K (so CTest can run shards in
 *   parallel); --stride S: every S-th N (quick runs); --persistent: call N
 *   and every later call of the class fail (resources stay exhausted, so
 *   the clean-up paths run without memory too). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl.h"
#if __has_include("engine/compile.h")
#include "engine/compile.h"
#define FT_HAVE_COMPILER 1
#endif
#include "fault_wrap.h"
#include "small_net.h"

#if defined(__SANITIZE_ADDRESS__)
#define FT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FT_LSAN 1
#endif
#endif
#ifdef FT_LSAN
#include <sanitizer/lsan_interface.h>
#endif

static char g_dir[4096], g_cfg[4200], g_model[4200], g_om[4200];
static sn_weights g_wt;
static float g_x[SN_IN_ELEMS], g_ref[SN_OUT_ELEMS];
static int g_bad;

enum { ST_INIT = 1, ST_SETDEV, ST_STREAM, ST_LOAD, ST_DESC, ST_MALLOC, ST_DATASET, ST_EXEC, ST_ASYNC,
       ST_SYNC, ST_UNLOAD, ST_OMLOAD, ST_OMEXEC, ST_DESTROY, ST_RESET, ST_FINALIZE, ST_DONE };
static const char *const k_step[] = { "-", "aclInit", "aclrtSetDevice", "aclrtCreateStream",
                                      "aclmdlLoadFromFile", "aclmdlGetDesc", "aclrtMalloc",
                                      "dataset", "aclmdlExecute", "aclmdlExecuteAsync",
                                      "aclrtSynchronizeStream", "aclmdlUnload",
                                      "aclmdlLoadFromFile (compiled)", "aclmdlExecute (compiled)", "destroy",
                                      "aclrtResetDevice", "aclFinalize", "done" };

typedef struct cycle_result {
    int step;          /* step that failed, ST_DONE when all succeeded */
    int rc;
    int has_msg;
    char msg[512];
    int wrong_output;  /* an execution "succeeded" with wrong numbers */
} cycle_result;

static atomic_int g_hostfunc_ran;
static void host_fn(void *arg) { (void)arg; atomic_fetch_add(&g_hostfunc_ran, 1); }

static int fail_step(cycle_result *r, int step, int rc)
{
    const char *m = aclGetRecentErrMsg();
    r->step = step;
    r->rc = rc;
    r->has_msg = m != NULL;
    snprintf(r->msg, sizeof r->msg, "%s", m ? m : "");
    return -1;
}

/* One cycle; stops at the first failing step and tears down what exists. */
static void cycle(cycle_result *r)
{
    memset(r, 0, sizeof *r);
    int inited = 0, dev = 0;
    aclrtStream s = NULL;
    uint32_t id = 0;
    int loaded = 0;
    aclmdlDesc *desc = NULL;
    void *in_dev = NULL, *out_dev = NULL;
    aclmdlDataset *din = NULL, *dout = NULL;
    aclDataBuffer *bin = NULL, *bout = NULL;
    float y[SN_OUT_ELEMS];
    int rc;

    aclGetRecentErrMsg();
    if ((rc = aclInit(g_cfg)) != 0) { fail_step(r, ST_INIT, rc); goto out; }
    inited = 1;
    if ((rc = aclrtSetDevice(0)) != 0) { fail_step(r, ST_SETDEV, rc); goto out; }
    dev = 1;
    if ((rc = aclrtCreateStream(&s)) != 0) { s = NULL; fail_step(r, ST_STREAM, rc); goto out; }
    if ((rc = aclmdlLoadFromFile(g_model, &id)) != 0) { fail_step(r, ST_LOAD, rc); goto out; }
    loaded = 1;
    if (!(desc = aclmdlCreateDesc())) { fail_step(r, ST_DESC, -1); goto out; }
    if ((rc = aclmdlGetDesc(desc, id)) != 0) { fail_step(r, ST_DESC, rc); goto out; }
    if (aclmdlGetInputSizeByIndex(desc, 0) != sizeof g_x || aclmdlGetOutputSizeByIndex(desc, 0) != sizeof y) {
        r->wrong_output = 1;
        fail_step(r, ST_DESC, -2);
        goto out;
    }
    if ((rc = aclrtMalloc(&in_dev, sizeof g_x, ACL_MEM_MALLOC_NORMAL_ONLY)) != 0) {
        in_dev = NULL;
        fail_step(r, ST_MALLOC, rc);
        goto out;
    }
    if ((rc = aclrtMalloc(&out_dev, sizeof y, ACL_MEM_MALLOC_NORMAL_ONLY)) != 0) {
        out_dev = NULL;
        fail_step(r, ST_MALLOC, rc);
        goto out;
    }
    if ((rc = aclrtMemcpy(in_dev, sizeof g_x, g_x, sizeof g_x, ACL_MEMCPY_HOST_TO_DEVICE)) != 0) {
        fail_step(r, ST_MALLOC, rc);
        goto out;
    }
    if (!(din = aclmdlCreateDataset()) || !(dout = aclmdlCreateDataset())) { fail_step(r, ST_DATASET, -1); goto out; }
    if (!(bin = aclCreateDataBuffer(in_dev, sizeof g_x))) { fail_step(r, ST_DATASET, -1); goto out; }
    if ((rc = aclmdlAddDatasetBuffer(din, bin)) != 0) { fail_step(r, ST_DATASET, rc); goto out; }
    if (!(bout = aclCreateDataBuffer(out_dev, sizeof y))) { fail_step(r, ST_DATASET, -1); goto out; }
    if ((rc = aclmdlAddDatasetBuffer(dout, bout)) != 0) { fail_step(r, ST_DATASET, rc); goto out; }

    aclrtMemset(out_dev, sizeof y, 0, sizeof y);
    if ((rc = aclmdlExecute(id, din, dout)) != 0) { fail_step(r, ST_EXEC, rc); goto out; }
    aclrtMemcpy(y, sizeof y, out_dev, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    if (sn_max_err(y, g_ref, SN_OUT_ELEMS) > 1e-4f) { r->wrong_output = 1; fail_step(r, ST_EXEC, -2); goto out; }

    aclrtMemset(out_dev, sizeof y, 0, sizeof y);
    atomic_store(&g_hostfunc_ran, 0);
    if ((rc = aclmdlExecuteAsync(id, din, dout, s)) != 0) { fail_step(r, ST_ASYNC, rc); goto out; }
    if ((rc = aclrtLaunchHostFunc(s, host_fn, NULL)) != 0) { fail_step(r, ST_ASYNC, rc); goto sync_anyway; }
    if ((rc = aclrtSynchronizeStream(s)) != 0) { fail_step(r, ST_SYNC, rc); goto out; }
    aclrtMemcpy(y, sizeof y, out_dev, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    if (sn_max_err(y, g_ref, SN_OUT_ELEMS) > 1e-4f || atomic_load(&g_hostfunc_ran) != 1) {
        r->wrong_output = 1;
        fail_step(r, ST_SYNC, -2);
        goto out;
    }
    goto unload;
sync_anyway:
    aclrtSynchronizeStream(s);
    goto out;
unload:
    loaded = 0;
    if ((rc = aclmdlUnload(id)) != 0) { fail_step(r, ST_UNLOAD, rc); goto out; }
    if (g_om[0]) {
        /* the same network compiled by the library's compiler (src/om reader) */
        if ((rc = aclmdlLoadFromFile(g_om, &id)) != 0) { fail_step(r, ST_OMLOAD, rc); goto out; }
        loaded = 1;
        aclrtMemset(out_dev, sizeof y, 0, sizeof y);
        if ((rc = aclmdlExecute(id, din, dout)) != 0) { fail_step(r, ST_OMEXEC, rc); goto out; }
        aclrtMemcpy(y, sizeof y, out_dev, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
        if (sn_max_err(y, g_ref, SN_OUT_ELEMS) > 1e-4f) { r->wrong_output = 1; fail_step(r, ST_OMEXEC, -2); goto out; }
        loaded = 0;
        if ((rc = aclmdlUnload(id)) != 0) { fail_step(r, ST_UNLOAD, rc); goto out; }
    }
out:
    /* tear down whatever exists, in reverse order */
    if (loaded && s) aclrtSynchronizeStream(s);
    if (loaded) aclmdlUnload(id);
    if (bin) aclDestroyDataBuffer(bin);
    if (bout) aclDestroyDataBuffer(bout);
    if (din) aclmdlDestroyDataset(din);
    if (dout) aclmdlDestroyDataset(dout);
    if (in_dev) aclrtFree(in_dev);
    if (out_dev) aclrtFree(out_dev);
    if (desc) aclmdlDestroyDesc(desc);
    if (s && (rc = aclrtDestroyStream(s)) != 0 && !r->step) fail_step(r, ST_DESTROY, rc);
    if (dev && (rc = aclrtResetDevice(0)) != 0 && !r->step) fail_step(r, ST_RESET, rc);
    if (inited && (rc = aclFinalize()) != 0 && !r->step) fail_step(r, ST_FINALIZE, rc);
    if (!r->step) r->step = ST_DONE;
    aclGetRecentErrMsg();
}

static int leak_check(void)
{
#ifdef FT_LSAN
    return __lsan_do_recoverable_leak_check();
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    int only = -1;
    long shard_k = 0, shard_m = 1, stride = 1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--class") && a + 1 < argc) {
            a++;
            only = !strcmp(argv[a], "alloc") ? FW_ALLOC : !strcmp(argv[a], "io") ? FW_IO
                 : !strcmp(argv[a], "thread") ? FW_THREAD : -1;
        } else if (!strcmp(argv[a], "--shard") && a + 1 < argc) {
            if (sscanf(argv[++a], "%ld/%ld", &shard_k, &shard_m) != 2 || shard_m < 1) return 2;
        } else if (!strcmp(argv[a], "--selftest-leak")) {
            /* proves the leak check works: a block nothing points to */
            void *volatile p = malloc(4096);
            memset(p, 1, 4096);
            p = NULL;
        } else if (!strcmp(argv[a], "--persistent")) {
            fw_set_persistent(1);
        } else if (!strcmp(argv[a], "--stride") && a + 1 < argc) {
            stride = atol(argv[++a]);
            if (stride < 1) stride = 1;
        }
    }
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/oa_fault_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    sn_weights_init(&g_wt, 7);
    for (int i = 0; i < SN_IN_ELEMS; i++) g_x[i] = (float)((i * 37) % 17 - 8) / 8.0f;
    sn_reference(&g_wt, g_x, g_ref);
    if (sn_write_model(g_dir, "net", &g_wt)) { fprintf(stderr, "cannot write the model\n"); return 2; }
    snprintf(g_model, sizeof g_model, "%s/net.onnx", g_dir);
    snprintf(g_cfg, sizeof g_cfg, "%s/acl.json", g_dir);
#ifdef FT_HAVE_COMPILER
    {
        /* compile the network (what tools/atc does) into g_dir/net.om */
        FILE *mf = fopen(g_model, "rb");
        static unsigned char onnx[1 << 16];
        size_t ol = mf ? fread(onnx, 1, sizeof onnx, mf) : 0;
        if (mf) fclose(mf);
        eng_compile_req req;
        memset(&req, 0, sizeof req);
        req.threads = 1;
        req.out_dtype = G_UNDEF;
        req.base_dir = g_dir;
        void *img = NULL;
        size_t il = 0;
        if (ol && eng_compile(onnx, ol, &req, &img, &il) == 0) {
            snprintf(g_om, sizeof g_om, "%s/net.om", g_dir);
            FILE *of = fopen(g_om, "wb");
            if (!of || fwrite(img, 1, il, of) != il) g_om[0] = 0;
            if (of) fclose(of);
            free(img);
        } else {
            fprintf(stderr, "note: compiling the network failed (%s); the compiled-model steps are skipped\n",
                    aclGetRecentErrMsg());
        }
    }
#endif
    FILE *f = fopen(g_cfg, "w");
    if (!f) return 2;
    fputs("{\"openacl\": {\"device_count\": 1, \"threads_per_device\": 2, \"device_memory\": \"256M\"}}\n", f);
    fclose(f);

    /* the clean cycle, counted */
    cycle_result r;
    fw_arm(FW_ALLOC, 0);
    cycle(&r);
    fw_disarm();
    long total[FW_CLASSES];
    for (int c = 0; c < FW_CLASSES; c++) total[c] = fw_count(c);
    if (r.step != ST_DONE) {
        fprintf(stderr, "the clean cycle failed at %s (%d): %s\n", k_step[r.step], r.rc, r.msg);
        return 1;
    }
    printf("clean cycle: %ld allocations, %ld file reads, %ld thread creations\n", total[FW_ALLOC], total[FW_IO],
           total[FW_THREAD]);
    if (leak_check()) { fprintf(stderr, "leak after the clean cycle\n"); g_bad++; }

    long swept = 0, injected = 0, failed_cycles = 0, leak_reported = 0;
    long by_step[ST_DONE + 1] = { 0 };
    for (int c = 0; c < FW_CLASSES; c++) {
        if (only >= 0 && c != only) continue;
        /* thread timing makes counts vary a little: sweep some slack past the end */
        long end = total[c] + total[c] / 20 + 4;
        for (long n = 1; n <= end; n++) {
            if (n % shard_m != shard_k || (n - 1) % stride != 0) continue;
            fw_arm(c, n);
            cycle(&r);
            fw_disarm();
            long inj = fw_injected();
            swept++;
            injected += inj;
            if (r.step != ST_DONE) {
                failed_cycles++;
                by_step[r.step]++;
                if (!inj) {
                    printf("%s fault %ld: not injected, yet %s failed (%d): %s\n", fw_class_name(c), n,
                           k_step[r.step], r.rc, r.msg);
                    g_bad++;
                }
                if (r.wrong_output) {
                    printf("%s fault %ld: %s reported success with wrong results\n", fw_class_name(c), n,
                           k_step[r.step]);
                    g_bad++;
                } else if (r.rc != -1 && (r.rc == 0 || !r.has_msg)) {
                    printf("%s fault %ld: %s failed with code %d and %s\n", fw_class_name(c), n, k_step[r.step],
                           r.rc, r.has_msg ? "a message" : "NO message");
                    g_bad++;
                }
                /* the runtime must still work */
                cycle_result again;
                cycle(&again);
                if (again.step != ST_DONE) {
                    printf("%s fault %ld (in %s): the next clean cycle failed at %s (%d): %s\n", fw_class_name(c),
                           n, k_step[r.step], k_step[again.step], again.rc, again.msg);
                    g_bad++;
                }
            }
            if (!leak_reported && leak_check()) {
                printf("%s fault %ld (failing %s): LeakSanitizer found leaks (reported above)\n", fw_class_name(c),
                       n, k_step[r.step]);
                leak_reported = 1;   /* later checks would repeat the same report */
                g_bad++;
            }
        }
    }
    printf("%ld fault points swept, %ld faults injected, %ld cycles failed cleanly by step:", swept, injected,
           failed_cycles);
    for (int s = 1; s < ST_DONE; s++)
        if (by_step[s]) printf(" %s %ld", k_step[s], by_step[s]);
    printf("\n%d problems\n", g_bad);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", g_dir);
    return g_bad ? 1 : 0;
}
