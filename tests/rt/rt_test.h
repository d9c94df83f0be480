/* Minimal test harness for the runtime and API tests: each test binary is
 * one process; CHECK* macros print the failing line and count failures. A
 * failing ACL call must return the documented code AND leave a message
 * naming the call (checked through aclGetRecentErrMsg). */
#ifndef OPENACL_RT_TEST_H
#define OPENACL_RT_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static int g_failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            g_failures++;                                                          \
        }                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                             \
    do {                                                                                               \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                          \
        if (va_ != vb_) {                                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, #b, \
                    va_, vb_);                                                                         \
            g_failures++;                                                                              \
        }                                                                                              \
    } while (0)

/* The call succeeds. */
#define OK(call)                                                                                      \
    do {                                                                                              \
        aclError rc_ = (call);                                                                        \
        if (rc_ != ACL_SUCCESS) {                                                                     \
            const char *m_ = aclGetRecentErrMsg();                                                    \
            fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, (int)rc_,         \
                    m_ ? m_ : "(no message)");                                                        \
            g_failures++;                                                                             \
        }                                                                                             \
    } while (0)

/* The call fails with `code` and the thread's message mentions `name`. */
static inline void expect_fail_(const char *file, int line, const char *text, aclError rc, int code,
                                const char *name)
{
    const char *m = aclGetRecentErrMsg();
    if (rc != code) {
        fprintf(stderr, "%s:%d: %s returned %d, expected %d (msg: %s)\n", file, line, text, (int)rc, code,
                m ? m : "(none)");
        g_failures++;
        return;
    }
    if (!m || !strstr(m, name)) {
        fprintf(stderr, "%s:%d: %s: message does not name %s: %s\n", file, line, text, name, m ? m : "(none)");
        g_failures++;
    }
}
#define FAILS(call, code, name) expect_fail_(__FILE__, __LINE__, #call, (call), (code), (name))

/* Message check for calls that do not return an aclError. */
#define MSG_NAMES(name)                                                                            \
    do {                                                                                           \
        const char *m_ = aclGetRecentErrMsg();                                                     \
        if (!m_ || !strstr(m_, name)) {                                                            \
            fprintf(stderr, "%s:%d: message does not name %s: %s\n", __FILE__, __LINE__, name,       \
                    m_ ? m_ : "(none)");                                                           \
            g_failures++;                                                                          \
        }                                                                                          \
    } while (0)

#define TEST_DONE()                                                   \
    do {                                                              \
        if (g_failures) {                                             \
            fprintf(stderr, "%d check(s) failed\n", g_failures);      \
            return 1;                                                 \
        }                                                             \
        printf("all checks passed\n");                                \
        return 0;                                                     \
    } while (0)

#endif
