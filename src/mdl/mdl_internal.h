/* Internals of the model layer (src/mdl): the loaded-model registry, the
 * immutable I/O description shared by models and aclmdlDesc, datasets and
 * the format detector. Nothing here is visible outside libascendcl. */
#ifndef OPENACL_MDL_INTERNAL_H
#define OPENACL_MDL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_mdl.h"
#include "engine/engine.h"
#include "graph/aipp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- I/O description ---- */
typedef struct mdl_io {
    char *name;               /* real tensor name */
    char *alias;              /* name shown in aclmdlIODims: == name when it fits */
    int gdtype;               /* enum g_dtype */
    aclDataType dtype;
    aclFormat format;         /* NCHW for rank 4, ND otherwise */
    g_shape shape;            /* d < 0: dynamic; rank -1: unknown rank */
    size_t nbytes;            /* 0 when the shape is not static */
    /* AIPP (atc --insert_op_conf), aclmdlInputAippType: 1 the image of a
     * static AIPP, 2 of a dynamic one, 3 a dynamic one's parameters
     * (aipp_attached: the other input of the dynamic pair) */
    int has_aipp, aipp_attached;
    aipp_cfg aipp;
    g_shape aipp_net;         /* the float32 NCHW input of the network behind it */
} mdl_io;

typedef struct mdl_info {
    uint32_t model_id;        /* 0 for descriptions of models not loaded */
    int n_in, n_out;
    mdl_io *in, *out;
    /* gears (models compiled by atc with --dynamic_batch_size / _image_size /
     * _dims): in[gear_input] is ACL_DYNAMIC_TENSOR_NAME; the user inputs
     * report -1 in the gear dims and the largest gear's size */
    int gear_kind;            /* enum eng_gear_kind */
    int n_gears, gear_nvals;
    int gear_input;           /* -1: no gears */
    int largest;              /* the gear sizes and dims report */
    int64_t *gear_vals;       /* n_gears * gear_nvals */
    g_shape *gear_in;         /* n_gears * n_user: each gear's input shapes */
    g_shape *gear_out;        /* n_gears * n_out */
    size_t *gear_in_bytes, *gear_out_bytes;
    /* dim ranges of the inputs (n_in * G_MAX_RANK; NULL when none recorded) */
    int64_t *lo, *hi;
} mdl_info;

/* Number of user (data) inputs: all but the gear input. */
static inline int mdl_info_users(const mdl_info *x) { return x->gear_input >= 0 ? x->n_in - 1 : x->n_in; }

/* Builds the description of an engine model (aliases use model_id). */
int mdl_info_build(const char *api, const eng_model *m, uint32_t model_id, mdl_info *out);
int mdl_info_copy(const char *api, const mdl_info *src, mdl_info *dst);
void mdl_info_free(mdl_info *info);

struct aclmdlDesc {
    mdl_info info;
    int filled;
};

/* ---- datasets ---- */
#define MDL_GEAR_VALS 128     /* at most ACL_MAX_DIM_CNT values per gear */
struct aclmdlDataset {
    size_t n, cap;
    aclDataBuffer **bufs;
    aclTensorDesc **descs;    /* owned copies, NULL when none */
    /* the gear selected on this dataset by aclmdlSetDynamicBatchSize /
     * SetDynamicHWSize / SetInputDynamicDims (gear_n = 0: none) */
    int gear_n;
    uint32_t gear_model;
    int64_t gear_vals[MDL_GEAR_VALS];
};

/* Sets (or refreshes) entry i's descriptor to dtype/shape; used for actual
 * output shapes after an execution. */
int mdl_dataset_set_actual(aclmdlDataset *ds, size_t i, aclDataType dtype, const g_shape *shape);

/* ---- config handles ---- */
struct aclmdlConfigHandle {
    uint32_t set;             /* bit i: aclmdlConfigAttr i was set */
    int32_t priority;
    size_t load_type;
    char *path;               /* deep copy */
    const void *mem; size_t mem_size;
    void *weight; size_t weight_size;
    void *work; size_t work_size;
    char *weight_dir;         /* ACL_MDL_WEIGHT_PATH_PTR, deep copy */
};

struct aclmdlExecConfigHandle {
    int64_t stream_sync_timeout, event_sync_timeout;
    void *work; size_t work_size;
    int32_t priority;
};

/* ---- type mapping (ONNX numbering <-> aclDataType) ---- */
aclDataType mdl_acl_dtype(int gdtype);
aclFormat mdl_format_for_rank(int rank);

/* ---- model formats (format.c): the importer table, {probe, load} per
 * format; mdl_engine_open (below) recognises the image by content ---- */
enum mdl_format { MDL_FMT_UNKNOWN = 0, MDL_FMT_ONNX = 1, MDL_FMT_OACL = 2 };

/* Largest model image accepted (protobuf's 2 GiB limit for ONNX). */
#define MDL_MAX_ONNX_BYTES ((size_t)2147483647)

/* ---- loaded models ---- */
typedef struct mdl_model {
    uint32_t id;
    eng_model *eng;
    void *ctx;                /* context current at load */
    int device;
    void *work; size_t work_size; int own_work;
    void *weight; size_t weight_size; int own_weight;
    mdl_info info;
    pthread_mutex_t run_lock; /* serialises executions of this model */
    int dead;                 /* unloaded (under run_lock): queued executions fail */
    atomic_int refs;          /* registry + in-flight executions */
    atomic_uint priority;
    atomic_int cur_gear;      /* gear last selected or executed, -1 none (aclmdlGetCurOutputDims) */
} mdl_model;

/* Source and memory options of one load. */
typedef struct mdl_load_req {
    const char *api;
    const char *path;         /* file load when non-NULL */
    const void *mem; size_t mem_size;
    const char *base_dir;     /* memory loads: folder of external data (may be NULL) */
    void *work; size_t work_size;
    void *weight; size_t weight_size;
    int32_t priority;
} mdl_load_req;

int mdl_load(const mdl_load_req *req, uint32_t *model_id);

/* Attaches the operator dump in force (rt_dump_current) to a model being
 * loaded from `path` (NULL: from memory) when its dump_list selects it. */
int mdl_dump_attach(mdl_model *m, const char *path);

/* Reads a model file (mmap) for load / desc / size queries. *base_dir is a
 * malloc'd copy of the file's folder. Release with mdl_file_close. */
typedef struct mdl_file {
    void *data; size_t size;
    char *base_dir;
} mdl_file;
int mdl_file_open(const char *api, const char *path, mdl_file *f);
void mdl_file_close(mdl_file *f);

/* Parses and plans an image (after format detection) for desc / size
 * queries and loads. own (may be NULL): the mapping buf lies in; a compiled
 * model that keeps using the image in place takes it over on success (own
 * is then cleared and the engine unmaps it at eng_free). */
int mdl_engine_open(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                    int device, mdl_file *own, eng_model **out);
/* The same for a description (aclmdlGetDescFrom*): the model's inputs,
 * outputs and gears are known, nothing is optimised, planned or packed
 * (eng_describe); the result can only be queried and freed. */
int mdl_engine_describe(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                        eng_model **out);

/* The gear model `id` last selected or executed (-1 none, or not loaded);
 * never records an error. */
int mdl_model_cur_gear(uint32_t id);

/* Looks up a live model and takes a reference (ACL_ERROR_INVALID_MODEL_ID
 * naming `api` and the id when unknown). Release with mdl_put. */
int mdl_get(const char *api, uint32_t id, mdl_model **out);
void mdl_put(mdl_model *m);

/* Checks that the calling thread's current context is the model's. */
int mdl_check_context(const char *api, const mdl_model *m);

#ifdef __cplusplus
}
#endif
#endif
