/* acl.rt.*: devices, contexts, streams, events, memory, host callbacks and
 * exception callbacks (acl-api.md §5.5, Appendix B). Every C call runs with
 * the GIL released: most of them can wait for a stream (destroy, reset,
 * synchronize), and a stream may be waiting for a Python host callback that
 * needs the GIL on another thread. The pyACL names openacl does not
 * implement are registered by pa_rt_add_unsupported and return
 * ACL_ERROR_FEATURE_UNSUPPORTED. */
#include "pyacl.h"

#include <string.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define FN(name) static PyObject *rt_##name(PyObject *self, PyObject *args)
#define Q(name) "acl.rt." #name
#define PTR(v) ((void *)(uintptr_t)(v))

static int interpreter_gone(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/* ---- generic shapes ---- */

/* ret = f() */
#define RET0(name, call)                          \
    FN(name)                                      \
    {                                             \
        PA_PARSE(args, Q(name), "");              \
        aclError ret;                             \
        PA_NOGIL(ret = call);                     \
        return PyLong_FromLong(ret);              \
    }

/* ret = f(int) */
#define RET_I(name, call)                         \
    FN(name)                                      \
    {                                             \
        int a;                                    \
        PA_PARSE(args, Q(name), "i", &a);         \
        aclError ret;                             \
        PA_NOGIL(ret = call);                     \
        return PyLong_FromLong(ret);              \
    }

/* ret = f(handle) */
#define RET_K(name, call)                         \
    FN(name)                                      \
    {                                             \
        unsigned long a;                          \
        PA_PARSE(args, Q(name), "k", &a);         \
        aclError ret;                             \
        PA_NOGIL(ret = call);                     \
        return PyLong_FromLong(ret);              \
    }

/* ret = f(handle, handle) */
#define RET_KK(name, call)                        \
    FN(name)                                      \
    {                                             \
        unsigned long a, b;                       \
        PA_PARSE(args, Q(name), "kk", &a, &b);    \
        aclError ret;                             \
        PA_NOGIL(ret = call);                     \
        return PyLong_FromLong(ret);              \
    }

/* ret = f(handle, int) */
#define RET_KI(name, call)                        \
    FN(name)                                      \
    {                                             \
        unsigned long a;                          \
        int b;                                    \
        PA_PARSE(args, Q(name), "ki", &a, &b);    \
        aclError ret;                             \
        PA_NOGIL(ret = call);                     \
        return PyLong_FromLong(ret);              \
    }

/* ---- devices ---- */

RET_I(set_device, aclrtSetDevice(a))
RET_I(reset_device, aclrtResetDevice(a))
RET_I(reset_device_force, aclrtResetDeviceForce(a))
RET_I(set_ts_device, aclrtSetTsDevice((aclrtTsId)a))
RET0(synchronize_device, aclrtSynchronizeDevice())
RET_I(synchronize_device_with_timeout, aclrtSynchronizeDeviceWithTimeout(a))
RET_I(set_device_sat_mode, aclrtSetDeviceSatMode((aclrtFloatOverflowMode)a))

FN(get_device)
{
    PA_PARSE(args, Q(get_device), "");
    int32_t dev = 0;
    aclError ret = aclrtGetDevice(&dev);
    return Py_BuildValue("(ii)", dev, ret);
}

FN(get_device_count)
{
    PA_PARSE(args, Q(get_device_count), "");
    uint32_t n = 0;
    aclError ret = aclrtGetDeviceCount(&n);
    return Py_BuildValue("(Ii)", n, ret);
}

FN(get_run_mode)
{
    PA_PARSE(args, Q(get_run_mode), "");
    aclrtRunMode m = ACL_HOST;
    aclError ret = aclrtGetRunMode(&m);
    return Py_BuildValue("(ii)", (int)m, ret);
}

FN(get_device_sat_mode)
{
    PA_PARSE(args, Q(get_device_sat_mode), "");
    aclrtFloatOverflowMode m = ACL_RT_OVERFLOW_MODE_SATURATION;
    aclError ret = aclrtGetDeviceSatMode(&m);
    return Py_BuildValue("(ii)", (int)m, ret);
}

FN(device_can_access_peer)
{
    int dev, peer;
    PA_PARSE(args, Q(device_can_access_peer), "ii", &dev, &peer);
    int32_t can = 0;
    aclError ret = aclrtDeviceCanAccessPeer(&can, dev, peer);
    return Py_BuildValue("(ii)", (int)can, ret);
}

FN(device_enable_peer_access)
{
    int peer;
    unsigned int flags;
    PA_PARSE(args, Q(device_enable_peer_access), "iI", &peer, &flags);
    return PyLong_FromLong(aclrtDeviceEnablePeerAccess(peer, flags));
}

RET_I(device_disable_peer_access, aclrtDeviceDisablePeerAccess(a))

FN(device_peer_access_status)
{
    int dev, peer;
    PA_PARSE(args, Q(device_peer_access_status), "ii", &dev, &peer);
    int32_t st = 0;
    aclError ret = aclrtDevicePeerAccessStatus(dev, peer, &st);
    return Py_BuildValue("(ii)", (int)st, ret);
}

FN(get_device_info)
{
    unsigned int dev;
    int attr;
    PA_PARSE(args, Q(get_device_info), "Ii", &dev, &attr);
    int64_t v = 0;
    aclError ret = aclrtGetDeviceInfo(dev, (aclrtDevAttr)attr, &v);
    return Py_BuildValue("(Li)", (long long)v, ret);
}

FN(get_device_capability)
{
    int dev, feature;
    PA_PARSE(args, Q(get_device_capability), "ii", &dev, &feature);
    int32_t v = 0;
    aclError ret = aclrtGetDeviceCapability(dev, (aclrtDevFeatureType)feature, &v);
    return Py_BuildValue("(ii)", (int)v, ret);
}

FN(device_get_stream_priority_range)
{
    PA_PARSE(args, Q(device_get_stream_priority_range), "");
    int32_t lo = 0, hi = 0;
    aclError ret = aclrtDeviceGetStreamPriorityRange(&lo, &hi);
    return Py_BuildValue("(iii)", (int)lo, (int)hi, ret);
}

#define DEV_ID_MAP(name, fn)                         \
    FN(name)                                         \
    {                                                \
        int in;                                      \
        PA_PARSE(args, Q(name), "i", &in);           \
        int32_t out = 0;                             \
        aclError ret = fn(in, &out);                 \
        return Py_BuildValue("(ii)", (int)out, ret); \
    }
DEV_ID_MAP(get_logic_dev_id_by_user_dev_id, aclrtGetLogicDevIdByUserDevId)
DEV_ID_MAP(get_user_dev_id_by_logic_dev_id, aclrtGetUserDevIdByLogicDevId)
DEV_ID_MAP(get_logic_dev_id_by_phy_dev_id, aclrtGetLogicDevIdByPhyDevId)
DEV_ID_MAP(get_phy_dev_id_by_logic_dev_id, aclrtGetPhyDevIdByLogicDevId)

FN(set_op_wait_timeout)
{
    unsigned int t;
    PA_PARSE(args, Q(set_op_wait_timeout), "I", &t);
    return PyLong_FromLong(aclrtSetOpWaitTimeout(t));
}

FN(set_op_execute_time_out)
{
    unsigned int t;
    PA_PARSE(args, Q(set_op_execute_time_out), "I", &t);
    return PyLong_FromLong(aclrtSetOpExecuteTimeOut(t));
}

FN(query_device_status)
{
    int dev;
    PA_PARSE(args, Q(query_device_status), "i", &dev);
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_NORMAL;
    aclError ret = aclrtQueryDeviceStatus(dev, &st);
    return Py_BuildValue("(ii)", (int)st, ret);
}

/* ---- streams and events: properties ---- */

FN(stream_get_id)
{
    unsigned long s;
    PA_PARSE(args, Q(stream_get_id), "k", &s);
    int32_t id = 0;
    aclError ret = aclrtStreamGetId((aclrtStream)PTR(s), &id);
    return Py_BuildValue("(ii)", (int)id, ret);
}

FN(event_get_timestamp)
{
    unsigned long e;
    PA_PARSE(args, Q(event_get_timestamp), "k", &e);
    uint64_t ts = 0;
    aclError ret = aclrtEventGetTimestamp((aclrtEvent)PTR(e), &ts);
    return Py_BuildValue("(Ki)", (unsigned long long)ts, ret);
}

/* ---- contexts ---- */

FN(create_context)
{
    int dev;
    PA_PARSE(args, Q(create_context), "i", &dev);
    aclrtContext ctx = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateContext(&ctx, dev));
    return pa_ptr_ret(ctx, ret);
}

RET_K(destroy_context, aclrtDestroyContext(PTR(a)))
RET_K(set_context, aclrtSetCurrentContext(PTR(a)))

FN(get_context)
{
    PA_PARSE(args, Q(get_context), "");
    aclrtContext ctx = NULL;
    aclError ret = aclrtGetCurrentContext(&ctx);
    return pa_ptr_ret(ctx, ret);
}

FN(ctx_get_current_default_stream)
{
    PA_PARSE(args, Q(ctx_get_current_default_stream), "");
    aclrtStream s = NULL;
    aclError ret = aclrtCtxGetCurrentDefaultStream(&s);
    return pa_ptr_ret(s, ret);
}

/* ---- streams ---- */

FN(create_stream)
{
    PA_PARSE(args, Q(create_stream), "");
    aclrtStream s = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateStream(&s));
    return pa_ptr_ret(s, ret);
}

FN(create_stream_with_config)
{
    unsigned int prio, flag;
    PA_PARSE(args, Q(create_stream_with_config), "II", &prio, &flag);
    aclrtStream s = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateStreamWithConfig(&s, prio, flag));
    return pa_ptr_ret(s, ret);
}

RET_K(destroy_stream, aclrtDestroyStream(PTR(a)))
RET_K(destroy_stream_force, aclrtDestroyStreamForce(PTR(a)))
RET_K(synchronize_stream, aclrtSynchronizeStream(PTR(a)))
RET_KI(synchronize_stream_with_timeout, aclrtSynchronizeStreamWithTimeout(PTR(a), b))
RET_KK(stream_wait_event, aclrtStreamWaitEvent(PTR(a), PTR(b)))

FN(set_stream_failure_mode)
{
    unsigned long s;
    unsigned long long mode;
    PA_PARSE(args, Q(set_stream_failure_mode), "kK", &s, &mode);
    aclError ret;
    PA_NOGIL(ret = aclrtSetStreamFailureMode(PTR(s), (uint64_t)mode));
    return PyLong_FromLong(ret);
}

FN(stream_query)
{
    unsigned long s;
    PA_PARSE(args, Q(stream_query), "k", &s);
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    aclError ret;
    PA_NOGIL(ret = aclrtStreamQuery(PTR(s), &st));
    return Py_BuildValue("(ii)", (int)st, ret);
}

/* ---- events ---- */

FN(create_event)
{
    PA_PARSE(args, Q(create_event), "");
    aclrtEvent e = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateEvent(&e));
    return pa_ptr_ret(e, ret);
}

FN(create_event_with_flag)
{
    unsigned int flag;
    PA_PARSE(args, Q(create_event_with_flag), "I", &flag);
    aclrtEvent e = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateEventWithFlag(&e, flag));
    return pa_ptr_ret(e, ret);
}

FN(create_event_ex_with_flag)
{
    unsigned int flag;
    PA_PARSE(args, Q(create_event_ex_with_flag), "I", &flag);
    aclrtEvent e = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtCreateEventExWithFlag(&e, flag));
    return pa_ptr_ret(e, ret);
}

RET_K(destroy_event, aclrtDestroyEvent(PTR(a)))
RET_KK(record_event, aclrtRecordEvent(PTR(a), PTR(b)))
RET_KK(reset_event, aclrtResetEvent(PTR(a), PTR(b)))
RET_K(synchronize_event, aclrtSynchronizeEvent(PTR(a)))
RET_KI(synchronize_event_with_timeout, aclrtSynchronizeEventWithTimeout(PTR(a), b))

FN(query_event)
{
    unsigned long e;
    PA_PARSE(args, Q(query_event), "k", &e);
    aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
    aclError ret;
    PA_NOGIL(ret = aclrtQueryEvent(PTR(e), &st));
    return Py_BuildValue("(ii)", (int)st, ret);
}

FN(query_event_status)
{
    unsigned long e;
    PA_PARSE(args, Q(query_event_status), "k", &e);
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclError ret;
    PA_NOGIL(ret = aclrtQueryEventStatus(PTR(e), &st));
    return Py_BuildValue("(ii)", (int)st, ret);
}

FN(query_event_wait_status)
{
    unsigned long e;
    PA_PARSE(args, Q(query_event_wait_status), "k", &e);
    aclrtEventWaitStatus st = ACL_EVENT_WAIT_STATUS_RESERVED;
    aclError ret;
    PA_NOGIL(ret = aclrtQueryEventWaitStatus(PTR(e), &st));
    return Py_BuildValue("(ii)", (int)st, ret);
}

FN(event_elapsed_time)
{
    unsigned long a, b;
    PA_PARSE(args, Q(event_elapsed_time), "kk", &a, &b);
    float ms = 0.0f;
    aclError ret;
    PA_NOGIL(ret = aclrtEventElapsedTime(&ms, PTR(a), PTR(b)));
    return Py_BuildValue("(di)", (double)ms, ret);
}

/* ---- memory ---- */

typedef aclError (*malloc_fn)(void **, size_t, aclrtMemMallocPolicy);

static PyObject *do_malloc(PyObject *args, const char *q, malloc_fn fn)
{
    unsigned long size;
    int policy;
    PA_PARSE(args, q, "ki", &size, &policy);
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = fn(&p, (size_t)size, (aclrtMemMallocPolicy)policy));
    return pa_ptr_ret(p, ret);
}

FN(malloc) { return do_malloc(args, Q(malloc), aclrtMalloc); }
FN(malloc_align32) { return do_malloc(args, Q(malloc_align32), aclrtMallocAlign32); }
FN(malloc_cached) { return do_malloc(args, Q(malloc_cached), aclrtMallocCached); }

/* pyACL's cfg dict, {} (no config) or
 * {"numAttrs": n, "attrs": [{"attr": int, "value": {"moduleId"|"deviceId"|"vaFlag": int}}, ...]},
 * as an aclrtMallocConfig over `buf` (at most PA_CFG_MAX attributes). The
 * value is read under the key the attribute names, else the dict's only
 * integer. Returns 0, or -1 with a Python exception set. */
#define PA_CFG_MAX 16
static int cfg_from_dict(const char *qualname, PyObject *cfg, aclrtMallocConfig *out, aclrtMallocAttribute *buf)
{
    static const char *const keys[] = {"", "moduleId", "deviceId", "vaFlag"};
    out->attrs = buf;
    out->numAttrs = 0;
    if (PyDict_Size(cfg) == 0) return 0;
    PyObject *num = PyDict_GetItemString(cfg, "numAttrs");
    PyObject *attrs = PyDict_GetItemString(cfg, "attrs");
    if (!num || !PyLong_Check(num) || !attrs || !PyList_Check(attrs)) {
        pa_parse_failed(qualname);
        return -1;
    }
    long n = PyLong_AsLong(num);
    if (n < 0 || n > PyList_GET_SIZE(attrs) || n > PA_CFG_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: numAttrs %ld does not match %zd attrs (at most %d)", qualname, n,
                     PyList_GET_SIZE(attrs), PA_CFG_MAX);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        PyObject *a = PyList_GET_ITEM(attrs, i);
        PyObject *at = PyDict_Check(a) ? PyDict_GetItemString(a, "attr") : NULL;
        PyObject *val = PyDict_Check(a) ? PyDict_GetItemString(a, "value") : NULL;
        if (!at || !PyLong_Check(at) || !val || !PyDict_Check(val)) {
            pa_parse_failed(qualname);
            return -1;
        }
        long kind = PyLong_AsLong(at);
        PyObject *v = kind >= 1 && kind <= 3 ? PyDict_GetItemString(val, keys[kind]) : NULL;
        if (!v && PyDict_Size(val) == 1) {
            Py_ssize_t pos = 0;
            PyObject *k;
            PyDict_Next(val, &pos, &k, &v);
        }
        unsigned long x = v && PyLong_Check(v) ? PyLong_AsUnsignedLong(v) : 0;
        if (PyErr_Occurred()) return -1;
        memset(&buf[i], 0, sizeof(buf[i]));
        buf[i].attr = (aclrtMallocAttrType)kind;
        if (kind == ACL_RT_MEM_ATTR_MODULE_ID)
            buf[i].value.moduleId = (uint16_t)x;
        else if (kind == ACL_RT_MEM_ATTR_DEVICE_ID)
            buf[i].value.deviceId = (uint32_t)x;
        else
            buf[i].value.vaFlag = (uint32_t)x;
    }
    out->numAttrs = (size_t)n;
    return 0;
}

FN(malloc_with_cfg)
{
    unsigned long size;
    int policy;
    PyObject *cfg;
    PA_PARSE(args, Q(malloc_with_cfg), "kiO!", &size, &policy, &PyDict_Type, &cfg);
    aclrtMallocAttribute buf[PA_CFG_MAX];
    aclrtMallocConfig c;
    if (cfg_from_dict(Q(malloc_with_cfg), cfg, &c, buf)) return NULL;
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtMallocWithCfg(&p, (size_t)size, (aclrtMemMallocPolicy)policy, &c));
    return pa_ptr_ret(p, ret);
}

FN(malloc_host_with_cfg)
{
    unsigned long size;
    PyObject *cfg;
    PA_PARSE(args, Q(malloc_host_with_cfg), "kO!", &size, &PyDict_Type, &cfg);
    aclrtMallocAttribute buf[PA_CFG_MAX];
    aclrtMallocConfig c;
    if (cfg_from_dict(Q(malloc_host_with_cfg), cfg, &c, buf)) return NULL;
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtMallocHostWithCfg(&p, (uint64_t)size, &c));
    return pa_ptr_ret(p, ret);
}

FN(host_register)
{
    unsigned long ptr, size;
    int type;
    PA_PARSE(args, Q(host_register), "kki", &ptr, &size, &type);
    void *dev = NULL;
    aclError ret = aclrtHostRegister(PTR(ptr), (uint64_t)size, (aclrtHostRegisterType)type, &dev);
    return pa_ptr_ret(dev, ret);
}

RET_K(host_unregister, aclrtHostUnregister(PTR(a)))

RET_K(free, aclrtFree(PTR(a)))

FN(malloc_host)
{
    unsigned long size;
    PA_PARSE(args, Q(malloc_host), "k", &size);
    void *p = NULL;
    aclError ret;
    PA_NOGIL(ret = aclrtMallocHost(&p, (size_t)size));
    return pa_ptr_ret(p, ret);
}

RET_K(free_host, aclrtFreeHost(PTR(a)))
RET_KK(mem_flush, aclrtMemFlush(PTR(a), (size_t)b))
RET_KK(mem_invalidate, aclrtMemInvalidate(PTR(a), (size_t)b))

FN(memcpy)
{
    unsigned long dst, dmax, src, count;
    int kind;
    PA_PARSE(args, Q(memcpy), "kkkki", &dst, &dmax, &src, &count, &kind);
    aclError ret;
    if (count >= PA_NOGIL_COPY_BYTES)
        PA_NOGIL(ret = aclrtMemcpy(PTR(dst), (size_t)dmax, PTR(src), (size_t)count, (aclrtMemcpyKind)kind));
    else
        ret = aclrtMemcpy(PTR(dst), (size_t)dmax, PTR(src), (size_t)count, (aclrtMemcpyKind)kind);
    return PyLong_FromLong(ret);
}

FN(memcpy_async)
{
    unsigned long dst, dmax, src, count, stream;
    int kind;
    PA_PARSE(args, Q(memcpy_async), "kkkkik", &dst, &dmax, &src, &count, &kind, &stream);
    aclError ret;
    PA_NOGIL(ret = aclrtMemcpyAsync(PTR(dst), (size_t)dmax, PTR(src), (size_t)count, (aclrtMemcpyKind)kind,
                                    PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(memset)
{
    unsigned long ptr, max, count;
    int value;
    PA_PARSE(args, Q(memset), "kkik", &ptr, &max, &value, &count);
    aclError ret;
    PA_NOGIL(ret = aclrtMemset(PTR(ptr), (size_t)max, value, (size_t)count));
    return PyLong_FromLong(ret);
}

FN(memset_async)
{
    unsigned long ptr, max, count, stream;
    int value;
    PA_PARSE(args, Q(memset_async), "kkikk", &ptr, &max, &value, &count, &stream);
    aclError ret;
    PA_NOGIL(ret = aclrtMemsetAsync(PTR(ptr), (size_t)max, value, (size_t)count, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(memcpy2d)
{
    unsigned long dst, dpitch, src, spitch, width, height;
    int kind;
    PA_PARSE(args, Q(memcpy2d), "kkkkkki", &dst, &dpitch, &src, &spitch, &width, &height, &kind);
    aclError ret;
    PA_NOGIL(ret = aclrtMemcpy2d(PTR(dst), (size_t)dpitch, PTR(src), (size_t)spitch, (size_t)width, (size_t)height,
                                 (aclrtMemcpyKind)kind));
    return PyLong_FromLong(ret);
}

FN(memcpy2d_async)
{
    unsigned long dst, dpitch, src, spitch, width, height, stream;
    int kind;
    PA_PARSE(args, Q(memcpy2d_async), "kkkkkkik", &dst, &dpitch, &src, &spitch, &width, &height, &kind, &stream);
    aclError ret;
    PA_NOGIL(ret = aclrtMemcpy2dAsync(PTR(dst), (size_t)dpitch, PTR(src), (size_t)spitch, (size_t)width,
                                      (size_t)height, (aclrtMemcpyKind)kind, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(get_mem_info)
{
    int attr;
    PA_PARSE(args, Q(get_mem_info), "i", &attr);
    size_t fr = 0, total = 0;
    aclError ret;
    PA_NOGIL(ret = aclrtGetMemInfo((aclrtMemAttr)attr, &fr, &total));
    return Py_BuildValue("(KKi)", (unsigned long long)fr, (unsigned long long)total, ret);
}

/* ---- host callbacks ---- */

FN(subscribe_report)
{
    unsigned long long tid;
    unsigned long stream;
    PA_PARSE(args, Q(subscribe_report), "Kk", &tid, &stream);
    aclError ret;
    PA_NOGIL(ret = aclrtSubscribeReport((uint64_t)tid, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(unsubscribe_report)
{
    unsigned long long tid;
    unsigned long stream;
    PA_PARSE(args, Q(unsubscribe_report), "Kk", &tid, &stream);
    aclError ret;
    PA_NOGIL(ret = aclrtUnSubscribeReport((uint64_t)tid, PTR(stream)));
    return PyLong_FromLong(ret);
}

RET_I(process_report, aclrtProcessReport(a))

/* One pending Python callback: the references launch_callback took. Freed
 * by the trampoline after the call (raw allocator: no GIL needed). */
typedef struct {
    PyObject *fn;
    PyObject *data;
} pa_callback;

static void callback_trampoline(void *user)
{
    pa_callback *cb = user;
    if (interpreter_gone())
        return; /* the objects died with the interpreter */
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *r = PyObject_CallOneArg(cb->fn, cb->data);
    if (r)
        Py_DECREF(r);
    else
        pa_report_exception("acl.rt.launch_callback callback", cb->fn);
    Py_DECREF(cb->fn);
    Py_DECREF(cb->data);
    PyGILState_Release(st);
    PyMem_RawFree(cb);
}

FN(launch_callback)
{
    PyObject *fn, *data;
    int block;
    unsigned long stream;
    PA_PARSE(args, Q(launch_callback), "OOik", &fn, &data, &block, &stream);
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "acl.rt.launch_callback: the callback is not callable");
        return NULL;
    }
    pa_callback *cb = PyMem_RawMalloc(sizeof(*cb));
    if (!cb)
        return PyErr_NoMemory();
    Py_INCREF(fn);
    Py_INCREF(data);
    cb->fn = fn;
    cb->data = data;
    aclError ret;
    PA_NOGIL(ret = aclrtLaunchCallback(callback_trampoline, cb, (aclrtCallbackBlockType)block, PTR(stream)));
    if (ret != ACL_SUCCESS) {
        /* Not enqueued: the trampoline will never see it. */
        Py_DECREF(fn);
        Py_DECREF(data);
        PyMem_RawFree(cb);
    }
    return PyLong_FromLong(ret);
}

/* ---- exception callback ---- */

static PyObject *g_exception_cb; /* guarded by the GIL */

static void exception_trampoline(aclrtExceptionInfo *info)
{
    if (interpreter_gone())
        return;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *fn = g_exception_cb;
    if (fn) {
        Py_INCREF(fn);
        PyObject *r = PyObject_CallFunction(fn, "K", (unsigned long long)(uintptr_t)info);
        if (r)
            Py_DECREF(r);
        else
            pa_report_exception("acl.rt.set_exception_info_callback callback", fn);
        Py_DECREF(fn);
    }
    PyGILState_Release(st);
}

FN(set_exception_info_callback)
{
    PyObject *fn;
    PA_PARSE(args, Q(set_exception_info_callback), "O", &fn);
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "acl.rt.set_exception_info_callback: the callback is not callable");
        return NULL;
    }
    aclError ret;
    PA_NOGIL(ret = aclrtSetExceptionInfoCallback(fn == Py_None ? NULL : exception_trampoline));
    if (ret == ACL_SUCCESS) {
        PyObject *old = g_exception_cb;
        g_exception_cb = fn == Py_None ? NULL : fn;
        Py_XINCREF(g_exception_cb);
        Py_XDECREF(old);
    }
    return PyLong_FromLong(ret);
}

#define EXC_GETTER(name, call)                                  \
    FN(name)                                                    \
    {                                                           \
        unsigned long info;                                     \
        PA_PARSE(args, Q(name), "k", &info);                    \
        return PyLong_FromUnsignedLong(call((const aclrtExceptionInfo *)PTR(info))); \
    }

EXC_GETTER(get_error_code_from_exception_info, aclrtGetErrorCodeFromExceptionInfo)
EXC_GETTER(get_task_id_from_exception_info, aclrtGetTaskIdFromExceptionInfo)
EXC_GETTER(get_stream_id_from_exception_info, aclrtGetStreamIdFromExceptionInfo)
EXC_GETTER(get_thread_id_from_exception_info, aclrtGetThreadIdFromExceptionInfo)
EXC_GETTER(get_device_id_from_exception_info, aclrtGetDeviceIdFromExceptionInfo)

FN(get_last_error)
{
    int level;
    PA_PARSE(args, Q(get_last_error), "i", &level);
    return PyLong_FromLong(aclrtGetLastError((aclrtLastErrLevel)level));
}

FN(peek_at_last_error)
{
    int level;
    PA_PARSE(args, Q(peek_at_last_error), "i", &level);
    return PyLong_FromLong(aclrtPeekAtLastError((aclrtLastErrLevel)level));
}

#define M(name) {#name, rt_##name, METH_VARARGS, NULL}

PyMethodDef pa_rt_methods[] = {
    M(set_device), M(reset_device), M(reset_device_force), M(get_device), M(set_device_sat_mode),
    M(get_device_sat_mode), M(get_run_mode), M(set_ts_device), M(get_device_count), M(query_device_status),
    M(synchronize_device), M(synchronize_device_with_timeout), M(device_can_access_peer),
    M(device_enable_peer_access), M(device_disable_peer_access), M(device_peer_access_status), M(get_device_info),
    M(get_device_capability), M(device_get_stream_priority_range), M(get_logic_dev_id_by_user_dev_id),
    M(get_user_dev_id_by_logic_dev_id), M(get_logic_dev_id_by_phy_dev_id), M(get_phy_dev_id_by_logic_dev_id),
    M(set_op_wait_timeout), M(set_op_execute_time_out), M(stream_get_id), M(event_get_timestamp),
    M(malloc_host_with_cfg), M(host_register), M(host_unregister),
    M(create_context), M(destroy_context), M(set_context), M(get_context), M(ctx_get_current_default_stream),
    M(create_stream), M(create_stream_with_config), M(destroy_stream), M(destroy_stream_force),
    M(set_stream_failure_mode), M(stream_query), M(synchronize_stream), M(synchronize_stream_with_timeout),
    M(stream_wait_event),
    M(create_event), M(create_event_with_flag), M(create_event_ex_with_flag), M(destroy_event), M(record_event),
    M(reset_event), M(query_event), M(query_event_status), M(query_event_wait_status), M(synchronize_event),
    M(synchronize_event_with_timeout), M(event_elapsed_time),
    M(malloc), M(malloc_align32), M(malloc_cached), M(malloc_with_cfg), M(free), M(malloc_host), M(free_host),
    M(mem_flush), M(mem_invalidate), M(memcpy), M(memcpy_async), M(memset), M(memset_async), M(memcpy2d),
    M(memcpy2d_async), M(get_mem_info),
    M(subscribe_report), M(unsubscribe_report), M(process_report), M(launch_callback),
    M(set_exception_info_callback), M(get_error_code_from_exception_info), M(get_task_id_from_exception_info),
    M(get_stream_id_from_exception_info), M(get_thread_id_from_exception_info),
    M(get_device_id_from_exception_info), M(get_last_error), M(peek_at_last_error),
    {NULL, NULL, 0, NULL},
};

/* ---- pyACL names without an openacl implementation ----
 * Appendix B's remaining methods (kernel launch, IPC, notify, virtual
 * memory, allocators, groups, ...). Each accepts any arguments and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED, so feature probes see a code instead of an
 * AttributeError. */
static const char *const unsupported_names[] = {
    "binary_load_from_file", "binary_load_from_data", "get_function_addr", "get_function_name",
    "register_cpu_func", "create_binary", "destroy_binary", "binary_load", "binary_unload",
    "binary_get_function", "launch_kernel", "kernel_args_init", "kernel_args_init_by_user_mem",
    "kernel_args_get_mem_size", "kernel_args_get_handle_mem_size", "kernel_args_append",
    "kernel_args_append_place_holder", "kernel_args_get_place_holder_buffer", "kernel_args_para_update",
    "kernel_args_finalize", "launch_kernel_with_config", "get_overflow_status", "reset_overflow_status",
    "set_stream_overflow_switch", "get_stream_overflow_switch", "get_event_id", "get_event_avail_num",
    "get_stream_available_num", "set_stream_attribute", "get_stream_attribute", "get_thread_last_task_id",
    "reduce_async", "reserve_mem_address", "release_mem_address", "malloc_physical", "free_physical",
    "malloc_for_task_scheduler", "map_mem", "unmap_mem", "mem_export_to_shareable_handle",
    "device_get_bare_tgid", "mem_set_pid_to_shareable_handle", "mem_import_from_shareable_handle",
    "mem_get_allocation_granularity", "get_device_utilization_rate", "ctx_set_sys_param_opt",
    "ctx_get_sys_param_opt", "set_sys_param_opt", "get_sys_param_opt", "allocator_create_desc",
    "allocator_destroy_desc", "allocator_set_obj_to_desc", "allocator_set_alloc_func_to_desc",
    "allocator_set_free_func_to_desc", "allocator_set_alloc_advise_func_to_desc",
    "allocator_set_get_addr_from_block_func_to_desc", "allocator_register", "allocator_unregister", "cmo_async",
    "device_task_abort", "memcpy_async_with_condition", "stream_abort", "pointer_get_attributes",
    "get_memcpy_desc_size", "set_memcpy_desc", "memcpy_async_with_desc", "value_write", "value_wait",
    "ipc_mem_get_export_key", "ipc_mem_set_import_pid", "ipc_mem_import_by_key", "ipc_mem_close",
    "get_device_res_limit", "set_device_res_limit", "reset_device_res_limit", "get_devices_topo",
    "create_notify", "destroy_notify", "record_notify", "wait_and_reset_notify", "get_notify_id",
    "notify_batch_reset", "notify_get_export_key", "notify_set_import_pid", "notify_import_by_key",
    "get_stream_res_limit", "set_stream_res_limit", "reset_stream_res_limit",
    "use_stream_res_in_current_thread", "unuse_stream_res_in_current_thread", "get_res_in_current_thread",
    "get_primary_ctx_state", "set_op_execute_timeout_v2", "get_op_timeout_interval", "get_op_execute_timeout",
    "device_get_uuid", "host_register_v2", "host_get_device_pointer",
    /* USE_MDL builds only in pyACL */
    "set_group", "get_group_count", "create_group_info", "destroy_group_info", "get_all_group_info",
    "get_group_info_detail", "get_mem_uce_info", "mem_uce_repair",
};

#define N_UNSUPPORTED (sizeof(unsupported_names) / sizeof(unsupported_names[0]))

static PyObject *rt_unsupported(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyLong_FromLong(ACL_ERROR_FEATURE_UNSUPPORTED);
}

static PyMethodDef unsupported_defs[N_UNSUPPORTED + 1];

int pa_rt_add_unsupported(PyObject *module)
{
    for (size_t i = 0; i < N_UNSUPPORTED; i++) {
        unsupported_defs[i].ml_name = unsupported_names[i];
        unsupported_defs[i].ml_meth = (PyCFunction)(void (*)(void))rt_unsupported;
        unsupported_defs[i].ml_flags = METH_VARARGS | METH_KEYWORDS;
        unsupported_defs[i].ml_doc = "Not implemented by openacl: returns ACL_ERROR_FEATURE_UNSUPPORTED (200006).";
    }
    return PyModule_AddFunctions(module, unsupported_defs);
}
