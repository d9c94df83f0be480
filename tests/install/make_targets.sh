#!/bin/bash
# Every script a make target of the README runs must exist: `make -n` prints
# the recipes of bench, demo, models, install and deb (and what they depend
# on) without running them; each `bash <file>` named there is checked.
# Usage: make_targets.sh SRC
set -euo pipefail
SRC=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
missing=0
for target in bench demo models install deb; do
  recipe=$(make -n -C "$SRC" BUILD="$scratch/b" "$target" 2>&1) || { echo "make -n $target failed: $recipe" >&2; exit 1; }
  for f in $(printf '%s\n' "$recipe" | grep -oE 'bash [^ ;&|]+' | awk '{print $2}'); do
    if [ ! -f "$SRC/$f" ]; then
      echo "make $target runs $f, which does not exist" >&2
      missing=1
    fi
  done
done
# make bench runs the real-model benchmark entry, not some other script
bench=$(make -n -C "$SRC" BUILD="$scratch/b" bench)
printf '%s\n' "$bench" | grep -q 'bash bench/models.sh' ||
  { echo "make bench does not run bench/models.sh" >&2; exit 1; }
exit $missing
