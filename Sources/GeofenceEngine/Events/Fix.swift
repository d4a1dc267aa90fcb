/// One location fix of one device, as the tracker reads it (semantics §3).
///
/// The device id is not part of it: a ``DeviceTracker`` belongs to one device.
public struct Fix: Hashable, Sendable {
    public var timestamp: Timestamp
    /// Degrees, [-90, 90].
    public var latitude: Double
    /// Degrees, [-180, 180].
    public var longitude: Double
    /// Horizontal accuracy in metres (radius of the accuracy circle), nil when unknown.
    public var accuracy: Double?
    /// The floor, nil when unknown (a fix without a level never matches a level fence).
    public var level: Int?

    public init(timestamp: Timestamp, latitude: Double, longitude: Double, accuracy: Double? = nil, level: Int? = nil) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.level = level
    }

    /// The position.
    @inlinable
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A fix together with the geometry it needs: every fence whose edge is within the
/// tracker's buffer of the fix, with the distance to its edge (0 inside).
///
/// This is the seam between *geometry* (any thread that owns a ``ContainmentEvaluator``,
/// in parallel) and *state* (one ``DeviceTracker`` per device, in time order). Build it with
/// ``TrackerContext/observe(_:using:)``. Fences farther away may be listed too; the tracker
/// ignores what lies beyond its thresholds.
public struct FixObservation: Sendable {
    /// The fix observed.
    public var fix: Fix
    /// Ascending by slot, each slot once.
    package private(set) var nearby: [FenceDistance]
    /// The set whose slots `nearby` names (nil: the batch path, which never mixes sets).
    package let fenceSet: FenceSet?

    /// Makes an observation; `nearby` is sorted by slot (and de-duplicated, keeping the
    /// smaller distance) when it is not already.
    ///
    /// - Complexity: O(n) when sorted, O(n log n) otherwise.
    package init(fix: Fix, nearby: [FenceDistance], fenceSet: FenceSet? = nil) {
        self.fix = fix
        self.nearby = nearby
        self.fenceSet = fenceSet
        var sorted = true
        if nearby.count > 1 {
            for k in 1..<nearby.count where nearby[k - 1].slot >= nearby[k].slot {
                sorted = false
                break
            }
        }
        if !sorted {
            var fixed = nearby.sorted { ($0.slot, $0.distance) < ($1.slot, $1.distance) }
            var out: [FenceDistance] = []
            out.reserveCapacity(fixed.count)
            for entry in fixed where out.last?.slot != entry.slot { out.append(entry) }
            fixed = out
            self.nearby = fixed
        }
    }
}
