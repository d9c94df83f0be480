/* Core services shared by every part of libascendcl: the per-thread recent
 * error message, logging, and small helpers. The runtime owns the
 * implementation (the .c files of src/core); everyone else only calls these. */
#ifndef OPENACL_CORE_H
#define OPENACL_CORE_H
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define OA_INTERNAL __attribute__((visibility("hidden")))

/* Record a failure for aclGetRecentErrMsg() on the calling thread and return
 * `code`, so call sites read `return acl_fail(ACL_ERROR_INVALID_PARAM,
 * "aclrtMalloc: size is 0");`. The message should name the API call, the
 * object (handle, model id, node, input index) and the bad value. Messages
 * accumulate until aclGetRecentErrMsg() returns and clears them. Also logged
 * at ERROR level. Thread-safe. */
int acl_fail(int code, const char *fmt, ...) OA_PRINTF(2, 3);
int acl_failv(int code, const char *fmt, va_list ap);

/* Log levels follow aclLogLevel: 0 debug, 1 info, 2 warning, 3 error, 4 null. */
void acl_log(int level, const char *fmt, ...) OA_PRINTF(2, 3);
int acl_log_enabled(int level);

/* Symbolic name of an aclError value ("ACL_ERROR_INVALID_PARAM"), or "UNKNOWN". */
const char *acl_err_name(int code);

/* Additions (runtime part): */
/* Like acl_fail, but logged at INFO: for outcomes a caller expects in normal
 * operation (a poll timing out, a tolerated repeated aclInit). */
int acl_fail_quiet(int code, const char *fmt, ...) OA_PRINTF(2, 3);

/* Takes the calling thread's accumulated message (newest first) and clears
 * it; the caller owns the returned string (free()); NULL when none. Used by
 * stream workers to move a failed task's message to the stream. */
char *acl_err_take(void);

/* Code of the calling thread's most recent acl_fail (0 if none); clear=1
 * resets it. Backs aclrtGetLastError / aclrtPeekAtLastError. */
int acl_last_error(int clear);

/* Addition (engine): while on (per thread), acl_fail records nothing and
 * logs at DEBUG only: for attempts whose failure the caller handles (the
 * engine trying a static program for new input shapes). Returns the
 * previous setting, for nesting. */
int acl_err_quiet(int on);

/* Short description of an error code ("argument check failed"), or "". */
const char *acl_err_desc(int code);

/* Lets the whole pages inside [p, p + n) leave memory (madvise
 * MADV_DONTNEED; partial pages at either end are kept). Only for bytes
 * nobody reads again: in anonymous memory they read back as zeros, in a
 * private read-only file mapping they are fetched from the file again. */
void oa_pages_release(const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
