/* The small submodules: acl.media (only the DVPP memory calls that media
 * code makes, mapped onto device memory) and acl.prof (stubs). acl.op,
 * acl.blas, acl.himpi and acl.fv exist but are empty (acl_module.c). */
#include "pyacl.h"

#define Q(mod, name) "acl." mod "." #name

/* dev_ptr, ret = acl.media.dvpp_malloc(size): DVPP memory is ordinary
 * device memory on openacl. */
static PyObject *media_dvpp_malloc(PyObject *self, PyObject *args)
{
    unsigned long size;
    PA_PARSE(args, Q("media", dvpp_malloc), "k", &size);
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtMalloc(&p, (size_t)size, ACL_MEM_MALLOC_HUGE_FIRST));
    return pa_ptr_ret(p, ret);
}

static PyObject *media_dvpp_free(PyObject *self, PyObject *args)
{
    unsigned long ptr;
    PA_PARSE(args, Q("media", dvpp_free), "k", &ptr);
    aclError ret;
    PA_NOGIL(ret = aclrtFree((void *)(uintptr_t)ptr));
    return PyLong_FromLong(ret);
}

PyMethodDef pa_media_methods[] = {
    {"dvpp_malloc", media_dvpp_malloc, METH_VARARGS, "dev_ptr, ret = dvpp_malloc(size): device memory."},
    {"dvpp_free", media_dvpp_free, METH_VARARGS, "ret = dvpp_free(dev_ptr)."},
    {NULL, NULL, 0, NULL},
};

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
