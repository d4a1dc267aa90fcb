#!/usr/bin/env bash
# The geofence-server benchmark of issue 41 (Benchmarks/server/README.md): on loopback, a
# release build, the 2 cores shared by the server and its load. Prints one table; writes
# out/server-bench.json. BENCH_QUICK=1: everything small, a few seconds a step (a smoke check).
# BENCH_SKIP_BUILD=1: use the binaries already built (make server, geofence-bare-server).
# SERVER_ARGS: more server options, e.g. "--ignore-period 0 --dwell 0" (README: event rates).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/Benchmarks/server
STATE=$ROOT/.build-server-bench # ignored (.build-*): venv, world, run folders
cd "$ROOT"
if [ -n "${BENCH_QUICK:-}" ]; then
  MODE=quick DEVICES=10000 WARM=2 INGEST=4 UPDATE_RUN=8 UPDATES="2 5" SINGLE=3 PG_SECONDS=3
else
  MODE=full DEVICES=100000 WARM=5 INGEST=30 UPDATE_RUN=16 UPDATES="4 10" SINGLE=15 PG_SECONDS=30
fi
# wrk: 2 threads, as the issue's "-t 2"; a few connections for the batched ingest (each
# request is 1,000 fixes; more in flight only queue at the server), 64 for the single fixes.
INGEST_CONNECTIONS=${INGEST_CONNECTIONS:-4}
WRK="timeout 120 wrk -t2 --timeout 10s"
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ beside the scripts
export WRK_THREADS=2 SEED=20240601 CENTER_LAT=48.8566 CENTER_LNG=2.3522 SIDE_M=50000 DEVICES
step() { echo "server-bench: $*" >&2; }
fail() { echo "server-bench: $*" >&2; exit 1; }

# Tools: wrk and PostgreSQL 15 + PostGIS 3 from Debian, installed when missing (libpq-dev for
# pg_config, which tells where Debian keeps the server's programs: they are not on PATH).
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
AS_PG=""; [ "$(id -u)" -ne 0 ] || AS_PG="runuser -u postgres --" # postgres refuses to run as root
PG_BIN=$(pg_config --bindir 2>/dev/null || true)
if ! command -v wrk >/dev/null || [ ! -x "$PG_BIN/initdb" ] || [ ! -f "$(pg_config --sharedir 2>/dev/null)/extension/postgis.control" ]; then
  step "installing wrk, postgresql-15-postgis-3, libpq-dev"
  timeout 600 $SUDO apt-get install -y wrk postgresql-15-postgis-3 libpq-dev >/dev/null || fail "apt-get install failed"
  PG_BIN=$(pg_config --bindir)
fi
[ -x "$PG_BIN/initdb" ] || fail "no initdb in $PG_BIN (postgresql-15)"

# Builds: the server by `make server` (release), the bare handler with the same flags.
if [ -z "${BENCH_SKIP_BUILD:-}" ]; then
  step "building geofence-server (make server) and geofence-bare-server"
  timeout 3600 make -s server >&2 || fail "make server failed"
  TMPDIR=$ROOT/.build-tmp timeout 3600 swift build --package-path Server --scratch-path Server/.build -c release \
    --static-swift-stdlib --product geofence-bare-server >&2 || fail "building geofence-bare-server failed"
fi
SERVER=$(make -s server-path)
BARE=$(dirname "$SERVER")/geofence-bare-server
[ -x "$SERVER" ] && [ -x "$BARE" ] || fail "missing $SERVER or $BARE (run without BENCH_SKIP_BUILD)"

# The venv of the PostGIS peer, from PyPI only, made again when the pins change. psycopg-binary
# is psycopg's C implementation with libpq bundled: the client's cost stays small beside PostgreSQL's.
PINS="psycopg==3.3.9 psycopg-binary==3.3.9"
VENV=$STATE/venv
if [ "$(cat "$VENV/pins" 2>/dev/null)" != "$PINS" ]; then
  step "making $VENV"
  rm -rf "$VENV"
  timeout 300 python3 -m venv "$VENV"
  timeout 600 "$VENV/bin/pip" install -q $PINS || fail "pip install failed"
  echo "$PINS" >"$VENV/pins"
fi

# The world: Benchmarks/peers/gen_world.py's seeded fences around Paris. The run starts on the
# first 10,000; the update body is fences 1,000..10,999 (1,000 removed, 1,000 added), and a
# second update goes back to the first set.
WORLD=$STATE/world
timeout 300 python3 Benchmarks/peers/gen_world.py --out "$WORLD" --fences 10000 11000 --fixes 1 --devices 1 >&2

mkdir -p "$STATE"
RUN=$(mktemp -d "$STATE/run.XXXXXX")
SERVER_PID="" BARE_PID="" PG_DATA=""
cleanup() {
  for pid in $SERVER_PID $BARE_PID; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$PG_DATA" ]; then $AS_PG "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1 || true; fi
  wait 2>/dev/null || true
  rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
timeout 300 python3 "$HERE/benchlib.py" slice "$WORLD/fences_11000.geojson" "$RUN/update.geojson" 1000 11000

# Starts a server under `timeout` in the background; sets PID (timeout's) and PORT.
start() { # NAME COMMAND...
  local name=$1; shift
  timeout 1800 "$@" --port 0 >"$RUN/$name.out" 2>"$RUN/$name.log" &
  PID=$!
  for _ in $(seq 600); do
    PORT=$(sed -n 's|.* listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "$RUN/$name.out")
    [ -n "$PORT" ] && return 0
    kill -0 "$PID" 2>/dev/null || { cat "$RUN/$name.log" >&2; fail "$name exited at start"; }
    sleep 0.1
  done
  fail "$name did not listen within 60 s"
}
# The server process itself (timeout's child), for /proc/PID/status.
child() { cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{print $1}'; }
kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$2/status"; }
scrape() { timeout 30 curl -sf "http://127.0.0.1:$PORT/metrics" >"$RUN/$1" || fail "GET /metrics failed"; }
wrk_fixes() { # OUTPUT BATCH CONNECTIONS SECONDS PORT [TIMELINE]
  WRK_OUT=$RUN/$1 BATCH=$2 TIMELINE=${6:-0} $WRK -c"$3" -d"$4"s -s "$HERE/fixes.lua" "http://127.0.0.1:$5" >"$RUN/$1.txt" \
    || fail "wrk $1 failed: $(tail -3 "$RUN/$1.txt")"
}

# Other work on the machine skews every figure: note the CPU busy share before the run.
read -r _ u1 n1 s1 i1 w1 _ </proc/stat; sleep 2; read -r _ u2 n2 s2 i2 w2 _ </proc/stat
BUSY=$(( 100 * ((u2 + n2 + s2) - (u1 + n1 + s1)) / ((u2 + n2 + s2 + i2 + w2) - (u1 + n1 + s1 + i1 + w1)) ))
[ "$BUSY" -lt 10 ] || step "warning: the machine was ${BUSY}% busy before the run; the figures are skewed"

step "server: $DEVICES devices, 10,000 fences, --fsync always ($MODE)"
# shellcheck disable=SC2086 # SERVER_ARGS is a list of options
start server "$SERVER" --fences "$WORLD/fences_10000.geojson" --data "$RUN/data" --fsync always ${SERVER_ARGS:-}
SERVER_PID=$PID SPORT=$PORT
SPID=$(child "$SERVER_PID")
RSS_START=$(kb VmRSS "$SPID")
wrk_fixes wrk-warm.json 1000 "$INGEST_CONNECTIONS" "$WARM" "$SPORT" # every device's first fix
scrape metrics-0.txt

step "1+4: batched ingest ${INGEST}s, an SSE subscriber and a probe beside it"
(cd "$HERE" && timeout $((INGEST + 60)) python3 probe.py --port "$SPORT" --duration "$INGEST" --sse --pause 0.1 \
  --out "$RUN/probe-ingest.json") &
PROBE=$!
wrk_fixes wrk-ingest.json 1000 "$INGEST_CONNECTIONS" "$INGEST" "$SPORT"
wait "$PROBE" || fail "the SSE probe failed"
scrape metrics-1.txt
DEVICES_HELD=$(timeout 10 curl -sf "http://127.0.0.1:$SPORT/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"])')
RSS=$(kb VmRSS "$SPID")
echo "{\"rss_start_kb\":$RSS_START,\"rss_after_kb\":$RSS,\"hwm_after_kb\":$(kb VmHWM "$SPID"),\"devices\":$DEVICES_HELD,
  \"per_device_bytes\":$(( (RSS - RSS_START) * 1024 / DEVICES_HELD ))}" >"$RUN/memory.json"

step "3: fence updates during ingest (at ${UPDATES// /s and }s of ${UPDATE_RUN}s)"
set -- $UPDATES
(cd "$HERE" && timeout $((UPDATE_RUN + 120)) python3 probe.py --port "$SPORT" --duration "$UPDATE_RUN" --pause 0.02 \
  --update "$1:$RUN/update.geojson" --update "$2:$WORLD/fences_10000.geojson" --out "$RUN/probe-update.json") &
PROBE=$!
wrk_fixes wrk-update.json 1000 "$INGEST_CONNECTIONS" "$UPDATE_RUN" "$SPORT" 1
wait "$PROBE" || fail "the update probe failed"
scrape metrics-2.txt

step "2: single-fix requests, 64 connections, ${SINGLE}s each: server, then bare Hummingbird"
wrk_fixes wrk-single.json 1 64 "$SINGLE" "$SPORT"
scrape metrics-3.txt
start bare "$BARE"
BARE_PID=$PID
wrk_fixes wrk-bare.json 1 64 "$SINGLE" "$PORT"
kill "$BARE_PID"; wait "$BARE_PID" 2>/dev/null || true; BARE_PID=""
kill "$SERVER_PID"; STATUS=0; wait "$SERVER_PID" || STATUS=$?; SERVER_PID=""

step "5: PostgreSQL + PostGIS, the trigger pattern, ${PG_SECONDS}s"
# Its cluster lives in the run folder, so the exit trap removes it whatever happens.
PG_DIR=$RUN/pg; mkdir "$PG_DIR"
[ -z "$AS_PG" ] || { chmod 755 "$RUN"; chown postgres "$PG_DIR"; }
PG_DATA=$PG_DIR/data
timeout 120 $AS_PG "$PG_BIN/initdb" -D "$PG_DATA" -A trust -U postgres -E UTF8 --no-sync >"$RUN/initdb.log"
PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Durable as the server's --fsync always: fsync and synchronous_commit stay on (defaults).
timeout 120 $AS_PG "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/log" -w -o "-p $PG_PORT -c listen_addresses=127.0.0.1 \
  -k $PG_DIR -c shared_buffers=256MB -c max_wal_size=4GB" start >/dev/null || fail "PostgreSQL did not start"
(cd "$HERE" && timeout $((PG_SECONDS + 600)) "$VENV/bin/python" postgis_peer.py --port "$PG_PORT" \
  --fences "$WORLD/fences_10000.geojson" --devices "$DEVICES" --duration "$PG_SECONDS" --out "$RUN/postgis.json") \
  || fail "the PostGIS peer failed"
timeout 120 $AS_PG "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null; PG_DATA=""

cat >"$RUN/meta.json" <<EOF
{"mode":"$MODE","cores":$(nproc),"background_cpu_pct":$BUSY,"devices":$DEVICES,"fences":10000,
 "ingest_connections":$INGEST_CONNECTIONS,"server_args":"${SERVER_ARGS:-}","server_exit_status":$STATUS,"wrk":"$(wrk -v 2>&1 | head -1 | cut -c1-60)"}
EOF
python3 "$HERE/report.py" "$RUN" "$ROOT/out/server-bench.json"
