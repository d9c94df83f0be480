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
 *     section is skipped, an unknown required one refused.
 * Deterministic (fixed PRNG seed). Usage: om_fuzz <dir with *.om> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "engine/engine.h"
#include "om/om.h"

static int g_fail;
#define EXPECT(c, ...)                                                     \
    do {                                                                   \
        if (!(c)) {                                                        \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            g_fail++;                                                      \
        }                                                                  \
    } while (0)

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

/* Loads, binds and runs once (gear 0) on zero inputs; 0 when it ran. */
static int load_run(const unsigned char *img, size_t len, int *ran)
{
    eng_model *m = NULL;
    *ran = 0;
    int rc = eng_load_compiled("om_fuzz", "image", img, len, NULL, &m);
    free(acl_err_take());
    if (rc) return rc;
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
    EXPECT(om_crc32c(0, "123456789", 9) == 0xE3069283u, "crc32c check value");
    EXPECT(om_crc32c_sw(0, "123456789", 9) == 0xE3069283u, "crc32c table check value");
    EXPECT(om_crc32c(0, "", 0) == 0, "crc32c of nothing");
    unsigned char buf[4096 + 64];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)rnd();
    for (int t = 0; t < 200; t++) {
        size_t off = rnd() % 64, n = rnd() % 4096;
        EXPECT(om_crc32c(0, buf + off, n) == om_crc32c_sw(0, buf + off, n), "hw vs table, %zu bytes at %zu", n, off);
        size_t k = n ? rnd() % n : 0;   /* incremental == whole */
        EXPECT(om_crc32c(om_crc32c(0, buf + off, k), buf + off + k, n - k) == om_crc32c(0, buf + off, n),
               "incremental crc");
    }
    for (size_t n = 0; n < sizeof buf; n += 397) {
        size_t chunk = 256, nch = (n + chunk - 1) / chunk;
        uint32_t got[32];
        om_crc32c_chunks(buf, n, chunk, got, 2);
        for (size_t k = 0; k < nch; k++) {
            size_t l = k + 1 < nch || n % chunk == 0 ? chunk : n % chunk;
            EXPECT(got[k] == om_crc32c_sw(0, buf + k * chunk, l), "chunk %zu of %zu bytes", k, n);
        }
    }
}

static void fuzz_image(const char *name, const unsigned char *orig, size_t len)
{
    unsigned char *img = malloc(len);
    int ran, rc;
    memcpy(img, orig, len);
    rc = load_run(img, len, &ran);
    EXPECT(rc == 0 && ran, "%s: the intact image does not load and run (%d)", name, rc);
    unsigned char *cov = coverage(orig, len);

    /* 1. bit flips, checksums untouched: covered bytes are refused */
    int refused = 0, flips = 300;
    for (int t = 0; t < flips; t++) {
        size_t at = rnd() % len;
        unsigned char bit = (unsigned char)(1u << (rnd() % 8));
        img[at] ^= bit;
        rc = load_run(img, len, &ran);
        if (rc) refused++;
        EXPECT(rc || !cov[at], "%s: flip at byte %zu (checksummed) was not refused", name, at);
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
    /* 4. truncation */
    for (size_t n = 0; n < len; n += 1 + len / 97) {
        memcpy(img, orig, len);
        rc = load_run(img, n, &ran);
        EXPECT(rc != 0, "%s: truncated to %zu bytes and loaded", name, n);
        om_reseal(img, n);
        rc = load_run(img, n, &ran);
        EXPECT(rc != 0, "%s: truncated to %zu bytes (resealed) and loaded", name, n);
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
                /* a moved section must be refused, unless it holds nothing or
                 * is the plain weights, only read when re-packing */
                EXPECT(rc != 0 || f == 1 || ssize == 0 || sid == OM_SEC_PLAIN, "%s: section %u moved by %lld and "
                       "loaded", name, i, (long long)deltas[k]);
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
    EXPECT(rc && msg && strstr(msg, "written by a newer openacl"), "newer major: %d %s", rc, msg ? msg : "");
    free(msg);
    /* an unknown section id: skipped when optional, refused when required */
    uint64_t table;
    memcpy(&table, orig + 24, 8);
    for (int req = 0; req < 2; req++) {
        memcpy(img, orig, len);
        uint32_t id = 77, fl = req ? OM_SF_REQUIRED : 0;
        memcpy(img + table + 32 * 5, &id, 4);   /* the plain-weights section: not needed when adopting */
        memcpy(img + table + 32 * 5 + 4, &fl, 4);
        om_reseal(img, len);
        rc = load_run(img, len, &ran);
        msg = acl_err_take();
        if (req) EXPECT(rc != 0, "unknown required section accepted");
        free(msg);
    }
    free(img);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s <dir>\n", argv[0]); return 2; }
    static const char *const files[] = { "cnn_batch.om", "two_dims.om", "mlp_range.om", "cnn_hw.om", "cnn_fp16.om" };
    test_crc();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", argv[1], files[i]);
        unsigned char *img = read_file(path, &len);
        fuzz_image(files[i], img, len);
        if (i == 0) test_versions(img, len);
        free(img);
    }
    if (g_fail) { fprintf(stderr, "om_fuzz: %d failure(s)\n", g_fail); return 1; }
    printf("om_fuzz: ok\n");
    return 0;
}
