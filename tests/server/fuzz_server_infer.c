/* libFuzzer target: what openacl-server does with a request's bytes
 * before any model runs (libmicrohttpd has parsed the HTTP framing). The
 * input is
 *   byte 0       which model signature (3 kinds: batched FP32+INT64,
 *                fixed-shape with every datatype, many outputs)
 *   line 1       the request path, given to the router
 *   line 2       the Inference-Header-Content-Length value ("" = none)
 *   the rest     the request body
 * It is decoded with the server's own decoder; an accepted request is
 * encoded back (outputs filled with the input bytes) as the server would
 * answer it. A crash, sanitizer report or leak is a finding; a refusal must
 * carry a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static srv_sig g_sig[3];

static void io(srv_io *o, const char *name, aclDataType dt, int ndim, const int64_t *dims)
{
    snprintf(o->name, sizeof o->name, "%s", name);
    o->dtype = dt;
    o->ndim = ndim;
    memcpy(o->dims, dims, (size_t)ndim * sizeof dims[0]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const int64_t b4[] = {-1, 4}, b2x3[] = {-1, 2, 3}, f23[] = {2, 3}, f1[] = {1}, f0[] = {0, 2};
    srv_sig *s = &g_sig[0];
    s->batched = 1;
    s->max_batch = 8;
    io(&s->in[s->n_in++], "X", ACL_FLOAT, 2, b4);
    io(&s->in[s->n_in++], "ids", ACL_INT64, 3, b2x3);
    io(&s->out[s->n_out++], "Y", ACL_FLOAT, 2, b4);
    io(&s->out[s->n_out++], "mask", ACL_BOOL, 3, b2x3);
    s = &g_sig[1];
    static const aclDataType all[] = {ACL_BOOL, ACL_UINT8, ACL_UINT16, ACL_UINT32, ACL_UINT64, ACL_INT8, ACL_INT16,
                                      ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_BF16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        char n[16];
        snprintf(n, sizeof n, "t%zu", i);
        io(&s->in[s->n_in++], n, all[i], 2, f23);
        io(&s->out[s->n_out++], n, all[i], 2, f23);
    }
    s = &g_sig[2];
    io(&s->in[s->n_in++], "a", ACL_FLOAT, 1, f1);
    io(&s->in[s->n_in++], "empty", ACL_FLOAT, 2, f0);
    for (int i = 0; i < SRV_MAX_IO; i++) {
        char n[16];
        snprintf(n, sizeof n, "o%d", i);
        io(&s->out[s->n_out++], n, ACL_FLOAT16, 1, f1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const srv_sig *sig = &g_sig[data[0] % 3];
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
        return 0;
    char path[600];
    if ((size_t)(nl - p) >= sizeof path)
        return 0;
    memcpy(path, p, (size_t)(nl - p));
    path[nl - p] = 0;
    srv_route r;
    srv_route_parse(path, &r);
    if (r.ep == SRV_EP_NOT_FOUND ? !r.why || !*r.why
                                 : (strlen(r.model) >= sizeof r.model || strlen(r.version) >= sizeof r.version ||
                                    ((r.ep == SRV_EP_INFER || r.ep == SRV_EP_MODEL) && !r.model[0])))
        abort();
    p = nl + 1;
    nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
        return 0;
    char hl_text[32];
    size_t hl_len = (size_t)(nl - p);
    if (hl_len >= sizeof hl_text)
        return 0;
    memcpy(hl_text, p, hl_len);
    hl_text[hl_len] = 0;
    /* a copy of exactly the body, so reads past it are caught */
    size_t len = (size_t)(end - nl - 1);
    char *body = malloc(len ? len : 1);
    if (!body)
        abort();
    memcpy(body, nl + 1, len);
    size_t hl = len;
    if (hl_len && srv_parse_size(hl_text, (size_t)1 << 30, &hl)) {
        free(body);
        return 0;
    }
    srv_request req;
    char err[256] = "";
    if (srv_decode_infer(sig, body, len, hl, (size_t)1 << 20, &req, err, sizeof err) == 0) {
        void *out[SRV_MAX_IO] = {0};
        for (int j = 0; j < req.n_out; j++) {
            const srv_io *o = &sig->out[req.out_idx[j]];
            size_t n = srv_dtype_size(o->dtype);
            for (int d = 0; d < o->ndim; d++)
                n *= (size_t)(d == 0 && sig->batched ? req.rows : o->dims[d]);
            out[j] = calloc(1, n ? n : 1);
            if (!out[j])
                abort();
            const srv_tensor *t = &req.in[0];
            memcpy(out[j], t->data, t->bytes < n ? t->bytes : n);
        }
        srv_buf b = {0};
        size_t json_len;
        int binary;
        if (srv_encode_infer(sig, "m", "1", &req, out, &b, &json_len, &binary) || json_len > b.len)
            abort();
        srv_buf_free(&b);
        for (int j = 0; j < req.n_out; j++)
            free(out[j]);
    } else if (!err[0]) {
        abort();   /* a refusal without a message */
    }
    srv_request_clear(&req);
    free(body);
    return 0;
}
