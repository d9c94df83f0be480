/* Top-level acl.* functions: init/finalize, versions, error messages, data
 * buffers, float16 helpers, logging, tensor descriptors, CANN attributes
 * (acl-api.md §5.4). */
#include "pyacl.h"

#include <string.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define FN(name) static PyObject *top_##name(PyObject *self, PyObject *args)
#define Q(name) "acl." #name

/* ---- init / finalize / versions / errors ---- */

FN(init)
{
    const char *path = NULL;
    PA_PARSE(args, Q(init), "|z", &path);
    aclError ret;
    PA_NOGIL(ret = aclInit(path));
    return PyLong_FromLong(ret);
}

FN(finalize)
{
    PA_PARSE(args, Q(finalize), "");
    aclError ret;
    /* Finalize waits for streams whose callbacks may need the GIL. */
    PA_NOGIL(ret = aclFinalize());
    return PyLong_FromLong(ret);
}

FN(finalize_reference)
{
    PA_PARSE(args, Q(finalize_reference), "");
    uint64_t left = 0;
    aclError ret;
    PA_NOGIL(ret = aclFinalizeReference(&left));
    return pa_u64_ret(left, ret);
}

FN(get_version)
{
    PA_PARSE(args, Q(get_version), "");
    int32_t ma = 0, mi = 0, pa = 0;
    aclError ret = aclrtGetVersion(&ma, &mi, &pa);
    return Py_BuildValue("(iiii)", ma, mi, pa, ret);
}

FN(get_soc_name)
{
    PA_PARSE(args, Q(get_soc_name), "");
    const char *s = aclrtGetSocName();
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

FN(get_recent_err_msg)
{
    PA_PARSE(args, Q(get_recent_err_msg), "");
    const char *s = aclGetRecentErrMsg();
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

FN(get_version_str)
{
    const char *name;
    PA_PARSE(args, Q(get_version_str), "s", &name);
    char buf[ACL_PKG_VERSION_MAX_SIZE + 1];
    memset(buf, 0, sizeof(buf));
    aclError ret = aclsysGetVersionStr((char *)name, buf);
    buf[ACL_PKG_VERSION_MAX_SIZE] = 0;
    return Py_BuildValue("(si)", buf, ret);
}

FN(get_cann_version)
{
    int pkg;
    PA_PARSE(args, Q(get_cann_version), "i", &pkg);
    aclCANNPackageVersion v;
    memset(&v, 0, sizeof(v));
    aclError ret = aclsysGetCANNVersion((aclCANNPackageName)pkg, &v);
    if (ret != ACL_SUCCESS)
        return Py_BuildValue("({}i)", ret);
#define S(f) PyUnicode_DecodeUTF8(v.f, (Py_ssize_t)strnlen(v.f, sizeof(v.f)), "replace")
    return Py_BuildValue("({s:N,s:N,s:N,s:N,s:N,s:N}i)", "version", S(version), "major_version", S(majorVersion),
                         "minor_version", S(minorVersion), "release_version", S(releaseVersion), "patch_version",
                         S(patchVersion), "reserved", S(reserved), ret);
#undef S
}

FN(float16_to_float)
{
    unsigned short h;
    PA_PARSE(args, Q(float16_to_float), "H", &h);
    return PyFloat_FromDouble((double)aclFloat16ToFloat((aclFloat16)h));
}

FN(float_to_float16)
{
    float f;
    PA_PARSE(args, Q(float_to_float16), "f", &f);
    return PyLong_FromLong((long)aclFloatToFloat16(f));
}

/* ---- data buffers ---- */

FN(create_data_buffer)
{
    unsigned long ptr, size;
    PA_PARSE(args, Q(create_data_buffer), "kk", &ptr, &size);
    return pa_ptr(aclCreateDataBuffer((void *)(uintptr_t)ptr, (size_t)size));
}

FN(destroy_data_buffer)
{
    unsigned long buf;
    PA_PARSE(args, Q(destroy_data_buffer), "k", &buf);
    return PyLong_FromLong(aclDestroyDataBuffer((const aclDataBuffer *)(uintptr_t)buf));
}

FN(update_data_buffer)
{
    unsigned long buf, ptr, size;
    PA_PARSE(args, Q(update_data_buffer), "kkk", &buf, &ptr, &size);
    return PyLong_FromLong(aclUpdateDataBuffer((aclDataBuffer *)(uintptr_t)buf, (void *)(uintptr_t)ptr, (size_t)size));
}

FN(get_data_buffer_addr)
{
    unsigned long buf;
    PA_PARSE(args, Q(get_data_buffer_addr), "k", &buf);
    return pa_ptr(aclGetDataBufferAddr((const aclDataBuffer *)(uintptr_t)buf));
}

FN(get_data_buffer_size)
{
    unsigned long buf;
    PA_PARSE(args, Q(get_data_buffer_size), "k", &buf);
    return PyLong_FromUnsignedLong(aclGetDataBufferSize((const aclDataBuffer *)(uintptr_t)buf));
}

FN(get_data_buffer_size_v2)
{
    unsigned long buf;
    PA_PARSE(args, Q(get_data_buffer_size_v2), "k", &buf);
    return PyLong_FromSize_t(aclGetDataBufferSizeV2((const aclDataBuffer *)(uintptr_t)buf));
}

FN(data_type_size)
{
    int dt;
    PA_PARSE(args, Q(data_type_size), "i", &dt);
    return PyLong_FromSize_t(aclDataTypeSize((aclDataType)dt));
}

/* ---- logging ---- */

FN(app_log)
{
    int level;
    const char *msg;
    PA_PARSE(args, Q(app_log), "is", &level, &msg);
    /* Attribute the line to the calling Python function, file and line. */
    const char *func = "python", *file = "python";
    uint32_t line = 0;
    PyObject *fname = NULL, *ffile = NULL;
    PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
    if (frame) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        if (code) {
            fname = PyObject_GetAttrString((PyObject *)code, "co_name");
            ffile = PyObject_GetAttrString((PyObject *)code, "co_filename");
            Py_DECREF(code);
        }
        line = (uint32_t)PyFrame_GetLineNumber(frame);
    }
    if (fname && PyUnicode_Check(fname) && PyUnicode_AsUTF8(fname))
        func = PyUnicode_AsUTF8(fname);
    if (ffile && PyUnicode_Check(ffile) && PyUnicode_AsUTF8(ffile))
        file = PyUnicode_AsUTF8(ffile);
    PyErr_Clear();
    aclAppLog((aclLogLevel)level, func, file, line, "%s", msg);
    Py_XDECREF(fname);
    Py_XDECREF(ffile);
    Py_RETURN_NONE;
}

/* ---- tensor descriptors ---- */

#define TDESC(v) ((aclTensorDesc *)(uintptr_t)(v))

FN(create_tensor_desc)
{
    int dt, fmt;
    PyObject *dims_obj;
    PA_PARSE(args, Q(create_tensor_desc), "iOi", &dt, &dims_obj, &fmt);
    int64_t *dims;
    Py_ssize_t n;
    if (pa_seq_to_i64(dims_obj, &dims, &n, Q(create_tensor_desc)) < 0)
        return NULL;
    aclTensorDesc *d = aclCreateTensorDesc((aclDataType)dt, (int)n, dims, (aclFormat)fmt);
    PyMem_Free(dims);
    return pa_ptr(d);
}

FN(destroy_tensor_desc)
{
    unsigned long d;
    PA_PARSE(args, Q(destroy_tensor_desc), "k", &d);
    aclDestroyTensorDesc(TDESC(d));
    Py_RETURN_NONE;
}

FN(get_tensor_desc_type)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_type), "k", &d);
    return PyLong_FromLong(aclGetTensorDescType(TDESC(d)));
}

FN(get_tensor_desc_format)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_format), "k", &d);
    return PyLong_FromLong(aclGetTensorDescFormat(TDESC(d)));
}

FN(get_tensor_desc_size)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_size), "k", &d);
    return PyLong_FromSize_t(aclGetTensorDescSize(TDESC(d)));
}

FN(get_tensor_desc_element_count)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_element_count), "k", &d);
    return PyLong_FromSize_t(aclGetTensorDescElementCount(TDESC(d)));
}

FN(get_tensor_desc_num_dims)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_num_dims), "k", &d);
    return PyLong_FromSize_t(aclGetTensorDescNumDims(TDESC(d)));
}

FN(get_tensor_desc_dim)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_tensor_desc_dim), "kk", &d, &i);
    return PyLong_FromLongLong(aclGetTensorDescDim(TDESC(d), (size_t)i));
}

FN(get_tensor_desc_dim_v2)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_tensor_desc_dim_v2), "kk", &d, &i);
    int64_t v = 0;
    aclError ret = aclGetTensorDescDimV2(TDESC(d), (size_t)i, &v);
    return pa_i64_ret(v, ret);
}

FN(get_tensor_desc_dim_range)
{
    unsigned long d, i, num;
    PA_PARSE(args, Q(get_tensor_desc_dim_range), "kkk", &d, &i, &num);
    if (num > 64) {
        PyErr_Format(PyExc_ValueError, "acl.get_tensor_desc_dim_range: dim_range_num %lu is too large", num);
        return NULL;
    }
    int64_t r[64];
    memset(r, 0, sizeof(r));
    aclError ret = aclGetTensorDescDimRange(TDESC(d), (size_t)i, (size_t)num, r);
    PyObject *list = PyList_New(ret == ACL_SUCCESS ? (Py_ssize_t)num : 0);
    if (!list)
        return NULL;
    for (Py_ssize_t k = 0; ret == ACL_SUCCESS && k < (Py_ssize_t)num; k++)
        PyList_SET_ITEM(list, k, PyLong_FromLongLong(r[k]));
    return Py_BuildValue("(Ni)", list, ret);
}

FN(get_tensor_desc_name)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_name), "k", &d);
    const char *s = aclGetTensorDescName(TDESC(d));
    return PyUnicode_FromString(s ? s : "");
}

FN(set_tensor_desc_name)
{
    unsigned long d;
    const char *name;
    PA_PARSE(args, Q(set_tensor_desc_name), "kz", &d, &name);
    aclSetTensorDescName(TDESC(d), name);
    Py_RETURN_NONE;
}

FN(trans_tensor_desc_format)
{
    unsigned long d;
    int fmt;
    PA_PARSE(args, Q(trans_tensor_desc_format), "ki", &d, &fmt);
    aclTensorDesc *dst = NULL;
    aclError ret = aclTransTensorDescFormat(TDESC(d), (aclFormat)fmt, &dst);
    return pa_ptr_ret(dst, ret);
}

typedef aclError (*shape_setter)(aclTensorDesc *, int, const int64_t *);

static PyObject *set_shape(PyObject *args, const char *q, shape_setter fn)
{
    unsigned long d;
    PyObject *dims_obj;
    PA_PARSE(args, q, "kO", &d, &dims_obj);
    int64_t *dims;
    Py_ssize_t n;
    if (pa_seq_to_i64(dims_obj, &dims, &n, q) < 0)
        return NULL;
    aclError ret = fn(TDESC(d), (int)n, dims);
    PyMem_Free(dims);
    return PyLong_FromLong(ret);
}

FN(set_tensor_shape) { return set_shape(args, Q(set_tensor_shape), aclSetTensorShape); }
FN(set_tensor_origin_shape) { return set_shape(args, Q(set_tensor_origin_shape), aclSetTensorOriginShape); }
FN(set_tensor_storage_shape) { return set_shape(args, Q(set_tensor_storage_shape), aclSetTensorStorageShape); }

typedef aclError (*format_setter)(aclTensorDesc *, aclFormat);

static PyObject *set_format(PyObject *args, const char *q, format_setter fn)
{
    unsigned long d;
    int fmt;
    PA_PARSE(args, q, "ki", &d, &fmt);
    return PyLong_FromLong(fn(TDESC(d), (aclFormat)fmt));
}

FN(set_tensor_format) { return set_format(args, Q(set_tensor_format), aclSetTensorFormat); }
FN(set_tensor_origin_format) { return set_format(args, Q(set_tensor_origin_format), aclSetTensorOriginFormat); }
FN(set_tensor_storage_format) { return set_format(args, Q(set_tensor_storage_format), aclSetTensorStorageFormat); }

FN(set_tensor_dynamic_input)
{
    unsigned long d;
    const char *name;
    PA_PARSE(args, Q(set_tensor_dynamic_input), "ks", &d, &name);
    return PyLong_FromLong(aclSetTensorDynamicInput(TDESC(d), name));
}

/* (desc, count, [[min, max], ...]) for shape and value ranges. */
static PyObject *set_range(PyObject *args, const char *q, int is_value)
{
    unsigned long d, count;
    PyObject *seq;
    PA_PARSE(args, q, "kkO", &d, &count, &seq);
    if (!PyList_Check(seq) && !PyTuple_Check(seq))
        return pa_parse_failed(q);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if ((unsigned long)n < count) {
        PyErr_Format(PyExc_ValueError, "%s: count is %lu but the range list has %zd entries", q, count, n);
        return NULL;
    }
    int64_t(*r)[2] = PyMem_Calloc(count ? count : 1, sizeof(*r));
    if (!r)
        return PyErr_NoMemory();
    for (unsigned long i = 0; i < count; i++) {
        int64_t *pair;
        Py_ssize_t pn;
        if (pa_seq_to_i64(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), &pair, &pn, q) < 0) {
            PyMem_Free(r);
            return NULL;
        }
        if (pn != 2) {
            PyMem_Free(pair);
            PyMem_Free(r);
            PyErr_Format(PyExc_ValueError, "%s: range %lu must be [min, max]", q, i);
            return NULL;
        }
        r[i][0] = pair[0];
        r[i][1] = pair[1];
        PyMem_Free(pair);
    }
    aclError ret = is_value ? aclSetTensorValueRange(TDESC(d), (size_t)count, r)
                            : aclSetTensorShapeRange(TDESC(d), (size_t)count, r);
    PyMem_Free(r);
    return PyLong_FromLong(ret);
}

FN(set_tensor_shape_range) { return set_range(args, Q(set_tensor_shape_range), 0); }
FN(set_tensor_value_range) { return set_range(args, Q(set_tensor_value_range), 1); }

FN(set_tensor_const)
{
    unsigned long d, ptr, len;
    PA_PARSE(args, Q(set_tensor_const), "kkk", &d, &ptr, &len);
    return PyLong_FromLong(aclSetTensorConst(TDESC(d), (void *)(uintptr_t)ptr, (size_t)len));
}

FN(set_tensor_place_ment)
{
    unsigned long d;
    int mt;
    PA_PARSE(args, Q(set_tensor_place_ment), "ki", &d, &mt);
    return PyLong_FromLong(aclSetTensorPlaceMent(TDESC(d), (aclMemType)mt));
}

FN(get_tensor_desc_address)
{
    unsigned long d;
    PA_PARSE(args, Q(get_tensor_desc_address), "k", &d);
    return pa_ptr(aclGetTensorDescAddress(TDESC(d)));
}

FN(get_tensor_desc_by_index)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_tensor_desc_by_index), "kk", &d, &i);
    return pa_ptr(aclGetTensorDescByIndex(TDESC(d), (size_t)i));
}

/* ---- CANN attributes / capability ---- */

FN(get_cann_attribute_list)
{
    PA_PARSE(args, Q(get_cann_attribute_list), "");
    const aclCannAttr *list = NULL;
    size_t num = 0;
    aclError ret = aclGetCannAttributeList(&list, &num);
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (size_t i = 0; ret == ACL_SUCCESS && list && i < num; i++) {
        PyObject *v = PyLong_FromLong(list[i]);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    return Py_BuildValue("(Nni)", out, (Py_ssize_t)num, ret);
}

FN(get_cann_attribute)
{
    int attr;
    PA_PARSE(args, Q(get_cann_attribute), "i", &attr);
    int32_t v = 0;
    aclError ret = aclGetCannAttribute((aclCannAttr)attr, &v);
    return Py_BuildValue("(ii)", v, ret);
}

FN(get_device_capability)
{
    unsigned int dev;
    int info;
    PA_PARSE(args, Q(get_device_capability), "Ii", &dev, &info);
    int64_t v = 0;
    aclError ret = aclGetDeviceCapability(dev, (aclDeviceInfo)info, &v);
    return pa_i64_ret(v, ret);
}

#define M(name) {#name, top_##name, METH_VARARGS, NULL}

PyMethodDef pa_top_methods[] = {
    M(init), M(finalize), M(finalize_reference), M(get_version), M(get_soc_name), M(get_recent_err_msg),
    M(get_version_str), M(get_cann_version), M(float16_to_float), M(float_to_float16),
    M(create_data_buffer), M(destroy_data_buffer), M(update_data_buffer), M(get_data_buffer_addr),
    M(get_data_buffer_size), M(get_data_buffer_size_v2), M(data_type_size), M(app_log),
    M(create_tensor_desc), M(destroy_tensor_desc), M(get_tensor_desc_type), M(get_tensor_desc_format),
    M(get_tensor_desc_size), M(get_tensor_desc_element_count), M(get_tensor_desc_num_dims),
    M(get_tensor_desc_dim), M(get_tensor_desc_dim_v2), M(get_tensor_desc_dim_range), M(get_tensor_desc_name),
    M(set_tensor_desc_name), M(trans_tensor_desc_format), M(set_tensor_shape), M(set_tensor_origin_shape),
    M(set_tensor_storage_shape), M(set_tensor_format), M(set_tensor_origin_format), M(set_tensor_storage_format),
    M(set_tensor_dynamic_input), M(set_tensor_shape_range), M(set_tensor_value_range), M(set_tensor_const),
    M(set_tensor_place_ment), M(get_tensor_desc_address), M(get_tensor_desc_by_index),
    M(get_cann_attribute_list), M(get_cann_attribute), M(get_device_capability),
    {NULL, NULL, 0, NULL},
};
