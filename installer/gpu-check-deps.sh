# shellcheck shell=bash
# Sourced by installer/gpu-check.sh: the Debian 12 packages that travel to a GPU machine as .deb files, and
# what turns them into a private prefix (download, unpack, check, the GUI's run-time environment).
# Such machines have no internet and no OpenCV/Qt/yaml-cpp; they may be Ubuntu rather than Debian, so every
# library a build or a test loads travels, except the C/C++ runtimes and the base system's own (zlib, zstd,
# libffi, libpcre2-8, libmount, libselinux, expat, systemd's libsystemd0 and the like); check_libs names any
# library the machine lacks.

# The engine's dependencies for building and running, and the test runner's (Qt 6 Core/Test).
# Headers and CMake/pkg-config files:
dev_pkgs=(libopencv-core-dev libopencv-imgproc-dev libturbojpeg0-dev libpng-dev zlib1g-dev libyaml-cpp-dev
  nlohmann-json3-dev qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin)
# Shared libraries they link, with the dependencies a machine that is no Debian 12 may lack:
run_pkgs=(libopencv-core406 libopencv-imgproc406 libtbb12 libtbbmalloc2 libblas3 liblapack3 libgfortran5
  libquadmath0 libgomp1 libturbojpeg0 libpng16-16 zlib1g libyaml-cpp0.7 libqt6core6 libqt6test6 libicu72
  libdouble-conversion3 libpcre2-16-0 libb2-1 libglib2.0-0
  libglx0 libglvnd0 libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0)  # Debian's OpenCV core links libGLX
tool_pkgs=(pkgconf pkgconf-bin libpkgconf3)
# The GUI (yolo-workbench and its GPU test): Qt 6 Widgets/Gui/PrintSupport and QCustomPlot. Qt6Gui's CMake
# package requires OpenGL (headers and the GLVND libraries: qt6-base-dev's own dependencies), the
# translations need lrelease (qt6-l10n-tools) and Qt6LinguistTools' CMake package (qt6-tools-dev), which
# checks that all its tools exist (lprodump: qt6-tools-dev-tools). jemalloc: the GUI's malloc (ywb/heap.h).
gui_dev_pkgs=(libqcustomplot-dev libjemalloc-dev qt6-tools-dev qt6-l10n-tools qt6-tools-dev-tools libgl-dev libglx-dev libopengl-dev
  libegl-dev)
# Their libraries: Qt Gui links EGL/OpenGL (GLVND's dispatchers: no driver is loaded under the offscreen
# platform), fontconfig, FreeType, HarfBuzz, xkbcommon, md4c and Qt DBus (libdbus). The offscreen platform
# plugin is in libqt6gui6. A font, so that screenshots have text.
gui_run_pkgs=(libqt6gui6 libqt6widgets6 libqt6printsupport6 libqt6dbus6 libdbus-1-3 libqcustomplot2.1-qt6 libjemalloc2
  libegl1 libopengl0 libgl1 libfontconfig1 libfreetype6 libbrotli1 libharfbuzz0b libgraphite2-3 libxkbcommon0
  libmd4c0 fonts-dejavu-core)

log() { echo "gpu-check: $*" >&2; }
die() {
  log "$*"
  exit 1
}

prepare() {
  local dir="$1"
  command -v apt-get >/dev/null || die "--prepare needs apt-get (a Debian 12 machine)"
  mkdir -p "$dir"
  local start
  start=$(date +%s)
  (cd "$dir" && apt-get -o "APT::Sandbox::User=$(id -un)" download "${dev_pkgs[@]}" "${run_pkgs[@]}" \
    "${tool_pkgs[@]}" "${gui_dev_pkgs[@]}" "${gui_run_pkgs[@]}" >/dev/null)
  # A package dropped from the lists above must not linger in the folder (and in the prefix).
  local want=" ${dev_pkgs[*]} ${run_pkgs[*]} ${tool_pkgs[*]} ${gui_dev_pkgs[*]} ${gui_run_pkgs[*]} " deb
  for deb in "$dir"/*.deb; do
    case "$want" in *" $(basename "$deb" | cut -d_ -f1) "*) ;; *) rm -f "$deb" ;; esac
  done
  (cd "$dir" && ls ./*.deb | sed 's|^\./||' >MANIFEST && sha256sum ./*.deb >SHA256SUMS)
  log "$(wc -l <"$dir/MANIFEST") packages, $(du -sh "$dir" | cut -f1) in $dir ($(($(date +%s) - start)) s)"
}

# Unpacks every .deb into $prefix once (a stamp holds the checksums of the manifest and of this file) and
# makes what dpkg's maintainer scripts would: the BLAS/LAPACK alternatives' links.
unpack() {
  local debs="$1" prefix
  prefix="$(mkdir -p "$2" && cd "$2" && pwd)"
  [ -f "$debs/MANIFEST" ] || die "no $debs/MANIFEST: run 'installer/gpu-check.sh --prepare $debs' on a Debian 12 machine first"
  (cd "$debs" && sha256sum --quiet -c SHA256SUMS) || die "$debs: a .deb does not match SHA256SUMS"
  local sum
  sum="$(cat "$debs/SHA256SUMS" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
  if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$sum" ]; then
    log "dependencies already unpacked in $prefix"
    return
  fi
  local start
  start=$(date +%s)
  rm -rf "${prefix:?}"
  mkdir -p "$prefix"
  # dpkg-deb where the machine has it; otherwise the .deb is an ar archive holding data.tar.{xz,zst,gz}.
  while read -r deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$debs/$deb" "$prefix"
    else
      local member
      member="$(ar t "$debs/$deb" | grep '^data\.tar')" || die "$deb: no data.tar member"
      local unz="xz -d"
      case "$member" in *.zst) unz="zstd -d" ;; *.gz) unz="gzip -d" ;; esac
      ar p "$debs/$deb" "$member" | $unz | tar -x -C "$prefix"
    fi
  done <"$debs/MANIFEST"
  # A merged /usr, as current Debian and Ubuntu have it: what packages put under /lib (libdbus, zlib) goes
  # to usr/lib, and absolute links into the system (libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13) point
  # into the prefix instead, where it has their target.
  if [ -d "$prefix/lib" ]; then
    cp -a "$prefix/lib/." "$prefix/usr/lib/"
    rm -rf "${prefix:?}/lib"
  fi
  local link to
  while IFS= read -r -d '' link; do
    to="$(readlink "$link")"
    to="/usr${to#/usr}"
    [ -e "$prefix$to" ] && ln -sfn "$prefix$to" "$link"
  done < <(find "$prefix" -type l -lname '/*' -print0)
  local lib="$prefix/usr/lib/x86_64-linux-gnu"
  for alt in blas lapack; do
    for so in "$lib/$alt"/lib*.so.3; do [ -e "$so" ] && ln -sf "$alt/$(basename "$so")" "$lib/$(basename "$so")"; done
  done
  [ -e "$prefix/usr/bin/pkg-config" ] || ln -sf pkgconf "$prefix/usr/bin/pkg-config"
  echo "$sum" >"$prefix/.stamp"
  log "unpacked $(wc -l <"$debs/MANIFEST") packages into $prefix ($(($(date +%s) - start)) s)"
}

# Every shared library of the prefix must resolve (from the prefix or the machine). Qt's plugins other than
# the offscreen platform (xcb, evdev, libinput, JPEG, input methods) and the xcb platform's library are
# never loaded here and need libraries a server lacks: they are not checked.
check_libs() {
  local prefix="$1" missing
  missing="$(find "$prefix/usr/lib" -name '*.so*' -type f \
    \( ! -path '*/qt6/plugins/*' -o -path '*/qt6/plugins/platforms/libqoffscreen.so' \) \
    ! -name 'libQt6XcbQpa.so*' -print0 | xargs -0 -n 50 ldd 2>/dev/null |
    awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')"
  [ -z "$missing" ] || die "libraries missing on this machine for the unpacked packages: $missing"
}

# The GUI's run-time environment from the prefix alone (a GPU machine has no Qt, fonts or fontconfig
# configuration): Qt's plugins (offscreen platform), the prefix's DejaVu fonts through a fontconfig file of
# our own (fontconfig's cache under build/), and the offscreen platform itself.
gui_env() {
  local prefix="$1" cache="$2"
  local lib="$prefix/usr/lib/x86_64-linux-gnu" fonts="$prefix/usr/share/fonts"
  [ -f "$lib/qt6/plugins/platforms/libqoffscreen.so" ] || return 0
  mkdir -p "$cache/fontconfig"
  cat >"$cache/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>$fonts</dir>
  <cachedir>$cache/fontconfig</cachedir>
</fontconfig>
EOF
  export QT_PLUGIN_PATH="$lib/qt6/plugins" FONTCONFIG_FILE="$cache/fonts.conf"
  export QT_QPA_FONTDIR="$fonts/truetype/dejavu" QT_QPA_PLATFORM=offscreen
}
