/* npy_test: the C half of the tools/npy round-trip test. npy_roundtrip.py
 * drives it: `copy IN OUT` reads with npy_read and writes with npy_write,
 * `gen DIR` writes known patterns for numpy to check, `bad FILE` must fail. */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy(const char *in, const char *out)
{
    char err[512];
    npy_array a;
    if (npy_read(in, &a, err, sizeof(err))) {
        fprintf(stderr, "read failed: %s\n", err);
        return 1;
    }
    size_t want = a.count * npy_dtype_size(a.dtype);
    if (a.nbytes != want) {
        fprintf(stderr, "%s: nbytes %zu != count*size %zu\n", in, a.nbytes, want);
        return 1;
    }
    int rc = npy_write(out, a.dtype, a.ndim, a.shape, a.data, err, sizeof(err));
    if (rc)
        fprintf(stderr, "write failed: %s\n", err);
    printf("%s %s ndim=%d count=%zu\n", in, npy_dtype_name(a.dtype), a.ndim, a.count);
    npy_free(&a);
    return rc ? 1 : 0;
}

/* Element i of every generated array is (i % 7) - 3 in the array's type
 * (bool: i % 2), so the Python side can rebuild the expectation. */
static int gen(const char *dir)
{
    static const int types[] = {NPY_FLOAT32, NPY_FLOAT16, NPY_FLOAT64, NPY_INT8, NPY_INT16,
                                NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16, NPY_UINT32,
                                NPY_UINT64, NPY_BOOL};
    const int64_t shape[3] = {2, 3, 5};
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        int dt = types[t];
        size_t n = 30, es = npy_dtype_size(dt);
        unsigned char *buf = calloc(n, es);
        for (size_t i = 0; i < n; i++) {
            long v = (long)(i % 7) - 3;
            unsigned char *p = buf + i * es;
            switch (dt) {
            case NPY_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); break; }
            case NPY_FLOAT64: { double f = (double)v; memcpy(p, &f, 8); break; }
            case NPY_FLOAT16: {
                /* small integers in binary16: sign, exponent 15+e, 10-bit mantissa */
                uint16_t h = 0;
                long m = v < 0 ? -v : v;
                if (m) {
                    int e = 0;
                    while ((m >> e) > 1)
                        e++;
                    h = (uint16_t)((15 + e) << 10 | ((m << (10 - e)) & 0x3ff));
                }
                if (v < 0)
                    h |= 0x8000;
                memcpy(p, &h, 2);
                break;
            }
            case NPY_BOOL: *p = (unsigned char)(i % 2); break;
            default: {
                /* integers: two's complement little-endian of v truncated to es bytes */
                long long x = v;
                for (size_t b = 0; b < es; b++)
                    p[b] = (unsigned char)((unsigned long long)x >> (8 * b));
            }
            }
        }
        char path[1024], err[256];
        snprintf(path, sizeof(path), "%s/gen_%s.npy", dir, npy_dtype_name(dt));
        if (npy_write(path, dt, 3, shape, buf, err, sizeof(err))) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        free(buf);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "copy") == 0)
        return copy(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2]);
    if (argc == 3 && strcmp(argv[1], "bad") == 0) {
        char err[512];
        npy_array a;
        if (npy_read(argv[2], &a, err, sizeof(err)) == 0) {
            fprintf(stderr, "%s: read unexpectedly succeeded\n", argv[2]);
            npy_free(&a);
            return 1;
        }
        if (a.data != NULL || err[0] == 0) {
            fprintf(stderr, "%s: failure left data or no message\n", argv[2]);
            return 1;
        }
        printf("refused as expected: %s\n", err);
        return 0;
    }
    fprintf(stderr, "usage: npy_test copy IN OUT | gen DIR | bad FILE\n");
    return 2;
}
