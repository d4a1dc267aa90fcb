import GeofenceGEOS

/// Turns a fix CSV into events: the main job (`geofence evaluate`, semantics §8).
///
/// Rows are parsed on every worker thread; each device's fixes go through its own
/// ``DeviceTracker`` in time order on one worker (containment and events together), and the
/// devices' lines are written in ascending device id order. The output is therefore the same
/// for any number of threads, and the outputs of `--shard K/N` runs, merged by device id,
/// equal the one-process output.
public final class BatchEvaluator {
    public let fenceSet: FenceSet
    public let options: BatchOptions
    private let context: TrackerContext
    private let workers: [BatchWorker]
    private let pool: WorkerPool
    /// The workers' line set the next window writes (see ``BatchWorker/startWindow(_:)``).
    private var nextLineSet = 0
    /// Fence updates and carried state (nil for a plain run): the epochs, the state read,
    /// and whether pending events stay pending for a state file.
    private let epochs: FenceEpochs?
    private let carried: CarriedState?
    private let keepPending: Bool
    /// With `keepPending`: every device's entry for the state file, in device order.
    private var carriedOut = ByteWriter()
    private var carriedOutCount = 0
    /// The latest accepted fix time of this run, and of the runs before it (carried).
    package private(set) var watermark: Int64?
    /// Sorted input: the next carried device not yet merged.
    private var carriedCursor = 0

    /// - Throws: ``TrackerConfigurationError`` for a bad configuration, ``GEOSError`` when GEOS
    ///   cannot start, ``ThreadStartError`` when the worker threads cannot be started.
    public convenience init(fenceSet: FenceSet, options: BatchOptions) throws {
        try self.init(fenceSet: fenceSet, options: options, epochs: nil, carried: nil, keepPending: false)
    }

    /// A run through fence updates (`epochs`, whose first set the run starts on: `fenceSet`,
    /// or the carried state's set), from a carried state, and keeping pending events for a
    /// state file (`keepPending`).
    package init(fenceSet: FenceSet, options: BatchOptions, epochs: FenceEpochs?, carried: CarriedState?, keepPending: Bool) throws {
        self.fenceSet = fenceSet
        self.options = options
        var epochs = epochs
        if epochs == nil && (carried != nil || keepPending) {
            epochs = try FenceEpochs(first: fenceSet, updates: [], configuration: options.configuration, onFenceRemoved: .exit)
        }
        self.epochs = epochs
        self.carried = carried
        self.keepPending = keepPending
        watermark = carried?.watermark
        // Events are written by slot (EventLineFormatter): they need no id strings.
        let context = try epochs?.contexts[0]
            ?? TrackerContext(fenceSet: fenceSet, configuration: options.configuration, idsInEvents: false)
        let formatter = EventLineFormatter(fenceSet: context.fenceSet)
        self.context = context
        workers = try (0..<options.threads).map { _ in
            try BatchWorker(context: context, formatter: formatter, epochs: epochs, keepPending: keepPending)
        }
        pool = try WorkerPool(threads: options.threads)
    }

    /// Evaluates the file and writes the events to `output`, then commits it: a file path
    /// appears complete at the end of the run, or (when the run fails) not at all.
    ///
    /// - Parameter progress: called after each block with the rows read so far and the bytes read.
    /// - Throws: ``FileError`` for an unreadable file or header, or memory the system
    ///   refuses; ``FileError`` when the output cannot be written; ``GEOSError`` when
    ///   GEOS fails; ``ThreadStartError`` when the output's writing thread cannot start.
    public func run(fixes path: String, output: String, progress: ((Int, Int) -> Void)? = nil) throws -> BatchSummary {
        try run(fixes: path, output: try OutputSink(path: output), progress: progress)
    }

    /// ``run(fixes:output:progress:)`` into an open sink (standard output, say), committed at the end.
    package func run(fixes path: String, output: OutputSink, progress: ((Int, Int) -> Void)? = nil) throws -> BatchSummary {
        let summary = try run(try openFixes(path), output: output, progress: progress)
        try output.commit()
        return summary
    }

    /// Writes the state file after a run with `keepPending`: every device's tracker (on the
    /// last epoch's set, which the file carries), the watermark, the shard and the options.
    /// - Throws: ``FileError`` when the sink cannot be written.
    package func writeCarriedState(to sink: OutputSink) throws(FileError) {
        try CarriedState.write(
            fenceSet: epochs?.sets.last ?? fenceSet, watermark: watermark, shard: options.shard, configuration: options.configuration,
            deviceCount: carriedOutCount, devices: carriedOut.bytes
        ) { (bytes) throws(FileError) in try sink.write(bytes) }
    }

    /// Opens a fix file and reads its header, as ``run(fixes:output:progress:)`` does: the
    /// CLI checks its input this way before it opens its outputs.
    /// - Throws: ``FileError``.
    package func openFixes(_ path: String) throws(FileError) -> FixFileReader {
        try Self.openFixes(path, options: options)
    }

    /// ``openFixes(_:)`` before there is an evaluator (while the fences load:
    /// ``InputOpening``).
    package static func openFixes(_ path: String, options: BatchOptions) throws(FileError) -> FixFileReader {
        try FixFileReader(
            path: path, blockSize: options.blockSize, header: options.header, lineOffset: options.lineOffset,
            maximumLineBytes: options.maximumLineBytes)
    }

    /// ``run(fixes:output:progress:)`` on an opened file, leaving the output to commit to
    /// the caller (who writes a summary first, so that the two appear together).
    package func run(_ reader: FixFileReader, output: OutputSink, progress: ((Int, Int) -> Void)? = nil) throws
        -> BatchSummary
    {
        let start = Self.now()
        let path = reader.path
        var summary = BatchSummary(file: path)
        summary.fences = fenceSet.count
        summary.threads = options.threads
        summary.shard = options.shard
        let writer = try WindowWriter(output)
        if options.sortedInput {
            try runStreaming(reader, writer: writer, summary: &summary, progress: progress)
        } else {
            try runWhole(reader, writer: writer, summary: &summary, progress: progress)
        }
        try writer.finish()
        if let epochs {
            summary.fenceUpdates = epochs.updates.enumerated().map { k, update in
                BatchSummary.AppliedUpdate(
                    time: update.time, source: epochs.names[k], added: update.change.added.count, removed: update.change.removed.count,
                    changed: update.change.changed.count, unchanged: update.change.unchanged.count,
                    removalExits: k < summary.removalExits.count ? summary.removalExits[k] : 0)
            }
        }
        if keepPending { summary.watermark = watermark }
        summary.seconds = Self.now() - start
        summary.peakResidentBytes = Self.peakResidentBytes()
        return summary
    }

    var policy: FixRowPolicy {
        FixRowPolicy(maxAccuracy: options.configuration.maxAccuracy, shard: options.shard, maximumLineBytes: options.maximumLineBytes)
    }

    // MARK: - Input in any order: hold, group, evaluate.

    private func runWhole(
        _ reader: FixFileReader, writer: WindowWriter, summary: inout BatchSummary, progress: ((Int, Int) -> Void)?
    ) throws {
        // At most one row per 8 bytes, plus one per slice (FixFileReader): reserved as
        // address space up front; the store grows for pipes.
        guard let store = FixStore(capacity: (reader.fileSize ?? 64 << 20) / 8 + 1 << 16, keepsExtras: reader.hasExtras) else {
            throw FileError(path: reader.path, reason: MemoryHeadroom.message(bytes: 1 << 20, for: "the fix store"))
        }
        var table = FixTable(store: store)
        defer { table.release(pool: pool) }
        var mark = Self.now()
        while let slices = try reader.nextSlices(pool: pool, policy: policy, store: store) {
            table.append(slices)
            progress?(table.rowsRead, reader.bytesRead)
        }
        summary.readSeconds = Self.now() - mark
        mark = Self.now()
        if let problem = table.group(pool: pool) { throw FileError(path: reader.path, reason: problem) }
        summary.groupSeconds = Self.now() - mark
        mark = Self.now()
        defer { summary.evaluateSeconds = Self.now() - mark }
        summary.rowsRead = table.rowsRead
        summary.rejections = table.rejections
        summary.blankLines = table.blankLines
        summary.otherShardRows = table.otherShardRows
        summary.devices = table.devices.count
        summary.fixMemoryBytes = table.memoryBytes
        summary.deviceIDBytes = table.interner.memoryBytes
        let shared = SharedTable(table)
        let entries = DeviceEntries(table: shared, carried: carried)
        summary.carriedDevices = entries.carriedOnly
        // Output is written in order window by window (on the writer's thread, while the
        // workers evaluate the next window), so at most two windows' lines are held. A window
        // is sized from the lines per fix of the one before: about 8 MiB of lines, between
        // 4,096 and 65,536 fixes (large windows keep both workers busy; few events per fix,
        // as on the peers' world, allow them; several per fix, as on the Austin data, not).
        var windowFixes = 1 << 14
        var lineBytesPerFix = Self.initialLineBytesPerFix
        var first = 0
        while first < entries.count {
            var last = first
            var fixes = 0
            // The workers meet at the end of each window: with few large devices in it (the
            // peers' 10M fixes make 7 of 10,000 fixes each), a count that is not a multiple of
            // the threads leaves one idle for a device's time, so the count is rounded up.
            // At most `windowDevices` devices (carried devices without a fix count no fixes: a
            // state of a million would otherwise make one window of a million results).
            while last < entries.count
                && (last == first || (fixes < windowFixes && last - first < Self.windowDevices) || (last - first) % pool.threads != 0)
            {
                fixes += entries.fixCount(last)
                last += 1
            }
            let window = first
            let largest = (first..<last).map { entries.fixCount($0) }.max() ?? 0
            try checkMemory(fixes: fixes, largestDevice: largest, lineBytesPerFix: lineBytesPerFix, file: reader.path)
            let results = try evaluate(count: last - first, size: { entries.fixCount(window + $0) }) { k in
                entries.device(window + k)
            }
            account(results, summary: &summary)
            let bytes = results.reduce(0) { $0 + $1.lines.count }
            lineBytesPerFix = Double(bytes) / Double(max(1, fixes))
            windowFixes = Self.windowFixes(lineBytesPerFix: lineBytesPerFix)
            try writer.submit(results)
            first = last
        }
        try writer.drain()
    }

    /// Output bytes per fix assumed for the first window's memory check (about one event
    /// line a fix; later windows use what the previous one measured, and the headroom
    /// margin absorbs a first window with more).
    static let initialLineBytesPerFix = 200.0

    /// Checks that a window of `fixes` fixes can be evaluated and written: its lines (as many
    /// bytes a fix as the last window had, twice over for the arrays' growth; the previous
    /// window's lines, still being written, are already held) and the largest device's
    /// fixes gathered on each thread.
    /// - Throws: ``FileError`` naming the file when the memory is refused.
    private func checkMemory(fixes: Int, largestDevice: Int, lineBytesPerFix: Double, file: String) throws(FileError) {
        let lines = Int(Swift.max(lineBytesPerFix, 64) * 2) * fixes
        let gathered = largestDevice * MemoryLayout<FixRecord>.stride * 2 * pool.threads
        if let problem = MemoryHeadroom.refusal(bytes: lines + gathered, for: "evaluating a window of \(fixes) fixes") {
            throw FileError(path: file, reason: problem)
        }
    }

    /// The most devices a window holds.
    static let windowDevices = 1 << 16

    /// Fixes per window for about 8 MiB of output lines, from 4,096 to 65,536.
    static func windowFixes(lineBytesPerFix: Double) -> Int {
        let fixes = Double(8 << 20) / Swift.max(lineBytesPerFix, 1)
        return Int(Swift.min(Swift.max(fixes, Double(1 << 12)), Double(1 << 16)))
    }

    // MARK: - Sorted input: stream device by device.

    private func runStreaming(
        _ reader: FixFileReader, writer: WindowWriter, summary: inout BatchSummary, progress: ((Int, Int) -> Void)?
    ) throws {
        var grouper = SortedInputGrouper()
        var largest = 0
        var lineBytesPerFix = Self.initialLineBytesPerFix
        // One block's rows at a time: the grouper copies them out before the next block.
        guard let store = FixStore(capacity: options.blockSize / 8 + 1 << 10, keepsExtras: reader.hasExtras) else {
            throw FileError(path: reader.path, reason: MemoryHeadroom.message(bytes: options.blockSize * 4, for: "a block of rows"))
        }
        while true {
            store.used = 0
            guard let slices = try reader.nextSlices(pool: pool, policy: policy, store: store, keepLines: true) else { break }
            for slice in slices {
                if let problem = grouper.add(slice, store: store, summary: &summary) {
                    throw FileError(path: reader.path, reason: problem)
                }
            }
            let ready = mergeCarried(grouper.takeCompleteDevices(), last: false)
            let fixes = ready.reduce(0) { $0 + $1.fixes.count }
            largest = max(largest, fixes + grouper.openRows)
            lineBytesPerFix = try evaluateAndWrite(
                ready, fixes: fixes, lineBytesPerFix: lineBytesPerFix, file: reader.path, writer: writer, summary: &summary)
            progress?(summary.rowsRead, reader.bytesRead)
        }
        let rest = mergeCarried(grouper.finish(), last: true)
        _ = try evaluateAndWrite(
            rest, fixes: rest.reduce(0) { $0 + $1.fixes.count }, lineBytesPerFix: lineBytesPerFix, file: reader.path,
            writer: writer, summary: &summary)
        try writer.drain()
        summary.fixMemoryBytes = largest * MemoryLayout<FixRecord>.stride
        summary.deviceIDBytes = grouper.lastDeviceBytes
    }

    /// Complete devices of sorted input, merged in id order with the carried devices that
    /// come before the next device of the input (all of them at the `last` call).
    private func mergeCarried(_ devices: [BufferedDevice], last: Bool) -> [BufferedDevice] {
        guard let carried else { return devices }
        let ids = carried.ids
        var out: [BufferedDevice] = []
        out.reserveCapacity(devices.count)
        for var device in devices {
            while carriedCursor < ids.count && fenceIDPrecedes(ids[carriedCursor], device.id) {
                out.append(BufferedDevice(id: ids[carriedCursor], carried: carriedCursor))
                carriedCursor += 1
            }
            if carriedCursor < ids.count && ids[carriedCursor] == device.id {
                device.carried = carriedCursor
                carriedCursor += 1
            }
            out.append(device)
        }
        if last {
            while carriedCursor < ids.count {
                out.append(BufferedDevice(id: ids[carriedCursor], carried: carriedCursor))
                carriedCursor += 1
            }
        }
        return out
    }

    /// Evaluates complete devices and queues their lines; returns the lines' bytes per fix
    /// (for the next memory check).
    private func evaluateAndWrite(
        _ devices: [BufferedDevice], fixes: Int, lineBytesPerFix: Double, file: String, writer: WindowWriter,
        summary: inout BatchSummary
    ) throws -> Double {
        guard !devices.isEmpty else { return lineBytesPerFix }
        let largest = devices.map(\.fixes.count).max() ?? 0
        try checkMemory(fixes: fixes, largestDevice: largest, lineBytesPerFix: lineBytesPerFix, file: file)
        let shared = SharedDevices(devices)
        let results = try evaluate(count: devices.count, size: { devices[$0].fixes.count }) { k in
            (shared.devices[k].id, shared.devices[k].fixes, shared.devices[k].carried)
        }
        summary.devices += devices.lazy.filter { !$0.fixes.isEmpty }.count
        summary.carriedDevices += devices.lazy.filter { $0.fixes.isEmpty }.count
        account(results, summary: &summary)
        try writer.submit(results)
        return Double(results.reduce(0) { $0 + $1.lines.count }) / Double(max(1, fixes))
    }

    // MARK: - Shared steps.

    /// Evaluates `count` devices on the worker threads; results in device order.
    ///
    /// The largest devices (by `size`, their fix count) are handed out first, so that the
    /// last to finish is a small one and no worker idles long at the end of the window; each
    /// result keeps its device's place.
    private func evaluate<Source: DeviceFixSource & Sendable>(
        count: Int, size: (Int) -> Int, device: @escaping @Sendable (Int) -> (String, Source, Int)
    ) throws -> [DeviceResult] {
        let results = DisjointSlots<DeviceResult?>(repeating: nil, count: count)
        let failures = DisjointSlots<(any Error)?>(repeating: nil, count: count)
        let epochs = self.epochs, carried = SharedCarried(self.carried)
        // Windows alternate between the workers' two line sets. The set used now was last
        // used two windows ago, whose lines are written: every window is submitted to the
        // writer right after it is evaluated, and a submission returns only once the window
        // before it is written.
        let set = nextLineSet
        nextLineSet ^= 1
        for worker in self.workers { worker.startWindow(set) }
        let workers = SharedWorkers(self.workers)
        let sizes = (0..<count).map(size)
        let order = pool.threads > 1 ? (0..<count).sorted { (sizes[$0], $1) > (sizes[$1], $0) } : Array(0..<count)
        // A carried device with no fix, in a run with no fence update that keeps its state,
        // is left as it was: its entry is copied, not decoded and encoded again (a daily run
        // carries every device of the days before, most of them without a fix that day).
        let passThrough = epochs?.updates.isEmpty == true && keepPending
        pool.run(count: count) { n, w in
            let k = order[n]
            let (id, fixes, carriedIndex) = device(k)
            do {
                if passThrough && carriedIndex >= 0 && sizes[k] == 0 {
                    var result = DeviceResult()
                    result.carriedEntry = carriedIndex
                    results[k] = result
                } else if let epochs {
                    let restored = carriedIndex >= 0 ? try carried.state!.tracker(carriedIndex, context: epochs.contexts[0]) : nil
                    results[k] = try workers.workers[w].evaluateCarried(deviceID: id, fixes: fixes, restored: restored)
                } else {
                    results[k] = try workers.workers[w].evaluate(deviceID: id, fixes: fixes)
                }
            } catch { failures[k] = error }
        }
        if let failure = failures.storage.compactMap({ $0 }).first { throw failure }
        return results.storage.map { $0! }
    }

    /// Adds a window's counts to the summary.
    private func account(_ results: [DeviceResult], summary: inout BatchSummary) {
        for result in results {
            summary.processed += result.processed
            if !result.removalExits.isEmpty {
                if summary.removalExits.isEmpty { summary.removalExits = result.removalExits }
                else { for k in result.removalExits.indices { summary.removalExits[k] += result.removalExits[k] } }
            }
            if keepPending {
                if result.carriedEntry >= 0 {
                    carried!.appendEntry(result.carriedEntry, to: &carriedOut.bytes)
                } else {
                    carriedOut.bytes.append(contentsOf: result.state.bytes)
                }
                carriedOutCount += 1
            }
            if result.latest != Int64.min { watermark = Swift.max(watermark ?? Int64.min, result.latest) }
            for k in result.eventsByType.indices { summary.eventCounts[k] += result.eventsByType[k] }
            // Ingestion already rejected bad coordinates and accuracies and grouping put every
            // device in time order, so the tracker refuses nothing here; if it ever does, the
            // row is still counted (its line is not kept after grouping: reported as 0).
            for (reason, message) in result.rejections {
                summary.rejections.add(reason, line: 0, message: "rejected by the tracker: \(message)")
            }
        }
    }

    /// This process's peak resident set size in bytes (see ``Platform/peakResidentBytes()``).
    package static func peakResidentBytes() -> Int { Platform.peakResidentBytes() }

    static func now() -> Double { Platform.monotonicSeconds() }
}

/// A device's fixes read through the grouped table.
struct TableFixes: DeviceFixSource {
    let table: SharedTable
    let range: Range<Int>
    var count: Int { range.count }

    /// Copies the device's records into `scratch`, in time order (stable: equal timestamps
    /// keep file order). The loads are independent (slots are read in sequence), so the
    /// processor overlaps their cache misses; the tracker then reads one contiguous buffer.
    func gather(into scratch: inout [FixRecord]) {
        let t = table.table
        let store = t.store.reader
        let order = t.order!.base
        scratch.removeAll(keepingCapacity: true)
        var sorted = true
        var previous = Int64.min
        for k in range {
            let record = store.record(Int(order[k]))
            if record.timestamp < previous { sorted = false }
            previous = record.timestamp
            scratch.append(record)
        }
        if sorted { return }
        // Slots grow with the line number, so (timestamp, slot) is the stable time order.
        let slots = range.map { order[$0] }.sorted { a, b in
            let ta = store.timestamp(Int(a)), tb = store.timestamp(Int(b))
            return ta != tb ? ta < tb : a < b
        }
        scratch.removeAll(keepingCapacity: true)
        for slot in slots { scratch.append(store.record(Int(slot))) }
    }
}

/// Read-only handles given to worker threads.
final class SharedTable: @unchecked Sendable {
    let table: FixTable
    init(_ table: FixTable) { self.table = table }
}

final class SharedDevices: @unchecked Sendable {
    let devices: [BufferedDevice]
    init(_ devices: [BufferedDevice]) { self.devices = devices }
}

final class SharedCarried: @unchecked Sendable {
    let state: CarriedState?
    init(_ state: CarriedState?) { self.state = state }
}

/// The devices of a grouped table, merged in id order with the devices of a carried state
/// that have no fix in this run (those are evaluated too: their pending events fire, or
/// they are carried on).
final class DeviceEntries: @unchecked Sendable {
    let table: SharedTable
    /// Per entry: the table's device index or -1, and the carried device index or -1; nil
    /// when nothing is carried (entry = table device).
    let merged: [(table: Int32, carried: Int32)]?
    let carried: CarriedState?
    private(set) var carriedOnly = 0

    init(table: SharedTable, carried: CarriedState?) {
        self.table = table
        self.carried = carried
        guard let carried else {
            merged = nil
            return
        }
        let t = table.table
        var out: [(table: Int32, carried: Int32)] = []
        out.reserveCapacity(t.devices.count + carried.ids.count)
        var i = 0, j = 0
        var only = 0
        while i < t.devices.count || j < carried.ids.count {
            if j == carried.ids.count {
                out.append((Int32(i), -1)); i += 1
                continue
            }
            if i == t.devices.count {
                out.append((-1, Int32(j))); j += 1; only += 1
                continue
            }
            let a = t.deviceID(t.devices[i]), b = carried.ids[j]
            if a == b {
                out.append((Int32(i), Int32(j))); i += 1; j += 1
            } else if fenceIDPrecedes(a, b) {
                out.append((Int32(i), -1)); i += 1
            } else {
                out.append((-1, Int32(j))); j += 1; only += 1
            }
        }
        merged = out
        carriedOnly = only
    }

    var count: Int { merged?.count ?? table.table.devices.count }

    private func tableIndex(_ e: Int) -> Int {
        guard let merged else { return e }
        return Int(merged[e].table)
    }

    func fixCount(_ e: Int) -> Int {
        let d = tableIndex(e)
        return d < 0 ? 0 : table.table.deviceStarts[d + 1] - table.table.deviceStarts[d]
    }

    /// The entry's device id, its fixes, and its carried index (-1: none).
    func device(_ e: Int) -> (String, TableFixes, Int) {
        let d = tableIndex(e)
        let c = merged.map { Int($0[e].carried) } ?? -1
        guard d >= 0 else { return (carried!.ids[c], TableFixes(table: table, range: 0..<0), c) }
        let range = table.table.deviceStarts[d]..<table.table.deviceStarts[d + 1]
        return (table.table.deviceID(table.table.devices[d]), TableFixes(table: table, range: range), c)
    }
}

final class SharedWorkers: @unchecked Sendable {
    let workers: [BatchWorker]
    init(_ workers: [BatchWorker]) { self.workers = workers }
}
