/// How `geofence evaluate` runs.
public struct BatchOptions: Sendable {
    /// The tracker's settings (ignore period, dwell, tolerances, accuracy rules, …).
    public var configuration: TrackerConfiguration
    /// Worker threads for parsing and for evaluating devices, 1 to
    /// ``WorkerPool/maximumThreads``. Output is identical for any value.
    public var threads: Int
    /// Which devices this process evaluates.
    package var shard: ShardSpec
    /// The input is sorted by device id (UTF-8 byte order, as `LC_ALL=C sort` gives) and by
    /// time within a device: evaluation streams, holding one block plus the largest device.
    /// Rows that break that order are rejected with reason `order`.
    public var sortedInput: Bool
    /// Bytes read per block.
    public var blockSize: Int
    /// The input's columns when it has no header line (a pipe fed one partition of a larger
    /// file, say); nil: the first line is the header.
    package var header: FixCSVHeader?
    /// Added to every line number the summary reports, so that a piece of a file fed through
    /// a pipe (`tail -n +1001 fixes.csv | … --header … --line-offset 1000`) names the lines of
    /// the whole file.
    package var lineOffset: Int
    /// The longest line accepted, in bytes (line break not included); longer lines are
    /// rejected with reason `lineLength` and never held in memory.
    public var maximumLineBytes: Int

    /// Options for a run on `threads` threads (clamped to 1 ... 256); `sortedInput` streams
    /// an input sorted by device id and time; `maximumLineBytes` bounds a line.
    ///
    /// ```swift
    /// let options = BatchOptions(configuration: TrackerConfiguration(dwell: .seconds(60)), threads: 8)
    /// ```
    public init(
        configuration: TrackerConfiguration = TrackerConfiguration(), threads: Int = 1, sortedInput: Bool = false,
        blockSize: Int = 8 << 20, maximumLineBytes: Int = 1 << 20
    ) {
        self.init(
            configuration: configuration, threads: threads, shard: .all, sortedInput: sortedInput, blockSize: blockSize,
            header: nil, lineOffset: 0, maximumLineBytes: maximumLineBytes)
    }

    /// `threads` is clamped to 1 ... ``WorkerPool/maximumThreads``.
    package init(
        configuration: TrackerConfiguration = TrackerConfiguration(), threads: Int = 1, shard: ShardSpec = .all,
        sortedInput: Bool = false, blockSize: Int = 8 << 20, header: FixCSVHeader? = nil, lineOffset: Int = 0,
        maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes
    ) {
        self.configuration = configuration
        self.threads = min(max(1, threads), WorkerPool.maximumThreads)
        self.shard = shard
        self.sortedInput = sortedInput
        self.blockSize = blockSize
        self.header = header
        self.lineOffset = lineOffset
        self.maximumLineBytes = max(1, maximumLineBytes)
    }
}

/// What a batch run read, did and wrote. `rowsRead == processed + rejections.total`, always.
public struct BatchSummary: Sendable {
    public var file: String
    /// Data rows of this process's shard (blank lines and other shards' rows not included).
    public var rowsRead = 0
    public var processed = 0
    public var rejections = BatchSummary.RejectionTally()
    public var blankLines = 0
    /// Rows of devices that belong to other shards.
    public var otherShardRows = 0
    public var devices = 0
    /// Devices carried from a state file that had no fix in this run (their pending events
    /// fired, or they were carried on).
    public var carriedDevices = 0
    /// With a state file written: its watermark, the latest accepted fix time (epoch ms) of
    /// this run and the runs before it; a fence change in the next run applies 1 ms after it.
    public var watermark: Int64? = nil
    /// The fence updates applied (the carried state's own first), with their removal exits.
    public var fenceUpdates: [AppliedUpdate] = []
    package var removalExits: [Int] = []
    public var fences = 0
    /// Events written, by type (the package's counters are an array indexed by raw value).
    public var eventsByType: [GeofenceEvent.EventType: Int] {
        Dictionary(uniqueKeysWithValues: GeofenceEvent.EventType.allCases.map { ($0, eventCounts[Int($0.rawValue)]) })
    }
    /// Events written, indexed by ``GeofenceEvent/EventType`` raw value.
    package var eventCounts = [Int](repeating: 0, count: GeofenceEvent.EventType.allCases.count)
    public var seconds = 0.0
    /// Seconds the caller spent loading the fences before the run (not in `seconds`); nil
    /// when not measured. `geofence evaluate` fills it in.
    public var fenceLoadSeconds: Double? = nil
    /// Where the time went without `--sorted-input`: reading and parsing, grouping by device,
    /// evaluating and writing (0 with it: the phases overlap).
    public var readSeconds = 0.0
    public var groupSeconds = 0.0
    public var evaluateSeconds = 0.0
    public var threads = 1
    package var shard = ShardSpec.all
    /// Bytes held by the fix table (without `--sorted-input`), or the largest buffered block of
    /// devices (with it); device ids are counted apart in `deviceIDBytes`.
    public var fixMemoryBytes = 0
    public var deviceIDBytes = 0
    /// The process's peak resident set size when the run ended (`getrusage`), in bytes.
    public var peakResidentBytes = 0

    /// One fence update of the run: when, from where, what it changed (counts of fences) and
    /// how many removal exits it caused.
    public struct AppliedUpdate: Hashable, Sendable {
        public var time: Timestamp
        /// The fence file, or `--state-in` for the difference between a carried state's fences and the run's.
        public var source: String
        public var added: Int
        public var removed: Int
        public var changed: Int
        public var unchanged: Int
        public var removalExits: Int

        var json: JSONValue {
            .object(JSONObject(members: [
                .init(key: "at", value: .number(String(time.milliseconds))),
                .init(key: "source", value: .string(source)),
                .init(key: "added", value: .integer(added)),
                .init(key: "removed", value: .integer(removed)),
                .init(key: "changed", value: .integer(changed)),
                .init(key: "unchanged", value: .integer(unchanged)),
                .init(key: "removalExits", value: .integer(removalExits)),
            ]))
        }
    }

    public var events: Int { eventCounts.reduce(0, +) }
    public var fixesPerSecond: Double { seconds > 0 ? Double(rowsRead) / seconds : 0 }

    /// The summary as a JSON object (the `--summary` file).
    package var json: JSONValue {
        func n(_ v: Int) -> JSONValue { .integer(v) }
        var rejected: [JSONObject.Member] = []
        for reason in BatchSummary.RejectionReason.allCases {
            let examples = rejections.examples[reason, default: []]
            rejected.append(.init(key: reason.rawValue, value: .object(JSONObject(members: [
                .init(key: "count", value: n(rejections.counts[reason, default: 0])),
                .init(key: "lines", value: .array(examples.map { n($0.line) })),
                .init(key: "examples", value: .array(examples.map { .string("line \($0.line): \($0.message)") })),
            ]))))
        }
        let events = GeofenceEvent.EventType.allCases.map { JSONObject.Member(key: $0.name, value: n(eventCounts[Int($0.rawValue)])) }
        // Only in runs with carried state or fence updates: other summaries keep their keys.
        var live: [JSONObject.Member] = []
        if carriedDevices > 0 { live.append(.init(key: "carriedDevices", value: n(carriedDevices))) }
        if !fenceUpdates.isEmpty { live.append(.init(key: "fenceUpdates", value: .array(fenceUpdates.map(\.json)))) }
        if let watermark { live.append(.init(key: "watermark", value: .number(String(watermark)))) }
        return .object(JSONObject(members: [
            .init(key: "file", value: .string(file)),
            .init(key: "rowsRead", value: n(rowsRead)),
            .init(key: "processed", value: n(processed)),
            .init(key: "rejected", value: n(rejections.total)),
            .init(key: "rejectedByReason", value: .object(JSONObject(members: rejected))),
            .init(key: "blankLines", value: n(blankLines)),
            .init(key: "otherShardRows", value: n(otherShardRows)),
            .init(key: "shard", value: .string(shard.description)),
            .init(key: "devices", value: n(devices)),
            .init(key: "fences", value: n(fences)),
            .init(key: "events", value: n(self.events)),
            .init(key: "eventsByType", value: .object(JSONObject(members: events))),
            .init(key: "threads", value: n(threads)),
        ] + live + [
            .init(key: "peakResidentBytes", value: n(peakResidentBytes)),
            .init(key: "fixMemoryBytes", value: n(fixMemoryBytes)),
            .init(key: "fenceLoadSeconds", value: fenceLoadSeconds.flatMap(JSONValue.double) ?? .null),
            .init(key: "seconds", value: JSONValue.double(seconds) ?? .null),
            .init(key: "phaseSeconds", value: .object(JSONObject(members: [
                .init(key: "read", value: JSONValue.double(readSeconds) ?? .null),
                .init(key: "group", value: JSONValue.double(groupSeconds) ?? .null),
                .init(key: "evaluate", value: JSONValue.double(evaluateSeconds) ?? .null),
            ]))),
            .init(key: "fixesPerSecond", value: n(Int(fixesPerSecond))),
            // Last: a summary cut short (a full disk) lacks it.
            .init(key: "complete", value: .bool(true)),
        ]))
    }

    /// One line for people.
    public var line: String {
        let byType = GeofenceEvent.EventType.allCases.map { "\($0.name) \(eventCounts[Int($0.rawValue)])" }.joined(separator: ", ")
        var text = "\(file): \(rowsRead) rows read, \(processed) processed, \(rejections.total) rejected (\(rejections.summary)); "
        text += "\(devices) devices, \(fences) fences; \(events) events (\(byType)); "
        text += String(format3: seconds) + " s, \(Int(fixesPerSecond)) fixes/s"
        if shard.count > 1 { text += "; shard \(shard), \(otherShardRows) rows of other shards skipped" }
        if blankLines > 0 { text += "; \(blankLines) blank lines skipped" }
        if carriedDevices > 0 { text += "; \(carriedDevices) devices carried from the state without fixes" }
        for update in fenceUpdates {
            text += "; fence update at \(update.time.milliseconds) (\(update.source)): \(update.added) added, \(update.removed) removed, "
            text += "\(update.changed) changed, \(update.removalExits) removal exits"
        }
        return text
    }
}

extension String {
    /// A number with three decimals.
    init(format3 value: Double) {
        let scaled = Int((value * 1000).rounded())
        let fraction = String(abs(scaled) % 1000)
        self = "\(scaled / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
