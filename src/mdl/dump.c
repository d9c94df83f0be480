/* aclmdl dump API: openacl has no operator-data dump, so only the
 * init/finalize state is kept (for applications that bracket their work with
 * it); configuring a dump is refused. */
#include <stdatomic.h>

#include "core/core.h"
#include "core/unsupported.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

static atomic_int g_dump_on;

aclError aclmdlInitDump(void)
{
    int rc = rt_check_init("aclmdlInitDump");
    if (rc)
        return rc;
    if (atomic_exchange(&g_dump_on, 1))
        return acl_fail(ACL_ERROR_DUMP_ALREADY_RUN, "aclmdlInitDump: dump is already initialised");
    return ACL_SUCCESS;
}

aclError aclmdlSetDump(const char *dumpCfgPath)
{
    int rc = rt_check_init("aclmdlSetDump");
    if (rc)
        return rc;
    return OA_UNSUPPORTED(aclmdlSetDump);
}

aclError aclmdlFinalizeDump(void)
{
    int rc = rt_check_init("aclmdlFinalizeDump");
    if (rc)
        return rc;
    if (!atomic_exchange(&g_dump_on, 0))
        return acl_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlFinalizeDump: aclmdlInitDump was not called");
    return ACL_SUCCESS;
}
