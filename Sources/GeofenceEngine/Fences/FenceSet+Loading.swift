import GeofenceGEOS
import GeofenceGEOS

/// What loading a fence file found: the set of valid fences, and every problem.
public struct FenceFileReport: Sendable {
    /// Features in the file.
    public var featureCount: Int
    /// Every problem, in feature order (structural, GEOS validity, duplicate ids).
    public var problems: [FenceProblem]
    /// Polygons repaired by GEOS MakeValid (only with `repair`), with the problem each had.
    public var repairs: [FenceProblem]
    public var repairedCount: Int { repairs.count }
    /// The valid (and repaired) fences, in feature order.
    public var fences: [Fence]
    /// The parsed file, for tools that rewrite it (`geofence validate --repair --output`).
    public var document: JSONValue
}

extension FenceSet {
    /// Reads and checks a GeoJSON FeatureCollection of fences, reporting every problem.
    ///
    /// - Throws: ``FenceFileError`` when the file cannot be read, is not JSON, or is not a
    ///   FeatureCollection; ``GEOSError`` when GEOS itself fails.
    public static func inspect(path: String, repair: Bool) throws -> FenceFileReport {
        let bytes = try readFile(path)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw FenceFileError(path: path, reason: "not valid JSON (\(error))")
        }
        let decoded = try GeoJSONFenceDecoder.decode(document, path: path)
        let outcome = try FenceValidator.validate(decoded.fences, repair: repair)
        let problems = (decoded.problems + outcome.problems).sorted { $0.featureIndex < $1.featureIndex }
        return FenceFileReport(
            featureCount: decoded.fences.count + decoded.problems.count, problems: problems,
            repairs: outcome.repairs, fences: outcome.fences, document: document)
    }

    /// Loads a fence file into a set: a compiled fence file (recognised by its first bytes)
    /// is opened (``open(path:)``), anything else read as GeoJSON; any problem fails the load.
    ///
    /// - Parameter repair: for GeoJSON, fix invalid polygons with GEOS MakeValid (a compiled
    ///   file holds fences validated when it was written).
    /// - Throws: ``FenceFileError`` for an unreadable or damaged file, ``FenceValidationError``
    ///   listing every bad feature, ``GEOSError`` when GEOS fails.
    public static func load(path: String, repair: Bool = false) throws -> FenceSet {
        if isCompiled(path: path) { return try open(path: path) }
        let set = try loadKeepingFreedMemory(path: path, repair: repair)
        CHeap.returnFreedMemory()  // what loading freed goes back to the system
        return set
    }

    /// ``load(path:repair:)`` without the heap trim; the report is released on return.
    private static func loadKeepingFreedMemory(path: String, repair: Bool) throws -> FenceSet {
        let report = try inspect(path: path, repair: repair)
        if !report.problems.isEmpty { throw FenceValidationError(problems: report.problems) }
        return FenceSet(validated: report.fences, repairedCount: report.repairedCount)
    }

    /// The whole file as bytes, or a ``FenceFileError`` naming the file and the reason.
    static func readFile(_ path: String) throws(FenceFileError) -> [UInt8] {
        do {
            return try FileBytes.read(path)
        } catch {
            throw FenceFileError(path: path, reason: error.reason)
        }
    }
}
