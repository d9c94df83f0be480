/* SoC identity and CANN attribute queries. openacl's "SoC" is the host CPU:
 * aclrtGetSocName reports "OpenACL-CPU" (documented in docs/config.md). */
#include "acl/acl_base.h"
#include "core/core.h"

ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void) { return "OpenACL-CPU"; }

static const aclCannAttr k_attrs[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};

ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    if (!cannAttrList) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: cannAttrList is NULL");
    if (!num) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: num is NULL");
    *cannAttrList = k_attrs;
    *num = sizeof(k_attrs) / sizeof(k_attrs[0]);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    if (!value) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: value is NULL");
    switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN: *value = 1; return ACL_SUCCESS;     /* IEEE arithmetic on the CPU */
    case ACL_CANN_ATTR_BF16: *value = 1; return ACL_SUCCESS;        /* bf16 tensors are supported */
    case ACL_CANN_ATTR_JIT_COMPILE: *value = 0; return ACL_SUCCESS; /* no online operator compiler */
    default:
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: cannAttr %d is not an aclCannAttr",
                        (int)cannAttr);
    }
}
