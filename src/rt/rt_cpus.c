/* The default thread budget: the CPUs this process may actually use.
 *
 * The number of online CPUs is the machine's, not the process's. A process
 * started with `taskset` or in a container with a CPU set sees only some of
 * them (its affinity mask), and one in a container with a CPU limit (Docker
 * --cpus, a Kubernetes `limits.cpu`, any cgroup `cpu.max`) gets a quota of
 * CPU time per period: on a 64-CPU node a pod limited to 4 CPUs that runs
 * 64 compute threads spends most of each period throttled. So the default
 * is the smaller of the affinity mask's CPU count and the quota in whole
 * CPUs (at least one), and threads_per_device / OPENACL_THREADS still
 * override it. The quota is the tightest one of the process's cgroup and
 * its ancestors, cgroup v2 (`cpu.max`) or v1 (`cpu.cfs_quota_us` over
 * `cpu.cfs_period_us`); rounded down, since a thread over the quota is
 * throttled for the rest of the period, which costs latency more than an
 * idle fraction of a CPU does. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt_internal.h"
#include "rt/rt_priv.h"

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

/* The quota of one cgroup directory in whole CPUs (at least 1), 0 when it
 * sets none or its files are unreadable or malformed. */
static long dir_quota(const char *dir, int v2)
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
    return c < 1 ? 1 : c > 1 << 20 ? 1 << 20 : (long)c;
}

/* The tightest quota of base/path and its ancestors up to base itself (a
 * container whose cgroup is mounted at base sees a host path in
 * /proc/self/cgroup that does not exist there: base's own files count). */
static long chain_quota(const char *base, const char *path, int v2)
{
    char dir[4200];
    long best = 0;
    snprintf(dir, sizeof dir, "%s%s", base, path);
    size_t keep = strlen(base);
    for (;;) {
        size_t n = strlen(dir);
        while (n > keep && dir[n - 1] == '/') dir[--n] = 0;
        long q = dir_quota(dir, v2);
        if (q > 0 && (best == 0 || q < best)) best = q;
        if (n <= keep) break;
        char *slash = strrchr(dir + keep, '/');
        if (!slash) dir[keep] = 0;
        else *slash = 0;
    }
    return best;
}

/* Whether a v1 controller list ("cpu,cpuacct") names the cpu controller. */
static int names_cpu(const char *list, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && list[j] != ',') j++;
        if (j - i == 3 && !strncmp(list + i, "cpu", 3)) return 1;
        i = j + 1;
    }
    return 0;
}

long rt_cpus_quota(const char *root, const char *self)
{
    long best = 0;
    char base[4200], path[4096];
    for (const char *line = self; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', len), *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        size_t plen = c2 ? len - (size_t)(c2 + 1 - line) : 0;
        if (c2 && plen < sizeof path) {
            memcpy(path, c2 + 1, plen);
            path[plen] = 0;
            const char *ctl = c1 + 1;
            size_t nctl = (size_t)(c2 - ctl);
            long q = 0, r;
            if (nctl == 0) {   /* cgroup v2 (a hybrid host mounts it at root/unified) */
                q = chain_quota(root, path, 1);
                snprintf(base, sizeof base, "%s/unified", root);
                if ((r = chain_quota(base, path, 1)) > 0 && (q == 0 || r < q)) q = r;
            } else if (names_cpu(ctl, nctl)) {   /* v1: root/cpu,cpuacct or root/cpu */
                snprintf(base, sizeof base, "%s/%.*s", root, (int)nctl, ctl);
                q = chain_quota(base, path, 0);
                snprintf(base, sizeof base, "%s/cpu", root);
                if ((r = chain_quota(base, path, 0)) > 0 && (q == 0 || r < q)) q = r;
            }
            if (q > 0 && (best == 0 || q < best)) best = q;
        }
        line = end ? end + 1 : NULL;
    }
    return best;
}

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
