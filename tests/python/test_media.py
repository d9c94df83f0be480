"""acl.media (DVPP through pyACL) against references nobody here wrote.

JPEG decode is compared with Pillow's decode of the same file, which runs
the same IDCT but through libjpeg's own colour pipeline: Pillow asked for
YCbCr (draft mode) returns the luma plane untouched, and at half scale
libjpeg reconstructs the 4:2:0 chroma planes by IDCT alone (no upsampling),
so Y, U and V are compared exactly. Nearest resize is compared exactly
with libyuv (the scaler docs/dvpp.md names, called through ctypes); bilinear
resize, within stated bounds, with OpenCV's formula in numpy (and cv2.resize
where installed). Crop and paste move
pixels and are exact. Error paths check the documented codes.

The photographs are Pillow re-encodings of matplotlib's sample photograph
(grace_hopper.jpg, python3-matplotlib) at several sizes and subsamplings,
plus that file as it ships."""
import io
import os

import numpy as np
import pytest

import acl
import aclconst as C

Image = pytest.importorskip("PIL.Image")

pytestmark = pytest.mark.skipif(not hasattr(acl.media, "dvpp_create_channel_desc"),
                                reason="acl.media is empty: libacl_dvpp was not built")

# acl_dvpp.h values (pyACL applications define their own)
YUV_400, NV12, NV21, YUV422SP, YVU422SP, YUV444SP, YVU444SP = 0, 1, 2, 3, 4, 5, 6
RGB_888, BGR_888, RGBA_8888 = 12, 13, 16
UNKNOWN = 10000
CSS_444, CSS_422, CSS_420, CSS_GRAY = 0, 1, 2, 3
ACL_ERROR_FORMAT_NOT_MATCH = 100027
ACL_ERROR_FAILURE = 500001
ACL_ERROR_UNSUPPORTED_JPEG = 148052
ACL_DVPP_CSC_MATRIX_UINT32 = 0
ACL_DVPP_CHANNEL_ID_UINT64 = 2
ACL_VDEC_OUT_PIC_WIDTH_UINT32 = 7


def align(v, a):
    return (v + a - 1) // a * a


def photo_path():
    try:
        from matplotlib import cbook
        p = cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
    except Exception:  # noqa: BLE001 - any failure means the photo is not there
        return None
    return p if p and os.path.exists(p) else None


@pytest.fixture(scope="module")
def photo():
    p = photo_path()
    if not p:
        pytest.skip("matplotlib's sample photograph is not installed (python3-matplotlib)")
    return Image.open(p).convert("RGB")


def encode(img, size=None, subsampling=2, quality=90, progressive=False, gray=False):
    if size:
        img = img.resize(size, Image.BICUBIC)
    if gray:
        img = img.convert("L")
    bio = io.BytesIO()
    kw = {} if gray else {"subsampling": subsampling}
    img.save(bio, "JPEG", quality=quality, progressive=progressive, **kw)
    return bio.getvalue()


def pil_ycbcr(data, size=None):
    """Pillow's decode of `data` as YCbCr planes, optionally DCT-scaled."""
    im = Image.open(io.BytesIO(data))
    im.draft("YCbCr", size or im.size)
    a = np.asarray(im.convert("YCbCr") if im.mode != "YCbCr" else im)
    return a


class Dvpp:
    """A channel and a stream on device 0, and the buffers a test makes."""

    def __init__(self):
        self.stream, ret = acl.rt.create_stream()
        assert ret == C.ACL_SUCCESS
        self.ch = acl.media.dvpp_create_channel_desc()
        assert self.ch
        assert acl.media.dvpp_create_channel(self.ch) == C.ACL_SUCCESS
        self.bufs, self.pics = [], []

    def close(self):
        for p in self.pics:
            assert acl.media.dvpp_destroy_pic_desc(p) == C.ACL_SUCCESS
        for b in self.bufs:
            assert acl.media.dvpp_free(b) == C.ACL_SUCCESS
        assert acl.media.dvpp_destroy_channel(self.ch) == C.ACL_SUCCESS
        assert acl.media.dvpp_destroy_channel_desc(self.ch) == C.ACL_SUCCESS
        assert acl.rt.destroy_stream(self.stream) == C.ACL_SUCCESS

    def malloc(self, n):
        p, ret = acl.media.dvpp_malloc(n)
        assert ret == C.ACL_SUCCESS and p
        self.bufs.append(p)
        return p

    def put(self, data):
        data = bytes(data)
        p = self.malloc(len(data))
        assert acl.rt.memcpy(p, len(data), acl.util.bytes_to_ptr(data), len(data),
                             C.ACL_MEMCPY_HOST_TO_DEVICE) == C.ACL_SUCCESS
        return p, len(data)

    def get(self, p, n):
        out = np.empty(n, np.uint8)
        host = bytes(n)
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(host), n, p, n, C.ACL_MEMCPY_DEVICE_TO_HOST) == C.ACL_SUCCESS
        out[:] = np.frombuffer(host, np.uint8)
        return out

    def pic(self, data=0, size=0, fmt=NV12, w=0, h=0, ws=0, hs=0):
        p = acl.media.dvpp_create_pic_desc()
        assert p
        self.pics.append(p)
        for fn, v in ((acl.media.dvpp_set_pic_desc_data, data), (acl.media.dvpp_set_pic_desc_size, size),
                      (acl.media.dvpp_set_pic_desc_format, fmt), (acl.media.dvpp_set_pic_desc_width, w),
                      (acl.media.dvpp_set_pic_desc_height, h), (acl.media.dvpp_set_pic_desc_width_stride, ws),
                      (acl.media.dvpp_set_pic_desc_height_stride, hs)):
            assert fn(p, v) == C.ACL_SUCCESS
        return p

    def nv12_pic(self, w, h, fill=None):
        """An NV12 picture with the VPC strides (16, 2) and its buffer."""
        ws, hs = align(w, 16), align(h, 2)
        n = ws * hs * 3 // 2
        buf = self.malloc(n)
        if fill is not None:
            assert acl.rt.memset(buf, n, fill, n) == C.ACL_SUCCESS
        return self.pic(buf, n, NV12, w, h, ws, hs), buf, n

    def upload_nv12(self, y, uv):
        """A VPC input picture holding planes y (h, w) and uv (h/2, w/2, 2)."""
        h, w = y.shape
        ws, hs = align(w, 16), align(h, 2)
        img = np.zeros(ws * hs * 3 // 2, np.uint8)
        img[:ws * hs].reshape(hs, ws)[:h, :w] = y
        img[ws * hs:].reshape(hs // 2, ws)[:h // 2, :w] = uv.reshape(h // 2, w)
        buf, n = self.put(img.tobytes())
        return self.pic(buf, n, NV12, w, h, ws, hs)

    def sync(self):
        return acl.rt.synchronize_stream(self.stream)

    def decode(self, data, fmt=NV12):
        """JPEG bytes -> (planes buffer as uint8, width, height, ws, hs, pic)."""
        host = bytes(data)
        n, ret = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(host), len(host), fmt)
        assert ret == C.ACL_SUCCESS and n > 0, acl.get_recent_err_msg()
        src, size = self.put(host)
        out = self.malloc(n)
        pic = self.pic(out, n, fmt)
        ret = acl.media.dvpp_jpeg_decode_async(self.ch, src, size, pic, self.stream)
        assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
        assert self.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
        assert acl.media.dvpp_get_pic_desc_ret_code(pic) == 0
        g = acl.media
        w, h = g.dvpp_get_pic_desc_width(pic), g.dvpp_get_pic_desc_height(pic)
        ws, hs = g.dvpp_get_pic_desc_width_stride(pic), g.dvpp_get_pic_desc_height_stride(pic)
        return self.get(out, n), w, h, ws, hs, pic


@pytest.fixture
def dv(ctx):
    d = Dvpp()
    yield d
    d.close()


def nv12_planes(buf, w, h, ws, hs):
    y = buf[:ws * hs].reshape(hs, ws)[:h, :w]
    uv = buf[ws * hs:ws * hs + ws * hs // 2].reshape(hs // 2, ws)[:h // 2, :w].reshape(h // 2, w // 2, 2)
    return y, uv


# ---- image information ----

@pytest.mark.parametrize("sub,css", [(0, CSS_444), (1, CSS_422), (2, CSS_420)])
def test_jpeg_image_info_matches_pillow(photo, sub, css):
    for size in ((640, 480), (333, 251), (1920, 1080)):
        data = encode(photo, size, subsampling=sub)
        ptr = acl.util.bytes_to_ptr(data)
        w, h, comps, ret = acl.media.dvpp_jpeg_get_image_info(ptr, len(data))
        assert (w, h, comps, ret) == (size[0], size[1], 3, C.ACL_SUCCESS)
        w, h, comps, fmt, ret = acl.media.dvpp_jpeg_get_image_info_v2(ptr, len(data))
        assert (w, h, comps, fmt, ret) == (size[0], size[1], 3, css, C.ACL_SUCCESS)
        n, ret = acl.media.dvpp_jpeg_predict_dec_size(ptr, len(data), NV12)
        assert ret == C.ACL_SUCCESS and n == align(size[0], 128) * align(size[1], 16) * 3 // 2


def test_jpeg_image_info_gray_and_shipped_file(photo):
    data = encode(photo, (200, 100), gray=True)
    w, h, comps, fmt, ret = acl.media.dvpp_jpeg_get_image_info_v2(acl.util.bytes_to_ptr(data), len(data))
    assert (w, h, comps, fmt, ret) == (200, 100, 1, CSS_GRAY, C.ACL_SUCCESS)
    shipped = open(photo_path(), "rb").read()
    w, h, comps, ret = acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(shipped), len(shipped))
    assert (w, h, comps, ret) == (Image.open(photo_path()).size + (3, C.ACL_SUCCESS))


def test_png_image_info_matches_pillow(photo):
    for mode, comps in (("RGB", 3), ("RGBA", 4), ("L", 1), ("LA", 2)):
        bio = io.BytesIO()
        photo.resize((97, 61)).convert(mode).save(bio, "PNG")
        data = bio.getvalue()
        w, h, c, ret = acl.media.dvpp_png_get_image_info(acl.util.bytes_to_ptr(data), len(data))
        assert (w, h, c, ret) == (97, 61, comps, C.ACL_SUCCESS), mode


# ---- JPEG decode: exact against Pillow ----

@pytest.mark.parametrize("size", [(640, 480), (512, 600), (1920, 1080), (96, 64)])
@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_decode_420_nv12_exact(dv, photo, size, progressive):
    data = encode(photo, size, subsampling=2, progressive=progressive)
    buf, w, h, ws, hs, _ = dv.decode(data, NV12)
    assert (w, h, ws, hs) == (size[0], size[1], align(size[0], 128), align(size[1], 16))
    y, uv = nv12_planes(buf, w, h, ws, hs)
    full = pil_ycbcr(data)
    half = pil_ycbcr(data, (w // 2, h // 2))
    assert half.shape[:2] == (h // 2, w // 2)
    np.testing.assert_array_equal(y, full[..., 0])
    np.testing.assert_array_equal(uv[..., 0], half[..., 1])
    np.testing.assert_array_equal(uv[..., 1], half[..., 2])


def test_jpeg_decode_nv21_swaps_chroma(dv, photo):
    data = encode(photo, (320, 240))
    b12, w, h, ws, hs, _ = dv.decode(data, NV12)
    b21, *_ = dv.decode(data, NV21)
    y12, uv12 = nv12_planes(b12, w, h, ws, hs)
    y21, uv21 = nv12_planes(b21, w, h, ws, hs)
    np.testing.assert_array_equal(y12, y21)
    np.testing.assert_array_equal(uv12[..., ::-1], uv21)


def test_jpeg_decode_444_to_yuv444sp_exact(dv, photo):
    data = encode(photo, (352, 288), subsampling=0)
    buf, w, h, ws, hs, _ = dv.decode(data, YUV444SP)
    assert (w, h) == (352, 288)
    ref = pil_ycbcr(data)
    y = buf[:ws * hs].reshape(hs, ws)[:h, :w]
    uv = buf[ws * hs:ws * hs * 3].reshape(hs, ws * 2)[:h, :2 * w].reshape(h, w, 2)
    np.testing.assert_array_equal(y, ref[..., 0])
    np.testing.assert_array_equal(uv[..., 0], ref[..., 1])
    np.testing.assert_array_equal(uv[..., 1], ref[..., 2])


def test_jpeg_decode_444_to_nv12_averages_chroma(dv, photo):
    """A 4:4:4 file to NV12: luma as Pillow decodes it, each chroma sample
    the rounded mean of the file's 2x2 block (Pillow's full-size chroma)."""
    data = encode(photo, (640, 480), subsampling=0)
    buf, w, h, ws, hs, _ = dv.decode(data, NV12)
    y, uv = nv12_planes(buf, w, h, ws, hs)
    ref = pil_ycbcr(data).astype(np.int32)
    np.testing.assert_array_equal(y, ref[..., 0])
    block = ref[0::2, 0::2, 1:] + ref[1::2, 0::2, 1:] + ref[0::2, 1::2, 1:] + ref[1::2, 1::2, 1:]
    np.testing.assert_array_equal(uv, (block + 2) // 4)


def test_jpeg_decode_gray_to_nv12(dv, photo):
    data = encode(photo, (256, 192), gray=True)
    buf, w, h, ws, hs, _ = dv.decode(data, NV12)
    y, uv = nv12_planes(buf, w, h, ws, hs)
    np.testing.assert_array_equal(y, np.asarray(Image.open(io.BytesIO(data))))
    assert (uv == 0x80).all()


def test_jpeg_decode_odd_size_rounds_down(dv, photo):
    data = encode(photo, (333, 251), subsampling=2)
    buf, w, h, ws, hs, _ = dv.decode(data, NV12)
    assert (w, h) == (332, 250) and ws == align(333, 128) and hs == align(251, 16)
    y, _ = nv12_planes(buf, w, h, ws, hs)
    np.testing.assert_array_equal(y, pil_ycbcr(data)[:250, :332, 0])


def test_jpeg_decode_shipped_photograph(dv, photo):
    data = open(photo_path(), "rb").read()
    buf, w, h, ws, hs, _ = dv.decode(data, NV12)
    y, _ = nv12_planes(buf, w, h, ws, hs)
    np.testing.assert_array_equal(y, pil_ycbcr(data)[:h, :w, 0])


# ---- VPC against OpenCV's formulas ----

def cv_bilinear(img, ow, oh):
    """OpenCV INTER_LINEAR (half-pixel centres, edges clamped), in float."""
    h, w = img.shape[:2]

    def axis(n_out, n_in):
        s = (np.arange(n_out) + 0.5) * n_in / n_out - 0.5
        s = np.maximum(s, 0)
        i0 = np.minimum(np.floor(s).astype(int), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, s - i0

    y0, y1, fy = axis(oh, h)
    x0, x1, fx = axis(ow, w)
    a = img.astype(np.float64)
    fx = fx[None, :, None] if img.ndim == 3 else fx[None, :]
    fy = fy[:, None, None] if img.ndim == 3 else fy[:, None]
    top = a[y0][:, x0] * (1 - fx) + a[y0][:, x1] * fx
    bot = a[y1][:, x0] * (1 - fx) + a[y1][:, x1] * fx
    return np.clip(np.rint(top * (1 - fy) + bot * fy), 0, 255).astype(np.uint8)


def photo_nv12(photo, w, h):
    """NV12 planes of the photograph at (w, h), via Pillow's YCbCr."""
    a = np.asarray(photo.resize((w, h), Image.BICUBIC).convert("YCbCr"))
    uv = a[::2, ::2, 1:].copy()
    return np.ascontiguousarray(a[..., 0]), uv


def run_resize(dv, photo, src, dst, interpolation):
    y, uv = photo_nv12(photo, *src)
    inp = dv.upload_nv12(y, uv)
    out, buf, n = dv.nv12_pic(*dst)
    rc = acl.media.dvpp_create_resize_config()
    assert acl.media.dvpp_set_resize_config_interpolation(rc, interpolation) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_resize_config_interpolation(rc) == interpolation
    ret = acl.media.dvpp_vpc_resize_async(dv.ch, inp, out, rc, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert acl.media.dvpp_destroy_resize_config(rc) == C.ACL_SUCCESS
    oy, ouv = nv12_planes(dv.get(buf, n), dst[0], dst[1], align(dst[0], 16), align(dst[1], 2))
    return y, uv, oy, ouv


def libyuv():
    """Debian's libyuv (libyuv0), the scaler docs/dvpp.md names: the exact
    reference of VPC's arithmetic, called through ctypes."""
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("yuv") or "libyuv.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        pytest.skip("libyuv is not installed")
    return lib


def yuv_scale(plane, ow, oh, mode, uv=False):
    """libyuv ScalePlane of `plane`; for interleaved chroma (uv=True) of U
    and V one at a time, as docs/dvpp.md says VPC scales them."""
    import ctypes
    lib = libyuv()
    if uv:
        return np.stack([yuv_scale(plane[..., k], ow, oh, mode) for k in (0, 1)], axis=-1)
    src = np.ascontiguousarray(plane)
    h, w = src.shape
    out = np.zeros((oh, ow), np.uint8)
    r = lib.ScalePlane(ctypes.c_void_p(src.ctypes.data), w, w, h, ctypes.c_void_p(out.ctypes.data), ow, ow, oh, mode)
    assert r == 0
    return out


def nearest_centre(img, ow, oh):
    """Centre sampling, source index (dst + 0.5) * in / out rounded down,
    an exact tie going to the lower pixel (libyuv's 16.16 step is rounded
    down); OpenCV's INTER_NEAREST_EXACT apart from those ties."""
    h, w = img.shape[:2]
    ys = np.minimum(((2 * np.arange(oh) + 1) * h - 1) // (2 * oh), h - 1)
    xs = np.minimum(((2 * np.arange(ow) + 1) * w - 1) // (2 * ow), w - 1)
    return img[ys][:, xs]


SIZES = [((640, 480), (224, 224)), ((1920, 1080), (224, 224)), ((224, 224), (640, 360)), ((334, 250), (100, 76))]


@pytest.mark.parametrize("src,dst", SIZES)
def test_vpc_resize_nearest(dv, photo, src, dst):
    """Nearest (2): exactly libyuv's point sampling, which is centre
    sampling (OpenCV's INTER_NEAREST_EXACT; OpenCV's INTER_NEAREST takes
    floor(dst * in / out) instead and agrees on only ~7 % of the pixels of
    a 640 -> 224 reduction)."""
    y, uv, oy, ouv = run_resize(dv, photo, src, dst, 2)
    np.testing.assert_array_equal(oy, yuv_scale(y, dst[0], dst[1], 0))
    np.testing.assert_array_equal(ouv, yuv_scale(uv, dst[0] // 2, dst[1] // 2, 0, uv=True))
    same = np.mean(oy == nearest_centre(y, *dst))
    assert same >= 0.999, "only %.4f of the luma equals centre-sampled nearest" % same


@pytest.mark.parametrize("src,dst", SIZES)
def test_vpc_resize_bilinear(dv, photo, src, dst):
    """Bilinear (1): OpenCV's INTER_LINEAR (half-pixel centres, shrinking
    and enlarging alike), luma and the interleaved chroma pairs. openacl's
    scaler keeps OpenCV's 11-bit weights and rounds once, so against the
    float formula every sample is within 1 level (weight quantisation and
    the final rounding) and the mean is small; cv2.resize (where installed)
    is within 1 level too (its SIMD path truncates before rounding)."""
    y, uv, oy, ouv = run_resize(dv, photo, src, dst, 1)
    for got, plane, ow, oh, what in ((oy, y, dst[0], dst[1], "Y"), (ouv, uv, dst[0] // 2, dst[1] // 2, "UV")):
        diff = np.abs(got.astype(int) - cv_bilinear(plane, ow, oh))
        assert diff.max() <= 1 and diff.mean() <= 0.3, "%s: max %.3f mean %.3f against OpenCV's bilinear" % (
            what, diff.max(), diff.mean())
        try:
            import cv2
        except ImportError:
            continue
        cv = cv2.resize(plane, (ow, oh), interpolation=cv2.INTER_LINEAR)
        assert np.abs(got.astype(int) - cv).max() <= 1, what


def test_vpc_crop_exact(dv, photo):
    y, uv = photo_nv12(photo, 640, 480)
    inp = dv.upload_nv12(y, uv)
    out, buf, n = dv.nv12_pic(200, 120)
    roi = acl.media.dvpp_create_roi_config(100, 299, 50, 169)
    ret = acl.media.dvpp_vpc_crop_async(dv.ch, inp, out, roi, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS
    oy, ouv = nv12_planes(dv.get(buf, n), 200, 120, 208, 120)
    np.testing.assert_array_equal(oy, y[50:170, 100:300])
    np.testing.assert_array_equal(ouv, uv[25:85, 50:150])
    assert acl.media.dvpp_destroy_roi_config(roi) == C.ACL_SUCCESS


def test_vpc_crop_and_paste_keeps_the_canvas(dv, photo):
    y, uv = photo_nv12(photo, 320, 240)
    inp = dv.upload_nv12(y, uv)
    out, buf, n = dv.nv12_pic(256, 256, fill=0x33)
    crop = acl.media.dvpp_create_roi_config(0, 127, 0, 99)        # 128 x 100
    paste = acl.media.dvpp_create_roi_config(16, 143, 20, 119)    # same size: a copy
    ret = acl.media.dvpp_vpc_crop_and_paste_async(dv.ch, inp, out, crop, paste, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS
    oy, ouv = nv12_planes(dv.get(buf, n), 256, 256, 256, 256)
    np.testing.assert_array_equal(oy[20:120, 16:144], y[:100, :128])
    np.testing.assert_array_equal(ouv[10:60, 8:72], uv[:50, :64])
    mask = np.ones_like(oy, bool)
    mask[20:120, 16:144] = False
    assert (oy[mask] == 0x33).all()
    for r in (crop, paste):
        assert acl.media.dvpp_destroy_roi_config(r) == C.ACL_SUCCESS


def test_vpc_batch_crop_and_paste(dv, photo):
    """Two sources, 3 + 5 regions, each pasted into its own 128x128 canvas;
    returns (dst_batch, ret) as pyACL does."""
    planes = [photo_nv12(photo, 320, 240), photo_nv12(photo.transpose(Image.FLIP_LEFT_RIGHT), 320, 240)]
    src = acl.media.dvpp_create_batch_pic_desc(2)
    dst = acl.media.dvpp_create_batch_pic_desc(8)
    keep = []
    for i, (y, uv) in enumerate(planes):
        p = dv.upload_nv12(y, uv)
        s = acl.media.dvpp_get_pic_desc(src, i)
        for get, put in ((acl.media.dvpp_get_pic_desc_data, acl.media.dvpp_set_pic_desc_data),
                         (acl.media.dvpp_get_pic_desc_size, acl.media.dvpp_set_pic_desc_size),
                         (acl.media.dvpp_get_pic_desc_format, acl.media.dvpp_set_pic_desc_format),
                         (acl.media.dvpp_get_pic_desc_width, acl.media.dvpp_set_pic_desc_width),
                         (acl.media.dvpp_get_pic_desc_height, acl.media.dvpp_set_pic_desc_height),
                         (acl.media.dvpp_get_pic_desc_width_stride, acl.media.dvpp_set_pic_desc_width_stride),
                         (acl.media.dvpp_get_pic_desc_height_stride, acl.media.dvpp_set_pic_desc_height_stride)):
            assert put(s, get(p)) == C.ACL_SUCCESS
    outs = []
    for k in range(8):
        d = acl.media.dvpp_get_pic_desc(dst, k)
        buf = dv.malloc(128 * 128 * 3 // 2)
        assert acl.rt.memset(buf, 128 * 128 * 3 // 2, 0, 128 * 128 * 3 // 2) == C.ACL_SUCCESS
        for fn, v in ((acl.media.dvpp_set_pic_desc_data, buf), (acl.media.dvpp_set_pic_desc_size, 128 * 128 * 3 // 2),
                      (acl.media.dvpp_set_pic_desc_format, NV12), (acl.media.dvpp_set_pic_desc_width, 128),
                      (acl.media.dvpp_set_pic_desc_height, 128), (acl.media.dvpp_set_pic_desc_width_stride, 128),
                      (acl.media.dvpp_set_pic_desc_height_stride, 128)):
            assert fn(d, v) == C.ACL_SUCCESS
        outs.append(buf)
    crops, pastes, boxes = [], [], []
    for k in range(8):
        l, t = 16 * k, 8 * k
        crops.append(acl.media.dvpp_create_roi_config(l, l + 63, t, t + 47))
        pastes.append(acl.media.dvpp_create_roi_config(32, 95, 40, 87))
        boxes.append((l, t))
    keep += crops + pastes
    got_dst, ret = acl.media.dvpp_vpc_batch_crop_and_paste_async(dv.ch, src, [3, 5], dst, crops, pastes, dv.stream)
    assert (got_dst, ret) == (dst, C.ACL_SUCCESS), acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    for k in range(8):
        y, _ = planes[0 if k < 3 else 1]
        l, t = boxes[k]
        oy, _ = nv12_planes(dv.get(outs[k], 128 * 128 * 3 // 2), 128, 128, 128, 128)
        np.testing.assert_array_equal(oy[40:88, 32:96], y[t:t + 48, l:l + 64], err_msg="region %d" % k)
        assert acl.media.dvpp_get_pic_desc_ret_code(acl.media.dvpp_get_pic_desc(dst, k)) == 0
    for r in keep:
        assert acl.media.dvpp_destroy_roi_config(r) == C.ACL_SUCCESS
    assert acl.media.dvpp_destroy_batch_pic_desc(src) == C.ACL_SUCCESS
    assert acl.media.dvpp_destroy_batch_pic_desc(dst) == C.ACL_SUCCESS


def batch_of(dv, pics):
    """A batch description whose pictures copy the fields of `pics`."""
    g = acl.media
    b = g.dvpp_create_batch_pic_desc(len(pics))
    assert b
    for i, p in enumerate(pics):
        q = g.dvpp_get_pic_desc(b, i)
        for get, put in ((g.dvpp_get_pic_desc_data, g.dvpp_set_pic_desc_data),
                         (g.dvpp_get_pic_desc_size, g.dvpp_set_pic_desc_size),
                         (g.dvpp_get_pic_desc_format, g.dvpp_set_pic_desc_format),
                         (g.dvpp_get_pic_desc_width, g.dvpp_set_pic_desc_width),
                         (g.dvpp_get_pic_desc_height, g.dvpp_set_pic_desc_height),
                         (g.dvpp_get_pic_desc_width_stride, g.dvpp_set_pic_desc_width_stride),
                         (g.dvpp_get_pic_desc_height_stride, g.dvpp_set_pic_desc_height_stride)):
            assert put(q, get(p)) == C.ACL_SUCCESS
    return b


def test_vpc_batch_forms_keep_list_order(dv, photo):
    """Every batch binding marshals roi_nums and the area lists in order:
    batch crop equals the source regions byte for byte, batch crop-resize
    and crop-resize-paste equal their single-picture forms, and the return
    shapes are pyACL's ((dst_batch, ret) for crop, ret for the others);
    crop-resize-make-border frames a crop-resize with its borders."""
    g = acl.media
    y, uv = photo_nv12(photo, 320, 240)
    src = batch_of(dv, [dv.upload_nv12(y, uv)])
    boxes = [(0, 0, 64, 48), (96, 50, 128, 96), (200, 100, 64, 128)]        # left, top, w, h
    crops = [g.dvpp_create_roi_config(l, l + w - 1, t, t + h - 1) for l, t, w, h in boxes]
    outs = [dv.nv12_pic(w, h, fill=0) for _, _, w, h in boxes]
    dst = batch_of(dv, [o[0] for o in outs])
    got_dst, ret = g.dvpp_vpc_batch_crop_async(dv.ch, src, [3], dst, crops, dv.stream)
    assert (got_dst, ret) == (dst, C.ACL_SUCCESS), acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS
    for (l, t, w, h), (_, buf, n) in zip(boxes, outs):
        oy, ouv = nv12_planes(dv.get(buf, n), w, h, align(w, 16), align(h, 2))
        np.testing.assert_array_equal(oy, y[t:t + h, l:l + w])
        np.testing.assert_array_equal(ouv, uv[t // 2:(t + h) // 2, l // 2:(l + w) // 2])

    rc = g.dvpp_create_resize_config()
    assert g.dvpp_set_resize_config_interpolation(rc, 2) == C.ACL_SUCCESS
    inp = dv.upload_nv12(y, uv)
    singles, batched = [], [dv.nv12_pic(80, 60, fill=0) for _ in boxes]
    for crop in crops:
        pic, buf, n = dv.nv12_pic(80, 60, fill=0)
        assert g.dvpp_vpc_crop_resize_async(dv.ch, inp, pic, crop, rc, dv.stream) == C.ACL_SUCCESS
        singles.append((buf, n))
    dst2 = batch_of(dv, [b[0] for b in batched])
    ret = g.dvpp_vpc_batch_crop_resize_async(dv.ch, src, [3], dst2, crops, rc, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS
    for (sbuf, n), (_, bbuf, _) in zip(singles, batched):
        np.testing.assert_array_equal(dv.get(bbuf, n), dv.get(sbuf, n))

    pastes = [g.dvpp_create_roi_config(16, 79, 10, 49) for _ in boxes]
    singles, batched = [], [dv.nv12_pic(96, 64, fill=0x50) for _ in boxes]
    for crop, paste in zip(crops, pastes):
        pic, buf, n = dv.nv12_pic(96, 64, fill=0x50)
        assert g.dvpp_vpc_crop_resize_paste_async(dv.ch, inp, pic, crop, paste, rc, dv.stream) == C.ACL_SUCCESS
        singles.append((buf, n))
    dst3 = batch_of(dv, [b[0] for b in batched])
    ret = g.dvpp_vpc_batch_crop_resize_paste_async(dv.ch, src, [3], dst3, crops, pastes, rc, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS
    for (sbuf, n), (_, bbuf, _) in zip(singles, batched):
        np.testing.assert_array_equal(dv.get(bbuf, n), dv.get(sbuf, n))

    # crop-resize-make-border: the region scaled into the picture minus its
    # borders (a single crop-resize into 64x52), a constant border around
    borders = []
    for _ in boxes:
        bc = g.dvpp_create_border_config()
        for fn, v in ((g.dvpp_set_border_config_top, 4), (g.dvpp_set_border_config_bottom, 4),
                      (g.dvpp_set_border_config_left, 8), (g.dvpp_set_border_config_right, 8)):
            assert fn(bc, v) == C.ACL_SUCCESS
        for k, v in enumerate((16.0, 100.0, 200.0)):
            assert g.dvpp_set_border_config_value(bc, k, v) == C.ACL_SUCCESS
        borders.append(bc)
    singles = []
    for crop in crops:
        pic, buf, n = dv.nv12_pic(64, 52, fill=0)
        assert g.dvpp_vpc_crop_resize_async(dv.ch, inp, pic, crop, rc, dv.stream) == C.ACL_SUCCESS
        singles.append((buf, n))
    framed = [dv.nv12_pic(80, 60, fill=0) for _ in boxes]
    dst4 = batch_of(dv, [f[0] for f in framed])
    ret = g.dvpp_vpc_batch_crop_resize_make_border_async(dv.ch, src, [3], dst4, crops, borders, rc, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    for (sbuf, n), (_, fbuf, fn_) in zip(singles, framed):
        iy, iuv = nv12_planes(dv.get(sbuf, n), 64, 52, 64, 52)
        oy, ouv = nv12_planes(dv.get(fbuf, fn_), 80, 60, 80, 60)
        np.testing.assert_array_equal(oy[4:56, 8:72], iy)
        np.testing.assert_array_equal(ouv[2:28, 4:36], iuv)
        frame = np.ones(oy.shape, bool)
        frame[4:56, 8:72] = False
        assert (oy[frame] == 16).all()
        cframe = np.ones(ouv.shape[:2], bool)
        cframe[2:28, 4:36] = False
        assert (ouv[cframe] == (100, 200)).all()
    for r in crops + pastes:
        assert g.dvpp_destroy_roi_config(r) == C.ACL_SUCCESS
    for b in borders:
        assert g.dvpp_destroy_border_config(b) == C.ACL_SUCCESS
    for b in (src, dst, dst2, dst3, dst4):
        assert g.dvpp_destroy_batch_pic_desc(b) == C.ACL_SUCCESS
    assert g.dvpp_destroy_resize_config(rc) == C.ACL_SUCCESS


def test_jpeg_decode_then_resize_on_one_stream(dv, photo):
    """Decode and resize queued back to back, one synchronize: the resize
    reads the decoder's output (Huawei's sample flow)."""
    data = encode(photo, (1280, 720))
    w0, h0, _, _ = acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(data), len(data))
    src, size = dv.put(data)
    n, _ = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), NV12)
    dec = dv.malloc(n)
    ws, hs = align(w0, 128), align(h0, 16)
    dec_pic = dv.pic(dec, n, NV12)
    vpc_in = dv.pic(dec, n, NV12, w0, h0, ws, hs)
    out, buf, on = dv.nv12_pic(224, 224)
    rc = acl.media.dvpp_create_resize_config()
    assert acl.media.dvpp_set_resize_config_interpolation(rc, 2) == C.ACL_SUCCESS
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, src, size, dec_pic, dv.stream) == C.ACL_SUCCESS
    assert acl.media.dvpp_vpc_resize_async(dv.ch, vpc_in, out, rc, dv.stream) == C.ACL_SUCCESS
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    oy, _ = nv12_planes(dv.get(buf, on), 224, 224, 224, 224)
    np.testing.assert_array_equal(oy, yuv_scale(pil_ycbcr(data)[..., 0], 224, 224, 0))
    assert acl.media.dvpp_destroy_resize_config(rc) == C.ACL_SUCCESS


# ---- JPEG encode and PNG decode ----

def test_jpeg_encode_round_trip(dv, photo):
    w, h = 320, 240
    y, uv = photo_nv12(photo, w, h)
    inp = dv.upload_nv12(y, uv)
    cfg = acl.media.dvpp_create_jpege_config()
    assert acl.media.dvpp_get_jpege_config_level(cfg) == 0
    assert acl.media.dvpp_set_jpege_config_level(cfg, 95) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_jpege_config_level(cfg) == 95
    cap, ret = acl.media.dvpp_jpeg_predict_enc_size(inp, cfg)
    assert ret == C.ACL_SUCCESS and cap > 0
    out = dv.malloc(cap)
    size = np.array([cap], np.uint32)
    ret = acl.media.dvpp_jpeg_encode_async(dv.ch, inp, out, size.ctypes.data, cfg, dv.stream)
    assert ret == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert 0 < int(size[0]) < cap
    jpeg = dv.get(out, int(size[0])).tobytes()
    back = pil_ycbcr(jpeg)
    mse = np.mean((back[..., 0].astype(float) - y) ** 2)
    psnr = 10 * np.log10(255.0 ** 2 / max(mse, 1e-9))
    assert psnr > 35, "luma PSNR %.1f dB after a level-95 round trip" % psnr
    assert acl.media.dvpp_destroy_jpege_config(cfg) == C.ACL_SUCCESS


def test_png_decode_rgba_keeps_alpha(dv, photo):
    img = photo.resize((90, 70)).convert("RGBA")
    a = np.asarray(img).copy()
    a[..., 3] = np.arange(70, dtype=np.uint8)[:, None] * 3
    bio = io.BytesIO()
    Image.fromarray(a, "RGBA").save(bio, "PNG")
    host = bio.getvalue()
    n, ret = acl.media.dvpp_png_predict_dec_size(acl.util.bytes_to_ptr(host), len(host), UNKNOWN)
    assert ret == C.ACL_SUCCESS
    src, size = dv.put(host)
    out = dv.malloc(n)
    pic = dv.pic(out, n, UNKNOWN)
    assert acl.media.dvpp_png_decode_async(dv.ch, src, size, pic, dv.stream) == C.ACL_SUCCESS
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert acl.media.dvpp_get_pic_desc_format(pic) == RGBA_8888
    ws = acl.media.dvpp_get_pic_desc_width_stride(pic)
    assert ws == align(90, 128) * 4
    got = dv.get(out, n)[:ws * 70].reshape(70, ws)[:, :4 * 90].reshape(70, 90, 4)
    np.testing.assert_array_equal(got, a)


def test_png_decode_rgb_exact(dv, photo):
    img = photo.resize((150, 100))
    bio = io.BytesIO()
    img.save(bio, "PNG")
    data = bio.getvalue()
    host = bytes(data)
    n, ret = acl.media.dvpp_png_predict_dec_size(acl.util.bytes_to_ptr(host), len(host), RGB_888)
    assert ret == C.ACL_SUCCESS
    src, size = dv.put(host)
    out = dv.malloc(n)
    pic = dv.pic(out, n, RGB_888)
    assert acl.media.dvpp_png_decode_async(dv.ch, src, size, pic, dv.stream) == C.ACL_SUCCESS
    assert dv.sync() == C.ACL_SUCCESS, acl.get_recent_err_msg()
    w, h = acl.media.dvpp_get_pic_desc_width(pic), acl.media.dvpp_get_pic_desc_height(pic)
    ws = acl.media.dvpp_get_pic_desc_width_stride(pic)
    assert (w, h, ws) == (150, 100, align(150, 128) * 3)
    rgb = dv.get(out, n)[:ws * h].reshape(h, ws)[:, :3 * w].reshape(h, w, 3)
    np.testing.assert_array_equal(rgb, np.asarray(img))


# ---- descriptions, configurations, conventions ----

def test_pic_desc_round_trip_and_defaults(ctx):
    p = acl.media.dvpp_create_pic_desc()
    g = acl.media
    assert (g.dvpp_get_pic_desc_data(p), g.dvpp_get_pic_desc_size(p), g.dvpp_get_pic_desc_format(p),
            g.dvpp_get_pic_desc_width(p), g.dvpp_get_pic_desc_ret_code(p)) == (0, 0, YUV_400, 0, 0)
    assert g.dvpp_set_pic_desc_data(p, 0x1000) == 0 and g.dvpp_get_pic_desc_data(p) == 0x1000
    assert g.dvpp_set_pic_desc_size(p, 4096) == 0 and g.dvpp_get_pic_desc_size(p) == 4096
    assert g.dvpp_set_pic_desc_format(p, NV21) == 0 and g.dvpp_get_pic_desc_format(p) == NV21
    assert g.dvpp_set_pic_desc_width_stride(p, 4095 + 1) == 0 and g.dvpp_get_pic_desc_width_stride(p) == 4096
    assert g.dvpp_set_pic_desc_height_stride(p, 18) == 0 and g.dvpp_get_pic_desc_height_stride(p) == 18
    assert g.dvpp_set_pic_desc_ret_code(p, 7) == 0 and g.dvpp_get_pic_desc_ret_code(p) == 7
    assert g.dvpp_destroy_pic_desc(p) == C.ACL_SUCCESS
    assert g.dvpp_destroy_pic_desc(0) == C.ACL_SUCCESS        # destroy(NULL) is a no-op
    assert g.dvpp_set_pic_desc_width(0, 4) == C.ACL_ERROR_INVALID_PARAM
    assert g.dvpp_get_pic_desc_width(0) == 0


def test_border_config_and_channel_params(ctx):
    b = acl.media.dvpp_create_border_config()
    assert acl.media.dvpp_set_border_config_value(b, 2, 77.5) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_border_config_value(b, 2) == 77.5
    assert acl.media.dvpp_get_border_config_value(b, 9) < 0
    assert acl.media.dvpp_set_border_config_border_type(b, 1) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_border_config_border_type(b) == 1
    assert acl.media.dvpp_set_border_config_left(b, 6) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_border_config_left(b) == 6
    assert acl.media.dvpp_destroy_border_config(b) == C.ACL_SUCCESS

    ch = acl.media.dvpp_create_channel_desc()
    assert acl.media.dvpp_get_channel_desc_channel_id(ch) == 0
    desc, ret = acl.media.dvpp_set_channel_desc_param(ch, ACL_DVPP_CSC_MATRIX_UINT32, 3)
    assert (desc, ret) == (ch, C.ACL_SUCCESS)
    assert acl.media.dvpp_get_channel_desc_param(ch, ACL_DVPP_CSC_MATRIX_UINT32) == (4, 3, C.ACL_SUCCESS)
    _, ret = acl.media.dvpp_set_channel_desc_param(ch, ACL_DVPP_CHANNEL_ID_UINT64, 5)
    assert ret == C.ACL_ERROR_INVALID_PARAM          # the channel id cannot be set
    assert acl.media.dvpp_set_channel_desc_mode(ch, 1 | 2) == C.ACL_SUCCESS
    assert acl.media.dvpp_create_channel(ch) == C.ACL_SUCCESS
    assert acl.media.dvpp_get_channel_desc_channel_id(ch) != 0
    assert acl.media.dvpp_destroy_channel(ch) == C.ACL_SUCCESS
    assert acl.media.dvpp_destroy_channel_desc(ch) == C.ACL_SUCCESS


def test_dvpp_memory_works_with_runtime_copies(ctx):
    p, ret = acl.media.dvpp_malloc(1000)
    assert ret == C.ACL_SUCCESS and p % 128 == 0
    data = bytes(range(256)) * 3
    assert acl.rt.memcpy(p, 1000, acl.util.bytes_to_ptr(data), len(data), C.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    back = bytes(len(data))
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(back), len(back), p, len(data), C.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert back == data
    assert acl.rt.free(p) != C.ACL_SUCCESS             # only dvpp_free releases media memory
    assert acl.media.dvpp_free(p) == C.ACL_SUCCESS


def test_argument_errors_raise_like_pyacl(ctx):
    with pytest.raises(TypeError, match="acl.media.dvpp_malloc args parse failed"):
        acl.media.dvpp_malloc("1024")
    with pytest.raises(TypeError, match="acl.media.dvpp_vpc_resize_async args parse failed"):
        acl.media.dvpp_vpc_resize_async(1, 2, 3)
    with pytest.raises(ValueError):
        acl.media.dvpp_vpc_batch_crop_async(1, 2, [], 3, [4], 0)
    with pytest.raises(ValueError):
        acl.media.dvpp_vpc_batch_crop_async(1, 2, [257], 3, [4], 0)
    with pytest.raises(TypeError):
        acl.media.dvpp_vpc_batch_crop_and_paste_async(1, 2, 5, 3, [4], [5], 0)


# ---- error paths: the documented codes ----

def test_image_info_errors(photo):
    data = encode(photo, (64, 64))
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.media.dvpp_jpeg_get_image_info(0, len(data))[-1] == C.ACL_ERROR_INVALID_PARAM
    assert acl.media.dvpp_jpeg_get_image_info(ptr, 0)[-1] == C.ACL_ERROR_INVALID_PARAM
    junk = b"not a JPEG at all " * 20
    assert acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(junk), len(junk))[-1] == ACL_ERROR_FAILURE
    not_png = data
    assert acl.media.dvpp_png_get_image_info(ptr, len(not_png))[-1] == C.ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg()


@pytest.mark.parametrize("keep", [20, 100])
def test_truncated_header_is_refused(photo, keep):
    data = encode(photo, (64, 64))[:keep]
    w, h, comps, ret = acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(data), len(data))
    assert ret == ACL_ERROR_FAILURE, (w, h, comps, ret)


def test_decode_argument_errors(dv, photo):
    data = encode(photo, (64, 64))
    src, size = dv.put(data)
    n = align(64, 128) * 64 * 3 // 2
    out = dv.malloc(n)
    pic = dv.pic(out, n, NV12)
    assert acl.media.dvpp_jpeg_decode_async(0, src, size, pic, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, 0, size, pic, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, src, 0, pic, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, src, size, 0, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    rgb = dv.pic(out, n, RGB_888)
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, src, size, rgb, dv.stream) == ACL_ERROR_FORMAT_NOT_MATCH
    assert "acldvppJpegDecodeAsync" in (acl.get_recent_err_msg() or "")
    # host memory is not media memory
    host = bytes(data)
    assert acl.media.dvpp_jpeg_decode_async(dv.ch, acl.util.bytes_to_ptr(host), size, pic,
                                            dv.stream) == C.ACL_ERROR_INVALID_PARAM
    assert dv.sync() == C.ACL_SUCCESS          # nothing was queued


@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_bad_jpeg_fails_at_synchronize(dv, photo, damage):
    data = encode(photo, (256, 256))
    if damage == "truncated":
        bad = data[:len(data) // 3]
    else:
        b = bytearray(data)
        sos = b.find(b"\xff\xda")
        b[sos + 2:sos + 2 + 400] = b"\xff" * 400
        bad = bytes(b)
    src, size = dv.put(bad)
    n = align(256, 128) * 256 * 3 // 2
    out = dv.malloc(n)
    pic = dv.pic(out, n, NV12)
    ret = acl.media.dvpp_jpeg_decode_async(dv.ch, src, size, pic, dv.stream)
    if ret == C.ACL_SUCCESS:
        assert dv.sync() != C.ACL_SUCCESS
        assert acl.media.dvpp_get_pic_desc_ret_code(pic) != 0
    assert acl.get_recent_err_msg()
    # the stream goes on: a good decode after the failure
    buf, w, h, *_ = dv.decode(data, NV12)
    assert (w, h) == (256, 256)


def test_decode_output_too_small(dv, photo):
    data = encode(photo, (256, 256))
    src, size = dv.put(data)
    out = dv.malloc(1024)
    pic = dv.pic(out, 1024, NV12)
    ret = acl.media.dvpp_jpeg_decode_async(dv.ch, src, size, pic, dv.stream)
    if ret == C.ACL_SUCCESS:
        assert dv.sync() != C.ACL_SUCCESS
    else:
        assert ret == C.ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg()
    dv.sync()


def test_vpc_constraint_errors(dv, photo):
    y, uv = photo_nv12(photo, 320, 240)
    inp = dv.upload_nv12(y, uv)
    out, buf, n = dv.nv12_pic(224, 224)
    rc = acl.media.dvpp_create_resize_config()
    assert acl.media.dvpp_set_resize_config_interpolation(rc, 9) == C.ACL_ERROR_INVALID_PARAM
    # width stride not a multiple of 16
    bad = dv.pic(acl.media.dvpp_get_pic_desc_data(inp), acl.media.dvpp_get_pic_desc_size(inp), NV12, 320, 240, 328, 240)
    assert acl.media.dvpp_vpc_resize_async(dv.ch, bad, out, rc, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    # buffer smaller than the strides say
    small = dv.pic(buf, 1000, NV12, 224, 224, 224, 224)
    assert acl.media.dvpp_vpc_resize_async(dv.ch, inp, small, rc, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    # odd crop offset (left must be even, right odd)
    roi = acl.media.dvpp_create_roi_config(1, 100, 0, 99)
    assert acl.media.dvpp_vpc_crop_async(dv.ch, inp, out, roi, dv.stream) == C.ACL_ERROR_INVALID_PARAM
    # paste left not a multiple of 16
    crop = acl.media.dvpp_create_roi_config(0, 63, 0, 63)
    paste = acl.media.dvpp_create_roi_config(8, 71, 0, 63)
    assert acl.media.dvpp_vpc_crop_and_paste_async(dv.ch, inp, out, crop, paste, dv.stream) == \
        C.ACL_ERROR_INVALID_PARAM
    # batch: a crop list shorter than the destination batch reaches the library
    src_b = acl.media.dvpp_create_batch_pic_desc(1)
    dst_b = acl.media.dvpp_create_batch_pic_desc(2)
    _, ret = acl.media.dvpp_vpc_batch_crop_async(dv.ch, src_b, [2], dst_b, [crop], dv.stream)
    assert ret == C.ACL_ERROR_INVALID_PARAM
    for r in (roi, crop, paste):
        acl.media.dvpp_destroy_roi_config(r)
    acl.media.dvpp_destroy_resize_config(rc)
    acl.media.dvpp_destroy_batch_pic_desc(src_b)
    acl.media.dvpp_destroy_batch_pic_desc(dst_b)
    assert acl.media.dvpp_create_batch_pic_desc(0) == 0
    assert acl.media.dvpp_create_batch_pic_desc(257) == 0
    assert dv.sync() == C.ACL_SUCCESS


def test_vdec_venc_report_unsupported(ctx):
    d = acl.media.vdec_create_channel_desc()
    assert d
    assert acl.media.vdec_set_channel_desc_out_pic_width(d, 640) == C.ACL_SUCCESS
    assert acl.media.vdec_get_channel_desc_out_pic_width(d) == 640
    assert acl.media.vdec_get_channel_desc_param(d, ACL_VDEC_OUT_PIC_WIDTH_UINT32) == (4, 640, C.ACL_SUCCESS)

    def cb(inp, out, user):
        pass

    with pytest.raises(RuntimeError):
        acl.media.vdec_send_frame(d, 0, 0, 0, None)
    assert acl.media.vdec_set_channel_desc_callback(d, cb) == C.ACL_SUCCESS
    assert acl.media.vdec_get_channel_desc_callback(d) is cb
    assert acl.media.vdec_create_channel(d) == C.ACL_ERROR_FEATURE_UNSUPPORTED
    assert acl.media.vdec_send_frame(d, 0, 0, 0, None) == C.ACL_ERROR_FEATURE_UNSUPPORTED
    assert acl.media.vdec_destroy_channel_desc(d) == C.ACL_SUCCESS
    e = acl.media.venc_create_channel_desc()
    assert acl.media.venc_create_channel(e) == C.ACL_ERROR_FEATURE_UNSUPPORTED
    assert acl.media.venc_destroy_channel_desc(e) == C.ACL_SUCCESS


def test_every_header_function_is_bound():
    """Each function acl_dvpp.h declares has its pyACL name in acl.media
    (C name without the acl prefix, in snake case; pyACL spells EnType
    "entype"). The callback getters return the Python callable set."""
    import re
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "acl", "ops", "acl_dvpp.h")
    names = set(re.findall(r"\b(acl(?:dvpp|vdec|venc)[A-Za-z0-9]+)\s*\(", open(header).read()))
    assert len(names) > 150
    missing = []
    for c in sorted(names):
        py = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", c[3:]).lower()
        py = py.replace("en_type", "entype")
        if not callable(getattr(acl.media, py, None)):
            missing.append((c, py))
    assert not missing


def test_dvpp_memory_feeds_a_model(ctx, model_paths):
    """Media memory is accepted as model input and output (execute_async
    on a stream, then a copy back)."""
    import models
    model_id, ret = acl.mdl.load_from_file(model_paths["relu_scale"])
    assert ret == C.ACL_SUCCESS
    stream, ret = acl.rt.create_stream()
    assert ret == C.ACL_SUCCESS
    x = np.linspace(-3, 3, 20, dtype=np.float32).reshape(4, 5)
    bufs = []
    for _ in range(2):
        p, ret = acl.media.dvpp_malloc(x.nbytes)
        assert ret == C.ACL_SUCCESS
        bufs.append(p)
    host = x.tobytes()
    assert acl.rt.memcpy(bufs[0], x.nbytes, acl.util.bytes_to_ptr(host), x.nbytes,
                         C.ACL_MEMCPY_HOST_TO_DEVICE) == C.ACL_SUCCESS
    ds_in, ds_out = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    b_in, b_out = acl.create_data_buffer(bufs[0], x.nbytes), acl.create_data_buffer(bufs[1], x.nbytes)
    assert acl.mdl.add_dataset_buffer(ds_in, b_in)[1] == C.ACL_SUCCESS
    assert acl.mdl.add_dataset_buffer(ds_out, b_out)[1] == C.ACL_SUCCESS
    assert acl.mdl.execute_async(model_id, ds_in, ds_out, stream) == C.ACL_SUCCESS, acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == C.ACL_SUCCESS
    out = bytes(x.nbytes)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), x.nbytes, bufs[1], x.nbytes,
                         C.ACL_MEMCPY_DEVICE_TO_HOST) == C.ACL_SUCCESS
    np.testing.assert_array_equal(np.frombuffer(out, np.float32).reshape(4, 5), models.relu_scale_ref(x))
    for b in (b_in, b_out):
        assert acl.destroy_data_buffer(b) == C.ACL_SUCCESS
    for d in (ds_in, ds_out):
        assert acl.mdl.destroy_dataset(d) == C.ACL_SUCCESS
    for p in bufs:
        assert acl.media.dvpp_free(p) == C.ACL_SUCCESS
    assert acl.mdl.unload(model_id) == C.ACL_SUCCESS
    assert acl.rt.destroy_stream(stream) == C.ACL_SUCCESS
