#!/usr/bin/env bash
# Installs what is missing, builds everything with the CI preset (warnings are errors) and runs the tests.
# Usage: installer/test.sh                 all tests except the long learning proof (label "train")
#        installer/test.sh -L train        the learning proof: YOLOv8n reaches mAP50 >= 0.5 on shapes
#        installer/test.sh [ctest args]    anything else ctest accepts, e.g. -L unit, -R test_trainer
set -euo pipefail
cd "$(dirname "$0")/.."

installer/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
if [ "$#" -eq 0 ]; then set -- -LE train; fi
ctest --preset ci "$@"
