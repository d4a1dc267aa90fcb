#!/usr/bin/env python3
"""The DuckDB spatial peer: DuckDB with its spatial extension, loaded from the file the PyPI
package duckdb-extension-spatial ships (nothing is downloaded: no INSTALL).

Fences are read with ST_Read (GDAL) from the GeoJSON; a circle's shape is the box that holds
its cap (ST_MakeEnvelope), a polygon's is itself. One SPATIAL_JOIN on
ST_Intersects(shape, ST_Point(lon, lat)) finds the candidates (exact for polygons: a point on
the boundary counts, as in the engine); circles keep the pairs whose haversine term, written in
SQL, is at most sin^2(r / 2R). The join's result is materialised before that filter so the
planner keeps the spatial join.

Modes:
  join   (default) in process: the fences loaded and the fixes (fixes_N.f64, through NumPy)
         in tables first; timed: `CREATE TABLE pairs AS <query>`, median of --repeats after
         one untimed run; one JSON line (peerlib.print_result).
  whole  the whole command a DuckDB user would run: ST_Read of the fences, read_csv of the
         fixes CSV (device_id,timestamp,lat,lon; a fix's number is its data row, from 1),
         the join, and COPY of the pairs as CSV `row,geofenceId` to --out (default /dev/null).
         Prints one JSON line with its own seconds and the pairs' count and checksum.
"""
import argparse
import json
import os
import time

import peerlib

np = peerlib.need("numpy", "numpy")
duckdb = peerlib.need("duckdb", "duckdb")

# The shared constants as DuckDB doubles: the radius parsed from text (a literal 6371008.8
# would be a DECIMAL), degrees to radians as the C peers and the engine compute it (pi / 180).
R = "'6371008.8'::DOUBLE"
D2R = "(pi() / 180)"

FENCES_SQL = """
CREATE TABLE fences AS
WITH raw AS (SELECT id::BIGINT AS id, radius, geom::GEOMETRY AS geom FROM ST_Read(?)),
circ AS (
  SELECT id, radius, geom,
    CASE WHEN radius IS NULL THEN 0 ELSE ST_X(geom) END AS lon,
    CASE WHEN radius IS NULL THEN 0 ELSE ST_Y(geom) END AS lat, radius / {R} AS delta FROM raw
)
SELECT id,
  CASE WHEN radius IS NULL THEN geom ELSE ST_MakeEnvelope(lon - dlon, lat - dlat, lon + dlon, lat + dlat) END AS shape,
  radius IS NOT NULL AS is_circle,
  lat * {D2R} AS clat, lon * {D2R} AS clon, cos(lat * {D2R}) AS ccos,
  sin(radius / (2 * {R})) * sin(radius / (2 * {R})) AS threshold
FROM (
  SELECT *, (delta / {D2R}) * (1 + 1e-9) + 1e-9 AS dlat,
    (CASE WHEN abs(lat) + delta / {D2R} >= 90 THEN 180
          ELSE asin(least(1, sin(delta) / cos((abs(lat) + delta / {D2R}) * {D2R}))) / {D2R} END) * (1 + 1e-9) + 1e-9 AS dlon
  FROM circ
)
""".format(R=R, D2R=D2R)

JOIN_SQL = """
WITH cand AS MATERIALIZED (
  SELECT x.i, x.lat, x.lon, f.id, f.is_circle, f.clat, f.clon, f.ccos, f.threshold
  FROM {fixes} x JOIN fences f ON ST_Intersects(f.shape, ST_Point(x.lon, x.lat))
)
SELECT i, id FROM cand
WHERE NOT is_circle OR (
  sin(0.5 * (lat * {D2R} - clat)) * sin(0.5 * (lat * {D2R} - clat))
  + cos(lat * {D2R}) * ccos * sin(0.5 * (lon * {D2R} - clon)) * sin(0.5 * (lon * {D2R} - clon))
  <= threshold)
"""


def connect(threads):
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                 "threads": threads})
    con.execute("LOAD '%s'" % peerlib.spatial_extension_path(duckdb).replace("'", "''"))
    return con


def join_sql(fixes_table):
    return JOIN_SQL.format(fixes=fixes_table, D2R=D2R)


def run_join(args):
    lat, lon = peerlib.load_fixes(np, args.fixes, args.limit)
    con = connect(args.threads)
    start = time.perf_counter()
    con.execute(FENCES_SQL, [args.fences])
    build_s = time.perf_counter() - start
    count = con.execute("SELECT count(*) FROM fences").fetchone()[0]
    fix_arrays = {"i": np.arange(lat.size, dtype=np.int64), "lat": lat, "lon": lon}
    con.register("fix_arrays", fix_arrays)
    con.execute("CREATE TABLE fixes AS SELECT * FROM fix_arrays")
    query = "CREATE OR REPLACE TABLE pairs AS " + join_sql("fixes")
    times, digest = [], None
    for _ in range(args.repeats + 1):
        start = time.perf_counter()
        con.execute(query)
        times.append(time.perf_counter() - start)
        got = con.execute("SELECT i, id FROM pairs").fetchnumpy()
        result = peerlib.checksum(np, got["i"], got["id"])
        if digest is not None and result != digest:
            raise SystemExit("error: the runs disagree: %s and %s" % (digest, result))
        digest = result
    peerlib.print_result("duckdb-spatial", count, int(lat.size), args.repeats, build_s, peerlib.median(times[1:]),
                         digest[0], digest[1], threads=args.threads, first_s=round(times[0], 6),
                         versions={"duckdb": duckdb.__version__})


def run_whole(args):
    if not args.fixes_csv:
        raise SystemExit("error: --mode whole needs --fixes-csv")
    start = time.perf_counter()
    con = connect(args.threads)
    con.execute(FENCES_SQL, [args.fences])
    con.execute("CREATE TEMP VIEW fix_rows AS SELECT row_number() OVER () AS i, lat, lon FROM "
                "read_csv(?, header = true, columns = {'device_id': 'VARCHAR', 'timestamp': 'BIGINT', "
                "'lat': 'DOUBLE', 'lon': 'DOUBLE'})".replace("?", "'%s'" % args.fixes_csv.replace("'", "''")))
    out = args.out or "/dev/null"
    con.execute("COPY (SELECT i AS row, id AS geofenceId FROM (%s)) TO '%s' (FORMAT csv, HEADER true)"
                % (join_sql("fix_rows"), out.replace("'", "''")))
    seconds = time.perf_counter() - start
    line = {"peer": "duckdb-spatial-whole", "threads": args.threads, "seconds": round(seconds, 6)}
    if out != "/dev/null":
        got = con.execute("SELECT row, geofenceId FROM read_csv(?, header = true)", [out]).fetchnumpy()
        line["pairs"], line["checksum"] = peerlib.checksum(np, got["row"] - 1, got["geofenceId"])
    print(json.dumps(line), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["join", "whole"], default="join")
    p.add_argument("--fences", required=True, help="fences_F.geojson from gen_world.py")
    p.add_argument("--fixes", help="fixes_N.f64 from gen_world.py (join)")
    p.add_argument("--fixes-csv", help="the fixes as CSV (whole)")
    p.add_argument("--out", help="whole: write the pairs here (default /dev/null)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--repeats", type=int, default=3, help="join: timed runs after the first")
    p.add_argument("--limit", type=int, help="join: only the first N fixes")
    args = p.parse_args()
    if args.threads < 1 or args.repeats < 1:
        p.error("--threads and --repeats must be positive")
    if args.mode == "join":
        if not args.fixes:
            p.error("--mode join needs --fixes")
        run_join(args)
    else:
        run_whole(args)


if __name__ == "__main__":
    main()
