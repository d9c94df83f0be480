/* The kernel interface. Each op implementation is a k_op descriptor keyed by
 * (op type, domain, opset range). Several implementations of one op are
 * tried in priority order (oneDNN first, portable reference last): an
 * implementation's init() returns K_DECLINE for configurations it does not
 * handle and the next one is tried. The reference implementation ships in the
 * product and can be forced at run time (OPENACL_FORCE_REF=1 or the config
 * key), which is how tests check the fast kernels against it.
 *
 * Life of a kernel on one node:
 *   init (attributes parsed and validated, state allocated; once at load)
 *   infer (output dtypes and shapes from input metadata; at load, and again
 *          per run when the model has dynamic shapes)
 *   plan/pack (optional; once shapes are final: primitive creation, packed
 *          weights in memory the engine owns)
 *   run (many times; no allocation, no locking)
 *   fini */
#ifndef OPENACL_KERNEL_H
#define OPENACL_KERNEL_H
#include "graph/ir.h"
#include <stddef.h>

struct k_dw_fusion;
struct k_subgraph_host;

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor as a kernel sees it. */
typedef struct k_tensor {
    int dtype;                /* enum g_dtype */
    g_shape shape;            /* logical shape */
    void *data;               /* NULL in infer() when the value is not known */
    size_t nbytes;            /* bytes available at data */
    int layout;               /* enum g_layout */
} k_tensor;

/* Per-run context handed to run(). */
typedef struct k_ctx {
    int threads;              /* thread budget of the device (OpenMP pool) */
    void *scratch;            /* plan()'s scratch_bytes, 64-byte aligned */
    size_t scratch_bytes;
} k_ctx;

/* Special returns besides 0 and ACL error codes. */
#define K_DECLINE   (-1)      /* init(): this implementation does not apply */
#define K_NEED_DATA (-2)      /* infer(): needs the value of an input not yet known */

typedef struct k_op {
    const char *op_type;      /* ONNX op type, e.g. "Conv" */
    const char *domain;       /* "" for ai.onnx, "com.microsoft", "openacl" */
    int since, until;         /* opset range, inclusive; until 0 = open */
    const char *impl;         /* "ref", "dnnl", "avx512", ... */
    int priority;             /* higher first; ref uses 0 */
    /* Parse/validate attributes and input dtypes (types of inputs known,
     * shapes possibly not). Unsupported attribute values are refused here
     * with acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, ...) naming node, op and
     * opset: never a wrong answer later. May set *state (freed by fini). */
    int (*init)(g_graph *g, g_node *n, void **state);
    /* Fill out[i].dtype/shape (and layout) from in[]. in[i].data is non-NULL
     * for inputs whose value is known (constants; every input at run time).
     * Omitted optional inputs have dtype G_UNDEF and data NULL. A kernel
     * may fill out[i].data only when it is given (constant folding passes
     * run run() instead). */
    int (*infer)(const g_node *n, void *state, const k_tensor *in, k_tensor *out);
    /* Optional. Shapes are final. Report the bytes of packed constant data
     * to keep (*packed_bytes) and of per-run scratch (*scratch_bytes). */
    int (*plan)(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                size_t *packed_bytes, size_t *scratch_bytes);
    /* Optional. Write packed constants into `packed` (64-byte aligned,
     * packed_bytes long, alive until unload, possibly caller-owned). */
    int (*pack)(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                void *packed);
    /* Compute. out[i].data is preallocated with out[i].nbytes bytes. */
    int (*run)(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
               const k_ctx *ctx);
    void (*fini)(void *state);
    /* Optional. Whether input `idx` may arrive in `layout` (for the layout
     * pass): 0 no, 1 yes, 2 yes and it saves work (the layout pass then
     * stores the input so even when no window op follows: a Transpose to
     * channels-last of an NHWC tensor copies nothing). NULL = plain only. */
    int (*accepts_layout)(const g_node *n, void *state, int idx, int layout);
    /* Optional. Bit i set: when input i is a constant, pack() copies what
     * run() needs of it into the packed area and run() never reads it, so
     * the engine need not keep its own copy of a constant all of whose
     * readers say so (weights then count once, packed). */
    uint32_t packed_inputs;
    /* Optional (addition, compiled models): `packed` already holds what
     * pack() writes for these shapes with this build on this CPU (a compiled
     * model stores packed weights): set the state up to run from it, as
     * pack() would, without reading or rewriting the area (it may be
     * read-only) and without needing the packed_inputs constants. An engine
     * calls it instead of pack() when the compiled model's kernel ABI and
     * planned packed_bytes match; without it, weights are packed again from
     * the plain copies the compiled model also keeps. */
    int (*adopt)(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                 void *packed);
    /* Optional (addition, memory plan). Asked after plan(): the index of an
     * input whose storage output 0 may take over (run() then finds
     * out[0].data == in[i].data and must compute correctly in place), or
     * -1. The planner grants it only when that input is read by nothing
     * after this node and has output 0's byte size; the kernel must keep
     * computing correctly in place from then on (never a different
     * algorithm that reads the input after writing the output). */
    int (*inplace)(const g_node *n, void *state);

    /* ---- Questions the graph passes and the engine ask an implementation.
     * All optional (NULL answers "no" / "not known"), all asked at load or
     * plan time, never per run, so the passes need no backend header. ---- */
    /* Precision pass, on a bound node: whether it computes in bfloat16 and
     * may read its data input 0 (as_producer 0) or write its output 0
     * (as_producer 1) as a bfloat16 activation. */
    int (*bf16_io)(const g_node *n, void *state, int as_producer);
    /* Precision pass, on a bound node: whether input j is a fused addend the
     * kernel reads as bfloat16 when it is stored so. */
    int (*bf16_addend)(const g_node *n, void *state, int j);
    /* Precision pass (squeeze-excite blocks), asked of the op's
     * implementations before they are bound again: whether one of them reads
     * input `slot` of n (in graph g) as bfloat16. */
    int (*reads_bf16)(const g_graph *g, const g_node *n, int slot);
    /* Fusion pass, asked of the op's implementations: whether one of them
     * runs the convolution described by q followed by its depthwise step
     * as one fused kernel (kernels/post.h, k_dw_fusion). */
    int (*fuse_dw)(const struct k_dw_fusion *q);
    /* Thread decision (engine): the arithmetic of one run in floating-point
     * operations for these shapes; NULL counts the op as elementwise. */
    double (*flops)(const g_node *n, const k_tensor *in, const k_tensor *out);
    /* Thread decision (engine), asked after its small-node rule: the most
     * threads (1 to budget) this implementation runs these shapes on well
     * within the device's budget; NULL answers the budget. */
    int (*max_threads)(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, int budget);
} k_op;

/* A backend: a family of implementations sharing a library and packed
 * formats (oneDNN and the loops beside it). What the compiled format and
 * the compiler ask of the CPU side is asked here, never of oneDNN directly. */
typedef struct k_backend {
    const char *name;
    /* Tag of the packed formats this backend writes, with the switches in
     * force now ("dnnl 2.6.3 avx512_core p11w"); read per load. */
    const char *(*abi_tag)(void);
    /* 1 when the backend computes in bfloat16 on this CPU. */
    int (*has_bf16)(void);
} k_backend;
#define K_REGISTER_BACKEND(var) \
    static const k_backend *const k_regb_##var __attribute__((used, section("oa_kbackends"))) = &(var)

/* The kernel ABI of this build and CPU, "openacl <version>" then each
 * backend's tag: a compiled model's packed weights are adopted only where it
 * is the same. At most 47 characters. */
const char *k_abi(void);
/* 1 when some backend computes in bfloat16 on this CPU. */
int k_cpu_bf16(void);

/* The questions above asked for one node: of its bound implementation
 * (k_bf16_io, k_bf16_addend, k_flops) or of every implementation of its op,
 * forced reference or not, best first (k_reads_bf16, k_fuse_dw). */
int k_bf16_io(const g_node *n, int as_producer);
int k_bf16_addend(const g_node *n, int j);
int k_reads_bf16(const g_graph *g, const g_node *n, int slot);
int k_fuse_dw(const g_node *n, const struct k_dw_fusion *q);
double k_flops(const g_node *n, const k_tensor *in, const k_tensor *out);
/* flops answers shared by the implementations of the heavy ops. */
double k_flops_conv(const g_node *n, const k_tensor *in, const k_tensor *out);
double k_flops_convt(const g_node *n, const k_tensor *in, const k_tensor *out);
double k_flops_matmul(const g_node *n, const k_tensor *in, const k_tensor *out);
double k_flops_gemm(const g_node *n, const k_tensor *in, const k_tensor *out);

/* What the engine lends control-flow kernels (If, Loop, Scan, ...): a body
 * is prepared (sorted, checked, bound, inferred) once at the owner's init()
 * and run per call. The engine installs its host when it is linked in (at
 * library start); a kernel takes k_get_subgraph_host() at init() and keeps
 * it in its state, so kernels include no engine or pass header. */
typedef struct k_subgraph_host {
    /* Prepares body and returns its runner (*runner, freed by release). */
    int (*prepare)(g_graph *body, void **runner);
    /* Runs a prepared body once (vals/owned: one entry per body tensor; see
     * engine/exec.h eng_dyn_run for the contract). */
    int (*run)(void *runner, k_tensor *vals, unsigned char *owned, int threads);
    /* Frees every owned buffer in vals and clears owned. */
    void (*vals_release)(int n, k_tensor *vals, unsigned char *owned);
    void (*release)(void *runner);   /* NULL is a no-op */
} k_subgraph_host;
void k_set_subgraph_host(const k_subgraph_host *h);
const k_subgraph_host *k_get_subgraph_host(void);   /* NULL until installed */

/* 64-byte aligned allocation (at least 64 bytes), released with free(). */
void *k_alloc64(size_t n);

/* Register a k_op: the registry collects every K_REGISTER in the library
 * through a linker section, so adding a kernel touches no shared file. */
#define K_REGISTER(var) \
    static const k_op *const k_reg_##var __attribute__((used, section("oa_kops"))) = &(var)

/* Registry (src/kernels/registry.c). */
/* Ops matching (op_type, domain, opset), best first; returns the count. */
int k_find(const char *op_type, const char *domain, int opset, const k_op **out, int max);
/* True when some implementation exists for the op at any opset. */
int k_known(const char *op_type, const char *domain);
/* Force reference kernels (priority 0 "ref" only). */
void k_set_force_ref(int on);
int k_force_ref(void);

/* Value of a container tensor (g_is_container(dtype)): k_tensor.data points
 * at a k_seq. A sequence holds n tensors; an optional holds n = 0 (none) or 1
 * element, a tensor or a sequence (then items[0].dtype is a sequence type and
 * items[0].data a k_seq). Items own their memory (malloc'd). For a container
 * output the engine hands run() an empty k_seq to fill; it frees container
 * values with k_seq_free. (Addition; src/kernels/util.c.) */
typedef struct k_seq {
    int n, cap;
    k_tensor *items;
} k_seq;
k_seq *k_seq_new(void);
void k_seq_free(k_seq *s);                  /* NULL is a no-op; frees items too */
void k_seq_clear(k_seq *s);                 /* frees the items, keeps s */
k_seq *k_seq_clone(const k_seq *s);         /* deep copy; NULL on OOM */
/* Inserts a deep copy of v (a tensor or a container value) at pos (0..n). */
int k_seq_insert(k_seq *s, int pos, const k_tensor *v);
void k_seq_erase(k_seq *s, int pos);
/* Deep copy of a tensor or container value into fresh memory (dst->data
 * malloc'd / a new k_seq); k_value_free releases such a copy. */
int k_value_copy(k_tensor *dst, const k_tensor *src);
void k_value_free(k_tensor *v);

/* Helpers every kernel uses (src/kernels/util.c). */
/* NumPy-style broadcast of a and b into out; fails with acl_fail naming
 * the node when incompatible. */
int k_broadcast(const g_node *n, const g_shape *a, const g_shape *b, g_shape *out);
size_t k_nbytes(const k_tensor *t);   /* numel * dtype size */

#ifdef __cplusplus
}
#endif
#endif
