/* The one protobuf wire-format walker of the library: varints and fields of
 * untrusted bytes, every read bounded by `end`. The ONNX importer uses it to
 * pre-check nesting and split large tensors, model-format detection
 * (src/mdl/format.c) to recognise a ModelProto; full parsing is protobuf-c's. */
#ifndef OPENACL_CORE_PB_H
#define OPENACL_CORE_PB_H
#include <stddef.h>
#include <stdint.h>

/* A run of bytes inside the buffer being walked. */
typedef struct pb_span { const uint8_t *p; size_t n; } pb_span;

/* Reads a varint at *p (advanced past it). 0, or -1 when it runs past end
 * or over 10 bytes. */
int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

/* Reads one field at *p (advanced past it): its key, and for a
 * length-delimited field (wire type 2) its payload. -1: truncated, or a wire
 * type other than 0, 1, 2 and 5. */
int pb_read_field(const uint8_t **p, const uint8_t *end, uint64_t *key, pb_span *payload);

#endif
