import GeofenceGEOS
import GeofenceGeometry

/// What reading a fence file found: how many features, every problem, the repairs.
package struct FenceFileReport: Sendable {
    /// Features in the file.
    package var featureCount: Int
    /// Every problem, in feature order (structure, GEOS validity, duplicate ids).
    package var problems: [FenceValidationError.Problem]
    /// Polygons repaired by GEOS MakeValid (only with `repair`), with the problem each had.
    package var repairs: [FenceValidationError.Problem]
    package var repairedCount: Int { repairs.count }
    /// The valid (and repaired) fences.
    package var validCount: Int { slots.count }
    /// True when the file is GeoJSONSeq / newline-delimited (else a FeatureCollection).
    package var isSequence: Bool
    /// The valid fences' records and their slots in id order, for building the set.
    var chunks: [FenceRecords]
    var slots: [RecordReference]

    /// Every valid fence's shape (repaired ones repaired), by feature index: for
    /// `geofence validate --repair --output`.
    package var shapesByFeature: [Int: Fence.Shape] {
        var shapes: [Int: Fence.Shape] = [:]
        let valid = Set(slots.map { chunks[Int($0.chunk)].featureIndexes[Int($0.index)] })
        for chunk in chunks {
            for i in 0..<chunk.count where valid.contains(chunk.featureIndexes[i]) {
                let c = chunk.circles[i]
                shapes[chunk.featureIndexes[i]] = chunk.isPolygon(i)
                    ? .polygon(chunk.shape(i)) : .circle(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
            }
        }
        return shapes
    }
}

extension FenceSet {
    /// Reads and checks a GeoJSON fence file (a FeatureCollection, or GeoJSONSeq /
    /// newline-delimited features), reporting every problem. The file is mapped, not copied,
    /// and its features read in parallel on every core (``GeoJSONFenceReader``).
    ///
    /// - Throws: ``FileError`` when the file cannot be read, is not JSON, or is neither a
    ///   FeatureCollection nor a sequence of features; ``GEOSError`` when GEOS itself fails.
    package static func inspect(path: String, repair: Bool) throws -> FenceFileReport {
        try inspect(path: path, checks: FenceGeometryCheck.Options(repair: repair))
    }

    private static func inspect(path: String, checks: FenceGeometryCheck.Options) throws -> FenceFileReport {
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw FileError(path: path, reason: error.reason)
        }
        // Decoding allocates as it goes (records, rings, the set): asked for first, so that a
        // memory limit is a clear error, not a trap in whichever thread asked last.
        let need = file.bytes.count / 2 * 3
        if let problem = MemoryHeadroom.refusal(
            bytes: need, for: "loading \(MemoryHeadroom.mebibytes(file.bytes.count)) MiB of GeoJSON fences", advice: "raise the limit")
        {
            throw FileError(path: path, reason: problem)
        }
        return try inspect(file.bytes, name: path, checks: checks, file: file)
    }

    /// ``inspect(path:repair:)`` of bytes in memory: the entry point for tests and fuzzing of
    /// the decoder. `name` stands for the file in messages.
    /// `threads` and `sliceBytes` (the size of the slices read in parallel) are for tests.
    package static func inspect(
        bytes: UnsafeRawBufferPointer, name: String = "<bytes>", repair: Bool = false, threads: Int? = nil, sliceBytes: Int? = nil
    ) throws -> FenceFileReport {
        try inspect(bytes, name: name, checks: FenceGeometryCheck.Options(repair: repair), file: nil, threads: threads, sliceBytes: sliceBytes)
    }

    private static func inspect(
        _ bytes: UnsafeRawBufferPointer, name: String, checks: FenceGeometryCheck.Options, file: MappedFile?, threads: Int? = nil,
        sliceBytes: Int? = nil
    ) throws -> FenceFileReport {
        PhaseTrace.mark("start")
        let decoded = try GeoJSONFenceReader.read(
            bytes, name: name, checks: checks, threads: threads ?? Platform.coreCount, file: file, sliceBytes: sliceBytes)
        // Duplicate ids among every feature that got through decoding (valid or not), as the
        // validator checked them: a duplicate is reported as such, not for its geometry.
        PhaseTrace.mark("decode")
        let lists = decoded.chunks.map { ($0.ids, $0.featureIndexes) } + decoded.rejected
        let (slots, duplicates) = FenceIDOrder.resolve(lists, recordLists: decoded.chunks.count)
        let duplicated = Set(duplicates.map(\.featureIndex))
        let problems = (decoded.problems.filter { !duplicated.contains($0.featureIndex) } + duplicates)
            .sorted { $0.featureIndex < $1.featureIndex }
        let repairs = decoded.repairs.filter { !duplicated.contains($0.featureIndex) }.sorted { $0.featureIndex < $1.featureIndex }
        PhaseTrace.mark("id order")
        return FenceFileReport(
            featureCount: decoded.featureCount, problems: problems, repairs: repairs, isSequence: decoded.isSequence,
            chunks: decoded.chunks, slots: slots)
    }

    /// Loads a fence file into a set: a compiled fence file (recognised by its first bytes)
    /// is opened (``open(path:)``), anything else read as GeoJSON; any problem fails the load.
    ///
    /// - Parameters:
    ///   - repair: for GeoJSON, fix invalid polygons with GEOS MakeValid (a compiled file holds
    ///     fences validated when it was written).
    ///   - verification: for a compiled file, what opening it checks.
    /// - Throws: ``FileError`` for an unreadable or damaged file, ``FenceValidationError``
    ///   listing every bad feature, ``GEOSError`` when GEOS fails.
    public static func load(path: String, repair: Bool = false, verification: FenceSet.Verification = .full) throws -> FenceSet {
        try load(path: path, repair: repair, verification: verification, purpose: .everything)
    }

    /// What a set loaded from GeoJSON is built for.
    package enum Purpose: Sendable {
        /// Every query.
        case everything
        /// Containment alone (`geofence contains`): the polygons' enclosing circles, the
        /// R-tree (while the grid directory answers) and the event lines' fragments are not
        /// built, which were 8 % of the command with 100k fences. Any other query on such a
        /// set stops the program (``FenceStorage/requireEverything(_:)``). A compiled file
        /// holds everything either way.
        case containment
    }

    /// ``load(path:repair:verification:)`` for a purpose.
    package static func load(path: String, repair: Bool, verification: FenceSet.Verification, purpose: Purpose) throws -> FenceSet {
        if isCompiled(path: path) { return try open(path: path, verification: verification) }
        var report = try inspect(
            path: path, checks: FenceGeometryCheck.Options(repair: repair, enclosingCircles: purpose == .everything))
        if !report.problems.isEmpty { throw FenceValidationError(problems: report.problems) }
        let set = FenceSet(report: &report, purpose: purpose)
        PhaseTrace.mark("build")
        CHeap.returnFreedMemory()  // what loading freed (GEOS's geometries, the records) goes back
        PhaseTrace.mark("heap trim")
        return set
    }

    /// The set of a report without problems; the report's records are consumed.
    convenience init(report: inout FenceFileReport, purpose: Purpose = .everything) {
        let slots = report.slots
        self.init(storage: FenceSetBuilder.build(&report.chunks, slots: slots, purpose: purpose), repairedCount: report.repairedCount)
        report.chunks = []
    }
}
