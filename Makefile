# Quick start: `make run` (the main job on the data in data/) and `make test`.
# Both install GEOS first when it is missing (scripts/ensure-deps.sh).
SWIFT ?= swift
RELEASE := .build/release
# Release builds link the Swift runtime in (`--static-swift-stdlib`): a process then starts
# about 3 ms sooner (no loading and binding of the runtime's shared libraries: 5.4 against
# 8.5 ms for a bare `geofence`), which is 1-5 % of a whole fence load or `geofence contains`.
# Every release build here uses the same flags, so none relinks the others' products.
RELEASE_FLAGS := -c release --static-swift-stdlib
# Every tool's temporary files go to one ignored folder of the clone, not /tmp: SwiftPM leaves
# empty TemporaryDirectory.* folders and lock files wherever TMPDIR points.
export TMPDIR := $(CURDIR)/.build-tmp
$(shell mkdir -p $(TMPDIR))

.PHONY: deps build run test test-long docs consumer bench fuzz sanitize dist spark-test spark-bench clean server-deps server server-path serve server-test server-fuzz server-bench server-bench-smoke

deps:
	@bash scripts/ensure-deps.sh

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product geofence

# The main job: the Austin bus traces against the Austin stops (50 m circles) and
# neighbourhoods; events in out/events.ndjson, the summary in out/summary.json.
run: build
	@mkdir -p out
	$(RELEASE)/geofence evaluate --fences data/austin/fences.geojson --fixes data/austin/capmetro_avl_traces.csv \
		--output out/events.ndjson --summary out/summary.json
	@echo "First events (out/events.ndjson):"
	@head -n 5 out/events.ndjson

# The whole suite, built and run with a temporary folder of its own (TMPDIR), removed at the
# end. What the tests leave there other than SwiftPM's TemporaryDirectory.* folders, *.lock
# files and the compiler's generated sources fails the run. `make test` runs the long seeded
# sweeps and end-to-end runs at a smaller size that still checks each behaviour, and skips
# the few whose point is their size; `make test-long` runs the whole suite at full size
# (GEOFENCE_TEST_LONG=1, read by Tests/GeofenceTestSupport/TestSize.swift).
test-long: export GEOFENCE_TEST_LONG := 1
test test-long: deps
	@tmp=$$(mktemp -d); TMPDIR=$$tmp $(SWIFT) build --build-tests && TMPDIR=$$tmp $(SWIFT) test --skip-build; status=$$?; \
	left=$$(ls -A $$tmp | grep -v -e '^TemporaryDirectory\.' -e '\.lock$$' -e '^swift-generated-sources$$'); rm -rf $$tmp; \
	if [ -n "$$left" ]; then echo "make $@: the tests left files in the temporary folder:"; echo "$$left"; exit 1; fi; \
	exit $$status

# The documentation: the DocC catalog Sources/GeofenceEngine/GeofenceEngine.docc and the doc
# comments, as a static site in docs-site/ (entry page docs-site/documentation/geofenceengine/
# index.html; its links start at the site's root, so serve the folder:
# `python3 -m http.server --directory docs-site 8000`). A warning in the catalog fails the target.
DOCS_LOG := .build/docs.log
docs: deps
	@mkdir -p .build; echo "building the documentation (log: $(DOCS_LOG))"; \
	$(SWIFT) package --allow-writing-to-directory docs-site generate-documentation --target GeofenceEngine \
		--output-path docs-site --transform-for-static-hosting > $(DOCS_LOG) 2>&1 \
		|| { cat $(DOCS_LOG); echo "make docs: failed"; exit 1; }; \
	echo "$$(grep -c '^warning' $(DOCS_LOG)) documentation warnings in all (in $(DOCS_LOG))"; \
	if grep -A1 '^warning' $(DOCS_LOG) | grep -B1 -E -- '--> [^ ]*\.md:'; then \
		echo "make docs: warnings in Sources/GeofenceEngine/GeofenceEngine.docc (above)"; exit 1; fi; \
	echo "Documentation: docs-site/documentation/geofenceengine/index.html"

# The example package Examples/Consumer: a package of its own that depends on this one by path,
# as an app would, and does what the getting-started article shows (its code blocks are the
# consumer's: scripts/check-article-code.py). Run from its folder (it reads its data/); exits 1
# when a check fails. Built in .build-consumer, outside Examples/: a build folder there holds
# checkouts of the dependencies, whose `import Glibc` PortabilityTests would find.
CONSUMER_BUILD := $(CURDIR)/.build-consumer
consumer: deps
	python3 scripts/check-article-code.py
	$(SWIFT) build --package-path Examples/Consumer --scratch-path $(CONSUMER_BUILD)
	cd Examples/Consumer && $(CONSUMER_BUILD)/debug/Consumer

# libFuzzer targets (Fuzz/README.md), each run for FUZZ_SECONDS seconds from the committed
# seeds (Fuzz/corpus/<target>) and its working corpus (.build-fuzz/corpus/<target>, not in
# git); a crash is written to Fuzz/crashes/<target>/ and fails the run.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= geojson csv-row timestamp snapshot fence-file state
FUZZ_BUILD := .build-fuzz
FUZZ_FLAGS := -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGEOFENCE_FUZZ

fuzz: deps
	@mkdir -p $(FUZZ_BUILD); for t in $(FUZZ_TARGETS); do \
		echo "building fuzz-$$t"; \
		$(SWIFT) build --scratch-path $(FUZZ_BUILD) --product fuzz-$$t $(FUZZ_FLAGS) > $(FUZZ_BUILD)/build-$$t.log 2>&1 \
			|| { grep -v "Cannot export local symbol" $(FUZZ_BUILD)/build-$$t.log; exit 1; }; \
	done
	@status=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t Fuzz/crashes/$$t; \
		echo "fuzz-$$t: $(FUZZ_SECONDS) s"; \
		ASAN_OPTIONS=detect_leaks=0 $(FUZZ_BUILD)/debug/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-artifact_prefix=Fuzz/crashes/$$t/ -print_final_stats=1 $(FUZZ_BUILD)/corpus/$$t Fuzz/corpus/$$t \
			2>$(FUZZ_BUILD)/fuzz-$$t.log || { status=1; echo "fuzz-$$t: CRASH, see Fuzz/crashes/$$t/ and $(FUZZ_BUILD)/fuzz-$$t.log"; }; \
		grep -E "^stat::number_of_executed_units|^stat::new_units_added" $(FUZZ_BUILD)/fuzz-$$t.log | tr '\n' ' '; echo; \
	done; exit $$status

# The suite under ThreadSanitizer, then AddressSanitizer (each in a build folder of its own;
# the tests that bound memory or limit the address space skip themselves under sanitizers), at
# `make test`'s size. Any report fails the run: the options below are exported, so the test
# process and every `geofence` process the tests start stop at their first report (TSan exits
# 66, ASan 1); leaks are reported (LeakSanitizer) but for scripts/lsan-suppressions.txt's.
# ThreadSanitizer sees pthread mutexes, not the ordering of a contended Synchronization.Mutex:
# state kept beside its lock uses Platform.Lock (Sources/GeofenceEngine/Platform/Platform.swift).
#
# TSan skips the seeded twin suites below: each compares one-thread code with its slow twin
# (scans of every fence), starts no thread of its own, and is the slowest thing under TSan (the
# CellSweep twin alone ran more than 10 minutes); TSan has no race to find there, and ASan runs
# them. Every suite that starts threads or `geofence` processes runs under both.
TSAN_SKIP := (CellSweepTwinTests|CircleTestTwinTests|FastPathTwinTests|BatchContainmentTests|IndexedContainmentTests|JSONNumberTwinTests|LocateTwinTests|PolygonCheckTwinTests|PlannerReplayTests|TrackerPropertyTests)/
sanitize: export TSAN_OPTIONS := halt_on_error=1
sanitize: export ASAN_OPTIONS := halt_on_error=1:detect_leaks=1
sanitize: export LSAN_OPTIONS := suppressions=$(CURDIR)/scripts/lsan-suppressions.txt
sanitize: deps
	@start=$$(date +%s); $(SWIFT) build --build-tests --scratch-path .build-tsan --sanitize=thread \
		&& $(SWIFT) test --skip-build --scratch-path .build-tsan --sanitize=thread --skip '$(TSAN_SKIP)'; status=$$?; \
	echo "make sanitize: ThreadSanitizer stage $$(( $$(date +%s) - start )) s, status $$status"; exit $$status
	@start=$$(date +%s); $(SWIFT) build --build-tests --scratch-path .build-asan --sanitize=address \
		&& $(SWIFT) test --skip-build --scratch-path .build-asan --sanitize=address; status=$$?; \
	echo "make sanitize: AddressSanitizer stage $$(( $$(date +%s) - start )) s, status $$status"; exit $$status

# The benchmark suite against the repository's own peers (Benchmarks/peers: a C grid, a GEOS
# C API loop, Shapely, DuckDB spatial), all on one seeded world, their checksums checked equal
# to the engine's: the release binaries, the C peers (.build-peers/bin), a pinned venv
# (.bench-venv, from PyPI; DuckDB's spatial extension from its PyPI package, no download at run
# time), the world (.build-peers/world); one table, out/bench.json and out/bench.svg.
# BENCH_QUICK=1 (`make bench-smoke`): a small world and one round, every peer still run and
# checked (CI-sized). bench-peers / bench-venv / bench-world: one step. Benchmarks/peers/README.md.
BENCH_QUICK ?=
BENCH_STEP = BENCH_QUICK=$(BENCH_QUICK) bash Benchmarks/peers/bench.sh
.PHONY: bench-smoke bench-peers bench-venv bench-world
bench: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product geofence
	$(SWIFT) build $(RELEASE_FLAGS) --product geofence-bench
	@$(BENCH_STEP) peers venv world suite

bench-smoke:
	@$(MAKE) --no-print-directory bench BENCH_QUICK=1

bench-peers:
	@$(BENCH_STEP) peers

bench-venv:
	@$(BENCH_STEP) venv

bench-world:
	@$(BENCH_STEP) world

# A release binary to ship to other machines (Spark executors): `make build`'s, which has the
# Swift runtime linked in, stripped. It needs libgeos (the build machine's release: see
# scripts/check-dist.sh) and libstdc++, no Swift.
dist: build
	@mkdir -p dist
	cp $(RELEASE)/geofence dist/geofence
	strip dist/geofence
	@bash scripts/check-dist.sh dist/geofence

# The Spark integration on a two-worker standalone cluster on loopback (installs Java 17 and
# PySpark into .spark-venv when missing); see integrations/spark/spark_test.sh.
spark-test: dist
	bash integrations/spark/spark_test.sh dist/geofence

# The Spark job on 20x Austin in local[2] against one process, interleaved (after spark-test).
spark-bench: dist
	bash integrations/spark/bench.sh dist/geofence

# geofence-server (Server/, a package of its own: docs/server.md): a release build, its
# path, a run on the Austin fences (its database in out/server-data), and its tests (each
# test server on loopback, on a free port, in the tests' own temporary folder).
SERVER_BUILD := Server/.build
SERVER := $(SERVER_BUILD)/release/geofence-server

server-deps:
	@bash scripts/ensure-deps.sh server

server: server-deps
	$(SWIFT) build --package-path Server --scratch-path $(SERVER_BUILD) $(RELEASE_FLAGS) --product geofence-server

server-path:
	@echo $(CURDIR)/$(SERVER)

serve: server
	@mkdir -p out
	$(SERVER) --fences data/austin/fences.geojson --data out/server-data

server-test: server-deps
	@start=$$(date +%s); tmp=$$(mktemp -d); TMPDIR=$$tmp $(SWIFT) build --package-path Server --scratch-path $(SERVER_BUILD) --build-tests \
		&& TMPDIR=$$tmp $(SWIFT) test --package-path Server --scratch-path $(SERVER_BUILD) --skip-build; status=$$?; \
	left=$$(ls -A $$tmp | grep -v -e '^TemporaryDirectory\.' -e '\.lock$$' -e '^swift-generated-sources$$'); rm -rf $$tmp; \
	echo "make server-test: $$(( $$(date +%s) - start )) s, status $$status"; \
	if [ -n "$$left" ]; then echo "make $@: the tests left files in the temporary folder:"; echo "$$left"; exit 1; fi; \
	exit $$status

# schemathesis against Server/openapi.yaml on a debug server: no 5xx, every answer as the
# document says, the server alive and exiting 0 at the end (Server/scripts/fuzz-api.sh; a
# pinned venv in .build-schemathesis from PyPI).
# A fixed seed by default, so that CI is repeatable; FUZZ_SEED= for a random one (printed).
# The server benchmark (Benchmarks/server/README.md): batched ingest, single fixes beside a
# bare Hummingbird handler, fence updates during ingest, SSE delivery, memory, and the PostGIS
# trigger pattern, on loopback with release builds; one table and out/server-bench.json.
# Installs wrk and postgresql-15-postgis-3 from Debian when missing. -smoke: a small world,
# a few seconds a step (every step still run and its answers checked).
server-bench: server-deps
	bash Benchmarks/server/bench.sh

server-bench-smoke: server-deps
	BENCH_QUICK=1 bash Benchmarks/server/bench.sh

server-fuzz: export FUZZ_SEED ?= 1207
server-fuzz: server-deps
	bash Server/scripts/fuzz-api.sh

clean:
	rm -rf .build .build-fuzz .build-tsan .build-asan dist out docs-site .build-consumer .build-tmp Server/.build .build-schemathesis .build-server-bench
