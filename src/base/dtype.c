/* Element sizes of aclDataType (CANN's table) and the float16 conversions
 * with CANN's documented handling of non-finite values. */
#include <math.h>
#include <string.h>

#include "acl/acl_base.h"
#include "core/core.h"

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_DT_UNDEFINED:
    case ACL_STRING: return 0;
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_INT4:      /* CANN reports 1 for the sub-byte types */
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 8; /* CANN's default branch (also FLOAT6/FLOAT4 types) */
    }
}

/* Half → float. Exponent 31 is decoded like any other exponent, which is
 * what CANN does: +Inf → 65536, -Inf → -65536, the canonical NaN 0x7E00 →
 * 98304. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = (uint32_t)(value >> 15) & 1u;
    uint32_t exp = (uint32_t)(value >> 10) & 0x1Fu;
    uint32_t man = (uint32_t)value & 0x3FFu;
    float r;
    if (exp == 0)
        r = ldexpf((float)man, -24);                 /* zero and subnormals */
    else
        r = ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -r : r;
}

/* Float → half, round to nearest even, saturating at ±65504. NaN and +Inf
 * give 0x7BFF, -Inf 0xFBFF. */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t x;
    memcpy(&x, &value, sizeof(x));
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return 0x7BFF;                /* NaN */
    if (ax == 0x7F800000u) return (uint16_t)(sign | 0x7BFF);
    /* 65520 and above round to infinity in IEEE; saturate instead */
    if (ax >= 0x477FF000u) return (uint16_t)(sign | 0x7BFF);
    if (ax < 0x33000001u) {
        /* below half of the smallest subnormal (2^-25): rounds to zero */
        return sign;
    }
    int32_t e = (int32_t)(ax >> 23) - 127;
    uint32_t m = (ax & 0x7FFFFFu) | 0x800000u;   /* 24-bit significand */
    uint32_t h;
    if (e < -14) {
        /* subnormal half: value = m * 2^(e-23); unit 2^-24 */
        int shift = -e - 1;                  /* 14..24 */
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) q++;
        h = q;                               /* may carry into the normal range: fine */
    } else {
        uint32_t q = m >> 13;                /* 11 bits incl. hidden */
        uint32_t rem = m & 0x1FFFu;
        if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++;
        uint32_t he = (uint32_t)(e + 15);
        if (q == 0x800u) { q = 0x400u; he++; }
        h = (he << 10) | (q & 0x3FFu);
        if (h >= 0x7C00u) h = 0x7BFF;
    }
    return (uint16_t)(sign | h);
}
