/* The VPC calls of acl_dvpp.h: argument checks (formats, sizes, strides,
 * region parity and bounds, media memory), then one queued task per call
 * holding a snapshot of every picture and region, run by dvpp_vpc_core.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvpp/dvpp_priv.h"

static const acldvppPixelFormat k_vpc_in[] = {
    PIXEL_FORMAT_YUV_400,         PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420,
    PIXEL_FORMAT_YUV_SEMIPLANAR_422, PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YUV_SEMIPLANAR_444,
    PIXEL_FORMAT_YVU_SEMIPLANAR_444, PIXEL_FORMAT_YUV_SEMIPLANAR_440, PIXEL_FORMAT_YVU_SEMIPLANAR_440,
    PIXEL_FORMAT_YUYV_PACKED_422, PIXEL_FORMAT_UYVY_PACKED_422,    PIXEL_FORMAT_YVYU_PACKED_422,
    PIXEL_FORMAT_VYUY_PACKED_422, PIXEL_FORMAT_YUV_PACKED_444,    PIXEL_FORMAT_RGB_888,
    PIXEL_FORMAT_BGR_888,         PIXEL_FORMAT_ARGB_8888,          PIXEL_FORMAT_ABGR_8888,
    PIXEL_FORMAT_RGBA_8888,       PIXEL_FORMAT_BGRA_8888,          PIXEL_FORMAT_UNKNOWN};

static const acldvppPixelFormat k_vpc_out[] = {
    PIXEL_FORMAT_YUV_400,         PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420,
    PIXEL_FORMAT_YUV_SEMIPLANAR_422, PIXEL_FORMAT_YVU_SEMIPLANAR_422, PIXEL_FORMAT_YUV_PACKED_444,
    PIXEL_FORMAT_RGB_888,         PIXEL_FORMAT_BGR_888,            PIXEL_FORMAT_ARGB_8888,
    PIXEL_FORMAT_ABGR_8888,       PIXEL_FORMAT_RGBA_8888,          PIXEL_FORMAT_BGRA_8888,
    PIXEL_FORMAT_UNKNOWN};

#define VPC_MIN_W 10
#define VPC_MIN_H 6

static int check_in(const char *api, const char *role, const acldvppPicDesc *d, dv_pic *p)
{
    dv_pic_rule r = {api, role, k_vpc_in, VPC_MIN_W, VPC_MIN_H, 4096, 4096, 8192, 8192};
    return dv_pic_check(&r, d, p);
}

static int check_out(const char *api, const char *role, const acldvppPicDesc *d, dv_pic *p)
{
    dv_pic_rule r = {api, role, k_vpc_out, VPC_MIN_W, VPC_MIN_H, 4096, 4096, 0, 0};
    return dv_pic_check(&r, d, p);
}

static int check_resize_cfg(const char *api, const acldvppResizeConfig *rc, int *interp)
{
    if (!rc) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: resizeConfig is NULL", api);
    if (rc->magic != DV_MAGIC_RESIZE)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: resizeConfig %p is not a live acldvppResizeConfig", api,
                       (const void *)rc);
    *interp = (int)rc->interpolation;
    return ACL_SUCCESS;
}

/* A crop region: even left/top, odd right/bottom (even sizes), inside the
 * picture, at least the smallest picture VPC takes. */
static int check_crop(const char *api, const char *what, const acldvppRoiConfig *roi, const dv_pic *in, dv_rect *r)
{
    int rc = dv_check_roi(api, what, roi);
    if (rc) return rc;
    if ((roi->left & 1) || (roi->top & 1) || !(roi->right & 1) || !(roi->bottom & 1))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (left %u, right %u, top %u, bottom %u): left and top must be even, right and bottom "
                       "odd",
                       api, what, roi->left, roi->right, roi->top, roi->bottom);
    if (roi->right >= in->w || roi->bottom >= in->h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (left %u, right %u, top %u, bottom %u) is outside the %ux%u input picture", api, what,
                       roi->left, roi->right, roi->top, roi->bottom, in->w, in->h);
    r->x = roi->left, r->y = roi->top, r->w = roi->right - roi->left + 1, r->h = roi->bottom - roi->top + 1;
    if (r->w < VPC_MIN_W || r->h < VPC_MIN_H)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is %ux%u, smaller than %ux%u", api, what, r->w, r->h,
                       VPC_MIN_W, VPC_MIN_H);
    return ACL_SUCCESS;
}

/* A paste region: left a multiple of 16, even top, odd right/bottom, inside the output. */
static int check_paste(const char *api, const char *what, const acldvppRoiConfig *roi, const dv_pic *out, dv_rect *r)
{
    int rc = dv_check_roi(api, what, roi);
    if (rc) return rc;
    if ((roi->left % 16) || (roi->top & 1) || !(roi->right & 1) || !(roi->bottom & 1))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (left %u, right %u, top %u, bottom %u): left must be a multiple of 16, top even, "
                       "right and bottom odd",
                       api, what, roi->left, roi->right, roi->top, roi->bottom);
    if (roi->right >= out->w || roi->bottom >= out->h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (left %u, right %u, top %u, bottom %u) is outside the %ux%u output picture", api, what,
                       roi->left, roi->right, roi->top, roi->bottom, out->w, out->h);
    r->x = roi->left, r->y = roi->top, r->w = roi->right - roi->left + 1, r->h = roi->bottom - roi->top + 1;
    if (r->w < VPC_MIN_W || r->h < VPC_MIN_H)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is %ux%u, smaller than %ux%u", api, what, r->w, r->h,
                       VPC_MIN_W, VPC_MIN_H);
    return ACL_SUCCESS;
}

/* ---- the queued task ---- */

typedef struct {
    const char *api;
    uint32_t n;
    dv_vpc_job jobs[];
} vpc_task;

static int vpc_task_run(void *arg)
{
    vpc_task *t = arg;
    int first = ACL_SUCCESS;
    for (uint32_t i = 0; i < t->n; i++) {
        const dv_vpc_job *j = &t->jobs[i];
        int rc = ACL_SUCCESS;
        if (j->pyr_down) {
            dv_pyr_down(&j->in, &j->out);
        } else {
            rc = dv_vpc_run(t->api, j);
            if (!rc && j->border.on) dv_border_fill(j);
        }
        if (j->out_desc) {
            j->out_desc->ret_code = (uint32_t)rc;
            if (!rc && j->fill_out_desc) {
                j->out_desc->width = j->out.w;
                j->out_desc->height = j->out.h;
                j->out_desc->width_stride = j->out.ws;
                j->out_desc->height_stride = j->out.hs;
            }
        }
        if (rc && !first) first = rc;
    }
    return first;
}

static vpc_task *vpc_task_new(const char *api, uint32_t n)
{
    vpc_task *t = calloc(1, sizeof(*t) + (size_t)n * sizeof(dv_vpc_job));
    if (!t) {
        DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the task", api);
        return NULL;
    }
    t->api = api;
    t->n = n;
    return t;
}

/* One picture in, one out: Resize / Crop / CropResize / CropAndPaste / CropResizePaste. */
static int vpc_single(const char *api, acldvppChannelDesc *ch, acldvppPicDesc *inDesc, acldvppPicDesc *outDesc,
                      const acldvppRoiConfig *crop, const acldvppRoiConfig *paste, const acldvppResizeConfig *cfg,
                      int need_cfg, aclrtStream stream)
{
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, ch, DVPP_CHNMODE_VPC))) return rc;
    dv_vpc_job j;
    memset(&j, 0, sizeof(j));
    if ((rc = check_in(api, "inputDesc", inDesc, &j.in))) return rc;
    if ((rc = check_out(api, "outputDesc", outDesc, &j.out))) return rc;
    if (need_cfg && (rc = check_resize_cfg(api, cfg, &j.interp))) return rc;
    if (crop) {
        if ((rc = check_crop(api, "cropArea", crop, &j.in, &j.crop))) return rc;
    } else {
        j.crop = (dv_rect){0, 0, j.in.w, j.in.h};
    }
    if (paste) {
        if ((rc = check_paste(api, "pasteArea", paste, &j.out, &j.dst))) return rc;
    } else {
        j.dst = (dv_rect){0, 0, j.out.w, j.out.h};
    }
    j.csc = ch->csc;
    j.out_desc = outDesc;
    vpc_task *t = vpc_task_new(api, 1);
    if (!t) return ACL_ERROR_BAD_ALLOC;
    t->jobs[0] = j;
    return dv_enqueue(api, stream, vpc_task_run, free, t);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcResizeAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                   acldvppPicDesc *outputDesc, acldvppResizeConfig *resizeConfig,
                                                   aclrtStream stream)
{
    return vpc_single("acldvppVpcResizeAsync", channelDesc, inputDesc, outputDesc, NULL, NULL, resizeConfig, 1,
                      stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcCropAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                 acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea,
                                                 aclrtStream stream)
{
    if (!cropArea) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "acldvppVpcCropAsync: cropArea is NULL");
    return vpc_single("acldvppVpcCropAsync", channelDesc, inputDesc, outputDesc, cropArea, NULL, NULL, 0, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizeAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                       acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea,
                                                       acldvppResizeConfig *resizeConfig, aclrtStream stream)
{
    if (!cropArea) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "acldvppVpcCropResizeAsync: cropArea is NULL");
    return vpc_single("acldvppVpcCropResizeAsync", channelDesc, inputDesc, outputDesc, cropArea, NULL, resizeConfig,
                      1, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcCropAndPasteAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                         acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea,
                                                         acldvppRoiConfig *pasteArea, aclrtStream stream)
{
    static const char api[] = "acldvppVpcCropAndPasteAsync";
    if (!cropArea || !pasteArea) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: cropArea or pasteArea is NULL", api);
    return vpc_single(api, channelDesc, inputDesc, outputDesc, cropArea, pasteArea, NULL, 0, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizePasteAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                            acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea,
                                                            acldvppRoiConfig *pasteArea,
                                                            acldvppResizeConfig *resizeConfig, aclrtStream stream)
{
    static const char api[] = "acldvppVpcCropResizePasteAsync";
    if (!cropArea || !pasteArea) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: cropArea or pasteArea is NULL", api);
    return vpc_single(api, channelDesc, inputDesc, outputDesc, cropArea, pasteArea, resizeConfig, 1, stream);
}

/* ---- batches ---- */

static int check_border(const char *api, const char *what, const acldvppBorderConfig *b, const dv_pic *out,
                        dv_vpc_job *j);

static int check_batch(const char *api, const char *what, const acldvppBatchPicDesc *b)
{
    if (!b) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, what);
    if (b->magic != DV_MAGIC_BATCH)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live acldvppBatchPicDesc", api, what,
                       (const void *)b);
    return ACL_SUCCESS;
}

static int vpc_batch_ex(const char *api, acldvppChannelDesc *ch, acldvppBatchPicDesc *src, const uint32_t *roiNums,
                        uint32_t size, acldvppBatchPicDesc *dst, acldvppRoiConfig *const *crops,
                        acldvppRoiConfig *const *pastes, int with_paste, acldvppBorderConfig *const *borders,
                        int with_border, const acldvppResizeConfig *cfg, int need_cfg, aclrtStream stream)
{
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, ch, DVPP_CHNMODE_VPC))) return rc;
    if ((rc = check_batch(api, "srcBatchPicDescs", src)) || (rc = check_batch(api, "dstBatchPicDescs", dst)))
        return rc;
    if (!roiNums) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: roiNums is NULL", api);
    if (!crops) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: cropAreas is NULL", api);
    if (with_paste && !pastes) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: pasteAreas is NULL", api);
    if (with_border && !borders) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: borderCfgs is NULL", api);
    if (size == 0 || size > 256 || size > src->count)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: size %u (entries of roiNums) must be 1..256 and at most the source batch of %u", api, size,
                       src->count);
    uint64_t total = 0;
    for (uint32_t i = 0; i < size; i++) {
        if (roiNums[i] == 0 || roiNums[i] > 65535)
            return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: roiNums[%u] = %u is not in 1..65535", api, i, roiNums[i]);
        total += roiNums[i];
    }
    if (total > 256 || total != dst->count)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: roiNums add up to %" PRIu64 "; they must equal the destination batch size %u (at most 256)",
                       api, total, dst->count);
    int interp = 0;
    if (need_cfg && (rc = check_resize_cfg(api, cfg, &interp))) return rc;
    vpc_task *t = vpc_task_new(api, (uint32_t)total);
    if (!t) return ACL_ERROR_BAD_ALLOC;
    uint32_t k = 0;
    char role[64], what[64];
    for (uint32_t i = 0; i < size; i++) {
        dv_pic in;
        snprintf(role, sizeof(role), "srcBatchPicDescs[%u]", i);
        if ((rc = check_in(api, role, &src->pics[i], &in))) goto fail;
        for (uint32_t r = 0; r < roiNums[i]; r++, k++) {
            dv_vpc_job *j = &t->jobs[k];
            j->in = in;
            j->interp = interp;
            j->csc = ch->csc;
            snprintf(role, sizeof(role), "dstBatchPicDescs[%u]", k);
            if ((rc = check_out(api, role, &dst->pics[k], &j->out))) goto fail;
            snprintf(what, sizeof(what), "cropAreas[%u]", k);
            if ((rc = check_crop(api, what, crops[k], &in, &j->crop))) goto fail;
            if (with_paste) {
                snprintf(what, sizeof(what), "pasteAreas[%u]", k);
                if ((rc = check_paste(api, what, pastes[k], &j->out, &j->dst))) goto fail;
            } else if (with_border) {
                snprintf(what, sizeof(what), "borderCfgs[%u]", k);
                if ((rc = check_border(api, what, borders[k], &j->out, j))) goto fail;
            } else {
                j->dst = (dv_rect){0, 0, j->out.w, j->out.h};
            }
            j->out_desc = &dst->pics[k];
        }
    }
    return dv_enqueue(api, stream, vpc_task_run, free, t);
fail:
    free(t);
    return rc;
}

static int vpc_batch(const char *api, acldvppChannelDesc *ch, acldvppBatchPicDesc *src, const uint32_t *roiNums,
                     uint32_t size, acldvppBatchPicDesc *dst, acldvppRoiConfig *const *crops,
                     acldvppRoiConfig *const *pastes, int with_paste, const acldvppResizeConfig *cfg, int need_cfg,
                     aclrtStream stream)
{
    return vpc_batch_ex(api, ch, src, roiNums, size, dst, crops, pastes, with_paste, NULL, 0, cfg, need_cfg, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAsync(acldvppChannelDesc *channelDesc,
                                                      acldvppBatchPicDesc *srcBatchPicDescs, uint32_t *roiNums,
                                                      uint32_t size, acldvppBatchPicDesc *dstBatchPicDescs,
                                                      acldvppRoiConfig *cropAreas[], aclrtStream stream)
{
    return vpc_batch("acldvppVpcBatchCropAsync", channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs,
                     cropAreas, NULL, 0, NULL, 0, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizeAsync(acldvppChannelDesc *channelDesc,
                                                            acldvppBatchPicDesc *srcBatchPicDescs, uint32_t *roiNums,
                                                            uint32_t size, acldvppBatchPicDesc *dstBatchPicDescs,
                                                            acldvppRoiConfig *cropAreas[],
                                                            acldvppResizeConfig *resizeConfig, aclrtStream stream)
{
    return vpc_batch("acldvppVpcBatchCropResizeAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                     dstBatchPicDescs, cropAreas, NULL, 0, resizeConfig, 1, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAndPasteAsync(acldvppChannelDesc *channelDesc,
                                                              acldvppBatchPicDesc *srcBatchPicDescs, uint32_t *roiNums,
                                                              uint32_t size, acldvppBatchPicDesc *dstBatchPicDescs,
                                                              acldvppRoiConfig *cropAreas[],
                                                              acldvppRoiConfig *pasteAreas[], aclrtStream stream)
{
    return vpc_batch("acldvppVpcBatchCropAndPasteAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                     dstBatchPicDescs, cropAreas, pasteAreas, 1, NULL, 0, stream);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizePasteAsync(
    acldvppChannelDesc *channelDesc, acldvppBatchPicDesc *srcBatchPicDescs, uint32_t *roiNums, uint32_t size,
    acldvppBatchPicDesc *dstBatchPicDescs, acldvppRoiConfig *cropAreas[], acldvppRoiConfig *pasteAreas[],
    acldvppResizeConfig *resizeConfig, aclrtStream stream)
{
    return vpc_batch("acldvppVpcBatchCropResizePasteAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                     dstBatchPicDescs, cropAreas, pasteAreas, 1, resizeConfig, 1, stream);
}

/* ---- colour conversion ---- */

ACL_FUNC_VISIBILITY aclError acldvppVpcConvertColorAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                         acldvppPicDesc *outputDesc, aclrtStream stream)
{
    static const char api[] = "acldvppVpcConvertColorAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_VPC))) return rc;
    dv_vpc_job j;
    memset(&j, 0, sizeof(j));
    if ((rc = check_in(api, "inputDesc", inputDesc, &j.in))) return rc;
    if (!outputDesc || outputDesc->magic != DV_MAGIC_PIC)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc %p is not a live acldvppPicDesc", api,
                       (void *)outputDesc);
    /* width, height and strides left 0 are derived from the input and the output format */
    acldvppPicDesc o = *outputDesc;
    const dv_fmt *fo = dv_fmt_get(o.format);
    if (o.width == 0) o.width = j.in.w;
    if (o.height == 0) o.height = j.in.h;
    if (o.width != j.in.w || o.height != j.in.h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc is %ux%u but the input is %ux%u; colour conversion "
                       "keeps the size (leave width and height 0)", api, o.width, o.height, j.in.w, j.in.h);
    if (fo && o.width_stride == 0) o.width_stride = dv_align(o.width * fo->bpp, 16);
    if (o.height_stride == 0) o.height_stride = dv_align(o.height, 2);
    if ((rc = check_out(api, "outputDesc", &o, &j.out))) return rc;
    j.crop = (dv_rect){0, 0, j.in.w, j.in.h};
    j.dst = (dv_rect){0, 0, j.out.w, j.out.h};
    j.csc = channelDesc->csc;
    j.out_desc = outputDesc;
    j.fill_out_desc = 1;
    vpc_task *t = vpc_task_new(api, 1);
    if (!t) return ACL_ERROR_BAD_ALLOC;
    t->jobs[0] = j;
    return dv_enqueue(api, stream, vpc_task_run, free, t);
}

/* ---- borders and the pyramid ---- */

/* A border configuration around an inner w x h picture inside out: sizes
 * add up, and chroma-subsampled formats keep even borders. */
static int check_border(const char *api, const char *what, const acldvppBorderConfig *b, const dv_pic *out,
                        dv_vpc_job *j)
{
    if (!b) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, what);
    if (b->magic != DV_MAGIC_BORDER)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live acldvppBorderConfig", api, what,
                       (const void *)b);
    const dv_fmt *f = out->f;
    if ((f->sx && ((b->left | b->right) & 1)) || (f->sy && ((b->top | b->bottom) & 1)))
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (top %u, bottom %u, left %u, right %u) must be even on the sides %s subsamples", api,
                       what, b->top, b->bottom, b->left, b->right, f->name);
    uint64_t bw = (uint64_t)b->left + b->right, bh = (uint64_t)b->top + b->bottom;
    if (bw + VPC_MIN_W > out->w || bh + VPC_MIN_H > out->h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: %s (top %u, bottom %u, left %u, right %u) leaves less than %ux%u of the %ux%u output", api,
                       what, b->top, b->bottom, b->left, b->right, VPC_MIN_W, VPC_MIN_H, out->w, out->h);
    j->border.on = 1;
    j->border.type = b->type;
    j->border.top = b->top, j->border.bottom = b->bottom, j->border.left = b->left, j->border.right = b->right;
    for (int c = 0; c < 4; c++) j->border.value[c] = (uint8_t)(b->value[c] + 0.5);
    j->dst = (dv_rect){b->left, b->top, out->w - (uint32_t)bw, out->h - (uint32_t)bh};
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppVpcMakeBorderAsync(const acldvppChannelDesc *channelDesc,
                                                       const acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc,
                                                       const acldvppBorderConfig *borderConfig, aclrtStream stream)
{
    static const char api[] = "acldvppVpcMakeBorderAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_VPC))) return rc;
    dv_vpc_job j;
    memset(&j, 0, sizeof(j));
    if ((rc = check_in(api, "inputDesc", inputDesc, &j.in))) return rc;
    if ((rc = check_out(api, "outputDesc", outputDesc, &j.out))) return rc;
    if (j.in.f != j.out.f)
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH, "%s: outputDesc format %s differs from the input's %s", api,
                       j.out.f->name, j.in.f->name);
    if ((rc = check_border(api, "borderConfig", borderConfig, &j.out, &j))) return rc;
    if (j.dst.w != j.in.w || j.dst.h != j.in.h)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM,
                       "%s: outputDesc is %ux%u; the %ux%u input with borders (top %u, bottom %u, left %u, right %u) "
                       "makes %ux%u",
                       api, j.out.w, j.out.h, j.in.w, j.in.h, borderConfig->top, borderConfig->bottom,
                       borderConfig->left, borderConfig->right, j.in.w + borderConfig->left + borderConfig->right,
                       j.in.h + borderConfig->top + borderConfig->bottom);
    j.crop = (dv_rect){0, 0, j.in.w, j.in.h};
    j.csc = channelDesc->csc;
    j.out_desc = outputDesc;
    vpc_task *t = vpc_task_new(api, 1);
    if (!t) return ACL_ERROR_BAD_ALLOC;
    t->jobs[0] = j;
    return dv_enqueue(api, stream, vpc_task_run, free, t);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizeMakeBorderAsync(
    acldvppChannelDesc *channelDesc, acldvppBatchPicDesc *srcBatchPicDescs, uint32_t *roiNums, uint32_t size,
    acldvppBatchPicDesc *dstBatchPicDescs, acldvppRoiConfig *cropAreas[], acldvppBorderConfig *borderCfgs[],
    acldvppResizeConfig *resizeConfig, aclrtStream stream)
{
    return vpc_batch_ex("acldvppVpcBatchCropResizeMakeBorderAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                        dstBatchPicDescs, cropAreas, NULL, 0, borderCfgs, 1, resizeConfig, 1, stream);
}

static const acldvppPixelFormat k_pyr[] = {PIXEL_FORMAT_YUV_400, PIXEL_FORMAT_UNKNOWN};

ACL_FUNC_VISIBILITY aclError acldvppVpcPyrDownAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc,
                                                    acldvppPicDesc *outputDesc, void *reserve, aclrtStream stream)
{
    static const char api[] = "acldvppVpcPyrDownAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_VPC))) return rc;
    if (reserve) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: reserve must be NULL", api);
    dv_vpc_job j;
    memset(&j, 0, sizeof(j));
    dv_pic_rule ri = {api, "inputDesc", k_pyr, VPC_MIN_W, VPC_MIN_H, 4096, 4096, 0, 0};
    dv_pic_rule ro = {api, "outputDesc", k_pyr, VPC_MIN_W / 2, VPC_MIN_H / 2, 2048, 2048, 0, 0};
    if ((rc = dv_pic_check(&ri, inputDesc, &j.in)) || (rc = dv_pic_check(&ro, outputDesc, &j.out))) return rc;
    if (j.out.w != (j.in.w + 1) / 2 || j.out.h != (j.in.h + 1) / 2)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc is %ux%u; a %ux%u input goes down to %ux%u", api,
                       j.out.w, j.out.h, j.in.w, j.in.h, (j.in.w + 1) / 2, (j.in.h + 1) / 2);
    j.pyr_down = 1;
    j.out_desc = outputDesc;
    vpc_task *t = vpc_task_new(api, 1);
    if (!t) return ACL_ERROR_BAD_ALLOC;
    t->jobs[0] = j;
    return dv_enqueue(api, stream, vpc_task_run, free, t);
}

/* ---- the 310P-only calls openacl does not implement ---- */

ACL_FUNC_VISIBILITY aclError acldvppVpcEqualizeHistAsync(const acldvppChannelDesc *channelDesc,
                                                         const acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc,
                                                         const acldvppLutMap *lutMap, aclrtStream stream)
{
    (void)channelDesc, (void)inputDesc, (void)outputDesc, (void)lutMap, (void)stream;
    return OA_UNSUPPORTED(acldvppVpcEqualizeHistAsync);
}

ACL_FUNC_VISIBILITY aclError acldvppVpcCalcHistAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *srcPicDesc,
                                                     acldvppHist *hist, void *reserve, aclrtStream stream)
{
    (void)channelDesc, (void)srcPicDesc, (void)hist, (void)reserve, (void)stream;
    return OA_UNSUPPORTED(acldvppVpcCalcHistAsync);
}
