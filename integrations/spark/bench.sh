#!/usr/bin/env bash
# `make spark-bench`: the Spark job in local[2] against one process, in the same minutes.
#
#   bash integrations/spark/bench.sh ENGINE [ROUNDS]
#
# Builds 20x Austin (3.21M rows, make_scaled_austin.py), then ROUNDS times (default 3):
# `geofence evaluate --threads 2` to a file (and to /dev/null, for the engine's own cost),
# and the whole Spark job (spark-submit of geofence_spark.py, NDJSON written by the
# engines), each under /usr/bin/time, with the load average before each run. After each Spark run: the driver's phases, each partition's engine
# phases, and the stage breakdown from the event log (stage_report.py); then Spark's floor, a
# job that does nothing (floor_job.py: a session and one 1,000-row shuffle). Set SPARK_OPTS for
# extra spark-submit options (e.g. a class data sharing archive for the driver JVM:
# --driver-java-options -XX:SharedArchiveFile=...). Needs .spark-venv (make spark-test).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
ENGINE=$(realpath "${1:?usage: bench.sh ENGINE [ROUNDS]}")
ROUNDS=${2:-3}
export PATH=$ROOT/.spark-venv/bin:$PATH SPARK_LOCAL_IP=127.0.0.1
export PYSPARK_PYTHON=$ROOT/.spark-venv/bin/python PYSPARK_DRIVER_PYTHON=$ROOT/.spark-venv/bin/python
WORK=$(mktemp -d /tmp/geofence-spark-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FIXES=$WORK/austin20.csv FENCES=$ROOT/data/austin/fences.geojson
python3 integrations/spark/make_scaled_austin.py --copies 20 --output "$FIXES"
echo "input: $(wc -l < "$FIXES") lines, $(du -h "$FIXES" | cut -f1)"
# Each run that writes starts with no earlier output left to write back or to discard: a
# run that follows another's 3.6 GB of dirty pages spends seconds of system time on them
# (one process 3.4 s after a sync, 7.1 s with the previous Spark output still being
# written), and one that starts right after a 3.6 GB file was removed competes with the
# disk's discard of it (2026-11-24, 22:50: one process 2.2-2.8 s with `sync; sleep 2`
# before it, 3.3-8.2 s with `sync` alone).
settle() { sync; sleep 3; }
for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$WORK/out" "$WORK/one.ndjson"; settle
  echo "--- round $round, load $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "one process (evaluate --threads 2 to a file): %e s wall, %U s user, %S s sys" \
    "$ENGINE" evaluate --fences "$FENCES" --fixes "$FIXES" --threads 2 --quiet --output "$WORK/one.ndjson"
  rm -f "$WORK/one.ndjson"
  # The same run without the file: what the engine costs without the kernel's cost of
  # taking 3.6 GB into a file.
  /usr/bin/time -f "one process (evaluate --threads 2 to /dev/null): %e s wall, %U s user, %S s sys" \
    "$ENGINE" evaluate --fences "$FENCES" --fixes "$FIXES" --threads 2 --quiet --output /dev/null
  settle
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$WORK/out" "$WORK/events" && mkdir -p "$WORK/events"
  /usr/bin/time -o "$WORK/time" -f "spark (local[2], whole spark-submit): %e s wall, %U s user, %S s sys" \
    spark-submit --master 'local[2]' --driver-memory 2g --conf spark.ui.enabled=false \
      --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="file:$WORK/events" ${SPARK_OPTS:-} \
      integrations/spark/geofence_spark.py --engine "$ENGINE" --fences "$FENCES" --fixes "$FIXES" \
      --output "$WORK/out" 2> "$WORK/spark.log" || { tail -20 "$WORK/spark.log"; exit 1; }
  cat "$WORK/time"
  "$PYSPARK_PYTHON" - "$WORK/out/_geofence_summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print("driver phases (s):", s["driverSeconds"])
for p in s["byPartition"]:
    print(f"  partition {p['partition']}: {p['rowsRead']} rows, {p['events']} events; engine {p['seconds']:.2f} s "
          f"(read {p['phaseSeconds']['read']:.2f}, evaluate {p['phaseSeconds']['evaluate']:.2f}); "
          f"rows received and spooled in {p['feedSeconds']} s (Python busy {p['spoolSeconds']} s); {p['runs']} map-task runs")
EOF
  "$PYSPARK_PYTHON" integrations/spark/stage_report.py "$WORK"/events/*
  # Spark's floor in the same minutes: a job that does nothing (floor_job.py).
  /usr/bin/time -o "$WORK/time" -f "spark floor (local[2], a session and one 1,000-row shuffle): %e s wall, %U s user, %S s sys" \
    spark-submit --master 'local[2]' --driver-memory 2g --conf spark.ui.enabled=false ${SPARK_OPTS:-} \
      integrations/spark/floor_job.py 2> "$WORK/floor.log" || { tail -20 "$WORK/floor.log"; exit 1; }
  cat "$WORK/time"
  grep '^floor job phases' "$WORK/floor.log" || true
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
