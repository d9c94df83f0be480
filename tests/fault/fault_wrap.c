/* The wrappers of fault_wrap.h. Only calls made while armed are counted, so
 * the test's own set-up (writing model files) never counts. */
#define _GNU_SOURCE
#include "fault_wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_int g_armed, g_persistent;

void fw_set_persistent(int on) { atomic_store(&g_persistent, on); }
static atomic_long g_count[FW_CLASSES], g_fail_at[FW_CLASSES], g_injected;

void fw_arm(int cls, long fail_at)
{
    atomic_store(&g_armed, 0);
    for (int c = 0; c < FW_CLASSES; c++) {
        atomic_store(&g_count[c], 0);
        atomic_store(&g_fail_at[c], c == cls ? fail_at : 0);
    }
    atomic_store(&g_injected, 0);
    atomic_store(&g_armed, 1);
}

void fw_disarm(void) { atomic_store(&g_armed, 0); }
long fw_count(int cls) { return atomic_load(&g_count[cls]); }
long fw_injected(void) { return atomic_load(&g_injected); }

const char *fw_class_name(int cls)
{
    static const char *const n[FW_CLASSES] = { "allocation", "file read", "thread creation" };
    return cls >= 0 && cls < FW_CLASSES ? n[cls] : "?";
}

static int fw_fail(int cls)
{
    if (!atomic_load_explicit(&g_armed, memory_order_relaxed)) return 0;
    long n = atomic_fetch_add(&g_count[cls], 1) + 1, at = atomic_load(&g_fail_at[cls]);
    if (at <= 0 || (atomic_load(&g_persistent) ? n < at : n != at)) return 0;
    atomic_fetch_add(&g_injected, 1);
    return 1;
}

/* ---- allocation ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t al, size_t n);
void *__real_aligned_alloc(size_t al, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
int __wrap_posix_memalign(void **p, size_t al, size_t n);
void *__wrap_aligned_alloc(size_t al, size_t n);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t n)
{
    if (fw_fail(FW_ALLOC)) { errno = ENOMEM; return NULL; }
    return __real_malloc(n);
}

void *__wrap_calloc(size_t a, size_t b)
{
    if (fw_fail(FW_ALLOC)) { errno = ENOMEM; return NULL; }
    return __real_calloc(a, b);
}

void *__wrap_realloc(void *p, size_t n)
{
    if (fw_fail(FW_ALLOC)) { errno = ENOMEM; return NULL; }   /* p stays valid, as with the real one */
    return __real_realloc(p, n);
}

int __wrap_posix_memalign(void **p, size_t al, size_t n)
{
    if (fw_fail(FW_ALLOC)) return ENOMEM;
    return __real_posix_memalign(p, al, n);
}

void *__wrap_aligned_alloc(size_t al, size_t n)
{
    if (fw_fail(FW_ALLOC)) { errno = ENOMEM; return NULL; }
    return __real_aligned_alloc(al, n);
}

char *__wrap_strdup(const char *s)
{
    if (fw_fail(FW_ALLOC)) { errno = ENOMEM; return NULL; }
    return __real_strdup(s);
}

/* ---- file reads ---- */
int __real_open(const char *p, int flags, ...);
FILE *__real_fopen(const char *p, const char *mode);
ssize_t __real_read(int fd, void *b, size_t n);
size_t __real_fread(void *b, size_t sz, size_t n, FILE *f);
ssize_t __real_pread(int fd, void *b, size_t n, off_t off);
void *__real_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);
int __wrap_open(const char *p, int flags, ...);
FILE *__wrap_fopen(const char *p, const char *mode);
ssize_t __wrap_read(int fd, void *b, size_t n);
size_t __wrap_fread(void *b, size_t sz, size_t n, FILE *f);
ssize_t __wrap_pread(int fd, void *b, size_t n, off_t off);
void *__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);

int __wrap_open(const char *p, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (fw_fail(FW_IO)) { errno = EMFILE; return -1; }
    return __real_open(p, flags, mode);
}

FILE *__wrap_fopen(const char *p, const char *mode)
{
    if (fw_fail(FW_IO)) { errno = EMFILE; return NULL; }
    return __real_fopen(p, mode);
}

ssize_t __wrap_read(int fd, void *b, size_t n)
{
    if (fw_fail(FW_IO)) { errno = EIO; return -1; }
    return __real_read(fd, b, n);
}

size_t __wrap_fread(void *b, size_t sz, size_t n, FILE *f)
{
    if (fw_fail(FW_IO)) { errno = EIO; return 0; }
    return __real_fread(b, sz, n, f);
}

ssize_t __wrap_pread(int fd, void *b, size_t n, off_t off)
{
    if (fw_fail(FW_IO)) { errno = EIO; return -1; }
    return __real_pread(fd, b, n, off);
}

void *__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
    /* anonymous mappings are allocations in disguise; file mappings are reads */
    if (fw_fail((fl & MAP_ANONYMOUS) ? FW_ALLOC : FW_IO)) { errno = ENOMEM; return MAP_FAILED; }
    return __real_mmap(a, n, prot, fl, fd, off);
}

/* ---- threads ---- */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (fw_fail(FW_THREAD)) return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}
