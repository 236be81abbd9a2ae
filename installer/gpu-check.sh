#!/usr/bin/env bash
# The first thing to run on a GPU machine: builds the engine, the CLI, the GUI and the GPU tests against the
# CUDA LibTorch inside the machine's PyTorch, runs the tests labelled `cuda` (the GUI's among them: a run
# started from the Training tab, screenshots, the System dock's GPU series checked against NVML), `ywb
# doctor`, the end-to-end `ywb train` (yolov8n 640, batch 64, AMP, close_mosaic=0, validation every epoch, on
# the synthetic set: one cold epoch, then 10 epochs with the label cache present, then the same 10 with the
# checkpoints written synchronously, each with its time split),
# `bench loader` at the same settings, and the benchmark matrix (bench epoch first: cuDNN heuristics against
# its autotuner, graph_step, yolo26n with MuSGD; then bench model|train|epoch x yolov8n, yolo11n x imgsz 640 x
# AMP on/off x CUDA graphs on/off x batch 16/64/AutoBatch), and writes one report (gpu-check.md +
# gpu-check.json, and the GUI's screenshots) with every figure.
#
# Such machines often have no internet and no OpenCV/Qt/yaml-cpp packages, so the Debian 12 packages the
# engine, the test runner and the GUI need travel as .deb files (installer/gpu-check-deps.sh lists them):
# `--prepare DIR` downloads them beforehand on any Debian 12 machine with apt; the check unpacks them with
# dpkg-deb into a private prefix (nothing is installed) and runs the GUI from it under the offscreen platform.
#
# Usage:
#   installer/gpu-check.sh --prepare [DIR]   download the .debs into DIR (default .cache/gpu-debs)
#   installer/gpu-check.sh [options]         build, test, benchmark, report
# Options:
#   --debs DIR        the .debs from --prepare (default .cache/gpu-debs)
#   --out DIR         where the report goes (default $OUT if set, else build/gpu-check/report)
#   --torch DIR       LibTorch's CMake prefix (default: python3 -c 'import torch; print(torch.utils.cmake_prefix_path)';
#                     "system" = the LibTorch CMake finds by itself, e.g. Debian's)
#   --build-only      unpack, configure and build, then stop (what can be checked on a machine without a GPU)
#   --no-gui          neither build nor test the GUI (yolo-workbench, test_gui_gpu)
#   --targets "T..."  build only these targets (default: ywb test_cuda test_cuda_parts test_cuda_train, and
#                     yolo-workbench test_gui_gpu unless --no-gui)
#   --quick           benchmark matrix cut to batch 16 and a few steps, 2 training epochs (a smoke run)
#   --jobs N          build parallelism (default: all cores)
#   --keep-going      build every translation unit that compiles and report all failures (a first build
#                     against a new LibTorch)
#   --budget S        start no benchmark run after S seconds (they are listed as not run); the end-to-end
#                     `ywb train` runs first, then the matrix's target configuration (yolov8n/yolo11n 640,
#                     batch 64, AMP)
#   --train-epochs N  the end-to-end run's epochs (default 10; 0 skips it)
#   --from N|auto     skip the first N benchmark runs, done by an earlier call on the same build (auto: all
#                     it started), and keep their results; --no-tests keeps the earlier tests' log too
#   --run-timeout S   one benchmark run's limit (default 300 s)
#   --build-dir DIR   use an existing build (e.g. build/ci) instead of unpacking and building; with
#   --device D --imgsz N   (default 0 and 640) this smoke-tests the test/benchmark/report stages on a CPU
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
# shellcheck source=installer/gpu-check-deps.sh
. "$root/installer/gpu-check-deps.sh"

mode=check debs="$root/.cache/gpu-debs" out="${OUT:-}" torch="" build_only=0 quick=0 jobs="$(nproc)" gui=1
targets="" prebuilt="" keep_going=0 budget=0 from=0 no_tests=0 run_timeout=300 device=0 imgsz=640 train_epochs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prepare) mode=prepare; if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then debs="$2"; shift; fi ;;
    --debs) debs="$2"; shift ;;
    --out) out="$2"; shift ;;
    --torch) torch="$2"; shift ;;
    --build-only) build_only=1 ;;
    --no-gui) gui=0 ;;
    --targets) targets="$2"; shift ;;
    --quick) quick=1 ;;
    --jobs) jobs="$2"; shift ;;
    --keep-going) keep_going=1 ;;
    --budget) budget="$2"; shift ;;
    --train-epochs) train_epochs="$2"; shift ;;
    --from) from="$2"; shift ;;
    --no-tests) no_tests=1 ;;
    --run-timeout) run_timeout="$2"; shift ;;
    --build-dir) prebuilt="$2"; shift ;;
    --device) device="$2"; shift ;;
    --imgsz) imgsz="$2"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
case "$debs" in /*) ;; *) debs="$root/$debs" ;; esac
if [ -z "$targets" ]; then
  targets="ywb test_cuda test_cuda_parts test_cuda_train"
  [ "$gui" = 0 ] || targets+=" yolo-workbench test_gui_gpu"
fi
if [ -z "$train_epochs" ]; then train_epochs=10; [ "$quick" = 0 ] || train_epochs=2; fi

if [ "$mode" = prepare ]; then
  prepare "$debs"
  exit 0
fi

t0=$(date +%s)
build="$root/build/gpu-check"
prefix="$root/build/gpu-deps"
torch_info="{}"
# $out gets the report, the main logs and the GUI's screenshots (at most 7 files: a device machine returns
# few); the rest goes to $logs.
logs="$root/build/gpu-check-logs"
mkdir -p "$logs"
if [ -n "$prebuilt" ]; then
  build="$(cd "$prebuilt" && pwd)"
  out="${out:-$logs/report}"
  mkdir -p "$out"
  grep -E '^(Torch_DIR|yaml-cpp_DIR|Qt6_DIR)[:=]' "$build/CMakeCache.txt" | sed 's/:[A-Z]*=/ = /' >"$logs/dependencies.txt" || true
  log "using the existing build $build"
  [ -f "$logs/torch.json" ] && torch_info="$(cat "$logs/torch.json")"
  # The unpacked .debs' libraries (an earlier call's prefix): OpenCV's own dependencies are not in ywb's RPATH.
  [ -d "$prefix/usr/lib/x86_64-linux-gnu" ] &&
    export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # The GUI from an earlier call's prefix runs with the prefix's plugins and fonts (a build against the
  # machine's own Qt needs neither).
  case "$(grep '^Qt6_DIR' "$build/CMakeCache.txt" 2>/dev/null)" in *"$prefix"*) gui_env "$prefix" "$logs" ;; esac
else
out="${out:-$build/report}"
mkdir -p "$out"
unpack "$debs" "$prefix"
lib="$prefix/usr/lib/x86_64-linux-gnu"
export PATH="$prefix/usr/bin:$PATH"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$prefix/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$prefix"
check_libs "$prefix"

# LibTorch: the one inside the machine's PyTorch unless told otherwise.
if [ -z "$torch" ]; then
  torch="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)" ||
    die "no PyTorch for python3 here: install a CUDA PyTorch, or pass --torch /path/to/libtorch"
  torch_info="$(python3 -c 'import json, torch; print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda,
    "cudnn": torch.backends.cudnn.version(), "cuda_available": torch.cuda.is_available(),
    "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI)}))')"
  log "PyTorch: $torch_info"
  echo "$torch_info" >"$logs/torch.json"
  case "$torch_info" in *'"cxx11_abi": false'*)
    log "warning: this PyTorch uses the old C++ ABI; Debian's libraries use the new one: linking yaml-cpp or OpenCV may fail" ;;
  esac
  # NCCL's header comes with the nvidia-nccl wheel next to PyTorch; the engine's dist area looks for it.
  nccl_inc="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))' 2>/dev/null || true)"
  [ -n "$nccl_inc" ] && [ -f "$nccl_inc/nccl.h" ] && export NCCL_INCLUDE_DIR="$nccl_inc"
fi
prefix_path="$prefix/usr;$lib/cmake"
[ "$torch" = system ] || prefix_path="$torch;$prefix_path"

# build.log: the configure output, then the build's.
t_conf=$(date +%s)
gui_switch=ON; [ "$gui" = 1 ] || gui_switch=OFF
cmake --preset engine-only -B "$build" -DYW_BUILD_TESTS=ON -DYW_BUILD_GUI="$gui_switch" \
  -DYW_WERROR=OFF -DCMAKE_PREFIX_PATH="$prefix_path" -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_C_COMPILER_LAUNCHER= \
  -DQT_HOST_PATH="$prefix/usr" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; die "configure failed (log: $out/build.log)"; }
# Which copy of each dependency CMake took (the prefix's, unless the machine has its own).
grep -E '^(Torch_DIR|yaml-cpp_DIR|nlohmann_json_DIR|Qt6_DIR|Qt6Widgets_DIR|Qt6LinguistTools_DIR|QCustomPlotQt6_DIR|OPENGL_opengl_LIBRARY|OPENGL_INCLUDE_DIR|YW_OPENCV_INCLUDE|YW_OPENCV_core|PNG_LIBRARY_RELEASE|ZLIB_LIBRARY_RELEASE|PKG_CONFIG_EXECUTABLE|YW_NCCL_INCLUDE_DIR|YW_GLOO_INCLUDE_DIR)[:=]' \
  "$build/CMakeCache.txt" | sed 's/:[A-Z]*=/ = /' >"$logs/dependencies.txt" || true
grep -E "CUDA switch|process-group backends|LibTorch" "$out/build.log" >>"$logs/dependencies.txt" || true
t_build=$(date +%s)
keep=(); [ "$keep_going" = 1 ] && keep=(-- -k 0)
# shellcheck disable=SC2086
cmake --build "$build" -j"$jobs" --target $targets "${keep[@]}" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; die "build failed (log: $out/build.log)"; }
t_built=$(date +%s)
log "configured in $((t_build - t_conf)) s, built ($targets) in $((t_built - t_build)) s with -j$jobs"
# Which library ywb's C++ runtime functions come from: pip's LibTorch exports copies of std::filesystem
# functions, and one of them crashed (engine/CMakeLists.txt). Its needed libraries' order and every
# std:: symbol the dynamic linker binds to a LibTorch library go into the dependencies list of the report.
if [ -x "$build/engine/cli/ywb" ]; then
  { echo "ywb needs first: $(readelf -d "$build/engine/cli/ywb" 2>/dev/null | awk '/NEEDED/ {gsub(/[][]/, "", $5); print $5}' | head -3 | tr '\n' ' ')"
    echo "C++ runtime symbols ywb binds to LibTorch: $(LD_DEBUG=bindings LD_BIND_NOW=1 "$build/engine/cli/ywb" --help 2>&1 >/dev/null |
      grep -E "binding file [^ ]*/ywb .* to [^ ]*libtorch[^ ]* .*symbol \`_ZNSt" | sed 's/.*symbol `\([^'"'"']*\).*/\1/' | sort -u | tr '\n' ' ')"
  } >>"$logs/dependencies.txt"
fi
# Where the GUI's Qt and QCustomPlot come from at run time (the prefix's: the binary's RUNPATH names it).
if [ "$gui" = 1 ] && [ -x "$build/gui/yolo-workbench" ]; then
  echo "yolo-workbench loads: $(env -u LD_LIBRARY_PATH ldd "$build/gui/yolo-workbench" |
    awk '/libQt6(Core|Gui|Widgets)\.|libQCustomPlot/ {print $1 " from " $3}' | tr '\n' ' ')" >>"$logs/dependencies.txt"
fi
cat "$logs/dependencies.txt" >&2
gui_env "$prefix" "$logs"
if [ "$build_only" = 1 ]; then
  log "build only: done in $(($(date +%s) - t0)) s"
  exit 0
fi
fi  # prebuilt

ywb="$build/engine/cli/ywb"
report_py="$root/installer/gpu-check-report.py"
runs="$logs/runs.jsonl"
# A later call with --from N continues the matrix of an earlier one (same machine, same build): its runs
# are kept; so are its test log and doctor output when --no-tests skips them now.
if [ "$from" != 0 ] && [ -f "$runs" ]; then
  from="$(python3 "$report_py" keep "$runs" "$from")"
  log "continuing after run #$from"
else
  [ "$from" != auto ] || from=0
  : >"$runs"
fi
n_run=0
# One benchmark run (the n-th of the matrix): its command line and JSON result, or the error it printed.
# Runs before --from are skipped (done earlier); runs after the --budget are recorded as not run.
run() {
  local kind="$1"; shift
  # run_env (set for one call: `run_env="A=1" run ...`): environment settings for this run, shown before its
  # command wherever the command is shown.
  local envs="${run_env:+$run_env }"
  n_run=$((n_run + 1))
  [ "$n_run" -gt "$from" ] || return 0
  if [ "$budget" -gt 0 ] && [ $(($(date +%s) - t0)) -ge "$budget" ]; then
    echo "{\"kind\": \"$kind\", \"n\": $n_run, \"command\": \"${envs}ywb $*\", \"rc\": -1, \"error\": \"not run: time budget of $budget s spent (continue with --from $((n_run - 1)))\"}" >>"$runs"
    return 0
  fi
  local e rc=0 t nvsmi="" pid=""
  t=$(date +%s)
  # The end-to-end run's device memory as the driver counts it, sampled every 0.5 s.
  if [ "$kind" = "ywb train" ] && [ "$device" != cpu ] && command -v nvidia-smi >/dev/null; then
    nvsmi="$logs/train-nvsmi.csv"
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -i "$device" -lms 500 >"$nvsmi" 2>/dev/null &
    pid=$!
  fi
  # shellcheck disable=SC2086
  timeout "$run_timeout" env ${run_env:-} "$ywb" "$@" --json >"$logs/last.out" 2>"$logs/last.err" || rc=$?
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  [ "$kind" != "ywb train" ] || cp "$logs/last.out" "$logs/train.jsonl"
  # A crash (rc >= 128: a signal) keeps the crash report's backtrace: more of the message, and the whole
  # stderr of the first crash goes into the report folder.
  local tail_bytes=600; [ "$rc" -ge 128 ] && [ "$rc" != 124 ] && tail_bytes=4000
  e="$(tail -c "$tail_bytes" "$logs/last.err" | tr '\n\t"\\' '    ')"
  [ "$rc" = 124 ] && e="timed out after $run_timeout s: $e"
  # (ywb's own frames are named by installer/crash_symbols.py where binutils' nm is present.)
  if [ "$rc" -ge 128 ] && [ ! -f "$out/crash.log" ]; then
    { echo "${envs}ywb $*"; python3 "$root/installer/crash_symbols.py" "$ywb" <"$logs/last.err" 2>/dev/null || cat "$logs/last.err"; } >"$out/crash.log"
  fi
  python3 "$report_py" record "$kind" "$n_run" "$rc" "$(($(date +%s) - t))" "$envs$*" "$logs/last.out" "$e" "$nvsmi" >>"$runs"
  log "#$n_run $kind $envs$* -> rc $rc ($(($(date +%s) - t)) s)"
}

# 1. Tests labelled cuda that this build has (the GUI's saves its screenshots into the report folder), the
# CPU parts of the GPU path, 2. doctor.
tests_rc=0
if [ "$no_tests" = 0 ]; then
  cuda_tests="$(for t in $targets; do
    case "$t" in test_*) [ -n "$(find "$build/tests" -name "$t" -type f -perm -u+x 2>/dev/null)" ] && echo "$t" ;; esac
  done | paste -sd'|')"
  rm -f "$out"/gui_gpu_*.png
  (cd "$build" && YWB_SCREENSHOT_DIR="$out" ctest --timeout "${YW_GPU_TESTS_TIMEOUT:-600}" -L cuda -R "^(${cuda_tests})\$" \
    --no-tests=error --output-on-failure -V >"$logs/tests.log" 2>&1) || tests_rc=$?
  case "|$cuda_tests|" in *"|test_cuda_parts|"*)
    (cd "$build" && ctest -R '^test_cuda_parts$' --output-on-failure >>"$logs/tests.log" 2>&1) || tests_rc=1 ;;
  esac
  echo "$tests_rc" >"$logs/tests.rc"
  "$ywb" doctor --json >"$logs/doctor.json" 2>"$logs/doctor.err" || true
  log "tests rc $tests_rc ($(($(date +%s) - t0)) s)"
else
  tests_rc="$(cat "$logs/tests.rc" 2>/dev/null || echo -1)"
fi
[ -f "$logs/tests.log" ] && cp "$logs/tests.log" "$out/tests.log"

# 3. The end-to-end run, then the benchmarks, most important first (the issue's targets: yolov8n 640,
# batch 64, AMP), so that a call cut short by --budget still has them.
models=(yolov8n.yaml)
if "$ywb" model info model=yolo11n.yaml imgsz=640 >/dev/null 2>&1; then
  models+=(yolo11n.yaml)
else
  echo '{"kind": "note", "note": "yolo11n.yaml is not built into this engine: its runs were skipped"}' >>"$runs"
fi
big=64 small=16 steps=30 warm=5 iters=20
[ "$quick" = 1 ] && { big=16; steps=2 warm=1 iters=2; }
data="$logs/synth$imgsz"
if [ ! -f "$data/data.yaml" ]; then
  n_train=$([ "$quick" = 1 ] && echo 64 || echo 2048)
  "$ywb" dataset synth out="$data" train="$n_train" val="$([ "$quick" = 1 ] && echo 16 || echo 128)" imgsz="$imgsz" \
    seed=0 workers="$(nproc)" >/dev/null
  log "synthetic dataset written ($(($(date +%s) - t0)) s)"
fi
workers=$(( $(nproc) > 16 ? 16 : $(nproc) ))
if [ "$train_epochs" -gt 0 ]; then  # the table's setup: 640, batch 64, AMP, close_mosaic=0, validation every epoch
  # One cold epoch first (no label cache yet, the CUDA libraries not yet read from disk: a machine's first run),
  # then the issue's run, with the cache present.
  for e in 1 "$train_epochs"; do
    run "ywb train" train data="$data/data.yaml" model=yolov8n.yaml imgsz="$imgsz" batch="$big" epochs="$e" \
      device="$device" amp=true close_mosaic=0 val=true workers="$workers" project="$logs/train-runs" name="e2e-$e" \
      exist_ok=true
  done
  # The same run with its checkpoints written synchronously, as before they went to the background (the
  # fourth GPU run: 8.1 s of its 27.8 s were checkpoints): the before/after pair from one machine and call.
  run_env="YWB_BACKGROUND_SAVES=0" run "ywb train" train data="$data/data.yaml" model=yolov8n.yaml imgsz="$imgsz" \
    batch="$big" epochs="$train_epochs" device="$device" amp=true close_mosaic=0 val=true workers="$workers" \
    project="$logs/train-runs" name="e2e-sync-saves" exist_ok=true
fi
# The loader alone at the run's settings (its rate against the GPU step's: the end-to-end steady rate stayed
# below both in the third GPU run), with and without the RAM cache.
for c in false ram; do
  run "bench loader" bench loader data="$data/data.yaml" imgsz="$imgsz" batch="$big" workers="$workers" \
    epochs="$([ "$quick" = 1 ] && echo 1 || echo 2)" cache="$c"
done
model_run() {  # model batch amp graphs [more bench model arguments]
  run "bench model" bench model model="$1" imgsz="$imgsz" batch="$2" device="$device" amp="$3" cuda_graphs="$4" \
    channels_last=true warmup="$warm" iters="$iters" "${@:5}"
}
train_run() {  # model batch amp graphs
  run "bench train" bench train data="$data/data.yaml" model="$1" imgsz="$imgsz" batch="$2" device="$device" \
    amp="$3" cuda_graphs="$4" workers="$workers" steps="$steps" warmup="$warm"
}
epoch_run() {  # model batch graphs [more training arguments]
  run "bench epoch" bench epoch data="$data/data.yaml" model="$1" imgsz="$imgsz" batch="$2" device="$device" \
    amp=true cuda_graphs="$3" workers="$workers" epochs=1 "${@:4}"
}
# Whole epochs first (the issue's figures: time to the first step, the epoch with validation), yolov8n 640,
# batch 64, AMP: the default (cuDNN's heuristics), MuSGD's model step against SGD's, cuDNN's autotuner instead, the whole step (forward, fixed-shape
# loss, backward, optimizer, EMA) as one CUDA graph (graph_step=true with cuda_graphs=true; batch 64 = nbs, so
# accumulate 1) and the same graph-ready step run eagerly, the forward/backward graphs; then YOLO26 (its
# default optimizer and MuSGD, issue 32) and yolo11n.
epoch_run yolov8n.yaml "$big" false
# MuSGD's whole step against SGD's (issue 32: at most 1.2x on CUDA at 640, batch 64): short runs, early.
for o in SGD MuSGD; do model_run yolo26n.yaml "$big" true false optimizer="$o"; done
epoch_run yolov8n.yaml "$big" false cudnn_benchmark=true
epoch_run yolov8n.yaml "$big" true graph_step=true
epoch_run yolov8n.yaml "$big" false graph_step=true
epoch_run yolov8n.yaml "$big" true
epoch_run yolo26n.yaml "$big" false
epoch_run yolo26n.yaml "$big" false optimizer=MuSGD
for m in "${models[@]}"; do  # the targets' configuration, graphs off and on: the model step, the loader step
  for g in false true; do
    model_run "$m" "$big" true "$g"; train_run "$m" "$big" true "$g"
    [ "$m" = yolov8n.yaml ] || epoch_run "$m" "$big" "$g"
  done
done
for m in "${models[@]}"; do  # the rest of the matrix: batch 16, fp32, AutoBatch
  for amp in true false; do
    for g in false true; do
      [ "$amp" = true ] || { model_run "$m" "$big" "$amp" "$g"; train_run "$m" "$big" "$amp" "$g"; }
      [ "$quick" = 1 ] && continue
      model_run "$m" "$small" "$amp" "$g"; train_run "$m" "$small" "$amp" "$g"
      train_run "$m" -1 "$amp" "$g"
    done
  done
done

# 4. The report: JSON with everything, Markdown with the tables and the GUI's screenshots.
nvsmi="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)"
python3 "$report_py" report "$out" "$runs" "$tests_rc" "$torch_info" "$nvsmi" "$(nproc)" "$(($(date +%s) - t0))" "$logs"
log "report: $out/gpu-check.md and $out/gpu-check.json ($(($(date +%s) - t0)) s)"
exit "$tests_rc"
