/* multi_device: one thread driving several devices.
 *
 * Each device gets its own context (and stream); the model is loaded once
 * per context, because a loaded model, like device memory, belongs to the
 * context it was created under. The thread switches between devices with
 * aclrtSetCurrentContext: whatever is current decides which device later
 * calls talk to. Work is queued on every device first (aclmdlExecuteAsync
 * returns at once, so the devices run side by side), then each device is
 * waited for with aclrtSynchronizeDevice.
 *
 * Usage: multi_device MODEL OUT_DIR INPUT.bin [MAX_DEVICES]
 *   runs the one-input model on every device (up to MAX_DEVICES, default 4)
 *   and writes OUT_DIR/dev<d>_output_<i>.bin. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_utils.h"

#define MAX_DEVICES 8
#define MAX_OUT 8

typedef struct device_slot {
    int32_t id;
    int device_set, model_loaded;
    aclrtContext context;
    aclrtStream stream;
    uint32_t model_id;
    aclmdlDesc *desc;
    aclmdlDataset *in, *out;
    void *in_dev;
    void *out_dev[MAX_OUT];
} device_slot;

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR INPUT.bin [MAX_DEVICES]\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *out_dir = argv[2];
    int status = 1, acl_ready = 0, max_devices = argc == 5 ? atoi(argv[4]) : 4;
    uint32_t count = 0;
    device_slot dev[MAX_DEVICES];
    int n_dev = 0;
    size_t in_size = 0;
    void *host_in = NULL;
    memset(dev, 0, sizeof dev);

    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtGetDeviceCount(&count));
    n_dev = (int)count < max_devices ? (int)count : max_devices;
    if (n_dev > MAX_DEVICES)
        n_dev = MAX_DEVICES;
    printf("%u device(s) visible, using %d\n", count, n_dev);
    host_in = sample_read_file(argv[3], &in_size);
    if (host_in == NULL)
        goto cleanup;

    /* 1. Per device: bind, create a context (it becomes current), a stream,
     *    load the model under that context, and make its buffers. */
    for (int d = 0; d < n_dev; d++) {
        device_slot *s = &dev[d];
        s->id = d;
        CHECK_ACL(aclrtSetDevice(s->id));
        s->device_set = 1;
        CHECK_ACL(aclrtCreateContext(&s->context, s->id));
        CHECK_ACL(aclrtCreateStream(&s->stream));
        CHECK_ACL(aclmdlLoadFromFile(model_path, &s->model_id));
        s->model_loaded = 1;
        s->desc = aclmdlCreateDesc();
        if (s->desc == NULL)
            goto cleanup;
        CHECK_ACL(aclmdlGetDesc(s->desc, s->model_id));
        size_t n_out = aclmdlGetNumOutputs(s->desc);
        if (aclmdlGetNumInputs(s->desc) != 1 || n_out > MAX_OUT ||
            aclmdlGetInputSizeByIndex(s->desc, 0) != in_size) {
            fprintf(stderr, "the model needs one input of %zu bytes (the file has %zu)\n",
                    aclmdlGetInputSizeByIndex(s->desc, 0), in_size);
            goto cleanup;
        }
        s->in = aclmdlCreateDataset();
        s->out = aclmdlCreateDataset();
        if (s->in == NULL || s->out == NULL)
            goto cleanup;
        CHECK_ACL(aclrtMalloc(&s->in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_ACL(aclmdlAddDatasetBuffer(s->in, aclCreateDataBuffer(s->in_dev, in_size)));
        for (size_t i = 0; i < n_out; i++) {
            size_t size = aclmdlGetOutputSizeByIndex(s->desc, i);
            CHECK_ACL(aclrtMalloc(&s->out_dev[i], size, ACL_MEM_MALLOC_HUGE_FIRST));
            CHECK_ACL(aclmdlAddDatasetBuffer(s->out, aclCreateDataBuffer(s->out_dev[i], size)));
        }
    }

    /* 2. Queue work on every device: switch context, copy, execute async. */
    for (int d = 0; d < n_dev; d++) {
        device_slot *s = &dev[d];
        CHECK_ACL(aclrtSetCurrentContext(s->context));
        CHECK_ACL(aclrtMemcpy(s->in_dev, in_size, host_in, in_size, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_ACL(aclmdlExecuteAsync(s->model_id, s->in, s->out, s->stream));
    }

    /* 3. Wait for each device (all its streams), then read its outputs. */
    for (int d = 0; d < n_dev; d++) {
        device_slot *s = &dev[d];
        int32_t current = -1;
        CHECK_ACL(aclrtSetCurrentContext(s->context));
        CHECK_ACL(aclrtGetDevice(&current));  /* the context decides the device */
        CHECK_ACL(aclrtSynchronizeDevice());
        for (size_t i = 0; i < aclmdlGetNumOutputs(s->desc); i++) {
            size_t size = aclmdlGetOutputSizeByIndex(s->desc, i);
            char path[4096];
            void *out = malloc(size);
            if (out == NULL)
                goto cleanup;
            aclError rc = aclrtMemcpy(out, size, s->out_dev[i], size, ACL_MEMCPY_DEVICE_TO_HOST);
            if (rc != ACL_SUCCESS)
                free(out);
            CHECK_ACL(rc);
            if (i == 0 && aclmdlGetOutputDataType(s->desc, 0) == ACL_FLOAT) {
                char label[32];
                snprintf(label, sizeof label, "device %d", current);
                sample_print_top(label, out, size / sizeof(float), 3);
            }
            snprintf(path, sizeof path, "%s/dev%d_output_%zu.bin", out_dir, s->id, i);
            int bad = sample_write_file(path, out, size);
            free(out);
            if (bad)
                goto cleanup;
        }
    }
    printf("multi_device: done on %d device(s)\n", n_dev);
    status = n_dev > 0 ? 0 : 1;

cleanup:
    /* 4. Release per device, under that device's context, then reset it. */
    for (int d = 0; d < n_dev; d++) {
        device_slot *s = &dev[d];
        if (s->context != NULL)
            aclrtSetCurrentContext(s->context);
        aclmdlDataset *sets[2] = {s->in, s->out};
        for (int k = 0; k < 2; k++) {
            if (sets[k] == NULL)
                continue;
            for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(sets[k]); i++)
                aclDestroyDataBuffer(aclmdlGetDatasetBuffer(sets[k], i));
            aclmdlDestroyDataset(sets[k]);
        }
        if (s->in_dev != NULL)
            aclrtFree(s->in_dev);
        for (int i = 0; i < MAX_OUT; i++)
            if (s->out_dev[i] != NULL)
                aclrtFree(s->out_dev[i]);
        if (s->model_loaded)
            aclmdlUnload(s->model_id);
        if (s->desc != NULL)
            aclmdlDestroyDesc(s->desc);
        if (s->stream != NULL)
            aclrtDestroyStream(s->stream);
        if (s->context != NULL)
            aclrtDestroyContext(s->context);
        if (s->device_set)
            aclrtResetDevice(s->id);
    }
    free(host_in);
    if (acl_ready)
        aclFinalize();
    return status;
}
