import GeofenceGEOS
import GeofenceGeometry

extension RegistrationPlanner {
    /// The plan for a fix, given the ids the OS monitors now.
    ///
    /// Registered ids the fence set does not have (a fence update removed them) are listed
    /// in ``RegistrationPlan/remove``, so one call syncs the OS regions after an update.
    /// Repeated ids count once.
    ///
    /// - Throws: ``TrackerRejection`` for a fix it refuses, as ``GeofenceMonitor`` and
    ///   ``DeviceTracker`` do: ``TrackerRejection/coordinate(_:)`` for a latitude or longitude
    ///   out of range or not finite, ``TrackerRejection/accuracy(_:maximum:)`` for an accuracy
    ///   below 0 or NaN (no maximum accuracy here); or a `GEOSError` when GEOS fails on a polygon.
    /// - Complexity: that of the slot form plus O(r) dictionary lookups and O(r log r) sorting
    ///   for r registered ids.
    public func plan(
        latitude: Double, longitude: Double, accuracy: Double = 0, filter: NearestFilter = NearestFilter(),
        registered: [String], evaluator: ContainmentEvaluator
    ) throws -> RegistrationPlan {
        let set = evaluator.fenceSet
        var slots: [Int] = []
        var unknown: [String] = []
        slots.reserveCapacity(registered.count)
        for id in registered {
            if let slot = set.slot(of: id) { slots.append(slot) } else { unknown.append(id) }
        }
        var plan = try plan(
            latitude: latitude, longitude: longitude, accuracy: accuracy, filter: filter,
            registeredSlots: slots, evaluator: evaluator)
        if !unknown.isEmpty {
            // Ids of the set and unknown ids never collide, so a merge keeps `remove` unique.
            plan.remove = Array(Set(plan.remove).union(unknown)).sorted(by: fenceIDPrecedes)
        }
        return plan
    }

    /// The plan for a fix, given the slots (in this fence set) registered now, in any order;
    /// repeats are ignored.
    ///
    /// - Throws: ``TrackerRejection`` for a bad coordinate or accuracy (as the id form),
    ///   ``RegistrationPlanner/PlanError/unknownRegisteredSlot(_:)`` for a slot outside the set, or a
    ///   `GEOSError`.
    /// - Complexity: one containment (or within-accuracy) query and one nearest search for
    ///   about `fenceSlots` + 1 fences (O(log n + b) expected, b = budget), an edge distance
    ///   for each registered fence the search did not reach, and O((r + b) log(r + b)) for
    ///   the hysteresis and the diff against r registered slots.
    public func plan(
        latitude: Double, longitude: Double, accuracy: Double = 0, filter: NearestFilter = NearestFilter(),
        registeredSlots: [Int], evaluator: ContainmentEvaluator
    ) throws -> RegistrationPlan {
        let fix = Coordinate(latitude: latitude, longitude: longitude)
        if let error = CoordinateError(fix) { throw TrackerRejection.coordinate(error) }
        guard accuracy >= 0 else { throw TrackerRejection.accuracy(accuracy, maximum: .infinity) }
        let set = evaluator.fenceSet
        for slot in registeredSlots where slot < 0 || slot >= set.count {
            throw RegistrationPlanner.PlanError.unknownRegisteredSlot(slot)
        }
        let registered = Set(registeredSlots.map { Int32($0) })
        let selection = try select(
            at: fix, accuracy: accuracy, filter: filter, registered: registered, evaluator: evaluator)
        let refresh = selection.nearestLeftOut.map {
            RegistrationPlan.RefreshRegion(
                center: fix, radius: Swift.max(minimumRefreshRadius, Swift.max(0, $0 - Self.refreshMargin)))
        }
        let monitor = selection.monitor.map { Self.monitored($0, set: set) }
        let monitored = Set(selection.monitor.map(\.slot))
        return RegistrationPlan(
            monitor: monitor, refreshRegion: refresh,
            add: Self.ids(monitored.subtracting(registered), in: set),
            remove: Self.ids(registered.subtracting(monitored), in: set),
            unmonitoredInside: Self.ids(selection.overflow, in: set),
            nearestUnmonitoredDistance: selection.nearestLeftOut)
    }

    /// A fence chosen for monitoring, before it becomes a ``RegistrationPlan/MonitoredFence``.
    struct Chosen {
        var slot: Int32
        var distance: Double
        var isInside: Bool
    }

    /// Rules 1–3 of the type's documentation: the fences to monitor (inside first, then the
    /// others, each group by distance then slot), the fences holding the device that found no
    /// slot, and the distance to the nearest fence left out (nil: none is).
    func select(
        at fix: Coordinate, accuracy: Double, filter: NearestFilter, registered: Set<Int32>,
        evaluator: ContainmentEvaluator
    ) throws -> (monitor: [Chosen], overflow: [Int32], nearestLeftOut: Double?) {
        let set = evaluator.fenceSet
        let byDistance = { (a: FenceDistance, b: FenceDistance) in (a.distance, a.slot) < (b.distance, b.slot) }
        // No plan can monitor more fences than the set holds (and a huge custom budget must
        // not overflow the counts below).
        let capacity = Swift.min(fenceSlots, set.count)

        // Rule 1: the fences that (may) hold the device, nearest first.
        var inside: [FenceDistance]
        if accuracy > 0 {
            inside = try evaluator.fencesWithin(
                latitude: fix.latitude, longitude: fix.longitude, level: filter.level, options: filter.options,
                maximumBuffer: accuracy, buffer: { _ in accuracy })
        } else {
            inside = try evaluator.containing(
                latitude: fix.latitude, longitude: fix.longitude, level: filter.level, options: filter.options
            ).map { FenceDistance(slot: Int32($0), distance: 0) }
        }
        inside = inside.filter { set.accepts(slot: Int($0.slot), filter: filter) }
        inside.sort(by: byDistance)
        var monitor = inside.prefix(capacity).map { Chosen(slot: $0.slot, distance: $0.distance, isInside: true) }
        let overflow = inside.dropFirst(capacity)
        let insideSlots = Set(inside.map(\.slot))

        // Rule 2. `ranked`: the nearest others, one more than the free slots; its last is the
        // nearest fence a plan without hysteresis leaves out.
        let free = capacity - monitor.count
        let ranked = Array(try evaluator.nearestSlots(
            latitude: fix.latitude, longitude: fix.longitude, count: inside.count + free + 1, filter: filter
        ).lazy.filter { !insideSlots.contains($0.slot) }.prefix(free + 1))
        var others: [FenceDistance]
        if ranked.count <= free {
            others = ranked  // every fence the filter allows fits
        } else {
            others = try withHysteresis(
                ranked: ranked, free: free, fix: fix, filter: filter, registered: registered,
                inside: insideSlots, evaluator: evaluator)
        }
        others.sort(by: byDistance)
        monitor += others.map { Chosen(slot: $0.slot, distance: $0.distance, isInside: false) }

        // Rule 3: the nearest fence left out. Only `free` of the `free + 1` ranked fences fit,
        // and every fence outside `ranked` is at least as far as its last, so the nearest
        // left out is an overflowing inside fence or a ranked one.
        let chosen = Set(others.map(\.slot))
        var nearestLeftOut = overflow.first?.distance
        if let d = ranked.first(where: { !chosen.contains($0.slot) })?.distance {
            nearestLeftOut = Swift.min(nearestLeftOut ?? .infinity, d)
        }
        return (monitor, overflow.map(\.slot).sorted(), nearestLeftOut)
    }

    /// The `free` fences to monitor besides the inside ones, given `ranked`, the `free` + 1
    /// nearest others (see the type's documentation for the rule).
    /// - Complexity: O(r) distances for r registered fences, O((r + b) log(r + b)) sorting.
    func withHysteresis(
        ranked: [FenceDistance], free: Int, fix: Coordinate, filter: NearestFilter, registered: Set<Int32>,
        inside: Set<Int32>, evaluator: ContainmentEvaluator
    ) throws -> [FenceDistance] {
        let set = evaluator.fenceSet
        let strictLeftOut = ranked[free].distance
        let keep = 1 - hysteresisFraction
        let lower = strictLeftOut * keep
        let upper = strictLeftOut / keep
        // Every fence nearer than `lower` (all among the first `free` of `ranked`).
        var chosen = ranked.prefix { $0.distance < lower }
        var taken = Set(chosen.map(\.slot))
        // Registered fences within `upper`, nearest first.
        let rankedDistance = Dictionary(uniqueKeysWithValues: ranked.map { ($0.slot, $0.distance) })
        var kept: [FenceDistance] = []
        for slot in registered where !inside.contains(slot) && !taken.contains(slot)
            && set.accepts(slot: Int(slot), filter: filter)
        {
            let d: Double
            if let known = rankedDistance[slot] {
                d = known
            } else {
                // A polygon is no nearer than its boxes (the nearest search's lower bound):
                // one beyond `upper` costs no edge distance.
                if !set.isCircle(at: Int(slot)),
                    !set.boundingBoxes(at: Int(slot)).contains(where: { $0.distance(to: fix) <= upper })
                {
                    continue
                }
                d = try evaluator.distance(slot: Int(slot), latitude: fix.latitude, longitude: fix.longitude)
            }
            if d <= upper { kept.append(FenceDistance(slot: slot, distance: d)) }
        }
        kept.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
        for f in kept.prefix(free - chosen.count) {
            chosen.append(f)
            taken.insert(f.slot)
        }
        // The nearest of the others.
        for f in ranked.prefix(free) where chosen.count < free && !taken.contains(f.slot) {
            chosen.append(f)
        }
        return Array(chosen)
    }

    /// The OS circle for a chosen fence.
    static func monitored(_ f: Chosen, set: FenceSet) -> RegistrationPlan.MonitoredFence {
        // Every fence of a set has its circle (validation fills in polygons' enclosing circles).
        let circle = set.enclosingCircle(at: Int(f.slot))
        return RegistrationPlan.MonitoredFence(
            slot: Int(f.slot), geofenceID: set.geofenceID(at: Int(f.slot)), center: circle.center, radius: circle.radius,
            distance: f.distance, isInside: f.isInside)
    }

    /// The ids of `slots`, ascending (slot order is id order).
    static func ids<S: Sequence<Int32>>(_ slots: S, in set: FenceSet) -> [String] {
        slots.sorted().map { set.geofenceID(at: Int($0)) }
    }
}
