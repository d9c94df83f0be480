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

static void quotas(void)
{
    /* v2: no limit, then 2 CPUs, then 2.5 (rounded down) */
    put("cpu.max", "max 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/\n"), 0);
    put("cpu.max", "200000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/\n"), 2);
    put("cpu.max", "250000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/\n"), 2);
    /* less than one CPU still gives one thread */
    put("cpu.max", "50000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/\n"), 1);
    wipe();
    /* nested: the tightest of the cgroup and its ancestors */
    put("a/cpu.max", "300000 100000\n");
    put("a/b/cpu.max", "800000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/a/b\n"), 3);
    put("a/b/cpu.max", "100000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/a/b\n"), 1);
    wipe();
    /* a container: /proc/self/cgroup names a host path absent here, the
     * container's own limit sits at the mount's root */
    put("cpu.max", "400000 100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/kubepods/burstable/pod1/c2\n"), 4);
    wipe();
    /* v1 (cpu,cpuacct), -1 for none */
    put("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "4:memory:/x\n3:cpu,cpuacct:/\n"), 0);
    put("cpu,cpuacct/job/cpu.cfs_quota_us", "300000\n");
    put("cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "4:memory:/x\n3:cpu,cpuacct:/job\n"), 3);
    /* a controller list that only resembles cpu */
    CHECK_EQ_INT(rt_cpus_quota(g_root, "3:cpuset:/job\n"), 0);
    wipe();
    /* hybrid: v2 mounted at root/unified */
    put("unified/svc/cpu.max", "600000 200000\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "1:cpu:/\n0::/svc\n"), 3);
    /* malformed or missing files set no quota */
    put("unified/svc/cpu.max", "lots\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/svc\n"), 0);
    put("unified/svc/cpu.max", "100000 0\n");
    CHECK_EQ_INT(rt_cpus_quota(g_root, "0::/svc\n"), 0);
    CHECK_EQ_INT(rt_cpus_quota(g_root, "garbage without colons"), 0);
    CHECK_EQ_INT(rt_cpus_quota(g_root, ""), 0);
    wipe();
}

static void memory(void)
{
    /* v2: none, then 2 GiB; nested: the stricter parent */
    put("memory.max", "max\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "0::/\n"), 0);
    put("memory.max", "2147483648\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "0::/\n"), 2147483648LL);
    wipe();
    put("pod/memory.max", "1073741824\n");
    put("pod/app/memory.max", "4294967296\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "0::/pod/app\n"), 1073741824LL);
    wipe();
    /* v1: the "unlimited" value (near 2^63) is none; a real one counts */
    put("memory/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "5:memory:/\n3:cpu,cpuacct:/\n"), 0);
    put("memory/job/memory.limit_in_bytes", "536870912\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "5:memory:/job\n"), 536870912LL);
    /* the cpu controller's files are not memory limits, and garbage is none */
    CHECK_EQ_INT(rt_memory_limit(g_root, "3:cpu,cpuacct:/job\n"), 0);
    put("memory/job/memory.limit_in_bytes", "lots\n");
    CHECK_EQ_INT(rt_memory_limit(g_root, "5:memory:/job\n"), 0);
    wipe();
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
    quotas();
    memory();
    mask();
    rmdir(g_root);
    if (g_failures) fprintf(stderr, "%d failure(s)\n", g_failures);
    else printf("rt_limits: ok\n");
    return g_failures ? 1 : 0;
}
