/* AscendCL model API (openacl): load a model, describe its inputs and
 * outputs, build datasets and execute. Names, values, struct layouts and
 * signatures are those of CANN's acl_mdl.h (the 2026 function set).
 *
 * What openacl runs: ONNX models (recognised by content, whatever the file
 * name, so applications that hard-code "*.om" paths keep working) and
 * openacl's own compiled models. A Huawei .om built by ATC for an Ascend
 * chip holds device binaries and is refused with a clear message.
 *
 * "Device memory" in openacl is host memory handed out by the runtime's
 * device allocator (aclrtMalloc*); aclrtMallocHost memory is accepted
 * wherever device memory is expected (see aclmdlExecute).
 *
 * Thread rules (per function below, summarised here):
 *  - Load/Unload/GetDesc/Execute may be called from any thread; the model
 *    registry is internally locked.
 *  - One model id may be executed from several threads or streams at once:
 *    openacl serialises the executions of one model with a per-model lock,
 *    so results are never corrupted (CANN leaves this to the caller; openacl
 *    is stricter, not looser). Executions of different models run in
 *    parallel.
 *  - Load, execute and unload of one model must happen under the same
 *    context (the thread's current context at load time); a call under a
 *    different context fails with ACL_ERROR_RESOURCE_NOT_MATCH.
 *  - aclmdlDesc, aclmdlDataset and the config handles are plain objects
 *    without locking: read them from several threads, but do not modify or
 *    destroy one while another thread uses it (in particular, not while an
 *    aclmdlExecuteAsync that uses a dataset is still pending).
 *  - Every creator's result is released by its Destroy function; destroying
 *    NULL returns ACL_ERROR_INVALID_PARAM as in CANN and does nothing. */
#ifndef INC_EXTERNAL_ACL_ACL_MODEL_H_
#define INC_EXTERNAL_ACL_ACL_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ---- */
#define ACL_DIM_ENDPOINTS 2
#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

/* Values of the ACL_MDL_LOAD_TYPE_SIZET config attribute. */
#define ACL_MDL_LOAD_FROM_FILE 1
#define ACL_MDL_LOAD_FROM_FILE_WITH_MEM 2
#define ACL_MDL_LOAD_FROM_MEM 3
#define ACL_MDL_LOAD_FROM_MEM_WITH_MEM 4
#define ACL_MDL_LOAD_FROM_FILE_WITH_Q 5
#define ACL_MDL_LOAD_FROM_MEM_WITH_Q 6

/* Name of the extra input of a gear (dynamic batch / HW / dims) model. */
#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
/* Name of the extra input of a dynamic-AIPP model. */
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"
/* The only attribute aclmdlGetOpAttr accepts. */
#define ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES "_datadump_original_op_names"

/* Values of ACL_MDL_WORKSPACE_MEM_OPTIMIZE. */
#define ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT 0
#define ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT 1

/* Model-stream flags. */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

/* ---- opaque handles ---- */
typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlAIPP aclmdlAIPP;
typedef struct aclAippExtendInfo aclAippExtendInfo;
typedef struct aclmdlConfigHandle aclmdlConfigHandle;
typedef struct aclmdlExecConfigHandle aclmdlExecConfigHandle;
typedef struct aclmdlBundleQueryInfo aclmdlBundleQueryInfo;
typedef void *aclmdlModel;

/* ---- enums ---- */
typedef enum {
    ACL_YUV420SP_U8 = 1,
    ACL_XRGB8888_U8 = 2,
    ACL_RGB888_U8 = 3,
    ACL_YUV400_U8 = 4,
    ACL_NC1HWC0DI_FP16 = 5,
    ACL_NC1HWC0DI_S8 = 6,
    ACL_ARGB8888_U8 = 7,
    ACL_YUYV_U8 = 8,
    ACL_YUV422SP_U8 = 9,
    ACL_AYUV444_U8 = 10,
    ACL_RAW10 = 11,
    ACL_RAW12 = 12,
    ACL_RAW16 = 13,
    ACL_RAW24 = 14,
    ACL_AIPP_RESERVED = 0xFFFF
} aclAippInputFormat;

/* Load-config attributes. The suffix is the C type of the value passed to
 * aclmdlSetConfigOpt by address: _INT32 int32_t, _SIZET size_t, _PTR a
 * pointer (pass the address of the pointer). */
typedef enum {
    ACL_MDL_PRIORITY_INT32 = 0,
    ACL_MDL_LOAD_TYPE_SIZET = 1,
    ACL_MDL_PATH_PTR = 2,            /* path string, copied */
    ACL_MDL_MEM_ADDR_PTR = 3,        /* model image, not copied */
    ACL_MDL_MEM_SIZET = 4,
    ACL_MDL_WEIGHT_ADDR_PTR = 5,     /* caller-owned weight memory */
    ACL_MDL_WEIGHT_SIZET = 6,
    ACL_MDL_WORKSPACE_ADDR_PTR = 7,  /* caller-owned work memory */
    ACL_MDL_WORKSPACE_SIZET = 8,
    ACL_MDL_INPUTQ_NUM_SIZET = 9,
    ACL_MDL_INPUTQ_ADDR_PTR = 10,
    ACL_MDL_OUTPUTQ_NUM_SIZET = 11,
    ACL_MDL_OUTPUTQ_ADDR_PTR = 12,
    ACL_MDL_WORKSPACE_MEM_OPTIMIZE = 13,
    ACL_MDL_WEIGHT_PATH_PTR = 14,    /* folder of external weights, copied */
    ACL_MDL_MODEL_DESC_PTR = 15,
    ACL_MDL_MODEL_DESC_SIZET = 16,
    ACL_MDL_KERNEL_PTR = 17,
    ACL_MDL_KERNEL_SIZET = 18,
    ACL_MDL_KERNEL_ARGS_PTR = 19,
    ACL_MDL_KERNEL_ARGS_SIZET = 20,
    ACL_MDL_STATIC_TASK_PTR = 21,
    ACL_MDL_STATIC_TASK_SIZET = 22,
    ACL_MDL_DYNAMIC_TASK_PTR = 23,
    ACL_MDL_DYNAMIC_TASK_SIZET = 24,
    ACL_MDL_MEM_MALLOC_POLICY_SIZET = 25,
    ACL_MDL_FIFO_PTR = 26,
    ACL_MDL_FIFO_SIZET = 27,
    ACL_MDL_WITHOUT_GRAPH_INT32 = 28,
    ACL_NPU_PERF_MODE = 29,
    ACL_MDL_RESERVED = 0xFFFF
} aclmdlConfigAttr;

/* Attributes of a loaded model (aclmdlSetAttribute / aclmdlGetAttribute). */
typedef enum { ACL_MDL_ATTR_PRIORITY_INT32 = 0 } aclmdlAttr;

typedef union {
    uint32_t mdlPriority;     /* 0..7, smaller = higher priority, default 0 */
    uint32_t reserved[8];
} aclmdlAttrValue_t;

/* Execute-config attributes (aclmdlSetExecConfigOpt). */
typedef enum {
    ACL_MDL_STREAM_SYNC_TIMEOUT = 0,
    ACL_MDL_EVENT_SYNC_TIMEOUT = 1,
    ACL_MDL_WORK_ADDR_PTR = 2,
    ACL_MDL_WORK_SIZET = 3,
    ACL_MDL_MPAIMID_SIZET = 4,
    ACL_MDL_AICQOS_SIZET = 5,
    ACL_MDL_AICOST_SIZET = 6,
    ACL_MDL_MEC_TIMETHR_SIZET = 7,
    ACL_MDL_EXEC_PRIORITY_INT32 = 8,
    ACL_MDL_NPU_PERF_MODE = 9
} aclmdlExecConfigAttr;

typedef enum {
    ACL_DATA_WITHOUT_AIPP = 0,
    ACL_DATA_WITH_STATIC_AIPP = 1,
    ACL_DATA_WITH_DYNAMIC_AIPP = 2,
    ACL_DYNAMIC_AIPP_NODE = 3
} aclmdlInputAippType;

/* ---- structs (field order is ABI) ---- */
typedef struct aclmdlIODims {
    char name[ACL_MAX_TENSOR_NAME_LEN];  /* tensor name (aliased when > 127 chars) */
    size_t dimCount;
    int64_t dims[ACL_MAX_DIM_CNT];       /* -1 = dynamic */
} aclmdlIODims;

typedef struct aclmdlIODimsRange {
    size_t rangeCount;
    int64_t range[ACL_MAX_DIM_CNT][ACL_DIM_ENDPOINTS];  /* [i][0] min, [i][1] max (-1 unbounded) */
} aclmdlIODimsRange;

typedef struct aclAippDims {
    aclmdlIODims srcDims;
    size_t srcSize;
    aclmdlIODims aippOutdims;
    size_t aippOutSize;
} aclAippDims;

typedef struct aclmdlBatch {
    size_t batchCount;
    uint64_t batch[ACL_MAX_BATCH_NUM];
} aclmdlBatch;

typedef struct aclmdlHW {
    size_t hwCount;
    uint64_t hw[ACL_MAX_HW_NUM][2];      /* [i][0] height, [i][1] width */
} aclmdlHW;

typedef struct aclAippInfo {
    aclAippInputFormat inputFormat;
    int32_t srcImageSizeW;
    int32_t srcImageSizeH;
    int8_t cropSwitch;
    int32_t loadStartPosW;
    int32_t loadStartPosH;
    int32_t cropSizeW;
    int32_t cropSizeH;
    int8_t resizeSwitch;
    int32_t resizeOutputW;
    int32_t resizeOutputH;
    int8_t paddingSwitch;
    int32_t leftPaddingSize;
    int32_t rightPaddingSize;
    int32_t topPaddingSize;
    int32_t bottomPaddingSize;
    int8_t cscSwitch;
    int8_t rbuvSwapSwitch;
    int8_t axSwapSwitch;
    int8_t singleLineMode;
    int32_t matrixR0C0;
    int32_t matrixR0C1;
    int32_t matrixR0C2;
    int32_t matrixR1C0;
    int32_t matrixR1C1;
    int32_t matrixR1C2;
    int32_t matrixR2C0;
    int32_t matrixR2C1;
    int32_t matrixR2C2;
    int32_t outputBias0;
    int32_t outputBias1;
    int32_t outputBias2;
    int32_t inputBias0;
    int32_t inputBias1;
    int32_t inputBias2;
    int32_t meanChn0;
    int32_t meanChn1;
    int32_t meanChn2;
    int32_t meanChn3;
    float minChn0;
    float minChn1;
    float minChn2;
    float minChn3;
    float varReciChn0;
    float varReciChn1;
    float varReciChn2;
    float varReciChn3;
    aclFormat srcFormat;
    aclDataType srcDatatype;
    size_t srcDimNum;
    size_t shapeCount;
    aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
    aclAippExtendInfo *aippExtend;       /* reserved, must be NULL */
} aclAippInfo;

typedef struct aclmdlExeOMDesc {
    size_t workSize;
    size_t weightSize;
    size_t modelDescSize;
    size_t kernelSize;
    size_t kernelArgsSize;
    size_t staticTaskSize;
    size_t dynamicTaskSize;
    size_t fifoTaskSize;
    size_t reserved[8];
} aclmdlExeOMDesc;

/* ======================================================================
 * Model description
 * ====================================================================== */

/* New empty description; the caller owns it (aclmdlDestroyDesc). NULL when
 * out of memory. */
ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);

/* Frees a description; strings returned by its getters die with it. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc);

/* Fills modelDesc from a loaded model (a snapshot: it stays valid after the
 * model is unloaded). Unknown id → ACL_ERROR_INVALID_MODEL_ID. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId);

/* Fills modelDesc from a model file / memory image without loading it for
 * execution (the model is parsed and planned, then released). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromFile(aclmdlDesc *modelDesc, const char *modelPath);
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromMem(aclmdlDesc *modelDesc, const void *model, size_t modelSize);

/* Input / output counts; 0 for NULL. */
ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc);

/* Bytes of input/output `index`; 0 for a NULL desc, a bad index, or a
 * tensor whose shape is only known at execution (dynamic dims): size such
 * buffers yourself, or pass (NULL,0) output buffers to aclmdlExecute. */
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index);

/* ======================================================================
 * Execute-config handle
 * ====================================================================== */

/* New execute-config object; caller owns it. */
ACL_FUNC_VISIBILITY aclmdlExecConfigHandle *aclmdlCreateExecConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyExecConfigHandle(const aclmdlExecConfigHandle *handle);

/* ======================================================================
 * Datasets
 * A dataset is an ordered list of aclDataBuffer pointers: position i is
 * model input/output i. It never owns the buffers nor their memory; it owns
 * the tensor descriptors set with aclmdlSetDatasetTensorDesc (copies).
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);

/* Frees the container and the tensor descriptors it owns; the data buffers
 * and their memory are untouched. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);

/* Appends dataBuffer (not copied: it must outlive the dataset's use). */
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer);

/* Attaches a copy of tensorDesc to entry `index` (which must exist): the
 * actual shape of a dynamic input. NULL removes it. The caller keeps
 * ownership of tensorDesc. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset, aclTensorDesc *tensorDesc,
                                                        size_t index);

/* The descriptor of entry `index`, owned by the dataset (valid until the
 * next Set or Destroy). After an execution, output entries carry the actual
 * output shape and type. NULL when none or on a bad index. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclmdlGetDatasetTensorDesc(const aclmdlDataset *dataset, size_t index);

ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index);

/* ======================================================================
 * Load / unload
 * The format is recognised by content (ONNX protobuf or openacl compiled
 * model). The model's folder is where external data files are looked up.
 * *modelId receives a new id; ids are not reused within a process (until
 * 2^32 loads). The thread's current context is recorded with the model.
 * ====================================================================== */

/* Runtime-managed work and weight memory (counted by aclrtGetMemInfo). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId);

/* Bundle (multi-model) files are not supported: ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclmdlBundleLoadFromFile(const char *modelPath, uint32_t *bundleId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleLoadFromMem(const void *model, size_t modelSize, uint32_t *bundleId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleUnload(uint32_t bundleId);

/* The image at `model` is only read during the call. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId);

/* Caller-owned work / weight memory (from aclrtMalloc). Either pointer may
 * be NULL (the runtime manages that part; its size is ignored). A size
 * smaller than aclmdlQuerySize reports → ACL_ERROR_INVALID_PARAM with both
 * numbers. The memory must stay allocated until aclmdlUnload. One work area
 * may be shared by models that never execute at the same time. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId, void *workPtr,
                                                       size_t workSize, void *weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize, uint32_t *modelId,
                                                      void *workPtr, size_t workSize, void *weightPtr,
                                                      size_t weightSize);

/* Queue-driven models: not supported (ACL_ERROR_FEATURE_UNSUPPORTED). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithQ(const char *modelPath, uint32_t *modelId, const uint32_t *inputQ,
                                                     size_t inputQNum, const uint32_t *outputQ, size_t outputQNum);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithQ(const void *model, size_t modelSize, uint32_t *modelId,
                                                    const uint32_t *inputQ, size_t inputQNum,
                                                    const uint32_t *outputQ, size_t outputQNum);

/* ======================================================================
 * Execute
 * Inputs/outputs are aclDataBuffers holding memory from aclrtMalloc* (or
 * aclrtMallocHost); other pointers → ACL_ERROR_INVALID_PARAM naming the
 * index. Dataset counts must equal the model's (ACL_ERROR_MODEL_INPUT_NOT_MATCH
 * / ACL_ERROR_MODEL_OUTPUT_NOT_MATCH); an input buffer smaller than the
 * input's size → ACL_ERROR_INVALID_PARAM stating expected and given bytes;
 * larger is accepted (the prefix is used). Input data is read in the
 * model's declared type (aclmdlGetInputDataType), e.g. float16.
 * Dynamic inputs: the shape is taken from the dataset's tensor descriptor
 * of that entry (aclmdlSetDatasetTensorDesc), else from the static dims.
 * An output entry (NULL,0) is allocated by the runtime during execution and
 * written back into the aclDataBuffer; free it with aclrtFree.
 * Output entries get a tensor descriptor with the actual shape.
 * Several threads may execute one model id: executions are serialised.
 * ====================================================================== */

/* Synchronous: returns when the outputs are written. Runs on the calling
 * thread, ordered after nothing (no stream). */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output);

/* Synchronous execute with a stream argument (ignored except for context
 * checks) and an optional execute-config handle. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteV2(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                                             aclrtStream stream, const aclmdlExecConfigHandle *handle);

/* Asynchronous: enqueues the execution on `stream` (NULL = default stream of
 * the current context), ordered with the stream's other tasks; callbacks
 * launched after it run after it. Validation errors are returned at once;
 * errors of the execution itself are reported by aclrtSynchronizeStream.
 * The datasets, their buffers and memory must stay alive and unchanged until
 * the stream has passed the task. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                                                aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsyncV2(uint32_t modelId, const aclmdlDataset *input,
                                                  aclmdlDataset *output, aclrtStream stream,
                                                  const aclmdlExecConfigHandle *handle);

/* Unloads; waits for executions of this model already running and frees
 * runtime-owned memory (caller-owned work/weight memory is left alone).
 * Unknown or already unloaded id → ACL_ERROR_INVALID_MODEL_ID. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);

/* Work and weight bytes a *WithMem load of this model needs, from the static
 * memory plan. A model whose shapes are only known at execution reports
 * work 0 (its work memory is managed per execution). */
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize, size_t *workSize,
                                                    size_t *weightSize);

/* Work bytes for a memory-optimisation mode (ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT
 * or _INPUTOUTPUT; others → ACL_ERROR_INVALID_PARAM). openacl keeps inputs
 * and outputs in the caller's buffers in both modes, so both report the
 * aclmdlQuerySize work size. (Declared by the newest CANN headers.) */
ACL_FUNC_VISIBILITY aclError aclmdlQueryWorkspaceSize(const char *fileName, size_t memOptimizeMode, size_t *workSize);
ACL_FUNC_VISIBILITY aclError aclmdlQueryWorkspaceSizeFromMem(const void *model, size_t modelSize,
                                                             size_t memOptimizeMode, size_t *workSize);

/* ======================================================================
 * Gears (dynamic batch / HW / dims). Models loaded from ONNX have no gears
 * (their dynamic dims are set per execution with aclmdlSetDatasetTensorDesc),
 * so the getters report none. The setters check their arguments (0 values,
 * index outside the dataset, NULL buffer → ACL_ERROR_INVALID_PARAM) and then
 * fail with ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID (145013): the value is
 * not one of the model's (zero) gears. `index` is the gear input's index
 * (aclmdlGetInputIndexByName with ACL_DYNAMIC_TENSOR_NAME).
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                    uint64_t height, uint64_t width);
ACL_FUNC_VISIBILITY aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlIODims *dims);

/* ======================================================================
 * Description getters. `index` counts from 0; out-of-range → error / 0 /
 * NULL as stated. Formats: ACL_FORMAT_NCHW for 4-D tensors, ACL_FORMAT_ND
 * otherwise (ONNX tensors are NCHW by definition). Names longer than 127
 * characters are replaced by "acl_modelId_<id>_input_<i>_<n>" (or _output_)
 * in aclmdlIODims.name; aclmdlGetTensorRealName maps back. The strings
 * returned belong to the desc.
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* Per-dim [min,max]; a fixed dim d gives [d,d], a dynamic one [1,-1]. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsRange(const aclmdlDesc *modelDesc, size_t index,
                                                     aclmdlIODimsRange *dimsRange);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* Same as aclmdlGetOutputDims while models have no gears. */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);

/* Op attribute: only ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES is known;
 * openacl keeps no such record: returns NULL. */
ACL_FUNC_VISIBILITY const char *aclmdlGetOpAttr(aclmdlDesc *modelDesc, const char *opName, const char *attr);

/* Tensor names (real, un-aliased names); NULL on a bad index. */
ACL_FUNC_VISIBILITY const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc, size_t index);

ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index);

/* The model's declared element type; ACL_DT_UNDEFINED for NULL/bad index. */
ACL_FUNC_VISIBILITY aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index);

/* Exact-match lookup of a real name or alias; unknown → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc, const char *name,
                                                       size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc, const char *name,
                                                        size_t *index);

/* batchCount = 0 (and ACL_SUCCESS): no batch gears. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc, aclmdlBatch *batch);
/* hwCount = 0: no HW gears. `index` is reserved (pass -1). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc, size_t index, aclmdlHW *hw);
/* `index` must be (size_t)-1; *gearCount = 0: no dims gears. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc *modelDesc, size_t index,
                                                            size_t *gearCount);
/* `index` must be (size_t)-1; gearCount must be >= the model's count. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims,
                                                       size_t gearCount);

/* ======================================================================
 * AIPP (image pre-processing on the AI core): not supported by openacl.
 * Every function returns ACL_ERROR_FEATURE_UNSUPPORTED (NULL for the
 * creator) with a message, except aclmdlGetAippType which reports
 * ACL_DATA_WITHOUT_AIPP for every input of a loaded model.
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t *size);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPInputFormat(aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCscParams(aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                                    int16_t cscMatrixR0C1, int16_t cscMatrixR0C2,
                                                    int16_t cscMatrixR1C0, int16_t cscMatrixR1C1,
                                                    int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                                    int16_t cscMatrixR2C1, int16_t cscMatrixR2C2,
                                                    uint8_t cscOutputBiasR0, uint8_t cscOutputBiasR1,
                                                    uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                                    uint8_t cscInputBiasR1, uint8_t cscInputBiasR2);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW,
                                                       int32_t srcImageSizeH);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPScfParams(aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                                    int32_t scfInputSizeH, int32_t scfOutputSizeW,
                                                    int32_t scfOutputSizeH, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCropParams(aclmdlAIPP *aippParmsSet, int8_t cropSwitch,
                                                     int32_t cropStartPosW, int32_t cropStartPosH, int32_t cropSizeW,
                                                     int32_t cropSizeH, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP *aippParmsSet, int8_t paddingSwitch,
                                                        int32_t paddingSizeTop, int32_t paddingSizeBottom,
                                                        int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                                        uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0,
                                                       int16_t dtcPixelMeanChn1, int16_t dtcPixelMeanChn2,
                                                       int16_t dtcPixelMeanChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0,
                                                      float dtcPixelMinChn1, float dtcPixelMinChn2,
                                                      float dtcPixelMinChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0,
                                                       float dtcPixelVarReciChn1, float dtcPixelVarReciChn2,
                                                       float dtcPixelVarReciChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType *type,
                                               size_t *dynamicAttachedDataIndex);
/* No input has static AIPP: ACL_ERROR_GE_AIPP_NOT_EXIST for valid indices. */
ACL_FUNC_VISIBILITY aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo *aippInfo);

/* ======================================================================
 * Debugging
 * ====================================================================== */

/* Exception debugging of a failed device task: no device tasks exist in
 * openacl → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclmdlCreateAndGetOpDesc(uint32_t deviceId, uint32_t streamId, uint32_t taskId,
                                                      char *opName, size_t opNameLen, aclTensorDesc **inputDesc,
                                                      size_t *numInputs, aclTensorDesc **outputDesc,
                                                      size_t *numOutputs);

/* Operator data dump (declared here up to CANN 2024-08, in acl_rt.h from
 * CANN 8.5). openacl has no dump facility: aclmdlInitDump / aclmdlFinalizeDump
 * only track the state (init twice → ACL_ERROR_DUMP_ALREADY_RUN, finalize
 * without init → ACL_ERROR_DUMP_NOT_RUN); aclmdlSetDump →
 * ACL_ERROR_FEATURE_UNSUPPORTED. All need aclInit. */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

/* Maps an alias from aclmdlIODims.name (or a real name) to the real tensor
 * name, owned by the desc; NULL when unknown. */
ACL_FUNC_VISIBILITY const char *aclmdlGetTensorRealName(const aclmdlDesc *modelDesc, const char *name);

/* ======================================================================
 * Load-config handle
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclmdlConfigHandle *aclmdlCreateConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyConfigHandle(aclmdlConfigHandle *handle);

/* Sets one attribute; attrValue points at the value (for *_PTR attributes at
 * the pointer) and valueSize is sizeof that value; a wrong size →
 * ACL_ERROR_INVALID_PARAM. Attributes openacl cannot honour (queues,
 * kernel/task partitions, FIFO, ...) are refused with
 * ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclmdlSetConfigOpt(aclmdlConfigHandle *handle, aclmdlConfigAttr attr,
                                                const void *attrValue, size_t valueSize);

/* Sets one execute-config attribute. Timeouts, work memory and priority are
 * accepted (work memory is used like the *WithMem work area); the
 * hardware-QoS attributes are accepted and ignored. */
ACL_FUNC_VISIBILITY aclError aclmdlSetExecConfigOpt(aclmdlExecConfigHandle *handle, aclmdlExecConfigAttr attr,
                                                    const void *attrValue, size_t valueSize);

/* Loads according to the handle: ACL_MDL_LOAD_FROM_FILE / _FILE_WITH_MEM /
 * _MEM / _MEM_WITH_MEM are supported, the queue types → ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadWithConfig(const aclmdlConfigHandle *handle, uint32_t *modelId);

/* In-process compiled model objects do not exist in openacl → unsupported. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromModel(const aclmdlModel *model, const aclmdlConfigHandle *handle,
                                                 uint32_t *modelId);

/* Partition sizes of a compiled (.om / .exeom) file: openacl fills workSize
 * and weightSize (like aclmdlQuerySize), the rest 0. */
ACL_FUNC_VISIBILITY aclError aclmdlQueryExeOMDesc(const char *fileName, aclmdlExeOMDesc *mdlPartitionSize);

/* Caller-owned memory for an external weight file: unsupported. */
ACL_FUNC_VISIBILITY aclError aclmdlSetExternalWeightAddress(aclmdlConfigHandle *handle, const char *weightFileName,
                                                            void *devPtr, size_t size);

/* ======================================================================
 * Bundles (multi-model files): not supported by openacl; every function
 * returns ACL_ERROR_FEATURE_UNSUPPORTED (NULL for the creator).
 * ====================================================================== */

ACL_FUNC_VISIBILITY aclError aclmdlBundleGetModelNum(uint32_t bundleId, size_t *modelNum);
ACL_FUNC_VISIBILITY aclError aclmdlBundleGetModelId(uint32_t bundleId, size_t index, uint32_t *modelId);
ACL_FUNC_VISIBILITY aclmdlBundleQueryInfo *aclmdlBundleCreateQueryInfo(void);
ACL_FUNC_VISIBILITY aclError aclmdlBundleDestroyQueryInfo(aclmdlBundleQueryInfo *queryInfo);
ACL_FUNC_VISIBILITY aclError aclmdlBundleQueryInfoFromFile(const char *fileName, aclmdlBundleQueryInfo *queryInfo);
ACL_FUNC_VISIBILITY aclError aclmdlBundleQueryInfoFromMem(const void *model, size_t modelSize,
                                                          aclmdlBundleQueryInfo *queryInfo);
ACL_FUNC_VISIBILITY aclError aclmdlBundleGetQueryModelNum(const aclmdlBundleQueryInfo *queryInfo, size_t *modelNum);
ACL_FUNC_VISIBILITY aclError aclmdlBundleGetVarWeightSize(const aclmdlBundleQueryInfo *queryInfo,
                                                          size_t *variableWeightSize);
ACL_FUNC_VISIBILITY aclError aclmdlBundleGetSize(const aclmdlBundleQueryInfo *queryInfo, size_t index,
                                                 size_t *workSize, size_t *constWeightSize);
ACL_FUNC_VISIBILITY aclError aclmdlBundleInitFromFile(const char *modelPath, void *varWeightPtr, size_t varWeightSize,
                                                      uint32_t *bundleId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleInitFromMem(const void *model, size_t modelSize, void *varWeightPtr,
                                                     size_t varWeightSize, uint32_t *bundleId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleLoadModel(uint32_t bundleId, size_t index, uint32_t *modelId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleLoadModelWithMem(uint32_t bundleId, size_t index, void *workPtr,
                                                          size_t workSize, void *weightPtr, size_t weightSize,
                                                          uint32_t *modelId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleLoadModelWithConfig(uint32_t bundleId, size_t index,
                                                             aclmdlConfigHandle *handle, uint32_t *modelId);
ACL_FUNC_VISIBILITY aclError aclmdlBundleUnloadModel(uint32_t bundleId, uint32_t modelId);

/* ======================================================================
 * Model attributes (CANN 9.1+)
 * ====================================================================== */

/* Stores the priority (0..7, else ACL_ERROR_INVALID_PARAM) of a loaded
 * model. openacl records it; scheduling does not use it yet. */
ACL_FUNC_VISIBILITY aclError aclmdlSetAttribute(uint32_t modelId, aclmdlAttr attr, aclmdlAttrValue_t *attrValue);
ACL_FUNC_VISIBILITY aclError aclmdlGetAttribute(uint32_t modelId, aclmdlAttr attr, aclmdlAttrValue_t *attrValue);

/* HCCL (collective communication) recovery: no HCCL in openacl →
 * ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclRecoverAllHcclTasks(int32_t deviceId);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_MODEL_H_ */
