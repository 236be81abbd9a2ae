#!/usr/bin/env bash
# Builds the engine, `ywb` and the engine tests against a LibTorch 2.x and runs them, on this CPU, without a GPU
# machine: Debian's next release (trixie) packages LibTorch 2.6, so a trixie root (debootstrap, minbase) gets
# LibTorch 2.6, GCC 14, Qt 6.8, OpenCV 4.10 and ONNX 1.17 from Debian itself, and the tests run there on the
# same sources and ../shared as here. torch2-check.sh only compiles against 2.x headers; this links and runs.
# GPU workstations run upstream LibTorch 2.x: what differs at run time between 1.13 and 2.x (kernels, rounding,
# serialisation, autograd details) shows here before device time is spent.
#
# Needs root (debootstrap, chroot, bind mounts) and deb.debian.org (or YW_DEBIAN_MIRROR); debootstrap checks
# the suite's signature against Debian 12's keyring. The root is made once (about 2 minutes, 1.6 GB), the
# build is incremental (a cold one takes about an hour of 2 cores; ccache lives in the root).
#
# Usage: installer/torch2-run.sh [--root DIR] [--suite S] [--build DIR] [--no-build] [--shell] [-- CTEST ARGS]
#   --root DIR   the trixie root (default /var/tmp/ywb-<suite>)
#   --suite S    Debian suite (default trixie)
#   --build DIR  build folder, relative to the repository (default build/torch2-<suite>)
#   --no-build   run the tests of the existing build only
#   --shell      an interactive shell in the root, repository mounted, instead of building
#   CTEST ARGS   passed to ctest (default: -LE cuda, every engine test but the CUDA ones)
# Exit status: ctest's (0 when every selected test passed); 1 when the root, the build or a mount fails.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$repo/.." && pwd)/shared"
suite=trixie root="" build="" do_build=1 shell=0 ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="$2"; shift ;;
    --suite) suite="$2"; shift ;;
    --build) build="$2"; shift ;;
    --no-build) do_build=0 ;;
    --shell) shell=1 ;;
    --) shift; ctest_args=("$@"); break ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) echo "torch2-run: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
root="${root:-/var/tmp/ywb-$suite}"
build="${build:-build/torch2-$suite}"
[ "${#ctest_args[@]}" -gt 0 ] || ctest_args=(-LE cuda)
mirror="${YW_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
say() { echo "torch2-run: $*"; }
fail() { echo "torch2-run: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot and bind mounts); run it with sudo"

if [ ! -f "$root/etc/debian_version" ]; then
  command -v debootstrap >/dev/null || fail "debootstrap is needed (apt-get install debootstrap)"
  say "making a $suite root in $root (debootstrap --variant=minbase, $mirror)"
  mkdir -p "$root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -n 20 "$root.debootstrap.log" >&2; fail "debootstrap $suite failed (log: $root.debootstrap.log)"; }
fi

# The repository and ../shared appear at their own paths inside the root, so the build's absolute paths
# (YW_SHARED_DIR, the fixtures) are the same on both sides. Everything mounted here is unmounted on exit.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind SRC DST [--rbind]
  mkdir -p "$2"
  mountpoint -q "$2" && return 0
  mount "${3:---bind}" "$1" "$2" || fail "cannot mount $1 on $2"
  mounted+=("$2")
}
mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc" && mounted+=("$root/proc"); }
bind /dev "$root/dev" --rbind
bind "$repo" "$root$repo"
[ -d "$shared" ] && bind "$shared" "$root$shared"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

# The packages: install-deps.sh's own list (its owner), engine and CLI, plus Qt's Core and Test for the tests.
if ! in_root dpkg-query -W -f='${Status}' qt6-base-dev 2>/dev/null | grep -q "install ok installed"; then
  say "installing the build's packages in the root (install-deps.sh --no-gui, qt6-base-dev)"
  in_root bash -c "apt-get update -qq && '$repo/installer/install-deps.sh' --no-gui &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qt6-base-dev >/dev/null" ||
    fail "installing the packages in $root failed"
fi
if [ "$shell" = 1 ]; then
  in_root bash -c "cd '$repo' && exec bash -i" || true
  exit 0
fi
versions="$(in_root dpkg-query -W -f='${Package} ${Version}\n' libtorch-dev g++ qt6-base-dev libopencv-core-dev libonnx-dev |
  tr '\n' ';' | sed 's/;$//; s/;/, /g')"
say "$suite root: $versions"

if [ "$do_build" = 1 ]; then
  start=$(date +%s)
  in_root bash -c "cd '$repo' && cmake -S . -B '$build' -G Ninja -DCMAKE_BUILD_TYPE=Release -DYW_BUILD_GUI=OFF \
      -DYW_BUILD_TESTS=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null &&
    cmake --build '$build' -j$(nproc)" || fail "the build against $suite's LibTorch failed (above)"
  say "built in $(($(date +%s) - start)) s"
fi
[ -f "$repo/$build/CTestTestfile.cmake" ] || fail "$build has no tests (build first, without --no-build)"
start=$(date +%s)
rc=0
in_root bash -c "cd '$repo/$build' && QT_QPA_PLATFORM=offscreen ctest --output-on-failure $(printf "'%s' " "${ctest_args[@]}")" ||
  rc=$?
say "tests against $suite's LibTorch: exit $rc in $(($(date +%s) - start)) s"
exit "$rc"
