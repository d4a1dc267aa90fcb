import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

extension ResourceLimitCLITests {
    /// A GeoJSON file of `count` octagons on a grid over the test fixes' area, each twice as
    /// wide as the grid's step: a fix is in about three (about 560 bytes a fence).
    static func octagons(_ count: Int, in dir: URL) throws -> String {
        var text = #"{"type":"FeatureCollection","features":["#
        text.reserveCapacity(count * 600)
        let side = Int(Double(count).squareRoot().rounded(.up)), step = 0.04 / Double(side)
        for k in 0..<count {
            let lat = 40.73 + Double(k / side) * step, lon = -74.0 + Double(k % side) * step
            let ring = (0...8).map { j -> String in
                let a = Double(j % 8) * Double.pi / 4
                return "[\(lon + 1.3 * step * cos(a)),\(lat + step * sin(a))]"
            }
            if k > 0 { text += "," }
            text += #"{"type":"Feature","properties":{"id":"o\#(k)"},"geometry":{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}}"#
        }
        text += "]}"
        let url = dir.appendingPathComponent("octagons.geojson")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The measured failure: under `prlimit --as` from 62 to 100 MB `geofence contains` stopped
    /// in the Swift runtime (SIGABRT, SIGILL) while it loaded the fences or answered the first
    /// block, and `evaluate`, `validate` and `compile` did with 100k fences at 150–200 MB. Now
    /// the load, the compiled file's opening and each block ask for their memory first: at
    /// every limit a run ends with 0, or with 2 and one line saying what needed memory.
    @Test("contains under address-space limits: GeoJSON or compiled fences, a file or a pipe, exit 0 or 2, never a signal")
    func containsUnderLimits() throws {
        guard Self.prlimit != nil, !Platform.underSanitizer else { return }
        try TestFolders.with("geofence-limits") { dir in
            let geojson = try Self.octagons(12_000, in: dir)
            let compiled = dir.appendingPathComponent("octagons.fences").path
            let compile = try Self.run(["compile", "--fences", geojson, "--output", compiled], timeout: 120)
            #expect(compile.status == 0, "\(compile.stderr)")
            let fixes = try Self.fixes(rows: 60_000, devices: 1_000, sorted: false, in: dir)
            let fixBytes = try Data(contentsOf: URL(fileURLWithPath: fixes))
            #expect(fixBytes.count > 2 << 20, "blocks of rows (1 MiB under a limit)")
            var statuses: [String: Set<Int32>] = [:], reasons: Set<String> = []
            // On the debug build the loads (and openings) fail up to 110 MB, the blocks from
            // 120 to 150 MB, and every run completes from 160 MB: `make test` takes one limit
            // inside each of those ranges; `make test-long` goes from 40 to 400 MB by 20, where
            // every run loads the 12,000 fences in full (most of the test's time).
            for limit in sized(full: Array(stride(from: 40, through: 400, by: 20)), quick: [80, 130, 180]) {
                for (fences, kind) in [(geojson, "GeoJSON"), (compiled, "compiled")] {
                    for piped in [false, true] {
                        let fifo = dir.appendingPathComponent("fixes-\(limit)-\(kind).fifo").path
                        defer { if piped { unlink(fifo) } }
                        let feeding = piped ? try TestFIFO.feed(fixBytes, at: fifo) : nil
                        let arguments = [
                            "contains", "--fences", fences, "--fixes", piped ? fifo : fixes, "--output", "/dev/null", "--threads", "2",
                        ]
                        let r = try Self.run(arguments, addressSpace: limit * 1_000_000, timeout: 120)
                        // The writer may still wait to open a FIFO the run never opened.
                        if let feeding { #expect(feeding.drain(fifo), "the FIFO's writer never ended") }
                        let what = "\(limit) MB, \(kind) fences, \(piped ? "pipe" : "file"): status \(r.status) \(r.stderr.prefix(300))"
                        #expect(!r.signalled && !r.timedOut, "\(what)")
                        #expect(r.status == 0 || r.status == 2, "\(what)")
                        if r.status == 2 {
                            #expect(r.stderr.hasPrefix("geofence: ") && r.stderr.split(separator: "\n").count == 1, "\(what)")
                            for reason in ["loading", "opening", "answering a block", "cannot map", "cannot allocate"]
                            where r.stderr.contains(reason) { reasons.insert(reason) }
                        }
                        statuses["\(kind) \(piped)", default: []].insert(r.status)
                    }
                }
            }
            // The limits span both answers for every kind, and the load's and the blocks' checks
            // both refused somewhere.
            #expect(statuses.count == 4 && statuses.values.allSatisfy { $0 == [0, 2] }, "\(statuses)")
            #expect(reasons.isSuperset(of: ["loading", "answering a block"]), "\(reasons)")
        }
    }
}
