/* AscendCL umbrella header (openacl): everything an application needs —
 * base types and error codes, the runtime API (including aclInit /
 * aclFinalize / aclGetRecentErrMsg), the model API and the single-operator
 * API (acl_op.h), as CANN's acl.h. */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_mdl.h"
#include "acl_op.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
