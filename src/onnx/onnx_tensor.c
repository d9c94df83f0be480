/* ONNX TensorProto -> dense tensor data, external data files included:
 * every size and path is checked before use (the bytes are untrusted). */
#include "onnx/onnx_tensor.h"
#include "graph/errs.h"
#include "core/core.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *nz(const char *s) { return s ? s : ""; }

int onnx_map_dtype(int onnx_dt, int *out)
{
    switch (onnx_dt) {
    case G_F32: case G_U8: case G_I8: case G_U16: case G_I16: case G_I32: case G_I64:
    case G_BOOL: case G_F16: case G_F64: case G_U32: case G_U64: case G_BF16:
        *out = onnx_dt;
        return 0;
    default:
        return -1;
    }
}

const char *onnx_dtype_name(int dt)
{
    switch (dt) {
    case 8: return "string";
    case 14: return "complex64";
    case 15: return "complex128";
    case 0: return "undefined";
    default: return g_dtype_name(dt);
    }
}

/* ---- external data ---- */

static int path_has_dotdot(const char *p)
{
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') return 1;
        if (!e) break;
        s = e + 1;
    }
    return 0;
}

/* Resolves, opens and checks the external file of tp (it must hold `need`
 * bytes at its offset) before the caller allocates anything: a model may
 * declare a terabyte tensor backed by a tiny file. On success *fd_out is the
 * open file and *off_out the offset; the caller closes fd. */
static int open_external(const char *base_dir, const Onnx__TensorProto *tp, const char *tname,
                         uint64_t need, int *fd_out, int64_t *off_out, const char **loc_out)
{
    const char *loc = NULL;
    int64_t offset = 0, length = -1;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        const char *k = nz(e->key), *v = nz(e->value);
        if (!strcmp(k, "location")) loc = v;
        else if (!strcmp(k, "offset") || !strcmp(k, "length")) {
            char *end = NULL;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (errno || !*v || *end || x < 0)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s': external data "
                                "%s '%s' is not a non-negative integer", tname, k, v);
            if (k[0] == 'o') offset = x; else length = x;
        }
    }
    if (!loc || !*loc)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s' has external data "
                        "without a 'location'", tname);
    if (!base_dir)
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s' has external data in "
                        "'%s' but the model was given from memory (no model folder to read it "
                        "from)", tname, loc);
    if (loc[0] == '/')
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': external data location "
                        "'%s' is an absolute path; only paths inside the model folder are "
                        "allowed", tname, loc);
    if (path_has_dotdot(loc))
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': external data location "
                        "'%s' contains '..'; only paths inside the model folder are allowed",
                        tname, loc);
    if (length >= 0 && (uint64_t)length != need)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s': external data length "
                        "%lld does not match its shape and type (%llu bytes)", tname,
                        (long long)length, (unsigned long long)need);
    char base_real[PATH_MAX], full[PATH_MAX * 2], real[PATH_MAX];
    if (!realpath(base_dir, base_real))
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: model folder '%s' is not "
                        "accessible: %s", base_dir, strerror(errno));
    snprintf(full, sizeof full, "%s/%s", base_real, loc);
    if (!realpath(full, real))
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': external data file "
                        "'%s' cannot be opened: %s", tname, loc, strerror(errno));
    size_t bl = strlen(base_real);
    if (strncmp(real, base_real, bl) || (real[bl] != '/' && !(bl == 1 && base_real[0] == '/')))
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': external data file "
                        "'%s' resolves outside the model folder (a symbolic link escaping it)",
                        tname, loc);
    /* O_NONBLOCK: opening a FIFO planted in the model folder must not block
     * the load forever (it is refused as not a regular file below). */
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': cannot open external "
                        "data file '%s': %s", tname, loc, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': external data '%s' "
                        "is not a regular file", tname, loc);
    }
    if ((uint64_t)offset > (uint64_t)st.st_size || need > (uint64_t)st.st_size - (uint64_t)offset) {
        close(fd);
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE, "ONNX import: tensor '%s': external data "
                        "file '%s' has %lld bytes, needs %llu at offset %lld", tname, loc,
                        (long long)st.st_size, (unsigned long long)need, (long long)offset);
    }
    *fd_out = fd;
    *off_out = offset;
    *loc_out = loc;
    return 0;
}

static int read_external(int fd, int64_t offset, const char *loc, const char *tname, void *dst,
                         uint64_t need)
{
    uint64_t done = 0;
    while (done < need) {
        ssize_t r = pread(fd, (char *)dst + done, need - done > (1u << 30) ? (1u << 30) : need - done,
                          (off_t)(offset + (int64_t)done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            close(fd);
            return acl_fail(ACL_ERROR_INVALID_FILE, "ONNX import: tensor '%s': reading external "
                            "data '%s' failed: %s", tname, loc, r ? strerror(errno) : "short file");
        }
        done += (uint64_t)r;
    }
    close(fd);
    return 0;
}

/* ---- TensorProto -> dense data ---- */

/* Converts tp into t (name untouched): dtype, shape, kind CONST, owned data. */
int onnx_tensor_from_proto(const char *base_dir, const Onnx__TensorProto *tp, const char *tname,
                             g_tensor *t)
{
    int dt;
    int odt = tp->has_data_type ? tp->data_type : 0;
    if (onnx_map_dtype(odt, &dt))
        return acl_fail(odt == 8 ? ACL_ERROR_UNSUPPORTED_DATA_TYPE : ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                        "ONNX import: tensor '%s' has element type %s (%d), which is not "
                        "supported", tname, onnx_dtype_name(odt), odt);
    if (tp->segment)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: tensor '%s' is segmented; "
                        "segmented tensors are not supported", tname);
    if (tp->n_dims > G_MAX_RANK)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: tensor '%s' has rank %zu; at "
                        "most %d is supported", tname, tp->n_dims, G_MAX_RANK);
    size_t es = g_dtype_size(dt);
    uint64_t numel = 1;
    for (size_t i = 0; i < tp->n_dims; i++) {
        int64_t d = tp->dims[i];
        if (d < 0)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s' has negative "
                            "dimension %lld at axis %zu", tname, (long long)d, i);
        if (d && numel > MAX_TENSOR_BYTES / (uint64_t)d)
            return acl_fail(ACL_ERROR_MODEL_SIZE_INVALID, "ONNX import: tensor '%s': the product "
                            "of its dimensions overflows (axis %zu = %lld)", tname, i, (long long)d);
        numel *= (uint64_t)d;
        t->shape.d[i] = d;
    }
    if (numel > MAX_TENSOR_BYTES / es)
        return acl_fail(ACL_ERROR_MODEL_SIZE_INVALID, "ONNX import: tensor '%s' declares %llu "
                        "elements of %s, more than the %llu bytes allowed", tname,
                        (unsigned long long)numel, g_dtype_name(dt),
                        (unsigned long long)MAX_TENSOR_BYTES);
    uint64_t nbytes = numel * es;
    t->shape.rank = (int)tp->n_dims;
    t->dtype = dt;
    t->kind = G_TK_CONST;

    int external = tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    /* Every source is checked against nbytes before anything is allocated. */
    size_t typed = 0;
    const char *field = NULL;
    switch (dt) {
    case G_F32: typed = tp->n_float_data; field = "float_data"; break;
    case G_I32: case G_I16: case G_I8: case G_U16: case G_U8: case G_BOOL: case G_F16: case G_BF16:
        typed = tp->n_int32_data; field = "int32_data"; break;
    case G_I64: typed = tp->n_int64_data; field = "int64_data"; break;
    case G_F64: typed = tp->n_double_data; field = "double_data"; break;
    case G_U32: case G_U64: typed = tp->n_uint64_data; field = "uint64_data"; break;
    }
    if (!external && tp->has_raw_data) {
        if (tp->raw_data.len != nbytes)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s' (%s, %llu elements) "
                            "has %zu bytes of raw_data, expected %llu", tname, g_dtype_name(dt),
                            (unsigned long long)numel, tp->raw_data.len,
                            (unsigned long long)nbytes);
    } else if (!external) {
        if (typed != numel)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: tensor '%s' (%s, %llu elements) "
                            "has %zu values in %s%s", tname, g_dtype_name(dt),
                            (unsigned long long)numel, typed, field,
                            typed == 0 ? " and no raw_data (missing initializer data)" : "");
    }
    int ext_fd = -1;
    int64_t ext_off = 0;
    const char *ext_loc = NULL;
    if (external) {
        int rc = open_external(base_dir, tp, tname, nbytes, &ext_fd, &ext_off, &ext_loc);
        if (rc) return rc;
    }
    if (!external && tp->has_raw_data && nbytes >= 4096 && tp->raw_data.data) {
        /* take the unpacked message's copy (protobuf-c's default allocator
         * is malloc) instead of copying it: the load then holds the weights
         * once less at its peak (ResNet-50: about 100 MB). The message is
         * read once and freed right after the import. */
        Onnx__TensorProto *own = (Onnx__TensorProto *)tp;
        free(t->data);
        t->data = own->raw_data.data;
        t->nbytes = (size_t)nbytes;
        own->raw_data.data = NULL;
        own->raw_data.len = 0;
        return 0;
    }
    void *data = malloc(nbytes ? (size_t)nbytes : 1);
    if (!data) {
        if (ext_fd >= 0) close(ext_fd);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "ONNX import: tensor '%s': cannot allocate "
                        "%llu bytes", tname, (unsigned long long)nbytes);
    }
    if (external) {
        int rc = read_external(ext_fd, ext_off, ext_loc, tname, data, nbytes);
        if (rc) { free(data); return rc; }
    } else if (tp->has_raw_data) {
        if (nbytes) memcpy(data, tp->raw_data.data, (size_t)nbytes);
    } else {
        for (uint64_t i = 0; i < numel; i++) {
            switch (dt) {
            case G_F32: ((float *)data)[i] = tp->float_data[i]; break;
            case G_I32: ((int32_t *)data)[i] = tp->int32_data[i]; break;
            case G_I16: ((int16_t *)data)[i] = (int16_t)tp->int32_data[i]; break;
            case G_I8: ((int8_t *)data)[i] = (int8_t)tp->int32_data[i]; break;
            case G_U16: case G_F16: case G_BF16:
                ((uint16_t *)data)[i] = (uint16_t)tp->int32_data[i]; break;
            case G_U8: ((uint8_t *)data)[i] = (uint8_t)tp->int32_data[i]; break;
            case G_BOOL: ((uint8_t *)data)[i] = tp->int32_data[i] != 0; break;
            case G_I64: ((int64_t *)data)[i] = tp->int64_data[i]; break;
            case G_F64: ((double *)data)[i] = tp->double_data[i]; break;
            case G_U32: ((uint32_t *)data)[i] = (uint32_t)tp->uint64_data[i]; break;
            case G_U64: ((uint64_t *)data)[i] = tp->uint64_data[i]; break;
            }
        }
    }
    free(t->data);
    t->data = data;
    t->nbytes = (size_t)nbytes;
    return 0;
}
