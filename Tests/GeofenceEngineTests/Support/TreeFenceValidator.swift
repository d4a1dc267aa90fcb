import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry
import RealModule

@testable import GeofenceEngine

/// The validator the streaming reader replaced, kept as its twin: every polygon's validity
/// and minimum enclosing circle from GEOS (`GEOSMinimumBoundingCircle`), duplicate ids by
/// `String` equality, GEOS MakeValid for repairs.
enum TreeFenceValidator {
    /// The fences that passed, the problems of those that did not, and how many were repaired.
    struct Outcome: Sendable {
        var fences: [Fence]
        var problems: [FenceValidationError.Problem]
        /// The polygons MakeValid repaired, each with the validity problem it had.
        var repairs: [FenceValidationError.Problem]
        var repairedCount: Int { repairs.count }
    }

    /// Validates `fences` (in input order) and returns the usable ones with their enclosing
    /// circles filled in.
    ///
    /// - Parameter repair: fix invalid polygons with GEOS MakeValid instead of rejecting them.
    /// - Complexity: O(v log v) over all polygon vertices.
    static func validate(_ fences: [Fence], repair: Bool) throws(GEOSError) -> Outcome {
        // Ids first, in input order (a duplicate names the earlier feature).
        var problems: [FenceValidationError.Problem] = []
        var firstIndexOfId: [String: Int] = [:]
        var candidates: [Int] = []
        candidates.reserveCapacity(fences.count)
        for (i, fence) in fences.enumerated() {
            if fence.geofenceID.isEmpty {
                problems.append(FenceValidationError.Problem(featureIndex: fence.featureIndex, id: fence.geofenceID, reason: "id is empty"))
            } else if let first = firstIndexOfId[fence.geofenceID] {
                problems.append(FenceValidationError.Problem(
                    featureIndex: fence.featureIndex, id: fence.geofenceID,
                    reason: "duplicate id \(JSONWriter.quoted(fence.geofenceID)) (also used by feature \(first))"))
            } else {
                firstIndexOfId[fence.geofenceID] = fence.featureIndex
                candidates.append(i)
            }
        }
        // Geometry on every core, each worker with its own GEOS context; results in order.
        let chunkCount = Swift.min(candidates.count, 64)
        let results = DisjointSlots<[Checked]?>(repeating: nil, count: chunkCount)
        let failures = DisjointSlots<GEOSError?>(repeating: nil, count: chunkCount)
        let input = SharedFences(fences: fences, candidates: candidates)
        let threads = 2
        ParallelWorkers.run(count: chunkCount, threads: threads) { chunk, _ in
            let range = (input.candidates.count * chunk / chunkCount)..<(input.candidates.count * (chunk + 1) / chunkCount)
            do throws(GEOSError) {
                let context = try GEOSContext()
                results[chunk] = try range.map { k throws(GEOSError) in try check(input.fences[input.candidates[k]], repair: repair, context: context) }
            } catch {
                failures[chunk] = error
            }
        }
        if let failure = failures.storage.compactMap({ $0 }).first { throw failure }
        var kept: [Fence] = []
        var repairs: [FenceValidationError.Problem] = []
        kept.reserveCapacity(candidates.count)
        for checked in results.storage.lazy.compactMap({ $0 }).joined() {
            switch checked {
            case .kept(let fence): kept.append(fence)
            case .repaired(let fence, let reason):
                kept.append(fence)
                repairs.append(FenceValidationError.Problem(featureIndex: fence.featureIndex, id: fence.geofenceID, reason: reason))
            case .problem(let problem): problems.append(problem)
            }
        }
        return Outcome(fences: kept, problems: problems.sorted { $0.featureIndex < $1.featureIndex }, repairs: repairs)
    }

    /// One fence's geometry verdict.
    enum Checked: Sendable {
        case kept(Fence)
        case repaired(Fence, String)
        case problem(FenceValidationError.Problem)
    }

    struct SharedFences: Sendable {
        let fences: [Fence]
        let candidates: [Int]
    }

    /// Checks one fence's geometry (and repairs it when asked); fills in the enclosing circle.
    static func check(_ input: Fence, repair: Bool, context: GEOSContext) throws(GEOSError) -> Checked {
        var fence = input
        func problem(_ reason: String) -> Checked {
            .problem(FenceValidationError.Problem(featureIndex: fence.featureIndex, id: fence.geofenceID, reason: reason))
        }
        switch fence.shape {
        case .circle(let center, let radius):
            if let reason = center.invalidReason { return problem("circle centre: \(reason)") }
            guard radius.isFinite, radius > 0, radius <= GeoJSONFenceReader.maximumRadius else {
                return problem("radius \(radius) m is outside (0, 1000000]")
            }
            return .kept(fence)
        case .polygon(var shape):
            if let reason = structuralProblem(shape) { return problem(reason) }
            var repairedFrom: String? = nil
            if let reason = try context.validityProblem(of: shape) {
                guard repair else { return problem("invalid polygon: \(reason)") }
                shape = try context.makeValid(shape)
                if shape.polygons.isEmpty { return problem("invalid polygon (\(reason)) and MakeValid left no area") }
                repairedFrom = reason
                fence.shape = .polygon(shape)
            }
            fence.enclosingCircle = try enclosingCircle(of: shape, context: context)
            return repairedFrom.map { .repaired(fence, $0) } ?? .kept(fence)
        }
    }

    /// Problems GEOS would throw on rather than report: empty shapes, short or open rings,
    /// coordinates out of range (fences built in code skip the GeoJSON decoder's checks).
    static func structuralProblem(_ shape: MultiPolygon) -> String? {
        if shape.polygons.isEmpty { return "polygon has no parts" }
        for (p, polygon) in shape.polygons.enumerated() {
            for (r, ring) in polygon.rings.enumerated() {
                let name = "polygon \(p) ring \(r)"
                if ring.count < 4 { return "\(name) has \(ring.count) positions; a ring needs at least 4" }
                if ring[0] != ring[ring.count - 1] { return "\(name) is not closed" }
                for i in 0..<ring.count {
                    if let reason = ring[i].invalidReason { return "\(name) position \(i): \(reason)" }
                }
            }
        }
        return nil
    }

    /// The minimum enclosing circle of a polygon, in metres on the sphere.
    ///
    /// GEOS finds the circle in an azimuthal equidistant projection centred on the vertices'
    /// mean direction (no seam at ±180°, fine at the poles); the radius is then re-measured as
    /// the largest great-circle distance from the centre to any vertex, so the circle always
    /// holds every vertex.
    static func enclosingCircle(of shape: MultiPolygon, context: GEOSContext) throws(GEOSError) -> Fence.EnclosingCircle {
        let exteriors = shape.polygons.map(\.exterior)
        var sx = 0.0, sy = 0.0, sz = 0.0
        for ring in exteriors {
            for i in 0..<ring.count {
                let c = ring[i]
                let lat = c.latitude * Sphere.degreesToRadians, lon = c.longitude * Sphere.degreesToRadians
                sx += Double.cos(lat) * Double.cos(lon); sy += Double.cos(lat) * Double.sin(lon); sz += Double.sin(lat)
            }
        }
        let norm = (sx * sx + sy * sy + sz * sz).squareRoot()
        let mean = norm < 1e-12
            ? exteriors[0][0]
            : Coordinate(
                latitude: Double.asin(max(-1, min(1, sz / norm))) * Sphere.radiansToDegrees,
                longitude: Double.atan2(y: sy, x: sx) * Sphere.radiansToDegrees)
        let projection = LocalProjection(center: mean)
        var points: [(x: Double, y: Double)] = []
        for ring in exteriors {
            for i in 0..<ring.count { points.append(projection.project(latitude: ring[i].latitude, longitude: ring[i].longitude)) }
        }
        let planar = try context.minimumBoundingCircle(of: points)
        let center = projection.unproject(x: planar.x, y: planar.y)
        var radius = 0.0
        for ring in exteriors {
            for i in 0..<ring.count { radius = max(radius, Sphere.distance(center, ring[i])) }
        }
        // Round up to the millimetre so the circle holds every vertex despite rounding.
        return Fence.EnclosingCircle(center: center, radius: (radius * 1000).rounded(.up) / 1000 + 0.001)
    }
}
