import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

@Suite("Batch evaluator")
struct BatchEvaluatorTests {
    static let configurations: [TrackerConfiguration] = [
        TrackerConfiguration(),
        TrackerConfiguration(ignorePeriod: 0, dwell: 30, enterToleranceFraction: 0.2, exitToleranceFraction: 0.5, accuracyBuffer: true, presenceInterval: 120),
        TrackerConfiguration(ignorePeriod: 90, levelFences: false),
    ]

    /// The slow, obvious twin: each device's fixes fed to a GeofenceMonitor one by one, in
    /// time order (stable), then `finish`, rendered with the batch's line format.
    static func oneByOne(_ fixture: BatchFixture, set: FenceSet, configuration: TrackerConfiguration) throws -> String {
        var byDevice: [String: [(Int, BatchFixture.Row)]] = [:]
        for (i, row) in fixture.rows.enumerated() { byDevice[row.device, default: []].append((i, row)) }
        let formatter = EventLineFormatter(fenceSet: set)
        var out: [UInt8] = []
        for device in byDevice.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let rows = byDevice[device]!.sorted { ($0.1.timestamp, $0.0) < ($1.1.timestamp, $1.0) }
            let monitor = try GeofenceMonitor(fenceSet: set, configuration: configuration)
            var events: [GeofenceEvent] = []
            for (_, r) in rows {
                let fix = Fix(timestamp: Timestamp(milliseconds: r.timestamp), latitude: r.latitude, longitude: r.longitude, accuracy: r.accuracy, level: r.level)
                events += try monitor.update(fix)
            }
            events += monitor.finish()
            // The batch's documented order: timestamp, then fence id, then call order.
            let ordered = events.enumerated().sorted { a, b in
                (a.element.timestamp, a.element.slot, a.offset) < (b.element.timestamp, b.element.slot, b.offset)
            }.map(\.element)
            let fragment = EventLineFormatter.deviceFragment(device)
            for e in ordered {
                formatter.append(type: e.type, timestamp: e.timestamp.milliseconds, device: fragment, slot: Int(e.slot), latitude: e.latitude, longitude: e.longitude, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("events equal the tracker fed fix by fix; threads and row order change nothing", arguments: [31, 32, 33] as [UInt64])
    func equalsOneByOne(seed: UInt64) throws {
        let fixture = BatchFixture.make(seed: seed)
        let set = try FenceSet(fixture.fences)
        // Rows with equal timestamps keep their file order, so the twin reads the same file order.
        let shuffled = fixture.shuffled(seed: seed)
        for (k, configuration) in Self.configurations.enumerated() {
            let expected = try Self.oneByOne(shuffled, set: set, configuration: configuration)
            #expect(!expected.isEmpty, "seed \(seed): the fixture makes no events")
            let path = try BatchFixture.write(shuffled.csv(columns: ["lon", "level", "device_id", "accuracy", "timestamp", "lat"]))
            for threads in [1, 2, 4] {
                let (text, summary) = try runBatch(set, path: path, options: BatchOptions(configuration: configuration, threads: threads, blockSize: 4096))
                #expect(text == expected, "seed \(seed) configuration \(k) threads \(threads): \(firstDifference(text, expected))")
                #expect(summary.rowsRead == fixture.rows.count && summary.processed == fixture.rows.count)
                #expect(summary.devices == 12)
            }
        }
    }

    /// Files of more than 64 KiB are parsed in one slice per thread per block, and grouped by
    /// a counting sort split between the threads: the output is still the one-by-one twin's.
    @Test("several slices per block and a parallel grouping change nothing", arguments: sized(full: [34, 35], quick: [34]) as [UInt64])
    func slicedBlocks(seed: UInt64) throws {
        let fixture = BatchFixture.make(seed: seed, devices: 30, fixesPerDevice: 400).shuffled(seed: seed)
        let set = try FenceSet(fixture.fences)
        let expected = try Self.oneByOne(fixture, set: set, configuration: TrackerConfiguration())
        let text = fixture.csv()
        #expect(text.utf8.count > 4 << 17, "seed \(seed): the file must span several blocks of several slices")
        let path = try BatchFixture.write(text)
        for threads in [1, 2, 4] {
            let (got, summary) = try runBatch(set, path: path, options: BatchOptions(threads: threads, blockSize: 1 << 17))
            #expect(got == expected, "seed \(seed) threads \(threads): \(firstDifference(got, expected))")
            #expect(summary.rowsRead == fixture.rows.count && summary.processed == fixture.rows.count)
        }
        // Without accuracy and level columns the store keeps time and position only.
        var bare = fixture
        for k in bare.rows.indices {
            bare.rows[k].accuracy = nil
            bare.rows[k].level = nil
        }
        let bareExpected = try Self.oneByOne(bare, set: set, configuration: TrackerConfiguration())
        let barePath = try BatchFixture.write(bare.csv(columns: ["device_id", "timestamp", "lat", "lon"]))
        for threads in [1, 2] {
            let (got, summary) = try runBatch(set, path: barePath, options: BatchOptions(threads: threads, blockSize: 1 << 17))
            #expect(got == bareExpected, "seed \(seed) threads \(threads), no accuracy or level: \(firstDifference(got, bareExpected))")
            #expect(summary.fixMemoryBytes == fixture.rows.count * 32, "28 bytes in the store and 4 for grouping per fix")
        }
    }

    /// Few devices of many fixes each: a window holds one or two devices, its device count is
    /// rounded up to a multiple of the threads (up to the last device), and the largest go
    /// first; none of it may change the output.
    @Test("windows of a few large devices give the one-by-one output for any thread count")
    func fewLargeDevices() throws {
        var fixture = BatchFixture.make(seed: 36, fenceCount: 30, devices: 5, fixesPerDevice: 9_000)
        // Sizes growing with the id (3,000 to 9,000 fixes), so the largest-first order is not
        // the id order.
        var kept: [String: Int] = [:]
        fixture.rows = fixture.rows.filter { row in
            let d = Int(row.device.dropFirst(4))!
            kept[row.device, default: 0] += 1
            return kept[row.device]! <= 3_000 + 1_500 * d
        }
        let set = try FenceSet(fixture.fences)
        let expected = try Self.oneByOne(fixture, set: set, configuration: TrackerConfiguration())
        let path = try BatchFixture.write(fixture.csv())
        for threads in [1, 2, 3, 4] {
            let (got, summary) = try runBatch(set, path: path, options: BatchOptions(threads: threads))
            #expect(got == expected, "threads \(threads): \(firstDifference(got, expected))")
            #expect(summary.devices == 5 && summary.processed == fixture.rows.count)
        }
    }

    /// Ids up to 16 bytes are looked up by their bytes as two words, longer ones (and ids so
    /// near the end of the input that two words cannot be loaded) by the interner alone: ids
    /// of every length from 1 to 40 bytes, in the last column, give the one-by-one output.
    @Test("device ids of any length, last on the line, are told apart")
    func idLengths() throws {
        var fixture = BatchFixture.make(seed: 37, devices: 40, fixesPerDevice: 40).shuffled(seed: 37)
        // Ids that share long prefixes and differ only in length or in their last byte.
        for k in fixture.rows.indices {
            let d = Int(fixture.rows[k].device.dropFirst(4))!
            fixture.rows[k].device = String(repeating: "x", count: d) + String(d % 3)
        }
        let set = try FenceSet(fixture.fences)
        let expected = try Self.oneByOne(fixture, set: set, configuration: TrackerConfiguration())
        let path = try BatchFixture.write(fixture.csv(columns: ["timestamp", "lat", "lon", "accuracy", "level", "device_id"]))
        for threads in [1, 2] {
            let (got, summary) = try runBatch(set, path: path, options: BatchOptions(threads: threads, blockSize: 1 << 12))
            #expect(got == expected, "threads \(threads): \(firstDifference(got, expected))")
            #expect(summary.devices == 40)
        }
    }

    /// Windows hold about 8 MiB of lines: many fixes when fixes make few events, few when
    /// they make many, within 4,096 and 65,536.
    @Test("window size follows the lines per fix, within its bounds")
    func windowSizes() {
        #expect(BatchEvaluator.windowFixes(lineBytesPerFix: 0) == 1 << 16)
        #expect(BatchEvaluator.windowFixes(lineBytesPerFix: 12) == 1 << 16)
        #expect(BatchEvaluator.windowFixes(lineBytesPerFix: 850) == (8 << 20) / 850)
        #expect(BatchEvaluator.windowFixes(lineBytesPerFix: 1e9) == 1 << 12)
    }

    /// A pipe cannot be mapped: it is read block by block into a buffer, and the slot store
    /// grows as rows arrive. Same output as the mapped file.
    @Test("fixes read from a pipe equal fixes read from a file")
    func pipeInput() throws {
        let fixture = BatchFixture.make(seed: 36, devices: 20, fixesPerDevice: 200).shuffled(seed: 36)
        let set = try FenceSet(fixture.fences)
        let text = fixture.csv()
        let path = try BatchFixture.write(text)
        let (fromFile, _) = try runBatch(set, path: path, options: BatchOptions(threads: 2, blockSize: 1 << 16))
        let fifo = path + ".fifo"
        defer { unlink(fifo) }
        try TestFIFO.feed(Data(text.utf8), at: fifo)
        let (fromPipe, summary) = try runBatch(set, path: fifo, options: BatchOptions(threads: 2, blockSize: 1 << 16))
        #expect(fromPipe == fromFile, "\(firstDifference(fromPipe, fromFile))")
        #expect(summary.rowsRead == fixture.rows.count)
    }

    /// The slot store keeps the rows written so far when it grows, with or without the
    /// accuracy and level columns.
    @Test("the slot store keeps its rows when it grows", arguments: [false, true])
    func storeGrows(keepsExtras: Bool) {
        let store = FixStore(capacity: 1, keepsExtras: keepsExtras)!
        let first = store.capacity
        var row = FixCSVRow()
        for k in 0..<first {
            row.timestamp = Int64(k)
            row.latitude = Double(k)
            row.longitude = -Double(k)
            row.accuracy = k % 3 == 0 ? .nan : Double(k % 50)
            row.level = k % 5 == 0 ? Int.min : k % 7
            store.writer.write(row, device: UInt32(k), at: k)
        }
        store.used = first
        #expect(store.reserve(first * 3) == nil && store.capacity >= first * 3)
        let reader = store.reader
        for k in 0..<first {
            let r = reader.record(k)
            let same = r.timestamp == Int64(k) && r.latitude == Double(k) && r.longitude == -Double(k)
            #expect(same && store.devices[k] == UInt32(k), "slot \(k)")
            let accuracy: Float = keepsExtras && k % 3 != 0 ? Float(k % 50) : .nan
            let level: Int32 = keepsExtras && k % 5 != 0 ? Int32(k % 7) : Int32.min
            #expect(r.accuracy.bitPattern == accuracy.bitPattern && r.level == level, "slot \(k)")
        }
        #expect(store.reserve(FixStore.maximumSlots + 1)?.contains("possible rows") == true)
    }

    @Test("sorted input streams to the same output", arguments: [41, 42] as [UInt64])
    func sortedInput(seed: UInt64) throws {
        let fixture = BatchFixture.make(seed: seed)
        let set = try FenceSet(fixture.fences)
        var sorted = fixture
        sorted.rows = fixture.rows.enumerated().sorted {
            ($0.element.device.utf8.lexicographicallyPrecedes($1.element.device.utf8)) ||
            ($0.element.device == $1.element.device && ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset))
        }.map(\.element)
        let path = try BatchFixture.write(sorted.csv())
        let (whole, _) = try runBatch(set, path: path, options: BatchOptions(threads: 2, blockSize: 4096))
        for threads in [1, 2] {
            let (streamed, summary) = try runBatch(set, path: path, options: BatchOptions(threads: threads, sortedInput: true, blockSize: 2048))
            #expect(streamed == whole, "seed \(seed) threads \(threads)")
            #expect(summary.rejections.total == 0)
        }
        // From a pipe, where the next block is read into the reader's other buffer while the
        // grouper still holds rows of this one.
        let fifo = path + ".fifo"
        defer { unlink(fifo) }
        try TestFIFO.feed(Data(sorted.csv().utf8), at: fifo)
        let (piped, _) = try runBatch(set, path: fifo, options: BatchOptions(threads: 2, sortedInput: true, blockSize: 2048))
        #expect(piped == whole, "seed \(seed): sorted input from a pipe")
    }

    @Test("shards partition the devices and merge back to the unsharded output", arguments: [2, 3, 5])
    func shards(count: Int) throws {
        let fixture = BatchFixture.make(seed: 51, devices: 20, fixesPerDevice: 30)
        let set = try FenceSet(fixture.fences)
        let path = try BatchFixture.write(fixture.shuffled(seed: 9).csv())
        let (whole, wholeSummary) = try runBatch(set, path: path, options: BatchOptions(threads: 2))
        var parts: [String] = []
        var devices = 0, rows = 0, events = 0
        for k in 0..<count {
            let (text, summary) = try runBatch(set, path: path, options: BatchOptions(threads: 2, shard: ShardSpec(index: k, count: count)!))
            let file = try BatchFixture.write(text, name: "shard\(k).ndjson")
            parts.append(file)
            devices += summary.devices
            rows += summary.rowsRead
            events += summary.events
            #expect(summary.rowsRead + summary.otherShardRows == fixture.rows.count)
        }
        #expect(devices == wholeSummary.devices && rows == wholeSummary.rowsRead && events == wholeSummary.events)
        let merged = TestFolders.root.appendingPathComponent("merged-\(count)-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: merged) }
        let sink = try OutputSink(path: merged)
        _ = try ShardMerger.merge(inputs: parts, output: sink)
        try sink.commit()
        #expect(try String(contentsOfFile: merged, encoding: .utf8) == whole, "\(count) shards")
    }

    @Test("shard hash is FNV-1a 64 of the UTF-8 id")
    func shardHash() {
        #expect(ShardSpec.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(ShardSpec.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(ShardSpec.hash("foobar") == 0x8594_4171_f739_67e8)
        #expect(ShardSpec("1/3") == ShardSpec(index: 1, count: 3))
        #expect(ShardSpec("3/3") == nil && ShardSpec("x") == nil && ShardSpec("-1/2") == nil)
    }

    @Test("every rejection reason is counted with its line; read = processed + rejected")
    func rejections() throws {
        let set = try FenceSet([circle("a", 40.75, -73.98, 100)])
        let csv = """
            device_id,timestamp,lat,lon,accuracy
            d1,1000,40.75,-73.98,5
            d1,2000,north,-73.98,5
            d1,3000,95,-73.98,5
            d1,4000,40.75,-73.98,5000
            d1,soon,40.75,-73.98,
            d2,1000,40.75,-73.98,
            d1,5000,40.75,-73.98,
            d2,500,40.75,-73.98,
            d3
            """
        let path = try BatchFixture.write(csv)
        let (_, whole) = try runBatch(set, path: path, options: BatchOptions(threads: 2))
        #expect(whole.rowsRead == 9 && whole.processed == 4)
        #expect(whole.rejections.counts[.parse] == 3 && whole.rejections.counts[.coordinate] == 1 && whole.rejections.counts[.accuracy] == 1)
        #expect(whole.rejections.examples[.parse]?.map(\.line) == [3, 6, 10])
        #expect(whole.rejections.examples[.coordinate]?.map(\.line) == [4])
        #expect(whole.rejections.examples[.accuracy]?.map(\.line) == [5])
        #expect(whole.rowsRead == whole.processed + whole.rejections.total)
        // Sorted input: d1 after d2 breaks device order, and d2's 500 after 1000 breaks time order.
        let (_, sorted) = try runBatch(set, path: path, options: BatchOptions(threads: 1, sortedInput: true))
        #expect(sorted.rejections.examples[.order]?.map(\.line) == [8, 9], "\(sorted.rejections.summary)")
        #expect(sorted.rowsRead == sorted.processed + sorted.rejections.total)
    }

    @Test("malformed CSV never crashes and always reconciles", arguments: [
        ("\u{FEFF}device_id,timestamp,lat,lon\r\nd,1000,40.75,-73.98\r\n", 1, 0),
        ("device_id,timestamp,lat,lon\n", 0, 0),
        ("device_id,timestamp,lat,lon\n\"d,1\",1000,40.75,-73.98\n\"say \"\"hi\"\"\",2016-11-24T06:00:00Z,40.75,-73.98\n", 2, 0),
        ("device_id,timestamp,lat,lon\nd,1000,40.75,-73.98\nd,2000,40.7", 2, 1),
        ("device_id,timestamp,lat,lon\nd,1000,40.75,-73.98\n\n\nd,2000,40.75,-73.98\n", 2, 0),
        ("device_id,timestamp,lat,lon\n\"unterminated,1000,1,2\nd,x,y,z\n", 2, 2),
    ])
    func malformed(text: String, read: Int, rejected: Int) throws {
        let set = try FenceSet([circle("a", 40.75, -73.98, 100)])
        let path = try BatchFixture.write(text)
        for sorted in [false, true] {
            let (_, summary) = try runBatch(set, path: path, options: BatchOptions(threads: 2, sortedInput: sorted))
            #expect(summary.rowsRead == read && summary.rejections.total == rejected, "\(text.debugDescription): \(summary.line)")
            #expect(summary.rowsRead == summary.processed + summary.rejections.total)
        }
    }

    @Test("unreadable inputs are file errors naming the file")
    func unreadable() throws {
        let set = try FenceSet([circle("a", 40.75, -73.98, 100)])
        for (text, reason) in [("", "empty file"), ("id,time\n1,2\n", "header has no")] {
            let path = try BatchFixture.write(text)
            #expect {
                _ = try runBatch(set, path: path, options: BatchOptions())
            } throws: { error in
                guard let e = error as? FileError else { return false }
                return e.path == path && e.reason.contains(reason)
            }
        }
        #expect(throws: FileError.self) { _ = try runBatch(set, path: "/nonexistent.csv", options: BatchOptions()) }
    }
}

/// The first line where two NDJSON texts differ, for failure messages.
func firstDifference(_ a: String, _ b: String) -> String {
    let x = a.split(separator: "\n"), y = b.split(separator: "\n")
    for i in 0..<max(x.count, y.count) {
        let l = i < x.count ? String(x[i]) : "(none)", r = i < y.count ? String(y[i]) : "(none)"
        if l != r { return "line \(i + 1) of \(x.count) vs \(y.count):\n  got      \(l)\n  expected \(r)" }
    }
    return "equal"
}
