/* A tiny protobuf encoder for writing ONNX models (well formed or hostile)
 * in tests without the protobuf library: messages are built bottom-up into
 * growable byte buffers and embedded with pb_msg(). Field numbers follow
 * /usr/include/onnx/onnx.proto. */
#ifndef OPENACL_TESTS_ONNX_WRITER_H
#define OPENACL_TESTS_ONNX_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct pb {
    unsigned char *p;
    size_t n, cap;
} pb;

void pb_free(pb *b);
void pb_raw(pb *b, const void *d, size_t n);
void pb_varint(pb *b, uint64_t v);
void pb_tag(pb *b, int field, int wire);
void pb_int(pb *b, int field, int64_t v);              /* varint field */
void pb_bytes(pb *b, int field, const void *d, size_t n);
void pb_str(pb *b, int field, const char *s);
void pb_msg(pb *b, int field, pb *sub);                /* embeds and frees sub */
/* A length-delimited field header claiming `claimed` bytes (may lie). */
void pb_len_header(pb *b, int field, uint64_t claimed);

/* ONNX pieces. elem: TensorProto.DataType (1 = float, 7 = int64). */
enum { ONNX_FLOAT = 1, ONNX_INT64 = 7 };
/* ValueInfoProto with a tensor type; dims < 0 become a symbolic dim "N". */
void onnx_value_info(pb *graph, int field, const char *name, int elem, int rank, const int64_t *dims);
/* NodeProto without attributes; inputs/outputs are NULL-terminated lists. */
void onnx_node(pb *graph, const char *op, const char *name, const char *const *in, const char *const *out);
/* NodeProto with one embedded attribute message (already built into attr). */
void onnx_node_attr(pb *graph, const char *op, const char *name, const char *const *in,
                    const char *const *out, pb *attr);
/* TensorProto initializer with raw data (data may be NULL when raw_len is 0
 * and the caller adds external_data or nothing). Writes into `t` (unfinished:
 * the caller may add fields, then pb_msg(graph, 5, t)). */
void onnx_tensor(pb *t, const char *name, int elem, int rank, const int64_t *dims, const void *raw,
                 size_t raw_len);
void onnx_external(pb *t, const char *location, const char *offset, const char *length);
/* ModelProto around a finished graph (graph is freed), default domain opset. */
void onnx_model(pb *model, pb *graph, int64_t opset);

#endif
