/* The single-operator model folder (acl_op.h). CANN loads compiled operator
 * models from it before aclblas* or aclopExecute can run; openacl computes its
 * operators directly, so the call only checks its argument and logs what it
 * ignores. */
#include <sys/stat.h>

#include "acl/acl_op.h"
#include "core/core.h"
#include "rt/rt_internal.h"

ACL_FUNC_VISIBILITY aclError aclopSetModelDir(const char *modelDir)
{
    int rc = rt_check_init("aclopSetModelDir");
    if (rc) return rc;
    if (!modelDir) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclopSetModelDir: modelDir is NULL");
    struct stat st;
    if (stat(modelDir, &st) != 0 || !S_ISDIR(st.st_mode))
        acl_log(1, "aclopSetModelDir: \"%s\" is not a folder; openacl needs no operator models and goes on",
                modelDir);
    else
        acl_log(1, "aclopSetModelDir: \"%s\" noted; openacl computes its operators without compiled models",
                modelDir);
    return ACL_SUCCESS;
}
