import GeofenceEngine

extension SuiteCommand {
    /// The engine's two APIs on 1 and all threads and the peers (when given), in turn for
    /// `rounds` rounds, so every ratio compares measurements minutes apart at most and is the
    /// median of the rounds' own ratios (the host's slow and fast minutes fall on both sides
    /// of a ratio alike); the naive GEOS path and brute force on a prefix once; checksums
    /// compared in every round.
    func containment(_ world: PeerWorld, fences f: Int, report: inout BenchReport) throws {
        let peer = peerRunner
        var measured: [ContainmentRound] = []
        for _ in 0..<rounds {
            let one = try ContainmentRun.measure(world: world, method: .engine, threads: 1, repeats: repeats)
            let batch = try ContainmentRun.measure(world: world, method: .engineBatch, threads: 1, repeats: repeats)
            let cGrid = try peer?.cGrid(fences: f, fixes: fixes, repeats: max(repeats, 5))
            let geosLoop = try peer?.geosLoop(fences: f, fixes: fixes, repeats: repeats)
            let shapely = try peer?.shapely(fences: f, fixes: fixes, repeats: repeats)
            let all = try ContainmentRun.measure(world: world, method: .engine, threads: threads, repeats: repeats)
            let batchAll = try ContainmentRun.measure(world: world, method: .engineBatch, threads: threads, repeats: repeats)
            let duck = try peer?.duckDB(fences: f, fixes: fixes, threads: threads, repeats: repeats)
            for r in [all, batch, batchAll] where r.checksum != one.checksum {
                throw BenchError("F=\(f): checksums differ: engine \(one.checksum.hex), \(r.method.rawValue) T=\(r.threads) \(r.checksum.hex)")
            }
            for p in [cGrid, geosLoop, shapely, duck].compactMap({ $0 }) where p.checksum != one.checksum.hex || p.pairs != one.checksum.pairs {
                throw BenchError("F=\(f): \(p.name) reports \(p.pairs) pairs, checksum \(p.checksum); the engine \(one.checksum.pairs), \(one.checksum.hex)")
            }
            measured.append(ContainmentRound(
                one: one, batch: batch, all: all, batchAll: batchAll, cGrid: cGrid, geosLoop: geosLoop, shapely: shapely, duck: duck))
        }
        let checksum = measured[0].one.checksum
        guard measured.allSatisfy({ $0.one.checksum == checksum }) else {
            throw BenchError("F=\(f): the engine's checksum differs between rounds")
        }
        let geos = try ContainmentRun.measure(world: world, method: .geos, threads: 1, repeats: 1)
        guard checksum == geos.checksum else {
            throw BenchError("F=\(f): checksums differ: engine \(checksum.hex), GEOS \(geos.checksum.hex)")
        }
        // Brute force on the first fixes, the engine on the same prefix: 10M fix-fence tests
        // (gen_world.py's world: about 2 s at 1k and 10k fences; 1,000 fixes at least).
        let prefixCount = max(1_000, min(world.fixCount, 10_000_000 / max(1, f)))
        let prefix = world.prefix(prefixCount)
        let brute = try ContainmentRun.measure(world: prefix, method: .brute, threads: 1, repeats: 1)
        let enginePrefix = try ContainmentRun.measure(world: prefix, method: .engine, threads: 1, repeats: 1)
        guard brute.checksum == enginePrefix.checksum else {
            throw BenchError("F=\(f): engine and brute force disagree on the first \(prefixCount) fixes")
        }
        let rss = Measure.peakRSSMiB()
        let n = world.fixCount
        typealias Engine = KeyPath<ContainmentRound, ContainmentRun>
        /// One of the engine's measurements: median seconds over the rounds; its ratios, each
        /// the median over the rounds (all of them listed in the note).
        func engineRecord(_ k: Engine, _ method: String, ratios: [(String, (ContainmentRound) -> Double?)], note: String = "") -> BenchRecord {
            let seconds = Measure.median(measured.map { $0[keyPath: k].seconds })
            var medians: [(String, Double)] = []
            var lists: [String] = []
            for (name, ratio) in ratios {
                let values = measured.compactMap(ratio)
                guard !values.isEmpty else { continue }
                medians.append((name, Measure.median(values)))
                if values.count > 1 { lists.append("\(name) " + values.map { RTreeBench.fixed($0, 2) }.joined(separator: "/")) }
            }
            let run = measured[0][keyPath: k]
            let perRound = lists.isEmpty ? "" : "rounds: " + lists.joined(separator: "; ")
            return BenchRecord(
                benchCase: "contains", method: method, fences: f, fixes: n, threads: run.threads, seconds: seconds,
                rate: Double(n) / seconds, pairs: checksum.pairs, checksum: checksum.hex, peakRSSMiB: rss, ratios: medians,
                note: [note, perRound].filter { !$0.isEmpty }.joined(separator: "; "))
        }
        func rate(_ r: ContainmentRound, _ k: Engine) -> Double { r[keyPath: k].fixesPerSecond }
        func peers(_ k: Engine, threads t: Int) -> [(String, (ContainmentRound) -> Double?)] {
            var out: [(String, (ContainmentRound) -> Double?)] = []
            if t == 1 {
                out.append(("c-grid", { r in r.cGrid.map { rate(r, k) / $0.fixesPerSecond } }))
                out.append(("geos-loop", { r in r.geosLoop.map { rate(r, k) / $0.fixesPerSecond } }))
                out.append(("shapely", { r in r.shapely.map { rate(r, k) / $0.fixesPerSecond } }))
            }
            out.append(("duckdb", { r in r.duck.flatMap { $0.threads == t ? rate(r, k) / $0.fixesPerSecond : nil } }))
            return out
        }
        let geosRate = geos.fixesPerSecond
        report.records.append(engineRecord(\.one, "engine fix API", ratios: peers(\.one, threads: 1) + [("geos", { r in rate(r, \.one) / geosRate })]))
        report.records.append(engineRecord(
            \.batch, "engine batch API", ratios: peers(\.batch, threads: 1) + [("fix API", { r in rate(r, \.batch) / rate(r, \.one) })],
            note: fenceSetSorted(world) ? "fixes taken tile by tile (timed)" : "fences' hot data fits in cache: input order"))
        report.records.append(engineRecord(\.all, "engine fix API", ratios: [("1 thread", { r in rate(r, \.all) / rate(r, \.one) })] + peers(\.all, threads: threads)))
        report.records.append(engineRecord(
            \.batchAll, "engine batch API", ratios: [("1 thread", { r in rate(r, \.batchAll) / rate(r, \.batch) })] + peers(\.batchAll, threads: threads)))
        let peerRuns: [[PeerRunner.Result]] = [
            measured.compactMap(\.cGrid), measured.compactMap(\.geosLoop), measured.compactMap(\.shapely), measured.compactMap(\.duck),
        ]
        for runs in peerRuns where !runs.isEmpty {
            let p = runs[0]
            let rate = Measure.median(runs.map(\.fixesPerSecond))
            report.records.append(BenchRecord(
                benchCase: "contains", method: "\(p.name) (peer)", fences: f, fixes: n, threads: p.threads,
                seconds: Double(n) / rate, rate: rate, pairs: p.pairs, checksum: p.checksum,
                peakRSSMiB: Measure.median(runs.map(\.peakRSSMiB)),
                note: runs.count > 1 ? "rounds: " + runs.map { RTreeBench.rate($0.fixesPerSecond) }.joined(separator: "/") + " /s" : ""))
        }
        func record(_ r: ContainmentRun, _ method: String, note: String = "") -> BenchRecord {
            BenchRecord(
                benchCase: "contains", method: method, fences: f, fixes: r.fixes, threads: r.threads, seconds: r.seconds,
                rate: r.fixesPerSecond, pairs: r.checksum.pairs, checksum: r.checksum.hex, peakRSSMiB: rss, note: note)
        }
        report.records.append(record(geos, "geos-naive"))
        report.records.append(record(brute, "brute", note: "first \(prefixCount) fixes; checksum equals the engine's on them"))
    }
}

/// One round of the containment case: the engine's fix and batch APIs on one thread and on
/// all, and the peers measured between them.
struct ContainmentRound {
    var one, batch, all, batchAll: ContainmentRun
    var cGrid: PeerRunner.Result?
    var geosLoop: PeerRunner.Result?
    var shapely: PeerRunner.Result?
    var duck: PeerRunner.Result?
}
