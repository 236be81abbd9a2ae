#!/usr/bin/env bash
# Fetches a LibTorch 2.x's headers for installer/torch2-check.sh without a GPU machine: Debian's next release
# (trixie) packages LibTorch 2.6 (`libtorch-dev`, 2.4 MB, CPU build but with the ATen/c10 CUDA headers), and
# deb.debian.org serves it to any Debian 12 machine. Nothing is installed: the package is checked and unpacked
# into ~/.cache/ywb/torch-<version>/include. Every file is verified along Debian's own chain: the suite's
# InRelease signature (gpgv against Debian 12's debian-archive-keyring, which holds the trixie keys), the
# Packages index's SHA256 from it, the .deb's SHA256 from the index.
#
# 2.6 is not the GPU machine's 2.11, but it is on the far side of every 1.13 -> 2.x change the engine's compat
# layer (engine/core/torch_compat.h) covers, so a source that compiles against both Debian releases' headers is
# unlikely to stop a device build; the 2.11 headers themselves (torch2-check --help) remain the exact check.
#
# Usage: installer/torch2-headers.sh [--suite S] [--dir DIR]   prints the include folder on its last line
#   --suite S  Debian suite to take libtorch-dev from (default trixie)
#   --dir DIR  parent of the torch-<version> folders (default ~/.cache/ywb)
# Environment: YW_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
suite=trixie dir="$HOME/.cache/ywb"
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) suite="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) echo "torch2-headers: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mirror="${YW_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
for tool in curl gpgv xz dpkg-deb sha256sum; do
  command -v "$tool" >/dev/null || { echo "torch2-headers: '$tool' is needed" >&2; exit 1; }
done
[ -f "$keyring" ] || { echo "torch2-headers: $keyring is missing (apt-get install debian-archive-keyring)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fetch() {  # fetch URL FILE
  curl -fsS --retry 2 -m 300 -o "$2" "$1" || { echo "torch2-headers: cannot fetch $1" >&2; exit 1; }
}
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

fetch "$mirror/dists/$suite/InRelease" "$tmp/InRelease"
gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2>"$tmp/gpgv.log" || {
  cat "$tmp/gpgv.log" >&2
  echo "torch2-headers: $suite's InRelease does not verify against $keyring" >&2
  exit 1
}
index_sha="$(awk '/^SHA256:/ {s = 1; next} /^[^ ]/ {s = 0} s && $3 == "main/binary-amd64/Packages.xz" {print $1}' \
  "$tmp/Release")"
[ -n "$index_sha" ] || { echo "torch2-headers: $suite's Release lists no main/binary-amd64/Packages.xz" >&2; exit 1; }
fetch "$mirror/dists/$suite/main/binary-amd64/Packages.xz" "$tmp/Packages.xz"
[ "$(sha_of "$tmp/Packages.xz")" = "$index_sha" ] || {
  echo "torch2-headers: Packages.xz's SHA256 differs from $suite's signed Release" >&2
  exit 1
}
read -r version filename deb_sha < <(xz -dc "$tmp/Packages.xz" | awk '
  /^Package: / {p = ($2 == "libtorch-dev")}
  p && /^Version: / {v = $2} p && /^Filename: / {f = $2} p && /^SHA256: / {s = $2}
  /^$/ && p && f != "" {print v, f, s; exit}')
[ -n "${filename:-}" ] || { echo "torch2-headers: $suite has no libtorch-dev" >&2; exit 1; }
upstream="${version%%+*}"
upstream="${upstream#*:}"
target="$dir/torch-$upstream/include"
if [ -f "$target/torch/csrc/api/include/torch/torch.h" ]; then
  echo "torch2-headers: LibTorch $upstream headers already in $target"
  echo "$target"
  exit 0
fi
fetch "$mirror/$filename" "$tmp/libtorch-dev.deb"
[ "$(sha_of "$tmp/libtorch-dev.deb")" = "$deb_sha" ] || {
  echo "torch2-headers: $(basename "$filename")'s SHA256 differs from the signed index" >&2
  exit 1
}
dpkg-deb -x "$tmp/libtorch-dev.deb" "$tmp/root"
[ -f "$tmp/root/usr/include/torch/csrc/api/include/torch/torch.h" ] || {
  echo "torch2-headers: $(basename "$filename") holds no torch/torch.h" >&2
  exit 1
}
mkdir -p "$dir/torch-$upstream"
rm -rf "$target"
mv "$tmp/root/usr/include" "$target"
echo "torch2-headers: LibTorch $upstream headers (Debian $suite's libtorch-dev $version) in $target"
echo "$target"
