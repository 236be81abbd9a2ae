#!/usr/bin/env bash
# The first thing to run on a GPU machine: builds the engine, the CLI and the GPU tests against the CUDA
# LibTorch inside the machine's PyTorch, runs the tests labelled `cuda`, `ywb doctor` and the benchmark
# matrix (bench model|train|epoch x yolov8n, yolo11n x imgsz 640 x AMP on/off x CUDA graphs on/off x
# batch 16/64/AutoBatch), and writes one report (gpu-check.md + gpu-check.json) with every figure.
#
# Such machines often have no internet and no OpenCV/Qt/yaml-cpp packages, so the Debian 12 packages the
# engine needs (OpenCV core/imgproc, libjpeg-turbo, libpng, yaml-cpp, nlohmann-json, Qt 6 Core/Test for the
# test runner, pkg-config) travel as .deb files: `--prepare DIR` downloads them beforehand on any Debian 12
# machine with apt; the check unpacks them with dpkg-deb into a private prefix (nothing is installed).
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
#   --targets "T..."  build only these targets (default: ywb test_cuda test_cuda_parts test_cuda_train)
#   --quick           benchmark matrix cut to batch 16 and a few steps (a smoke run of the script)
#   --jobs N          build parallelism (default: all cores)
#   --keep-going      build every translation unit that compiles and report all failures (a first build
#                     against a new LibTorch)
#   --budget S        start no benchmark run after S seconds (they are listed as not run); the matrix runs
#                     the issue's target configuration first (yolov8n/yolo11n 640, batch 64, AMP)
#   --from N|auto     skip the first N benchmark runs, done by an earlier call on the same build (auto: all
#                     it started), and keep their results; --no-tests keeps the earlier tests' log too
#   --run-timeout S   one benchmark run's limit (default 300 s)
#   --build-dir DIR   use an existing build (e.g. build/ci) instead of unpacking and building; with
#   --device D --imgsz N   (default 0 and 640) this smoke-tests the test/benchmark/report stages on a CPU
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

# The engine's Debian dependencies for building and running, and the test runner's (Qt 6 Core/Test).
# Headers and CMake/pkg-config files:
dev_pkgs=(libopencv-core-dev libopencv-imgproc-dev libturbojpeg0-dev libpng-dev zlib1g-dev libyaml-cpp-dev
  nlohmann-json3-dev qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin)
# Shared libraries they link, with the dependencies a machine that is no Debian 12 may lack (the C and C++
# runtimes, zlib, zstd, libffi, libpcre2-8, libmount, libselinux and the like are taken from the machine;
# check_libs below names any that is missing):
run_pkgs=(libopencv-core406 libopencv-imgproc406 libtbb12 libtbbmalloc2 libblas3 liblapack3 libgfortran5
  libquadmath0 libgomp1 libturbojpeg0 libpng16-16 zlib1g libyaml-cpp0.7 libqt6core6 libqt6test6 libicu72
  libdouble-conversion3 libpcre2-16-0 libb2-1 libglib2.0-0
  libglx0 libglvnd0 libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0)  # Debian's OpenCV core links libGLX
tool_pkgs=(pkgconf pkgconf-bin libpkgconf3)

log() { echo "gpu-check: $*" >&2; }
die() { log "$*"; exit 1; }

prepare() {
  local dir="$1"
  command -v apt-get >/dev/null || die "--prepare needs apt-get (a Debian 12 machine)"
  mkdir -p "$dir"
  local start; start=$(date +%s)
  (cd "$dir" && apt-get -o "APT::Sandbox::User=$(id -un)" download "${dev_pkgs[@]}" "${run_pkgs[@]}" "${tool_pkgs[@]}" >/dev/null)
  (cd "$dir" && ls ./*.deb | sed 's|^\./||' >MANIFEST && sha256sum ./*.deb >SHA256SUMS)
  log "$(wc -l <"$dir/MANIFEST") packages, $(du -sh "$dir" | cut -f1) in $dir ($(($(date +%s) - start)) s)"
}

# Unpacks every .deb into $prefix once (a stamp holds the manifest's checksum) and makes what dpkg's
# maintainer scripts would: the BLAS/LAPACK alternatives' links.
unpack() {
  local debs="$1" prefix="$2"
  [ -f "$debs/MANIFEST" ] || die "no $debs/MANIFEST: run 'installer/gpu-check.sh --prepare $debs' on a Debian 12 machine first"
  (cd "$debs" && sha256sum --quiet -c SHA256SUMS) || die "$debs: a .deb does not match SHA256SUMS"
  local sum; sum="$(sha256sum "$debs/SHA256SUMS" | cut -d' ' -f1)"
  if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$sum" ]; then
    log "dependencies already unpacked in $prefix"
    return
  fi
  local start; start=$(date +%s)
  rm -rf "$prefix"
  mkdir -p "$prefix"
  # dpkg-deb where the machine has it; otherwise the .deb is an ar archive holding data.tar.{xz,zst,gz}.
  while read -r deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$debs/$deb" "$prefix"
    else
      local member; member="$(ar t "$debs/$deb" | grep '^data\.tar')" || die "$deb: no data.tar member"
      local unz="xz -d"; case "$member" in *.zst) unz="zstd -d" ;; *.gz) unz="gzip -d" ;; esac
      ar p "$debs/$deb" "$member" | $unz | tar -x -C "$prefix"
    fi
  done <"$debs/MANIFEST"
  local lib="$prefix/usr/lib/x86_64-linux-gnu"
  for alt in blas lapack; do
    for so in "$lib/$alt"/lib*.so.3; do [ -e "$so" ] && ln -sf "$alt/$(basename "$so")" "$lib/$(basename "$so")"; done
  done
  [ -e "$prefix/usr/bin/pkg-config" ] || ln -sf pkgconf "$prefix/usr/bin/pkg-config"
  echo "$sum" >"$prefix/.stamp"
  log "unpacked $(wc -l <"$debs/MANIFEST") packages into $prefix ($(($(date +%s) - start)) s)"
}

# Every shared library of the prefix must resolve (from the prefix or the machine).
check_libs() {
  local prefix="$1" missing
  missing="$(find "$prefix/usr/lib" -name '*.so*' -type f -print0 | xargs -0 -n 50 ldd 2>/dev/null |
    awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')"
  [ -z "$missing" ] || die "libraries missing on this machine for the unpacked packages: $missing"
}

mode=check debs="$root/.cache/gpu-debs" out="${OUT:-}" torch="" build_only=0 quick=0 jobs="$(nproc)"
targets="ywb test_cuda test_cuda_parts test_cuda_train" prebuilt="" keep_going=0 budget=0 from=0 no_tests=0 run_timeout=300 device=0 imgsz=640
while [ $# -gt 0 ]; do
  case "$1" in
    --prepare) mode=prepare; if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then debs="$2"; shift; fi ;;
    --debs) debs="$2"; shift ;;
    --out) out="$2"; shift ;;
    --torch) torch="$2"; shift ;;
    --build-only) build_only=1 ;;
    --targets) targets="$2"; shift ;;
    --quick) quick=1 ;;
    --jobs) jobs="$2"; shift ;;
    --keep-going) keep_going=1 ;;
    --budget) budget="$2"; shift ;;
    --from) from="$2"; shift ;;
    --no-tests) no_tests=1 ;;
    --run-timeout) run_timeout="$2"; shift ;;
    --build-dir) prebuilt="$2"; shift ;;
    --device) device="$2"; shift ;;
    --imgsz) imgsz="$2"; shift ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
case "$debs" in /*) ;; *) debs="$root/$debs" ;; esac

if [ "$mode" = prepare ]; then
  prepare "$debs"
  exit 0
fi

t0=$(date +%s)
build="$root/build/gpu-check"
prefix="$root/build/gpu-deps"
torch_info="{}"
# $out gets the report and the main logs (at most 7 files: a device machine returns few); the rest goes to $logs.
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

t_conf=$(date +%s)
cmake --preset engine-only -B "$build" -DYW_BUILD_TESTS=ON -DYW_WERROR=OFF \
  -DCMAKE_PREFIX_PATH="$prefix_path" -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_C_COMPILER_LAUNCHER= \
  -DQT_HOST_PATH="$prefix/usr" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; die "configure failed (log: $out/configure.log)"; }
# Which copy of each dependency CMake took (the prefix's, unless the machine has its own).
grep -E '^(Torch_DIR|yaml-cpp_DIR|nlohmann_json_DIR|Qt6_DIR|YW_OPENCV_INCLUDE|YW_OPENCV_core|PNG_LIBRARY_RELEASE|ZLIB_LIBRARY_RELEASE|PKG_CONFIG_EXECUTABLE|YW_NCCL_INCLUDE_DIR|YW_GLOO_INCLUDE_DIR)[:=]' \
  "$build/CMakeCache.txt" | sed 's/:[A-Z]*=/ = /' >"$logs/dependencies.txt" || true
grep -E "CUDA switch|process-group backends|LibTorch" "$out/configure.log" >>"$logs/dependencies.txt" || true
t_build=$(date +%s)
keep=(); [ "$keep_going" = 1 ] && keep=(-- -k 0)
# shellcheck disable=SC2086
cmake --build "$build" -j"$jobs" --target $targets "${keep[@]}" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; die "build failed (log: $out/build.log)"; }
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
cat "$logs/dependencies.txt" >&2
if [ "$build_only" = 1 ]; then
  log "build only: done in $(($(date +%s) - t0)) s"
  exit 0
fi
fi  # prebuilt

ywb="$build/engine/cli/ywb"
runs="$logs/runs.jsonl"
# A later call with --from N continues the matrix of an earlier one (same machine, same build): its runs
# are kept; so are its test log and doctor output when --no-tests skips them now.
if [ "$from" != 0 ] && [ -f "$runs" ]; then
  # Keeps the earlier call's runs up to --from (auto: the last it started) and prints that number.
  from="$(python3 - "$runs" "$from" <<'PY'
import json, sys
path, keep = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(path) if l.strip()]
keep = max([0] + [r.get("n", 0) for r in recs if r.get("rc") != -1]) if keep == "auto" else int(keep)
open(path, "w").writelines(json.dumps(r) + "\n" for r in recs if r.get("n", 0) <= keep and r.get("kind") != "note")
print(keep)
PY
)"
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
  n_run=$((n_run + 1))
  [ "$n_run" -gt "$from" ] || return 0
  if [ "$budget" -gt 0 ] && [ $(($(date +%s) - t0)) -ge "$budget" ]; then
    echo "{\"kind\": \"$kind\", \"n\": $n_run, \"command\": \"ywb $*\", \"rc\": -1, \"error\": \"not run: time budget of $budget s spent (continue with --from $((n_run - 1)))\"}" >>"$runs"
    return 0
  fi
  local o e rc=0 t; t=$(date +%s)
  o="$(timeout "$run_timeout" "$ywb" "$@" --json 2>"$logs/last.err")" || rc=$?
  # A crash (rc >= 128: a signal) keeps the crash report's backtrace: more of the message, and the whole
  # stderr of the first crash goes into the report folder.
  local tail_bytes=600; [ "$rc" -ge 128 ] && [ "$rc" != 124 ] && tail_bytes=4000
  e="$(tail -c "$tail_bytes" "$logs/last.err" | tr '\n\t"\\' '    ')"
  [ "$rc" = 124 ] && e="timed out after $run_timeout s: $e"
  # (ywb's own frames are named by installer/crash_symbols.py where binutils' nm is present.)
  if [ "$rc" -ge 128 ] && [ ! -f "$out/crash.log" ]; then
    { echo "ywb $*"; python3 "$root/installer/crash_symbols.py" "$ywb" <"$logs/last.err" 2>/dev/null || cat "$logs/last.err"; } >"$out/crash.log"
  fi
  python3 - "$kind" "$rc" "$e" "$o" "$*" "$n_run" "$(($(date +%s) - t))" >>"$runs" <<'PY'
import json, sys
kind, rc, err, out, cmd, n, secs = sys.argv[1:8]
rec = {"kind": kind, "n": int(n), "command": "ywb " + cmd, "rc": int(rc), "seconds": int(secs)}
try:
    rec["result"] = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
except Exception:
    rec["output"] = out[-600:]
if int(rc) != 0:
    rec["error"] = err
print(json.dumps(rec))
PY
  log "#$n_run $kind $* -> rc $rc ($(($(date +%s) - t)) s)"
}

# 1. Tests labelled cuda (and the CPU parts of the GPU path), 2. doctor.
tests_rc=0
if [ "$no_tests" = 0 ]; then
  (cd "$build" && ctest --timeout "${YW_GPU_TESTS_TIMEOUT:-600}" -L cuda -R 'test_cuda' --no-tests=error --output-on-failure -V >"$logs/tests.log" 2>&1) || tests_rc=$?
  (cd "$build" && ctest -R test_cuda_parts --output-on-failure >>"$logs/tests.log" 2>&1) || tests_rc=1
  echo "$tests_rc" >"$logs/tests.rc"
  "$ywb" doctor --json >"$logs/doctor.json" 2>"$logs/doctor.err" || true
  log "tests rc $tests_rc ($(($(date +%s) - t0)) s)"
else
  tests_rc="$(cat "$logs/tests.rc" 2>/dev/null || echo -1)"
fi
for f in tests.log doctor.json; do [ -f "$logs/$f" ] && cp "$logs/$f" "$out/$f"; done

# 3. Benchmarks, most important first (the issue's targets: yolov8n 640, batch 64, AMP), so that a run cut
# short by --budget still has them.
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
model_run() {  # model batch amp graphs
  run "bench model" bench model model="$1" imgsz="$imgsz" batch="$2" device="$device" amp="$3" cuda_graphs="$4" \
    channels_last=true warmup="$warm" iters="$iters"
}
train_run() {  # model batch amp graphs
  run "bench train" bench train data="$data/data.yaml" model="$1" imgsz="$imgsz" batch="$2" device="$device" \
    amp="$3" cuda_graphs="$4" workers="$workers" steps="$steps" warmup="$warm"
}
epoch_run() {  # model batch graphs
  run "bench epoch" bench epoch data="$data/data.yaml" model="$1" imgsz="$imgsz" batch="$2" device="$device" \
    amp=true cuda_graphs="$3" workers="$workers" epochs=1
}
for m in "${models[@]}"; do  # the targets' configuration, graphs off and on
  for g in false true; do model_run "$m" "$big" true "$g"; train_run "$m" "$big" true "$g"; epoch_run "$m" "$big" "$g"; done
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

# 4. The report: JSON with everything, Markdown with the tables.
nvsmi="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)"
python3 - "$out" "$runs" "$tests_rc" "$torch_info" "$nvsmi" "$(nproc)" "$(($(date +%s) - t0))" "$logs" <<'PY'
import json, os, re, sys
out, runs_path, tests_rc, torch_info, gpu, cores, secs, logs = sys.argv[1:9]
runs = [json.loads(l) for l in open(runs_path) if l.strip()]
def load(p):
    try:
        return json.load(open(os.path.join(logs, p)))
    except Exception:
        return None
tests_log = open(os.path.join(logs, "tests.log"), errors="replace").read() if os.path.exists(os.path.join(logs, "tests.log")) else ""
report = {"gpu": gpu, "cpu_cores": int(cores), "torch": json.loads(torch_info), "tests_rc": int(tests_rc),
          "tests": [re.sub(r"^\d+: ", "", l.strip()) for l in tests_log.splitlines() if re.search(r"\b(PASS|FAIL!|SKIP)\s+:", l)],
          "doctor": load("doctor.json"), "dependencies": open(os.path.join(logs, "dependencies.txt")).read().splitlines(),
          "runs": runs, "seconds": int(secs)}
json.dump(report, open(os.path.join(out, "gpu-check.json"), "w"), indent=1)
md = ["# gpu-check report", "", f"GPU: {gpu or 'none found'}; CPU cores: {cores}; PyTorch/LibTorch: {torch_info}",
      f"Tests labelled cuda: {'passed' if int(tests_rc) == 0 else 'not run in this call' if int(tests_rc) < 0 else 'FAILED (see tests.log)'}; total {secs} s", ""]
md += ["## Tests", ""] + ["    " + t for t in report["tests"]] + [""]
def row(r):
    x = r.get("result") or {}
    if r.get("rc", 0) != 0 or not x:
        return f"| {r['command']} | error: {r.get('error', r.get('output', ''))[:200]} |"
    if r["kind"] == "bench model":
        mem = x.get("gpu_mem_peak", -1)
        return (f"| {x.get('model')} b{x.get('batch')} amp={x.get('amp')} graphs={x.get('graphs')} | "
                f"{x.get('images_per_s', 0):.0f} img/s, step {x.get('total_ms', 0):.1f} ms (fwd {x.get('forward_ms', 0):.1f}, "
                f"loss {x.get('loss_ms', 0):.1f}, bwd {x.get('backward_ms', 0):.1f}, opt {x.get('step_ms', 0):.1f}), "
                f"peak {mem / 2**20:.0f} MiB |")
    keys = ["batch", "amp", "images_per_s", "compute_images_per_s", "data_wait_share", "train_images_per_s",
            "train_s", "val_s", "peak_device_mem", "gpu_util", "map50"]
    return f"| {r['command'].replace('ywb ', '')} | " + ", ".join(f"{k} {x[k]}" for k in keys if k in x) + " |"
for kind in ("bench model", "bench train", "bench epoch"):
    md += [f"## {kind}", "", "| run | figures |", "| --- | --- |"] + [row(r) for r in runs if r["kind"] == kind] + [""]
md += [r["note"] for r in runs if r["kind"] == "note"]
open(os.path.join(out, "gpu-check.md"), "w").write("\n".join(md) + "\n")
print(os.path.join(out, "gpu-check.md"))
PY
log "report: $out/gpu-check.md and $out/gpu-check.json ($(($(date +%s) - t0)) s)"
exit "$tests_rc"
