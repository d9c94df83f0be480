/* libFuzzer target: the aclInit JSON configuration file. Each input is
 * written to a file and given to aclInit; an accepted configuration brings
 * a device up and down (aclrtSetDevice, aclrtGetMemInfo, aclrtResetDevice)
 * before aclFinalize. A refusal must carry a message; a crash, sanitizer
 * report or leak is a finding. */
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    if (fz_write_temp("json", "", 0, g_path, sizeof g_path)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(g_path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    int rc = aclInit(g_path);
    if (rc != ACL_SUCCESS) {
        if (!aclGetRecentErrMsg()) abort();
        if (rc == ACL_ERROR_REPEAT_INITIALIZE) abort();   /* the previous input did not finalise */
        return 0;
    }
    uint32_t n = 0;
    if (aclrtGetDeviceCount(&n) != ACL_SUCCESS || n == 0) abort();
    /* Bring up the last device only: a config may ask for many devices with
     * many threads each, and creating all of them per input would be slow. */
    if (aclrtSetDevice((int32_t)n - 1) == ACL_SUCCESS) {
        size_t fr = 0, tot = 0;
        aclrtGetMemInfo(ACL_DDR_MEM, &fr, &tot);
        void *p = NULL;
        if (aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS) aclrtFree(p);
        aclrtResetDevice((int32_t)n - 1);
    }
    aclGetRecentErrMsg();
    if (aclFinalize() != ACL_SUCCESS) abort();
    return 0;
}
