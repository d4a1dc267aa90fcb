import GeofenceGEOS
import RealModule
@_spi(Engine) import GeofenceGeometry

/// What every tracker of one fence set and one configuration shares: the fences, the
/// configuration, and the per-fence numbers the tracker reads (radii, levels, dwell times),
/// read in place from the set's flat arrays rather than copied per fence.
///
/// Immutable and `Sendable`: build one and give it to every ``DeviceTracker`` (a tracker
/// holds one reference, so 10,000 trackers cost no copies of fence data).
public final class TrackerContext: Sendable {
    public let fenceSet: FenceSet
    public let configuration: TrackerConfiguration

    /// `enterTolerance` and `exitTolerance`: a fence's reach while reported outside and
    /// inside is the tolerance times its radius, read from the set's flat arrays.
    let enterTolerance: Double
    let exitTolerance: Double
    /// The dwell time in ms of fences without their own, 0 = disabled.
    let defaultDwellMilliseconds: Int64
    /// `max(enterTolerance, exitTolerance) × the largest radius`.
    let maximumReach: Double
    /// By slot, through pointers into the set's buffers (alive as long as `fenceSet`): the
    /// radius (lane z of the enclosing circle), the level (`FenceSet.noLevel` for none) and
    /// the fence's own dwell time in ms (`FenceSet.defaultDwell` for none). Reading them per
    /// fix costs no reference counting and no copy of per-fence arrays at startup.
    let circles: FrozenPointer<SIMD4<Double>>
    let levels: FrozenPointer<Int>
    let fenceDwell: FrozenPointer<Int64>
    let fenceCount: Int
    /// Each fence's id and where its attributes are read, as events hold them: made once when
    /// the set has at most ``eagerIDLimit`` fences (events then share them: an id of more than
    /// 15 bytes is a heap allocation per event otherwise, measured 6 % of the Austin run);
    /// empty for larger sets, whose events make theirs from the set's blob, so opening a
    /// million fences stays cheap.
    let eventSources: [EventSource]
    static let eagerIDLimit = 1 << 16
    /// False for the batch evaluator, whose events are written from the fences' rendered
    /// fragments by slot: their ``GeofenceEvent/geofenceID`` is then empty, so making, sorting
    /// and copying events counts no references (a fifth of a 20× Austin run's time went to
    /// retaining and releasing the id strings).
    let idsInEvents: Bool
    let levelFences: Bool
    let globalFences: Bool

    let ignoreMilliseconds: Int64
    let presenceMilliseconds: Int64?
    let stopMilliseconds: Int64
    let membershipTTLMilliseconds: Int64?
    /// Chord lengths on the unit sphere of `stopRadius` and `2 × stopRadius`.
    let stopChord: Double
    let stopPruneChord: Double
    /// ``fenceSetDigest``, made on first use (only encoded states need it).
    let digest = DigestCache()

    /// - Throws: ``TrackerConfigurationError`` when a value is out of range.
    /// - Complexity: O(n) for n ≤ ``eagerIDLimit`` fences (their id strings), else O(1).
    public convenience init(fenceSet: FenceSet, configuration: TrackerConfiguration = TrackerConfiguration()) throws(TrackerConfigurationError) {
        try self.init(fenceSet: fenceSet, configuration: configuration, idsInEvents: true)
    }

    /// The context for trackers whose events carry their fence's id (`idsInEvents`), or an
    /// empty id (the batch evaluator's, which names fences by slot).
    package init(fenceSet: FenceSet, configuration: TrackerConfiguration, idsInEvents: Bool) throws(TrackerConfigurationError) {
        try configuration.validate()
        self.idsInEvents = idsInEvents
        self.fenceSet = fenceSet
        self.configuration = configuration
        enterTolerance = configuration.enterToleranceFraction
        exitTolerance = configuration.exitToleranceFraction
        // 0, a negative or a non-number disables dwell; a positive time is at least 1 ms.
        defaultDwellMilliseconds = FenceSetBuilder.trackerDwell(configuration.dwell)
        maximumReach = Swift.max(configuration.enterToleranceFraction, configuration.exitToleranceFraction) * fenceSet.storage.largestRadius
        fenceSet.storage.requireEverything("tracking")
        circles = FrozenPointer(fenceSet.storage.enclosingCircles)
        levels = FrozenPointer(fenceSet.storage.levels)
        fenceDwell = FrozenPointer(fenceSet.storage.dwellMilliseconds)
        fenceCount = fenceSet.count
        eventSources = idsInEvents && fenceSet.count <= Self.eagerIDLimit
            ? (0..<fenceSet.count).map { EventSource(geofenceID: fenceSet.geofenceID(at: $0), fenceSet: fenceSet) } : []
        levelFences = configuration.levelFences
        globalFences = configuration.globalFences
        ignoreMilliseconds = TrackerConfiguration.milliseconds(configuration.ignorePeriod)
        presenceMilliseconds = configuration.presenceInterval.map(TrackerConfiguration.milliseconds)
        stopMilliseconds = TrackerConfiguration.milliseconds(configuration.stopSeconds)
        membershipTTLMilliseconds = configuration.membershipTTL.map(TrackerConfiguration.milliseconds)
        stopChord = 2 * Double.sin(configuration.stopRadius / (2 * Sphere.radius))
        stopPruneChord = 2 * Double.sin(Swift.min(configuration.stopRadius / Sphere.radius, Double.pi / 2))
    }

    /// True when the fence in `slot` takes part for a fix on `level` (semantics §2, with the
    /// configuration's switches).
    @inline(__always)
    func levelMatches(slot: Int, level: Int?) -> Bool {
        let fenceLevel = levels[slot]
        if fenceLevel == FenceSet.noLevel { return globalFences }
        guard levelFences, let level else { return false }
        return level == fenceLevel
    }

    /// Metres beyond the edge of the fence in `slot` that still count as inside while
    /// reported outside (`enterTolerance × radius`).
    @inline(__always)
    func enterReach(_ slot: Int) -> Double { enterTolerance * circles[slot].z }

    /// The same while reported inside (`exitTolerance × radius`).
    @inline(__always)
    func exitReach(_ slot: Int) -> Double { exitTolerance * circles[slot].z }

    /// The id of the fence in `slot`, for an event.
    @inline(__always)
    func eventSource(_ slot: Int) -> EventSource? {
        guard idsInEvents else { return nil }
        return eventSources.isEmpty ? EventSource(geofenceID: fenceSet.geofenceID(at: slot), fenceSet: fenceSet) : eventSources[slot]
    }

    /// The dwell time in ms of the fence in `slot` (its own, else the default), 0 = disabled.
    @inline(__always)
    func dwellMilliseconds(_ slot: Int) -> Int64 {
        let own = fenceDwell[slot]
        return own == FenceSet.defaultDwell ? defaultDwellMilliseconds : own
    }

    /// The extra metres a fix's accuracy adds to every threshold: the accuracy when
    /// `accuracyBuffer` is on, else 0.
    @inline(__always)
    func accuracyAllowance(_ accuracy: Double?) -> Double {
        guard configuration.accuracyBuffer, let accuracy, accuracy > 0 else { return 0 }
        return accuracy
    }

    /// The buffer to ask containment for, for the fence in `slot` and a fix of this accuracy:
    /// `max(enterTolerance, exitTolerance) × radius`, plus the accuracy when
    /// `accuracyBuffer` is on. With tolerances 0 and no accuracy buffer it is 0, and the
    /// observation is exactly the containing fences.
    @inline(__always)
    package func buffer(slot: Int, accuracy: Double?) -> Double {
        Swift.max(enterReach(slot), exitReach(slot)) + accuracyAllowance(accuracy)
    }

    /// The largest ``buffer(slot:accuracy:)`` over the set, for the index's box pre-check.
    @inline(__always)
    package func maximumBuffer(accuracy: Double?) -> Double {
        maximumReach + accuracyAllowance(accuracy)
    }

    /// True when the tracker will reject the fix whatever its state (`coordinate` or
    /// `accuracy`); the reason, or nil. (`order` depends on the tracker.)
    public func rejection(of fix: Fix) -> TrackerRejection? {
        // `isValid` is inlined: the per-fix check stays four comparisons.
        if !fix.coordinate.isValid { return .coordinate(CoordinateError(fix.coordinate)!) }
        if let accuracy = fix.accuracy, !(accuracy >= 0 && accuracy <= configuration.maxAccuracy) {
            return .accuracy(accuracy, maximum: configuration.maxAccuracy)
        }
        return nil
    }

    /// True when no tolerance and no accuracy buffer is asked for: an observation is then
    /// exactly the fences containing the fix, at distance 0.
    var observationIsContainment: Bool { maximumReach <= 0 && !configuration.accuracyBuffer }

    /// The observation of `fix`: the geometry step, on the caller's thread and evaluator
    /// (which must be built on this context's fence set). A fix the tracker will reject
    /// anyway gets an empty list without a query.
    /// - Throws: ``TrackerRejection/wrongFenceSet(_:)`` when `evaluator` is built on another
    ///   fence set than this context's, ``GEOSError`` when GEOS fails.
    public func observe(_ fix: Fix, using evaluator: ContainmentEvaluator) throws -> FixObservation {
        guard evaluator.fenceSet === fenceSet else {
            throw TrackerRejection.wrongFenceSet("the evaluator is built on another fence set than the tracker's")
        }
        var nearby: [FenceDistance] = []
        var observation = try observe(fix, using: evaluator, buffer: &nearby)
        observation = FixObservation(fix: observation.fix, nearby: observation.nearby, fenceSet: fenceSet)
        return observation
    }

    /// ``observe(_:using:)`` reusing `buffer` for the nearby list (the batch hot path): once
    /// the buffer has grown and the returned observation has been dropped, it allocates nothing.
    package func observe(
        _ fix: Fix, using evaluator: ContainmentEvaluator, buffer nearby: inout [FenceDistance]
    ) throws(GEOSError) -> FixObservation {
        nearby.removeAll(keepingCapacity: true)
        if rejection(of: fix) != nil { return FixObservation(fix: fix, nearby: nearby, fenceSet: nil) }
        let allowance = accuracyAllowance(fix.accuracy)
        if maximumReach + allowance <= 0 {
            try evaluator.containingDistances(
                latitude: fix.latitude, longitude: fix.longitude, level: fix.level,
                options: configuration.containmentOptions, into: &nearby)
        } else {
            try evaluator.fencesWithin(
                latitude: fix.latitude, longitude: fix.longitude, level: fix.level,
                options: configuration.containmentOptions, maximumBuffer: maximumReach + allowance,
                buffer: { slot in Swift.max(self.enterReach(slot), self.exitReach(slot)) + allowance }, into: &nearby)
        }
        return FixObservation(fix: fix, nearby: nearby, fenceSet: nil)
    }
}

