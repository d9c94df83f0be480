/* The model part of the fuzz targets: load an image from memory, read its
 * description, execute it once on zeroed inputs (dynamic dims set to 1,
 * runtime-allocated outputs), unload. Shared by fuzz_onnx and fuzz_om. */
#ifndef OPENACL_TESTS_FUZZ_MODEL_H
#define OPENACL_TESTS_FUZZ_MODEL_H

#include <stdint.h>

#include "fuzz_common.h"

#define FZ_MAX_IO 64
#define FZ_MAX_INPUT_BYTES ((size_t)16 << 20)

/* Reads every getter of the description (catches bad strings and indices). */
static void walk_desc(aclmdlDesc *d)
{
    size_t ni = aclmdlGetNumInputs(d), no = aclmdlGetNumOutputs(d);
    for (size_t i = 0; i <= ni; i++) {   /* one past the end on purpose */
        aclmdlIODims dims;
        aclmdlGetInputDims(d, i, &dims);
        aclmdlGetInputSizeByIndex(d, i);
        aclmdlGetInputFormat(d, i);
        aclmdlGetInputDataType(d, i);
        const char *n = aclmdlGetInputNameByIndex(d, i);
        size_t k;
        if (n && aclmdlGetInputIndexByName(d, n, &k) == ACL_SUCCESS && k > ni) abort();
        aclmdlIODimsRange r;
        aclmdlGetInputDimsRange(d, i, &r);
    }
    for (size_t i = 0; i <= no; i++) {
        aclmdlIODims dims;
        aclmdlGetOutputDims(d, i, &dims);
        aclmdlGetOutputSizeByIndex(d, i);
        aclmdlGetOutputDataType(d, i);
        const char *n = aclmdlGetOutputNameByIndex(d, i);
        if (n) aclmdlGetTensorRealName(d, n);
    }
    aclGetRecentErrMsg();
}

/* A model with gears (compiled with dynamic batch / image size / dims)
 * runs only once a gear is chosen: take the first. */
static void select_gear(uint32_t id, aclmdlDesc *d, aclmdlDataset *in)
{
    size_t gi = 0;
    if (aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &gi) != ACL_SUCCESS) {
        aclGetRecentErrMsg();
        return;
    }
    aclmdlBatch batch;
    aclmdlHW hw;
    size_t n = 0;
    if (aclmdlGetDynamicBatch(d, &batch) == ACL_SUCCESS && batch.batchCount > 0) {
        aclmdlSetDynamicBatchSize(id, in, gi, batch.batch[0]);
    } else if (aclmdlGetDynamicHW(d, (size_t)-1, &hw) == ACL_SUCCESS && hw.hwCount > 0) {
        aclmdlSetDynamicHWSize(id, in, gi, hw.hw[0][0], hw.hw[0][1]);
    } else if (aclmdlGetInputDynamicGearCount(d, (size_t)-1, &n) == ACL_SUCCESS && n > 0 && n <= ACL_MAX_SHAPE_COUNT) {
        aclmdlIODims *dims = calloc(n, sizeof *dims);
        if (dims && aclmdlGetInputDynamicDims(d, (size_t)-1, dims, n) == ACL_SUCCESS)
            aclmdlSetInputDynamicDims(id, in, gi, &dims[0]);
        free(dims);
    }
    aclGetRecentErrMsg();
}

static void run_once(uint32_t id, aclmdlDesc *d)
{
    size_t ni = aclmdlGetNumInputs(d), no = aclmdlGetNumOutputs(d);
    if (ni > FZ_MAX_IO || no > FZ_MAX_IO) return;
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    void *mem[FZ_MAX_IO] = { 0 };
    aclTensorDesc *tds[FZ_MAX_IO] = { 0 };
    size_t total = 0;
    int ok = in && out;
    for (size_t i = 0; ok && i < ni; i++) {
        aclmdlIODims dims;
        if (aclmdlGetInputDims(d, i, &dims) || dims.dimCount > 16) { ok = 0; break; }
        aclDataType dt = aclmdlGetInputDataType(d, i);
        size_t es = aclDataTypeSize(dt), n = 1;
        int dynamic = 0;
        for (size_t k = 0; k < dims.dimCount; k++) {
            if (dims.dims[k] < 0) { dims.dims[k] = 1; dynamic = 1; }
            if (dims.dims[k] > 0 && n > FZ_MAX_INPUT_BYTES / (size_t)dims.dims[k]) { ok = 0; break; }
            n *= (size_t)dims.dims[k];
        }
        if (!ok || es == 0 || n > FZ_MAX_INPUT_BYTES / es) { ok = 0; break; }
        size_t bytes = n * es;
        total += bytes;
        if (total > FZ_MAX_INPUT_BYTES) { ok = 0; break; }
        if (aclrtMalloc(&mem[i], bytes ? bytes : 1, ACL_MEM_MALLOC_NORMAL_ONLY)) { ok = 0; break; }
        aclrtMemset(mem[i], bytes ? bytes : 1, 0, bytes ? bytes : 1);
        aclDataBuffer *b = aclCreateDataBuffer(mem[i], bytes);
        if (!b || aclmdlAddDatasetBuffer(in, b)) { aclDestroyDataBuffer(b); ok = 0; break; }
        if (dynamic) {
            tds[i] = aclCreateTensorDesc(dt, (int)dims.dimCount, dims.dims, ACL_FORMAT_ND);
            if (!tds[i] || aclmdlSetDatasetTensorDesc(in, tds[i], i)) ok = 0;
        }
    }
    for (size_t i = 0; ok && i < no; i++) {
        aclDataBuffer *b = aclCreateDataBuffer(NULL, 0);   /* runtime-allocated */
        if (!b || aclmdlAddDatasetBuffer(out, b)) { aclDestroyDataBuffer(b); ok = 0; }
    }
    if (ok) select_gear(id, d, in);
    if (ok) aclmdlExecute(id, in, out);
    aclGetRecentErrMsg();
    for (size_t i = 0; out && i < aclmdlGetDatasetNumBuffers(out); i++) {
        aclDataBuffer *b = aclmdlGetDatasetBuffer(out, i);
        void *p = aclGetDataBufferAddr(b);
        if (p) aclrtFree(p);
        aclDestroyDataBuffer(b);
    }
    for (size_t i = 0; in && i < aclmdlGetDatasetNumBuffers(in); i++)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, i));
    for (size_t i = 0; i < ni && i < FZ_MAX_IO; i++) {
        if (mem[i]) aclrtFree(mem[i]);
        if (tds[i]) aclDestroyTensorDesc(tds[i]);
    }
    if (in) aclmdlDestroyDataset(in);
    if (out) aclmdlDestroyDataset(out);
}

/* Set by a target that judged the model too heavy to execute (fuzz_onnx.c:
 * window ops whose work alone would take seconds): it is still loaded,
 * described and unloaded. */
static int fz_skip_run;

/* Loads an image from memory; when it loads, reads its description, runs
 * it once (unless fz_skip_run) and unloads it. */
static void fz_model_one(const uint8_t *data, size_t size)
{
    uint32_t id = 0;
    if (size == 0) return;
    if (aclmdlLoadFromMem(data, size, &id) != ACL_SUCCESS) {
        if (!aclGetRecentErrMsg()) abort();   /* every refusal carries a message */
        return;
    }
    aclmdlDesc *d = aclmdlCreateDesc();
    if (d && aclmdlGetDesc(d, id) == ACL_SUCCESS) {
        walk_desc(d);
        if (!fz_skip_run) run_once(id, d);
    }
    if (d) aclmdlDestroyDesc(d);
    if (aclmdlUnload(id) != ACL_SUCCESS) abort();
    aclGetRecentErrMsg();
}

#endif
