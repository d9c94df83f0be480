/* ONNX tensors and types as the importer reads them (onnx_tensor.c). */
#ifndef OPENACL_ONNX_TENSOR_H
#define OPENACL_ONNX_TENSOR_H
#include "onnx/onnx.pb-c.h"
#include "graph/ir.h"
#include <stdint.h>

/* Bound on one tensor's bytes; larger declared sizes are refused up front. */
#define MAX_TENSOR_BYTES ((uint64_t)1 << 40)

/* ONNX TensorProto data type -> g_dtype (*out); -1 when not supported. */
int onnx_map_dtype(int onnx_dt, int *out);
/* The name of a TensorProto data type, the ones openacl lacks included. */
const char *onnx_dtype_name(int dt);
/* Fills t (dtype, shape, owned dense data) from tp, reading external data
 * relative to base_dir (NULL: none allowed). tname names it in messages.
 * 0 or an aclError with a message. */
int onnx_tensor_from_proto(const char *base_dir, const Onnx__TensorProto *tp, const char *tname,
                           g_tensor *t);

#endif
