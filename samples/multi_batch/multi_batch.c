/* multi_batch: feeding a model compiled for a fixed batch (e.g. 8) from a
 * list of single-item input files.
 *
 * Items are packed BATCH at a time into one input buffer. The number of
 * files rarely divides evenly, so the last batch is padded with zeros up to
 * the model's batch and the outputs of the padded rows are ignored. The
 * batch size is read from the model (dim 0 of input 0), and the size of one
 * item is the input size divided by it.
 *
 * Usage: multi_batch MODEL OUT_DIR ITEM.bin [ITEM.bin ...]
 *   each file holds one item (input size / batch bytes); the outputs of
 *   item dir/NAME.bin are written as OUT_DIR/NAME_output_<i>.bin. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_utils.h"

#define MAX_OUT 8

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR ITEM.bin [ITEM.bin ...]\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *out_dir = argv[2];
    int n_items = argc - 3;
    int status = 1, acl_ready = 0, device_set = 0, model_loaded = 0;
    int32_t device_id = 0;
    aclrtContext context = NULL;
    uint32_t model_id = 0;
    aclmdlDesc *desc = NULL;
    aclmdlDataset *inputs = NULL, *outputs = NULL;
    void *in_dev = NULL, *in_host = NULL;
    void *out_dev[MAX_OUT] = {0}, *out_host[MAX_OUT] = {0};
    size_t out_size[MAX_OUT] = {0};
    size_t n_out = 0;

    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtSetDevice(device_id));
    device_set = 1;
    CHECK_ACL(aclrtCreateContext(&context, device_id));
    CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
    model_loaded = 1;
    desc = aclmdlCreateDesc();
    if (desc == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlGetDesc(desc, model_id));
    n_out = aclmdlGetNumOutputs(desc);
    if (aclmdlGetNumInputs(desc) != 1 || n_out > MAX_OUT) {
        fprintf(stderr, "this sample needs a model with one input and at most %d outputs\n", MAX_OUT);
        goto cleanup;
    }

    /* The batch is the first dim of the input (static here: a gear model
     * would report -1 and take its batch from aclmdlSetDynamicBatchSize). */
    aclmdlIODims dims;
    CHECK_ACL(aclmdlGetInputDims(desc, 0, &dims));
    if (dims.dimCount < 1 || dims.dims[0] < 1) {
        fprintf(stderr, "input 0 has no fixed batch dim\n");
        goto cleanup;
    }
    size_t batch = (size_t)dims.dims[0];
    size_t in_size = aclmdlGetInputSizeByIndex(desc, 0);
    size_t in_item = in_size / batch;
    printf("model batch %zu: %zu bytes per input item, %d item(s) -> %zu execution(s)\n", batch, in_item, n_items,
           ((size_t)n_items + batch - 1) / batch);

    /* One set of buffers, reused by every execution: a host staging buffer
     * for packing, the device input, and per output a device buffer and a
     * host copy. aclrtMallocHost gives page-locked host memory, the best
     * source and target for copies to and from the device. */
    CHECK_ACL(aclrtMallocHost(&in_host, in_size));
    CHECK_ACL(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
    inputs = aclmdlCreateDataset();
    outputs = aclmdlCreateDataset();
    if (inputs == NULL || outputs == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlAddDatasetBuffer(inputs, aclCreateDataBuffer(in_dev, in_size)));
    for (size_t i = 0; i < n_out; i++) {
        out_size[i] = aclmdlGetOutputSizeByIndex(desc, i);
        CHECK_ACL(aclrtMalloc(&out_dev[i], out_size[i], ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_ACL(aclrtMallocHost(&out_host[i], out_size[i]));
        CHECK_ACL(aclmdlAddDatasetBuffer(outputs, aclCreateDataBuffer(out_dev[i], out_size[i])));
    }

    for (int first = 0; first < n_items; first += (int)batch) {
        int real = n_items - first < (int)batch ? n_items - first : (int)batch;
        /* Pack the real items, then zero the rest of the batch: padded rows
         * must hold valid numbers, and zeros are the neutral choice. */
        for (int k = 0; k < real; k++) {
            size_t file_size = 0;
            void *item = sample_read_file(argv[3 + first + k], &file_size);
            if (item == NULL)
                goto cleanup;
            if (file_size != in_item) {
                fprintf(stderr, "%s has %zu bytes, one item is %zu\n", argv[3 + first + k], file_size, in_item);
                free(item);
                goto cleanup;
            }
            memcpy((char *)in_host + (size_t)k * in_item, item, in_item);
            free(item);
        }
        memset((char *)in_host + (size_t)real * in_item, 0, (batch - (size_t)real) * in_item);

        CHECK_ACL(aclrtMemcpy(in_dev, in_size, in_host, in_size, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_ACL(aclmdlExecute(model_id, inputs, outputs));
        printf("batch at item %d: %d real, %zu padded\n", first, real, batch - (size_t)real);

        /* Every output has the batch as its first dim too: row k belongs to
         * item k. Rows of padded items are simply not saved. */
        for (size_t i = 0; i < n_out; i++) {
            size_t out_item = out_size[i] / batch;
            CHECK_ACL(aclrtMemcpy(out_host[i], out_size[i], out_dev[i], out_size[i], ACL_MEMCPY_DEVICE_TO_HOST));
            for (int k = 0; k < real; k++) {
                char stem[256], path[4096];
                sample_stem(argv[3 + first + k], stem, sizeof stem);
                snprintf(path, sizeof path, "%s/%s_output_%zu.bin", out_dir, stem, i);
                if (sample_write_file(path, (char *)out_host[i] + (size_t)k * out_item, out_item))
                    goto cleanup;
            }
        }
    }
    printf("multi_batch: done\n");
    status = 0;

cleanup:
    if (inputs != NULL) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(inputs); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(inputs, i));
        aclmdlDestroyDataset(inputs);
    }
    if (outputs != NULL) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(outputs); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(outputs, i));
        aclmdlDestroyDataset(outputs);
    }
    if (in_dev != NULL)
        aclrtFree(in_dev);
    if (in_host != NULL)
        aclrtFreeHost(in_host);
    for (size_t i = 0; i < MAX_OUT; i++) {
        if (out_dev[i] != NULL)
            aclrtFree(out_dev[i]);
        if (out_host[i] != NULL)
            aclrtFreeHost(out_host[i]);
    }
    if (model_loaded)
        aclmdlUnload(model_id);
    if (desc != NULL)
        aclmdlDestroyDesc(desc);
    if (context != NULL)
        aclrtDestroyContext(context);
    if (device_set)
        aclrtResetDevice(device_id);
    if (acl_ready)
        aclFinalize();
    return status;
}
