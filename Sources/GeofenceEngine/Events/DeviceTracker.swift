/// The event engine for one device: fixes (and signals) in, events out (semantics §3–§6).
///
/// A pure value. Time comes only from the inputs, never from a clock; no call does I/O.
/// Geometry is not done here: each fix arrives as a ``FixObservation`` (the fix and its
/// nearby fences with edge distances), which any thread with a ``ContainmentEvaluator`` can
/// compute, so containment runs in parallel while each device's events are derived in time
/// order. ``GeofenceMonitor`` does both steps for simple callers.
///
/// Per fence the tracker keeps the raw state (what the latest fix says) and the reported
/// state (what events said), the quiet window, the visit (dwell, venueConfirmed, presence);
/// per device the Places states (``PlacesState``), the recent fixes for stop detection, and
/// the time of the latest accepted input.
///
/// Inputs must not go back in time: an input older than the latest accepted one is rejected
/// with ``TrackerRejection/order(latest:given:)`` and changes nothing. Equal times are fine
/// and apply in call order.
///
/// Order of events: the events of one call are sorted by timestamp, then fence id, then type
/// (entrance, dwell, venueConfirmed, exit, presence); over successive calls timestamps never
/// decrease.
///
/// Cost: per-fence state is sparse (only fences the device is inside, or whose quiet window
/// is still open), held in a small array sorted by slot; the earliest due time is cached in
/// one field. A fix that finds the device in no fence with nothing pending does a few
/// comparisons and allocates nothing.
public struct DeviceTracker: Sendable {
    /// The fences, configuration and per-fence numbers shared by all trackers; a fence
    /// update (``apply(_:)``) moves the tracker to the new set's context. A `let`: the hot
    /// paths read it without retaining it (a `var` measured about 15 % of the batch's CPU).
    public let context: TrackerContext
    /// Per-fence states, ascending by slot.
    var tracks: [FenceTrack] = []
    /// Time of the latest accepted input (ms), `Int64.min` before the first.
    var clock: Int64 = FenceTrack.never
    /// The earliest time anything falls due (a pending entrance, exit or dwell), or `Int64.max`.
    var nextDue: Int64 = FenceTrack.notDue
    /// Accepted fixes so far, not counting one being processed: the sequence number of the
    /// fix in progress during ``update(_:appendingTo:)``, of the next fix otherwise.
    var fixCount: Int64 = 0
    /// The latest accepted fix: the position of events that fall due after it.
    public internal(set) var lastFix: Fix?
    /// Recent fixes of the current visits, for venueConfirmed.
    var stops = StopHistory()
    /// Current POI, last entered, last exited and the entered set (semantics §6).
    package internal(set) var places: PlacesState

    /// A tracker with no history.
    public init(context: TrackerContext) {
        self.context = context
        places = PlacesState(membershipTTL: context.configuration.membershipTTL)
    }

    /// `tracker`'s whole state on another context (a fence update; its slots already moved).
    init(moving tracker: DeviceTracker, to context: TrackerContext) {
        self.context = context
        tracks = tracker.tracks
        clock = tracker.clock
        nextDue = tracker.nextDue
        fixCount = tracker.fixCount
        lastFix = tracker.lastFix
        stops = tracker.stops
        places = tracker.places
    }

    /// A tracker with no history, with its own context.
    /// - Throws: ``TrackerConfigurationError`` when a configuration value is out of range.
    public init(fenceSet: FenceSet, configuration: TrackerConfiguration = TrackerConfiguration()) throws(TrackerConfigurationError) {
        self.init(context: try TrackerContext(fenceSet: fenceSet, configuration: configuration))
    }

    /// The fence set.
    public var fenceSet: FenceSet { context.fenceSet }
    /// The configuration.
    public var configuration: TrackerConfiguration { context.configuration }

    /// Time of the latest accepted input, nil before the first.
    public var latestTime: Timestamp? { clock == FenceTrack.never ? nil : Timestamp(milliseconds: clock) }

    /// When the next pending event (entrance, exit, dwell) falls due if no fix intervenes,
    /// or nil when none is pending.
    public var nextDueTime: Timestamp? { nextDue == FenceTrack.notDue ? nil : Timestamp(milliseconds: nextDue) }

    /// True when the device is in no fence (raw or reported) and no window is open: a fix
    /// outside every fence will then cost next to nothing.
    public var isIdle: Bool { tracks.isEmpty }

    /// Slots of the fences the device is reported inside, ascending.
    public var reportedInside: [Int] { tracks.filter(\.reported).map { Int($0.slot) } }
    /// Slots of the fences the latest fix put the device inside, ascending.
    public var rawInside: [Int] { tracks.filter(\.raw).map { Int($0.slot) } }

    /// Feeds one fix; appends the events it produces to `events` (sorted among themselves).
    ///
    /// Steps: what fell due strictly before the fix fires first (at its due time, at the
    /// previous fix's position); then the fix sets the raw states (a flip inside a quiet
    /// window restarts it); then what is due at the fix's time fires (a first transition
    /// fires at once); then venueConfirmed and periodic presence are checked at the fix.
    /// - Returns: nil, or why the fix was rejected (then nothing changed):
    ///   ``TrackerRejection/wrongFenceSet(_:)`` for an observation made on another fence set.
    /// - Complexity: O(k + m) for k fences touched and m nearby fences, plus the stop check
    ///   while a visit awaits venueConfirmed (bounded by ``StopHistory/limit`` fixes).
    @discardableResult
    public mutating func update(_ observation: FixObservation, appendingTo events: inout [GeofenceEvent]) -> TrackerRejection? {
        if let set = observation.fenceSet, set !== context.fenceSet {
            return .wrongFenceSet("the observation was made with an evaluator of another fence set than the tracker's")
        }
        return update(fix: observation.fix, nearby: observation.nearby, appendingTo: &events)
    }

    /// ``update(_:appendingTo:)`` with the observation's two parts passed apart: the batch
    /// path calls this with its own buffer, so no observation value is built per fix (and
    /// the buffer is not retained and released for it).
    @inline(__always)
    mutating func update(fix: Fix, nearby: [FenceDistance], appendingTo events: inout [GeofenceEvent]) -> TrackerRejection? {
        if let rejection = context.rejection(of: fix) { return rejection }
        let t = fix.timestamp.milliseconds
        if t < clock { return .order(latest: Timestamp(milliseconds: clock), given: fix.timestamp) }
        let start = events.count
        if nextDue < t { settle(through: t, inclusive: false, into: &events) }
        clock = t
        lastFix = fix
        if !tracks.isEmpty || !nearby.isEmpty { applyRawStates(fix: fix, nearby: nearby, at: t) }
        if nextDue <= t { settle(through: t, inclusive: true, into: &events) }
        if !tracks.isEmpty || !stops.isEmpty { fixDrivenEvents(fix, into: &events) }
        fixCount += 1
        endCall(eventsFrom: start, events: &events)
        return nil
    }

    /// Feeds one fix and returns its events. - Throws: the rejection (nothing changed).
    public mutating func update(_ observation: FixObservation) throws(TrackerRejection) -> [GeofenceEvent] {
        var events: [GeofenceEvent] = []
        if let rejection = update(observation, appendingTo: &events) { throw rejection }
        return events
    }

    /// Lets time pass to `time` without a fix: everything due at or before it fires.
    /// - Throws: ``TrackerRejection/order(latest:given:)`` when `time` is earlier than the
    ///   latest input.
    public mutating func advance(to time: Timestamp) throws(TrackerRejection) -> [GeofenceEvent] {
        var events: [GeofenceEvent] = []
        try advance(to: time, appendingTo: &events)
        return events
    }

    /// ``advance(to:)``, appending to a buffer.
    public mutating func advance(to time: Timestamp, appendingTo events: inout [GeofenceEvent]) throws(TrackerRejection) {
        let start = try moveClock(to: time, appendingTo: &events)
        endCall(eventsFrom: start, events: &events)
    }

    /// The start of a call at `time` without a fix: refuses a time before the latest input,
    /// fires everything due at or before it, and moves the clock there.
    /// - Returns: where the call's events start in `events` (for ``endCall(eventsFrom:events:)``).
    mutating func moveClock(to time: Timestamp, appendingTo events: inout [GeofenceEvent]) throws(TrackerRejection) -> Int {
        let t = time.milliseconds
        if t < clock { throw .order(latest: Timestamp(milliseconds: clock), given: time) }
        let start = events.count
        if nextDue <= t { settle(through: t, inclusive: true, into: &events) }
        clock = t
        return start
    }

    /// The end of the device's input: everything still pending fires at its due time, as if
    /// the device stayed where its last fix put it (pending entrances and exits, then the
    /// dwells of fences it is still inside). The tracker's time moves to the last of them.
    public mutating func finish() -> [GeofenceEvent] {
        var events: [GeofenceEvent] = []
        finish(appendingTo: &events)
        return events
    }

    /// ``finish()``, appending to a buffer.
    public mutating func finish(appendingTo events: inout [GeofenceEvent]) {
        let start = events.count
        if nextDue != FenceTrack.notDue { settle(through: FenceTrack.notDue, inclusive: false, into: &events) }
        for k in start..<events.count { clock = Swift.max(clock, events[k].timestamp.milliseconds) }
        endCall(eventsFrom: start, events: &events)
    }

    /// Common ending of every call: drop tracks that say nothing, sort the call's events,
    /// and feed its entrances and exits to the Places states in that order.
    mutating func endCall(eventsFrom start: Int, events: inout [GeofenceEvent]) {
        if !tracks.isEmpty {
            let now = clock
            if tracks.contains(where: { $0.isSettled(at: now) }) {
                tracks.removeAll { $0.isSettled(at: now) }
            }
        }
        guard events.count > start else { return }
        if events.count - start > 1 { events[start...].sort(by: GeofenceEvent.precedes) }
        feedPlaces(events[start...])
    }

    /// The position of events that fall due between fixes: the last fix at or before them.
    var duePosition: (latitude: Double, longitude: Double) {
        (lastFix?.latitude ?? .nan, lastFix?.longitude ?? .nan)
    }

    /// A new event for the fence in `slot`.
    @inline(__always)
    func event(_ type: GeofenceEvent.EventType, slot: Int32, at time: Int64, latitude: Double, longitude: Double) -> GeofenceEvent {
        GeofenceEvent(
            type: type, timestamp: Timestamp(milliseconds: time), slot: slot, latitude: latitude, longitude: longitude,
            source: context.eventSource(Int(slot)))
    }
}
