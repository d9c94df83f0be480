/* libacl_dvpp internals: the objects behind the opaque handles of
 * acl/ops/acl_dvpp.h, the pixel-format table, picture checks shared by
 * every operation, and the queued-task plumbing. The library reaches the
 * runtime only through rt/rt_ext.h (messages, streams, memory kinds). */
#ifndef OPENACL_DVPP_PRIV_H
#define OPENACL_DVPP_PRIV_H

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/ops/acl_dvpp.h"
#include "rt/rt_ext.h"

/* Every object starts with a magic so that a handle of the wrong kind (or a
 * destroyed one, whose magic is cleared) is refused instead of misread. */
enum {
    DV_MAGIC_PIC = 0x44504943,     /* "DPIC" */
    DV_MAGIC_BATCH = 0x44424154,   /* "DBAT" */
    DV_MAGIC_ROI = 0x44524f49,     /* "DROI" */
    DV_MAGIC_RESIZE = 0x4452535a,  /* "DRSZ" */
    DV_MAGIC_JPEGE = 0x444a5045,   /* "DJPE" */
    DV_MAGIC_CHAN = 0x4443484e,    /* "DCHN" */
    DV_MAGIC_BORDER = 0x44424f52,  /* "DBOR" */
    DV_MAGIC_LUT = 0x444c5554,     /* "DLUT" */
    DV_MAGIC_HIST = 0x44484953,    /* "DHIS" */
    DV_MAGIC_STREAM = 0x44535444,  /* "DSTD" */
    DV_MAGIC_VDEC = 0x56444543,    /* "VDEC" */
    DV_MAGIC_VENC = 0x56454e43,    /* "VENC" */
    DV_MAGIC_VDECFC = 0x56444643,  /* "VDFC" */
    DV_MAGIC_VENCFC = 0x56454643   /* "VEFC" */
};

struct acldvppPicDesc {
    uint32_t magic;
    int in_batch; /* owned by an acldvppBatchPicDesc: not destroyed alone */
    void *data;
    uint32_t size;
    acldvppPixelFormat format;
    uint32_t width, height, width_stride, height_stride;
    uint32_t ret_code;
};

struct acldvppBatchPicDesc {
    uint32_t magic;
    uint32_t count;
    acldvppPicDesc pics[];
};

struct acldvppRoiConfig {
    uint32_t magic;
    uint32_t left, right, top, bottom;
};

struct acldvppResizeConfig {
    uint32_t magic;
    uint32_t interpolation;
};

struct acldvppJpegeConfig {
    uint32_t magic;
    uint32_t level;
};

struct acldvppChannelDesc {
    uint32_t magic;
    int created;       /* acldvppCreateChannel succeeded and no destroy since */
    uint64_t id;       /* from a process-wide counter, 0 before creation */
    uint32_t mode;     /* OR of acldvppChannelMode; 0 = every mode */
    uint32_t csc;      /* acldvppCscMatrix used for YUV<->RGB */
    uint32_t precision; /* acldvppJpegdPrecisionMode */
    uint32_t width, height; /* ACL_DVPP_CHANNEL_WIDTH/HEIGHT (kept, not used) */
};

struct acldvppBorderConfig {
    uint32_t magic;
    acldvppBorderType type;
    uint32_t top, bottom, left, right;
    double value[4];
};

#define DV_LUT_DIMS 3
#define DV_LUT_LEN 256
struct acldvppLutMap {
    uint32_t magic;
    uint8_t data[DV_LUT_DIMS][DV_LUT_LEN];
};

#define DV_HIST_DIMS 3
#define DV_HIST_LEN 256
struct acldvppHist {
    uint32_t magic;
    uint32_t ret_code;
    uint32_t data[DV_HIST_DIMS][DV_HIST_LEN];
};

struct acldvppStreamDesc {
    uint32_t magic;
    void *data;
    uint32_t size;
    acldvppStreamFormat format;
    uint64_t timestamp;
    uint32_t ret_code;
    uint8_t eos;
};

/* ---- pixel formats ---- */
typedef enum {
    DV_K_Y400,     /* luma only */
    DV_K_SP,       /* luma plane + interleaved chroma plane */
    DV_K_PACK422,  /* YUYV-like, 2 bytes a pixel */
    DV_K_PACK444,  /* Y U V, 3 bytes a pixel */
    DV_K_RGB       /* 3 or 4 bytes a pixel, channel offsets below */
} dv_kind;

typedef struct {
    acldvppPixelFormat fmt;
    const char *name;
    dv_kind kind;
    uint8_t bpp;       /* bytes a pixel in the first plane */
    uint8_t sx, sy;    /* chroma subsampling shifts (SP and packed 4:2:2) */
    uint8_t vu;        /* SP: V before U; PACK422: byte offsets below */
    int8_t off[4];     /* RGB: byte offsets of R, G, B, A (-1: none); PACK422: Y0, U, Y1, V */
    uint8_t size_num, size_den; /* buffer = widthStride * heightStride * num / den */
} dv_fmt;

/* The entry of fmt, or NULL for a format this library cannot hold. */
const dv_fmt *dv_fmt_get(acldvppPixelFormat fmt);
/* "PIXEL_FORMAT_YUV_SEMIPLANAR_420 (1)"-style name for messages (static storage per thread). */
const char *dv_fmt_name(acldvppPixelFormat fmt);

static inline uint32_t dv_align(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* Row stride of a semi-planar picture's chroma plane: a chroma row holds
 * (width >> sx) U/V pairs, so without horizontal subsampling (4:4:4, 4:4:0)
 * it is twice the luma stride (the buffer is widthStride * heightStride *
 * (1 + 2 / 2^(sx+sy))). */
static inline uint32_t dv_cstride(const dv_fmt *f, uint32_t ws) { return f->sx ? ws : 2 * ws; }

/* A picture as an operation sees it, snapshotted when the operation is
 * queued. */
typedef struct {
    uint8_t *data;
    uint32_t size;
    const dv_fmt *f;
    uint32_t w, h, ws, hs;
} dv_pic;

/* What a picture is checked for. */
typedef struct {
    const char *api;
    const char *role;            /* "inputDesc", "outputDesc", "srcBatchPicDescs[3]"... */
    const acldvppPixelFormat *formats; /* allowed, ends with PIXEL_FORMAT_UNKNOWN */
    uint32_t min_w, min_h, max_w, max_h;
    uint32_t max_w_8k, max_h_8k; /* larger limits for NV12/NV21 (0: none) */
} dv_pic_rule;

/* Checks desc against rule: object, buffer from acldvppMalloc holding size
 * bytes, allowed format, sizes, strides and size. On success fills *out.
 * Leaves a message naming rule->api and rule->role on failure. */
int dv_pic_check(const dv_pic_rule *rule, const acldvppPicDesc *desc, dv_pic *out);

/* The buffer [p, p+len) must lie in one acldvppMalloc allocation. */
int dv_check_media_mem(const char *api, const char *what, const void *p, size_t len);

/* Handle checks (message names api and what). */
int dv_check_channel(const char *api, const acldvppChannelDesc *ch, uint32_t need_mode);
int dv_check_roi(const char *api, const char *what, const acldvppRoiConfig *roi);

/* Queues fn(arg) on stream (see openacl_ext_stream_enqueue); on failure
 * calls release(arg) itself, so the caller never frees after this. */
int dv_enqueue(const char *api, aclrtStream stream, int (*fn)(void *), void (*release)(void *), void *arg);

/* ---- VPC core (dvpp_vpc_core.c) ---- */
typedef struct {
    uint32_t x, y, w, h;
} dv_rect;

/* A border to fill around a rectangle (acldvppBorderConfig, snapshotted). */
typedef struct {
    int on;
    acldvppBorderType type;
    uint32_t top, bottom, left, right;
    uint8_t value[4]; /* YUV: Y, U, V; packed RGB: per byte of a pixel, in memory order */
} dv_border;

typedef struct {
    dv_pic in, out;
    dv_rect crop, dst;  /* source region; where it goes in the output */
    dv_border border;   /* when on: dst is the inner rectangle, the rest of the output is border */
    int interp;         /* resize config interpolation 0..4 */
    uint32_t csc;       /* acldvppCscMatrix for YUV<->RGB */
    acldvppPicDesc *out_desc; /* gets retCode (and sizes for convert) */
    int fill_out_desc;  /* write w/h/strides back (ConvertColor) */
    int pyr_down;       /* a pyramid step instead of the crop/scale */
} dv_vpc_job;

/* Runs one job on the calling thread; returns an aclError (message left). */
int dv_vpc_run(const char *api, const dv_vpc_job *job);
/* Bilinear scaling (OpenCV INTER_LINEAR geometry and rounding) of an 8-bit
 * plane of cn (1, 2 or 4) interleaved channels; -1 when out of memory. */
int dv_scale_bilinear(const uint8_t *src, int ss, int sw, int sh, uint8_t *dst, int ds, int dw, int dh, int cn);

/* Fills the output outside j->dst from the pixels inside it (or constants),
 * as OpenCV's copyMakeBorder does, plane by plane (semi-planar chroma at
 * its own resolution with halved borders). */
void dv_border_fill(const dv_vpc_job *j);

/* Gaussian pyramid step of a YUV400 picture: 5x5 binomial filter (1 4 6 4
 * 1)^2 / 256 centred on every second pixel, borders reflected without
 * repeating the edge (OpenCV's pyrDown). */
void dv_pyr_down(const dv_pic *in, const dv_pic *out);

/* Counts created channel ids. */
uint64_t dv_next_channel_id(void);

#define DV_FAIL(code, ...) openacl_ext_fail((code), __VA_ARGS__)

/* A checked cast for the media objects' calls: NULL or an object of
 * another kind leaves a message and yields NULL. */
#define DV_OBJ(api, type, magicv, p, what)                                                                     \
    ((p) && (p)->magic == (magicv)                                                                            \
         ? (type *)(p)                                                                                         \
         : ((p) ? (void)DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live " #type, api, what,         \
                                (const void *)(p))                                                                \
                : (void)DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, what),                         \
            (type *)NULL))

static inline void *dv_calloc(const char *api, size_t n)
{
    void *p = calloc(1, n);
    if (!p) DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory (%zu bytes)", api, n);
    return p;
}

/* Declared-but-unsupported calls: scripts/api_coverage.py lists a function
 * whose body says OA_UNSUPPORTED(name) as unsupported. */
#define OA_UNSUPPORTED(name) \
    openacl_ext_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "%s: not supported by openacl (CPU runtime)", #name)

#endif
