/* The pyACL-compatible `acl` extension module: shared declarations.
 * Every submodule file (acl_top.c, acl_rt.c, acl_mdl.c, acl_util.c,
 * acl_media.c, acl_misc.c) exports one method table; acl_module.c
 * assembles the package.
 * Calling conventions (docs/python.md): handles and pointers are ints,
 * out-parameters come back as a tuple (outs..., ret), argument errors raise
 * TypeError("acl.<module>.<func> args parse failed"). */
#ifndef OPENACL_PYACL_H
#define OPENACL_PYACL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"

/* Parses `args` with `fmt`; on failure replaces whatever PyArg_ParseTuple
 * raised by pyACL's TypeError and returns NULL from the calling function. */
#define PA_PARSE(args, qualname, fmt, ...)                       \
    do {                                                         \
        if (!PyArg_ParseTuple((args), (fmt), ##__VA_ARGS__))     \
            return pa_parse_failed(qualname);                    \
    } while (0)

/* Runs `stmt` with the GIL released: every call that can wait (streams,
 * events, executions, loads, large copies) goes through this so other Python
 * threads, and host callbacks that need the GIL, keep running. */
#define PA_NOGIL(stmt)          \
    do {                        \
        Py_BEGIN_ALLOW_THREADS  \
        stmt;                   \
        Py_END_ALLOW_THREADS    \
    } while (0)

/* Copies at or above this many bytes release the GIL. */
#define PA_NOGIL_COPY_BYTES (64u * 1024u)

PyObject *pa_parse_failed(const char *qualname);
/* A pointer / handle as a Python int (0 for NULL). */
PyObject *pa_ptr(const void *p);
/* (value, ret) tuples. */
PyObject *pa_ptr_ret(const void *p, aclError ret);
PyObject *pa_u64_ret(unsigned long long v, aclError ret);
PyObject *pa_i64_ret(long long v, aclError ret);

/* aclmdlIODims <-> {"name": str, "dimCount": int, "dims": [int, ...]}. */
PyObject *pa_dims_to_dict(const aclmdlIODims *dims);
/* Fills *dims from a dict ("dimCount" and "dims" required, "name"
 * optional). Returns 0, or -1 with TypeError/ValueError set. */
int pa_dict_to_dims(PyObject *obj, aclmdlIODims *dims, const char *qualname);
/* A list/tuple of ints into a new int64 array (*n elements, caller frees
 * with PyMem_Free; NULL array for an empty sequence). -1 with an exception. */
int pa_seq_to_i64(PyObject *seq, int64_t **out, Py_ssize_t *n, const char *qualname);
/* Reports the exception currently set (printed with its traceback through
 * sys.unraisablehook) on behalf of `where`, then clears it. Never raises. */
void pa_report_exception(const char *where, PyObject *obj);

/* Method tables of the submodules. */
extern PyMethodDef pa_top_methods[];
extern PyMethodDef pa_rt_methods[];
extern PyMethodDef pa_mdl_methods[];
extern PyMethodDef pa_util_methods[];
extern PyMethodDef pa_media_methods[];
extern PyMethodDef pa_prof_methods[];
extern PyMethodDef pa_blas_methods[];
extern PyMethodDef pa_empty_methods[];

/* acl.rt stubs for pyACL names openacl does not implement. */
int pa_rt_add_unsupported(PyObject *module);
/* numpy C API import (acl.util); 0 on success. Failure leaves the numpy
 * helpers raising ImportError, the rest of the module works. */
int pa_util_init(void);

#endif
