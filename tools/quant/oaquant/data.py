"""Calibration and evaluation inputs: a folder of samples.

Layout (docs/quantization.md, "Calibration data"):
- a model with one input: every file in the folder is one sample, `.npy`,
  raw `.bin` (the model's dtype and static shape, C order) or an image
  (`.jpg`, `.jpeg`, `.png`, `.bmp`, preprocessed by an ImagePrep);
- any model: one sub-folder per sample, holding one file per input named
  after the input (`input_ids.npy`; characters other than letters, digits,
  `.`, `-` and `_` become `_`) or after its index (`0.npy`, `1.bin`).
Files are taken in sorted order. Every array is checked against the model:
shape (dynamic dimensions accept any size), dtype, and finite values.
"""
import os
import re

import numpy as np
from onnx import TensorProto

from . import QuantError

IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp")
DATA_EXT = (".npy", ".bin") + IMAGE_EXT
ONNX_NP = {TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8,
           TensorProto.UINT16: np.uint16, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
           TensorProto.INT64: np.int64, TensorProto.BOOL: np.bool_, TensorProto.FLOAT16: np.float16,
           TensorProto.DOUBLE: np.float64, TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64}


class InputSpec:
    """One model input: name, numpy dtype, dims (None = dynamic)."""

    def __init__(self, vi):
        self.name = vi.name
        tt = vi.type.tensor_type
        if tt.elem_type not in ONNX_NP:
            raise QuantError("model input %r has an element type (%d) openacl-quant cannot feed"
                             % (vi.name, tt.elem_type))
        self.dtype = np.dtype(ONNX_NP[tt.elem_type])
        self.dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None
                     for d in tt.shape.dim]

    def shape_str(self):
        return "[%s]" % ", ".join("?" if d is None else str(d) for d in self.dims)

    def fits(self, shape):
        return len(shape) == len(self.dims) and all(d is None or d == s for d, s in zip(self.dims, shape))


class ImagePrep:
    """Image preprocessing: resize to (h, w), x = (pixel / scale - mean) / std
    per channel in `order` (RGB or BGR), laid out NCHW or NHWC."""

    def __init__(self, size=None, mean=(0.0,), std=(1.0,), scale=1.0, order="RGB", layout=None):
        self.size, self.mean, self.std, self.scale = size, mean, std, scale
        self.order, self.layout = order.upper(), layout.upper() if layout else None
        if self.order not in ("RGB", "BGR"):
            raise QuantError("--channel-order must be RGB or BGR, not %r" % order)
        if self.layout not in (None, "NCHW", "NHWC"):
            raise QuantError("--layout must be NCHW or NHWC, not %r" % layout)
        if any(s == 0 for s in std) or scale == 0:
            raise QuantError("--std and --pixel-scale must not be 0")

    def load(self, path, spec):
        layout = self.layout or guess_layout(spec)
        if layout is None or len(spec.dims) != 4:
            raise QuantError("%s: an image for input %r of shape %s: give --layout NCHW or NHWC for a "
                             "4-D image input" % (path, spec.name, spec.shape_str()))
        c_ax, h_ax, w_ax = (1, 2, 3) if layout == "NCHW" else (3, 1, 2)
        ch = spec.dims[c_ax] or 3
        h, w = self.size or (spec.dims[h_ax], spec.dims[w_ax])
        if not h or not w:
            raise QuantError("input %r has dynamic height/width: give --resize HxW" % spec.name)
        img = decode_image(path, ch, w, h)                 # HWC, uint8, RGB or gray
        if ch == 3 and self.order == "BGR":
            img = img[:, :, ::-1]
        x = img.astype(np.float32) / np.float32(self.scale)
        mean = np.asarray(self.mean, np.float32).reshape(1, 1, -1)
        std = np.asarray(self.std, np.float32).reshape(1, 1, -1)
        x = (x - mean) / std
        if layout == "NCHW":
            x = x.transpose(2, 0, 1)
        return np.ascontiguousarray(x[None]).astype(spec.dtype)


def guess_layout(spec):
    if len(spec.dims) != 4:
        return None
    if spec.dims[1] in (1, 3):
        return "NCHW"
    if spec.dims[3] in (1, 3):
        return "NHWC"
    return None


def decode_image(path, channels, w, h):
    """Decodes and resizes (bilinear) with PIL, or OpenCV when PIL is absent."""
    try:
        from PIL import Image
    except ImportError:
        Image = None
    if Image is not None:
        try:
            with Image.open(path) as im:
                im = im.convert("L" if channels == 1 else "RGB").resize((w, h), Image.BILINEAR)
                a = np.asarray(im, np.uint8)
        except Exception as e:
            raise QuantError("%s: not a readable image (%s)" % (path, e)) from None
    else:
        try:
            import cv2
        except ImportError:
            raise QuantError("decoding %s needs PIL or OpenCV (python3-pil or python3-opencv)" % path) from None
        a = cv2.imread(path, cv2.IMREAD_GRAYSCALE if channels == 1 else cv2.IMREAD_COLOR)
        if a is None:
            raise QuantError("%s: not a readable image" % path)
        if channels != 1:
            a = a[:, :, ::-1]
        a = cv2.resize(a, (w, h), interpolation=cv2.INTER_LINEAR)
    return a.reshape(h, w, channels)


def file_key(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


class Sample:
    def __init__(self, name, files):
        self.name, self.files = name, files     # files: one path per model input


def list_samples(folder, specs, what="calibration"):
    """The samples of a folder (see the module doc), in sorted order."""
    if not os.path.isdir(folder):
        raise QuantError("the %s folder %s does not exist or is not a folder" % (what, folder))
    try:
        entries = sorted(os.listdir(folder))
    except OSError as e:
        raise QuantError("cannot read the %s folder %s: %s" % (what, folder, e.strerror)) from None
    dirs = [e for e in entries if os.path.isdir(os.path.join(folder, e))]
    files = [e for e in entries if e.lower().endswith(DATA_EXT) and os.path.isfile(os.path.join(folder, e))]
    if dirs and not files:
        return [Sample(d, sample_dir_files(os.path.join(folder, d), specs)) for d in dirs]
    if files:
        if len(specs) != 1:
            raise QuantError("the model has %d inputs (%s): put each %s sample in its own sub-folder of %s "
                             "with one file per input named after it (e.g. %s.npy)"
                             % (len(specs), ", ".join(s.name for s in specs), what, folder,
                                file_key(specs[0].name)))
        return [Sample(f, [os.path.join(folder, f)]) for f in files]
    raise QuantError("the %s folder %s holds no samples (.npy, .bin, .jpg, .png files or sub-folders)"
                     % (what, folder))


def sample_dir_files(d, specs):
    names = os.listdir(d)
    out = []
    for k, s in enumerate(specs):
        found = None
        for stem in (file_key(s.name), str(k)):
            for ext in DATA_EXT:
                if stem + ext in names:
                    found = os.path.join(d, stem + ext)
                    break
            if found:
                break
        if not found:
            raise QuantError("sample folder %s has no file for input %r (expected %s.npy, %s.bin or %d.npy)"
                             % (d, s.name, file_key(s.name), file_key(s.name), k))
        out.append(found)
    return out


def load_array(path, spec, prep):
    """Reads one input file and checks it against the model's input."""
    low = path.lower()
    if low.endswith(IMAGE_EXT):
        if prep is None:
            raise QuantError("%s is an image: give the preprocessing (at least --mean/--std, see --help)"
                             % path)
        a = prep.load(path, spec)
    elif low.endswith(".npy"):
        try:
            a = np.load(path, allow_pickle=False)
        except Exception as e:
            raise QuantError("%s: not a readable .npy file (%s)" % (path, e)) from None
    else:
        if any(d is None for d in spec.dims):
            raise QuantError("%s: a raw .bin file needs a static input shape, and input %r has %s: use .npy"
                             % (path, spec.name, spec.shape_str()))
        try:
            a = np.fromfile(path, dtype=spec.dtype)
        except OSError as e:
            raise QuantError("%s: cannot read (%s)" % (path, e.strerror)) from None
        n = int(np.prod(spec.dims))
        if a.size != n or os.path.getsize(path) != n * spec.dtype.itemsize:
            raise QuantError("%s: %d bytes, but input %r (%s %s) needs %d" % (
                path, os.path.getsize(path), spec.name, spec.dtype.name, spec.shape_str(),
                n * spec.dtype.itemsize))
        a = a.reshape(spec.dims)
    if a.dtype != spec.dtype:
        raise QuantError("%s: dtype %s, but input %r is %s (convert it, e.g. a.astype(np.%s))"
                         % (path, a.dtype.name, spec.name, spec.dtype.name, spec.dtype.name))
    if not spec.fits(a.shape):
        raise QuantError("%s: shape %s, but input %r is %s" % (path, list(a.shape), spec.name, spec.shape_str()))
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        bad = int(np.size(a) - np.isfinite(a).sum())
        raise QuantError("%s: %d NaN/Inf value(s) in input %r: calibration data must be finite"
                         % (path, bad, spec.name))
    return np.ascontiguousarray(a)


def load_sample(sample, specs, prep):
    return [load_array(p, s, prep) for p, s in zip(sample.files, specs)]
