/* The API misuse matrix: generated cases (misuse_cases.c, written by
 * gen_misuse.py from the headers) and the fixture they run against
 * (misuse_main.c). */
#ifndef OPENACL_TESTS_MISUSE_H
#define OPENACL_TESTS_MISUSE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
/* the media API (acl/ops/acl_dvpp.h) is in the matrix; its header asks for this */
#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include "acl/ops/acl_dvpp.h"
#include "acl/acl_prof.h"

/* Everything a case may pass: live objects, dangling and foreign ones. */
typedef struct mx_fix {
    aclrtContext ctx0, ctx1, dead_ctx;
    aclrtStream stream, stream_dev1, dead_stream;
    aclrtEvent event, dead_event;
    uint32_t model, model_ctx1, dead_model;
    void *dev, *dev1, *dead_dev, *host, *dead_host;
    aclDataBuffer *buf;
    aclTensorDesc *td;
    aclmdlDataset *ds, *ds_in, *ds_out;
    aclmdlDesc *desc;
    aclmdlConfigHandle *cfg;
    aclmdlExecConfigHandle *ecfg;
    void *model_mem;
    size_t model_size;
    const char *model_path;
    unsigned char *scratch;     /* 1 MiB of zeros for out-parameters */
    int64_t *scratch_i64;       /* int64 values of 1 (dims, ranges) */
    char strbuf[256];
} mx_fix;

enum { MX_UNINIT, MX_FINALIZED, MX_LIVE };
enum { MX_RET_ERR, MX_RET_PTR, MX_RET_VAL, MX_RET_VOID };

typedef struct mx_result {
    long long val;
    const void *ptr;
} mx_result;

typedef struct mx_case {
    const char *fn;
    char kind;          /* U F N D X, see gen_misuse.py */
    int state;
    int ret;
    const char *param;
    void (*run)(mx_fix *f, mx_result *r);
    int stub;           /* an OA_UNSUPPORTED stub */
    const char *note;
} mx_case;

extern const mx_case mx_cases[];
extern const int mx_n_cases, mx_n_funcs;

void mx_noop_cb(void *arg);
void mx_noop_exc(aclrtExceptionInfo *info);
char *mx_str(mx_fix *f, const char *s);

#endif
