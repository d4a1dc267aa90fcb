#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fences from bytes in memory: what an app that downloads its fences holds (`Data`,
/// `[UInt8]` or any contiguous bytes), in any format a path takes.
extension FenceSet {
    /// Loads fences from `bytes`: a compiled fence file (recognised by its magic), or GeoJSON
    /// (a FeatureCollection, or GeoJSONSeq: one Feature per line). The bytes are copied or
    /// parsed; the caller may release them afterwards.
    ///
    /// - Parameters:
    ///   - name: how errors name the input (a URL, say).
    ///   - repair: fix invalid polygons with GEOS MakeValid instead of rejecting them.
    /// - Throws: ``FenceValidationError`` listing every invalid feature; ``FileError``
    ///   naming `name` for bytes that are not GeoJSON or a sound compiled file.
    /// - Complexity: O(b) for b bytes of GeoJSON plus the set's build; a compiled file is
    ///   checked and copied, not parsed.
    public static func load(bytes: some ContiguousBytes, name: String = "<bytes>", repair: Bool = false) throws -> FenceSet {
        try bytes.withUnsafeBytes { raw throws -> FenceSet in
            if FenceFileFormat.hasMagic(raw) { return try open(bytes: raw, name: name) }
            var report = try inspect(bytes: raw, name: name, repair: repair)
            if !report.problems.isEmpty { throw FenceValidationError(problems: report.problems) }
            return FenceSet(report: &report)
        }
    }

    /// The set as a compiled fence file's bytes (what ``write(to:)`` writes), for a caller
    /// that stores or sends them itself; ``load(bytes:name:repair:)`` reads them back.
    /// - Complexity: O(size).
    public func compiledBytes() -> [UInt8] {
        // Appending to an array cannot fail.
        (try? FenceFileWriter.bytes(self)) ?? []
    }
}
