/* libacl_cblas inside: the checked description of one matrix product that
 * the public calls (cb_api.c) hand to the executor (cb_exec.c), which runs it
 * on a stream's worker through oneDNN. */
#ifndef OPENACL_CBLAS_INTERNAL_H
#define OPENACL_CBLAS_INTERNAL_H

#include <stdint.h>
#include "acl/acl_base.h"

/* C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, all
 * row-major; ta/tb: 1 when the buffer holds the transposed matrix. Every
 * pointer has been checked to be device memory of the needed size. The
 * scalars are read when the job runs. */
typedef struct cb_job {
    int64_t m, n, k;
    int ta, tb;
    aclDataType ab_type; /* ACL_FLOAT16 or ACL_INT8 */
    aclDataType c_type;  /* ACL_FLOAT16, ACL_FLOAT or ACL_INT32 */
    const void *a, *b, *alpha, *beta;
    void *c;
    int device;     /* the stream's device: its thread budget */
    const char *api; /* for messages: a static string */
} cb_job;

/* Runs a job (the stream task: returns an aclError, with a message through
 * openacl_ext_fail on failure). */
int cb_job_run(void *job);

#endif
