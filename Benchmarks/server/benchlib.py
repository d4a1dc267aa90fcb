#!/usr/bin/env python3
"""Shared pieces of the server benchmark (Benchmarks/server), standard library only.

- Fleet: devices driving back and forth along straight tracks in the world's square, as
  fixes.lua does for wrk, so the probe and the PostGIS peer apply the same kind of fixes.
- percentiles, wall-clock milliseconds, a chunked-transfer decoder for the SSE reader.
- `python3 benchlib.py slice SRC DST START STOP`: features START..STOP-1 of a GeoJSON file
  written by Benchmarks/peers/gen_world.py (one feature a line), as a FeatureCollection.
  bench.sh makes the 10k-fence update body this way: 1,000 fences removed, 1,000 added.
"""
import json
import math
import random
import sys
import time

EARTH_RADIUS = 6371008.8
TRACK = 8  # positions per device, walked back and forth: the period is 2 * TRACK - 2


def wall_ms():
    """The wall clock in epoch ms: the server's clock and the one wrk's fixes are stamped with."""
    return time.time_ns() // 1_000_000


def percentile(values, p):
    """Nearest-rank percentile of a list (p in 0..100); None for an empty list."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def summary_ms(seconds):
    """p50/p99/p99.9/max in ms of a list of durations in seconds."""
    ms = [s * 1000.0 for s in seconds]
    pick = lambda p: None if not ms else round(percentile(ms, p), 3)
    return {"count": len(ms), "p50": pick(50), "p99": pick(99), "p999": pick(99.9),
            "max": None if not ms else round(max(ms), 3)}


class Fleet:
    """`count` devices named PREFIX0.., each on a seeded straight track of TRACK points
    10-140 m apart (1-14 m/s for 10 s) from a start in the square of `side` metres around
    (lat0, lng0). Batches walk through the devices in order, so a device comes back only after
    count / batch batches, one track step further."""

    def __init__(self, prefix, count, seed, lat0=48.8566, lng0=2.3522, side=50000.0):
        rng = random.Random(seed)
        mlat = EARTH_RADIUS * math.pi / 180.0
        mlng = mlat * math.cos(math.radians(lat0))
        half = side / 2.0
        self.ids = ["%s%d" % (prefix, i) for i in range(count)]
        self.lat, self.lng, self.dlat, self.dlng = [], [], [], []
        for _ in range(count):
            x, y = rng.uniform(-half, half), rng.uniform(-half, half)
            heading, step = rng.uniform(0, 2 * math.pi), rng.uniform(10.0, 140.0)
            self.lat.append(lat0 + y / mlat)
            self.lng.append(lng0 + x / mlng)
            self.dlat.append(step * math.sin(heading) / mlat)
            self.dlng.append(step * math.cos(heading) / mlng)
        self.count = count
        self.cursor = 0
        self.round = 0

    def next_batch(self, size):
        """(device indices, track phase) of the next `size` devices; size <= count."""
        assert size <= self.count, "a batch would repeat a device"
        phase = self.round % (2 * TRACK - 2)
        if phase >= TRACK:
            phase = 2 * TRACK - 2 - phase
        out = []
        for _ in range(size):
            out.append((self.cursor, phase))
            self.cursor += 1
            if self.cursor == self.count:
                self.cursor, self.round = 0, self.round + 1
        return out

    def position(self, device, phase):
        return (round(self.lat[device] + phase * self.dlat[device], 7),
                round(self.lng[device] + phase * self.dlng[device], 7))

    def ndjson(self, size, stamp):
        """An NDJSON body of the next `size` fixes, all stamped `stamp` (epoch ms)."""
        lines = []
        for device, phase in self.next_batch(size):
            lat, lng = self.position(device, phase)
            lines.append('{"deviceId":"%s","timestamp":%d,"lat":%.7f,"lng":%.7f}\n'
                         % (self.ids[device], stamp, lat, lng))
        return "".join(lines).encode()


class Dechunker:
    """Incremental decoder of HTTP/1.1 chunked transfer encoding: feed() bytes as they come,
    get the payload bytes back; `done` once the last (empty) chunk has arrived."""

    def __init__(self):
        self.buffer = b""
        self.remaining = None  # bytes left in the current chunk; None: a size line is next
        self.done = False

    def feed(self, data):
        self.buffer += data
        out = []
        while not self.done:
            if self.remaining is None:
                end = self.buffer.find(b"\r\n")
                if end < 0:
                    break
                size = int(self.buffer[:end].split(b";")[0], 16)
                self.buffer = self.buffer[end + 2:]
                if size == 0:
                    self.done = True
                    break
                self.remaining = size
            if self.remaining > 0:
                take = min(len(self.buffer), self.remaining)
                out.append(self.buffer[:take])
                self.buffer = self.buffer[take:]
                self.remaining -= take
                if self.remaining > 0:
                    break
            if len(self.buffer) < 2:  # the CRLF after the chunk's data
                break
            self.buffer = self.buffer[2:]
            self.remaining = None
        return b"".join(out)


def slice_geojson(src, dst, start, stop):
    """gen_world.py writes a header line, then one feature a line (',' before all but the first)."""
    with open(src) as f:
        lines = f.read().splitlines()
    features = [line.lstrip(",") for line in lines[1:] if line.lstrip(",").startswith("{")]
    picked = features[start:stop]
    if len(picked) != stop - start:
        sys.exit("benchlib slice: %s has %d features, not %d" % (src, len(features), stop))
    for feature in picked[:1]:
        json.loads(feature)  # a format check: the file must be gen_world.py's
    with open(dst, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        f.write("\n,".join(picked))
        f.write("\n]}\n")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "slice":
        slice_geojson(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit("usage: benchlib.py slice SRC DST START STOP")
