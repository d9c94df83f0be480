/* AscendCL single-operator API (openacl): the part of CANN's acl_op.h that
 * openacl provides. CANN runs single operators from models compiled ahead of
 * time (atc --singleop) and found through aclopSetModelDir; openacl computes
 * the operators it offers (the cblas library, acl/ops/acl_cblas.h) directly
 * on the CPU and needs no such models. Names, types and signatures are
 * CANN's; the header grows only by addition.
 *
 * Thread rules: aclopSetModelDir may be called from any thread. */
#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque single-operator handles and attribute sets, as in CANN. openacl
 * creates neither (aclblasCreateHandleFor* say so); the types exist so that
 * CANN programs that mention them compile. */
typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;

/* Names the folder of compiled single-operator models. openacl needs none:
 * the call checks its argument (before aclInit: ACL_ERROR_UNINITIALIZE;
 * NULL: ACL_ERROR_INVALID_PARAM) and succeeds, also when the folder does not
 * exist (logged at INFO), so a CANN program that loads its GEMM models this
 * way runs unchanged. The string is not kept. */
ACL_FUNC_VISIBILITY aclError aclopSetModelDir(const char *modelDir);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */
