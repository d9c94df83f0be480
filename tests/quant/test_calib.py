"""The three calibrators and the quantisation arithmetic against numpy (and
scipy's KL divergence) on known distributions."""
import numpy as np
import pytest

from oaquant import calib, qdq


def ranges(method, arrays, p=99.99):
    """Runs the two calibration passes over a list of batches of one tensor."""
    st = calib.RangeStats()
    for a in arrays:
        st.add("t", a)
    h = None
    if method != "minmax":
        h = calib.Histograms({"t": st.range("t")}, method)
        for a in arrays:
            h.add("t", a)
    return calib.final_ranges(st, h, method, p)["t"], h


def batches(x, n=4):
    return np.array_split(x, n)


@pytest.fixture(scope="module")
def normal():
    return np.random.default_rng(0).standard_normal(400000).astype(np.float32)


def test_minmax_is_min_and_max(normal):
    x = normal * 2.5 + 0.7
    (lo, hi), _ = ranges("minmax", batches(x))
    assert lo == float(x.min()) and hi == float(x.max())


def test_minmax_ignores_nonfinite_and_counts_them():
    st = calib.RangeStats()
    st.add("t", np.array([1.0, np.inf, -3.0, np.nan], np.float32))
    assert st.range("t") == (-3.0, 1.0) and st.nonfinite["t"] == 2


@pytest.mark.parametrize("p", [99.0, 99.9, 99.99])
def test_percentile_matches_numpy(normal, p):
    x = np.concatenate([normal, np.random.default_rng(1).uniform(-40, 60, 20).astype(np.float32)])
    (lo, hi), _ = ranges("percentile", batches(x), p)
    ref_lo, ref_hi = np.percentile(x, [100.0 - p, p])
    width = (float(x.max()) - float(x.min())) / calib.HIST_BINS
    assert abs(lo - ref_lo) <= 1.01 * width and abs(hi - ref_hi) <= 1.01 * width
    assert hi < x.max() and lo > x.min()


def kl_scipy(hist, i, levels):
    """KL(P || Q) for the first i bins, Q built the TensorRT way, summed by scipy."""
    from scipy.stats import entropy
    h = hist.astype(np.float64)
    p = h[:i].copy()
    p[i - 1] += h[i:].sum()
    q = np.zeros(i)
    edges = np.floor(np.linspace(0, i, levels + 1)).astype(int)
    edges[-1] = i
    for s, e in zip(edges[:-1], edges[1:]):
        seg = h[s:e]
        nz = seg > 0
        if nz.any():
            q[s:e][nz] = seg.sum() / nz.sum()
    return entropy(smooth(p), smooth(q))


def smooth(p, eps=1e-4):
    """The documented smoothing: eps counts into empty bins, taken from the others."""
    z = p == 0
    return p + eps * z - eps * z.sum() / (~z).sum() * (~z)


@pytest.mark.parametrize("dist", ["normal", "relu", "laplace"])
def test_entropy_threshold_minimises_kl(normal, dist):
    rng = np.random.default_rng(2)
    x = {"normal": normal, "relu": np.maximum(normal, 0),
         "laplace": rng.laplace(0, 1, 400000).astype(np.float32)}[dist]
    (lo, hi), h = ranges("entropy", batches(x))
    signed = dist != "relu"
    levels = 128 if signed else 256
    hist = h.hist["t"].astype(np.float64)
    hist[0] = hist[1]                                   # the documented zero-spike rule
    top = h.edges["t"][1]
    width = top / len(hist)
    t = hi if not signed else max(-lo, hi)
    i_best = int(round(t / width - 0.5))
    if t < top:
        kls = np.array([kl_scipy(hist, i, levels) for i in range(levels, len(hist) + 1, 7)])
        assert kl_scipy(hist, i_best, levels) <= kls.min() + 1e-12
    # clipping on a bell-shaped tensor: inside the range, beyond 2.5 standard deviations
    assert 2.5 * x.std() < t <= max(abs(float(x.min())), float(x.max())) + width
    if dist == "relu":
        assert lo == 0.0


def test_entropy_clips_outliers_below_minmax(normal):
    x = np.concatenate([normal, np.array([80.0, -60.0], np.float32)])
    (lo, hi), _ = ranges("entropy", batches(x))
    assert hi < 20 and lo > -20


def test_constant_tensor_keeps_its_range():
    x = np.full(1000, 3.0, np.float32)
    for m in calib.METHODS:
        (lo, hi), _ = ranges(m, [x])
        assert (lo, hi) == (3.0, 3.0)
        s, z = qdq.act_params(lo, hi)
        assert s == np.float32(3.0 / 255.0) and z == 0


def test_act_params_formula():
    s, z = qdq.act_params(-1.0, 3.0)
    assert s == np.float32(4.0 / 255.0) and z == round(1.0 / (4.0 / 255.0))
    s, z = qdq.act_params(0.5, 2.0)                    # widened to include 0
    assert s == np.float32(2.0 / 255.0) and z == 0
    s, z = qdq.act_params(-2.0, -0.5)
    assert s == np.float32(2.0 / 255.0) and z == 255
    assert qdq.act_params(0.0, 0.0) == (np.float32(1.0), np.uint8(0))


def test_weight_params_formula():
    w = np.random.default_rng(3).standard_normal([6, 4, 3, 3]).astype(np.float32)
    w[2] = 0.0                                          # an all-zero channel: scale 1, values 0
    s, q = qdq.weight_params(w, 0)
    amax = np.abs(w.reshape(6, -1)).max(axis=1)
    np.testing.assert_allclose(s[amax > 0], amax[amax > 0] / 127.0, rtol=1e-7)
    assert s[2] == 1.0 and not q[2].any()
    assert q.dtype == np.int8 and q.min() >= -127 and q.max() <= 127
    err = np.abs(q.astype(np.float32) * s.reshape(-1, 1, 1, 1) - w)
    assert (err <= s.reshape(-1, 1, 1, 1) / 2 + 1e-7).all()


def test_progress_bar_is_plain_text():
    import io
    buf = io.StringIO()
    bar = calib.Progress("calibrating", 20, stream=buf)
    for _ in range(20):
        bar.step()
    lines = buf.getvalue().splitlines()
    assert 2 <= len(lines) <= 11 and lines[-1].startswith("calibrating [") and "20/20" in lines[-1]
    assert all(ord(c) < 128 for c in buf.getvalue())


def test_image_decoders_agree(tmp_path, monkeypatch):
    """Pillow and, without it, OpenCV decode the same PNG to the same RGB
    pixels (no resize: the two resizers differ)."""
    import sys
    from PIL import Image
    from oaquant import data
    a = np.random.default_rng(9).integers(0, 256, (12, 10, 3), dtype=np.uint8)
    p = str(tmp_path / "x.png")
    Image.fromarray(a).save(p)
    np.testing.assert_array_equal(data.decode_image(p, 3, 10, 12), a)
    pytest.importorskip("cv2")
    monkeypatch.setitem(sys.modules, "PIL", None)          # import PIL now fails
    np.testing.assert_array_equal(data.decode_image(p, 3, 10, 12), a)
    gray = data.decode_image(p, 1, 10, 12)
    assert gray.shape == (12, 10, 1)


def test_mse_range_beats_a_grid_of_ranges():
    """mse: the actual uint8 round-trip error (numpy, on the raw values) of
    the chosen range is within 2 % of the best of a 40 x 40 grid of ranges,
    and below min-max's on a heavy-tailed tensor (Student t, 3 degrees)."""
    x = np.random.default_rng(4).standard_t(3, 200000).astype(np.float32)
    (lo, hi), _ = ranges("mse", batches(x))

    def err(a, b):
        s, z = qdq.act_params(a, b)
        return float(np.mean((x - qdq.quant_dequant(x, s, z)) ** 2))
    xmin, xmax = float(x.min()), float(x.max())
    grid = min(err(xmin * f, xmax * g) for f in np.linspace(0.025, 1, 40) for g in np.linspace(0.025, 1, 40))
    assert err(lo, hi) <= 1.02 * grid
    assert err(lo, hi) < err(xmin, xmax)
