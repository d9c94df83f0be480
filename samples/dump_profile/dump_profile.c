/* dump_profile: an inference with the operator dump and a profiling session
 * around it, in CANN's order (what msame and ais_bench do for --dump and
 * --profiler, through the API instead of the aclInit JSON):
 *
 *   aclInit -> aclrtSetDevice
 *   -> aclmdlInitDump -> aclmdlSetDump(a JSON file with a "dump" section)
 *   -> aclprofInit(folder) -> aclprofCreateConfig -> aclprofStart
 *   -> aclmdlLoadFromFile (the dump in force applies to models loaded now)
 *   -> aclmdlExecute -> aclprofStop -> aclprofDestroyConfig -> aclprofFinalize
 *   -> aclmdlUnload -> aclmdlFinalizeDump -> aclrtResetDevice -> aclFinalize
 *
 * Usage: dump_profile MODEL OUT_DIR INPUT0.bin (a model with one input)
 *   OUT_DIR/output_0.bin    the first output
 *   OUT_DIR/dump/...        every node's outputs as .npy, and dump_index.json
 *   OUT_DIR/prof/op_trace.json, op_summary.csv   the profile */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "sample_utils.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR INPUT0.bin\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *out_dir = argv[2];
    char dump_dir[4096], prof_dir[4096], cfg[4200], name[256];
    int status = 1, acl_ready = 0, device_set = 0, dump_on = 0, prof_on = 0, model_loaded = 0;
    uint32_t model_id = 0, devices[1] = {0};
    aclprofConfig *prof_cfg = NULL;
    aclmdlDataset *inputs = NULL, *outputs = NULL;
    void *in_dev = NULL, *out_dev = NULL, *host_in = NULL;
    size_t in_size = 0, out_size = 0;

    snprintf(dump_dir, sizeof dump_dir, "%s/dump", out_dir);
    snprintf(prof_dir, sizeof prof_dir, "%s/prof", out_dir);
    mkdir(dump_dir, 0755);
    mkdir(prof_dir, 0755);
    /* The dump configuration: the model is selected by its file name
     * without the extension, as CANN names .om models. */
    sample_stem(model_path, name, sizeof name);
    snprintf(cfg, sizeof cfg, "%s/dump.json", out_dir);
    FILE *f = fopen(cfg, "w");
    if (!f) { perror(cfg); return 1; }
    fprintf(f, "{\"dump\": {\"dump_path\": \"%s\", \"dump_mode\": \"output\", "
               "\"dump_list\": [{\"model_name\": \"%s\"}]}}\n", dump_dir, name);
    fclose(f);

    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtSetDevice(0));
    device_set = 1;

    /* 1. The dump, before the model is loaded. */
    CHECK_ACL(aclmdlInitDump());
    dump_on = 1;
    CHECK_ACL(aclmdlSetDump(cfg));

    /* 2. A profiling session: node times from aclprofStart to aclprofStop. */
    CHECK_ACL(aclprofInit(prof_dir, strlen(prof_dir)));
    prof_on = 1;
    prof_cfg = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME | ACL_PROF_ACL_API);
    if (!prof_cfg) {
        fprintf(stderr, "aclprofCreateConfig failed: %s\n", aclGetRecentErrMsg());
        goto cleanup;
    }
    CHECK_ACL(aclprofStart(prof_cfg));

    /* 3. Load and run as usual (sync_infer shows each step). */
    CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
    model_loaded = 1;
    aclmdlDesc *desc = aclmdlCreateDesc();
    if (!desc) goto cleanup;
    if (aclmdlGetDesc(desc, model_id) == ACL_SUCCESS) {
        in_size = aclmdlGetInputSizeByIndex(desc, 0);
        out_size = aclmdlGetOutputSizeByIndex(desc, 0);
    }
    aclmdlDestroyDesc(desc);
    size_t got = 0;
    if (!(host_in = sample_read_file(argv[3], &got)) || got != in_size) {
        fprintf(stderr, "%s: %zu bytes, the model's input takes %zu\n", argv[3], got, in_size);
        goto cleanup;
    }
    CHECK_ACL(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&out_dev, out_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(in_dev, in_size, host_in, in_size, ACL_MEMCPY_HOST_TO_DEVICE));
    inputs = aclmdlCreateDataset();
    outputs = aclmdlCreateDataset();
    if (!inputs || !outputs) goto cleanup;
    CHECK_ACL(aclmdlAddDatasetBuffer(inputs, aclCreateDataBuffer(in_dev, in_size)));
    CHECK_ACL(aclmdlAddDatasetBuffer(outputs, aclCreateDataBuffer(out_dev, out_size)));
    CHECK_ACL(aclmdlExecute(model_id, inputs, outputs));
    float *host_out = malloc(out_size ? out_size : 1);
    if (!host_out) goto cleanup;
    aclError rc = aclrtMemcpy(host_out, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST);
    char path[4200];
    snprintf(path, sizeof path, "%s/output_0.bin", out_dir);
    int written = rc == ACL_SUCCESS && !sample_write_file(path, host_out, out_size);
    free(host_out);
    if (!written) goto cleanup;

    /* 4. Stop the session (its files are written now), then the dump. */
    CHECK_ACL(aclprofStop(prof_cfg));
    status = 0;
    printf("dump: %s/<time>/0/%s/%u/0/ (dump_index.json lists the files)\n", dump_dir, name, model_id);
    printf("profile: %s/op_trace.json, %s/op_summary.csv\n", prof_dir, prof_dir);

cleanup:
    if (inputs) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(inputs); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(inputs, i));
        aclmdlDestroyDataset(inputs);
    }
    if (outputs) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(outputs); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(outputs, i));
        aclmdlDestroyDataset(outputs);
    }
    aclrtFree(in_dev);
    aclrtFree(out_dev);
    free(host_in);
    if (model_loaded) aclmdlUnload(model_id);
    if (prof_cfg) aclprofDestroyConfig(prof_cfg);
    if (prof_on) aclprofFinalize();
    if (dump_on) aclmdlFinalizeDump();
    if (device_set) aclrtResetDevice(0);
    if (acl_ready) aclFinalize();
    return status;
}
