#!/usr/bin/env python3
"""Where a Spark job's time went, from its event log (spark.eventLog.enabled=true).

    spark-submit --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=/tmp/events ...
    python3 integrations/spark/stage_report.py /tmp/events/local-*

Prints the application's wall time and, per stage, its wall time and its tasks' summed run
time, CPU time, garbage collection, shuffle write and read (bytes and time), and result
serialization: what `make spark-bench` reports as the stage breakdown.
"""
import json
import os
import sys


def lines(path):
    """The event log's lines; a rolling log (eventlog_v2_*) is a folder of event files,
    compressed with zstd unless spark.eventLog.compress=false (read with pyarrow)."""
    if os.path.isdir(path):
        names = sorted((n for n in os.listdir(path) if n.startswith("events_")), key=lambda n: int(n.split("_")[1]))
        for name in names:
            yield from lines(os.path.join(path, name))
    elif path.endswith(".zstd"):
        import pyarrow as pa
        with pa.CompressedInputStream(pa.OSFile(path), "zstd") as f:
            yield from f.read().decode("utf-8").splitlines()
    else:
        with open(path) as f:
            yield from f


def report(path):
    stages, tasks = {}, {}
    app_start = app_end = None
    if True:
        for line in lines(path):
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerApplicationStart":
                app_start = event["Timestamp"]
            elif kind == "SparkListenerApplicationEnd":
                app_end = event["Timestamp"]
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                stages[info["Stage ID"]] = info
            elif kind == "SparkListenerTaskEnd":
                metrics = event.get("Task Metrics") or {}
                total = tasks.setdefault(event["Stage ID"], {"tasks": 0, "run": 0, "cpu": 0, "gc": 0, "deser": 0,
                                                              "shuffleWriteBytes": 0, "shuffleWriteTime": 0,
                                                              "shuffleReadBytes": 0, "fetchWait": 0, "inputBytes": 0,
                                                              "spilled": 0})
                total["tasks"] += 1
                total["run"] += metrics.get("Executor Run Time", 0) / 1000
                total["cpu"] += metrics.get("Executor CPU Time", 0) / 1e9
                total["gc"] += metrics.get("JVM GC Time", 0) / 1000
                total["deser"] += metrics.get("Executor Deserialize Time", 0) / 1000
                write = metrics.get("Shuffle Write Metrics", {})
                total["shuffleWriteBytes"] += write.get("Shuffle Bytes Written", 0)
                total["shuffleWriteTime"] += write.get("Shuffle Write Time", 0) / 1e9
                read = metrics.get("Shuffle Read Metrics", {})
                total["shuffleReadBytes"] += read.get("Remote Bytes Read", 0) + read.get("Local Bytes Read", 0)
                total["fetchWait"] += read.get("Fetch Wait Time", 0) / 1000
                total["inputBytes"] += metrics.get("Input Metrics", {}).get("Bytes Read", 0)
                total["spilled"] += metrics.get("Disk Bytes Spilled", 0)
    if app_start and app_end:
        print(f"application: {(app_end - app_start) / 1000:.1f} s (from the JVM's context start to its stop)")
    for sid in sorted(stages):
        info = stages[sid]
        wall = (info.get("Completion Time", 0) - info.get("Submission Time", 0)) / 1000
        t = tasks.get(sid, {})
        print(f"stage {sid} ({info['Stage Name'].split(' at ')[0]}): {wall:.1f} s wall, {t.get('tasks', 0)} tasks; "
              f"task time {t.get('run', 0):.1f} s (JVM CPU {t.get('cpu', 0):.1f} s, GC {t.get('gc', 0):.1f} s); "
              f"input {t.get('inputBytes', 0) / 1e6:.0f} MB; shuffle write {t.get('shuffleWriteBytes', 0) / 1e6:.0f} MB "
              f"in {t.get('shuffleWriteTime', 0):.1f} s; shuffle read {t.get('shuffleReadBytes', 0) / 1e6:.0f} MB "
              f"(fetch wait {t.get('fetchWait', 0):.1f} s); spilled {t.get('spilled', 0) / 1e6:.0f} MB")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        report(p)
