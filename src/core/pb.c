/* The protobuf wire-format walker (see pb.h). */
#include "core/pb.h"

int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int sh = 0; sh < 64 && *p < end; sh += 7) {
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) { *v = x; return 0; }
    }
    return -1;
}

int pb_read_field(const uint8_t **p, const uint8_t *end, uint64_t *key, pb_span *payload)
{
    uint64_t v;
    if (pb_read_varint(p, end, key)) return -1;
    switch (*key & 7) {
    case 0: return pb_read_varint(p, end, &v);
    case 1: if (end - *p < 8) return -1; *p += 8; return 0;
    case 5: if (end - *p < 4) return -1; *p += 4; return 0;
    case 2:
        if (pb_read_varint(p, end, &v) || v > (uint64_t)(end - *p)) return -1;
        *payload = (pb_span){ *p, (size_t)v };
        *p += v;
        return 0;
    default: return -1;
    }
}
