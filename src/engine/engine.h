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
} eng_opts;

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
void eng_free(eng_model *m);                    /* NULL is a no-op */

int eng_num_inputs(const eng_model *m);
int eng_num_outputs(const eng_model *m);
const eng_io *eng_input(const eng_model *m, int i);
const eng_io *eng_output(const eng_model *m, int i);
int eng_is_static(const eng_model *m);          /* all shapes known at load */

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

#ifdef __cplusplus
}
#endif
#endif
