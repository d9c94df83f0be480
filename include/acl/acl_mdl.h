/* Placeholder: the model API header is written by the model-layer part. */
#ifndef INC_EXTERNAL_ACL_ACL_MDL_H_
#define INC_EXTERNAL_ACL_ACL_MDL_H_
#include "acl_base.h"
#endif
