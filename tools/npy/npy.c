/* npy: a small reader/writer of NumPy .npy files for openacl's tests and
 * tools. The header is a Python dict literal; we parse only what numpy
 * writes (descr, fortran_order, shape) and refuse anything else clearly. */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int dtype;
    const char *name;
    char kind;         /* numpy kind letter */
    size_t size;
} npy_types[] = {
    {NPY_FLOAT32, "float32", 'f', 4}, {NPY_FLOAT16, "float16", 'f', 2},
    {NPY_FLOAT64, "float64", 'f', 8}, {NPY_INT8, "int8", 'i', 1},
    {NPY_INT16, "int16", 'i', 2},     {NPY_INT32, "int32", 'i', 4},
    {NPY_INT64, "int64", 'i', 8},     {NPY_UINT8, "uint8", 'u', 1},
    {NPY_UINT16, "uint16", 'u', 2},   {NPY_UINT32, "uint32", 'u', 4},
    {NPY_UINT64, "uint64", 'u', 8},   {NPY_BOOL, "bool", 'b', 1},
};
#define N_TYPES (sizeof(npy_types) / sizeof(npy_types[0]))

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

size_t npy_dtype_size(int dtype)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (npy_types[i].dtype == dtype)
            return npy_types[i].size;
    return 0;
}

const char *npy_dtype_name(int dtype)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (npy_types[i].dtype == dtype)
            return npy_types[i].name;
    return "unknown";
}

int npy_dtype_from_name(const char *name)
{
    for (size_t i = 0; name && i < N_TYPES; i++)
        if (strcmp(npy_types[i].name, name) == 0)
            return npy_types[i].dtype;
    return -1;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof(*a));
}

/* ---- header parsing ---- */

/* Finds the value that follows key `k` (quoted either way) in the dict text;
 * returns a pointer just past the ':' and blanks, or NULL. */
static const char *dict_value(const char *h, const char *k)
{
    size_t kl = strlen(k);
    for (const char *p = h; (p = strpbrk(p, "'\"")) != NULL; p++) {
        char q = *p;
        if (strncmp(p + 1, k, kl) == 0 && p[1 + kl] == q) {
            p += kl + 2;
            while (*p == ' ')
                p++;
            if (*p != ':')
                return NULL;
            p++;
            while (*p == ' ')
                p++;
            return p;
        }
    }
    return NULL;
}

static int parse_descr(const char *v, int *dtype, int *swap, char *err, size_t errlen)
{
    char q = *v;
    if (q != '\'' && q != '"')
        return fail(err, errlen, "npy: descr is not a simple type string (structured dtype?)");
    const char *s = v + 1, *e = strchr(s, q);
    if (!e || e - s < 3 || e - s > 8)
        return fail(err, errlen, "npy: bad descr");
    char order = s[0], kind = s[1];
    char *end;
    long size = strtol(s + 2, &end, 10);
    if (end != e)
        return fail(err, errlen, "npy: bad descr '%.*s'", (int)(e - s), s);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return fail(err, errlen, "npy: bad byte order in descr '%.*s'", (int)(e - s), s);
    for (size_t i = 0; i < N_TYPES; i++) {
        if (npy_types[i].kind == kind && (long)npy_types[i].size == size) {
            *dtype = npy_types[i].dtype;
            *swap = order == '>' && size > 1;
            return 0;
        }
    }
    return fail(err, errlen, "npy: unsupported dtype '%.*s'", (int)(e - s), s);
}

static int parse_shape(const char *v, npy_array *a, char *err, size_t errlen)
{
    if (*v != '(')
        return fail(err, errlen, "npy: shape is not a tuple");
    const char *p = v + 1;
    a->ndim = 0;
    a->count = 1;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            break;
        if (!isdigit((unsigned char)*p))
            return fail(err, errlen, "npy: bad character '%c' in shape", *p);
        if (a->ndim == NPY_MAX_DIMS)
            return fail(err, errlen, "npy: more than %d dims", NPY_MAX_DIMS);
        errno = 0;
        char *end;
        long long d = strtoll(p, &end, 10);
        if (errno || d < 0)
            return fail(err, errlen, "npy: bad dim in shape");
        /* Reject products that overflow size_t before they reach malloc. */
        if (d != 0 && a->count > SIZE_MAX / 16 / (size_t)d)
            return fail(err, errlen, "npy: shape too large");
        a->shape[a->ndim++] = d;
        a->count *= (size_t)d;
        p = end;
        while (*p == 'L')   /* Python 2 long suffix */
            p++;
    }
    return 0;
}

static void byteswap(void *data, size_t count, size_t size)
{
    unsigned char *b = data;
    for (size_t i = 0; i < count; i++, b += size)
        for (size_t j = 0; j < size / 2; j++) {
            unsigned char t = b[j];
            b[j] = b[size - 1 - j];
            b[size - 1 - j] = t;
        }
}

int npy_parse(const void *buf, size_t len, npy_array *out, char *err, size_t errlen)
{
    const unsigned char *b = buf;
    memset(out, 0, sizeof(*out));
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return fail(err, errlen, "npy: not an .npy file (bad magic)");
    unsigned major = b[6];
    size_t hlen, hoff;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hoff = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return fail(err, errlen, "npy: truncated header");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hoff = 12;
    } else {
        return fail(err, errlen, "npy: unsupported format version %u", major);
    }
    if (hlen > len - hoff)
        return fail(err, errlen, "npy: header length %zu beyond file size %zu", hlen, len);
    char *h = malloc(hlen + 1);
    if (!h)
        return fail(err, errlen, "npy: out of memory");
    memcpy(h, b + hoff, hlen);
    h[hlen] = 0;

    npy_array a;
    memset(&a, 0, sizeof(a));
    int swap = 0, rc = -1;
    const char *v;
    if (!(v = dict_value(h, "descr"))) {
        fail(err, errlen, "npy: header has no descr");
        goto done;
    }
    if (parse_descr(v, &a.dtype, &swap, err, errlen))
        goto done;
    if (!(v = dict_value(h, "fortran_order"))) {
        fail(err, errlen, "npy: header has no fortran_order");
        goto done;
    }
    if (strncmp(v, "True", 4) == 0) {
        fail(err, errlen, "npy: Fortran-order arrays are not supported (save with C order)");
        goto done;
    }
    if (!(v = dict_value(h, "shape"))) {
        fail(err, errlen, "npy: header has no shape");
        goto done;
    }
    if (parse_shape(v, &a, err, errlen))
        goto done;
    size_t esz = npy_dtype_size(a.dtype);
    a.nbytes = a.count * esz;
    size_t doff = hoff + hlen;
    if (len - doff < a.nbytes) {
        fail(err, errlen, "npy: data is %zu bytes, shape needs %zu", len - doff, a.nbytes);
        goto done;
    }
    /* Keep at least one byte allocated so a zero-size array has a non-NULL
     * pointer; 64-byte alignment suits vector loads in tools. */
    size_t alloc = (a.nbytes + 63) / 64 * 64;
    a.data = aligned_alloc(64, alloc ? alloc : 64);
    if (!a.data) {
        fail(err, errlen, "npy: out of memory for %zu bytes", a.nbytes);
        goto done;
    }
    memcpy(a.data, b + doff, a.nbytes);
    if (swap)
        byteswap(a.data, a.count, esz);
    *out = a;
    rc = 0;
done:
    free(h);
    return rc;
}

int npy_read(const char *path, npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, "npy: cannot open %s: %s", path, strerror(errno));
    unsigned char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return fail(err, errlen, "npy: cannot size %s", path);
    }
    buf = malloc(len ? (size_t)len : 1);
    if (!buf) {
        fclose(f);
        return fail(err, errlen, "npy: out of memory reading %s", path);
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        free(buf);
        return fail(err, errlen, "npy: short read on %s", path);
    }
    int rc = npy_parse(buf, (size_t)len, out, err, errlen);
    free(buf);
    if (rc && err && errlen) {
        /* Prefix the path so the caller's message names the file. */
        char tmp[512];
        snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
    }
    return rc;
}

static const char *descr_of(int dtype)
{
    switch (dtype) {
    case NPY_FLOAT32: return "<f4";
    case NPY_FLOAT16: return "<f2";
    case NPY_FLOAT64: return "<f8";
    case NPY_INT8: return "|i1";
    case NPY_INT16: return "<i2";
    case NPY_INT32: return "<i4";
    case NPY_INT64: return "<i8";
    case NPY_UINT8: return "|u1";
    case NPY_UINT16: return "<u2";
    case NPY_UINT32: return "<u4";
    case NPY_UINT64: return "<u8";
    case NPY_BOOL: return "|b1";
    }
    return NULL;
}

int npy_write(const char *path, int dtype, int ndim, const int64_t *shape,
              const void *data, char *err, size_t errlen)
{
    const char *descr = descr_of(dtype);
    if (!descr)
        return fail(err, errlen, "npy: cannot write dtype code %d", dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return fail(err, errlen, "npy: bad ndim %d", ndim);
    char dict[64 + NPY_MAX_DIMS * 24];
    int n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return fail(err, errlen, "npy: negative dim %lld", (long long)shape[i]);
        n += snprintf(dict + n, sizeof(dict) - n, "%lld,%s", (long long)shape[i],
                      (i + 1 < ndim) ? " " : "");
        count *= (size_t)shape[i];
    }
    /* numpy writes "(5,)" for rank 1 and "(2, 3)" otherwise. */
    if (ndim > 1)
        n--;          /* drop the trailing comma */
    n += snprintf(dict + n, sizeof(dict) - n, "), }");
    /* Pad with spaces so magic+len+header is a multiple of 64, ending in '\n'. */
    size_t pre = 10, total = pre + (size_t)n + 1;
    int v2 = 0;
    size_t padded = (total + 63) / 64 * 64;
    if (padded - pre > 65535) {
        v2 = 1;
        pre = 12;
        padded = (pre + (size_t)n + 1 + 63) / 64 * 64;
    }
    size_t hlen = padded - pre;
    unsigned char head[12 + sizeof(dict) + 64];
    memcpy(head, "\x93NUMPY", 6);
    head[6] = v2 ? 2 : 1;
    head[7] = 0;
    if (v2) {
        for (int i = 0; i < 4; i++)
            head[8 + i] = (unsigned char)(hlen >> (8 * i));
    } else {
        head[8] = (unsigned char)(hlen & 0xff);
        head[9] = (unsigned char)(hlen >> 8);
    }
    memcpy(head + pre, dict, (size_t)n);
    memset(head + pre + n, ' ', hlen - (size_t)n - 1);
    head[padded - 1] = '\n';

    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, errlen, "npy: cannot create %s: %s", path, strerror(errno));
    size_t nbytes = count * npy_dtype_size(dtype);
    int ok = fwrite(head, 1, padded, f) == padded &&
             (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        return fail(err, errlen, "npy: write to %s failed", path);
    return 0;
}
