/* aclmdl dump API and the attachment of the dump in force to each model
 * load (engine/eng_dump.h does the writing). CANN's order:
 * aclmdlInitDump, aclmdlSetDump(file with a `dump` section), load models,
 * execute, aclmdlFinalizeDump; a `dump` section in the aclInit JSON does
 * the same for the whole session. The configuration in force when a model
 * is loaded is the one it dumps with, until aclmdlFinalizeDump stops it. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "engine/eng_dump.h"
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
    if (!dumpCfgPath)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlSetDump: dumpCfgPath is NULL");
    if (!atomic_load(&g_dump_on))
        return acl_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlSetDump: call aclmdlInitDump first");
    eng_dump_cfg *c = NULL;
    int has = 0;
    if ((rc = rt_dump_parse_file("aclmdlSetDump", dumpCfgPath, &c, &has)))
        return rc;
    if (!has)
        return acl_fail(ACL_ERROR_INVALID_DUMP_CONFIG, "aclmdlSetDump: %s has no \"dump\" section", dumpCfgPath);
    rt_dump_install(c);
    return ACL_SUCCESS;
}

aclError aclmdlFinalizeDump(void)
{
    int rc = rt_check_init("aclmdlFinalizeDump");
    if (rc)
        return rc;
    if (!atomic_exchange(&g_dump_on, 0))
        return acl_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlFinalizeDump: aclmdlInitDump was not called");
    rt_dump_install(NULL);   /* stops the dumps of models loaded under it */
    return ACL_SUCCESS;
}

int mdl_dump_attach(mdl_model *m, const char *path)
{
    eng_dump_cfg *c = rt_dump_current();
    if (!c) return ACL_SUCCESS;
    /* the model's name: its file's name without folder and extension */
    char name[256] = "";
    if (path) {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        snprintf(name, sizeof name, "%s", b);
        char *dot = strrchr(name, '.');
        if (dot && dot != name) *dot = 0;
    }
    const eng_dump_model *sel = eng_dump_select(c, name);
    int rc = sel ? eng_dump_attach(m->eng, c, sel, name[0] ? name : "model", m->id, m->device) : 0;
    if (sel && !rc)
        acl_log(1, "model %u (%s): operator dump into %s", m->id, name[0] ? name : "from memory", c->path);
    eng_dump_cfg_unref(c);
    return rc;
}
