/// The fuzz targets' entry points: each takes arbitrary bytes, runs one input-facing part of
/// the engine on them, and traps (a crash libFuzzer keeps) when a property it checks fails.
/// Errors the input deserves (a bad row, not JSON, a damaged snapshot) are answers, not
/// failures.
///
/// The libFuzzer executables under `Fuzz/fuzz-*` call these (through `package` access), and so does the test that
/// replays the committed corpus (`Fuzz/corpus`) and kept crashes (`Fuzz/crashes`), so an
/// input that once crashed keeps being checked by `make test`. A new target is a function
/// here plus a small executable (see `Fuzz/README.md`).
package enum FuzzEntries {
    /// The targets by name (the folder names under `Fuzz/corpus`).
    package static let all: [(name: String, entry: @Sendable ([UInt8]) -> Void)] = [
        ("geojson", geoJSONFences),
        ("csv-row", csvRows),
        ("timestamp", timestamp),
        ("snapshot", snapshot),
        ("fence-file", compiledFenceFile),
        ("state", carriedState),
    ]

    /// A GeoJSON fence file (FeatureCollection or GeoJSONSeq) through the streaming reader
    /// the CLI uses, and, when every feature is valid, built into a fence set (at most 256
    /// fences: the GEOS checks and the tree).
    ///
    /// Properties: the reader's verdict does not depend on how the text is cut into slices
    /// read in parallel (one slice on one thread against 64-byte slices on two); a set built
    /// from a report holds one fence per valid feature, each readable by slot.
    package static func geoJSONFences(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            let whole = Result { try FenceSet.inspect(bytes: raw, name: "fuzz", threads: 1) }
            let sliced = Result { try FenceSet.inspect(bytes: raw, name: "fuzz", threads: 2, sliceBytes: 64) }
            switch (whole, sliced) {
            case (.success(var report), .success(let other)):
                precondition(
                    report.featureCount == other.featureCount && report.validCount == other.validCount
                        && report.problems.map(\.description) == other.problems.map(\.description),
                    "the verdict depends on the slices")
                guard report.problems.isEmpty, report.validCount > 0, report.validCount <= 256 else { return }
                let expected = report.validCount
                let set = FenceSet(report: &report)
                precondition(set.count == expected, "the set does not hold every valid feature")
                for slot in 0..<set.count { _ = (set.geofenceID(at: slot), set.enclosingCircle(at: slot), set.boundingBoxes(at: slot)) }
            case (.failure(let a), .failure(let b)):
                precondition("\(a)" == "\(b)", "the error depends on the slices: \(a) / \(b)")
            default:
                fatalError("one slicing reads the text, the other fails")
            }
        }
    }

    /// A compiled fence file, opened from bytes with every check on.
    ///
    /// Properties: a file that opens answers for every slot (id, circle, boxes) and a
    /// containment query at each fence's centre without trapping; a damaged file is an
    /// error, never a crash.
    package static func compiledFenceFile(_ bytes: [UInt8]) {
        let opened = bytes.withUnsafeBytes { raw in Result { () throws(FileError) in try FenceSet.open(bytes: raw, name: "fuzz") } }
        guard case .success(let set) = opened, set.count <= 4_096 else { return }
        guard let evaluator = try? ContainmentEvaluator(fenceSet: set) else { return }
        for slot in 0..<set.count {
            _ = (set.geofenceID(at: slot), set.level(at: slot), set.boundingBoxes(at: slot))
            let centre = set.enclosingCircle(at: slot).center
            _ = try? evaluator.containing(latitude: centre.latitude, longitude: centre.longitude, level: set.level(at: slot))
        }
    }

    /// A fix CSV: the first line is the header, the rest rows.
    ///
    /// Properties: wherever the one-pass parser accepts a row, the full parser accepts it with
    /// the same fields; the batch's slice parser accounts for every line (rows + rejected +
    /// blank + other shards = lines) and keeps only valid UTF-8 device ids.
    package static func csvRows(_ bytes: [UInt8]) {
        guard let headerEnd = bytes.firstIndex(of: 0x0A) else { return }
        let header: FixCSVHeader
        do { header = try bytes.withUnsafeBytes { try FixCSVHeader(line: UnsafeRawBufferPointer(rebasing: $0[..<headerEnd])) } } catch {
            return
        }
        let body = Array(bytes[(headerEnd + 1)...])
        guard !body.isEmpty else { return }
        // Padding after the rows: the one-pass parser may read whole words up to `limit`.
        let padded = body + [UInt8](repeating: 0, count: 16)
        padded.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            var start = 0
            while start < body.count {
                var fast = FixCSVRow()
                var lineEnd = start
                while lineEnd < body.count && p[lineEnd] != 0x0A { lineEnd += 1 }
                if let end = fast.parseSimple(p, start, limit: body.count, header: header) {
                    precondition(end == lineEnd, "one-pass line end \(end) != \(lineEnd)")
                    var full = FixCSVRow()
                    let failure = full.parse(p, start, lineEnd, header: header)
                    precondition(failure == nil, "one-pass accepted a row the full parser rejects: \(failure!.reason)")
                    precondition(
                        fast.timestamp == full.timestamp && fast.latitude.bitPattern == full.latitude.bitPattern
                            && fast.longitude.bitPattern == full.longitude.bitPattern
                            && fast.accuracy.bitPattern == full.accuracy.bitPattern && fast.level == full.level
                            && fast.deviceStart == full.deviceStart && fast.deviceEnd == full.deviceEnd
                            && fast.deviceQuoted == full.deviceQuoted,
                        "the one-pass and full parsers disagree on a row")
                }
                start = lineEnd + 1
            }
            slices(p, count: body.count, header: header)
        }
    }

    /// The batch's slice parser over the rows, in both of its modes.
    private static func slices(_ p: UnsafePointer<UInt8>, count: Int, header: FixCSVHeader) {
        let lines = count == 0 ? 0 : (0..<count).reduce(into: 1) { n, k in if p[k] == 0x0A && k + 1 < count { n += 1 } }
        for keepLines in [false, true] {
            let rows = count / 8 + 1
            guard let store = FixStore(capacity: rows, keepsExtras: true) else { return }
            let scratch = ScratchMemory()
            guard scratch.prepare(rows * 40) else { return }
            let slice = withExtendedLifetime(store) {
                ParsedSlice.parse(
                    p, 0, count, header: header, policy: FixRowPolicy(maximumLineBytes: 200), into: store.writer, firstSlot: 0,
                    keepLines: keepLines, scratch: scratch)
            }
            precondition(slice.lineCount == lines, "slice counted \(slice.lineCount) lines of \(lines)")
            precondition(
                slice.rowCount + slice.rejectedRows + slice.blankLines + slice.otherShardRows == lines,
                "rows, rejections and blank lines do not add up to the lines")
            let interner = slice.interner
            for k in 0..<interner.count {
                let id = Array(interner.arena[interner.offsets[k]..<interner.offsets[k + 1]])
                precondition(!id.isEmpty && String(validating: id, as: UTF8.self) != nil, "a kept id is empty or not UTF-8")
            }
        }
    }

    /// A timestamp field.
    ///
    /// Properties: an accepted timestamp written as ISO-8601 reads back as the same instant;
    /// all-digit text reads as its own value.
    package static func timestamp(_ bytes: [UInt8]) {
        let result = bytes.withUnsafeBufferPointer { b -> Result<Int64, TimestampParser.Failure> in
            guard let base = b.baseAddress else { return .failure(.empty) }
            return TimestampParser.parse(base, 0, b.count)
        }
        guard case .success(let milliseconds) = result else { return }
        if !bytes.isEmpty && bytes.count <= 18 && bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            precondition(Int64(String(decoding: bytes, as: UTF8.self)) == milliseconds, "digits read as another value")
        }
        // Years 0001–9999 have an ISO-8601 form.
        if milliseconds >= -62_135_596_800_000 && milliseconds <= 253_402_300_799_999 {
            let text = TimestampParser.iso8601(Timestamp(milliseconds: milliseconds))
            guard case .success(let again) = TimestampParser.parse(text) else { fatalError("\(text) does not parse") }
            precondition(again == milliseconds, "\(text) reads back as \(again), not \(milliseconds)")
        }
    }

    /// A snapshot file, read as a device snapshot and as a fleet snapshot.
    ///
    /// Properties: a snapshot that decodes writes back to bytes that decode to the same value.
    package static func snapshot(_ bytes: [UInt8]) {
        if let device = try? SnapshotStore.decode(DeviceSnapshot.self, from: bytes, path: nil) {
            roundTrip(device)
        }
        if let fleet = try? SnapshotStore.decode(FleetSnapshot.self, from: bytes, path: nil) {
            roundTrip(fleet)
        }
    }

    /// A state file (`evaluate --state-in`): checked and decoded, or an error.
    ///
    /// Properties: every device of a file that opens decodes on the file's own set or is an
    /// error (never a trap); the trackers that decode write back to a file that reads the same
    /// devices with the same trackers.
    package static func carriedState(_ bytes: [UInt8]) {
        guard let state = try? CarriedState(bytes: bytes, path: "fuzz"),
            let context = try? TrackerContext(fenceSet: state.fenceSet, configuration: state.configuration, idsInEvents: false)
        else { return }
        var devices = ByteWriter()
        var kept: [(String, DeviceTracker)] = []
        for k in state.ids.indices {
            guard let tracker = try? state.tracker(k, context: context) else { continue }
            CarriedState.deviceEntry(id: state.ids[k], tracker: tracker, to: &devices)
            kept.append((state.ids[k], tracker))
        }
        let again = CarriedState.fileBytes(
            fenceSet: state.fenceSet, watermark: state.watermark, shard: state.shard, configuration: state.configuration,
            deviceCount: kept.count, devices: devices.bytes)
        guard let reread = try? CarriedState(bytes: again, path: "fuzz (written back)") else { fatalError("a written state does not read") }
        precondition(reread.ids == kept.map(\.0), "a state's devices change in a round trip")
        for (k, (_, tracker)) in kept.enumerated() {
            guard let back = try? reread.tracker(k, context: context) else { fatalError("a written tracker does not decode") }
            precondition(back.snapshot() == tracker.snapshot(), "a tracker changes in a round trip")
        }
    }

    private static func roundTrip<S: VersionedSnapshot & Equatable>(_ value: S) {
        guard let bytes = try? SnapshotStore.encode(value, path: nil) else { fatalError("a decoded snapshot does not encode") }
        guard let again = try? SnapshotStore.decode(S.self, from: bytes, path: nil) else { fatalError("an encoded snapshot does not decode") }
        precondition(again == value, "a snapshot changes in a round trip")
    }
}
