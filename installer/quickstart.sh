#!/usr/bin/env bash
# YOLO Workbench quick start: installs what is missing, builds, generates the embedded shapes dataset on
# first use, then opens the GUI when a display is available; otherwise runs the main job on the command
# line (environment doctor, dataset report, and a short 3-epoch training run).
# Usage: installer/quickstart.sh        (YWB_NO_GUI=1 forces the command-line path)
set -euo pipefail
cd "$(dirname "$0")/.."

installer/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target ywb yolo-workbench

ywb=build/release/engine/cli/ywb
data=datasets/shapes/data.yaml
if [ ! -f "$data" ]; then
  echo "== Generating the embedded shapes dataset (datasets/shapes)"
  "$ywb" dataset synth out=datasets/shapes train=256 val=64 imgsz=320 seed=0
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${YWB_NO_GUI:-0}" != 1 ]; then
  echo "== Starting the GUI"
  exec build/release/gui/yolo-workbench "$data"
fi

echo "== Environment doctor"
"$ywb" doctor
if "$ywb" --help | grep -q "dataset check"; then
  echo "== Dataset report"
  "$ywb" dataset check data="$data"
fi
if "$ywb" --help | grep -q "^  train "; then
  echo "== Training a small detector on the shapes dataset (CPU: a few minutes)"
  "$ywb" train data="$data" model=yolov8n.yaml epochs=3 imgsz=320 batch=16 name=quickstart
fi
