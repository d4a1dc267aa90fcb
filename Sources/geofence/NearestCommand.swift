import ArgumentParser
import GeofenceEngine

/// `geofence nearest`: the fences nearest to one position, by distance to their edge.
struct NearestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest",
        abstract: "List the fences nearest to a position, nearest first (NDJSON).",
        discussion: """
            One line per fence: {"geofenceId":"<id>","distance":<metres>}, where distance is the \
            great-circle distance in metres from the position to the fence's edge (0 inside), \
            rounded to the millimetre; ties by id. Circles: distance to the centre minus the \
            radius. Polygons: distance to the nearest edge, within centimetres of the geodesic \
            answer for fences up to 10 km across.

            Levels follow containment: without --level only global fences (no level) count; \
            with --level L, global fences and the fences on level L.
            """
    )

    @OptionGroup var position: PositionArguments
    var fences: String { position.fences }
    var lat: Double { position.lat }
    var lon: Double { position.lon }

    @Option(name: .long, parsing: .unconditional, help: "How many fences to list (at least 1).")
    var count: Int

    @Option(name: .long, parsing: .unconditional, help: "The position's floor (integer). Default: none, so only global fences.")
    var level: Int?

    @Option(name: .long, parsing: .unconditional, help: "Only fences of this library. Default: any.")
    var library: String?

    @Option(name: .long, help: "Only fences of this kind: circle or polygon. Default: both.")
    var kind: String?

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be at least 1, found \(count)") }
        if let kind, NearestFilter.Kind(rawValue: kind) == nil {
            throw ValidationError("--kind must be circle or polygon, found \(kind)")
        }
    }

    func run() throws {
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        let filter = NearestFilter(level: level, library: library, kind: kind.flatMap(NearestFilter.Kind.init(rawValue:)))
        let found: [FenceDistance]
        do {
            let evaluator = try ContainmentEvaluator(fenceSet: fenceSet)
            found = try evaluator.nearestSlots(latitude: lat, longitude: lon, count: count, filter: filter)
        } catch {
            throw CLIError("\(error)")
        }
        var text: [UInt8] = []
        for f in found {
            text.append(contentsOf: "{\"geofenceId\":".utf8)
            JSONWriter.writeString(fenceSet.geofenceID(at: Int(f.slot)), to: &text)
            text.append(contentsOf: ",\"distance\":\(CLINumber.millimetres(f.distance, rounding: .toNearestOrAwayFromZero))}\n".utf8)
        }
        try CLIError.reporting {
            let out = OutputSink.standardOutput()
            try out.write(text)
            try out.flush()
        }
    }
}

/// Number text for the CLI's JSON.
enum CLINumber {
    /// Metres rounded to the millimetre the given way, as the shortest JSON number.
    static func millimetres(_ metres: Double, rounding: FloatingPointRoundingRule) -> String {
        JSONNumber.text((metres * 1000).rounded(rounding) / 1000)
    }

    /// Degrees, every digit kept.
    static func degrees(_ value: Double) -> String { JSONNumber.text(value) }
}
