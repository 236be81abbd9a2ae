#!/bin/sh
# Host RSS of long runs (issue 17), the figures of docs/RELIABILITY.md "Long runs do not leak":
#   1. a tiny CPU run of EPOCHS epochs (default 300) in one process, RSS at the end of every epoch;
#   2. RUNS (default 5) runs started and stopped in one GUI process (offscreen, the real MainWindow);
#   3. SVG plots of both curves (tests/reliability/plot_rss.py, no plotting library needed).
# The same tests run in CI with 30 epochs and 5 runs (test_memory, test_gui_memory).
# Usage: tests/reliability/rss_long_run.sh [BUILD_DIR] [OUT_DIR]     (from the repository root)
set -eu
BUILD=${1:-build/ci}
OUT=${2:-/tmp/ywb-rss}
EPOCHS=${EPOCHS:-300}
RUNS=${RUNS:-5}
mkdir -p "$OUT"
export QT_QPA_PLATFORM=offscreen
date -u +"%Y-%m-%d %H:%M UTC" | tee "$OUT/date.txt"
YWB_RSS_EPOCHS=$EPOCHS YWB_RSS_CSV="$OUT/rss_epochs.csv" \
  "$BUILD/tests/engine/test_memory" rssStaysFlatOverEpochs 2>&1 | tee "$OUT/rss_epochs.log"
YWB_GUI_RSS_RUNS=$RUNS YWB_RSS_CSV="$OUT/rss_gui_runs.csv" \
  "$BUILD/tests/gui/test_gui_memory" 2>&1 | tee "$OUT/rss_gui_runs.log"
HERE=$(dirname "$0")
python3 "$HERE/plot_rss.py" "$OUT/rss_epochs.svg" "Host RSS at the end of each epoch ($EPOCHS-epoch tiny CPU run)" \
  "epoch" "$OUT/rss_epochs.csv"
python3 "$HERE/plot_rss.py" "$OUT/rss_gui_runs.svg" "Host RSS of the GUI after each run ($RUNS runs, one process)" \
  "run" "$OUT/rss_gui_runs.csv"
echo "curves and plots in $OUT"
