#!/usr/bin/env bash
# Installs ONNX Runtime for Node.js (npm package onnxruntime-node, pinned below; its CPU build for Linux x64 ships
# inside the package, about 290 MB unpacked) into a private folder. `ywb export` uses it to verify the
# end-to-end (YOLO26) ONNX graph, which OpenCV 4.6's DNN cannot load (no TopK); test_export_end2end needs it.
# The folder is the one the engine looks in (export/onnx_runtime_node.cpp, onnxRuntimeDir()):
# $YWB_ONNXRUNTIME_DIR, else $XDG_CACHE_HOME/ywb/onnxruntime-node, else ~/.cache/ywb/onnxruntime-node.
# Node.js and npm come from the machine (Debian's nodejs + npm are installed when absent). The package's
# postinstall step would download CUDA libraries from NuGet; ONNXRUNTIME_NODE_INSTALL=skip keeps it offline.
# Idempotent: when the pinned version is there it prints so and does nothing else. Exits non-zero, saying
# what failed, when npm cannot fetch the package (e.g. offline).
# Usage: installer/install-onnxruntime.sh [DIR]
set -euo pipefail

version=1.30.0
if [ -n "${1:-}" ]; then
  dest="$1"
elif [ -n "${YWB_ONNXRUNTIME_DIR:-}" ]; then
  dest="$YWB_ONNXRUNTIME_DIR"
elif [ -n "${XDG_CACHE_HOME:-}" ] && [ "${XDG_CACHE_HOME#/}" != "$XDG_CACHE_HOME" ]; then
  dest="$XDG_CACHE_HOME/ywb/onnxruntime-node"
else
  dest="${HOME:-.}/.cache/ywb/onnxruntime-node"
fi
pkg_json="$dest/node_modules/onnxruntime-node/package.json"

installed_version() {
  [ -f "$pkg_json" ] && node -p "require('$pkg_json').version" 2>/dev/null || true
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "install-onnxruntime: installing Debian's nodejs and npm"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

if [ "$(installed_version)" = "$version" ]; then
  echo "install-onnxruntime: onnxruntime-node $version present in $dest (Node.js $(node --version))"
  exit 0
fi

start=$(date +%s)
mkdir -p "$dest"
# A package.json of its own, so npm installs here and not into an enclosing project.
[ -f "$dest/package.json" ] || echo '{"name": "ywb-onnxruntime", "private": true}' >"$dest/package.json"
echo "install-onnxruntime: npm install onnxruntime-node@$version into $dest (Node.js $(node --version), npm $(npm --version))"
if ! ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$dest" --no-audit --no-fund --loglevel=error \
  "onnxruntime-node@$version"; then
  echo "install-onnxruntime: npm could not install onnxruntime-node@$version (is the npm registry reachable?);" \
    "the end-to-end ONNX export cannot be verified without it" >&2
  exit 1
fi
# Check that it loads here (the native binding needs a matching glibc and a Node.js with N-API 6).
if ! (cd "$dest" && node -e "require('onnxruntime-node')" 2>&1); then
  echo "install-onnxruntime: onnxruntime-node@$version installed but does not load with Node.js $(node --version)" >&2
  exit 1
fi
echo "install-onnxruntime: onnxruntime-node $(installed_version) installed in $(( $(date +%s) - start )) s"
