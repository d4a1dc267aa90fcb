"""What the Python peers share: checked imports, the world's files, the pair checksum and
the JSON line geofence-bench reads. Containment and checksum are the ones world.h states."""
import json
import math
import os
import resource
import sys

EARTH_RADIUS = 6371008.8
DEG_TO_RAD = math.pi / 180.0
SETUP_HINT = ("install the pinned versions with `make bench-venv` (a venv in .bench-venv/ from "
              "Benchmarks/peers/requirements.txt), or `pip install -r Benchmarks/peers/requirements.txt`")


def need(module, package):
    """Imports `module`, or exits with a message naming the missing PyPI package."""
    try:
        return __import__(module)
    except ImportError as error:
        sys.exit("error: the Python module '%s' is missing (PyPI package %s): %s; %s (Python: %s)"
                 % (module, package, error, SETUP_HINT, sys.executable))


def spatial_extension_path(duckdb):
    """The DuckDB spatial extension shipped by the PyPI package duckdb-extension-spatial,
    for the running DuckDB; loaded from that file, nothing is downloaded."""
    try:
        import duckdb_extension_spatial
    except ImportError:
        sys.exit("error: DuckDB's spatial extension is missing: the PyPI package duckdb-extension-spatial "
                 "(same version as duckdb, %s) ships it; %s" % (duckdb.__version__, SETUP_HINT))
    folder = os.path.join(os.path.dirname(duckdb_extension_spatial.__file__), "extensions")
    path = os.path.join(folder, "v" + duckdb.__version__, "spatial.duckdb_extension")
    if not os.path.exists(path):
        found = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        sys.exit("error: duckdb-extension-spatial has no spatial extension for duckdb %s (it has %s); "
                 "install the same version of both: %s" % (duckdb.__version__, ", ".join(found) or "none", SETUP_HINT))
    return path


def load_fences(path):
    """(circles, polygons) of a gen_world.py FeatureCollection: circles as (index, lat, lon,
    radius), polygons as (index, [ring, ...]) with rings as [[lon, lat], ...]."""
    with open(path) as f:
        features = json.load(f)["features"]
    circles, polygons = [], []
    for index, feature in enumerate(features):
        geometry = feature["geometry"]
        if geometry["type"] == "Point":
            lon, lat = geometry["coordinates"]
            circles.append((index, lat, lon, float(feature["properties"]["radius"])))
        elif geometry["type"] == "Polygon":
            polygons.append((index, geometry["coordinates"]))
        else:
            sys.exit("error: %s: feature %d is a %s (the peers read Points and Polygons)" % (path, index, geometry["type"]))
    return circles, polygons, len(features)


def load_fixes(np, path, limit=None):
    """Latitudes and longitudes of a fixes_N.f64 file."""
    values = np.fromfile(path, dtype="<f8")
    if values.size % 2:
        sys.exit("error: %s is not a whole number of (lat, lon) pairs" % path)
    pairs = values.reshape(-1, 2)
    if limit:
        pairs = pairs[:limit]
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])


def circle_boxes(np, lat, lon, radius):
    """Boxes (min lon, min lat, max lon, max lat) holding each circle's whole cap, as world.h's."""
    delta = radius / EARTH_RADIUS
    dlat = delta / DEG_TO_RAD
    reach = np.abs(lat) + dlat
    s = np.where(reach >= 90.0, 1.0, np.sin(delta) / np.cos(np.minimum(reach, 89.999999) * DEG_TO_RAD))
    dlon = np.where(s >= 1.0, 180.0, np.arcsin(np.minimum(s, 1.0)) / DEG_TO_RAD)
    dlat = dlat * (1 + 1e-9) + 1e-9
    dlon = dlon * (1 + 1e-9) + 1e-9
    return lon - dlon, lat - dlat, lon + dlon, lat + dlat


def cap_threshold(radius):
    """sin^2(r / 2R) for one radius (math.sin: the C library's, as the engine's)."""
    s = math.sin(radius / (2.0 * EARTH_RADIUS))
    return s * s


def mix64(np, x):
    """SplitMix64's finaliser over a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def checksum(np, fixes, fences):
    """Pairs and checksum (16 hex digits) of 0-based fix and fence index arrays."""
    keys = (np.asarray(fixes, dtype=np.uint64) << np.uint64(20)) | np.asarray(fences, dtype=np.uint64)
    total = int(mix64(np, keys).sum(dtype=np.uint64)) if keys.size else 0
    return int(keys.size), "%016x" % total


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def print_result(peer, fences, fixes, repeats, build_s, seconds, pairs, digest, **extra):
    """The one JSON line geofence-bench reads (the C peers print the same keys)."""
    line = {"peer": peer, "fences": fences, "fixes": fixes, "repeats": repeats, "build_s": round(build_s, 6),
            "seconds": round(seconds, 6), "fixes_per_s": round(fixes / seconds, 1), "pairs": pairs,
            "checksum": digest, "peak_rss_mb": round(peak_rss_mib(), 1)}
    line.update(extra)
    print(json.dumps(line), flush=True)


def check_environment():
    """Exits with a clear message when a module or the spatial extension is missing; else
    prints the versions found (geofence-bench runs this before the Python peers)."""
    np = need("numpy", "numpy")
    shapely = need("shapely", "shapely")
    duckdb = need("duckdb", "duckdb")
    path = spatial_extension_path(duckdb)
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        con.execute("LOAD '%s'" % path.replace("'", "''"))
        con.execute("SELECT ST_Intersects(ST_Point(0, 0), ST_Point(0, 0))").fetchone()
    except Exception as error:  # the extension file is there but DuckDB refuses it
        sys.exit("error: DuckDB %s could not load its spatial extension from %s: %s; %s"
                 % (duckdb.__version__, path, error, SETUP_HINT))
    print(json.dumps({"python": sys.version.split()[0], "numpy": np.__version__, "shapely": shapely.__version__,
                      "geos (shapely)": shapely.geos_version_string, "duckdb": duckdb.__version__,
                      "spatial": os.path.relpath(path, os.path.dirname(os.path.dirname(duckdb.__file__)))}))


if __name__ == "__main__":
    check_environment()
