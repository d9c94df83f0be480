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
#include "om/om.h"
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

/* ---- reading (om_read.c) ---- */

/* Gear kinds and their limit, as INFO stores them (enum eng_gear_kind). */
enum { OM_GEAR_NONE = 0, OM_GEAR_BATCH = 1, OM_GEAR_HW = 2, OM_GEAR_DIMS = 3 };
#define OM_MAX_GEARS 100

/* Model-level facts (INFO section and header). */
typedef struct om_meta {
    char *producer, *kernel_abi, *soc_version, *precision_mode, *input_format, *framework, *cmdline;
    unsigned major, minor;
    int n_in;                 /* user inputs */
    char **in_names;
    int *in_dtype;
    g_shape *in_shape;        /* as declared to atc: -1 where dynamic / a gear dim */
    int64_t *lo, *hi;         /* n_in * G_MAX_RANK ranges ("a~b"; hi -1 unbounded) */
    int has_ranges;
} om_meta;
void om_meta_free(om_meta *meta);      /* NULL is a no-op */
/* The range of dim d of input i; -1 when none is recorded. */
int om_meta_range(const om_meta *meta, int i, int d, int64_t *lo, int64_t *hi);

/* What a program recorded about its plan. */
typedef struct om_rec {
    size_t work_size;
    int64_t *mem_offset;      /* per tensor: arena offset, -1 none */
    size_t *packed_bytes, *scratch_off, *scratch_bytes;   /* per node */
    int64_t *packed_off;      /* per node: offset of its packed blob in the image's weights, -1 */
    int64_t *const_off;       /* per tensor: offset of its run-time copy in the image's weights, -1 */
    char **impl;              /* per node: kernel implementation the compiler chose */
    size_t n_impl;
    int abi_match;            /* the image's kernel ABI is this build's (set by the engine) */
} om_rec;
void om_rec_free(om_rec *r);           /* frees the arrays, clears r */

/* The blob table with the bases of its regions in the image. */
typedef struct om_blobtab {
    int n;
    om_bent *e;
    const unsigned char *rt, *plain;
    size_t rt_len, plain_len;
} om_blobtab;

/* A reader over the PROGRAMS section; api/src name the caller and the file
 * in messages. */
typedef struct om_rdctx {
    const char *api, *src;
    om_rd r;
    const om_blobtab *bt;
} om_rdctx;

/* Fails (ACL_ERROR_PARSE_MODEL) naming the file, `what` and the position. */
int om_malformed(om_rdctx *c, const char *what);

/* EXEC section (format 1.1, optional): what the programs were built for. */
typedef struct om_exec {
    int present;
    int precision;            /* OM_PREC_* */
    int n_progs;
    uint32_t *n_nodes;        /* per program */
    uint32_t **threads;       /* per program, per node: planned thread count (0: not planned) */
} om_exec;
void om_exec_free(om_exec *x);

/* INFO: the facts (*out), gears (*vals malloc'd) and program count. */
int om_read_info(const char *api, const char *src, const unsigned char *p, size_t len, om_meta **out,
                 int *gear_kind, int *n_gears, int *nvals, int64_t **vals, int *n_progs);
int om_read_blobs(const char *api, const char *src, const om_file *f, om_blobtab *bt);
int om_read_exec(const char *api, const char *src, const om_file *f, int n_progs, om_exec *x);
/* One graph record at c's position. Main graphs (main_graph 1) fill rec
 * (plans, blob offsets) and *borrowed (per tensor: its data lies in the
 * image); subgraphs pass NULL for both. */
int om_read_graph(om_rdctx *c, int depth, int main_graph, g_graph **out, om_rec *rec,
                  unsigned char **borrowed);

/* The structure as JSON (atc --mode=1); this_abi: the reading build's
 * kernel ABI (whether the stored packed weights would be adopted). */
int om_dump_json(const char *src, const void *image, size_t len, const char *this_abi, char **json);

#ifdef __cplusplus
}
#endif
#endif
