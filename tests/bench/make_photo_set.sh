#!/usr/bin/env bash
# Builds a loader benchmark set of N distinct 640-px photos (default 622, more than any Mosaic buffer holds:
# Ultralytics' is at most 8 x batch = 128 images at batch 16) from coco128's train images: each source image
# appears as itself and as lossless jpegtran variants (mirrored, flipped, rotated 180), labels transformed to
# match. Decoding cost is that of real photos. Needs jpegtran (Debian: libjpeg-turbo-progs) and awk.
#   tests/bench/make_photo_set.sh OUT [N] [COCO128_DIR]
set -euo pipefail
out=${1:?usage: make_photo_set.sh OUT [N] [COCO128_DIR]}
n=${2:-622}
src=${3:-$(dirname "$0")/../../../shared/datasets/coco128}
command -v jpegtran >/dev/null || { echo "make_photo_set.sh: jpegtran not found (apt-get install libjpeg-turbo-progs)" >&2; exit 1; }
[ -d "$src/images/train2017" ] || { echo "make_photo_set.sh: no $src/images/train2017" >&2; exit 1; }
mkdir -p "$out/images/train" "$out/labels/train"
# variant name, jpegtran arguments, awk program mapping a label row (class cx cy w h)
variants=("id|-copy all|{print}"
          "lr|-flip horizontal -trim|{\$2=1-\$2; print}"
          "ud|-flip vertical -trim|{\$3=1-\$3; print}"
          "r180|-rotate 180 -trim|{\$2=1-\$2; \$3=1-\$3; print}"
          "tr|-transpose|{t=\$2; \$2=\$3; \$3=t; t=\$4; \$4=\$5; \$5=t; print}")
count=0
for v in "${variants[@]}"; do
  IFS='|' read -r name args prog <<<"$v"
  for img in "$src"/images/train2017/*.jpg; do
    [ "$count" -ge "$n" ] && break 2
    stem=$(basename "$img" .jpg)
    # shellcheck disable=SC2086
    jpegtran $args -outfile "$out/images/train/${stem}_$name.jpg" "$img"
    lab="$src/labels/train2017/$stem.txt"
    if [ -f "$lab" ]; then awk "$prog" "$lab" >"$out/labels/train/${stem}_$name.txt"; fi
    count=$((count + 1))
  done
done
names=$(awk '/^names:/{f=1;next} f&&/^[^ ]/{f=0} f' "$src/data.yaml")
{
  echo "# $count photos from coco128 (tests/bench/make_photo_set.sh): loader benchmarks on a set larger than any buffer"
  echo "train: images/train"
  echo "val: images/train"
  echo "nc: 80"
  echo "names:"
  echo "$names"
} >"$out/data.yaml"
echo "make_photo_set.sh: $count images in $out"
