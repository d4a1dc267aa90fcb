import Foundation
import GeofenceEngine
import HeapModule
import Logging

/// The live state of the server: the fence set, every device's tracker, the next sequence
/// number and the requests in flight; one actor, so each request's fixes apply in one piece
/// and sequence numbers follow the order in which events were made.
///
/// The fence set is an immutable `Sendable` value; the actor owns the one
/// ``ContainmentEvaluator`` it asks (an evaluator is not `Sendable`, so it never leaves the
/// actor). Memory is ahead of the database only between a request's processing and its
/// commit: a request is acknowledged once its ``CommitTicket`` completes, and a failed
/// commit stops the process (``GroupCommitter``).
actor Engine {
    /// One device, as compact as the store keeps it: its tracker's encoded state (decoded for
    /// each fix and encoded again; a few dozen bytes for a device in no fence, where a live
    /// `DeviceTracker` holds several arrays), how many events it has had (the next event's
    /// ordinal), and the two times the engine reads without decoding.
    struct Device: Sendable {
        /// `DeviceTracker.encodedState()` on the fence set in force.
        var state: [UInt8]
        var events: Int64
        /// The tracker's `nextDueTime` in ms, `Int64.max` for none.
        var nextDue: Int64
        /// The tracker's `latestTime` in ms, `Int64.min` before any input.
        var latest: Int64

        init(_ tracker: DeviceTracker, events: Int64) {
            state = tracker.encodedState()
            self.events = events
            nextDue = tracker.nextDueTime?.milliseconds ?? .max
            latest = tracker.latestTime?.milliseconds ?? .min
        }
    }

    /// The fences in force: the set, the context every tracker shares, the version (1 for
    /// the first set, one more per update) and when it took effect (nil for the first).
    struct Fences: Sendable {
        var context: TrackerContext
        var version: Int64
        var at: Int64?
        var set: FenceSet { context.fenceSet }
    }

    let committer: GroupCommitter
    let store: Store
    let onFenceRemoved: FenceUpdate.RemovalPolicy
    let logger: Logger
    let metrics: ServerMetrics
    /// `--max-devices`: an ingest request that would add devices beyond it is refused.
    let maximumDevices: Int
    var fences: Fences
    var evaluator: ContainmentEvaluator
    var devices: [String: Device]
    var nextSeq: Int64
    /// `--clock`: what moves ``clockTime``.
    let clockMode: ServerOptions.ClockMode
    /// `--clock-delay` in ms: how far the wall clock is held back.
    let clockDelay: Int64
    /// The server's clock (epoch ms): events due before it have fired. With `--clock data`,
    /// the latest fix time accepted (stored with each commit that moves it); with the wall
    /// clock, the time of the latest tick.
    var clockTime: Int64
    /// Each device's next due time (``Engine/Due``), stale entries included.
    var dues = Heap<Due>()
    /// `--forget-after` in ms, nil: devices are kept for ever.
    let forgetAfter: Int64?
    /// Idle devices by when they may be forgotten (`Engine+Forget.swift`), stale entries included.
    var idles = Heap<Due>()
    /// While fence updates are being prepared outside the engine, every device changed since
    /// (ids, repeats included); nil when none is. See `Engine+Fences.swift`.
    var changeLog: [String]? = nil
    /// `--device-log-bytes`: a compaction sweep starts once the device log holds more than
    /// this, and more than ``logBytesPerDevice`` a device (`Engine+DeviceLog.swift`).
    let deviceLogBytes: Int
    /// The device log's bytes: since the start of the last sweep, or of the log.
    var logBytes: Int
    /// The next `device_log` row's number.
    var nextLogSeq: Int64
    /// The compaction sweep under way, if any.
    var sweep: LogSweep? = nil
    /// The fence sets stored: the one in force, and the earlier ones rows in force were made
    /// on (``maximumFenceVersions`` at most).
    var fenceVersionsKept: Int { didSet { metrics.fenceSetsStored.set(Double(fenceVersionsKept)) } }
    /// Fence updates between their begin and end steps.
    var updatesInFlight = 0
    /// The last number given to an update's begin step.
    var updateSerial = 0
    /// The moves of the devices changed while an update is prepared (`Engine+Premove.swift`).
    var premove: Premove? = nil
    /// Responses of requests with an `Idempotency-Key` whose commit has not completed: a
    /// retry arriving meanwhile waits for the same commit and gets the same answer.
    var inflight: [String: (ticket: CommitTicket, response: Data)] = [:]

    init(
        fences: Fences, devices: [String: Device], nextSeq: Int64, store: Store, committer: GroupCommitter,
        onFenceRemoved: FenceUpdate.RemovalPolicy, logger: Logger, metrics: ServerMetrics, maximumDevices: Int = .max,
        clockMode: ServerOptions.ClockMode = .wall, clockDelay: Int64 = 0, clockTime: Int64 = .min,
        deviceLogBytes: Int = 4 << 20, logBytes: Int = 0, nextLogSeq: Int64 = 1,
        forgetAfter: Int64? = nil, idle: Set<String> = [], sweep: LogSweep? = nil, fenceVersionsKept: Int = 1
    ) throws {
        self.sweep = sweep
        self.fenceVersionsKept = fenceVersionsKept
        self.forgetAfter = forgetAfter
        self.idles = Self.idles(of: devices, idle: idle, forgetAfter: forgetAfter)
        self.deviceLogBytes = deviceLogBytes
        self.logBytes = logBytes
        self.nextLogSeq = nextLogSeq
        self.fences = fences
        self.evaluator = try ContainmentEvaluator(fenceSet: fences.set)
        self.devices = devices
        self.nextSeq = nextSeq
        self.store = store
        self.committer = committer
        self.onFenceRemoved = onFenceRemoved
        self.logger = logger
        self.metrics = metrics
        self.maximumDevices = maximumDevices
        self.clockMode = clockMode
        self.clockDelay = clockDelay
        self.clockTime = clockTime
        self.dues = Self.dues(of: devices)
        metrics.devices.set(Double(devices.count))
        metrics.fenceVersion.set(Double(fences.version))
        metrics.fences.set(Double(fences.set.count))
        metrics.fenceSetsStored.set(Double(fenceVersionsKept))
    }

    /// The engine as the database left it: the stored fence set (or `options.fencesPath`'s
    /// for a new folder), every device restored from its stored state (moved to the set in
    /// force when made on an earlier one), sequence numbers going on from the last stored
    /// event.
    /// - Throws: ``ServerError`` for a fence file that cannot be read, or a folder written
    ///   with other tracker options.
    static func open(
        options: ServerOptions, store: Store, committer: GroupCommitter, logger: Logger, metrics: ServerMetrics
    ) throws -> Engine {
        let configuration = try Self.checkConfiguration(options.configuration, store: store)
        let fences = try Self.openFences(options: options, configuration: configuration, store: store, logger: logger)
        let versions = try store.fenceVersions()
        let stored = try store.devices(versions: versions)
        let (devices, idle) = try Self.restore(
            stored.entries, older: stored.older, versions: versions, current: fences, onFenceRemoved: options.onFenceRemoved, logger: logger)
        // Rows made on an earlier set are there until a sweep writes every device again on
        // this one (and drops the earlier sets): a restart mid-sweep starts another.
        let nextLogSeq = stored.lastLogSeq + 1
        let sweep = versions.count > 1 ? LogSweep(start: nextLogSeq, ids: Array(devices.keys)) : nil
        // The data clock as the last commit that moved it left it; the wall clock reads anew.
        let clockTime = options.clock == .data ? (try store.meta("clock")).flatMap { Int64($0) } ?? .min : .min
        let engine = try Engine(
            fences: fences, devices: devices, nextSeq: try store.lastSeq() + 1, store: store, committer: committer,
            onFenceRemoved: options.onFenceRemoved, logger: logger, metrics: metrics, maximumDevices: options.maximumDevices,
            clockMode: options.clock, clockDelay: Int64((options.clockDelay * 1000).rounded()), clockTime: clockTime,
            deviceLogBytes: options.deviceLogBytes, logBytes: stored.logBytes, nextLogSeq: nextLogSeq,
            forgetAfter: options.forgetAfter.map { Int64(($0 * 1000).rounded()) }, idle: idle, sweep: sweep,
            fenceVersionsKept: versions.count)
        logger.info("fence set version \(fences.version): \(fences.set.count) fences; \(devices.count) devices restored, \(stored.older.count) of them moved from an earlier set")
        return engine
    }

    /// The tracker options of the folder: stored on first start; a later start with other
    /// options is refused, since the stored states were made with the first ones.
    static func checkConfiguration(_ configuration: TrackerConfiguration, store: Store) throws -> TrackerConfiguration {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(configuration), as: UTF8.self)
        if let stored = try store.meta("configuration") {
            guard stored == text else {
                throw ServerError("--data holds state made with other tracker options (\(stored)); start with the same options or a new --data")
            }
        } else {
            try store.setMeta("configuration", text)
        }
        return configuration
    }

    /// The stored fence set, or for a new folder the `--fences` file, stored as a compiled
    /// file. The server always runs on the set read back from compiled bytes, so a restarted
    /// server has the very fences a never-restarted one had.
    static func openFences(options: ServerOptions, configuration: TrackerConfiguration, store: Store, logger: Logger) throws -> Fences {
        if let stored = try store.fenceVersions().last {
            let set = try FenceSet.load(bytes: stored.bytes, name: "the stored fence set, version \(stored.version)")
            logger.info("using the stored fence set version \(stored.version); --fences is read only for a new --data")
            return Fences(context: try TrackerContext(fenceSet: set, configuration: configuration), version: stored.version, at: stored.at)
        }
        let given: FenceSet
        do {
            given = try FenceSet.load(path: options.fencesPath)
        } catch {
            throw ServerError("--fences \(options.fencesPath): \(error)")
        }
        let bytes = Data(given.compiledBytes())
        let set = try FenceSet.load(bytes: bytes, name: options.fencesPath)
        // A write at start, before any request: synchronous, through the pool's own queue.
        let first = Store.FenceVersion(version: 1, at: nil, bytes: bytes, logFrom: 0, onRemoved: options.onFenceRemoved.rawValue)
        try store.pool.write { db in try Store.insert(first, db) }
        return Fences(context: try TrackerContext(fenceSet: set, configuration: configuration), version: 1, at: nil)
    }

    /// Gives each event its sequence number and stable id, in order, and counts it on its device.
    func publish(_ events: [GeofenceEvent], device id: String, entry: inout Device, into lines: inout [EventLine]) {
        for event in events {
            let eventID = EventLine.id(deviceID: id, event: event, ordinal: entry.events)
            entry.events += 1
            lines.append(EventLine(event, deviceID: id, seq: nextSeq, id: eventID))
            metrics.events[event.type.name]?.increment()
            nextSeq += 1
        }
    }

    /// ``publish(_:device:entry:into:)`` for events whose lines were formatted up to their
    /// sequence number beforehand (``EventLine/prefix(_:deviceID:)``).
    func publish(_ events: [PreparedEvent], device id: String, entry: inout Device, into lines: inout [EventLine]) {
        for prepared in events {
            let eventID = EventLine.id(deviceID: id, event: prepared.event, ordinal: entry.events)
            entry.events += 1
            lines.append(EventLine(prefix: prepared.prefix, deviceID: id, seq: nextSeq, id: eventID))
            metrics.events[prepared.event.type.name]?.increment()
            nextSeq += 1
        }
    }

    /// Records that `id` changed, for the fence updates being prepared, and moves it to the
    /// first one's set (``Premove``).
    @inline(__always)
    func noteChange(_ id: String) {
        if changeLog != nil {
            changeLog!.append(id)
            if premove != nil { premove(id) }
        }
    }

    /// The stored form of a device: its tracker's encoded state, on the fence set in force
    /// (a restart moves a row made before an update to the set it installed).
    func record(_ id: String, _ entry: Device) -> Store.Checkpoint.Entry {
        Store.Checkpoint.Entry(id: id, state: entry.state, events: entry.events)
    }

    /// The device's tracker, decoded on the fence set in force.
    func tracker(_ id: String, _ entry: Device) -> DeviceTracker {
        do {
            return try DeviceTracker(encodedState: entry.state, context: fences.context)
        } catch {
            // The engine encoded these bytes itself, on this context (a fence update moves
            // every device to its own): failing to read them back means memory no longer holds what was
            // written, and going on would answer for the wrong fences.
            fatalError("device \(id): its state cannot be decoded: \(error)")
        }
    }
}
