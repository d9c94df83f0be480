/* Default budgets from what the process may use (src/rt/rt_limits.c): the
 * thread budget is the affinity mask's CPU count capped by the cgroup CPU
 * quota, the device memory budget 8 GiB capped by the physical memory and
 * the cgroup memory limit. Quotas and limits are read from fake cgroup trees
 * (v2, v1, hybrid, nested, a container's namespaced view, malformed files);
 * the mask from this process's own affinity, narrowed to one CPU; aclInit's
 * defaults (AI_CORE_NUM, aclrtGetMemInfo's total) must follow them while
 * OPENACL_THREADS and OPENACL_DEVICE_MEMORY still override them. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt/rt_internal.h"
#include "rt/rt_priv.h"
#include "rt_test.h"

static char g_root[256];

static void put(const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    /* make the parent folders */
    for (char *p = strchr(path + strlen(g_root) + 1, '/'); p; p = strchr(p + 1, '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
        if (mkdir(dir, 0755) && errno != EEXIST) { perror(dir); g_failures++; }
    }
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); g_failures++; return; }
    fputs(text, f);
    fclose(f);
}

static void wipe(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", g_root);
    if (system(cmd) != 0) g_failures++;
}

/* A fake cgroup tree (up to three files under g_root), the text of
 * /proc/self/cgroup, and the CPU quota (cpu) or memory limit it must give. */
typedef struct limit_case {
    const char *what;
    int cpu;
    const char *file[3][2];
    const char *self;
    long long want;
} limit_case;

static const limit_case k_cases[] = {
    { "v2 without a quota", 1, { { "cpu.max", "max 100000" } }, "0::/", 0 },
    { "v2 2 CPUs", 1, { { "cpu.max", "200000 100000" } }, "0::/", 2 },
    { "v2 2.5 CPUs, rounded down", 1, { { "cpu.max", "250000 100000" } }, "0::/", 2 },
    { "v2 half a CPU, still one thread", 1, { { "cpu.max", "50000 100000" } }, "0::/", 1 },
    { "nested: the cgroup's own is tighter", 1,
      { { "a/cpu.max", "300000 100000" }, { "a/b/cpu.max", "800000 100000" } }, "0::/a/b", 3 },
    { "nested: the parent is tighter", 1, { { "a/cpu.max", "300000 100000" }, { "a/b/cpu.max", "100000 100000" } },
      "0::/a/b", 1 },
    { "a container: the host path is absent, the mount's root counts", 1, { { "cpu.max", "400000 100000" } },
      "0::/kubepods/burstable/pod1/c2", 4 },
    { "v1 -1: none", 1, { { "cpu,cpuacct/cpu.cfs_quota_us", "-1" }, { "cpu,cpuacct/cpu.cfs_period_us", "100000" } },
      "4:memory:/x\n3:cpu,cpuacct:/", 0 },
    { "v1 3 CPUs", 1,
      { { "cpu,cpuacct/job/cpu.cfs_quota_us", "300000" }, { "cpu,cpuacct/job/cpu.cfs_period_us", "100000" } },
      "4:memory:/x\n3:cpu,cpuacct:/job", 3 },
    { "v1 cpuset only resembles cpu", 1,
      { { "cpu,cpuacct/job/cpu.cfs_quota_us", "300000" }, { "cpu,cpuacct/job/cpu.cfs_period_us", "100000" } },
      "3:cpuset:/job", 0 },
    { "hybrid: v2 at unified/", 1, { { "unified/svc/cpu.max", "600000 200000" } }, "1:cpu:/\n0::/svc", 3 },
    { "malformed cpu.max", 1, { { "unified/svc/cpu.max", "lots" } }, "0::/svc", 0 },
    { "a zero period", 1, { { "unified/svc/cpu.max", "100000 0" } }, "0::/svc", 0 },
    { "/proc/self/cgroup garbage", 1, { { 0 } }, "garbage without colons", 0 },
    { "/proc/self/cgroup empty", 1, { { 0 } }, "", 0 },
    { "v2 memory: none", 0, { { "memory.max", "max" } }, "0::/", 0 },
    { "v2 memory 2 GiB", 0, { { "memory.max", "2147483648" } }, "0::/", 2147483648LL },
    { "v2 memory: the parent is tighter", 0,
      { { "pod/memory.max", "1073741824" }, { "pod/app/memory.max", "4294967296" } }, "0::/pod/app", 1073741824LL },
    { "v1 memory unlimited (near 2^63)", 0, { { "memory/memory.limit_in_bytes", "9223372036854771712" } },
      "5:memory:/\n3:cpu,cpuacct:/", 0 },
    { "v1 memory 512 MiB", 0, { { "memory/job/memory.limit_in_bytes", "536870912" } }, "5:memory:/job", 536870912LL },
    { "the cpu controller's files are no memory limit", 0, { { "memory/job/memory.limit_in_bytes", "536870912" } },
      "3:cpu,cpuacct:/job", 0 },
    { "malformed memory limit", 0, { { "memory/job/memory.limit_in_bytes", "lots" } }, "5:memory:/job", 0 },
};

static void limits(void)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        const limit_case *c = &k_cases[i];
        for (int f = 0; f < 3 && c->file[f][0]; f++) put(c->file[f][0], c->file[f][1]);
        long long got = c->cpu ? rt_cpus_quota(g_root, c->self) : rt_memory_limit(g_root, c->self);
        if (got != c->want) {
            fprintf(stderr, "%s: got %lld, expected %lld\n", c->what, got, c->want);
            g_failures++;
        }
        wipe();
    }
}

static void memory(void)
{
    /* the default: 8 GiB at most, never past the physical memory */
    long long phys = 0, lim = 0;
    size_t d = rt_memory_default((size_t)8 << 30, &phys, &lim);
    CHECK(d <= (size_t)8 << 30 && d >= 4096);
    CHECK(phys <= 0 || d <= (size_t)phys);
    CHECK(lim <= 0 || d <= (size_t)lim);
    CHECK_EQ_INT(rt_memory_default(4096, &phys, &lim), 4096);
    unsetenv("OPENACL_DEVICE_MEMORY");
    OK(aclInit(NULL));
    size_t free_ = 0, total = 0;
    OK(aclrtSetDevice(0));
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_, &total));
    CHECK_EQ_INT(total, d);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    setenv("OPENACL_DEVICE_MEMORY", "1G", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_, &total));
    CHECK_EQ_INT(total, 1 << 30);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    unsetenv("OPENACL_DEVICE_MEMORY");
}

static void mask(void)
{
    long online, m, q;
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all)) { g_failures++; return; }
    int n = rt_cpus_default(&online, &m, &q);
    CHECK_EQ_INT(m, CPU_COUNT(&all));
    CHECK(n >= 1 && n <= m);
    CHECK(q == 0 || n <= q);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) { CPU_SET(c, &one); break; }
    if (sched_setaffinity(0, sizeof one, &one)) { g_failures++; return; }
    CHECK_EQ_INT(rt_cpus_default(&online, &m, &q), 1);
    /* aclInit's default follows the mask; OPENACL_THREADS overrides it */
    unsetenv("OPENACL_THREADS");
    OK(aclInit(NULL));
    int64_t v = 0;
    OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
    CHECK_EQ_INT(v, 1);
    OK(aclFinalize());
    setenv("OPENACL_THREADS", "3", 1);
    OK(aclInit(NULL));
    OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
    CHECK_EQ_INT(v, 3);
    OK(aclFinalize());
    unsetenv("OPENACL_THREADS");
    sched_setaffinity(0, sizeof all, &all);
}

int main(void)
{
    snprintf(g_root, sizeof g_root, "/tmp/oa_cpus_XXXXXX");
    if (!mkdtemp(g_root)) { perror(g_root); return 1; }
    limits();
    memory();
    mask();
    rmdir(g_root);
    if (g_failures) fprintf(stderr, "%d failure(s)\n", g_failures);
    else printf("rt_limits: ok\n");
    return g_failures ? 1 : 0;
}
