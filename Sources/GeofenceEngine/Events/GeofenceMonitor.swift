import GeofenceGEOS

/// One device's geofencing for simple callers: the geometry step (a ``ContainmentEvaluator``)
/// and the state step (a ``DeviceTracker``) in one object.
///
/// Not `Sendable` (it owns GEOS state): use one per thread. For many devices, share one
/// ``TrackerContext`` and keep a ``DeviceTracker`` per device, computing observations with
/// an evaluator per thread.
public final class GeofenceMonitor {
    /// The geometry step's evaluator, on the tracker's fence set (replaced by a fence update).
    public private(set) var evaluator: ContainmentEvaluator
    /// The device's state (a value: copy it, snapshot it).
    public private(set) var tracker: DeviceTracker

    /// A monitor with no history.
    /// - Throws: ``TrackerConfigurationError`` for a bad configuration, ``GEOSError`` when
    ///   GEOS cannot start.
    public convenience init(fenceSet: FenceSet, configuration: TrackerConfiguration = TrackerConfiguration()) throws {
        try self.init(tracker: DeviceTracker(fenceSet: fenceSet, configuration: configuration))
    }

    /// A monitor that carries on from `tracker` (for instance one restored from a snapshot).
    /// - Throws: ``GEOSError`` when GEOS cannot start.
    public init(tracker: DeviceTracker) throws(GEOSError) {
        self.tracker = tracker
        evaluator = try ContainmentEvaluator(fenceSet: tracker.fenceSet)
    }

    public var context: TrackerContext { tracker.context }

    /// The observation of `fix` (geometry only; the tracker is not touched).
    /// - Throws: ``GEOSError`` when GEOS fails.
    public func observe(_ fix: Fix) throws -> FixObservation {
        try tracker.context.observe(fix, using: evaluator)
    }

    /// Feeds a fix and returns the events it causes.
    ///
    /// - Throws: ``TrackerRejection`` for a fix it refuses, as ``DeviceTracker`` and
    ///   ``RegistrationPlanner`` do (`coordinate` for a position that is not a valid WGS84
    ///   coordinate, `accuracy`, `order`); ``GEOSError`` when GEOS fails. A refused fix
    ///   changes nothing.
    public func update(_ fix: Fix) throws -> [GeofenceEvent] {
        try tracker.update(observe(fix))
    }

    /// A location request: presence for every fence the device is reported inside.
    public func requestPresence(at time: Timestamp) throws(TrackerRejection) -> [GeofenceEvent] {
        try tracker.requestPresence(at: time)
    }

    /// Lets time pass without a fix.
    public func advance(to time: Timestamp) throws(TrackerRejection) -> [GeofenceEvent] {
        try tracker.advance(to: time)
    }

    /// An OS region signal, applied to the Places states as given.
    @discardableResult
    public func apply(_ signal: RegionSignal) throws(TrackerRejection) -> [GeofenceEvent] {
        try tracker.apply(signal)
    }

    /// A nearby recalculation of the Places states from a fix.
    /// - Throws: ``TrackerRejection`` (`coordinate`, `accuracy`, `order`; nothing changed) or
    ///   ``GEOSError``.
    @discardableResult
    public func recalculateNearby(_ fix: Fix) throws -> [GeofenceEvent] {
        try tracker.recalculateNearby(observe(fix))
    }

    /// Moves the device to `fenceSet` at `time` (a republished catalog), with the rules of
    /// ``DeviceTracker/apply(_:)``, and returns the events the move causes (what fell due
    /// before `time`, then the removal exits).
    /// - Throws: ``TrackerRejection`` (`order` when `time` is before the latest input),
    ///   ``GEOSError`` when GEOS cannot start an evaluator for the new set. Nothing changes then.
    /// - Complexity: O(n + m) to compare the sets (``FenceSet.Change``), O(k) for the device.
    public func moveFences(to fenceSet: FenceSet, at time: Timestamp, onFenceRemoved: FenceUpdate.RemovalPolicy = .exit) throws
        -> [GeofenceEvent]
    {
        try apply(FenceUpdate(from: tracker.context, to: fenceSet, at: time, onFenceRemoved: onFenceRemoved))
    }

    /// Applies a fence update made once for many monitors (``DeviceTracker/apply(_:)``).
    /// - Throws: as ``moveFences(to:at:onFenceRemoved:)``.
    public func apply(_ update: FenceUpdate) throws -> [GeofenceEvent] {
        let newEvaluator = try ContainmentEvaluator(fenceSet: update.context.fenceSet)
        let events = try tracker.apply(update)
        evaluator = newEvaluator
        return events
    }

    /// The end of the device's input: what is pending fires.
    public func finish() -> [GeofenceEvent] { tracker.finish() }

    /// The Places states as they read at `time`.
    public func placesReading(at time: Timestamp) -> PlacesReading { tracker.placesReading(at: time) }

    /// The device's state as a snapshot.
    public func snapshot() -> DeviceSnapshot { tracker.snapshot() }
}
