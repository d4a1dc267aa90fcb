#!/usr/bin/env bash
# `make spark-test`: the Spark integration on a standalone cluster on loopback, a master and
# two workers (separate JVMs: their executors get the engine only through addFile).
#
#   bash integrations/spark/spark_test.sh ENGINE        # ENGINE: the `make dist` binary
#
# Installs what is missing: Java 17 (openjdk-17-jre-headless, with apt-get as root) and
# PySpark with pyarrow and pandas in .spark-venv (pinned in requirements.txt; reused while
# requirements.txt is unchanged). Then runs test_partition_run.py (the reordering of a
# partition's rows, without Spark) and test_geofence_spark.py (every case against one
# `geofence evaluate --threads 1`), and the one command through spark-submit twice: a
# normal run, and an engine that crashes on one partition, which must fail the job (exit
# status 1) and leave no output folder; and that no JVM left a perf-data folder in /tmp.
# Ends the cluster's processes it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
ENGINE=$(realpath "${1:?usage: spark_test.sh ENGINE}")
VENV=$ROOT/.spark-venv
REQUIREMENTS=$ROOT/integrations/spark/requirements.txt

# --- Java 17 or newer. Every JVM here (the launcher, the master, the workers, the driver,
# the executors) runs without its perf-data file, which would leave /tmp/hsperfdata_<user>
# behind on a machine that had none.
export JAVA_TOOL_OPTIONS="-XX:-UsePerfData${JAVA_TOOL_OPTIONS:+ $JAVA_TOOL_OPTIONS}"
PERF_DATA=/tmp/hsperfdata_$(id -un)  # HotSpot writes to /tmp whatever TMPDIR says
[ -e "$PERF_DATA" ] && had_perf_data=1 || had_perf_data=0
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing openjdk-17-jre-headless with apt-get ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || apt-get update
    apt-get install -y -qq openjdk-17-jre-headless >/dev/null || apt-get install -y openjdk-17-jre-headless
  else
    echo "error: Java 17 is missing: sudo apt-get install -y openjdk-17-jre-headless" >&2
    exit 1
  fi
fi

# --- PySpark in a cached virtual environment.
STAMP=$VENV/.requirements
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQUIREMENTS" "$STAMP"; then
  echo "Installing PySpark into $VENV ..." >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$STAMP"
fi
export PATH=$VENV/bin:$PATH
export PYSPARK_PYTHON=$VENV/bin/python PYSPARK_DRIVER_PYTHON=$VENV/bin/python
export SPARK_LOCAL_IP=127.0.0.1 SPARK_HOME=$("$VENV/bin/python" -c 'import pyspark, os; print(os.path.dirname(pyspark.__file__))')

# --- Putting a partition's map-task runs back in file order, without Spark (seconds).
"$VENV/bin/python" integrations/spark/test_partition_run.py

WORK=$(mktemp -d /tmp/geofence-spark-test.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- The cluster: ports the kernel hands out, logs in the work folder.
free_port() { "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
MASTER_PORT=$(free_port)
MASTER=spark://127.0.0.1:$MASTER_PORT
export SPARK_LOG_DIR=$WORK/logs SPARK_WORKER_DIR=$WORK/workers
mkdir -p "$SPARK_LOG_DIR" "$SPARK_WORKER_DIR"
"$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$MASTER_PORT" \
  --webui-port "$(free_port)" > "$SPARK_LOG_DIR/master.log" 2>&1 &
PIDS+=($!)
for k in 1 2; do
  "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 1 --memory 2g \
    --webui-port "$(free_port)" --work-dir "$SPARK_WORKER_DIR/$k" "$MASTER" > "$SPARK_LOG_DIR/worker$k.log" 2>&1 &
  PIDS+=($!)
done
registered() { grep -c "Registering worker" "$SPARK_LOG_DIR/master.log" 2>/dev/null || true; }
for _ in $(seq 1 240); do
  [ "$(registered)" -ge 2 ] 2>/dev/null && break
  sleep 0.5
done
if ! [ "$(registered)" -ge 2 ] 2>/dev/null; then
  echo "error: the Spark workers did not register with $MASTER" >&2
  tail -20 "$SPARK_LOG_DIR"/*.log >&2
  exit 1
fi
echo "Spark master $MASTER with 2 workers (1 core each)" >&2

SUBMIT=(spark-submit --master "$MASTER" --conf spark.ui.enabled=false --conf spark.executor.memory=1g
  --conf spark.executor.memoryOverhead=512m)
LOG=$WORK/logs/submit.log
failed=0

# --- The cases, in one application.
if ! "${SUBMIT[@]}" integrations/spark/test_geofence_spark.py --engine "$ENGINE" --work "$WORK" ${SPARK_TEST_ARGS:-} \
    2> "$LOG.cases"; then
  failed=1
  grep -v " INFO " "$LOG.cases" | tail -40 >&2
fi

# --- The one command, as a user runs it; then an engine that crashes on one partition.
passed=0 total=0
report() { total=$((total + 1)); if [ "$1" = ok ]; then passed=$((passed + 1)); echo "PASS $2"; else echo "FAIL $2"; failed=1; fi; }
OUT=$WORK/command.out
if "${SUBMIT[@]}" integrations/spark/geofence_spark.py --engine "$ENGINE" --fences data/austin/fences.geojson \
    --fixes data/austin/capmetro_avl_traces.csv --output "$OUT" --partitions 2 -- --dwell 90 2> "$LOG.command" \
  && "$ENGINE" evaluate --fences data/austin/fences.geojson --fixes data/austin/capmetro_avl_traces.csv --threads 1 \
    --quiet --dwell 90 --output "$WORK/command.expected" \
  && cat "$OUT"/part-* | cmp -s - "$WORK/command.expected"; then
  report ok "spark-submit geofence_spark.py: exit 0, parts = one process (with -- --dwell 90)"
else
  report fail "spark-submit geofence_spark.py"
  grep -v " INFO " "$LOG.command" | tail -20 >&2
fi

CRASH=$WORK/crashing-geofence
cat > "$CRASH" <<EOF
#!/bin/sh
# The engine, except on the partition holding device capmetro-10101 (partition 0): killed by a signal.
for a in "\$@"; do case "\$prev" in --fixes) fixes=\$a;; esac; prev=\$a; done
if [ -n "\$fixes" ] && grep -q '^capmetro-10101,' "\$fixes"; then kill -SEGV \$\$; fi
exec "$ENGINE" "\$@"
EOF
chmod +x "$CRASH"
status=0
"${SUBMIT[@]}" --conf spark.task.maxFailures=2 integrations/spark/geofence_spark.py --engine "$CRASH" \
  --fences data/austin/fences.geojson --fixes data/austin/capmetro_avl_traces.csv --output "$WORK/crash.out" \
  --partitions 2 2> "$LOG.crash" || status=$?
if [ "$status" = 1 ] && grep -q "geofence engine failed on partition 0 (signal 11)" "$LOG.crash" && [ ! -e "$WORK/crash.out" ]; then
  report ok "a partition whose engine crashes fails the job: exit 1, the partition named, no output folder"
else
  report fail "crashing partition (exit status $status)"
  grep -v " INFO " "$LOG.crash" | tail -20 >&2
fi
# No JVM made a perf-data folder (each would have made it as it started). Where one was
# there before the run, this cannot be told, and the run says so.
if [ "$had_perf_data" = 1 ]; then
  echo "SKIP the JVMs' perf-data folder: $PERF_DATA was there before the run"
elif [ -e "$PERF_DATA" ]; then
  report fail "the JVMs made $PERF_DATA"
else
  report ok "the JVMs made no $PERF_DATA"
fi
echo "spark-submit checks: $passed passed, $((total - passed)) failed"
exit $failed
