/* Reading ONNX backend test data (TensorProto .pb files) and comparing
 * results against it. Self-contained (a small protobuf reader of its own), so
 * both the engine-level and the public-API runners can use it. */
#ifndef OPENACL_TESTS_ONNX_TESTDATA_H
#define OPENACL_TESTS_ONNX_TESTDATA_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OTD_MAX_RANK 8

/* A dense tensor. dtype uses ONNX TensorProto numbering. */
typedef struct otd_tensor {
    char name[256];
    int dtype;
    int rank;
    int64_t dims[OTD_MAX_RANK];
    void *data;               /* malloc'ed, nbytes long (may be NULL when 0) */
    size_t nbytes;
} otd_tensor;

/* Bytes per element of an ONNX dtype (0 for string/unknown). */
size_t otd_dtype_size(int dtype);
const char *otd_dtype_name(int dtype);

/* Reads a whole file; *buf is malloc'ed. Returns 0 or -1 (errno set). */
int otd_read_file(const char *path, void **buf, size_t *len);

/* Parses a serialized TensorProto. Returns 0, or -1 with a reason in err
 * (strings, external data and malformed bytes are refused). */
int otd_parse_tensor(const void *buf, size_t len, otd_tensor *t, char *err, size_t errlen);
int otd_load_tensor(const char *path, otd_tensor *t, char *err, size_t errlen);
void otd_tensor_free(otd_tensor *t);

/* A test value: a tensor, a sequence of values or an optional (0 or 1 value),
 * from a TensorProto, SequenceProto or OptionalProto file. */
enum { OTD_TENSOR = 0, OTD_SEQUENCE = 1, OTD_OPTIONAL = 2 };
typedef struct otd_value {
    int kind;
    otd_tensor t;             /* OTD_TENSOR */
    int n;                    /* OTD_SEQUENCE: count; OTD_OPTIONAL: 0 or 1 */
    struct otd_value *items;
} otd_value;

/* Parses bytes holding a value of the given kind (nested kinds follow the
 * protos' own elem_type). Returns 0 or -1 with a reason in err. */
int otd_parse_value(const void *buf, size_t len, int kind, otd_value *v, char *err, size_t errlen);
int otd_load_value(const char *path, int kind, otd_value *v, char *err, size_t errlen);
void otd_value_free(otd_value *v);

/* Tolerances: floats match when |a - e| <= atol + rtol * |e| (NaN matches
 * NaN, infinities must be equal); integers and bools must be equal. */
typedef struct otd_tol { double rtol, atol; } otd_tol;
otd_tol otd_default_tol(int dtype);

/* Compares an actual result with the expected tensor. Returns 0 on a match;
 * otherwise 1 with the first differences described in msg. */
int otd_compare(const otd_tensor *expect, int dtype, int rank, const int64_t *dims,
                const void *data, size_t nbytes, otd_tol tol, char *msg, size_t len);

/* Element i of a tensor of dtype as a double (floats widened, ints cast). */
double otd_get(int dtype, const void *data, size_t i);

#ifdef __cplusplus
}
#endif
#endif
