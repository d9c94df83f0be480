/* Stubs for declared API functions openacl does not implement. Each stub is
 * written `return OA_UNSUPPORTED(aclFoo);` so that scripts/api_coverage.py
 * can list it as unsupported in docs/api-coverage.md. The call records the
 * message "aclFoo: not supported by openacl" and returns
 * ACL_ERROR_FEATURE_UNSUPPORTED. For functions returning a pointer or size,
 * write `OA_UNSUPPORTED(aclFoo); return NULL;`. */
#ifndef OPENACL_UNSUPPORTED_H
#define OPENACL_UNSUPPORTED_H
#include "acl/acl_base.h"
#include "core/core.h"

#define OA_UNSUPPORTED(name) \
    acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: not supported by openacl (CPU runtime)", #name)

#endif
