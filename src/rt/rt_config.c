/* aclInit configuration: defaults, the JSON file (parsed with cJSON) and
 * environment overrides. Keys are documented in docs/config.md. openacl's
 * keys live in the "openacl" object; the `dump` section is rt_dump.c's, the
 * `profiler` section is read here; other keys CANN defines for its own
 * features (err_msg_mode, ...) are accepted and ignored. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt/rt_priv.h"
#include "engine/eng_dump.h"

#define CFG_MAX_FILE (16u << 20)
#define CFG_MAX_DEPTH 10

static int json_depth(const cJSON *j)
{
    int d = 0;
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
        int k = json_depth(c);
        if (k > d) d = k;
    }
    return (j && (cJSON_IsObject(j) || cJSON_IsArray(j))) ? d + 1 : d;
}

/* "8589934592", "8G", "512M", "64K" (binary units) → bytes; 0 on error. */
static size_t parse_bytes(const char *s)
{
    if (!s || !*s) return 0;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return 0;
    unsigned long long mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        case 't': case 'T': mul = 1ull << 40; break;
        default: return 0;
        }
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'b' || *end == 'B') end++;
        if (*end) return 0;
    }
    if (v > ULLONG_MAX / mul) return 0;
    v *= mul;
    if (v > SIZE_MAX) return 0;
    return (size_t)v;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return 0;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int level_from_name(const char *s)
{
    static const char *names[] = {"debug", "info", "warning", "error", "null"};
    for (int i = 0; i < 5; i++)
        if (strcasecmp(s, names[i]) == 0) return i;
    if (strcasecmp(s, "warn") == 0) return 2;
    if (strcasecmp(s, "off") == 0 || strcasecmp(s, "none") == 0) return 4;
    return -1;
}

/* CANN's profiler keys: all accepted; switch and output are the ones that
 * mean something here (the others select device counters). */
static const char *const g_prof_keys[] = {
    "switch", "output", "storage_limit", "training_trace", "task_trace", "task_time", "aicpu",
    "aic_metrics", "l2", "hccl", "msproftx", "runtime_api", "ge_api", "sys_hardware_mem_freq",
    "llc_profiling", "sys_io_sampling_freq", "sys_interconnection_freq", "dvpp_freq", "host_sys",
    "host_sys_usage", "host_sys_usage_freq", "instr_profiling_freq", "fp_point", "bp_point", NULL};

static int cfg_profiler(const char *path, const cJSON *sec, rt_config *cfg)
{
    if (!cJSON_IsObject(sec))
        return acl_fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: config file %s: \"profiler\" must be an object",
                        path);
    for (const cJSON *it = sec->child; it; it = it->next) {
        int known = 0;
        for (int i = 0; g_prof_keys[i]; i++) known |= !strcmp(it->string, g_prof_keys[i]);
        if (!known)
            return acl_fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: config file %s: unknown key profiler.%s",
                            path, it->string);
    }
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(sec, "switch");
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(sec, "output");
    if (sw && (!cJSON_IsString(sw) || (strcasecmp(sw->valuestring, "on") && strcasecmp(sw->valuestring, "off"))))
        return acl_fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: config file %s: profiler.switch must be "
                        "\"on\" or \"off\"", path);
    if (out && (!cJSON_IsString(out) || !*out->valuestring || strlen(out->valuestring) >= sizeof cfg->prof_dir))
        return acl_fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: config file %s: profiler.output must be a "
                        "folder path", path);
    cfg->prof_on = sw && !strcasecmp(sw->valuestring, "on");
    if (!cfg->prof_on) return ACL_SUCCESS;
    const char *dir = out ? out->valuestring : ".";
    if (access(dir, W_OK | X_OK))
        return acl_fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: config file %s: profiler.output \"%s\" is "
                        "not a writable folder: %s", path, dir, strerror(errno));
    strcpy(cfg->prof_dir, dir);
    return ACL_SUCCESS;
}

/* The sections beside "openacl" (after it: dump_root is one of its keys). */
static int cfg_sections(const char *path, const cJSON *root, rt_config *cfg)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dump");
    char api[4200];
    snprintf(api, sizeof api, "aclInit: config file %s", path);
    int rc = d ? rt_dump_parse(api, d, cfg->dump_root, &cfg->dump) : 0;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "profiler");
    if (!rc && p) rc = cfg_profiler(path, p, cfg);
    return rc;
}

static int cfg_from_json(const char *path, const cJSON *root, rt_config *cfg)
{
    if (!cJSON_IsObject(root))
        return acl_fail(ACL_ERROR_PARSE_FILE, "aclInit: config file %s: top level must be a JSON object", path);
    int depth = json_depth(root);
    if (depth > CFG_MAX_DEPTH)
        return acl_fail(ACL_ERROR_PARSE_FILE, "aclInit: config file %s: nesting depth %d exceeds the limit of %d",
                        path, depth, CFG_MAX_DEPTH);
    const cJSON *oa = cJSON_GetObjectItemCaseSensitive(root, "openacl");
    if (!oa) return cfg_sections(path, root, cfg);
    if (!cJSON_IsObject(oa))
        return acl_fail(ACL_ERROR_FILE_ATTR_INVALID, "aclInit: config file %s: \"openacl\" must be an object", path);
    for (const cJSON *it = oa->child; it; it = it->next) {
        const char *k = it->string;
        if (strcmp(k, "device_count") == 0) {
            /* range first: converting 1e300 (or NaN) to long is undefined behaviour */
            if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1 && it->valuedouble <= RT_MAX_DEVICES) ||
                it->valuedouble != (double)(long)it->valuedouble)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.device_count must be an integer in [1, %d]", path,
                                RT_MAX_DEVICES);
            cfg->device_count = (int)it->valuedouble;
        } else if (strcmp(k, "device_memory") == 0) {
            size_t b = 0;
            if (cJSON_IsNumber(it) && it->valuedouble >= 1 && it->valuedouble <= 1.8e19)
                b = (size_t)it->valuedouble;
            else if (cJSON_IsString(it))
                b = parse_bytes(it->valuestring);
            if (b < 4096)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.device_memory must be a byte count >= 4096 "
                                "(number, or string like \"8G\")",
                                path);
            cfg->device_memory = b;
        } else if (strcmp(k, "threads_per_device") == 0) {
            if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1 && it->valuedouble <= 1024) ||
                it->valuedouble != (double)(long)it->valuedouble)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.threads_per_device must be an integer in [1, 1024]",
                                path);
            cfg->threads = (int)it->valuedouble;
        } else if (strcmp(k, "log_level") == 0) {
            int l = -1;
            if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 4 &&
                it->valuedouble == (double)(int)it->valuedouble)
                l = (int)it->valuedouble;
            else if (cJSON_IsString(it))
                l = level_from_name(it->valuestring);
            if (l < 0)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.log_level must be 0-4 or "
                                "debug/info/warning/error/null",
                                path);
            cfg->log_level = l;
        } else if (strcmp(k, "spin_us") == 0) {
            if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 100000)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.spin_us must be a number in [0, 100000]", path);
            cfg->spin_us = (int)it->valuedouble;
        } else if (strcmp(k, "dump_root") == 0) {
            if (!cJSON_IsString(it) || !*it->valuestring || strlen(it->valuestring) >= sizeof cfg->dump_root)
                return acl_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                "aclInit: config file %s: openacl.dump_root must be a folder path", path);
            strcpy(cfg->dump_root, it->valuestring);
        } else {
            acl_log(ACL_WARNING, "aclInit: config file %s: unknown key openacl.%s ignored", path, k);
        }
    }
    return cfg_sections(path, root, cfg);
}

int rt_config_file_json(const char *api, const char *path, cJSON **root)
{
    *root = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return acl_fail(ACL_ERROR_INVALID_FILE, "%s: config file %s: %s", api, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return acl_fail(ACL_ERROR_INVALID_FILE, "%s: config file %s is not a regular file", api, path);
    if ((unsigned long long)st.st_size > CFG_MAX_FILE)
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE, "%s: config file %s is %lld bytes, the limit is %u", api, path,
                        (long long)st.st_size, CFG_MAX_FILE);
    FILE *f = fopen(path, "rb");
    if (!f) return acl_fail(ACL_ERROR_INVALID_FILE, "%s: cannot open config file %s: %s", api, path, strerror(errno));
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory reading %s", api, path);
    }
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    if (got != n) {
        free(buf);
        return acl_fail(ACL_ERROR_INVALID_FILE, "%s: short read of config file %s (%zu of %zu bytes)", api, path, got,
                        n);
    }
    buf[n] = '\0';
    /* an empty (or blank) file is an empty configuration */
    size_t i = 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')) i++;
    if (i == n) {
        free(buf);
        return ACL_SUCCESS;
    }
    const char *err = NULL;
    *root = cJSON_ParseWithOpts(buf, &err, 1);
    if (!*root) {
        long off = err ? (long)(err - buf) : -1;
        free(buf);
        return acl_fail(ACL_ERROR_PARSE_FILE, "%s: config file %s is not valid JSON (error near byte %ld)", api, path,
                        off);
    }
    free(buf);
    return ACL_SUCCESS;
}

static int cfg_from_file(const char *path, rt_config *cfg)
{
    cJSON *root = NULL;
    int rc = rt_config_file_json("aclInit", path, &root);
    if (rc || !root) return rc;
    rc = cfg_from_json(path, root, cfg);
    cJSON_Delete(root);
    return rc;
}

static int cfg_from_env(rt_config *cfg)
{
    const char *e;
    long v;
    if ((e = getenv("OPENACL_DEVICE_COUNT")) && *e) {
        if (!parse_int(e, 1, RT_MAX_DEVICES, &v))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "aclInit: OPENACL_DEVICE_COUNT=\"%s\" is not an integer in [1, %d]",
                            e, RT_MAX_DEVICES);
        cfg->device_count = (int)v;
    }
    if ((e = getenv("OPENACL_DEVICE_MEMORY")) && *e) {
        size_t b = parse_bytes(e);
        if (b < 4096)
            return acl_fail(ACL_ERROR_INVALID_PARAM,
                            "aclInit: OPENACL_DEVICE_MEMORY=\"%s\" is not a byte count >= 4096 (e.g. 8G)", e);
        cfg->device_memory = b;
    }
    if ((e = getenv("OPENACL_THREADS")) && *e) {
        if (!parse_int(e, 1, 1024, &v))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "aclInit: OPENACL_THREADS=\"%s\" is not an integer in [1, 1024]", e);
        cfg->threads = (int)v;
    }
    if ((e = getenv("OPENACL_SPIN_US")) && *e) {
        if (!parse_int(e, 0, 100000, &v))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "aclInit: OPENACL_SPIN_US=\"%s\" is not an integer in [0, 100000]",
                            e);
        cfg->spin_us = (int)v;
    }
    return ACL_SUCCESS;
}

int rt_config_load(const char *path, rt_config *cfg)
{
    long online, mask, quota;
    long long phys, mlimit;
    cfg->device_count = 2;
    cfg->device_memory = rt_memory_default((size_t)8 << 30, &phys, &mlimit);
    cfg->threads = rt_cpus_default(&online, &mask, &quota);
    acl_log(ACL_INFO, "aclInit: default threads %d (CPUs online %ld, in the affinity mask %ld, cgroup quota %ld), "
            "device memory %zu bytes (physical %lld, cgroup limit %lld)", cfg->threads, online, mask, quota,
            cfg->device_memory, phys, mlimit);
    cfg->log_level = -1;
    cfg->spin_us = 20;
    cfg->dump_root[0] = 0;
    cfg->dump = NULL;
    cfg->prof_on = 0;
    cfg->prof_dir[0] = 0;
    int rc;
    /* CANN's samples call aclInit("") and mean "no configuration file", as
     * NULL does. */
    rc = path && *path ? cfg_from_file(path, cfg) : ACL_SUCCESS;
    if (rc == ACL_SUCCESS) rc = cfg_from_env(cfg);
    if (rc) {
        eng_dump_cfg_unref(cfg->dump);
        cfg->dump = NULL;
    }
    return rc;
}
