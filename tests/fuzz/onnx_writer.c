/* See onnx_writer.h. Allocation failures abort: this is test-side code. */
#include "onnx_writer.h"

#include <stdlib.h>
#include <string.h>

void pb_free(pb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void pb_raw(pb *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        while (c < b->n + n) c *= 2;
        unsigned char *q = realloc(b->p, c);
        if (!q) abort();
        b->p = q;
        b->cap = c;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

void pb_varint(pb *b, uint64_t v)
{
    unsigned char t[10];
    size_t k = 0;
    do {
        t[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) t[k] |= 0x80;
        k++;
    } while (v);
    pb_raw(b, t, k);
}

void pb_tag(pb *b, int field, int wire) { pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire); }

void pb_int(pb *b, int field, int64_t v)
{
    pb_tag(b, field, 0);
    pb_varint(b, (uint64_t)v);
}

void pb_bytes(pb *b, int field, const void *d, size_t n)
{
    pb_tag(b, field, 2);
    pb_varint(b, n);
    pb_raw(b, d, n);
}

void pb_str(pb *b, int field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

void pb_msg(pb *b, int field, pb *sub)
{
    pb_bytes(b, field, sub->p, sub->n);
    pb_free(sub);
}

void pb_len_header(pb *b, int field, uint64_t claimed)
{
    pb_tag(b, field, 2);
    pb_varint(b, claimed);
}

void onnx_value_info(pb *graph, int field, const char *name, int elem, int rank, const int64_t *dims)
{
    pb shape = { 0 }, tt = { 0 }, type = { 0 }, vi = { 0 };
    for (int i = 0; i < rank; i++) {
        pb d = { 0 };
        if (dims[i] < 0) pb_str(&d, 2, "N");
        else pb_int(&d, 1, dims[i]);
        pb_msg(&shape, 1, &d);
    }
    pb_int(&tt, 1, elem);
    if (rank >= 0) pb_msg(&tt, 2, &shape);
    else pb_free(&shape);
    pb_msg(&type, 1, &tt);
    pb_str(&vi, 1, name);
    pb_msg(&vi, 2, &type);
    pb_msg(graph, field, &vi);
}

void onnx_node_attr(pb *graph, const char *op, const char *name, const char *const *in,
                    const char *const *out, pb *attr)
{
    pb n = { 0 };
    for (; in && *in; in++) pb_str(&n, 1, *in);
    for (; out && *out; out++) pb_str(&n, 2, *out);
    pb_str(&n, 3, name);
    pb_str(&n, 4, op);
    if (attr) pb_msg(&n, 5, attr);
    pb_msg(graph, 1, &n);
}

void onnx_node(pb *graph, const char *op, const char *name, const char *const *in, const char *const *out)
{
    onnx_node_attr(graph, op, name, in, out, NULL);
}

void onnx_tensor(pb *t, const char *name, int elem, int rank, const int64_t *dims, const void *raw,
                 size_t raw_len)
{
    for (int i = 0; i < rank; i++) pb_int(t, 1, dims[i]);
    pb_int(t, 2, elem);
    pb_str(t, 8, name);
    if (raw) pb_bytes(t, 9, raw, raw_len);
}

void onnx_external(pb *t, const char *location, const char *offset, const char *length)
{
    const char *keys[3] = { "location", "offset", "length" }, *vals[3] = { location, offset, length };
    for (int i = 0; i < 3; i++) {
        if (!vals[i]) continue;
        pb e = { 0 };
        pb_str(&e, 1, keys[i]);
        pb_str(&e, 2, vals[i]);
        pb_msg(t, 13, &e);
    }
    pb_int(t, 14, 1);   /* data_location = EXTERNAL */
}

void onnx_model(pb *model, pb *graph, int64_t opset)
{
    pb os = { 0 };
    pb_int(model, 1, 8);   /* ir_version */
    pb_str(model, 2, "openacl-tests");
    pb_int(&os, 2, opset);
    pb_msg(model, 8, &os);
    pb_msg(model, 7, graph);
}
