/* Unit tests of the reference data-movement kernels, called through the
 * registry (k_find) on hand-built single-node graphs. They cover what the
 * ONNX node tests do not: opset-dependent forms (attributes that became
 * inputs), newer-opset features (Pad axes/wrap, Split num_outputs, Resize
 * axes/keep_aspect_ratio/antialias, Scatter max/min), fast paths of the copy
 * engine against naive loops, aliasing, K_NEED_DATA, and refusals/errors.
 * Expected values are hand-computed or produced by naive loops here. */
#include "graph/ir.h"
#include "kernels/kernel.h"
#include "kernels/ref/shape_common.h"
#include "acl/acl.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                          \
            printf(__VA_ARGS__);                                                 \
            printf("\n");                                                        \
        }                                                                        \
    } while (0)

#include "harness.h"

static int shape_is(const k_tensor *t, int rank, ...)
{
    va_list ap;
    va_start(ap, rank);
    int ok = t->shape.rank == rank;
    for (int i = 0; i < rank; i++) {
        int64_t d = va_arg(ap, int64_t);
        if (ok && t->shape.d[i] != d) ok = 0;
    }
    va_end(ap);
    return ok;
}

static int eq_f32(const k_tensor *t, const float *e, int n)
{
    if (!t->data) return 0;
    for (int i = 0; i < n; i++)
        if (fabsf(((const float *)t->data)[i] - e[i]) > 1e-5f * (1 + fabsf(e[i]))) {
            printf("    [%d] got %g expected %g\n", i, ((const float *)t->data)[i], e[i]);
            return 0;
        }
    return 1;
}
static int eq_i64(const k_tensor *t, const int64_t *e, int n)
{
    if (!t->data) return 0;
    for (int i = 0; i < n; i++)
        if (((const int64_t *)t->data)[i] != e[i]) {
            printf("    [%d] got %lld expected %lld\n", i, (long long)((const int64_t *)t->data)[i], (long long)e[i]);
            return 0;
        }
    return 1;
}

static float iota_f[4096];
static void init_iota(void)
{
    for (int i = 0; i < 4096; i++) iota_f[i] = (float)i;
}

/* ---- tests ---- */

static void test_views(void)
{
    /* Reshape with 0 and -1, and aliasing (out == in) */
    float x[24];
    memcpy(x, iota_f, sizeof x);
    int64_t xd[3] = {2, 3, 4}, sd[1] = {3}, shp[3] = {0, -1, 2};
    k_tensor in[2] = {T(G_F32, 3, xd, x), T(G_I64, 1, sd, shp)};
    run_res r = run_op_ex("Reshape", 14, 2, in, 1, 0, NULL, 1, 0);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 3, (int64_t)2, (int64_t)6, (int64_t)2), "Reshape 0/-1 aliased: rc %d", r.rc);
    CHECK(x[23] == 23.f, "aliased Reshape changed the data");
    res_free(&r);
    /* allowzero=1: a 0 stays 0 */
    int64_t ed[2] = {0, 4}, shp2[2] = {0, 4}, sd2[1] = {2};
    k_tensor in2[2] = {T(G_F32, 2, ed, x), T(G_I64, 1, sd2, shp2)};
    attr az[] = {A_INT("allowzero", 1)};
    r = run_op("Reshape", 14, 2, in2, 1, 1, az);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)0, (int64_t)4), "Reshape allowzero: rc %d", r.rc);
    res_free(&r);
    /* unknown shape value -> K_NEED_DATA */
    r = run_op_ex("Reshape", 14, 2, in, 1, 0, NULL, 0, 1);
    CHECK(r.rc == K_NEED_DATA && !strcmp(r.stage, "infer-nodata"), "Reshape without shape value: rc %d", r.rc);
    /* element count mismatch is an error */
    int64_t bad[2] = {5, 5};
    k_tensor in3[2] = {T(G_F32, 3, xd, x), T(G_I64, 1, sd2, bad)};
    r = run_op("Reshape", 14, 2, in3, 1, 0, NULL);
    CHECK(r.rc == ACL_ERROR_INVALID_PARAM, "Reshape 24 -> 25 elements: rc %d", r.rc);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg && strstr(msg, "test_node") && strstr(msg, "Reshape"), "message names the node: %s", msg ? msg : "");
    /* Squeeze-11 (axes attribute), Unsqueeze-11, Squeeze-13 with axes input */
    int64_t sq[4] = {1, 3, 1, 2};
    k_tensor s1[1] = {T(G_F32, 4, sq, x)};
    int64_t ax0[] = {0, -2};
    attr aa[] = {A_INTS("axes", ax0)};
    r = run_op("Squeeze", 11, 1, s1, 1, 1, aa);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)3, (int64_t)2), "Squeeze-11 axes attr");
    res_free(&r);
    int64_t one[1] = {2}, axv[2] = {0, 2};
    k_tensor s2[2] = {T(G_F32, 4, sq, x), T(G_I64, 1, one, axv)};
    r = run_op("Squeeze", 13, 2, s2, 1, 0, NULL);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)3, (int64_t)2), "Squeeze-13 axes input");
    res_free(&r);
    int64_t axbad[1] = {1};
    k_tensor s3[2] = {T(G_F32, 4, sq, x), T(G_I64, 1, (int64_t[]){1}, axbad)};
    r = run_op("Squeeze", 13, 2, s3, 1, 0, NULL);
    CHECK(r.rc == ACL_ERROR_INVALID_PARAM, "Squeeze of a dim of size 3 refused: rc %d", r.rc);
    int64_t u2[2] = {3, 2}, uax[] = {-1, 0};
    k_tensor u[1] = {T(G_F32, 2, u2, x)};
    attr ua[] = {A_INTS("axes", uax)};
    r = run_op("Unsqueeze", 11, 1, u, 1, 1, ua);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 4, (int64_t)1, (int64_t)3, (int64_t)2, (int64_t)1), "Unsqueeze-11");
    res_free(&r);
    /* Shape-15 start/end, Size */
    attr se[] = {A_INT("start", 1), A_INT("end", -1)};
    r = run_op("Shape", 15, 1, s1, 1, 2, se);
    int64_t es[2] = {3, 1};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 1, (int64_t)2) && eq_i64(&r.out[0], es, 2), "Shape start/end");
    res_free(&r);
    r = run_op("Size", 13, 1, s1, 1, 0, NULL);
    CHECK(r.rc == 0 && r.out[0].shape.rank == 0 && ((int64_t *)r.out[0].data)[0] == 6, "Size");
    res_free(&r);
    /* strings are refused at init */
    k_tensor sx[2] = {T(G_STR, 3, xd, x), T(G_I64, 1, sd, shp)};
    r = run_op("Reshape", 14, 2, sx, 1, 0, NULL);
    CHECK(r.rc == ACL_ERROR_UNSUPPORTED_DATA_TYPE && !strcmp(r.stage, "init"), "string Reshape refused: rc %d", r.rc);
}

/* Naive transpose for checking the tiled paths. */
static void naive_transpose(const float *x, float *y, const int64_t *d, int r, const int *perm)
{
    int64_t st[8], od[8], n = 1, idx[8] = {0};
    for (int i = r - 1; i >= 0; i--) { st[i] = n; n *= d[i]; }
    for (int i = 0; i < r; i++) od[i] = d[perm[i]];
    for (int64_t o = 0; o < n; o++) {
        int64_t off = 0;
        for (int i = 0; i < r; i++) off += idx[i] * st[perm[i]];
        y[o] = x[off];
        for (int i = r - 1; i >= 0; i--) { if (++idx[i] < od[i]) break; idx[i] = 0; }
    }
}

static void test_transpose(void)
{
    static const int perms[][4] = {{0, 2, 3, 1}, {0, 3, 1, 2}, {0, 1, 3, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}, {2, 0, 3, 1}};
    int64_t d[4] = {2, 37, 19, 45};
    int64_t n = 2 * 37 * 19 * 45;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i * 7 % 1009);
    for (size_t p = 0; p < sizeof perms / sizeof *perms; p++) {
        int64_t pv[4];
        for (int i = 0; i < 4; i++) pv[i] = perms[p][i];
        attr a[] = {{.name = "perm", .type = G_AT_INTS, .n = 4, .ints = pv}};
        k_tensor in[1] = {T(G_F32, 4, d, x)};
        run_res r = run_op("Transpose", 13, 1, in, 1, 1, a);
        naive_transpose(x, y, d, 4, perms[p]);
        CHECK(r.rc == 0 && r.out[0].data && !memcmp(r.out[0].data, y, (size_t)n * 4), "Transpose perm %zu", p);
        res_free(&r);
    }
    /* int8 and int64 through the same paths */
    int8_t *xb = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) xb[i] = (int8_t)(i * 13);
    int64_t pv[4] = {0, 2, 3, 1};
    attr a[] = {{.name = "perm", .type = G_AT_INTS, .n = 4, .ints = pv}};
    k_tensor in[1] = {T(G_I8, 4, d, xb)};
    run_res r = run_op("Transpose", 13, 1, in, 1, 1, a);
    int ok = r.rc == 0;
    for (int64_t c = 0; ok && c < 37; c++)
        for (int64_t h = 0; ok && h < 19; h++)
            for (int64_t w = 0; ok && w < 45; w++)
                ok = ((int8_t *)r.out[0].data)[((1 * 19 + h) * 45 + w) * 37 + c] == xb[((1 * 37 + c) * 19 + h) * 45 + w];
    CHECK(ok, "int8 NCHW->NHWC");
    res_free(&r);
    free(xb);
    free(x);
    free(y);
}

static void test_slice_concat_split(void)
{
    /* Slice-1 with attributes, Slice-13 with negative steps */
    float *x = iota_f;
    int64_t d[2] = {4, 5};
    int64_t st[] = {1, 0}, en[] = {3, 100}, ax[] = {0, 1};
    attr a1[] = {A_INTS("starts", st), A_INTS("ends", en), A_INTS("axes", ax)};
    k_tensor in1[1] = {T(G_F32, 2, d, x)};
    run_res r = run_op("Slice", 9, 1, in1, 1, 3, a1);
    float e1[10] = {5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)2, (int64_t)5) && eq_f32(&r.out[0], e1, 10), "Slice-9 attrs");
    res_free(&r);
    int64_t s2[] = {-1, 4}, e2[] = {INT64_MIN, 0}, a2[] = {0, -1}, p2[] = {-2, -3}, two[1] = {2};
    k_tensor in2[5] = {T(G_F32, 2, d, x), T(G_I64, 1, two, s2), T(G_I64, 1, two, e2), T(G_I64, 1, two, a2),
                       T(G_I64, 1, two, p2)};
    r = run_op("Slice", 13, 5, in2, 1, 0, NULL);
    /* rows 3,1 ; cols 4,1 */
    float e2v[4] = {19, 16, 9, 6};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)2, (int64_t)2) && eq_f32(&r.out[0], e2v, 4), "Slice negative steps");
    res_free(&r);
    /* Split-18 num_outputs with an uneven last chunk: 5 -> 2,2,1 */
    int64_t d5[1] = {5};
    k_tensor in3[1] = {T(G_F32, 1, d5, x)};
    attr a3[] = {A_INT("num_outputs", 3)};
    r = run_op("Split", 18, 1, in3, 3, 1, a3);
    float e30[2] = {0, 1}, e31[2] = {2, 3}, e32[1] = {4};
    CHECK(r.rc == 0 && shape_is(&r.out[2], 1, (int64_t)1) && eq_f32(&r.out[0], e30, 2) && eq_f32(&r.out[1], e31, 2) &&
          eq_f32(&r.out[2], e32, 1), "Split-18 num_outputs");
    res_free(&r);
    /* Split-11 attribute on axis 1 */
    int64_t sp[] = {1, 4};
    attr a4[] = {A_INT("axis", 1), A_INTS("split", sp)};
    r = run_op("Split", 11, 1, in1, 2, 2, a4);
    float e40[4] = {0, 5, 10, 15};
    CHECK(r.rc == 0 && shape_is(&r.out[1], 2, (int64_t)4, (int64_t)4) && eq_f32(&r.out[0], e40, 4), "Split-11 attr");
    res_free(&r);
    /* Concat with an empty input */
    int64_t d0[2] = {4, 0};
    k_tensor in5[3] = {T(G_F32, 2, d, x), T(G_F32, 2, d0, x), T(G_F32, 2, d, x)};
    attr a5[] = {A_INT("axis", -1)};
    r = run_op("Concat", 13, 3, in5, 1, 1, a5);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)4, (int64_t)10) && ((float *)r.out[0].data)[12] == 7.f,
          "Concat with empty");
    res_free(&r);
}

static void test_pad(void)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t d[2] = {2, 3};
    /* Pad-2 attributes, constant value */
    int64_t pads[] = {0, 1, 1, 0};
    attr a1[] = {A_INTS("pads", pads), A_FLOAT("value", 9.f)};
    k_tensor in1[1] = {T(G_F32, 2, d, x)};
    run_res r = run_op("Pad", 2, 1, in1, 1, 2, a1);
    float e1[12] = {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)3, (int64_t)4) && eq_f32(&r.out[0], e1, 12), "Pad-2 constant");
    res_free(&r);
    /* Pad-19 wrap on axis 1 only (axes input), pads [2, 1] */
    int64_t pv[2] = {2, 1}, axv[1] = {1}, two[1] = {2}, one[1] = {1};
    attr a2[] = {A_STR("mode", "wrap")};
    k_tensor in2[4] = {T(G_F32, 2, d, x), T(G_I64, 1, two, pv), NONE, T(G_I64, 1, one, axv)};
    r = run_op("Pad", 19, 4, in2, 1, 1, a2);
    float e2[12] = {2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)2, (int64_t)6) && eq_f32(&r.out[0], e2, 12), "Pad-19 wrap axes");
    res_free(&r);
    /* reflect with negative (cropping) pads: [0,-1,0,2] */
    int64_t pv3[4] = {0, -1, 0, 2}, four[1] = {4};
    attr a3[] = {A_STR("mode", "reflect")};
    k_tensor in3[2] = {T(G_F32, 2, d, x), T(G_I64, 1, four, pv3)};
    r = run_op("Pad", 13, 2, in3, 1, 1, a3);
    /* crop first (x[:, 1:] = [2,3]), then reflect-pad that by 2 */
    float e3[8] = {2, 3, 2, 3, 5, 6, 5, 6};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)2, (int64_t)4) && eq_f32(&r.out[0], e3, 8), "Pad reflect crop");
    res_free(&r);
    attr bad[] = {A_STR("mode", "wrap")};
    r = run_op("Pad", 18, 2, in3, 1, 1, bad);
    CHECK(r.rc == ACL_ERROR_FEATURE_UNSUPPORTED && !strcmp(r.stage, "init"), "wrap refused before opset 19");
}

static void test_gather_scatter(void)
{
    float *x = iota_f;
    int64_t d[2] = {3, 4}, id[1] = {2};
    int64_t idx[2] = {2, -3};
    k_tensor in[2] = {T(G_F32, 2, d, x), T(G_I64, 1, id, idx)};
    attr ax1[] = {A_INT("axis", 1)};
    run_res r = run_op("Gather", 13, 2, in, 1, 1, ax1);
    float e[6] = {2, 1, 6, 5, 10, 9};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 2, (int64_t)3, (int64_t)2) && eq_f32(&r.out[0], e, 6), "Gather axis 1");
    res_free(&r);
    int32_t bad[2] = {0, 4};
    k_tensor in2[2] = {T(G_F32, 2, d, x), T(G_I32, 1, id, bad)};
    r = run_op("Gather", 13, 2, in2, 1, 1, ax1);
    const char *msg = aclGetRecentErrMsg();
    CHECK(r.rc == ACL_ERROR_INVALID_PARAM && !strcmp(r.stage, "run") && msg && strstr(msg, "index 4") &&
          strstr(msg, "test_node"), "Gather out of range: rc %d msg %s", r.rc, msg ? msg : "");
    /* ScatterElements-18 max and min */
    float data[4] = {1, 5, 3, 7};
    int64_t d4[1] = {4}, d3[1] = {3}, si[3] = {0, 0, 3};
    float up[3] = {4, 2, 6};
    k_tensor in3[3] = {T(G_F32, 1, d4, data), T(G_I64, 1, d3, si), T(G_F32, 1, d3, up)};
    attr rmax[] = {A_STR("reduction", "max")}, rmin[] = {A_STR("reduction", "min")};
    r = run_op("ScatterElements", 18, 3, in3, 1, 1, rmax);
    float emax[4] = {4, 5, 3, 7};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], emax, 4), "ScatterElements max");
    res_free(&r);
    r = run_op("ScatterElements", 18, 3, in3, 1, 1, rmin);
    float emin[4] = {1, 5, 3, 6};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], emin, 4), "ScatterElements min");
    res_free(&r);
    r = run_op("ScatterElements", 16, 3, in3, 1, 1, rmax);
    CHECK(r.rc == ACL_ERROR_FEATURE_UNSUPPORTED && !strcmp(r.stage, "init"), "max refused at opset 16");
    /* ScatterND add on int32 with duplicates */
    int32_t di[4] = {1, 2, 3, 4}, du[2] = {10, 20};
    int64_t ndi[2] = {1, 1}, idd[2] = {2, 1}, ud[1] = {2};
    k_tensor in4[3] = {T(G_I32, 1, d4, di), T(G_I64, 2, idd, ndi), T(G_I32, 1, ud, du)};
    attr radd[] = {A_STR("reduction", "add")};
    r = run_op("ScatterND", 16, 3, in4, 1, 1, radd);
    CHECK(r.rc == 0 && ((int32_t *)r.out[0].data)[1] == 32 && ((int32_t *)r.out[0].data)[0] == 1, "ScatterND add dup");
    res_free(&r);
}

static void test_resize(void)
{
    float x[16];
    memcpy(x, iota_f, sizeof x);
    int64_t d[4] = {1, 1, 4, 4}, one4[1] = {4}, two[1] = {2};
    /* bilinear half_pixel x2 up, checked against a naive formula */
    float sc[4] = {1, 1, 2, 2};
    attr lin[] = {A_STR("mode", "linear")};
    k_tensor in[3] = {T(G_F32, 4, d, x), NONE, T(G_F32, 1, one4, sc)};
    run_res r = run_op("Resize", 13, 3, in, 1, 1, lin);
    int ok = r.rc == 0 && shape_is(&r.out[0], 4, (int64_t)1, (int64_t)1, (int64_t)8, (int64_t)8);
    for (int oy = 0; ok && oy < 8; oy++)
        for (int ox = 0; ok && ox < 8; ox++) {
            float fy = fminf(fmaxf((oy + 0.5f) / 2 - 0.5f, 0), 3), fx = fminf(fmaxf((ox + 0.5f) / 2 - 0.5f, 0), 3);
            int y0 = (int)fy, x0 = (int)fx, y1 = y0 < 3 ? y0 + 1 : 3, x1 = x0 < 3 ? x0 + 1 : 3;
            float dy = fy - y0, dx = fx - x0;
            float v = (1 - dy) * ((1 - dx) * x[y0 * 4 + x0] + dx * x[y0 * 4 + x1]) +
                      dy * ((1 - dx) * x[y1 * 4 + x0] + dx * x[y1 * 4 + x1]);
            ok = fabsf(((float *)r.out[0].data)[oy * 8 + ox] - v) < 1e-5f;
        }
    CHECK(ok, "bilinear x2 half_pixel");
    res_free(&r);
    /* Resize-18 axes=[2,3] with sizes and not_larger: 4x4 -> sizes 2x3 gives 2x2 */
    int64_t sz[2] = {2, 3}, axes[] = {2, 3};
    attr a2[] = {A_STR("mode", "nearest"), A_INTS("axes", axes), A_STR("keep_aspect_ratio_policy", "not_larger")};
    k_tensor in2[4] = {T(G_F32, 4, d, x), NONE, NONE, T(G_I64, 1, two, sz)};
    r = run_op("Resize", 18, 4, in2, 1, 3, a2);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 4, (int64_t)1, (int64_t)1, (int64_t)2, (int64_t)2), "Resize-18 not_larger: rc %d", r.rc);
    res_free(&r);
    /* Resize-10: nearest, asymmetric, 2x up */
    k_tensor in3[2] = {T(G_F32, 4, d, x), T(G_F32, 1, one4, sc)};
    r = run_op("Resize", 10, 2, in3, 1, 0, NULL);
    CHECK(r.rc == 0 && ((float *)r.out[0].data)[8 * 3 + 5] == x[1 * 4 + 2], "Resize-10 nearest");
    res_free(&r);
    /* Upsample-7 with the scales attribute */
    float usc[] = {1, 1, 2, 2};
    attr a4[] = {A_FLOATS("scales", usc)};
    r = run_op("Upsample", 7, 1, in3, 1, 1, a4);
    CHECK(r.rc == 0 && ((float *)r.out[0].data)[8 * 7 + 7] == 15.f, "Upsample-7");
    res_free(&r);
    /* antialias linear downsample by 2: mean of the 2x2 triangle-filtered window */
    float sd[4] = {1, 1, 0.5f, 0.5f};
    attr a5[] = {A_STR("mode", "linear"), A_INT("antialias", 1)};
    k_tensor in5[3] = {T(G_F32, 4, d, x), NONE, T(G_F32, 1, one4, sd)};
    r = run_op("Resize", 18, 3, in5, 1, 2, a5);
    /* out x=0: x_orig = 0.5; taps at -1..2 with weights (1-|d|/2): .25,.75,.75,.25 over clamped 0,0,1,2 -> 
       normalised (0.25*0 + 0.75*0 + 0.75*1 + 0.25*2)/2 = 0.625 per axis; value = 4*0.625 + 0.625 */
    CHECK(r.rc == 0 && fabsf(((float *)r.out[0].data)[0] - 3.125f) < 1e-5f, "antialias linear: got %g",
          r.rc == 0 ? ((float *)r.out[0].data)[0] : -1.f);
    res_free(&r);
    /* uint8 bilinear truncates 63.75 toward zero, as ONNX Runtime does (it
     * gives 0 63 191 255 for this first row) */
    uint8_t u8[4] = {0, 255, 255, 0};
    int64_t du[4] = {1, 1, 2, 2};
    k_tensor in6[3] = {T(G_U8, 4, du, u8), NONE, T(G_F32, 1, one4, sc)};
    r = run_op("Resize", 13, 3, in6, 1, 1, lin);
    CHECK(r.rc == 0 && ((uint8_t *)r.out[0].data)[1] == 63 && ((uint8_t *)r.out[0].data)[0] == 0, "uint8 bilinear: %d",
          r.rc == 0 ? ((uint8_t *)r.out[0].data)[1] : -1);
    res_free(&r);
    /* Resize-19 half_pixel_symmetric: 4 -> floor(4*0.6) = 2 on a ramp; by
     * hand: offset = 2*(1 - 2/2.4), x_orig = offset + (x+0.5)/0.6 - 0.5 */
    int64_t d14[4] = {1, 1, 1, 4};
    float s06[4] = {1, 1, 1, 0.6f};
    attr hs[] = {A_STR("mode", "linear"), A_STR("coordinate_transformation_mode", "half_pixel_symmetric")};
    k_tensor in7[3] = {T(G_F32, 4, d14, iota_f), NONE, T(G_F32, 1, one4, s06)};
    r = run_op("Resize", 19, 3, in7, 1, 2, hs);
    float ehs[2] = {2.f / 3.f, 7.f / 3.f};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 4, (int64_t)1, (int64_t)1, (int64_t)1, (int64_t)2) && eq_f32(&r.out[0], ehs, 2),
          "half_pixel_symmetric");
    res_free(&r);
    r = run_op("Resize", 18, 3, in7, 1, 2, hs);
    CHECK(r.rc == ACL_ERROR_FEATURE_UNSUPPORTED, "half_pixel_symmetric refused before opset 19");
    /* antialias cubic halving of a ramp: the normalised symmetric filter
     * returns the ramp at interior points (x_orig = 2x + 0.5) */
    int64_t d116[4] = {1, 1, 1, 16};
    float s05[4] = {1, 1, 1, 0.5f};
    attr ac[] = {A_STR("mode", "cubic"), A_INT("antialias", 1)};
    k_tensor in8[3] = {T(G_F32, 4, d116, iota_f), NONE, T(G_F32, 1, one4, s05)};
    r = run_op("Resize", 18, 3, in8, 1, 2, ac);
    CHECK(r.rc == 0 && fabsf(((float *)r.out[0].data)[3] - 6.5f) < 1e-4f && fabsf(((float *)r.out[0].data)[4] - 8.5f) < 1e-4f,
          "antialias cubic ramp");
    res_free(&r);
    attr badm[] = {A_STR("mode", "area")};
    r = run_op("Resize", 13, 3, in, 1, 1, badm);
    CHECK(r.rc == ACL_ERROR_FEATURE_UNSUPPORTED && !strcmp(r.stage, "init"), "unknown mode refused");
}

static void test_cast(void)
{
    float f[8] = {1.5f, -2.75f, 65504.f, 70000.f, NAN, 1e-8f, -0.f, 3.4e38f};
    int64_t d[1] = {8};
    attr to16[] = {A_INT("to", G_F16)};
    k_tensor in[1] = {T(G_F32, 1, d, f)};
    run_res r = run_op("Cast", 13, 1, in, 1, 1, to16);
    uint16_t e16[8] = {0x3e00, 0xc180, 0x7bff, 0x7c00, 0x7e00, 0x0000, 0x8000, 0x7c00};
    int ok = r.rc == 0;
    for (int i = 0; ok && i < 8; i++) {
        uint16_t h = ((uint16_t *)r.out[0].data)[i];
        ok = i == 4 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : h == e16[i];
        if (!ok) printf("    f16[%d] = %04x\n", i, h);
    }
    CHECK(ok, "f32 -> f16");
    res_free(&r);
    attr toi8[] = {A_INT("to", G_I8)}, tob[] = {A_INT("to", G_BOOL)}, tou64[] = {A_INT("to", G_U64)};
    float g[4] = {-1.9f, 300.f, NAN, 127.9f};
    int64_t d4[1] = {4};
    k_tensor in2[1] = {T(G_F32, 1, d4, g)};
    r = run_op("Cast", 13, 1, in2, 1, 1, toi8);
    int8_t ei8[4] = {-1, 44, 0, 127};   /* 300 wraps; NaN -> INT32_MIN -> 0 */
    CHECK(r.rc == 0 && !memcmp(r.out[0].data, ei8, 4), "f32 -> i8");
    res_free(&r);
    r = run_op("Cast", 13, 1, in2, 1, 1, tob);
    uint8_t eb[4] = {1, 1, 1, 1};
    CHECK(r.rc == 0 && !memcmp(r.out[0].data, eb, 4), "f32 -> bool");
    res_free(&r);
    double big[2] = {1.8e19, -1.0};
    int64_t d2[1] = {2};
    k_tensor in3[1] = {T(G_F64, 1, d2, big)};
    r = run_op("Cast", 13, 1, in3, 1, 1, tou64);
    CHECK(r.rc == 0 && ((uint64_t *)r.out[0].data)[0] == 18000000000000000000ull &&
          ((uint64_t *)r.out[0].data)[1] == UINT64_MAX, "f64 -> u64");
    res_free(&r);
    attr tos[] = {A_INT("to", G_STR)};
    r = run_op("Cast", 13, 1, in3, 1, 1, tos);
    CHECK(r.rc == ACL_ERROR_UNSUPPORTED_DATA_TYPE && !strcmp(r.stage, "init"), "cast to string refused");
    attr to8[] = {A_INT("to", 17)};   /* float8e4m3fn */
    r = run_op("Cast", 19, 1, in3, 1, 1, to8);
    CHECK(r.rc == ACL_ERROR_UNSUPPORTED_DATA_TYPE, "cast to float8 refused");
}

/* The fast float<->half conversions against exact references: every half
 * round-trips, and float->half agrees with the double-based rounding. */
static void test_half(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = ksh_h2f((uint16_t)h);
        /* exact value of the half, independently */
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
        if (h & 0x8000) v = -v;
        if (isnan(v) ? !isnan(f) : (double)f != v || !signbit(f) != !signbit(v)) { if (bad++ < 3) printf("    h2f(%04x) = %g\n", h, f); }
        if (!isnan(v) && ksh_f2h(f) != h) { if (bad++ < 3) printf("    f2h(h2f(%04x)) = %04x\n", h, ksh_f2h(f)); }
    }
    uint32_t seed = 12345;
    for (int i = 0; i < 2000000; i++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t u = seed;
        if (i & 1) u = (u & 0x807fffffu) | ((uint32_t)(100 + (seed >> 27)) << 23);   /* near the half range */
        float f;
        memcpy(&f, &u, 4);
        if (isnan(f)) continue;
        if (ksh_f2h(f) != ksh_d2h((double)f)) { if (bad++ < 6) printf("    f2h(%a) = %04x, d2h %04x\n", f, ksh_f2h(f), ksh_d2h(f)); }
    }
    CHECK(bad == 0, "half conversions: %d mismatches", bad);
}

static void test_misc(void)
{
    /* Trilu lower with k = -1 and upper default */
    float *x = iota_f;
    int64_t d[2] = {3, 4}, one[1] = {1}, km1[1] = {-1};
    attr low[] = {A_INT("upper", 0)};
    k_tensor in[2] = {T(G_F32, 2, d, x), T(G_I64, 0, one, km1)};
    run_res r = run_op("Trilu", 14, 2, in, 1, 1, low);
    float e[12] = {0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], e, 12), "Trilu lower k=-1");
    res_free(&r);
    k_tensor in1[1] = {T(G_F32, 2, d, x)};
    r = run_op("Trilu", 14, 1, in1, 1, 0, NULL);
    float eu[12] = {0, 1, 2, 3, 0, 5, 6, 7, 0, 0, 10, 11};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], eu, 12), "Trilu upper");
    res_free(&r);
    /* TopK-1 (k attribute), smallest via opset 11 */
    float v[6] = {3, 1, 4, 1, 5, 9};
    int64_t d6[1] = {6};
    attr k2[] = {A_INT("k", 2)};
    k_tensor tin[1] = {T(G_F32, 1, d6, v)};
    r = run_op("TopK", 1, 1, tin, 2, 1, k2);
    float ev[2] = {9, 5};
    int64_t ei[2] = {5, 4};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], ev, 2) && eq_i64(&r.out[1], ei, 2), "TopK-1");
    res_free(&r);
    int64_t kv[1] = {3};
    k_tensor tin2[2] = {T(G_F32, 1, d6, v), T(G_I64, 1, one, kv)};
    attr sm[] = {A_INT("largest", 0)};
    r = run_op("TopK", 11, 2, tin2, 2, 1, sm);
    float ev2[3] = {1, 1, 3};
    int64_t ei2[3] = {1, 3, 0};
    CHECK(r.rc == 0 && eq_f32(&r.out[0], ev2, 3) && eq_i64(&r.out[1], ei2, 3), "TopK smallest ties to lower index");
    res_free(&r);
    /* Constant value_ints; ConstantOfShape int64 value; Range int */
    int64_t vi[] = {4, 5, 6};
    attr c1[] = {A_INTS("value_ints", vi)};
    r = run_op("Constant", 13, 0, NULL, 1, 1, c1);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 1, (int64_t)3) && eq_i64(&r.out[0], vi, 3), "Constant value_ints");
    res_free(&r);
    attr c2[] = {{.name = "value_string", .type = G_AT_STRING, .s = "x"}};
    r = run_op("Constant", 13, 0, NULL, 1, 1, c2);
    CHECK(r.rc == ACL_ERROR_UNSUPPORTED_DATA_TYPE, "string Constant refused");
    int64_t r0 = 10, r1 = 1, r2 = -3;
    k_tensor rin[3] = {T(G_I64, 0, one, &r0), T(G_I64, 0, one, &r1), T(G_I64, 0, one, &r2)};
    r = run_op_ex("Range", 11, 3, rin, 1, 0, NULL, 0, 1);
    CHECK(r.rc == K_NEED_DATA, "Range infers only with values");
    r = run_op("Range", 11, 3, rin, 1, 0, NULL);
    int64_t er[3] = {10, 7, 4};
    CHECK(r.rc == 0 && shape_is(&r.out[0], 1, (int64_t)3) && eq_i64(&r.out[0], er, 3), "Range int64 negative delta");
    res_free(&r);
    /* Einsum batched matmul with ellipsis vs naive */
    float a[2 * 3 * 4], b[2 * 4 * 5];
    for (int i = 0; i < 24; i++) a[i] = (float)(i % 7) - 3;
    for (int i = 0; i < 40; i++) b[i] = (float)(i % 5) * 0.5f;
    int64_t da[3] = {2, 3, 4}, db[3] = {2, 4, 5};
    attr eq[] = {A_STR("equation", "...ij,...jk")};
    k_tensor ein[2] = {T(G_F32, 3, da, a), T(G_F32, 3, db, b)};
    r = run_op("Einsum", 12, 2, ein, 1, 1, eq);
    int ok = r.rc == 0 && shape_is(&r.out[0], 3, (int64_t)2, (int64_t)3, (int64_t)5);
    for (int bb = 0; ok && bb < 2; bb++)
        for (int i = 0; ok && i < 3; i++)
            for (int k = 0; ok && k < 5; k++) {
                float s = 0;
                for (int j = 0; j < 4; j++) s += a[(bb * 3 + i) * 4 + j] * b[(bb * 4 + j) * 5 + k];
                ok = fabsf(((float *)r.out[0].data)[(bb * 3 + i) * 5 + k] - s) < 1e-4f;
            }
    CHECK(ok, "Einsum ellipsis batched matmul");
    res_free(&r);
    /* Einsum trace */
    attr tr[] = {A_STR("equation", "ii->")};
    int64_t d33[2] = {3, 3};
    k_tensor tin3[1] = {T(G_F32, 2, d33, iota_f)};
    r = run_op("Einsum", 12, 1, tin3, 1, 1, tr);
    CHECK(r.rc == 0 && r.out[0].shape.rank == 0 && ((float *)r.out[0].data)[0] == 12.f, "Einsum trace");
    res_free(&r);
    /* NonZero needs data; Expand broadcast both ways */
    r = run_op_ex("NonZero", 13, 1, in1, 1, 0, NULL, 0, 1);
    CHECK(r.rc == K_NEED_DATA, "NonZero needs data");
    float col[3] = {1, 2, 3};
    int64_t d31[2] = {3, 1}, shp[2] = {2, 1}, sd[1] = {3};
    int64_t tgt[3] = {2, 1, 4};
    k_tensor xin[2] = {T(G_F32, 2, d31, col), T(G_I64, 1, sd, tgt)};
    (void)shp;
    r = run_op("Expand", 13, 2, xin, 1, 0, NULL);
    CHECK(r.rc == 0 && shape_is(&r.out[0], 3, (int64_t)2, (int64_t)3, (int64_t)4) &&
          ((float *)r.out[0].data)[23] == 3.f && ((float *)r.out[0].data)[5] == 2.f, "Expand");
    res_free(&r);
}

/* ---- channels-last inputs give the same logical result ---- */

static void to_nhwc(const float *x, float *y, const int64_t *d)
{
    for (int64_t n = 0; n < d[0]; n++)
        for (int64_t c = 0; c < d[1]; c++)
            for (int64_t h = 0; h < d[2]; h++)
                for (int64_t w = 0; w < d[3]; w++)
                    y[((n * d[2] + h) * d[3] + w) * d[1] + c] = x[((n * d[1] + c) * d[2] + h) * d[3] + w];
}

/* Runs op twice, on plain x and on its NHWC copy (input 0, and input 1 too
 * when nhwc1), and compares the logical outputs. */
static void check_nhwc(const char *what, const char *op, int opset, int nin, k_tensor *in, int nout,
                       int nattr, const attr *at, int nhwc1, int expect_nhwc_out)
{
    run_res a = run_op(op, opset, nin, in, nout, nattr, at);
    k_tensor inn[8];
    float *bufs[2] = {NULL, NULL};
    for (int i = 0; i < nin; i++) {
        inn[i] = in[i];
        if (i == 0 || (i == 1 && nhwc1)) {
            int64_t k = g_shape_numel(&in[i].shape);
            bufs[i] = malloc((size_t)k * 4);
            to_nhwc(in[i].data, bufs[i], in[i].shape.d);
            inn[i].data = bufs[i];
            inn[i].layout = G_LAYOUT_NHWC;
        }
    }
    run_res b = run_op(op, opset, nin, inn, nout, nattr, at);
    int ok = a.rc == 0 && b.rc == 0;
    for (int o = 0; ok && o < nout; o++) {
        k_tensor *y = &b.out[o];
        ok = g_shape_eq(&a.out[o].shape, &y->shape) &&
             (y->layout == G_LAYOUT_NHWC) == (expect_nhwc_out && y->shape.rank == 4);
        if (!ok) { printf("    output %d layout %d\n", o, y->layout); break; }
        int64_t k = g_shape_numel(&y->shape);
        float *p = malloc((size_t)k * 4 + 4);
        if (y->layout == G_LAYOUT_NHWC) to_nhwc(a.out[o].data, p, a.out[o].shape.d);
        else memcpy(p, a.out[o].data, (size_t)k * 4);
        /* interpolation sums the same taps in another order: allow rounding */
        for (int64_t i = 0; ok && i < k; i++) {
            float u = p[i], v = ((const float *)y->data)[i];
            ok = fabsf(u - v) <= 1e-5f * (1 + fabsf(u));
            if (!ok) printf("    [%lld] plain %g, channels-last %g\n", (long long)i, u, v);
        }
        free(p);
    }
    CHECK(ok, "%s: channels-last result differs (rc %d / %d)", what, a.rc, b.rc);
    res_free(&a);
    res_free(&b);
    free(bufs[0]);
    free(bufs[1]);
}

static void test_layouts(void)
{
    int64_t d[4] = {2, 5, 6, 7}, d2[4] = {2, 3, 6, 7};
    float *x = malloc(420 * 4), *x2 = malloc(252 * 4);
    for (int i = 0; i < 420; i++) x[i] = (float)((i * 37) % 101);
    for (int i = 0; i < 252; i++) x2[i] = (float)(i % 17) - 8;
    attr ax1[] = {A_INT("axis", 1)}, ax3[] = {A_INT("axis", 3)};
    k_tensor cin[2] = {T(G_F32, 4, d, x), T(G_F32, 4, d2, x2)};
    check_nhwc("Concat channels, both NHWC", "Concat", 13, 2, cin, 1, 1, ax1, 1, 1);
    check_nhwc("Concat channels, NHWC + plain", "Concat", 13, 2, cin, 1, 1, ax1, 0, 1);
    k_tensor cin2[2] = {T(G_F32, 4, d, x), T(G_F32, 4, d, x)};
    check_nhwc("Concat width", "Concat", 13, 2, cin2, 1, 1, ax3, 1, 1);
    int64_t sp[2] = {2, 3}, two[1] = {2};
    k_tensor sin[2] = {T(G_F32, 4, d, x), T(G_I64, 1, two, sp)};
    check_nhwc("Split channels", "Split", 13, 2, sin, 2, 1, ax1, 0, 1);
    int64_t st[2] = {1, -1}, en[2] = {4, 0}, axs[2] = {1, 3}, stp[2] = {2, -2};
    k_tensor slin[5] = {T(G_F32, 4, d, x), T(G_I64, 1, two, st), T(G_I64, 1, two, en), T(G_I64, 1, two, axs),
                        T(G_I64, 1, two, stp)};
    check_nhwc("Slice channels+width", "Slice", 13, 5, slin, 1, 0, NULL, 0, 1);
    int64_t pads[8] = {0, 1, 2, 0, 0, 0, 1, 3}, eight[1] = {8};
    k_tensor pin[2] = {T(G_F32, 4, d, x), T(G_I64, 1, eight, pads)};
    attr refl[] = {A_STR("mode", "reflect")};
    check_nhwc("Pad constant", "Pad", 13, 2, pin, 1, 0, NULL, 0, 1);
    check_nhwc("Pad reflect", "Pad", 13, 2, pin, 1, 1, refl, 0, 1);
    float sc[4] = {1, 1, 2, 1.5f};
    int64_t four[1] = {4};
    k_tensor rin[3] = {T(G_F32, 4, d, x), NONE, T(G_F32, 1, four, sc)};
    attr lin[] = {A_STR("mode", "linear")}, cub[] = {A_STR("mode", "cubic")};
    check_nhwc("Resize nearest", "Resize", 13, 3, rin, 1, 0, NULL, 0, 1);
    check_nhwc("Resize linear", "Resize", 13, 3, rin, 1, 1, lin, 0, 1);
    check_nhwc("Resize cubic", "Resize", 13, 3, rin, 1, 1, cub, 0, 1);
    int64_t perm[4] = {0, 2, 3, 1};
    attr pa[] = {{.name = "perm", .type = G_AT_INTS, .n = 4, .ints = perm}};
    k_tensor tin[1] = {T(G_F32, 4, d, x)};
    check_nhwc("Transpose reads NHWC, writes plain", "Transpose", 13, 1, tin, 1, 1, pa, 0, 0);
    attr tof[] = {A_INT("to", G_F32)};
    check_nhwc("Cast keeps the layout", "Cast", 13, 1, tin, 1, 1, tof, 0, 1);
    free(x);
    free(x2);
}

/* Tensors large enough (> 512 KiB) that the copy engine splits work across
 * threads: results must equal the naive ones. */
static void test_parallel(void)
{
    int64_t d[4] = {1, 64, 96, 128}, n = 64 * 96 * 128;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 65521);
    int perm_i[4] = {0, 2, 3, 1};
    int64_t perm[4] = {0, 2, 3, 1};
    attr pa[] = {{.name = "perm", .type = G_AT_INTS, .n = 4, .ints = perm}};
    k_tensor in[1] = {T(G_F32, 4, d, x)};
    run_res r = run_op("Transpose", 13, 1, in, 1, 1, pa);
    naive_transpose(x, y, d, 4, perm_i);
    CHECK(r.rc == 0 && !memcmp(r.out[0].data, y, (size_t)n * 4), "large NCHW->NHWC");
    res_free(&r);
    /* Concat on axis 0: each input is one long row, split across threads */
    k_tensor cin[2] = {T(G_F32, 4, d, x), T(G_F32, 4, d, y)};
    attr ax0[] = {A_INT("axis", 0)};
    r = run_op("Concat", 13, 2, cin, 1, 1, ax0);
    CHECK(r.rc == 0 && !memcmp(r.out[0].data, x, (size_t)n * 4) &&
          !memcmp((float *)r.out[0].data + n, y, (size_t)n * 4), "large Concat axis 0");
    res_free(&r);
    /* Gather of rows */
    int64_t dg[2] = {96 * 64, 128}, ni[1] = {4096};
    int64_t *idx = malloc(4096 * 8);
    for (int i = 0; i < 4096; i++) idx[i] = (i * 7919) % (96 * 64);
    k_tensor gin[2] = {T(G_F32, 2, dg, x), T(G_I64, 1, ni, idx)};
    r = run_op("Gather", 13, 2, gin, 1, 0, NULL);
    int ok = r.rc == 0;
    for (int i = 0; ok && i < 4096; i++) ok = !memcmp((float *)r.out[0].data + i * 128, x + idx[i] * 128, 512);
    CHECK(ok, "large Gather");
    res_free(&r);
    free(idx);
    /* nearest x2 upsample */
    float sc[4] = {1, 1, 2, 2};
    int64_t four[1] = {4};
    k_tensor rin[3] = {T(G_F32, 4, d, x), NONE, T(G_F32, 1, four, sc)};
    attr asym[] = {A_STR("coordinate_transformation_mode", "asymmetric"), A_STR("nearest_mode", "floor")};
    r = run_op("Resize", 13, 3, rin, 1, 2, asym);
    ok = r.rc == 0;
    for (int64_t c = 0; ok && c < 64; c += 7)
        for (int64_t h = 0; ok && h < 192; h++)
            for (int64_t w = 0; ok && w < 256; w++)
                ok = ((float *)r.out[0].data)[(c * 192 + h) * 256 + w] == x[(c * 96 + h / 2) * 128 + w / 2];
    CHECK(ok, "large nearest x2");
    res_free(&r);
    free(x);
    free(y);
}

int main(void)
{
    init_iota();
    test_views();
    test_transpose();
    test_slice_concat_split();
    test_pad();
    test_gather_scatter();
    test_resize();
    test_cast();
    test_half();
    test_misc();
    test_layouts();
    test_parallel();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
