/* sync_infer: the complete synchronous AscendCL inference flow, step by step,
 * in the order the API documents it:
 *
 *   aclInit -> aclrtSetDevice -> aclrtCreateContext -> aclrtCreateStream
 *   -> aclmdlLoadFromFile -> aclmdlCreateDesc/aclmdlGetDesc
 *   -> input and output datasets built from the description
 *   -> aclmdlExecute -> read the outputs back
 *   -> release everything in reverse order -> aclrtResetDevice -> aclFinalize
 *
 * Usage: sync_infer MODEL OUT_DIR INPUT0.bin [INPUT1.bin ...]
 *   one raw input file per model input, in input-index order; the outputs
 *   are written as OUT_DIR/output_<i>.bin. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_utils.h"

#define MAX_IO 16

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR INPUT0.bin [INPUT1.bin ...]\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *out_dir = argv[2];
    int status = 1;
    int32_t device_id = 0;
    int device_set = 0, acl_ready = 0, model_loaded = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    uint32_t model_id = 0;
    aclmdlDesc *desc = NULL;
    aclmdlDataset *inputs = NULL, *outputs = NULL;
    void *in_dev[MAX_IO] = {0}, *out_dev[MAX_IO] = {0};
    size_t n_in = 0, n_out = 0;

    /* 1. Initialise the library once per process. NULL: no configuration
     *    file (a JSON path would go here). */
    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;

    /* 2. Bind this thread to a device. This also creates the device's
     *    default context and stream. */
    CHECK_ACL(aclrtSetDevice(device_id));
    device_set = 1;

    /* 3. An explicit context and stream of our own. The context becomes
     *    current for this thread; models and memory created from now on
     *    belong to it, and load, execute and unload must all happen under
     *    it. The stream is not needed by aclmdlExecute (synchronous), but it
     *    is the object any asynchronous work of this context would go to. */
    CHECK_ACL(aclrtCreateContext(&context, device_id));
    CHECK_ACL(aclrtCreateStream(&stream));

    /* 4. Load the model: the runtime reads the file (ONNX here; a compiled
     *    model would load the same way), prepares it and returns an id. */
    CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
    model_loaded = 1;

    /* 5. The description tells everything needed to feed the model: how
     *    many inputs and outputs, their names, shapes, types and byte sizes. */
    desc = aclmdlCreateDesc();
    if (desc == NULL) {
        fprintf(stderr, "aclmdlCreateDesc failed\n");
        goto cleanup;
    }
    CHECK_ACL(aclmdlGetDesc(desc, model_id));
    n_in = aclmdlGetNumInputs(desc);
    n_out = aclmdlGetNumOutputs(desc);
    if (n_in > MAX_IO || n_out > MAX_IO) {
        fprintf(stderr, "this sample handles at most %d inputs and outputs\n", MAX_IO);
        goto cleanup;
    }
    if ((size_t)(argc - 3) != n_in) {
        fprintf(stderr, "the model has %zu input(s) but %d file(s) were given\n", n_in, argc - 3);
        goto cleanup;
    }

    /* 6. The input dataset: one aclDataBuffer per input, added in index
     *    order, because a buffer's position in the dataset IS the input
     *    index. Each buffer is device memory of the size the description
     *    gives. */
    inputs = aclmdlCreateDataset();
    if (inputs == NULL)
        goto cleanup;
    for (size_t i = 0; i < n_in; i++) {
        size_t size = aclmdlGetInputSizeByIndex(desc, i);
        size_t file_size = 0;
        printf("input %zu: %s, %zu bytes\n", i, aclmdlGetInputNameByIndex(desc, i), size);
        void *host = sample_read_file(argv[3 + i], &file_size);
        if (host == NULL)
            goto cleanup;
        if (file_size != size) {
            fprintf(stderr, "%s has %zu bytes, input %zu needs %zu\n", argv[3 + i], file_size, i, size);
            free(host);
            goto cleanup;
        }
        /* Device memory, then a host-to-device copy. (On a device that
         * runs the application itself, aclrtGetRunMode() == ACL_DEVICE, the
         * copy could be skipped; copying always is correct everywhere.) */
        aclError rc = aclrtMalloc(&in_dev[i], size, ACL_MEM_MALLOC_HUGE_FIRST);
        if (rc == ACL_SUCCESS)
            rc = aclrtMemcpy(in_dev[i], size, host, size, ACL_MEMCPY_HOST_TO_DEVICE);
        free(host);
        CHECK_ACL(rc);
        aclDataBuffer *buf = aclCreateDataBuffer(in_dev[i], size);
        if (buf == NULL)
            goto cleanup;
        /* The dataset does not own the buffer: it is destroyed separately. */
        rc = aclmdlAddDatasetBuffer(inputs, buf);
        if (rc != ACL_SUCCESS)
            aclDestroyDataBuffer(buf);
        CHECK_ACL(rc);
    }

    /* 7. The output dataset, built the same way from the output sizes. */
    outputs = aclmdlCreateDataset();
    if (outputs == NULL)
        goto cleanup;
    for (size_t i = 0; i < n_out; i++) {
        size_t size = aclmdlGetOutputSizeByIndex(desc, i);
        printf("output %zu: %s, %zu bytes\n", i, aclmdlGetOutputNameByIndex(desc, i), size);
        CHECK_ACL(aclrtMalloc(&out_dev[i], size, ACL_MEM_MALLOC_HUGE_FIRST));
        aclDataBuffer *buf = aclCreateDataBuffer(out_dev[i], size);
        if (buf == NULL)
            goto cleanup;
        aclError rc = aclmdlAddDatasetBuffer(outputs, buf);
        if (rc != ACL_SUCCESS)
            aclDestroyDataBuffer(buf);
        CHECK_ACL(rc);
    }

    /* 8. Run. aclmdlExecute returns when the outputs are complete. */
    CHECK_ACL(aclmdlExecute(model_id, inputs, outputs));

    /* 9. Copy every output back to the host and keep it. */
    for (size_t i = 0; i < n_out; i++) {
        size_t size = aclmdlGetOutputSizeByIndex(desc, i);
        void *host = malloc(size);
        char path[4096];
        if (host == NULL)
            goto cleanup;
        aclError rc = aclrtMemcpy(host, size, out_dev[i], size, ACL_MEMCPY_DEVICE_TO_HOST);
        if (rc != ACL_SUCCESS)
            free(host);
        CHECK_ACL(rc);
        if (i == 0 && aclmdlGetOutputDataType(desc, 0) == ACL_FLOAT)
            sample_print_top("output 0", host, size / sizeof(float), 5);
        snprintf(path, sizeof path, "%s/output_%zu.bin", out_dir, i);
        int bad = sample_write_file(path, host, size);
        free(host);
        if (bad)
            goto cleanup;
    }
    printf("sync_infer: done, %zu output(s) in %s\n", n_out, out_dir);
    status = 0;

cleanup:
    /* 10. Release in the documented order: the data buffers and datasets
     *     (which never free device memory themselves), the device memory,
     *     the model, its description, then stream and context, the device,
     *     and the library last. Only what was created is released. */
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
    for (size_t i = 0; i < MAX_IO; i++) {
        if (in_dev[i] != NULL)
            aclrtFree(in_dev[i]);
        if (out_dev[i] != NULL)
            aclrtFree(out_dev[i]);
    }
    if (model_loaded)
        aclmdlUnload(model_id);
    if (desc != NULL)
        aclmdlDestroyDesc(desc);
    if (stream != NULL)
        aclrtDestroyStream(stream);
    if (context != NULL)
        aclrtDestroyContext(context);
    if (device_set)
        aclrtResetDevice(device_id);
    if (acl_ready)
        aclFinalize();
    return status;
}
