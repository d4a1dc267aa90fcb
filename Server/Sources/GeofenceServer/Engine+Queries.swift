import Foundation
import GeofenceEngine

/// `GET /v1/nearest` and `GET /v1/plan`: the geometry a mobile app asks for, on the fence
/// set in force, with the engine's evaluator. The answers are the CLI's (`geofence nearest`,
/// `geofence plan`), as JSON.
extension Engine {
    /// `{"fenceVersion","nearest":[{"geofenceId","distance"}]}`, nearest first; distances in
    /// metres to the fence's edge (0 inside), rounded to the millimetre as the CLI rounds them.
    /// - Throws: `CoordinateError` for a bad position, or a negative count.
    func nearestJSON(latitude: Double, longitude: Double, count: Int, level: Int?) throws -> Data {
        let nearest = try evaluator.nearest(latitude: latitude, longitude: longitude, count: count, filter: NearestFilter(level: level))
        var out = "{\"fenceVersion\":\(fences.version),\"nearest\":["
        for (k, fence) in nearest.enumerated() {
            if k > 0 { out += "," }
            out += "{\"geofenceId\":"
            JSONText.appendString(fence.geofenceID, to: &out)
            out += ",\"distance\":"
            JSONText.appendNumber((fence.distance * 1000).rounded(.toNearestOrAwayFromZero) / 1000, to: &out)
            out += "}"
        }
        return Data((out + "]}").utf8)
    }

    /// The CLI's plan object, `{"monitor":[{"geofenceId","lat","lon","radius"}],
    /// "refreshRegion":{"lat","lon","radius"}|null,"add":[…],"remove":[…]}`, with
    /// `"fenceVersion"` added: the regions to register for a device at the position.
    /// - Throws: `TrackerRejection` for a bad position or accuracy.
    func planJSON(
        latitude: Double, longitude: Double, accuracy: Double, level: Int?, registered: [String], planner: RegistrationPlanner
    ) throws -> Data {
        let plan = try planner.plan(
            latitude: latitude, longitude: longitude, accuracy: accuracy, filter: NearestFilter(level: level),
            registered: registered, evaluator: evaluator)
        var out = "{\"monitor\":["
        for (k, fence) in plan.monitor.enumerated() {
            if k > 0 { out += "," }
            out += "{\"geofenceId\":"
            JSONText.appendString(fence.geofenceID, to: &out)
            out += ",\"lat\":"
            JSONText.appendNumber(fence.center.latitude, to: &out)
            out += ",\"lon\":"
            JSONText.appendNumber(fence.center.longitude, to: &out)
            out += ",\"radius\":"
            // Up: the OS's circle must hold the whole fence.
            JSONText.appendNumber((fence.radius * 1000).rounded(.up) / 1000, to: &out)
            out += "}"
        }
        out += "],\"refreshRegion\":"
        if let region = plan.refreshRegion {
            out += "{\"lat\":"
            JSONText.appendNumber(region.center.latitude, to: &out)
            out += ",\"lon\":"
            JSONText.appendNumber(region.center.longitude, to: &out)
            out += ",\"radius\":"
            // Down: the region must stop short of every fence left out.
            JSONText.appendNumber((region.radius * 1000).rounded(.down) / 1000, to: &out)
            out += "}"
        } else {
            out += "null"
        }
        out += ",\"add\":"
        JSONText.appendValue(.array(plan.add.map { .string($0) }), to: &out)
        out += ",\"remove\":"
        JSONText.appendValue(.array(plan.remove.map { .string($0) }), to: &out)
        out += ",\"fenceVersion\":\(fences.version)}"
        return Data(out.utf8)
    }
}
