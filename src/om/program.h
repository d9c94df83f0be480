/* What the compiled format stores, described without the engine (see
 * docs/om-format.md): a program is a graph as the passes left it (nodes bound
 * to the implementation chosen), its memory plan, its weights and per node
 * the packed area, scratch and thread count it was planned with. The engine
 * describes its programs this way (engine/eng_om.c) and src/om writes them;
 * the constants below are the sections' own encoding, shared by the writer
 * and the reader. */
#ifndef OPENACL_OM_PROGRAM_H
#define OPENACL_OM_PROGRAM_H
#include "graph/ir.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OM_INFO_VERSION 1
#define OM_EXEC_VERSION 1
#define OM_MAX_SUBGRAPH_DEPTH 32      /* as deep as the ONNX importer nests */
/* EXEC section: the compute precision (enum eng_precision's values). */
#define OM_PREC_FP32 1
#define OM_PREC_BF16 2

/* How a tensor's data is stored. */
enum { OM_DK_NONE = 0, OM_DK_BLOB = 1, OM_DK_INLINE = 2 };
/* Blob regions: WEIGHTS (read at run time) and PLAIN (plain copies kept
 * for packing again). */
enum { OM_REGION_WEIGHTS = 0, OM_REGION_PLAIN = 1 };

/* One entry of the blob table. */
typedef struct om_bent { int region; size_t off, size; uint32_t crc; } om_bent;

/* A node's plan in a static program. */
typedef struct om_node_plan {
    size_t packed_bytes, scratch_off, scratch_bytes;
    const void *packed;       /* its packed area (packed_bytes), NULL when it packs nothing */
    int threads;              /* the thread count it was planned and packed with */
} om_node_plan;

/* A program to write. Arrays are per tensor / per node of g. */
typedef struct om_wprog {
    const g_graph *g;
    int is_static;
    size_t work_size;
    const void **const_rt;            /* a constant's run-time copy, or NULL */
    unsigned char *plain_only;        /* a constant only packing reads: its plain copy is kept */
    const char **impl;                /* per node: the implementation chosen ("" none) */
    om_node_plan *nodes;              /* static programs; NULL otherwise */
} om_wprog;

typedef struct om_write_req {
    const om_wprog *progs;            /* one per gear (or one) */
    int n_progs;
    int gear_kind, gear_nvals;
    const int64_t *gear_vals;         /* n_progs * gear_nvals */
    int n_in;                         /* user inputs as declared */
    const char *const *in_names;
    const int *in_dtype;
    const g_shape *in_shape;
    const int64_t *lo, *hi;           /* n_in * G_MAX_RANK, or NULL */
    int n_out;
    const char *const *out_names;
    const int *out_dtype;
    const g_shape *out_shape;
    const char *producer, *soc_version, *precision_mode, *input_format, *framework, *cmdline;
    const char *kernel_abi;           /* the kernels' ABI the packed areas are valid for */
    void (*progress)(void *ctx, int k, int n, const char *stage);
    void *progress_ctx;
    /* OM_PREC_*; 0: bf16 when a node carries the bf16 mark, else fp32 */
    int precision;
} om_write_req;

/* Writes the compiled image (*image malloc'd, *len bytes). 0 or an aclError. */
int om_write(const om_write_req *req, void **image, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
