import Testing
@testable import GeofenceEngine

/// The ignore period (semantics §4, Pointr): A is a 100 m circle at the base; "in" fixes
/// are 50 m east of its centre, "out" fixes 300 m east.
@Suite("Ignore period")
struct IgnorePeriodTests {
    static let a = [EventsFixtures.circle("A", radius: 100)]
    static let noDwell = TrackerConfiguration(dwell: 0)
    static let inside = 50.0, outside = 300.0

    static let scenarios: [EventsScenario] = [
        EventsScenario(
            "Pointr: exit 40 s after the entrance fires at 40", fences: a, configuration: noDwell,
            steps: [at(0, east: inside), at(40, east: outside)],
            expected: ["entrance A @0", "exit A @40"]),
        EventsScenario(
            "Pointr: flapping, then leaving: the exit fires one period after the last flip", fences: a,
            configuration: noDwell,
            steps: [
                at(0, east: inside), at(10, east: outside), at(20, east: inside), at(25, east: outside),
                at(30, east: outside), at(50, east: outside), at(60, east: outside),
            ],
            expected: ["entrance A @0", "exit A @55"]),
        EventsScenario(
            "flapping, then back inside before the exit is due: no exit", fences: a, configuration: noDwell,
            steps: [
                at(0, east: inside), at(10, east: outside), at(20, east: inside), at(25, east: outside),
                at(50, east: inside), at(70, east: inside), .finish,
            ],
            expected: ["entrance A @0"]),
        EventsScenario(
            "a flip back inside restarts the window, so a later exit waits for it", fences: a, configuration: noDwell,
            steps: [
                at(0, east: inside), at(10, east: outside), at(20, east: inside),
                // window restarted at 20, ends at 50; a flip out at 45 restarts it to 75
                at(45, east: outside), at(74, east: outside), at(76, east: outside),
            ],
            expected: ["entrance A @0", "exit A @75"]),
        EventsScenario(
            "the first transition fires at once", fences: a, configuration: noDwell,
            steps: [at(0, east: outside), at(7, east: inside)],
            expected: ["entrance A @7"]),
        EventsScenario(
            "a due event carries its due time, not the time it was noticed", fences: a, configuration: noDwell,
            steps: [at(0, east: inside), at(10, east: outside), at(500, east: outside)],
            expected: ["entrance A @0", "exit A @40"]),
        EventsScenario(
            "a fix exactly at the due time is applied first and can cancel the event", fences: a,
            configuration: noDwell,
            steps: [at(0, east: inside), at(10, east: outside), at(40, east: inside), .finish],
            expected: ["entrance A @0"]),
        EventsScenario(
            "a fix exactly at the due time that agrees lets the event fire at that time", fences: a,
            configuration: noDwell,
            steps: [at(0, east: inside), at(10, east: outside), at(40, east: outside)],
            expected: ["entrance A @0", "exit A @40"]),
        EventsScenario(
            "the end of input emits what fell due", fences: a, configuration: noDwell,
            steps: [at(0, east: inside), at(10, east: outside), .finish],
            expected: ["entrance A @0", "exit A @40"]),
        EventsScenario(
            "a re-entrance inside the window after an exit waits for the window", fences: a, configuration: noDwell,
            steps: [at(0, east: inside), at(40, east: outside), at(50, east: inside), at(90, east: inside)],
            expected: ["entrance A @0", "exit A @40", "entrance A @80"]),
        EventsScenario(
            "ignore period 0: every flip fires at once", fences: a,
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0),
            steps: [at(0, east: inside), at(1, east: outside), at(2, east: inside), at(2, east: outside)],
            expected: ["entrance A @0", "exit A @1", "entrance A @2", "exit A @2"]),
        EventsScenario(
            "the default ignore period is 30 s", fences: a, configuration: TrackerConfiguration(dwell: 0),
            steps: [at(0, east: inside), at(29.999, east: outside), .finish],
            expected: ["entrance A @0", "exit A @59.999"]),
        EventsScenario(
            "advancing time settles what is due by then", fences: a, configuration: noDwell,
            steps: [at(0, east: inside), at(10, east: outside), .advance(39), .advance(40)],
            expected: ["entrance A @0", "exit A @40"]),
    ]

    @Test("scenarios", arguments: scenarios)
    func scenario(_ s: EventsScenario) throws {
        let events = try runScript(s.fences, s.configuration, s.steps)
        #expect(events == s.expected)
    }

    @Test("a due event carries the position of the last fix before it")
    func duePosition() throws {
        let monitor = try GeofenceMonitor(fenceSet: FenceSet(Self.a), configuration: Self.noDwell)
        _ = try monitor.update(EventsFixtures.fix(0, east: 50))
        _ = try monitor.update(EventsFixtures.fix(10, east: 300))
        _ = try monitor.update(EventsFixtures.fix(20, east: 310))
        let events = try monitor.update(EventsFixtures.fix(100, east: 900))
        let p = EventsFixtures.point(east: 310)
        #expect(events.count == 1)
        #expect(events.first?.type == .exit && events.first?.latitude == p.latitude && events.first?.longitude == p.longitude)
    }

    @Test("while a window is open the reported state waits; once it closes, reported equals raw")
    func reportedFollowsRaw() throws {
        var tracker = try DeviceTracker(fenceSet: FenceSet(Self.a), configuration: Self.noDwell)
        let observe = { (s: Double, inside: Bool) in
            FixObservation(fix: EventsFixtures.fix(s, east: inside ? 50 : 300), nearby: inside ? [FenceDistance(slot: 0, distance: 0)] : [])
        }
        _ = try tracker.update(observe(0, true))
        _ = try tracker.update(observe(10, false))
        #expect(tracker.reportedInside == [0] && tracker.rawInside == [])
        #expect(tracker.nextDueTime == EventsFixtures.time(40))
        _ = try tracker.update(observe(41, false))
        #expect(tracker.reportedInside == [] && tracker.rawInside == [])
        _ = try tracker.update(observe(80, false))
        #expect(tracker.isIdle, "a track that says nothing is dropped once its window closes")
    }
}
