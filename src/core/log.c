/* Logging. The threshold comes from ASCEND_GLOBAL_LOG_LEVEL (0 debug,
 * 1 info, 2 warning, 3 error — the default —, 4 off), read at the first log
 * call, and may be set by aclInit's config (the environment wins). With
 * ASCEND_SLOG_PRINT_TO_STDOUT=1 every enabled line goes to stdout, as CANN's
 * slog does; otherwise only errors are printed, to stderr (there is no log
 * file). One write per line, so lines of different threads never mix. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "core/log_internal.h"

static atomic_int g_level = -1;     /* -1: not read yet */
static atomic_int g_to_stdout = -1;
static atomic_int g_level_from_env = 0;

static void log_read_env(void)
{
    int lvl = 3, from_env = 0;
    const char *e = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (e && e[0] >= '0' && e[0] <= '4' && e[1] == '\0') {
        lvl = e[0] - '0';
        from_env = 1;
    }
    const char *o = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    atomic_store(&g_to_stdout, o && strcmp(o, "1") == 0);
    atomic_store(&g_level_from_env, from_env);
    atomic_store(&g_level, lvl);
}

static int log_level(void)
{
    int l = atomic_load_explicit(&g_level, memory_order_relaxed);
    if (l < 0) {
        log_read_env();
        l = atomic_load(&g_level);
    }
    return l;
}

void acl_log_reload_env(void) { log_read_env(); }

int acl_log_env_level_set(void)
{
    log_level();
    return atomic_load(&g_level_from_env);
}

void acl_log_set_level(int level)
{
    if (level < 0 || level > 4) return;
    log_level();
    atomic_store(&g_level, level);
}

int acl_log_get_level(void) { return log_level(); }

int acl_log_enabled(int level)
{
    int th = log_level();
    if (th >= 4 || level < th) return 0;
    return atomic_load_explicit(&g_to_stdout, memory_order_relaxed) == 1 || level >= 3;
}

static const char *level_tag(int level)
{
    switch (level) {
    case 0: return "DEBUG";
    case 1: return "INFO";
    case 2: return "WARNING";
    default: return "ERROR";
    }
}

void acl_log_emit(int level, const char *module, const char *text)
{
    if (!acl_log_enabled(level)) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tmv;
    localtime_r(&ts.tv_sec, &tmv);
    char line[1400];
    int n = snprintf(line, sizeof(line), "[%s] %s(%ld,openacl):%04d-%02d-%02d-%02d:%02d:%02d.%03ld %s\n",
                     level_tag(level), module, (long)syscall(SYS_gettid), tmv.tm_year + 1900, tmv.tm_mon + 1,
                     tmv.tm_mday, tmv.tm_hour, tmv.tm_min, tmv.tm_sec, ts.tv_nsec / 1000000L, text);
    if (n < 0) return;
    if ((size_t)n >= sizeof(line)) {
        n = (int)sizeof(line) - 1;
        line[n - 1] = '\n';
    }
    FILE *f = atomic_load_explicit(&g_to_stdout, memory_order_relaxed) == 1 ? stdout : stderr;
    /* one fwrite under the stdio lock keeps the line whole */
    fwrite(line, 1, (size_t)n, f);
    if (f == stdout) fflush(f);
}

void acl_log(int level, const char *fmt, ...)
{
    if (!acl_log_enabled(level)) return;
    char text[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    acl_log_emit(level, "ASCENDCL", text);
}
