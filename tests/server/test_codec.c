/* Unit checks of openacl-server's codec: half and bfloat16 conversions
 * (every float16 value round trip, rounding to nearest even), header sizes,
 * and a decode -> encode round trip of a binary request. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

static int g_fail;
#define CHECK(c)                                                                    \
    do {                                                                            \
        if (!(c)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);  \
            g_fail++;                                                               \
        }                                                                           \
    } while (0)

int main(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = srv_f16_to_f32((uint16_t)h);
        if (isnan(f))
            CHECK((srv_f32_to_f16(f) & 0x7c00u) == 0x7c00u && (srv_f32_to_f16(f) & 0x3ffu));
        else
            CHECK(srv_f32_to_f16(f) == h);
    }
    CHECK(srv_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00);   /* tie: to even */
    CHECK(srv_f32_to_f16(1.0f + 3.0f / 2048) == 0x3c02);
    CHECK(srv_f32_to_f16(70000.0f) == 0x7c00);
    CHECK(srv_f32_to_f16(-1e-9f) == 0x8000);
    CHECK(srv_f32_to_bf16(1.0f) == 0x3f80 && srv_bf16_to_f32(0x3f80) == 1.0f);
    CHECK(srv_f32_to_bf16(1.00390625f) == 0x3f80);          /* tie: to even */
    CHECK(srv_f32_to_bf16(1.01171875f) == 0x3f82);
    CHECK(isnan(srv_bf16_to_f32(srv_f32_to_bf16(NAN))));

    size_t v = 0;
    CHECK(srv_parse_size("123", 1000, &v) == 0 && v == 123);
    CHECK(srv_parse_size("1001", 1000, &v) != 0);
    CHECK(srv_parse_size("", 1000, &v) != 0 && srv_parse_size("-1", 1000, &v) != 0);
    CHECK(srv_parse_size("12a", 1000, &v) != 0 && srv_parse_size(" 1", 1000, &v) != 0);
    CHECK(srv_parse_size("99999999999999999999999", (size_t)-1, &v) != 0);

    srv_route r;
    srv_route_parse("/v2/models/m/versions/3/infer", &r);
    CHECK(r.ep == SRV_EP_INFER && r.post && !strcmp(r.model, "m") && r.has_version && !strcmp(r.version, "3"));
    srv_route_parse("//v2/models/m/?q=1", &r);
    CHECK(r.ep == SRV_EP_MODEL && !r.post && !strcmp(r.model, "m") && !r.has_version);
    srv_route_parse("/v2/models/m/ready", &r);
    CHECK(r.ep == SRV_EP_MODEL_READY);
    srv_route_parse("/v2/repository/models/a.b/unload", &r);
    CHECK(r.ep == SRV_EP_REPO_UNLOAD && r.post && !strcmp(r.model, "a.b"));
    srv_route_parse("/v2/health/live", &r);
    CHECK(r.ep == SRV_EP_LIVE && !r.post);
    srv_route_parse("/metrics", &r);
    CHECK(r.ep == SRV_EP_METRICS);
    srv_route_parse("/v2/models/m/infer/x", &r);
    CHECK(r.ep == SRV_EP_NOT_FOUND && r.why);
    srv_route_parse("/v1/models", &r);
    CHECK(r.ep == SRV_EP_NOT_FOUND && strstr(r.why, "/v2"));
    srv_route_parse("/v2/a/b/c/d/e/f/g/h/i", &r);
    CHECK(r.ep == SRV_EP_NOT_FOUND);
    char longname[400];
    memset(longname, 'a', sizeof longname);
    memcpy(longname, "/v2/models/", 11);
    longname[sizeof longname - 1] = 0;
    srv_route_parse(longname, &r);
    CHECK(r.ep == SRV_EP_NOT_FOUND);

    srv_sig sig;
    memset(&sig, 0, sizeof sig);
    sig.batched = 1;
    sig.max_batch = 4;
    snprintf(sig.in[0].name, SRV_NAME_MAX, "x");
    sig.in[0].dtype = ACL_FLOAT16;
    sig.in[0].ndim = 2;
    sig.in[0].dims[0] = -1;
    sig.in[0].dims[1] = 2;
    sig.out[0] = sig.in[0];
    snprintf(sig.out[0].name, SRV_NAME_MAX, "y");
    sig.n_in = sig.n_out = 1;
    const char *hdr = "{\"id\":\"q\\\"1\",\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP16\",\"shape\":[3,2],"
                      "\"parameters\":{\"binary_data_size\":12}}],\"outputs\":[{\"name\":\"y\"}]}";
    char body[512];
    size_t hl = strlen(hdr);
    memcpy(body, hdr, hl);
    uint16_t vals[6];
    for (int i = 0; i < 6; i++)
        vals[i] = srv_f32_to_f16((float)i * 0.5f - 1.0f);
    memcpy(body + hl, vals, sizeof vals);
    srv_request req;
    char err[256];
    CHECK(srv_decode_infer(&sig, body, hl + sizeof vals, hl, 100, &req, err, sizeof err) == 0);
    CHECK(req.rows == 3 && req.n_out == 1 && !req.out_binary[0] && req.in[0].bytes == 12);
    void *out[1] = {vals};
    srv_buf b = {0};
    size_t jl;
    int bin;
    CHECK(srv_encode_infer(&sig, "m", "1", &req, out, &b, &jl, &bin) == 0);
    CHECK(!bin && jl == b.len);
    CHECK(strstr(b.p, "\"id\":\"q\\\"1\"") && strstr(b.p, "\"shape\":[3,2],\"data\":[-1,-0.5,0,0.5,1,1.5]"));
    if (b.p)
        printf("%s\n", b.p);
    srv_buf_free(&b);
    srv_request_clear(&req);
    /* 100 elements at most: a [4,2] request is 8, but limit it to 5 */
    CHECK(srv_decode_infer(&sig, body, hl + sizeof vals, hl, 5, &req, err, sizeof err) != 0 &&
          strstr(err, "more than 5 elements"));
    srv_request_clear(&req);
    if (g_fail)
        fprintf(stderr, "%d check(s) failed\n", g_fail);
    return g_fail ? 1 : 0;
}
