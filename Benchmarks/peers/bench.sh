#!/usr/bin/env bash
# The self-contained benchmark: the C peers, the pinned venv, the seeded world, the suite.
# Run from the clone's root (the top Makefile's `make bench` does, after the release build):
#   bash Benchmarks/peers/bench.sh [STAGE ...]   stages: peers venv world suite (default: all four)
# Environment: BENCH_QUICK=1 for the CI-sized run (small world, one round; every peer and every
# checksum still checked); BENCH_PYTHON: the Python that makes the venv (default python3);
# BENCH_THREADS: threads of the all-threads cases (default: the cores).
# Everything it makes stays in the clone: .build-peers/ (C peers, worlds) and .bench-venv/,
# both git-ignored; the results go to out/bench.json and out/bench.svg.
set -euo pipefail

root=$(pwd)
here=Benchmarks/peers
if [ ! -f "$here/gen_world.py" ]; then
    echo "bench.sh: run it from the clone's root (where $here is)" >&2
    exit 2
fi
bin=.build-peers/bin
venv=.bench-venv
python=$venv/bin/python
release=.build/release
quick=${BENCH_QUICK:-}
[ "$quick" = 0 ] && quick=
if [ -n "$quick" ]; then
    world=.build-peers/world-quick
    fences=(1000 10000)
    fixes=200000
    suite_args=(--rounds 1 --repeats 2 --whole-rounds 1 --cases build contains whole)
else
    world=.build-peers/world
    fences=(1000 10000 100000)
    fixes=1000000
    suite_args=(--rounds 3 --repeats 3 --whole-rounds 3 --cases build contains nearest evaluate load whole)
fi

stage_peers() {
    echo "== C peers ($bin)"
    make --no-print-directory -s -C "$here" BUILD="$root/$bin"
}

stage_venv() {
    # Made again when requirements.txt changes (its hash is kept in the venv).
    local want have=""
    want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
    [ -f "$venv/.requirements.sha256" ] && have=$(cat "$venv/.requirements.sha256")
    if [ "$want" != "$have" ] || [ ! -x "$python" ]; then
        echo "== Python venv ($venv, from $here/requirements.txt)"
        local maker=${BENCH_PYTHON:-python3}
        command -v "$maker" >/dev/null || { echo "bench: $maker not found: install Python 3 (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
        rm -rf "$venv"
        "$maker" -m venv "$venv" || { echo "bench: '$maker -m venv' failed: Debian needs apt-get install python3-venv" >&2; exit 1; }
        "$python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$here/requirements.txt" || {
            echo "bench: pip could not install $here/requirements.txt from PyPI into $venv" >&2; exit 1; }
        echo "$want" > "$venv/.requirements.sha256"
    fi
    # Names whatever is missing (module or spatial extension) and how to get it.
    echo "== Python peers' packages: $("$python" "$here/peerlib.py")"
}

stage_world() {
    echo "== world ($world: fences ${fences[*]}, $fixes fixes)"
    python3 "$here/gen_world.py" --out "$world" --fences "${fences[@]}" --fixes "$fixes"
}

stage_suite() {
    for program in geofence geofence-bench; do
        [ -x "$release/$program" ] || { echo "bench: $release/$program is missing: swift build -c release --static-swift-stdlib --product $program (make bench does)" >&2; exit 1; }
    done
    mkdir -p out
    echo "== suite${quick:+ (quick)}: ${suite_args[*]}"
    local threads=()
    [ -n "${BENCH_THREADS:-}" ] && threads=(--threads "$BENCH_THREADS")
    "$release/geofence-bench" suite --peers-data "$world" --peers "$here" --peers-bin "$bin" --python "$python" \
        --fences "${fences[@]}" --fixes "$fixes" "${suite_args[@]}" "${threads[@]}" \
        --json out/bench.json --svg out/bench.svg
    echo "Results: out/bench.json, out/bench.svg"
}

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(peers venv world suite)
for stage in "${stages[@]}"; do
    case $stage in
        peers | venv | world | suite) "stage_$stage" ;;
        *) echo "bench.sh: unknown stage $stage (peers venv world suite)" >&2; exit 2 ;;
    esac
done
