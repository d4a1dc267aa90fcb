#!/usr/bin/env python3
"""PartitionRun's reordering without Spark: one partition's rows arrive as map-task blocks in
any order, cut into Arrow batches anywhere; the spooled input must be the file's order, the
file headers dropped, and a delivery that breaks the model refused. Seeded; prints the seed.

    .spark-venv/bin/python integrations/spark/test_partition_run.py [SEED]
"""
import os
import random
import sys

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import geofence_spark as g  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


def delivery(seed):
    """Files of lines split into map tasks (splits); returns the expected spool (file order,
    headers dropped), the batches as the shuffle would deliver them, and the headers."""
    rng = random.Random(seed)
    headers = [b"device_id,timestamp,lat,lon", b"\xef\xbb\xbfdevice_id,timestamp,lat,lon\r"]
    tasks, task = [], 0
    for f, header in enumerate(headers):
        lines = [header] + [b"d%d,%d,%d,%d" % (rng.randrange(5), rng.randrange(100), f, k) for k in range(rng.randrange(1, 400))]
        # Splits of the file, each read by one map task; the first starts at byte 0.
        cut, start = sorted(rng.sample(range(1, len(lines)), min(len(lines) - 1, rng.randrange(0, 5)))), 0
        offset = 0
        for end in cut + [len(lines)]:
            rows = lines[start:end]
            # The shuffle keeps a random part of each task's rows for this partition.
            kept = [(r, k) for k, r in enumerate(rows) if rng.random() < 0.7 or (f, start, k) == (f, 0, 0)]
            # Hadoop drops the byte order mark of a file's first line.
            kept = [(g.without_bom(r) if (start, k) == (0, 0) else r, k) for r, k in kept]
            tasks.append((task, f, offset, kept))
            offset += sum(len(r) + 1 for r in rows)
            start = end
            task += 1
    expected = b"".join(r + b"\n" for t, f, o, kept in tasks for r, k in kept if not (o == 0 and k == 0))
    order = list(range(len(tasks)))
    rng.shuffle(order)
    lines, rows, splits = [], [], []
    for i in order:
        t, f, offset, kept = tasks[i]
        for r, k in kept:
            lines.append(r + b"\n")
            rows.append((t << g.RECORD_BITS) | k)
            splits.append((f << g.SPLIT_BITS) | offset)
    batches, at = [], 0
    while at < len(lines):
        n = rng.randrange(1, 60)
        batches.append(pa.RecordBatch.from_arrays(
            [pa.array(lines[at:at + n], pa.binary()), pa.array(rows[at:at + n], pa.int64()), pa.array(splits[at:at + n], pa.int64())],
            ["line", "row", "split"]))
        at += n
    ids = [row for i in sorted(range(len(tasks))) for row in [(tasks[i][0] << g.RECORD_BITS) | k for r, k in tasks[i][3]]
           if not (tasks[i][2] == 0 and row & g.RECORD_MASK == 0)]
    return expected, batches, headers, ids, order


def main():
    seeds = [int(sys.argv[1])] if len(sys.argv) > 1 else range(1, 201)
    for seed in seeds:
        expected, batches, headers, ids, order = delivery(seed)
        job = {"raw_headers": headers, "files": ["a.csv", "b.csv"]}
        run = g.PartitionRun(job, partition=0)
        run.add(iter(batches))
        path, got_ids = run.ordered_input()
        with open(path, "rb") as f:
            got = f.read()
        os.unlink(path)
        ok = got == expected and list(got_ids) == ids and run.headers == 2
        if not ok or seed == seeds[-1]:
            check(f"seed {seed}: map-task blocks in order {order[:8]}... spooled in file order, headers dropped", ok,
                  f"{len(got)} bytes against {len(expected)}, {run.headers} headers")
        if not ok:
            break
    # A delivery outside the model: one map task's rows interleaved with another's.
    bad = pa.RecordBatch.from_arrays([pa.array([b"a\n", b"b\n", b"c\n"], pa.binary()),
                                      pa.array([(1 << g.RECORD_BITS) | 5, 1 << g.RECORD_BITS, (1 << g.RECORD_BITS) | 9], pa.int64()),
                                      pa.array([1, 1, 1], pa.int64())], ["line", "row", "split"])
    run = g.PartitionRun({"raw_headers": [], "files": []}, partition=0)
    run.add(iter([bad]))
    try:
        run.ordered_input()
        check("interleaved rows of one map task are refused", False, "accepted")
    except RuntimeError as error:
        check("interleaved rows of one map task are refused", "interleave" in str(error), str(error))
    finally:
        if os.path.exists(run.spool):
            os.unlink(run.spool)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
