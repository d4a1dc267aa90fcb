"""The least a Spark job costs here: `make spark-bench` runs it beside the real job.

A SparkSession, one shuffle of 1,000 integers over two partitions, and the session's
stop, under the same spark-submit options as the geofence job. Its wall time is Spark's
own floor on this machine (the JVM, Python, the session, one job of two stages): no
engine, no input, no output. When the floor alone is more than a ratio allows (the
geofence job against one process), no change to the engine or the job can meet it.

    spark-submit --master 'local[2]' integrations/spark/floor_job.py
"""
import sys
import time

started = time.monotonic()
from pyspark.sql import SparkSession  # noqa: E402  (imported after the clock starts: its import is part of the floor)

spark = SparkSession.builder.appName("geofence-floor").getOrCreate()
session = time.monotonic()
total = (
    spark.sparkContext.parallelize(range(1000), 2)
    .map(lambda x: (x % 7, x))
    .partitionBy(2)
    .map(lambda kv: kv[1])
    .sum()
)
job = time.monotonic()
spark.stop()
if total != sum(range(1000)):
    sys.exit(f"floor job: sum {total}, expected {sum(range(1000))}")
print(
    f"floor job phases: import and session {session - started:.2f} s, one shuffle job {job - session:.2f} s, "
    f"stop {time.monotonic() - job:.2f} s",
    file=sys.stderr,
)
