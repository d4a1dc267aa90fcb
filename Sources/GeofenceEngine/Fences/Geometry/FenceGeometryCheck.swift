import GeofenceGEOS
import GeofenceGeometry

/// The geometry check of one polygon record: validity (certified in Swift, else GEOS's
/// verdict and reason), repair with GEOS MakeValid when asked, and the minimum enclosing circle.
struct FenceGeometryCheck {
    /// What a check does beyond validity.
    struct Options: Sendable {
        /// Repair invalid polygons with GEOS MakeValid instead of rejecting them.
        var repair: Bool
        /// Compute each polygon's minimum enclosing circle (its radius wherever one is needed:
        /// nearest, tolerances, event lines). Off only for a set built for containment alone
        /// (``FenceSet/Purpose/containment``).
        var enclosingCircles = true
    }

    let repair: Bool
    let enclosingCircles: Bool
    /// This thread's GEOS context, made the first time GEOS is needed.
    private var context: GEOSContext? = nil
    /// Scratch of the validity sweep and of the enclosing circle, reused from polygon to polygon.
    private var validity = PolygonValidity.Scratch()
    private var circleScratch = MinimumEnclosingCircle.Scratch()

    init(repair: Bool) { self.init(Options(repair: repair)) }

    init(_ options: Options) {
        repair = options.repair
        enclosingCircles = options.enclosingCircles
    }

    /// What became of a polygon.
    enum Verdict {
        case valid
        /// Repaired by MakeValid, which had this validity problem.
        case repaired(String)
        /// Rejected, with the reason.
        case invalid(String)
    }

    /// The rings of record `i`, by part (exterior first).
    static func parts(_ r: FenceRecords, _ i: Int) -> [[PolygonValidity.Ring]] {
        (Int(r.partStarts[i])..<Int(r.partStarts[i + 1])).map { part in
            (Int(r.ringStarts[part])..<Int(r.ringStarts[part + 1])).map { ring in
                PolygonValidity.Ring(first: Int(r.vertexStarts[ring]), count: Int(r.vertexStarts[ring + 1] - r.vertexStarts[ring]))
            }
        }
    }

    /// Checks the last record of `records` (a polygon), repairs it when asked and allowed, and
    /// fills in its enclosing circle (when asked) unless it is rejected.
    ///
    /// - Throws: ``GEOSError`` when GEOS itself fails.
    mutating func checkLast(_ records: inout FenceRecords) throws(GEOSError) -> Verdict {
        let i = records.count - 1
        var verdict = Verdict.valid
        let certified = PolygonValidity.certifies(records, i, scratch: &validity)
        if !certified {
            if context == nil { context = try GEOSContext() }
            let shape = records.shape(i)
            if let reason = try context!.validityProblem(of: shape) {
                guard repair else { return .invalid("invalid polygon: \(reason)") }
                let repaired = try context!.makeValid(shape)
                if repaired.polygons.isEmpty { return .invalid("invalid polygon (\(reason)) and MakeValid left no area") }
                records.replaceLastShape(repaired)
                verdict = .repaired(reason)
            }
        }
        guard enclosingCircles else { return verdict }
        let circle = MinimumEnclosingCircle.of(records, i, scratch: &circleScratch)
        records.circles[i] = SIMD4(circle.center.latitude, circle.center.longitude, circle.radius, 0)
        return verdict
    }
}
