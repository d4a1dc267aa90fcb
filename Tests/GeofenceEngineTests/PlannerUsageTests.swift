import GeofenceEngine
import Testing
@_spi(Engine) import GeofenceGeometry

/// The README's planner example, run against a simulated OS: the documented way to use the
/// planner (re-plan when the device leaves the refresh region) catches every entrance, and a
/// fence update syncs in one call. Only the public API, as an app would.
@Suite("README planner example")
struct PlannerUsageTests {
    /// What the OS monitors: fence circles by id, and the refresh region.
    struct SimulatedOS {
        var regions: [String: RegistrationPlan.MonitoredFence] = [:]
        var refresh: RegistrationPlan.RefreshRegion?
        var changes = 0

        mutating func apply(_ plan: RegistrationPlan) {
            for id in plan.remove {
                #expect(regions.removeValue(forKey: id) != nil, "removed \(id), which was not registered")
            }
            for fence in plan.monitor where plan.add.contains(fence.geofenceID) {
                #expect(regions.updateValue(fence, forKey: fence.geofenceID) == nil, "added \(fence.geofenceID) twice")
            }
            refresh = plan.refreshRegion
            changes += plan.add.count + plan.remove.count
            #expect(Set(regions.keys) == Set(plan.monitor.map(\.geofenceID)))
        }
    }

    @Test("re-planning on each exit from the refresh region misses no stop; a fence update syncs in one call")
    func walkThrough() throws {
        let start = Coordinate(latitude: 51.5, longitude: -0.2)
        func east(_ m: Double) -> Coordinate { Sphere.destination(from: start, distance: m, bearing: .pi / 2) }
        // 40 stops of 30 m, every 150 m along a street, alternately 60 m north and south of it.
        var fences = (0..<40).map { i in
            Fence(geofenceID: "stop-\(i)", shape: .circle(
                center: Sphere.destination(from: east(150 * Double(i)), distance: 60, bearing: i % 2 == 0 ? 0 : .pi), radius: 30))
        }
        var evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))

        // The README's example.
        let planner = try RegistrationPlanner(budget: .ios, reservedSlots: 12, hysteresisFraction: 0.5)  // 7 fences
        var registered: [String] = []                  // the fence ids the OS monitors now
        func replan(latitude: Double, longitude: Double, accuracy: Double) throws -> RegistrationPlan {
            let plan = try planner.plan(latitude: latitude, longitude: longitude, accuracy: accuracy,
                                        registered: registered, evaluator: evaluator)
            // OS: stop monitoring plan.remove; start monitoring plan.add (circles in plan.monitor);
            // replace the refresh region with plan.refreshRegion (nil: every fence is monitored).
            registered = plan.monitor.map(\.geofenceID)
            return plan
        }

        var os = SimulatedOS()
        os.apply(try replan(latitude: start.latitude, longitude: start.longitude, accuracy: 0))
        // The device walks the street (60 m from the stops' centres, so outside them) and
        // swerves into every fifth stop, in steps under the planner's 1 m margin: an entrance is
        // checked against what the OS monitors on arrival, before any re-plan there.
        var inside: Set<String> = []
        var entrances = 0, replans = 0
        for step in 0...12_000 {
            let along = 0.5 * Double(step)
            let i = Int((along / 150).rounded())
            let swerve = i % 5 == 0 ? 55 * max(0, 1 - abs(along - 150 * Double(i)) / 40) : 0
            let p = Sphere.destination(from: east(along), distance: swerve, bearing: i % 2 == 0 ? 0 : .pi)
            let now = Set(try evaluator.containingIDs(latitude: p.latitude, longitude: p.longitude, level: nil))
            for id in now.subtracting(inside) {
                entrances += 1
                #expect(os.regions[id] != nil, "step \(step): entered \(id), which the OS does not monitor")
            }
            inside = now
            if let region = os.refresh, Sphere.distance(p, region.center) > region.radius {
                os.apply(try replan(latitude: p.latitude, longitude: p.longitude, accuracy: 0))
                replans += 1
            }
        }
        #expect(entrances == 8 && replans > 10, "\(entrances) entrances, \(replans) re-plans")

        // A fence update: the stops near the end move to new ids; one call syncs the OS.
        let end = east(6_000)
        fences = fences.map { $0.geofenceID.hasSuffix("9") ? Fence(geofenceID: $0.geofenceID + "-b", shape: $0.shape) : $0 }
        evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let before = Set(registered)
        let sync = try replan(latitude: end.latitude, longitude: end.longitude, accuracy: 0)
        #expect(sync.remove.contains { $0.hasSuffix("9") } && sync.add.contains { $0.hasSuffix("9-b") })
        #expect(before.contains("stop-39"))
        os.apply(sync)  // checks each removed id was registered, and the result is the plan
    }
}
