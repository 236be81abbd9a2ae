#!/usr/bin/env bash
# Syntax-checks engine sources against another LibTorch's headers than the one the build uses: the LibTorch 2.x
# of a GPU machine, so that code written here against Debian's 1.13 is known to compile there before device
# time is spent on a build. Each source is compiled with its own flags from a build's compile_commands.json
# (precompiled header dropped, -Werror off, g++ -fsyntax-only), the other headers put first.
#
# The headers: once, on the GPU machine (a device call), `tar -C "$(python3 -c 'import torch, os;
# print(os.path.dirname(torch.__file__))')" -cf - include | xz -T0 >"$OUT/torch-include.tar.xz"` (3.4 MB for
# PyTorch 2.11), then here `mkdir -p ~/.cache/ywb/torch-2.11 && tar -C ~/.cache/ywb/torch-2.11 -xJf
# torch-include.tar.xz`. Without a GPU machine, installer/torch2-headers.sh fetches Debian trixie's LibTorch 2.6
# headers (signature-checked) into ~/.cache/ywb/torch-2.6.0: not 2.11, but past every 1.13 -> 2.x change.
#
# Usage: installer/torch2-check.sh [--include DIR] [--build DIR] [--target T] [--jobs N] [--since REF | FILE...]
#   --include DIR  the other LibTorch's include folder (default ~/.cache/ywb/torch-2.11/include, else the newest
#                  other ~/.cache/ywb/torch-*/include)
#   --build DIR    the build whose compile_commands.json gives the flags (default build/ci)
#   --target T     only the sources compiled into CMake target T (e.g. ywb_cuda_check with --build
#                  build/cuda-check, made by installer/cuda-check.sh: the CUDA code, switch on, CUDA headers)
#   --since REF    only the engine sources changed since REF (git diff; none changed: nothing to check), else
#                  FILEs, else every engine source (tests/engine's and the benchmarks in tests/bench included)
# Exit status 1 when a source fails (its errors are printed), 0 when all compile; skips (0) without headers.
set -euo pipefail
cd "$(dirname "$0")/.."
inc="$HOME/.cache/ywb/torch-2.11/include"
if [ ! -d "$inc" ]; then
  newest="$(ls -d "$HOME"/.cache/ywb/torch-*/include 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -z "$newest" ] || inc="$newest"
fi
build=build/ci jobs="$(nproc)" since="" target="" files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --include) inc="$2"; shift ;;
    --build) build="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    --since) since="$2"; shift ;;
    --target) target="$2"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) files+=("$1") ;;
  esac
  shift
done
if [ ! -f "$inc/torch/csrc/api/include/torch/torch.h" ]; then
  echo "torch2-check: skipped (no LibTorch headers in $inc: see --help)"
  exit 0
fi
[ -f "$build/compile_commands.json" ] || { echo "torch2-check: no $build/compile_commands.json (configure first)" >&2; exit 1; }
if [ -n "$since" ]; then
  mapfile -t files < <(git diff --name-only "$since" -- 'engine/*.cpp' 'tests/engine/*.cpp' 'tests/bench/*.cpp' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
  if [ ${#files[@]} -eq 0 ]; then
    echo "torch2-check: no engine, engine test or benchmark source changed since $since"
    exit 0
  fi
fi
# TORCH_VERSION_MAJOR/MINOR/PATCH: in torch/headeronly/version.h since 2.9, torch/csrc/api/include before.
version="$(cat "$inc/torch/headeronly/version.h" "$inc/torch/csrc/api/include/torch/version.h" 2>/dev/null |
  awk '/#define TORCH_VERSION_(MAJOR|MINOR|PATCH) [0-9]/ {v[$2] = $3}
       END {if (v["TORCH_VERSION_MAJOR"] != "") print v["TORCH_VERSION_MAJOR"] "." v["TORCH_VERSION_MINOR"] "." v["TORCH_VERSION_PATCH"]}' ||
  true)"
start=$(date +%s)
rc=0
python3 - "$build/compile_commands.json" "$inc" "$jobs" "$PWD" "$target" "${files[@]}" <<'EOF' || rc=$?
import json, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

db, inc, jobs, root, target, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
wanted = {os.path.realpath(os.path.join(root, f)) for f in wanted}
entries = [e for e in json.load(open(db)) if ("/engine/" in e["file"] or "/tests/bench/" in e["file"])
           and e["file"].endswith(".cpp")
           and (not wanted or os.path.realpath(e["file"]) in wanted)
           and (not target or f"CMakeFiles/{target}.dir/" in e["command"])]
if not entries:
    sys.exit(f"torch2-check: no engine source in {db}" + (f" for target {target}" if target else ""))

def command(e):
    args, out, skip = shlex.split(e["command"]), [], 0
    for i, a in enumerate(args):
        if skip:
            skip -= 1
            continue
        if a == "-include" and args[i + 1].endswith("cmake_pch.hxx"):
            # The 1.13 precompiled header: its source instead, so the file sees what the real build's
            # precompiled header gives it (dropping it would report includes the header supplies as missing).
            out += ["-include", os.path.join(root, "engine/core/pch.h")]
            skip = 1
            continue
        if a in ("-o", "-MF", "-MT"):  # output, dependency files
            skip = 1
            continue
        if a in ("-c", "-MD", "-Werror", "-Winvalid-pch") or a.startswith("/usr/include/torch"):
            continue
        if a == "-isystem" and args[i + 1].startswith("/usr/include/torch"):
            skip = 1
            continue
        out.append(a)
    # The other LibTorch first: its ATen/c10/torch shadow Debian's in /usr/include.
    return [out[0], "-fsyntax-only", "-isystem", inc, "-isystem", os.path.join(inc, "torch/csrc/api/include")] + out[1:]

def check(e):
    r = subprocess.run(command(e), cwd=e["directory"], capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    # A Qt test includes its moc output last; before a build has generated it, everything above that line
    # has compiled, which is what this check is for.
    if r.returncode != 0 and errors and all(re.search(r"fatal error: \S+\.moc: No such file", l) for l in errors):
        return e["file"], 0, "moc"
    return e["file"], r.returncode, r.stderr

failed = before_moc = 0
with ThreadPoolExecutor(max(1, jobs)) as pool:
    for f, rc, err in pool.map(check, entries):
        if rc != 0:
            failed += 1
            print(f"FAILED {os.path.relpath(f, root)}\n{err[-4000:]}")
        elif err == "moc":
            before_moc += 1
moc_note = f" ({before_moc} Qt tests up to their moc include, not generated yet)" if before_moc else ""
print(f"torch2-check: {len(entries) - failed} of {len(entries)} engine sources compile against {inc}{moc_note}")
sys.exit(1 if failed else 0)
EOF
echo "torch2-check: LibTorch ${version:-?} headers, $(($(date +%s) - start)) s"
exit "$rc"
