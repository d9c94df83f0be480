/* mem_pool: one large device allocation, divided by hand among every input
 * and output of two chained models (model A's output is model B's input).
 *
 * Why a pool: each aclrtMalloc has a cost and a footprint. The documented
 * rule is that aclrtMalloc(size) rounds size up to a multiple of 32 bytes
 * and adds 32 bytes more, so many small buffers waste memory, and every
 * allocation is a call into the runtime. One aclrtMalloc for all of them
 * pays that once.
 *
 * The rule a pool must keep: the start address aclrtMalloc returns is
 * 64-byte aligned, and code that receives a device buffer (kernels, DMA
 * engines, the model's own I/O checks) may count on that. A sub-buffer
 * stands in for an aclrtMalloc result, so each one here starts at an offset
 * rounded up to 64; with a 64-aligned pool start, every sub-buffer address
 * is 64-aligned too. The sample checks this for every buffer.
 *
 * Usage: mem_pool MODEL_A MODEL_B OUT_DIR INPUT.bin
 *   A has one input (fed from INPUT.bin) and one output; B has one input
 *   of the same size, which is A's output buffer itself (no copy). Writes
 *   OUT_DIR/a_output_0.bin and OUT_DIR/b_output_<i>.bin. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_utils.h"

#define POOL_ALIGN 64        /* start-address alignment of aclrtMalloc */
#define MALLOC_GRANULE 32    /* aclrtMalloc rounds sizes up to this ... */
#define MALLOC_PADDING 32    /* ... and adds this much */
#define MAX_REGIONS 16

typedef struct region {
    char what[64];
    size_t size;
    size_t offset;
    void *addr;
} region;

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* What aclrtMalloc(size) really reserves, by the documented rule. */
static size_t malloc_footprint(size_t size)
{
    return align_up(size, MALLOC_GRANULE) + MALLOC_PADDING;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s MODEL_A MODEL_B OUT_DIR INPUT.bin\n", argv[0]);
        return 2;
    }
    const char *out_dir = argv[3];
    int status = 1, acl_ready = 0, device_set = 0, a_loaded = 0, b_loaded = 0;
    int32_t device_id = 0;
    aclrtContext context = NULL;
    uint32_t a_id = 0, b_id = 0;
    aclmdlDesc *a_desc = NULL, *b_desc = NULL;
    aclmdlDataset *a_in = NULL, *a_out = NULL, *b_in = NULL, *b_out = NULL;
    void *pool = NULL, *host = NULL;
    region r[MAX_REGIONS];
    int n_regions = 0;
    memset(r, 0, sizeof r);

    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtSetDevice(device_id));
    device_set = 1;
    CHECK_ACL(aclrtCreateContext(&context, device_id));
    CHECK_ACL(aclmdlLoadFromFile(argv[1], &a_id));
    a_loaded = 1;
    CHECK_ACL(aclmdlLoadFromFile(argv[2], &b_id));
    b_loaded = 1;
    a_desc = aclmdlCreateDesc();
    b_desc = aclmdlCreateDesc();
    if (a_desc == NULL || b_desc == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlGetDesc(a_desc, a_id));
    CHECK_ACL(aclmdlGetDesc(b_desc, b_id));
    size_t b_outs = aclmdlGetNumOutputs(b_desc);
    if (aclmdlGetNumInputs(a_desc) != 1 || aclmdlGetNumOutputs(a_desc) != 1 || aclmdlGetNumInputs(b_desc) != 1 ||
        aclmdlGetOutputSizeByIndex(a_desc, 0) != aclmdlGetInputSizeByIndex(b_desc, 0) || b_outs + 2 > MAX_REGIONS) {
        fprintf(stderr, "model A needs one input and one output, model B one input of A's output size\n");
        goto cleanup;
    }

    /* 1. Plan: one region per buffer, each starting at a multiple of 64. */
    snprintf(r[n_regions].what, sizeof r[0].what, "A input 0");
    r[n_regions++].size = aclmdlGetInputSizeByIndex(a_desc, 0);
    snprintf(r[n_regions].what, sizeof r[0].what, "A output 0 = B input 0");
    r[n_regions++].size = aclmdlGetOutputSizeByIndex(a_desc, 0);
    for (size_t i = 0; i < b_outs; i++) {
        snprintf(r[n_regions].what, sizeof r[0].what, "B output %zu", i);
        r[n_regions++].size = aclmdlGetOutputSizeByIndex(b_desc, i);
    }
    size_t pool_size = 0, separate = 0;
    for (int k = 0; k < n_regions; k++) {
        r[k].offset = align_up(pool_size, POOL_ALIGN);
        pool_size = r[k].offset + r[k].size;
        separate += malloc_footprint(r[k].size);
    }

    /* 2. One allocation for all of it. */
    CHECK_ACL(aclrtMalloc(&pool, pool_size, ACL_MEM_MALLOC_HUGE_FIRST));
    printf("pool: %zu bytes requested, %zu reserved; %d separate aclrtMalloc calls would reserve %zu\n", pool_size,
           malloc_footprint(pool_size), n_regions, separate);
    for (int k = 0; k < n_regions; k++) {
        r[k].addr = (char *)pool + r[k].offset;
        printf("  %-24s offset %6zu  size %6zu\n", r[k].what, r[k].offset, r[k].size);
        if ((uintptr_t)r[k].addr % POOL_ALIGN != 0) {
            fprintf(stderr, "%s is not %d-byte aligned\n", r[k].what, POOL_ALIGN);
            goto cleanup;
        }
    }

    /* 3. Datasets over the regions. B's input buffer points at the same
     *    region as A's output: B reads what A wrote, on the device. */
    a_in = aclmdlCreateDataset();
    a_out = aclmdlCreateDataset();
    b_in = aclmdlCreateDataset();
    b_out = aclmdlCreateDataset();
    if (a_in == NULL || a_out == NULL || b_in == NULL || b_out == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlAddDatasetBuffer(a_in, aclCreateDataBuffer(r[0].addr, r[0].size)));
    CHECK_ACL(aclmdlAddDatasetBuffer(a_out, aclCreateDataBuffer(r[1].addr, r[1].size)));
    CHECK_ACL(aclmdlAddDatasetBuffer(b_in, aclCreateDataBuffer(r[1].addr, r[1].size)));
    for (size_t i = 0; i < b_outs; i++)
        CHECK_ACL(aclmdlAddDatasetBuffer(b_out, aclCreateDataBuffer(r[2 + i].addr, r[2 + i].size)));

    /* 4. Feed A, run A then B. */
    size_t file_size = 0;
    host = sample_read_file(argv[4], &file_size);
    if (host == NULL)
        goto cleanup;
    if (file_size != r[0].size) {
        fprintf(stderr, "%s has %zu bytes, model A's input needs %zu\n", argv[4], file_size, r[0].size);
        goto cleanup;
    }
    CHECK_ACL(aclrtMemcpy(r[0].addr, r[0].size, host, r[0].size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclmdlExecute(a_id, a_in, a_out));
    CHECK_ACL(aclmdlExecute(b_id, b_in, b_out));

    /* 5. Read A's and B's outputs back. */
    for (int k = 1; k < n_regions; k++) {
        char path[4096];
        void *out = malloc(r[k].size);
        if (out == NULL)
            goto cleanup;
        aclError rc = aclrtMemcpy(out, r[k].size, r[k].addr, r[k].size, ACL_MEMCPY_DEVICE_TO_HOST);
        if (rc != ACL_SUCCESS)
            free(out);
        CHECK_ACL(rc);
        if (k == 1)
            snprintf(path, sizeof path, "%s/a_output_0.bin", out_dir);
        else
            snprintf(path, sizeof path, "%s/b_output_%d.bin", out_dir, k - 2);
        int bad = sample_write_file(path, out, r[k].size);
        free(out);
        if (bad)
            goto cleanup;
    }
    printf("mem_pool: done\n");
    status = 0;

cleanup:
    {
        aclmdlDataset *sets[4] = {a_in, a_out, b_in, b_out};
        for (int s = 0; s < 4; s++) {
            if (sets[s] == NULL)
                continue;
            for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(sets[s]); i++)
                aclDestroyDataBuffer(aclmdlGetDatasetBuffer(sets[s], i));
            aclmdlDestroyDataset(sets[s]);
        }
    }
    /* One free for the whole pool; the sub-buffers were never allocated on
     * their own, so they are never freed on their own. */
    if (pool != NULL)
        aclrtFree(pool);
    free(host);
    if (a_loaded)
        aclmdlUnload(a_id);
    if (b_loaded)
        aclmdlUnload(b_id);
    if (a_desc != NULL)
        aclmdlDestroyDesc(a_desc);
    if (b_desc != NULL)
        aclmdlDestroyDesc(b_desc);
    if (context != NULL)
        aclrtDestroyContext(context);
    if (device_set)
        aclrtResetDevice(device_id);
    if (acl_ready)
        aclFinalize();
    return status;
}
