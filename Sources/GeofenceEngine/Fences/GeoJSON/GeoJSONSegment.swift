/// The features of one slice of a fence file, read by one thread.
///
/// A slice's features are those that start in `[from, to)`: the worker finds the first
/// feature start at or after `from` (a guess, for every slice but the first), reads features
/// until the next start is at or after `to`, and says where that is. The slices are then
/// linked in order: a slice counts only if it started exactly where the one before stopped;
/// otherwise its bytes are read again from there (see ``GeoJSONFenceReader``).
struct GeoJSONSegment {
    /// Where the slice's first feature starts, nil when none was found.
    var start: Int?
    /// Where the next feature after the slice's last one starts (or the end of the sequence).
    var next: Int = 0
    /// True when the sequence ended in the slice (`]` of the features array, or the end of a
    /// GeoJSONSeq file); `next` is then just past it.
    var reachedEnd = false
    /// A syntax error in the slice (the rest of it unread), and where its feature started.
    var syntaxError: Int? = nil
    var lastStart = 0
    /// Features read (fences and problems).
    var count = 0
    var reader = GeoJSONFeatureReader()
    /// Problems with feature indices counted from the slice's first feature.
    var problems: [FenceValidationError.Problem] = []
    /// Polygons rejected by the geometry check: still part of the duplicate-id check.
    var rejected = ByteTableBuilder()
    var rejectedIndexes: [Int] = []
    /// Polygons repaired by MakeValid (indices as in `problems`).
    var repairs: [FenceValidationError.Problem] = []
    var geometryError: GEOSErrorBox? = nil

    /// How features follow one another.
    enum Layout: Sendable {
        /// Elements of a FeatureCollection's `features` array: `,` between, `]` after the last.
        case array
        /// GeoJSONSeq (RFC 8142) and newline-delimited GeoJSON: whitespace or RS (0x1E) between.
        case sequence
    }

    /// Reads the slice.
    ///
    /// - Parameters:
    ///   - first: where the first feature starts when known, else nil to look for one from
    ///     `from`.
    ///   - arrayStart: `first` is the first position of the features array, which may hold its `]`.
    ///   - depth: the nesting of a feature's container (2 in a FeatureCollection, 0 in a sequence).
    static func read(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, first: Int?, arrayStart: Bool = false, layout: Layout, depth: Int,
        checks: FenceGeometryCheck.Options
    ) -> GeoJSONSegment {
        var segment = GeoJSONSegment()
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let start = first ?? candidate(base, from: from, to: to, end: bytes.count, layout: layout) else {
            segment.next = to
            return segment
        }
        segment.start = start
        segment.reader.records.reserve(forBytes: to - start)
        var s = GeoJSONScanner(base: base, from: start, end: bytes.count)
        var check = FenceGeometryCheck(checks)
        while true {
            // At a feature (or, first in an array, possibly at its `]`).
            if arrayStart, segment.count == 0, s.current == UInt8(ascii: "]") {
                s.i += 1
                segment.reachedEnd = true
                break
            }
            segment.lastStart = s.i
            do {
                try segment.readOne(&s, depth: depth, check: &check)
                // The separator after it.
                if layout == .array {
                    if try s.separator(close: UInt8(ascii: "]")) { s.skipWhitespace() } else { segment.reachedEnd = true; break }
                } else {
                    while s.i < s.end, s.base[s.i] == 0x1E || s.base[s.i] == 0x20 || s.base[s.i] == 0x0A || s.base[s.i] == 0x0D || s.base[s.i] == 0x09 {
                        s.i += 1
                    }
                    if s.i >= s.end { segment.reachedEnd = true; break }
                }
            } catch {
                segment.syntaxError = error.position
                break
            }
            if s.i >= to { break }
        }
        segment.next = s.i
        return segment
    }

    /// Reads one feature at the scanner and files it.
    private mutating func readOne(_ s: inout GeoJSONScanner, depth: Int, check: inout FenceGeometryCheck) throws(JSONSyntaxError) {
        let index = count
        count += 1
        switch try reader.read(&s, index: index, depth: depth) {
        case .problem(let id, let reason):
            problems.append(FenceValidationError.Problem(featureIndex: index, id: id, reason: reason))
        case .fence:
            guard reader.records.isPolygon(reader.records.count - 1) else { return }
            do throws(GEOSError) {
                switch try check.checkLast(&reader.records) {
                case .valid: break
                case .repaired(let reason):
                    repairs.append(FenceValidationError.Problem(featureIndex: index, id: reader.records.ids.string(reader.records.count - 1), reason: reason))
                case .invalid(let reason):
                    let id = reader.records.ids.string(reader.records.count - 1)
                    reader.records.removeLast()
                    problems.append(FenceValidationError.Problem(featureIndex: index, id: id, reason: reason))
                    rejected.append(id)
                    rejectedIndexes.append(index)
                }
            } catch {
                if geometryError == nil { geometryError = GEOSErrorBox(error: error) }
                reader.records.removeLast()
            }
        }
    }

    /// The first plausible feature start in `[from, to)`: a `{` that follows `,` (in an array)
    /// or begins a line or an RS record (in a sequence). A guess: linking checks it.
    static func candidate(_ base: UnsafePointer<UInt8>, from: Int, to: Int, end: Int, layout: Layout) -> Int? {
        var k = Swift.max(from, 1)
        while k < to {
            if base[k] == UInt8(ascii: "{") {
                var p = k - 1
                while p > 0, base[p] == 0x20 || base[p] == 0x09 || base[p] == 0x0D || (layout == .array && base[p] == 0x0A) { p -= 1 }
                switch layout {
                case .array: if base[p] == UInt8(ascii: ",") { return k }
                case .sequence: if base[p] == 0x0A || base[p] == 0x1E { return k }
                }
            }
            k += 1
        }
        return nil
    }
}

/// A ``GEOSError`` carried out of a worker.
struct GEOSErrorBox: @unchecked Sendable {
    let error: GEOSError
}

import GeofenceGEOS
