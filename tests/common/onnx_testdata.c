/* TensorProto reader and result comparison for the ONNX backend test data
 * (see onnx_testdata.h). The protobuf wire format is read directly: varints,
 * fixed 32/64-bit and length-delimited fields, packed or not. */
#include "onnx_testdata.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t otd_dtype_size(int dt)
{
    switch (dt) {
    case 1: case 6: case 12: return 4;
    case 2: case 3: case 9: return 1;
    case 4: case 5: case 10: case 16: return 2;
    case 7: case 11: case 13: return 8;
    default: return 0;
    }
}

const char *otd_dtype_name(int dt)
{
    static const char *const n[] = { "undefined", "float32", "uint8", "int8", "uint16", "int16",
                                      "int32", "int64", "string", "bool", "float16", "float64",
                                      "uint32", "uint64", "complex64", "complex128", "bfloat16" };
    return dt >= 0 && dt <= 16 ? n[dt] : "unknown";
}

int otd_read_file(const char *path, void **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END)) { fclose(f); return -1; }
    long sz = ftell(f);
    if (sz < 0) { fclose(f); return -1; }
    rewind(f);
    void *b = malloc((size_t)sz + 1);
    if (!b) { fclose(f); errno = ENOMEM; return -1; }
    if (sz && fread(b, 1, (size_t)sz, f) != (size_t)sz) { free(b); fclose(f); errno = EIO; return -1; }
    fclose(f);
    *buf = b;
    *len = (size_t)sz;
    return 0;
}

typedef struct rd { const uint8_t *p, *end; } rd;

static int rd_varint(rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (r->p >= r->end) return -1;
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) { *v = x; return 0; }
    }
    return -1;
}

/* A repeated numeric field, gathered from packed and unpacked occurrences. */
typedef struct nums { uint64_t *v; size_t n, cap; } nums;

static int nums_add(nums *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        uint64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* kind: 0 varint, 4 fixed32, 8 fixed64 */
static int read_num_field(rd *r, int wire, int kind, nums *a)
{
    uint64_t x;
    if (wire == 2) {
        uint64_t len;
        if (rd_varint(r, &len) || len > (uint64_t)(r->end - r->p)) return -1;
        rd sub = { r->p, r->p + len };
        r->p += len;
        while (sub.p < sub.end) {
            if (kind == 0) { if (rd_varint(&sub, &x)) return -1; }
            else {
                if ((size_t)(sub.end - sub.p) < (size_t)kind) return -1;
                x = 0;
                memcpy(&x, sub.p, (size_t)kind);
                sub.p += kind;
            }
            if (nums_add(a, x)) return -1;
        }
        return 0;
    }
    if (wire == 0 && kind == 0) { if (rd_varint(r, &x)) return -1; return nums_add(a, x); }
    if ((wire == 5 && kind == 4) || (wire == 1 && kind == 8)) {
        if ((size_t)(r->end - r->p) < (size_t)kind) return -1;
        x = 0;
        memcpy(&x, r->p, (size_t)kind);
        r->p += kind;
        return nums_add(a, x);
    }
    return -1;
}

static int skip_field(rd *r, int wire)
{
    uint64_t x;
    switch (wire) {
    case 0: return rd_varint(r, &x);
    case 1: if (r->end - r->p < 8) return -1; r->p += 8; return 0;
    case 5: if (r->end - r->p < 4) return -1; r->p += 4; return 0;
    case 2:
        if (rd_varint(r, &x) || x > (uint64_t)(r->end - r->p)) return -1;
        r->p += x;
        return 0;
    default: return -1;
    }
}

int otd_parse_tensor(const void *buf, size_t len, otd_tensor *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    rd r = { buf, (const uint8_t *)buf + len };
    nums dims = { 0 }, fl = { 0 }, i32 = { 0 }, i64 = { 0 }, dbl = { 0 }, u64 = { 0 };
    const uint8_t *raw = NULL;
    size_t raw_len = 0;
    int have_raw = 0, rc = -1;
    const char *why = "malformed protobuf";
    while (r.p < r.end) {
        uint64_t key;
        if (rd_varint(&r, &key)) goto out;
        int field = (int)(key >> 3), wire = (int)(key & 7);
        uint64_t x;
        switch (field) {
        case 1: if (read_num_field(&r, wire, 0, &dims)) goto out; break;
        case 2: if (wire != 0 || rd_varint(&r, &x)) goto out; t->dtype = (int)x; break;
        case 4: if (read_num_field(&r, wire, 4, &fl)) goto out; break;
        case 5: if (read_num_field(&r, wire, 0, &i32)) goto out; break;
        case 7: if (read_num_field(&r, wire, 0, &i64)) goto out; break;
        case 10: if (read_num_field(&r, wire, 8, &dbl)) goto out; break;
        case 11: if (read_num_field(&r, wire, 0, &u64)) goto out; break;
        case 8: case 9:
            if (wire != 2 || rd_varint(&r, &x) || x > (uint64_t)(r.end - r.p)) goto out;
            if (field == 8) {
                size_t n = x < sizeof t->name - 1 ? (size_t)x : sizeof t->name - 1;
                memcpy(t->name, r.p, n);
                t->name[n] = 0;
            } else {
                raw = r.p;
                raw_len = (size_t)x;
                have_raw = 1;
            }
            r.p += x;
            break;
        case 6: why = "string tensors are not supported"; goto out;
        case 13: why = "external data is not supported in test data"; goto out;
        default: if (skip_field(&r, wire)) goto out;
        }
    }
    if (dims.n > OTD_MAX_RANK) { why = "rank too high"; goto out; }
    t->rank = (int)dims.n;
    uint64_t numel = 1;
    for (size_t i = 0; i < dims.n; i++) {
        t->dims[i] = (int64_t)dims.v[i];
        if (t->dims[i] < 0 || (t->dims[i] && numel > (1ull << 40) / (uint64_t)t->dims[i])) {
            why = "bad dims"; goto out;
        }
        numel *= (uint64_t)t->dims[i];
    }
    size_t es = otd_dtype_size(t->dtype);
    if (!es) { why = "unsupported element type"; goto out; }
    t->nbytes = (size_t)numel * es;
    t->data = malloc(t->nbytes ? t->nbytes : 1);
    if (!t->data) { why = "out of memory"; goto out; }
    if (have_raw) {
        if (raw_len != t->nbytes) { why = "raw_data size does not match dims"; goto out; }
        memcpy(t->data, raw, raw_len);
    } else {
        const nums *src = t->dtype == 1 ? &fl : t->dtype == 7 ? &i64 : t->dtype == 11 ? &dbl :
                          (t->dtype == 12 || t->dtype == 13) ? &u64 : &i32;
        if (src->n != numel) { why = "value count does not match dims"; goto out; }
        for (size_t i = 0; i < numel; i++) {
            uint64_t v = src->v[i];
            switch (t->dtype) {
            case 1: { uint32_t b = (uint32_t)v; memcpy((char *)t->data + 4 * i, &b, 4); break; }
            case 11: case 7: case 13: memcpy((char *)t->data + 8 * i, &v, 8); break;
            case 6: case 12: { uint32_t b = (uint32_t)v; memcpy((char *)t->data + 4 * i, &b, 4); break; }
            case 4: case 5: case 10: case 16: { uint16_t b = (uint16_t)v; memcpy((char *)t->data + 2 * i, &b, 2); break; }
            case 2: case 3: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
            case 9: ((uint8_t *)t->data)[i] = v != 0; break;
            }
        }
    }
    rc = 0;
out:
    free(dims.v); free(fl.v); free(i32.v); free(i64.v); free(dbl.v); free(u64.v);
    if (rc) {
        if (err && errlen) snprintf(err, errlen, "%s", why);
        free(t->data);
        t->data = NULL;
    }
    return rc;
}

int otd_load_tensor(const char *path, otd_tensor *t, char *err, size_t errlen)
{
    void *b;
    size_t n;
    if (otd_read_file(path, &b, &n)) {
        if (err) snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        memset(t, 0, sizeof *t);
        return -1;
    }
    int rc = otd_parse_tensor(b, n, t, err, errlen);
    free(b);
    return rc;
}

void otd_tensor_free(otd_tensor *t)
{
    free(t->data);
    t->data = NULL;
}

static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, f;
    if (e == 0) {
        if (!m) f = s;
        else {
            e = 127 - 15 + 1;
            while (!(m & 1024)) { m <<= 1; e--; }
            f = s | (e << 23) | ((m & 1023) << 13);
        }
    } else if (e == 31) f = s | 0x7f800000u | (m << 13);
    else f = s | ((e + 127 - 15) << 23) | (m << 13);
    float r;
    memcpy(&r, &f, 4);
    return r;
}

double otd_get(int dt, const void *d, size_t i)
{
    switch (dt) {
    case 1: return ((const float *)d)[i];
    case 11: return ((const double *)d)[i];
    case 10: return half_to_float(((const uint16_t *)d)[i]);
    case 16: { uint32_t b = (uint32_t)((const uint16_t *)d)[i] << 16; float f; memcpy(&f, &b, 4); return f; }
    case 2: return ((const uint8_t *)d)[i];
    case 3: return ((const int8_t *)d)[i];
    case 4: return ((const uint16_t *)d)[i];
    case 5: return ((const int16_t *)d)[i];
    case 6: return ((const int32_t *)d)[i];
    case 7: return (double)((const int64_t *)d)[i];
    case 9: return ((const uint8_t *)d)[i] != 0;
    case 12: return ((const uint32_t *)d)[i];
    case 13: return (double)((const uint64_t *)d)[i];
    default: return 0;
    }
}

otd_tol otd_default_tol(int dt)
{
    if (dt == 10 || dt == 16) return (otd_tol){ 1e-2, 1e-2 };
    if (dt == 1 || dt == 11) return (otd_tol){ 1e-3, 1e-4 };
    return (otd_tol){ 0, 0 };
}

static int is_float(int dt) { return dt == 1 || dt == 10 || dt == 11 || dt == 16; }

int otd_compare(const otd_tensor *e, int dtype, int rank, const int64_t *dims, const void *data,
                size_t nbytes, otd_tol tol, char *msg, size_t len)
{
    if (dtype != e->dtype) {
        snprintf(msg, len, "type %s, expected %s", otd_dtype_name(dtype), otd_dtype_name(e->dtype));
        return 1;
    }
    int same = rank == e->rank;
    for (int i = 0; same && i < rank; i++) same = dims[i] == e->dims[i];
    if (!same) {
        char a[160] = "", b[160] = "";
        size_t pa = 0, pb = 0;
        for (int i = 0; i < rank && pa < sizeof a - 24; i++)
            pa += (size_t)snprintf(a + pa, sizeof a - pa, "%s%lld", i ? "," : "", (long long)dims[i]);
        for (int i = 0; i < e->rank && pb < sizeof b - 24; i++)
            pb += (size_t)snprintf(b + pb, sizeof b - pb, "%s%lld", i ? "," : "", (long long)e->dims[i]);
        snprintf(msg, len, "shape [%s], expected [%s]", a, b);
        return 1;
    }
    size_t es = otd_dtype_size(dtype), n = es ? e->nbytes / es : 0;
    if (nbytes < e->nbytes || (n && !data)) {
        snprintf(msg, len, "%zu bytes of result, expected %zu", nbytes, e->nbytes);
        return 1;
    }
    size_t bad = 0, first = 0;
    double fa = 0, fe = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double a = otd_get(dtype, data, i), x = otd_get(dtype, e->data, i);
        int ok;
        if (is_float(dtype)) {
            if (isnan(x) || isnan(a)) ok = isnan(x) && isnan(a);
            else if (isinf(x) || isinf(a)) ok = a == x;
            else ok = fabs(a - x) <= tol.atol + tol.rtol * fabs(x);
        } else if (dtype == 7 || dtype == 13) {
            ok = memcmp((const char *)data + 8 * i, (const char *)e->data + 8 * i, 8) == 0;
        } else {
            ok = a == x;
        }
        if (!ok) {
            if (!bad) { first = i; fa = a; fe = x; }
            if (fabs(a - x) > worst || isnan(a - x)) worst = fabs(a - x);
            bad++;
        }
    }
    if (!bad) return 0;
    snprintf(msg, len, "%zu of %zu values differ; first at %zu: got %.9g, expected %.9g; max abs "
             "diff %.3g", bad, n, first, fa, fe, worst);
    return 1;
}

/* ---- SequenceProto / OptionalProto ----
 * Both: name = 1, elem_type = 2 (1 tensor, 3 sequence, 5 optional),
 * tensor value(s) = 3, sequence value(s) = 5, optional value(s) = 7. */

void otd_value_free(otd_value *v)
{
    if (!v) return;
    otd_tensor_free(&v->t);
    for (int i = 0; i < v->n && v->items; i++) otd_value_free(&v->items[i]);
    free(v->items);
    memset(v, 0, sizeof *v);
}

static int push_item(otd_value *v, const void *p, size_t len, int kind, char *err, size_t errlen)
{
    otd_value *it = realloc(v->items, (size_t)(v->n + 1) * sizeof *it);
    if (!it) { snprintf(err, errlen, "out of memory"); return -1; }
    v->items = it;
    memset(&it[v->n], 0, sizeof it[v->n]);
    if (otd_parse_value(p, len, kind, &it[v->n], err, errlen)) return -1;
    v->n++;
    return 0;
}

int otd_parse_value(const void *buf, size_t len, int kind, otd_value *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    if (kind == OTD_TENSOR) return otd_parse_tensor(buf, len, &v->t, err, errlen);
    rd r = { buf, (const uint8_t *)buf + len };
    while (r.p < r.end) {
        uint64_t key, x;
        if (rd_varint(&r, &key)) goto bad;
        int field = (int)(key >> 3), wire = (int)(key & 7);
        if (wire == 2 && (field == 3 || field == 5 || field == 7)) {
            if (rd_varint(&r, &x) || x > (uint64_t)(r.end - r.p)) goto bad;
            int k = field == 3 ? OTD_TENSOR : field == 5 ? OTD_SEQUENCE : OTD_OPTIONAL;
            if (push_item(v, r.p, (size_t)x, k, err, errlen)) { otd_value_free(v); return -1; }
            r.p += x;
        } else if (wire == 2 && (field == 4 || field == 6)) {
            snprintf(err, errlen, "sparse tensors and maps are not supported");
            otd_value_free(v);
            return -1;
        } else if (skip_field(&r, wire)) {
            goto bad;
        }
    }
    if (kind == OTD_OPTIONAL && v->n > 1) { snprintf(err, errlen, "optional with %d values", v->n); otd_value_free(v); return -1; }
    return 0;
bad:
    snprintf(err, errlen, "malformed protobuf");
    otd_value_free(v);
    return -1;
}

int otd_load_value(const char *path, int kind, otd_value *v, char *err, size_t errlen)
{
    void *b;
    size_t n;
    if (otd_read_file(path, &b, &n)) {
        if (err) snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        memset(v, 0, sizeof *v);
        return -1;
    }
    int rc = otd_parse_value(b, n, kind, v, err, errlen);
    free(b);
    return rc;
}
