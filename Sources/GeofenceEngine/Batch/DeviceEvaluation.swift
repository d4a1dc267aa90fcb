import GeofenceGEOS

/// The fixes of one device, in time order, as the per-device step reads them.
protocol DeviceFixSource: SendableMetatype {
    var count: Int { get }
    /// Replaces `scratch` with the device's records, in time order.
    func gather(into scratch: inout [FixRecord])
}

/// What evaluating one device produced: its NDJSON lines and counts.
struct DeviceResult: Sendable {
    var lines = LineRange()
    var processed = 0
    /// Events by type (indexed by the type's raw value); empty for a device with no event
    /// path (``carriedEntry``), so that it costs no allocation.
    var eventsByType: [Int] = []
    /// Rows the tracker refused (only `order` can happen here: ingestion already rejected
    /// bad coordinates and accuracies, and grouping sorted each device by time).
    var rejections: [(BatchSummary.RejectionReason, String)] = []
    /// With fence updates: the removal exits of each update.
    var removalExits: [Int] = []
    /// With a carried state to write: the device's entry (its id and tracker), in the
    /// worker's window state buffer (as `lines` is in its line buffer).
    var state = LineRange()
    /// The latest accepted fix time, `Int64.min` when none was.
    var latest = Int64.min
    /// A carried device the run leaves as it was (no fix, no fence update, its state kept):
    /// its index in the carried state, whose entry is copied to the state written as is.
    var carriedEntry = -1

    /// A result about to count events.
    static func counting() -> DeviceResult {
        var result = DeviceResult()
        result.eventsByType = [Int](repeating: 0, count: GeofenceEvent.EventType.allCases.count)
        return result
    }
}

/// A device's NDJSON lines: a range of the window buffer of the worker that evaluated it
/// (``BatchWorker/startWindow(_:)``), read by the output writer once the window is done.
struct LineRange: @unchecked Sendable {
    var buffer: ScratchArray<UInt8>? = nil
    var offset = 0
    var count = 0

    /// The lines (valid until the buffer's set is started again, two windows later).
    var bytes: UnsafeRawBufferPointer {
        guard let buffer else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: buffer.base + offset, count: count)
    }
}

/// One worker thread's state: its own GEOS-backed evaluator and scratch buffers.
final class BatchWorker {
    let context: TrackerContext
    let evaluator: ContainmentEvaluator
    let formatter: EventLineFormatter
    var events: [GeofenceEvent] = []
    var nearby: [FenceDistance] = []
    var records: [FixRecord] = []
    /// A device's fixes for the batch containment query, and its answer.
    private var latitudes: [Double] = [], longitudes: [Double] = [], levels: [Int] = []
    var pairs = ContainmentPairs()
    /// Two sets of window lines, used by alternate windows: the devices this worker
    /// evaluates in a window append their lines to the window's set, and the writer reads
    /// them from there while the next window fills the other set. Reused window after window,
    /// so the output takes no fresh memory per device: a device's lines in an array of their
    /// own were freed after writing and their pages faulted in again for the next ones (the
    /// 117 MB of the Austin run faulted whole).
    let windowLines = [ScratchArray<UInt8>(capacity: 1 << 16), ScratchArray<UInt8>(capacity: 1 << 16)]
    /// The same for the devices' state entries (runs that write a state file).
    let windowStates = [ScratchArray<UInt8>(capacity: 1 << 12), ScratchArray<UInt8>(capacity: 1 << 12)]
    /// Reused by ``evaluateCarried(deviceID:fixes:restored:)``: a device's state entry, and
    /// its events' epochs and order.
    var stateEntry = ByteWriter(), stateScratch = ByteWriter()
    var epochOf: [Int] = []
    var eventOrder: [Int] = []
    var segments: [(start: Int, epoch: Int)] = []
    var currentSet = 0
    /// With fence updates or a carried state (``evaluateCarried(deviceID:fixes:restored:)``):
    /// the epochs, an evaluator per epoch (the first is `evaluator`), and whether pending
    /// events stay pending at the end of the input (to be written to a state file).
    let epochs: FenceEpochs?
    let epochEvaluators: [ContainmentEvaluator]
    let keepPending: Bool

    init(context: TrackerContext, formatter: EventLineFormatter, epochs: FenceEpochs? = nil, keepPending: Bool = false) throws(GEOSError) {
        self.context = context
        evaluator = try ContainmentEvaluator(fenceSet: context.fenceSet)
        self.formatter = formatter
        self.epochs = epochs
        self.keepPending = keepPending
        var evaluators = [evaluator]
        if let epochs {
            for set in epochs.sets.dropFirst() { evaluators.append(try ContainmentEvaluator(fenceSet: set)) }
        }
        epochEvaluators = evaluators
    }

    /// Starts a window on line set `set` (0 or 1), emptying it. Call while no device is being
    /// evaluated, and only when the results of the window that last used `set` are written.
    func startWindow(_ set: Int) {
        currentSet = set
        windowLines[set].count = 0
        windowStates[set].count = 0
    }

    /// The fences containing each of `records`, by the batch query (fix index, slot).
    func containing(
        _ records: ArraySlice<FixRecord>, options: ContainmentOptions, evaluator: ContainmentEvaluator, into pairs: inout ContainmentPairs
    ) throws(GEOSError) {
        var latitudes = self.latitudes, longitudes = self.longitudes, levels = self.levels
        self.latitudes = []; self.longitudes = []; self.levels = []
        defer { self.latitudes = latitudes; self.longitudes = longitudes; self.levels = levels }
        latitudes.removeAll(keepingCapacity: true)
        longitudes.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        var anyLevel = false
        for record in records {
            latitudes.append(record.latitude)
            longitudes.append(record.longitude)
            levels.append(record.level == Int32.min ? Int.min : Int(record.level))
            if record.level != Int32.min { anyLevel = true }
        }
        try evaluator.containing(
            latitudes: latitudes, longitudes: longitudes, levels: anyLevel ? levels : nil, options: options, into: &pairs)
    }

    /// Runs one device's fixes through a fresh tracker, in time order, then the end-of-input
    /// step, and renders the events ordered by timestamp, then fence id (slot), keeping the
    /// tracker's order (entrance, dwell, venueConfirmed, exit, presence) among equals.
    func evaluate<Source: DeviceFixSource>(deviceID: String, fixes: Source) throws(GEOSError) -> DeviceResult {
        var result = DeviceResult.counting()
        var tracker = DeviceTracker(context: context)
        // Locals, not the stored buffers: a class property passed inout costs a dynamic
        // exclusivity check per call (measured on this path).
        var events = self.events
        self.events = []
        defer { self.events = events }
        events.removeAll(keepingCapacity: true)
        // Take the buffers out of the object (leaving it empty), or every write would copy them.
        var nearby = self.nearby
        var records = self.records
        self.nearby = []
        self.records = []
        defer {
            self.nearby = nearby
            self.records = records
        }
        fixes.gather(into: &records)
        let exact = context.observationIsContainment
        let options = context.configuration.containmentOptions
        var pairs = self.pairs
        self.pairs = ContainmentPairs()
        defer { self.pairs = pairs }
        if exact {
            // What `observe` does in this case, for all the device's fixes in one batch query
            // (ingestion already refused the fixes it would refuse): pairs in fix order.
            try containing(records[...], options: options, evaluator: evaluator, into: &pairs)
        }
        var next = 0
        for (k, record) in records.enumerated() {
            let fix = record.fix
            if exact {
                Self.nearby(fix: k, pairs: pairs, next: &next, into: &nearby)
            } else {
                _ = try context.observe(fix, using: evaluator, buffer: &nearby)  // fills `nearby`
            }
            let rejection = tracker.update(fix: fix, nearby: nearby, appendingTo: &events)
            if let rejection {
                result.rejections.append((Self.reason(rejection), rejection.detail))
            } else {
                result.processed += 1
            }
        }
        tracker.finish(appendingTo: &events)
        // Events of separate calls can share a timestamp: a stable sort by (time, slot) keeps
        // the causal order within one fence.
        if !isOrdered(events) {
            events = events.enumerated().sorted { a, b in
                let x = a.element, y = b.element
                if x.timestamp != y.timestamp { return x.timestamp < y.timestamp }
                if x.slot != y.slot { return x.slot < y.slot }
                return a.offset < b.offset
            }.map(\.element)
        }
        if !events.isEmpty {
            let lines = windowLines[currentSet], offset = lines.count
            EventLineFormatter.deviceFragment(deviceID).withUnsafeBufferPointer { device in
                formatter.write(events, device: device, counts: &result.eventsByType, to: lines)
            }
            result.lines = LineRange(buffer: lines, offset: offset, count: lines.count - offset)
        }
        return result
    }

    /// The fences the batch query found for fix `k` (pairs in fix order, read from `next`
    /// on), as the observation's nearby list: what `observe` gives when the observation is
    /// plain containment.
    @inline(__always)
    static func nearby(fix k: Int, pairs: ContainmentPairs, next: inout Int, into nearby: inout [FenceDistance]) {
        nearby.removeAll(keepingCapacity: true)
        while next < pairs.count && Int(pairs.fixes[next]) == k {
            nearby.append(FenceDistance(slot: pairs.slots[next], distance: 0))
            next += 1
        }
    }

    /// The summary's reason for a rejection by the tracker.
    static func reason(_ rejection: TrackerRejection) -> BatchSummary.RejectionReason {
        switch rejection.reason {
        case .coordinate: .coordinate
        case .accuracy: .accuracy
        default: .order
        }
    }

    func isOrdered(_ events: [GeofenceEvent]) -> Bool {
        guard events.count > 1 else { return true }
        for k in 1..<events.count {
            let a = events[k - 1], b = events[k]
            if a.timestamp > b.timestamp || (a.timestamp == b.timestamp && a.slot > b.slot) { return false }
        }
        return true
    }
}
