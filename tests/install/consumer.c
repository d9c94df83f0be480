/* A minimal application built against the installed headers and library:
 * what every CANN app does first (init, device, version, finalize). */
#include "acl/acl.h"
#include <stdio.h>

int main(void)
{
    int32_t major = 0, minor = 0, patch = 0;
    if (aclInit(NULL) != ACL_SUCCESS) return 1;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    if (aclrtGetVersion(&major, &minor, &patch) != ACL_SUCCESS) return 3;
    aclmdlDesc *desc = aclmdlCreateDesc();
    if (desc == NULL) return 4;
    if (aclmdlGetNumInputs(desc) != 0) return 5;
    aclmdlDestroyDesc(desc);
    printf("acl %d.%d.%d\n", (int)major, (int)minor, (int)patch);
    if (aclrtResetDevice(0) != ACL_SUCCESS) return 6;
    return aclFinalize() == ACL_SUCCESS ? 0 : 7;
}
