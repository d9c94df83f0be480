/* The offline compiler behind tools/atc: an ONNX model in, a compiled model
 * image (src/om container, docs/om-format.md) out. Runs the whole load-time
 * pipeline once per gear (shape fixing, folding, fusion, layout, memory plan,
 * weight packing) and hands the planned programs to the writer. */
#ifndef OPENACL_ENGINE_COMPILE_H
#define OPENACL_ENGINE_COMPILE_H
#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eng_compile_req {
    const char *base_dir;             /* folder of the ONNX file (external data) */
    int threads;
    /* --input_shape: these inputs get these shapes; -1 marks a dynamic dim
     * (a gear dim when gears are given). lo/hi (n_shapes * G_MAX_RANK, may be
     * NULL): the range of each dim from "a~b" (hi -1: unbounded). */
    int n_shapes;
    const char *const *shape_names;
    const g_shape *shapes;
    const int64_t *lo, *hi;
    /* gears (enum eng_gear_kind): n_gears x gear_nvals values, in the order
     * of the -1 dims of `shapes` for ENG_GEAR_DIMS */
    int gear_kind, n_gears, gear_nvals;
    const int64_t *gear_vals;
    /* --input_fp16_nodes: float32 inputs that become float16 */
    int n_fp16;
    const char *const *fp16_inputs;
    /* --output_type: every output (out_dtype != G_UNDEF) and/or per output
     * ("node:index:type": the graph output produced by node's output index) */
    int out_dtype;
    int n_out_types;
    const char *const *out_type_node;
    const int *out_type_index, *out_type_dtype;
    /* recorded in the image */
    const char *soc_version, *precision_mode, *input_format, *framework, *cmdline;
    /* progress: stage of program k of n ("import", "optimise", "pack", "write") */
    void (*progress)(void *ctx, int k, int n, const char *stage);
    void *progress_ctx;
    /* Addition (precision): enum eng_precision the programs are built and
     * packed for, recorded in the image. ENG_PRECISION_DEFAULT is float32:
     * the compiler does not read OPENACL_PRECISION. ENG_PRECISION_BF16 is
     * refused where eng_cpu_bf16() is 0. */
    int precision;
    /* Addition (AIPP): --insert_op_conf's blocks (graph/aipp.h), each an
     * openacl.Aipp node in front of its input; aipp_src names the file. */
    int n_aipp;
    const struct aipp_cfg *aipp;
    const char *aipp_src;
} eng_compile_req;

/* Compiles; *image (malloc'd, *image_len bytes) is the compiled model. */
int eng_compile(const void *onnx, size_t len, const eng_compile_req *r, void **image, size_t *image_len);

/* Kernel ABI of this build and CPU (k_abi: "openacl <version>" and each backend's tag):
 * a compiled model's packed weights are adopted only where it is the same. */
const char *eng_kernel_abi(void);

/* Addition (precision): 1 when oneDNN can compute in bfloat16 on this CPU
 * (effective ISA avx512_core_bf16 or avx512_core_amx; ONEDNN_MAX_CPU_ISA
 * caps it), else 0. */
int eng_cpu_bf16(void);

/* Writes a compiled model's structure as JSON (atc --mode=1): header,
 * sections, gears, inputs/outputs, and per program its nodes (op, kernel,
 * attributes, tensors) and tensors (type, shape, layout, arena offset,
 * weight blob). Returns 0 or an aclError with a message. */
int eng_om_dump_json(const char *src, const void *image, size_t len, char **json);

#ifdef __cplusplus
}
#endif
#endif
