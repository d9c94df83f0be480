#!/usr/bin/env bash
# The torchvision sweep (issue 23): openacl vs ONNX Runtime side by side on
# one variant of every torchvision classification and segmentation family
# (models/tv/, built by scripts/models.sh --set torchvision), at 1 and 2
# threads; per-model ratios and their geometric mean in
# bench/results/torchvision.json. Arguments go to bench/run_models.py.
#   bench/torchvision.sh [BUILD_DIR] [--tier 2] [--threads 1,2] [--min-time 1] [--rounds 3] [--only a,b]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="build"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$1"; shift; fi
case "$build" in /*) ;; *) build="$here/$build" ;; esac
tier=1
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--tier" ]; then tier="${2:-1}"; shift 2; else args+=("$1"); shift; fi
done
bash "$here/scripts/models.sh" --set torchvision --tier "$tier"
cmake --build "$build" --target mdl_bench -j "$(nproc)" >/dev/null 2>&1 ||
  [ -x "$build/mdl_bench" ] || { echo "bench: cannot build $build/mdl_bench" >&2; exit 1; }
cmake --build "$build" --target ort_bench -j "$(nproc)" >/dev/null 2>&1 ||
  echo "bench: ort_bench did not build; ONNX Runtime is measured through Node instead" >&2
exec /usr/bin/python3 "$here/bench/run_models.py" --mdl-bench "$build/mdl_bench" --set torchvision \
  --tier "$tier" ${args[@]+"${args[@]}"}
