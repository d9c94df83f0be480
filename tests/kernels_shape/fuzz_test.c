/* Robustness: random shapes, dtypes, attributes and index/shape values
 * (valid and invalid alike) through the reference data-movement kernels.
 * Any outcome but a crash, a sanitizer report or a write past an output
 * buffer is fine: refusals must come back as error codes. Deterministic
 * (fixed seed); meant to run under ASan/UBSan (label "sanitize").
 *
 * usage: ksh_fuzz_test [iterations] [seed] */
#include "harness.h"
#include "acl/acl.h"

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static int64_t ri(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* Buffers live until the iteration ends. */
static void *bufs[64];
static int nbuf;
static void *alloc_buf(size_t n)
{
    void *p = malloc(n ? n : 1);
    bufs[nbuf++] = p;
    return p;
}

static k_tensor rand_tensor(int dtype, int rank, const int64_t *dims)
{
    k_tensor t = T(dtype, rank, dims, NULL);
    t.data = alloc_buf(t.nbytes);
    unsigned char *p = t.data;
    for (size_t i = 0; i < t.nbytes; i++) p[i] = (unsigned char)rnd();
    if (dtype == G_BOOL)
        for (size_t i = 0; i < t.nbytes; i++) p[i] &= 1;
    return t;
}

/* An int64 1-D tensor of k values in [lo, hi] (sometimes extreme). */
static k_tensor rand_ints(int k, int64_t lo, int64_t hi)
{
    int64_t d[1] = {k};
    k_tensor t = T(G_I64, 1, d, alloc_buf((size_t)k * 8));
    for (int i = 0; i < k; i++) {
        int64_t v = ri(lo, hi);
        if (rnd() % 50 == 0) v = rnd() % 2 ? INT64_MAX : INT64_MIN;
        ((int64_t *)t.data)[i] = v;
    }
    return t;
}

static k_tensor rand_data(int *rank_out, int64_t *d)
{
    static const int types[] = {G_F32, G_I64, G_U8, G_F16, G_BOOL, G_I32, G_F64, G_I8};
    int r = (int)ri(0, 4);
    for (int i = 0; i < r; i++) d[i] = rnd() % 12 == 0 ? 0 : ri(1, 4);
    *rank_out = r;
    return rand_tensor(types[rnd() % 8], r, d);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    if (argc > 2) rs = (uint64_t)atoll(argv[2]) | 1;
    harness_go_on = 1;
    static const char *const ops[] = {
        "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice", "Gather",
        "GatherElements", "GatherND", "ScatterElements", "ScatterND", "Expand", "Tile", "Pad", "Shape",
        "ConstantOfShape", "Where", "NonZero", "TopK", "OneHot", "Resize", "DepthToSpace", "SpaceToDepth",
        "Cast", "Trilu", "ReverseSequence", "Compress", "Einsum", "Unique", "EyeLike", "Range"};
    const int nops = (int)(sizeof ops / sizeof *ops);
    long ran = 0, ok = 0;
    for (long it = 0; it < iters; it++) {
        nbuf = 0;
        const char *op = ops[rnd() % (uint64_t)nops];
        int opset = (int)ri(7, 21), r, nin = 1, nout = 1, na = 0;
        int64_t d[8], d2[8];
        k_tensor in[6];
        attr at[4];
        memset(at, 0, sizeof at);
        int64_t ints[8];
        for (int i = 0; i < 8; i++) ints[i] = ri(-4, 4);
        in[0] = rand_data(&r, d);
        if (!strcmp(op, "Reshape") || !strcmp(op, "Expand") || !strcmp(op, "Tile")) {
            in[1] = rand_ints((int)ri(0, 4), -2, 6);
            nin = 2;
        } else if (!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze")) {
            if (opset >= 13) { in[1] = rand_ints((int)ri(0, 3), -5, 5); nin = 2; }
            else at[na++] = (attr){.name = "axes", .type = G_AT_INTS, .n = (int)ri(0, 3), .ints = ints};
        } else if (!strcmp(op, "Transpose")) {
            if (rnd() % 4) {   /* mostly a valid permutation */
                for (int i = 0; i < r; i++) ints[i] = i;
                for (int i = r - 1; i > 0; i--) { int j = (int)ri(0, i); int64_t t = ints[i]; ints[i] = ints[j]; ints[j] = t; }
            }
            at[na++] = (attr){.name = "perm", .type = G_AT_INTS, .n = r, .ints = ints};
        } else if (!strcmp(op, "Concat")) {
            nin = (int)ri(1, 3);
            for (int i = 1; i < nin; i++) {
                memcpy(d2, d, sizeof d2);
                if (r) d2[rnd() % (uint64_t)r] = ri(0, 3);
                in[i] = rand_tensor(in[0].dtype, r, d2);
            }
            at[na++] = (attr)A_INT("axis", ri(-4, 4));
        } else if (!strcmp(op, "Split")) {
            nout = (int)ri(1, 3);
            at[na++] = (attr)A_INT("axis", ri(-4, 4));
            if (opset >= 18 && rnd() % 2) at[na++] = (attr)A_INT("num_outputs", nout);
            else if (rnd() % 2) { in[1] = rand_ints(nout, 0, 3); nin = 2; }
        } else if (!strcmp(op, "Slice")) {
            int k = (int)ri(0, 4);
            in[1] = rand_ints(k, -6, 6);
            in[2] = rand_ints(k, -6, 6);
            in[3] = rand_ints(k, -4, 3);
            in[4] = rand_ints(k, -3, 3);
            nin = 5;
            opset = opset < 10 ? 10 : opset;
        } else if (!strcmp(op, "Gather") || !strcmp(op, "GatherElements") || !strcmp(op, "GatherND") ||
                   !strcmp(op, "ScatterElements") || !strcmp(op, "ScatterND")) {
            int ir = (int)ri(0, 4);
            for (int i = 0; i < ir; i++) d2[i] = ri(0, 4);
            if (!strcmp(op, "GatherND") || !strcmp(op, "ScatterND")) { if (ir == 0) ir = 1; d2[ir - 1] = ri(0, 3); }
            if (strstr(op, "Elements") && rnd() % 3) { ir = r; memcpy(d2, d, sizeof d2); }
            in[1] = T(G_I64, ir, d2, NULL);
            in[1].data = alloc_buf(in[1].nbytes);
            for (int64_t i = 0; i < (int64_t)(in[1].nbytes / 8); i++) ((int64_t *)in[1].data)[i] = ri(-5, 5);
            nin = 2;
            if (!strncmp(op, "Scatter", 7)) {
                int ur = (int)ri(0, 4);
                for (int i = 0; i < ur; i++) d2[i] = ri(0, 4);
                if (rnd() % 2) { ur = in[1].shape.rank; memcpy(d2, in[1].shape.d, sizeof d2); }
                in[2] = rand_tensor(in[0].dtype, ur, d2);
                nin = 3;
                static const char *const reds[] = {"none", "add", "mul", "max", "min"};
                at[na++] = (attr)A_STR("reduction", reds[rnd() % 5]);
            }
            at[na++] = (attr)A_INT(!strcmp(op, "GatherND") ? "batch_dims" : "axis", ri(-2, 2));
        } else if (!strcmp(op, "Pad")) {
            static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
            in[1] = rand_ints(2 * r, -3, 3);
            nin = 2;
            at[na++] = (attr)A_STR("mode", modes[rnd() % 4]);
            opset = opset < 11 ? 11 : opset;
        } else if (!strcmp(op, "ConstantOfShape")) {
            in[0] = rand_ints((int)ri(0, 3), -1, 4);
        } else if (!strcmp(op, "Where")) {
            int r1, r2;
            in[1] = rand_data(&r1, d2);
            in[0] = rand_tensor(G_BOOL, r, d);
            int64_t d3[8];
            in[2] = rand_data(&r2, d3);
            in[2] = rand_tensor(in[1].dtype, r2, d3);
            nin = 3;
        } else if (!strcmp(op, "TopK")) {
            in[1] = rand_ints(1, -1, 5);
            nin = 2;
            nout = 2;
            at[na++] = (attr)A_INT("axis", ri(-3, 3));
            at[na++] = (attr)A_INT("largest", ri(0, 1));
            opset = opset < 11 ? 11 : opset;
        } else if (!strcmp(op, "OneHot")) {
            in[1] = rand_ints(1, -1, 6);
            int64_t two[1] = {2};
            in[2] = rand_tensor(G_F32, 1, two);
            nin = 3;
            at[na++] = (attr)A_INT("axis", ri(-5, 4));
            opset = opset < 11 ? 11 : opset;
        } else if (!strcmp(op, "Resize")) {
            static const char *const modes[] = {"nearest", "linear", "cubic"};
            static const char *const cts[] = {"half_pixel", "asymmetric", "pytorch_half_pixel",
                                              "align_corners", "tf_crop_and_resize", "tf_half_pixel_for_nn"};
            static const float sv[] = {0.5f, 1.f, 1.5f, 2.f, 3.f, 0.25f};
            opset = opset < 11 ? 11 : opset;
            int64_t rd[1] = {r}, r2d[1] = {2 * r};
            in[1] = T(G_F32, 1, r2d, alloc_buf((size_t)(2 * r) * 4 + 4));
            for (int i = 0; i < 2 * r; i++) ((float *)in[1].data)[i] = (float)ri(-2, 4) / 4.f;
            in[2] = NONE;
            in[3] = NONE;
            if (rnd() % 2) {
                in[2] = T(G_F32, 1, rd, alloc_buf((size_t)r * 4 + 4));
                for (int i = 0; i < r; i++) ((float *)in[2].data)[i] = sv[rnd() % 6];
            } else {
                in[3] = rand_ints(r, 0, 7);
            }
            nin = 4;
            at[na++] = (attr)A_STR("mode", modes[rnd() % 3]);
            at[na++] = (attr)A_STR("coordinate_transformation_mode", cts[rnd() % 6]);
            if (opset >= 18) at[na++] = (attr)A_INT("antialias", ri(0, 1));
        } else if (!strcmp(op, "DepthToSpace") || !strcmp(op, "SpaceToDepth")) {
            at[na++] = (attr)A_INT("blocksize", ri(1, 2));
            if (rnd() % 2) at[na++] = (attr)A_STR("mode", "CRD");
        } else if (!strcmp(op, "Cast")) {
            static const int to[] = {G_F32, G_F16, G_BF16, G_I8, G_U64, G_BOOL, G_F64, G_I32};
            at[na++] = (attr)A_INT("to", to[rnd() % 8]);
        } else if (!strcmp(op, "Trilu")) {
            in[1] = rand_ints(1, -3, 3);
            in[1].shape.rank = 0;
            nin = 2;
            at[na++] = (attr)A_INT("upper", ri(0, 1));
        } else if (!strcmp(op, "ReverseSequence")) {
            in[1] = rand_ints(r > 1 ? (int)d[1] : 1, -1, 5);
            nin = 2;
        } else if (!strcmp(op, "Compress")) {
            int64_t k[1] = {ri(0, 6)};
            in[1] = rand_tensor(G_BOOL, 1, k);
            nin = 2;
            if (rnd() % 2) at[na++] = (attr)A_INT("axis", ri(-3, 3));
        } else if (!strcmp(op, "Einsum")) {
            static const char *const eqs[] = {"ij->ji", "ii->i", "...i->...", "ab,bc->ac", "i,i", "...j,j...->..."};
            int e = (int)(rnd() % 6);
            at[na++] = (attr)A_STR("equation", eqs[e]);
            if (e >= 3) { int r2; in[1] = rand_data(&r2, d2); in[1] = rand_tensor(in[0].dtype, r2, d2); nin = 2; }
        } else if (!strcmp(op, "Unique")) {
            nout = 4;
            if (rnd() % 2) at[na++] = (attr)A_INT("axis", ri(-3, 3));
            at[na++] = (attr)A_INT("sorted", ri(0, 1));
        } else if (!strcmp(op, "Range")) {
            int64_t one[1] = {1};
            for (int i = 0; i < 3; i++) {
                in[i] = T(G_I64, 0, one, alloc_buf(8));
                *(int64_t *)in[i].data = ri(-6, 6);
            }
            nin = 3;
        } else if (!strcmp(op, "Flatten")) {
            at[na++] = (attr)A_INT("axis", ri(-5, 5));
        }
        if (getenv("KSH_FUZZ_TRACE")) {   /* which case crashed: print before running */
            printf("#%ld %s-%d", it, op, opset);
            for (int i = 0; i < nin; i++) {
                char b[96];
                printf(" %s%s", g_dtype_name(in[i].dtype), g_shape_str(&in[i].shape, b, sizeof b));
                if (in[i].dtype == G_I64 && in[i].data && in[i].shape.rank <= 1)
                    for (int64_t k = 0; k < g_shape_numel(&in[i].shape) && k < 8; k++)
                        printf("%c%lld", k ? ',' : '=', (long long)((int64_t *)in[i].data)[k]);
            }
            for (int i = 0; i < na; i++)
                if (at[i].type == G_AT_INT) printf(" %s=%lld", at[i].name, (long long)at[i].i);
                else if (at[i].type == G_AT_STRING) printf(" %s=%s", at[i].name, at[i].s);
            printf("\n");
            fflush(stdout);
        }
        run_res res = run_op_ex(op, opset, nin, in, nout, na, at, 0, rnd() % 2);
        ran++;
        if (res.rc == 0) { ok++; res_free(&res); }
        (void)aclGetRecentErrMsg();   /* drop the accumulated messages */
        for (int i = 0; i < nbuf; i++) free(bufs[i]);
    }
    printf("%ld random cases, %ld ran to completion, %d guard-byte failures\n", ran, ok, failures);
    return failures ? 1 : 0;
}
