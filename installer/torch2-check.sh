#!/usr/bin/env bash
# Syntax-checks engine sources against another LibTorch's headers than the one the build uses: the LibTorch 2.x
# of a GPU machine, so that code written here against Debian's 1.13 is known to compile there before device
# time is spent on a build. Each source is compiled with its own flags from a build's compile_commands.json
# (precompiled header dropped, -Werror off, g++ -fsyntax-only), the other headers put first.
#
# The headers: once, on the GPU machine (a device call), `tar -C "$(python3 -c 'import torch, os;
# print(os.path.dirname(torch.__file__))')" -cf - include | xz -T0 >"$OUT/torch-include.tar.xz"` (3.4 MB for
# PyTorch 2.11), then here `mkdir -p ~/.cache/ywb/torch-2.11 && tar -C ~/.cache/ywb/torch-2.11 -xJf
# torch-include.tar.xz`.
#
# Usage: installer/torch2-check.sh [--include DIR] [--build DIR] [--jobs N] [--since REF | FILE...]
#   --include DIR  the other LibTorch's include folder (default ~/.cache/ywb/torch-2.11/include)
#   --build DIR    the build whose compile_commands.json gives the flags (default build/ci)
#   --since REF    only the engine sources changed since REF (git diff), else FILEs, else every engine source
# Exit status 1 when a source fails (its errors are printed), 0 when all compile; skips (0) without headers.
set -euo pipefail
cd "$(dirname "$0")/.."
inc="$HOME/.cache/ywb/torch-2.11/include" build=build/ci jobs="$(nproc)" since="" files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --include) inc="$2"; shift ;;
    --build) build="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    --since) since="$2"; shift ;;
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
  mapfile -t files < <(git diff --name-only "$since" -- 'engine/*.cpp' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
fi
# TORCH_VERSION_MAJOR/MINOR/PATCH: in torch/headeronly/version.h since 2.9, torch/csrc/api/include before.
version="$(cat "$inc/torch/headeronly/version.h" "$inc/torch/csrc/api/include/torch/version.h" 2>/dev/null |
  awk '/#define TORCH_VERSION_(MAJOR|MINOR|PATCH) [0-9]/ {v[$2] = $3}
       END {if (v["TORCH_VERSION_MAJOR"] != "") print v["TORCH_VERSION_MAJOR"] "." v["TORCH_VERSION_MINOR"] "." v["TORCH_VERSION_PATCH"]}')"
start=$(date +%s)
python3 - "$build/compile_commands.json" "$inc" "$jobs" "$PWD" "${files[@]}" <<'EOF'
import json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

db, inc, jobs, root, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
wanted = {os.path.realpath(os.path.join(root, f)) for f in wanted}
entries = [e for e in json.load(open(db)) if "/engine/" in e["file"] and e["file"].endswith(".cpp")
           and (not wanted or os.path.realpath(e["file"]) in wanted)]

def command(e):
    args, out, skip = shlex.split(e["command"]), [], 0
    for i, a in enumerate(args):
        if skip:
            skip -= 1
            continue
        if a in ("-o", "-include", "-MF", "-MT"):  # output, the 1.13 precompiled header, dependency files
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
    return e["file"], r.returncode, r.stderr

failed = 0
with ThreadPoolExecutor(max(1, jobs)) as pool:
    for f, rc, err in pool.map(check, entries):
        if rc != 0:
            failed += 1
            print(f"FAILED {os.path.relpath(f, root)}\n{err[-4000:]}")
print(f"torch2-check: {len(entries) - failed} of {len(entries)} engine sources compile against {inc}")
sys.exit(1 if failed else 0)
EOF
echo "torch2-check: LibTorch ${version:-?} headers, $(($(date +%s) - start)) s"
