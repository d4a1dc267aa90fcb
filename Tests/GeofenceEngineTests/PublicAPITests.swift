// This file imports GeofenceEngine alone (no GeofenceGEOS, no GeofenceGeometry): every name
// used here must reach a library user through `import GeofenceEngine`.
import Foundation
import GeofenceEngine
import Testing

@Suite("Public API: nameable errors, consistent input checks, time conveniences")
struct PublicAPITests {
    static let home = Coordinate(latitude: 40.75, longitude: -73.98)
    static func fences() throws -> FenceSet {
        try FenceSet([
            Fence(geofenceID: "home", shape: .circle(center: home, radius: 150)),
            Fence(geofenceID: "work", shape: .circle(center: Coordinate(latitude: 40.76, longitude: -73.97), radius: 100)),
        ])
    }

    /// Bad points and the reason each must give; boundary points that are valid.
    static let badPoints: [(latitude: Double, longitude: Double, reason: CoordinateError.Reason)] = [
        (.nan, 0, .latitudeNotFinite), (.infinity, 0, .latitudeNotFinite), (-.infinity, 0, .latitudeNotFinite),
        (0, .nan, .longitudeNotFinite), (0, .infinity, .longitudeNotFinite), (0, -.infinity, .longitudeNotFinite),
        (91, 0, .latitudeOutOfRange), (-91, 0, .latitudeOutOfRange), (90.000001, 0, .latitudeOutOfRange),
        (0, 181, .longitudeOutOfRange), (0, -181, .longitudeOutOfRange), (0, 180.000001, .longitudeOutOfRange),
    ]
    static let edgePoints = [Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: -90, longitude: -180)]

    /// The CoordinateError `body` throws, or nil (recording an issue) when it throws something
    /// else or nothing.
    static func coordinateError(_ what: String, _ body: () throws -> Void) -> CoordinateError? {
        do {
            try body()
            Issue.record("\(what): no error")
        } catch let error as CoordinateError {
            return error
        } catch {
            Issue.record("\(what): \(type(of: error)) \(error), not a CoordinateError")
        }
        return nil
    }

    /// The CoordinateError a `TrackerRejection.coordinate` thrown by `body` carries (a fix
    /// refused), or nil (recording an issue) for anything else.
    static func rejectedCoordinate(_ what: String, _ body: () throws -> Void) -> CoordinateError? {
        do {
            try body()
            Issue.record("\(what): no error")
        } catch let TrackerRejection.coordinate(error) {
            return error
        } catch {
            Issue.record("\(what): \(type(of: error)) \(error), not a TrackerRejection.coordinate")
        }
        return nil
    }

    @Test("GEOSError and CoordinateError are nameable with import GeofenceEngine alone")
    func errorsAreNameable() {
        func throwing(_ error: any Error) throws { throw error }
        do {
            try throwing(GEOSError(function: "GEOSContains_r", message: "test"))
            Issue.record("no error")
        } catch let error as GEOSError {
            #expect(error.description == "GEOS GEOSContains_r failed: test")
        } catch {
            Issue.record("not caught as GEOSError: \(error)")
        }
        #expect(CoordinateError(Coordinate(latitude: 91, longitude: 0))?.description == "latitude 91.0 is outside [-90, 90]")
        #expect(CoordinateError(Coordinate(latitude: 90, longitude: -180)) == nil)
    }

    @Test("the evaluator throws the CoordinateError that the monitor, the planner and the tracker's TrackerRejection.coordinate carry")
    func badPointsThrowEverywhere() throws {
        let set = try Self.fences()
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        let planner = try RegistrationPlanner(budget: .ios)
        let context = try TrackerContext(fenceSet: set)
        for bad in Self.badPoints {
            let what = "(\(bad.latitude), \(bad.longitude))"
            let fix = Fix(timestamp: Timestamp(milliseconds: 1_000), latitude: bad.latitude, longitude: bad.longitude)
            let monitor = try GeofenceMonitor(fenceSet: set)
            let errors = [
                Self.coordinateError("containingIDs \(what)") {
                    _ = try evaluator.containingIDs(latitude: bad.latitude, longitude: bad.longitude)
                },
                Self.coordinateError("nearest \(what)") {
                    _ = try evaluator.nearest(latitude: bad.latitude, longitude: bad.longitude, count: 3)
                },
                Self.coordinateError("distance \(what)") {
                    _ = try evaluator.distance(to: "home", latitude: bad.latitude, longitude: bad.longitude)
                },
                Self.rejectedCoordinate("monitor.update \(what)") { _ = try monitor.update(fix) },
                Self.rejectedCoordinate("monitor.recalculateNearby \(what)") { _ = try monitor.recalculateNearby(fix) },
                Self.rejectedCoordinate("planner \(what)") {
                    _ = try planner.plan(latitude: bad.latitude, longitude: bad.longitude, registered: [], evaluator: evaluator)
                },
            ]
            for error in errors {
                #expect(error?.reason == bad.reason, "\(what): \(String(describing: error))")
                #expect(error?.description == CoordinateError(Coordinate(latitude: bad.latitude, longitude: bad.longitude))?.description)
            }
            // A refused fix changes nothing.
            #expect(monitor.tracker.latestTime == nil, "\(what)")
            // The tracker's typed rejection carries the same error.
            var tracker = DeviceTracker(context: context)
            let observation = try context.observe(fix, using: evaluator)
            do {
                _ = try tracker.update(observation)
                Issue.record("tracker \(what): no rejection")
            } catch {
                guard case .coordinate(let inner) = error else {
                    Issue.record("tracker \(what): \(error)")
                    continue
                }
                #expect(inner.reason == bad.reason && error.reason == .coordinate, "\(what)")
            }
        }
        // The bounds themselves are valid everywhere.
        for p in Self.edgePoints {
            #expect(try evaluator.containingIDs(latitude: p.latitude, longitude: p.longitude).isEmpty)
            #expect(try evaluator.nearest(latitude: p.latitude, longitude: p.longitude, count: 1).count == 1)
            _ = try planner.plan(latitude: p.latitude, longitude: p.longitude, registered: [], evaluator: evaluator)
            _ = try GeofenceMonitor(fenceSet: set).update(Fix(timestamp: Timestamp(milliseconds: 0), latitude: p.latitude, longitude: p.longitude))
        }
    }

    @Test("nearest: a negative count throws, 0 gives nothing; results name the fence and its distance")
    func nearestResults() throws {
        let evaluator = try ContainmentEvaluator(fenceSet: try Self.fences())
        #expect(throws: ContainmentEvaluator.NearestCountError(count: -1)) {
            try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: -1)
        }
        #expect(throws: ContainmentEvaluator.NearestCountError(count: Int.min)) {
            try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: .min)
        }
        #expect(try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: 0).isEmpty)
        let near = try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: 5)
        #expect(near.map(\.geofenceID) == ["home", "work"])
        #expect(near[0].distance == 0)
        let toWork = try #require(try evaluator.distance(to: "work", latitude: 40.75, longitude: -73.98))
        #expect(near[1].distance == toWork && toWork > 1_000 && toWork < 1_400)
        #expect(try evaluator.distance(to: "nowhere", latitude: 40.75, longitude: -73.98) == nil)
    }

    @Test("Duration and Date conveniences equal the numeric forms")
    func timeConveniences() throws {
        let fromDurations = TrackerConfiguration(
            ignorePeriod: .milliseconds(1_500), dwell: .seconds(90), presenceInterval: .seconds(300),
            stopSeconds: .seconds(100), membershipTTL: nil)
        let fromSeconds = TrackerConfiguration(
            ignorePeriod: 1.5, dwell: 90, presenceInterval: 300, stopSeconds: 100, membershipTTL: nil)
        #expect(fromDurations == fromSeconds)
        #expect(TrackerConfiguration(dwell: .seconds(60)) == TrackerConfiguration())
        var c = TrackerConfiguration()
        c.dwellDuration = .milliseconds(2_250)
        c.ignorePeriodDuration = .seconds(5)
        c.presenceIntervalDuration = .seconds(7)
        #expect(c.dwell == 2.25 && c.ignorePeriod == 5 && c.presenceInterval == 7)
        #expect(c.dwellDuration == .milliseconds(2_250) && c.presenceIntervalDuration == .seconds(7))

        let date = Date(timeIntervalSince1970: 1_700_000_000.1234)
        #expect(Timestamp(date) == Timestamp(milliseconds: 1_700_000_000_123))
        #expect(Date(Timestamp(milliseconds: 1_500)) == Date(timeIntervalSince1970: 1.5))
        #expect(Timestamp(Date(Timestamp(milliseconds: -86_400_001))) == Timestamp(milliseconds: -86_400_001))
        #expect(Fix(timestamp: date, latitude: 1, longitude: 2) == Fix(timestamp: Timestamp(date), latitude: 1, longitude: 2))

        let monitor = try GeofenceMonitor(fenceSet: try Self.fences(), configuration: TrackerConfiguration(dwell: .seconds(60)))
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(try monitor.update(Fix(timestamp: start, latitude: 40.75, longitude: -73.98)).map(\.type) == [.entrance])
        #expect(try monitor.advance(to: start.addingTimeInterval(60)).map(\.type) == [.dwell])
        #expect(monitor.placesReading(at: start.addingTimeInterval(61)).current == "home")
    }

    @Test("tolerances are fractions of the radius and keep their encoded names")
    func toleranceNames() throws {
        let c = TrackerConfiguration(enterToleranceFraction: 0.2, exitToleranceFraction: 0.5)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(c)) as? [String: Any]
        #expect(json?["enterTolerance"] as? Double == 0.2 && json?["exitTolerance"] as? Double == 0.5)
        #expect(try JSONDecoder().decode(TrackerConfiguration.self, from: JSONEncoder().encode(c)) == c)
        #expect(throws: TrackerConfigurationError.self) { try TrackerConfiguration(exitToleranceFraction: -0.1).validate() }
        // A 100 m circle with exit tolerance 0.5: a fix 140 m from the centre is still inside.
        let set = try FenceSet([Fence(geofenceID: "c", shape: .circle(center: Coordinate(latitude: 0, longitude: 0), radius: 100))])
        let monitor = try GeofenceMonitor(
            fenceSet: set, configuration: TrackerConfiguration(ignorePeriod: 0, dwell: 0, exitToleranceFraction: 0.5))
        let metre = 1 / 111_195.0  // degrees of latitude per metre, near enough
        #expect(try monitor.update(Fix(timestamp: Timestamp(milliseconds: 0), latitude: 0, longitude: 0)).map(\.type) == [.entrance])
        #expect(try monitor.update(Fix(timestamp: Timestamp(milliseconds: 1_000), latitude: 140 * metre, longitude: 0)).isEmpty)
        #expect(try monitor.update(Fix(timestamp: Timestamp(milliseconds: 2_000), latitude: 160 * metre, longitude: 0)).map(\.type) == [.exit])
    }
}
