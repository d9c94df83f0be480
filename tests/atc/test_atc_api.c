/* Compiled models through the public API: every kind of gear (batch, image
 * size, dims) compiled by atc, run per gear against numpy's outputs, with
 * every documented error of the gear calls; range-dynamic compiled models
 * next to the same ONNX model loaded directly; float16 I/O; the memory
 * loads; damaged files; a model compiled for bfloat16 compute next to its
 * float32 compile. Models come from make_models.py (fixture). */
#include "../mdl/mdl_test.h"

#include <math.h>
#include <stdint.h>
#include <unistd.h>

#define TOL 1e-4f

static aclmdlDataset *ds_of(int n, void **ptrs, const size_t *sizes, aclDataBuffer **bufs)
{
    aclmdlDataset *ds = aclmdlCreateDataset();
    for (int i = 0; i < n; i++) {
        bufs[i] = aclCreateDataBuffer(ptrs[i], sizes[i]);
        CHECK_OK(aclmdlAddDatasetBuffer(ds, bufs[i]));
    }
    return ds;
}

static void ds_free(aclmdlDataset *ds, int n, aclDataBuffer **bufs)
{
    for (int i = 0; i < n; i++) aclDestroyDataBuffer(bufs[i]);
    aclmdlDestroyDataset(ds);
}

static void check_dims(const aclmdlIODims *d, int n, const int64_t *want, const char *what)
{
    int ok = d->dimCount == (size_t)n;
    for (int i = 0; ok && i < n; i++) ok = d->dims[i] == want[i];
    if (!ok) {
        fprintf(stderr, "%s: dims [", what);
        for (size_t i = 0; i < d->dimCount; i++) fprintf(stderr, "%s%lld", i ? "," : "", (long long)d->dims[i]);
        fprintf(stderr, "], expected %d dims\n", n);
        g_failures++;
    }
}

static uint64_t read_dev_u64(const void *p, size_t n)
{
    uint64_t v = 0;
    aclrtMemcpy(&v, sizeof v, p, n, ACL_MEMCPY_DEVICE_TO_HOST);
    return v;
}

static void test_batch(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("cnn_batch.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetNumInputs(d) == 2);
    size_t gi = 99;
    CHECK_OK(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &gi));
    CHECK(gi == 1);
    CHECK(!strcmp(aclmdlGetInputNameByIndex(d, 1), ACL_DYNAMIC_TENSOR_NAME));
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 4 * 3 * 8 * 8 * 4);   /* the largest gear */
    CHECK(aclmdlGetInputSizeByIndex(d, 1) == 4);
    CHECK(aclmdlGetOutputSizeByIndex(d, 0) == 4 * 5 * 4);
    CHECK(aclmdlGetInputDataType(d, 1) == ACL_INT32);
    CHECK(aclmdlGetInputFormat(d, 1) == ACL_FORMAT_ND);
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    check_dims(&dims, 4, (int64_t[]){ -1, 3, 8, 8 }, "batch input dims");
    CHECK_OK(aclmdlGetOutputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ 4, 5 }, "batch output dims");
    CHECK_OK(aclmdlGetCurOutputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ 4, 5 }, "cur output dims before a gear");
    aclmdlIODimsRange rg;
    CHECK_OK(aclmdlGetInputDimsRange(d, 0, &rg));
    CHECK(rg.rangeCount == 4 && rg.range[0][0] == 1 && rg.range[0][1] == 4 && rg.range[1][0] == 3);
    aclmdlBatch b;
    CHECK_OK(aclmdlGetDynamicBatch(d, &b));
    CHECK(b.batchCount == 3 && b.batch[0] == 1 && b.batch[1] == 2 && b.batch[2] == 4);
    aclmdlHW hw;
    CHECK_OK(aclmdlGetDynamicHW(d, (size_t)-1, &hw));
    CHECK(hw.hwCount == 0);
    size_t gc = 7;
    CHECK_OK(aclmdlGetInputDynamicGearCount(d, (size_t)-1, &gc));
    CHECK(gc == 0);

    /* buffers sized for gear 2 */
    size_t xl;
    void *x2 = dev_from_file("cnn_b2", "in", 0, &xl);
    CHECK(xl == 2 * 3 * 8 * 8 * 4);
    void *gb = dev_alloc(4), *y = dev_alloc(2 * 5 * 4);
    aclDataBuffer *ib[2], *ob[1];
    aclmdlDataset *in = ds_of(2, (void *[]){ x2, gb }, (size_t[]){ xl, 4 }, ib);
    aclmdlDataset *out = ds_of(1, (void *[]){ y }, (size_t[]){ 40 }, ob);
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "no gear was selected");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, gi, 0), ACL_ERROR_INVALID_PARAM, "batchSize is 0");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, gi, 3), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "not one of its gears");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, 0, 2), ACL_ERROR_INVALID_PARAM, "the gear input");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, 5, 2), ACL_ERROR_INVALID_PARAM, "out of range");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, NULL, gi, 2), ACL_ERROR_INVALID_PARAM, "dataset is NULL");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id + 1000, in, gi, 2), ACL_ERROR_INVALID_MODEL_ID, "not loaded");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, gi, 8, 8), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "batch gears");
    aclmdlIODims dd = { .dimCount = 4, .dims = { 2, 3, 8, 8 } };
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, &dd), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "batch gears");
    {   /* a gear buffer under 4 bytes */
        void *g2 = dev_alloc(2);
        aclDataBuffer *sb[2];
        aclmdlDataset *small = ds_of(2, (void *[]){ x2, g2 }, (size_t[]){ xl, 2 }, sb);
        CHECK_ERR(aclmdlSetDynamicBatchSize(id, small, gi, 2), ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID,
                  "at least 4");
        ds_free(small, 2, sb);
        aclrtFree(g2);
    }
    CHECK_OK(aclmdlSetDynamicBatchSize(id, in, gi, 2));
    CHECK(read_dev_u64(gb, 4) == 2);                     /* a 4-byte buffer gets a uint32 */
    CHECK_OK(aclmdlExecute(id, in, out));
    CHECK(dev_matches_f32(y, "cnn_b2", 0, 40, TOL));
    CHECK_OK(aclmdlGetCurOutputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ 2, 5 }, "cur output dims, gear 2");
    aclTensorDesc *td = aclmdlGetDatasetTensorDesc(out, 0);
    CHECK(td && aclGetTensorDescNumDims(td) == 2);
    int64_t d0 = 0;
    CHECK(td && aclGetTensorDescDimV2(td, 0, &d0) == ACL_SUCCESS && d0 == 2);

    /* the gear buffer overwritten after selecting: inconsistent */
    uint32_t four = 4;
    aclrtMemcpy(gb, 4, &four, 4, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "inconsistent gear");
    /* gear 4 with buffers sized for gear 2 */
    CHECK_OK(aclmdlSetDynamicBatchSize(id, in, gi, 4));
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "too small");

    /* gear 4, the largest buffers, an 8-byte gear buffer (uint64), async */
    size_t x4l;
    void *x4 = dev_from_file("cnn_b4", "in", 0, &x4l);
    void *g8 = dev_alloc(8), *y4 = dev_alloc(80);
    aclDataBuffer *ib4[2], *ob4[1];
    aclmdlDataset *in4 = ds_of(2, (void *[]){ x4, g8 }, (size_t[]){ x4l, 8 }, ib4);
    aclmdlDataset *out4 = ds_of(1, (void *[]){ y4 }, (size_t[]){ 80 }, ob4);
    CHECK_OK(aclmdlSetDynamicBatchSize(id, in4, gi, 4));
    CHECK(read_dev_u64(g8, 8) == 4);
    aclrtStream st = NULL;
    CHECK_OK(aclrtCreateStream(&st));
    CHECK_OK(aclmdlExecuteAsync(id, in4, out4, st));
    CHECK_OK(aclrtSynchronizeStream(st));
    CHECK(dev_matches_f32(y4, "cnn_b4", 0, 80, TOL));
    CHECK_OK(aclmdlGetCurOutputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ 4, 5 }, "cur output dims, gear 4");
    CHECK_OK(aclrtDestroyStream(st));

    /* gear 1 with a runtime-allocated output (NULL, 0) */
    size_t x1l;
    void *x1 = dev_from_file("cnn_b1", "in", 0, &x1l), *g1 = dev_alloc(4);
    aclDataBuffer *ib1[2], *ob1[1];
    aclmdlDataset *in1 = ds_of(2, (void *[]){ x1, g1 }, (size_t[]){ x1l, 4 }, ib1);
    aclmdlDataset *out1 = ds_of(1, (void *[]){ NULL }, (size_t[]){ 0 }, ob1);
    CHECK_OK(aclmdlSetDynamicBatchSize(id, in1, gi, 1));
    CHECK_OK(aclmdlExecute(id, in1, out1));
    void *ya = aclGetDataBufferAddr(ob1[0]);
    CHECK(ya && aclGetDataBufferSizeV2(ob1[0]) == 20);
    if (ya) {
        CHECK(dev_matches_f32(ya, "cnn_b1", 0, 20, TOL));
        aclrtFree(ya);
        aclUpdateDataBuffer(ob1[0], NULL, 0);
    }
    /* a dataset keeps its own gear: in4 still runs gear 4 */
    CHECK_OK(aclmdlExecute(id, in4, out4));
    CHECK(dev_matches_f32(y4, "cnn_b4", 0, 80, TOL));

    ds_free(in, 2, ib); ds_free(out, 1, ob); ds_free(in4, 2, ib4); ds_free(out4, 1, ob4);
    ds_free(in1, 2, ib1); ds_free(out1, 1, ob1);
    aclrtFree(x2); aclrtFree(gb); aclrtFree(y); aclrtFree(x4); aclrtFree(g8); aclrtFree(y4); aclrtFree(x1); aclrtFree(g1);
    CHECK_OK(aclmdlUnload(id));
    /* the desc outlives the model: current dims fall back to the largest gear */
    CHECK_OK(aclmdlGetCurOutputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ 4, 5 }, "cur output dims after unload");
    aclmdlDestroyDesc(d);
}

static void test_hw(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("cnn_hw.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    size_t gi = 99;
    CHECK_OK(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &gi));
    CHECK(gi == 1 && aclmdlGetInputSizeByIndex(d, 1) == 8);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 1 * 3 * 12 * 16 * 4);
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    check_dims(&dims, 4, (int64_t[]){ 1, 3, -1, -1 }, "hw input dims");
    aclmdlHW hw;
    CHECK_OK(aclmdlGetDynamicHW(d, (size_t)-1, &hw));
    CHECK(hw.hwCount == 2 && hw.hw[0][0] == 8 && hw.hw[0][1] == 8 && hw.hw[1][0] == 12 && hw.hw[1][1] == 16);
    aclmdlBatch b;
    CHECK_OK(aclmdlGetDynamicBatch(d, &b));
    CHECK(b.batchCount == 0);

    size_t xl, x8l;
    void *x = dev_from_file("cnn_hw12x16", "in", 0, &xl);
    void *x8 = dev_from_file("cnn_hw8x8", "in", 0, &x8l);
    void *g16 = dev_alloc(16), *g8 = dev_alloc(8), *g4 = dev_alloc(4), *y = dev_alloc(20);
    aclDataBuffer *ib[2], *ob[1], *ib8[2], *ibs[2];
    aclmdlDataset *in = ds_of(2, (void *[]){ x, g16 }, (size_t[]){ xl, 16 }, ib);
    aclmdlDataset *in8 = ds_of(2, (void *[]){ x8, g8 }, (size_t[]){ x8l, 8 }, ib8);
    aclmdlDataset *small = ds_of(2, (void *[]){ x8, g4 }, (size_t[]){ x8l, 4 }, ibs);
    aclmdlDataset *out = ds_of(1, (void *[]){ y }, (size_t[]){ 20 }, ob);
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, gi, 0, 8), ACL_ERROR_INVALID_PARAM, "height is 0");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, gi, 8, 0), ACL_ERROR_INVALID_PARAM, "width is 0");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, gi, 9, 9), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "not one of");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, in, gi, 16, 12), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "not one of");
    CHECK_ERR(aclmdlSetDynamicHWSize(id, small, gi, 8, 8), ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "at least 8");
    CHECK_ERR(aclmdlSetDynamicBatchSize(id, in, gi, 1), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "image-size");
    CHECK_OK(aclmdlSetDynamicHWSize(id, in, gi, 12, 16));
    uint64_t hwv[2] = { 0, 0 };
    aclrtMemcpy(hwv, 16, g16, 16, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(hwv[0] == 12 && hwv[1] == 16);                 /* 16 bytes: two uint64 */
    CHECK_OK(aclmdlExecute(id, in, out));
    CHECK(dev_matches_f32(y, "cnn_hw12x16", 0, 20, TOL));
    CHECK_OK(aclmdlSetDynamicHWSize(id, in8, gi, 8, 8));
    uint32_t hw32[2] = { 0, 0 };
    aclrtMemcpy(hw32, 8, g8, 8, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(hw32[0] == 8 && hw32[1] == 8);                 /* 8 bytes: two uint32 */
    CHECK_OK(aclmdlExecute(id, in8, out));
    CHECK(dev_matches_f32(y, "cnn_hw8x8", 0, 20, TOL));
    ds_free(in, 2, ib); ds_free(in8, 2, ib8); ds_free(small, 2, ibs); ds_free(out, 1, ob);
    aclrtFree(x); aclrtFree(x8); aclrtFree(g16); aclrtFree(g8); aclrtFree(g4); aclrtFree(y);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

static void test_dims(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("two_dims.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetNumInputs(d) == 3 && aclmdlGetNumOutputs(d) == 2);
    size_t gi = 99, gc = 0;
    CHECK_OK(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &gi));
    CHECK(gi == 2);
    CHECK_ERR(aclmdlGetInputDynamicGearCount(d, 0, &gc), ACL_ERROR_INVALID_PARAM, "must be -1");
    CHECK_OK(aclmdlGetInputDynamicGearCount(d, (size_t)-1, &gc));
    CHECK(gc == 2);
    aclmdlIODims gears[2];
    CHECK_ERR(aclmdlGetInputDynamicDims(d, (size_t)-1, gears, 1), ACL_ERROR_INVALID_PARAM, "smaller than");
    CHECK_OK(aclmdlGetInputDynamicDims(d, (size_t)-1, gears, 2));
    check_dims(&gears[0], 5, (int64_t[]){ 1, 2, 4, 3, 4 }, "dims gear 0");
    check_dims(&gears[1], 5, (int64_t[]){ 1, 5, 4, 1, 4 }, "dims gear 1");
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 1, &dims));
    check_dims(&dims, 2, (int64_t[]){ -1, 4 }, "mask dims");
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 5 * 4 * 4 && aclmdlGetInputSizeByIndex(d, 1) == 3 * 4 * 4);
    CHECK(aclmdlGetInputSizeByIndex(d, 2) == 8);

    size_t al, ml;
    void *a = dev_from_file("two_5_1", "in", 0, &al), *mk = dev_from_file("two_5_1", "in", 1, &ml);
    void *g = dev_alloc(8), *oa = dev_alloc(60), *obf = dev_alloc(48);
    aclDataBuffer *ib[3], *ob[2];
    aclmdlDataset *in = ds_of(3, (void *[]){ a, mk, g }, (size_t[]){ al, ml, 8 }, ib);
    aclmdlDataset *out = ds_of(2, (void *[]){ oa, obf }, (size_t[]){ 60, 48 }, ob);
    aclmdlIODims sel = { .dimCount = 5, .dims = { 1, 5, 4, 1, 4 } };
    aclmdlIODims bad = sel;
    bad.dimCount = 4;
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, &bad), ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "dimCount is 4");
    bad = sel;
    bad.dims[0] = 2;
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, &bad), ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "fixed at 1");
    bad = sel;
    bad.dims[1] = 2;
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, &bad), ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "not one of");
    bad.dimCount = 0;
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, &bad), ACL_ERROR_INVALID_PARAM, "dimCount is 0");
    CHECK_ERR(aclmdlSetInputDynamicDims(id, in, gi, NULL), ACL_ERROR_INVALID_PARAM, "dims is NULL");
    CHECK_OK(aclmdlSetInputDynamicDims(id, in, gi, &sel));
    uint32_t v[2] = { 0, 0 };
    aclrtMemcpy(v, 8, g, 8, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(v[0] == 5 && v[1] == 1);
    CHECK_OK(aclmdlExecute(id, in, out));
    CHECK(dev_matches_f32(oa, "two_5_1", 0, 60, TOL));
    CHECK(dev_matches_f32(obf, "two_5_1", 1, 16, TOL));
    CHECK_OK(aclmdlGetCurOutputDims(d, 1, &dims));
    check_dims(&dims, 2, (int64_t[]){ 1, 4 }, "cur dims of out_b");

    size_t al2, ml2;
    void *a2 = dev_from_file("two_2_3", "in", 0, &al2), *m2 = dev_from_file("two_2_3", "in", 1, &ml2);
    aclDataBuffer *ib2[3];
    aclmdlDataset *in2 = ds_of(3, (void *[]){ a2, m2, g }, (size_t[]){ al2, ml2, 8 }, ib2);
    aclmdlIODims sel2 = { .dimCount = 5, .dims = { 1, 2, 4, 3, 4 } };
    CHECK_OK(aclmdlSetInputDynamicDims(id, in2, gi, &sel2));
    CHECK_OK(aclmdlExecute(id, in2, out));
    CHECK(dev_matches_f32(oa, "two_2_3", 0, 24, TOL));
    CHECK(dev_matches_f32(obf, "two_2_3", 1, 48, TOL));
    ds_free(in, 3, ib); ds_free(in2, 3, ib2); ds_free(out, 2, ob);
    aclrtFree(a); aclrtFree(mk); aclrtFree(g); aclrtFree(oa); aclrtFree(obf); aclrtFree(a2); aclrtFree(m2);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* A range-dynamic model behaves the same compiled and as ONNX. */
static void run_dynamic(const char *file, int ranged)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of(file), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetNumInputs(d) == 1);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 0 && aclmdlGetOutputSizeByIndex(d, 0) == 0);
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
    check_dims(&dims, 2, (int64_t[]){ -1, 8 }, file);
    aclmdlIODimsRange rg;
    CHECK_OK(aclmdlGetInputDimsRange(d, 0, &rg));
    CHECK(rg.rangeCount == 2 && rg.range[0][0] == 1 && rg.range[0][1] == (ranged ? 16 : -1));
    size_t gi;
    CHECK_RC(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &gi), ACL_ERROR_INVALID_PARAM);
    size_t xl;
    void *x = dev_from_file("mlp_5", "in", 0, &xl);
    aclDataBuffer *ib[1], *ob[1];
    aclmdlDataset *in = ds_of(1, (void *[]){ x }, (size_t[]){ xl }, ib);
    aclmdlDataset *out = ds_of(1, (void *[]){ NULL }, (size_t[]){ 0 }, ob);
    CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "aclmdlSetDatasetTensorDesc");
    int64_t shp[2] = { 5, 8 };
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, shp, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(in, td, 0));
    CHECK_OK(aclmdlExecute(id, in, out));
    void *y = aclGetDataBufferAddr(ob[0]);
    CHECK(y && aclGetDataBufferSizeV2(ob[0]) == 5 * 6 * 4);
    aclTensorDesc *od = aclmdlGetDatasetTensorDesc(out, 0);
    int64_t d0 = 0, d1 = 0;
    CHECK(od && aclGetTensorDescDimV2(od, 0, &d0) == ACL_SUCCESS && aclGetTensorDescDimV2(od, 1, &d1) == ACL_SUCCESS);
    CHECK(d0 == 5 && d1 == 6);
    if (y) {
        CHECK(dev_matches_f32(y, "mlp_5", 0, 120, TOL));
        aclrtFree(y);
        aclUpdateDataBuffer(ob[0], NULL, 0);
    }
    if (ranged) {
        int64_t big[2] = { 20, 8 };
        aclTensorDesc *t2 = aclCreateTensorDesc(ACL_FLOAT, 2, big, ACL_FORMAT_ND);
        void *xb = dev_alloc(20 * 8 * 4);
        aclUpdateDataBuffer(ib[0], xb, 20 * 8 * 4);
        CHECK_OK(aclmdlSetDatasetTensorDesc(in, t2, 0));
        CHECK_ERR(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM, "outside the range [1, 16]");
        aclDestroyTensorDesc(t2);
        aclrtFree(xb);
    }
    aclDestroyTensorDesc(td);
    ds_free(in, 1, ib); ds_free(out, 1, ob);
    aclrtFree(x);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

static void test_fp16(void)
{
    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(path_of("cnn_fp16.om"), &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetInputDataType(d, 0) == ACL_FLOAT16 && aclmdlGetOutputDataType(d, 0) == ACL_FLOAT16);
    CHECK(!strcmp(aclmdlGetInputNameByIndex(d, 0), "x") && !strcmp(aclmdlGetOutputNameByIndex(d, 0), "y"));
    size_t n = 2 * 3 * 8 * 8, len;
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == n * 2 && aclmdlGetOutputSizeByIndex(d, 0) == 10 * 2);
    float *x = read_all(path_of("cnn_static.in0.bin"), &len), *want = read_all(path_of("cnn_static.out0.bin"), &len);
    aclFloat16 *h = malloc(n * 2), yh[10];
    for (size_t i = 0; i < n; i++) h[i] = aclFloatToFloat16(x[i]);
    void *xd = dev_alloc(n * 2), *yd = dev_alloc(20);
    aclrtMemcpy(xd, n * 2, h, n * 2, ACL_MEMCPY_HOST_TO_DEVICE);
    aclDataBuffer *ib[1], *ob[1];
    aclmdlDataset *in = ds_of(1, (void *[]){ xd }, (size_t[]){ n * 2 }, ib);
    aclmdlDataset *out = ds_of(1, (void *[]){ yd }, (size_t[]){ 20 }, ob);
    CHECK_OK(aclmdlExecute(id, in, out));
    aclrtMemcpy(yh, 20, yd, 20, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 10; i++) {
        float g = aclFloat16ToFloat(yh[i]);
        if (!(fabsf(g - want[i]) <= 2e-2f * (1.f + fabsf(want[i])))) {
            fprintf(stderr, "fp16 output %d: got %g, want %g\n", i, g, want[i]);
            g_failures++;
        }
    }
    ds_free(in, 1, ib); ds_free(out, 1, ob);
    aclrtFree(xd); aclrtFree(yd);
    free(h); free(x); free(want);
    aclmdlDestroyDesc(d);
    CHECK_OK(aclmdlUnload(id));
}

/* One execution of the static compiled model, compared. */
static void run_static(uint32_t id)
{
    size_t xl;
    void *x = dev_from_file("cnn_static", "in", 0, &xl), *y = dev_alloc(40);
    aclDataBuffer *ib[1], *ob[1];
    aclmdlDataset *in = ds_of(1, (void *[]){ x }, (size_t[]){ xl }, ib);
    aclmdlDataset *out = ds_of(1, (void *[]){ y }, (size_t[]){ 40 }, ob);
    CHECK_OK(aclmdlExecute(id, in, out));
    CHECK(dev_matches_f32(y, "cnn_static", 0, 40, TOL));
    ds_free(in, 1, ib); ds_free(out, 1, ob);
    aclrtFree(x); aclrtFree(y);
}

/* Offset of the weights section (id 4) from the section table
 * (docs/om-format.md: table offset u64 at 24, count u32 at 32, 32-byte
 * entries {u32 id, u32 flags, u64 offset, u64 size, ...}). */
static size_t weights_offset(const unsigned char *p, size_t len)
{
    uint64_t table;
    uint32_t n;
    memcpy(&table, p + 24, 8);
    memcpy(&n, p + 32, 4);
    for (uint32_t i = 0; i < n && table + 32 * (i + 1) <= len; i++) {
        uint32_t id;
        uint64_t off;
        memcpy(&id, p + table + 32 * i, 4);
        memcpy(&off, p + table + 32 * i + 8, 8);
        if (id == 4) return (size_t)off;
    }
    fprintf(stderr, "no weights section\n");
    g_failures++;
    return 0;
}

static void test_loads(void)
{
    char file[1024];
    snprintf(file, sizeof file, "%s", path_of("cnn_static.om"));   /* path_of's buffers rotate */
    size_t work = 0, weight = 0;
    CHECK_OK(aclmdlQuerySize(file, &work, &weight));
    CHECK(work > 0 && weight > 0);
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK_OK(aclmdlGetDescFromFile(d, file));
    CHECK(aclmdlGetNumInputs(d) == 1 && aclmdlGetInputSizeByIndex(d, 0) == 2 * 3 * 8 * 8 * 4);
    aclmdlDestroyDesc(d);

    uint32_t id = 0;
    CHECK_OK(aclmdlLoadFromFile(file, &id));
    run_static(id);
    CHECK_OK(aclmdlUnload(id));

    void *wk = dev_alloc(work), *wt = dev_alloc(weight);
    CHECK_ERR(aclmdlLoadFromFileWithMem(file, &id, wk, work, wt, weight - 64), ACL_ERROR_INVALID_PARAM,
              "too small");
    CHECK_OK(aclmdlLoadFromFileWithMem(file, &id, wk, work, wt, weight));
    run_static(id);
    CHECK_OK(aclmdlUnload(id));

    /* from memory: the image need not outlive the load */
    size_t len;
    void *img = read_all(file, &len);
    CHECK_OK(aclmdlLoadFromMem(img, len, &id));
    memset(img, 0xA5, len);
    free(img);
    run_static(id);
    CHECK_OK(aclmdlUnload(id));
    img = read_all(file, &len);
    CHECK_OK(aclmdlLoadFromMemWithMem(img, len, &id, wk, work, wt, weight));
    free(img);
    run_static(id);
    CHECK_OK(aclmdlUnload(id));
    aclrtFree(wk);
    aclrtFree(wt);

    /* damaged and truncated images are refused with what is wrong */
    img = read_all(file, &len);
    unsigned char *p = img;
    size_t w = weights_offset(p, len) + 5;   /* a byte of the weights section */
    p[w] ^= 0x10;
    CHECK_ERR(aclmdlLoadFromMem(img, len, &id), ACL_ERROR_PARSE_MODEL, "damaged");
    p[w] ^= 0x10;
    CHECK_ERR(aclmdlLoadFromMem(img, len - 100, &id), ACL_ERROR_PARSE_MODEL, "truncated");
    p[9] = 7;   /* format major 0x700 */
    CHECK_ERR(aclmdlLoadFromMem(img, len, &id), ACL_ERROR_PARSE_MODEL, "this build reads format 1");
    free(img);
}

#define BF_FEAT (64 * 32 * 32)

static double rel_l2(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        num += d * d;
        den += (double)b[i] * (double)b[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

/* Loads a bfnet compile, runs it once, copies both outputs back. */
static void run_bfnet(const char *file, float *feat, float *y, size_t *weight)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", path_of(file));
    size_t work = 0;
    *weight = 0;
    CHECK_OK(aclmdlQuerySize(path, &work, weight));
    uint32_t id = 0;
    if (aclmdlLoadFromFile(path, &id) != ACL_SUCCESS) {
        fprintf(stderr, "%s: load failed: %s\n", file, aclGetRecentErrMsg());
        g_failures++;
        return;
    }
    size_t xl;
    void *x = dev_from_file("bfnet", "in", 0, &xl), *fd = dev_alloc(BF_FEAT * 4), *yd = dev_alloc(40);
    aclDataBuffer *ib[1], *ob[2];
    aclmdlDataset *in = ds_of(1, (void *[]){ x }, (size_t[]){ xl }, ib);
    aclmdlDataset *out = ds_of(2, (void *[]){ fd, yd }, (size_t[]){ BF_FEAT * 4, 40 }, ob);
    CHECK_OK(aclmdlExecute(id, in, out));
    aclrtMemcpy(feat, BF_FEAT * 4, fd, BF_FEAT * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(y, 40, yd, 40, ACL_MEMCPY_DEVICE_TO_HOST);
    ds_free(in, 1, ib); ds_free(out, 2, ob);
    aclrtFree(x); aclrtFree(fd); aclrtFree(yd);
    CHECK_OK(aclmdlUnload(id));
}

/* atc --precision_mode=allow_fp32_to_bf16: the compiled model computes in
 * bf16 by itself (no environment), within bf16's error of the exact result
 * and measurably off float32's; its packed weights are smaller; and
 * OPENACL_PRECISION does not change a compiled model either way. */
static void test_bf16(void)
{
    if (access(path_of("bf16_unsupported.txt"), F_OK) == 0) {
        printf("atc api: no bfloat16 on this CPU: bf16 checks skipped\n");
        return;
    }
    size_t len, w32 = 0, w16 = 0, wx = 0;
    float *want_feat = read_all(path_of("bfnet.out0.bin"), &len), *want_y = read_all(path_of("bfnet.out1.bin"), &len);
    float *f32 = calloc(BF_FEAT, 4), *f16 = calloc(BF_FEAT, 4), *fx = calloc(BF_FEAT, 4);
    float y32[10] = { 0 }, y16[10] = { 0 }, yx[10] = { 0 };
    unsetenv("OPENACL_PRECISION");
    run_bfnet("bfnet_fp32.om", f32, y32, &w32);
    run_bfnet("bfnet_bf16.om", f16, y16, &w16);
    double e32 = rel_l2(f32, want_feat, BF_FEAT), e16 = rel_l2(f16, want_feat, BF_FEAT);
    double ey32 = rel_l2(y32, want_y, 10), ey16 = rel_l2(y16, want_y, 10);
    printf("atc api: bfnet weights fp32 %zu bytes, bf16 %zu; rel. L2 error feat fp32 %.2e bf16 %.2e, logits fp32 "
           "%.2e bf16 %.2e\n", w32, w16, e32, e16, ey32, ey16);
    CHECK(e32 < 1e-5 && ey32 < 1e-5);
    CHECK(e16 > 1e-4);                  /* it did compute in bf16 (8-bit mantissas) */
    CHECK(e16 < 3e-2 && ey16 < 3e-2);   /* within bf16's error */
    /* the three 1x1 convolutions' 10240 weights are packed as bf16: 20 KB less */
    CHECK(w16 + 18000 <= w32);
    setenv("OPENACL_PRECISION", "fp32", 1);
    run_bfnet("bfnet_bf16.om", fx, yx, &wx);
    CHECK(wx == w16 && !memcmp(fx, f16, BF_FEAT * 4) && !memcmp(yx, y16, 40));
    setenv("OPENACL_PRECISION", "bf16", 1);
    run_bfnet("bfnet_fp32.om", fx, yx, &wx);
    CHECK(wx == w32 && !memcmp(fx, f32, BF_FEAT * 4) && !memcmp(yx, y32, 40));
    unsetenv("OPENACL_PRECISION");
    free(want_feat); free(want_y); free(f32); free(f16); free(fx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <models dir>\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    (void)write_all;
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    test_batch();
    test_hw();
    test_dims();
    run_dynamic("mlp_range.om", 1);
    run_dynamic("mlp_dyn.om", 0);
    run_dynamic("mlp.onnx", 0);
    test_fp16();
    test_loads();
    test_bf16();
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    if (g_failures) {
        fprintf(stderr, "atc api: %d check(s) failed\n", g_failures);
        return 1;
    }
    printf("atc api: ok\n");
    return 0;
}
