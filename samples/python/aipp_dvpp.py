#!/usr/bin/env python3
"""aipp_dvpp.py: JPEG -> DVPP decode (YUV420SP) -> VPC resize to 224x224 ->
a model compiled with a YUV420SP AIPP (atc --insert_op_conf) -> top-5, all
through pyACL (the Python twin of samples/aipp_dvpp/aipp_dvpp.c).

No float image exists in the application: VPC's output buffer is the model's
input as it is, and the model itself converts YUV to RGB and normalises
(the AIPP stage). The calls are the ones Huawei's pyACL image samples make:

  init -> set_device -> context, stream -> dvpp_create_channel
  -> dvpp_jpeg_predict_dec_size (host bytes) -> dvpp_malloc + copy
  -> dvpp_jpeg_decode_async -> dvpp_vpc_resize_async -> synchronize
  -> load_from_file -> get_aipp_type (must be static AIPP, input size = NV12)
  -> execute with VPC's buffer as input 0 -> copy the logits back -> top-5
  -> release in reverse order.

Usage: aipp_dvpp.py MODEL.om IMAGE.jpg OUT_DIR
Writes OUT_DIR/yuv.bin (the NV12 image the model read) and OUT_DIR/logits.bin
(output 0, float32), as the C sample does.
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
ACL_DATA_WITH_STATIC_AIPP = 1
PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1     # NV12
NPY_UINT8, NPY_FLOAT32 = 2, 11          # numpy type numbers, as ptr_to_numpy takes them
W, H = 224, 224                         # the AIPP's source size (src_image_size_w/h)


def check_ret(message, ret):
    """ACL failures never raise in pyACL: they come back as ret codes."""
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed ret=%d: %s" % (message, ret, acl.get_recent_err_msg()))


def new_pic(data, size, w=0, h=0, ws=0, hs=0):
    pic = acl.media.dvpp_create_pic_desc()
    if not pic:
        raise RuntimeError("dvpp_create_pic_desc failed: %s" % acl.get_recent_err_msg())
    check_ret("dvpp_set_pic_desc_data", acl.media.dvpp_set_pic_desc_data(pic, data))
    check_ret("dvpp_set_pic_desc_size", acl.media.dvpp_set_pic_desc_size(pic, size))
    check_ret("dvpp_set_pic_desc_format", acl.media.dvpp_set_pic_desc_format(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420))
    if w:
        check_ret("dvpp_set_pic_desc_width", acl.media.dvpp_set_pic_desc_width(pic, w))
        check_ret("dvpp_set_pic_desc_height", acl.media.dvpp_set_pic_desc_height(pic, h))
        check_ret("dvpp_set_pic_desc_width_stride", acl.media.dvpp_set_pic_desc_width_stride(pic, ws))
        check_ret("dvpp_set_pic_desc_height_stride", acl.media.dvpp_set_pic_desc_height_stride(pic, hs))
    return pic


def dvpp_to_nv12(channel, stream, jpeg, keep):
    """Decodes the JPEG and resizes it to W x H NV12 in media memory; the
    buffers and descriptions go into keep (released by the caller)."""
    bufs, pics = keep["bufs"], keep["pics"]
    jptr = acl.util.bytes_to_ptr(jpeg)
    dec_size, ret = acl.media.dvpp_jpeg_predict_dec_size(jptr, len(jpeg), PIXEL_FORMAT_YUV_SEMIPLANAR_420)
    check_ret("dvpp_jpeg_predict_dec_size", ret)
    jpeg_dev, ret = acl.media.dvpp_malloc(len(jpeg))
    check_ret("dvpp_malloc", ret)
    bufs.append(jpeg_dev)
    check_ret("memcpy", acl.rt.memcpy(jpeg_dev, len(jpeg), jptr, len(jpeg), ACL_MEMCPY_HOST_TO_DEVICE))
    dec_dev, ret = acl.media.dvpp_malloc(dec_size)
    check_ret("dvpp_malloc", ret)
    bufs.append(dec_dev)
    dec_pic = new_pic(dec_dev, dec_size)
    pics.append(dec_pic)
    check_ret("dvpp_jpeg_decode_async", acl.media.dvpp_jpeg_decode_async(channel, jpeg_dev, len(jpeg), dec_pic,
                                                                         stream))
    check_ret("synchronize_stream", acl.rt.synchronize_stream(stream))
    print("decoded %dx%d (strides %dx%d)" % (acl.media.dvpp_get_pic_desc_width(dec_pic),
                                             acl.media.dvpp_get_pic_desc_height(dec_pic),
                                             acl.media.dvpp_get_pic_desc_width_stride(dec_pic),
                                             acl.media.dvpp_get_pic_desc_height_stride(dec_pic)))
    # exactly the AIPP's source: 224x224, strides 224 (a multiple of 16) and 224
    size = W * H * 3 // 2
    small_dev, ret = acl.media.dvpp_malloc(size)
    check_ret("dvpp_malloc", ret)
    bufs.append(small_dev)
    small_pic = new_pic(small_dev, size, W, H, W, H)
    pics.append(small_pic)
    resize = acl.media.dvpp_create_resize_config()
    keep["resize"] = resize
    check_ret("dvpp_vpc_resize_async", acl.media.dvpp_vpc_resize_async(channel, dec_pic, small_pic, resize, stream))
    check_ret("synchronize_stream", acl.rt.synchronize_stream(stream))
    return small_dev, size


def run_model(model_path, nv12_dev, nv12_size, out_dir, keep):
    """Runs the AIPP model on VPC's buffer; returns the logits (numpy)."""
    model_id, ret = acl.mdl.load_from_file(model_path)
    check_ret("acl.mdl.load_from_file", ret)
    keep["model"] = model_id
    desc = acl.mdl.create_desc()
    keep["desc"] = desc
    check_ret("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))
    kind, _, ret = acl.mdl.get_aipp_type(model_id, 0)
    check_ret("acl.mdl.get_aipp_type", ret)
    if kind != ACL_DATA_WITH_STATIC_AIPP or acl.mdl.get_input_size_by_index(desc, 0) != nv12_size:
        raise SystemExit("%s: input 0 is not a %dx%d YUV420SP static AIPP input (type %d, %d bytes)" %
                         (model_path, W, H, kind, acl.mdl.get_input_size_by_index(desc, 0)))
    out_size = acl.mdl.get_output_size_by_index(desc, 0)
    out_dev, ret = acl.rt.malloc(out_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    keep["out_dev"] = out_dev
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    keep["datasets"] = (inputs, outputs)
    bi, bo = acl.create_data_buffer(nv12_dev, nv12_size), acl.create_data_buffer(out_dev, out_size)
    keep["buffers"] = (bi, bo)
    check_ret("acl.mdl.add_dataset_buffer", acl.mdl.add_dataset_buffer(inputs, bi)[1])
    check_ret("acl.mdl.add_dataset_buffer", acl.mdl.add_dataset_buffer(outputs, bo)[1])
    check_ret("acl.mdl.execute", acl.mdl.execute(model_id, inputs, outputs))

    host, ret = acl.rt.malloc_host(out_size + nv12_size)
    check_ret("acl.rt.malloc_host", ret)
    keep["host"] = host
    check_ret("memcpy", acl.rt.memcpy(host, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST))
    check_ret("memcpy", acl.rt.memcpy(host + out_size, nv12_size, nv12_dev, nv12_size, ACL_MEMCPY_DEVICE_TO_HOST))
    logits = acl.util.ptr_to_numpy(host, (out_size // 4,), NPY_FLOAT32).copy()
    acl.util.ptr_to_numpy(host + out_size, (nv12_size,), NPY_UINT8).tofile(os.path.join(out_dir, "yuv.bin"))
    logits.tofile(os.path.join(out_dir, "logits.bin"))
    return logits


def release(keep):
    """Everything made, in reverse order; safe on a partly built pipeline."""
    for b in keep.get("buffers", ()):
        acl.destroy_data_buffer(b)
    for d in keep.get("datasets", ()):
        acl.mdl.destroy_dataset(d)
    if "host" in keep:
        acl.rt.free_host(keep["host"])
    if "out_dev" in keep:
        acl.rt.free(keep["out_dev"])
    if "desc" in keep:
        acl.mdl.destroy_desc(keep["desc"])
    if "model" in keep:
        acl.mdl.unload(keep["model"])
    if "resize" in keep:
        acl.media.dvpp_destroy_resize_config(keep["resize"])
    for p in reversed(keep["pics"]):
        acl.media.dvpp_destroy_pic_desc(p)
    for b in reversed(keep["bufs"]):
        acl.media.dvpp_free(b)


def main(model_path, image_path, out_dir):
    device_id = 0
    check_ret("acl.init", acl.init())
    check_ret("acl.rt.set_device", acl.rt.set_device(device_id))
    context, ret = acl.rt.create_context(device_id)
    check_ret("acl.rt.create_context", ret)
    stream, ret = acl.rt.create_stream()
    check_ret("acl.rt.create_stream", ret)
    channel = acl.media.dvpp_create_channel_desc()
    check_ret("dvpp_create_channel", acl.media.dvpp_create_channel(channel))
    keep = {"bufs": [], "pics": []}
    try:
        with open(image_path, "rb") as f:
            jpeg = f.read()
        nv12_dev, nv12_size = dvpp_to_nv12(channel, stream, jpeg, keep)
        logits = run_model(model_path, nv12_dev, nv12_size, out_dir, keep)
        top = np.argsort(-logits, kind="stable")[:5]
        print("top-5:%s" % "".join(" %d (%.4f)" % (k, logits[k]) for k in top))
    finally:
        acl.rt.synchronize_stream(stream)     # nothing queued may outlive its buffers
        release(keep)
        acl.media.dvpp_destroy_channel(channel)
        acl.media.dvpp_destroy_channel_desc(channel)
        acl.rt.destroy_stream(stream)
        acl.rt.destroy_context(context)
        acl.rt.reset_device(device_id)
        acl.finalize()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: aipp_dvpp.py MODEL.om IMAGE.jpg OUT_DIR")
    main(*sys.argv[1:])
