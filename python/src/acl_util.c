/* acl.util.*: pointer <-> bytes / numpy conversions and native threads for
 * the report loop (acl-api.md §5.7, §5.8).
 *
 * start_thread creates a real pthread (its pthread_t is the id that
 * acl.rt.subscribe_report takes); the thread takes the GIL and calls
 * func(arg) (func() when arg is None). An exception escaping func is printed
 * with its traceback and remembered; stop_thread joins the thread with the
 * GIL released and raises RuntimeError summarising that exception. */
#include "pyacl.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define FN(name) static PyObject *util_##name(PyObject *self, PyObject *args)
#define Q(name) "acl.util." #name

static int g_numpy_ok;

static int need_numpy(const char *q)
{
    if (g_numpy_ok)
        return 0;
    PyErr_Format(PyExc_ImportError, "%s needs numpy, which could not be imported", q);
    return -1;
}

int pa_util_init(void)
{
    if (_import_array() < 0) {
        PyErr_Clear();
        g_numpy_ok = 0;
    } else {
        g_numpy_ok = 1;
    }
    return 0;
}

/* ---- bytes ---- */

/* The address of the bytes object's own storage: no copy. Applications
 * also write into it (device → host copies into a preallocated bytes). */
FN(bytes_to_ptr)
{
    PyObject *b;
    PA_PARSE(args, Q(bytes_to_ptr), "O!", &PyBytes_Type, &b);
    return pa_ptr(PyBytes_AS_STRING(b));
}

FN(ptr_to_bytes)
{
    unsigned long ptr, size;
    PA_PARSE(args, Q(ptr_to_bytes), "kk", &ptr, &size);
    if (size > (unsigned long)PY_SSIZE_T_MAX) {
        PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_bytes: size %lu is too large", size);
        return NULL;
    }
    if (ptr == 0 && size != 0) {
        PyErr_SetString(PyExc_ValueError, "acl.util.ptr_to_bytes: ptr is NULL");
        return NULL;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!b)
        return NULL;
    char *dst = PyBytes_AS_STRING(b);
    if (size >= PA_NOGIL_COPY_BYTES)
        PA_NOGIL(memcpy(dst, (const void *)(uintptr_t)ptr, size));
    else if (size)
        memcpy(dst, (const void *)(uintptr_t)ptr, size);
    return b;
}

/* ---- numpy ---- */

FN(numpy_to_ptr)
{
    PyObject *arr;
    PA_PARSE(args, Q(numpy_to_ptr), "O", &arr);
    if (need_numpy(Q(numpy_to_ptr)) < 0)
        return NULL;
    if (!PyArray_Check(arr))
        return pa_parse_failed(Q(numpy_to_ptr));
    if (PyErr_WarnEx(PyExc_DeprecationWarning,
                     "acl.util.numpy_to_ptr is deprecated, use acl.util.bytes_to_ptr(arr.tobytes()) instead", 1) < 0)
        return NULL;
    if (!PyArray_IS_C_CONTIGUOUS((PyArrayObject *)arr) &&
        PyErr_WarnEx(PyExc_RuntimeWarning,
                     "acl.util.numpy_to_ptr: the array is not C-contiguous; its memory is not in row-major order "
                     "(use numpy_contiguous_to_ptr)", 1) < 0)
        return NULL;
    return pa_ptr(PyArray_DATA((PyArrayObject *)arr));
}

FN(numpy_contiguous_to_ptr)
{
    PyObject *arr;
    PA_PARSE(args, Q(numpy_contiguous_to_ptr), "O", &arr);
    if (need_numpy(Q(numpy_contiguous_to_ptr)) < 0)
        return NULL;
    if (!PyArray_Check(arr))
        return pa_parse_failed(Q(numpy_contiguous_to_ptr));
    if (PyErr_WarnEx(PyExc_DeprecationWarning,
                     "acl.util.numpy_contiguous_to_ptr is deprecated, use acl.util.bytes_to_ptr instead", 1) < 0)
        return NULL;
    PyArrayObject *c = PyArray_GETCONTIGUOUS((PyArrayObject *)arr);
    if (!c)
        return NULL;
    return Py_BuildValue("(KN)", (unsigned long long)(uintptr_t)PyArray_DATA(c), (PyObject *)c);
}

/* A writeable array viewing host memory at ptr (no copy, no ownership:
 * the memory must outlive the array). npy_type is a NumPy type number. */
FN(ptr_to_numpy)
{
    unsigned long ptr;
    PyObject *shape;
    int type;
    PA_PARSE(args, Q(ptr_to_numpy), "kOi", &ptr, &shape, &type);
    if (need_numpy(Q(ptr_to_numpy)) < 0)
        return NULL;
    int64_t *dims64;
    Py_ssize_t nd;
    if (pa_seq_to_i64(shape, &dims64, &nd, Q(ptr_to_numpy)) < 0)
        return NULL;
    if (nd > NPY_MAXDIMS) {
        PyMem_Free(dims64);
        PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_numpy: %zd dims, numpy allows %d", nd, NPY_MAXDIMS);
        return NULL;
    }
    npy_intp dims[NPY_MAXDIMS];
    for (Py_ssize_t i = 0; i < nd; i++) {
        if (dims64[i] < 0) {
            PyMem_Free(dims64);
            PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_numpy: dim %zd is negative", i);
            return NULL;
        }
        dims[i] = (npy_intp)dims64[i];
    }
    PyMem_Free(dims64);
    PyArray_Descr *descr = PyArray_DescrFromType(type);
    if (!descr) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_numpy: %d is not a NumPy type number", type);
        return NULL;
    }
    if (PyDataType_REFCHK(descr) || descr->elsize == 0) {
        Py_DECREF(descr);
        PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_numpy: NumPy type %d cannot view raw memory", type);
        return NULL;
    }
    if (ptr == 0) {
        Py_DECREF(descr);
        PyErr_SetString(PyExc_ValueError, "acl.util.ptr_to_numpy: ptr is NULL");
        return NULL;
    }
    /* steals descr */
    return PyArray_NewFromDescr(&PyArray_Type, descr, (int)nd, dims, NULL, (void *)(uintptr_t)ptr,
                                NPY_ARRAY_CARRAY, NULL);
}

/* ---- native threads ---- */

typedef struct pa_thread {
    pthread_t tid;
    PyObject *fn;
    PyObject *arg;   /* NULL: call fn() */
    PyObject *error; /* str summary of an escaped exception, or NULL */
    struct pa_thread *next;
} pa_thread;

static pa_thread *g_threads; /* guarded by the GIL */

static PyObject *summarise_current_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *s = NULL;
    if (type) {
        const char *tname = ((PyTypeObject *)type)->tp_name;
        s = value ? PyUnicode_FromFormat("%s: %S", tname, value) : PyUnicode_FromString(tname);
    }
    if (!s) {
        PyErr_Clear();
        s = PyUnicode_FromString("unknown exception");
    }
    PyErr_Restore(type, value, tb);
    return s;
}

static void *thread_main(void *p)
{
    pa_thread *t = p;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *r = t->arg ? PyObject_CallOneArg(t->fn, t->arg) : PyObject_CallNoArgs(t->fn);
    if (r) {
        Py_DECREF(r);
    } else {
        t->error = summarise_current_exception();
        pa_report_exception("acl.util.start_thread function", t->fn);
    }
    PyGILState_Release(st);
    return NULL;
}

FN(start_thread)
{
    PyObject *fn, *arg = Py_None;
    PA_PARSE(args, Q(start_thread), "O|O", &fn, &arg);
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "acl.util.start_thread: the thread function is not callable");
        return NULL;
    }
    pa_thread *t = PyMem_RawCalloc(1, sizeof(*t));
    if (!t)
        return PyErr_NoMemory();
    Py_INCREF(fn);
    t->fn = fn;
    if (arg != Py_None) {
        Py_INCREF(arg);
        t->arg = arg;
    }
    int rc;
    pthread_t tid;
    PA_NOGIL(rc = pthread_create(&tid, NULL, thread_main, t));
    if (rc != 0) {
        Py_DECREF(t->fn);
        Py_XDECREF(t->arg);
        PyMem_RawFree(t);
        return Py_BuildValue("(Ki)", 0ULL, rc);
    }
    t->tid = tid;
    t->next = g_threads;
    g_threads = t;
    return Py_BuildValue("(Ki)", (unsigned long long)tid, 0);
}

FN(stop_thread)
{
    unsigned long long id;
    PA_PARSE(args, Q(stop_thread), "K", &id);
    pa_thread **pp = &g_threads;
    while (*pp && (unsigned long long)(*pp)->tid != id)
        pp = &(*pp)->next;
    if (!*pp)
        return PyLong_FromLong(ESRCH); /* not a thread of start_thread (or already joined) */
    pa_thread *t = *pp;
    if (pthread_equal(t->tid, pthread_self()))
        return PyLong_FromLong(EDEADLK);
    *pp = t->next;
    int rc;
    PA_NOGIL(rc = pthread_join(t->tid, NULL));
    PyObject *err = t->error;
    Py_DECREF(t->fn);
    Py_XDECREF(t->arg);
    PyMem_RawFree(t);
    if (err) {
        PyErr_Format(PyExc_RuntimeError, "acl.util.stop_thread: the thread function raised %U", err);
        Py_DECREF(err);
        return NULL;
    }
    return PyLong_FromLong(rc);
}

#define M(name) {#name, util_##name, METH_VARARGS, NULL}

PyMethodDef pa_util_methods[] = {
    M(bytes_to_ptr), M(ptr_to_bytes), M(numpy_to_ptr), M(numpy_contiguous_to_ptr), M(ptr_to_numpy),
    M(start_thread), M(stop_thread),
    {NULL, NULL, 0, NULL},
};
