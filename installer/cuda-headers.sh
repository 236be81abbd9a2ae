#!/usr/bin/env bash
# Fetches the CUDA 11.8 toolkit headers from Debian's `non-free` component (package nvidia-cuda-dev) and
# unpacks only its headers into a private, git-ignored folder, so that the `cuda-check` preset can compile the
# engine's CUDA code on a machine without CUDA. Nothing is installed and no system file is changed: apt reads
# a private copy of the machine's Debian source with `non-free` added (own list and cache folders), downloads
# the .deb, and `dpkg-deb --fsys-tarfile | tar` unpacks usr/include from it (the 3 GB of libraries it also
# carries are skipped). It also writes the one-line stand-in for LibTorch's build-generated
# c10/cuda/impl/cuda_cmake_macros.h, which Debian's libtorch-dev lacks. Idempotent: when the headers are there
# already it prints their folder and does nothing else.
# Usage: installer/cuda-headers.sh [DIR]     (default: .cache/cuda-headers in the repository; or $YW_CUDA_HEADERS)
# Prints the folder on its last line; cmake --preset cuda-check reads .cache/cuda-headers by default.
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${1:-${YW_CUDA_HEADERS:-$PWD/.cache/cuda-headers}}"
pkg=nvidia-cuda-dev
stamp="$dest/.complete"

if [ -f "$stamp" ]; then
  echo "cuda-headers: present ($(cat "$stamp"))"
  echo "$dest"
  exit 0
fi

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || {
  echo "cuda-headers: needs apt-get and dpkg-deb (a Debian machine)" >&2
  exit 1
}
. /etc/os-release
codename="${VERSION_CODENAME:-}"
[ -n "$codename" ] || { echo "cuda-headers: /etc/os-release names no VERSION_CODENAME" >&2; exit 1; }

start=$(date +%s)
work="$(mktemp -d "${TMPDIR:-/tmp}/ywb-cuda-headers.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/etc/sources.list.d" "$work/etc/preferences.d"

# The machine's Debian sources (repository URI and suite of each `main` index apt knows), with non-free.
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
signed=""
[ -f "$keyring" ] && signed="[signed-by=$keyring] "
apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
  awk -v c="$codename" '$3 == "main" && ($2 == c || $2 == c "-updates") {print $1, $2}' | sort -u |
  while read -r uri suite; do echo "deb ${signed}${uri} ${suite} non-free"; done >"$work/etc/sources.list"
if ! [ -s "$work/etc/sources.list" ]; then
  echo "cuda-headers: found no Debian '$codename' source with 'main' in apt's lists (apt-get indextargets);" \
    "run apt-get update first, or add 'deb http://deb.debian.org/debian $codename non-free' by hand" >&2
  exit 1
fi
echo "cuda-headers: private apt source: $(tr '\n' ';' <"$work/etc/sources.list")"

apt_opts=(-o "Dir::Etc::SourceList=$work/etc/sources.list" -o "Dir::Etc::SourceParts=$work/etc/sources.list.d"
  -o "Dir::Etc::Preferences=$work/etc/preferences" -o "Dir::Etc::PreferencesParts=$work/etc/preferences.d"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=$(id -un)")
apt-get "${apt_opts[@]}" -qq update
ver="$(apt-cache "${apt_opts[@]}" policy "$pkg" | awk '/Candidate:/ {print $2}')"
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
  echo "cuda-headers: $pkg is not in Debian's non-free component for '$codename'" >&2
  exit 1
fi
t_dl=$(date +%s)
(cd "$work" && apt-get "${apt_opts[@]}" -qq download "$pkg=$ver")
deb="$(ls "$work"/"${pkg}"_*.deb)"
t_unpack=$(date +%s)

# Only the headers (usr/include); the .deb's static and shared libraries are never needed here.
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest.partial" --wildcards './usr/include/*'
inc="$dest.partial/usr/include"
[ -f "$inc/cuda_runtime_api.h" ] || { echo "cuda-headers: $deb has no usr/include/cuda_runtime_api.h" >&2; exit 1; }

# LibTorch generates c10/cuda/impl/cuda_cmake_macros.h at build time; Debian's libtorch-dev omits it. Its
# only content that matters is whether c10_cuda is a shared library (it is, in every LibTorch).
mkdir -p "$dest.partial/stand-in/c10/cuda/impl"
cat >"$dest.partial/stand-in/c10/cuda/impl/cuda_cmake_macros.h" <<'EOF'
#pragma once
#define C10_CUDA_BUILD_SHARED_LIBS
EOF

end=$(date +%s)
size_mb=$(( $(stat -c %s "$deb") / 1048576 ))
echo "$pkg $ver, ${size_mb} MB .deb; download $((t_unpack - t_dl)) s, unpack $((end - t_unpack)) s," \
  "total $((end - start)) s" >"$dest.partial/.complete"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "cuda-headers: $(cat "$stamp"); headers in $dest/usr/include, stand-in in $dest/stand-in"
echo "$dest"
