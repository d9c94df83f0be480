/* Shared by the fuzz targets: a runtime configured for fuzzing (one device,
 * one thread, a 1 GiB device budget so an absurd plan is refused by the
 * runtime instead of tripping the fuzzer's malloc limit) and quiet logs. */
#ifndef OPENACL_TESTS_FUZZ_COMMON_H
#define OPENACL_TESTS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"

/* Writes `len` bytes to a fresh file in $TMPDIR (or /tmp) named after `tag`;
 * the path is written into `path` (PATH_MAX bytes). 0 on success. */
static inline int fz_write_temp(const char *tag, const void *data, size_t len, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/oa_fuzz_%s_XXXXXX", dir && *dir ? dir : "/tmp", tag);
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, (const char *)data + done, len - done);
        if (w <= 0) { close(fd); unlink(path); return -1; }
        done += (size_t)w;
    }
    close(fd);
    return 0;
}

/* aclInit with the fuzzing configuration, then device 0 made current. */
static inline int fz_runtime_up(void)
{
    static const char cfg[] =
        "{\"openacl\": {\"device_count\": 1, \"threads_per_device\": 1, \"device_memory\": \"1G\","
        " \"log_level\": \"null\"}}";
    char path[4096];
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    if (fz_write_temp("cfg", cfg, sizeof cfg - 1, path, sizeof path)) return -1;
    int rc = aclInit(path);
    unlink(path);
    if (rc) { fprintf(stderr, "aclInit: %d %s\n", rc, aclGetRecentErrMsg()); return -1; }
    if (aclrtSetDevice(0)) { fprintf(stderr, "aclrtSetDevice: %s\n", aclGetRecentErrMsg()); return -1; }
    return 0;
}

#endif
