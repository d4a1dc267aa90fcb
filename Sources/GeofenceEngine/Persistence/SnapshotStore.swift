// FoundationEssentials where the toolchain has it (Linux): `Date` and the JSON coders without
// the rest of Foundation, whose libraries (and ICU's) every process otherwise loads at start.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes snapshots atomically and reads them back with clear errors.
///
/// File format: one header line of JSON —
/// `{"format":"geofence-engine snapshot","kind":"device","version":1,"bytes":N,"fnv1a64":"…"}` —
/// then the snapshot as N bytes of JSON and a line break. The header says what the file
/// holds before anything is decoded (so a wrong version is named as such), the length tells
/// a truncated file from a damaged one, and the FNV-1a checksum catches damage that still
/// parses.
///
/// Writing goes through ``AtomicFileWriter``: a temporary file beside the path with a name of
/// its own (`.<name>.geofence-tmp-<pid>-<counter>-<random>`), `fsync`, `rename` over `path`,
/// `fsync` of the folder. A crash at any point leaves either the previous snapshot or the
/// new one at `path`, never a torn one; concurrent writers to one path (threads or
/// processes) never share a temporary file, the last rename wins, and a reader always finds
/// a complete snapshot. A killed writer's temporary file is removed by the next write to
/// the same path; reading never looks at it.
public enum SnapshotStore {
    static let format = "geofence-engine snapshot"

    struct Header: Codable {
        var format: String
        var kind: String
        var version: Int
        var bytes: Int
        var fnv1a64: String
    }

    /// Writes `snapshot` to `path` atomically.
    /// - Throws: ``SnapshotError`` (`io`) naming the file and the failing step.
    public static func write<S: VersionedSnapshot>(_ snapshot: S, to path: String) throws(SnapshotError) {
        let bytes = try encode(snapshot, path: path)
        do throws(FileError) {
            let file = try AtomicFileWriter(path: path)
            try file.write(bytes)
            try file.commit()
        } catch {
            throw SnapshotError(path: path, problem: .io(error.reason))
        }
    }

    /// The snapshot as bytes, in the file format (see the type's documentation): what
    /// ``write(_:to:)`` writes, for a caller that stores or sends the bytes itself.
    /// - Throws: ``SnapshotError`` (`io`) when the snapshot cannot be encoded.
    public static func encode<S: VersionedSnapshot>(_ snapshot: S) throws(SnapshotError) -> [UInt8] {
        try encode(snapshot, path: nil)
    }

    /// Decodes bytes that ``encode(_:)`` made (or a file ``write(_:to:)`` wrote), with the
    /// checks of ``read(_:from:)``.
    /// - Throws: ``SnapshotError``: `truncated`, `wrongVersion` or `corrupt`.
    public static func decode<S: VersionedSnapshot>(_ type: S.Type, from bytes: [UInt8]) throws(SnapshotError) -> S {
        try decode(type, from: bytes, path: nil)
    }

    /// The file's bytes: the header line, the snapshot's JSON and a line break.
    static func encode<S: VersionedSnapshot>(_ snapshot: S, path: String?) throws(SnapshotError) -> [UInt8] {
        let payload: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            payload = Array(try encoder.encode(snapshot))
        } catch {
            throw SnapshotError(path: path, problem: .io("cannot encode the snapshot: \(error)"))
        }
        let header = "{\"format\":\"\(format)\",\"kind\":\"\(S.kind)\",\"version\":\(snapshot.version),"
            + "\"bytes\":\(payload.count),\"fnv1a64\":\"\(hex(fnv1a64(payload[...])))\"}\n"
        return Array(header.utf8) + payload + [0x0A]
    }

    /// Reads a snapshot of type `S` from `path`.
    /// - Throws: ``SnapshotError`` naming the file: `io` (cannot read), `truncated` (ends
    ///   early), `wrongVersion` (names both versions), `corrupt` (anything else wrong).
    public static func read<S: VersionedSnapshot>(_ type: S.Type, from path: String) throws(SnapshotError) -> S {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path) } catch {
            throw SnapshotError(path: path, problem: .io(error.reason))
        }
        return try decode(type, from: bytes, path: path)
    }

    /// Decodes a snapshot file's bytes (what ``read(_:from:)`` does once the file is read;
    /// the fuzz target's entry). Errors name `path`.
    package static func decode<S: VersionedSnapshot>(_ type: S.Type, from bytes: [UInt8], path: String?) throws(SnapshotError) -> S {
        func corrupt(_ detail: String) -> SnapshotError { SnapshotError(path: path, problem: .corrupt(detail)) }
        func truncated(_ detail: String) -> SnapshotError { SnapshotError(path: path, problem: .truncated(detail)) }
        if bytes.isEmpty { throw truncated("the file is empty") }
        guard let newline = bytes.firstIndex(of: 0x0A) else {
            throw bytes.count < 200 && bytes.first == UInt8(ascii: "{")
                ? truncated("the header line is incomplete (\(bytes.count) bytes, no line break)")
                : corrupt("no header line (not a snapshot file)")
        }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: Data(bytes[..<newline])) } catch {
            throw corrupt("the first line is not a snapshot header")
        }
        guard header.format == format else { throw corrupt("format is \(JSONWriter.quoted(header.format)), not \(JSONWriter.quoted(format))") }
        guard header.kind == S.kind else { throw corrupt("it holds a \(header.kind) snapshot, not a \(S.kind) snapshot") }
        guard header.version >= S.oldestReadableVersion && header.version <= S.currentVersion else {
            throw SnapshotError(path: path, problem: .wrongVersion(found: header.version, expected: S.currentVersion))
        }
        let body = bytes[(newline + 1)...]
        guard header.bytes >= 0 else { throw corrupt("negative payload length") }
        guard body.count >= header.bytes else {
            throw truncated("the header announces \(header.bytes) bytes of snapshot, the file holds \(body.count)")
        }
        let payload = body.prefix(header.bytes)
        guard hex(fnv1a64(payload)) == header.fnv1a64 else { throw corrupt("checksum mismatch (the content was damaged)") }
        let value: S
        do { value = try JSONDecoder().decode(S.self, from: Data(payload)) } catch {
            throw corrupt("cannot decode the \(S.kind) snapshot: \(error)")
        }
        guard value.version == header.version else {
            throw corrupt("header says version \(header.version), the snapshot \(value.version)")
        }
        return value
    }

    /// 64-bit FNV-1a of the bytes.
    static func fnv1a64(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
