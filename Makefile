# Quick start: `make run` (the main job on the data in data/) and `make test`.
# Both install GEOS first when it is missing (scripts/ensure-deps.sh).
SWIFT ?= swift
RELEASE := .build/release

.PHONY: deps build run test bench dist spark-test spark-bench clean

deps:
	@bash scripts/ensure-deps.sh

build: deps
	$(SWIFT) build -c release --product geofence

# The main job: the Austin bus traces against the Austin stops (50 m circles) and
# neighbourhoods; events in out/events.ndjson, the summary in out/summary.json.
run: build
	@mkdir -p out
	$(RELEASE)/geofence evaluate --fences data/austin/fences.geojson --fixes data/austin/capmetro_avl_traces.csv \
		--output out/events.ndjson --summary out/summary.json
	@echo "First events (out/events.ndjson):"
	@head -n 5 out/events.ndjson

test: deps
	$(SWIFT) test

# The benchmark suite; set PEERS_DATA to the folder ../shared/peers/gen.py wrote to use the
# peers' world (else a world generated in Swift is used).
bench: deps
	$(SWIFT) build -c release
	@mkdir -p out
	$(RELEASE)/geofence-bench suite --json out/bench.json --svg out/bench.svg

# A release binary to ship to other machines (Spark executors): the Swift runtime linked in
# statically, stripped. It needs libgeos (the build machine's release: see
# scripts/check-dist.sh) and libstdc++, no Swift. Built in its own folder (.build-dist).
dist: deps
	$(SWIFT) build -c release --product geofence --static-swift-stdlib --scratch-path .build-dist
	@mkdir -p dist
	cp .build-dist/release/geofence dist/geofence
	strip dist/geofence
	@bash scripts/check-dist.sh dist/geofence

# The Spark integration on a two-worker standalone cluster on loopback (installs Java 17 and
# PySpark into .spark-venv when missing); see integrations/spark/spark_test.sh.
spark-test: dist
	bash integrations/spark/spark_test.sh dist/geofence

# The Spark job on 20x Austin in local[2] against one process, interleaved (after spark-test).
spark-bench: dist
	bash integrations/spark/bench.sh dist/geofence

clean:
	rm -rf .build .build-dist dist out
