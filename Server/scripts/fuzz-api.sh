#!/usr/bin/env bash
# Fuzzes geofence-server's HTTP API with schemathesis against Server/openapi.yaml (issue 41:
# "a request can never crash the server"). Run from anywhere; `make server-fuzz` runs it.
#
#   1. a virtual environment in .build-schemathesis/venv (git-ignored by `.build-*/`) with
#      schemathesis from PyPI, pinned with its dependencies in fuzz-api-requirements.txt,
#      installed once (again when that file changes);
#   2. a debug build of geofence-server (Server/.build);
#   3. a server on a free loopback port (--port 0) in a temporary folder, on the Austin fences,
#      with a token file (one token per scope); schemathesis gets the admin token;
#   4. schemathesis with a bounded number of examples per operation, under `timeout`.
#
# Fails (exit 1) when schemathesis reports a failed check (a 5xx, a status code, content type,
# header or body the document does not describe) or an error, or when the server is not
# alive and answering /healthz at the end, or does not exit 0 on SIGTERM. The temporary
# folder and the server are removed/stopped in every case. The server's standard error is
# printed when something failed.
#
# Environment:
#   FUZZ_EXAMPLES  examples per operation (default 600: 40-60 s of schemathesis on 2 cores)
#   FUZZ_SECONDS   the most schemathesis may run; past it `timeout` stops it and the run fails
#                  (default 200)
#   FUZZ_SEED      schemathesis's --seed (default random; printed, so a failure can be replayed)
#   FUZZ_WORKERS   schemathesis's --workers (default 2)
#   FUZZ_CHECKS    schemathesis's --checks (default the five above; `all` adds stricter ones)
#   FUZZ_PYTHON    the environment's interpreter (default the first of python3.13, python3.12,
#                  python3 that runs: CPython 3.11 has an AST bug hypothesis can hit, which
#                  fuzz_api_hooks.py works around)
# Extra arguments go to `schemathesis run`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
requirements=$root/Server/scripts/fuzz-api-requirements.txt
SCHEMATHESIS_VERSION=$(sed -n 's/^schemathesis==//p' "$requirements")
venv=$root/.build-schemathesis/venv
examples=${FUZZ_EXAMPLES:-600}
seconds=${FUZZ_SECONDS:-200}
workers=${FUZZ_WORKERS:-2}
checks=${FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance}
seed=${FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
start=$(date +%s)

# 1. schemathesis, pinned.
python=${FUZZ_PYTHON:-}
if [ -z "$python" ]; then
    for candidate in python3.13 python3.12 python3; do
        if command -v "$candidate" > /dev/null && "$candidate" -c 'import venv' 2> /dev/null; then python=$candidate; break; fi
    done
fi
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != "schemathesis, version $SCHEMATHESIS_VERSION" ] \
    || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    echo "fuzz-api: installing schemathesis $SCHEMATHESIS_VERSION in $venv ($("$python" --version))"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    timeout 600 "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
fi

# 2. The server, debug.
timeout 1200 swift build --package-path "$root/Server" --scratch-path "$root/Server/.build" --product geofence-server
server=$root/Server/.build/debug/geofence-server
built=$(date +%s)

# 3. A server in a temporary folder, stopped and removed whatever happens.
tmp=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        # `timeout` passes SIGTERM on and kills the server 5 s later if it is still there.
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

token() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
admin=$(token)
{
    echo "$(token) ingest"
    echo "$(token) read"
    echo "$admin admin"
} > "$tmp/tokens"
mkdir -p "$tmp/work"

# `timeout` bounds the server's life even if this script is killed; it passes SIGTERM on and
# exits with the server's status.
timeout --kill-after=5 900 "$server" --fences "$root/data/austin/fences.geojson" --data "$tmp/data" \
    --token-file "$tmp/tokens" --host 127.0.0.1 --port 0 > "$tmp/server.out" 2> "$tmp/server.err" &
pid=$!
port=
for _ in $(seq 1 300); do
    port=$(sed -n 's|^geofence-server listening on http://127\.0\.0\.1:\([0-9]*\)$|\1|p' "$tmp/server.out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "fuzz-api: the server did not start:"; cat "$tmp/server.err"; exit 1
fi
base=http://127.0.0.1:$port
echo "fuzz-api: server pid $pid on $base; schemathesis $SCHEMATHESIS_VERSION ($("$venv/bin/python" --version)), $examples examples per operation, seed $seed"
# The device the document's examples name (GET /v1/devices/{id}), so that operation is
# reached beyond its 404.
curl --silent --show-error --fail --max-time 10 -o /dev/null -H "Authorization: Bearer $admin" \
    -H 'Content-Type: application/x-ndjson' --data-binary '{"deviceId":"phone-a","timestamp":1700000000000,"lat":30.2672,"lng":-97.7431,"accuracy":10}' \
    "$base/v1/fixes"

# 4. schemathesis. Checks: no 5xx, and every status code, content type, header and body as
# the document describes it. Run in the temporary folder: its .hypothesis database and
# reports go there.
status=0
(
    cd "$tmp/work"
    export SCHEMATHESIS_HOOKS=fuzz_api_hooks PYTHONPATH="$root/Server/scripts${PYTHONPATH:+:$PYTHONPATH}"
    timeout --kill-after=10 "$seconds" "$venv/bin/schemathesis" run "$root/Server/openapi.yaml" \
        --url "$base" --header "Authorization: Bearer $admin" \
        --checks "$checks" \
        --max-examples "$examples" --seed "$seed" --workers "$workers" --generation-database none \
        --request-timeout 20 --suppress-health-check all --no-color "$@"
) || status=$?
[ "$status" -eq 0 ] || echo "fuzz-api: schemathesis failed (status $status)"

# 5. The server must have lived through it, answer, and stop cleanly.
alive=1
if ! kill -0 "$pid" 2>/dev/null; then
    alive=0; echo "fuzz-api: the server died during the run"
elif ! health=$(curl --silent --show-error --fail --max-time 10 "$base/healthz"); then
    alive=0; echo "fuzz-api: the server did not answer /healthz"
else
    echo "fuzz-api: /healthz $health"
fi
exit_status=
if [ "$alive" -eq 1 ]; then
    kill -TERM "$pid"
    exit_status=0
    wait "$pid" || exit_status=$?
    pid=
    if [ "$exit_status" -ne 0 ]; then echo "fuzz-api: the server exited with status $exit_status on SIGTERM"; fi
else
    wait "$pid" 2>/dev/null || exit_status=$?
    pid=
    echo "fuzz-api: the server's exit status: ${exit_status:-0}"
fi
if [ "$status" -ne 0 ] || [ "$alive" -ne 1 ] || [ "${exit_status:-1}" -ne 0 ]; then
    echo "fuzz-api: the server's standard error (last 40 lines):"; tail -n 40 "$tmp/server.err"
    echo "fuzz-api: FAILED ($(( $(date +%s) - built )) s after the build)"
    exit 1
fi
echo "fuzz-api: passed ($(( $(date +%s) - built )) s after the build, $(( $(date +%s) - start )) s in all)"
