import GeofenceTestSupport
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The planner across successive plans: syncing after a fence update, and hysteresis.
@Suite("Registration planner over time")
struct PlannerHysteresisTests {
    /// Stops of 40 m every 200 m eastwards from `start`, ids s00, s01, ...
    static let start = Coordinate(latitude: 51.5, longitude: -0.2)
    static func stops(_ count: Int) -> [Fence] {
        (0..<count).map { i in
            Fence(geofenceID: "s" + (i < 10 ? "0" : "") + "\(i)",
                  shape: .circle(center: east(200 * Double(i)), radius: 40))
        }
    }
    static func east(_ metres: Double) -> Coordinate { Sphere.destination(from: start, distance: metres, bearing: .pi / 2) }

    @Test("after a fence update, registered ids the set no longer has are removed in the same plan")
    func fenceUpdate() throws {
        let old = try ContainmentEvaluator(fenceSet: try FenceSet(Self.stops(6)))
        let planner = try RegistrationPlanner(budget: .custom(4))
        let first = try planner.plan(latitude: Self.start.latitude, longitude: Self.start.longitude, registered: [], evaluator: old)
        #expect(first.monitor.map(\.geofenceID) == ["s00", "s01", "s02"])
        // The update drops s01 and s02 and adds "new" next to s00.
        var updated = Self.stops(6).filter { !["s01", "s02"].contains($0.geofenceID) }
        updated.append(Fence(geofenceID: "new", shape: .circle(center: Self.east(100), radius: 30)))
        let new = try ContainmentEvaluator(fenceSet: try FenceSet(updated))
        let registered = first.monitor.map(\.geofenceID) + ["s02", "gone"]  // repeats and an older stale id
        let sync = try planner.plan(latitude: Self.start.latitude, longitude: Self.start.longitude, registered: registered, evaluator: new)
        #expect(sync.monitor.map(\.geofenceID) == ["s00", "new", "s03"])
        #expect(sync.add == ["new", "s03"])
        #expect(sync.remove == ["gone", "s01", "s02"])
        // Applying the diff gives exactly the monitored set.
        let after = Set(registered).subtracting(sync.remove).union(sync.add)
        #expect(after == Set(sync.monitor.map(\.geofenceID)))
        // The slot form names slots of this set only: a slot outside it is a caller's bug.
        #expect(throws: RegistrationPlanner.PlanError.unknownRegisteredSlot(9)) {
            try planner.plan(latitude: Self.start.latitude, longitude: Self.start.longitude, registeredSlots: [9], evaluator: new)
        }
    }

    @Test("a registered fence within the margin stays; without hysteresis it is swapped")
    func keepsRegistered() throws {
        let e = try ContainmentEvaluator(fenceSet: try FenceSet(Self.stops(30)))
        let budget = RegistrationPlanner.Budget.custom(4)  // 3 fences
        let atStart = try RegistrationPlanner(budget: budget).plan(
            latitude: Self.start.latitude, longitude: Self.start.longitude, registered: [], evaluator: e)
        #expect(atStart.monitor.map(\.geofenceID) == ["s00", "s01", "s02"])
        // 310 m east: s02 at 50 m, s01 at 70 m, s03 at 250 m, s00 at 270 m.
        let p = Self.east(310)
        let registered = atStart.monitor.map(\.geofenceID)
        let strict = try RegistrationPlanner(budget: budget, hysteresisFraction: 0).plan(
            latitude: p.latitude, longitude: p.longitude, registered: registered, evaluator: e)
        #expect(strict.monitor.map(\.geofenceID) == ["s02", "s01", "s03"])
        #expect(strict.add == ["s03"] && strict.remove == ["s00"])
        #expect(abs(try #require(strict.refreshRegion).radius - 269) < 0.01)
        // Default hysteresis: everything nearer than 135 m is monitored; s00 (270 m) is within
        // 540 m and registered, so it keeps the third slot; the region stops short of s03.
        let kept = try RegistrationPlanner(budget: budget, hysteresisFraction: RegistrationPlanner.recommendedHysteresisFraction).plan(
            latitude: p.latitude, longitude: p.longitude, registered: registered, evaluator: e)
        #expect(kept.monitor.map(\.geofenceID) == ["s02", "s01", "s00"])
        #expect(kept.add.isEmpty && kept.remove.isEmpty)
        #expect(abs(try #require(kept.refreshRegion).radius - 249) < 0.01)
        #expect(kept.nearestUnmonitoredDistance.map { abs($0 - 250) < 0.01 } == true)
        // The lower edge: with f = 0.1 everything nearer than 243 m is monitored, s00 (270 m,
        // within 300 m) stays; with f = 0.05, s03 (250 m) is nearer than 256.5 m and takes its slot.
        func plan(_ f: Double, registered: [String]) throws -> RegistrationPlan {
            try RegistrationPlanner(budget: budget, hysteresisFraction: f).plan(
                latitude: p.latitude, longitude: p.longitude, registered: registered, evaluator: e)
        }
        #expect(try plan(0.1, registered: registered).remove.isEmpty)
        #expect(try plan(0.05, registered: registered).remove == ["s00"])
        // The upper edge: s05 (650 m) stays within 270 / (1 − 0.6) = 675 m, not within 540 m.
        #expect(try plan(0.6, registered: ["s01", "s02", "s05"]).monitor.map(\.geofenceID) == ["s02", "s01", "s05"])
        let dropped = try plan(0.5, registered: ["s01", "s02", "s05"])
        #expect(dropped.add == ["s03"] && dropped.remove == ["s05"])
    }

    /// A random walk through a random city of stops, replayed in the continuous model.
    static func walk(seed: UInt64) throws -> (ContainmentEvaluator, ReplayTrack) {
        var rng = SeededGenerator(seed: seed)
        var world = RandomWorld.city
        world.spread = 5_000
        world.minimumSize = 30
        world.maximumSize = 250
        world.polygonShare = 0.2
        world.levelShare = 0
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(world.fences(count: 800, &rng)))
        var p = world.center
        var heading = rng.double(0...(2 * .pi))
        var positions: [Coordinate] = []
        var inside: [[Int32]] = []
        for _ in 0..<400 {
            positions.append(p)
            inside.append(try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: nil).map(Int32.init))
            // Turn a little; turn round when the next step would leave the world.
            heading += rng.double(-0.6...0.6)
            let step = rng.double(50...400)
            if Sphere.distance(Sphere.destination(from: p, distance: step, bearing: heading), world.center) > world.spread {
                heading += .pi
            }
            p = Sphere.destination(from: p, distance: step, bearing: heading)
        }
        let track = ReplayTrack(
            deviceID: "walk", timestamps: positions.indices.map { Int64($0) * 60_000 }, positions: positions, inside: inside)
        return (evaluator, track)
    }

    @Test("seeded walk: hysteresis at least halves the changes per re-plan, and misses nothing",
          arguments: testSeeds(3, base: 907))
    func churnOnWalk(seed: UInt64) throws {
        let (evaluator, track) = try Self.walk(seed: seed)
        for budget in [20, 100] {
            let strict = try PlannerReplay.run(
                tracks: [track], model: .continuous,
                planner: try RegistrationPlanner(budget: .custom(budget), hysteresisFraction: 0), evaluator: evaluator)
            let smooth = try PlannerReplay.run(
                tracks: [track], model: .continuous, planner: try RegistrationPlanner(budget: .custom(budget), hysteresisFraction: RegistrationPlanner.recommendedHysteresisFraction), evaluator: evaluator)
            func perReplan(_ r: ReplayReport) -> Double { Double(r.adds + r.removes) / Double(max(1, r.replans)) }
            let context = "seed \(seed) budget \(budget): changes per re-plan \(perReplan(strict)) → \(perReplan(smooth)), "
                + "re-plans \(strict.replans) → \(smooth.replans), changes \(strict.adds + strict.removes) → \(smooth.adds + smooth.removes), "
                + "entrances \(smooth.entrances)"
            #expect(strict.entrances > 20 && smooth.entrances == strict.entrances, "\(context)")
            #expect(strict.missedEntrances == 0 && smooth.missedEntrances == 0 && smooth.missedAtArrival == 0, "\(context)")
            #expect(strict.replans > 10, "\(context)")
            #expect(perReplan(smooth) <= 0.5 * perReplan(strict), "\(context)")
            // Fewer changes in all, and at most 1 / (1 − f) times the re-plans, with slack
            // (the refresh radius shrinks by at most the fraction f = 0.5).
            #expect(smooth.adds + smooth.removes < strict.adds + strict.removes, "\(context)")
            #expect(Double(smooth.replans) <= 2.5 * Double(strict.replans), "\(context)")
        }
    }
}
