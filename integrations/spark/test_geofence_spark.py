#!/usr/bin/env python3
"""The Spark integration's test: every case's output against one `geofence evaluate --threads 1`.

Run by `make spark-test` (integrations/spark/spark_test.sh) on a standalone cluster of two
workers on loopback:

    spark-submit --master spark://127.0.0.1:PORT integrations/spark/test_geofence_spark.py \\
        --engine dist/geofence --work /tmp/folder

Each case writes its fix files, runs the job (geofence_spark.main, all in one Spark session
to pay the JVMs' start once), and checks: NDJSON parts concatenated in name order equal the
one-process output byte for byte; the summary's counts equal the one-process summary's, and
its rejection examples name the right file and line; Parquet read back gives the same events.
Prints one line per check and closes with `N passed, M failed` (exit status 1 on a failure).
"""
import argparse
import glob
import json
import os
import random
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
AUSTIN = os.path.join(ROOT, "data", "austin", "capmetro_avl_traces.csv")
FENCES = os.path.join(ROOT, "data", "austin", "fences.geojson")
sys.path.insert(0, HERE)
import geofence_spark  # noqa: E402
import make_scaled_austin  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


def one_process(engine, fixes, work, name):
    """The expected output and summary: one engine, one thread, over one file."""
    out, summary = os.path.join(work, name + ".expected"), os.path.join(work, name + ".expected.json")
    subprocess.run([engine, "evaluate", "--fences", FENCES, "--fixes", fixes, "--threads", "1", "--quiet",
                    "--output", out, "--summary", summary], check=True)
    with open(summary) as f:
        return out, json.load(f)


def concatenated(folder):
    parts = sorted(glob.glob(os.path.join(folder, "part-*")))
    data = bytearray()
    for p in parts:
        with open(p, "rb") as f:
            data += f.read()
    return bytes(data), len(parts)


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def compare_counts(name, got, expected):
    for key in ("rowsRead", "processed", "rejected", "blankLines", "devices", "events", "eventsByType"):
        check(f"{name}: summary {key}", got[key] == expected[key], f"{got[key]} != {expected[key]}")
    for reason, r in expected["rejectedByReason"].items():
        check(f"{name}: {reason} count", got["rejectedByReason"][reason]["count"] == r["count"],
              f"{got['rejectedByReason'][reason]['count']} != {r['count']}")


def run_case(name, engine, work, fixes, expected_input, extra=(), partitions=3, conf=None, check_lines=None, spark=None):
    """Runs the job on `fixes`, compares with one process over `expected_input`.
    `check_lines(got_summary, expected_summary)` checks the rejection examples."""
    out = os.path.join(work, name + ".out")
    expected_out, expected_summary = one_process(engine, expected_input, work, name)
    saved = {}
    for key, value in (conf or {}).items():
        saved[key] = spark.conf.get(key, None)
        spark.conf.set(key, value)
    try:
        summary = geofence_spark.main(["--engine", engine, "--fences", FENCES, "--fixes", *fixes, "--output", out,
                                       "--partitions", str(partitions), *extra], stop=False)
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
    with open(os.path.join(out, geofence_spark.SUMMARY_NAME)) as f:
        written = json.load(f)
    check(f"{name}: summary file written", written["rowsRead"] == summary["rowsRead"])
    if "--format" in extra and "parquet" in extra:
        check_parquet(name, out, expected_out)
    else:
        data, parts = concatenated(out)
        expected = file_bytes(expected_out)
        check(f"{name}: {parts} parts concatenated = one process, byte for byte ({len(expected)} bytes)", data == expected,
              f"{len(data)} bytes against {len(expected)}")
    compare_counts(name, summary, expected_summary)
    if check_lines:
        check_lines(summary, expected_summary)
    return summary


def check_parquet(name, out, expected_out):
    import pyarrow.parquet as pq
    files = sorted(glob.glob(os.path.join(out, "*.parquet")))
    rows = []
    for f in files:
        rows += pq.read_table(f).to_pylist()
    expected = [line for line in file_bytes(expected_out).split(b"\n") if line]
    check(f"{name}: parquet has every event ({len(expected)})", len(rows) == len(expected), f"{len(rows)} rows")
    bad = None
    for row, line in zip(rows, expected):
        event = json.loads(line)
        properties = line[line.index(b',"geofenceProperties":') + len(b',"geofenceProperties":'):-1].decode()
        millis = int(row["timestamp"].timestamp() * 1000 + 0.5) if row["timestamp"] else None
        same = (row["eventType"] == event["eventType"] and millis == event["timestamp"]
                and row["deviceId"] == event["deviceId"] and row["geofenceId"] == event["geofenceId"]
                and row["lat"] == event["lat"] and row["lng"] == event["lng"] and row["radius"] == event["radius"]
                and row["level"] == event.get("level") and row["geofenceProperties"] == properties)
        if not same:
            bad = (row, line)
            break
    check(f"{name}: parquet rows read back = the one-process events, in order", bad is None, f"{bad}")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def austin_lines():
    with open(AUSTIN, "rb") as f:
        header = f.readline().rstrip(b"\n")
        return header, f.read().splitlines()


def bad_rows_file(work):
    """Rows the engine rejects for every reason, quoted ids, blank lines, a repeated header,
    extra fields (which a CSV reader would drop), no final line break."""
    header, rows = austin_lines()
    rows = rows[:3000]
    body = list(rows)
    inserts = [
        (10, b"capmetro-10101,2016-11-26T22:30:00Z,30.44,-97.70,extra"),   # one field too many
        (20, b"capmetro-10101,yesterday,30.44,-97.70"),                    # bad timestamp
        (30, b""),                                                         # blank
        (40, b"capmetro-10101,2016-11-26T22:40:00Z,95,-97.70"),            # latitude out of range
        (50, b'"quoted, id",2016-11-26T22:41:00Z,30.26,-97.74'),           # quoted id with a comma
        (51, b'"quoted, id",2016-11-26T22:45:00Z,30.44,-97.70'),
        (52, b'"say ""hi""",2016-11-26T22:45:00Z,30.26,-97.74'),           # escaped quotes
        (60, b",2016-11-26T22:41:00Z,30.26,-97.74"),                       # empty device id
        (70, b'"open,2016-11-26T22:41:00Z,30.26,-97.74'),                  # unterminated quote
        (80, header),                                                      # the header again
        (90, "ünïcode-bus,2016-11-26T22:41:00Z,30.26,-97.74".encode()),
        (91, b"\r"),                                                       # a lone CR: blank
        (2500, b"capmetro-10101,2016-11-26T23:59:00Z,north,-97.70"),       # bad number, late in the file
    ]
    for at, line in sorted(inserts, reverse=True):
        body.insert(at, line)
    return write(os.path.join(work, "bad.csv"), header + b"\n" + b"\n".join(body))


def crlf_bom_file(work):
    """CRLF line ends, a byte order mark, and the device id last (its CR is not part of it)."""
    header, rows = austin_lines()
    out = [b"\xef\xbb\xbftimestamp,lat,lon,device_id"]
    for r in rows[:20000]:
        device, rest = r.split(b",", 1)
        out.append(rest + b"," + device)
    return write(os.path.join(work, "crlf.csv"), b"\r\n".join(out) + b"\r\n")


def equal_times_file(work):
    """Devices that report several positions at one instant, in and out of stops: only file
    order decides their events. Small splits put one device's equal timestamps in several
    map tasks."""
    rng = random.Random(20261123)
    header, rows = austin_lines()
    positions = [r.split(b",")[2:4] for r in rows[:5000]]
    out = [b"device_id,timestamp,lat,lon"]
    for step in range(4000):
        for d in range(6):
            t = 1480000000000 + (step // 5) * 60000  # five rows per device share each timestamp
            lat, lon = positions[rng.randrange(len(positions))]
            out.append(b"dev-%d,%d,%s,%s" % (d, t, lat, lon))
    return write(os.path.join(work, "equal.csv"), b"\n".join(out) + b"\n")


def two_files(work):
    header, rows = austin_lines()
    first = rows[:60000]
    second = rows[60000:120000]
    second.insert(100, b"capmetro-10101,never,30.44,-97.70")  # line 102 of the second file
    a = write(os.path.join(work, "part-a.csv"), header + b"\n" + b"\n".join(first) + b"\n")
    b = write(os.path.join(work, "part-b.csv"), header + b"\n" + b"\n".join(second) + b"\n")
    whole = write(os.path.join(work, "a-then-b.csv"), header + b"\n" + b"\n".join(first + second) + b"\n")
    return a, b, whole


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--quick", action="store_true", help="skip the 10x case")
    args = parser.parse_args()
    engine, work = os.path.abspath(args.engine), args.work
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("geofence-spark-test").getOrCreate()
    spark.sparkContext.addPyFile(os.path.join(HERE, "geofence_spark.py"))
    cases = []

    def case(function):
        cases.append(function)
        return function

    @case
    def austin():
        run_case("austin", engine, work, [AUSTIN], AUSTIN, spark=spark)

    @case
    def austin_through_spark():
        run_case("austin-through-spark", engine, work, [AUSTIN], AUSTIN, extra=["--write", "spark"], partitions=2, spark=spark)

    @case
    def austin_parquet():
        run_case("austin-parquet", engine, work, [AUSTIN], AUSTIN, extra=["--format", "parquet"], partitions=2, spark=spark)

    if not args.quick:
        @case
        def austin10():
            scaled = os.path.join(work, "austin10.csv")
            make_scaled_austin.main(["--copies", "10", "--output", scaled])
            # 8 MB splits: about twelve map tasks, so each partition gathers many runs.
            run_case("austin10", engine, work, [scaled], scaled, partitions=4,
                     conf={"spark.sql.files.maxPartitionBytes": str(8 << 20)}, spark=spark)
            os.unlink(scaled)

    @case
    def bad_rows():
        path = bad_rows_file(work)

        def lines(got, expected):
            for reason, r in expected["rejectedByReason"].items():
                g = got["rejectedByReason"][reason]
                check(f"bad-rows: {reason} lines are the file's ({r['lines']})", g["lines"] == r["lines"], f"{g['lines']}")
                messages = [e.split(": ", 1)[1] for e in r["examples"]]
                got_messages = [e.split(": ", 1)[1] for e in g["examples"]]
                check(f"bad-rows: {reason} messages", got_messages == messages, f"{got_messages} != {messages}")
                check(f"bad-rows: {reason} examples name the file", all(e.startswith("file:" + path + " line ") for e in g["examples"]),
                      f"{g['examples']}")
            check("bad-rows: 7 rejections (6 parse, 1 coordinate) and 2 blank lines seen", expected["rejected"] == 7 and expected["blankLines"] == 2,
                  f"{expected['rejected']} rejected, {expected['blankLines']} blank")
        # Small splits: the repeated header and the bad rows sit in several map tasks.
        run_case("bad-rows", engine, work, [path], path, partitions=3, check_lines=lines,
                 conf={"spark.sql.files.maxPartitionBytes": str(64 << 10)}, spark=spark)

    @case
    def crlf_bom():
        path = crlf_bom_file(work)
        run_case("crlf-bom", engine, work, [path], path, partitions=3, spark=spark)

    @case
    def equal_timestamps():
        path = equal_times_file(work)
        summary = run_case("equal-timestamps", engine, work, [path], path, partitions=2,
                           conf={"spark.sql.files.maxPartitionBytes": str(64 << 10)}, spark=spark)
        runs = max(p["runs"] for p in summary["byPartition"])
        check(f"equal-timestamps: a partition gathered rows from several map tasks ({runs} runs)", runs > 1)

    @case
    def two_input_files():
        a, b, whole = two_files(work)

        def lines(got, expected):
            g = got["rejectedByReason"]["parse"]
            check("two-files: the rejected row is named by its own file and line",
                  g["examples"][:1] == [f"file:{b} line 102: " + expected["rejectedByReason"]["parse"]["examples"][0].split(": ", 1)[1]],
                  f"{g['examples']}")
        run_case("two-files", engine, work, [a, b], whole, partitions=3, check_lines=lines, spark=spark)

    @case
    def refusals():
        header, rows = austin_lines()
        other = write(os.path.join(work, "other.csv"), b"device_id,lat,lon,timestamp\n")
        for argv, text in [
            (["--fixes", AUSTIN, other], "header differs"),
            (["--fixes", os.path.join(work, "missing.csv")], "no such file"),
            (["--fixes", AUSTIN, "--", "--dwell", "-5"], "dwell"),
            (["--fixes", AUSTIN, "--", "--output", "x"], "set by the integration"),
        ]:
            out = os.path.join(work, "refused.out")
            try:
                geofence_spark.main(["--engine", engine, "--fences", FENCES, "--output", out] + argv, stop=False)
                check(f"refused: {text}", False, "accepted")
            except geofence_spark.UsageError as error:
                check(f"refused: {text}", text in str(error) and not os.path.exists(out), str(error))
        existing = os.path.join(work, "austin.out")
        try:
            geofence_spark.main(["--engine", engine, "--fences", FENCES, "--fixes", AUSTIN, "--output", existing], stop=False)
            check("refused: an existing output folder", False, "accepted")
        except geofence_spark.UsageError as error:
            check("refused: an existing output folder", "already exists" in str(error), str(error))

    for function in cases:
        try:
            function()
        except Exception:
            check(function.__name__, False, traceback.format_exc())
    spark.stop()
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
