/* The engine: an ONNX (or compiled) model turned into a flat, planned list
 * of kernel calls. This is the only interface the aclmdl layer uses; it
 * knows nothing of devices, streams or aclDataBuffers.
 *
 * Errors: every function returns an aclError value (0 = success) and leaves
 * a message through acl_fail() naming the node, op type, tensor and values. */
#ifndef OPENACL_ENGINE_H
#define OPENACL_ENGINE_H
#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eng_model eng_model;

typedef struct eng_opts {
    int threads;              /* 0: default of the device */
    const char *base_dir;     /* folder of the model file, for external data;
                                 NULL: external data is refused */
    /* Pin dynamic (symbolic) input dims to fixed values before planning.
     * fix_shapes[i] is the full shape for input named fix_names[i]. */
    int n_fix;
    const char *const *fix_names;
    const g_shape *fix_shapes;
    /* Additions (compiled models, atc): */
    /* fix_shapes replace the declared dims instead of having to agree with
     * them (atc --input_shape); -1 dims stay dynamic. */
    int fix_override;
    /* The image passed to eng_load_compiled stays valid until the engine
     * calls release(release_ctx) (at eng_free, or earlier once nothing
     * points into it); weights may then be used in place (zero copy). On
     * failure the caller keeps the image. NULL: the engine copies. */
    void (*release)(void *ctx);
    void *release_ctx;
    /* Addition (precision): enum eng_precision. ENG_PRECISION_DEFAULT takes
     * OPENACL_PRECISION from the environment ("bf16" or "fp32"; unset:
     * fp32). With bf16, convolutions and matrix products compute in
     * bfloat16 with float32 accumulation (weights packed as bf16; tensors
     * between nodes stay float32). */
    int precision;
    /* Addition (load peak): for ONNX, the image is a file's mapping; the
     * loader calls drop(drop_ctx, p, n) for bytes it will not read again
     * (onnx_import_ex). NULL: the image is left alone. */
    void (*drop)(void *ctx, const void *p, size_t n);
    void *drop_ctx;
} eng_opts;

enum eng_precision { ENG_PRECISION_DEFAULT = 0, ENG_PRECISION_FP32 = 1, ENG_PRECISION_BF16 = 2 };

typedef struct eng_io {
    const char *name;
    int dtype;                /* enum g_dtype */
    g_shape shape;            /* dims < 0 are dynamic */
    size_t nbytes;            /* 0 when the shape is not static */
    int layout;               /* always G_LAYOUT_PLAIN at the API boundary */
} eng_io;

/* Parse, check, optimise and plan a model held in memory (ONNX protobuf).
 * The buffer need not outlive the call. */
int eng_load(const void *buf, size_t len, const eng_opts *o, eng_model **out);
/* Describes an ONNX model without optimising or planning it: imported,
 * checked, its kernels chosen and every type and shape inferred
 * (graph_describe), so its inputs and outputs can be queried
 * (eng_num_inputs, eng_input, ...); it cannot be bound or run. */
int eng_describe(const void *buf, size_t len, const eng_opts *o, eng_model **out);
void eng_free(eng_model *m);                    /* NULL is a no-op */

int eng_num_inputs(const eng_model *m);
int eng_num_outputs(const eng_model *m);
const eng_io *eng_input(const eng_model *m, int i);
const eng_io *eng_output(const eng_model *m, int i);
int eng_is_static(const eng_model *m);          /* all shapes known at load */
/* Addition (AIPP): what input i is to an openacl.Aipp node (atc
 * --insert_op_conf), in aclmdlInputAippType's values: 0 none, 1 the image of
 * a static AIPP, 2 the image of a dynamic one, 3 the parameters of a dynamic
 * one. *cfg is the node's configuration, *net the float32 NCHW shape the
 * network reads, *attached (2 and 3) the index of the other input. */
struct aipp_cfg;
int eng_input_aipp(const eng_model *m, int i, struct aipp_cfg *cfg, g_shape *net, int *attached);

/* Bytes of the activation arena (static plan; for dynamic models the bound
 * for the shapes seen so far is not known: returns 0). */
size_t eng_work_size(const eng_model *m);
/* Bytes of packed weights and constants kept for execution. */
size_t eng_weight_size(const eng_model *m);

/* Pack weights into `weights` (eng_weight_size bytes, 64-byte aligned, kept
 * alive by the caller until eng_free) or, when NULL, into memory the engine
 * allocates. Must be called once before the first eng_run. */
int eng_bind_weights(eng_model *m, void *weights);

/* Output allocator for outputs passed with data == NULL. */
typedef void *(*eng_alloc_fn)(void *ctx, size_t nbytes);

/* Run once. `work` is eng_work_size bytes (64-byte aligned) or NULL for
 * engine-owned memory. in[i] must match the model's input i in dtype and
 * (static dims of) shape; out[i].data/nbytes give the destination; on return
 * out[i].shape/dtype hold the actual output. Not reentrant per model: the
 * caller serialises runs of one model. */
int eng_run(eng_model *m, void *work, const k_tensor *in, int n_in,
            k_tensor *out, int n_out, eng_alloc_fn alloc, void *alloc_ctx);
/* Containers (addition): an input of a sequence/optional type is passed as a
 * k_tensor of that dtype whose data is a k_seq (kernels/kernel.h); such an
 * output comes back the same way in out[i].data, a k_seq the caller releases
 * with k_seq_free (its buffer and the allocator are not used). Models with
 * container values always run on the dynamic path. */

/* ---- compiled models and gears (additions) ----
 * A compiled model (src/om container written by tools/atc) holds one
 * execution plan, or one static plan per gear of a model compiled with
 * --dynamic_batch_size / --dynamic_image_size / --dynamic_dims. Gear models
 * have one extra input, the last: ACL_DYNAMIC_TENSOR_NAME, int32 [k] (k gear
 * values); their user inputs report -1 in the gear dims and the largest
 * gear's byte size, their outputs the largest gear's dims and the largest
 * size over gears. Weights are shared by all gears, the work area is the
 * largest gear's. */
enum eng_gear_kind { ENG_GEAR_NONE = 0, ENG_GEAR_BATCH = 1, ENG_GEAR_HW = 2, ENG_GEAR_DIMS = 3 };
#define ENG_MAX_GEARS 100
#define ENG_GEAR_NAME "ascend_mbatch_shape_data"

typedef struct om_meta eng_om_meta;   /* om/program.h */

/* Whether buf holds a compiled model (by its magic; not validated). */
int eng_is_compiled(const void *buf, size_t len);
/* Loads a compiled model: checks the container and every checksum, rebuilds
 * the plans without running graph passes. `api`/`src` name the caller and
 * the file in messages. o->release: see eng_opts. */
int eng_load_compiled(const char *api, const char *src, const void *buf, size_t len,
                      const eng_opts *o, eng_model **out);
/* 1 when eng_bind_weights(m, NULL) will use the image's weights in place,
 * so the caller need not allocate eng_weight_size bytes. */
int eng_weights_in_image(const eng_model *m);
/* 1 when the memory plan is the compiled image's own (it passed
 * plan_graph_check), 0 when it was planned at load. */
int eng_plan_from_image(const eng_model *m);

int eng_gear_kind(const eng_model *m);          /* enum eng_gear_kind */
int eng_gear_count(const eng_model *m);
int eng_gear_nvals(const eng_model *m);         /* values per gear: 1, 2 or #(-1 dims) */
const int64_t *eng_gear_values(const eng_model *m, int gear);
int eng_gear_input_index(const eng_model *m);   /* -1 when the model has no gears */
/* The largest gear (by total input bytes): what sizes and dims report. */
int eng_gear_largest(const eng_model *m);
/* Index of the gear with these values, -1 if none. */
int eng_gear_find(const eng_model *m, const int64_t *vals, int n);
/* I/O of one gear: user inputs (not the gear input) and outputs, static. */
const eng_io *eng_gear_input(const eng_model *m, int gear, int i);
const eng_io *eng_gear_output(const eng_model *m, int gear, int i);
/* Reads the gear values from a gear-input buffer of nbytes bytes: uint64
 * each when it holds 8*k bytes, else uint32 (CANN's rule). Returns the
 * gear index, -1 when the values are no gear, -2 when the buffer is too
 * small; vals (k entries) receives what was read. */
int eng_gear_decode(const eng_model *m, const void *buf, size_t nbytes, int64_t *vals);
/* Runs one gear. in[] has eng_num_inputs entries (the gear input's content
 * is not read); buffers larger than the gear needs are fine. */
int eng_run_gear(eng_model *m, int gear, void *work, const k_tensor *in, int n_in,
                 k_tensor *out, int n_out, eng_alloc_fn alloc, void *alloc_ctx);
/* Range of dim d of input i recorded by atc --input_shape "a~b" (hi -1:
 * unbounded); 0 when known, -1 when the model records none. */
int eng_input_range(const eng_model *m, int i, int d, int64_t *lo, int64_t *hi);

#ifdef __cplusplus
}
#endif
#endif
