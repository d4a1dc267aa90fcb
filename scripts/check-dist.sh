#!/usr/bin/env bash
# Checks the `make dist` binary: the Swift runtime is linked in (no libswift*.so needed), and
# says what the machines that run it need.
set -euo pipefail
BIN=${1:?usage: check-dist.sh BINARY}
needed=$(ldd "$BIN" | awk '{print $1}' | grep -v -e '^linux-vdso' -e '^/lib64/ld-linux' || true)
if echo "$needed" | grep -q '^libswift'; then
  echo "error: $BIN still needs the Swift runtime:" >&2
  echo "$needed" >&2
  exit 1
fi
geos=$(echo "$needed" | grep '^libgeos\.so' || true)
echo "$BIN: $(du -h "$BIN" | cut -f1) (gzipped $(gzip -c "$BIN" | wc -c | awk '{printf "%.0f MB", $1 / 1e6}')), needs:" $needed
echo "Target machines need GEOS's C library and, for $geos, the same GEOS release as this build machine"
echo "(the shim calls GEOS's C++ point locator; Debian 12: apt-get install libgeos-c1v5 libgeos3.11.1), and libstdc++."
