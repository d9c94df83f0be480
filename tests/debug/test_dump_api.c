/* The dump configuration of aclInit and aclmdlSetDump: what is refused and
 * how (unknown keys, unwritable or escaping dump paths), the CANN call
 * order, and a dump that cannot be written (file size limit standing in
 * for a full disk): the run still returns its result, the failure is in
 * aclGetRecentErrMsg. Run: test_dump_api <models dir> <scratch dir> */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mdl/mdl_test.h"

static const char *g_scratch;
static char g_model[4096];

static const char *cfg_file(const char *name, const char *json)
{
    static char ring[4][4096];
    static int k;
    char *p = ring[k++ & 3];
    snprintf(p, sizeof ring[0], "%s/%s", g_scratch, name);
    FILE *f = fopen(p, "w");
    if (!f) { perror(p); exit(2); }
    fputs(json, f);
    fclose(f);
    return p;
}

/* aclInit must refuse the file with `code` and a message holding `needle`. */
static void refused(const char *name, const char *json, int code, const char *needle)
{
    const char *p = cfg_file(name, json);
    CHECK_ERR(aclInit(p), code, needle);
    if (aclFinalize() == ACL_SUCCESS) { fprintf(stderr, "%s: aclInit accepted it\n", name); g_failures++; }
}

/* Runs the model once; output into out[10]; returns the aclError. */
static int run_once(uint32_t id, float out[10])
{
    size_t in_len = 0;
    void *in = dev_from_file("small", "in", 0, &in_len), *o = dev_alloc(10 * sizeof(float));
    aclmdlDataset *di = aclmdlCreateDataset(), *dout = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(in, in_len), *bo = aclCreateDataBuffer(o, 10 * sizeof(float));
    aclmdlAddDatasetBuffer(di, bi);
    aclmdlAddDatasetBuffer(dout, bo);
    int rc = aclmdlExecute(id, di, dout);
    aclDestroyDataBuffer(bi); aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(di); aclmdlDestroyDataset(dout);
    if (!rc) rc = aclrtMemcpy(out, 10 * sizeof(float), o, 10 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtFree(in);
    aclrtFree(o);
    return rc;
}

static void fresh_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0 || mkdir(dir, 0755)) { perror(dir); exit(2); }
}

static int count_files(const char *dir)
{
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.npy' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) { if (fscanf(p, "%d", &n) != 1) n = -1; pclose(p); }
    return n;
}

static void bad_sections(void)
{
    char json[12000], link[4096];
    refused("unknown.json", "{\"dump\":{\"dump_path\":\".\",\"dump_mod\":\"all\"}}", ACL_ERROR_INVALID_DUMP_CONFIG,
            "unknown key dump.dump_mod");
    refused("mode.json", "{\"dump\":{\"dump_path\":\".\",\"dump_mode\":\"both\"}}", ACL_ERROR_INVALID_DUMP_CONFIG,
            "dump.dump_mode must be");
    refused("nopath.json", "{\"dump\":{\"dump_mode\":\"all\",\"dump_list\":[{\"model_name\":\"m\"}]}}",
            ACL_ERROR_INVALID_DUMP_CONFIG, "no dump_path");
    refused("list.json", "{\"dump\":{\"dump_path\":\".\",\"dump_list\":[{\"model\":\"x\"}]}}",
            ACL_ERROR_INVALID_DUMP_CONFIG, "unknown key \"model\"");
    refused("twice.json", "{\"dump\":{\"dump_path\":\".\",\"dump_list\":[{\"model_name\":\"a\"}],"
            "\"dump_list\":[{\"model_name\":\"b\",\"model_name\":\"c\"}]}}", ACL_ERROR_INVALID_DUMP_CONFIG,
            "dump_list is given twice");
    refused("name_twice.json", "{\"dump\":{\"dump_path\":\".\",\"dump_list\":[{\"model_name\":\"b\","
            "\"model_name\":\"c\"}]}}", ACL_ERROR_INVALID_DUMP_CONFIG, "model_name is given twice");
    refused("missing.json", "{\"dump\":{\"dump_path\":\"/nonexistent/dump\"}}", ACL_ERROR_INVALID_DUMP_CONFIG,
            "the folder must exist");
    /* a file is not a writable folder */
    snprintf(json, sizeof json, "{\"dump\":{\"dump_path\":\"%s/unknown.json/x\"}}", g_scratch);
    refused("file.json", json, ACL_ERROR_INVALID_DUMP_CONFIG, "dump.dump_path");
    /* escapes from a dump root: "..", and a symlink pointing outside */
    char root[4096];
    snprintf(root, sizeof root, "%s/root", g_scratch);
    mkdir(root, 0755);
    snprintf(json, sizeof json, "{\"openacl\":{\"dump_root\":\"%s\"},\"dump\":{\"dump_path\":\"%s/../\"}}", root,
             root);
    refused("dotdot.json", json, ACL_ERROR_INVALID_DUMP_CONFIG, "\"..\" component");
    snprintf(link, sizeof link, "%s/out", root);
    unlink(link);
    CHECK(symlink("/tmp", link) == 0);
    snprintf(json, sizeof json, "{\"openacl\":{\"dump_root\":\"%s\"},\"dump\":{\"dump_path\":\"%s\"}}", root, link);
    refused("symlink.json", json, ACL_ERROR_INVALID_DUMP_CONFIG, "outside the dump root");
    refused("prof.json", "{\"profiler\":{\"switch\":\"on\",\"outptu\":\".\"}}", ACL_ERROR_INVALID_PROFILING_CONFIG,
            "unknown key profiler.outptu");
    /* inside the root is fine */
    snprintf(json, sizeof json, "{\"openacl\":{\"dump_root\":\"%s\"},\"dump\":{\"dump_path\":\"%s\"}}", root, root);
    CHECK_OK(aclInit(cfg_file("inside.json", json)));
    CHECK_OK(aclFinalize());
}

/* aclmdlInitDump / SetDump / FinalizeDump in CANN's order, then a dump that
 * cannot be written. */
static void api_flow(void)
{
    char dir[4096], json[8400];
    snprintf(dir, sizeof dir, "%s/api_dump", g_scratch);
    fresh_dir(dir);
    snprintf(json, sizeof json, "{\"dump\":{\"dump_path\":\"%s\",\"dump_list\":[{\"model_name\":\"small\"}]}}", dir);
    const char *cfg = cfg_file("api.json", json);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_ERR(aclmdlSetDump(cfg), ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump first");
    CHECK_OK(aclmdlInitDump());
    CHECK_ERR(aclmdlInitDump(), ACL_ERROR_DUMP_ALREADY_RUN, "already");
    CHECK_ERR(aclmdlSetDump(NULL), ACL_ERROR_INVALID_PARAM, "dumpCfgPath is NULL");
    CHECK_ERR(aclmdlSetDump(cfg_file("nodump.json", "{}")), ACL_ERROR_INVALID_DUMP_CONFIG, "no \"dump\" section");
    CHECK_OK(aclmdlSetDump(cfg));
    uint32_t id = 0;
    float ref[10], out[10];
    CHECK_OK(aclmdlLoadFromFile(g_model, &id));
    CHECK_OK(run_once(id, ref));
    int n1 = count_files(dir);
    CHECK(n1 == 5);   /* one output per node: conv1, conv2, conv3 (fused), flat, fc */
    CHECK_OK(run_once(id, out));
    CHECK(count_files(dir) == 2 * n1);

    /* the disk fills up: a file size limit makes every write fail */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim = {0, 0};
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    memset(out, 0, sizeof out);
    (void)aclGetRecentErrMsg();
    CHECK_OK(run_once(id, out));
    const char *m = aclGetRecentErrMsg();
    CHECK(m && strstr(m, "model dump") && strstr(m, "inference results are not affected"));
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(memcmp(out, ref, sizeof out) == 0);
    /* the dump stopped for this model; runs go on */
    CHECK_OK(run_once(id, out));
    CHECK(memcmp(out, ref, sizeof out) == 0);
    CHECK_OK(aclmdlUnload(id));

    CHECK_OK(aclmdlFinalizeDump());
    CHECK_ERR(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN, "not called");
    /* after FinalizeDump a new load dumps nothing */
    int before = count_files(dir);
    CHECK_OK(aclmdlLoadFromFile(g_model, &id));
    CHECK_OK(run_once(id, out));
    CHECK(count_files(dir) == before);
    CHECK_OK(aclmdlUnload(id));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

/* dump_list selects by model name; layer narrows to some nodes (ONNX names
 * of fused nodes included); dump_mode input writes inputs only. */
static void selection(void)
{
    char dir[4096], json[8400];
    snprintf(dir, sizeof dir, "%s/sel_dump", g_scratch);
    fresh_dir(dir);
    snprintf(json, sizeof json, "{\"dump\":{\"dump_path\":\"%s\",\"dump_mode\":\"input\",\"dump_list\":"
             "[{\"model_name\":\"other\"},{\"model_name\":\"small\",\"layer\":[\"relu2\",\"fc\"]}]}}", dir);
    CHECK_OK(aclInit(cfg_file("sel.json", json)));
    CHECK_OK(aclrtSetDevice(0));
    uint32_t id = 0;
    float out[10];
    CHECK_OK(aclmdlLoadFromFile(g_model, &id));
    CHECK_OK(run_once(id, out));
    CHECK(count_files(dir) == 3);   /* conv2 (covers relu2): its input and residual; fc: its input */
    CHECK_OK(aclmdlUnload(id));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: %s <models dir> <scratch dir>\n", argv[0]); return 2; }
    g_dir = argv[1];
    g_scratch = argv[2];
    snprintf(g_model, sizeof g_model, "%s/small.onnx", g_dir);
    bad_sections();
    api_flow();
    selection();
    printf("dump_api: %s\n", g_failures ? "FAILED" : "ok");
    return g_failures ? 1 : 0;
}
