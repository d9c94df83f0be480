/* dvpp_classify: JPEG -> DVPP decode -> VPC crop-resize-paste (aspect ratio
 * kept) -> classifier -> top-5, the way Ascend's image samples do it, on
 * device memory and one stream:
 *
 *   aclInit -> aclrtSetDevice -> context, stream -> load the model
 *   -> acldvppCreateChannel
 *   per image: acldvppJpegGetImageInfo (host bytes) -> acldvppMalloc + copy
 *     -> acldvppJpegDecodeAsync (NV12) -> acldvppVpcCropResizePasteAsync
 *        into a black NV12 canvas of the model's size -> copy the canvas
 *        back on the same stream -> synchronize
 *     -> NV12 -> RGB -> (x / 255 - mean) / std, NCHW float, on the host
 *        (AIPP would do this on Ascend; openacl has none yet)
 *     -> copy into the model input -> aclmdlExecuteAsync -> copy the output
 *        back -> synchronize -> top-5
 *   -> release in reverse order.
 *
 * Usage: dvpp_classify MODEL OUT_DIR IMAGE.jpg [IMAGE.jpg ...]
 *   MODEL takes one float NCHW input [1,3,H,W] and gives one float output
 *   [1,N]. For every image OUT_DIR/<stem>_input.bin holds the model input
 *   and OUT_DIR/<stem>_output_0.bin the output; stdout has a line
 *   "<stem> top-5: [class] score ..." with the five best classes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENABLE_DVPP_INTERFACE
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "sample_utils.h"

#define ALIGN(v, a) (((v) + (a) - 1) / (a) * (a))

/* ImageNet normalisation of torchvision classifiers (RGB order). */
static const float k_mean[3] = {0.485f, 0.456f, 0.406f};
static const float k_std[3] = {0.229f, 0.224f, 0.225f};

/* Where the image goes in the canvas: scaled to fit, aspect ratio kept,
 * sizes even, centred with the paste left offset a multiple of 16 and the
 * top even (VPC's rules). */
static void fit(uint32_t w, uint32_t h, uint32_t cw, uint32_t ch, uint32_t box[4])
{
    uint32_t pw, ph;
    if ((uint64_t)w * ch >= (uint64_t)h * cw) {
        pw = cw;
        ph = (uint32_t)((uint64_t)h * cw / w) & ~1u;
    } else {
        ph = ch;
        pw = (uint32_t)((uint64_t)w * ch / h) & ~1u;
    }
    if (pw < 2)
        pw = 2;
    if (ph < 2)
        ph = 2;
    uint32_t left = ((cw - pw) / 2) & ~15u, top = ((ch - ph) / 2) & ~1u;
    box[0] = left;
    box[1] = left + pw - 1;
    box[2] = top;
    box[3] = top + ph - 1;
}

static float clamp255(float v)
{
    return v < 0.f ? 0.f : v > 255.f ? 255.f : v;
}

/* NV12 (JPEG's full-range BT.601 YCbCr) -> normalised float NCHW RGB. Each
 * pixel takes the chroma pair of its 2x2 block. */
static void nv12_to_input(const uint8_t *nv12, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs, float *out)
{
    const uint8_t *uvp = nv12 + (size_t)ws * hs;
    size_t plane = (size_t)w * h;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            float Y = nv12[(size_t)y * ws + x];
            const uint8_t *c = uvp + (size_t)(y / 2) * ws + (x & ~1u);
            float U = (float)c[0] - 128.f, V = (float)c[1] - 128.f;
            float rgb[3] = {clamp255(roundf(Y + 1.402f * V)), clamp255(roundf(Y - 0.344136f * U - 0.714136f * V)),
                            clamp255(roundf(Y + 1.772f * U))};
            for (int k = 0; k < 3; k++)
                out[k * plane + (size_t)y * w + x] = (rgb[k] / 255.f - k_mean[k]) / k_std[k];
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR IMAGE.jpg [IMAGE.jpg ...]\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *out_dir = argv[2];
    int status = 1, acl_ready = 0, device_set = 0, model_loaded = 0, channel_made = 0;
    int32_t device_id = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    uint32_t model_id = 0;
    aclmdlDesc *desc = NULL;
    aclmdlDataset *inputs = NULL, *outputs = NULL;
    void *in_dev = NULL, *out_dev = NULL;
    acldvppChannelDesc *channel = NULL;
    acldvppResizeConfig *resize = NULL;
    /* per image */
    void *jpeg_host = NULL, *jpeg_dev = NULL, *dec_dev = NULL, *canvas_dev = NULL;
    acldvppPicDesc *dec_pic = NULL, *vpc_in = NULL, *canvas_pic = NULL;
    acldvppRoiConfig *crop = NULL, *paste = NULL;
    uint8_t *canvas_host = NULL;
    float *input_host = NULL, *output_host = NULL;

    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtSetDevice(device_id));
    device_set = 1;
    CHECK_ACL(aclrtCreateContext(&context, device_id));
    CHECK_ACL(aclrtCreateStream(&stream));

    /* The model and its one input / one output. */
    CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
    model_loaded = 1;
    desc = aclmdlCreateDesc();
    if (desc == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlGetDesc(desc, model_id));
    aclmdlIODims dims;
    CHECK_ACL(aclmdlGetInputDims(desc, 0, &dims));
    if (aclmdlGetNumInputs(desc) != 1 || aclmdlGetNumOutputs(desc) != 1 || dims.dimCount != 4 || dims.dims[0] != 1 ||
        dims.dims[1] != 3 || dims.dims[2] < 16 || dims.dims[3] < 16 || aclmdlGetInputDataType(desc, 0) != ACL_FLOAT ||
        aclmdlGetOutputDataType(desc, 0) != ACL_FLOAT) {
        fprintf(stderr, "%s: this sample needs one float input [1,3,H,W] (H, W >= 16) and one float output\n",
                model_path);
        goto cleanup;
    }
    const uint32_t mh = (uint32_t)dims.dims[2], mw = (uint32_t)dims.dims[3];
    const size_t in_size = aclmdlGetInputSizeByIndex(desc, 0), out_size = aclmdlGetOutputSizeByIndex(desc, 0);
    printf("model input %ux%u, %zu output values\n", mw, mh, out_size / sizeof(float));
    CHECK_ACL(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&out_dev, out_size, ACL_MEM_MALLOC_HUGE_FIRST));
    inputs = aclmdlCreateDataset();
    outputs = aclmdlCreateDataset();
    if (inputs == NULL || outputs == NULL)
        goto cleanup;
    aclDataBuffer *ib = aclCreateDataBuffer(in_dev, in_size), *ob = aclCreateDataBuffer(out_dev, out_size);
    if (ib == NULL || ob == NULL || aclmdlAddDatasetBuffer(inputs, ib) != ACL_SUCCESS ||
        aclmdlAddDatasetBuffer(outputs, ob) != ACL_SUCCESS) {
        fprintf(stderr, "cannot build the datasets\n");
        aclDestroyDataBuffer(ib);
        aclDestroyDataBuffer(ob);
        goto cleanup;
    }

    /* One DVPP channel for every image; bilinear (OpenCV-like) scaling. */
    channel = acldvppCreateChannelDesc();
    if (channel == NULL)
        goto cleanup;
    CHECK_ACL(acldvppCreateChannel(channel));
    channel_made = 1;
    resize = acldvppCreateResizeConfig();
    if (resize == NULL)
        goto cleanup;
    CHECK_ACL(acldvppSetResizeConfigInterpolation(resize, 1));

    /* The canvas: NV12 of the model's size, VPC strides (16, 2). */
    const uint32_t cws = ALIGN(mw, 16), chs = ALIGN(mh, 2);
    const uint32_t canvas_size = cws * chs * 3 / 2;
    /* Host ends of the asynchronous copies: page-locked host memory, as
     * aclrtMemcpyAsync requires. */
    CHECK_ACL(aclrtMallocHost((void **)&canvas_host, canvas_size));
    CHECK_ACL(aclrtMallocHost((void **)&input_host, in_size));
    CHECK_ACL(aclrtMallocHost((void **)&output_host, out_size));

    for (int a = 3; a < argc; a++) {
        char stem[256], path[4096];
        size_t jpeg_len = 0;
        sample_stem(argv[a], stem, sizeof stem);
        jpeg_host = sample_read_file(argv[a], &jpeg_len);
        if (jpeg_host == NULL)
            goto cleanup;

        /* Size of the picture and of its decoded NV12, from the host bytes. */
        uint32_t w = 0, h = 0, dec_size = 0;
        int32_t comps = 0;
        CHECK_ACL(acldvppJpegGetImageInfo(jpeg_host, (uint32_t)jpeg_len, &w, &h, &comps));
        CHECK_ACL(acldvppJpegPredictDecSize(jpeg_host, (uint32_t)jpeg_len, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec_size));
        printf("%s: %ux%u, %d components\n", stem, w, h, comps);

        /* The JPEG into media memory; the decoder's output buffer. */
        CHECK_ACL(acldvppMalloc(&jpeg_dev, jpeg_len));
        CHECK_ACL(aclrtMemcpy(jpeg_dev, jpeg_len, jpeg_host, jpeg_len, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_ACL(acldvppMalloc(&dec_dev, dec_size));
        dec_pic = acldvppCreatePicDesc();
        if (dec_pic == NULL)
            goto cleanup;
        CHECK_ACL(acldvppSetPicDescData(dec_pic, dec_dev));
        CHECK_ACL(acldvppSetPicDescSize(dec_pic, dec_size));
        CHECK_ACL(acldvppSetPicDescFormat(dec_pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
        CHECK_ACL(acldvppJpegDecodeAsync(channel, jpeg_dev, (uint32_t)jpeg_len, dec_pic, stream));

        /* The VPC input describes the decoder's output before it exists:
         * NV12 makes width and height even (odd ones rounded down) and the
         * strides align128(width) x align16(height). */
        const uint32_t dw = w & ~1u, dh = h & ~1u;
        vpc_in = acldvppCreatePicDesc();
        if (vpc_in == NULL)
            goto cleanup;
        CHECK_ACL(acldvppSetPicDescData(vpc_in, dec_dev));
        CHECK_ACL(acldvppSetPicDescSize(vpc_in, dec_size));
        CHECK_ACL(acldvppSetPicDescFormat(vpc_in, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
        CHECK_ACL(acldvppSetPicDescWidth(vpc_in, dw));
        CHECK_ACL(acldvppSetPicDescHeight(vpc_in, dh));
        CHECK_ACL(acldvppSetPicDescWidthStride(vpc_in, ALIGN(w, 128)));
        CHECK_ACL(acldvppSetPicDescHeightStride(vpc_in, ALIGN(h, 16)));

        /* A black canvas (Y 0, U = V = 128), the picture scaled into it. */
        CHECK_ACL(acldvppMalloc(&canvas_dev, canvas_size));
        CHECK_ACL(aclrtMemset(canvas_dev, canvas_size, 0, (size_t)cws * chs));
        CHECK_ACL(aclrtMemset((uint8_t *)canvas_dev + (size_t)cws * chs, canvas_size - (size_t)cws * chs, 128,
                              canvas_size - (size_t)cws * chs));
        canvas_pic = acldvppCreatePicDesc();
        if (canvas_pic == NULL)
            goto cleanup;
        CHECK_ACL(acldvppSetPicDescData(canvas_pic, canvas_dev));
        CHECK_ACL(acldvppSetPicDescSize(canvas_pic, canvas_size));
        CHECK_ACL(acldvppSetPicDescFormat(canvas_pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
        CHECK_ACL(acldvppSetPicDescWidth(canvas_pic, mw));
        CHECK_ACL(acldvppSetPicDescHeight(canvas_pic, mh));
        CHECK_ACL(acldvppSetPicDescWidthStride(canvas_pic, cws));
        CHECK_ACL(acldvppSetPicDescHeightStride(canvas_pic, chs));
        uint32_t box[4];
        fit(dw, dh, mw, mh, box);
        crop = acldvppCreateRoiConfig(0, dw - 1, 0, dh - 1);
        paste = acldvppCreateRoiConfig(box[0], box[1], box[2], box[3]);
        if (crop == NULL || paste == NULL)
            goto cleanup;
        CHECK_ACL(acldvppVpcCropResizePasteAsync(channel, vpc_in, canvas_pic, crop, paste, resize, stream));
        CHECK_ACL(aclrtMemcpyAsync(canvas_host, canvas_size, canvas_dev, canvas_size, ACL_MEMCPY_DEVICE_TO_HOST,
                                   stream));
        CHECK_ACL(aclrtSynchronizeStream(stream));
        if (acldvppGetPicDescRetCode(dec_pic) != 0 || acldvppGetPicDescRetCode(canvas_pic) != 0) {
            fprintf(stderr, "%s: DVPP reported %u (decode), %u (resize)\n", stem, acldvppGetPicDescRetCode(dec_pic),
                    acldvppGetPicDescRetCode(canvas_pic));
            goto cleanup;
        }
        printf("%s: pasted at (%u,%u) %ux%u\n", stem, box[0], box[2], box[1] - box[0] + 1, box[3] - box[2] + 1);

        /* Host conversion, then model input, execution and output on the
         * same stream. */
        nv12_to_input(canvas_host, mw, mh, cws, chs, input_host);
        CHECK_ACL(aclrtMemcpyAsync(in_dev, in_size, input_host, in_size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        CHECK_ACL(aclmdlExecuteAsync(model_id, inputs, outputs, stream));
        CHECK_ACL(aclrtMemcpyAsync(output_host, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        CHECK_ACL(aclrtSynchronizeStream(stream));

        sample_print_top(stem, output_host, out_size / sizeof(float), 5);
        snprintf(path, sizeof path, "%s/%s_input.bin", out_dir, stem);
        if (sample_write_file(path, input_host, in_size) != 0)
            goto cleanup;
        snprintf(path, sizeof path, "%s/%s_output_0.bin", out_dir, stem);
        if (sample_write_file(path, output_host, out_size) != 0)
            goto cleanup;

        /* This image's objects, newest first. */
        acldvppDestroyRoiConfig(crop);
        acldvppDestroyRoiConfig(paste);
        crop = paste = NULL;
        acldvppDestroyPicDesc(canvas_pic);
        acldvppDestroyPicDesc(vpc_in);
        acldvppDestroyPicDesc(dec_pic);
        canvas_pic = vpc_in = dec_pic = NULL;
        acldvppFree(canvas_dev);
        acldvppFree(dec_dev);
        acldvppFree(jpeg_dev);
        canvas_dev = dec_dev = jpeg_dev = NULL;
        free(jpeg_host);
        jpeg_host = NULL;
    }
    printf("dvpp_classify: done, %d image(s)\n", argc - 3);
    status = 0;

cleanup:
    if (stream != NULL)
        aclrtSynchronizeStream(stream); /* nothing queued may outlive its buffers */
    acldvppDestroyRoiConfig(crop);
    acldvppDestroyRoiConfig(paste);
    acldvppDestroyPicDesc(canvas_pic);
    acldvppDestroyPicDesc(vpc_in);
    acldvppDestroyPicDesc(dec_pic);
    if (canvas_dev != NULL)
        acldvppFree(canvas_dev);
    if (dec_dev != NULL)
        acldvppFree(dec_dev);
    if (jpeg_dev != NULL)
        acldvppFree(jpeg_dev);
    free(jpeg_host);
    if (canvas_host != NULL)
        aclrtFreeHost(canvas_host);
    if (input_host != NULL)
        aclrtFreeHost(input_host);
    if (output_host != NULL)
        aclrtFreeHost(output_host);
    acldvppDestroyResizeConfig(resize);
    if (channel_made)
        acldvppDestroyChannel(channel);
    acldvppDestroyChannelDesc(channel);
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
    if (out_dev != NULL)
        aclrtFree(out_dev);
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
