/// One device through fence updates and carried state: the path of
/// ``BatchWorker/evaluate(deviceID:fixes:)`` when the run has fence updates, reads a state
/// file or writes one. Runs without them never come here, so their output and speed are the
/// plain path's.
extension BatchWorker {
    /// Runs one device's fixes from `restored` (a carried tracker on the first epoch's set)
    /// or a fresh tracker: each update is applied before the first fix at or after its time
    /// and, after the last fix, every update not yet applied; then the end of input fires
    /// what is pending, unless pending events are kept for a state file (then the device's
    /// state is encoded into the result).
    ///
    /// Events are rendered with the formatter of the set they were made under, ordered by
    /// time, then fence id across sets, keeping the tracker's order among equals.
    func evaluateCarried<Source: DeviceFixSource>(
        deviceID: String, fixes: Source, restored: DeviceTracker?
    ) throws(GEOSError) -> DeviceResult {
        let epochs = self.epochs!
        var result = DeviceResult.counting()
        result.removalExits = [Int](repeating: 0, count: epochs.updates.count)
        var tracker = restored ?? DeviceTracker(context: epochs.contexts[0])
        var events = self.events
        self.events = []
        events.removeAll(keepingCapacity: true)
        defer { self.events = events }
        var nearby = self.nearby
        var records = self.records
        var pairs = self.pairs
        self.nearby = []
        self.records = []
        self.pairs = ContainmentPairs()
        defer {
            self.nearby = nearby
            self.records = records
            self.pairs = pairs
        }
        fixes.gather(into: &records)
        // (first event, epoch) at each change of the set events are made under.
        var segments = self.segments
        self.segments = []
        segments.removeAll(keepingCapacity: true)
        segments.append((0, 0))
        defer { self.segments = segments }
        var epoch = 0
        func applyNext() {
            let before = events.count
            do throws(TrackerRejection) {
                try tracker.apply(epochs.updates[epoch], appendingTo: &events)
            } catch {
                // Cannot happen (updates come in time order, before any later fix); counted if it does.
                result.rejections.append((.order, "fence update: \(error.detail)"))
            }
            for e in events[before...] where e.reason == .fenceRemoved { result.removalExits[epoch] += 1 }
            epoch += 1
            segments.append((events.count, epoch))
        }
        var k = 0
        while k < records.count {
            while epoch < epochs.updates.count && epochs.updates[epoch].time.milliseconds <= records[k].timestamp { applyNext() }
            // The fixes before the next update, under this epoch's set.
            var end = k + 1
            let limit = epoch < epochs.updates.count ? epochs.updates[epoch].time.milliseconds : Int64.max
            while end < records.count && records[end].timestamp < limit { end += 1 }
            try run(records[k..<end], tracker: &tracker, epoch: epoch, nearby: &nearby, pairs: &pairs, events: &events, result: &result)
            k = end
        }
        while epoch < epochs.updates.count { applyNext() }
        if keepPending {
            var entry = stateEntry, scratch = stateScratch
            stateEntry = ByteWriter()
            stateScratch = ByteWriter()
            entry.bytes.removeAll(keepingCapacity: true)
            CarriedState.deviceEntry(id: deviceID, tracker: tracker, to: &entry, scratch: &scratch)
            stateScratch = scratch
            let states = windowStates[currentSet], offset = states.count
            entry.bytes.withUnsafeBufferPointer { states.append($0.baseAddress!, count: $0.count) }
            result.state = LineRange(buffer: states, offset: offset, count: states.count - offset)
            stateEntry = entry
        } else {
            tracker.finish(appendingTo: &events)
        }
        write(events, segments: segments, epochs: epochs, deviceID: deviceID, result: &result)
        return result
    }

    /// The fixes of one epoch through the tracker (a batch containment query on the epoch's
    /// set when the observation is plain containment, else one query a fix).
    private func run(
        _ range: ArraySlice<FixRecord>, tracker: inout DeviceTracker, epoch: Int, nearby: inout [FenceDistance],
        pairs: inout ContainmentPairs, events: inout [GeofenceEvent], result: inout DeviceResult
    ) throws(GEOSError) {
        let context = tracker.context
        let evaluator = epochEvaluators[epoch]
        let exact = context.observationIsContainment
        if exact { try containing(range, options: context.configuration.containmentOptions, evaluator: evaluator, into: &pairs) }
        var next = 0
        for (k, record) in range.enumerated() {
            let fix = record.fix
            if exact {
                Self.nearby(fix: k, pairs: pairs, next: &next, into: &nearby)
            } else {
                _ = try context.observe(fix, using: evaluator, buffer: &nearby)
            }
            if let rejection = tracker.update(fix: fix, nearby: nearby, appendingTo: &events) {
                result.rejections.append((Self.reason(rejection), rejection.detail))
            } else {
                result.processed += 1
                result.latest = Swift.max(result.latest, record.timestamp)
            }
        }
    }

    /// Orders the device's events (time, then fence id across sets, stable) and appends their
    /// lines, each rendered by its set's formatter; a removal exit's line ends with its reason.
    ///
    /// Events mostly come in order already (an update falls between fixes): each segment is
    /// then written by its formatter in one call, reading the events in place. Only a device
    /// whose events are out of order pays for an index sort.
    private func write(
        _ events: [GeofenceEvent], segments: [(start: Int, epoch: Int)], epochs: FenceEpochs, deviceID: String,
        result: inout DeviceResult
    ) {
        guard !events.isEmpty else { return }
        let lines = windowLines[currentSet], offset = lines.count
        let ranks = epochs.ranks, rankStarts = epochs.rankStarts
        func end(_ n: Int) -> Int { n + 1 < segments.count ? segments[n + 1].start : events.count }
        EventLineFormatter.deviceFragment(deviceID).withUnsafeBufferPointer { device in
            events.withUnsafeBufferPointer { events in
                let ordered = Self.inOrder(events, segments: segments, ranks: ranks, rankStarts: rankStarts)
                var text = EventLineFormatter.CoordinateText()
                if ordered {
                    for (n, segment) in segments.enumerated() where segment.start < end(n) {
                        epochs.formatters[segment.epoch].write(
                            events[segment.start..<end(n)], device: device, counts: &result.eventsByType, text: &text, to: lines)
                    }
                } else {
                    writeSorted(events, segments: segments, epochs: epochs, device: device, text: &text, result: &result, to: lines)
                }
            }
        }
        result.lines = LineRange(buffer: lines, offset: offset, count: lines.count - offset)
    }

    /// Whether a device's events are in output order: by time, then by the fence's rank
    /// among the ids of every set (the rank of event i read in the epoch of its segment).
    /// `segments` are (first event, epoch) in event order, the first starting at 0.
    /// - Complexity: O(e) for e events.
    package static func inOrder(
        _ events: UnsafeBufferPointer<GeofenceEvent>, segments: [(start: Int, epoch: Int)], ranks: [Int32], rankStarts: [Int]
    ) -> Bool {
        func end(_ n: Int) -> Int { n + 1 < segments.count ? segments[n + 1].start : events.count }
        func rank(_ i: Int, _ epoch: Int) -> Int32 { ranks.isEmpty ? events[i].slot : ranks[rankStarts[epoch] + Int(events[i].slot)] }
        guard events.count > 1 else { return true }
        var n = 0  // the segment of event i - 1, then of event i
        while end(n) <= 0 { n += 1 }
        for i in 1..<events.count {
            let before = n
            while end(n) <= i { n += 1 }
            guard events[i - 1].timestamp >= events[i].timestamp else { continue }
            if events[i - 1].timestamp > events[i].timestamp || rank(i - 1, segments[before].epoch) > rank(i, segments[n].epoch) {
                return false
            }
        }
        return true
    }

    /// ``write(_:segments:epochs:deviceID:result:)`` for events out of order: an index sort
    /// by (time, rank, index), then one line at a time.
    private func writeSorted(
        _ events: UnsafeBufferPointer<GeofenceEvent>, segments: [(start: Int, epoch: Int)], epochs: FenceEpochs,
        device: UnsafeBufferPointer<UInt8>, text: inout EventLineFormatter.CoordinateText, result: inout DeviceResult,
        to lines: ScratchArray<UInt8>
    ) {
        var epochOf = self.epochOf, order = self.eventOrder
        self.epochOf = []
        self.eventOrder = []
        defer {
            self.epochOf = epochOf
            self.eventOrder = order
        }
        epochOf.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        for (n, segment) in segments.enumerated() {
            let end = n + 1 < segments.count ? segments[n + 1].start : events.count
            for _ in segment.start..<end { epochOf.append(segment.epoch) }
        }
        let ranks = epochs.ranks, rankStarts = epochs.rankStarts
        func rank(_ i: Int) -> Int32 { ranks.isEmpty ? events[i].slot : ranks[rankStarts[epochOf[i]] + Int(events[i].slot)] }
        order.append(contentsOf: events.indices)
        order.sort { a, b in
            if events[a].timestamp != events[b].timestamp { return events[a].timestamp < events[b].timestamp }
            let ra = rank(a), rb = rank(b)
            return ra != rb ? ra < rb : a < b
        }
        for i in order {
            epochs.formatters[epochOf[i]].write(events[i..<(i + 1)], device: device, counts: &result.eventsByType, text: &text, to: lines)
        }
    }
}
