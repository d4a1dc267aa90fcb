import ArgumentParser
import GeofenceEngine

/// The fence file and the position, shared by `nearest` and `plan`.
struct PositionArguments: ParsableArguments {
    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    // Numeric options parse `.unconditional`ly so a negative value (`--lon -97.7`) is a value,
    // not an unknown option.

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Latitude of the position, degrees (WGS84).", valueName: "degrees"))
    var lat: Double

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Longitude of the position, degrees (WGS84).", valueName: "degrees"))
    var lon: Double

    func validate() throws {
        if let reason = Coordinate(latitude: lat, longitude: lon).invalidReason { throw ValidationError("position: \(reason)") }
    }
}
