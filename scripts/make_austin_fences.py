#!/usr/bin/env python3
"""Builds data/austin/fences.geojson: the Austin transit stops as 50 m circles plus the 70
Austin neighbourhood polygons (standard library only; deterministic output).

Usage: python3 scripts/make_austin_fences.py [RADIUS_METRES]
"""
import csv, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data", "austin")
radius = float(sys.argv[1]) if len(sys.argv) > 1 else 50.0

features = []
with open(os.path.join(data, "capmetro_stops.csv"), newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        features.append({
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [float(row["lon"]), float(row["lat"])]},
            "properties": {"id": row["id"], "radius": radius, "library": "stops",
                           "name": row["name"], "category": row["category"]},
        })
with open(os.path.join(data, "neighborhoods.geojson"), encoding="utf-8") as f:
    hoods = json.load(f)
for feature in hoods["features"]:
    props = dict(feature["properties"])
    props["library"] = "neighborhoods"
    props["rank"] = 1  # a stop (rank 0) wins the current-POI choice over its neighbourhood
    features.append({"type": "Feature", "geometry": feature["geometry"], "properties": props})

out = os.path.join(data, "fences.geojson")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"type": "FeatureCollection", "features": features}, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {len(features)} fences to {os.path.relpath(out)}")
