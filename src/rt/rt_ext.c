/* The exported services of rt_ext.h: thin, checked doors from the companion
 * libraries (DVPP, cblas) into the runtime's error store, memory table and
 * stream queues. Each only forwards to the runtime's internal API. */
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"
#include "rt/rt_ext.h"
#include "rt/rt_internal.h"
#include "rt/rt_priv.h"

ACL_FUNC_VISIBILITY int openacl_ext_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    acl_failv(code, fmt, ap);
    va_end(ap);
    return code;
}

ACL_FUNC_VISIBILITY void openacl_ext_log(int level, const char *fmt, ...)
{
    if (!acl_log_enabled(level)) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    acl_log(level, "%s", buf);
}

ACL_FUNC_VISIBILITY int openacl_ext_check_init(const char *api) { return rt_check_init(api); }

ACL_FUNC_VISIBILITY int openacl_ext_current_device(const char *api, int32_t *device)
{
    if (!device) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: device is NULL", api);
    return rt_current_device(api, device);
}

ACL_FUNC_VISIBILITY int openacl_ext_device_threads(int device) { return rt_device_threads(device); }

ACL_FUNC_VISIBILITY int openacl_ext_stream_enqueue(const char *api, aclrtStream stream, int (*fn)(void *arg),
                                                   void (*release)(void *arg), void *arg, const char *what,
                                                   int32_t *device_out)
{
    if (!fn) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: internal: no task function", api);
    rt_stream *s = NULL;
    int rc = rt_stream_resolve(api, stream, &s);
    if (rc) return rc;
    if (device_out) *device_out = rt_stream_device(s);
    return rt_stream_enqueue(s, fn, release, arg, what ? what : api);
}

ACL_FUNC_VISIBILITY int openacl_ext_mem_query(const void *p, size_t len, int *kind, int32_t *device)
{
    int k = 0, d = -1;
    int rc = rt_mem_kind(p, len, &k, &d);
    if (rc) return rc;
    if (kind) *kind = k;
    if (device) *device = d;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY int openacl_ext_dvpp_malloc(const char *api, void **p, size_t size)
{
    return rt_mem_dvpp_alloc(api, p, size);
}

ACL_FUNC_VISIBILITY int openacl_ext_dvpp_free(const char *api, void *p) { return rt_mem_dvpp_free(api, p); }
