/* The engine's shape cache (src/engine/eng_shapes.c): a dynamic model run
 * with repeating input shapes is served by static programs built per shape,
 * at most OPENACL_SHAPE_CACHE of them (LRU), with the same results as the
 * dynamic path; a model that stays dynamic with its inputs fixed (NonZero)
 * keeps the dynamic path. Models come from make_models.py (argv[1] folder).
 *   shape_cache_test DIR */
#include "../common/oa_check.h"
#include "engine/eng_priv.h"
#include "acl/acl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static float wgt(int o, int i, int k) { return (float)((o * 7 + i * 3 + k) % 11 - 5) / 8.0f; }

/* y = relu(0.5 * conv3x3(x) + 0.25), pads 1 */
static void reference(const float *x, int N, int H, int W, float *y)
{
    static const float b[4] = { 0.5f, -0.25f, 0.0f, 1.0f };
    for (int n = 0; n < N; n++)
        for (int o = 0; o < 4; o++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++) {
                    double acc = b[o];
                    for (int i = 0; i < 3; i++)
                        for (int k = 0; k < 9; k++) {
                            int hh = h + k / 3 - 1, ww = w + k % 3 - 1;
                            if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
                            acc += wgt(o, i, k) * x[((n * 3 + i) * H + hh) * W + ww];
                        }
                    double v = 0.5 * acc + 0.25;
                    y[((n * 4 + o) * H + h) * W + w] = v > 0 ? (float)v : 0.0f;
                }
}

static int run_conv(eng_model *m, int N, int H, int W, int seed)
{
    size_t nx = (size_t)N * 3 * H * W, ny = (size_t)N * 4 * H * W;
    float *x = malloc(nx * 4), *y = malloc(ny * 4), *r = malloc(ny * 4);
    for (size_t i = 0; i < nx; i++) x[i] = (float)((i * 2654435761u + (unsigned)seed) % 2001) / 1000.0f - 1.0f;
    reference(x, N, H, W, r);
    k_tensor in = { .dtype = G_F32, .shape = { .rank = 4, .d = { N, 3, H, W } }, .data = x,
                    .nbytes = nx * 4 };
    k_tensor out = { .data = y, .nbytes = ny * 4 };
    int rc = eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL);
    CHECK(rc == 0, "run %dx3x%dx%d: rc %d %s", N, H, W, rc, rc ? aclGetRecentErrMsg() : "");
    int bad = 0;
    if (!rc) {
        CHECK(out.shape.rank == 4 && out.shape.d[0] == N && out.shape.d[1] == 4 && out.shape.d[2] == H &&
              out.shape.d[3] == W, "output shape for %dx3x%dx%d", N, H, W);
        for (size_t i = 0; i < ny && bad < 3; i++)
            if (fabsf(y[i] - r[i]) > 1e-4f * (1 + fabsf(r[i]))) {
                bad++;
                CHECK(0, "%dx3x%dx%d: y[%zu] %g, expected %g", N, H, W, i, y[i], r[i]);
            }
    }
    free(x); free(y); free(r);
    return rc || bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: shape_cache_test DIR\n"); return 2; }
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/dyn_conv.onnx", argv[1]);
    void *buf = read_file(path, &len);
    if (!buf) { fprintf(stderr, "cannot read %s\n", path); return 2; }
    eng_opts o = { .threads = 1 };
    eng_model *m = NULL;
    eng_shapes_stats st;

    /* capacity 2: A, B, A (hit), C (evicts B), B (built again), and results
     * equal the reference every time */
    setenv("OPENACL_SHAPE_CACHE", "2", 1);
    CHECK(eng_load(buf, len, &o, &m) == 0, "load: %s", aclGetRecentErrMsg());
    if (m) {
        CHECK(!eng_is_static(m), "dyn_conv should load as dynamic");
        int shapes[][3] = { { 1, 8, 8 }, { 2, 5, 7 }, { 1, 8, 8 }, { 1, 16, 4 }, { 2, 5, 7 }, { 2, 5, 7 } };
        for (int k = 0; k < 6; k++) run_conv(m, shapes[k][0], shapes[k][1], shapes[k][2], k);
        eng_shapes_get_stats(m, &st);
        CHECK(st.capacity == 2 && st.programs == 2, "capacity %d programs %d", st.capacity, st.programs);
        CHECK(st.builds == 4 && st.hits == 2 && st.evictions == 2 && st.dynamic_runs == 0,
              "builds %ld hits %ld evictions %ld dynamic %ld", st.builds, st.hits, st.evictions,
              st.dynamic_runs);
        eng_free(m);
        m = NULL;
    }

    /* disabled: every run on the dynamic path, same results */
    setenv("OPENACL_SHAPE_CACHE", "0", 1);
    CHECK(eng_load(buf, len, &o, &m) == 0, "load: %s", aclGetRecentErrMsg());
    if (m) {
        run_conv(m, 1, 8, 8, 1);
        run_conv(m, 1, 8, 8, 2);
        eng_shapes_get_stats(m, &st);
        CHECK(st.capacity == 0 && st.builds == 0, "cache should be off");
        eng_free(m);
        m = NULL;
    }
    free(buf);

    /* data-dependent output: stays dynamic, remembered as such */
    setenv("OPENACL_SHAPE_CACHE", "4", 1);
    snprintf(path, sizeof path, "%s/dyn_nz.onnx", argv[1]);
    buf = read_file(path, &len);
    if (!buf) { fprintf(stderr, "cannot read %s\n", path); return 2; }
    CHECK(eng_load(buf, len, &o, &m) == 0, "load nz: %s", aclGetRecentErrMsg());
    if (m) {
        for (int rep = 0; rep < 3; rep++) {
            float x[6] = { 0, 1.5f, 0, -2, rep == 2 ? 0 : 3, 0 };
            int64_t y[6] = { 0 };
            k_tensor in = { .dtype = G_F32, .shape = { .rank = 1, .d = { 6 } }, .data = x, .nbytes = sizeof x };
            k_tensor out = { .data = y, .nbytes = sizeof y };
            int rc = eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL);
            CHECK(rc == 0, "nz run: %s", rc ? aclGetRecentErrMsg() : "");
            int want = rep == 2 ? 2 : 3;
            CHECK(!rc && out.shape.rank == 2 && out.shape.d[1] == want && y[0] == 1 && y[1] == 3,
                  "nz result rep %d: K %lld", rep, (long long)out.shape.d[1]);
        }
        eng_shapes_get_stats(m, &st);
        CHECK(st.programs == 0 && st.builds == 1 && st.dynamic_runs == 3, "nz: programs %d builds %ld "
              "dynamic %ld", st.programs, st.builds, st.dynamic_runs);
        eng_free(m);
    }
    free(buf);
    return OA_CHECK_EXIT("shape_cache_test");
}
