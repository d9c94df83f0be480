/* Numeric correctness of every aclblas compute call against a C reference:
 * each type combination, each transpose pair, sizes 1, 7, 33 and 257 in
 * every position, alpha/beta (including beta = 0 over a C full of NaN, which
 * must not be read, and int32 products that wrap). */
#include "cb_test.h"

typedef struct combo {
    aclDataType ab, c;
} combo;
static const combo k_combos[] = {
    {ACL_FLOAT16, ACL_FLOAT16}, {ACL_FLOAT16, ACL_FLOAT}, {ACL_INT8, ACL_FLOAT}, {ACL_INT8, ACL_INT32}};
static const int k_shapes[][3] = {{1, 1, 1},    {7, 33, 1},   {1, 7, 33},    {33, 1, 7},     {257, 7, 33},
                                  {7, 257, 257}, {33, 33, 257}, {257, 257, 7}, {257, 257, 257}};
static double g_worst[4];

enum { CALL_EX, CALL_TYPED }; /* aclblasGemmEx / the typed variant (Hgemm, S8gemm) */

/* One product through the chosen entry point; checks C against the reference. */
static void run_gemm(int which, int gemv, combo t, int m, int n, int k, int ta, int tb, double alpha, double beta,
                     int nan_c)
{
    if (gemv) n = 1, tb = 0;
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    void *ha = rand_fill(t.ab, na), *hb = rand_fill(t.ab, nb), *hc = rand_fill(t.c, nc);
    if (nan_c)
        for (size_t i = 0; i < nc; i++) {
            if (t.c == ACL_FLOAT) ((float *)hc)[i] = NAN;
            if (t.c == ACL_FLOAT16) ((aclFloat16 *)hc)[i] = 0x7e00;
        }
    void *da = to_dev(ha, na * dt_size(t.ab)), *db = to_dev(hb, nb * dt_size(t.ab)),
         *dc = to_dev(hc, nc * dt_size(t.c));
    void *dal = dev_scalar(t.c, alpha), *dbe = dev_scalar(t.c, beta);
    aclTransType A = ta ? ACL_TRANS_T : ACL_TRANS_N, B = tb ? ACL_TRANS_T : ACL_TRANS_N;
    aclError rc = -1;
    const char *name = "";
    if (!gemv && which == CALL_EX) {
        name = "aclblasGemmEx";
        rc = aclblasGemmEx(A, B, ACL_TRANS_N, m, n, k, dal, da, -1, t.ab, db, -1, t.ab, dbe, dc, -1, t.c,
                           ACL_COMPUTE_HIGH_PRECISION, NULL);
    } else if (gemv && which == CALL_EX) {
        name = "aclblasGemvEx";
        rc = aclblasGemvEx(A, m, k, dal, da, -1, t.ab, db, -1, t.ab, dbe, dc, -1, t.c, ACL_COMPUTE_HIGH_PRECISION,
                           NULL);
    } else if (!gemv && t.c == ACL_FLOAT16) {
        name = "aclblasHgemm";
        rc = aclblasHgemm(A, B, ACL_TRANS_N, m, n, k, dal, da, -1, db, -1, dbe, dc, -1, ACL_COMPUTE_HIGH_PRECISION,
                          NULL);
    } else if (!gemv && t.c == ACL_INT32) {
        name = "aclblasS8gemm";
        rc = aclblasS8gemm(A, B, ACL_TRANS_N, m, n, k, dal, da, -1, db, -1, dbe, dc, -1, ACL_COMPUTE_HIGH_PRECISION,
                           NULL);
    } else if (gemv && t.c == ACL_FLOAT16) {
        name = "aclblasHgemv";
        rc = aclblasHgemv(A, m, k, dal, da, -1, db, -1, dbe, dc, -1, ACL_COMPUTE_HIGH_PRECISION, NULL);
    } else if (gemv && t.c == ACL_INT32) {
        name = "aclblasS8gemv";
        rc = aclblasS8gemv(A, m, k, dal, da, -1, db, -1, dbe, dc, -1, ACL_COMPUTE_HIGH_PRECISION, NULL);
    }
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "%s m=%d n=%d k=%d: returned %d: %s\n", name, m, n, k, (int)rc, aclGetRecentErrMsg());
        g_failures++;
    }
    OK(aclrtSynchronizeStream(NULL));
    void *out = from_dev(dc, nc * dt_size(t.c));
    double *ref = malloc(nc * sizeof(double)), *bound = malloc(nc * sizeof(double));
    ref_gemm(m, n, k, ta, tb, ha, hb, t.ab, hc, t.c, alpha, beta, ref, bound);
    char what[160];
    snprintf(what, sizeof(what), "%s ab=%d c=%d m=%d n=%d k=%d ta=%d tb=%d alpha=%g beta=%g", name, t.ab, t.c, m, n,
             k, ta, tb, alpha, beta);
    double w = cmp_out(what, out, t.c, ref, bound, nc);
    int ci = t.ab == ACL_FLOAT16 ? (t.c == ACL_FLOAT16 ? 0 : 1) : (t.c == ACL_FLOAT ? 2 : 3);
    if (w > g_worst[ci]) g_worst[ci] = w;
    free(ref), free(bound), free(out), free(ha), free(hb), free(hc);
    void *bufs[] = {da, db, dc, dal, dbe};
    for (int i = 0; i < 5; i++) OK(aclrtFree(bufs[i]));
}

/* fp16 C rounding, element by element: C = 1 * A B + 1 * C with k = 1 and
 * A = 1 gives x + y in fp32, rounded once to fp16 (nearest even). Ties,
 * subnormals and overflow to infinity; 15 columns so that both the 8-wide
 * vector loop and the scalar tail see every case. */
static void fp16_rounding(void)
{
    static const struct {
        float x, y;     /* B and C elements (both exact in fp16) */
        uint16_t want; /* the fp16 result */
    } cases[] = {
        {1.0f, 0x1p-11f, 0x3c00},       /* tie between 1 and 1+2^-10: even, 1 */
        {1.0f, 0x3p-11f, 0x3c02},       /* tie between 1+2^-10 and 1+2^-9: even, 1+2^-9 */
        {0x1p-24f, 0x1p-24f, 0x0002},   /* subnormals add exactly */
        {65504.0f, 16.0f, 0x7c00},      /* 65520 rounds to infinity */
        {65504.0f, 8.0f, 0x7bff},       /* 65512 stays 65504 */
        {-0x1p-14f, 0x1p-24f, 0x83ff},  /* normal minus one unit: the largest negative subnormal */
        {-1.0f, 1.0f, 0x0000},          /* exact zero (+0 as fp32 gives) */
    };
    enum { NC = 7, COLS = 15 };
    aclFloat16 one = aclFloatToFloat16(1.0f), b[COLS], c[COLS];
    for (int j = 0; j < COLS; j++) {
        b[j] = aclFloatToFloat16(cases[j % NC].x);
        c[j] = aclFloatToFloat16(cases[j % NC].y);
    }
    void *da = to_dev(&one, 2), *db = to_dev(b, sizeof(b)), *dc = to_dev(c, sizeof(c));
    void *dal = dev_scalar(ACL_FLOAT16, 1.0), *dbe = dev_scalar(ACL_FLOAT16, 1.0);
    OK(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 1, COLS, 1, dal, da, -1, db, -1, dbe, dc, -1,
                    ACL_COMPUTE_HIGH_PRECISION, NULL));
    OK(aclrtSynchronizeStream(NULL));
    aclFloat16 *out = from_dev(dc, sizeof(c));
    for (int j = 0; j < COLS; j++)
        if (out[j] != cases[j % NC].want) {
            fprintf(stderr, "fp16 rounding column %d: %g + %g gave 0x%04x, expected 0x%04x\n", j, cases[j % NC].x,
                    cases[j % NC].y, out[j], cases[j % NC].want);
            g_failures++;
        }
    free(out);
    void *bufs[] = {da, db, dc, dal, dbe};
    for (int i = 0; i < 5; i++) OK(aclrtFree(bufs[i]));
}

int main(void)
{
    cb_setup();
    fp16_rounding();
    const int nshapes = (int)(sizeof(k_shapes) / sizeof(k_shapes[0]));
    int runs = 0;
    for (int ci = 0; ci < 4; ci++) {
        combo t = k_combos[ci];
        int is_int = t.c == ACL_INT32;
        const double ab[][2] = {{1, 0}, {is_int ? 3 : 0.5, is_int ? -2 : -1.5}};
        for (int s = 0; s < nshapes; s++)
            for (int tr = 0; tr < 4; tr++)
                for (int v = 0; v < 2; v++) {
                    const int *sh = k_shapes[s];
                    /* the typed call for combos that have one, GemmEx for all */
                    run_gemm(CALL_EX, 0, t, sh[0], sh[1], sh[2], tr & 1, tr >> 1, ab[v][0], ab[v][1], 0);
                    runs++;
                    if ((ci == 0 || ci == 3) && (s + tr + v) % 2 == 0) {
                        run_gemm(CALL_TYPED, 0, t, sh[0], sh[1], sh[2], tr & 1, tr >> 1, ab[v][0], ab[v][1], 0);
                        runs++;
                    }
                    if (tr < 2) { /* matrix-vector: m x k matrix, k-vector */
                        run_gemm(CALL_EX, 1, t, sh[0], 1, sh[2], tr, 0, ab[v][0], ab[v][1], 0);
                        runs++;
                        if (ci == 0 || ci == 3) {
                            run_gemm(CALL_TYPED, 1, t, sh[0], 1, sh[2], tr, 0, ab[v][0], ab[v][1], 0);
                            runs++;
                        }
                    }
                }
        /* beta = 0: C is not read, NaN in it must not leak into the result */
        if (!is_int) {
            run_gemm(CALL_EX, 0, t, 33, 7, 33, 0, 1, 2.0, 0.0, 1);
            run_gemm(CALL_EX, 1, t, 33, 1, 7, 1, 0, -1.0, 0.0, 1);
            runs += 2;
        }
    }
    /* int32 wrapping: alpha * acc runs past 2^31 and wraps like numpy's int32 */
    run_gemm(CALL_TYPED, 0, k_combos[3], 7, 33, 257, 0, 0, 1 << 20, 123457, 0);
    run_gemm(CALL_TYPED, 1, k_combos[3], 33, 1, 257, 1, 0, -(1 << 22), 7, 0);
    runs += 2;
    /* the same shapes again: the prepared computations are reused */
    for (int i = 0; i < 3; i++) run_gemm(CALL_EX, 0, k_combos[1], 33, 33, 257, 1, 0, 0.5, -1.5, 0);
    runs += 3;
    printf("%d products checked; worst error / allowed: fp16->fp16 %.3f, fp16->fp32 %.3f, int8->fp32 %.3f, "
           "int8->int32 exact\n", runs, g_worst[0], g_worst[1], g_worst[2]);
    cb_teardown();
    TEST_DONE();
}
