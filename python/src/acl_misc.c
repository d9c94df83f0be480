/* The small submodule acl.prof (stubs). acl.media is acl_media.c; acl.op,
 * acl.blas, acl.himpi and acl.fv exist but are empty (acl_module.c). */
#include "pyacl.h"

/* Profiling: openacl has no msprof; the calls applications make around
 * inference return ACL_ERROR_FEATURE_UNSUPPORTED (create_config returns a
 * NULL handle, 0) so such code can carry on without profiling. */
static PyObject *prof_unsupported(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyLong_FromLong(ACL_ERROR_FEATURE_UNSUPPORTED);
}

static PyObject *prof_create_config(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyLong_FromLong(0);
}

#define UNSUP(name) \
    {name, (PyCFunction)(void (*)(void))prof_unsupported, METH_VARARGS | METH_KEYWORDS, \
     "Not implemented by openacl: returns ACL_ERROR_FEATURE_UNSUPPORTED (200006)."}

PyMethodDef pa_prof_methods[] = {
    UNSUP("init"), UNSUP("finalize"), UNSUP("start"), UNSUP("stop"), UNSUP("destroy_config"),
    UNSUP("model_subscribe"), UNSUP("model_un_subscribe"),
    {"create_config", (PyCFunction)(void (*)(void))prof_create_config, METH_VARARGS | METH_KEYWORDS,
     "Not implemented by openacl: returns 0 (a NULL config handle)."},
    {NULL, NULL, 0, NULL},
};
