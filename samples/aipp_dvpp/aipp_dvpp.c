/* JPEG -> media unit decode (YUV420SP) -> VPC resize to the model's 224x224
 * -> a model compiled with a YUV420SP AIPP (atc --insert_op_conf) -> top-5.
 * The flow of Huawei's vpc_resnet50 sample: no float image ever exists in the
 * application; the model converts and normalises the bytes VPC wrote.
 *   aipp_dvpp <model.om> <image.jpg> <out dir>
 * Writes <out dir>/yuv.bin (the 224x224 NV12 image fed to the model) and
 * <out dir>/logits.bin (the first output, float32), prints the top-5. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#define ENABLE_DVPP_INTERFACE   /* as CANN's samples do before acl_dvpp.h */
#include "acl/ops/acl_dvpp.h"

#define W 224
#define H 224

#define TRY(call)                                                                                \
    do {                                                                                         \
        aclError e_ = (call);                                                                    \
        if (e_ != ACL_SUCCESS) {                                                                 \
            const char *m_ = aclGetRecentErrMsg();                                               \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, (int)e_, m_ ? m_ : "no message");     \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    void *p = malloc(n > 0 ? (size_t)n : 1);
    if (!p || n <= 0 || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
    fclose(f);
}

static acldvppPicDesc *pic(void *data, uint32_t size, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs)
{
    acldvppPicDesc *p = acldvppCreatePicDesc();
    TRY(acldvppSetPicDescData(p, data));
    TRY(acldvppSetPicDescSize(p, size));
    TRY(acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    if (w) {
        TRY(acldvppSetPicDescWidth(p, w));
        TRY(acldvppSetPicDescHeight(p, h));
        TRY(acldvppSetPicDescWidthStride(p, ws));
        TRY(acldvppSetPicDescHeightStride(p, hs));
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s <model.om> <image.jpg> <out dir>\n", argv[0]);
        return 2;
    }
    TRY(aclInit(NULL));
    TRY(aclrtSetDevice(0));
    aclrtStream stream;
    TRY(aclrtCreateStream(&stream));
    acldvppChannelDesc *ch = acldvppCreateChannelDesc();
    TRY(acldvppCreateChannel(ch));

    /* decode */
    size_t jl = 0;
    void *jpg = read_file(argv[2], &jl), *jdev = NULL, *dec = NULL, *small = NULL;
    TRY(acldvppMalloc(&jdev, jl));
    TRY(aclrtMemcpy(jdev, jl, jpg, jl, ACL_MEMCPY_HOST_TO_DEVICE));
    uint32_t dsize = 0;
    TRY(acldvppJpegPredictDecSize(jpg, (uint32_t)jl, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dsize));
    TRY(acldvppMalloc(&dec, dsize));
    acldvppPicDesc *dd = pic(dec, dsize, 0, 0, 0, 0);
    TRY(acldvppJpegDecodeAsync(ch, jdev, (uint32_t)jl, dd, stream));
    TRY(aclrtSynchronizeStream(stream));
    printf("decoded %ux%u (strides %ux%u)\n", acldvppGetPicDescWidth(dd), acldvppGetPicDescHeight(dd),
           acldvppGetPicDescWidthStride(dd), acldvppGetPicDescHeightStride(dd));

    /* resize to exactly the AIPP's source: 224x224, strides 224 (a multiple of 16) and 224 */
    uint32_t ssize = W * H * 3 / 2;
    TRY(acldvppMalloc(&small, ssize));
    acldvppPicDesc *sd = pic(small, ssize, W, H, W, H);
    acldvppResizeConfig *rc = acldvppCreateResizeConfig();
    TRY(acldvppVpcResizeAsync(ch, dd, sd, rc, stream));
    TRY(aclrtSynchronizeStream(stream));

    /* the model reads VPC's output buffer as it is */
    uint32_t id = 0;
    TRY(aclmdlLoadFromFile(argv[1], &id));
    aclmdlDesc *desc = aclmdlCreateDesc();
    TRY(aclmdlGetDesc(desc, id));
    aclmdlInputAippType type;
    size_t attached;
    TRY(aclmdlGetAippType(id, 0, &type, &attached));
    if (type != ACL_DATA_WITH_STATIC_AIPP || aclmdlGetInputSizeByIndex(desc, 0) != ssize) {
        fprintf(stderr, "%s: input 0 is not a %ux%u YUV420SP static AIPP input (type %d, %zu bytes)\n", argv[1], W,
                H, (int)type, aclmdlGetInputSizeByIndex(desc, 0));
        return 1;
    }
    size_t osize = aclmdlGetOutputSizeByIndex(desc, 0);
    void *odev = NULL;
    TRY(aclrtMalloc(&odev, osize, ACL_MEM_MALLOC_HUGE_FIRST));
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclDataBuffer *bi = aclCreateDataBuffer(small, ssize), *bo = aclCreateDataBuffer(odev, osize);
    TRY(aclmdlAddDatasetBuffer(in, bi));
    TRY(aclmdlAddDatasetBuffer(out, bo));
    TRY(aclmdlExecute(id, in, out));

    float *logits = malloc(osize);
    unsigned char *yuv = malloc(ssize);
    TRY(aclrtMemcpy(logits, osize, odev, osize, ACL_MEMCPY_DEVICE_TO_HOST));
    TRY(aclrtMemcpy(yuv, ssize, small, ssize, ACL_MEMCPY_DEVICE_TO_HOST));
    write_file(argv[3], "logits.bin", logits, osize);
    write_file(argv[3], "yuv.bin", yuv, ssize);
    size_t n = osize / sizeof(float);
    int top[5] = { -1, -1, -1, -1, -1 };
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < n; i++) {
            int used = 0;
            for (int j = 0; j < k; j++) used |= top[j] == (int)i;
            if (!used && (top[k] < 0 || logits[i] > logits[top[k]])) top[k] = (int)i;
        }
    printf("top-5:");
    for (int k = 0; k < 5 && top[k] >= 0; k++) printf(" %d (%.4f)", top[k], logits[top[k]]);
    printf("\n");

    free(logits); free(yuv); free(jpg);
    aclDestroyDataBuffer(bi); aclDestroyDataBuffer(bo);
    aclmdlDestroyDataset(in); aclmdlDestroyDataset(out);
    TRY(aclmdlDestroyDesc(desc));
    TRY(aclmdlUnload(id));
    TRY(aclrtFree(odev));
    TRY(acldvppDestroyResizeConfig(rc));
    TRY(acldvppDestroyPicDesc(dd));
    TRY(acldvppDestroyPicDesc(sd));
    TRY(acldvppFree(jdev));
    TRY(acldvppFree(dec));
    TRY(acldvppFree(small));
    TRY(acldvppDestroyChannel(ch));
    TRY(acldvppDestroyChannelDesc(ch));
    TRY(aclrtDestroyStream(stream));
    TRY(aclrtResetDevice(0));
    TRY(aclFinalize());
    return 0;
}
