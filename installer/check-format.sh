#!/usr/bin/env bash
# Fails when a tracked C/C++ source differs from what clang-format (the repo's .clang-format) makes of it.
# Usage: installer/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.c' '*.hpp' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
clang-format --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files formatted correctly"
