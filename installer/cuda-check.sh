#!/usr/bin/env bash
# Compiles every engine source with CUDA-only code with the engine's CUDA switch on (preset cuda-check), against
# the CUDA 11.8 headers that installer/cuda-headers.sh fetches once (Debian non-free, nvidia-cuda-dev). No
# linking: Debian's LibTorch is CPU-only. NCCL's process group is not part of the check (no nccl.h in Debian 12).
# Then the same sources against Debian trixie's LibTorch 2.6 headers (installer/torch2-headers.sh), skipped
# where they cannot be fetched.
# Usage: installer/cuda-check.sh     ($YW_CUDA_HEADERS: where the headers live; default .cache/cuda-headers)
# Skips with a message (exit 0) where the headers cannot be had (no apt, no network), unless YW_CUDA_CHECK_REQUIRED=1.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
headers="${YW_CUDA_HEADERS:-$PWD/.cache/cuda-headers}"
if ! installer/cuda-headers.sh "$headers" >/tmp/ywb-cuda-headers.$$.log 2>&1; then
  cat /tmp/ywb-cuda-headers.$$.log >&2
  rm -f /tmp/ywb-cuda-headers.$$.log
  if [ "${YW_CUDA_CHECK_REQUIRED:-0}" = 1 ]; then exit 1; fi
  echo "cuda-check: skipped (no CUDA headers: see above)"
  exit 0
fi
grep -v "^/" /tmp/ywb-cuda-headers.$$.log || true
rm -f /tmp/ywb-cuda-headers.$$.log
fetched=$(date +%s)
cmake --preset cuda-check -DYW_CUDA_HEADERS="$headers" >/dev/null
cmake --build --preset cuda-check
echo "cuda-check: CUDA code compiles (headers $((fetched - start)) s, compile $(($(date +%s) - fetched)) s)"
# The same sources against a LibTorch 2.x's headers (a GPU machine's LibTorch is 2.x; this build's is Debian's
# 1.13): Debian trixie's 2.6 (installer/torch2-headers.sh), where they can be fetched.
t2=$(date +%s)
if inc="$(installer/torch2-headers.sh 2>/tmp/ywb-torch2-headers.$$.log | tail -n 1)" && [ -d "$inc" ]; then
  installer/torch2-check.sh --include "$inc" --build build/cuda-check --target ywb_cuda_check
  echo "cuda-check: CUDA code compiles against LibTorch 2.x headers too ($(($(date +%s) - t2)) s)"
else
  cat /tmp/ywb-torch2-headers.$$.log >&2
  [ "${YW_CUDA_CHECK_REQUIRED:-0}" != 1 ] || { rm -f /tmp/ywb-torch2-headers.$$.log; exit 1; }
  echo "cuda-check: LibTorch 2.x check skipped (no headers: see above)"
fi
rm -f /tmp/ywb-torch2-headers.$$.log
