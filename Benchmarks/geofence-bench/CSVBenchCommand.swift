import ArgumentParser
import GeofenceEngine

/// `geofence-bench csv`: the fix CSV reader against a straightforward general-purpose parse,
/// to show why the batch path has its own.
struct CSVBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csv",
        abstract: "Rows/s of the engine's fix CSV reader against a plain String-based parse of the same file.",
        discussion: """
            engine: LineBlockReader + FixCSVRow (in place, no allocation per row; one thread).

            plain: each line as a String, split on commas, Double(_:) and Int64(_:) on the fields \
            (what a general-purpose CSV layer does at best). Both read the whole file and sum \
            the coordinates, so neither can skip work.
            """
    )

    @Option(help: "A fix CSV (device_id,timestamp,lat,lon with epoch-millisecond timestamps).")
    var fixes: String

    func run() throws {
        var engineRows = 0, engineSum = 0.0
        let engine = try Measure.time {
            let reader = try LineBlockReader(path: fixes)
            var header: FixCSVHeader? = nil
            var row = FixCSVRow()
            try reader.forEachLine { base, start, end, _ in
                guard let h = header else {
                    header = try FixCSVHeader(line: UnsafeRawBufferPointer(start: base + start, count: end - start))
                    return
                }
                if row.parse(base, start, end, header: h) == nil {
                    engineRows += 1
                    engineSum += row.latitude + row.longitude
                }
            }
        }
        var simpleRows = 0, simpleSum = 0.0
        let bytes = try FileBytes.read(fixes)
        let simple = try Measure.time {
            try bytes.withUnsafeBufferPointer { b in
                guard let p = b.baseAddress else { return }
                var i = 0
                while i < b.count && p[i] != 0x0A { i += 1 }
                let header = try FixCSVHeader(line: UnsafeRawBufferPointer(start: p, count: i))
                i += 1
                var row = FixCSVRow()
                while i < b.count {
                    if let end = row.parseSimple(p, i, limit: b.count, header: header) {
                        simpleRows += 1
                        simpleSum += row.latitude + row.longitude
                        i = end + 1
                    } else {
                        while i < b.count && p[i] != 0x0A { i += 1 }
                        i += 1
                    }
                }
            }
        }
        var plainRows = 0, plainSum = 0.0
        let plain = try Measure.time {
            let reader = try LineBlockReader(path: fixes)
            var first = true
            try reader.forEachLine { base, start, end, _ in
                let line = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
                if first { first = false; return }
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count >= 4, Int64(fields[1]) != nil, let lat = Double(fields[2]), let lon = Double(fields[3]) else { return }
                plainRows += 1
                plainSum += lat + lon
            }
        }
        guard engineRows == plainRows, abs(engineSum - plainSum) < 1e-6 * max(1, abs(plainSum)) else {
            throw BenchError("the two parsers disagree: \(engineRows) vs \(plainRows) rows")
        }
        print("one-pass rows \(simpleRows): \(RTreeBench.rate(Double(simpleRows) / simple))/s, \(RTreeBench.fixed(simple / Double(max(1, simpleRows)) * 1e9, 1)) ns/row")
        print("rows \(engineRows): engine \(RTreeBench.rate(Double(engineRows) / engine))/s, plain \(RTreeBench.rate(Double(plainRows) / plain))/s, ratio \(RTreeBench.fixed(plain / engine, 1))x")
    }
}
