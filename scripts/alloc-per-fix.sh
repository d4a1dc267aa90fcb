#!/usr/bin/env bash
# Heap allocations per fix on the containment path, shown with valgrind: the containment case
# runs for two numbers of fixes, and the difference in allocations divided by the difference
# in fixes is what one fix costs (0 when the path allocates nothing per fix).
#
#   bash scripts/alloc-per-fix.sh FENCES.geojson FIXES.f64 [fix|batch]
#
# One pass a repeat (`--passes 1`), so the count does not depend on how many passes the
# timing would choose (an untimed warm-up pass, and the per-pass bookkeeping, come with them).
set -euo pipefail
cd "$(dirname "$0")/.."
fences=${1:?fences GeoJSON}
fixes=${2:?fixes .f64 (gen.py format)}
api=${3:-fix}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --static-swift-stdlib --product geofence-bench >/dev/null
# valgrind 3.19 cannot read Swift 6's debug info: measure a stripped copy.
bench=$(mktemp /tmp/geofence-bench.XXXXXX)
trap 'rm -f "$bench"' EXIT
cp .build/release/geofence-bench "$bench" && strip "$bench" && chmod +x "$bench"
allocs() {
  valgrind --tool=memcheck --leak-check=no "$bench" contains \
    --fences "$fences" --fixes "$fixes" --limit "$1" --repeats 2 --passes 1 --api "$api" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}
a=$(allocs 20000); b=$(allocs 40000)
echo "--api $api: allocations with 20000 fixes: $a, with 40000: $b"
echo "per fix: $(python3 -c "print(($b - $a) / (2 * 20000))")  (2 repeats of 20000 extra fixes)"
