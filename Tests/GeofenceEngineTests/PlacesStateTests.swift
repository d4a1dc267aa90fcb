import Testing
@testable import GeofenceEngine

/// Places states (semantics §6): current POI, last entered, last exited, TTL, signals.
@Suite("Places states")
struct PlacesStateTests {
    typealias F = EventsFixtures

    /// The states after each step, as `current/lastEntered/lastExited/[entered]` ("-" = none).
    static func states(_ fences: [Fence], ttl: Double? = 3600, _ steps: [(Double, EventsStep)]) throws -> [String] {
        let monitor = try GeofenceMonitor(fenceSet: FenceSet(fences), configuration: TrackerConfiguration(membershipTTL: ttl))
        var out: [String] = []
        for (readAt, step) in steps {
            do {
                _ = try runScriptStep(monitor, step)
                let r = monitor.placesReading(at: F.time(readAt))
                out.append("\(r.current ?? "-")/\(r.lastEntered ?? "-")/\(r.lastExited ?? "-")/\(r.entered.joined(separator: ","))")
            } catch let rejection as TrackerRejection {
                out.append("rejected: \(rejection.reason.rawValue)")
            }
        }
        return out
    }

    static func runScriptStep(_ monitor: GeofenceMonitor, _ step: EventsStep) throws -> [String] {
        if case .signal(let s) = step {
            try monitor.apply(s)
            return []
        }
        return try runScript(monitor, [step])
    }

    static func entry(_ id: String, _ s: Double) -> (Double, EventsStep) { (s, .signal(.entry(id, at: F.time(s)))) }
    static func exit(_ id: String, _ s: Double) -> (Double, EventsStep) { (s, .signal(.exit(id, at: F.time(s)))) }

    @Test("Adobe example 1: A and B apart")
    func adobeApart() throws {
        let fences = [F.circle("A", radius: 100), F.circle("B", east: 1000, radius: 100)]
        let got = try Self.states(fences, [Self.entry("A", 0), Self.exit("A", 10), Self.entry("B", 20)])
        #expect(got == ["A/A/-/A", "-/A/A/", "B/B/A/B"])
    }

    @Test("Adobe example 2: A (rank 1) overlaps B (rank 2)")
    func adobeOverlap() throws {
        let fences = [F.circle("A", radius: 100, rank: 1), F.circle("B", east: 50, radius: 100, rank: 2)]
        let got = try Self.states(fences, [Self.entry("A", 0), Self.entry("B", 10), Self.exit("A", 20)])
        #expect(got == ["A/A/-/A", "A/B/-/A,B", "B/B/A/B"])
    }

    @Test("the Places states follow the tracker's own entrances and exits (Adobe example 2 by fixes)")
    func fedByFixes() throws {
        let fences = [F.circle("A", radius: 100, rank: 1), F.circle("B", east: 150, radius: 100, rank: 2)]
        let config = TrackerConfiguration(ignorePeriod: 0)
        let monitor = try GeofenceMonitor(fenceSet: FenceSet(fences), configuration: config)
        var got: [String] = []
        for (s, east) in [(0.0, -50.0), (10, 75), (20, 200)] {
            _ = try monitor.update(F.fix(s, east: east))
            let r = monitor.placesReading(at: F.time(s))
            got.append("\(r.current ?? "-")/\(r.lastEntered ?? "-")/\(r.lastExited ?? "-")/\(r.entered.joined(separator: ","))")
        }
        #expect(got == ["A/A/-/A", "A/B/-/A,B", "B/B/A/B"])
    }

    @Test("current POI: rank, then radius, then most recent entry, then id")
    func currentRule() throws {
        let sameAll = [F.circle("A", radius: 100), F.circle("B", radius: 100), F.circle("C", radius: 100)]
        // Most recent entry wins among equals.
        #expect(try Self.states(sameAll, [Self.entry("A", 0), Self.entry("B", 10)]).last == "B/B/-/A,B")
        // Same entry time: id ascending.
        #expect(try Self.states(sameAll, [Self.entry("C", 0), Self.entry("B", 0)]).last == "B/B/-/B,C")
        // A repeated entry moves the entry time: A becomes the most recent.
        #expect(try Self.states(sameAll, [Self.entry("A", 0), Self.entry("B", 10), Self.entry("A", 20)]).last == "A/A/-/A,B")
        // Radius before recency.
        let radii = [F.circle("BIG", radius: 500), F.circle("SMALL", radius: 50)]
        #expect(try Self.states(radii, [Self.entry("SMALL", 0), Self.entry("BIG", 10)]).last == "SMALL/BIG/-/BIG,SMALL")
        // Rank before radius.
        let ranks = [F.circle("BIG", radius: 500, rank: -1), F.circle("SMALL", radius: 50)]
        #expect(try Self.states(ranks, [Self.entry("SMALL", 0), Self.entry("BIG", 10)]).last == "BIG/BIG/-/BIG,SMALL")
    }

    @Test("TTL: states read none after expiry, the entered set remains; expiry applies before a new signal")
    func ttl() throws {
        let fences = [F.circle("A", radius: 100), F.circle("B", radius: 200)]
        let got = try Self.states(
            fences, ttl: 3600,
            [Self.entry("A", 0), (3600, .advance(3600)), (3600.001, .advance(3600.001)), Self.exit("B", 4000), Self.entry("B", 9000)])
        #expect(got == ["A/A/-/A", "A/A/-/A", "-/-/-/A", "A/-/B/A", "A/B/-/A,B"])
    }

    @Test("TTL none: states never expire")
    func ttlNone() throws {
        let got = try Self.states([F.circle("A", radius: 100)], ttl: nil, [Self.entry("A", 0), (1e9, .advance(1e9))])
        #expect(got == ["A/A/-/A", "A/A/-/A"])
    }

    @Test("a recalculation restarts the TTL")
    func recalculationRestartsTTL() throws {
        let fences = [F.circle("A", radius: 100)]
        let got = try Self.states(
            fences, ttl: 100, [Self.entry("A", 0), (90, .nearby(F.fix(90, east: 0))), (150, .advance(150)), (191, .advance(191))])
        #expect(got == ["A/A/-/A", "A/A/-/A", "A/A/-/A", "-/-/-/A"])
    }

    @Test("unknown fence ids are an error and change nothing")
    func unknownID() throws {
        let got = try Self.states([F.circle("A", radius: 100)], [Self.entry("A", 0), Self.entry("nope", 5), Self.exit("nope", 6)])
        #expect(got == ["A/A/-/A", "rejected: unknownFence", "rejected: unknownFence"])
        var tracker = try DeviceTracker(fenceSet: FenceSet([F.circle("A", radius: 100)]))
        #expect(throws: TrackerRejection.unknownFence("nope")) { try tracker.apply(.entry("nope", at: F.time(0))) }
        #expect(tracker.latestTime == nil)
    }

    @Test("an exit for a fence not entered still becomes the last exited")
    func exitNotEntered() throws {
        let got = try Self.states([F.circle("A", radius: 100)], [Self.exit("A", 0)])
        #expect(got == ["-/-/A/"])
    }

    @Test("nearby recalculation: entered := containing fences, current by distance to the centre, no events")
    func nearby() throws {
        // Same rank and radius; the fix is 30 m from B's centre and 70 m from A's.
        let fences = [F.circle("A", radius: 100), F.circle("B", east: 100, radius: 100), F.circle("C", east: 1000, radius: 100)]
        let monitor = try GeofenceMonitor(fenceSet: FenceSet(fences))
        try monitor.apply(.entry("C", at: F.time(0)))
        let events = try monitor.recalculateNearby(F.fix(10, east: 70))
        #expect(events.isEmpty)
        let r = monitor.placesReading(at: F.time(10))
        #expect(r.current == "B" && r.entered == ["A", "B"] && r.lastEntered == "C")
        // An entry then chooses by most recent entry: the recalculated fences were entered at 10.
        try monitor.apply(.entry("C", at: F.time(20)))
        #expect(monitor.placesReading(at: F.time(20)).current == "C")
        // Recalculation keeps entry times of fences already entered.
        _ = try monitor.recalculateNearby(F.fix(30, east: 960))
        #expect(monitor.tracker.places.entered.map(\.since) == [F.time(20)])
        // The fix-driven states are untouched by signals.
        #expect(monitor.tracker.reportedInside.isEmpty)
    }

    @Test("signals older than the device's latest input are rejected (order)")
    func signalOrder() throws {
        let got = try Self.states([F.circle("A", radius: 100)], [Self.entry("A", 10), Self.exit("A", 5)])
        #expect(got == ["A/A/-/A", "rejected: order"])
    }

    @Test("PlacesState on its own: the nearby rule breaks ties by distance, then id")
    func nearbyTieByID() throws {
        let fenceSet = try FenceSet([F.circle("B", north: 50, radius: 100), F.circle("A", north: -50, radius: 100)])
        var places = PlacesState()
        places.recalculate(containing: [1, 0], position: F.point(east: 0), at: F.time(0), fences: fenceSet)
        #expect(places.current == 0)  // A: same distance, smaller id
    }
}
