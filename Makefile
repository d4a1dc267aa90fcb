# Quick start: `make run` (the main job on the data in data/) and `make test`.
# Both install GEOS first when it is missing (scripts/ensure-deps.sh).
SWIFT ?= swift
RELEASE := .build/release

.PHONY: deps build run test bench clean

deps:
	@bash scripts/ensure-deps.sh

build: deps
	$(SWIFT) build -c release --product geofence

run: build
	@mkdir -p out
	$(RELEASE)/geofence validate --fences data/austin/fences.geojson
	$(RELEASE)/geofence contains --fences data/austin/fences.geojson --fixes data/austin/capmetro_avl_traces.csv --output out/contains.ndjson
	head -n 5 out/contains.ndjson

test: deps
	$(SWIFT) test

bench: deps
	$(SWIFT) build -c release --product geofence-bench
	$(RELEASE)/geofence-bench

clean:
	rm -rf .build out
