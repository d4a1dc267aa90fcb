import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// Fences and fixes laid out in metres around one base point, so scenarios read as
/// "100 m east of the base".
enum EventsFixtures {
    static let base = Coordinate(latitude: 50, longitude: 10)
    static let projection = LocalProjection(center: base)

    /// The point `east` and `north` metres from the base (exact distances from the base).
    static func point(east: Double, north: Double = 0) -> Coordinate {
        projection.unproject(x: east, y: north)
    }

    /// A circle fence centred `east`/`north` metres from the base.
    static func circle(
        _ id: String, east: Double = 0, north: Double = 0, radius: Double, level: Int? = nil, rank: Int = 0,
        dwellSeconds: Double? = nil
    ) -> Fence {
        Fence(
            geofenceID: id, shape: .circle(center: point(east: east, north: north), radius: radius), level: level, rank: rank,
            dwellSeconds: dwellSeconds)
    }

    /// An axis-aligned square polygon fence with corners at ±`half` metres around a centre.
    static func square(_ id: String, east: Double = 0, north: Double = 0, half: Double, level: Int? = nil, rank: Int = 0) -> Fence {
        let corners = [(-half, -half), (half, -half), (half, half), (-half, half)].map {
            point(east: east + $0.0, north: north + $0.1)
        }
        return Fence(
            geofenceID: id, shape: .polygon(MultiPolygon(polygons: [Polygon(exterior: Ring(closing: corners))])), level: level,
            rank: rank)
    }

    /// A fix at `seconds` after the epoch, `east`/`north` metres from the base.
    static func fix(_ seconds: Double, east: Double, north: Double = 0, accuracy: Double? = nil, level: Int? = nil) -> Fix {
        let p = point(east: east, north: north)
        return Fix(
            timestamp: Timestamp(milliseconds: Int64((seconds * 1000).rounded())), latitude: p.latitude,
            longitude: p.longitude, accuracy: accuracy, level: level)
    }

    static func time(_ seconds: Double) -> Timestamp { Timestamp(milliseconds: Int64((seconds * 1000).rounded())) }
}

/// A compact text of an event for table comparisons: `"entrance A @40"` (seconds; with a
/// fraction only when there is one).
func brief(_ e: GeofenceEvent) -> String {
    let ms = e.timestamp.milliseconds
    let seconds = ms % 1000 == 0 ? "\(ms / 1000)" : "\(Double(ms) / 1000)"
    return "\(e.type.name) \(e.geofenceID) @\(seconds)"
}

/// One step of a scripted device.
enum EventsStep: Sendable {
    case fix(Fix)
    case presence(Double)
    case advance(Double)
    case signal(RegionSignal)
    case nearby(Fix)
    case finish
}

/// Runs a script through a ``GeofenceMonitor`` and returns the events in brief form, with
/// `rejected: <reason>` lines for refused steps.
func runScript(_ fences: [Fence], _ configuration: TrackerConfiguration = TrackerConfiguration(), _ steps: [EventsStep])
    throws -> [String]
{
    let monitor = try GeofenceMonitor(fenceSet: FenceSet(fences), configuration: configuration)
    return try runScript(monitor, steps)
}

func runScript(_ monitor: GeofenceMonitor, _ steps: [EventsStep]) throws -> [String] {
    var out: [String] = []
    for step in steps {
        do {
            let events: [GeofenceEvent]
            switch step {
            case .fix(let fix): events = try monitor.update(fix)
            case .presence(let s): events = try monitor.requestPresence(at: EventsFixtures.time(s))
            case .advance(let s): events = try monitor.advance(to: EventsFixtures.time(s))
            case .signal(let signal): events = try monitor.apply(signal)
            case .nearby(let fix): events = try monitor.recalculateNearby(fix)
            case .finish: events = monitor.finish()
            }
            out += events.map(brief)
        } catch let rejection as TrackerRejection {
            out.append("rejected: \(rejection.reason.rawValue)")
        } catch is CoordinateError {  // the monitor checks the position before the tracker
            out.append("rejected: \(TrackerRejection.Reason.coordinate.rawValue)")
        }
    }
    return out
}

/// Shorthand for a fix step.
func at(_ seconds: Double, east: Double, north: Double = 0, accuracy: Double? = nil, level: Int? = nil) -> EventsStep {
    .fix(EventsFixtures.fix(seconds, east: east, north: north, accuracy: accuracy, level: level))
}

/// One table row: fences, configuration, steps and the events expected (brief form).
struct EventsScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var fences: [Fence]
    var configuration = TrackerConfiguration()
    var steps: [EventsStep]
    var expected: [String]

    var testDescription: String { name }

    init(_ name: String, fences: [Fence], configuration: TrackerConfiguration = TrackerConfiguration(), steps: [EventsStep], expected: [String]) {
        self.name = name
        self.fences = fences
        self.configuration = configuration
        self.steps = steps
        self.expected = expected
    }
}
