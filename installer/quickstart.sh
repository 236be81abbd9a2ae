#!/usr/bin/env bash
# YOLO Workbench quick start: installs what is missing, builds, then either opens the GUI with the quick
# start set up (a display is available: shapes dataset open, quick settings filled in, Training tab ready
# for Start) or runs the main job on the command line (`ywb quickstart`: environment doctor, then a YOLOv8n
# trained on the generated shapes dataset to COCO-exact mAP50 above 0.5 in about 4 minutes on 2 CPU cores
# (10 on AVX2-only ones), its per-class table, predictions on a few validation images, and what to do
# next). Both paths read the same settings (ywb::quickStart).
# Usage: installer/quickstart.sh        (YWB_NO_GUI=1 forces the command-line path; extra arguments go to
#                                        `ywb quickstart`, e.g. epochs=20 device=0)
set -euo pipefail
cd "$(dirname "$0")/.."

installer/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target ywb yolo-workbench

ywb=build/release/engine/cli/ywb

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${YWB_NO_GUI:-0}" != 1 ]; then
  echo "== Starting the GUI (quick start: press Start in the Training tab)"
  exec build/release/gui/yolo-workbench --quickstart
fi

echo "== Environment doctor"
"$ywb" doctor
exec "$ywb" quickstart "$@"
