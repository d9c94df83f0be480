/* PyInit_acl: builds the `acl` package-like module out of the submodule
 * method tables, registers each submodule as sys.modules["acl.<name>"] (as
 * pyACL does, so `import acl.rt` and `from acl import mdl` work), and holds
 * the small conversion helpers every submodule shares. */
#include "pyacl.h"

#include <string.h>

PyObject *pa_parse_failed(const char *qualname)
{
    /* Keep MemoryError/KeyboardInterrupt; everything else is pyACL's TypeError. */
    if (PyErr_Occurred() && (PyErr_ExceptionMatches(PyExc_MemoryError) ||
                             PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)))
        return NULL;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s args parse failed", qualname);
    return NULL;
}

PyObject *pa_ptr(const void *p)
{
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)p);
}

PyObject *pa_ptr_ret(const void *p, aclError ret)
{
    return Py_BuildValue("(Ki)", (unsigned long long)(uintptr_t)p, (int)ret);
}

PyObject *pa_u64_ret(unsigned long long v, aclError ret)
{
    return Py_BuildValue("(Ki)", v, (int)ret);
}

PyObject *pa_i64_ret(long long v, aclError ret)
{
    return Py_BuildValue("(Li)", v, (int)ret);
}

PyObject *pa_dims_to_dict(const aclmdlIODims *dims)
{
    size_t n = dims->dimCount > ACL_MAX_DIM_CNT ? ACL_MAX_DIM_CNT : dims->dimCount;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(dims->dims[i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    PyObject *name = PyUnicode_DecodeUTF8(dims->name, (Py_ssize_t)strnlen(dims->name, ACL_MAX_TENSOR_NAME_LEN),
                                          "replace");
    if (!name) {
        Py_DECREF(list);
        return NULL;
    }
    PyObject *d = Py_BuildValue("{s:N,s:n,s:N}", "name", name, "dimCount", (Py_ssize_t)n, "dims", list);
    return d;
}

int pa_seq_to_i64(PyObject *seq, int64_t **out, Py_ssize_t *n, const char *qualname)
{
    *out = NULL;
    *n = 0;
    if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "%s args parse failed", qualname);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len == 0)
        return 0;
    int64_t *a = PyMem_Malloc((size_t)len * sizeof(int64_t));
    if (!a) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        /* ints, or integer-like objects such as numpy.int64 from arr.shape */
        PyObject *item = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
        if (!item) {
            PyMem_Free(a);
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s args parse failed", qualname);
            return -1;
        }
        a[i] = PyLong_AsLongLong(item);
        Py_DECREF(item);
        if (a[i] == -1 && PyErr_Occurred()) {
            PyMem_Free(a);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: element %zd does not fit in int64", qualname, i);
            return -1;
        }
    }
    *out = a;
    *n = len;
    return 0;
}

int pa_dict_to_dims(PyObject *obj, aclmdlIODims *dims, const char *qualname)
{
    memset(dims, 0, sizeof(*dims));
    if (!PyDict_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s args parse failed", qualname);
        return -1;
    }
    PyObject *count = PyDict_GetItemString(obj, "dimCount");
    PyObject *list = PyDict_GetItemString(obj, "dims");
    if (!count || !list || !PyLong_Check(count)) {
        PyErr_Format(PyExc_TypeError, "%s: the dims dict needs \"dimCount\" (int) and \"dims\" (list)", qualname);
        return -1;
    }
    long long c = PyLong_AsLongLong(count);
    if (c == -1 && PyErr_Occurred())
        return -1;
    if (c < 0 || c > ACL_MAX_DIM_CNT) {
        PyErr_Format(PyExc_ValueError, "%s: dimCount %lld is outside 0..%d", qualname, c, ACL_MAX_DIM_CNT);
        return -1;
    }
    int64_t *vals;
    Py_ssize_t n;
    if (pa_seq_to_i64(list, &vals, &n, qualname) < 0)
        return -1;
    if (n != c) {
        PyMem_Free(vals);
        PyErr_Format(PyExc_ValueError, "%s: dimCount is %lld but \"dims\" has %zd entries", qualname, c, n);
        return -1;
    }
    dims->dimCount = (size_t)c;
    if (n)
        memcpy(dims->dims, vals, (size_t)n * sizeof(int64_t));
    PyMem_Free(vals);
    PyObject *name = PyDict_GetItemString(obj, "name");
    if (name && name != Py_None) {
        Py_ssize_t len;
        const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
        if (!s) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: the dims dict's \"name\" must be a str", qualname);
            return -1;
        }
        if (len >= ACL_MAX_TENSOR_NAME_LEN) {
            PyErr_Format(PyExc_ValueError, "%s: name is %zd bytes, at most %d fit", qualname, len,
                         ACL_MAX_TENSOR_NAME_LEN - 1);
            return -1;
        }
        memcpy(dims->name, s, (size_t)len);
    }
    return 0;
}

void pa_report_exception(const char *where, PyObject *obj)
{
    if (!PyErr_Occurred())
        return;
    /* The unraisable hook prints "Exception ignored in: <obj>" with the
     * traceback (or whatever an application installed); a SystemExit raised
     * in a callback is reported too instead of ending the process from a
     * foreign thread. The context line names the pyACL call. */
    PyObject *ctx = obj ? obj : Py_None;
    PyObject *msg = PyUnicode_FromFormat("%s: %R", where, ctx);
    if (msg) {
        PyErr_WriteUnraisable(msg);
        Py_DECREF(msg);
    } else {
        PyErr_WriteUnraisable(ctx);
    }
    PyErr_Clear();
}

/* ---- package assembly ---- */

#define PA_SUB(var, nm, doc, table) \
    static struct PyModuleDef var = {PyModuleDef_HEAD_INIT, "acl." nm, doc, -1, table, NULL, NULL, NULL, NULL}

PA_SUB(rt_def, "rt", "AscendCL runtime: devices, contexts, streams, events, memory, callbacks.", pa_rt_methods);
PA_SUB(mdl_def, "mdl", "AscendCL model API: load, describe, datasets, execute, gears.", pa_mdl_methods);
PA_SUB(util_def, "util", "Pointer/bytes/numpy conversions and native report threads.", pa_util_methods);
PA_SUB(media_def, "media", "DVPP media (libacl_dvpp): JPEG/PNG decode, JPEG encode, VPC, VDEC/VENC.", pa_media_methods);
PA_SUB(op_def, "op", "Single-operator execution: not provided by openacl.", pa_empty_methods);
PA_SUB(blas_def, "blas", "Matrix products (libacl_cblas): gemm_ex, hgemm, s8gemm, gemv_ex, hgemv, s8gemv.",
       pa_blas_methods);
PA_SUB(prof_def, "prof", "Profiling sessions (acl_prof.h): op_trace.json and op_summary.csv.", pa_prof_methods);
PA_SUB(himpi_def, "himpi", "HiMPI media: not provided by openacl.", pa_empty_methods);
PA_SUB(fv_def, "fv", "Feature vector search: not provided by openacl.", pa_empty_methods);

static struct PyModuleDef acl_def = {
    PyModuleDef_HEAD_INIT, "acl",
    "openacl's pyACL-compatible binding of AscendCL (see docs/python.md).",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMethodDef pa_empty_methods[] = {{NULL, NULL, 0, NULL}};

static int add_sub(PyObject *acl, PyObject *sys_modules, struct PyModuleDef *def, const char *short_name)
{
    PyObject *m = PyModule_Create(def);
    if (!m)
        return -1;
    if (def == &rt_def && pa_rt_add_unsupported(m) < 0) {
        Py_DECREF(m);
        return -1;
    }
    if (PyDict_SetItemString(sys_modules, def->m_name, m) < 0 || PyModule_AddObject(acl, short_name, m) < 0) {
        Py_DECREF(m);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit_acl(void)
{
    PyObject *acl = PyModule_Create(&acl_def);
    if (!acl)
        return NULL;
    if (PyModule_AddFunctions(acl, pa_top_methods) < 0)
        goto fail;
    PyObject *sys_modules = PyImport_GetModuleDict(); /* borrowed */
    if (add_sub(acl, sys_modules, &rt_def, "rt") < 0 || add_sub(acl, sys_modules, &mdl_def, "mdl") < 0 ||
        add_sub(acl, sys_modules, &util_def, "util") < 0 || add_sub(acl, sys_modules, &media_def, "media") < 0 ||
        add_sub(acl, sys_modules, &op_def, "op") < 0 || add_sub(acl, sys_modules, &blas_def, "blas") < 0 ||
        add_sub(acl, sys_modules, &prof_def, "prof") < 0 || add_sub(acl, sys_modules, &himpi_def, "himpi") < 0 ||
        add_sub(acl, sys_modules, &fv_def, "fv") < 0)
        goto fail;
    if (pa_util_init() < 0)
        goto fail;
    return acl;
fail:
    Py_DECREF(acl);
    return NULL;
}
