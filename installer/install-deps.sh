#!/usr/bin/env bash
# Installs every Debian package YOLO Workbench needs to build, test and run.
# Idempotent and non-interactive: packages already present are skipped by apt.
# Usage: installer/install-deps.sh [--no-gui]   (--no-gui: engine + CLI only)
set -euo pipefail

gui=1
for a in "$@"; do
  case "$a" in
    --no-gui) gui=0 ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$a'" >&2; exit 2 ;;
  esac
done

pkgs=(
  build-essential cmake ninja-build ccache pkg-config git dpkg-dev file
  python3
  clang-format
  libtorch-dev libopenblas0-pthread
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev libopencv-dnn-dev libopencv-videoio-dev
  libopencv-video-dev libopencv-calib3d-dev
  # libjpeg62-turbo-dev: jconfig.h (ywb doctor's libjpeg-turbo version); Debian 13 no longer pulls it in
  libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libyaml-cpp-dev nlohmann-json3-dev libcurl4-openssl-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libgloo-dev
)
if [ "$gui" = 1 ]; then
  pkgs+=(qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libgl-dev
         libqcustomplot-dev libqcustomplot2.1-qt6 libjemalloc-dev xvfb xauth fonts-dejavu-core fonts-noto-cjk)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
