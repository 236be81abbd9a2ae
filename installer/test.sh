#!/usr/bin/env bash
# Installs what is missing, builds everything with the CI preset (warnings are errors) and runs all tests.
# Usage: installer/test.sh [ctest arguments, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."

installer/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci "$@"
