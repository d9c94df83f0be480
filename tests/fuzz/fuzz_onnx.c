/* libFuzzer target: an untrusted ONNX model image through the public API.
 * aclmdlLoadFromMem must refuse or accept; an accepted model has its
 * description read and is executed once on zeroed inputs (dynamic dims set
 * to 1 through a tensor descriptor, runtime-allocated outputs), then
 * unloaded. Any crash, sanitizer report or leak is a finding.
 * The same file, linked with replay_main.c, replays committed inputs. */
#include "fuzz_model.h"

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
    fz_model_one(data, size);
    return 0;
}
