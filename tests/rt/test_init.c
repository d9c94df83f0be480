/* aclInit / aclFinalize / aclFinalizeReference, the configuration file and
 * environment, calls before init, versions, and finalize hooks. */
#include <stdlib.h>
#include <unistd.h>

#include "rt/rt_internal.h"
#include "rt_test.h"

static char g_dir[] = "/tmp/oa_rt_initXXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static int g_hook_calls;
static int g_hook_saw_init;
static void hook(void)
{
    g_hook_calls++;
    g_hook_saw_init = rt_initialized();
}

static void test_before_init(void)
{
    uint32_t n;
    int32_t d;
    void *p;
    aclrtStream s;
    aclrtEvent e;
    aclrtContext c;
    FAILS(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE, "aclrtSetDevice");
    FAILS(aclrtGetDeviceCount(&n), ACL_ERROR_UNINITIALIZE, "aclrtGetDeviceCount");
    FAILS(aclrtGetDevice(&d), ACL_ERROR_UNINITIALIZE, "aclrtGetDevice");
    FAILS(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE, "aclrtMalloc");
    FAILS(aclrtMallocHost(&p, 64), ACL_ERROR_UNINITIALIZE, "aclrtMallocHost");
    FAILS(aclrtFree((void *)&n), ACL_ERROR_UNINITIALIZE, "aclrtFree");
    FAILS(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE, "aclrtCreateStream");
    FAILS(aclrtCreateEvent(&e), ACL_ERROR_UNINITIALIZE, "aclrtCreateEvent");
    FAILS(aclrtCreateContext(&c, 0), ACL_ERROR_UNINITIALIZE, "aclrtCreateContext");
    FAILS(aclrtSynchronizeDevice(), ACL_ERROR_UNINITIALIZE, "aclrtSynchronizeDevice");
    FAILS(aclrtProcessReport(10), ACL_ERROR_UNINITIALIZE, "aclrtProcessReport");
    FAILS(aclrtMemcpy(&n, 4, &d, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_UNINITIALIZE, "aclrtMemcpy");
    FAILS(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize");
    uint64_t rc = 7;
    FAILS(aclFinalizeReference(&rc), ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference");
    CHECK_EQ_INT(rc, 0);
    CHECK(!rt_initialized());
    CHECK(rt_dev_alloc(0, 64, RT_MEM_WORK) == NULL);
    MSG_NAMES("rt_dev_alloc");
}

static void test_versions(void)
{
    int32_t a, b, c;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    OK(aclrtGetVersion(&a, &b, &c));
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(b, 17);
    CHECK_EQ_INT(c, 0);
    FAILS(aclrtGetVersion(NULL, &b, &c), ACL_ERROR_INVALID_PARAM, "aclrtGetVersion");
    aclCANNPackageVersion v;
    OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
    CHECK(v.version[0] != '\0');
    FAILS(aclsysGetCANNVersion((aclCANNPackageName)99, &v), ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion");
#pragma GCC diagnostic pop
    char buf[ACL_PKG_VERSION_MAX_SIZE];
    OK(aclsysGetVersionStr((char *)"runtime", buf));
    CHECK(strchr(buf, '.') != NULL);
    int32_t num = 0;
    OK(aclsysGetVersionNum((char *)"runtime", &num));
    CHECK(num > 0);
    FAILS(aclsysGetVersionStr((char *)"nosuchpkg", buf), ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr");
    FAILS(aclsysGetVersionNum((char *)"runtime", NULL), ACL_ERROR_INVALID_PARAM, "aclsysGetVersionNum");
    CHECK(strcmp(aclrtGetSocName(), "OpenACL-CPU") == 0);
}

static void test_config_errors(void)
{
    FAILS(aclInit("/nonexistent/openacl.json"), ACL_ERROR_INVALID_FILE, "aclInit");
    FAILS(aclInit(g_dir), ACL_ERROR_INVALID_FILE, "aclInit"); /* a directory */
    FAILS(aclInit(write_file("bad.json", "{\"openacl\": {")), ACL_ERROR_PARSE_FILE, "aclInit");
    FAILS(aclInit(write_file("arr.json", "[1,2]")), ACL_ERROR_PARSE_FILE, "aclInit");
    /* depth 11 */
    FAILS(aclInit(write_file("deep.json", "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{}}}}}}}}}}}")),
          ACL_ERROR_PARSE_FILE, "nesting");
    FAILS(aclInit(write_file("cnt.json", "{\"openacl\":{\"device_count\":0}}")), ACL_ERROR_FILE_ATTR_INVALID,
          "device_count");
    FAILS(aclInit(write_file("cnt2.json", "{\"openacl\":{\"device_count\":1.5}}")), ACL_ERROR_FILE_ATTR_INVALID,
          "device_count");
    FAILS(aclInit(write_file("mem.json", "{\"openacl\":{\"device_memory\":\"lots\"}}")), ACL_ERROR_FILE_ATTR_INVALID,
          "device_memory");
    FAILS(aclInit(write_file("thr.json", "{\"openacl\":{\"threads_per_device\":-1}}")), ACL_ERROR_FILE_ATTR_INVALID,
          "threads_per_device");
    FAILS(aclInit(write_file("lvl.json", "{\"openacl\":{\"log_level\":\"loud\"}}")), ACL_ERROR_FILE_ATTR_INVALID,
          "log_level");
    FAILS(aclInit(write_file("oa.json", "{\"openacl\":3}")), ACL_ERROR_FILE_ATTR_INVALID, "openacl");
    CHECK(!rt_initialized());
    /* depth exactly 10 is fine */
    OK(aclInit(write_file("d10.json", "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{}}}}}}}}}}")));
    OK(aclFinalize());
    setenv("OPENACL_DEVICE_COUNT", "zero", 1);
    FAILS(aclInit(NULL), ACL_ERROR_INVALID_PARAM, "OPENACL_DEVICE_COUNT");
    unsetenv("OPENACL_DEVICE_COUNT");
    setenv("OPENACL_DEVICE_MEMORY", "12Q", 1);
    FAILS(aclInit(NULL), ACL_ERROR_INVALID_PARAM, "OPENACL_DEVICE_MEMORY");
    unsetenv("OPENACL_DEVICE_MEMORY");
}

static void test_config_values(void)
{
    /* empty file, "{}", CANN keys ignored; a dump section with an empty
     * dump_list dumps nothing and needs no dump_path (as in CANN) */
    OK(aclInit(write_file("empty.json", "")));
    OK(aclFinalize());
    /* an empty path is "no configuration", as CANN's samples use it */
    OK(aclInit(""));
    uint32_t n0 = 0;
    OK(aclrtGetDeviceCount(&n0));
    CHECK_EQ_INT(n0, 2);
    OK(aclFinalize());
    OK(aclInit(write_file("cann.json", "{\"dump\":{\"dump_list\":[]},\"err_msg_mode\":\"1\"}")));
    uint32_t n = 0;
    OK(aclrtGetDeviceCount(&n));
    CHECK_EQ_INT(n, 2); /* default */
    CHECK_EQ_INT(rt_device_count(), 2);
    OK(aclFinalize());

    OK(aclInit(write_file("cfg.json", "{\"openacl\":{\"device_count\":3,\"device_memory\":\"1M\","
                                      "\"threads_per_device\":5,\"log_level\":\"error\",\"spin_us\":0}}")));
    OK(aclrtGetDeviceCount(&n));
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(rt_device_threads(0), 5);
    CHECK_EQ_INT(rt_device_threads(7), 1);
    OK(aclrtSetDevice(2));
    size_t fr = 0, tot = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    CHECK_EQ_INT(tot, 1 << 20);
    CHECK_EQ_INT(fr, 1 << 20);
    int64_t cores = 0;
    OK(aclGetDeviceCapability(1, ACL_DEVICE_INFO_AI_CORE_NUM, &cores));
    CHECK_EQ_INT(cores, 5);
    FAILS(aclGetDeviceCapability(3, ACL_DEVICE_INFO_AI_CORE_NUM, &cores), ACL_ERROR_RT_INVALID_DEVICEID,
          "aclGetDeviceCapability");
    OK(aclFinalize());

    /* environment beats the file */
    setenv("OPENACL_DEVICE_COUNT", "4", 1);
    setenv("OPENACL_DEVICE_MEMORY", "2M", 1);
    setenv("OPENACL_THREADS", "3", 1);
    OK(aclInit(write_file("cfg2.json", "{\"openacl\":{\"device_count\":1}}")));
    OK(aclrtGetDeviceCount(&n));
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(rt_device_threads(3), 3);
    OK(aclrtSetDevice(3));
    OK(aclrtGetMemInfo(ACL_DDR_MEM, &fr, &tot));
    CHECK_EQ_INT(tot, 2 << 20);
    OK(aclFinalize());
    unsetenv("OPENACL_DEVICE_COUNT");
    unsetenv("OPENACL_DEVICE_MEMORY");
    unsetenv("OPENACL_THREADS");
}

static void test_refcount(void)
{
    OK(aclInit(NULL));
    CHECK(rt_initialized());
    /* repeated init: counted, reported, first config stays */
    FAILS(aclInit(write_file("cnt5.json", "{\"openacl\":{\"device_count\":5}}")), ACL_ERROR_REPEAT_INITIALIZE,
          "aclInit");
    FAILS(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE, "aclInit");
    uint32_t n = 0;
    OK(aclrtGetDeviceCount(&n));
    CHECK_EQ_INT(n, 2);
    uint64_t left = 99;
    OK(aclFinalizeReference(&left));
    CHECK_EQ_INT(left, 2);
    CHECK(rt_initialized());
    OK(aclFinalizeReference(NULL));
    g_hook_calls = 0;
    rt_on_finalize(hook);
    rt_on_finalize(hook); /* same hook twice: once */
    OK(aclFinalizeReference(&left));
    CHECK_EQ_INT(left, 0);
    CHECK(!rt_initialized());
    CHECK_EQ_INT(g_hook_calls, 1);
    CHECK_EQ_INT(g_hook_saw_init, 1);
    FAILS(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference");

    /* aclFinalize drops every reference at once, and hooks stay registered */
    OK(aclInit(NULL));
    FAILS(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE, "aclInit");
    OK(aclrtSetDevice(0));
    void *p = NULL;
    OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclFinalize());
    CHECK_EQ_INT(g_hook_calls, 2);
    FAILS(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize");
    /* re-init: everything from before is gone, handles included */
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    FAILS(aclrtFree(p), ACL_ERROR_INVALID_PARAM, "aclrtFree");
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream");
    size_t fr, tot;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot));
    CHECK_EQ_INT(fr, tot);
    OK(aclFinalize());
}

int main(void)
{
    if (!mkdtemp(g_dir)) return 2;
    test_before_init();
    test_versions();
    test_config_errors();
    test_config_values();
    test_refcount();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", g_dir);
    TEST_DONE();
}
