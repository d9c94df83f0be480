/* acl.mdl.*: the complete pyACL model API (acl-api.md §5.6): loading,
 * descriptions, datasets, execution, gears, config handles, AIPP, dump and
 * bundles. Loads, executions and unloads run with the GIL released (they
 * can take long and can wait for work queued on streams). */
#include "pyacl.h"

#include <string.h>

#define FN(name) static PyObject *mdl_##name(PyObject *self, PyObject *args)
#define Q(name) "acl.mdl." #name
#define PTR(v) ((void *)(uintptr_t)(v))
#define DESC(v) ((aclmdlDesc *)(uintptr_t)(v))
#define DS(v) ((aclmdlDataset *)(uintptr_t)(v))

static PyObject *ret_int(aclError ret) { return PyLong_FromLong(ret); }

static PyObject *str_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* ---- load / unload / query ---- */

FN(load_from_file)
{
    const char *path;
    PA_PARSE(args, Q(load_from_file), "s", &path);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromFile(path, &id));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_from_mem)
{
    unsigned long ptr, size;
    PA_PARSE(args, Q(load_from_mem), "kk", &ptr, &size);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromMem(PTR(ptr), (size_t)size, &id));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_from_file_with_mem)
{
    const char *path;
    unsigned long work, work_size, weight, weight_size;
    PA_PARSE(args, Q(load_from_file_with_mem), "skkkk", &path, &work, &work_size, &weight, &weight_size);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromFileWithMem(path, &id, PTR(work), (size_t)work_size, PTR(weight),
                                             (size_t)weight_size));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_from_mem_with_mem)
{
    unsigned long ptr, size, work, work_size, weight, weight_size;
    PA_PARSE(args, Q(load_from_mem_with_mem), "kkkkkk", &ptr, &size, &work, &work_size, &weight, &weight_size);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromMemWithMem(PTR(ptr), (size_t)size, &id, PTR(work), (size_t)work_size, PTR(weight),
                                            (size_t)weight_size));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_from_file_with_q)
{
    const char *path;
    unsigned long inq, inq_num, outq, outq_num;
    PA_PARSE(args, Q(load_from_file_with_q), "skkkk", &path, &inq, &inq_num, &outq, &outq_num);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromFileWithQ(path, &id, PTR(inq), (size_t)inq_num, PTR(outq), (size_t)outq_num));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_from_mem_with_q)
{
    unsigned long ptr, size, inq, inq_num, outq, outq_num;
    PA_PARSE(args, Q(load_from_mem_with_q), "kkkkkk", &ptr, &size, &inq, &inq_num, &outq, &outq_num);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadFromMemWithQ(PTR(ptr), (size_t)size, &id, PTR(inq), (size_t)inq_num, PTR(outq),
                                          (size_t)outq_num));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(load_with_config)
{
    unsigned long h;
    PA_PARSE(args, Q(load_with_config), "k", &h);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlLoadWithConfig((const aclmdlConfigHandle *)PTR(h), &id));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(unload)
{
    unsigned int id;
    PA_PARSE(args, Q(unload), "I", &id);
    aclError ret;
    PA_NOGIL(ret = aclmdlUnload(id));
    return ret_int(ret);
}

FN(query_size)
{
    const char *path;
    PA_PARSE(args, Q(query_size), "s", &path);
    size_t work = 0, weight = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlQuerySize(path, &work, &weight));
    return Py_BuildValue("(KKi)", (unsigned long long)work, (unsigned long long)weight, ret);
}

FN(query_size_from_mem)
{
    unsigned long ptr, size;
    PA_PARSE(args, Q(query_size_from_mem), "kk", &ptr, &size);
    size_t work = 0, weight = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlQuerySizeFromMem(PTR(ptr), (size_t)size, &work, &weight));
    return Py_BuildValue("(KKi)", (unsigned long long)work, (unsigned long long)weight, ret);
}

/* ---- execute ---- */

FN(execute)
{
    unsigned int id;
    unsigned long in, out;
    PA_PARSE(args, Q(execute), "Ikk", &id, &in, &out);
    aclError ret;
    PA_NOGIL(ret = aclmdlExecute(id, DS(in), DS(out)));
    return ret_int(ret);
}

FN(execute_async)
{
    unsigned int id;
    unsigned long in, out, stream;
    PA_PARSE(args, Q(execute_async), "Ikkk", &id, &in, &out, &stream);
    aclError ret;
    PA_NOGIL(ret = aclmdlExecuteAsync(id, DS(in), DS(out), PTR(stream)));
    return ret_int(ret);
}

FN(execute_v2)
{
    unsigned int id;
    unsigned long in, out, stream, h;
    PA_PARSE(args, Q(execute_v2), "Ikkkk", &id, &in, &out, &stream, &h);
    aclError ret;
    PA_NOGIL(ret = aclmdlExecuteV2(id, DS(in), DS(out), PTR(stream), (const aclmdlExecConfigHandle *)PTR(h)));
    return ret_int(ret);
}

/* ---- datasets ---- */

FN(create_dataset)
{
    PA_PARSE(args, Q(create_dataset), "");
    return pa_ptr(aclmdlCreateDataset());
}

FN(destroy_dataset)
{
    unsigned long ds;
    PA_PARSE(args, Q(destroy_dataset), "k", &ds);
    return ret_int(aclmdlDestroyDataset(DS(ds)));
}

/* pyACL returns (dataset, ret) here, unlike every other setter. */
FN(add_dataset_buffer)
{
    unsigned long ds, buf;
    PA_PARSE(args, Q(add_dataset_buffer), "kk", &ds, &buf);
    aclError ret = aclmdlAddDatasetBuffer(DS(ds), (aclDataBuffer *)PTR(buf));
    return pa_ptr_ret(PTR(ds), ret);
}

FN(get_dataset_buffer)
{
    unsigned long ds, i;
    PA_PARSE(args, Q(get_dataset_buffer), "kk", &ds, &i);
    return pa_ptr(aclmdlGetDatasetBuffer(DS(ds), (size_t)i));
}

FN(get_dataset_num_buffers)
{
    unsigned long ds;
    PA_PARSE(args, Q(get_dataset_num_buffers), "k", &ds);
    return PyLong_FromSize_t(aclmdlGetDatasetNumBuffers(DS(ds)));
}

FN(set_dataset_tensor_desc)
{
    unsigned long ds, td, i;
    PA_PARSE(args, Q(set_dataset_tensor_desc), "kkk", &ds, &td, &i);
    aclError ret = aclmdlSetDatasetTensorDesc(DS(ds), (aclTensorDesc *)PTR(td), (size_t)i);
    return pa_ptr_ret(PTR(ds), ret);
}

FN(get_dataset_tensor_desc)
{
    unsigned long ds, i;
    PA_PARSE(args, Q(get_dataset_tensor_desc), "kk", &ds, &i);
    return pa_ptr(aclmdlGetDatasetTensorDesc(DS(ds), (size_t)i));
}

/* ---- descriptions ---- */

FN(create_desc)
{
    PA_PARSE(args, Q(create_desc), "");
    return pa_ptr(aclmdlCreateDesc());
}

FN(destroy_desc)
{
    unsigned long d;
    PA_PARSE(args, Q(destroy_desc), "k", &d);
    return ret_int(aclmdlDestroyDesc(DESC(d)));
}

FN(get_desc)
{
    unsigned long d;
    unsigned int id;
    PA_PARSE(args, Q(get_desc), "kI", &d, &id);
    aclError ret;
    PA_NOGIL(ret = aclmdlGetDesc(DESC(d), id));
    return ret_int(ret);
}

FN(get_desc_from_file)
{
    unsigned long d;
    const char *path;
    PA_PARSE(args, Q(get_desc_from_file), "ks", &d, &path);
    aclError ret;
    PA_NOGIL(ret = aclmdlGetDescFromFile(DESC(d), path));
    return ret_int(ret);
}

FN(get_desc_from_mem)
{
    unsigned long d, ptr, size;
    PA_PARSE(args, Q(get_desc_from_mem), "kkk", &d, &ptr, &size);
    aclError ret;
    PA_NOGIL(ret = aclmdlGetDescFromMem(DESC(d), PTR(ptr), (size_t)size));
    return ret_int(ret);
}

#define DESC_SIZE(name, call)                             \
    FN(name)                                              \
    {                                                     \
        unsigned long d;                                  \
        PA_PARSE(args, Q(name), "k", &d);                 \
        return PyLong_FromSize_t(call(DESC(d)));          \
    }

#define DESC_IDX_SIZE(name, call)                         \
    FN(name)                                              \
    {                                                     \
        unsigned long d, i;                               \
        PA_PARSE(args, Q(name), "kk", &d, &i);            \
        return PyLong_FromSize_t(call(DESC(d), (size_t)i)); \
    }

#define DESC_IDX_INT(name, call)                          \
    FN(name)                                              \
    {                                                     \
        unsigned long d, i;                               \
        PA_PARSE(args, Q(name), "kk", &d, &i);            \
        return PyLong_FromLong((long)call(DESC(d), (size_t)i)); \
    }

#define DESC_IDX_STR(name, call)                          \
    FN(name)                                              \
    {                                                     \
        unsigned long d, i;                               \
        PA_PARSE(args, Q(name), "kk", &d, &i);            \
        return str_or_none(call(DESC(d), (size_t)i));     \
    }

#define DESC_DIMS(name, call)                                             \
    FN(name)                                                              \
    {                                                                     \
        unsigned long d, i;                                               \
        PA_PARSE(args, Q(name), "kk", &d, &i);                            \
        aclmdlIODims dims;                                                \
        memset(&dims, 0, sizeof(dims));                                   \
        aclError ret = call(DESC(d), (size_t)i, &dims);                   \
        if (ret != ACL_SUCCESS)                                           \
            return Py_BuildValue("({}i)", ret);                           \
        return Py_BuildValue("(Ni)", pa_dims_to_dict(&dims), ret);        \
    }

DESC_SIZE(get_num_inputs, aclmdlGetNumInputs)
DESC_SIZE(get_num_outputs, aclmdlGetNumOutputs)
DESC_IDX_SIZE(get_input_size_by_index, aclmdlGetInputSizeByIndex)
DESC_IDX_SIZE(get_output_size_by_index, aclmdlGetOutputSizeByIndex)
DESC_IDX_STR(get_input_name_by_index, aclmdlGetInputNameByIndex)
DESC_IDX_STR(get_output_name_by_index, aclmdlGetOutputNameByIndex)
DESC_IDX_INT(get_input_format, aclmdlGetInputFormat)
DESC_IDX_INT(get_output_format, aclmdlGetOutputFormat)
DESC_IDX_INT(get_input_data_type, aclmdlGetInputDataType)
DESC_IDX_INT(get_output_data_type, aclmdlGetOutputDataType)
DESC_DIMS(get_input_dims, aclmdlGetInputDims)
DESC_DIMS(get_input_dims_v2, aclmdlGetInputDimsV2)
DESC_DIMS(get_output_dims, aclmdlGetOutputDims)
DESC_DIMS(get_cur_output_dims, aclmdlGetCurOutputDims)

FN(get_input_dims_range)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_input_dims_range), "kk", &d, &i);
    aclmdlIODimsRange r;
    memset(&r, 0, sizeof(r));
    aclError ret = aclmdlGetInputDimsRange(DESC(d), (size_t)i, &r);
    if (ret != ACL_SUCCESS)
        return Py_BuildValue("({}i)", ret);
    size_t n = r.rangeCount > ACL_MAX_DIM_CNT ? ACL_MAX_DIM_CNT : r.rangeCount;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        PyObject *pair = Py_BuildValue("[LL]", (long long)r.range[k][0], (long long)r.range[k][1]);
        if (!pair) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)k, pair);
    }
    return Py_BuildValue("({s:n,s:N}i)", "rangeCount", (Py_ssize_t)n, "range", list, ret);
}

static PyObject *index_by_name(PyObject *args, const char *q, int output)
{
    unsigned long d;
    const char *name;
    PA_PARSE(args, q, "ks", &d, &name);
    size_t idx = 0;
    aclError ret = output ? aclmdlGetOutputIndexByName(DESC(d), name, &idx)
                          : aclmdlGetInputIndexByName(DESC(d), name, &idx);
    return Py_BuildValue("(Ki)", (unsigned long long)idx, ret);
}

FN(get_input_index_by_name) { return index_by_name(args, Q(get_input_index_by_name), 0); }
FN(get_output_index_by_name) { return index_by_name(args, Q(get_output_index_by_name), 1); }

FN(get_tensor_real_name)
{
    unsigned long d;
    const char *name;
    PA_PARSE(args, Q(get_tensor_real_name), "ks", &d, &name);
    return str_or_none(aclmdlGetTensorRealName(DESC(d), name));
}

FN(get_op_attr)
{
    unsigned long d;
    const char *op, *attr;
    PA_PARSE(args, Q(get_op_attr), "kss", &d, &op, &attr);
    return str_or_none(aclmdlGetOpAttr(DESC(d), op, attr));
}

/* ---- gears ---- */

FN(get_dynamic_batch)
{
    unsigned long d;
    PA_PARSE(args, Q(get_dynamic_batch), "k", &d);
    aclmdlBatch b;
    memset(&b, 0, sizeof(b));
    aclError ret = aclmdlGetDynamicBatch(DESC(d), &b);
    if (ret != ACL_SUCCESS)
        return Py_BuildValue("({}i)", ret);
    size_t n = b.batchCount > ACL_MAX_BATCH_NUM ? ACL_MAX_BATCH_NUM : b.batchCount;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t k = 0; k < n; k++)
        PyList_SET_ITEM(list, (Py_ssize_t)k, PyLong_FromUnsignedLongLong(b.batch[k]));
    return Py_BuildValue("({s:n,s:N}i)", "batchCount", (Py_ssize_t)n, "batch", list, ret);
}

FN(get_dynamic_hw)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_dynamic_hw), "kk", &d, &i);
    aclmdlHW hw;
    memset(&hw, 0, sizeof(hw));
    aclError ret = aclmdlGetDynamicHW(DESC(d), (size_t)i, &hw);
    if (ret != ACL_SUCCESS)
        return Py_BuildValue("({}i)", ret);
    size_t n = hw.hwCount > ACL_MAX_HW_NUM ? ACL_MAX_HW_NUM : hw.hwCount;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        PyObject *pair = Py_BuildValue("[KK]", (unsigned long long)hw.hw[k][0], (unsigned long long)hw.hw[k][1]);
        if (!pair) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)k, pair);
    }
    return Py_BuildValue("({s:n,s:N}i)", "hwCount", (Py_ssize_t)n, "hw", list, ret);
}

FN(get_input_dynamic_gear_count)
{
    unsigned long d, i;
    PA_PARSE(args, Q(get_input_dynamic_gear_count), "kk", &d, &i);
    size_t n = 0;
    aclError ret = aclmdlGetInputDynamicGearCount(DESC(d), (size_t)i, &n);
    return Py_BuildValue("(Ki)", (unsigned long long)n, ret);
}

/* One dims dict per gear (pyACL builds gear_count entries). */
FN(get_input_dynamic_dims)
{
    unsigned long d, i, count;
    PA_PARSE(args, Q(get_input_dynamic_dims), "kkk", &d, &i, &count);
    if (count > 4096)
        return Py_BuildValue("(Oi)", Py_None, ACL_ERROR_INVALID_PARAM);
    aclmdlIODims *dims = PyMem_Calloc(count ? count : 1, sizeof(aclmdlIODims));
    if (!dims)
        return PyErr_NoMemory();
    aclError ret = aclmdlGetInputDynamicDims(DESC(d), (size_t)i, dims, (size_t)count);
    PyObject *list = PyList_New(0);
    if (!list) {
        PyMem_Free(dims);
        return NULL;
    }
    for (unsigned long k = 0; ret == ACL_SUCCESS && k < count; k++) {
        PyObject *dd = pa_dims_to_dict(&dims[k]);
        if (!dd || PyList_Append(list, dd) < 0) {
            Py_XDECREF(dd);
            Py_DECREF(list);
            PyMem_Free(dims);
            return NULL;
        }
        Py_DECREF(dd);
    }
    PyMem_Free(dims);
    return Py_BuildValue("(Ni)", list, ret);
}

FN(set_dynamic_batch_size)
{
    unsigned int id;
    unsigned long ds, idx;
    unsigned long long batch;
    PA_PARSE(args, Q(set_dynamic_batch_size), "IkkK", &id, &ds, &idx, &batch);
    aclError ret;
    PA_NOGIL(ret = aclmdlSetDynamicBatchSize(id, DS(ds), (size_t)idx, (uint64_t)batch));
    return ret_int(ret);
}

FN(set_dynamic_hw_size)
{
    unsigned int id;
    unsigned long ds, idx;
    unsigned long long h, w;
    PA_PARSE(args, Q(set_dynamic_hw_size), "IkkKK", &id, &ds, &idx, &h, &w);
    aclError ret;
    PA_NOGIL(ret = aclmdlSetDynamicHWSize(id, DS(ds), (size_t)idx, (uint64_t)h, (uint64_t)w));
    return ret_int(ret);
}

FN(set_input_dynamic_dims)
{
    unsigned int id;
    unsigned long ds, idx;
    PyObject *dd;
    PA_PARSE(args, Q(set_input_dynamic_dims), "IkkO", &id, &ds, &idx, &dd);
    aclmdlIODims dims;
    if (pa_dict_to_dims(dd, &dims, Q(set_input_dynamic_dims)) < 0)
        return NULL;
    aclError ret;
    PA_NOGIL(ret = aclmdlSetInputDynamicDims(id, DS(ds), (size_t)idx, &dims));
    return ret_int(ret);
}

/* ---- load / execute config handles ---- */

FN(create_config_handle)
{
    PA_PARSE(args, Q(create_config_handle), "");
    return pa_ptr(aclmdlCreateConfigHandle());
}

FN(destroy_config_handle)
{
    unsigned long h;
    PA_PARSE(args, Q(destroy_config_handle), "k", &h);
    return ret_int(aclmdlDestroyConfigHandle((aclmdlConfigHandle *)PTR(h)));
}

/* The value's C type follows the attribute (pyACL's rule): PRIORITY_INT32 →
 * int32; PATH_PTR / WEIGHT_PATH_PTR → str (passed as a char pointer); the
 * address attributes → pointer; everything else → 8-byte integer. */
FN(set_config_opt)
{
    unsigned long h;
    int attr;
    PyObject *value;
    PA_PARSE(args, Q(set_config_opt), "kiO", &h, &attr, &value);
    aclmdlConfigHandle *hd = (aclmdlConfigHandle *)PTR(h);
    aclError ret;
    switch (attr) {
    case ACL_MDL_PRIORITY_INT32: {
        if (!PyLong_Check(value))
            return pa_parse_failed(Q(set_config_opt));
        int32_t v = (int32_t)PyLong_AsLong(value);
        if (PyErr_Occurred())
            return pa_parse_failed(Q(set_config_opt));
        ret = aclmdlSetConfigOpt(hd, (aclmdlConfigAttr)attr, &v, sizeof(v));
        break;
    }
    case ACL_MDL_PATH_PTR:
    case ACL_MDL_WEIGHT_PATH_PTR: {
        const char *s = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
        if (!s)
            return pa_parse_failed(Q(set_config_opt));
        ret = aclmdlSetConfigOpt(hd, (aclmdlConfigAttr)attr, &s, sizeof(s));
        break;
    }
    case ACL_MDL_MEM_ADDR_PTR:
    case ACL_MDL_WEIGHT_ADDR_PTR:
    case ACL_MDL_WORKSPACE_ADDR_PTR: {
        if (!PyLong_Check(value))
            return pa_parse_failed(Q(set_config_opt));
        void *p = (void *)(uintptr_t)PyLong_AsUnsignedLongLongMask(value);
        ret = aclmdlSetConfigOpt(hd, (aclmdlConfigAttr)attr, &p, sizeof(p));
        break;
    }
    default: {
        if (!PyLong_Check(value))
            return pa_parse_failed(Q(set_config_opt));
        uint64_t v = (uint64_t)PyLong_AsUnsignedLongLongMask(value);
        ret = aclmdlSetConfigOpt(hd, (aclmdlConfigAttr)attr, &v, sizeof(v));
        break;
    }
    }
    return ret_int(ret);
}

FN(create_exec_config_handle)
{
    PA_PARSE(args, Q(create_exec_config_handle), "");
    return pa_ptr(aclmdlCreateExecConfigHandle());
}

FN(destroy_exec_config_handle)
{
    unsigned long h;
    PA_PARSE(args, Q(destroy_exec_config_handle), "k", &h);
    return ret_int(aclmdlDestroyExecConfigHandle((const aclmdlExecConfigHandle *)PTR(h)));
}

/* pyACL passes a uint32 for every attribute; openacl's C layer wants the
 * attribute's own width, so the value is widened where needed (pointer and
 * size_t attributes), keeping the Python call identical. */
FN(set_exec_config_opt)
{
    unsigned long h;
    int attr;
    unsigned long long value;
    PA_PARSE(args, Q(set_exec_config_opt), "kiK", &h, &attr, &value);
    aclmdlExecConfigHandle *hd = (aclmdlExecConfigHandle *)PTR(h);
    aclError ret;
    if (attr == ACL_MDL_WORK_ADDR_PTR) {
        void *p = (void *)(uintptr_t)value;
        ret = aclmdlSetExecConfigOpt(hd, (aclmdlExecConfigAttr)attr, &p, sizeof(p));
    } else if (attr == ACL_MDL_WORK_SIZET || attr == ACL_MDL_MPAIMID_SIZET || attr == ACL_MDL_AICQOS_SIZET ||
               attr == ACL_MDL_AICOST_SIZET || attr == ACL_MDL_MEC_TIMETHR_SIZET) {
        size_t v = (size_t)value;
        ret = aclmdlSetExecConfigOpt(hd, (aclmdlExecConfigAttr)attr, &v, sizeof(v));
    } else {
        int32_t v = (int32_t)(uint32_t)value;
        ret = aclmdlSetExecConfigOpt(hd, (aclmdlExecConfigAttr)attr, &v, sizeof(v));
    }
    return ret_int(ret);
}

/* ---- AIPP (dynamic parameter sets and the AIPP queries, src/mdl/aipp.c) ---- */

#define AIPP(v) ((aclmdlAIPP *)(uintptr_t)(v))

FN(create_aipp)
{
    unsigned long long batch;
    PA_PARSE(args, Q(create_aipp), "K", &batch);
    return pa_ptr(aclmdlCreateAIPP((uint64_t)batch));
}

FN(destroy_aipp)
{
    unsigned long a;
    PA_PARSE(args, Q(destroy_aipp), "k", &a);
    return ret_int(aclmdlDestroyAIPP(AIPP(a)));
}

FN(get_aipp_data_size)
{
    unsigned long long batch;
    PA_PARSE(args, Q(get_aipp_data_size), "K", &batch);
    size_t size = 0;
    aclError ret = aclmdlGetAippDataSize((uint64_t)batch, &size);
    return Py_BuildValue("(Ki)", (unsigned long long)size, ret);
}

FN(set_aipp_input_format)
{
    unsigned long a;
    int f;
    PA_PARSE(args, Q(set_aipp_input_format), "ki", &a, &f);
    return ret_int(aclmdlSetAIPPInputFormat(AIPP(a), (aclAippInputFormat)f));
}

FN(set_aipp_csc_params)
{
    unsigned long a;
    int sw, m[9], ob[3], ib[3];
    PA_PARSE(args, Q(set_aipp_csc_params), "kiiiiiiiiiiiiiiii", &a, &sw, &m[0], &m[1], &m[2], &m[3], &m[4], &m[5],
             &m[6], &m[7], &m[8], &ob[0], &ob[1], &ob[2], &ib[0], &ib[1], &ib[2]);
    return ret_int(aclmdlSetAIPPCscParams(AIPP(a), (int8_t)sw, (int16_t)m[0], (int16_t)m[1], (int16_t)m[2],
                                          (int16_t)m[3], (int16_t)m[4], (int16_t)m[5], (int16_t)m[6], (int16_t)m[7],
                                          (int16_t)m[8], (uint8_t)ob[0], (uint8_t)ob[1], (uint8_t)ob[2],
                                          (uint8_t)ib[0], (uint8_t)ib[1], (uint8_t)ib[2]));
}

FN(set_aipp_rbuv_swap_switch)
{
    unsigned long a;
    int v;
    PA_PARSE(args, Q(set_aipp_rbuv_swap_switch), "ki", &a, &v);
    return ret_int(aclmdlSetAIPPRbuvSwapSwitch(AIPP(a), (int8_t)v));
}

FN(set_aipp_ax_swap_switch)
{
    unsigned long a;
    int v;
    PA_PARSE(args, Q(set_aipp_ax_swap_switch), "ki", &a, &v);
    return ret_int(aclmdlSetAIPPAxSwapSwitch(AIPP(a), (int8_t)v));
}

FN(set_aipp_src_image_size)
{
    unsigned long a;
    int w, h;
    PA_PARSE(args, Q(set_aipp_src_image_size), "kii", &a, &w, &h);
    return ret_int(aclmdlSetAIPPSrcImageSize(AIPP(a), w, h));
}

FN(set_aipp_scf_params)
{
    unsigned long a;
    int sw, iw, ih, ow, oh;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_scf_params), "kiiiiiK", &a, &sw, &iw, &ih, &ow, &oh, &bi);
    return ret_int(aclmdlSetAIPPScfParams(AIPP(a), (int8_t)sw, iw, ih, ow, oh, (uint64_t)bi));
}

FN(set_aipp_crop_params)
{
    unsigned long a;
    int sw, x, y, w, h;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_crop_params), "kiiiiiK", &a, &sw, &x, &y, &w, &h, &bi);
    return ret_int(aclmdlSetAIPPCropParams(AIPP(a), (int8_t)sw, x, y, w, h, (uint64_t)bi));
}

FN(set_aipp_padding_params)
{
    unsigned long a;
    int sw, t, b, l, r;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_padding_params), "kiiiiiK", &a, &sw, &t, &b, &l, &r, &bi);
    return ret_int(aclmdlSetAIPPPaddingParams(AIPP(a), (int8_t)sw, t, b, l, r, (uint64_t)bi));
}

FN(set_aipp_dtc_pixel_mean)
{
    unsigned long a;
    int c0, c1, c2, c3;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_dtc_pixel_mean), "kiiiiK", &a, &c0, &c1, &c2, &c3, &bi);
    return ret_int(aclmdlSetAIPPDtcPixelMean(AIPP(a), (int16_t)c0, (int16_t)c1, (int16_t)c2, (int16_t)c3,
                                             (uint64_t)bi));
}

FN(set_aipp_dtc_pixel_min)
{
    unsigned long a;
    float c0, c1, c2, c3;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_dtc_pixel_min), "kffffK", &a, &c0, &c1, &c2, &c3, &bi);
    return ret_int(aclmdlSetAIPPDtcPixelMin(AIPP(a), c0, c1, c2, c3, (uint64_t)bi));
}

FN(set_aipp_pixel_var_reci)
{
    unsigned long a;
    float c0, c1, c2, c3;
    unsigned long long bi;
    PA_PARSE(args, Q(set_aipp_pixel_var_reci), "kffffK", &a, &c0, &c1, &c2, &c3, &bi);
    return ret_int(aclmdlSetAIPPPixelVarReci(AIPP(a), c0, c1, c2, c3, (uint64_t)bi));
}

FN(set_input_aipp)
{
    unsigned int id;
    unsigned long ds, idx, a;
    PA_PARSE(args, Q(set_input_aipp), "Ikkk", &id, &ds, &idx, &a);
    return ret_int(aclmdlSetInputAIPP(id, DS(ds), (size_t)idx, AIPP(a)));
}

FN(set_aipp_by_input_index)
{
    unsigned int id;
    unsigned long ds, idx, a;
    PA_PARSE(args, Q(set_aipp_by_input_index), "Ikkk", &id, &ds, &idx, &a);
    return ret_int(aclmdlSetAIPPByInputIndex(id, DS(ds), (size_t)idx, AIPP(a)));
}

FN(get_aipp_type)
{
    unsigned int id;
    unsigned long idx;
    PA_PARSE(args, Q(get_aipp_type), "Ik", &id, &idx);
    aclmdlInputAippType t = ACL_DATA_WITHOUT_AIPP;
    size_t attached = 0;
    aclError ret = aclmdlGetAippType(id, (size_t)idx, &t, &attached);
    return Py_BuildValue("(iKi)", (int)t, (unsigned long long)attached, ret);
}

FN(get_first_aipp_info)
{
    unsigned int id;
    unsigned long idx;
    PA_PARSE(args, Q(get_first_aipp_info), "Ik", &id, &idx);
    aclAippInfo *info = PyMem_Calloc(1, sizeof(*info));
    if (!info)
        return PyErr_NoMemory();
    aclError ret = aclmdlGetFirstAippInfo(id, (size_t)idx, info);
    if (ret != ACL_SUCCESS) {
        PyMem_Free(info);
        return Py_BuildValue("(Oi)", Py_None, ret);
    }
    size_t n = info->shapeCount > ACL_MAX_SHAPE_COUNT ? ACL_MAX_SHAPE_COUNT : info->shapeCount;
    PyObject *outs = PyList_New((Py_ssize_t)n);
    for (size_t k = 0; outs && k < n; k++) {
        PyObject *e = Py_BuildValue("{s:N,s:K,s:N,s:K}", "srcDims", pa_dims_to_dict(&info->outDims[k].srcDims),
                                    "srcSize", (unsigned long long)info->outDims[k].srcSize, "aippOutdims",
                                    pa_dims_to_dict(&info->outDims[k].aippOutdims), "aippOutSize",
                                    (unsigned long long)info->outDims[k].aippOutSize);
        if (!e) {
            Py_CLEAR(outs);
            break;
        }
        PyList_SET_ITEM(outs, (Py_ssize_t)k, e);
    }
    if (!outs) {
        PyMem_Free(info);
        return NULL;
    }
    PyObject *d = PyDict_New();
    struct {
        const char *k;
        long long v;
    } ints[] = {
        {"inputFormat", info->inputFormat}, {"srcImageSizeW", info->srcImageSizeW},
        {"srcImageSizeH", info->srcImageSizeH}, {"cropSwitch", info->cropSwitch},
        {"loadStartPosW", info->loadStartPosW}, {"loadStartPosH", info->loadStartPosH},
        {"cropSizeW", info->cropSizeW}, {"cropSizeH", info->cropSizeH}, {"resizeSwitch", info->resizeSwitch},
        {"resizeOutputW", info->resizeOutputW}, {"resizeOutputH", info->resizeOutputH},
        {"paddingSwitch", info->paddingSwitch}, {"leftPaddingSize", info->leftPaddingSize},
        {"rightPaddingSize", info->rightPaddingSize}, {"topPaddingSize", info->topPaddingSize},
        {"bottomPaddingSize", info->bottomPaddingSize}, {"cscSwitch", info->cscSwitch},
        {"rbuvSwapSwitch", info->rbuvSwapSwitch}, {"axSwapSwitch", info->axSwapSwitch},
        {"singleLineMode", info->singleLineMode}, {"matrixR0C0", info->matrixR0C0},
        {"matrixR0C1", info->matrixR0C1}, {"matrixR1C0", info->matrixR1C0}, {"matrixR1C1", info->matrixR1C1},
        {"matrixR1C2", info->matrixR1C2}, {"matrixR2C2", info->matrixR2C2}, {"outputBias0", info->outputBias0},
        {"outputBias1", info->outputBias1}, {"outputBias2", info->outputBias2}, {"inputBias0", info->inputBias0},
        {"inputBias1", info->inputBias1}, {"inputBias2", info->inputBias2}, {"meanChn0", info->meanChn0},
        {"meanChn1", info->meanChn1}, {"meanChn2", info->meanChn2}, {"meanChn3", info->meanChn3},
        {"srcFormat", info->srcFormat}, {"srcDatatype", info->srcDatatype},
        {"srcDimNum", (long long)info->srcDimNum}, {"shapeCount", (long long)info->shapeCount},
        {"aippExtend", (long long)(uintptr_t)info->aippExtend},
    };
    struct {
        const char *k;
        double v;
    } floats[] = {
        {"minChn0", info->minChn0}, {"minChn1", info->minChn1}, {"minChn2", info->minChn2},
        {"minChn3", info->minChn3}, {"varReciChn0", info->varReciChn0}, {"varReciChn1", info->varReciChn1},
        {"varReciChn2", info->varReciChn2}, {"varReciChn3", info->varReciChn3},
    };
    PyMem_Free(info);
    int bad = d == NULL;
    for (size_t k = 0; !bad && k < sizeof(ints) / sizeof(ints[0]); k++) {
        PyObject *v = PyLong_FromLongLong(ints[k].v);
        bad = !v || PyDict_SetItemString(d, ints[k].k, v) < 0;
        Py_XDECREF(v);
    }
    for (size_t k = 0; !bad && k < sizeof(floats) / sizeof(floats[0]); k++) {
        PyObject *v = PyFloat_FromDouble(floats[k].v);
        bad = !v || PyDict_SetItemString(d, floats[k].k, v) < 0;
        Py_XDECREF(v);
    }
    if (!bad)
        bad = PyDict_SetItemString(d, "outDims", outs) < 0;
    Py_DECREF(outs);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return Py_BuildValue("(Ni)", d, ret);
}

/* ---- debugging / dump ---- */

FN(create_and_get_op_desc)
{
    unsigned int dev, sid, tid;
    unsigned long len;
    PA_PARSE(args, Q(create_and_get_op_desc), "IIIk", &dev, &sid, &tid, &len);
    if (len > (1u << 20)) {
        PyErr_SetString(PyExc_ValueError, "acl.mdl.create_and_get_op_desc: op_name_len is too large");
        return NULL;
    }
    char *name = PyMem_Calloc(len + 1, 1);
    if (!name)
        return PyErr_NoMemory();
    aclTensorDesc *in = NULL, *out = NULL;
    size_t nin = 0, nout = 0;
    aclError ret = aclmdlCreateAndGetOpDesc(dev, sid, tid, name, (size_t)len, &in, &nin, &out, &nout);
    PyObject *r = Py_BuildValue("(sKKKKi)", name, (unsigned long long)(uintptr_t)in, (unsigned long long)nin,
                                (unsigned long long)(uintptr_t)out, (unsigned long long)nout, ret);
    PyMem_Free(name);
    return r;
}

FN(init_dump)
{
    PA_PARSE(args, Q(init_dump), "");
    return ret_int(aclmdlInitDump());
}

FN(set_dump)
{
    const char *path;
    PA_PARSE(args, Q(set_dump), "s", &path);
    return ret_int(aclmdlSetDump(path));
}

FN(finalize_dump)
{
    PA_PARSE(args, Q(finalize_dump), "");
    return ret_int(aclmdlFinalizeDump());
}

/* openacl has no operator dump, so no dump callback can ever fire. */
FN(dump_reg_callback)
{
    PyObject *fn;
    int flag;
    PA_PARSE(args, Q(dump_reg_callback), "Oi", &fn, &flag);
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "acl.mdl.dump_reg_callback: the callback is not callable");
        return NULL;
    }
    return ret_int(ACL_ERROR_FEATURE_UNSUPPORTED);
}

FN(dump_unreg_callback)
{
    PA_PARSE(args, Q(dump_unreg_callback), "");
    Py_RETURN_NONE;
}

/* ---- bundles (unsupported in openacl's C layer) ---- */

FN(bundle_load_from_file)
{
    const char *path;
    PA_PARSE(args, Q(bundle_load_from_file), "s", &path);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlBundleLoadFromFile(path, &id));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(bundle_load_from_mem)
{
    unsigned long ptr, size;
    PA_PARSE(args, Q(bundle_load_from_mem), "kk", &ptr, &size);
    uint32_t id = 0;
    aclError ret;
    PA_NOGIL(ret = aclmdlBundleLoadFromMem(PTR(ptr), (size_t)size, &id));
    return Py_BuildValue("(Ii)", id, ret);
}

FN(bundle_unload)
{
    unsigned int id;
    PA_PARSE(args, Q(bundle_unload), "I", &id);
    aclError ret;
    PA_NOGIL(ret = aclmdlBundleUnload(id));
    return ret_int(ret);
}

FN(bundle_get_model_id)
{
    unsigned int id;
    unsigned long idx;
    PA_PARSE(args, Q(bundle_get_model_id), "Ik", &id, &idx);
    uint32_t mid = 0;
    aclError ret = aclmdlBundleGetModelId(id, (size_t)idx, &mid);
    return Py_BuildValue("(Ii)", mid, ret);
}

FN(bundle_get_model_num)
{
    unsigned int id;
    PA_PARSE(args, Q(bundle_get_model_num), "I", &id);
    size_t n = 0;
    aclError ret = aclmdlBundleGetModelNum(id, &n);
    return Py_BuildValue("(Ki)", (unsigned long long)n, ret);
}

#define M(name) {#name, mdl_##name, METH_VARARGS, NULL}

PyMethodDef pa_mdl_methods[] = {
    M(load_from_file), M(load_from_mem), M(load_from_file_with_mem), M(load_from_mem_with_mem),
    M(load_from_file_with_q), M(load_from_mem_with_q), M(load_with_config), M(unload), M(query_size),
    M(query_size_from_mem), M(execute), M(execute_async), M(execute_v2),
    M(create_dataset), M(destroy_dataset), M(add_dataset_buffer), M(get_dataset_buffer),
    M(get_dataset_num_buffers), M(set_dataset_tensor_desc), M(get_dataset_tensor_desc),
    M(create_desc), M(get_desc), M(destroy_desc), M(get_desc_from_file), M(get_desc_from_mem),
    M(get_num_inputs), M(get_num_outputs), M(get_input_size_by_index), M(get_output_size_by_index),
    M(get_input_dims), M(get_input_dims_v2), M(get_output_dims), M(get_cur_output_dims), M(get_input_dims_range),
    M(get_input_name_by_index), M(get_output_name_by_index), M(get_input_format), M(get_output_format),
    M(get_input_data_type), M(get_output_data_type), M(get_input_index_by_name), M(get_output_index_by_name),
    M(get_dynamic_batch), M(get_dynamic_hw), M(get_input_dynamic_gear_count), M(get_input_dynamic_dims),
    M(set_dynamic_batch_size), M(set_dynamic_hw_size), M(set_input_dynamic_dims),
    M(get_tensor_real_name), M(get_op_attr),
    M(create_config_handle), M(destroy_config_handle), M(set_config_opt),
    M(create_exec_config_handle), M(destroy_exec_config_handle), M(set_exec_config_opt),
    M(create_aipp), M(destroy_aipp), M(get_aipp_data_size), M(set_aipp_input_format), M(set_aipp_csc_params),
    M(set_aipp_rbuv_swap_switch), M(set_aipp_ax_swap_switch), M(set_aipp_src_image_size), M(set_aipp_scf_params),
    M(set_aipp_crop_params), M(set_aipp_padding_params), M(set_aipp_dtc_pixel_mean), M(set_aipp_dtc_pixel_min),
    M(set_aipp_pixel_var_reci), M(set_input_aipp), M(set_aipp_by_input_index), M(get_aipp_type),
    M(get_first_aipp_info), M(create_and_get_op_desc), M(init_dump), M(set_dump), M(finalize_dump),
    M(dump_reg_callback), M(dump_unreg_callback),
    M(bundle_load_from_file), M(bundle_load_from_mem), M(bundle_unload), M(bundle_get_model_id),
    M(bundle_get_model_num),
    {NULL, NULL, 0, NULL},
};
