/* Small helpers shared by the aclmdl tests: checks that report the file and
 * line, reading the .bin files make_models.py writes, and device buffers. */
#ifndef OPENACL_TESTS_MDL_TEST_H
#define OPENACL_TESTS_MDL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static int g_failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            g_failures++;                                                           \
        }                                                                           \
    } while (0)

#define CHECK_RC(expr, want)                                                                  \
    do {                                                                                      \
        int rc_ = (int)(expr);                                                                \
        if (rc_ != (int)(want)) {                                                             \
            const char *m_ = aclGetRecentErrMsg();                                            \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, __LINE__, \
                    #expr, rc_, (int)(want), m_ ? m_ : "no message");                         \
            g_failures++;                                                                     \
        }                                                                                     \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, ACL_SUCCESS)

/* The call must fail with `want` and leave a message containing `needle`. */
#define CHECK_ERR(expr, want, needle)                                                                   \
    do {                                                                                                \
        (void)aclGetRecentErrMsg();                                                                     \
        int rc_ = (int)(expr);                                                                          \
        const char *m_ = aclGetRecentErrMsg();                                                          \
        if (rc_ != (int)(want)) {                                                                       \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, __LINE__, #expr, rc_,  \
                    (int)(want), m_ ? m_ : "no message");                                               \
            g_failures++;                                                                               \
        } else if (!m_ || !strstr(m_, (needle))) {                                                      \
            fprintf(stderr, "%s:%d: %s: message lacks \"%s\": %s\n", __FILE__, __LINE__, #expr, (needle), \
                    m_ ? m_ : "(none)");                                                                \
            g_failures++;                                                                               \
        }                                                                                               \
    } while (0)

static const char *g_dir;

static char *path_of(const char *name)
{
    static char buf[8][1024];
    static int k;
    char *p = buf[k++ & 7];
    snprintf(p, 1024, "%s/%s", g_dir, name);
    return p;
}

static void *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(n > 0 ? (size_t)n : 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void write_all(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

/* Device buffer holding the contents of file <model>.<kind><i>.bin, or
 * `size` bytes of zeroes when size != 0 and the file is not wanted. */
static void *dev_from_file(const char *model, const char *kind, int i, size_t *len)
{
    char name[256];
    snprintf(name, sizeof name, "%s.%s%d.bin", model, kind, i);
    void *h = read_all(path_of(name), len);
    void *d = NULL;
    if (aclrtMalloc(&d, *len, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtMalloc failed: %s\n", aclGetRecentErrMsg());
        exit(2);
    }
    aclrtMemcpy(d, *len, h, *len, ACL_MEMCPY_HOST_TO_DEVICE);
    free(h);
    return d;
}

static void *dev_alloc(size_t n)
{
    void *d = NULL;
    if (aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtMalloc(%zu) failed: %s\n", n, aclGetRecentErrMsg());
        exit(2);
    }
    aclrtMemset(d, n, 0, n);
    return d;
}

/* Compares n floats of device memory with the expected file. */
static int dev_matches_f32(const void *dev, const char *model, int out, size_t n_bytes, float tol)
{
    char name[256];
    size_t len;
    snprintf(name, sizeof name, "%s.out%d.bin", model, out);
    float *want = read_all(path_of(name), &len);
    int ok = len == n_bytes;
    float *got = malloc(n_bytes ? n_bytes : 1);
    aclrtMemcpy(got, n_bytes, dev, n_bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; ok && i < n_bytes / 4; i++) {
        if (!(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i])))) {
            fprintf(stderr, "%s output %d element %zu: got %g, want %g\n", model, out, i, got[i], want[i]);
            ok = 0;
        }
    }
    if (len != n_bytes)
        fprintf(stderr, "%s output %d: %zu bytes, expected file has %zu\n", model, out, n_bytes, len);
    free(want);
    free(got);
    return ok;
}

#endif
