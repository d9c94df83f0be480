/* The compiled-model reader on damaged images (label "sanitize": it runs
 * under ASan/UBSan too): every outcome must be a clean refusal or a model
 * that loads, binds and runs; never a crash, a leak or an overflow.
 *
 *   - CRC32C: standard check values, the hardware path against the table
 *     path, chunked sums against whole ones;
 *   - bit flips with the checksums left as they are: every flip inside a
 *     checksummed byte is refused;
 *   - the same flips with the checksums recomputed (om_reseal), so the
 *     reader's own bounds and consistency checks are what stands;
 *   - truncation at every length class, wrong section offsets and sizes,
 *     huge counts written over every aligned word of the metadata;
 *   - format versions: a newer major is refused as such, an unknown optional
 *     section is skipped, an unknown required one refused; a 1.1 file made
 *     1.0 (no EXEC section) still loads and runs;
 *   - the EXEC section of a bf16 program: adopted in place when the thread
 *     counts agree, packed again when a node's differs or (1.0) none is
 *     recorded; a float32 record over bf16-marked nodes is refused.
 * Deterministic (fixed PRNG seed). Usage: om_fuzz <dir with *.om> */
#include "../common/oa_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "engine/compile.h"
#include "engine/engine.h"
#include "om/om.h"


static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void *xalloc(void *ctx, size_t n) { (void)ctx; return malloc(n ? n : 1); }
static void no_release(void *ctx) { (void)ctx; }

/* The thread count atc compiled the fixture for (OPENACL_THREADS, else the
 * OpenMP default, as here with 0). */
static int env_threads(void)
{
    const char *e = getenv("OPENACL_THREADS");
    int t = e ? atoi(e) : 0;
    return t > 0 && t <= 1024 ? t : 0;
}

static int g_plan_from_image;   /* of the last load_run2 */

/* Loads, binds and runs once (gear 0) on zero inputs; 0 when it ran.
 * in_image (may be NULL): whether the weights were used in place (adopted). */
static int load_run2(const unsigned char *img, size_t len, int *ran, int *in_image)
{
    static long ncall;
    ncall++;
    const char *tr = getenv("OM_FUZZ_TRACE");
    if (tr) {
        fprintf(stderr, "call %ld\n", ncall);
        if (atol(tr) == ncall) {
            FILE *f = fopen("om_fuzz_call.om", "wb");
            if (f) { fwrite(img, 1, len, f); fclose(f); }
        }
    }
    eng_model *m = NULL;
    *ran = 0;
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.threads = env_threads();
    o.release = no_release;   /* the image outlives the model: adoption possible */
    int rc = eng_load_compiled("om_fuzz", "image", img, len, &o, &m);
    free(acl_err_take());
    if (rc) return rc;
    if (in_image) *in_image = eng_weights_in_image(m);
    /* (a range-dynamic model has no memory plan to record) */
    g_plan_from_image = eng_is_static(m) || eng_gear_count(m) ? eng_plan_from_image(m) : 1;
    rc = eng_bind_weights(m, NULL);
    int ni = eng_num_inputs(m), no = eng_num_outputs(m), gear = eng_gear_count(m) ? 0 : -1;
    k_tensor *in = calloc((size_t)ni + 1, sizeof *in), *out = calloc((size_t)no + 1, sizeof *out);
    for (int i = 0; !rc && i < ni; i++) {
        const eng_io *io = gear >= 0 && i != eng_gear_input_index(m) ? eng_gear_input(m, gear, i) : eng_input(m, i);
        in[i].dtype = io->dtype;
        in[i].shape = io->shape;
        for (int d = 0; d < in[i].shape.rank; d++)
            if (in[i].shape.d[d] < 0) in[i].shape.d[d] = 2;
        in[i].nbytes = k_nbytes(&in[i]);
        in[i].data = calloc(1, in[i].nbytes + 16);
        if (i == eng_gear_input_index(m)) {
            /* the gear input holds gear 0's values as uint32 */
            in[i].nbytes = (size_t)eng_gear_nvals(m) * 4;
            for (int k = 0; k < eng_gear_nvals(m); k++)
                ((uint32_t *)in[i].data)[k] = (uint32_t)eng_gear_values(m, 0)[k];
        }
    }
    for (int o = 0; o < no; o++) {
        out[o].dtype = eng_output(m, o)->dtype;
        out[o].shape = eng_output(m, o)->shape;
    }
    if (!rc) rc = eng_run(m, NULL, in, ni, out, no, xalloc, NULL);
    free(acl_err_take());
    if (!rc) *ran = 1;
    for (int i = 0; i < ni; i++) free(in[i].data);
    for (int o = 0; o < no; o++) free(out[o].data);
    free(in);
    free(out);
    eng_free(m);
    return rc;
}

static int load_run(const unsigned char *img, size_t len, int *ran) { return load_run2(img, len, ran, NULL); }

/* The section table entry of section id, or NULL. */
static unsigned char *sec_entry(unsigned char *img, uint32_t want)
{
    uint64_t table;
    uint32_t n;
    memcpy(&table, img + 24, 8);
    memcpy(&n, img + 32, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        memcpy(&id, img + table + 32 * i, 4);
        if (id == want) return img + table + 32 * i;
    }
    return NULL;
}

static unsigned char *sec_data(unsigned char *img, uint32_t id)
{
    unsigned char *e = sec_entry(img, id);
    uint64_t off;
    if (!e) return NULL;
    memcpy(&off, e + 8, 8);
    return img + off;
}

/* A 1.1 image as a 1.0 writer would have left it: minor 0, the EXEC section
 * renamed to an id no reader knows (optional, so skipped). */
static void make_v10(unsigned char *img, size_t len)
{
    uint16_t minor = 0;
    uint32_t id = 77;
    memcpy(img + 10, &minor, 2);
    unsigned char *e = sec_entry(img, OM_SEC_EXEC);
    if (e) memcpy(e, &id, 4);
    om_reseal(img, len);
}

/* bfnet_bf16.om (make_models.py): EXEC = u32 version, u32 precision, u32
 * programs (1), u32 nodes, u32 threads per node; node 1 is a packed 1x1 conv. */
static void test_exec(const unsigned char *orig, size_t len)
{
    unsigned char *img = malloc(len);
    int ran = 0, in_image = -1, rc;
    memcpy(img, orig, len);
    unsigned char *x = sec_data(img, OM_SEC_EXEC);
    CHECK(x != NULL, "bfnet_bf16.om has no EXEC section");
    if (!x) { free(img); return; }
    uint32_t v[5];
    memcpy(v, x, sizeof v);
    CHECK(v[0] == 1 && v[1] == ENG_PRECISION_BF16 && v[2] == 1 && v[3] == 7 && v[4] >= 1,
           "EXEC header %u %u %u %u %u", v[0], v[1], v[2], v[3], v[4]);
    rc = load_run2(img, len, &ran, &in_image);
    CHECK(rc == 0 && ran && in_image == 1, "bf16 image, same threads: rc %d ran %d adopted %d", rc, ran, in_image);
    /* node 1 recorded with another thread count: packed again, same run */
    uint32_t other = v[4] + 1;
    memcpy(x + 16 + 4, &other, 4);
    om_reseal(img, len);
    in_image = -1;
    rc = load_run2(img, len, &ran, &in_image);
    CHECK(rc == 0 && ran && in_image == 0, "bf16 image, other threads: rc %d ran %d adopted %d", rc, ran, in_image);
    /* float32 recorded over bf16-marked nodes: refused */
    memcpy(img, orig, len);
    uint32_t fp32 = ENG_PRECISION_FP32, seven = 7;
    memcpy(x + 4, &fp32, 4);
    om_reseal(img, len);
    eng_model *m = NULL;
    rc = eng_load_compiled("om_fuzz", "fp32-marked", img, len, NULL, &m);
    char *msg = acl_err_take();
    CHECK(rc && msg && strstr(msg, "records float32 compute, but node"), "fp32 record over bf16 marks: %d %s", rc,
           msg ? msg : "");
    free(msg);
    eng_free(m);
    /* an unknown precision value: refused */
    memcpy(x + 4, &seven, 4);
    om_reseal(img, len);
    rc = load_run(img, len, &ran);
    CHECK(rc != 0, "precision 7 accepted");
    /* the same file as format 1.0 (no EXEC): runs, packed again (no record
     * of the thread counts its bf16 weights were packed for) */
    memcpy(img, orig, len);
    make_v10(img, len);
    in_image = -1;
    rc = load_run2(img, len, &ran, &in_image);
    CHECK(rc == 0 && ran && in_image == 0, "bf16 image as 1.0: rc %d ran %d adopted %d", rc, ran, in_image);
    /* atc --mode=1 on it: the precision the node marks say */
    char *js = NULL;
    rc = eng_om_dump_json("v10", img, len, &js);
    const char *pr = js ? strstr(js, "\"precision\":") : NULL;
    if (pr) pr += strlen("\"precision\":");
    while (pr && (*pr == ' ' || *pr == '\t')) pr++;
    CHECK(rc == 0 && pr && !strncmp(pr, "\"bf16\"", 6) && strstr(js, "node marks (no execution section)"),
           "1.0 dump: rc %d, precision %.12s", rc, pr ? pr : "(none)");
    free(js);
    free(img);
}

/* Which bytes a load checks: header, table and section contents, except
 * the plain-weights section, which is read (and checked) only when weights
 * must be packed again on another machine (docs/om-format.md). */
static unsigned char *coverage(const unsigned char *img, size_t len)
{
    unsigned char *cov = calloc(len, 1);
    uint64_t table;
    uint32_t n;
    memcpy(&table, img + 24, 8);
    memcpy(&n, img + 32, 4);
    memset(cov, 1, 128);
    memset(cov + table, 1, (size_t)n * 32);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        uint64_t off, size;
        memcpy(&id, img + table + 32 * i, 4);
        memcpy(&off, img + table + 32 * i + 8, 8);
        memcpy(&size, img + table + 32 * i + 16, 8);
        if (id != OM_SEC_PLAIN) memset(cov + off, 1, (size_t)size);
    }
    return cov;
}

static void test_crc(void)
{
    CHECK(om_crc32c(0, "123456789", 9) == 0xE3069283u, "crc32c check value");
    CHECK(om_crc32c_sw(0, "123456789", 9) == 0xE3069283u, "crc32c table check value");
    CHECK(om_crc32c(0, "", 0) == 0, "crc32c of nothing");
    unsigned char buf[4096 + 64];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)rnd();
    for (int t = 0; t < 200; t++) {
        size_t off = rnd() % 64, n = rnd() % 4096;
        CHECK(om_crc32c(0, buf + off, n) == om_crc32c_sw(0, buf + off, n), "hw vs table, %zu bytes at %zu", n, off);
        size_t k = n ? rnd() % n : 0;   /* incremental == whole */
        CHECK(om_crc32c(om_crc32c(0, buf + off, k), buf + off + k, n - k) == om_crc32c(0, buf + off, n),
               "incremental crc");
    }
    for (size_t n = 0; n < sizeof buf; n += 397) {
        size_t chunk = 256, nch = (n + chunk - 1) / chunk;
        uint32_t got[32];
        om_crc32c_chunks(buf, n, chunk, got, 2);
        for (size_t k = 0; k < nch; k++) {
            size_t l = k + 1 < nch || n % chunk == 0 ? chunk : n % chunk;
            CHECK(got[k] == om_crc32c_sw(0, buf + k * chunk, l), "chunk %zu of %zu bytes", k, n);
        }
    }
}

static void fuzz_image(const char *name, const unsigned char *orig, size_t len)
{
    unsigned char *img = malloc(len);
    int ran, rc;
    memcpy(img, orig, len);
    rc = load_run(img, len, &ran);
    CHECK(rc == 0 && ran, "%s: the intact image does not load and run (%d)", name, rc);
    CHECK(g_plan_from_image, "%s: the intact image's memory plan was not used", name);
    unsigned char *cov = coverage(orig, len);

    /* 1. bit flips, checksums untouched: covered bytes are refused */
    int refused = 0, flips = 300;
    for (int t = 0; t < flips; t++) {
        size_t at = rnd() % len;
        unsigned char bit = (unsigned char)(1u << (rnd() % 8));
        img[at] ^= bit;
        rc = load_run(img, len, &ran);
        if (rc) refused++;
        CHECK(rc || !cov[at], "%s: flip at byte %zu (checksummed) was not refused", name, at);
        img[at] ^= bit;
    }
    /* 2. bit flips with the checksums recomputed: the reader's own checks */
    int loaded = 0;
    for (int t = 0; t < 400; t++) {
        memcpy(img, orig, len);
        int nflip = 1 + (int)(rnd() % 3);
        for (int k = 0; k < nflip; k++) img[128 + rnd() % (len - 128)] ^= (unsigned char)(1u << (rnd() % 8));
        om_reseal(img, len);
        if (load_run(img, len, &ran) == 0) loaded++;
    }
    /* 3. huge and odd values over every aligned word of the metadata */
    static const uint64_t vals[] = { 0xFFFFFFFFFFFFFFFFull, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull,
                                     0x100000000ull, 0, 1, 0x4000000000000000ull };
    uint64_t table;
    uint32_t nsec;
    memcpy(&table, orig + 24, 8);
    memcpy(&nsec, orig + 32, 4);
    size_t meta_end = 0;
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t id;
        uint64_t off, size;
        memcpy(&id, orig + table + 32 * i, 4);
        memcpy(&off, orig + table + 32 * i + 8, 8);
        memcpy(&size, orig + table + 32 * i + 16, 8);
        if ((id == OM_SEC_INFO || id == OM_SEC_PROGRAMS || id == OM_SEC_BLOBS) && off + size > meta_end)
            meta_end = (size_t)(off + size);
    }
    int words = 0;
    for (size_t at = 128; at + 8 <= meta_end; at += 4) {
        uint64_t v = vals[rnd() % (sizeof vals / sizeof vals[0])];
        memcpy(img, orig, len);
        memcpy(img + at, &v, (rnd() & 1) ? 8 : 4);
        om_reseal(img, len);
        load_run(img, len, &ran);
        words++;
    }
    {   /* the EXEC section lies after the weights: its words too */
        memcpy(img, orig, len);
        unsigned char *e = sec_entry(img, OM_SEC_EXEC);
        uint64_t off = 0, size = 0;
        if (e) { memcpy(&off, e + 8, 8); memcpy(&size, e + 16, 8); }
        for (size_t at = (size_t)off; e && at + 4 <= off + size; at += 4) {
            uint64_t v = vals[rnd() % (sizeof vals / sizeof vals[0])];
            memcpy(img, orig, len);
            memcpy(img + at, &v, at + 8 <= off + size && (rnd() & 1) ? 8 : 4);
            om_reseal(img, len);
            load_run(img, len, &ran);
            words++;
        }
    }
    /* 4. truncation */
    for (size_t n = 0; n < len; n += 1 + len / 97) {
        memcpy(img, orig, len);
        rc = load_run(img, n, &ran);
        CHECK(rc != 0, "%s: truncated to %zu bytes and loaded", name, n);
        om_reseal(img, n);
        rc = load_run(img, n, &ran);
        CHECK(rc != 0, "%s: truncated to %zu bytes (resealed) and loaded", name, n);
    }
    /* 5. section offsets and sizes pointing elsewhere */
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t sid;
        uint64_t ssize;
        memcpy(&sid, orig + table + 32 * i, 4);
        memcpy(&ssize, orig + table + 32 * i + 16, 8);
        for (int f = 0; f < 2; f++) {
            static const int64_t deltas[] = { 64, -64, 4096, 1 << 30, -(1 << 20) };
            for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
                memcpy(img, orig, len);
                uint64_t v;
                memcpy(&v, img + table + 32 * i + 8 + 8 * f, 8);
                v += (uint64_t)deltas[k];
                memcpy(img + table + 32 * i + 8 + 8 * f, &v, 8);
                om_reseal(img, len);
                rc = load_run(img, len, &ran);
                /* a moved section must be refused, unless it holds nothing, is
                 * the plain weights (only read when re-packing) or the
                 * optional EXEC section (a version this build does not know is
                 * skipped: the file then runs as format 1.0) */
                CHECK(rc != 0 || f == 1 || ssize == 0 || sid == OM_SEC_PLAIN || sid == OM_SEC_EXEC,
                       "%s: section %u moved by %lld and loaded", name, i, (long long)deltas[k]);
            }
        }
    }
    printf("%s: %zu bytes; %d/%d plain flips refused; %d/400 resealed mutants loaded; %d word overwrites\n", name,
           len, refused, flips, loaded, words);
    free(cov);
    free(img);
}

static void test_versions(const unsigned char *orig, size_t len)
{
    unsigned char *img = malloc(len);
    int ran;
    memcpy(img, orig, len);
    uint16_t major = 2;
    memcpy(img + 8, &major, 2);
    om_reseal(img, len);
    eng_model *m = NULL;
    int rc = eng_load_compiled("om_fuzz", "newer", img, len, NULL, &m);
    char *msg = acl_err_take();
    CHECK(rc && msg && strstr(msg, "written by a newer openacl"), "newer major: %d %s", rc, msg ? msg : "");
    free(msg);
    /* an unknown section id (the EXEC section's entry renamed): skipped when
     * optional (the image then loads and runs as a 1.0 one), refused when
     * required */
    for (int req = 0; req < 2; req++) {
        memcpy(img, orig, len);
        unsigned char *e = sec_entry(img, OM_SEC_EXEC);
        CHECK(e != NULL, "no EXEC section");
        if (!e) break;
        uint32_t id = 77, fl = req ? OM_SF_REQUIRED : 0;
        memcpy(e, &id, 4);
        memcpy(e + 4, &fl, 4);
        om_reseal(img, len);
        rc = load_run(img, len, &ran);
        msg = acl_err_take();
        if (req) CHECK(rc != 0, "unknown required section accepted");
        else CHECK(rc == 0 && ran, "unknown optional section: not loaded (%d)", rc);
        free(msg);
    }
    memcpy(img, orig, len);
    make_v10(img, len);
    rc = load_run(img, len, &ran);
    CHECK(rc == 0 && ran, "a format 1.0 image (no EXEC) does not load and run: %d", rc);
    /* an image of another packed-format revision ("p10" for "p11" in the
     * kernel ABI, header offset 40): loads, packs again from its plain
     * copies instead of adopting the stored packed weights, and runs */
    memcpy(img, orig, len);
    char *rev = strstr((char *)img + 40, " p11");
    CHECK(rev != NULL, "kernel ABI without a packed-format revision: %.47s", (char *)img + 40);
    if (rev) {
        rev[2] = '1';
        rev[3] = '0';
        om_reseal(img, len);
        int in_image = -1;
        rc = load_run2(img, len, &ran, &in_image);
        CHECK(rc == 0 && ran && in_image == 0, "a previous-ABI image: rc %d ran %d weights in image %d",
               rc, ran, in_image);
    }
    free(img);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s <dir> | --one <file.om> [times]\n", argv[0]); return 2; }
    if (!strcmp(argv[1], "--one") && argc >= 3) {
        /* one image (as OM_FUZZ_TRACE=<call> saved it), loaded and run again and again */
        size_t len;
        unsigned char *img = read_file(argv[2], &len);
        int times = argc > 3 ? atoi(argv[3]) : 1, ran = 0, rc = 0;
        for (int t = 0; t < times; t++) rc = load_run(img, len, &ran);
        printf("rc %d ran %d\n", rc, ran);
        free(img);
        return 0;
    }
    static const char *const files[] = { "cnn_batch.om", "two_dims.om", "mlp_range.om", "cnn_hw.om", "cnn_fp16.om",
                                         "bfnet_bf16.om" };
    test_crc();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", argv[1], files[i]);
        FILE *probe = fopen(path, "rb");
        if (!probe && !strcmp(files[i], "bfnet_bf16.om")) {
            printf("%s: not built (no bf16 on this CPU): skipped\n", files[i]);
            continue;
        }
        if (probe) fclose(probe);
        unsigned char *img = read_file(path, &len);
        fuzz_image(files[i], img, len);
        if (i == 0) test_versions(img, len);
        if (!strcmp(files[i], "bfnet_bf16.om")) test_exec(img, len);
        free(img);
    }
    if (oa_failures) { fprintf(stderr, "om_fuzz: %d failure(s)\n", oa_failures); return 1; }
    printf("om_fuzz: ok\n");
    return 0;
}
