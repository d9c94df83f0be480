/* The compiled-model container: CRC32C, the byte writer and bounded reader,
 * assembling an image and checking one (header, section table, checksums).
 *
 * Why CRC32C: x86-64 CPUs since 2008 compute it in hardware (SSE4.2 crc32
 * instruction, ~8 bytes per cycle per stream), so checking every weight
 * byte at each load costs a few milliseconds for a ResNet-50 instead of the
 * ~100 ms zlib's table-driven crc32 would take; it needs no new dependency,
 * detects all burst errors up to 32 bits and is what ext4, iSCSI and
 * SSE-era storage formats use for the same job. The table-driven version is
 * kept for other CPUs and as the reference in tests. */
#include "om/om.h"
#include "core/core.h"
#include "graph/errs.h"
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define OM_HAVE_X86 1
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the compiled-model reader/writer assumes a little-endian host"
#endif

const unsigned char OM_MAGIC[OM_MAGIC_LEN] = {'O', 'A', 'C', 'L', 'M', 'D', 'L', 0};

/* ---- CRC32C (Castagnoli, reflected polynomial 0x82F63B78) ---- */

static uint32_t g_tab[8][256];
static pthread_once_t g_tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        g_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++) g_tab[t][i] = (g_tab[t - 1][i] >> 8) ^ g_tab[0][g_tab[t - 1][i] & 0xff];
}

uint32_t om_crc32c_sw(uint32_t crc, const void *buf, size_t n)
{
    pthread_once(&g_tab_once, tab_init);
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (n && ((uintptr_t)p & 7)) { c = (c >> 8) ^ g_tab[0][(c ^ *p++) & 0xff]; n--; }
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = g_tab[7][lo & 0xff] ^ g_tab[6][(lo >> 8) & 0xff] ^ g_tab[5][(lo >> 16) & 0xff] ^
            g_tab[4][lo >> 24] ^ g_tab[3][hi & 0xff] ^ g_tab[2][(hi >> 8) & 0xff] ^
            g_tab[1][(hi >> 16) & 0xff] ^ g_tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ g_tab[0][(c ^ *p++) & 0xff];
    return ~c;
}

#ifdef OM_HAVE_X86
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t n)
{
    uint64_t c = (uint32_t)~crc;
    while (n && ((uintptr_t)p & 7)) { c = _mm_crc32_u8((uint32_t)c, *p++); n--; }
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    while (n--) c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

/* Three independent buffers of equal length at once: the crc32 instruction
 * has a 3-cycle latency and 1-cycle throughput, so three streams keep it busy. */
__attribute__((target("sse4.2"))) static void crc_hw3(const unsigned char *a, const unsigned char *b,
                                                      const unsigned char *c, size_t n, uint32_t *out)
{
    uint64_t x = 0xffffffffu, y = 0xffffffffu, z = 0xffffffffu;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t u, v, w;
        memcpy(&u, a + i, 8);
        memcpy(&v, b + i, 8);
        memcpy(&w, c + i, 8);
        x = _mm_crc32_u64(x, u);
        y = _mm_crc32_u64(y, v);
        z = _mm_crc32_u64(z, w);
    }
    for (; i < n; i++) {
        x = _mm_crc32_u8((uint32_t)x, a[i]);
        y = _mm_crc32_u8((uint32_t)y, b[i]);
        z = _mm_crc32_u8((uint32_t)z, c[i]);
    }
    out[0] = ~(uint32_t)x;
    out[1] = ~(uint32_t)y;
    out[2] = ~(uint32_t)z;
}

static int have_hw(void)
{
    static int v = -1;   /* every thread computes the same value: relaxed atomics suffice */
    int h = __atomic_load_n(&v, __ATOMIC_RELAXED);
    if (h < 0) {
        h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
        __atomic_store_n(&v, h, __ATOMIC_RELAXED);
    }
    return h;
}
#endif

uint32_t om_crc32c(uint32_t crc, const void *p, size_t n)
{
#ifdef OM_HAVE_X86
    if (have_hw()) return crc_hw(crc, p, n);
#endif
    return om_crc32c_sw(crc, p, n);
}

void om_crc32c_chunks(const void *buf, size_t n, size_t chunk, uint32_t *out, int threads)
{
    const unsigned char *p = buf;
    if (!chunk) return;
    size_t nch = (n + chunk - 1) / chunk, full = n / chunk;
    long groups = (long)(full / 3);
    if (threads < 1) threads = 1;
    if ((long)threads > groups) threads = groups > 0 ? (int)groups : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long gi = 0; gi < groups; gi++) {
        size_t k = (size_t)gi * 3;
#ifdef OM_HAVE_X86
        if (have_hw()) {
            crc_hw3(p + k * chunk, p + (k + 1) * chunk, p + (k + 2) * chunk, chunk, out + k);
            continue;
        }
#endif
        for (int j = 0; j < 3; j++) out[k + j] = om_crc32c(0, p + (k + j) * chunk, chunk);
    }
    for (size_t k = (size_t)groups * 3; k < nch; k++) {
        size_t len = k + 1 < nch || n % chunk == 0 ? chunk : n % chunk;
        out[k] = om_crc32c(0, p + k * chunk, len);
    }
}

/* ---- writer ---- */

void ob_free(om_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int ob_grow(om_buf *b, size_t n)
{
    if (b->oom) return 0;
    if (n > SIZE_MAX - b->len) { b->oom = 1; return 0; }
    if (b->len + n <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) { cap = b->len + n; break; }
        cap *= 2;
    }
    unsigned char *q = realloc(b->p, cap);
    if (!q) { b->oom = 1; return 0; }
    b->p = q;
    b->cap = cap;
    return 1;
}

void ob_bytes(om_buf *b, const void *p, size_t n)
{
    if (!n || !ob_grow(b, n)) return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void ob_zero(om_buf *b, size_t n)
{
    if (!n || !ob_grow(b, n)) return;
    memset(b->p + b->len, 0, n);
    b->len += n;
}

void ob_align(om_buf *b, size_t a)
{
    size_t r = b->len % a;
    if (r) ob_zero(b, a - r);
}

void ob_u8(om_buf *b, unsigned v) { unsigned char c = (unsigned char)v; ob_bytes(b, &c, 1); }
void ob_u32(om_buf *b, uint32_t v) { ob_bytes(b, &v, 4); }
void ob_i32(om_buf *b, int32_t v) { ob_bytes(b, &v, 4); }
void ob_u64(om_buf *b, uint64_t v) { ob_bytes(b, &v, 8); }
void ob_i64(om_buf *b, int64_t v) { ob_bytes(b, &v, 8); }
void ob_f32(om_buf *b, float v) { ob_bytes(b, &v, 4); }

void ob_str(om_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    ob_u32(b, (uint32_t)n);
    ob_bytes(b, s, n);
}

void ob_blob(om_buf *b, const void *p, size_t n)
{
    ob_u64(b, n);
    ob_bytes(b, p, n);
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static size_t up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Header fields (docs/om-format.md §2). */
enum {
    H_MAGIC = 0, H_MAJOR = 8, H_MINOR = 10, H_HSIZE = 12, H_FSIZE = 16, H_TABLE = 24, H_NSEC = 32,
    H_TCRC = 36, H_ABI = 40, H_PRODUCER = 88, H_FLAGS = 120, H_HCRC = 124
};
#define ABI_LEN 48
#define PRODUCER_LEN 32

/* Fills the chunk CRCs of the chunked sections into the SUMS section, then
 * the whole-section CRCs, the table CRC and the header CRC. */
static void seal(unsigned char *img, int n, unsigned char *table)
{
    unsigned char *sums = NULL;
    uint64_t sums_size = 0;
    for (int i = 0; i < n; i++)
        if (get32(table + i * OM_SECTION_ENTRY) == OM_SEC_SUMS) {
            sums = img + get64(table + i * OM_SECTION_ENTRY + 8);
            sums_size = get64(table + i * OM_SECTION_ENTRY + 16);
        }
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        unsigned char *e = table + i * OM_SECTION_ENTRY;
        if (!(get32(e + 4) & OM_SF_CHUNKED)) continue;
        uint64_t off = get64(e + 8), size = get64(e + 16);
        size_t chunk = (size_t)1 << OM_CHUNK_LOG2, nch = (size_t)((size + chunk - 1) / chunk);
        /* an empty section (a model without weights) has no chunk sums, but
         * its entry must still carry the chunk size the reader checks */
        put32(e + 24, 0);
        put32(e + 28, OM_CHUNK_LOG2);
        if (nch == 0) continue;
        if (!sums || (used + nch) * 4 > sums_size) break;
        uint32_t *tmp = malloc((nch ? nch : 1) * 4);
        if (!tmp) break;
        om_crc32c_chunks(img + off, (size_t)size, chunk, tmp, omp_get_max_threads());
        memcpy(sums + used * 4, tmp, nch * 4);
        free(tmp);
        used += nch;
        put32(e + 24, 0);
        put32(e + 28, OM_CHUNK_LOG2);
    }
    for (int i = 0; i < n; i++) {
        unsigned char *e = table + i * OM_SECTION_ENTRY;
        if (get32(e + 4) & OM_SF_CHUNKED) continue;
        put32(e + 24, om_crc32c(0, img + get64(e + 8), (size_t)get64(e + 16)));
        put32(e + 28, 0);
    }
    put32(img + H_TCRC, om_crc32c(0, table, (size_t)n * OM_SECTION_ENTRY));
    put32(img + H_HCRC, om_crc32c(0, img, H_HCRC));
}

int om_assemble(const om_wsection *s, int n, const char *kernel_abi, const char *producer, void **out,
                size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (n < 0 || n + 1 > OM_MAX_SECTIONS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "compiled model: %d sections (at most %d)", n,
                        OM_MAX_SECTIONS - 1);
    size_t chunk = (size_t)1 << OM_CHUNK_LOG2, nsums = 0;
    for (int i = 0; i < n; i++)
        if (s[i].flags & OM_SF_CHUNKED) nsums += (s[i].size + chunk - 1) / chunk;
    int total = n + (nsums ? 1 : 0);
    size_t table = OM_HEADER_SIZE, pos = up(table + (size_t)total * OM_SECTION_ENTRY, OM_ALIGN);
    size_t *offs = calloc((size_t)total + 1, sizeof *offs);
    if (!offs) return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
    for (int i = 0; i < total; i++) {
        size_t size = i < n ? s[i].size : nsums * 4;
        offs[i] = pos;
        if (size > SIZE_MAX - pos - OM_ALIGN) { free(offs); return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: too large"); }
        pos = up(pos + size, OM_ALIGN);
    }
    unsigned char *img = calloc(1, pos);
    if (!img) {
        free(offs);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: cannot allocate %zu bytes for the image", pos);
    }
    memcpy(img + H_MAGIC, OM_MAGIC, OM_MAGIC_LEN);
    uint16_t mj = OM_VERSION_MAJOR, mn = OM_VERSION_MINOR;
    memcpy(img + H_MAJOR, &mj, 2);
    memcpy(img + H_MINOR, &mn, 2);
    put32(img + H_HSIZE, OM_HEADER_SIZE);
    put64(img + H_FSIZE, pos);
    put64(img + H_TABLE, table);
    put32(img + H_NSEC, (uint32_t)total);
    snprintf((char *)img + H_ABI, ABI_LEN, "%s", kernel_abi ? kernel_abi : "");
    snprintf((char *)img + H_PRODUCER, PRODUCER_LEN, "%s", producer ? producer : "");
    for (int i = 0; i < total; i++) {
        unsigned char *e = img + table + (size_t)i * OM_SECTION_ENTRY;
        uint32_t id = i < n ? s[i].id : OM_SEC_SUMS;
        uint32_t fl = i < n ? s[i].flags : OM_SF_REQUIRED;
        size_t size = i < n ? s[i].size : nsums * 4;
        put32(e, id);
        put32(e + 4, fl);
        put64(e + 8, offs[i]);
        put64(e + 16, size);
        if (i < n && size) memcpy(img + offs[i], s[i].data, size);
    }
    seal(img, total, img + table);
    free(offs);
    *out = img;
    *out_len = pos;
    return 0;
}

int om_reseal(void *image, size_t len)
{
    unsigned char *img = image;
    if (len < OM_HEADER_SIZE || memcmp(img, OM_MAGIC, OM_MAGIC_LEN)) return -1;
    uint64_t table = get64(img + H_TABLE);
    uint32_t n = get32(img + H_NSEC);
    if (n == 0 || n > OM_MAX_SECTIONS || table > len || (uint64_t)n * OM_SECTION_ENTRY > len - table)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = img + table + (size_t)i * OM_SECTION_ENTRY;
        uint64_t off = get64(e + 8), size = get64(e + 16);
        if (off > len || size > len - off) return -1;
    }
    seal(img, (int)n, img + table);
    return 0;
}

/* ---- reader ---- */

void or_init(om_rd *r, const void *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->bad = 0;
}

static const unsigned char *take(om_rd *r, size_t n)
{
    if (r->bad || n > r->len - r->pos) { r->bad = 1; return NULL; }
    const unsigned char *q = r->p + r->pos;
    r->pos += n;
    return q;
}

unsigned or_u8(om_rd *r) { const unsigned char *q = take(r, 1); return q ? *q : 0; }
uint32_t or_u32(om_rd *r) { const unsigned char *q = take(r, 4); return q ? get32(q) : 0; }
int32_t or_i32(om_rd *r) { return (int32_t)or_u32(r); }
uint64_t or_u64(om_rd *r) { const unsigned char *q = take(r, 8); return q ? get64(q) : 0; }
int64_t or_i64(om_rd *r) { return (int64_t)or_u64(r); }

float or_f32(om_rd *r)
{
    const unsigned char *q = take(r, 4);
    float f = 0.f;
    if (q) memcpy(&f, q, 4);
    return f;
}

char *or_str(om_rd *r, size_t max)
{
    uint32_t n = or_u32(r);
    if (r->bad || n > max) { r->bad = 1; return NULL; }
    const unsigned char *q = take(r, n);
    if (!q || memchr(q, 0, n)) { r->bad = 1; return NULL; }
    char *s = malloc((size_t)n + 1);
    if (!s) { r->bad = 1; return NULL; }
    memcpy(s, q, n);
    s[n] = 0;
    return s;
}

const void *or_blob(om_rd *r, size_t *n)
{
    uint64_t len = or_u64(r);
    *n = 0;
    if (r->bad || len > r->len - r->pos) { r->bad = 1; return NULL; }
    *n = (size_t)len;
    return take(r, (size_t)len);
}

uint32_t or_count(om_rd *r, size_t min_elem_bytes, uint32_t max)
{
    uint32_t c = or_u32(r);
    if (r->bad) return 0;
    if (c > max || (min_elem_bytes && (uint64_t)c * min_elem_bytes > r->len - r->pos)) {
        r->bad = 1;
        return 0;
    }
    return c;
}

int om_is_image(const void *buf, size_t len)
{
    return buf && len >= OM_MAGIC_LEN && !memcmp(buf, OM_MAGIC, OM_MAGIC_LEN);
}

static int known_section(uint32_t id) { return id >= OM_SEC_INFO && id <= OM_SEC_EXEC; }

int om_open(const char *api, const char *src, const void *buf, size_t len, om_file *f)
{
    const unsigned char *p = buf;
    memset(f, 0, sizeof *f);
    if (!om_is_image(buf, len))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: %s is not an openacl compiled model (no \"OACLMDL\" magic)",
                        api, src);
    if (len < OM_HEADER_SIZE)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is truncated: %zu bytes, the header "
                        "alone is %d", api, src, len, OM_HEADER_SIZE);
    uint16_t mj, mn;
    memcpy(&mj, p + H_MAJOR, 2);
    memcpy(&mn, p + H_MINOR, 2);
    int hdr_ok = get32(p + H_HCRC) == om_crc32c(0, p, H_HCRC);
    if (mj > OM_VERSION_MAJOR)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s has format version %u.%u%s; this build "
                        "reads format %d.x: compile the model again with this build's atc (or load the ONNX "
                        "model)", api, src, mj, mn, hdr_ok ? " (written by a newer openacl)" :
                        " (or a damaged header)", OM_VERSION_MAJOR);
    if (!hdr_ok)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is damaged: header checksum mismatch "
                        "(stored %08x, computed %08x)", api, src, get32(p + H_HCRC), om_crc32c(0, p, H_HCRC));
    if (mj == 0)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s has format version 0.%u, which no "
                        "openacl release writes", api, src, mn);
    f->base = p;
    f->len = len;
    f->major = mj;
    f->minor = mn;
    memcpy(f->kernel_abi, p + H_ABI, ABI_LEN);
    f->kernel_abi[ABI_LEN] = 0;
    memcpy(f->producer, p + H_PRODUCER, PRODUCER_LEN);
    f->producer[PRODUCER_LEN] = 0;
    uint32_t hsize = get32(p + H_HSIZE);
    uint64_t fsize = get64(p + H_FSIZE), table = get64(p + H_TABLE);
    uint32_t n = get32(p + H_NSEC);
    if (fsize != len)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is %s: the image is %zu bytes, its "
                        "header says %llu", api, src, (uint64_t)len < fsize ? "truncated" : "longer than written",
                        len, (unsigned long long)fsize);
    if (hsize < OM_HEADER_SIZE || hsize > len)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: header size %u is invalid", api, src, hsize);
    if (n == 0 || n > OM_MAX_SECTIONS || table < hsize || table % 8 || table > len ||
        (uint64_t)n * OM_SECTION_ENTRY > len - table)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: section table (%u entries at offset "
                        "%llu) does not fit the %zu-byte image", api, src, n, (unsigned long long)table, len);
    const unsigned char *tb = p + table;
    uint32_t tcrc = om_crc32c(0, tb, (size_t)n * OM_SECTION_ENTRY);
    if (tcrc != get32(p + H_TCRC))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is damaged: section table checksum "
                        "mismatch (stored %08x, computed %08x)", api, src, get32(p + H_TCRC), tcrc);
    uint64_t table_end = table + (uint64_t)n * OM_SECTION_ENTRY;
    size_t nsums_needed = 0;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = tb + (size_t)i * OM_SECTION_ENTRY;
        om_section s = { get32(e), get32(e + 4), get64(e + 8), get64(e + 16), get32(e + 24), get32(e + 28) };
        if (s.off % OM_ALIGN || s.off < table_end || s.off > len || s.size > len - s.off)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: section %u (id %u) at offset %llu, "
                            "%llu bytes, lies outside the %zu-byte image or is misaligned", api, src, i, s.id,
                            (unsigned long long)s.off, (unsigned long long)s.size, len);
        if (!known_section(s.id)) {
            if (s.flags & OM_SF_REQUIRED)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s (format %u.%u) needs section id %u, "
                                "which this build does not know: it was written by a newer openacl", api, src,
                                mj, mn, s.id);
            continue;
        }
        for (int k = 0; k < f->n_sec; k++) {
            const om_section *o = &f->sec[k];
            if (o->id == s.id)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: section id %u appears twice", api,
                                src, s.id);
            if (s.off < o->off + o->size && o->off < s.off + s.size)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: sections %u and %u overlap", api,
                                src, o->id, s.id);
        }
        if (s.flags & OM_SF_CHUNKED) {
            if (s.chunk_log2 != OM_CHUNK_LOG2)
                return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: section %u has chunk size 2^%u, "
                                "expected 2^%d", api, src, s.id, s.chunk_log2, OM_CHUNK_LOG2);
            nsums_needed += (size_t)((s.size + ((uint64_t)1 << OM_CHUNK_LOG2) - 1) >> OM_CHUNK_LOG2);
        }
        f->sec[f->n_sec++] = s;
    }
    for (int k = 0; k < f->n_sec; k++) {
        const om_section *s = &f->sec[k];
        if (s->flags & OM_SF_CHUNKED) continue;
        uint32_t c = om_crc32c(0, p + s->off, (size_t)s->size);
        if (c != s->crc)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is damaged: section %u checksum "
                            "mismatch (stored %08x, computed %08x)", api, src, s->id, s->crc, c);
    }
    const om_section *sums = om_find(f, OM_SEC_SUMS);
    if (nsums_needed) {
        if (!sums || sums->size != nsums_needed * 4)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: the chunk checksum section holds "
                            "%llu bytes, %zu expected", api, src, sums ? (unsigned long long)sums->size : 0ULL,
                            nsums_needed * 4);
        f->sums = (const uint32_t *)(p + sums->off);   /* 64-byte aligned offset: aligned loads */
        f->n_sums = nsums_needed;
    }
    return 0;
}

const om_section *om_find(const om_file *f, uint32_t id)
{
    for (int i = 0; i < f->n_sec; i++)
        if (f->sec[i].id == id) return &f->sec[i];
    return NULL;
}

int om_verify_chunked(const char *api, const char *src, const om_file *f, const om_section *s, int threads)
{
    if (!(s->flags & OM_SF_CHUNKED)) return 0;
    size_t first = 0;
    for (int i = 0; i < f->n_sec && &f->sec[i] != s; i++)
        if (f->sec[i].flags & OM_SF_CHUNKED)
            first += (size_t)((f->sec[i].size + ((uint64_t)1 << OM_CHUNK_LOG2) - 1) >> OM_CHUNK_LOG2);
    size_t chunk = (size_t)1 << OM_CHUNK_LOG2, nch = (size_t)((s->size + chunk - 1) / chunk);
    if (first + nch > f->n_sums)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s: no checksums for section %u", api, src,
                        s->id);
    uint32_t *got = malloc((nch ? nch : 1) * sizeof *got);
    if (!got) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory checking %s", api, src);
    om_crc32c_chunks(f->base + s->off, (size_t)s->size, chunk, got, threads);
    int rc = 0;
    for (size_t k = 0; k < nch; k++) {
        if (got[k] != f->sums[first + k]) {
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is damaged: section %u bytes %zu..%zu "
                          "fail their checksum (stored %08x, computed %08x)", api, src, s->id, k * chunk,
                          k * chunk + (k + 1 < nch ? chunk : (size_t)s->size - k * chunk) - 1,
                          f->sums[first + k], got[k]);
            break;
        }
    }
    free(got);
    return rc;
}
