import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// Property tests over seeded random walks: the tracker against its slow twin
/// (``ReferenceTracker``), and the invariants of the event stream and of the state.
@Suite("Tracker properties")
struct TrackerPropertyTests {
    typealias F = EventsFixtures

    /// A random world: fences around the base, a configuration, and a device's inputs.
    struct World {
        var fenceSet: FenceSet
        var configuration: TrackerConfiguration
        var inputs: [ReferenceTracker.Input]
    }

    static func world(seed: UInt64, steps: Int = 250) throws -> World {
        var g = SplitMix64(seed: seed)
        var fences: [Fence] = []
        for k in 0..<Int.random(in: 3...7, using: &g) {
            let east = Double.random(in: -300...300, using: &g), north = Double.random(in: -300...300, using: &g)
            let level: Int? = g.chance(0.25) ? g.pick([1, 2]) : nil
            let rank = Int.random(in: 0...2, using: &g)
            var fence =
                g.chance(0.8)
                ? F.circle("f\(k)", east: east, north: north, radius: Double.random(in: 20...250, using: &g), level: level, rank: rank)
                : F.square("f\(k)", east: east, north: north, half: Double.random(in: 20...150, using: &g), level: level, rank: rank)
            if g.chance(0.2) { fence.dwellSeconds = g.pick([0, 15]) }
            fences.append(fence)
        }
        let configuration = TrackerConfiguration(
            ignorePeriod: g.pick([0, 5, 30]), dwell: g.pick([0, 20, 60]), enterToleranceFraction: g.pick([0, 0, 0.2]),
            exitToleranceFraction: g.pick([0, 0, 0.3]), maxAccuracy: g.pick([1000, 60]), accuracyBuffer: g.chance(0.3),
            presenceInterval: g.pick([nil, nil, 0, 45]), stopSeconds: g.pick([30, 140]), stopRadius: g.pick([20, 70]),
            levelFences: !g.chance(0.15), globalFences: !g.chance(0.1))
        var inputs: [ReferenceTracker.Input] = []
        var x = Double.random(in: -400...400, using: &g), y = Double.random(in: -400...400, using: &g)
        var t: Int64 = 1_700_000_000_000
        var level: Int? = nil
        var still = false
        for _ in 0..<steps {
            if g.chance(0.1) { still.toggle() }
            if g.chance(0.05) { t -= Int64.random(in: 1...30, using: &g) * 1000 }  // rejected: order
            else if !g.chance(0.05) { t += Int64.random(in: 1...20, using: &g) * 1000 }  // else same time
            if still {
                x += Double.random(in: -3...3, using: &g)
                y += Double.random(in: -3...3, using: &g)
            } else if g.chance(0.05) {
                x = Double.random(in: -500...500, using: &g)
                y = Double.random(in: -500...500, using: &g)
            } else {
                x += Double.random(in: -60...60, using: &g)
                y += Double.random(in: -60...60, using: &g)
            }
            if g.chance(0.1) { level = g.pick([nil, 1, 2]) }
            if g.chance(0.03) {
                inputs.append(.presence(Timestamp(milliseconds: t)))
                continue
            }
            var fix = F.fix(0, east: x, north: y, accuracy: g.chance(0.5) ? Double.random(in: 0...80, using: &g) : nil, level: level)
            fix.timestamp = Timestamp(milliseconds: t)
            if g.chance(0.02) { fix.latitude = g.pick([.nan, 91, -90.5]) }
            inputs.append(.fix(fix))
        }
        return World(fenceSet: try FenceSet(fences), configuration: configuration, inputs: inputs)
    }

    /// Runs the tracker over the inputs (then finish), checking state invariants after every
    /// call; returns all events and the number of rejections.
    static func runTracker(_ world: World, seed: UInt64) throws -> (events: [GeofenceEvent], rejected: Int) {
        let monitor = try GeofenceMonitor(fenceSet: world.fenceSet, configuration: world.configuration)
        var events: [GeofenceEvent] = [], rejected = 0
        for (k, input) in world.inputs.enumerated() {
            do {
                switch input {
                case .fix(let fix): events += try monitor.update(fix)
                case .presence(let time): events += try monitor.requestPresence(at: time)
                }
            } catch is TrackerRejection, is CoordinateError {
                rejected += 1
            }
            checkState(monitor.tracker, seed: seed, step: k)
        }
        events += monitor.finish()
        checkState(monitor.tracker, seed: seed, step: world.inputs.count)
        return (events, rejected)
    }

    /// Invariants of the tracker's state after a call.
    static func checkState(_ tracker: DeviceTracker, seed: UInt64, step: Int) {
        let tracks = tracker.tracks
        #expect(zip(tracks, tracks.dropFirst()).allSatisfy { $0.slot < $1.slot }, "seed \(seed) step \(step): tracks sorted")
        for track in tracks where track.windowEnd <= tracker.clock {
            #expect(track.raw == track.reported, "seed \(seed) step \(step): no window open, yet raw ≠ reported at slot \(track.slot)")
        }
        var due = Int64.max
        for track in tracks {
            due = min(due, track.transitionDue, track.dwellDue(dwellMilliseconds: tracker.context.dwellMilliseconds(Int(track.slot))))
        }
        #expect(tracker.nextDue == due, "seed \(seed) step \(step): cached next due time")
        #expect(tracker.places.entered.map { Int($0.slot) } == tracker.reportedInside, "seed \(seed) step \(step): Places entered = reported")
        // The current POI by an independent sort of the entered set.
        let fences = Array(tracker.fenceSet.fences)
        let expected = tracker.places.entered.sorted {
            let a = fences[Int($0.slot)], b = fences[Int($1.slot)]
            return (a.rank, a.radius, -$0.since.milliseconds, $0.slot) < (b.rank, b.radius, -$1.since.milliseconds, $1.slot)
        }.first?.slot
        #expect(tracker.places.current == expected, "seed \(seed) step \(step): current POI")
    }

    /// Invariants of the event stream, per fence.
    static func checkStream(_ events: [GeofenceEvent], _ world: World, seed: UInt64) {
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }, "seed \(seed): timestamps never decrease")
        for slot in 0..<Int32(world.fenceSet.count) {
            let mine = events.filter { $0.slot == slot }
            var inside = false, entrance = Timestamp(milliseconds: 0), dwelt = false, confirmed = false
            let fence = world.fenceSet.fences[Int(slot)]
            let dwellSeconds = fence.dwellSeconds ?? world.configuration.dwell
            for e in mine {
                switch e.type {
                case .entrance:
                    #expect(!inside, "seed \(seed): \(fence.geofenceID) entrance while inside at \(e.timestamp.milliseconds)")
                    inside = true
                    entrance = e.timestamp
                    dwelt = false
                    confirmed = false
                case .exit:
                    #expect(inside, "seed \(seed): \(fence.geofenceID) exit while outside at \(e.timestamp.milliseconds)")
                    inside = false
                case .dwell:
                    #expect(inside && !dwelt, "seed \(seed): \(fence.geofenceID) dwell outside a visit or twice")
                    #expect(e.timestamp == entrance.adding(seconds: dwellSeconds), "seed \(seed): \(fence.geofenceID) dwell time")
                    dwelt = true
                case .venueConfirmed:
                    #expect(inside && !confirmed, "seed \(seed): \(fence.geofenceID) venueConfirmed outside a visit or twice")
                    #expect(dwelt || dwellSeconds == 0, "seed \(seed): \(fence.geofenceID) venueConfirmed before dwell")
                    confirmed = true
                case .presence:
                    #expect(inside, "seed \(seed): \(fence.geofenceID) presence outside a visit")
                }
            }
        }
    }

    static func sortedForComparison(_ events: [GeofenceEvent]) -> [GeofenceEvent] {
        // Stable: equal keys keep their order.
        events.enumerated().sorted {
            let a = $0.element, b = $1.element
            if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
            if a.slot != b.slot { return a.slot < b.slot }
            if a.type != b.type { return a.type < b.type }
            return $0.offset < $1.offset
        }.map(\.element)
    }

    @Test("random walks: the tracker agrees with its slow twin, event by event", arguments: sized(full: 0..<4, quick: 0..<2))
    func agreesWithTwin(batch: Int) throws {
        var totals = [GeofenceEvent.EventType: Int]()
        for k in 0..<40 {
            let seed = UInt64(batch * 1000 + k)
            let world = try Self.world(seed: seed)
            let (events, rejected) = try Self.runTracker(world, seed: seed)
            var twin = try ReferenceTracker(fenceSet: world.fenceSet, config: world.configuration)
            var twinRejected = 0
            for input in world.inputs where !twin.feed(input) { twinRejected += 1 }
            twin.finish()
            #expect(rejected == twinRejected, "seed \(seed): rejections")
            let mine = Self.sortedForComparison(events), theirs = Self.sortedForComparison(twin.events)
            if mine != theirs {
                let firstDifference = (0..<min(mine.count, theirs.count)).first { mine[$0] != theirs[$0] } ?? min(mine.count, theirs.count)
                Issue.record(
                    "seed \(seed): \(mine.count) events vs the twin's \(theirs.count); first difference at \(firstDifference): \(mine.dropFirst(firstDifference).first.map(\.description) ?? "none") vs \(theirs.dropFirst(firstDifference).first.map(\.description) ?? "none")")
            }
            Self.checkStream(events, world, seed: seed)
            for e in events { totals[e.type, default: 0] += 1 }
        }
        // The walks must exercise every kind of event, or the comparison proves little.
        for type in GeofenceEvent.EventType.allCases {
            #expect(totals[type, default: 0] > 0, "batch \(batch): no \(type.name) events in 40 walks")
        }
    }

    @Test("random walks: a tracker restored from a snapshot carries on identically", arguments: 0..<2)
    func snapshotContinuation(batch: Int) throws {
        for k in 0..<15 {
            let seed = UInt64(50_000 + batch * 100 + k)
            let world = try Self.world(seed: seed)
            let context = try TrackerContext(fenceSet: world.fenceSet, configuration: world.configuration)
            let evaluator = try ContainmentEvaluator(fenceSet: world.fenceSet)
            var original = DeviceTracker(context: context)
            let cut = world.inputs.count / 2
            func feed(_ tracker: inout DeviceTracker, _ input: ReferenceTracker.Input, _ out: inout [GeofenceEvent]) throws {
                switch input {
                case .fix(let fix): _ = tracker.update(try context.observe(fix, using: evaluator), appendingTo: &out)
                case .presence(let time): try? tracker.requestPresence(at: time, appendingTo: &out)
                }
            }
            var ignored: [GeofenceEvent] = []
            for input in world.inputs[..<cut] { try feed(&original, input, &ignored) }
            let data = try JSONEncoder().encode(original.snapshot())
            var restored = try DeviceTracker.restore(JSONDecoder().decode(DeviceSnapshot.self, from: data), context: context).tracker
            #expect(restored.snapshot() == original.snapshot(), "seed \(seed): snapshot round trip")
            var a: [GeofenceEvent] = [], b: [GeofenceEvent] = []
            for input in world.inputs[cut...] {
                try feed(&original, input, &a)
                try feed(&restored, input, &b)
            }
            original.finish(appendingTo: &a)
            restored.finish(appendingTo: &b)
            #expect(a == b, "seed \(seed): events after restoring")
            #expect(original.snapshot() == restored.snapshot(), "seed \(seed): final states")
        }
    }
}
