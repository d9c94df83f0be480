/* Model formats: the one table of importers, each {probe, load}, and format
 * detection by content. Applications hard-code "*.om" paths, so the file name
 * says nothing: an image is an openacl compiled model when it starts with
 * that format's magic ("OACLMDL\0", src/om), an ONNX ModelProto when its top
 * level parses as protobuf fields of ModelProto (core/pb.h) and contains a
 * graph. A Huawei CANN .om is recognised and refused by name; everything else
 * is refused here, once, with a message that says what it looks like. A new
 * model format is one more entry in g_importers: {probe, load, describe}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"
#include "om/om.h"
#include "core/pb.h"


/* Huawei ATC .om files start with a 256-byte header whose first field is the
 * little-endian magic 0x444F4D49 ("IMOD"). */
static const unsigned char CANN_OM_MAGIC[4] = {'I', 'M', 'O', 'D'};

/* Wire type expected for each ModelProto field number (-1: not a field). */
static int onnx_field_wire(uint64_t field)
{
    switch (field) {
    case 1: return 0;   /* ir_version */
    case 2: return 2;   /* producer_name */
    case 3: return 2;   /* producer_version */
    case 4: return 2;   /* domain */
    case 5: return 0;   /* model_version */
    case 6: return 2;   /* doc_string */
    case 7: return 2;   /* graph */
    case 8: return 2;   /* opset_import */
    case 14: return 2;  /* metadata_props */
    case 20: return 2;  /* training_info */
    case 25: return 2;  /* functions */
    default: return -1;
    }
}

enum { WALK_OK, WALK_GARBAGE, WALK_TRUNCATED };

/* Walks the top-level fields. Unknown field numbers (newer ONNX versions)
 * are tolerated when well-formed; known ones must have their wire type. */
static int walk_onnx(const unsigned char *p, size_t len, int *known, int *has_graph, size_t *bad_at)
{
    const uint8_t *q = p, *end = p + len;
    *known = 0;
    *has_graph = 0;
    while (q < end) {
        uint64_t tag, v;
        *bad_at = (size_t)(q - p);
        if (pb_read_varint(&q, end, &tag))
            return q >= end && *known ? WALK_TRUNCATED : WALK_GARBAGE;
        uint64_t field = tag >> 3;
        int wt = (int)(tag & 7);
        int want = onnx_field_wire(field);
        if (field == 0 || field > 1000 || (want >= 0 && want != wt))
            return WALK_GARBAGE;
        if (want < 0 && *known == 0)
            return WALK_GARBAGE;  /* must start like a ModelProto */
        if (wt != 0 && wt != 1 && wt != 2 && wt != 5)
            return WALK_GARBAGE;
        pb_span payload;
        q = p + *bad_at;   /* the field again, key included, through the shared walker */
        if (pb_read_field(&q, end, &v, &payload))
            /* the field's body runs past the end: cut short, unless nothing
             * so far said ModelProto and the length itself is garbage */
            return wt == 2 && !*known ? WALK_GARBAGE : WALK_TRUNCATED;
        if (want >= 0)
            (*known)++;
        if (field == 7)
            *has_graph = 1;
    }
    return WALK_OK;
}

/* ---- probes: 1 this format, 0 not, or an aclError (message left) for an
 * image of this format that cannot be loaded ---- */


static int probe_compiled(const char *api, const char *src, const unsigned char *p, size_t len,
                          size_t *bad_at)
{
    (void)api; (void)src; (void)bad_at;
    return om_is_image(p, len);   /* the reader checks the rest */
}

static int probe_cann(const char *api, const char *src, const unsigned char *p, size_t len, size_t *bad_at)
{
    (void)bad_at;
    if (len < sizeof(CANN_OM_MAGIC) || memcmp(p, CANN_OM_MAGIC, sizeof(CANN_OM_MAGIC)) != 0) return 0;
    return acl_fail(ACL_ERROR_PARSE_MODEL,
                    "%s: unrecognised model format in %s: this is a Huawei CANN .om (ATC output for an "
                    "Ascend NPU, magic \"IMOD\"), which holds device binaries openacl cannot run; load the "
                    "original ONNX model instead (openacl accepts it under any file name, e.g. model.om)",
                    api, src);
}

static int probe_onnx(const char *api, const char *src, const unsigned char *p, size_t len, size_t *bad_at)
{
    if (len > MDL_MAX_ONNX_BYTES)
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE,
                        "%s: model %s is %zu bytes, over the 2 GiB limit of an ONNX protobuf (keep large "
                        "weights in external data files)", api, src, len);
    int known, has_graph;
    int w = walk_onnx(p, len, &known, &has_graph, bad_at);
    if (w == WALK_OK && has_graph) return 1;
    if (w == WALK_TRUNCATED)
        return acl_fail(ACL_ERROR_PARSE_MODEL,
                        "%s: ONNX model %s is truncated: the field at byte %zu runs past the end of the "
                        "%zu-byte image", api, src, *bad_at, len);
    if (w == WALK_OK)
        return acl_fail(ACL_ERROR_PARSE_MODEL,
                        "%s: %s is a protobuf message without a graph: not an ONNX ModelProto", api, src);
    return 0;
}

/* ---- loads ---- */

/* The ONNX loader is done with these bytes of the file mapping: their pages
 * leave the resident set (the mapping is private and never written, so a
 * later read would fetch them from the file again). */
static void drop_mapped_pages(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    oa_pages_release(p, n);
}

/* A file mapping handed over to a compiled model that uses it in place. */
static void release_mapping(void *ctx)
{
    mdl_file *f = ctx;
    mdl_file_close(f);
    free(f);
}

static int load_compiled(const char *api, const char *src, const void *buf, size_t len, eng_opts *o,
                         mdl_file *own, eng_model **out)
{
    mdl_file *keep = NULL;
    if (own && own->data) {
        keep = malloc(sizeof *keep);
        if (!keep)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        *keep = *own;
        o->release = release_mapping;
        o->release_ctx = keep;
    }
    int rc = eng_load_compiled(api, src, buf, len, o, out);
    if (rc) {
        free(keep);   /* the caller still owns the mapping */
        *out = NULL;
        return rc;
    }
    if (keep)
        memset(own, 0, sizeof *own);   /* the engine unmaps it */
    return ACL_SUCCESS;
}

static int load_onnx(const char *api, const char *src, const void *buf, size_t len, eng_opts *o,
                     mdl_file *own, eng_model **out)
{
    if (own && own->data && buf == own->data) {
        o->drop = drop_mapped_pages;
        o->drop_ctx = own;
    }
    int rc = eng_load(buf, len, o, out);
    if (rc) {
        *out = NULL;
        return acl_fail(rc, "%s: loading ONNX model %s failed (%s)", api, src, acl_err_name(rc));
    }
    /* the ONNX loader copied what it needs: the file's pages leave the
     * resident set before the weights are packed (lower load peak) */
    if (own)
        mdl_file_close(own);
    return ACL_SUCCESS;
}

/* A description needs the inputs and outputs only: no optimisation, no plan. */
static int describe_onnx(const char *api, const char *src, const void *buf, size_t len, eng_opts *o,
                         mdl_file *own, eng_model **out)
{
    (void)own;
    int rc = eng_describe(buf, len, o, out);
    if (rc) {
        *out = NULL;
        return acl_fail(rc, "%s: reading ONNX model %s failed (%s)", api, src, acl_err_name(rc));
    }
    return ACL_SUCCESS;
}

/* ---- the table ---- */

typedef struct mdl_importer {
    int fmt;              /* enum mdl_format; MDL_FMT_UNKNOWN: recognised only to be refused */
    /* *bad_at: where the content stopped looking like this format */
    int (*probe)(const char *api, const char *src, const unsigned char *p, size_t len, size_t *bad_at);
    /* own (may be NULL): the file mapping buf lies in, which the loader may
     * take over (then cleared) or close */
    int (*load)(const char *api, const char *src, const void *buf, size_t len, eng_opts *o,
                mdl_file *own, eng_model **out);
    /* the same for a description (inputs, outputs, gears): may skip what
     * only running needs */
    int (*describe)(const char *api, const char *src, const void *buf, size_t len, eng_opts *o,
                    mdl_file *own, eng_model **out);
} mdl_importer;

/* In probing order: magics first, the protobuf walk last. */
static const mdl_importer g_importers[] = {
    { MDL_FMT_OACL, probe_compiled, load_compiled, load_compiled },
    { MDL_FMT_UNKNOWN, probe_cann, NULL, NULL },
    { MDL_FMT_ONNX, probe_onnx, load_onnx, describe_onnx },
};
#define N_IMPORTERS ((int)(sizeof g_importers / sizeof g_importers[0]))

static const mdl_importer *find_importer(const char *api, const char *src, const void *buf, size_t len,
                                         int *rc)
{
    const unsigned char *p = buf;
    *rc = ACL_SUCCESS;
    if (!buf || len == 0) {
        *rc = acl_fail(ACL_ERROR_INVALID_FILE_SIZE, "%s: model %s is empty", api, src);
        return NULL;
    }
    size_t bad_at = 0;
    for (int i = 0; i < N_IMPORTERS; i++) {
        int r = g_importers[i].probe(api, src, p, len, &bad_at);
        if (r == 1) return &g_importers[i];
        if (r) { *rc = r; return NULL; }
    }
    char head[3 * 8 + 1] = {0};
    for (size_t i = 0; i < len && i < 8; i++)
        snprintf(head + 3 * i, 4, "%02x ", p[i]);
    *rc = acl_fail(ACL_ERROR_PARSE_MODEL,
                   "%s: unrecognised model format in %s (%zu bytes, starts with %s): openacl loads ONNX "
                   "models and openacl compiled models; the content is neither (garbage at byte %zu)",
                   api, src, len, head, bad_at);
    return NULL;
}

static int engine_open(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                       int device, mdl_file *own, int describe, eng_model **out)
{
    int rc;
    const mdl_importer *im = find_importer(api, src, buf, len, &rc);
    if (!im)
        return rc;
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.threads = rt_device_threads(device);
    o.base_dir = base_dir;
    return (describe ? im->describe : im->load)(api, src, buf, len, &o, own, out);
}

int mdl_engine_open(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                    int device, mdl_file *own, eng_model **out)
{
    return engine_open(api, src, buf, len, base_dir, device, own, 0, out);
}

int mdl_engine_describe(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                        eng_model **out)
{
    return engine_open(api, src, buf, len, base_dir, 0, NULL, 1, out);
}
