/* A minimal application built against the installed headers and library:
 * what every CANN app does first (init, device, device count, finalize). */
#include "acl/acl.h"
#include <stdio.h>

int main(void)
{
    uint32_t count = 0;
    if (aclInit(NULL) != ACL_SUCCESS) return 1;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    if (aclrtGetDeviceCount(&count) != ACL_SUCCESS || count == 0) return 3;
    aclmdlDesc *desc = aclmdlCreateDesc();
    if (desc == NULL) return 4;
    if (aclmdlGetNumInputs(desc) != 0) return 5;
    aclmdlDestroyDesc(desc);
    printf("%s: %u devices\n", aclrtGetSocName(), (unsigned)count);
    if (aclrtResetDevice(0) != ACL_SUCCESS) return 6;
    return aclFinalize() == ACL_SUCCESS ? 0 : 7;
}
