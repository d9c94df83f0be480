/* The runtime services libascendcl exports to openacl's own companion
 * libraries (libacl_dvpp.so, libacl_cblas.so), which live in their own
 * shared objects as in CANN but must share this library's per-thread error
 * message, memory table and stream queues. Not an application API: the
 * header is not installed and every name starts with openacl_ext_. Grows
 * only by addition. All functions are thread-safe. */
#ifndef OPENACL_RT_EXT_H
#define OPENACL_RT_EXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a message for aclGetRecentErrMsg on the calling thread (naming the
 * call, the object and the bad value, like every other message) and returns
 * code. Logged at ERROR. */
ACL_FUNC_VISIBILITY int openacl_ext_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Logs at an aclLogLevel (0 debug .. 3 error) through the library's log. */
ACL_FUNC_VISIBILITY void openacl_ext_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ACL_ERROR_UNINITIALIZE with "<api>: aclInit has not been called" before
 * aclInit, else ACL_SUCCESS. */
ACL_FUNC_VISIBILITY int openacl_ext_check_init(const char *api);

/* The calling thread's current device (as aclrtGetDevice, messages name api). */
ACL_FUNC_VISIBILITY int openacl_ext_current_device(const char *api, int32_t *device);

/* The thread budget of a device (aclInit "threads_per_device"); 1 for a bad id. */
ACL_FUNC_VISIBILITY int openacl_ext_device_threads(int device);

/* Resolves stream (NULL: the current context's default stream; a destroyed
 * or foreign stream is refused with a message naming api) and enqueues
 * fn(arg) behind every earlier task of that stream, ordered with copies,
 * model executions, events and callbacks. fn runs on the stream's worker with
 * the stream's context current and returns an aclError; a non-zero return
 * (with the message fn left through openacl_ext_fail) becomes the stream's
 * error, reported with `what` (a static string) by the next
 * aclrtSynchronizeStream. release(arg) (may be NULL) runs after fn, or
 * instead of it when the task is discarded. On an error return release has
 * NOT been called: the caller still owns arg. *device_out (may be NULL)
 * receives the stream's device. */
ACL_FUNC_VISIBILITY int openacl_ext_stream_enqueue(const char *api, aclrtStream stream, int (*fn)(void *arg),
                                                   void (*release)(void *arg), void *arg, const char *what,
                                                   int32_t *device_out);

/* Where [p, p + len) lives. */
enum {
    OPENACL_EXT_MEM_PAGEABLE = 0, /* not inside any openacl allocation: ordinary host memory */
    OPENACL_EXT_MEM_HOST = 1,     /* page-locked host memory: aclrtMallocHost(WithCfg), aclrtHostRegister */
    OPENACL_EXT_MEM_DEVICE = 2,   /* aclrtMalloc and friends */
    OPENACL_EXT_MEM_DVPP = 3      /* openacl_ext_dvpp_malloc (acldvppMalloc) */
};

/* *kind gets one of the values above and *device the allocation's device (-1
 * for host memory). ACL_ERROR_INVALID_PARAM (no message recorded) when p is
 * inside an allocation but p + len runs past its end; ACL_SUCCESS otherwise,
 * also for pageable memory. */
ACL_FUNC_VISIBILITY int openacl_ext_mem_query(const void *p, size_t len, int *kind, int32_t *device);

/* Device memory on the current device for the media processor: 128-byte
 * aligned start, counted as user memory against the device's capacity,
 * accepted by every copy and as model input or output, and marked so that
 * openacl_ext_mem_query says OPENACL_EXT_MEM_DVPP. Messages name api. */
ACL_FUNC_VISIBILITY int openacl_ext_dvpp_malloc(const char *api, void **p, size_t size);

/* Frees memory from openacl_ext_dvpp_malloc; anything else is refused with a
 * message naming api (NULL included). */
ACL_FUNC_VISIBILITY int openacl_ext_dvpp_free(const char *api, void *p);

#ifdef __cplusplus
}
#endif
#endif
