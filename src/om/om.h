/* The compiled-model container (docs/om-format.md): a little-endian file of
 * a fixed header, a section table and 64-byte aligned sections, every byte
 * covered by CRC32C. This layer knows bytes, sections and checksums only;
 * what the sections mean is om/program.h's (om_write.c, om_read.c, om_dump.c). */
#ifndef OPENACL_OM_H
#define OPENACL_OM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OM_MAGIC_LEN 8
extern const unsigned char OM_MAGIC[OM_MAGIC_LEN];   /* "OACLMDL\0" */
#define OM_VERSION_MAJOR 1
#define OM_VERSION_MINOR 1                   /* 1.1: the optional EXEC section */
#define OM_HEADER_SIZE 128
#define OM_SECTION_ENTRY 32
#define OM_MAX_SECTIONS 64
#define OM_ALIGN 64
#define OM_CHUNK_LOG2 20                     /* chunked checksums: 1 MiB */

/* Section ids. */
enum {
    OM_SEC_INFO = 1,      /* model-level facts: I/O, gears, compile options */
    OM_SEC_PROGRAMS = 2,  /* one execution plan per gear (or one) */
    OM_SEC_BLOBS = 3,     /* the blob table: where each weight blob lies */
    OM_SEC_WEIGHTS = 4,   /* run-time weights (constants + packed), chunk-checked */
    OM_SEC_PLAIN = 5,     /* plain copies of packed-only weights, for re-packing */
    OM_SEC_SUMS = 6,      /* chunk CRCs of the chunked sections, in table order */
    OM_SEC_EXEC = 7,      /* (1.1, optional) compute precision, per-node planned thread counts */
};
/* Section flags. */
#define OM_SF_REQUIRED 1u     /* a reader that does not know the id must refuse the file */
#define OM_SF_CHUNKED 2u      /* checked per 1 MiB chunk (CRCs in OM_SEC_SUMS) */

uint32_t om_crc32c(uint32_t crc, const void *p, size_t n);   /* crc: 0 to start */
/* Portable reference (table driven); tests compare the fast path with it. */
uint32_t om_crc32c_sw(uint32_t crc, const void *p, size_t n);
/* CRC32C of each `chunk`-byte piece of p (the last may be shorter), on up to
 * `threads` threads; out has ceil(n / chunk) entries. */
void om_crc32c_chunks(const void *p, size_t n, size_t chunk, uint32_t *out, int threads);

/* ---- writing ---- */
typedef struct om_buf {
    unsigned char *p;
    size_t len, cap;
    int oom;              /* sticky: an append failed */
} om_buf;
void ob_free(om_buf *b);
void ob_bytes(om_buf *b, const void *p, size_t n);
void ob_zero(om_buf *b, size_t n);
void ob_align(om_buf *b, size_t a);
void ob_u8(om_buf *b, unsigned v);
void ob_u32(om_buf *b, uint32_t v);
void ob_i32(om_buf *b, int32_t v);
void ob_u64(om_buf *b, uint64_t v);
void ob_i64(om_buf *b, int64_t v);
void ob_f32(om_buf *b, float v);
void ob_str(om_buf *b, const char *s);          /* u32 length, bytes (no NUL) */
void ob_blob(om_buf *b, const void *p, size_t n);  /* u64 length, bytes */

typedef struct om_wsection {
    uint32_t id, flags;
    const void *data;     /* not owned */
    size_t size;
} om_wsection;

/* Assembles header, table and sections (in the given order) into one
 * malloc'd image (*out, *out_len), computing every checksum. kernel_abi
 * names the build, oneDNN version and CPU ISA packed weights are valid for. */
int om_assemble(const om_wsection *s, int n, const char *kernel_abi, const char *producer,
                void **out, size_t *out_len);

/* Recomputes every checksum of an image in place (tests: damage a field,
 * reseal, and make sure the reader's own checks catch it). Returns 0, or -1
 * when the header or table is too broken to find the checksums. */
int om_reseal(void *image, size_t len);

/* ---- reading ---- */
typedef struct om_rd {
    const unsigned char *p;
    size_t len, pos;
    int bad;              /* sticky: a read ran past the end or a check failed */
} om_rd;
void or_init(om_rd *r, const void *p, size_t len);
unsigned or_u8(om_rd *r);
uint32_t or_u32(om_rd *r);
int32_t or_i32(om_rd *r);
uint64_t or_u64(om_rd *r);
int64_t or_i64(om_rd *r);
float or_f32(om_rd *r);
/* A length-prefixed string as a malloc'd NUL-terminated copy (NULL on a bad
 * read, embedded NUL or length over max). */
char *or_str(om_rd *r, size_t max);
/* A u64-length byte run: returns a pointer into the image and its length. */
const void *or_blob(om_rd *r, size_t *n);
/* A u32 element count, refused (bad) when count * min_elem_bytes exceeds
 * what is left or count > max: never a huge allocation from a damaged count. */
uint32_t or_count(om_rd *r, size_t min_elem_bytes, uint32_t max);

typedef struct om_section {
    uint32_t id, flags;
    uint64_t off, size;
    uint32_t crc, chunk_log2;
} om_section;

typedef struct om_file {
    const unsigned char *base;
    size_t len;
    unsigned major, minor;
    char kernel_abi[49];
    char producer[33];
    int n_sec;
    om_section sec[OM_MAX_SECTIONS];
    const uint32_t *sums;     /* chunk CRCs (OM_SEC_SUMS, little-endian u32) */
    size_t n_sums;
} om_file;

/* Whether buf starts with the container's magic. */
int om_is_image(const void *buf, size_t len);

/* Checks the header, the section table and the checksums of every
 * non-chunked section; refuses (acl_fail naming `api` and `src`) a damaged,
 * truncated or newer-major file. */
int om_open(const char *api, const char *src, const void *buf, size_t len, om_file *f);
/* The section with id, or NULL. */
const om_section *om_find(const om_file *f, uint32_t id);
/* Verifies a chunked section against its CRCs on up to `threads` threads. */
int om_verify_chunked(const char *api, const char *src, const om_file *f, const om_section *s,
                      int threads);

#ifdef __cplusplus
}
#endif
#endif
