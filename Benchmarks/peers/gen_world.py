#!/usr/bin/env python3
"""Seeded synthetic world for geofence-bench and its peers (standard library only).

Writes into --out:
  fences_F.geojson   FeatureCollection; a circle is a Point with properties.radius (metres),
                     a polygon an RFC 7946 Polygon (counter-clockwise shell, clockwise holes);
                     properties.id is the feature's 0-based index. Every smaller F is a prefix
                     of the largest set, so its fences are the same.
  fences_F.bin       the same numbers for the C peers (layout in world.h).
  fixes_N.f64        N x (latitude, longitude), little-endian float64, in time order.
  fixes_N.t.f64      N x seconds since the start (float64).
  fixes_N.dev.u32    N x device number (uint32).
  world.json         the parameters, so a later run can tell whether the folder is current.

The world: a square of --side metres centred on --lat/--lon. Fences are circles (radius
log-uniform 30-400 m) and star-shaped polygons (same size range, 5-28 vertices), a quarter
of the polygons with a hole. Fixes come from devices driving random walks (1-14 m/s, a fix
every 1-10 s, reflected at the square's edges), merged in time order as a batch export is.
Coordinates are rounded to 1e-7 degrees and radii to 0.1 m; two runs with the same
arguments write the same bytes.
"""
import argparse
import array
import heapq
import json
import math
import os
import random
import struct
import sys

EARTH_RADIUS = 6371008.8
WORLD_VERSION = 1


def metres_per_degree():
    return EARTH_RADIUS * math.pi / 180.0


def make_ring(rng, cx, cy, radius, count, inner, outer):
    """A star-shaped ring around (cx, cy) in metres: `count` vertices at jittered angles,
    each at inner..outer times `radius`; counter-clockwise, not closed."""
    step = 2.0 * math.pi / count
    start = rng.uniform(0.0, 2.0 * math.pi)
    ring = []
    for k in range(count):
        angle = start + k * step + rng.uniform(-0.3, 0.3) * step
        r = radius * rng.uniform(inner, outer)
        ring.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return ring


def generate_fences(count, seed, lat0, lon0, side):
    """Fences as dicts: {"circle": (lat, lon, radius)} or {"rings": [[(lon, lat), ...], ...]}."""
    rng = random.Random(seed)
    mlat = metres_per_degree()
    half = side / 2.0
    fences = []
    for _ in range(count):
        x = rng.uniform(-half, half)
        y = rng.uniform(-half, half)
        size = math.exp(rng.uniform(math.log(30.0), math.log(400.0)))
        lat = round(lat0 + y / mlat, 7)
        lon = round(lon0 + x / (mlat * math.cos(math.radians(lat0))), 7)
        if rng.random() < 0.45:
            fences.append({"circle": (lat, lon, round(size, 1))})
            continue
        mlon = mlat * math.cos(math.radians(lat))
        with_hole = rng.random() < 0.25
        # Shell vertices stay at 0.55..1 of the size and the angular gaps under 1.6 steps, so
        # the shell keeps at least 0.44 of the size clear around the centre when it has 8 or
        # more vertices; a hole stays within 0.35 of it.
        vertices = rng.randint(8 if with_hole else 5, 28)
        shell = make_ring(rng, 0.0, 0.0, size, vertices, 0.55, 1.0)
        rings = [shell]
        if with_hole:
            rings.append(list(reversed(make_ring(rng, 0.0, 0.0, size, rng.randint(3, 8), 0.15, 0.35))))
        out = []
        for ring in rings:
            points = [(round(lon + px / mlon, 7), round(lat + py / mlat, 7)) for px, py in ring]
            points.append(points[0])
            out.append(points)
        fences.append({"rings": out})
    return fences


def write_geojson(path, fences):
    with open(path + ".tmp", "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i, fence in enumerate(fences):
            if "circle" in fence:
                lat, lon, radius = fence["circle"]
                geometry = '{"type":"Point","coordinates":[%r,%r]}' % (lon, lat)
                properties = '{"id":%d,"radius":%r}' % (i, radius)
            else:
                rings = ",".join("[" + ",".join("[%r,%r]" % p for p in ring) + "]" for ring in fence["rings"])
                geometry = '{"type":"Polygon","coordinates":[%s]}' % rings
                properties = '{"id":%d}' % i
            f.write('%s{"type":"Feature","geometry":%s,"properties":%s}\n'
                    % ("," if i else "", geometry, properties))
        f.write("]}\n")
    os.replace(path + ".tmp", path)


def write_binary(path, fences):
    """world.h's layout: header, fence records, ring starts, points."""
    records = bytearray()
    ring_starts = array.array("I")
    points = array.array("d")
    for fence in fences:
        if "circle" in fence:
            lat, lon, radius = fence["circle"]
            records += struct.pack("<dddII", lat, lon, radius, len(ring_starts), 0)
            continue
        records += struct.pack("<dddII", 0.0, 0.0, 0.0, len(ring_starts), len(fence["rings"]))
        for ring in fence["rings"]:
            ring_starts.append(len(points) // 2)
            for lon, lat in ring:
                points.append(lon)
                points.append(lat)
    ring_starts.append(len(points) // 2)
    if sys.byteorder != "little":
        ring_starts.byteswap()
        points.byteswap()
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<8sIIII", b"GFWORLD1", len(fences), len(ring_starts) - 1, len(points) // 2, 0))
        f.write(records)
        f.write(ring_starts.tobytes())
        f.write(points.tobytes())
    os.replace(path + ".tmp", path)


def generate_fixes(count, seed, lat0, lon0, side, devices):
    """Interleaved (lat, lon), seconds and device numbers of `count` fixes in time order."""
    rng = random.Random(seed)
    mlat = metres_per_degree()
    mlon = mlat * math.cos(math.radians(lat0))
    half = side / 2.0
    state = []
    queue = []
    for d in range(devices):
        state.append([rng.uniform(-half, half), rng.uniform(-half, half), rng.uniform(0, 2 * math.pi),
                      rng.uniform(1.0, 14.0)])
        heapq.heappush(queue, (rng.uniform(0.0, 10.0), d))
    positions = array.array("d")
    times = array.array("d")
    owners = array.array("I")
    last = [None] * devices
    for _ in range(count):
        t, d = heapq.heappop(queue)
        s = state[d]
        if last[d] is not None:
            dt = t - last[d]
            s[2] += rng.gauss(0.0, 0.25)
            s[0] += s[3] * dt * math.cos(s[2])
            s[1] += s[3] * dt * math.sin(s[2])
            if abs(s[0]) > half:
                s[0] = math.copysign(2 * half, s[0]) - s[0]
                s[2] = math.pi - s[2]
            if abs(s[1]) > half:
                s[1] = math.copysign(2 * half, s[1]) - s[1]
                s[2] = -s[2]
        last[d] = t
        positions.append(round(lat0 + s[1] / mlat, 7))
        positions.append(round(lon0 + s[0] / mlon, 7))
        times.append(t)
        owners.append(d)
        heapq.heappush(queue, (t + rng.uniform(1.0, 10.0), d))
    return positions, times, owners


def write_array(path, values):
    if sys.byteorder != "little":
        values = array.array(values.typecode, values)
        values.byteswap()
    with open(path + ".tmp", "wb") as f:
        f.write(values.tobytes())
    os.replace(path + ".tmp", path)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder to write (made when missing)")
    p.add_argument("--fences", type=int, nargs="+", default=[1000, 10000, 100000], help="fence counts")
    p.add_argument("--fixes", type=int, nargs="+", default=[1000000], help="fix counts")
    p.add_argument("--devices", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument("--lat", type=float, default=48.8566)
    p.add_argument("--lon", type=float, default=2.3522)
    p.add_argument("--side", type=float, default=50000.0, help="side of the square, metres")
    args = p.parse_args()
    if min(args.fences) < 1 or min(args.fixes) < 1 or args.devices < 1:
        p.error("counts must be positive")
    if max(args.fences) >= 1 << 20:
        p.error("at most 1048575 fences (the pair checksum keeps 20 bits for the fence)")
    os.makedirs(args.out, exist_ok=True)
    params = {"version": WORLD_VERSION, "fences": sorted(set(args.fences)), "fixes": sorted(set(args.fixes)),
              "devices": args.devices, "seed": args.seed, "lat": args.lat, "lon": args.lon, "side": args.side}
    stamp = os.path.join(args.out, "world.json")
    if os.path.exists(stamp):
        with open(stamp) as f:
            if json.load(f) == params:
                print("world in %s is current" % args.out)
                return
        os.remove(stamp)
    fences = generate_fences(max(params["fences"]), args.seed, args.lat, args.lon, args.side)
    for count in params["fences"]:
        write_geojson(os.path.join(args.out, "fences_%d.geojson" % count), fences[:count])
        write_binary(os.path.join(args.out, "fences_%d.bin" % count), fences[:count])
    for count in params["fixes"]:
        positions, times, owners = generate_fixes(count, args.seed + 1, args.lat, args.lon, args.side,
                                                  min(args.devices, count))
        stem = os.path.join(args.out, "fixes_%d" % count)
        write_array(stem + ".f64", positions)
        write_array(stem + ".t.f64", times)
        write_array(stem + ".dev.u32", owners)
        csv = stem + ".csv"
        if os.path.exists(csv):
            os.remove(csv)  # made again from the new fixes by geofence-bench peer-csv
    with open(stamp, "w") as f:
        json.dump(params, f, sort_keys=True)
        f.write("\n")
    print("wrote %s fences and %s fixes to %s" % (params["fences"], params["fixes"], args.out))


if __name__ == "__main__":
    main()
