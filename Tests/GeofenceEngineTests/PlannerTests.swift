import Testing
@testable import GeofenceEngine

/// Registration planner invariants over random positions, budgets and registered sets.
@Suite("Registration planner")
struct PlannerTests {
    /// Checks every invariant of one plan against brute force over all fences.
    static func check(
        _ plan: RegistrationPlan, planner: RegistrationPlanner, at p: Coordinate, accuracy: Double,
        filter: NearestFilter, registered: [Int32], evaluator e: ContainmentEvaluator, context: String
    ) throws {
        let set = e.fenceSet
        let monitored = Set(plan.monitor.map(\.slot))
        #expect(monitored.count == plan.monitor.count, "\(context): a fence monitored twice")
        #expect(plan.monitor.count <= planner.fenceSlots, "\(context): budget exceeded")
        // Brute force: every eligible fence's distance.
        var eligible: [(slot: Int32, distance: Double, inside: Bool)] = []
        for slot in 0..<set.count where set.accepts(slot: slot, filter: filter) {
            let d = try e.distance(slot: slot, latitude: p.latitude, longitude: p.longitude)
            let covers = try e.covers(slot: slot, latitude: p.latitude, longitude: p.longitude)
            eligible.append((Int32(slot), d, covers || (accuracy > 0 && d <= accuracy)))
        }
        #expect(monitored.isSubset(of: Set(eligible.map(\.slot))), "\(context): an ineligible fence monitored")
        let inside = eligible.filter(\.inside)
        if inside.count <= planner.fenceSlots {
            for f in inside { #expect(monitored.contains(f.slot), "\(context): inside fence \(f.slot) not kept") }
            #expect(plan.unmonitoredInside.isEmpty, "\(context)")
        } else {
            #expect(plan.monitor.allSatisfy { $0.isInside }, "\(context): overflow, yet a non-inside fence monitored")
            #expect(plan.unmonitoredInside.count == inside.count - planner.fenceSlots, "\(context)")
        }
        let unmonitored = eligible.filter { !monitored.contains($0.slot) }
        let nearestLeftOut = unmonitored.map(\.distance).min()
        if let region = plan.refreshRegion {
            #expect(region.center == p, "\(context)")
            let leftOut = try #require(nearestLeftOut, "\(context): a refresh region with nothing left out")
            #expect(plan.nearestUnmonitoredDistance == leftOut, "\(context)")
            let expected = Swift.max(planner.minimumRefreshRadius, Swift.max(0, leftOut - RegistrationPlanner.refreshMargin))
            #expect(region.radius == expected, "\(context): radius \(region.radius), expected \(expected)")
            if planner.minimumRefreshRadius == 0 {
                // The guarantee: the region reaches no unmonitored fence.
                for f in unmonitored { #expect(region.radius <= f.distance, "\(context): region reaches unmonitored \(f.slot)") }
            }
        } else {
            #expect(unmonitored.isEmpty, "\(context): no refresh region but \(unmonitored.count) fence(s) left out")
        }
        // Nearest ranking: a monitored fence that is not inside is no farther than any unmonitored one.
        for f in plan.monitor where !f.isInside {
            #expect(nearestLeftOut.map { f.distance <= $0 } ?? true, "\(context): monitored \(f.slot) farther than one left out")
        }
        // The diff turns the registered set into the monitored set, touching nothing else.
        let old = Set(registered.map { set.fences[Int($0)].id })
        let add = Set(plan.add), remove = Set(plan.remove)
        #expect(add.isDisjoint(with: old) && remove.isSubset(of: old), "\(context)")
        #expect(old.subtracting(remove).union(add) == Set(plan.monitor.map(\.geofenceId)), "\(context): diff does not apply")
        #expect(plan.add == plan.add.sorted(by: fenceIdPrecedes) && plan.remove == plan.remove.sorted(by: fenceIdPrecedes), "\(context)")
        // Each monitored circle holds its fence.
        for f in plan.monitor {
            let circle = try #require(set.fences[Int(f.slot)].enclosingCircle)
            #expect(f.center == circle.center && f.radius == circle.radius, "\(context)")
        }
    }

    @Test("invariants over random positions, budgets and registered sets", arguments: [71, 72, 73] as [UInt64])
    func invariants(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed &* 43 &+ UInt64(name.utf8.count))
            var w = world
            w.minimumSize = 100
            w.maximumSize = 1_200
            let fences = w.fences(count: rng.int(0...120), &rng)
            let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
            var registered: [Int32] = []
            for (round, p) in w.queryPoints(count: 25, fences: fences, &rng).enumerated() {
                let budget: RegistrationBudget = [.ios, .android, .custom(rng.int(1...8))][rng.int(0...2)]
                let reserved = rng.int(0...(budget.regionLimit - 1))
                let minimum = rng.chance(0.2) ? rng.double(0...500) : 0
                let planner = try RegistrationPlanner(budget: budget, reservedSlots: reserved, minimumRefreshRadius: minimum)
                let accuracy = rng.chance(0.3) ? rng.double(0...400) : 0
                let filter = NearestTests.filter(&rng)
                if rng.chance(0.3) && !fences.isEmpty {
                    registered = (0..<rng.int(0...10)).map { _ in Int32(rng.int(0...(fences.count - 1))) }
                }
                let plan = try planner.plan(
                    latitude: p.latitude, longitude: p.longitude, accuracy: accuracy, filter: filter,
                    registeredSlots: registered, evaluator: evaluator)
                let context = "seed \(seed) world \(name) round \(round) at \(p) budget \(budget) reserved \(reserved) accuracy \(accuracy)"
                try Self.check(plan, planner: planner, at: p, accuracy: accuracy, filter: filter,
                               registered: registered, evaluator: evaluator, context: context)
                registered = plan.monitoredSlots
            }
        }
    }

    @Test("bad budgets, ids and fixes are errors")
    func errors() throws {
        #expect(throws: RegistrationPlanError.budgetTooSmall(budget: 3, reserved: 3)) {
            try RegistrationPlanner(budget: .custom(3), reservedSlots: 3)
        }
        #expect(throws: RegistrationPlanError.budgetTooSmall(budget: 0, reserved: 0)) { try RegistrationPlanner(budget: .custom(0)) }
        #expect(throws: RegistrationPlanError.negativeReserved(-1)) { try RegistrationPlanner(budget: .ios, reservedSlots: -1) }
        #expect(throws: RegistrationPlanError.self) { try RegistrationPlanner(budget: .ios, minimumRefreshRadius: -.infinity) }
        let set = try FenceSet([Fence(id: "a", shape: .circle(center: Coordinate(latitude: 1, longitude: 1), radius: 10))])
        let e = try ContainmentEvaluator(fenceSet: set)
        let planner = try RegistrationPlanner(budget: .ios)
        #expect(throws: RegistrationPlanError.unknownRegisteredID("zz")) {
            try planner.plan(latitude: 1, longitude: 1, registered: ["a", "zz"], evaluator: e)
        }
        #expect(throws: RegistrationPlanError.self) { try planner.plan(latitude: 91, longitude: 1, registered: [], evaluator: e) }
        #expect(throws: RegistrationPlanError.invalidAccuracy(-1)) {
            try planner.plan(latitude: 1, longitude: 1, accuracy: -1, registered: [], evaluator: e)
        }
        // Extreme numbers are errors or work, never overflow.
        #expect(throws: RegistrationPlanError.budgetTooSmall(budget: 20, reserved: Int.max)) {
            try RegistrationPlanner(budget: .ios, reservedSlots: Int.max)
        }
        let huge = try RegistrationPlanner(budget: .custom(Int.max), reservedSlots: Int.max - 1)
        #expect(huge.fenceSlots == 0)
        let unlimited = try RegistrationPlanner(budget: .custom(Int.max)).plan(latitude: 1, longitude: 1, registered: [], evaluator: e)
        #expect(unlimited.monitor.map(\.geofenceId) == ["a"] && unlimited.refreshRegion == nil)
        // Budget = reserved + 1: nothing but the refresh region.
        let tight = try RegistrationPlanner(budget: .custom(5), reservedSlots: 4)
        let plan = try tight.plan(latitude: 1, longitude: 1.01, registered: ["a"], evaluator: e)
        #expect(plan.monitor.isEmpty && plan.remove == ["a"] && plan.add.isEmpty)
        #expect(plan.refreshRegion != nil)
    }

    @Test("every fence fits: no refresh region; clamping and accuracy as documented")
    func smallSets() throws {
        let center = Coordinate(latitude: 48.85, longitude: 2.35)
        let fences = (0..<5).map { i in
            Fence(id: "s\(i)", shape: .circle(center: Sphere.destination(from: center, distance: 300 * Double(i + 1), bearing: 1), radius: 50))
        }
        let e = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let all = try RegistrationPlanner(budget: .ios).plan(latitude: center.latitude, longitude: center.longitude, registered: ["s4"], evaluator: e)
        #expect(all.refreshRegion == nil && all.monitor.count == 5 && all.add == ["s0", "s1", "s2", "s3"] && all.remove.isEmpty)
        // Budget 3 → 2 fences: s0 (250 m) and s1 (550 m); refresh radius stops 1 m short of s2 (850 m).
        let three = try RegistrationPlanner(budget: .custom(3))
        let plan = try three.plan(latitude: center.latitude, longitude: center.longitude, registered: [], evaluator: e)
        #expect(plan.monitor.map(\.geofenceId) == ["s0", "s1"])
        #expect(abs(try #require(plan.refreshRegion).radius - 849) < 0.01)
        let clamped = try RegistrationPlanner(budget: .custom(3), minimumRefreshRadius: 2_000)
            .plan(latitude: center.latitude, longitude: center.longitude, registered: [], evaluator: e)
        #expect(clamped.refreshRegion?.radius == 2_000)
        // Accuracy 600 m: s0 and s1 may hold the device; with one slot, one is left out.
        let one = try RegistrationPlanner(budget: .custom(2))
        let fuzzy = try one.plan(latitude: center.latitude, longitude: center.longitude, accuracy: 600, registered: [], evaluator: e)
        #expect(fuzzy.monitor.map(\.geofenceId) == ["s0"] && fuzzy.monitor[0].isInside)
        #expect(fuzzy.unmonitoredInside == ["s1"])
        #expect(abs(try #require(fuzzy.refreshRegion).radius - 549) < 0.01)
    }
}
