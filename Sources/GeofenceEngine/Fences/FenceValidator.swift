import GeofenceGEOS
import GeofenceGeometry
import RealModule

/// Checks fences built in code as the GeoJSON reader checks a file's: coordinates, radii,
/// polygon rings, validity (certified in Swift, else GEOS), duplicate ids; repairs invalid
/// polygons with GEOS MakeValid when asked; computes each polygon's minimum enclosing circle.
package enum FenceValidator {
    /// The fences that passed, the problems of those that did not, and how many were repaired.
    package struct Outcome: Sendable {
        package var fences: [Fence]
        package var problems: [FenceValidationError.Problem]
        /// The polygons MakeValid repaired, each with the validity problem it had.
        package var repairs: [FenceValidationError.Problem]
        package var repairedCount: Int { repairs.count }
    }

    /// Validates `fences` (in input order) and returns the usable ones with their enclosing
    /// circles filled in.
    ///
    /// - Parameter repair: fix invalid polygons with GEOS MakeValid instead of rejecting them.
    /// - Complexity: O(v log v) over all polygon vertices.
    package static func validate(_ fences: [Fence], repair: Bool) throws(GEOSError) -> Outcome {
        // Ids first, in input order (a duplicate names the earlier feature); ids are equal when
        // their UTF-8 bytes are.
        var problems: [FenceValidationError.Problem] = []
        var firstIndexOfId: [[UInt8]: Int] = [:]
        var candidates: [Int] = []
        candidates.reserveCapacity(fences.count)
        for (i, fence) in fences.enumerated() {
            if fence.geofenceID.isEmpty {
                problems.append(FenceValidationError.Problem(featureIndex: fence.featureIndex, id: fence.geofenceID, reason: "id is empty"))
            } else if let first = firstIndexOfId[Array(fence.geofenceID.utf8)] {
                problems.append(FenceValidationError.Problem(
                    featureIndex: fence.featureIndex, id: fence.geofenceID,
                    reason: "duplicate id \(JSONWriter.quoted(fence.geofenceID)) (also used by feature \(first))"))
            } else {
                firstIndexOfId[Array(fence.geofenceID.utf8)] = fence.featureIndex
                candidates.append(i)
            }
        }
        // Geometry on every core, each worker with its own GEOS context; results in order.
        let chunkCount = Swift.min(candidates.count, 64)
        let results = DisjointSlots<[Checked]?>(repeating: nil, count: chunkCount)
        let failures = DisjointSlots<GEOSError?>(repeating: nil, count: chunkCount)
        let input = SharedFences(fences: fences, candidates: candidates)
        ParallelWorkers.run(count: chunkCount, threads: Platform.coreCount) { chunk, _ in
            let range = (input.candidates.count * chunk / chunkCount)..<(input.candidates.count * (chunk + 1) / chunkCount)
            var check = FenceGeometryCheck(repair: repair)
            do throws(GEOSError) {
                results[chunk] = try range.map { k throws(GEOSError) in try Self.check(input.fences[input.candidates[k]], &check) }
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
    static func check(_ input: Fence, _ check: inout FenceGeometryCheck) throws(GEOSError) -> Checked {
        var fence = input
        func problem(_ reason: String) -> Checked {
            .problem(FenceValidationError.Problem(featureIndex: fence.featureIndex, id: fence.geofenceID, reason: reason))
        }
        // As the GeoJSON reader words it: a fence built in code gets the same verdict.
        if let dwell = fence.dwellSeconds, !(dwell.isFinite && dwell >= 0) {
            return problem("dwellSeconds must be a number of seconds >= 0, found \(JSONNumber.text(dwell))")
        }
        switch fence.shape {
        case .circle(let center, let radius):
            if let reason = center.invalidReason { return problem("circle centre: \(reason)") }
            guard radius.isFinite, radius > 0, radius <= GeoJSONFenceReader.maximumRadius else {
                return problem("radius \(radius) m is outside (0, 1000000]")
            }
            return .kept(fence)
        case .polygon(let shape):
            if let reason = structuralProblem(shape) { return problem(reason) }
            var records = FenceRecords()
            records.append(fence)
            let verdict = try check.checkLast(&records)
            let c = records.circles[0]
            fence.enclosingCircle = Fence.EnclosingCircle(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
            switch verdict {
            case .valid: return .kept(fence)
            case .invalid(let reason): return problem(reason)
            case .repaired(let reason):
                fence.shape = .polygon(records.shape(0))
                return .repaired(fence, reason)
            }
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
                for i in 0..<ring.count where !ring[i].isValid {
                    return "\(name) position \(i): \(ring[i].invalidReason ?? "")"
                }
            }
        }
        return nil
    }
}
