/* Model format detection by content. Applications hard-code "*.om" paths,
 * so the file name says nothing: an image is an ONNX ModelProto when its top
 * level parses as protobuf fields of ModelProto and contains a graph, an
 * openacl compiled model when it starts with that format's magic ("OACLMDL\0",
 * src/om). Everything
 * else is refused here, once, with a message that says what it looks like. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "mdl/mdl_internal.h"
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

int mdl_format_detect(const char *api, const char *src, const void *buf, size_t len, int *fmt)
{
    const unsigned char *p = buf;
    *fmt = MDL_FMT_UNKNOWN;
    if (!buf || len == 0)
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE, "%s: model %s is empty", api, src);
    /* openacl's compiled models (tools/atc; docs/om-format.md): the reader
     * checks the rest */
    if (om_is_image(p, len)) {
        *fmt = MDL_FMT_OACL;
        return ACL_SUCCESS;
    }
    if (len >= sizeof(CANN_OM_MAGIC) && memcmp(p, CANN_OM_MAGIC, sizeof(CANN_OM_MAGIC)) == 0)
        return acl_fail(ACL_ERROR_PARSE_MODEL,
                        "%s: unrecognised model format in %s: this is a Huawei CANN .om (ATC output for an "
                        "Ascend NPU, magic \"IMOD\"), which holds device binaries openacl cannot run; load the "
                        "original ONNX model instead (openacl accepts it under any file name, e.g. model.om)",
                        api, src);
    if (len > MDL_MAX_ONNX_BYTES)
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE,
                        "%s: model %s is %zu bytes, over the 2 GiB limit of an ONNX protobuf (keep large "
                        "weights in external data files)", api, src, len);
    int known, has_graph;
    size_t bad_at = 0;
    int w = walk_onnx(p, len, &known, &has_graph, &bad_at);
    if (w == WALK_OK && has_graph) {
        *fmt = MDL_FMT_ONNX;
        return ACL_SUCCESS;
    }
    if (w == WALK_TRUNCATED)
        return acl_fail(ACL_ERROR_PARSE_MODEL,
                        "%s: ONNX model %s is truncated: the field at byte %zu runs past the end of the "
                        "%zu-byte image", api, src, bad_at, len);
    if (w == WALK_OK)
        return acl_fail(ACL_ERROR_PARSE_MODEL,
                        "%s: %s is a protobuf message without a graph: not an ONNX ModelProto", api, src);
    char head[3 * 8 + 1] = {0};
    for (size_t i = 0; i < len && i < 8; i++)
        snprintf(head + 3 * i, 4, "%02x ", p[i]);
    return acl_fail(ACL_ERROR_PARSE_MODEL,
                    "%s: unrecognised model format in %s (%zu bytes, starts with %s): openacl loads ONNX "
                    "models and openacl compiled models; the content is neither (garbage at byte %zu)",
                    api, src, len, head, bad_at);
}
