/* Releasing memory pages whose contents are no longer needed. */
#include "core/core.h"
#include <sys/mman.h>
#include <unistd.h>

void oa_pages_release(const void *p, size_t n)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + n) & ~(pg - 1);
    if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
}
