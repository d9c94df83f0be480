#!/usr/bin/env bash
# int8 benchmark: openacl on openacl-quant's QDQ models vs ONNX Runtime fp32
# and ORT on the same QDQ files, side by side (see bench/int8.py). Builds the
# model set if needed, mdl_bench, ort_bench and openacl-quant's build copy.
#   bench/int8.sh [BUILD_DIR] [--threads 1,2] [--rounds 3] [--only resnet50,bert4] [--with-fp32]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="build"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$1"; shift; fi
case "$build" in /*) ;; *) build="$here/$build" ;; esac
bash "$here/scripts/models.sh"
if ! cmake --build "$build" --target mdl_bench ort_bench cpu_peak pyacl -j "$(nproc)" >/dev/null 2>&1; then
  [ -x "$build/mdl_bench" ] && [ -x "$build/ort_bench" ] || { echo "bench: cannot build mdl_bench/ort_bench in $build" >&2; exit 1; }
  echo "bench: the build failed; using the existing binaries in $build" >&2
fi
[ -e "$build/openacl-quant" ] || { echo "bench: no $build/openacl-quant (configure the build)" >&2; exit 1; }
exec /usr/bin/python3 "$here/bench/int8.py" --mdl-bench "$build/mdl_bench" --quant "$build/openacl-quant" "$@"
