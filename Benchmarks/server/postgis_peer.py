#!/usr/bin/env python3
"""The PostGIS peer of the server benchmark (Benchmarks/server/bench.sh, step 5).

The moving-objects geofence pattern as PostgreSQL users build it:
- `fences`: the benchmark's 10k fences, GiST-indexed geometry (SRID 4326). Polygons as they
  are; a circle as its buffer on the geography (ST_Buffer, 8 segments a quarter: 32 sides),
  since a per-row ST_DWithin distance cannot use the index.
- `devices`: one row a device (its last fix and the fences it is inside).
- a BEFORE UPDATE trigger: refuses a fix older than the stored one (the server's `order`),
  finds the fences containing the new position (ST_Intersects, by the index), diffs them with
  the stored set, pg_notify()s one `enter`/`exit` per change and stores the new set.
Fixes are applied in batches of --batch (the server's 1,000-fix requests): one
`UPDATE ... FROM unnest(...)` a transaction, committed durably (PostgreSQL's defaults:
fsync on, synchronous_commit on), by --workers connections on disjoint devices, while one
connection LISTENs and drains the notifications (the SSE subscriber's part).
Prints nothing; writes one JSON object to --out. Needs psycopg (pinned in bench.sh).
"""
import argparse
import json
import threading
import time

import psycopg

from benchlib import Fleet, summary_ms, wall_ms

SCHEMA = """
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE fences (id int PRIMARY KEY, geom geometry(Geometry, 4326) NOT NULL);
-- fillfactor: room for HOT updates, as one tunes a table updated in place all day.
CREATE TABLE devices (id text PRIMARY KEY, ts bigint NOT NULL, lat float8 NOT NULL, lng float8 NOT NULL,
                      inside int[] NOT NULL DEFAULT '{}') WITH (fillfactor = 50);
CREATE FUNCTION track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  now_in int[];
  f int;
BEGIN
  IF NEW.ts < OLD.ts THEN RETURN NULL; END IF;
  SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO now_in FROM fences
   WHERE ST_Intersects(geom, ST_SetSRID(ST_MakePoint(NEW.lng, NEW.lat), 4326));
  FOREACH f IN ARRAY now_in LOOP
    IF NOT f = ANY (OLD.inside) THEN
      PERFORM pg_notify('geofence', json_build_object('eventType', 'enter', 'deviceId', NEW.id,
        'geofenceId', f, 'timestamp', NEW.ts)::text);
    END IF;
  END LOOP;
  FOREACH f IN ARRAY OLD.inside LOOP
    IF NOT f = ANY (now_in) THEN
      PERFORM pg_notify('geofence', json_build_object('eventType', 'exit', 'deviceId', NEW.id,
        'geofenceId', f, 'timestamp', NEW.ts)::text);
    END IF;
  END LOOP;
  NEW.inside := now_in;
  RETURN NEW;
END $$;
CREATE TRIGGER track BEFORE UPDATE ON devices FOR EACH ROW EXECUTE FUNCTION track();
"""

UPDATE = """UPDATE devices d SET ts = v.ts, lat = v.lat, lng = v.lng
  FROM unnest(%s::text[], %s::bigint[], %s::float8[], %s::float8[]) AS v(id, ts, lat, lng)
 WHERE d.id = v.id"""


def load_fences(conn, path):
    """gen_world.py's GeoJSON: a circle is a Point with properties.radius (metres)."""
    with open(path) as f:
        features = json.load(f)["features"]
    circles, polygons = [], []
    for feature in features:
        fid, geometry = feature["properties"]["id"], feature["geometry"]
        if geometry["type"] == "Point":
            lng, lat = geometry["coordinates"]
            circles.append((fid, lng, lat, feature["properties"]["radius"]))
        else:
            polygons.append((fid, json.dumps(geometry)))
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO fences VALUES (%s, ST_SetSRID(ST_GeomFromGeoJSON(%s), 4326))", polygons)
        cur.executemany("INSERT INTO fences VALUES (%s, ST_Buffer(ST_SetSRID(ST_MakePoint(%s, %s), 4326)::geography,"
                        " %s, 'quad_segs=8')::geometry)", circles)
        cur.execute("CREATE INDEX fences_geom ON fences USING gist (geom)")
    return len(features)


def batch_arrays(fleet, size, stamp):
    ids, stamps, lats, lngs = [], [], [], []
    for device, phase in fleet.next_batch(size):
        lat, lng = fleet.position(device, phase)
        ids.append(fleet.ids[device])
        stamps.append(stamp)
        lats.append(lat)
        lngs.append(lng)
    return ids, stamps, lats, lngs


def worker(dsn, fleet, batch, until, out):
    """Applies batches until `until` (or one round of the fleet with until=None); appends
    (updated rows, refused rows, transaction seconds) per transaction to `out`."""
    with psycopg.connect(dsn) as conn:
        rounds_left = fleet.count // batch if until is None else None
        while (time.time() < until) if until is not None else rounds_left > 0:
            arrays = batch_arrays(fleet, batch, wall_ms())
            start = time.time()
            with conn.transaction():
                cur = conn.execute(UPDATE, arrays)
                updated = cur.rowcount
            out.append((updated, batch - updated, time.time() - start))
            if rounds_left is not None:
                rounds_left -= 1


def listener(dsn, stop, counts):
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("LISTEN geofence")
        while not stop.is_set():
            for _ in conn.notifies(timeout=0.2):
                counts[0] += 1


def run_phase(dsn, fleets, batch, until):
    results = [[] for _ in fleets]
    threads = [threading.Thread(target=worker, args=(dsn, fleet, batch, until, out)) for fleet, out in zip(fleets, results)]
    start = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.time() - start, [x for out in results for x in out]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--fences", required=True)
    p.add_argument("--devices", type=int, default=100000)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    dsn = "host=%s port=%d user=postgres dbname=postgres" % (args.host, args.port)
    per_worker = args.devices // args.workers
    fleets = [Fleet("w%dd" % k, per_worker, args.seed + k) for k in range(args.workers)]
    setup_start = time.time()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
        fence_count = load_fences(conn, args.fences)
        with conn.cursor() as cur:
            for fleet in fleets:
                rows = [(fleet.ids[i],) + fleet.position(i, 0) for i in range(fleet.count)]
                cur.executemany("INSERT INTO devices (id, ts, lat, lng) VALUES (%s, 0, %s, %s)", rows)
        conn.execute("ANALYZE")
        version = conn.execute("SELECT version(), postgis_full_version()").fetchone()
    stop, notified = threading.Event(), [0]
    listen = threading.Thread(target=listener, args=(dsn, stop, notified))
    listen.start()
    # A first, untimed round: every device gets its first position (its enters), as the server's warm-up.
    warm_seconds, _ = run_phase(dsn, fleets, args.batch, None)
    notified_before = notified[0]
    seconds, txs = run_phase(dsn, fleets, args.batch, time.time() + args.duration)
    time.sleep(0.5)  # the last notifications
    stop.set()
    listen.join()
    updated = sum(t[0] for t in txs)
    result = {
        "postgres": version[0].split(",")[0], "postgis": version[1].split('"')[1] if '"' in version[1] else version[1],
        "fences": fence_count, "devices": per_worker * args.workers, "workers": args.workers, "batch": args.batch,
        "setup_s": round(time.time() - setup_start - warm_seconds - seconds, 2), "warmup_s": round(warm_seconds, 2),
        "seconds": round(seconds, 3), "transactions": len(txs), "updated": updated,
        "refused": sum(t[1] for t in txs), "updates_per_s": round(updated / seconds, 1),
        "notifications": notified[0] - notified_before, "transaction_ms": summary_ms([t[2] for t in txs]),
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
