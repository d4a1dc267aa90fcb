import Testing
@testable import GeofenceEngine

/// Table-driven scenarios of the tracker: tolerances, accuracy, levels, dwell, presence,
/// venueConfirmed, rejections and event order.
@Suite("Tracker scenarios")
struct TrackerScenarioTests {
    typealias F = EventsFixtures
    static let a = F.circle("A", radius: 100)

    static let scenarios: [EventsScenario] = [
        // Tolerances: A has radius 100 m; enter within 10 m of it, stay until 50 m beyond it.
        EventsScenario(
            "tolerance hysteresis at the boundary", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, enterToleranceFraction: 0.1, exitToleranceFraction: 0.5),
            steps: [
                at(0, east: 111), at(1, east: 109), at(2, east: 140), at(3, east: 149), at(4, east: 151),
                at(5, east: 140), at(6, east: 111), at(7, east: 109.9),
            ],
            expected: ["entrance A @1", "exit A @4", "entrance A @7"]),
        EventsScenario(
            "tolerance 0: the edge itself is inside, a centimetre beyond it is not", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0),
            steps: [at(0, east: 99.99), at(1, east: 100.01)],
            expected: ["entrance A @0", "exit A @1"]),
        EventsScenario(
            "a polygon's tolerance is a fraction of its minimum enclosing circle's radius",
            fences: [F.square("P", half: 100)],  // enclosing radius ≈ 141.4 m
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, enterToleranceFraction: 0.1),
            steps: [at(0, east: 115), at(1, east: 113), at(2, east: 120)],
            expected: ["entrance P @1", "exit P @2"]),
        EventsScenario(
            "accuracyBuffer: a fix counts as inside when its accuracy circle touches the fence", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, accuracyBuffer: true),
            steps: [at(0, east: 130, accuracy: 20), at(1, east: 130, accuracy: 31), at(2, east: 130)],
            expected: ["entrance A @1", "exit A @2"]),
        EventsScenario(
            "without accuracyBuffer the accuracy circle does not count", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0),
            steps: [at(0, east: 130, accuracy: 31)],
            expected: []),
        // Levels.
        EventsScenario(
            "level fences match only fixes on their level; global fences any fix",
            fences: [F.circle("G", radius: 100), F.circle("L", radius: 100, level: 2)],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0),
            steps: [at(0, east: 0, level: 2), at(1, east: 0, level: 3), at(2, east: 0, level: 2), at(3, east: 0)],
            expected: ["entrance G @0", "entrance L @0", "exit L @1", "entrance L @2", "exit L @3"]),
        EventsScenario(
            "levelFences off: level fences never match",
            fences: [F.circle("G", radius: 100), F.circle("L", radius: 100, level: 2)],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, levelFences: false),
            steps: [at(0, east: 0, level: 2)],
            expected: ["entrance G @0"]),
        EventsScenario(
            "globalFences off: global fences never match",
            fences: [F.circle("G", radius: 100), F.circle("L", radius: 100, level: 2)],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, globalFences: false),
            steps: [at(0, east: 0, level: 2), at(1, east: 0)],
            expected: ["entrance L @0", "exit L @1"]),
        // Dwell.
        EventsScenario(
            "dwell once per visit, and again after a new entrance", fences: [a],
            steps: [
                at(0, east: 0), at(30, east: 0), at(70, east: 0), at(200, east: 0), at(300, east: 500),
                at(400, east: 0), at(455, east: 0), at(470, east: 0),
            ],
            expected: [
                "entrance A @0", "dwell A @60", "venueConfirmed A @200", "exit A @300", "entrance A @400", "dwell A @460",
            ]),
        EventsScenario(
            "a fence's own dwellSeconds wins; 0 disables dwell for it",
            fences: [F.circle("A", radius: 100, dwellSeconds: 10), F.circle("B", radius: 100, dwellSeconds: 0)],
            steps: [at(0, east: 0), at(100, east: 0)],
            expected: ["entrance A @0", "entrance B @0", "dwell A @10"]),
        EventsScenario(
            "configured dwell 0 disables dwell", fences: [a], configuration: TrackerConfiguration(dwell: 0),
            steps: [at(0, east: 0), at(100, east: 0), .finish],
            expected: ["entrance A @0"]),
        EventsScenario(
            "an exit at exactly entrance + dwell ends the visit without a dwell", fences: [a],
            steps: [at(0, east: 0), at(60, east: 500), at(200, east: 500)],
            expected: ["entrance A @0", "exit A @60"]),
        EventsScenario(
            "a pending exit after the dwell time: dwell first, then the exit", fences: [a],
            steps: [at(0, east: 0), at(40, east: 500), at(200, east: 500)],
            expected: ["entrance A @0", "exit A @40"]),
        EventsScenario(
            "dwell falls due between fixes and carries its due time", fences: [a],
            steps: [at(0, east: 0), at(50, east: 0), at(61, east: 500), at(200, east: 500)],
            expected: ["entrance A @0", "dwell A @60", "exit A @61"]),
        EventsScenario(
            "the end of input emits a dwell that falls due later", fences: [a],
            steps: [at(0, east: 0), .finish],
            expected: ["entrance A @0", "dwell A @60"]),
        // venueConfirmed.
        EventsScenario(
            "venueConfirmed only once stopped: moving 100 m per 10 s, then still from 200 s",
            fences: [F.circle("BIG", radius: 5000)],
            steps: (0...20).map { at(Double($0 * 10), east: Double($0 * 100)) }
                + (21...40).map { at(Double($0 * 10), east: 2000) },
            expected: ["entrance BIG @0", "dwell BIG @60", "venueConfirmed BIG @340"]),
        EventsScenario(
            "never stopped: dwell but no venueConfirmed", fences: [F.circle("BIG", radius: 5000)],
            steps: (0...40).map { at(Double($0 * 10), east: Double($0 * 50)) },
            expected: ["entrance BIG @0", "dwell BIG @60"]),
        EventsScenario(
            "venueConfirmed comes after dwell, at the first fix once dwell has fired", fences: [a],
            configuration: TrackerConfiguration(dwell: 300),
            steps: (0...35).map { at(Double($0 * 10), east: 0) },
            expected: ["entrance A @0", "dwell A @300", "venueConfirmed A @300"]),
        EventsScenario(
            "with dwell disabled the stop alone confirms the venue", fences: [a],
            configuration: TrackerConfiguration(dwell: 0),
            steps: (0...20).map { at(Double($0 * 10), east: 0) },
            expected: ["entrance A @0", "venueConfirmed A @140"]),
        EventsScenario(
            "the stop must be within the visit: stopped outside before entering does not count",
            fences: [a],
            steps: (0...20).map { at(Double($0 * 10), east: 101) } + (21...40).map { at(Double($0 * 10), east: 99) },
            expected: ["entrance A @210", "dwell A @270", "venueConfirmed A @350"]),
        EventsScenario(
            "venueConfirmed once per visit, and again after a new entrance", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 10, stopSeconds: 20),
            steps: (0...6).map { at(Double($0 * 10), east: 0) } + [at(70, east: 500)]
                + (8...12).map { at(Double($0 * 10), east: 0) },
            expected: [
                "entrance A @0", "dwell A @10", "venueConfirmed A @20", "exit A @70", "entrance A @80", "dwell A @90",
                "venueConfirmed A @100",
            ]),
        // Presence.
        EventsScenario(
            "presence on request, for every fence the device is reported inside",
            fences: [F.circle("A", radius: 100), F.circle("B", radius: 100), F.circle("C", east: 1000, radius: 100)],
            configuration: TrackerConfiguration(dwell: 0),
            steps: [at(0, east: 0), .presence(5), at(10, east: 0), .presence(10)],
            expected: ["entrance A @0", "entrance B @0", "presence A @5", "presence B @5", "presence A @10", "presence B @10"]),
        EventsScenario(
            "presence on request when outside: none", fences: [a], steps: [at(0, east: 500), .presence(5)], expected: []),
        EventsScenario(
            "periodic presence: at the first fix at least presenceInterval after the entrance or the last presence",
            fences: [a], configuration: TrackerConfiguration(dwell: 0, presenceInterval: 60),
            steps: [at(0, east: 0), at(30, east: 0), at(59, east: 0), at(61, east: 0), at(100, east: 0), at(121, east: 0)],
            expected: ["entrance A @0", "presence A @61", "presence A @121"]),
        // Rejections and order.
        EventsScenario(
            "rejections: accuracy, coordinate, order; rejected fixes change nothing", fences: [a],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, maxAccuracy: 50),
            steps: [
                at(0, east: 0, accuracy: 51), .fix(Fix(timestamp: F.time(1), latitude: .nan, longitude: 10)),
                .fix(Fix(timestamp: F.time(1), latitude: 91, longitude: 10)), at(2, east: 0, accuracy: 50),
                at(1, east: 500), at(3, east: 500), .presence(2),
            ],
            expected: [
                "rejected: accuracy", "rejected: coordinate", "rejected: coordinate", "entrance A @2", "rejected: order",
                "exit A @3", "rejected: order",
            ]),
        // Order of events within one call.
        EventsScenario(
            "events of one call: by time, then fence id, then type",
            fences: [F.circle("B", radius: 100), F.circle("A", east: 600, radius: 100)],
            configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0),
            steps: [at(0, east: 0), at(5, east: 600)],
            expected: ["entrance B @0", "entrance A @5", "exit B @5"]),
        EventsScenario(
            "a positive dwell shorter than a millisecond still fires, 1 ms after the entrance",
            fences: [F.circle("A", radius: 100, dwellSeconds: 0.0001)],
            steps: [at(0, east: 0), at(1, east: 0)],
            expected: ["entrance A @0", "dwell A @0.001"]),
        EventsScenario(
            "dwell and venueConfirmed at one instant: dwell first; presence last",
            fences: [a], configuration: TrackerConfiguration(dwell: 150, presenceInterval: 150),
            steps: (0...15).map { at(Double($0 * 10), east: 0) },
            expected: ["entrance A @0", "dwell A @150", "venueConfirmed A @150", "presence A @150"]),
    ]

    @Test("scenarios", arguments: scenarios)
    func scenario(_ s: EventsScenario) throws {
        let events = try runScript(s.fences, s.configuration, s.steps)
        #expect(events == s.expected)
    }

    @Test("a rejected fix changes nothing")
    func rejectedChangesNothing() throws {
        var tracker = try DeviceTracker(fenceSet: FenceSet([Self.a]), configuration: TrackerConfiguration(maxAccuracy: 50))
        _ = try tracker.update(FixObservation(fix: F.fix(0, east: 0), nearby: [FenceDistance(slot: 0, distance: 0)]))
        _ = try tracker.update(FixObservation(fix: F.fix(10, east: 500), nearby: []))
        let before = tracker.snapshot()
        for bad in [F.fix(50, east: 0, accuracy: 80), F.fix(5, east: 0), Fix(timestamp: F.time(60), latitude: 0, longitude: 181)] {
            var events: [GeofenceEvent] = []
            let rejection = tracker.update(FixObservation(fix: bad, nearby: [FenceDistance(slot: 0, distance: 0)]), appendingTo: &events)
            #expect(rejection != nil)
            #expect(events.isEmpty)
            #expect(tracker.snapshot() == before)
        }
        var events: [GeofenceEvent] = []
        #expect(tracker.update(FixObservation(fix: F.fix(5, east: 0), nearby: []), appendingTo: &events)?.reason == .order)
    }

    @Test("the buffer to ask for: max tolerance × radius, plus accuracy with accuracyBuffer")
    func buffers() throws {
        let set = try FenceSet([F.circle("A", radius: 100), F.circle("B", radius: 300)])
        let context = try TrackerContext(
            fenceSet: set, configuration: TrackerConfiguration(enterToleranceFraction: 0.1, exitToleranceFraction: 0.2, accuracyBuffer: true))
        #expect(abs(context.buffer(slot: 0, accuracy: nil) - 20) < 1e-9)
        #expect(abs(context.buffer(slot: 1, accuracy: 15) - 75) < 1e-9)
        #expect(abs(context.maximumBuffer(accuracy: 15) - 75) < 1e-9)
        let plain = try TrackerContext(fenceSet: set)
        #expect(plain.buffer(slot: 1, accuracy: 15) == 0 && plain.maximumBuffer(accuracy: 15) == 0)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        let observation = try plain.observe(F.fix(0, east: 150), using: evaluator)
        #expect(observation.nearby.map(\.slot) == [1], "tolerance 0, no buffer: exactly the containing fences")
    }

    @Test("configuration defaults and validation")
    func configuration() throws {
        let c = TrackerConfiguration()
        #expect(c.ignorePeriod == 30 && c.dwell == 60 && c.enterToleranceFraction == 0 && c.exitToleranceFraction == 0)
        #expect(c.maxAccuracy == 1000 && !c.accuracyBuffer && c.presenceInterval == nil)
        #expect(c.stopSeconds == 140 && c.stopRadius == 70 && c.membershipTTL == 3600 && c.levelFences && c.globalFences)
        #expect(throws: TrackerConfigurationError.self) { try TrackerConfiguration(ignorePeriod: -1).validate() }
        #expect(throws: TrackerConfigurationError.self) { try TrackerConfiguration(enterToleranceFraction: .nan).validate() }
        #expect(throws: TrackerConfigurationError.self) { try TrackerConfiguration(stopRadius: 0).validate() }
        #expect(throws: TrackerConfigurationError.self) { try TrackerConfiguration(membershipTTL: .infinity).validate() }
    }

    @Test("a fix in no fence with nothing pending leaves the tracker idle")
    func idle() throws {
        var tracker = try DeviceTracker(fenceSet: FenceSet([Self.a]))
        var events: [GeofenceEvent] = []
        for s in 0..<100 {
            #expect(tracker.update(FixObservation(fix: F.fix(Double(s), east: 1000), nearby: []), appendingTo: &events) == nil)
        }
        #expect(tracker.isIdle && events.isEmpty && tracker.nextDueTime == nil)
    }
}
