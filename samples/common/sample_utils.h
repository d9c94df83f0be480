/* Small helpers the C samples share: reading and writing whole files, file
 * names, printing the best classes, and one macro that reports a failed ACL
 * call. Nothing here hides an ACL call: every sample spells out its own API
 * flow, so this header only keeps file handling out of the way. */
#ifndef OPENACL_SAMPLE_UTILS_H
#define OPENACL_SAMPLE_UTILS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acl/acl.h"

/* Every ACL call returns an aclError (0 = ACL_SUCCESS). On failure the
 * runtime leaves a message for the calling thread, which
 * aclGetRecentErrMsg() returns: print both, then jump to the sample's
 * clean-up label so resources are still released in order. */
#define CHECK_ACL(call)                                                                      \
    do {                                                                                     \
        aclError rc_ = (call);                                                               \
        if (rc_ != ACL_SUCCESS) {                                                            \
            const char *msg_ = aclGetRecentErrMsg();                                         \
            fprintf(stderr, "%s:%d: %s failed: error %d: %s\n", __FILE__, __LINE__, #call, rc_, \
                    msg_ ? msg_ : "(no message)");                                           \
            goto cleanup;                                                                    \
        }                                                                                    \
    } while (0)

/* Reads a whole file into a malloc'd buffer; NULL (with a message) on error. */
static inline void *sample_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    void *buf = NULL;
    if (!f || fstat(fileno(f), &st) != 0) {
        fprintf(stderr, "cannot open %s\n", path);
        if (f)
            fclose(f);
        return NULL;
    }
    *size = (size_t)st.st_size;
    buf = malloc(*size ? *size : 1);
    if (buf && fread(buf, 1, *size, f) != *size) {
        free(buf);
        buf = NULL;
        fprintf(stderr, "cannot read %s\n", path);
    }
    fclose(f);
    return buf;
}

static inline int sample_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* "dir/img_03.bin" -> "img_03" into out. */
static inline void sample_stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
}

/* Prints the k largest of n floats: the usual way to show a classifier's
 * answer. */
static inline void sample_print_top(const char *label, const float *v, size_t n, int k)
{
    int used[16] = {0};
    if (k > 16)
        k = 16;
    printf("%s top-%d:", label, k);
    for (int r = 0; r < k && r < (int)n; r++) {
        size_t best = 0;
        int found = 0;
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            for (int q = 0; q < r; q++)
                taken |= used[q] == (int)i;
            if (!taken && (!found || v[i] > v[best])) {
                best = i;
                found = 1;
            }
        }
        used[r] = (int)best;
        printf(" [%zu] %.4f", best, v[best]);
    }
    printf("\n");
}

#endif
