#!/usr/bin/env bash
# Makes sure the system libraries the package links are present: GEOS's C API
# (libgeos-dev, found through pkg-config) and GEOS's C++ headers (libgeos++-dev, for the
# indexed point-in-area locator); with the argument `server`, also SQLite's headers
# (libsqlite3-dev, for GRDB in Server/). Installs them with apt-get when running as root;
# otherwise says exactly what to run.
set -euo pipefail

have_geos() {
  pkg-config --exists geos 2>/dev/null &&
    [ -f /usr/include/geos/algorithm/locate/IndexedPointInAreaLocator.h ]
}

if ! command -v swift >/dev/null 2>&1; then
  echo "error: 'swift' is not on PATH (Swift 6.0 or newer is needed)." >&2
  exit 1
fi

want_sqlite=0
[ "${1:-}" = server ] && want_sqlite=1
have_sqlite() {
  [ "$want_sqlite" = 0 ] || [ -f /usr/include/sqlite3.h ]
}

if have_geos && have_sqlite; then
  exit 0
fi

pkgs="libgeos-dev libgeos++-dev pkg-config"
[ "$want_sqlite" = 1 ] && pkgs="$pkgs libsqlite3-dev"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing $pkgs with apt-get ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || apt-get update
  apt-get install -y -qq $pkgs >/dev/null || apt-get install -y $pkgs
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
  echo "Installing $pkgs with sudo apt-get ..." >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs
else
  echo "error: GEOS (or, for the server, SQLite's headers) is missing. Install them, then run make again:" >&2
  echo "    sudo apt-get install -y $pkgs      # Debian/Ubuntu" >&2
  echo "(needs GEOS's C API through pkg-config 'geos', and its C++ headers)" >&2
  exit 1
fi

if ! have_geos; then
  echo "error: installed $pkgs but pkg-config still finds no 'geos' or the C++ headers are missing." >&2
  exit 1
fi
if ! have_sqlite; then
  echo "error: installed $pkgs but /usr/include/sqlite3.h is still missing." >&2
  exit 1
fi
echo "GEOS $(pkg-config --modversion geos) is ready." >&2
