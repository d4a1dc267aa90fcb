#!/usr/bin/env bash
# One benchmark session: the peers of ../shared/peers (C grid, GEOS C API, Shapely) and
# geofence-bench on the same synthetic world, one after the other, so their figures can be
# compared as ratios measured together. Writes everything under out/bench-session/.
#
#   PEERS=/path/to/a/writable/copy/of/peers bash scripts/bench-session.sh
#
# PEERS must hold the peers' programs built (`make`) and gen.py's data (`python3 gen.py`);
# the shared copy is read-only, so copy it first: cp -r ../shared/peers /tmp/peers.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${PEERS:?set PEERS to a built copy of ../shared/peers with its data/}
OUT=out/bench-session
mkdir -p "$OUT"
N=${N:-1000000}
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -srm
  lscpu | grep -E "Model name|^CPU\(s\)" || true
  uptime
} > "$OUT/machine.txt"
swift build -c release --static-swift-stdlib >/dev/null
for F in 1000 10000 100000; do
  "$PEERS/build/flat" grid $F $N 5 | tee -a "$OUT/peers.jsonl"
  "$PEERS/build/geos_bench" full $F $N 3 | tee -a "$OUT/peers.jsonl"
  python3 "$PEERS/shapely_bench.py" --variant bbox_prepared --F $F --N $N --repeats 3 | tail -n 1 | tee -a "$OUT/peers.jsonl"
  for T in 1 2; do
    .build/release/geofence-bench contains --fences "$PEERS/data/fences_$F.geojson" \
      --fixes "$PEERS/data/fixes_$N.f64" --threads $T --repeats 5 | tee -a "$OUT/engine.jsonl"
  done
done
.build/release/geofence-bench suite --peers-data "$PEERS/data" --fixes $N --json "$OUT/suite.json" --svg "$OUT/suite.svg" \
  | tee "$OUT/suite.txt"
