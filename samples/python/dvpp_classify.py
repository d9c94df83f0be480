#!/usr/bin/env python3
"""dvpp_classify.py: JPEG -> DVPP decode -> VPC crop-resize-paste (aspect
ratio kept) -> classifier -> top-5 through acl.media, on device memory and
one stream (the Python twin of samples/dvpp_classify/dvpp_classify.c, written
the way Ascend's pyACL image samples are):

  init -> set_device -> context, stream -> load the model
  -> dvpp_create_channel
  per image: dvpp_jpeg_get_image_info (host bytes) -> dvpp_malloc + copy
    -> dvpp_jpeg_decode_async (NV12) -> dvpp_vpc_crop_resize_paste_async into
       a black NV12 canvas of the model's size -> copy back on the same
       stream -> synchronize
    -> NV12 -> RGB -> (x / 255 - mean) / std, NCHW float32 with numpy (a
       model compiled with AIPP does this itself: see aipp_dvpp.py)
    -> copy into the model input -> execute_async -> copy the output back
       -> synchronize -> top-5
  -> release in reverse order.

Usage: dvpp_classify.py MODEL OUT_DIR IMAGE.jpg [IMAGE.jpg ...]
Output files and the "<stem> top-5:" lines are the C sample's.
"""
import os
import sys

import numpy as np

import acl

# Constants pyACL applications define themselves (values of the C API).
ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_FLOAT = 0
NPY_UINT8, NPY_FLOAT32 = 2, 11         # numpy type numbers, as pyACL's ptr_to_numpy takes them
PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1     # NV12
INTERPOLATION_BILINEAR = 1              # OpenCV-like

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def check_ret(message, ret):
    """ACL failures never raise in pyACL: they come back as ret codes."""
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


def align(v, a):
    return (v + a - 1) // a * a


def fit(w, h, cw, ch):
    """The paste box (left, right, top, bottom) of a w x h picture in a
    cw x ch canvas: scaled to fit, aspect ratio kept, sizes even, centred
    with left a multiple of 16 and top even (VPC's rules)."""
    if w * ch >= h * cw:
        pw, ph = cw, (h * cw // w) & ~1
    else:
        pw, ph = (w * ch // h) & ~1, ch
    pw, ph = max(pw, 2), max(ph, 2)
    left, top = ((cw - pw) // 2) & ~15, ((ch - ph) // 2) & ~1
    return left, left + pw - 1, top, top + ph - 1


def nv12_to_input(nv12, w, h, ws, hs):
    """NV12 (JPEG's full-range BT.601) -> normalised float32 [1,3,h,w]; each
    pixel takes the chroma pair of its 2x2 block."""
    y = nv12[:ws * hs].reshape(hs, ws)[:h, :w].astype(np.float32)
    uv = nv12[ws * hs:].reshape(hs // 2, ws)[:h // 2, :w].reshape(h // 2, w // 2, 2).astype(np.float32) - 128
    u = np.repeat(np.repeat(uv[..., 0], 2, 0), 2, 1)[:h, :w]
    v = np.repeat(np.repeat(uv[..., 1], 2, 0), 2, 1)[:h, :w]
    rgb = np.stack([y + 1.402 * v, y - 0.344136 * u - 0.714136 * v, y + 1.772 * u])
    rgb = np.clip(np.round(rgb), 0, 255)
    return ((rgb / 255 - MEAN[:, None, None]) / STD[:, None, None]).astype(np.float32)[None]


def new_pic(data, size, w=0, h=0, ws=0, hs=0):
    pic = acl.media.dvpp_create_pic_desc()
    if not pic:
        raise RuntimeError("acl.media.dvpp_create_pic_desc failed: %s" % acl.get_recent_err_msg())
    check_ret("dvpp_set_pic_desc_data", acl.media.dvpp_set_pic_desc_data(pic, data))
    check_ret("dvpp_set_pic_desc_size", acl.media.dvpp_set_pic_desc_size(pic, size))
    check_ret("dvpp_set_pic_desc_format", acl.media.dvpp_set_pic_desc_format(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420))
    if w:
        check_ret("dvpp_set_pic_desc_width", acl.media.dvpp_set_pic_desc_width(pic, w))
        check_ret("dvpp_set_pic_desc_height", acl.media.dvpp_set_pic_desc_height(pic, h))
        check_ret("dvpp_set_pic_desc_width_stride", acl.media.dvpp_set_pic_desc_width_stride(pic, ws))
        check_ret("dvpp_set_pic_desc_height_stride", acl.media.dvpp_set_pic_desc_height_stride(pic, hs))
    return pic


def classify(channel, resize, stream, model, image_path, out_dir):
    """One image through the pipeline; releases what it made, even on error."""
    model_id, in_dev, in_size, out_dev, out_size, inputs, outputs, mw, mh = model
    stem = os.path.splitext(os.path.basename(image_path))[0]
    bufs, pics, rois, hosts = [], [], [], []
    try:
        jpeg = open(image_path, "rb").read()
        w, h, comps, ret = acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(jpeg), len(jpeg))
        check_ret("dvpp_jpeg_get_image_info", ret)
        dec_size, ret = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(jpeg), len(jpeg),
                                                             PIXEL_FORMAT_YUV_SEMIPLANAR_420)
        check_ret("dvpp_jpeg_predict_dec_size", ret)
        print("%s: %dx%d, %d components" % (stem, w, h, comps))

        jpeg_dev, ret = acl.media.dvpp_malloc(len(jpeg))
        check_ret("dvpp_malloc", ret)
        bufs.append(jpeg_dev)
        check_ret("memcpy", acl.rt.memcpy(jpeg_dev, len(jpeg), acl.util.bytes_to_ptr(jpeg), len(jpeg),
                                          ACL_MEMCPY_HOST_TO_DEVICE))
        dec_dev, ret = acl.media.dvpp_malloc(dec_size)
        check_ret("dvpp_malloc", ret)
        bufs.append(dec_dev)
        dec_pic = new_pic(dec_dev, dec_size)
        pics.append(dec_pic)
        check_ret("dvpp_jpeg_decode_async",
                  acl.media.dvpp_jpeg_decode_async(channel, jpeg_dev, len(jpeg), dec_pic, stream))

        # The VPC input describes the decoder's output before it exists:
        # NV12 makes the size even, strides align128(w) x align16(h).
        dw, dh = w & ~1, h & ~1
        vpc_in = new_pic(dec_dev, dec_size, dw, dh, align(w, 128), align(h, 16))
        pics.append(vpc_in)

        cws, chs = align(mw, 16), align(mh, 2)
        canvas_size = cws * chs * 3 // 2
        canvas_dev, ret = acl.media.dvpp_malloc(canvas_size)
        check_ret("dvpp_malloc", ret)
        bufs.append(canvas_dev)
        check_ret("memset", acl.rt.memset(canvas_dev, canvas_size, 0, cws * chs))          # Y 0
        check_ret("memset", acl.rt.memset(canvas_dev + cws * chs, canvas_size - cws * chs, 128,
                                          canvas_size - cws * chs))                        # U = V = 128
        canvas_pic = new_pic(canvas_dev, canvas_size, mw, mh, cws, chs)
        pics.append(canvas_pic)
        box = fit(dw, dh, mw, mh)
        crop = acl.media.dvpp_create_roi_config(0, dw - 1, 0, dh - 1)
        paste = acl.media.dvpp_create_roi_config(*box)
        rois += [crop, paste]
        check_ret("dvpp_vpc_crop_resize_paste_async",
                  acl.media.dvpp_vpc_crop_resize_paste_async(channel, vpc_in, canvas_pic, crop, paste, resize,
                                                             stream))
        # host ends of asynchronous copies are page-locked (malloc_host)
        canvas_host, ret = acl.rt.malloc_host(canvas_size)
        check_ret("acl.rt.malloc_host", ret)
        hosts.append(canvas_host)
        check_ret("memcpy_async", acl.rt.memcpy_async(canvas_host, canvas_size, canvas_dev, canvas_size,
                                                      ACL_MEMCPY_DEVICE_TO_HOST, stream))
        check_ret("synchronize_stream", acl.rt.synchronize_stream(stream))
        for what, pic in (("decode", dec_pic), ("resize", canvas_pic)):
            code = acl.media.dvpp_get_pic_desc_ret_code(pic)
            if code:
                raise RuntimeError("%s: DVPP %s reported %d" % (stem, what, code))
        print("%s: pasted at (%d,%d) %dx%d" % (stem, box[0], box[2], box[1] - box[0] + 1, box[3] - box[2] + 1))

        canvas = acl.util.ptr_to_numpy(canvas_host, (canvas_size,), NPY_UINT8)
        io_host, ret = acl.rt.malloc_host(in_size + out_size)
        check_ret("acl.rt.malloc_host", ret)
        hosts.append(io_host)
        x = acl.util.ptr_to_numpy(io_host, (1, 3, mh, mw), NPY_FLOAT32)
        x[...] = nv12_to_input(canvas, mw, mh, cws, chs)
        assert x.nbytes == in_size
        check_ret("memcpy_async", acl.rt.memcpy_async(in_dev, in_size, io_host, in_size,
                                                      ACL_MEMCPY_HOST_TO_DEVICE, stream))
        check_ret("execute_async", acl.mdl.execute_async(model_id, inputs, outputs, stream))
        check_ret("memcpy_async", acl.rt.memcpy_async(io_host + in_size, out_size, out_dev, out_size,
                                                      ACL_MEMCPY_DEVICE_TO_HOST, stream))
        check_ret("synchronize_stream", acl.rt.synchronize_stream(stream))
        out = acl.util.ptr_to_numpy(io_host + in_size, (out_size // 4,), NPY_FLOAT32)

        top = np.argsort(-out, kind="stable")[:5]
        print("%s top-5:%s" % (stem, "".join(" [%d] %.4f" % (k, out[k]) for k in top)))
        x.tofile(os.path.join(out_dir, stem + "_input.bin"))
        out.tofile(os.path.join(out_dir, stem + "_output_0.bin"))
    finally:
        acl.rt.synchronize_stream(stream)     # nothing queued may outlive its buffers
        for r in rois:
            acl.media.dvpp_destroy_roi_config(r)
        for p in reversed(pics):
            acl.media.dvpp_destroy_pic_desc(p)
        for b in reversed(bufs):
            acl.media.dvpp_free(b)
        for h_ in hosts:
            acl.rt.free_host(h_)


def main(model_path, out_dir, images):
    device_id = 0
    check_ret("acl.init", acl.init())
    check_ret("acl.rt.set_device", acl.rt.set_device(device_id))
    context, ret = acl.rt.create_context(device_id)
    check_ret("acl.rt.create_context", ret)
    stream, ret = acl.rt.create_stream()
    check_ret("acl.rt.create_stream", ret)
    model_id, ret = acl.mdl.load_from_file(model_path)
    check_ret("acl.mdl.load_from_file", ret)
    desc = acl.mdl.create_desc()
    check_ret("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    check_ret("acl.mdl.get_input_dims", ret)
    d = dims["dims"]
    if (acl.mdl.get_num_inputs(desc) != 1 or acl.mdl.get_num_outputs(desc) != 1 or len(d) != 4 or d[:2] != [1, 3]
            or min(d[2:]) < 16 or acl.mdl.get_input_data_type(desc, 0) != ACL_FLOAT
            or acl.mdl.get_output_data_type(desc, 0) != ACL_FLOAT):
        raise SystemExit("%s: this sample needs one float input [1,3,H,W] and one float output" % model_path)
    mh, mw = d[2], d[3]
    in_size, out_size = acl.mdl.get_input_size_by_index(desc, 0), acl.mdl.get_output_size_by_index(desc, 0)
    print("model input %dx%d, %d output values" % (mw, mh, out_size // 4))
    in_dev, ret = acl.rt.malloc(in_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    out_dev, ret = acl.rt.malloc(out_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    in_buf, out_buf = acl.create_data_buffer(in_dev, in_size), acl.create_data_buffer(out_dev, out_size)
    _, ret = acl.mdl.add_dataset_buffer(inputs, in_buf)
    check_ret("acl.mdl.add_dataset_buffer", ret)
    _, ret = acl.mdl.add_dataset_buffer(outputs, out_buf)
    check_ret("acl.mdl.add_dataset_buffer", ret)

    channel = acl.media.dvpp_create_channel_desc()
    check_ret("dvpp_create_channel", acl.media.dvpp_create_channel(channel))
    resize = acl.media.dvpp_create_resize_config()
    check_ret("dvpp_set_resize_config_interpolation",
              acl.media.dvpp_set_resize_config_interpolation(resize, INTERPOLATION_BILINEAR))
    try:
        model = (model_id, in_dev, in_size, out_dev, out_size, inputs, outputs, mw, mh)
        for path in images:
            classify(channel, resize, stream, model, path, out_dir)
        print("dvpp_classify: done, %d image(s)" % len(images))
    finally:
        acl.media.dvpp_destroy_resize_config(resize)
        acl.media.dvpp_destroy_channel(channel)
        acl.media.dvpp_destroy_channel_desc(channel)
        acl.destroy_data_buffer(in_buf)
        acl.destroy_data_buffer(out_buf)
        acl.mdl.destroy_dataset(inputs)
        acl.mdl.destroy_dataset(outputs)
        acl.rt.free(in_dev)
        acl.rt.free(out_dev)
        acl.mdl.unload(model_id)
        acl.mdl.destroy_desc(desc)
        acl.rt.destroy_stream(stream)
        acl.rt.destroy_context(context)
        acl.rt.reset_device(device_id)
        acl.finalize()


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: dvpp_classify.py MODEL OUT_DIR IMAGE.jpg [IMAGE.jpg ...]")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
