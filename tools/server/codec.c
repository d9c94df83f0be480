/* The inference request decoder and response encoder of openacl-server.
 * Pure functions over bytes and a model signature: no sockets and no
 * runtime, so the fuzz target (tests/server/fuzz_server_infer.c) drives
 * exactly what the server runs on every request body. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

/* ---- srv_buf ---- */
static int buf_reserve(srv_buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void srv_buf_put(srv_buf *b, const void *data, size_t n)
{
    if (buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
}

void srv_buf_puts(srv_buf *b, const char *s) { srv_buf_put(b, s, strlen(s)); }

void srv_buf_printf(srv_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        srv_buf_put(b, small, (size_t)n);
        return;
    }
    if (buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void srv_buf_json_str(srv_buf *b, const char *s)
{
    srv_buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            srv_buf_put(b, e, 2);
        } else if (*p < 0x20) {
            srv_buf_printf(b, "\\u%04x", *p);
        } else {
            srv_buf_put(b, p, 1);
        }
    }
    srv_buf_put(b, "\"", 1);
}

void srv_buf_free(srv_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- datatypes ---- */
static const struct {
    const char *name;
    aclDataType dt;
    size_t size;
} k_types[] = {
    {"BOOL", ACL_BOOL, 1},     {"UINT8", ACL_UINT8, 1},   {"UINT16", ACL_UINT16, 2}, {"UINT32", ACL_UINT32, 4},
    {"UINT64", ACL_UINT64, 8}, {"INT8", ACL_INT8, 1},     {"INT16", ACL_INT16, 2},   {"INT32", ACL_INT32, 4},
    {"INT64", ACL_INT64, 8},   {"FP16", ACL_FLOAT16, 2},  {"FP32", ACL_FLOAT, 4},    {"FP64", ACL_DOUBLE, 8},
    {"BF16", ACL_BF16, 2},
};

const char *srv_dtype_name(aclDataType dt)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].dt == dt)
            return k_types[i].name;
    return NULL;
}

int srv_dtype_parse(const char *name, aclDataType *dt)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (!strcmp(k_types[i].name, name)) {
            *dt = k_types[i].dt;
            return 0;
        }
    return -1;
}

size_t srv_dtype_size(aclDataType dt)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].dt == dt)
            return k_types[i].size;
    return 0;
}

uint16_t srv_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int32_t exp = (int32_t)((x >> 23) & 0xff);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;   /* may carry into the exponent, which is the right rounding */
    return (uint16_t)(sign | h);
}

float srv_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, x;
    if (exp == 0) {
        if (!mant) {
            x = sign;
        } else {
            int e = -1;
            do {
                e++;
                mant <<= 1;
            } while (!(mant & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t srv_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);   /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

float srv_bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- decoding ---- */
static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void srv_request_clear(srv_request *req)
{
    for (int i = 0; i < SRV_MAX_IO; i++)
        free(req->in[i].owned);
    memset(req, 0, sizeof *req);
}

typedef struct {
    aclDataType dt;
    size_t esize, n, at;
    unsigned char *dst;
    const char *input;
    char *err;
    size_t errlen;
} fill_ctx;

/* Stores one JSON element as the tensor's type; integers must be exact and
 * in range, booleans are JSON booleans. */
static int fill_one(fill_ctx *f, const cJSON *v)
{
    if (f->at >= f->n) {
        set_err(f->err, f->errlen, "input '%s': 'data' holds more than the %zu elements of its shape", f->input,
                f->n);
        return -1;
    }
    unsigned char *d = f->dst + f->at * f->esize;
    if (f->dt == ACL_BOOL) {
        if (!cJSON_IsBool(v)) {
            set_err(f->err, f->errlen, "input '%s': element %zu of a BOOL tensor is not true or false", f->input,
                    f->at);
            return -1;
        }
        *d = cJSON_IsTrue(v) ? 1 : 0;
        f->at++;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        set_err(f->err, f->errlen, "input '%s': element %zu is not a number", f->input, f->at);
        return -1;
    }
    double x = v->valuedouble;
    switch (f->dt) {
    case ACL_FLOAT: {
        float y = (float)x;
        memcpy(d, &y, 4);
        break;
    }
    case ACL_DOUBLE:
        memcpy(d, &x, 8);
        break;
    case ACL_FLOAT16: {
        uint16_t y = srv_f32_to_f16((float)x);
        memcpy(d, &y, 2);
        break;
    }
    case ACL_BF16: {
        uint16_t y = srv_f32_to_bf16((float)x);
        memcpy(d, &y, 2);
        break;
    }
    default: {
        double lo, hi;
        switch (f->dt) {
        case ACL_INT8: lo = -128; hi = 127; break;
        case ACL_INT16: lo = -32768; hi = 32767; break;
        case ACL_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
        case ACL_INT64: lo = -9223372036854775808.0; hi = 9223372036854774784.0; break;
        case ACL_UINT8: lo = 0; hi = 255; break;
        case ACL_UINT16: lo = 0; hi = 65535; break;
        case ACL_UINT32: lo = 0; hi = 4294967295.0; break;
        default: lo = 0; hi = 18446744073709549568.0; break;   /* UINT64 */
        }
        if (!(x >= lo && x <= hi) || x != floor(x)) {
            set_err(f->err, f->errlen, "input '%s': element %zu (%g) is not an integer in range for %s", f->input,
                    f->at, x, srv_dtype_name(f->dt));
            return -1;
        }
        switch (f->dt) {
        case ACL_INT8: { int8_t y = (int8_t)x; memcpy(d, &y, 1); break; }
        case ACL_INT16: { int16_t y = (int16_t)x; memcpy(d, &y, 2); break; }
        case ACL_INT32: { int32_t y = (int32_t)x; memcpy(d, &y, 4); break; }
        case ACL_INT64: { int64_t y = (int64_t)x; memcpy(d, &y, 8); break; }
        case ACL_UINT8: { uint8_t y = (uint8_t)x; memcpy(d, &y, 1); break; }
        case ACL_UINT16: { uint16_t y = (uint16_t)x; memcpy(d, &y, 2); break; }
        case ACL_UINT32: { uint32_t y = (uint32_t)x; memcpy(d, &y, 4); break; }
        default: { uint64_t y = (uint64_t)x; memcpy(d, &y, 8); break; }
        }
    }
    }
    f->at++;
    return 0;
}

/* Row-major, nested or flat: every array is walked in order. cJSON already
 * bounds the nesting depth at parse time. */
static int fill_walk(fill_ctx *f, const cJSON *v)
{
    if (cJSON_IsArray(v)) {
        for (const cJSON *e = v->child; e; e = e->next)
            if (fill_walk(f, e))
                return -1;
        return 0;
    }
    return fill_one(f, v);
}

static int get_bool_param(const cJSON *params, const char *key, int *out, char *err, size_t errlen,
                          const char *where)
{
    const cJSON *p = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
    if (!p)
        return 0;
    if (!cJSON_IsBool(p)) {
        set_err(err, errlen, "%s: parameter '%s' must be a boolean", where, key);
        return -1;
    }
    *out = cJSON_IsTrue(p);
    return 0;
}

int srv_decode_infer(const srv_sig *sig, const char *body, size_t len, size_t header_len, size_t max_elems,
                     srv_request *req, char *err, size_t errlen)
{
    memset(req, 0, sizeof *req);
    if (header_len > len) {
        set_err(err, errlen, "Inference-Header-Content-Length (%zu) is larger than the body (%zu bytes)", header_len,
                len);
        return -1;
    }
    if (header_len == 0) {
        set_err(err, errlen, "the request body is empty: an inference request JSON object is required");
        return -1;
    }
    /* A JSON array costs the parser about 64 bytes a value: bound the values
     * by what the model can take before parsing (each value but the last
     * of an array is followed by a comma), so a body of commas cannot make
     * the server allocate dozens of times its size. */
    size_t max_values = 4096;
    for (int i = 0; i < sig->n_in; i++) {
        size_t n = 1;
        for (int d = 0; d < sig->in[i].ndim; d++) {
            int64_t v = d == 0 && sig->batched ? sig->max_batch : sig->in[i].dims[d];
            n = v > 0 && n <= SIZE_MAX / (size_t)v ? n * (size_t)v : (v > 0 ? SIZE_MAX : n);
        }
        max_values = n > SIZE_MAX - max_values ? SIZE_MAX : max_values + n;
    }
    size_t commas = 0;
    for (const char *q = body; q < body + header_len; q++)
        commas += *q == ',';
    if (commas > max_values) {
        set_err(err, errlen, "the request holds more values (%zu) than the model's inputs can take (%zu)", commas,
                max_values);
        return -1;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, header_len, &end, 0);
    if (!root) {
        size_t at = end && end >= body ? (size_t)(end - body) : 0;
        set_err(err, errlen, "malformed JSON in the request at byte %zu", at);
        return -1;
    }
    int rc = -1;
    for (const char *p = end; p < body + header_len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != 0) {
            set_err(err, errlen, "trailing bytes after the JSON object at byte %zu", (size_t)(p - body));
            goto out;
        }
    if (!cJSON_IsObject(root)) {
        set_err(err, errlen, "the request must be a JSON object");
        goto out;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (id) {
        if (!cJSON_IsString(id) || strlen(id->valuestring) >= sizeof req->id) {
            set_err(err, errlen, "'id' must be a string of at most %zu bytes", sizeof req->id - 1);
            goto out;
        }
        strcpy(req->id, id->valuestring);
        req->has_id = 1;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    if (params && !cJSON_IsObject(params)) {
        set_err(err, errlen, "'parameters' must be an object");
        goto out;
    }
    int all_binary = 0;
    if (get_bool_param(params, "binary_data_output", &all_binary, err, errlen, "request"))
        goto out;
    const cJSON *tmo = params ? cJSON_GetObjectItemCaseSensitive(params, "timeout") : NULL;
    if (tmo) {
        if (!cJSON_IsNumber(tmo) || tmo->valuedouble < 1 || tmo->valuedouble > 3.6e9 ||
            tmo->valuedouble != floor(tmo->valuedouble)) {
            set_err(err, errlen, "parameter 'timeout' must be an integer number of microseconds, 1 to 3600000000");
            goto out;
        }
        req->timeout_us = (int64_t)tmo->valuedouble;
    }

    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
    if (!cJSON_IsArray(inputs)) {
        set_err(err, errlen, "'inputs' must be an array of input tensors");
        goto out;
    }
    int seen[SRV_MAX_IO] = {0};
    size_t bin_at = header_len, total_elems = 0;
    req->rows = -1;
    int n_given = 0;
    for (const cJSON *in = inputs->child; in; in = in->next, n_given++) {
        if (!cJSON_IsObject(in)) {
            set_err(err, errlen, "inputs[%d] must be an object", n_given);
            goto out;
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(in, "name");
        if (!cJSON_IsString(name)) {
            set_err(err, errlen, "inputs[%d]: 'name' must be a string", n_given);
            goto out;
        }
        int k = -1;
        for (int i = 0; i < sig->n_in; i++)
            if (!strcmp(sig->in[i].name, name->valuestring))
                k = i;
        if (k < 0) {
            set_err(err, errlen, "unexpected input '%.64s'; the model's inputs:", name->valuestring);
            for (int i = 0; i < sig->n_in && i < 6; i++) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l, " '%s'", sig->in[i].name);
            }
            goto out;
        }
        if (seen[k]) {
            set_err(err, errlen, "input '%s' is given twice", sig->in[k].name);
            goto out;
        }
        seen[k] = 1;
        const srv_io *io = &sig->in[k];
        const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(in, "datatype");
        aclDataType dt;
        if (!cJSON_IsString(dtype) || srv_dtype_parse(dtype->valuestring, &dt)) {
            set_err(err, errlen, "input '%s': 'datatype' must be a v2 datatype name (the model takes %s)", io->name,
                    srv_dtype_name(io->dtype));
            goto out;
        }
        if (dt != io->dtype) {
            set_err(err, errlen, "input '%s': datatype %s does not match the model's %s", io->name,
                    dtype->valuestring, srv_dtype_name(io->dtype));
            goto out;
        }
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(in, "shape");
        if (!cJSON_IsArray(shape)) {
            set_err(err, errlen, "input '%s': 'shape' must be an array of dims", io->name);
            goto out;
        }
        srv_tensor *t = &req->in[k];
        int nd = 0;
        for (const cJSON *d = shape->child; d; d = d->next, nd++) {
            if (nd >= SRV_MAX_DIMS || !cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 1e12 ||
                d->valuedouble != floor(d->valuedouble)) {
                set_err(err, errlen, "input '%s': 'shape' must hold at most %d non-negative integers", io->name,
                        SRV_MAX_DIMS);
                goto out;
            }
            t->dims[nd] = (int64_t)d->valuedouble;
        }
        t->ndim = nd;
        /* the model's shape, batch dim excepted on batched models */
        int ok = nd == io->ndim;
        for (int d = 0; ok && d < nd; d++) {
            if (d == 0 && sig->batched)
                ok = t->dims[0] >= 1 && t->dims[0] <= sig->max_batch;
            else
                ok = t->dims[d] == io->dims[d];
        }
        if (!ok) {
            char want[160] = "", got[160] = "";
            size_t wl = 0, gl = 0;
            for (int d = 0; d < io->ndim; d++)
                wl += (size_t)snprintf(want + wl, sizeof want - wl > wl ? sizeof want - wl : 0, "%s%" PRId64,
                                       d ? "," : "", io->dims[d]);
            for (int d = 0; d < nd && gl < sizeof got; d++)
                gl += (size_t)snprintf(got + gl, sizeof got - gl, "%s%" PRId64, d ? "," : "", t->dims[d]);
            set_err(err, errlen, "input '%s': shape [%s] does not match the model's [%s]%s", io->name, got, want,
                    sig->batched ? " (-1: a batch of 1 to max_batch_size rows)" : "");
            if (sig->batched) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l, ", max_batch_size %" PRId64, sig->max_batch);
            }
            goto out;
        }
        int64_t rows = sig->batched ? t->dims[0] : 1;
        if (req->rows >= 0 && rows != req->rows) {
            set_err(err, errlen, "input '%s': batch %" PRId64 " differs from the other inputs' %" PRId64, io->name,
                    rows, req->rows);
            goto out;
        }
        req->rows = rows;
        size_t n = 1;
        for (int d = 0; d < nd; d++)
            n *= (size_t)t->dims[d];   /* bounded: equal to the model's dims */
        total_elems += n;
        if (total_elems > max_elems) {
            set_err(err, errlen, "the request holds more than %zu elements", max_elems);
            goto out;
        }
        size_t esize = srv_dtype_size(dt);
        t->bytes = n * esize;

        const cJSON *ip = cJSON_GetObjectItemCaseSensitive(in, "parameters");
        if (ip && !cJSON_IsObject(ip)) {
            set_err(err, errlen, "input '%s': 'parameters' must be an object", io->name);
            goto out;
        }
        const cJSON *bds = ip ? cJSON_GetObjectItemCaseSensitive(ip, "binary_data_size") : NULL;
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(in, "data");
        if (bds) {
            if (data) {
                set_err(err, errlen, "input '%s': both 'data' and binary_data_size are given", io->name);
                goto out;
            }
            if (!cJSON_IsNumber(bds) || bds->valuedouble < 0 || bds->valuedouble != floor(bds->valuedouble)) {
                set_err(err, errlen, "input '%s': binary_data_size must be a non-negative integer", io->name);
                goto out;
            }
            double want = (double)t->bytes;
            if (bds->valuedouble != want) {
                set_err(err, errlen, "input '%s': binary_data_size %.0f, but shape and datatype make %zu bytes",
                        io->name, bds->valuedouble, t->bytes);
                goto out;
            }
            if (len - bin_at < t->bytes) {
                set_err(err, errlen, "input '%s': the body holds %zu binary bytes after the JSON, %zu needed",
                        io->name, len - bin_at, t->bytes);
                goto out;
            }
            t->data = body + bin_at;
            bin_at += t->bytes;
        } else {
            if (!data) {
                set_err(err, errlen, "input '%s' has neither 'data' nor a binary_data_size parameter", io->name);
                goto out;
            }
            t->owned = malloc(t->bytes ? t->bytes : 1);
            if (!t->owned) {
                set_err(err, errlen, "out of memory for input '%s' (%zu bytes)", io->name, t->bytes);
                goto out;
            }
            fill_ctx f = {dt, esize, n, 0, t->owned, io->name, err, errlen};
            if (fill_walk(&f, data))
                goto out;
            if (f.at != n) {
                set_err(err, errlen, "input '%s': 'data' holds %zu elements, its shape %zu", io->name, f.at, n);
                goto out;
            }
            t->data = t->owned;
        }
    }
    for (int i = 0; i < sig->n_in; i++)
        if (!seen[i]) {
            set_err(err, errlen, "input '%s' is missing", sig->in[i].name);
            goto out;
        }
    if (bin_at != len) {
        set_err(err, errlen, "%zu bytes after the JSON object are not claimed by any binary_data_size", len - bin_at);
        goto out;
    }

    const cJSON *outs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
    if (outs) {
        if (!cJSON_IsArray(outs)) {
            set_err(err, errlen, "'outputs' must be an array");
            goto out;
        }
        int picked[SRV_MAX_IO] = {0};
        int j = 0;
        for (const cJSON *o = outs->child; o; o = o->next, j++) {
            const cJSON *name = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "name") : NULL;
            if (!cJSON_IsString(name)) {
                set_err(err, errlen, "outputs[%d] must be an object with a string 'name'", j);
                goto out;
            }
            int k = -1;
            for (int i = 0; i < sig->n_out; i++)
                if (!strcmp(sig->out[i].name, name->valuestring))
                    k = i;
            if (k < 0) {
                set_err(err, errlen, "unknown output '%.64s' requested", name->valuestring);
                goto out;
            }
            if (picked[k]) {
                set_err(err, errlen, "output '%s' is requested twice", sig->out[k].name);
                goto out;
            }
            picked[k] = 1;
            const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "parameters");
            if (op && !cJSON_IsObject(op)) {
                set_err(err, errlen, "output '%s': 'parameters' must be an object", sig->out[k].name);
                goto out;
            }
            if (op && cJSON_GetObjectItemCaseSensitive(op, "classification")) {
                set_err(err, errlen, "output '%s': the classification extension is not supported", sig->out[k].name);
                goto out;
            }
            int bin = all_binary;
            if (get_bool_param(op, "binary_data", &bin, err, errlen, sig->out[k].name))
                goto out;
            req->out_idx[req->n_out] = k;
            req->out_binary[req->n_out] = bin;
            req->n_out++;
        }
        if (req->n_out == 0) {
            set_err(err, errlen, "'outputs' is empty: omit it to get every output");
            goto out;
        }
    } else {
        for (int i = 0; i < sig->n_out; i++) {
            req->out_idx[i] = i;
            req->out_binary[i] = all_binary;
        }
        req->n_out = sig->n_out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int srv_parse_size(const char *s, size_t max, size_t *out)
{
    size_t v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (max - (size_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (size_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* ---- routing ---- */
#define ROUTE_MAX_SEG 8
void srv_route_parse(const char *path, srv_route *r)
{
    memset(r, 0, sizeof *r);
    r->ep = SRV_EP_NOT_FOUND;
    r->why = "not found";
    /* segments between slashes, empty ones skipped, at most ROUTE_MAX_SEG */
    const char *seg[ROUTE_MAX_SEG];
    size_t len[ROUTE_MAX_SEG];
    int n = 0;
    const char *p = path;
    while (*p && *p != '?') {
        while (*p == '/')
            p++;
        if (!*p || *p == '?')
            break;
        const char *e = p;
        while (*e && *e != '/' && *e != '?')
            e++;
        if (n == ROUTE_MAX_SEG)
            return;
        seg[n] = p;
        len[n++] = (size_t)(e - p);
        p = e;
    }
#define IS(i, lit) (len[i] == sizeof(lit) - 1 && !memcmp(seg[i], lit, sizeof(lit) - 1))
#define COPY(dst, i) snprintf(dst, sizeof dst, "%.*s", (int)(len[i] < sizeof dst ? len[i] : 0), seg[i])
    if (n == 1 && IS(0, "metrics")) {
        r->ep = SRV_EP_METRICS;
        return;
    }
    if (n < 1 || !IS(0, "v2")) {
        r->why = "not found: the API is under /v2";
        return;
    }
    if (n == 1) {
        r->ep = SRV_EP_SERVER;
    } else if (n == 3 && IS(1, "health") && (IS(2, "live") || IS(2, "ready"))) {
        r->ep = IS(2, "live") ? SRV_EP_LIVE : SRV_EP_READY;
    } else if (n >= 3 && IS(1, "models")) {
        int k = 3;
        COPY(r->model, 2);
        if (n >= 5 && IS(3, "versions")) {
            COPY(r->version, 4);
            r->has_version = 1;
            k = 5;
        }
        if (n == k)
            r->ep = SRV_EP_MODEL;
        else if (n == k + 1 && IS(k, "ready"))
            r->ep = SRV_EP_MODEL_READY;
        else if (n == k + 1 && IS(k, "config"))
            r->ep = SRV_EP_MODEL_CONFIG;
        else if (n == k + 1 && IS(k, "infer"))
            r->ep = SRV_EP_INFER;
        if (len[2] >= sizeof r->model || (r->has_version && len[4] >= sizeof r->version))
            r->ep = SRV_EP_NOT_FOUND;   /* no model or version has such a name */
    } else if (n == 3 && IS(1, "repository") && IS(2, "index")) {
        r->ep = SRV_EP_REPO_INDEX;
    } else if (n == 5 && IS(1, "repository") && IS(2, "models") && (IS(4, "load") || IS(4, "unload"))) {
        r->ep = IS(4, "load") ? SRV_EP_REPO_LOAD : SRV_EP_REPO_UNLOAD;
        COPY(r->model, 3);
        if (len[3] >= sizeof r->model)
            r->ep = SRV_EP_NOT_FOUND;
    }
#undef IS
#undef COPY
    r->post = r->ep == SRV_EP_INFER || r->ep == SRV_EP_REPO_INDEX || r->ep == SRV_EP_REPO_LOAD ||
              r->ep == SRV_EP_REPO_UNLOAD;
}

/* ---- encoding ---- */
static void put_float(srv_buf *b, double x, int prec)
{
    if (isnan(x))
        srv_buf_put(b, "NaN", 3);
    else if (isinf(x))
        srv_buf_puts(b, x > 0 ? "Infinity" : "-Infinity");
    else
        srv_buf_printf(b, "%.*g", prec, x);
}

static void put_elems(srv_buf *b, aclDataType dt, const unsigned char *p, size_t n)
{
    size_t es = srv_dtype_size(dt);
    for (size_t i = 0; i < n; i++, p += es) {
        if (i)
            srv_buf_put(b, ",", 1);
        switch (dt) {
        case ACL_FLOAT: { float v; memcpy(&v, p, 4); put_float(b, v, 9); break; }
        case ACL_DOUBLE: { double v; memcpy(&v, p, 8); put_float(b, v, 17); break; }
        case ACL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); put_float(b, srv_f16_to_f32(v), 5); break; }
        case ACL_BF16: { uint16_t v; memcpy(&v, p, 2); put_float(b, srv_bf16_to_f32(v), 4); break; }
        case ACL_BOOL: srv_buf_puts(b, *p ? "true" : "false"); break;
        case ACL_INT8: srv_buf_printf(b, "%d", (int)(int8_t)*p); break;
        case ACL_UINT8: srv_buf_printf(b, "%u", (unsigned)*p); break;
        case ACL_INT16: { int16_t v; memcpy(&v, p, 2); srv_buf_printf(b, "%d", v); break; }
        case ACL_UINT16: { uint16_t v; memcpy(&v, p, 2); srv_buf_printf(b, "%u", v); break; }
        case ACL_INT32: { int32_t v; memcpy(&v, p, 4); srv_buf_printf(b, "%" PRId32, v); break; }
        case ACL_UINT32: { uint32_t v; memcpy(&v, p, 4); srv_buf_printf(b, "%" PRIu32, v); break; }
        case ACL_INT64: { int64_t v; memcpy(&v, p, 8); srv_buf_printf(b, "%" PRId64, v); break; }
        default: { uint64_t v; memcpy(&v, p, 8); srv_buf_printf(b, "%" PRIu64, v); break; }
        }
    }
}

int srv_encode_infer(const srv_sig *sig, const char *model, const char *version, const srv_request *req,
                     void *const out[], srv_buf *body, size_t *json_len, int *any_binary)
{
    size_t bytes[SRV_MAX_IO];
    *any_binary = 0;
    srv_buf_puts(body, "{\"model_name\":");
    srv_buf_json_str(body, model);
    srv_buf_puts(body, ",\"model_version\":");
    srv_buf_json_str(body, version);
    if (req->has_id) {
        srv_buf_puts(body, ",\"id\":");
        srv_buf_json_str(body, req->id);
    }
    srv_buf_puts(body, ",\"outputs\":[");
    for (int j = 0; j < req->n_out; j++) {
        const srv_io *io = &sig->out[req->out_idx[j]];
        size_t n = 1;
        srv_buf_puts(body, j ? ",{\"name\":" : "{\"name\":");
        srv_buf_json_str(body, io->name);
        srv_buf_printf(body, ",\"datatype\":\"%s\",\"shape\":[", srv_dtype_name(io->dtype));
        for (int d = 0; d < io->ndim; d++) {
            int64_t v = d == 0 && sig->batched ? req->rows : io->dims[d];
            n *= (size_t)v;
            srv_buf_printf(body, "%s%" PRId64, d ? "," : "", v);
        }
        bytes[j] = n * srv_dtype_size(io->dtype);
        if (req->out_binary[j]) {
            *any_binary = 1;
            srv_buf_printf(body, "],\"parameters\":{\"binary_data_size\":%zu}}", bytes[j]);
        } else {
            srv_buf_puts(body, "],\"data\":[");
            put_elems(body, io->dtype, out[j], n);
            srv_buf_puts(body, "]}");
        }
    }
    srv_buf_puts(body, "]}");
    *json_len = body->len;
    for (int j = 0; j < req->n_out; j++)
        if (req->out_binary[j])
            srv_buf_put(body, out[j], bytes[j]);
    return body->oom ? -1 : 0;
}
