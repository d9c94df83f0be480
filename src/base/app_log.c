/* aclAppLog: application log lines through the openacl log, limited to
 * 1024 bytes of formatted text (including the NUL) as CANN documents. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl_base.h"
#include "core/core.h"
#include "core/log_internal.h"

#define APP_LOG_MAX 1024
static const char k_trunc[] = "...[truncated]";

ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...)
{
    int level = (int)logLevel;
    if (level < ACL_DEBUG || level > ACL_ERROR) level = ACL_ERROR;
    if (!fmt || !acl_log_enabled(level)) return;
    char text[APP_LOG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof(text)) /* cut: the marker takes the last bytes */
        memcpy(text + sizeof(text) - sizeof(k_trunc), k_trunc, sizeof(k_trunc));
    const char *base = file ? strrchr(file, '/') : NULL;
    char out[APP_LOG_MAX + 256];
    snprintf(out, sizeof(out), "[%s:%u] %s: %s", base ? base + 1 : (file ? file : "?"), line,
             func ? func : "?", text);
    acl_log_emit(level, "APP", out);
}

/* Formats like aclAppLog into buf (for tests of the truncation rule). */
size_t acl_app_log_format(char *buf, size_t cap, const char *fmt, ...)
{
    char text[APP_LOG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (n < 0) return 0;
    if ((size_t)n >= sizeof(text)) memcpy(text + sizeof(text) - sizeof(k_trunc), k_trunc, sizeof(k_trunc));
    return (size_t)snprintf(buf, cap, "%s", text);
}
