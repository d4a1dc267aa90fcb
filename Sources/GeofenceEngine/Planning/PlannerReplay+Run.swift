import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

extension PlannerReplay {
    /// Most re-plans along one path between two fixes before the replay gives up on it (a
    /// guard against a planner bug; never reached with a sound planner).
    static let maximumReplansPerStep = 100_000

    /// Replays every track under `model` and reports entrances, misses and plan churn.
    ///
    /// Each device starts with an initial plan at its first fix (registered set empty). Then,
    /// fix by fix: `.fixesOnly` checks the fix's entrances against the plan in force and
    /// re-plans if the fix lies outside the refresh region; `.continuous` first walks the
    /// straight path from the previous fix, re-planning at every exit from the refresh region
    /// (each plan's registered set is the previous plan's monitored set), then checks each
    /// entrance against the plan in force where the path crossed into the fence.
    /// - Complexity: one plan per re-plan (see ``RegistrationPlanner``), plus for the
    ///   continuous model O(path length / 100 m) distance evaluations and a bisection per
    ///   entrance.
    package static func run(
        tracks: [ReplayTrack], model: ReplayModel, planner: RegistrationPlanner,
        evaluator: ContainmentEvaluator, filter: NearestFilter = NearestFilter()
    ) throws -> ReplayReport {
        var report = ReplayReport(model: model, budget: planner.budget.regionLimit, fenceSlots: planner.fenceSlots)
        for track in tracks where !track.positions.isEmpty {
            report.devices += 1
            try replay(track, model: model, planner: planner, evaluator: evaluator, filter: filter, into: &report)
        }
        return report
    }

    /// One device.
    static func replay(
        _ track: ReplayTrack, model: ReplayModel, planner: RegistrationPlanner,
        evaluator: ContainmentEvaluator, filter: NearestFilter, into report: inout ReplayReport
    ) throws {
        func makePlan(at p: Coordinate, registered: [Int]) throws -> RegistrationPlan {
            let plan = try planner.plan(
                latitude: p.latitude, longitude: p.longitude, filter: filter,
                registeredSlots: registered, evaluator: evaluator)
            report.maxMonitored = Swift.max(report.maxMonitored, plan.monitor.count)
            if plan.refreshRegion?.radius == 0 { report.zeroRadiusPlans += 1 }
            return plan
        }
        func replan(at p: Coordinate, from registered: [Int]) throws -> RegistrationPlan {
            let next = try makePlan(at: p, registered: registered)
            report.replans += 1
            report.adds += next.add.count
            report.removes += next.remove.count
            return next
        }
        func miss(_ i: Int, _ slot: Int32) {
            report.missedEntrances += 1
            if report.misses.count < keptMisses {
                report.misses.append(ReplayMiss(
                    deviceID: track.deviceID, timestamp: track.timestamps[i],
                    geofenceID: evaluator.fenceSet.geofenceID(at: Int(slot)), position: track.positions[i]))
            }
        }

        var current = try makePlan(at: track.positions[0], registered: [])
        var currentSlots = current.monitoredSlots  // ascending; sorted once per plan
        report.initialPlans += 1
        report.initialAdds += current.add.count
        report.initialEntrances += track.inside[0].count
        report.fixes += 1
        for i in 1..<track.positions.count {
            report.fixes += 1
            let fix = track.positions[i]
            let entered = track.inside[i].filter { !sortedContains(track.inside[i - 1], $0) }
            switch model {
            case .fixesOnly:
                for slot in entered {
                    report.entrances += 1
                    if !sortedContains(currentSlots, Int(slot)) { miss(i, slot) }
                }
                if let region = current.refreshRegion, Sphere.distance(fix, region.center) > region.radius {
                    current = try replan(at: fix, from: currentSlots)
                    currentSlots = current.monitoredSlots
                }
            case .continuous:
                let path = ReplayPath(from: track.positions[i - 1], to: fix)
                // Plans in force along the path: (start parameter, monitored slots).
                var spans: [(t: Double, monitored: [Int])] = [(0, currentSlots)]
                var t = 0.0
                while let region = current.refreshRegion,
                    let exit = path.firstExit(from: t, center: region.center, radius: region.radius)
                {
                    if exit.forced { report.forcedSteps += 1 }
                    t = exit.t
                    current = try replan(at: path.point(t), from: currentSlots)
                    currentSlots = current.monitoredSlots
                    spans.append((t, currentSlots))
                    if spans.count > maximumReplansPerStep || t >= 1 { break }
                }
                for slot in entered {
                    report.entrances += 1
                    let tCross = try path.crossing(into: Int(slot), evaluator: evaluator)
                    let inForce = spans.last(where: { $0.t <= tCross }) ?? spans[0]
                    if !sortedContains(inForce.monitored, Int(slot)) { miss(i, slot) }
                    if !sortedContains(currentSlots, Int(slot)) { report.missedAtArrival += 1 }
                }
            }
        }
    }

    /// Binary search in an ascending array.
    @inline(__always)
    static func sortedContains<T: BinaryInteger>(_ a: [T], _ x: T) -> Bool {
        var lo = 0, hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo < a.count && a[lo] == x
    }
}
