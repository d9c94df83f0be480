/* Error codes for the graph/engine internals: CANN's aclError values from the
 * public headers; a fallback copy of the few used here keeps these files
 * compiling while the public headers are still being written. */
#ifndef OPENACL_GRAPH_ERRS_H
#define OPENACL_GRAPH_ERRS_H
#if __has_include("acl/acl_base.h")
#include "acl/acl_base.h"
#else
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_INVALID_FILE 100003
#define ACL_ERROR_INVALID_FILE_SIZE 100005
#define ACL_ERROR_PARSE_FILE 100006
#define ACL_ERROR_PARSE_MODEL 100013
#define ACL_ERROR_MODEL_SIZE_INVALID 100015
#define ACL_ERROR_MODEL_INPUT_NOT_MATCH 100017
#define ACL_ERROR_MODEL_OUTPUT_NOT_MATCH 100018
#define ACL_ERROR_OP_NOT_FOUND 100024
#define ACL_ERROR_UNSUPPORTED_DATA_TYPE 100026
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_STORAGE_OVER_LIMIT 300000
#define ACL_ERROR_INTERNAL_ERROR 500000
#endif
#endif
