/* Byte-level steps of the ONNX import (onnx_wire.c). */
#ifndef OPENACL_ONNX_WIRE_H
#define OPENACL_ONNX_WIRE_H
#include "onnx/onnx.pb-c.h"
#include <stddef.h>

/* Deepest nesting of recursive messages (graphs in attributes, types in
 * types) accepted. */
#define ONNX_WIRE_MAX_DEPTH 256

/* -1 when the recursive messages of a ModelProto nest deeper than
 * ONNX_WIRE_MAX_DEPTH (protobuf-c would recurse on the stack), else 0
 * (malformed bytes are left for protobuf-c to judge). */
int onnx_wire_depth_check(const void *buf, size_t len);

/* Unpacks a model initializer by initializer, dropping the pages behind
 * each raw_data copy (drop(ctx, p, n)). NULL with *plain 1: take the plain
 * path (onnx__model_proto__unpack); NULL with *plain 0: not a valid model;
 * NULL with *plain -1: out of memory. */
Onnx__ModelProto *onnx_wire_unpack_lowpeak(const uint8_t *buf, size_t len,
                                           void (*drop)(void *, const void *, size_t), void *ctx,
                                           int *plain);

#endif
