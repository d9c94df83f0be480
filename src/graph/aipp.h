/* AIPP, the image preprocessing CANN compiles into a model (atc
 * --insert_op_conf): the parser of the aipp_op text format (aipp_cfg.c) and
 * the graph step that puts an openacl.Aipp node in front of an input
 * (aipp.c). The node's attributes are the whole configuration, so a compiled
 * model carries it as any other node (docs/aipp.md). */
#ifndef OPENACL_GRAPH_AIPP_H
#define OPENACL_GRAPH_AIPP_H
#include "graph/ir.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { AIPP_MODE_UNDEF = 0, AIPP_MODE_STATIC = 1, AIPP_MODE_DYNAMIC = 2 };
/* input_format codes: aclAippInputFormat's values (acl_mdl.h). */
enum {
    AIPP_YUV420SP_U8 = 1, AIPP_XRGB8888_U8 = 2, AIPP_RGB888_U8 = 3, AIPP_YUV400_U8 = 4,
    AIPP_NC1HWC0DI_FP16 = 5, AIPP_NC1HWC0DI_S8 = 6, AIPP_ARGB8888_U8 = 7, AIPP_YUYV_U8 = 8,
    AIPP_YUV422SP_U8 = 9, AIPP_AYUV444_U8 = 10, AIPP_RAW10 = 11, AIPP_RAW12 = 12, AIPP_RAW16 = 13,
    AIPP_RAW24 = 14
};
#define AIPP_MAX_BLOCKS 64

/* One aipp_op block, defaults applied. */
typedef struct aipp_cfg {
    int line;                          /* line of its "aipp_op" */
    int mode, rank;
    char related_name[256];            /* related_input_name ("" none) */
    int n_edge;                        /* input_edge_idx given */
    int max_src_size, support_rotation;/* dynamic */
    int format, src_w, src_h;
    int crop, crop_x, crop_y, crop_w, crop_h;
    int resize, resize_w, resize_h;
    int pad, pad_l, pad_r, pad_t, pad_b;
    float pad_value, cpad_value;
    int rotation_angle, raw_n, single_line;
    int csc, rbuv_swap, ax_swap;
    int matrix[9], out_bias[3], in_bias[3];
    int matrix_given;                  /* some matrix_* line was given */
    int mean[4];
    float min[4], var_reci[4];
} aipp_cfg;

/* Parses text (len bytes, need not be NUL-terminated) into *out (malloc'd,
 * *n blocks). `src` names the file in messages. On a syntax error, an
 * unknown or repeated field or a value out of range returns
 * ACL_ERROR_INVALID_PARAM with a message naming the line. */
int aipp_parse(const char *src, const char *text, size_t len, aipp_cfg **out, int *n);

/* Bytes of a static AIPP input of n images of w x h in format f (0 for a
 * format without a byte layout here), and the uint8 NHWC shape the compiled
 * model declares for it (YUV420SP: [n, h*3/2, w, 1]; YUV422SP: [n, h*2, w, 1]). */
int aipp_input_shape(int format, int64_t n, int64_t w, int64_t h, g_shape *out);
const char *aipp_format_name(int format);

/* Puts an openacl.Aipp node in front of input c->rank of g: the input keeps
 * its name and becomes the uint8 image; the float tensor the network read is
 * now the node's output. *shape (in: the network input's NCHW shape after
 * --input_shape, out: the image's shape) is what the input is fixed to. */
int aipp_insert(g_graph *g, const char *src, const aipp_cfg *c, g_shape *shape);

/* The configuration back from a node's attributes (the kernel, desc). For a
 * dynamic node (2 inputs: image, parameters) only mode, rank-free facts and
 * max_src_size are set. */
int aipp_from_node(const g_node *n, aipp_cfg *c);

/* ---- dynamic AIPP ----
 * aclmdlSetInputAIPP writes the parameters into the model's
 * ACL_DYNAMIC_AIPP_NAME input: a 64-byte header, then 96 bytes per batch
 * (CANN's sizes; the layout inside is openacl's own). */
#define AIPP_DYN_HEAD 64
#define AIPP_DYN_BATCH 96
typedef struct aipp_dyn_head {
    uint8_t format, csc, rbuv_swap, ax_swap;
    uint32_t batch;
    int32_t src_w, src_h;
    int16_t matrix[9];
    uint8_t out_bias[3], in_bias[3];
} aipp_dyn_head;
typedef struct aipp_dyn_batch {
    uint8_t crop, pad, scf, reserved;
    int32_t crop_x, crop_y, crop_w, crop_h;
    int32_t pad_t, pad_b, pad_l, pad_r;
    int32_t scf_in_w, scf_in_h, scf_out_w, scf_out_h;
    int16_t mean[4];
    float min[4], var_reci[4];
} aipp_dyn_batch;
#define AIPP_DYN_NAME "ascend_dynamic_aipp_data"

/* The static-form configuration of batch b of a parameter block (len bytes);
 * checks it against the image bytes the model takes per call (img_bytes, for
 * n images) and the network's H x W. 0 or ACL_ERROR_INVALID_PARAM with a
 * message naming `who`. */
int aipp_dyn_cfg(const char *who, const unsigned char *p, size_t len, int b, int64_t n, size_t img_bytes,
                 int64_t net_h, int64_t net_w, int net_c, aipp_cfg *c);

#ifdef __cplusplus
}
#endif
#endif
