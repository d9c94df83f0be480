// A C++ inference program in the shape of Huawei's ResNet-50 sample:
// aclInit(""), device, context, stream, aclmdlLoadFromFile, datasets sized
// from the model description, aclmdlExecute, output back through
// page-locked host memory, release in order. Compares the output with a
// reference file and prints the top class.
//   main MODEL.om INPUT.bin REFERENCE.bin
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "acl/acl.h"

#define CHECK(call)                                                                          \
    do {                                                                                     \
        aclError r_ = (call);                                                                \
        if (r_ != ACL_SUCCESS) {                                                             \
            std::cerr << #call << " failed " << r_ << ": " << aclGetRecentErrMsg() << "\n"; \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static std::vector<char> read_file(const char *path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::cerr << "usage: main MODEL.om INPUT.bin REFERENCE.bin\n";
        return 2;
    }
    std::vector<char> input = read_file(argv[2]), ref = read_file(argv[3]);
    const int32_t deviceId = 0;
    CHECK(aclInit(""));   // "no configuration", as the samples pass it
    CHECK(aclrtSetDevice(deviceId));
    aclrtContext context = nullptr;
    CHECK(aclrtCreateContext(&context, deviceId));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    aclrtRunMode runMode;
    CHECK(aclrtGetRunMode(&runMode));

    uint32_t modelId = 0;
    CHECK(aclmdlLoadFromFile(argv[1], &modelId));
    aclmdlDesc *desc = aclmdlCreateDesc();
    CHECK(aclmdlGetDesc(desc, modelId));

    size_t inSize = aclmdlGetInputSizeByIndex(desc, 0);
    if (inSize != input.size()) {
        std::cerr << "input file has " << input.size() << " bytes, the model wants " << inSize << "\n";
        return 1;
    }
    void *inDev = nullptr;
    CHECK(aclrtMalloc(&inDev, inSize, ACL_MEM_MALLOC_HUGE_FIRST));
    // the input staged in page-locked memory first, as the samples do
    void *inHost = nullptr;
    CHECK(aclrtMallocHost(&inHost, inSize));
    std::memcpy(inHost, input.data(), inSize);
    CHECK(aclrtMemcpy(inDev, inSize, inHost, inSize, ACL_MEMCPY_HOST_TO_DEVICE));
    aclmdlDataset *inputs = aclmdlCreateDataset();
    aclDataBuffer *inBuf = aclCreateDataBuffer(inDev, inSize);
    CHECK(aclmdlAddDatasetBuffer(inputs, inBuf));

    size_t outSize = aclmdlGetOutputSizeByIndex(desc, 0);
    void *outDev = nullptr;
    CHECK(aclrtMalloc(&outDev, outSize, ACL_MEM_MALLOC_HUGE_FIRST));
    aclmdlDataset *outputs = aclmdlCreateDataset();
    aclDataBuffer *outBuf = aclCreateDataBuffer(outDev, outSize);
    CHECK(aclmdlAddDatasetBuffer(outputs, outBuf));

    CHECK(aclmdlExecute(modelId, inputs, outputs));

    void *outHost = nullptr;
    CHECK(aclrtMallocHost(&outHost, outSize));
    CHECK(aclrtMemcpy(outHost, outSize, outDev, outSize, ACL_MEMCPY_DEVICE_TO_HOST));
    // Huawei's memcpy sample copies DEVICE_TO_HOST out of aclrtMallocHost memory
    std::vector<float> out(outSize / sizeof(float));
    CHECK(aclrtMemcpy(out.data(), outSize, outHost, outSize, ACL_MEMCPY_DEVICE_TO_HOST));

    if (ref.size() != outSize) {
        std::cerr << "reference has " << ref.size() << " bytes, the output " << outSize << "\n";
        return 1;
    }
    const float *r = reinterpret_cast<const float *>(ref.data());
    size_t top = 0;
    double worst = 0;
    for (size_t i = 0; i < out.size(); i++) {
        worst = std::fmax(worst, std::fabs(out[i] - r[i]));
        if (out[i] > out[top]) top = i;
    }
    std::printf("top-1 class %zu (%.5f), max |diff| vs reference %.3g\n", top, out[top], worst);

    CHECK(aclrtFreeHost(outHost));
    CHECK(aclrtFreeHost(inHost));
    CHECK(aclDestroyDataBuffer(inBuf));
    CHECK(aclDestroyDataBuffer(outBuf));
    CHECK(aclmdlDestroyDataset(inputs));
    CHECK(aclmdlDestroyDataset(outputs));
    CHECK(aclrtFree(inDev));
    CHECK(aclrtFree(outDev));
    CHECK(aclmdlUnload(modelId));
    CHECK(aclmdlDestroyDesc(desc));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDevice(deviceId));
    CHECK(aclFinalize());
    return worst <= 1e-4 ? 0 : 3;
}
