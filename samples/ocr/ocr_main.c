/* ocr: reads the text in an image with PaddleOCR's PP-OCRv4 models chained
 * through the public AscendCL API — detection, angle classification and
 * recognition loaded side by side in one context and run on one stream.
 *
 *   ocr [--models DIR] [--limit-side 960] [--no-cls] [--runs N] [--tsv FILE]
 *       [--dump DIR] IMAGE.png|IMAGE.jpg
 *
 * Per model: device input/output buffers are allocated once and grown when a
 * larger shape comes; each call copies the tensor to the device, enqueues the
 * model with the input's actual shape in a tensor descriptor (the models have
 * symbolic dims), synchronises the stream, reads the output's actual shape
 * from the output dataset and copies the result back. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "acl/acl.h"
#include "ocr.h"

#ifndef OCR_DEFAULT_MODEL_DIR
#define OCR_DEFAULT_MODEL_DIR "models"
#endif

#define LINE_H 48
#define CLS_W 192
#define REC_W 320
#define BATCH 6
#define CLS_THRESH 0.9f
#define DROP_SCORE 0.5f

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reports a failed ACL call with openacl's own message; returns -1. */
static int acl_ok(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return 1;
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "ocr: %s failed: error %d\n  %s\n", what, rc, msg && *msg ? msg : "(no message)");
    return 0;
}

/* One loaded model with its datasets and reusable buffers. */
typedef struct {
    const char *name;
    uint32_t id;
    int loaded;
    aclmdlDesc *desc;
    aclmdlDataset *in, *out;
    aclDataBuffer *in_buf, *out_buf;
    void *in_dev, *out_dev;   /* aclrtMalloc */
    void *in_host, *out_host; /* aclrtMallocHost */
    size_t in_cap, out_cap;
    int64_t out_dims[8];      /* actual shape of the last output */
    size_t out_rank;
    double load_ms, run_ms;   /* run_ms: accumulated over the current image */
    int runs;
} ocr_model;

static int model_load(ocr_model *m, const char *name, const char *path)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    double t0 = now_ms();
    char what[64];
    snprintf(what, sizeof what, "aclmdlLoadFromFile(%s)", name);
    if (!acl_ok(aclmdlLoadFromFile(path, &m->id), what))
        return -1;
    m->load_ms = now_ms() - t0;
    m->loaded = 1;
    m->desc = aclmdlCreateDesc();
    if (!m->desc || !acl_ok(aclmdlGetDesc(m->desc, m->id), "aclmdlGetDesc"))
        return -1;
    if (aclmdlGetNumInputs(m->desc) != 1 || aclmdlGetNumOutputs(m->desc) != 1 ||
        aclmdlGetInputDataType(m->desc, 0) != ACL_FLOAT || aclmdlGetOutputDataType(m->desc, 0) != ACL_FLOAT) {
        fprintf(stderr, "ocr: %s (%s) is not a one-float-input, one-float-output model\n", name, path);
        return -1;
    }
    m->in = aclmdlCreateDataset();
    m->out = aclmdlCreateDataset();
    m->in_buf = aclCreateDataBuffer(NULL, 0);
    m->out_buf = aclCreateDataBuffer(NULL, 0);
    if (!m->in || !m->out || !m->in_buf || !m->out_buf) {
        fprintf(stderr, "ocr: cannot create datasets for %s\n", name);
        return -1;
    }
    if (!acl_ok(aclmdlAddDatasetBuffer(m->in, m->in_buf), "aclmdlAddDatasetBuffer(input)") ||
        !acl_ok(aclmdlAddDatasetBuffer(m->out, m->out_buf), "aclmdlAddDatasetBuffer(output)"))
        return -1;
    return 0;
}

/* Grows a device buffer and its host staging buffer to at least bytes. */
static int grow(void **dev, void **host, size_t *cap, aclDataBuffer *buf, size_t bytes)
{
    if (bytes <= *cap)
        return 0;
    size_t n = bytes + bytes / 4;  /* some headroom: shapes vary per image */
    if (*dev)
        aclrtFree(*dev);
    if (*host)
        aclrtFreeHost(*host);
    *dev = *host = NULL;
    *cap = 0;
    if (!acl_ok(aclrtMalloc(dev, n, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc") ||
        !acl_ok(aclrtMallocHost(host, n), "aclrtMallocHost") ||
        !acl_ok(aclUpdateDataBuffer(buf, *dev, n), "aclUpdateDataBuffer"))
        return -1;
    *cap = n;
    return 0;
}

/* Host staging area for an input of `floats` elements. */
static float *model_input(ocr_model *m, size_t floats)
{
    if (grow(&m->in_dev, &m->in_host, &m->in_cap, m->in_buf, floats * sizeof(float)))
        return NULL;
    return m->in_host;
}

/* Runs the model on the staged input of the given NCHW shape; the output
 * lands in m->out_host with its shape in m->out_dims. max_out_floats bounds
 * the output so its device buffer can be sized before the run. */
static int model_run(ocr_model *m, aclrtStream stream, const int64_t shape[4], size_t max_out_floats)
{
    double t0 = now_ms();
    size_t in_bytes = (size_t)(shape[0] * shape[1] * shape[2] * shape[3]) * sizeof(float);
    if (grow(&m->out_dev, &m->out_host, &m->out_cap, m->out_buf, max_out_floats * sizeof(float)))
        return -1;
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 4, shape, ACL_FORMAT_NCHW);
    if (!td) {
        fprintf(stderr, "ocr: aclCreateTensorDesc failed\n");
        return -1;
    }
    int ok = acl_ok(aclmdlSetDatasetTensorDesc(m->in, td, 0), "aclmdlSetDatasetTensorDesc");
    aclDestroyTensorDesc(td);  /* the dataset keeps its own copy */
    char what[64];
    snprintf(what, sizeof what, "aclmdlExecuteAsync(%s)", m->name);
    ok = ok &&
         acl_ok(aclrtMemcpyAsync(m->in_dev, m->in_cap, m->in_host, in_bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream),
                "aclrtMemcpyAsync(input)") &&
         acl_ok(aclmdlExecuteAsync(m->id, m->in, m->out, stream), what) &&
         acl_ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    if (!ok)
        return -1;
    /* The actual output shape is known once the model has run. */
    aclTensorDesc *od = aclmdlGetDatasetTensorDesc(m->out, 0);
    if (!od) {
        fprintf(stderr, "ocr: %s: no output tensor descriptor after execution\n", m->name);
        return -1;
    }
    m->out_rank = aclGetTensorDescNumDims(od);
    size_t count = 1;
    for (size_t d = 0; d < m->out_rank && d < 8; d++) {
        if (!acl_ok(aclGetTensorDescDimV2(od, d, &m->out_dims[d]), "aclGetTensorDescDimV2"))
            return -1;
        count *= (size_t)(m->out_dims[d] > 0 ? m->out_dims[d] : 0);
    }
    if (m->out_rank > 8 || count > max_out_floats) {
        fprintf(stderr, "ocr: %s: output of %zu elements exceeds the expected %zu\n", m->name, count,
                max_out_floats);
        return -1;
    }
    if (!acl_ok(aclrtMemcpy(m->out_host, m->out_cap, m->out_dev, count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
                "aclrtMemcpy(output)"))
        return -1;
    m->run_ms += now_ms() - t0;
    m->runs++;
    return 0;
}

static void model_unload(ocr_model *m)
{
    if (m->in)
        aclmdlDestroyDataset(m->in);
    if (m->out)
        aclmdlDestroyDataset(m->out);
    aclDestroyDataBuffer(m->in_buf);
    aclDestroyDataBuffer(m->out_buf);
    if (m->in_dev)
        aclrtFree(m->in_dev);
    if (m->out_dev)
        aclrtFree(m->out_dev);
    if (m->in_host)
        aclrtFreeHost(m->in_host);
    if (m->out_host)
        aclrtFreeHost(m->out_host);
    if (m->desc)
        aclmdlDestroyDesc(m->desc);
    if (m->loaded)
        acl_ok(aclmdlUnload(m->id), "aclmdlUnload");
    memset(m, 0, sizeof *m);
}

/* --dump: the first call of each model as .npy (float32, C order), for a
 * side-by-side check against ONNX Runtime. */
static int write_npy(const char *dir, const char *name, const int64_t *shape, size_t rank, const float *data)
{
    char path[4096], hdr[256];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "ocr: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t count = 1;
    int o = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (size_t i = 0; i < rank; i++) {
        o += snprintf(hdr + o, sizeof hdr - (size_t)o, "%lld,%s", (long long)shape[i], i + 1 < rank ? " " : "");
        count *= (size_t)shape[i];
    }
    o += snprintf(hdr + o, sizeof hdr - (size_t)o, "), }");
    int total = 10 + o + 1, pad = (64 - total % 64) % 64;  /* header padded to 64 bytes, ends in \n */
    unsigned short hl = (unsigned short)(o + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 0xff, f);
    fputc(hl >> 8, f);
    fwrite(hdr, 1, (size_t)o, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    fwrite(data, sizeof(float), count, f);
    return fclose(f) == 0 ? 0 : -1;
}

typedef struct {
    ocr_model det, cls, rec;
    int use_cls;
    aclrtStream stream;
    ocr_dict dict;
    ocr_db_params db;
    int limit_side;
    const char *dump;
    /* per-image timings (ms) */
    double det_pre, det_post, cls_pre, cls_post, rec_pre, rec_post, crop_ms, total;
    int det_w, det_h, cls_batches, rec_batches;
} ocr_app;

typedef struct {
    int idx;
    float ratio;
} by_ratio;

static int ratio_cmp(const void *a, const void *b)
{
    const by_ratio *p = a, *q = b;
    if (p->ratio != q->ratio)
        return p->ratio < q->ratio ? -1 : 1;
    return p->idx - q->idx;
}

static void sort_by_ratio(ocr_image *crops, int n, by_ratio *order)
{
    for (int i = 0; i < n; i++) {
        order[i].idx = i;
        order[i].ratio = (float)crops[i].w / (float)crops[i].h;
    }
    qsort(order, (size_t)n, sizeof *order, ratio_cmp);
}

static void dump_call(ocr_app *app, ocr_model *m, const char *tag, const int64_t in_shape[4], int *done)
{
    if (!app->dump || *done)
        return;
    char n_in[64], n_out[64];
    snprintf(n_in, sizeof n_in, "%s_input", tag);
    snprintf(n_out, sizeof n_out, "%s_output", tag);
    write_npy(app->dump, n_in, in_shape, 4, m->in_host);
    write_npy(app->dump, n_out, m->out_dims, m->out_rank, m->out_host);
    *done = 1;
}

/* The whole pipeline on one image; boxes come back in reading order with
 * their texts (low-confidence lines included, rec_score tells). */
static int ocr_image_run(ocr_app *app, const ocr_image *img, ocr_box **out_boxes, int *out_n)
{
    int n = 0, rc = -1;
    ocr_box *boxes = NULL;
    ocr_image *crops = NULL;
    by_ratio *order = NULL;
    int dumped_det = 0, dumped_cls = 0, dumped_rec = 0;
    double t_start = now_ms(), t0;
    app->det.run_ms = app->cls.run_ms = app->rec.run_ms = 0;
    app->det.runs = app->cls.runs = app->rec.runs = 0;
    app->cls_pre = app->cls_post = app->rec_pre = app->rec_post = 0;
    app->cls_batches = app->rec_batches = 0;

    /* ---- detection ---- */
    t0 = now_ms();
    int dw, dh;
    ocr_det_size(img->w, img->h, app->limit_side, &dw, &dh);
    app->det_w = dw;
    app->det_h = dh;
    float *x = model_input(&app->det, (size_t)3 * dw * dh);
    if (!x || ocr_det_prep(img, dw, dh, x))
        goto done;
    app->det_pre = now_ms() - t0;
    int64_t det_shape[4] = {1, 3, dh, dw};
    if (model_run(&app->det, app->stream, det_shape, (size_t)dw * dh))
        goto done;
    dump_call(app, &app->det, "det", det_shape, &dumped_det);
    t0 = now_ms();
    const int64_t *od = app->det.out_dims;
    if (app->det.out_rank != 4 || od[0] != 1 || od[1] != 1 || od[2] != dh || od[3] != dw) {
        fprintf(stderr, "ocr: det: unexpected output shape (rank %zu), expected 1x1x%dx%d\n", app->det.out_rank, dh,
                dw);
        goto done;
    }
    n = ocr_db_boxes(app->det.out_host, dw, dh, img->w, img->h, &app->db, &boxes);
    if (n < 0) {
        fprintf(stderr, "ocr: det post-processing: out of memory\n");
        goto done;
    }
    app->det_post = now_ms() - t0;

    /* ---- crops ---- */
    t0 = now_ms();
    crops = calloc((size_t)(n ? n : 1), sizeof *crops);
    order = calloc((size_t)(n ? n : 1), sizeof *order);
    if (!crops || !order)
        goto done;
    for (int i = 0; i < n; i++) {
        const ocr_pt *p = boxes[i].p;
        int cw = (int)fmaxf(hypotf(p[0].x - p[1].x, p[0].y - p[1].y), hypotf(p[2].x - p[3].x, p[2].y - p[3].y));
        int ch = (int)fmaxf(hypotf(p[0].x - p[3].x, p[0].y - p[3].y), hypotf(p[1].x - p[2].x, p[1].y - p[2].y));
        if (cw < 1)
            cw = 1;
        if (ch < 1)
            ch = 1;
        if (ocr_image_warp_quad(img, p, cw, ch, &crops[i]))
            goto done;
        if ((float)ch / cw >= 1.5f && ocr_image_rotate90ccw(&crops[i]))  /* vertical text */
            goto done;
    }
    app->crop_ms = now_ms() - t0;

    /* ---- angle classification, batches of similar aspect ratio ---- */
    if (app->use_cls && n > 0) {
        sort_by_ratio(crops, n, order);
        for (int b0 = 0; b0 < n; b0 += BATCH) {
            int bn = n - b0 < BATCH ? n - b0 : BATCH;
            t0 = now_ms();
            size_t slot = (size_t)3 * LINE_H * CLS_W;
            float *in = model_input(&app->cls, slot * bn);
            if (!in)
                goto done;
            for (int k = 0; k < bn; k++)
                if (ocr_line_prep(&crops[order[b0 + k].idx], LINE_H, CLS_W, in + slot * k))
                    goto done;
            app->cls_pre += now_ms() - t0;
            int64_t shape[4] = {bn, 3, LINE_H, CLS_W};
            if (model_run(&app->cls, app->stream, shape, (size_t)bn * 2))
                goto done;
            dump_call(app, &app->cls, "cls", shape, &dumped_cls);
            t0 = now_ms();
            if (app->cls.out_rank != 2 || app->cls.out_dims[0] != bn || app->cls.out_dims[1] != 2) {
                fprintf(stderr, "ocr: cls: unexpected output shape, expected %dx2\n", bn);
                goto done;
            }
            const float *prob = app->cls.out_host;
            for (int k = 0; k < bn; k++) {
                int i = order[b0 + k].idx;
                int label = prob[2 * k + 1] > prob[2 * k];
                boxes[i].cls_score = prob[2 * k + label];
                if (label == 1 && boxes[i].cls_score > CLS_THRESH) {
                    boxes[i].flipped = 1;
                    ocr_image_rotate180(&crops[i]);
                }
            }
            app->cls_post += now_ms() - t0;
            app->cls_batches++;
        }
    }

    /* ---- recognition: width of each batch from its widest line ---- */
    if (n > 0) {
        sort_by_ratio(crops, n, order);
        for (int b0 = 0; b0 < n; b0 += BATCH) {
            int bn = n - b0 < BATCH ? n - b0 : BATCH;
            t0 = now_ms();
            float max_ratio = (float)REC_W / LINE_H;
            for (int k = 0; k < bn; k++)
                max_ratio = fmaxf(max_ratio, order[b0 + k].ratio);
            int width = (int)(LINE_H * max_ratio);
            size_t slot = (size_t)3 * LINE_H * width;
            float *in = model_input(&app->rec, slot * bn);
            if (!in)
                goto done;
            for (int k = 0; k < bn; k++)
                if (ocr_line_prep(&crops[order[b0 + k].idx], LINE_H, width, in + slot * k))
                    goto done;
            app->rec_pre += now_ms() - t0;
            int64_t shape[4] = {bn, 3, LINE_H, width};
            /* At most one step per input column; classes = blank + dict + space. */
            if (model_run(&app->rec, app->stream, shape, (size_t)bn * width * app->dict.n))
                goto done;
            dump_call(app, &app->rec, "rec", shape, &dumped_rec);
            t0 = now_ms();
            const int64_t *r = app->rec.out_dims;
            if (app->rec.out_rank != 3 || r[0] != bn || r[2] != app->dict.n) {
                fprintf(stderr, "ocr: rec: output has %lld classes, the dictionary %d (blank + lines + space)\n",
                        app->rec.out_rank == 3 ? (long long)r[2] : -1LL, app->dict.n);
                goto done;
            }
            size_t per = (size_t)r[1] * r[2];
            for (int k = 0; k < bn; k++) {
                ocr_box *b = &boxes[order[b0 + k].idx];
                b->text = ocr_ctc_decode(&app->dict, (const float *)app->rec.out_host + per * k, (int)r[1],
                                         (int)r[2], &b->rec_score);
                if (!b->text)
                    goto done;
            }
            app->rec_post += now_ms() - t0;
            app->rec_batches++;
        }
    }
    rc = 0;

done:
    for (int i = 0; crops && i < n; i++)
        ocr_image_free(&crops[i]);
    free(crops);
    free(order);
    app->total = now_ms() - t_start;
    if (rc) {
        for (int i = 0; i < n && boxes; i++)
            free(boxes[i].text);
        free(boxes);
        return -1;
    }
    *out_boxes = boxes;
    *out_n = n;
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: ocr [--models DIR] [--limit-side N] [--no-cls] [--runs N] [--tsv FILE] [--dump DIR] IMAGE\n"
            "  IMAGE       PNG or JPEG\n"
            "  --models    directory with ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx,\n"
            "              ch_ppocr_mobile_v2.0_cls_infer.onnx, ppocr_keys_v1.txt\n"
            "              (default: $OPENACL_OCR_MODELS, else %s)\n"
            "  --limit-side  longest side fed to detection (default 960)\n"
            "  --no-cls    skip the angle classifier\n"
            "  --runs N    run the pipeline N times (timings of each run are printed)\n"
            "  --tsv FILE  per line found: score<TAB>turned(0/1)<TAB>x0,y0,x1,y1,x2,y2,x3,y3<TAB>text\n"
            "  --dump DIR  write each model's first input and output as .npy\n",
            OCR_DEFAULT_MODEL_DIR);
}

static void print_timings(const ocr_app *app, int run, int runs)
{
    printf("\ntiming of run %d/%d (ms)     pre   model    post\n", run, runs);
    printf("  det  %4dx%-4d        %7.1f %7.1f %7.1f\n", app->det_w, app->det_h, app->det_pre, app->det.run_ms,
           app->det_post);
    printf("  crop                   %7.1f\n", app->crop_ms);
    if (app->use_cls)
        printf("  cls  %2d batch%s        %7.1f %7.1f %7.1f\n", app->cls_batches, app->cls_batches == 1 ? " " : "es",
               app->cls_pre, app->cls.run_ms, app->cls_post);
    printf("  rec  %2d batch%s        %7.1f %7.1f %7.1f\n", app->rec_batches, app->rec_batches == 1 ? " " : "es",
           app->rec_pre, app->rec.run_ms, app->rec_post);
    printf("  total                  %7.1f\n", app->total);
}

int main(int argc, char **argv)
{
    const char *models = getenv("OPENACL_OCR_MODELS"), *image = NULL, *tsv = NULL;
    ocr_app app;
    memset(&app, 0, sizeof app);
    app.use_cls = 1;
    app.limit_side = 960;
    app.db = (ocr_db_params){0.3f, 0.6f, 1.5f, 1000};
    int runs = 1;
    if (!models || !*models)
        models = OCR_DEFAULT_MODEL_DIR;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 < argc && strcmp(a, "--models") == 0)
            models = argv[++i];
        else if (i + 1 < argc && strcmp(a, "--limit-side") == 0)
            app.limit_side = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--runs") == 0)
            runs = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--tsv") == 0)
            tsv = argv[++i];
        else if (i + 1 < argc && strcmp(a, "--dump") == 0)
            app.dump = argv[++i];
        else if (strcmp(a, "--no-cls") == 0)
            app.use_cls = 0;
        else if (a[0] != '-' && !image)
            image = a;
        else {
            usage();
            return 2;
        }
    }
    if (!image || runs < 1 || app.limit_side < 32) {
        usage();
        return 2;
    }
    if (app.dump && mkdir(app.dump, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ocr: cannot create %s: %s\n", app.dump, strerror(errno));
        return 1;
    }

    char err[512], path[3][4096], dict_path[4096];
    static const char *files[3] = {"ch_PP-OCRv4_det_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx",
                                   "ch_PP-OCRv4_rec_infer.onnx"};
    for (int i = 0; i < 3; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", models, files[i]);
    snprintf(dict_path, sizeof dict_path, "%s/ppocr_keys_v1.txt", models);

    ocr_image img;
    double t0 = now_ms();
    if (ocr_image_load(image, &img, err, sizeof err)) {
        fprintf(stderr, "ocr: %s\n", err);
        return 1;
    }
    double decode_ms = now_ms() - t0;
    if (ocr_dict_load(dict_path, &app.dict, err, sizeof err)) {
        fprintf(stderr, "ocr: %s\n  (the models directory is set by --models or OPENACL_OCR_MODELS; "
                "scripts/setup.sh installs the models)\n", err);
        ocr_image_free(&img);
        return 1;
    }

    int rc = 1, dev_set = 0;
    aclrtContext ctx = NULL;
    aclError ir = aclInit(NULL);
    if (ir != ACL_SUCCESS && ir != ACL_ERROR_REPEAT_INITIALIZE && !acl_ok(ir, "aclInit"))
        goto out;
    if (!acl_ok(aclrtSetDevice(0), "aclrtSetDevice"))
        goto out;
    dev_set = 1;
    if (!acl_ok(aclrtCreateContext(&ctx, 0), "aclrtCreateContext") ||
        !acl_ok(aclrtCreateStream(&app.stream), "aclrtCreateStream"))
        goto out;
    if (model_load(&app.det, "det", path[0]) || (app.use_cls && model_load(&app.cls, "cls", path[1])) ||
        model_load(&app.rec, "rec", path[2]))
        goto out;

    printf("openacl OCR: %s (%dx%d), decoded in %.1f ms\n", image, img.w, img.h, decode_ms);
    printf("models loaded (ms): det %.1f, cls %.1f, rec %.1f\n", app.det.load_ms, app.cls.load_ms, app.rec.load_ms);
    ocr_box *boxes = NULL;
    int n = 0;
    double first = 0;
    for (int r = 0; r < runs; r++) {
        if (r > 0) {
            for (int i = 0; i < n; i++)
                free(boxes[i].text);
            free(boxes);
            boxes = NULL;
            app.dump = NULL;
        }
        if (ocr_image_run(&app, &img, &boxes, &n))
            goto out;
        if (r == 0)
            first = app.total;
        if (runs > 1)
            printf("run %d: %.1f ms\n", r + 1, app.total);
    }

    int shown = 0;
    FILE *tf = tsv ? fopen(tsv, "w") : NULL;
    if (tsv && !tf) {
        fprintf(stderr, "ocr: cannot write %s: %s\n", tsv, strerror(errno));
        goto free_boxes;
    }
    printf("\n  #  box (x,y clockwise from top-left)          conf  text\n");
    for (int i = 0; i < n; i++) {
        ocr_box *b = &boxes[i];
        if (b->rec_score < DROP_SCORE)
            continue;  /* PaddleOCR's drop_score */
        char corners[128];
        snprintf(corners, sizeof corners, "%.0f,%.0f %.0f,%.0f %.0f,%.0f %.0f,%.0f", b->p[0].x, b->p[0].y, b->p[1].x,
                 b->p[1].y, b->p[2].x, b->p[2].y, b->p[3].x, b->p[3].y);
        printf("%3d  %-40s %5.3f  %s%s\n", ++shown, corners, b->rec_score, b->text, b->flipped ? "  (turned 180)" : "");
        if (tf)
            fprintf(tf, "%.4f\t%d\t%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\t%s\n", b->rec_score, b->flipped,
                    b->p[0].x, b->p[0].y, b->p[1].x, b->p[1].y, b->p[2].x, b->p[2].y, b->p[3].x, b->p[3].y, b->text);
    }
    if (n > shown)
        printf("  (%d more box%s below the %.1f confidence cut)\n", n - shown, n - shown == 1 ? "" : "es",
               DROP_SCORE);
    if (tf && fclose(tf) != 0) {
        fprintf(stderr, "ocr: cannot write %s\n", tsv);
        goto free_boxes;
    }
    print_timings(&app, runs, runs);
    if (runs > 1)
        printf("  (first run: %.1f ms, includes planning each new input shape)\n", first);
    rc = 0;
free_boxes:
    for (int i = 0; i < n; i++)
        free(boxes[i].text);
    free(boxes);

out:
    model_unload(&app.det);
    model_unload(&app.cls);
    model_unload(&app.rec);
    if (app.stream)
        aclrtDestroyStream(app.stream);
    if (ctx)
        aclrtDestroyContext(ctx);
    if (dev_set)
        aclrtResetDevice(0);
    aclFinalize();
    ocr_dict_free(&app.dict);
    ocr_image_free(&img);
    return rc;
}
