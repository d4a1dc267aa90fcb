import GeofenceTestSupport
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// Registration planner invariants over random positions, budgets and registered sets.
@Suite("Registration planner")
struct PlannerTests {
    /// What a plan must be, by brute force over every fence, straight from the rules of
    /// ``RegistrationPlanner``: the slow twin of the planner.
    static func expected(
        planner: RegistrationPlanner, at p: Coordinate, accuracy: Double, filter: NearestFilter,
        registered: Set<Int32>, evaluator e: ContainmentEvaluator
    ) throws -> (monitor: [(slot: Int32, distance: Double, inside: Bool)], overflow: [Int32], leftOut: Double?) {
        let set = e.fenceSet
        var eligible: [(slot: Int32, distance: Double, inside: Bool)] = []
        for slot in 0..<set.count where set.accepts(slot: slot, filter: filter) {
            let d = try e.distance(slot: slot, latitude: p.latitude, longitude: p.longitude)
            let covers = try e.covers(slot: slot, latitude: p.latitude, longitude: p.longitude)
            eligible.append((Int32(slot), d, covers || (accuracy > 0 && d <= accuracy)))
        }
        eligible.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
        let capacity = min(planner.fenceSlots, set.count)
        let inside = eligible.filter(\.inside), others = eligible.filter { !$0.inside }
        let kept = Array(inside.prefix(capacity)), overflow = Array(inside.dropFirst(capacity))
        let free = capacity - kept.count
        var chosen: [(slot: Int32, distance: Double, inside: Bool)]
        if others.count <= free {
            chosen = others
        } else {
            let strict = others[free].distance
            let lower = strict * (1 - planner.hysteresisFraction), upper = strict / (1 - planner.hysteresisFraction)
            let mandatory = others.filter { $0.distance < lower }
            let stay = others.filter { registered.contains($0.slot) && $0.distance >= lower && $0.distance <= upper }
                .prefix(free - mandatory.count)
            let taken = Set((mandatory + stay).map(\.slot))
            chosen = mandatory + stay + others.filter { !taken.contains($0.slot) }.prefix(free - taken.count)
        }
        chosen.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
        let monitored = Set(chosen.map(\.slot))
        let leftOut = (overflow.map(\.distance) + others.filter { !monitored.contains($0.slot) }.map(\.distance)).min()
        return (kept + chosen, overflow.map(\.slot).sorted(), leftOut)
    }

    /// Checks one plan against its twin and the invariants any plan keeps.
    static func check(
        _ plan: RegistrationPlan, planner: RegistrationPlanner, at p: Coordinate, accuracy: Double,
        filter: NearestFilter, registered: [Int], evaluator e: ContainmentEvaluator, context: String
    ) throws {
        let set = e.fenceSet
        let want = try expected(
            planner: planner, at: p, accuracy: accuracy, filter: filter, registered: Set(registered.map { Int32($0) }), evaluator: e)
        #expect(plan.monitor.map(\.slot) == want.monitor.map { Int($0.slot) }, "\(context): monitored fences differ from the twin")
        #expect(plan.monitor.map(\.distance) == want.monitor.map(\.distance), "\(context): distances")
        #expect(plan.monitor.map(\.isInside) == want.monitor.map(\.inside), "\(context): inside flags")
        #expect(plan.unmonitoredInside == want.overflow.map { set.fences[Int($0)].geofenceID }, "\(context)")
        #expect(plan.nearestUnmonitoredDistance == want.leftOut, "\(context)")

        // Invariants, whatever the hysteresis.
        let monitored = Set(plan.monitor.map(\.slot))
        #expect(monitored.count == plan.monitor.count, "\(context): a fence monitored twice")
        #expect(plan.monitor.count <= planner.fenceSlots, "\(context): budget exceeded")
        var unmonitored: [Double] = []
        for slot in 0..<set.count where set.accepts(slot: slot, filter: filter) && !monitored.contains(slot) {
            unmonitored.append(try e.distance(slot: slot, latitude: p.latitude, longitude: p.longitude))
        }
        if let region = plan.refreshRegion {
            #expect(region.center == p, "\(context)")
            let leftOut = try #require(unmonitored.min(), "\(context): a refresh region with nothing left out")
            #expect(plan.nearestUnmonitoredDistance == leftOut, "\(context)")
            let expected = Swift.max(planner.minimumRefreshRadius, Swift.max(0, leftOut - RegistrationPlanner.refreshMargin))
            #expect(region.radius == expected, "\(context): radius \(region.radius), expected \(expected)")
            if planner.minimumRefreshRadius == 0 {
                // The guarantee: the region reaches no unmonitored fence.
                #expect(region.radius < leftOut || leftOut == 0, "\(context): region reaches an unmonitored fence")
            }
        } else {
            #expect(unmonitored.isEmpty, "\(context): no refresh region but \(unmonitored.count) fence(s) left out")
        }
        // The diff turns the registered set into the monitored set, touching nothing else.
        let old = Set(registered.map { set.fences[Int($0)].geofenceID })
        let add = Set(plan.add), remove = Set(plan.remove)
        #expect(add.isDisjoint(with: old) && remove.isSubset(of: old), "\(context)")
        #expect(old.subtracting(remove).union(add) == Set(plan.monitor.map(\.geofenceID)), "\(context): diff does not apply")
        #expect(plan.add == plan.add.sorted(by: fenceIDPrecedes) && plan.remove == plan.remove.sorted(by: fenceIDPrecedes), "\(context)")
        // Each monitored circle holds its fence.
        for f in plan.monitor {
            let fence = set.fences[Int(f.slot)]
            let circle = try #require(fence.enclosingCircle)
            #expect(f.center == circle.center && f.radius == circle.radius && f.geofenceID == fence.geofenceID, "\(context)")
        }
    }

    @Test("plans equal the brute-force twin over random positions, budgets, hysteresis and registered sets",
          arguments: testSeeds(3, base: 71))
    func invariants(seed: UInt64) throws {
        var hysteresisMattered = 0
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed &* 43 &+ UInt64(name.utf8.count))
            var w = world
            w.minimumSize = 100
            w.maximumSize = 1_200
            let fences = w.fences(count: rng.int(0...120), &rng)
            let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
            var registered: [Int] = []
            var previous: Coordinate? = nil
            for (round, q) in w.queryPoints(count: 25, fences: fences, &rng).enumerated() {
                // Often a short move from the last fix, so the registered fences are near.
                let p = previous.map { rng.chance(0.5) ? Sphere.destination(from: $0, distance: rng.double(5...400), bearing: rng.double(0...(2 * .pi))) : q } ?? q
                previous = p
                let budget: RegistrationPlanner.Budget = [.ios, .android, .custom(rng.int(1...8))][rng.int(0...2)]
                let reserved = rng.int(0...(budget.regionLimit - 1))
                let minimum = rng.chance(0.2) ? rng.double(0...500) : 0
                let fraction = [0, RegistrationPlanner.recommendedHysteresisFraction, rng.double(0...0.95)][rng.int(0...2)]
                let planner = try RegistrationPlanner(
                    budget: budget, reservedSlots: reserved, minimumRefreshRadius: minimum, hysteresisFraction: fraction)
                let accuracy = rng.chance(0.3) ? rng.double(0...400) : 0
                let filter = NearestTests.filter(&rng)
                if rng.chance(0.3) && !fences.isEmpty {
                    registered = (0..<rng.int(0...10)).map { _ in rng.int(0...(fences.count - 1)) }
                }
                let plan = try planner.plan(
                    latitude: p.latitude, longitude: p.longitude, accuracy: accuracy, filter: filter,
                    registeredSlots: registered, evaluator: evaluator)
                let context = "seed \(seed) world \(name) round \(round) at \(p) budget \(budget) reserved \(reserved) accuracy \(accuracy) hysteresis \(fraction)"
                try Self.check(plan, planner: planner, at: p, accuracy: accuracy, filter: filter,
                               registered: registered, evaluator: evaluator, context: context)
                // Against the same plan without hysteresis: the refresh distance shrinks by at
                // most the fraction, and never grows.
                let strict = try RegistrationPlanner(budget: budget, reservedSlots: reserved, minimumRefreshRadius: minimum, hysteresisFraction: 0)
                    .plan(latitude: p.latitude, longitude: p.longitude, accuracy: accuracy, filter: filter,
                          registeredSlots: registered, evaluator: evaluator)
                if let d = plan.nearestUnmonitoredDistance, let bound = strict.nearestUnmonitoredDistance {
                    #expect(d <= bound && d >= bound * (1 - fraction), "\(context): refresh distance \(d), without hysteresis \(bound)")
                } else {
                    #expect(plan.nearestUnmonitoredDistance == strict.nearestUnmonitoredDistance, "\(context)")
                }
                if plan.monitoredSlots != strict.monitoredSlots { hysteresisMattered += 1 }
                registered = plan.monitoredSlots
            }
        }
        #expect(hysteresisMattered >= 5, "seed \(seed): hysteresis changed only \(hysteresisMattered) plans, the test does not exercise it")
    }

    @Test("bad budgets, fractions and slots are RegistrationPlanner.PlanError; bad fixes are the monitor's TrackerRejection")
    func errors() throws {
        #expect(throws: RegistrationPlanner.PlanError.budgetTooSmall(budget: 3, reserved: 3)) {
            try RegistrationPlanner(budget: .custom(3), reservedSlots: 3)
        }
        #expect(throws: RegistrationPlanner.PlanError.budgetTooSmall(budget: 0, reserved: 0)) { try RegistrationPlanner(budget: .custom(0)) }
        #expect(throws: RegistrationPlanner.PlanError.budgetTooSmall(budget: -4, reserved: 0)) { try RegistrationPlanner(budget: .custom(-4)) }
        #expect(throws: RegistrationPlanner.PlanError.negativeReserved(-1)) { try RegistrationPlanner(budget: .ios, reservedSlots: -1) }
        #expect(throws: RegistrationPlanner.PlanError.self) { try RegistrationPlanner(budget: .ios, minimumRefreshRadius: -.infinity) }
        for f in [-0.1, 1, 1.5, .infinity] {
            #expect(throws: RegistrationPlanner.PlanError.invalidHysteresisFraction(f)) { try RegistrationPlanner(budget: .ios, hysteresisFraction: f) }
        }
        #expect(throws: RegistrationPlanner.PlanError.self) { try RegistrationPlanner(budget: .ios, hysteresisFraction: .nan) }
        let set = try FenceSet([Fence(geofenceID: "a", shape: .circle(center: Coordinate(latitude: 1, longitude: 1), radius: 10))])
        let e = try ContainmentEvaluator(fenceSet: set)
        let planner = try RegistrationPlanner(budget: .ios)
        #expect(throws: RegistrationPlanner.PlanError.unknownRegisteredSlot(1)) {
            try planner.plan(latitude: 1, longitude: 1, registeredSlots: [0, 1], evaluator: e)
        }
        #expect(throws: RegistrationPlanner.PlanError.unknownRegisteredSlot(-1)) {
            try planner.plan(latitude: 1, longitude: 1, registeredSlots: [-1], evaluator: e)
        }
        // The same bad fix is the same error for the planner and the monitor.
        let monitor = try GeofenceMonitor(fenceSet: set, configuration: TrackerConfiguration(maxAccuracy: .infinity))
        let badFixes: [(latitude: Double, longitude: Double, accuracy: Double)] = [
            (91, 1, 0), (-90.5, 1, 0), (1, 180.01, 0), (1, -181, 0), (.infinity, 1, 0), (1, -.infinity, 0), (1, 1, -1),
        ]
        for bad in badFixes {
            var fromMonitor: (any Error)?
            do {
                _ = try monitor.update(Fix(timestamp: Timestamp(milliseconds: 0), latitude: bad.latitude, longitude: bad.longitude, accuracy: bad.accuracy))
            } catch { fromMonitor = error }
            // A refused fix is a TrackerRejection: coordinate for a bad position, accuracy else.
            let reason = (fromMonitor as? TrackerRejection)?.reason
            #expect(reason == (bad.accuracy == 0 ? .coordinate : .accuracy), "\(bad)")
            var fromPlanner: (any Error)?
            do {
                _ = try planner.plan(latitude: bad.latitude, longitude: bad.longitude, accuracy: bad.accuracy, registered: [], evaluator: e)
            } catch { fromPlanner = error }
            #expect(fromPlanner.map { "\($0)" } == fromMonitor.map { "\($0)" }, "\(bad)")
            #expect(type(of: fromPlanner!) == type(of: fromMonitor!), "\(bad)")
        }
        // NaN is never equal to itself: check the case.
        for (lat, lon, acc) in [(Double.nan, 1.0, 0.0), (1, .nan, 0), (1, 1, .nan)] {
            do {
                _ = try planner.plan(latitude: lat, longitude: lon, accuracy: acc, registered: [], evaluator: e)
                Issue.record("(\(lat), \(lon)) accuracy \(acc): no error")
            } catch let TrackerRejection.coordinate(error) {
                #expect(!acc.isNaN && error.reason == (lat.isNaN ? .latitudeNotFinite : .longitudeNotFinite), "\(error)")
            } catch let rejection as TrackerRejection {
                #expect(acc.isNaN && rejection.reason == .accuracy, "\(rejection)")
            }
        }
        // Extreme numbers are errors or work, never overflow.
        #expect(throws: RegistrationPlanner.PlanError.budgetTooSmall(budget: 20, reserved: Int.max)) {
            try RegistrationPlanner(budget: .ios, reservedSlots: Int.max)
        }
        let huge = try RegistrationPlanner(budget: .custom(Int.max), reservedSlots: Int.max - 1)
        #expect(huge.fenceSlots == 0)
        let unlimited = try RegistrationPlanner(budget: .custom(Int.max)).plan(latitude: 1, longitude: 1, registered: [], evaluator: e)
        #expect(unlimited.monitor.map(\.geofenceID) == ["a"] && unlimited.refreshRegion == nil)
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
            Fence(geofenceID: "s\(i)", shape: .circle(center: Sphere.destination(from: center, distance: 300 * Double(i + 1), bearing: 1), radius: 50))
        }
        let e = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let all = try RegistrationPlanner(budget: .ios).plan(latitude: center.latitude, longitude: center.longitude, registered: ["s4"], evaluator: e)
        #expect(all.refreshRegion == nil && all.monitor.count == 5 && all.add == ["s0", "s1", "s2", "s3"] && all.remove.isEmpty)
        // Budget 3 → 2 fences: s0 (250 m) and s1 (550 m); refresh radius stops 1 m short of s2 (850 m).
        let three = try RegistrationPlanner(budget: .custom(3))
        let plan = try three.plan(latitude: center.latitude, longitude: center.longitude, registered: [], evaluator: e)
        #expect(plan.monitor.map(\.geofenceID) == ["s0", "s1"])
        #expect(abs(try #require(plan.refreshRegion).radius - 849) < 0.01)
        let clamped = try RegistrationPlanner(budget: .custom(3), minimumRefreshRadius: 2_000)
            .plan(latitude: center.latitude, longitude: center.longitude, registered: [], evaluator: e)
        #expect(clamped.refreshRegion?.radius == 2_000)
        // Accuracy 600 m: s0 and s1 may hold the device; with one slot, one is left out.
        let one = try RegistrationPlanner(budget: .custom(2))
        let fuzzy = try one.plan(latitude: center.latitude, longitude: center.longitude, accuracy: 600, registered: [], evaluator: e)
        #expect(fuzzy.monitor.map(\.geofenceID) == ["s0"] && fuzzy.monitor[0].isInside)
        #expect(fuzzy.unmonitoredInside == ["s1"])
        #expect(abs(try #require(fuzzy.refreshRegion).radius - 549) < 0.01)
        // Accuracy +∞ (the tracker's "no limit"): every fence may hold the device; the nearest
        // fill the slots and the region stops short of the next.
        let anywhere = try three.plan(latitude: center.latitude, longitude: center.longitude, accuracy: .infinity, registered: [], evaluator: e)
        #expect(anywhere.monitor.map(\.geofenceID) == ["s0", "s1"] && anywhere.monitor.allSatisfy(\.isInside))
        #expect(anywhere.unmonitoredInside == ["s2", "s3", "s4"])
        #expect(abs(try #require(anywhere.refreshRegion).radius - 849) < 0.01)
    }
}
