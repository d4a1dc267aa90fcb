#!/usr/bin/env python3
"""The Shapely peer: Shapely 2's vectorised STRtree, as a Python user would write it.

Polygons (holes included) go into one STRtree and are found with
`tree.query(points, predicate="intersects")`, exact (a point on the boundary counts, as in the
engine). Circles go into a second STRtree as boxes that hold their caps; its candidates are
kept where the haversine term (NumPy) is at most sin^2(r / 2R). Fixes are handled in chunks;
making the points is timed with the queries, the checksum is not. One thread.

Prints one JSON line (peerlib.print_result): the median of the timed passes after the
first (the first includes the trees' lazy builds).
"""
import argparse
import time

import peerlib

np = peerlib.need("numpy", "numpy")
shapely = peerlib.need("shapely", "shapely")
if int(shapely.__version__.split(".")[0]) < 2:
    raise SystemExit("error: shapely %s is too old (the peer needs 2.x); %s" % (shapely.__version__, peerlib.SETUP_HINT))


class World:
    def __init__(self, path):
        circles, polygons, self.count = peerlib.load_fences(path)
        self.polygon_ids = np.array([p[0] for p in polygons], dtype=np.int64)
        shapes = [shapely.Polygon(rings[0], rings[1:]) for _, rings in polygons]
        self.polygons = np.array(shapes, dtype=object)
        shapely.prepare(self.polygons)
        self.polygon_tree = shapely.STRtree(self.polygons)
        self.circle_ids = np.array([c[0] for c in circles], dtype=np.int64)
        lat = np.array([c[1] for c in circles], dtype=np.float64)
        lon = np.array([c[2] for c in circles], dtype=np.float64)
        self.circle_lat = lat * peerlib.DEG_TO_RAD
        self.circle_lon = lon * peerlib.DEG_TO_RAD
        self.circle_cos = np.cos(self.circle_lat)
        self.circle_threshold = np.array([peerlib.cap_threshold(c[3]) for c in circles], dtype=np.float64)
        x0, y0, x1, y1 = peerlib.circle_boxes(np, lat, lon, np.array([c[3] for c in circles], dtype=np.float64))
        self.circle_tree = shapely.STRtree(shapely.box(x0, y0, x1, y1))

    def query(self, lat, lon, chunk):
        """(fix index, fence index) arrays of every pair."""
        fixes, fences = [], []
        for start in range(0, lat.size, chunk):
            la, lo = lat[start:start + chunk], lon[start:start + chunk]
            points = shapely.points(lo, la)
            hit, tree_index = self.polygon_tree.query(points, predicate="intersects")
            fixes.append(hit + start)
            fences.append(self.polygon_ids[tree_index])
            cand, tree_index = self.circle_tree.query(points)
            lat_r = la[cand] * peerlib.DEG_TO_RAD
            lon_r = lo[cand] * peerlib.DEG_TO_RAD
            sdp = np.sin(0.5 * (lat_r - self.circle_lat[tree_index]))
            sdl = np.sin(0.5 * (lon_r - self.circle_lon[tree_index]))
            term = sdp * sdp + np.cos(lat_r) * self.circle_cos[tree_index] * sdl * sdl
            keep = term <= self.circle_threshold[tree_index]
            fixes.append(cand[keep] + start)
            fences.append(self.circle_ids[tree_index[keep]])
        return np.concatenate(fixes), np.concatenate(fences)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fences", required=True, help="fences_F.geojson from gen_world.py")
    p.add_argument("--fixes", required=True, help="fixes_N.f64 from gen_world.py")
    p.add_argument("--repeats", type=int, default=3, help="timed passes after the first")
    p.add_argument("--chunk", type=int, default=1_000_000, help="fixes per query call")
    p.add_argument("--limit", type=int, help="only the first N fixes")
    args = p.parse_args()
    if args.repeats < 1 or args.chunk < 1:
        p.error("--repeats and --chunk must be positive")
    lat, lon = peerlib.load_fixes(np, args.fixes, args.limit)
    start = time.perf_counter()
    world = World(args.fences)
    build_s = time.perf_counter() - start
    times, digest = [], None
    for _ in range(args.repeats + 1):
        start = time.perf_counter()
        fixes, fences = world.query(lat, lon, args.chunk)
        times.append(time.perf_counter() - start)
        result = peerlib.checksum(np, fixes, fences)
        if digest is not None and result != digest:
            raise SystemExit("error: the passes disagree: %s and %s" % (digest, result))
        digest = result
    peerlib.print_result("shapely", world.count, int(lat.size), args.repeats, build_s, peerlib.median(times[1:]),
                         digest[0], digest[1], first_s=round(times[0], 6),
                         versions={"shapely": shapely.__version__, "geos": shapely.geos_version_string,
                                   "numpy": np.__version__})


if __name__ == "__main__":
    main()
