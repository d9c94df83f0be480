/* lib/ompenv: the OpenMP runtime (libomp or libgomp) must see the waiting
 * defaults libascendcl's early constructor sets. Checked through the
 * runtime's own report of its settings (omp_display_env, written to stderr,
 * captured here). Run with OPENACL_OMP_SPIN=<value> (see part.cmake); a
 * user-set OMP_WAIT_POLICY, GOMP_SPINCOUNT or KMP_BLOCKTIME must be left
 * alone. Built twice: linking libascendcl alone, as an Ascend application
 * does (the loader then orders the runtime and the helper library by
 * libascendcl's own dependency list), and linking libascendcl and then the
 * runtime, as an OpenMP application would; omp_display_env is looked up,
 * so that the first one names no runtime. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "acl/acl.h"

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "ompenv_test: %s\n%s\n", what, detail ? detail : "");
    return 1;
}

int main(void)
{
    /* a real API call keeps libascendcl (and its dependency) loaded */
    const char *ver = aclGetRecentErrMsg();
    (void)ver;
    char path[] = "/tmp/ompenv_test_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return fail("mkstemp failed", NULL);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    void (*display)(int) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "omp_display_env");
    memcpy(&display, &sym, sizeof display);
    if (!display) return fail("omp_display_env not found (no OpenMP runtime loaded)", NULL);
    display(1);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    static char buf[65536];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    if (n <= 0) return fail("omp_display_env wrote nothing", NULL);
    buf[n] = 0;
    /* looked up, not linked: an executable naming the helper library
     * itself before the runtime would change the loader's order */
    const char *(*applied_fn)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "openacl_ompenv_applied");
    if (!applied_fn) return fail("openacl_ompenv_applied not found (helper library not loaded)", NULL);
    const char *applied = applied_fn();
    const char *user_pol = getenv("OMPENV_TEST_USER");   /* set by the user-policy case */
    const char *want = getenv("OMPENV_TEST_EXPECT");
    if (!want) return fail("OMPENV_TEST_EXPECT not set", NULL);
    if (!strstr(buf, want)) {
        char msg[256];
        snprintf(msg, sizeof msg, "the OpenMP runtime does not report \"%s\" (library applied: %s)", want, applied);
        return fail(msg, buf);
    }
    if (user_pol && strncmp(applied, "user:", 5)) return fail("a user setting was overridden", applied);
    if (!user_pol && !strncmp(applied, "user:", 5)) return fail("unexpected user setting", applied);
    printf("ok: %s\n", applied);
    return 0;
}
