import GeofenceGEOS
import GeofenceGeometry

/// Chooses which fences to register with the OS's region monitoring (semantics §7).
///
/// The OS watches a few circles (iOS 20, Android 100, less the host app's own); the engine
/// may hold thousands of fences. A plan, for one fix, registers:
/// 1. every fence that holds the device (always kept: leaving it must be noticed);
/// 2. then the nearest other fences by edge distance (ties by id), up to budget − reserved − 1;
/// 3. one **refresh region**: a circle at the fix whose radius is the edge distance to the
///    nearest fence *not* monitored, less a ``refreshMargin`` of 1 m. While the device stays
///    inside it, it cannot touch an unmonitored fence; when the OS reports the exit, the app
///    plans again from there.
///
/// Polygons are registered as their minimum enclosing circle (the OS reports the entry into
/// that circle; the app then tests the polygon itself).
///
/// **Level.** Only the fences the ``NearestFilter`` allows take part, and its `level` is the
/// fix's: a fix on a floor sees the global fences and that floor's fences; a fix without a
/// level sees only global fences (the containment rule, semantics §2). A plan is valid for
/// one level: plan again when the device changes floor.
///
/// **Accuracy** (metres, 0 = exact). A fence whose edge lies within `accuracy` of the fix may
/// hold the device, so it counts as *inside* for rule 1. Since monitoring is ranked by edge
/// distance anyway, such fences come first in any case; accuracy changes the plan only when
/// more fences are "inside" than there are slots: the budget is never exceeded, the nearest
/// of them are kept, the others are listed in ``RegistrationPlan/unmonitoredInside`` and the
/// refresh radius drops to (about) 0, so the app hears from the OS at the next movement.
/// Accuracy does not shrink the refresh region: the region is centred on the reported fix and
/// never overlaps an unmonitored fence, wherever in the accuracy circle the device really is.
///
/// **Minimum refresh radius** (default 0). Some apps clamp the refresh region to a floor
/// (OSes handle regions under ~100–200 m poorly, and a tiny region means frequent wake-ups).
/// The risk: a fence *nearer* than the clamp and not monitored can then be entered while the
/// device is still inside the refresh region, and that entrance is missed until the next plan.
/// With the default 0 no entrance is missed this way.
///
/// Plans are pure values: the same fence set, fix, budget and registered set give the same
/// plan, and the change is a diff — never remove-everything-then-add.
public struct RegistrationPlanner: Sendable {
    public let budget: RegistrationBudget
    /// Slots the host app keeps for its own regions.
    public let reservedSlots: Int
    /// Metres; the refresh radius is never smaller (see the type's documentation for the risk).
    public let minimumRefreshRadius: Double

    /// Metres subtracted from the distance to the nearest unmonitored fence to get the refresh
    /// radius: polygon edge distances are computed within centimetres (never below the true
    /// value by construction, but possibly above it), so 1 m keeps the region clear of it.
    public static let refreshMargin: Double = 1

    /// - Throws: ``RegistrationPlanError`` when the budget leaves no slot for the refresh
    ///   region, `reservedSlots` < 0, or the minimum radius is negative or not finite.
    public init(budget: RegistrationBudget, reservedSlots: Int = 0, minimumRefreshRadius: Double = 0) throws(RegistrationPlanError) {
        guard reservedSlots >= 0 else { throw .negativeReserved(reservedSlots) }
        guard reservedSlots < budget.regionLimit else {
            throw .budgetTooSmall(budget: budget.regionLimit, reserved: reservedSlots)
        }
        guard minimumRefreshRadius.isFinite, minimumRefreshRadius >= 0 else {
            throw .invalidMinimumRefreshRadius(minimumRefreshRadius)
        }
        self.budget = budget
        self.reservedSlots = reservedSlots
        self.minimumRefreshRadius = minimumRefreshRadius
    }

    /// Fences a plan can monitor: the budget less the reserved slots and the refresh region.
    public var fenceSlots: Int { budget.regionLimit - reservedSlots - 1 }

    /// The plan for a fix, given the ids registered now.
    ///
    /// - Throws: ``RegistrationPlanError/unknownRegisteredID(_:)`` for an id not in the set,
    ///   and the errors of ``plan(latitude:longitude:accuracy:filter:registeredSlots:evaluator:)``.
    /// - Complexity: that of the slot form plus O(r) dictionary lookups for r registered ids.
    public func plan(
        latitude: Double, longitude: Double, accuracy: Double = 0, filter: NearestFilter = NearestFilter(),
        registered: [String], evaluator: ContainmentEvaluator
    ) throws(RegistrationPlanError) -> RegistrationPlan {
        var slots: [Int32] = []
        slots.reserveCapacity(registered.count)
        for id in registered {
            guard let slot = evaluator.fenceSet.slot(of: id) else { throw .unknownRegisteredID(id) }
            slots.append(Int32(slot))
        }
        return try plan(
            latitude: latitude, longitude: longitude, accuracy: accuracy, filter: filter,
            registeredSlots: slots, evaluator: evaluator)
    }

    /// The plan for a fix, given the slots registered now (any order; repeats ignored).
    ///
    /// - Throws: ``RegistrationPlanError`` for a bad coordinate or accuracy, or a GEOS failure.
    /// - Complexity: one containment (or within-accuracy) query and one nearest search for
    ///   about `fenceSlots` + 1 fences (O(log n + b) expected, b = budget), plus O(r log r)
    ///   for the diff against r registered slots.
    public func plan(
        latitude: Double, longitude: Double, accuracy: Double = 0, filter: NearestFilter = NearestFilter(),
        registeredSlots: [Int32], evaluator: ContainmentEvaluator
    ) throws(RegistrationPlanError) -> RegistrationPlan {
        let fix = Coordinate(latitude: latitude, longitude: longitude)
        if let reason = fix.invalidReason { throw .invalidCoordinate(reason) }
        guard accuracy.isFinite, accuracy >= 0 else { throw .invalidAccuracy(accuracy) }
        let set = evaluator.fenceSet
        for slot in registeredSlots where slot < 0 || Int(slot) >= set.count {
            throw .unknownRegisteredID("slot \(slot)")
        }
        // No plan can monitor more fences than the set holds (and a huge custom budget must
        // not overflow the counts below).
        let capacity = Swift.min(fenceSlots, set.count)
        do {
            // Rule 1: the fences that (may) hold the device, nearest first.
            var inside: [FenceDistance]
            if accuracy > 0 {
                inside = try evaluator.fencesWithin(
                    latitude: latitude, longitude: longitude, level: filter.level, options: filter.options,
                    maximumBuffer: accuracy, buffer: { _ in accuracy })
            } else {
                inside = try evaluator.containing(
                    latitude: latitude, longitude: longitude, level: filter.level, options: filter.options
                ).map { FenceDistance(slot: Int32($0), distance: 0) }
            }
            inside = inside.filter { set.accepts(slot: Int($0.slot), filter: filter) }
            inside.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
            let keptInside = inside.prefix(capacity)
            let overflow = inside.dropFirst(capacity)
            let insideSlots = Set(inside.map(\.slot))

            // Rule 2: the nearest others, plus one more: the nearest fence left out.
            let wanted = capacity - keptInside.count + 1
            let ranked = try evaluator.nearest(
                latitude: latitude, longitude: longitude, count: inside.count + wanted, filter: filter)
            let others = Array(ranked.lazy.filter { !insideSlots.contains($0.slot) }.prefix(wanted))
            let monitoredOthers = others.prefix(wanted - 1)

            var monitor: [MonitoredFence] = []
            monitor.reserveCapacity(capacity)
            for f in keptInside { monitor.append(Self.monitored(f, inside: true, set: set)) }
            for f in monitoredOthers { monitor.append(Self.monitored(f, inside: false, set: set)) }

            // Rule 3: the refresh region stops short of the nearest unmonitored fence.
            var nearestLeftOut: Double? = overflow.first?.distance
            if others.count == wanted, let last = others.last {
                nearestLeftOut = Swift.min(nearestLeftOut ?? .infinity, last.distance)
            }
            let refresh = nearestLeftOut.map {
                RefreshRegion(
                    center: fix,
                    radius: Swift.max(minimumRefreshRadius, Swift.max(0, $0 - Self.refreshMargin)))
            }

            let (add, remove) = Self.diff(
                from: registeredSlots, to: monitor.map(\.slot), set: set)
            return RegistrationPlan(
                monitor: monitor, refreshRegion: refresh, add: add, remove: remove,
                unmonitoredInside: overflow.map(\.slot).sorted().map { set.id(at: Int($0)) },
                nearestUnmonitoredDistance: nearestLeftOut)
        } catch {
            throw .geometry(error)
        }
    }

    /// The OS circle for a fence.
    static func monitored(_ f: FenceDistance, inside: Bool, set: FenceSet) -> MonitoredFence {
        let circle = set.enclosingCircle(at: Int(f.slot))
        return MonitoredFence(
            slot: f.slot, geofenceId: set.id(at: Int(f.slot)), center: circle.center, radius: circle.radius,
            distance: f.distance, isInside: inside)
    }

    /// Ids to add (in `new`, not in `old`) and to remove (in `old`, not in `new`), each
    /// ascending; slot order is id order.
    /// - Complexity: O((a + b) log(a + b)).
    static func diff(from old: [Int32], to new: [Int32], set: FenceSet) -> (add: [String], remove: [String]) {
        let before = Set(old), after = Set(new)
        let add = after.subtracting(before).sorted().map { set.id(at: Int($0)) }
        let remove = before.subtracting(after).sorted().map { set.id(at: Int($0)) }
        return (add, remove)
    }
}
