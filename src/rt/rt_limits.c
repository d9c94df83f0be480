/* Default budgets from what this process may actually use: its CPUs (the
 * thread budget) and its memory (the device memory budget).
 *
 * The number of online CPUs and the physical memory are the machine's, not
 * the process's. A process started with `taskset` or in a container with a
 * CPU set sees only some CPUs (its affinity mask), and one in a container
 * with a CPU limit (Docker --cpus, a Kubernetes `limits.cpu`, any cgroup
 * `cpu.max`) gets a quota of CPU time per period: on a 64-CPU node a pod
 * limited to 4 CPUs that runs 64 compute threads spends most of each period
 * throttled. So the thread budget is the smaller of the affinity mask's CPU
 * count and the quota in whole CPUs (at least one), rounded down since a
 * thread over the quota is throttled for the rest of the period, which costs
 * latency more than an idle fraction of a CPU does. Likewise a container
 * with a memory limit (`limits.memory`, `docker -m`) is killed by the kernel
 * when it goes over it, so the default device memory budget is no more than
 * that limit (or the physical memory): an allocation past it then fails with
 * ACL_ERROR_RT_MEMORY_ALLOCATION instead. threads_per_device,
 * device_memory and their environment variables still override both. The
 * limits are the tightest ones of the process's cgroup and its ancestors,
 * cgroup v2 (`cpu.max`, `memory.max`) or v1 (`cpu.cfs_quota_us` over
 * `cpu.cfs_period_us`, `memory.limit_in_bytes`). */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt_internal.h"
#include "rt/rt_priv.h"

#define LIMIT_NONE (1LL << 60)   /* v1 writes ~2^63 for "no limit" */

/* Up to n - 1 bytes of a small file, NUL-terminated; 0 when unreadable. */
static int read_small(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    size_t k = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[k] = 0;
    return k > 0;
}

/* The CPU quota of one cgroup directory in whole CPUs (at least 1), 0 when
 * it sets none or its files are unreadable or malformed. */
static long long dir_cpus(const char *dir, int v2)
{
    char path[4200], a[128], b[64];
    long long q = 0, p = 0;
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        if (!read_small(path, a, sizeof a) || sscanf(a, "%lld %lld", &q, &p) != 2) return 0;
    } else {
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        if (!read_small(path, a, sizeof a) || sscanf(a, "%lld", &q) != 1) return 0;
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (!read_small(path, b, sizeof b) || sscanf(b, "%lld", &p) != 1) return 0;
    }
    if (q <= 0 || p <= 0) return 0;   /* "max" (no number) or -1: no quota */
    long long c = q / p;
    return c < 1 ? 1 : c > 1 << 20 ? 1 << 20 : c;
}

/* The memory limit of one cgroup directory in bytes, 0 when none. */
static long long dir_memory(const char *dir, int v2)
{
    char path[4200], a[64];
    long long m = 0;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
    if (!read_small(path, a, sizeof a) || sscanf(a, "%lld", &m) != 1) return 0;   /* "max": none */
    return m > 0 && m < LIMIT_NONE ? m : 0;
}

typedef long long (*dir_reader)(const char *dir, int v2);

/* The tightest limit of base/path and its ancestors up to base itself (a
 * container whose cgroup is mounted at base sees a host path in
 * /proc/self/cgroup that does not exist there: base's own files count). */
static long long chain_min(const char *base, const char *path, int v2, dir_reader rd)
{
    char dir[4200];
    long long best = 0;
    snprintf(dir, sizeof dir, "%s%s", base, path);
    size_t keep = strlen(base);
    for (;;) {
        size_t n = strlen(dir);
        while (n > keep && dir[n - 1] == '/') dir[--n] = 0;
        long long q = rd(dir, v2);
        if (q > 0 && (best == 0 || q < best)) best = q;
        if (n <= keep) break;
        char *slash = strrchr(dir + keep, '/');
        if (!slash) dir[keep] = 0;
        else *slash = 0;
    }
    return best;
}

/* Whether a v1 controller list ("cpu,cpuacct") names controller ctl. */
static int names_ctl(const char *list, size_t n, const char *ctl)
{
    size_t k = strlen(ctl);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && list[j] != ',') j++;
        if (j - i == k && !strncmp(list + i, ctl, k)) return 1;
        i = j + 1;
    }
    return 0;
}

static long long keep_min(long long a, long long b) { return b > 0 && (a == 0 || b < a) ? b : a; }

/* The tightest limit that rd reads, over the cgroups self (the text of
 * /proc/self/cgroup) names under root: v2 at root (or root/unified on a
 * hybrid host), v1 under root/<controllers> or root/<ctl>. 0: none. */
static long long cgroup_min(const char *root, const char *self, const char *ctl, dir_reader rd)
{
    long long best = 0;
    char base[4200], path[4096];
    for (const char *line = self; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', len), *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        size_t plen = c2 ? len - (size_t)(c2 + 1 - line) : 0;
        if (c2 && plen < sizeof path) {
            memcpy(path, c2 + 1, plen);
            path[plen] = 0;
            const char *ctls = c1 + 1;
            size_t nctl = (size_t)(c2 - ctls);
            if (nctl == 0) {
                best = keep_min(best, chain_min(root, path, 1, rd));
                snprintf(base, sizeof base, "%s/unified", root);
                best = keep_min(best, chain_min(base, path, 1, rd));
            } else if (names_ctl(ctls, nctl, ctl)) {
                snprintf(base, sizeof base, "%s/%.*s", root, (int)nctl, ctls);
                best = keep_min(best, chain_min(base, path, 0, rd));
                snprintf(base, sizeof base, "%s/%s", root, ctl);
                best = keep_min(best, chain_min(base, path, 0, rd));
            }
        }
        line = end ? end + 1 : NULL;
    }
    return best;
}

long rt_cpus_quota(const char *root, const char *self) { return (long)cgroup_min(root, self, "cpu", dir_cpus); }

long long rt_memory_limit(const char *root, const char *self) { return cgroup_min(root, self, "memory", dir_memory); }

int rt_cpus_default(long *online, long *mask, long *quota)
{
    cpu_set_t set;
    char self[8192];
    *online = sysconf(_SC_NPROCESSORS_ONLN);
    *mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    *quota = read_small("/proc/self/cgroup", self, sizeof self) ? rt_cpus_quota("/sys/fs/cgroup", self) : 0;
    long n = *mask > 0 ? *mask : *online;
    if (*quota > 0 && *quota < n) n = *quota;
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

size_t rt_memory_default(size_t cap, long long *physical, long long *limit)
{
    char self[8192];
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    *physical = pages > 0 && psz > 0 ? (long long)pages * psz : 0;
    *limit = read_small("/proc/self/cgroup", self, sizeof self) ? rt_memory_limit("/sys/fs/cgroup", self) : 0;
    long long m = (long long)cap;
    if (*physical > 0 && *physical < m) m = *physical;
    if (*limit > 0 && *limit < m) m = *limit;
    return m < 4096 ? 4096 : (size_t)m;
}
