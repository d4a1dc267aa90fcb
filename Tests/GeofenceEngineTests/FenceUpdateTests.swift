import Foundation
import Testing
@testable import GeofenceEngine

/// The fence update rules (BehaviourContract "Fence updates"), one worked example each, on a
/// monitor (evaluator + tracker). Fixes are `EventsFixtures.fix(seconds, east:)`; fences are
/// circles around the base unless said otherwise. Ignore period 30 s, dwell 60 s.
@Suite("Fence updates: worked examples")
struct FenceUpdateTests {
    typealias F = EventsFixtures
    static let configuration = TrackerConfiguration(ignorePeriod: 30, dwell: 60)

    func monitor(_ fences: [Fence]) throws -> GeofenceMonitor {
        try GeofenceMonitor(fenceSet: FenceSet(fences), configuration: Self.configuration)
    }

    func feed(_ m: GeofenceMonitor, _ fixes: [Fix]) throws -> [String] {
        try fixes.flatMap { try m.update($0) }.map(brief)
    }

    func briefs(_ events: [GeofenceEvent]) -> [String] {
        events.map { brief($0) + ($0.reason == .fenceRemoved ? " removed" : "") }
    }

    @Test("removed while reported inside: an exit at T with reason fenceRemoved, at the last fix's position")
    func removedWhileInside() throws {
        let m = try monitor([F.circle("a", radius: 100), F.circle("b", east: 1000, radius: 100)])
        #expect(try feed(m, [F.fix(0, east: 0), F.fix(100, east: 10)]) == ["entrance a @0", "dwell a @60"])
        let events = try m.moveFences(to: FenceSet([F.circle("b", east: 1000, radius: 100)]), at: F.time(150))
        #expect(briefs(events) == ["exit a @150 removed"])
        let exit = try #require(events.first)
        let last = F.fix(100, east: 10)
        #expect(exit.latitude == last.latitude && exit.longitude == last.longitude && exit.radius == 100)
        // No event of the removed fence afterwards, and the device is outside everything.
        #expect(try feed(m, [F.fix(200, east: 0)]) == [])
        #expect(m.tracker.reportedInside.isEmpty && m.finish().isEmpty)
    }

    @Test("in its exit's ignore window the device counts as inside: the removal exit replaces the pending exit")
    func removedInExitWindow() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        // Entrance at 0 opens the window [0, 30); out at 10: the exit is due at 30.
        #expect(try feed(m, [F.fix(0, east: 0), F.fix(10, east: 500)]) == ["entrance a @0"])
        let events = try m.moveFences(to: FenceSet([F.circle("z", east: 5000, radius: 10)]), at: F.time(20))
        #expect(briefs(events) == ["exit a @20 removed"])
        #expect(m.finish().isEmpty)
    }

    @Test("an exit due before T fires under the old set, as a plain exit; nothing at T")
    func exitDueBeforeUpdate() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        // Out at 10, inside the window [0, 30): the flip restarts it, the exit is due at 40.
        #expect(try feed(m, [F.fix(0, east: 0), F.fix(10, east: 500)]) == ["entrance a @0"])
        let events = try m.moveFences(to: FenceSet([F.circle("z", east: 5000, radius: 10)]), at: F.time(50))
        #expect(briefs(events) == ["exit a @40"])
        // Due exactly at T: not before it, so the device still counts as inside.
        let n = try monitor([F.circle("a", radius: 100)])
        _ = try feed(n, [F.fix(0, east: 0), F.fix(10, east: 500)])
        #expect(briefs(try n.moveFences(to: FenceSet([F.circle("z", east: 5000, radius: 10)]), at: F.time(40))) == ["exit a @40 removed"])
    }

    @Test("a pending dwell of a removed fence is dropped; silent drops the exit too")
    func pendingDwellAndSilent() throws {
        for policy in FenceUpdate.RemovalPolicy.allCases {
            let m = try monitor([F.circle("a", radius: 100)])
            #expect(try feed(m, [F.fix(0, east: 0), F.fix(40, east: 0)]) == ["entrance a @0"])
            let events = try m.moveFences(to: FenceSet([F.circle("b", east: 900, radius: 10)]), at: F.time(50), onFenceRemoved: policy)
            #expect(briefs(events) == (policy == .exit ? ["exit a @50 removed"] : []))
            #expect(m.finish().isEmpty, "no dwell after the removal (\(policy))")
        }
    }

    @Test("a pending entrance of a removed fence is dropped without an event")
    func pendingEntranceDropped() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        // Entrance at 0; out at 40 (the window has closed: exit at once, window [40, 70));
        // back in at 50, inside that window: the entrance waits until 80.
        #expect(try feed(m, [F.fix(0, east: 0), F.fix(40, east: 500), F.fix(50, east: 0)]) == ["entrance a @0", "exit a @40"])
        #expect(m.tracker.nextDueTime == F.time(80) && m.tracker.reportedInside.isEmpty)
        let events = try m.moveFences(to: FenceSet([F.circle("b", east: 900, radius: 10)]), at: F.time(60))
        #expect(events.isEmpty)
        #expect(m.finish().isEmpty)
    }

    @Test("a changed circle keeps its state; the next fix is judged against the new shape")
    func grownAndShrunk() throws {
        // Shrunk: inside the old 100 m, outside the new 20 m at the next fix.
        let m = try monitor([F.circle("a", radius: 100)])
        #expect(try feed(m, [F.fix(0, east: 50), F.fix(100, east: 50)]) == ["entrance a @0", "dwell a @60"])
        let shrunk = try FenceSet([F.circle("a", radius: 20)])
        #expect(FenceSet.Change(from: m.context.fenceSet, to: shrunk).changed == ["a"])
        #expect(try m.moveFences(to: shrunk, at: F.time(110)).isEmpty)
        // The quiet window has long closed: the exit fires at the fix.
        #expect(try feed(m, [F.fix(120, east: 50)]) == ["exit a @120"])
        #expect(m.finish().isEmpty)
        // Grown: outside the old 20 m, inside the new 100 m: an entrance at the next fix.
        let g = try monitor([F.circle("a", radius: 20)])
        #expect(try feed(g, [F.fix(0, east: 50)]) == [])
        #expect(try g.moveFences(to: FenceSet([F.circle("a", radius: 100)]), at: F.time(10)).isEmpty)
        let after = try g.update(F.fix(20, east: 50))
        #expect(after.map(brief) == ["entrance a @20"] && after.first?.radius == 100)
    }

    @Test("a changed fence keeps its dwell timer and its visit")
    func changedKeepsDwell() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        #expect(try feed(m, [F.fix(0, east: 0)]) == ["entrance a @0"])
        #expect(try m.moveFences(to: FenceSet([F.circle("a", radius: 150)]), at: F.time(30)).isEmpty)
        let dwell = try m.update(F.fix(70, east: 0))
        #expect(dwell.map(brief) == ["dwell a @60"] && dwell.first?.radius == 150, "the dwell carries the new radius")
    }

    @Test("an added fence is judged from the next fix, like any fence")
    func added() throws {
        let m = try monitor([F.circle("a", east: 900, radius: 10)])
        #expect(try feed(m, [F.fix(0, east: 0)]) == [])
        let change = try m.moveFences(to: FenceSet([F.circle("a", east: 900, radius: 10), F.circle("b", radius: 50)]), at: F.time(10))
        #expect(change.isEmpty)  // standing in b already: nothing until a fix says so
        #expect(try feed(m, [F.fix(20, east: 0)]) == ["entrance b @20"])
    }

    @Test("removed then re-added: a new visit from the next fix")
    func removedThenReAdded() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        #expect(try feed(m, [F.fix(0, east: 0)]) == ["entrance a @0"])
        #expect(briefs(try m.moveFences(to: FenceSet([F.circle("z", east: 5000, radius: 1)]), at: F.time(10))) == ["exit a @10 removed"])
        #expect(try m.moveFences(to: FenceSet([F.circle("a", radius: 100)]), at: F.time(20)).isEmpty)
        #expect(try feed(m, [F.fix(25, east: 0)]) == ["entrance a @25"])
    }

    @Test("a fix exactly at T comes after the update; a fix before T is refused once it applied")
    func fixAtUpdateTime() throws {
        let m = try monitor([F.circle("a", radius: 100)])
        _ = try feed(m, [F.fix(0, east: 500)])
        #expect(try m.moveFences(to: FenceSet([F.circle("a", radius: 600)]), at: F.time(10)).isEmpty)
        #expect(try feed(m, [F.fix(10, east: 500)]) == ["entrance a @10"], "judged under the new 600 m circle")
        #expect(throws: TrackerRejection.self) { try m.update(F.fix(9, east: 500)) }
        #expect(throws: TrackerRejection.self) { try m.moveFences(to: FenceSet([F.circle("a", radius: 1)]), at: F.time(5)) }
    }

    @Test("a device whose last fix is before T is reached; one whose first fix is after T only sees the new set")
    func lastFixBeforeAndFirstAfter() throws {
        let old = try FenceSet([F.circle("a", radius: 100)])
        let context = try TrackerContext(fenceSet: old, configuration: Self.configuration)
        let evaluator = try ContainmentEvaluator(fenceSet: old)
        var early = DeviceTracker(context: context)
        _ = try early.update(context.observe(F.fix(0, east: 0), using: evaluator))
        let update = try FenceUpdate(from: context, to: FenceSet([F.circle("b", radius: 100)]), at: F.time(100))
        // Its dwell (due 60) fires under the old set before the removal exit.
        #expect(briefs(try early.apply(update)) == ["dwell a @60", "exit a @100 removed"])
        var late = DeviceTracker(context: context)
        #expect(try late.apply(update).isEmpty)
        let newEvaluator = try ContainmentEvaluator(fenceSet: update.context.fenceSet)
        #expect(try late.update(update.context.observe(F.fix(150, east: 0), using: newEvaluator)).map(brief) == ["entrance b @150"])
    }

    @Test("a properties-only change is unchanged: nothing happens, later events carry the new properties")
    func propertiesOnly() throws {
        var before = F.circle("a", radius: 100)
        before.properties = JSONObject(members: [.init(key: "name", value: .string("old"))])
        var after = before
        after.properties = JSONObject(members: [.init(key: "name", value: .string("new"))])
        let m = try monitor([before])
        #expect(try feed(m, [F.fix(0, east: 0)]) == ["entrance a @0"])
        let newSet = try FenceSet([after])
        let change = FenceSet.Change(from: m.context.fenceSet, to: newSet)
        #expect(change.unchanged == ["a"] && change.isEmpty)
        #expect(try m.moveFences(to: newSet, at: F.time(10)).isEmpty)
        let dwell = try m.update(F.fix(70, east: 0))
        #expect(dwell.first?.properties["name"] == .string("new"))
    }

    @Test("a polygon removed while inside exits like a circle")
    func polygonRemoved() throws {
        let m = try monitor([F.square("p", half: 50)])
        #expect(try feed(m, [F.fix(0, east: 0)]) == ["entrance p @0"])
        let events = try m.moveFences(to: FenceSet([F.circle("c", east: 900, radius: 5)]), at: F.time(10))
        #expect(briefs(events) == ["exit p @10 removed"] && events[0].radius > 70 && events[0].radius < 71)
    }

    @Test("Places: a removed fence leaves the entered fences and the POIs; the current POI is chosen again")
    func placesAfterRemoval() throws {
        let m = try monitor([F.circle("big", radius: 300), F.circle("small", radius: 100)])
        _ = try feed(m, [F.fix(0, east: 0)])
        #expect(m.placesReading(at: F.time(0)).current == "small")
        _ = try m.moveFences(to: FenceSet([F.circle("big", radius: 300)]), at: F.time(10))
        let reading = m.placesReading(at: F.time(10))
        #expect(reading.entered == ["big"] && reading.current == "big")
        #expect(reading.lastEntered == nil, "the last entered fence was removed")
    }

    @Test("the change lists added, removed, changed and unchanged ids in byte order")
    func changeLists() throws {
        let old = try FenceSet([F.circle("a", radius: 10), F.circle("b", radius: 10), F.circle("c", radius: 10), F.square("d", half: 5)])
        let new = try FenceSet([F.circle("b", radius: 10), F.circle("c", radius: 11), F.square("d", half: 6), F.circle("e", radius: 1)])
        let change = FenceSet.Change(from: old, to: new)
        #expect(change.added == ["e"] && change.removed == ["a"] && change.changed == ["c", "d"] && change.unchanged == ["b"])
        var levelled = F.circle("b", radius: 10)
        levelled.level = 2
        #expect(FenceSet.Change(from: old, to: try FenceSet([levelled])).changed == ["b"], "a level is part of the fingerprint")
    }
}
