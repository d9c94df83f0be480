#!/usr/bin/env bash
# DVPP against OpenCV (BENCHMARKS.md, "DVPP"). Builds bench/dvpp's target,
# makes a 1920x1080 4:2:0 JPEG from matplotlib's sample photograph (a drawn
# picture when that is not installed) and runs dvpp_bench with one compute
# thread. OpenCV is only this benchmark's peer: install it with
#   apt-get install libopencv-dev     (then re-run cmake)
# Usage: bench/dvpp/run.sh [BUILD_DIR] [REPS]
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
cmake --build "$BUILD" --target dvpp_bench -j "${JOBS:-2}" >/dev/null || {
  echo "dvpp_bench is not configured: it needs acl_dvpp and OpenCV (libopencv-dev); see bench/dvpp/part.cmake" >&2
  exit 1
}
PIC="$BUILD/bench_dvpp_1920x1080.jpg"
/usr/bin/python3 - "$PIC" <<'PY'
import sys
from PIL import Image, ImageDraw
try:
    from matplotlib import cbook
    img = Image.open(cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)).convert("RGB")
except Exception:  # noqa: BLE001 - no photograph installed: draw one
    img = Image.new("RGB", (600, 512), (40, 90, 160))
    d = ImageDraw.Draw(img)
    for k in range(12):
        d.ellipse((30 * k, 20 * k, 30 * k + 200, 20 * k + 150), fill=(20 * k, 255 - 20 * k, 120))
img.resize((1920, 1080), Image.BICUBIC).save(sys.argv[1], "JPEG", quality=90, subsampling=2)
PY
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
OPENACL_THREADS=1 OMP_NUM_THREADS=1 "$BUILD/dvpp_bench" "$PIC" "$REPS"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
