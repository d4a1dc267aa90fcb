#!/usr/bin/env python3
"""Runs `geofence evaluate` on Apache Spark: the one-process output, byte for byte, from many machines.

    spark-submit --master spark://HOST:7077 \\
        --conf spark.executor.memoryOverhead=1g \\
        integrations/spark/geofence_spark.py \\
        --engine dist/geofence --fences fences.geojson \\
        --fixes hdfs:///fixes/day1.csv hdfs:///fixes/day2.csv \\
        --output hdfs:///events/day1 [--format ndjson|parquet] [--partitions N] \\
        [-- EVALUATE OPTIONS, e.g. --dwell 120 --max-accuracy 200]

What it does, and why each step is needed for the promise:

1. The fix files are read as raw lines of bytes (never Spark's CSV reader, which drops
   extra fields and so would evaluate rows the engine rejects). Every file must have the
   same header; it is given to each engine with `--header`.
2. Only the device id is read from each line (the field the header names, quotes undone as
   the engine undoes them). Rows are assigned to N partitions by ranges of device ids in
   UTF-8 byte order (bounds from a sample the driver reads), so partition k holds only
   devices that sort before those of partition k + 1: the parts concatenate into the global
   order, and no merge is needed.
3. Each partition's rows are put back in their order in the input (file, then position),
   so a device's equal timestamps keep file order: the shuffle delivers each map task's rows
   in order, so whole runs are reordered, not rows (PartitionRun). They are spooled to a
   local file that the shipped engine reads (`evaluate --fixes SPOOL --header ...
   --summary -`). An engine that exits non-zero fails its task, and so the job.
4. Output. NDJSON to a path the executors can write (a local or shared file system): each
   engine writes its part file itself, OUT/part-00000, ..., so event text never passes
   through the JVM; the part is renamed into place when the engine has succeeded. To HDFS,
   S3 or any other file system (or with --write spark): the events come back to Spark in
   large chunks and Spark's text writer writes OUT/part-*. Parquet: the events are parsed
   into Arrow batches with the declared schema (eventType, timestamp, deviceId, geofenceId,
   lat, lng, radius, level, geofenceProperties as the JSON text) and Spark writes
   OUT/*.parquet. In every case OUT/part-* concatenated in name order is the output of one
   `geofence evaluate` over the files (the header once), and OUT/_geofence_summary.json
   adds up the partitions' summaries, with rejected rows named by file and line.

The engine runs outside the JVM heap: give executors memory for it with
spark.executor.memoryOverhead (each engine holds its partition's fixes, about 40 bytes a
fix, plus its fences). The binary must run on the executors without Swift installed: build
it with `make dist` (the Swift runtime linked in; the machines need libgeos 3.11+ and
libstdc++).

Exit status: 0 done; 1 the job failed (an engine failed, the output is removed); 2 bad
arguments or unreadable input.
"""
import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Positions in a row id (monotonically_increasing_id): partition << 33 | record in partition.
RECORD_BITS = 33
RECORD_MASK = (1 << RECORD_BITS) - 1
# A split key: file index << 44 | the split's first byte (files up to 16 TiB).
SPLIT_BITS = 44
SPLIT_MASK = (1 << SPLIT_BITS) - 1
# Options the integration sets itself.
RESERVED_OPTIONS = {"--fences", "--fixes", "--output", "--summary", "--header", "--line-offset", "--shard", "--quiet", "--sorted-input"}
PARQUET_SCHEMA = ("eventType string, timestamp timestamp, deviceId string, geofenceId string, "
                  "lat double, lng double, radius double, level int, geofenceProperties string")
SUMMARY_NAME = "_geofence_summary.json"


class UsageError(Exception):
    """Bad arguments or unreadable input (exit status 2)."""


# ---------------------------------------------------------------------------------------
# The header and the device field, read as the engine reads them.

def without_bom(line):
    return line[3:] if line.startswith(b"\xef\xbb\xbf") else line


def split_header(line):
    """Header fields of a header line (bytes), quotes removed (the engine's splitHeader)."""
    line = without_bom(line)
    if line.endswith(b"\r"):
        line = line[:-1]
    fields, current, quoted, i = [], bytearray(), False, 0
    while i < len(line):
        b = line[i:i + 1]
        if quoted:
            if b == b'"':
                if line[i + 1:i + 2] == b'"':
                    current += b'"'
                    i += 1
                else:
                    quoted = False
            else:
                current += b
        elif b == b'"':
            quoted = True
        elif b == b",":
            fields.append(bytes(current))
            current = bytearray()
        else:
            current += b
        i += 1
    fields.append(bytes(current))
    return fields


def device_column(fields):
    """Index of the device_id column (names compared as the engine compares them)."""
    for k, name in enumerate(fields):
        if name.decode("utf-8", "replace").strip(" \t").lower() == "device_id":
            return k
    return None


def device_of(line, k, last):
    """The device id the engine reads from field k of a data line (bytes), or None when the
    line cannot be read so far. Used for sampling only: the job computes the same in Spark."""
    if last and line.endswith(b"\r"):
        line = line[:-1]
    i, field, n = 0, 0, len(line)
    while True:
        if i < n and line[i] == 0x22:
            j, text = i + 1, bytearray()
            while True:
                if j >= n:
                    return None
                if line[j] == 0x22:
                    if j + 1 < n and line[j + 1] == 0x22:
                        text += b'"'
                        j += 2
                        continue
                    break
                text.append(line[j])
                j += 1
            value, i = bytes(text), j + 1
            while i < n and line[i] != 0x2C:
                i += 1
        else:
            j = line.find(b",", i)
            j = n if j < 0 else j
            value, i = line[i:j], j
        if field == k:
            return value
        field += 1
        if i >= n:
            return None
        i += 1


def device_key_column(F, k, field_count):
    """The Spark expression for the device id of column `value` (a line), in the engine's
    reading: a line without quotes splits at commas; a line with quotes goes through a
    regular expression that steps over quoted fields (`"a,b"`, `""` for a quote) exactly as
    the engine's parser does. The result is binary (compared as unsigned bytes)."""
    value = F.col("value")
    if k == field_count - 1:
        value = F.regexp_replace(value, r"\r\z", "")  # the engine ignores a trailing CR
    plain = F.substring_index(F.substring_index(value, ",", k + 1), ",", -1)
    field = r'(?:"(?:[^"]|"")*+"[^,]*|[^,]*)'
    pattern = r'^(?:' + field + r',){' + str(k) + r'}(?:"((?:[^"]|"")*+)"|([^,]*))'
    quoted = F.concat(F.regexp_replace(F.regexp_extract(value, pattern, 1), '""', '"'),
                      F.regexp_extract(value, pattern, 2))
    return F.when(F.instr(F.col("value"), '"') > 0, quoted).otherwise(plain).cast("binary")


def partition_expression(F, key, bounds, lo=0, hi=None):
    """Partition index of `key`: the number of bounds below it, as a balanced tree of
    comparisons (bounds sorted ascending; partition i holds keys up to bounds[i])."""
    if hi is None:
        hi = len(bounds)
    if lo == hi:
        return F.lit(lo)
    mid = (lo + hi) // 2
    return F.when(key <= F.lit(bytearray(bounds[mid])), partition_expression(F, key, bounds, lo, mid)) \
        .otherwise(partition_expression(F, key, bounds, mid + 1, hi))


# ---------------------------------------------------------------------------------------
# Files, through Hadoop's FileSystem API (local, HDFS, S3: whatever Spark reads).

class Files:
    def __init__(self, spark):
        self.jvm = spark.sparkContext._jvm
        self.conf = spark.sparkContext._jsc.hadoopConfiguration()

    def path(self, text):
        p = self.jvm.org.apache.hadoop.fs.Path(text)
        fs = p.getFileSystem(self.conf)
        return fs, fs.makeQualified(p)

    def expand(self, pattern):
        """Files named by a path, a glob or a folder (its files in name order)."""
        fs, p = self.path(pattern)
        statuses = fs.globStatus(p)
        if not statuses:
            raise UsageError(f"{pattern}: no such file")
        found = []
        for status in sorted(statuses, key=lambda s: s.getPath().toString()):
            if status.isDirectory():
                inner = [s for s in fs.listStatus(status.getPath()) if s.isFile()
                         and not s.getPath().getName().startswith(("_", "."))]
                found += sorted(((s.getPath().toString(), s.getLen()) for s in inner))
            else:
                found.append((status.getPath().toString(), status.getLen()))
        return found

    def read(self, path, offset, count):
        return self.read_many(path, [offset], count)[0]

    def read_many(self, path, offsets, count):
        """`count` bytes (or up to the end) at each offset, through one open stream. A file:
        path is read by Python (py4j moves bytes at about a megabyte a second)."""
        fs, p = self.path(path)
        if p.toUri().getScheme() == "file":
            with open(p.toUri().getPath(), "rb") as f:
                pieces = []
                for offset in offsets:
                    f.seek(offset)
                    pieces.append(f.read(count))
                return pieces
        stream = fs.open(p)
        try:
            pieces = []
            for offset in offsets:
                stream.seek(offset)
                pieces.append(bytes(stream.readNBytes(count)))
            return pieces
        finally:
            stream.close()

    def first_line(self, path, limit=1 << 20):
        data = self.read(path, 0, limit)
        end = data.find(b"\n")
        if end < 0 and len(data) == limit:
            raise UsageError(f"{path}: line 1 is longer than {limit} bytes")
        return data if end < 0 else data[:end]

    def exists(self, path):
        fs, p = self.path(path)
        return fs.exists(p)

    def mkdirs(self, path):
        fs, p = self.path(path)
        fs.mkdirs(p)

    def delete(self, path):
        fs, p = self.path(path)
        fs.delete(p, True)

    def write(self, path, data):
        fs, p = self.path(path)
        stream = fs.create(p, True)
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()

    def scheme(self, path):
        return self.path(path)[1].toUri().getScheme()


def sample_bounds(files, sources, k, field_count, partitions, chunks=256, chunk_bytes=16 << 10):
    """Partition bounds: device ids at even ranks of a sample of rows read at evenly spaced
    places of the input (rows weigh by their count, as the engines' work does). The bounds
    only balance the partitions; any bounds give the same output."""
    total = sum(size for _, size in sources)
    if any(files.scheme(path) != "file" for path, _ in sources):
        chunks = min(chunks, 32)  # read through py4j: about a megabyte a second
    keys = []
    for path, size in sources:
        share = max(1, round(chunks * size / max(total, 1)))
        step = max(size // share, 1)
        for data in files.read_many(path, list(range(0, size, step)[:share]), chunk_bytes):
            lines = data.split(b"\n")[1:-1]  # whole lines only (the first is the header or a part)
            for line in lines:
                key = device_of(line, k, k == field_count - 1)
                if key:
                    keys.append(key)
    keys.sort()
    bounds = []
    for i in range(1, partitions):
        b = keys[len(keys) * i // partitions] if keys else None
        if b is not None and (not bounds or b > bounds[-1]):
            bounds.append(b)
    return bounds


# ---------------------------------------------------------------------------------------
# One partition: its lines through the engine.

def die_with_parent():
    """In the engine's process: end when the Python worker that started it ends (Spark kills
    workers of cancelled tasks; an orphaned engine would go on writing)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass


def local_temp_dir():
    for d in (os.environ.get("SPARK_LOCAL_DIRS", "").split(",")[0], tempfile.gettempdir()):
        if d and os.path.isdir(d):
            return d
    return "."


class PartitionRun:
    """One partition through the engine.

    Spark's shuffle delivers each map task's rows in file order (a map task reads one split)
    as one block, but the blocks in any order. The rows are spooled to a local file as they
    come, in runs (one map task's block each); the runs are then put in row-id order, which
    is file order (a row id is map task << 33 | record, and map tasks are numbered in file
    order), with no sort of rows; the engine reads the ordered file (mapped, not piped). Both
    orders are checked: row ids must not interleave between runs, and split keys (file, first
    byte of the split) must never go down. Memory: the row ids (8 bytes a row); the rows
    themselves wait on local disk.
    """

    def __init__(self, job, partition=None):
        import numpy as np
        self.np = np
        self.job = job
        if partition is None:
            from pyspark import TaskContext
            partition = TaskContext.get().partitionId()
        self.partition = partition
        handle, self.spool = tempfile.mkstemp(dir=local_temp_dir(), prefix="geofence-fixes-")
        self.file = os.fdopen(handle, "wb")
        self.written = 0
        self.runs = []  # each: [first row, last row, first split, last split, byte start, byte end, [row ids]]
        self.headers = 0

    def add(self, batches):
        np = self.np
        self.busy = 0.0
        for batch in batches:
            began = time.monotonic()
            lines, rows, splits = batch.column(0), longs_of(batch.column(1)), longs_of(batch.column(2))
            n = len(lines)
            if n == 0:
                continue
            offsets = offsets_of(lines)
            data = memoryview(lines.buffers()[2])
            keep = None
            # A file's header is its first line: record 0 of the split that starts at byte 0.
            headers = np.flatnonzero(((splits & SPLIT_MASK) == 0) & ((rows & RECORD_MASK) == 0))
            if len(headers):
                keep = np.ones(n, dtype=bool)
                for i in headers:
                    file = int(splits[i]) >> SPLIT_BITS
                    # (Hadoop's line reader drops a UTF-8 byte order mark at the start of a file.)
                    first = bytes(data[offsets[i]:offsets[i + 1]]).rstrip(b"\n")
                    if without_bom(first) != without_bom(self.job["raw_headers"][file]):
                        raise RuntimeError(f"partition {self.partition}: the first line of {self.job['files'][file]} differs from its header")
                    keep[i] = False
                    self.headers += 1
            # Cut the batch where the map task changes or row ids go down: each piece
            # continues a run (one map task's block) or starts one.
            tasks = rows >> RECORD_BITS
            cuts = [0] + list(np.flatnonzero((rows[1:] <= rows[:-1]) | (tasks[1:] != tasks[:-1])) + 1) + [n]
            for a, b in zip(cuts[:-1], cuts[1:]):
                if not np.all(splits[a + 1:b] >= splits[a:b - 1]):
                    raise RuntimeError(f"partition {self.partition}: rows are not in file order (Spark's splits out of order)")
                run = self.runs[-1] if self.runs else None
                if run is None or rows[a] <= run[1] or (int(rows[a]) >> RECORD_BITS) != (run[1] >> RECORD_BITS) or splits[a] < run[3]:
                    run = [int(rows[a]), 0, int(splits[a]), 0, self.written, self.written, []]
                    self.runs.append(run)
                run[1], run[3] = int(rows[b - 1]), int(splits[b - 1])
                if keep is None or keep[a:b].all():
                    self.write(data[offsets[a]:offsets[b]])
                    run[6].append(rows[a:b])
                else:
                    # Write around the (few) header lines.
                    start = a
                    for i in headers[(headers >= a) & (headers < b)]:
                        self.write(data[offsets[start]:offsets[i]])
                        start = i + 1
                    self.write(data[offsets[start]:offsets[b]])
                    run[6].append(rows[a:b][keep[a:b]])
                run[5] = self.written
            self.busy += time.monotonic() - began

    def write(self, view):
        self.file.write(view)
        self.written += len(view)

    def ordered_input(self):
        """The spooled rows in file order: the spool itself when the runs came in order,
        else a copy with the runs rearranged. Returns the path and the row ids in order."""
        self.file.close()
        runs = sorted(self.runs, key=lambda r: r[0])
        for before, after in zip(runs, runs[1:]):
            if after[0] <= before[1] or after[2] < before[3]:
                raise RuntimeError(f"partition {self.partition}: rows of two map tasks interleave (row ids {before[0]}..{before[1]} and {after[0]}..)")
        ids = [ids for run in runs for ids in run[6]]
        ids = self.np.concatenate(ids) if ids else self.np.zeros(0, dtype=self.np.int64)
        if runs == self.runs:
            return self.spool, ids
        handle, ordered = tempfile.mkstemp(dir=local_temp_dir(), prefix="geofence-fixes-")
        with os.fdopen(handle, "wb") as out, open(self.spool, "rb") as spool:
            for run in runs:
                spool.seek(run[4])
                left = run[5] - run[4]
                while left > 0:
                    piece = spool.read(min(left, 8 << 20))
                    out.write(piece)
                    left -= len(piece)
        os.unlink(self.spool)
        self.spool = ordered
        return ordered, ids

    def run(self, output):
        """Runs the engine on the partition's rows, writing events to `output`; returns its
        summary (a dict) with the rejected rows' ids, or raises with what the engine said."""
        from pyspark import SparkFiles
        try:
            fixes, ids = self.ordered_input()
            engine = SparkFiles.get(self.job["engine"])
            if not os.access(engine, os.X_OK):
                os.chmod(engine, 0o755)
            command = [engine, "evaluate", "--fences", SparkFiles.get(self.job["fences"]), "--fixes", fixes,
                       "--header", self.job["header"], "--summary", "-", "--quiet", "--output", output] + self.job["options"]
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  preexec_fn=die_with_parent)
        finally:
            if os.path.exists(self.spool):
                os.unlink(self.spool)
        said = done.stderr.decode("utf-8", "replace")
        lines = said.strip().splitlines()
        if done.returncode != 0:
            status = done.returncode
            reason = f"signal {-status}" if status < 0 else f"exit status {status}"
            raise RuntimeError(f"geofence engine failed on partition {self.partition} ({reason}): " + " | ".join(lines[-5:]))
        try:
            summary = json.loads(lines[-1])
        except (IndexError, ValueError):
            raise RuntimeError(f"geofence engine on partition {self.partition} wrote no summary: {said[-500:]!r}")
        for reason in summary["rejectedByReason"].values():
            # Engine lines count this partition's input from 1 (--header): the row ids say
            # which input row each was.
            reason["rows"] = [int(ids[line - 1]) if 0 < line <= len(ids) else None for line in reason["lines"]]
        summary["partition"] = self.partition
        summary["headersDropped"] = self.headers
        summary["runs"] = len(self.runs)
        summary["spoolSeconds"] = round(self.busy, 3)
        return summary


def longs_of(array):
    """An int64 Arrow array without nulls as a numpy view of its buffer (Array.to_numpy's
    first call imports pandas' bridge: a second of a task)."""
    import numpy as np
    if array.null_count:
        raise RuntimeError("unexpected null row id")
    return np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset:array.offset + len(array)]


def offsets_of(array):
    """The value offsets of a binary Arrow array (n + 1 of them), as numpy integers."""
    import numpy as np
    import pyarrow as pa
    width = np.int64 if pa.types.is_large_binary(array.type) else np.int32
    return np.frombuffer(array.buffers()[1], dtype=width)[array.offset:array.offset + len(array) + 1]


def direct_partition(job):
    """mapInArrow function: the engine writes OUT/part-NNNNN itself (through a temporary
    name, renamed when it has succeeded); yields the summary."""
    def run(batches):
        import pyarrow as pa
        from pyspark import TaskContext
        context = TaskContext.get()
        name = "part-%0*d" % (job["digits"], context.partitionId())
        temporary = os.path.join(job["local_output"], "_temporary", f"{name}.attempt-{context.taskAttemptId()}")
        os.makedirs(os.path.dirname(temporary), exist_ok=True)
        try:
            run = PartitionRun(job)
            fed = time.monotonic()
            run.add(batches)
            fed = time.monotonic() - fed
            summary = run.run(temporary)
            summary["feedSeconds"] = round(fed, 3)
            os.replace(temporary, os.path.join(job["local_output"], name))
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        yield pa.RecordBatch.from_pydict({"summary": [json.dumps(summary)]})
    return run


def returned_partition(job, summaries):
    """mapInArrow function: the engine writes a local file, which comes back to Spark as
    large chunks of lines (NDJSON) or as typed Arrow batches (Parquet); the summary goes to
    the `summaries` accumulator (keyed by partition, so a retried task counts once)."""
    def run(batches):
        import pyarrow as pa
        handle, events = tempfile.mkstemp(dir=local_temp_dir(), prefix="geofence-events-")
        os.close(handle)
        try:
            run = PartitionRun(job)
            run.add(batches)
            summary = run.run(events)
            summaries.add({summary["partition"]: summary})
            for chunk in read_chunks(events, job["chunk_bytes"]):
                yield parquet_batch(chunk) if job["format"] == "parquet" else text_batch(pa, chunk)
        finally:
            os.unlink(events)
    return run


def read_chunks(path, size):
    """The file in pieces of whole lines, each without its last line break."""
    with open(path, "rb") as f:
        rest = b""
        while True:
            block = f.read(size)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n")
            if cut < 0:
                rest = block
                continue
            rest = block[cut + 1:]
            yield block[:cut]
        if rest:
            yield rest


def text_batch(pa, chunk):
    """One row holding many lines: Spark's text writer adds the last line break."""
    offsets = pa.array([0, len(chunk)], pa.int32()).buffers()[1]
    array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(chunk)])
    return pa.RecordBatch.from_arrays([array], ["value"])


def parquet_batch(chunk):
    """Events as an Arrow batch of the declared schema; geofenceProperties keeps the
    engine's text of the object (number literals and member order untouched)."""
    import io
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj
    fields = pa.schema([("eventType", pa.string()), ("timestamp", pa.int64()), ("deviceId", pa.string()),
                        ("geofenceId", pa.string()), ("lat", pa.float64()), ("lng", pa.float64()),
                        ("radius", pa.float64()), ("level", pa.int32())])
    table = pj.read_json(io.BytesIO(chunk + b"\n"), read_options=pj.ReadOptions(block_size=len(chunk) + 2),
                         parse_options=pj.ParseOptions(explicit_schema=fields, unexpected_field_behavior="ignore"))
    lines = pc.list_flatten(pc.split_pattern(pa.array([chunk], pa.large_binary()), b"\n"))
    properties = pc.list_element(pc.split_pattern(lines, b',"geofenceProperties":', max_splits=1), 1)
    properties = pc.cast(pc.binary_slice(properties, 0, -1), pa.large_string())
    columns = [table.column(name).combine_chunks() for name in fields.names]
    columns[1] = pc.cast(pc.cast(columns[1], pa.timestamp("ms", tz="UTC")), pa.timestamp("us", tz="UTC"))
    names = fields.names + ["geofenceProperties"]
    return pa.RecordBatch.from_arrays(columns + [pc.cast(properties, pa.string())], names)


# ---------------------------------------------------------------------------------------
# The driver.

def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="geofence_spark.py", description=__doc__.splitlines()[0],
        epilog="Options after -- go to every `geofence evaluate` (see geofence evaluate --help).")
    parser.add_argument("--engine", required=True, help="the geofence binary to ship to the executors (make dist builds one)")
    parser.add_argument("--fences", required=True, help="fence file (GeoJSON or compiled), shipped to the executors")
    parser.add_argument("--fixes", required=True, nargs="+", help="fix CSV files, globs or folders (any Spark file system)")
    parser.add_argument("--output", required=True, help="output folder (must not exist)")
    parser.add_argument("--format", choices=["ndjson", "parquet"], default="ndjson")
    parser.add_argument("--partitions", type=int, help="engine runs (default: the cluster's default parallelism)")
    parser.add_argument("--write", choices=["auto", "direct", "spark"], default="auto",
                        help="NDJSON: engines write the parts themselves (direct; for local or shared file systems) "
                             "or through Spark's writer (any file system); auto: direct for file: paths")
    own, options = (argv, [])
    if "--" in argv:
        cut = argv.index("--")
        own, options = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(own)
    for option in options:
        if option.split("=")[0] in RESERVED_OPTIONS:
            raise UsageError(f"{option} is set by the integration; give it to geofence_spark.py, or leave it out")
    if args.partitions is not None and args.partitions < 1:
        raise UsageError("--partitions must be at least 1")
    return args, options


def check_engine(args, header, options):
    """Runs the engine once on the driver on no rows: bad options, a bad header or a bad
    fence file stop the job before it starts (skipped when the driver cannot run it)."""
    with tempfile.NamedTemporaryFile(prefix="geofence-no-rows-", suffix=".csv") as empty:
        command = [args.engine, "evaluate", "--fences", args.fences, "--fixes", empty.name, "--header", header,
                   "--quiet", "--output", "/dev/null"] + options
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
        except OSError as error:
            print(f"geofence_spark: cannot run {args.engine} on the driver ({error}); options are checked on the executors",
                  file=sys.stderr)
            return
    if done.returncode != 0:
        raise UsageError(done.stderr.decode("utf-8", "replace").strip())


def add_up(summaries, files, line_of):
    """The partitions' summaries as one, rejected rows named by file and line."""
    total = {"files": [path for path, _ in files], "partitions": len(summaries)}
    for key in ("rowsRead", "processed", "rejected", "blankLines", "devices", "events"):
        total[key] = sum(s[key] for s in summaries)
    total["fences"] = summaries[0]["fences"] if summaries else 0
    by_reason = {}
    for reason in (summaries[0]["rejectedByReason"] if summaries else {}):
        examples = []
        for s in summaries:
            r = s["rejectedByReason"][reason]
            for row, text in zip(r["rows"], r["examples"]):
                message = text.split(": ", 1)[1] if ": " in text else text
                examples.append((line_of(row), message))
        examples.sort(key=lambda e: (e[0][0], e[0][1]))
        examples = examples[:5]
        by_reason[reason] = {
            "count": sum(s["rejectedByReason"][reason]["count"] for s in summaries),
            "lines": [line for (_, line), _ in examples],
            "files": [files[f][0] if f >= 0 else None for (f, _), _ in examples],
            "examples": [f"{files[f][0] if f >= 0 else '?'} line {line}: {m}" for (f, line), m in examples],
        }
    total["rejectedByReason"] = by_reason
    names = list(summaries[0]["eventsByType"]) if summaries else []
    total["eventsByType"] = {n: sum(s["eventsByType"][n] for s in summaries) for n in names}
    total["peakResidentBytesPerPartition"] = max((s["peakResidentBytes"] for s in summaries), default=0)
    total["engineSeconds"] = sum(s["seconds"] for s in summaries)
    total["byPartition"] = [{"partition": s["partition"], "rowsRead": s["rowsRead"], "devices": s["devices"],
                             "events": s["events"], "seconds": s["seconds"], "phaseSeconds": s["phaseSeconds"],
                             "feedSeconds": s.get("feedSeconds"), "spoolSeconds": s.get("spoolSeconds"), "runs": s.get("runs"), "peakResidentBytes": s["peakResidentBytes"]} for s in summaries]
    return total


def line_mapper(spark, base, summaries):
    """A function from row id to (file index, line), counting each split's lines only when
    some row was rejected (one more pass over the input)."""
    wanted = any(row is not None for s in summaries for r in s["rejectedByReason"].values() for row in r["rows"])
    if not wanted:
        return lambda row: (-1, 0)
    from pyspark.sql import functions as F
    counts = base.groupBy(F.shiftright("row", RECORD_BITS).alias("p"), F.shiftright("split", SPLIT_BITS).alias("f")) \
        .count().collect()
    before, seen = {}, {}
    for p, f, n in sorted((r["p"], r["f"], r["count"]) for r in counts):
        before[p] = (f, seen.get(f, 0))
        seen[f] = seen.get(f, 0) + n

    def line_of(row):
        if row is None or (row >> RECORD_BITS) not in before:
            return (-1, 0)
        f, lines = before[row >> RECORD_BITS]
        return (f, lines + (row & RECORD_MASK) + 1)
    return line_of


def main(argv, stop=True):
    """Runs the job; returns the summary written to OUT/_geofence_summary.json. `stop`:
    stop the Spark session at the end (tests running several jobs in one session pass
    False)."""
    args, options = parse_arguments(argv)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.accumulators import AccumulatorParam

    started = time.monotonic()
    timings = {}

    def lap(name, since=[started]):
        now = time.monotonic()
        timings[name] = round(now - since[0], 3)
        since[0] = now
    spark = SparkSession.builder.appName("geofence").getOrCreate()
    lap("session")
    sc = spark.sparkContext
    # Partition k must stay partition k: no coalescing of the exchange.
    spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
    # Nothing here for adaptive execution to improve (no joins, a fixed partitioning), and
    # re-planning between the stages costs seconds of a short job.
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    # Rows reach Python in Arrow batches: large ones (the rows are short) mean fewer calls.
    if spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch") == "10000":
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "100000")
    files = Files(spark)
    sources = [found for pattern in args.fixes for found in files.expand(pattern)]
    raw_headers = []
    for path, size in sources:
        if size == 0:
            raise UsageError(f"{path}: empty file (expected a header line naming at least device_id,timestamp,lat,lon)")
        raw_headers.append(files.first_line(path))
    fields = split_header(raw_headers[0])
    for (path, _), raw in zip(sources, raw_headers):
        if split_header(raw) != fields:
            raise UsageError(f"{path}: its header differs from {sources[0][0]}'s (every file needs the same columns in the same order)")
    k = device_column(fields)
    if k is None:
        raise UsageError(f"{sources[0][0]}: line 1: header has no device_id column")
    header = b",".join(b'"' + f.replace(b'"', b'""') + b'"' if b"," in f or b'"' in f else f for f in fields).decode("utf-8", "replace")
    if not any(o == "--threads" or o.startswith("--threads=") for o in options):
        options = options + ["--threads", sc.getConf().get("spark.task.cpus", "1")]
    lap("inputs")
    check_engine(args, header, options)
    lap("engineCheck")
    if files.exists(args.output):
        raise UsageError(f"{args.output}: already exists (the job writes a new folder)")
    write = args.write
    if write == "auto":
        write = "direct" if args.format == "ndjson" and files.scheme(args.output) == "file" else "spark"
    if args.format == "parquet" and write == "direct":
        raise UsageError("--format parquet is written through Spark (--write spark or auto)")
    partitions = args.partitions or max(sc.defaultParallelism, 1)

    for shipped in (args.engine, args.fences):
        if not os.path.isfile(shipped):
            raise UsageError(f"{shipped}: no such file")
    if os.path.basename(args.engine) == os.path.basename(args.fences):
        raise UsageError("--engine and --fences must have different file names (both are shipped by name)")
    sc.addFile(os.path.abspath(args.engine))
    sc.addFile(os.path.abspath(args.fences))

    lap("ship")
    bounds = sample_bounds(files, sources, k, len(fields), partitions)
    lap("sample")
    frames = [spark.read.option("lineSep", "\n").text(path)
              .select("value", (F.lit(i).cast("long") * (1 << SPLIT_BITS) + F.col("_metadata.file_block_start")).alias("split"))
              for i, (path, _) in enumerate(sources)]
    base = frames[0]
    for frame in frames[1:]:
        base = base.unionAll(frame)
    base = base.withColumn("row", F.monotonically_increasing_id())
    key = device_key_column(F, k, len(fields))
    arranged = base.select(F.concat(F.col("value").cast("binary"), F.lit(bytearray(b"\n"))).alias("line"),
                           "row", "split", partition_expression(F, key, bounds).alias("pid")) \
        .repartitionById(partitions, "pid").select("line", "row", "split")

    lap("plan")
    job = {"engine": os.path.basename(args.engine), "fences": os.path.basename(args.fences), "header": header,
           "options": options, "raw_headers": raw_headers, "files": [p for p, _ in sources], "format": args.format,
           "digits": max(5, len(str(partitions - 1))), "chunk_bytes": 8 << 20}
    created = False
    try:
        if write == "direct":
            local = files.path(args.output)[1].toUri().getPath()
            os.makedirs(local)
            created = True
            job["local_output"] = local
            rows = arranged.mapInArrow(direct_partition(job), "summary string").collect()
            summaries = [json.loads(r["summary"]) for r in rows]
            shutil.rmtree(os.path.join(local, "_temporary"), ignore_errors=True)
        else:
            class Merge(AccumulatorParam):
                def zero(self, value):
                    return {}

                def addInPlace(self, a, b):
                    a.update(b)
                    return a
            collected = sc.accumulator({}, Merge())
            schema = PARQUET_SCHEMA if args.format == "parquet" else "value string"
            events = arranged.mapInArrow(returned_partition(job, collected), schema)
            created = True
            if args.format == "parquet":
                events.write.parquet(args.output)
            else:
                events.write.text(args.output)
            summaries = [collected.value[p] for p in sorted(collected.value)]
    except Exception:
        if created:
            files.delete(args.output)
        raise
    lap("job")
    summaries.sort(key=lambda s: s["partition"])
    dropped = sum(s["headersDropped"] for s in summaries)
    if dropped != len(sources):
        files.delete(args.output)
        raise RuntimeError(f"found {dropped} header lines in {len(sources)} files")
    total = add_up(summaries, sources, line_mapper(spark, base, summaries))
    lap("lines")
    total.update({"format": args.format, "write": write, "seconds": round(time.monotonic() - started, 3), "driverSeconds": timings})
    files.write(args.output.rstrip("/") + "/" + SUMMARY_NAME, (json.dumps(total) + "\n").encode())
    if write == "direct":
        files.write(args.output.rstrip("/") + "/_SUCCESS", b"")
    print(f"geofence_spark: {total['rowsRead']} rows read, {total['processed']} processed, {total['rejected']} rejected; "
          f"{total['devices']} devices; {total['events']} events in {len(summaries)} partitions; {total['seconds']} s; "
          f"{args.output}", file=sys.stderr)
    if stop:
        spark.stop()
    return total


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except UsageError as error:
        print(f"geofence_spark: {error}", file=sys.stderr)
        sys.exit(2)
    except Exception as error:
        text = str(error)
        # Spark wraps a task's error in pages of Java stack: show the engine's own words.
        said = [line.strip() for line in text.splitlines() if line.startswith(("RuntimeError: ", "OSError: ", "ValueError: "))]
        print(f"geofence_spark: the job failed: {said[0] if said else text.splitlines()[0] if text else type(error).__name__}", file=sys.stderr)
        sys.exit(1)
