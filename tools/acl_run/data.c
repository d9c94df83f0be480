/* openacl-run data: reading inputs (.bin / .npy / folders), generating zero
 * or random inputs, and writing outputs as BIN, NPY or TXT in msame's file
 * layout (<dir>/<stem>_output_<i>.<ext>). .npy I/O is tools/npy. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "acl_run.h"
#include "npy.h"

void run_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("openacl-run: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void run_acl_err(aclError rc, const char *fmt, ...)
{
    /* Read the message first: it is per thread and the next ACL call on
     * this thread could replace it. */
    const char *msg = aclGetRecentErrMsg();
    va_list ap;
    va_start(ap, fmt);
    fputs("openacl-run: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " failed with ACL error %d%s%s\n", rc, msg && *msg ? ": " : "", msg && *msg ? msg : "");
    va_end(ap);
}

const char *run_dtype_name(aclDataType t)
{
    switch (t) {
    case ACL_FLOAT: return "float32";
    case ACL_FLOAT16: return "float16";
    case ACL_BF16: return "bfloat16";
    case ACL_DOUBLE: return "float64";
    case ACL_INT8: return "int8";
    case ACL_INT16: return "int16";
    case ACL_INT32: return "int32";
    case ACL_INT64: return "int64";
    case ACL_UINT8: return "uint8";
    case ACL_UINT16: return "uint16";
    case ACL_UINT32: return "uint32";
    case ACL_UINT64: return "uint64";
    case ACL_BOOL: return "bool";
    case ACL_STRING: return "string";
    case ACL_COMPLEX64: return "complex64";
    case ACL_COMPLEX128: return "complex128";
    case ACL_DT_UNDEFINED: return "undefined";
    default: return "other";
    }
}

const char *run_format_name(aclFormat f)
{
    switch (f) {
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    default: return "other";
    }
}

size_t run_dtype_size(aclDataType t)
{
    return aclDataTypeSize(t);
}

const char *run_dims_str(const int64_t *dims, int ndim, char *buf, size_t len)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, len - n, "[");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

int64_t run_elem_count(const int64_t *dims, int ndim)
{
    int64_t c = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return -1;
        c *= dims[i];
    }
    return c;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int run_list_folder(const char *dir, char ***names, int *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        run_err("--input folder %s: %s", dir, strerror(errno));
        return -1;
    }
    char **v = NULL;
    int k = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;  /* hidden files and . / .. */
        size_t plen = strlen(dir) + strlen(e->d_name) + 2;
        char *full = malloc(plen);
        struct stat st;
        if (!full)
            break;
        snprintf(full, plen, "%s/%s", dir, e->d_name);
        int regular = stat(full, &st) == 0 && S_ISREG(st.st_mode);
        free(full);
        if (!regular)
            continue;
        if (k == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[k++] = strdup(e->d_name);
    }
    closedir(d);
    if (k == 0) {
        run_err("--input folder %s holds no data files", dir);
        free(v);
        return -1;
    }
    qsort(v, (size_t)k, sizeof *v, by_name);
    *names = v;
    *n = k;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int run_read_blob(const char *path, aclDataType want, run_blob *b)
{
    memset(b, 0, sizeof *b);
    b->ndim = -1;
    if (ends_with(path, ".npy")) {
        npy_array a;
        char why[256];
        if (npy_read(path, &a, why, sizeof why)) {
            run_err("input file %s: %s", path, why);
            return -1;
        }
        /* npy dtype codes are aclDataType values (tools/npy/npy.h) */
        if (a.dtype != (int)want) {
            run_err("input file %s holds %s data, the model input is %s", path, npy_dtype_name(a.dtype),
                    run_dtype_name(want));
            npy_free(&a);
            return -1;
        }
        b->data = a.data;
        b->size = a.nbytes;
        b->ndim = a.ndim;
        for (int i = 0; i < a.ndim; i++)
            b->dims[i] = a.shape[i];
        if (!b->data) {  /* an empty array: keep a valid pointer */
            b->data = malloc(1);
            b->size = 0;
        }
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        run_err("input file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        run_err("input file %s is not a regular file", path);
        fclose(f);
        return -1;
    }
    b->size = (size_t)st.st_size;
    b->data = malloc(b->size ? b->size : 1);
    if (!b->data || fread(b->data, 1, b->size, f) != b->size) {
        run_err("input file %s: read failed", path);
        fclose(f);
        free(b->data);
        b->data = NULL;
        return -1;
    }
    fclose(f);
    return 0;
}

/* splitmix64: a fixed seed, so "random" inputs are the same on every run
 * and every device (results stay comparable). */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int run_make_blob(aclDataType t, const int64_t *dims, int ndim, int random, run_blob *b)
{
    memset(b, 0, sizeof *b);
    int64_t count = run_elem_count(dims, ndim);
    size_t es = run_dtype_size(t);
    if (count < 0 || es == 0) {
        run_err("cannot generate %s data of shape with unknown dims", run_dtype_name(t));
        return -1;
    }
    b->size = (size_t)count * es;
    b->data = calloc(1, b->size ? b->size : 1);
    if (!b->data) {
        run_err("out of memory generating %zu bytes of input", b->size);
        return -1;
    }
    b->ndim = ndim;
    memcpy(b->dims, dims, (size_t)ndim * sizeof *dims);
    if (!random)
        return 0;
    /* Floats uniform in [0, 1); integers small and non-negative (0..9), so
     * that index-like inputs (token ids, Gather indices) stay in range. */
    uint64_t s = 20240601;
    for (int64_t i = 0; i < count; i++) {
        uint64_t r = next_rand(&s);
        float u = (float)((r >> 40) * (1.0 / 16777216.0));
        unsigned small = (unsigned)(r % 10);
        switch (t) {
        case ACL_FLOAT: ((float *)b->data)[i] = u; break;
        case ACL_DOUBLE: ((double *)b->data)[i] = u; break;
        case ACL_FLOAT16: ((aclFloat16 *)b->data)[i] = aclFloatToFloat16(u); break;
        case ACL_BF16: {
            uint32_t bits;
            memcpy(&bits, &u, 4);
            ((uint16_t *)b->data)[i] = (uint16_t)(bits >> 16);
            break;
        }
        case ACL_BOOL: ((uint8_t *)b->data)[i] = (uint8_t)(r & 1); break;
        case ACL_INT8: case ACL_UINT8: ((uint8_t *)b->data)[i] = (uint8_t)small; break;
        case ACL_INT16: case ACL_UINT16: ((uint16_t *)b->data)[i] = (uint16_t)small; break;
        case ACL_INT32: case ACL_UINT32: ((uint32_t *)b->data)[i] = small; break;
        case ACL_INT64: case ACL_UINT64: ((uint64_t *)b->data)[i] = small; break;
        default: memset((char *)b->data + (size_t)i * es, (int)(r & 0xff), es); break;
        }
    }
    return 0;
}

void run_free_inputs(run_inputs *in)
{
    if (in->blobs) {
        /* a file given directly is shared by every set: free each pointer once */
        for (int s = 0; s < in->n_sets; s++)
            for (int i = 0; i < in->n_inputs; i++) {
                void *p = in->blobs[s * in->n_inputs + i].data;
                int seen = 0;
                for (int s2 = 0; s2 < s && !seen; s2++)
                    seen = in->blobs[s2 * in->n_inputs + i].data == p;
                if (!seen)
                    free(p);
            }
    }
    free(in->blobs);
    if (in->set_names)
        for (int s = 0; s < in->n_sets; s++)
            free(in->set_names[s]);
    free(in->set_names);
    memset(in, 0, sizeof *in);
}

/* ---- outputs ---- */

static int mkdir_p(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(p, 0775) && errno != EEXIST) {
                free(p);
                return -1;
            }
            *c = '/';
        }
    int rc = mkdir(p, 0775) && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

char *run_make_output_dir(const char *output, const char *dirname)
{
    if (mkdir_p(output)) {
        run_err("--output %s: cannot create the folder: %s", output, strerror(errno));
        return NULL;
    }
    size_t len = strlen(output) + 300;
    char *dir = malloc(len);
    if (!dir)
        return NULL;
    if (dirname) {
        snprintf(dir, len, "%s/%s", output, dirname);
        if (mkdir(dir, 0775) && errno != EEXIST) {
            run_err("--output %s: cannot create %s: %s", output, dir, strerror(errno));
            free(dir);
            return NULL;
        }
        return dir;
    }
    /* msame's per-run subfolder: the local time; a second run in the same
     * second gets a numbered suffix instead of mixing its files in. */
    char stamp[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    for (int k = 0; k < 1000; k++) {
        if (k)
            snprintf(dir, len, "%s/%s_%d", output, stamp, k);
        else
            snprintf(dir, len, "%s/%s", output, stamp);
        if (mkdir(dir, 0775) == 0)
            return dir;
        if (errno != EEXIST)
            break;
    }
    run_err("--output %s: cannot create a run folder: %s", output, strerror(errno));
    free(dir);
    return NULL;
}

static float bf16_to_float(uint16_t v)
{
    uint32_t bits = (uint32_t)v << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* One value as text; 0 when the type has no text form here. */
static int format_value(aclDataType t, const void *data, size_t i, FILE *f)
{
    switch (t) {
    case ACL_FLOAT: return fprintf(f, "%.9g", ((const float *)data)[i]) > 0;
    case ACL_FLOAT16: return fprintf(f, "%.5g", aclFloat16ToFloat(((const aclFloat16 *)data)[i])) > 0;
    case ACL_BF16: return fprintf(f, "%.4g", bf16_to_float(((const uint16_t *)data)[i])) > 0;
    case ACL_DOUBLE: return fprintf(f, "%.17g", ((const double *)data)[i]) > 0;
    case ACL_INT8: return fprintf(f, "%d", ((const int8_t *)data)[i]) > 0;
    case ACL_UINT8: return fprintf(f, "%u", ((const uint8_t *)data)[i]) > 0;
    case ACL_BOOL: return fprintf(f, "%u", ((const uint8_t *)data)[i] ? 1u : 0u) > 0;
    case ACL_INT16: return fprintf(f, "%d", ((const int16_t *)data)[i]) > 0;
    case ACL_UINT16: return fprintf(f, "%u", ((const uint16_t *)data)[i]) > 0;
    case ACL_INT32: return fprintf(f, "%d", ((const int32_t *)data)[i]) > 0;
    case ACL_UINT32: return fprintf(f, "%u", ((const uint32_t *)data)[i]) > 0;
    case ACL_INT64: return fprintf(f, "%lld", (long long)((const int64_t *)data)[i]) > 0;
    case ACL_UINT64: return fprintf(f, "%llu", (unsigned long long)((const uint64_t *)data)[i]) > 0;
    default: return 0;
    }
}

/* msame's TXT layout: values separated by spaces, a line break every 100
 * values, and a blank line between the items of the batch (dim 0). */
static int write_txt(const char *path, aclDataType t, const int64_t *dims, int ndim, const void *data,
                     size_t size)
{
    size_t es = run_dtype_size(t);
    if (!es)
        return -1;
    size_t count = size / es;
    int64_t per_item = ndim >= 1 ? run_elem_count(dims + 1, ndim - 1) : (int64_t)count;
    if (per_item <= 0)
        per_item = (int64_t)count;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < count; i++) {
        if (!format_value(t, data, i, f)) {
            fclose(f);
            return -2;
        }
        size_t in_item = i % (size_t)per_item + 1;
        if (i + 1 == count)
            fputc('\n', f);
        else if (in_item == (size_t)per_item)
            fputs("\n\n", f);
        else if (in_item % 100 == 0)
            fputc('\n', f);
        else
            fputc(' ', f);
    }
    return fclose(f) ? -1 : 0;
}

int run_write_output(const char *dir, const char *stem, int index, int fmt, aclDataType t,
                     const int64_t *dims, int ndim, const void *data, size_t size)
{
    static const char *const ext[] = {"bin", "npy", "txt"};
    size_t len = strlen(dir) + strlen(stem) + 64;
    char *path = malloc(len);
    int rc = 0;
    if (!path)
        return -1;
    /* Types NumPy / text cannot hold here fall back to raw bytes. */
    if (fmt == OUTFMT_NPY && !npy_dtype_size((int)t))
        fmt = OUTFMT_BIN;
    if (fmt == OUTFMT_TXT && !run_dtype_size(t))
        fmt = OUTFMT_BIN;
    snprintf(path, len, "%s/%s_output_%d.%s", dir, stem, index, ext[fmt]);
    if (fmt == OUTFMT_NPY) {
        char why[256];
        int64_t shape[NPY_MAX_DIMS];
        int nd = ndim > NPY_MAX_DIMS ? NPY_MAX_DIMS : ndim;
        memcpy(shape, dims, (size_t)nd * sizeof *shape);
        /* the data may be shorter than the shape says only when the model's
         * dims are unknown: then write it flat */
        int64_t c = run_elem_count(shape, nd);
        if (c < 0 || (size_t)c * npy_dtype_size((int)t) != size) {
            nd = 1;
            shape[0] = (int64_t)(size / npy_dtype_size((int)t));
        }
        if (npy_write(path, (int)t, nd, shape, data, why, sizeof why)) {
            run_err("writing %s: %s", path, why);
            rc = -1;
        }
    } else if (fmt == OUTFMT_TXT) {
        if (write_txt(path, t, dims, ndim, data, size)) {
            run_err("writing %s failed: %s", path, strerror(errno));
            rc = -1;
        }
    } else {
        FILE *f = fopen(path, "wb");
        int bad = !f;
        if (f) {
            bad = fwrite(data, 1, size, f) != size;
            bad |= fclose(f) != 0;
        }
        if (bad) {
            run_err("writing %s failed: %s", path, strerror(errno));
            rc = -1;
        }
    }
    free(path);
    return rc;
}
