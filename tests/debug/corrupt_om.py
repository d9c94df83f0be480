#!/usr/bin/python3
"""Corrupts one weight of an openacl compiled model and recomputes every
checksum (docs/om-format.md §2, §3, §5), so the copy loads and runs but
computes a wrong layer: the fixture of openacl-compare's tests.

  corrupt_om.py IN.om OUT.om ORIGINAL.onnx INITIALIZER [SCALE]

Every float of INITIALIZER (as stored in the ONNX file) found in the WEIGHTS
or PLAIN section (packed layouts move values, they keep them) is multiplied
by SCALE (default 25)."""
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c = TABLE[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def main():
    src, dst, model, name = sys.argv[1:5]
    scale = float(sys.argv[5]) if len(sys.argv) > 5 else 25.0
    data = bytearray(open(src, "rb").read())
    init = {t.name: numpy_helper.to_array(t) for t in onnx.load(model).graph.initializer}[name]
    tab_off, = struct.unpack_from("<Q", data, 24)
    n_sec, = struct.unpack_from("<I", data, 32)
    secs = [struct.unpack_from("<IIQQII", data, tab_off + 32 * i) for i in range(n_sec)]
    hit = 0
    for sid, flags, off, size, _crc, _lg in secs:
        if sid not in (4, 5):  # WEIGHTS, PLAIN
            continue
        region = np.frombuffer(bytes(data[off:off + size - size % 4]), dtype="<f4")
        for v in np.unique(init.astype(np.float32).ravel()):
            if v == 0:
                continue
            for k in np.nonzero(region == v)[0]:
                struct.pack_into("<f", data, off + 4 * int(k), float(v) * scale)
                hit += 1
    if not hit:
        sys.exit("corrupt_om: no value of %s found in WEIGHTS/PLAIN" % name)
    # chunk sums (SUMS, in table order), then section CRCs, table CRC, header CRC
    sums = []
    for sid, flags, off, size, _crc, lg in secs:
        if flags & 2:
            ch = 1 << lg
            sums += [crc32c(data[p:min(p + ch, off + size)]) for p in range(off, off + size, ch)]
    for i, (sid, flags, off, size, _crc, lg) in enumerate(secs):
        if sid == 6:
            struct.pack_into("<%dI" % len(sums), data, off, *sums)
    for i, (sid, flags, off, size, _crc, lg) in enumerate(secs):
        if not flags & 2:
            struct.pack_into("<I", data, tab_off + 32 * i + 24, crc32c(data[off:off + size]))
    struct.pack_into("<I", data, 36, crc32c(data[tab_off:tab_off + 32 * n_sec]))
    struct.pack_into("<I", data, 124, crc32c(data[0:124]))
    open(dst, "wb").write(data)
    print("corrupt_om: %d values of %s scaled by %g in %s" % (hit, name, scale, dst))


if __name__ == "__main__":
    main()
