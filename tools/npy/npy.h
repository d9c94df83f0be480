/* npy: read and write NumPy .npy files (format versions 1.0-3.0, C order)
 * for openacl's tests and tools. Not part of libascendcl; no dependencies
 * beyond libc.
 *
 * dtype codes are the aclDataType values on purpose, so a tool can hand an
 * array straight to an aclmdl dataset without a translation table. */
#ifndef OPENACL_NPY_H
#define OPENACL_NPY_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAX_DIMS 32

enum npy_dtype {
    NPY_FLOAT32 = 0,   /* ACL_FLOAT   '<f4' */
    NPY_FLOAT16 = 1,   /* ACL_FLOAT16 '<f2' */
    NPY_INT8 = 2,      /* ACL_INT8    '|i1' */
    NPY_INT32 = 3,     /* ACL_INT32   '<i4' */
    NPY_UINT8 = 4,     /* ACL_UINT8   '|u1' */
    NPY_INT16 = 6,     /* ACL_INT16   '<i2' */
    NPY_UINT16 = 7,    /* ACL_UINT16  '<u2' */
    NPY_UINT32 = 8,    /* ACL_UINT32  '<u4' */
    NPY_INT64 = 9,     /* ACL_INT64   '<i8' */
    NPY_UINT64 = 10,   /* ACL_UINT64  '<u8' */
    NPY_FLOAT64 = 11,  /* ACL_DOUBLE  '<f8' */
    NPY_BOOL = 12,     /* ACL_BOOL    '|b1' */
};

typedef struct npy_array {
    int dtype;                     /* enum npy_dtype */
    int ndim;                      /* 0 for a scalar */
    int64_t shape[NPY_MAX_DIMS];
    size_t count;                  /* elements: product of shape (1 for a scalar) */
    size_t nbytes;                 /* count * npy_dtype_size(dtype) */
    void *data;                    /* little-endian, C order; owned, freed by npy_free */
} npy_array;

/* Bytes per element; 0 for an unknown code. */
size_t npy_dtype_size(int dtype);
/* Short name ("float32", "int64", ...) or "unknown". */
const char *npy_dtype_name(int dtype);
/* Code for a short name as above, or -1. */
int npy_dtype_from_name(const char *name);

/* Read a whole file. Big-endian data is converted to little-endian; Fortran
 * order, object and structured dtypes are refused. On failure returns -1,
 * leaves *out zeroed and writes a reason into err (may be NULL). */
int npy_read(const char *path, npy_array *out, char *err, size_t errlen);
/* Same, from a memory image of a file. */
int npy_parse(const void *buf, size_t len, npy_array *out, char *err, size_t errlen);

/* Write data (npy_dtype_size(dtype) * prod(shape) bytes, C order) as a
 * version 1.0 file (2.0 when the header needs it). Returns 0 or -1. */
int npy_write(const char *path, int dtype, int ndim, const int64_t *shape,
              const void *data, char *err, size_t errlen);

/* Frees a->data and zeroes *a. NULL and already-freed arrays are fine. */
void npy_free(npy_array *a);

#ifdef __cplusplus
}
#endif
#endif
