/* The small submodule acl.prof (profiling sessions of acl_prof.h). acl.media
 * is acl_media.c, acl.blas acl_blas.c; acl.op, acl.himpi and acl.fv exist but
 * are empty (acl_module.c). */
#include <string.h>

#include "pyacl.h"
#include "acl/acl_prof.h"

#define Q(mod, name) "acl." mod "." #name

/* Profiling (acl_prof.h): a session records every node a model runs and
 * writes op_trace.json and op_summary.csv into the folder given to init.
 * Model subscription (per-op records through a pipe) is not provided:
 * model_subscribe / model_un_subscribe return ACL_ERROR_FEATURE_UNSUPPORTED. */
static PyObject *prof_init(PyObject *self, PyObject *args)
{
    const char *path;
    PA_PARSE(args, Q("prof", init), "s", &path);
    aclError ret;
    PA_NOGIL(ret = aclprofInit(path, strlen(path)));
    return PyLong_FromLong(ret);
}

static PyObject *prof_finalize(PyObject *self, PyObject *args)
{
    aclError ret;
    PA_NOGIL(ret = aclprofFinalize());
    return PyLong_FromLong(ret);
}

/* config = create_config(device_id_list, device_nums, aicore_metrics,
 * aicore_events, data_type_config): 0 on failure (reason in
 * acl.get_recent_err_msg()). */
static PyObject *prof_create_config(PyObject *self, PyObject *args)
{
    PyObject *list, *events;
    unsigned int nums;
    int metrics;
    unsigned long long types;
    PA_PARSE(args, Q("prof", create_config), "OIiOK", &list, &nums, &metrics, &events, &types);
    uint32_t ids[64];
    Py_ssize_t n = PySequence_Check(list) ? PySequence_Size(list) : -1;
    if (n < 0 || n > 64 || (size_t)n < nums) {
        PyErr_SetString(PyExc_TypeError, Q("prof", create_config) ": device_id_list must be a list of at "
                        "least device_nums (at most 64) ids");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_GetItem(list, i);
        long d = v ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (d < 0 || d > UINT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, Q("prof", create_config) ": bad device id");
            return NULL;
        }
        ids[i] = (uint32_t)d;
    }
    if (events != Py_None && !(PyLong_Check(events) && PyLong_AsLong(events) == 0)) {
        PyErr_SetString(PyExc_ValueError, Q("prof", create_config) ": aicore_events must be None or 0");
        return NULL;
    }
    aclprofConfig *c = aclprofCreateConfig(ids, nums, (aclprofAicoreMetrics)metrics, NULL, types);
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)c);
}

static PyObject *prof_start(PyObject *self, PyObject *args)
{
    unsigned long long h;
    PA_PARSE(args, Q("prof", start), "K", &h);
    aclError ret;
    PA_NOGIL(ret = aclprofStart((const aclprofConfig *)(uintptr_t)h));
    return PyLong_FromLong(ret);
}

static PyObject *prof_stop(PyObject *self, PyObject *args)
{
    unsigned long long h;
    PA_PARSE(args, Q("prof", stop), "K", &h);
    aclError ret;
    PA_NOGIL(ret = aclprofStop((const aclprofConfig *)(uintptr_t)h));
    return PyLong_FromLong(ret);
}

static PyObject *prof_destroy_config(PyObject *self, PyObject *args)
{
    unsigned long long h;
    PA_PARSE(args, Q("prof", destroy_config), "K", &h);
    aclError ret;
    PA_NOGIL(ret = aclprofDestroyConfig((const aclprofConfig *)(uintptr_t)h));
    return PyLong_FromLong(ret);
}

static PyObject *prof_unsupported(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyLong_FromLong(ACL_ERROR_FEATURE_UNSUPPORTED);
}

PyMethodDef pa_prof_methods[] = {
    {"init", prof_init, METH_VARARGS, "ret = init(profiler_path): the folder the session's files go to."},
    {"finalize", prof_finalize, METH_NOARGS, "ret = finalize()."},
    {"create_config", prof_create_config, METH_VARARGS,
     "config = create_config(device_id_list, device_nums, aicore_metrics, aicore_events, data_type_config)."},
    {"destroy_config", prof_destroy_config, METH_VARARGS, "ret = destroy_config(config)."},
    {"start", prof_start, METH_VARARGS, "ret = start(config): records every node run from now on."},
    {"stop", prof_stop, METH_VARARGS, "ret = stop(config): writes op_trace.json and op_summary.csv."},
    {"model_subscribe", (PyCFunction)(void (*)(void))prof_unsupported, METH_VARARGS | METH_KEYWORDS,
     "Not provided by openacl: returns ACL_ERROR_FEATURE_UNSUPPORTED (200006)."},
    {"model_un_subscribe", (PyCFunction)(void (*)(void))prof_unsupported, METH_VARARGS | METH_KEYWORDS,
     "Not provided by openacl: returns ACL_ERROR_FEATURE_UNSUPPORTED (200006)."},
    {NULL, NULL, 0, NULL},
};
