/* AscendCL umbrella header (openacl): everything an application needs —
 * base types and error codes, the runtime API (including aclInit /
 * aclFinalize / aclGetRecentErrMsg) and the model API. */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_mdl.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
