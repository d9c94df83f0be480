#!/usr/bin/python3
"""Round-trip test of tools/npy against numpy: numpy writes arrays of every
supported dtype and layout corner case, the C reader/writer copies them, and
numpy checks the copies bit for bit; then C-written patterns and malformed
files are checked."""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

import numpy as np

DTYPES = ["float32", "float16", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool"]


def make(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("float"):
        a = rng.standard_normal(size=shape).astype(dtype)
        if a.size >= 3:  # specials survive the copy bit for bit
            a.flat[0], a.flat[1], a.flat[2] = np.inf, -0.0, np.nan
        return a
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    if a.size >= 2:
        a.flat[0], a.flat[1] = info.min, info.max
    return a


def run(args, check=True):
    p = subprocess.run(args, capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} -> rc {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    a.bin = shlex.split(a.bin)  # may be a command with arguments ("node cli.js")
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    rng = np.random.default_rng(0)
    cases = []
    for dt in DTYPES:
        for shape in [(), (1,), (7,), (2, 3), (1, 3, 4, 5), (0, 4), (2, 1, 1, 1, 1, 3)]:
            cases.append((dt, shape, "<"))
        cases.append((dt, (3, 5), ">"))  # big-endian input is converted
    n = 0
    for dt, shape, order in cases:
        arr = make(dt, shape, rng)
        if order == ">":
            arr = arr.astype(arr.dtype.newbyteorder(">"))
        src = os.path.join(a.dir, f"in_{n}.npy")
        dst = os.path.join(a.dir, f"out_{n}.npy")
        np.save(src, arr)
        run([*a.bin, "copy", src, dst])
        back = np.load(dst)
        want = arr.astype(arr.dtype.newbyteorder("<")) if order == ">" else arr
        if back.dtype != np.dtype(dt) or back.shape != shape:
            sys.exit(f"FAIL case {n}: {dt}{shape}: got {back.dtype}{back.shape}")
        if back.tobytes() != want.tobytes():
            sys.exit(f"FAIL case {n}: {dt}{shape}: data differs")
        n += 1
    # Version 2.0 header written by numpy.
    arr = make("float32", (4, 4), rng)
    src = os.path.join(a.dir, "v2.npy")
    with open(src, "wb") as f:
        np.lib.format.write_array(f, arr, version=(2, 0))
    run([*a.bin, "copy", src, os.path.join(a.dir, "v2_out.npy")])
    if np.load(os.path.join(a.dir, "v2_out.npy")).tobytes() != arr.tobytes():
        sys.exit("FAIL: version 2.0 header copy differs")
    n += 1
    # Patterns written by C.
    run([*a.bin, "gen", a.dir])
    idx = np.arange(30).reshape(2, 3, 5)
    for dt in DTYPES:
        got = np.load(os.path.join(a.dir, f"gen_{dt}.npy"))
        want = (idx % 2).astype(bool) if dt == "bool" else ((idx % 7) - 3).astype(dt)
        if got.dtype != np.dtype(dt) or not np.array_equal(got, want):
            sys.exit(f"FAIL gen {dt}: {got.dtype} {got.ravel()[:8]}")
        n += 1
    # Files that must be refused with a message (not crash).
    good = open(os.path.join(a.dir, "in_0.npy"), "rb").read()
    fort = os.path.join(a.dir, "fortran.npy")
    np.save(fort, np.asfortranarray(np.ones((3, 4), np.float32)))
    bad = {"fortran.npy": None,
           "magic.npy": b"NOTNUMPY" + good[8:],
           "trunc_data.npy": open(os.path.join(a.dir, "in_4.npy"), "rb").read()[:-4],
           "trunc_head.npy": good[:20],
           "empty.npy": b"",
           "object.npy": None,
           "complex.npy": None}
    np.save(os.path.join(a.dir, "object.npy"), np.array([1, "x"], dtype=object), allow_pickle=True)
    np.save(os.path.join(a.dir, "complex.npy"), np.ones(3, np.complex64))
    for name, data in bad.items():
        path = os.path.join(a.dir, name)
        if data is not None:
            open(path, "wb").write(data)
        run([*a.bin, "bad", path])
        n += 1
    print(f"npy round trip: {n} cases ok")


if __name__ == "__main__":
    main()
