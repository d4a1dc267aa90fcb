import GeofenceEngine

/// One measured case of the suite: what ran, on what, how fast, and the exactness figures.
struct BenchRecord {
    var benchCase: String
    var method: String
    var fences: Int
    var fixes: Int
    var threads: Int
    var seconds: Double
    /// Fixes (or queries) per second.
    var rate: Double
    var pairs: Int? = nil
    var checksum: String? = nil
    var peakRSSMiB: Double
    /// Ratios to the baselines measured in the same run, by baseline name.
    var ratios: [(String, Double)] = []
    var note: String = ""

    var nsPerItem: Double { rate > 0 ? 1e9 / rate : .nan }

    var json: JSONValue {
        func d(_ x: Double) -> JSONValue { JSONValue.double(x) ?? .null }
        var members: [JSONObject.Member] = [
            .init(key: "case", value: .string(benchCase)), .init(key: "method", value: .string(method)),
            .init(key: "fences", value: .integer(fences)), .init(key: "fixes", value: .integer(fixes)),
            .init(key: "threads", value: .integer(threads)), .init(key: "seconds", value: d(seconds)),
            .init(key: "perSecond", value: d(rate)), .init(key: "nsPerItem", value: d(nsPerItem)),
            .init(key: "peakRSSMiB", value: d(peakRSSMiB)),
        ]
        if let pairs { members.append(.init(key: "pairs", value: .integer(pairs))) }
        if let checksum { members.append(.init(key: "checksum", value: .string(checksum))) }
        if !ratios.isEmpty {
            members.append(.init(key: "ratios", value: .object(JSONObject(members: ratios.map { .init(key: $0.0, value: d($0.1)) }))))
        }
        if !note.isEmpty { members.append(.init(key: "note", value: .string(note))) }
        return .object(JSONObject(members: members))
    }
}

/// The suite's results: a table for people, JSON and an SVG chart for machines and readers.
struct BenchReport {
    var records: [BenchRecord] = []
    var context: [(String, String)] = []

    /// Writes ``json`` to `path`.
    func write(json path: String) throws {
        var bytes: [UInt8] = []
        JSONWriter.write(json, to: &bytes)
        try String(decoding: bytes, as: UTF8.self).write(toFile: path, atomically: true, encoding: .utf8)
    }

    var table: String {
        let header = ["case", "method", "fences", "items", "threads", "per second", "ns/item", "ratios", "pairs", "checksum", "peak RSS MiB"]
        let rows = records.map { r in
            [
                r.benchCase, r.method, "\(r.fences)", "\(r.fixes)", "\(r.threads)", RTreeBench.rate(r.rate),
                RTreeBench.fixed(r.nsPerItem, 1),
                r.ratios.map { "\(RTreeBench.fixed($0.1, 2))x \($0.0)" }.joined(separator: ", "),
                r.pairs.map(String.init) ?? "", r.checksum ?? "", RTreeBench.fixed(r.peakRSSMiB, 1),
            ]
        }
        return RTreeBench.table(header: header, rows: rows)
    }

    var json: JSONValue {
        .object(JSONObject(members: [
            .init(key: "context", value: .object(JSONObject(members: context.map { .init(key: $0.0, value: .string($0.1)) }))),
            .init(key: "results", value: .array(records.map(\.json))),
        ]))
    }
}
