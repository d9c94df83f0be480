/* libFuzzer target: an untrusted openacl compiled model (.om, the container
 * of src/om) through aclmdlLoadFromMem, then one execution as for ONNX.
 * Every byte of the container is CRC32C-checked, so random mutations would
 * mostly stop at the checksums; an attacker can recompute them. The first
 * input byte chooses: odd -> the rest is resealed (om_reseal recomputes every
 * checksum) so the reader's own bounds and consistency checks are what
 * stands; even -> loaded as it is (the checksum path). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_model.h"
#include "om/om.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fz_runtime_up()) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int reseal = data[0] & 1;
    size_t n = size - 1;
    /* a private, 64-byte aligned copy: the reader may assume the alignment a
     * file mapping gives, and om_reseal writes */
    unsigned char *img = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (!img) return 0;
    memcpy(img, data + 1, n);
    if (reseal) om_reseal(img, n);
    fz_model_one(img, n);
    free(img);
    return 0;
}
