/// Reads a GeoJSON fence file without building a tree of it: a FeatureCollection, or a
/// GeoJSONSeq / newline-delimited file of features (RFC 8142, records optionally prefixed
/// with RS 0x1E), told apart by the content.
///
/// The features are read in parallel on every core: the file is cut into slices, each read
/// by one thread from its first feature start (guessed for all but the first, then checked
/// when the slices are linked in order), coordinates straight into flat fence records,
/// polygons checked as they are read. Problems are reported as the tree decoder reported
/// them: per feature with its index, id and reason; a file that is not JSON, or not a
/// FeatureCollection, as a ``FileError`` with the same words as before.
package enum GeoJSONFenceReader {
    /// Largest circle radius accepted, in metres.
    package static let maximumRadius: Double = 1_000_000

    /// Property names the engine consumes; all others pass through to events (and `radius`
    /// passes through for polygons).
    package static let modelledProperties: Set<String> = ["id", "level", "library", "rank", "dwellSeconds"]

    /// What reading a file found.
    struct Decoded {
        /// The valid fences' records, slice by slice, feature indices counted over the file.
        var chunks: [FenceRecords] = []
        /// Problems of features that are not fences (structure, validity), and the ids of
        /// polygons rejected for validity (they still count in the duplicate-id check).
        var problems: [FenceValidationError.Problem] = []
        var rejected: [(ids: ByteTableBuilder, featureIndexes: [Int])] = []
        var repairs: [FenceValidationError.Problem] = []
        var featureCount = 0
        /// A failure of GEOS itself while checking polygons.
        var geometryError: GEOSErrorBox? = nil
        /// GeoJSONSeq (else a FeatureCollection).
        var isSequence = false
    }

    /// Which of the two forms a file is.
    enum Form {
        case collection
        /// A sequence whose first feature starts at this offset.
        case sequence(Int)
    }

    /// Reads `bytes` (the file `name`).
    ///
    /// - Throws: ``FileError`` when the text is not JSON or not a FeatureCollection or
    ///   sequence of features; ``GEOSError`` when GEOS itself fails.
    ///
    /// - Parameter sliceBytes: the slice size (tests use tiny ones); by default 1 to 16 MiB.
    static func read(
        _ bytes: UnsafeRawBufferPointer, name: String, checks: FenceGeometryCheck.Options, threads: Int, file: MappedFile? = nil, sliceBytes: Int? = nil
    ) throws -> Decoded {
        guard bytes.count > 0 else { throw syntaxError(bytes, name: name, at: 0) }
        var decoded: Decoded
        switch form(bytes) {
        case .sequence(let first):
            do {
                decoded = try link(
                    bytes, start: first, layout: .sequence, depth: 0, name: name, checks: checks, threads: threads, file: file,
                    sliceBytes: sliceBytes).decoded
                decoded.isSequence = true
            } catch {
                throw recordSyntaxError(bytes, name: name, error)
            }
        case .collection:
            decoded = try readCollection(bytes, name: name, checks: checks, threads: threads, file: file, sliceBytes: sliceBytes)
        }
        if let failure = decoded.geometryError { throw failure.error }
        return decoded
    }

    /// The form of the text: a sequence when it starts with RS, or when its first value is an
    /// object that is a Feature (its first telling member: `"type": "Feature"`, `geometry` or
    /// `properties`); else a FeatureCollection (whose checks then word any problem).
    static func form(_ bytes: UnsafeRawBufferPointer) -> Form {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var s = GeoJSONScanner(base: base, from: bomLength(bytes), end: bytes.count)
        s.skipWhitespace()
        if s.current == 0x1E {
            while s.i < s.end, s.base[s.i] == 0x1E || s.base[s.i] == 0x20 || s.base[s.i] == 0x0A || s.base[s.i] == 0x0D || s.base[s.i] == 0x09 { s.i += 1 }
            return .sequence(s.i)
        }
        let first = s.i
        guard s.current == UInt8(ascii: "{"), (try? s.enter(depth: 1, close: UInt8(ascii: "}"))) == false else { return .collection }
        while let name = try? s.memberName() {
            if s.equals(name, "features") { return .collection }
            if s.equals(name, "geometry") || s.equals(name, "properties") { return .sequence(first) }
            if s.equals(name, "type") {
                guard s.current == UInt8(ascii: "\""), let value = try? s.string() else { return .collection }
                return s.equals(value, "Feature") ? .sequence(first) : .collection
            }
            guard (try? s.skipValue(depth: 1)) != nil, (try? s.separator(close: UInt8(ascii: "}"))) == true else { break }
        }
        return .collection
    }

    /// The byte ranges of a GeoJSONSeq text's records (its top-level values), in order; the
    /// ranges end where the text stops being JSON.
    package static func sequenceRecords(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [] }
        var s = GeoJSONScanner(base: base, from: bomLength(bytes), end: bytes.count)
        var records: [Range<Int>] = []
        while true {
            while s.i < s.end, s.base[s.i] == 0x1E || s.base[s.i] == 0x20 || s.base[s.i] == 0x0A || s.base[s.i] == 0x0D || s.base[s.i] == 0x09 {
                s.i += 1
            }
            let start = s.i
            guard s.i < s.end, (try? s.skipValue(depth: 0)) != nil else { return records }
            records.append(start..<s.i)
        }
    }

    /// 3 when the text starts with a UTF-8 byte order mark (tolerated, as by ``JSONParser``), else 0.
    static func bomLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// A FeatureCollection: the root's members in order, each `features` array read in parallel
    /// (the last one counts); then the checks of the root.
    private static func readCollection(
        _ bytes: UnsafeRawBufferPointer, name: String, checks: FenceGeometryCheck.Options, threads: Int, file: MappedFile?, sliceBytes: Int?
    ) throws -> Decoded {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var s = GeoJSONScanner(base: base, from: bomLength(bytes), end: bytes.count)
        s.skipWhitespace()
        let first = s.current
        guard first == UInt8(ascii: "{") else {
            // Not an object: JSON's own errors first, as when the whole text was parsed.
            do throws(JSONSyntaxError) {
                try s.skipValue(depth: 0)
                s.skipWhitespace()
                if s.i < s.end { throw s.fail() }
            } catch {
                throw syntaxError(bytes, name: name, at: error.position)
            }
            throw FileError(path: name, reason: "expected a GeoJSON FeatureCollection object, found \(GeoJSONFeatureReader.typeName(first!))")
        }
        var type: Range<Int>? = nil
        var features: Decoded? = nil
        do throws(JSONSyntaxError) {
            if try !s.enter(depth: 1, close: UInt8(ascii: "}")) {
                repeat {
                    let member = try s.memberName()
                    let start = s.i
                    if s.equals(member, "features"), s.current == UInt8(ascii: "[") {
                        // The array's elements, in parallel (its `]` ends the first slice when empty).
                        s.i += 1
                        s.skipWhitespace()
                        do {
                            let (decoded, end) = try link(
                                bytes, start: s.i, layout: .array, depth: 2, name: name, checks: checks, threads: threads, file: file,
                                sliceBytes: sliceBytes)
                            features = decoded
                            s.i = end
                        } catch {
                            throw JSONSyntaxError(position: error.position)
                        }
                    } else {
                        try s.skipValue(depth: 1)
                        if s.equals(member, "type") { type = start..<s.i }
                        if s.equals(member, "features") { features = nil }
                    }
                } while try s.separator(close: UInt8(ascii: "}"))
            }
            s.skipWhitespace()
            if s.i < s.end { throw s.fail() }
        } catch {
            throw syntaxError(bytes, name: name, at: error.position)
        }
        let typeValue = type.flatMap { try? JSONParser.parse(UnsafeRawBufferPointer(start: base + $0.lowerBound, count: $0.count)) }
        guard typeValue?.stringValue == "FeatureCollection" else {
            let found = typeValue.map { JSONWriter.string($0) } ?? "no \"type\""
            throw FileError(path: name, reason: "expected a GeoJSON FeatureCollection (\"type\": \"FeatureCollection\"), found \(found)")
        }
        guard let decoded = features else {
            throw FileError(path: name, reason: "the FeatureCollection has no \"features\" array")
        }
        return decoded
    }

    /// The file error for a record of a sequence that is not JSON: ``JSONParser``'s message
    /// for the record (to the end of its line, or to the next RS), placed in the file.
    static func recordSyntaxError(_ bytes: UnsafeRawBufferPointer, name: String, _ failure: SliceSyntaxError) -> FileError {
        let start = Swift.min(failure.featureStart, bytes.count)
        var end = Swift.min(Swift.max(failure.position, start), bytes.count)
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x1E { end += 1 }
        let record = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        var line = 1, lineStart = 0
        for k in 0..<start where bytes[k] == 0x0A { line += 1; lineStart = k + 1 }
        do {
            try JSONParser.validate(record)
        } catch {
            let column = error.line == 1 ? start - lineStart + error.column : error.column
            return FileError(path: name, reason: "not valid JSON (line \(line + error.line - 1), column \(column): \(error.reason))")
        }
        return FileError(path: name, reason: "not valid JSON (at byte \(failure.position))")
    }

    /// The file error for a text that is not JSON: ``JSONParser``'s message for the whole
    /// text (the same as the tree reader gave).
    static func syntaxError(_ bytes: UnsafeRawBufferPointer, name: String, at position: Int) -> FileError {
        do {
            try JSONParser.validate(bytes)
        } catch {
            return FileError(path: name, reason: "not valid JSON (\(error))")
        }
        return FileError(path: name, reason: "not valid JSON (at byte \(position))")
    }
}
