#!/usr/bin/env bash
# Real-model benchmark, openacl vs ONNX Runtime side by side (see
# bench/run_models.py). Builds the model set if needed, mdl_bench and
# ort_bench (ONNX Runtime through its C API, the peer).
#   bench/models.sh [BUILD_DIR] [--threads 1,2] [--min-time 3] [--only a,b] [--repeat N]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="build"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$1"; shift; fi
case "$build" in /*) ;; *) build="$here/$build" ;; esac
bash "$here/scripts/models.sh"
if ! cmake --build "$build" --target mdl_bench -j "$(nproc)" >/dev/null 2>&1; then
  [ -x "$build/mdl_bench" ] || { echo "bench: cannot build $build/mdl_bench" >&2; exit 1; }
  echo "bench: build of mdl_bench failed; using the existing $build/mdl_bench and its library" >&2
fi
cmake --build "$build" --target ort_bench -j "$(nproc)" >/dev/null 2>&1 ||
  echo "bench: ort_bench did not build; ONNX Runtime is measured through Node instead" >&2
exec /usr/bin/python3 "$here/bench/run_models.py" --mdl-bench "$build/mdl_bench" "$@"
